"""Coordinates: points, (row, col) pairs and GTP vertices.

=============  ======================================  =========================
system         A1 on a 9x9 board                       J9 (top right) on 9x9
=============  ======================================  =========================
point          ``0``  (``row * width + col``)          ``80``
(row, col)     ``(0, 0)`` (row 0 is the bottom)        ``(8, 8)``
GTP vertex     ``"A1"`` (letters skip I)               ``"J9"``
pass           ``width * height``                      ``"pass"``
=============  ======================================  =========================
"""

from __future__ import annotations  # `int | None` on Python 3.9

import functools
import operator
import types
from typing import TYPE_CHECKING, Any, Mapping, SupportsIndex

import numpy as np

if TYPE_CHECKING:
    from fastgo.board import Move

#: GTP column letters: A..Z without I, enough for 25 columns.
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
MAX_SIDE = 25


def _index(value: Any, what: str) -> int:
    """An int from an int-like value (numpy integers included); bools (numpy's too, which
    numpy before 2.3 lets operator.index take) and floats are refused."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}") from None


def _flag(value: object, what: str) -> bool:
    """A bool from a bool (numpy's included); anything else is refused, even a truthy string
    such as "false" read from a configuration."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be a bool, not {type(value).__name__}")
    return bool(value)


def check_size(width: SupportsIndex, height: SupportsIndex) -> tuple[int, int]:
    """Validate a board size; return (width, height) as ints."""
    width = _index(width, "width")
    height = _index(height, "height")
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise ValueError(f"board size {width}x{height} out of range: width and height must be 1..{MAX_SIDE}")
    return width, height


def _size(width: SupportsIndex, height: SupportsIndex | None) -> tuple[int, int]:
    """check_size with the helpers' default: no height is a square board."""
    return check_size(width, width if height is None else height)


def rowcol_to_point(row: SupportsIndex, col: SupportsIndex, width: SupportsIndex,
                    height: SupportsIndex | None = None) -> int:
    """The point ``row * width + col`` of (row, col); row 0 is the bottom row. Here and in the
    other helpers, `height` defaults to `width` (a square board)."""
    row, col, (width, height) = _index(row, "row"), _index(col, "col"), _size(width, height)
    if not (0 <= col < width and 0 <= row < height):
        raise ValueError(f"(row, col) = ({row}, {col}) is off a {width}x{height} board")
    return row * width + col


def point_to_rowcol(point: SupportsIndex, width: SupportsIndex,
                    height: SupportsIndex | None = None) -> tuple[int, int]:
    """(row, col) of an on-board point."""
    point, (width, height) = _index(point, "point"), _size(width, height)
    if not 0 <= point < width * height:
        raise ValueError(f"point {point} is off a {width}x{height} board")
    return divmod(point, width)


def point_to_vertex(point: SupportsIndex, width: SupportsIndex,
                    height: SupportsIndex | None = None) -> str:
    """GTP vertex of a point: ``"A1"`` is point 0; ``width * height`` is ``"pass"``."""
    point, (width, height) = _index(point, "point"), _size(width, height)
    if point == width * height:
        return "pass"
    row, col = point_to_rowcol(point, width, height)
    return f"{COLUMNS[col]}{row + 1}"


def vertex_to_point(vertex: str, width: SupportsIndex, height: SupportsIndex | None = None) -> int:
    """Point of a GTP vertex (case-insensitive; ``"pass"`` gives ``width * height``)."""
    width, height = _size(width, height)
    if not isinstance(vertex, str):
        raise TypeError(f"vertex must be a str, not {type(vertex).__name__}")
    v = vertex.strip()
    if not v.isascii():     # (upper() made "ſ1", a long s, the vertex S1)
        raise ValueError(f"bad GTP vertex {vertex!r}")
    v = v.upper()
    if v == "PASS":
        return width * height
    col = COLUMNS.find(v[:1]) if v else -1
    digits = v[1:]
    if col < 0 or not digits.isdigit() or not digits.isascii() or digits[0] == "0":
        raise ValueError(f"bad GTP vertex {vertex!r}")
    row = int(digits) - 1
    if col >= width or row >= height:
        raise ValueError(f"vertex {vertex!r} is off a {width}x{height} board")
    return row * width + col


