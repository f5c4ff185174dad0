"""Feature planes for neural networks: the input encodings of AlphaGo Zero, Leela Zero, OpenSpiel
and KataGo (and the search's own three planes), computed in C by ``BoardBatch.encode`` (and for
one ``Board`` by ``encode`` here); ``Search(board, evaluator=net, encoding=name)`` hands its evaluator the same planes of each leaf
(one C encoder, ``planes.encode_planes``, serves both).

Planes are channels-first, ``[C, height, width]`` per game, indexed ``[plane, row, col]`` with row
0 at the bottom (GTP row 1), the layout of ``Board.stones()``; values are 0 or 1. "The mover" is
the player to move now, "t - k" the colouring k turns ago (passes are turns); a colouring from
before the game's set-up is all zeros.

``agz17`` (AlphaGo Zero, Silver et al. 2017): plane 2k = the mover's stones at t - k, plane
2k + 1 = the opponent's stones at t - k (k = 0..7), plane 16 = all 1 when Black is to move, all
0 when White is (pgx's colour plane has the opposite polarity).

``lz18`` (Leela Zero): plane k = the mover's stones at t - k, plane 8 + k = the opponent's stones
at t - k (k = 0..7), plane 16 = all 1 when Black is to move, plane 17 = all 1 when White is.

``openspiel4`` (OpenSpiel's ``go`` observation tensor): plane 0 = black stones, 1 = white
stones, 2 = empty points, 3 = all 1 when White is to move.

``katago`` (KataGo's spatial inputs, version 7, the 12 planes that do not need the encore,
ladders or pass-alive areas): 0 = on the board (all 1), 1 = the mover's stones, 2 = the
opponent's stones, 3 / 4 / 5 = stones of chains with exactly 1 / 2 / 3 liberties, 6 = empty
points where the ko rule forbids the mover's play now (simple ko or superko, exact, the plays
``why_illegal`` calls "ko" or "superko": with suicide allowed, a lone stone's suicide under
positional superko too; none once the game is over), 7..11 = the
point played k + 1 turns ago, k = 0..4 (7: the opponent's last move, 8: the mover's last; a
pass or a turn before the set-up marks nothing).

``stones`` (``Search``'s default): plane 0 = the mover's stones, 1 = the opponent's, 2 = all 1
when Black is to move.
"""

from __future__ import annotations  # `X | None` on Python 3.9

from typing import TYPE_CHECKING, Any, TypeVar, overload

import numpy as np
import numpy.typing as npt

from fastgo.batch import BoardBatch, ENCODINGS

if TYPE_CHECKING:
    from fastgo.board import Board

_ArrayT = TypeVar("_ArrayT", bound="npt.NDArray[Any]")

__all__ = ["ENCODINGS", "encode"]


# as BoardBatch.encode: the planes take out's dtype; without out, dtype's (default float32)
@overload
def encode(game: Board | BoardBatch, encoding: str, out: _ArrayT,
           dtype: npt.DTypeLike | None = None) -> _ArrayT: ...
@overload
def encode(game: Board | BoardBatch, encoding: str, out: None = None,
           dtype: None = None) -> npt.NDArray[np.float32]: ...
@overload
def encode(game: Board | BoardBatch, encoding: str, out: None = None,
           dtype: npt.DTypeLike | None = None) -> npt.NDArray[Any]: ...
def encode(game: Board | BoardBatch, encoding: str, out: npt.NDArray[Any] | None = None,
           dtype: npt.DTypeLike | None = None) -> npt.NDArray[Any]:
    """The planes of a ``Board`` ([C, height, width]) or of every game of a ``BoardBatch``
    ([n, C, height, width]) in `encoding`; `out` and `dtype` (default float32) as for
    ``BoardBatch.encode``. A Board is loaded into a batch of one (its game replayed, for the
    history planes and the ko memory): tens of microseconds and more as the game grows, so
    the positions along many games are encoded faster by stepping a ``BoardBatch`` through
    them and encoding the batch after each step."""
    if isinstance(game, BoardBatch):
        if out is None:
            return game.encode(encoding, dtype=dtype)
        return game.encode(encoding, out=out, dtype=dtype)
    from fastgo.board import Board
    if not isinstance(game, Board):
        raise TypeError(f"encode takes a Board or a BoardBatch, not {type(game).__name__}")
    one = BoardBatch(1, game.width, game.height, rules=game.rules, autoreset="disabled",
                     threads=1)
    one.set(0, game)
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
        shape = (ENCODINGS[encoding], game.height, game.width) if (
            isinstance(encoding, str) and encoding in ENCODINGS) else None
        if shape is not None and (out.shape != shape or not out.flags.c_contiguous):
            # (the batch of one would name its own shape, [1, C, height, width])
            raise ValueError(f"out must be a writeable C-contiguous array of shape {shape} in "
                             f"native byte order, got {out.dtype} {out.shape}")
        one.encode(encoding, out=out.reshape((1,) + out.shape), dtype=dtype)
        return out
    return one.encode(encoding, dtype=dtype)[0]
