"""The symmetries of the board: 8 for a square board (the dihedral group), 4 for a rectangle.

A symmetry is a number k in 0..7 made of three bits, applied in this order to a point (row, col)
of a board of `height` rows and `width` columns (row 0 at the bottom, as everywhere in fastgo):

====  ==================================================  ===========================
k     what it does                                        inverse
====  ==================================================  ===========================
0     identity                                            0
1     mirror rows: row -> height - 1 - row                1
2     mirror columns: col -> width - 1 - col              2
3     both mirrors (a half turn)                          3
4     transpose: (row, col) -> (col, row)                 4
5     transpose, then mirror rows (a quarter turn)        6
6     transpose, then mirror columns (the other turn)     5
7     transpose, then both mirrors (the anti-diagonal)    7
====  ==================================================  ===========================

Symmetries 4..7 swap width and height, so a rectangular board has only 0..3. The pass is fixed by
every symmetry. Arrays carry the board in their last two axes ``[..., height, width]`` (planes,
stones) or their last axis ``[..., points + 1]`` (legal masks, policies, the pass last).

Feature planes commute with symmetries: ``transform_planes(encode(b), k) ==
encode(transform_board(b, k))`` for every encoding (the tests check it).
"""

from __future__ import annotations  # `X | None` on Python 3.9

from typing import TYPE_CHECKING, Any, Sequence, SupportsIndex, TypeVar, Union, overload

import numpy as np
import numpy.typing as npt

from fastgo.coords import _index, check_size
from fastgo.errors import ArgumentTypeError

if TYPE_CHECKING:
    from fastgo.board import Board

_ScalarT = TypeVar("_ScalarT", bound=np.generic)
#: a symmetry: an int 0..7 (a Python or numpy integer)
_Symmetry = Union[int, "np.integer[Any]"]
#: what ``random_transform``'s rng takes: what ``numpy.random.default_rng`` takes
_RngLike = Union[int, "np.integer[Any]", Sequence[int], np.random.SeedSequence,
                np.random.BitGenerator, np.random.Generator, None]

__all__ = ["INVERSE", "symmetries", "inverse", "transform_planes", "transform_policy",
           "transform_move", "transform_board", "random_transform"]

#: INVERSE[k]: the symmetry that undoes k
INVERSE = (0, 1, 2, 3, 4, 6, 5, 7)


def symmetries(width: SupportsIndex, height: SupportsIndex) -> range:
    """The symmetries of a width x height board: range(8) when square, else range(4)."""
    width, height = check_size(width, height)
    return range(8) if width == height else range(4)


def inverse(k: _Symmetry) -> int:
    """The symmetry that undoes k."""
    return INVERSE[_check_k(k)]


def _check_k(k: object, height: int | None = None, width: int | None = None) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise ArgumentTypeError(f"a symmetry is an int 0..7, not {k!r}")
    if not 0 <= k < 8:
        raise ValueError(f"a symmetry is an int 0..7, not {k!r}")
    if k >= 4 and height is not None and height != width:
        raise ValueError(f"symmetry {k} transposes: a {width}x{height} board has only 0..3")
    return int(k)


@overload
def transform_planes(x: np.ndarray[Any, np.dtype[_ScalarT]],
                     k: _Symmetry) -> npt.NDArray[_ScalarT]: ...
@overload
def transform_planes(x: npt.ArrayLike, k: _Symmetry) -> npt.NDArray[Any]: ...
def transform_planes(x: npt.ArrayLike, k: _Symmetry) -> npt.NDArray[Any]:
    """x [..., height, width] under symmetry k (a view where numpy can make one)."""
    x = np.asarray(x)
    if x.ndim < 2:
        raise ValueError("planes need at least two axes [..., height, width]")
    k = _check_k(k, x.shape[-2], x.shape[-1])
    if k & 4:
        x = np.swapaxes(x, -1, -2)
    if k & 1:
        x = x[..., ::-1, :]
    if k & 2:
        x = x[..., :, ::-1]
    return x


@overload
def transform_policy(p: np.ndarray[Any, np.dtype[_ScalarT]], k: _Symmetry, width: SupportsIndex,
                     height: SupportsIndex) -> npt.NDArray[_ScalarT]: ...
@overload
def transform_policy(p: npt.ArrayLike, k: _Symmetry, width: SupportsIndex,
                     height: SupportsIndex) -> npt.NDArray[Any]: ...
