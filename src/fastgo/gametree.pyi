"""Type stubs for the compiled ``fastgo.gametree`` module."""

from typing import Dict, Optional, SupportsIndex, Union

from fastgo.board import Board
from fastgo.rules import Rules

MAX_DEPTH: int
MAX_GAME_COLOURINGS: int
# root nodes count_games expands before walking
ROOT_NODES: int

def perft(board: Board, depth: SupportsIndex) -> int: ...
def perft_divide(board: Board, depth: SupportsIndex) -> Dict[str, int]: ...
def count_games(width: SupportsIndex, height: Optional[SupportsIndex] = None,
                rules: Union[Rules, str, None] = None, *,
                threads: Optional[SupportsIndex] = None) -> int: ...
