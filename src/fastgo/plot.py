"""Pictures of a simulation's statistics with matplotlib (``pip install matplotlib``, the ``plot`` extra): the
ownership heat map drawn on the board, the score histogram and the game-length histogram.

``save(result, "run.png")`` writes all three side by side; the format is the file's extension
(``.png`` or ``.svg``). Each ``draw_*`` takes a matplotlib ``Axes`` to draw into one panel.
"""

import numpy as np

from fastgo.coords import star_points
from fastgo.errors import install_hint

FORMATS = ("png", "svg")


def _pyplot():
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]  # (the plot extra)
    except ImportError:
        raise ImportError(f"matplotlib is needed for plots: {install_hint('plot')}") from None
    matplotlib.use("Agg", force=False)      # files only: no display needed
    import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]
    return plt


def draw_ownership(ax, tally, spec):
    """The mean owner of each point at the end (+1 Black, -1 White) as colour on the board's
    grid, row 1 at the bottom, GTP column letters."""
    if tally.ownership is None:
        raise ValueError("this run did not count ownership (ownership=False)")
    b = spec.board
    w, h = b.width, b.height
    mean = tally.ownership / max(tally.games, 1)
    im = ax.imshow(mean, origin="lower", cmap="RdBu_r", vmin=-1, vmax=1,
                   extent=(-0.5, w - 0.5, -0.5, h - 0.5))
    for i in range(w):
        ax.plot([i, i], [0, h - 1], color="0.3", lw=0.5)
    for j in range(h):
        ax.plot([0, w - 1], [j, j], color="0.3", lw=0.5)
    stars = star_points(w, h, 9) if w == h and w in (9, 13, 19) else []
    if len(stars):
        pts = [(p % w, p // w) for p in stars]
        ax.scatter([x for x, _ in pts], [y for _, y in pts], s=12, color="0.2", zorder=3)
    letters = [c for c in "ABCDEFGHJKLMNOPQRSTUVWXYZ"][:w]
    ax.set_xticks(range(w), letters)
    ax.set_yticks(range(h), [str(r + 1) for r in range(h)])
    ax.set_title(f"ownership, {tally.games:,} games (red Black, blue White)")
    ax.figure.colorbar(im, ax=ax, shrink=0.8)


def draw_scores(ax, tally):
    """Games by final score (Black minus White, komi included)."""
    values = np.array(list(tally.scores), np.float64).reshape(-1)
    counts = np.array(list(tally.scores.values()), np.int64).reshape(-1)
    colours = np.where(values > 0, "#b2182b", np.where(values < 0, "#2166ac", "0.5"))
    ax.bar(values, counts, width=0.9, color=colours)
    ax.set_xlabel("score, Black minus White (komi included)")
    ax.set_ylabel("games")
    ax.set_title("scores")


def draw_lengths(ax, tally):
    """Games by turns played (passes included)."""
    turns = np.flatnonzero(tally.lengths)
    ax.bar(turns, tally.lengths[turns], width=1.0, color="0.35")
    ax.set_xlabel("turns")
    ax.set_ylabel("games")
    ax.set_title(f"game lengths ({tally.capped:,} capped)")


def save(result, path):
    """Write the three panels of a ``fastgo.cluster.Result`` (or anything with ``tally`` and
    ``spec``) to `path`, PNG or SVG by its extension; the ownership panel only when counted."""
    fmt = str(path).rsplit(".", 1)[-1].lower()
    if fmt not in FORMATS:
        raise ValueError(f"plot file {path!r}: the extension must be one of "
                         f"{', '.join('.' + f for f in FORMATS)}")
    plt = _pyplot()
    panels = ([draw_ownership] if result.tally.ownership is not None else []) + [draw_scores, draw_lengths]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.8))
    try:
        for ax, draw in zip(np.atleast_1d(axes), panels):
            if draw is draw_ownership:
                draw(ax, result.tally, result.spec)
            else:
                draw(ax, result.tally)
        fig.tight_layout()
        fig.savefig(path, format=fmt)
    finally:
        plt.close(fig)
