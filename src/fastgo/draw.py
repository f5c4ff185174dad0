"""Boards you can look at: SVG pictures of a ``Board`` (Jupyter shows ``Board`` objects with
them, through ``Board._repr_svg_``), with an ownership map and marked points.

``svg(board)`` draws the grid, star points, stones, a dot on the last move and the GTP
coordinates (columns A.. without I, rows from 1 at the bottom, as ``point_to_vertex`` writes
them). Plain SVG 1.1 with no script and no external reference, so any browser, Jupyter or
cairosvg shows it. Each element carries a class that says what it is (``stone black``,
``stone white``, ``last-move``, ``mark``, ``label``, ``ownership black``, ``coordinate``), for
styling and for tests. ``rgb(board)`` is the same board as an RGB numpy image (no text), for
videos and Gymnasium's ``rgb_array`` rendering.
"""

import math
from xml.sax.saxutils import escape

import numpy as np

from fastgo.board import Board
from fastgo.coords import point_to_vertex, star_points, vertex_to_point
from fastgo.errors import install_hint, unmasked

#: Pixels between two lines of the grid (the picture scales: it is SVG).
CELL = 24
#: Colours: the board, its lines, the stones, the marks.
WOOD, LINE, BLACK_FILL, WHITE_FILL, MARK = "#dcb35c", "#000000", "#000000", "#ffffff", "#d62828"


def _check_board(board):
    if not isinstance(board, Board):
        raise TypeError(f"board must be a fastgo.Board, not {type(board).__name__}")


def _stars(w, h):
    """The star points drawn: GTP's fixed handicap points, 9 on odd boards from 13x13, 5 on odd
    ones from 9x9, else 4; none where there are none (rectangles, boards under 7x7)."""
    try:
        return star_points(w, h, 9 if min(w, h) >= 13 and w % 2 and h % 2 else
                           5 if w % 2 and h % 2 and min(w, h) >= 9 else 4)
    except ValueError:
        return []


def _point(p, width, height, what):
    """A point given as an int (``row * width + col``) or a GTP vertex ("D4"); not the pass."""
    if isinstance(p, str):
        q = vertex_to_point(p, width, height)
    elif isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"{what} must be points (int) or vertices (str), not {type(p).__name__}")
    else:
        q = int(p)
    if not 0 <= q < width * height:
        raise ValueError(f"{what}: {p!r} is not a point of the {width}x{height} board")
    return q


