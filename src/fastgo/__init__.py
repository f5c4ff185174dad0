"""fastgo: exact Go rules in Cython behind a thin Python API.

>>> import fastgo
>>> b = fastgo.Board(9)
>>> b.play("E5")
>>> b.to_move == fastgo.WHITE
True

The pure-Python submodules (``fastgo.sgf``, ``fastgo.draw``, ...) load on first use.
"""

import importlib
import os

# OpenMP threads that wait must sleep, not spin: a spinning thread takes a core from the threads
# still working (with another job on the machine, 2 threads ran slower than 1). libgomp reads
# this when it loads, with the first extension below; a policy set by the user is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from fastgo.board import (Board, Chain, Score, is_legal_position, zobrist_key, EMPTY_ as EMPTY,
                          BLACK_ as BLACK, WHITE_ as WHITE)
from fastgo.count import (count_legal_positions, count_legal_positions_brute,
                          count_legal_positions_stats, legal_position_mask,
                          estimate_legal_fraction)
from fastgo.coords import (point_to_rowcol, rowcol_to_point, point_to_vertex, vertex_to_point,
                           star_points, max_fixed_handicap)
from fastgo.errors import IllegalMoveError, IllegalActionError, ConsistencyError
from fastgo.batch import BoardBatch, StepResult, random_actions
from fastgo.gametree import count_games, perft, perft_divide
from fastgo.playout import Playouts, playouts, simulate
from fastgo.rules import Rules, PRESETS
from fastgo.search import Search, SearchResult
from fastgo.simulation import Simulation

__version__ = "0.1.0"

__all__ = ["Board", "Chain", "Score", "Rules", "PRESETS", "IllegalMoveError", "ConsistencyError",
           "EMPTY", "BLACK", "WHITE", "is_legal_position", "zobrist_key", "point_to_rowcol",
           "rowcol_to_point", "point_to_vertex", "vertex_to_point", "star_points",
           "max_fixed_handicap", "playouts", "simulate",
           "Playouts", "Search", "SearchResult", "Simulation",
           "count_legal_positions", "count_legal_positions_brute", "count_legal_positions_stats",
           "legal_position_mask", "estimate_legal_fraction",
           "BoardBatch", "StepResult", "IllegalActionError", "random_actions",
           "count_games", "perft", "perft_divide"]

#: Submodules loaded on first use (PEP 562): ``fastgo.sgf.load(path)`` works after ``import
#: fastgo`` alone, which imports none of them and so none of their optional dependencies
#: (Gymnasium, dask, ray, matplotlib, cairosvg load only with what uses them).
_LAZY_SUBMODULES = frozenset({"cluster", "draw", "envs", "features", "gtp", "player", "plot",
                              "records", "sgf"})


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"fastgo.{name}")      # which makes it an attribute
    raise AttributeError(f"module 'fastgo' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _LAZY_SUBMODULES)