def transform_policy(p: npt.ArrayLike, k: _Symmetry, width: SupportsIndex,
                     height: SupportsIndex) -> npt.NDArray[Any]:
    """A legal mask or policy [..., width * height + 1] (or [..., width * height], no pass)
    under symmetry k: the value for point q moves to transform_move(q, k); the pass stays."""
    width, height = check_size(width, height)
    p = np.asarray(p)
    n = width * height
    if p.ndim < 1 or p.shape[-1] not in (n, n + 1):
        raise ValueError(f"a policy's last axis must be {n + 1} (or {n}) long, got {p.shape}")
    k = _check_k(k, height, width)
    board = p[..., :n].reshape(p.shape[:-1] + (height, width))
    out = np.empty_like(p)
    out[..., :n] = transform_planes(board, k).reshape(p.shape[:-1] + (n,))
    if p.shape[-1] == n + 1:
        out[..., n] = p[..., n]
    return out


def transform_move(point: SupportsIndex, k: _Symmetry, width: SupportsIndex,
                   height: SupportsIndex) -> int:
    """The point `point` moves to under symmetry k (the pass, width * height, stays)."""
    width, height = check_size(width, height)
    point = _index(point, "point")      # (1.5 and True were taken as point 1)
    k = _check_k(k, height, width)
    if point == width * height:
        return point
    if not 0 <= point < width * height:
        raise ValueError(f"point {point} out of range for a {width}x{height} board")
    r, c = divmod(int(point), width)
    h, w = height, width
    if k & 4:
        r, c, h, w = c, r, w, h
    if k & 1:
        r = h - 1 - r
    if k & 2:
        c = w - 1 - c
    return r * w + c


def transform_board(board: Board, k: _Symmetry) -> Board:
    """A new Board: `board`'s set-up and turns under symmetry k (same rules). Legality, captures
    and scores are invariant, so the turns replay legally."""
    from fastgo.board import Board
    if not isinstance(board, Board):
        raise TypeError(f"board must be a fastgo.Board, not {type(board).__name__}")
    w, h = board.width, board.height
    k = _check_k(k, h, w)
    nw, nh = (h, w) if k & 4 else (w, h)
    out = Board.from_array(np.ascontiguousarray(transform_planes(board.start_position(), k)),
                           to_move=board.first_player, rules=board.rules)
    assert (out.width, out.height) == (nw, nh)
    for m in board.history:
        out.play(transform_move(m, k, w, h))
    return out


@overload
def random_transform(planes: np.ndarray[Any, np.dtype[_ScalarT]], policy: None = None, *,
                     rng: _RngLike = None
                     ) -> tuple[npt.NDArray[np.int64], npt.NDArray[_ScalarT], None]: ...
@overload
def random_transform(planes: np.ndarray[Any, np.dtype[_ScalarT]], policy: npt.ArrayLike, *,
                     rng: _RngLike = None
                     ) -> tuple[npt.NDArray[np.int64], npt.NDArray[_ScalarT], npt.NDArray[Any]]: ...
@overload
def random_transform(planes: npt.ArrayLike, policy: npt.ArrayLike | None = None, *,
                     rng: _RngLike = None
                     ) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any],
                                npt.NDArray[Any] | None]: ...
def random_transform(planes: npt.ArrayLike, policy: npt.ArrayLike | None = None, *,
                     rng: _RngLike = None
                     ) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any],
                                npt.NDArray[Any] | None]:
    """Data augmentation: each sample i of planes [n, C, height, width] (and of policy
    [n, points + 1], if given) under its own uniformly drawn symmetry ks[i] of the board.
    Returns (ks, planes', policy'), policy' None when no policy was given; undo with
    INVERSE[ks[i]]."""
    planes = np.asarray(planes)
    if planes.ndim != 4:
        raise ValueError("planes must be [n, C, height, width]")
    n, _, h, w = planes.shape
    if policy is not None:
        policy = np.asarray(policy)
        if policy.shape != (n, w * h + 1):
            raise ValueError(f"policy must be [n, points + 1] = [{n}, {w * h + 1}], a row for each "
                             f"of the planes' {n} samples, got {list(policy.shape)}")
    rng = np.random.default_rng(rng)
    ks = rng.integers(0, len(symmetries(w, h)), size=(n,))
    out = np.empty_like(planes)
    pol = None if policy is None else np.empty_like(policy)
    for k in np.unique(ks):
        idx = np.flatnonzero(ks == k)
        out[idx] = transform_planes(planes[idx], int(k))
        if pol is not None and policy is not None:     # (both or neither)
            pol[idx] = transform_policy(policy[idx], int(k), w, h)
    return ks, out, pol
