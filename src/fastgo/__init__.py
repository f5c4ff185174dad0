"""fastgo: exact Go rules in Cython behind a thin Python API.

>>> import fastgo
>>> b = fastgo.Board(9)
>>> b.play("E5")
>>> b.to_move == fastgo.WHITE
True
"""

from fastgo.board import (Board, Chain, Score, is_legal_position, zobrist_key, EMPTY_ as EMPTY,
                          BLACK_ as BLACK, WHITE_ as WHITE)
from fastgo.count import (count_legal_positions, count_legal_positions_brute,
                          count_legal_positions_stats, legal_position_mask,
                          estimate_legal_fraction)
from fastgo.coords import (point_to_rowcol, rowcol_to_point, point_to_vertex, vertex_to_point,
                           star_points)
from fastgo.errors import IllegalMoveError, IllegalActionError, ConsistencyError
from fastgo.batch import BoardBatch, StepResult, random_actions
from fastgo.gametree import count_games, perft, perft_divide
from fastgo.playout import Playouts, playouts, simulate
from fastgo.rules import Rules, PRESETS
from fastgo.simulation import Simulation

__version__ = "0.1.0"

__all__ = ["Board", "Chain", "Score", "Rules", "PRESETS", "IllegalMoveError", "ConsistencyError",
           "EMPTY", "BLACK", "WHITE", "is_legal_position", "zobrist_key", "point_to_rowcol",
           "rowcol_to_point", "point_to_vertex", "vertex_to_point", "star_points", "playouts", "simulate",
           "Playouts", "Simulation",
           "count_legal_positions", "count_legal_positions_brute", "count_legal_positions_stats",
           "legal_position_mask", "estimate_legal_fraction",
           "BoardBatch", "StepResult", "IllegalActionError", "random_actions",
           "count_games", "perft", "perft_divide"]
