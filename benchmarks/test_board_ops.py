"""pytest-benchmark suite for the Python-level board operations.

Run: ``python -m pytest benchmarks --benchmark-columns=median,iqr,ops --benchmark-sort=name``.
Positions are mid-game positions reached by a seeded random game, so runs are comparable.
"""

import numpy as np
import pytest

import fastgo
from fastgo.cli import random_game

SIZES = [9, 19]


def midgame(size, seed=1, turns=None):
    """A seeded position `turns` turns into a random game (default: a third of the points), and a
    quiet legal move there."""
    b = fastgo.Board(size)
    rng = np.random.default_rng(seed)
    random_game(b, rng, max_turns=size * size // 3 if turns is None else turns)
    for p in b.legal_moves()[:-1]:
        # a quiet move: captures nothing and joins no chain (no neighbours at all)
        if b.hash_after(p) == b.hash ^ fastgo.zobrist_key(b.to_move, p, size) and all(
                b.color_at(q) == 0 for q in _neighbours(p, size)):
            return b, p
    return b, None                  # none left (late positions): only copy() uses those


def _neighbours(p, w):
    r, c = divmod(p, w)
    return [rr * w + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < w and 0 <= cc < w]


@pytest.mark.parametrize("size", SIZES)
def test_play_undo(benchmark, size):
    benchmark.group = f"play+undo {size}x{size}"
    b, p = midgame(size)

    def play_undo():
        b.play(p)
        b.undo()
    benchmark(play_undo)


@pytest.mark.parametrize("size", SIZES)
def test_replay_game_per_move(benchmark, size):
    """play() alone: replay the first 2/3 * points turns of a recorded random game on a fresh
    board. Per-move time = this median / len(moves) (the README divides)."""
    b = fastgo.Board(size)
    random_game(b, np.random.default_rng(5), max_turns=2 * size * size // 3)
    moves = b.history
    benchmark.group = f"play {size}x{size} (replay of {len(moves)} turns)"
    benchmark.extra_info["turns"] = len(moves)

    def replay(board):
        for m in moves:
            board.play(m)
    benchmark.pedantic(replay, setup=lambda: ((fastgo.Board(size),), {}), rounds=2000)


@pytest.mark.parametrize("size", SIZES)
def test_play_undo_move_forms(benchmark, size):
    """play + undo with the move as a numpy integer and as a GTP vertex."""
    benchmark.group = f"play+undo {size}x{size}"
    b, p = midgame(size)
    forms = [np.int64(p), fastgo.point_to_vertex(p, size, size)]

    def play_undo():
        for m in forms:
            b.play(m)
            b.undo()
    benchmark(play_undo)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("stage", ["mid", "late"])
def test_copy(benchmark, size, stage):
    """copy() (no undo journal); mid = a third of the points played, late = 1.5x the points."""
    benchmark.group = f"copy {size}x{size}"
    b, _ = midgame(size, turns=None if stage == "mid" else 3 * size * size // 2)
    benchmark(b.copy)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("stage", ["mid", "late"])
def test_copy_with_undo(benchmark, size, stage):
    benchmark.group = f"copy {size}x{size}"
    b, _ = midgame(size, turns=None if stage == "mid" else 3 * size * size // 2)
    benchmark(b.copy, True)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kept", ["replaced", "growing"])
def test_copy_with_100k_boards_alive(benchmark, size, kept):
    """copy() while 100,000 copies are alive, as the positions of a search tree; 19x19 after 200
    turns, 9x9 after 27. "replaced": each copy takes the place of a random kept one (a tree that
    drops nodes as it adds them; the target of issue 10 is at most 1 us on 9x9, 2 us on 19x19).
    "growing": every copy is kept, so each one lands on memory the process has never touched,
    and the kernel's first-touch page faults dominate (about 27 us a 4 KB page in the sandbox
    these figures were measured in, against well under 1 us on a plain Linux machine)."""
    benchmark.group = f"copy {size}x{size}, 100,000 alive"
    b, _ = midgame(size, turns=200 if size == 19 else None)
    boards = [b.copy() for _ in range(100_000)]
    slots = iter(np.random.default_rng(0).integers(0, len(boards), 10**6).tolist())
    benchmark.extra_info["alive"] = len(boards)

    def replace():
        boards[next(slots)] = b.copy()

    benchmark.pedantic(replace if kept == "replaced" else lambda: boards.append(b.copy()),
                       rounds=20_000, iterations=1)
    del boards


@pytest.mark.parametrize("size", SIZES)
def test_legal_mask(benchmark, size):
    """Asked again at the same turn: the kept mask, judged this turn, is copied out."""
    benchmark.group = f"legal_mask {size}x{size}"
    b, _ = midgame(size)
    benchmark(b.legal_mask)


@pytest.mark.parametrize("size", SIZES)
def test_legal_mask_out(benchmark, size):
    benchmark.group = f"legal_mask {size}x{size}"
    b, _ = midgame(size)
    out = np.empty(size * size + 1, dtype=bool)
    benchmark(b.legal_mask, out)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kept", ["afresh", "kept"])
def test_legal_mask_first_at_a_turn(benchmark, size, kept):
    """The mask's cost where it must be worked out: asked after the turn's play (kept: the
    mask followed the play, only the hard points are judged; afresh: the board's first mask,
    every point judged). Replays test_replay_game_per_move's game with legal_mask(out=) after
    every play (each turn's cost = (this - that replay) / turns) on a board that was (kept) or
    was not (afresh: a copy made at every turn, which copy's own time then includes) asked for
    a mask before."""
    b = fastgo.Board(size)
    random_game(b, np.random.default_rng(5), max_turns=2 * size * size // 3)
    moves = b.history
    out = np.empty(size * size + 1, dtype=bool)
    benchmark.group = f"play {size}x{size} (replay of {len(moves)} turns)"
    benchmark.extra_info["turns"] = len(moves)

    def replay_kept(board):
        for m in moves:
            board.play(m)
            board.legal_mask(out)

    def replay_afresh(board):
        for m in moves:
            board.play(m)
            board.copy().legal_mask(out)
    benchmark.pedantic(replay_kept if kept == "kept" else replay_afresh,
                       setup=lambda: ((fastgo.Board(size),), {}), rounds=500)


@pytest.mark.parametrize("size", SIZES)
def test_score(benchmark, size):
    benchmark.group = f"score {size}x{size}"
    b, _ = midgame(size)
    benchmark(b.score)


@pytest.mark.parametrize("size", SIZES)
def test_random_game_from_python(benchmark, size):
    """A whole random game driven move by move from Python (mask, eye filter, choice, play)."""
    benchmark.group = f"random game {size}x{size}"

    def game():
        b = fastgo.Board(size)
        random_game(b, np.random.default_rng(0))
    benchmark.pedantic(game, rounds=20 if size == 9 else 5)
