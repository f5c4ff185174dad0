"""Type stubs for the compiled ``fastgo.playout`` module."""

from typing import Dict, Iterable, List, Optional, Sequence, SupportsIndex, Tuple, Union

import numpy as np
import numpy.typing as npt

from fastgo.board import Board, Move
from fastgo.rules import Rules

# whether this build runs kernels on OpenMP threads
OPENMP: bool
# the playout policies by name
POLICIES: Dict[str, int]
# the ko= choices of playouts and simulate: "rules" (the board's own), then fastgo.rules.KO_RULES
KO_CHOICES: Tuple[str, ...]
def ko_choice(ko: str) -> str: ...
# the cores this process may run on: no job starts more threads
CORES: int

# (for the package's other modules)
_MAX_THREADS: int
def _int(value: object, name: str, lo: int, hi: int, bounds: Optional[str] = ...) -> int: ...
def _seed(value: object) -> int: ...
def _prisoners(value: object) -> Tuple[int, int]: ...

def default_threads() -> int: ...
def policy_code(policy: str) -> int: ...

class Playouts:
    # arrays are indexed by playout
    scores: npt.NDArray[np.float64]
    winners: npt.NDArray[np.int8]
    lengths: npt.NDArray[np.int32]
    capped: npt.NDArray[np.bool_]
    ownership: Optional[npt.NDArray[np.float64]]    # [height, width]; None unless asked for
    moves: List[npt.NDArray[np.int32]]              # the recorded playouts' turns
    recorded: List[int]                             # their indices
    seconds: float
    threads: int
    def __init__(self, scores: npt.NDArray[np.float64], winners: npt.NDArray[np.int8],
                 lengths: npt.NDArray[np.int32], capped: npt.NDArray[np.bool_],
                 ownership: Optional[npt.NDArray[np.float64]], moves: List[npt.NDArray[np.int32]],
                 recorded: List[int], seconds: float, threads: int) -> None: ...
    def __len__(self) -> int: ...
    @property
    def black_wins(self) -> float: ...
    @property
    def mean_length(self) -> float: ...

def playouts(board: Board, n: SupportsIndex = 1, *, seed: SupportsIndex = 0,
             threads: Optional[SupportsIndex] = None, ko: str = "rules",
             max_moves: Optional[SupportsIndex] = None, ownership: bool = False,
             record: Union[SupportsIndex, Iterable[SupportsIndex]] = 0, first: SupportsIndex = 0,
             policy: str = "uniform",
             prisoners: Tuple[SupportsIndex, SupportsIndex] = (0, 0)) -> Playouts: ...
def simulate(n: SupportsIndex, width: SupportsIndex = 9, height: Optional[SupportsIndex] = None, *,
             rules: Union[Rules, str, None] = None, komi: Optional[float] = None,
             handicap: Union[SupportsIndex, Sequence[Move]] = 0, seed: SupportsIndex = 0,
             threads: Optional[SupportsIndex] = None, ko: str = "rules",
             max_moves: Optional[SupportsIndex] = None, ownership: bool = False,
             record: Union[SupportsIndex, Iterable[SupportsIndex]] = 0, first: SupportsIndex = 0,
             policy: str = "uniform") -> Playouts: ...
