"""Type stubs for the compiled ``fastgo.search`` module."""

from typing import (Any, Callable, ClassVar, Dict, Iterable, List, NoReturn, Optional,
                    SupportsIndex, Tuple, Union)

import numpy as np
import numpy.typing as npt

from fastgo.board import Board, Move

# PUCT's evaluator: planes [B, C, height, width] -> (priors [B, points + 1], values [B])
_Evaluator = Callable[[npt.NDArray[np.float32]], Tuple[npt.ArrayLike, npt.ArrayLike]]

# the evaluator's input encodings: name -> number of planes
ENCODINGS: Dict[str, int]
# the most visits a tree's root takes
MAX_VISITS: int
MAX_NODES: int

# Search's `avoid` as [(colour - 1) * (points + 1) + move] -> the depth the move is explored from
def _avoid_until(avoid: Any, bd: Board) -> Optional[List[int]]: ...

class SearchResult:
    # for the side to move at the root; the arrays are indexed by root child
    best_move: Optional[int]
    moves: npt.NDArray[np.int32]
    visits: npt.NDArray[np.int64]
    values: npt.NDArray[np.float64]
    priors: npt.NDArray[np.float32]
    pv: List[int]
    winrate: float
    ownership: Optional[npt.NDArray[np.float64]]    # [height, width]; None unless asked for
    playouts: int
    root_visits: int
    seconds: float
    nodes: int
    width: int
    height: int
    def __init__(self, **fields: Any) -> None: ...     # every field, by keyword
    def policy(self, temperature: float = 1.0) -> npt.NDArray[np.float64]: ...

class Search:
    bytes_per_node: ClassVar[int]
    def __init__(self, board: Board, *, evaluator: Optional[_Evaluator] = None,
                 threads: Optional[SupportsIndex] = None, seed: SupportsIndex = 0,
                 memory: SupportsIndex = 268435456, policy: str = "uniform", rave: bool = True,
                 exploration: Optional[float] = None, rave_equiv: float = 2000.0,
                 prior_visits: float = 2.0, expand_after: SupportsIndex = 2,
                 tactics: SupportsIndex = 20, batch: SupportsIndex = 256, fpu: float = 0.0,
                 virtual_loss: SupportsIndex = 1, dirichlet: Optional[Tuple[float, float]] = None,
                 encoding: str = "stones", ownership: bool = False,
                 max_moves: Optional[SupportsIndex] = None,
                 prisoners: Tuple[SupportsIndex, SupportsIndex] = (0, 0),
                 avoid: Iterable[Tuple[Union[int, str], Union[str, Iterable[Move]],
                                       SupportsIndex]] = ()) -> None: ...
    def search(self, *, visits: Optional[SupportsIndex] = None,
               playouts: Optional[SupportsIndex] = None,
               seconds: Optional[float] = None) -> SearchResult: ...
    def stop(self) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> Search: ...
    def __exit__(self, *exc: object) -> bool: ...
    @property
    def full(self) -> bool: ...
    def _limit_visits(self, n: SupportsIndex) -> None: ...
    def advance(self, move: Move) -> None: ...
    def variation(self, move: Move) -> List[int]: ...
    def result(self) -> SearchResult: ...
    # a Search cannot be copied or pickled (TypeError)
    def __copy__(self) -> NoReturn: ...
    def __deepcopy__(self, memo: Any) -> NoReturn: ...
    @property
    def board(self) -> Board: ...
    @property
    def nodes(self) -> int: ...
    @property
    def capacity(self) -> int: ...
    @property
    def threads(self) -> int: ...
    @property
    def evaluator(self) -> Optional[_Evaluator]: ...
    @property
    def encoding(self) -> str: ...
    @property
    def policy(self) -> str: ...
    @property
    def prisoners(self) -> Tuple[int, int]: ...
    @property
    def batch(self) -> int: ...