@functools.lru_cache(maxsize=64)
def vertex_table(width: int, height: int) -> Mapping[str, int]:
    """Every GTP vertex of a width x height board, upper and lower case, and "pass" in its usual
    spellings, mapped to its point (a read-only mapping); used for fast parsing."""
    table: dict[str, int] = {}
    for row in range(height):
        for col in range(width):
            v = f"{COLUMNS[col]}{row + 1}"
            table[v] = table[v.lower()] = row * width + col
    for p in ("pass", "PASS", "Pass"):
        table[p] = width * height
    return types.MappingProxyType(table)


def parse_move(move: Move, width: int, height: int) -> int:
    """A move given as point, (row, col), GTP vertex or "pass" -> point (pass = width * height)."""
    if type(move) is int:
        if 0 <= move <= width * height:
            return move
        raise ValueError(f"point {move} is off a {width}x{height} board (pass is {width * height})")
    if isinstance(move, str):
        return vertex_to_point(move, width, height)
    if isinstance(move, tuple):
        if len(move) != 2:
            raise ValueError(f"a (row, col) move needs two coordinates, got {move!r}")
        return rowcol_to_point(move[0], move[1], width, height)
    move = _index(move, "move")
    if 0 <= move <= width * height:
        return move
    raise ValueError(f"point {move} is off a {width}x{height} board (pass is {width * height})")


def max_fixed_handicap(width: SupportsIndex, height: SupportsIndex) -> int:
    """The most stones ``star_points`` places on a width x height board: GTP's fixed handicap
    layout is defined on square boards from 7x7 to 25x25, up to 4 stones where the side is even
    or 7 (no centre, or too little room for side stones) and 9 where it is odd; 0 elsewhere."""
    width, height = check_size(width, height)
    if width != height or width < 7:
        return 0
    return 4 if width % 2 == 0 or width == 7 else 9


def star_points(width: SupportsIndex, height: SupportsIndex, stones: SupportsIndex) -> list[int]:
    """Fixed handicap placement (GTP 2's ``fixed_handicap``): square boards from 7x7 to 25x25,
    2 .. ``max_fixed_handicap`` stones, on the third line below 13x13 and the fourth from
    13x13 up (the star points of 9x9, 13x13 and 19x19).

    The layout: 2: lower left and upper right; 3: adds upper left; 4: all corners; 5: corners
    and centre; 6: corners and the left and right sides; 7: 6 and centre; 8: corners and all
    sides; 9: all.
    """
    width, height = check_size(width, height)
    stones = _index(stones, "handicap")
    most = max_fixed_handicap(width, height)
    if not most:
        raise ValueError(f"fixed handicap needs a square board from 7x7 to 25x25, not "
                         f"{width}x{height}")
    if not 2 <= stones <= most:
        raise ValueError(f"fixed handicap on a {width}x{height} board must be 2..{most} stones, "
                         f"not {stones}")
    lo = 2 if width < 13 else 3
    hi, mid = width - 1 - lo, width // 2

    def pt(r: int, c: int) -> int:
        return r * width + c

    corners = [pt(lo, lo), pt(hi, hi), pt(hi, lo), pt(lo, hi)]
    sides_lr = [pt(mid, lo), pt(mid, hi)]
    sides_tb = [pt(lo, mid), pt(hi, mid)]
    centre = [pt(mid, mid)]
    if stones <= 4:
        return corners[:stones]
    if stones == 5:
        return corners + centre
    if stones == 6:
        return corners + sides_lr
    if stones == 7:
        return corners + sides_lr + centre
    if stones == 8:
        return corners + sides_lr + sides_tb
    return corners + sides_lr + sides_tb + centre
