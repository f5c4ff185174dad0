"""Type stubs for the compiled ``fastgo.count`` module."""

import os
from typing import Callable, Dict, NamedTuple, Optional, SupportsIndex, Tuple, Union

import numpy as np
import numpy.typing as npt

from fastgo.coords import MAX_SIDE as MAX_SIDE

MAX_FRONTIER: int
MAX_LENGTH: int
MAX_BRUTE_POINTS: int
MAX_SAMPLES: int
MAX_SWEEP_THREADS: int
MAX_THREADS: int
PEAK_STATES: Dict[int, int]
GROWTH: float
TABLE_LOAD: float
TABLE_FULL: float
PRIMES: Tuple[int, ...]
CHECKPOINT_FORMAT: str

class CountStats(NamedTuple):
    count: int  # type: ignore[assignment]  # (the field shadows tuple.count)
    width: int
    height: int
    frontier: int
    peak_states: int
    total_states: int
    final_states: int
    table_bytes: int
    limbs: int
    threads: int
    seconds: float
    passes: int = 1

class SweepProgress(NamedTuple):
    row: int
    col: int
    rows: int
    cols: int
    states: int
    seconds: float
    eta: Optional[float]
    sweep: int = 0
    sweeps: int = 1

class LegalFractionEstimate(NamedTuple):
    width: int
    height: int
    samples: int
    legal: int
    fraction: float
    low: float
    high: float
    confidence: float
    seed: int

def default_threads() -> int: ...
# the exact sweep: threads defaults to 1 (None: all cores)
def count_legal_positions(width: SupportsIndex, height: SupportsIndex, *,
                          threads: Optional[SupportsIndex] = 1) -> int: ...
def count_legal_positions_stats(width: SupportsIndex, height: SupportsIndex, *,
                                threads: Optional[SupportsIndex] = 1,
                                checkpoint: Union[str, "os.PathLike[str]", None] = None,
                                progress: Optional[Callable[[SweepProgress], object]] = None,
                                max_bytes: Optional[SupportsIndex] = None) -> CountStats: ...
def sweep_memory(width: SupportsIndex, height: SupportsIndex,
                 limbs: Optional[SupportsIndex] = None) -> int: ...
def available_memory() -> Optional[int]: ...
# a MemoryError naming `what` when `need` bytes exceed the memory available now, else None
def memory_refusal(need: int, what: str) -> Optional[MemoryError]: ...
def count_legal_positions_brute(width: SupportsIndex, height: SupportsIndex, *,
                                threads: Optional[SupportsIndex] = ...) -> int: ...
def legal_position_mask(boards: npt.ArrayLike, *,
                        threads: Optional[SupportsIndex] = ...) -> npt.NDArray[np.bool_]: ...
def wilson_interval(successes: SupportsIndex, trials: SupportsIndex,
                    confidence: float = ...) -> Tuple[float, float]: ...
def estimate_legal_fraction(width: SupportsIndex, height: SupportsIndex, samples: SupportsIndex, *,
                            seed: SupportsIndex = ..., confidence: float = ...,
                            threads: Optional[SupportsIndex] = ...) -> LegalFractionEstimate: ...