def svg(board, ownership=None, marks=None, coordinates=True, last_move=True):
    """An SVG picture (str) of `board`.

    ownership
        None, or floats [height, width] (or [points], row 0 at the bottom) in -1..1: +1 Black
        owns the point, -1 White; integers as colours 0/1/2 (``Score.ownership``) or signs
        -1/0/1 are accepted too. A square on each point, black or white, its side growing with
        the value's magnitude.
    marks
        None, a point or vertex, an iterable of them (each drawn as a red ring), or a dict of
        point or vertex -> short label text (drawn on the point, in red). One vertex is one
        mark: ``marks="D4"`` is ``marks=["D4"]``.
    coordinates
        Letters and numbers around the board.
    last_move
        A dot on the stone the last move placed."""
    _check_board(board)
    w, h = board.width, board.height
    margin = CELL if coordinates else CELL // 2
    width_px, height_px = 2 * margin + (w - 1) * CELL, 2 * margin + (h - 1) * CELL

    def xy(p):
        row, col = divmod(p, w)
        return margin + col * CELL, margin + (h - 1 - row) * CELL

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width_px}" '
           f'height="{height_px}" viewBox="0 0 {width_px} {height_px}">',
           f'<rect class="board" x="0" y="0" width="{width_px}" height="{height_px}" '
           f'fill="{WOOD}"/>']
    x0, y0 = xy((h - 1) * w)                              # top left
    x1, y1 = xy(w - 1)                                    # bottom right
    for col in range(w):
        x = x0 + col * CELL
        out.append(f'<line class="grid" x1="{x}" y1="{y0}" x2="{x}" y2="{y1}" stroke="{LINE}" '
                   'stroke-width="1"/>')
    for row in range(h):
        y = y0 + row * CELL
        out.append(f'<line class="grid" x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="{LINE}" '
                   'stroke-width="1"/>')
    for p in _stars(w, h):
        x, y = xy(p)
        out.append(f'<circle class="star" cx="{x}" cy="{y}" r="{CELL * 0.1:g}" fill="{LINE}"/>')
    if coordinates:
        letters = [point_to_vertex(c, w, h)[0] for c in range(w)]   # row 0: "A1" -> "A"
        style = (f'font-family="sans-serif" font-size="{CELL * 0.5:g}" text-anchor="middle" '
                 f'dominant-baseline="central" fill="{LINE}"')
        for col, letter in enumerate(letters):
            x = x0 + col * CELL
            for y in (margin / 2, height_px - margin / 2):
                out.append(f'<text class="coordinate" x="{x}" y="{y:g}" {style}>{letter}</text>')
        for row in range(h):
            y = y0 + (h - 1 - row) * CELL
            for x in (margin / 2, width_px - margin / 2):
                out.append(f'<text class="coordinate" x="{x:g}" y="{y}" {style}>{row + 1}</text>')
    if ownership is not None:
        given = unmasked(ownership, "ownership")
        if given.dtype.kind not in "biuf":
            raise TypeError(f"ownership must be an array of numbers, not {given.dtype}")
        own = given.astype(np.float64)
        if own.shape not in ((h, w), (w * h,)):
            raise ValueError(f"ownership must have shape ({h}, {w}) or ({w * h},), not {own.shape}")
        if own.dtype.kind == "f" and not np.isfinite(own).all():
            raise ValueError("ownership must be finite")
        own = own.reshape(-1)
        if np.issubdtype(given.dtype, np.integer):
            # colours 0/1/2 (Score.ownership) or signs -1/0/1 (a rounded Playouts.ownership):
            # they agree on 0 and 1, and a 2 or a -1 tells which
            values = set(np.unique(own).tolist())
            if not values <= {-1, 0, 1}:
                if not values <= {0, 1, 2}:
                    raise ValueError("an integer ownership map holds colours 0/1/2 (1 Black) or "
                                     f"signs -1/0/1 (+1 Black), not {sorted(values)}")
                own = np.where(own == 1, 1.0, np.where(own == 2, -1.0, 0.0))
        for p in np.flatnonzero(own):
            v = float(np.clip(own[p], -1, 1))
            side = CELL * 0.6 * math.sqrt(abs(v))
            if side < 0.5:
                continue
            x, y = xy(int(p))
            colour = "black" if v > 0 else "white"
            out.append(f'<rect class="ownership {colour}" x="{x - side / 2:.2f}" '
                       f'y="{y - side / 2:.2f}" width="{side:.2f}" height="{side:.2f}" '
                       f'fill="{BLACK_FILL if v > 0 else WHITE_FILL}" fill-opacity="0.6"/>')
    stones = board.stones().reshape(-1)
    r = CELL * 0.47
    for p in np.flatnonzero(stones):
        x, y = xy(int(p))
        if stones[p] == 1:
            out.append(f'<circle class="stone black" cx="{x}" cy="{y}" r="{r:g}" '
                       f'fill="{BLACK_FILL}"/>')
        else:
            out.append(f'<circle class="stone white" cx="{x}" cy="{y}" r="{r:g}" '
                       f'fill="{WHITE_FILL}" stroke="{LINE}" stroke-width="1"/>')
    history = board.history
    if last_move and len(history) and history[-1] != board.pass_move and stones[history[-1]]:
        p = int(history[-1])
        x, y = xy(p)
        dot = WHITE_FILL if stones[p] == 1 else BLACK_FILL
        out.append(f'<circle class="last-move" cx="{x}" cy="{y}" r="{CELL * 0.15:g}" fill="{dot}"/>')
    if marks is not None:
        if isinstance(marks, (bytes, bytearray)):
            raise TypeError(f"marks must be a point, a vertex (a str), an iterable of them or a "
                            f"dict, not {type(marks).__name__}")
        if isinstance(marks, (str, int, np.integer)):
            marks = [marks]             # one move (a str is a vertex, not its letters)
        elif not isinstance(marks, dict) and not hasattr(marks, "__iter__"):
            raise TypeError(f"marks must be a point, a vertex, an iterable of them or a dict, "
                            f"not {type(marks).__name__}")
        labels = marks if isinstance(marks, dict) else {m: None for m in marks}
        for m, label in labels.items():
            x, y = xy(_point(m, w, h, "marks"))
            if label is None:
                out.append(f'<circle class="mark" cx="{x}" cy="{y}" r="{CELL * 0.3:g}" '
                           f'fill="none" stroke="{MARK}" stroke-width="2"/>')
            else:
                out.append(f'<text class="label" x="{x}" y="{y}" font-family="sans-serif" '
                           f'font-size="{CELL * 0.55:g}" font-weight="bold" text-anchor="middle" '
                           f'dominant-baseline="central" fill="{MARK}">{escape(str(label))}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _rgb(hex_colour):
    return np.array([int(hex_colour[k:k + 2], 16) for k in (1, 3, 5)], dtype=np.float64)


def rgb(board, cell=CELL):
    """The board as an RGB image, uint8 [(height + 1) * cell, (width + 1) * cell, 3], row 1 at
    the bottom as ``svg`` draws it: the grid, star points and the stones (edges smoothed), with
    no text, so that it needs nothing beyond numpy (Gymnasium's ``render_mode="rgb_array"``;
    ``svg`` or ``png`` for pictures with coordinates and marks). `cell`: pixels between two
    lines, 8..128."""
    _check_board(board)
    if isinstance(cell, (bool, np.bool_)) or not isinstance(cell, (int, np.integer)):
        raise TypeError(f"cell must be an int in 8..128, not {type(cell).__name__}")
    if not 8 <= cell <= 128:
        raise ValueError(f"cell must be an int in 8..128, not {cell!r}")
    cell = int(cell)
    stones = board.stones()[::-1]           # image rows from the top
    h, w = stones.shape
    stars = np.zeros((h, w), dtype=bool)
    for p in _stars(w, h):
        stars[h - 1 - p // w, p % w] = True
    img = np.empty(((h + 1) * cell, (w + 1) * cell, 3), dtype=np.uint8)
    for band in range(h + 1):               # a band of pixel rows at a time: bounded memory
        img[band * cell:(band + 1) * cell] = _rgb_band(stones, stars, cell, band)
    return img


def _rgb_band(stones, stars, cell, band):
    """rgb's pixel rows band * cell .. (band + 1) * cell."""
    h, w = stones.shape
    # each pixel's centre in grid units (intersection (r, c) at ((c + 1) * cell, (r + 1) * cell))
    fy, fx = (np.indices((cell, (w + 1) * cell)) + 0.5) / cell - 1
    fy += band
    r, c = np.rint(fy).astype(np.int64), np.rint(fx).astype(np.int64)
    near = (r >= 0) & (r < h) & (c >= 0) & (c < w)
    rc, cc = np.clip(r, 0, h - 1), np.clip(c, 0, w - 1)
    img = np.empty(fy.shape + (3,))
    img[:] = _rgb(WOOD)
    half = 0.6 / cell                       # lines 1.2 pixels wide
    span_x = (fx > -half) & (fx < w - 1 + half)
    span_y = (fy > -half) & (fy < h - 1 + half)
    line = near & (((np.abs(fx - c) < half) & span_y) | ((np.abs(fy - r) < half) & span_x))
    dist = np.hypot(fx - c, fy - r) * cell  # pixels to the nearest intersection
    line |= near & stars[rc, cc] & (dist < 0.1 * cell + 0.5)
    img[line] = _rgb(LINE)
    colour = np.where(near, stones[rc, cc], 0)
    radius = 0.46 * cell
    cover = np.clip(radius - dist + 0.5, 0.0, 1.0)[..., None]       # the disc, edge smoothed
    rim = np.clip(dist - (radius - 1.5) + 0.5, 0.0, 1.0)[..., None]  # a white stone's outline
    for value, fill in ((1, _rgb(BLACK_FILL)), (2, _rgb(WHITE_FILL))):
        on = (colour == value)[..., None] * cover
        if value == 2:
            fill = fill * (1 - rim) + _rgb(LINE) * rim
        img = img * (1 - on) + fill * on
    return np.rint(img).astype(np.uint8)


def html(board, **kw):
    """The SVG of `board` in a ``<div>`` with its size and whose move it is, for notebooks."""
    turn = "game over" if board.is_over else ("Black" if board.to_move == 1 else "White") + " to play"
    return (f'<div class="fastgo-board">{svg(board, **kw)}<div>{board.width}x{board.height}, '
            f'{len(board.history)} move{"" if len(board.history) == 1 else "s"}, '
            f'{escape(turn)}</div></div>')


def png(board, scale=1.0, **kw):
    """The picture of ``svg(board, **kw)`` as PNG bytes, `scale` times its size in pixels
    (``CELL`` between lines at 1). Needs cairosvg (``pip install cairosvg``, the ``draw`` extra)."""
    try:
        import cairosvg  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except (ImportError, OSError) as e:       # OSError: cairosvg installed, libcairo missing
        raise ImportError(f"fastgo.draw.png needs cairosvg (and the cairo library): "
                          f"{install_hint('draw')} ({e})") from None
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= 100:
        raise ValueError(f"scale must be a number in (0, 100], not {scale!r}")
    return cairosvg.svg2png(bytestring=svg(board, **kw).encode(), scale=scale)
