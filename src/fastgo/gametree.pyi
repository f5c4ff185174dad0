"""Type stubs for the compiled ``fastgo.gametree`` module."""

from typing import Dict, Optional, Union

from fastgo.board import Board
from fastgo.rules import Rules

MAX_DEPTH: int
MAX_GAME_COLOURINGS: int
# root nodes count_games expands before walking
ROOT_NODES: int

def perft(board: Board, depth: int) -> int: ...
def perft_divide(board: Board, depth: int) -> Dict[str, int]: ...
def count_games(width: int, height: Optional[int] = None,
                rules: Union[Rules, str, None] = None, *, threads: Optional[int] = None) -> int: ...
