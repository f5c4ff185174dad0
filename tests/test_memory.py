"""What a kept Board costs: memory that follows the board's size (issue 10's bounds), measured
with tracemalloc (every allocation of a Board goes through Python's allocator) and, on Linux,
with the process's resident set."""

import gc
import sys
import tracemalloc

import numpy as np
import pytest

import fastgo
from board_state import random_game

# (size, turns played, bound in bytes per kept copy: history and superko table included)
BOUNDS = [(9, 0, 3000), (9, 40, 3000), (19, 0, 6500), (19, 200, 12000)]


def game(size, turns, ko="positional"):
    b = fastgo.Board(size, ko=ko)
    random_game(b, np.random.default_rng(size + turns), max_turns=turns)
    assert len(b.history) == turns
    return b


def traced_bytes_per(make, n):
    """Bytes tracemalloc sees allocated per object when n objects from make() are kept. The
    recycled blocks of Board.copy() are given back first: a copy that took one was not counted
    (the figures depended on the tests run before)."""
    fastgo.board._free_kept_blocks()
    gc.collect()
    tracemalloc.start()
    try:
        kept = [make() for _ in range(n)]
        current, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del kept
    return current / n


@pytest.mark.parametrize("size,turns,bound", BOUNDS)
def test_a_kept_copy_is_within_the_bound(size, turns, bound):
    b = game(size, turns)
    per = traced_bytes_per(b.copy, 500)
    assert per <= bound, f"{size}x{size} after {turns} turns: {per:.0f} bytes a copy"


@pytest.mark.parametrize("size,turns,bound", [(9, 40, 6000), (19, 200, 16000)])
def test_a_kept_copy_that_plays_stays_small(size, turns, bound):
    """A tree of positions keeps copies that each played a move: the undo journal of that move
    is sized by its own bound (core.journal_bound), not a fixed first allocation (1,024 entries,
    8 KB, before: 10.8 KB a 9x9 child, 18.2 KB a 19x19 one)."""
    b = game(size, turns)
    legal = b.legal_moves()[:-1]
    picks = iter(range(10 ** 9))

    def child():
        c = b.copy()
        c.play(legal[next(picks) % len(legal)])
        return c

    per = traced_bytes_per(child, 500)
    assert per <= bound, f"{size}x{size} after {turns} turns: {per:.0f} bytes a played copy"


def test_memory_follows_the_board_size():
    small = traced_bytes_per(game(5, 0).copy, 500)
    big = traced_bytes_per(game(25, 0).copy, 500)
    # cells grow with (h + 2) * (w + 1): 42 on 5x5, 702 on 25x25; the fixed part is small
    assert small < 1000 and big > 6 * small


def test_a_new_board_is_within_the_bound():
    assert traced_bytes_per(lambda: fastgo.Board(9), 500) <= 3000
    assert traced_bytes_per(lambda: fastgo.Board(19), 500) <= 12000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
@pytest.mark.parametrize("size,turns,bound", [BOUNDS[1], BOUNDS[3]])
def test_resident_memory_per_kept_copy(size, turns, bound):
    import resource
    page = resource.getpagesize()

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * page

    b = game(size, turns)
    n = 20_000
    gc.collect()
    before = rss()
    kept = [b.copy() for _ in range(n)]
    grown = rss() - before
    assert kept[-1].history == b.history
    # the allocator's own headers and rounding come on top of what tracemalloc counts
    assert grown / n <= bound * 1.15, f"{grown / n:.0f} bytes resident a copy"


@pytest.mark.skipif(not sys.platform.startswith("linux") or
                    __import__("platform").libc_ver()[0] != "glibc",
                    reason="reads /proc/self/statm; glibc's heap")
def test_a_deleted_batch_gives_its_memory_back():
    """A BoardBatch's games are many blocks on the C heap (a move list and superko table each):
    freed, glibc kept them resident (18 MB after 20,000 19x19 games were deleted, a resource
    hunter's finding) until the heap was reused. The batch gives the free pages back."""
    import resource
    page = resource.getpagesize()

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * page

    gc.collect()
    before = rss()
    batch = fastgo.BoardBatch(20_000, 19)
    batch.step(fastgo.random_actions(batch.legal_mask(), seed=1))
    held = rss() - before
    del batch
    gc.collect()
    left = rss() - before
    assert held > 100 * 2**20, f"the batch held {held / 2**20:.1f} MiB"
    assert left < 4 * 2**20, f"{left / 2**20:.1f} MiB still resident after the batch was deleted"


def test_the_recycled_copies_blocks_are_bounded_in_bytes():
    """Board.copy()'s freed blocks are kept for the next copies of their size class: at most 64
    a class, which over a long 19x19 game's copies (hundreds of classes) kept 17.6 MiB after
    every Board was gone, for the life of the process (510 MiB at worst: a resource tester's
    finding). They are kept up to 8 MiB in all."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        rng = np.random.default_rng(3)
        kept = []
        for _ in range(4):
            b = fastgo.Board(19)
            for _ in range(400):
                moves = b.legal_moves()[:-1]
                if not moves:
                    break
                b.play(moves[rng.integers(len(moves))])
                kept.append(b.copy())
        alive = tracemalloc.get_traced_memory()[0] - before
        del kept, b
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert alive > 12 * 2**20                       # (what the copies took)
    assert held < 8 * 2**20 + 256 * 1024, held
    assert 7 * 2**20 < fastgo.board._free_kept_blocks() <= 8 * 2**20
