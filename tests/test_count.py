"""Counting legal positions (fastgo.count): every count is checked against an independent source.

Sources: the published values (OEIS A094777 n x n, A102620 1 x n, A266278 2 x n; 3 x n from
Tromp and Farnebäck's tables), the brute force over all colourings, a pure-Python flood fill
written here from the rule text, and fastgo.is_legal_position. 9x9 and 10x10 exact counts run
only with FASTGO_SLOW=1 (seconds to a minute), 11x11 and 12x12 with FASTGO_SLOW=2 (minutes);
8x8 and below run by default.
"""

import functools
import hashlib
import itertools
import json
import os
import random
import signal
import shutil
import subprocess
import sys
import time
from decimal import Decimal
from fractions import Fraction

import numpy as np

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fastgo
from fastgo.count import (MAX_BRUTE_POINTS, MAX_FRONTIER, MAX_SWEEP_THREADS, PRIMES, _sweep,
                          count_legal_positions, count_legal_positions_brute,
                          count_legal_positions_stats, default_threads, estimate_legal_fraction,
                          legal_position_mask, wilson_interval)

from forked import run_forked

SLOW = pytest.mark.skipif(not os.environ.get("FASTGO_SLOW"), reason="set FASTGO_SLOW=1")
SLOWER = pytest.mark.skipif(os.environ.get("FASTGO_SLOW", "0") < "2",
                            reason="set FASTGO_SLOW=2 (minutes)")

# OEIS A094777: legal positions on n x n, n = 1..10
SQUARE = [1, 57, 12675, 24318165, 414295148741, 62567386502084877, 83677847847984287628595,
          990966953618170260281935463385, 103919148791293834318983090438798793469,
          96498428501909654589630887978835098088148177857]
# n = 11, 12 (the same entry); the README reports how far the sweep gets
SQUARE_11 = 793474866816582266820936671790189132321673383112185151899
SQUARE_12 = 57774258489513238998237970307483999327287210756991189655942651331169
# n = 13 (the same entry): FASTGO_SLOW=3, an hour or more and 12 GiB
SQUARE_13 = \
    37249792307686396442294904767024517674249157948208717533254799550970595875237705
# n = 14 (the same entry): FASTGO_SLOW=4, hours and about 17 GiB (modular passes on 24 GiB)
SQUARE_14 = int("2126677329003662242497893576504405980988058610832691271966238722132281963524554"
                "47575029701325")
# OEIS A102620: 1 x n, n = 1..10
ONE_BY = [1, 5, 15, 41, 113, 313, 867, 2401, 6649, 18413]
# OEIS A266278: 2 x n, n = 1..8
TWO_BY = [5, 57, 489, 4125, 35117, 299681, 2557605, 21826045]
# 3 x n, n = 1..6
THREE_BY = [15, 489, 12675, 321689, 8180343, 208144601]


# ---------------------------------------------------------------------------------------------
# A reference written from the rule text: flood each chain, look for an empty neighbour.

def reference_legal(grid):
    """True when every chain of the 2-D list/array `grid` (0 empty, 1, 2) touches an empty point."""
    h, w = len(grid), len(grid[0])
    seen = set()
    for r in range(h):
        for c in range(w):
            if grid[r][c] == 0 or (r, c) in seen:
                continue
            colour, todo, breathes = grid[r][c], [(r, c)], False
            seen.add((r, c))
            while todo:
                y, x = todo.pop()
                for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= yy < h and 0 <= xx < w:
                        if grid[yy][xx] == 0:
                            breathes = True
                        elif grid[yy][xx] == colour and (yy, xx) not in seen:
                            seen.add((yy, xx))
                            todo.append((yy, xx))
            if not breathes:
                return False
    return True


def reference_count(w, h):
    return sum(reference_legal([cells[r * w:(r + 1) * w] for r in range(h)])
               for cells in itertools.product((0, 1, 2), repeat=w * h))


# ---------------------------------------------------------------------------------------------
# Exact counts against published values.

@pytest.mark.parametrize("n", range(1, 9))
def test_square_published(n):
    assert count_legal_positions(n, n) == SQUARE[n - 1]


@pytest.mark.parametrize("threads", [1, 3])
def test_8x8_threads(threads):
    # 8x8 holds more border states than the sweep's threshold for threads, so this runs the
    # parallel path (each thread fills the table its hash bits pick) with 3 and the serial with 1
    s = count_legal_positions_stats(8, 8, threads=threads)
    assert s.count == SQUARE[7] and s.peak_states > 2 ** 14


@SLOW
@pytest.mark.parametrize("n", [9, 10])
def test_square_published_slow(n):
    assert count_legal_positions(n, n) == SQUARE[n - 1]


@SLOWER
@pytest.mark.parametrize("n,expected", [(11, SQUARE_11), (12, SQUARE_12)])
def test_square_published_slower(n, expected):
    # 11x11: about 1.5-3 minutes here; 12x12: 8-13 minutes and 2.5 GiB
    assert count_legal_positions(n, n) == expected


@pytest.mark.skipif(os.environ.get("FASTGO_SLOW", "0") < "3", reason="set FASTGO_SLOW=3 (hours)")
def test_square_13_published(tmp_path):
    assert count_legal_positions_stats(13, 13, checkpoint=tmp_path).count == SQUARE_13


@pytest.mark.skipif(os.environ.get("FASTGO_SLOW", "0") < "4", reason="set FASTGO_SLOW=4 (hours)")
def test_square_14_published(tmp_path):
    s = count_legal_positions_stats(14, 14, threads=2, checkpoint=tmp_path)
    assert s.count == SQUARE_14


@pytest.mark.parametrize("n", range(1, 11))
def test_one_by_n_published(n):
    assert count_legal_positions(1, n) == ONE_BY[n - 1]
    assert count_legal_positions(n, 1) == ONE_BY[n - 1]


@pytest.mark.parametrize("n", range(1, 9))
def test_two_by_n_published(n):
    assert count_legal_positions(2, n) == TWO_BY[n - 1]
    assert count_legal_positions(n, 2) == TWO_BY[n - 1]


def test_two_by_n_recurrence():
    # A266278 also gives a linear recurrence (signature 10, -16, 31, -13, 20, 2, -1): extend the
    # published head with it to n = 40 (counts near 2^123, two limbs)
    a = list(TWO_BY)
    while len(a) < 40:
        a.append(10 * a[-1] - 16 * a[-2] + 31 * a[-3] - 13 * a[-4] + 20 * a[-5] + 2 * a[-6]
                 - a[-7])
    assert a[8] == 186255781 and a[20] == 27779786302899765081      # the entry's own terms
    for n in (9, 21, 33, 40):
        assert count_legal_positions(2, n) == a[n - 1]


@pytest.mark.parametrize("n", range(1, 7))
def test_three_by_n_published(n):
    assert count_legal_positions(3, n) == THREE_BY[n - 1]
    assert count_legal_positions(n, 3) == THREE_BY[n - 1]


def test_one_by_n_far_out():
    # 1 x n by a transfer matrix worked out by hand for one row, where chains are runs of one
    # colour: e = last point empty, s = last point a stone whose run has a liberty (an empty
    # point on its left), t = a stone whose run has none yet (it starts at the edge or after the
    # other colour). Both colours are folded together.
    def one_row(n):
        e, s, t = 1, 0, 2
        for _ in range(n - 1):
            # empty: every run before it breathes; a stone after an empty point breathes; the
            # same colour continues its run; the other colour closes the run, legal only for s
            e, s, t = e + s + t, 2 * e + s, s + t
        return e + s
    assert [one_row(n) for n in range(1, 11)] == ONE_BY        # the hand version first
    for n in (50, 200, 1000):                                   # then far beyond 64 bits
        assert count_legal_positions(1, n) == one_row(n)
        assert count_legal_positions(n, 1) == one_row(n)


# ---------------------------------------------------------------------------------------------
# Exact counts against the brute force and the Python reference.

RECTS = [(w, h) for w in range(1, 17) for h in range(1, 17) if w * h <= 16]


@pytest.mark.parametrize("w,h", RECTS, ids=lambda v: str(v))
def test_sweep_matches_brute_force(w, h):
    assert count_legal_positions(w, h) == count_legal_positions_brute(w, h)


@SLOW
@pytest.mark.parametrize("w,h", [(4, 5), (5, 4), (2, 10), (3, 6)])
def test_sweep_matches_brute_force_slow(w, h):
    assert count_legal_positions(w, h) == count_legal_positions_brute(w, h)


@pytest.mark.parametrize("w,h", [(1, 1), (1, 5), (2, 3), (3, 2), (3, 3), (2, 4)])
def test_brute_force_matches_python_reference(w, h):
    assert count_legal_positions_brute(w, h) == reference_count(w, h)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_brute_force_threads(threads):
    assert count_legal_positions_brute(3, 4, threads=threads) == THREE_BY[3]


@pytest.mark.parametrize("f,length", [(3, 5), (4, 6), (2, 7), (5, 6), (1, 9), (6, 7)])
def test_sweep_along_either_side(f, length):
    # the public function always sweeps along the shorter side; forcing the longer one as the
    # frontier runs a different sequence of states and must give the same count
    assert _sweep(f, length, 1).count == _sweep(length, f, 1).count


@pytest.mark.parametrize("threads", [1, 2, 3, 5])
def test_sweep_threads(threads, many_cores):
    s = count_legal_positions_stats(6, 5, threads=threads)
    assert s.count == count_legal_positions(5, 6, threads=1)
    assert s.threads == threads


def test_stats():
    t0 = time.perf_counter()
    s = count_legal_positions_stats(7, 5, threads=1)
    took = time.perf_counter() - t0
    assert (s.width, s.height, s.frontier) == (7, 5, 5)
    assert s.count == _sweep(7, 5, 1).count
    assert 1 <= s.final_states <= s.peak_states <= s.total_states
    assert s.table_bytes > 0 and 0 < s.seconds <= took      # the sweep's part of the call
    assert 2 ** (64 * s.limbs) > 3 ** 35 > 2 ** (64 * (s.limbs - 1))
    # colour symmetry: a 1-wide frontier has 3 states at most, {empty}, {stone with liberty},
    # {stone without}, each counted once for both colours
    assert count_legal_positions_stats(1, 6).peak_states == 3


def test_threads_agree_on_a_multi_limb_count():
    a = _sweep(2, 60, 1).count
    assert a > 2 ** 128
    assert a == _sweep(2, 60, 2).count == _sweep(2, 60, 3).count
    assert count_legal_positions(60, 2) == a


# ---------------------------------------------------------------------------------------------
# The sweep's step on packed keys against a plain one on labelled cells.

def ref_decode(key, f):
    """Key -> list of cells: 0 empty, (colour, None) a stone whose chain has a liberty,
    (colour, label) a stone of the chain `label` without one. Codes 3..10: 3 + 4 * (colour - 1)
    + kind (0 the chain's only cell, 1 its first, 2 a middle one, 3 its last); nested chains."""
    cells, stack, nxt = [], [], 0
    for i in range(f):
        v = (key >> (4 * i)) & 15
        if v < 3:
            cells.append((v, None) if v else 0)
            continue
        colour, kind = 1 + (v - 3) // 4, (v - 3) % 4
        if kind in (0, 1):
            label, nxt = nxt, nxt + 1
            if kind == 1:
                stack.append(label)
        else:
            label = stack[-1] if kind == 2 else stack.pop()
        cells.append((colour, label))
    return cells


def ref_encode(cells):
    """The smaller key of the cells and of their colour swap."""
    keys = []
    for swap in (False, True):
        key = 0
        for i, cell in enumerate(cells):
            if cell == 0:
                continue
            colour, label = cell
            colour = 3 - colour if swap else colour
            if label is None:
                code = colour
            else:
                where = [j for j, o in enumerate(cells) if o != 0 and o[1] == label]
                kind = 0 if len(where) == 1 else 1 if i == where[0] else 3 if i == where[-1] else 2
                code = 3 + 4 * (colour - 1) + kind
            key |= code << (4 * i)
        keys.append(key)
    return min(keys)


def ref_successors(key, f, r, c, last_row):
    """Colour point (r, c) empty, black, white on the frontier of `key` (cell c: the point
    above, off the board on row 0; cell c - 1: the point to the left); the keys of the legal
    outcomes, written from the rule: every chain must reach an empty point."""
    out = []
    for colour in (0, 1, 2):
        g = ref_decode(key, f)
        up = g[c] if r > 0 else None
        left = g[c - 1] if c > 0 else None

        def free(label):            # the chain gains a liberty: it needs no label any more
            for j, o in enumerate(g):
                if o != 0 and o[1] == label and label is not None:
                    g[j] = (o[0], None)

        if colour == 0:
            for o in (up, left):
                if o:
                    free(o[1])
            g[c] = 0
        else:
            same = [o for o in (up, left) if o and o[0] == colour]
            if up and up[0] != colour and up[1] is not None and \
                    all(o == 0 or o[1] != up[1] for j, o in enumerate(g) if j != c):
                continue            # the opponent's chain above loses its last frontier cell
            if 0 in (up, left) or any(o[1] is None for o in same):
                for o in same:
                    free(o[1])
                g[c] = (colour, None)
            else:
                label = same[0][1] if same else "new"
                for o in same[1:]:
                    for j, x in enumerate(g):
                        if x != 0 and x[1] == o[1]:
                            g[j] = (colour, label)
                g[c] = (colour, label)
        if last_row:
            # the points left of c are done: a chain without a liberty must go on at c or right
            if any(o != 0 and o[1] is not None and
                   all(x == 0 or x[1] != o[1] for x in g[c:]) for o in g[:c]):
                continue
            g[:c] = [0] * c
        out.append(ref_encode(g))
    return out


def test_successors_match_the_labelled_reference():
    from fastgo.count import _successors
    rng = random.Random(7)
    # every state of small sweeps; a sample of each point's states on wide frontiers
    for f, length, keep in [(3, 3, None), (4, 4, None), (4, 5, None), (5, 4, None),
                            (12, 4, 300), (13, 5, 300), (16, 4, 300), (16, 7, 200)]:
        states = {0}
        for r in range(length):
            for c in range(f):
                nxt = set()
                for key in sorted(states):
                    want = ref_successors(key, f, r, c, r == length - 1)
                    assert _successors(key, f, r, c, r == length - 1) == want, (f, r, c, hex(key))
                    nxt.update(want)
                states = nxt if keep is None or len(nxt) <= keep else \
                    set(rng.sample(sorted(nxt), keep))


@functools.lru_cache(maxsize=None)
def ref_state_figures(f, length):
    """(peak, total, final) border states of a sweep of `length` rows of `f` points, from the
    labelled reference alone: one state (the empty frontier) at the start, then after each point
    every key ref_successors gives from the states before it. Peak: the most states after any
    point; total: their sum over the points; final: the states after the last point."""
    states, sizes = {0}, []
    for r in range(length):
        for c in range(f):
            states = {k for key in states for k in ref_successors(key, f, r, c, r == length - 1)}
            sizes.append(len(states))
    return max(sizes), sum(sizes), len(states)


# every rectangle of up to 16 points, and up to 25 where the frontier has at most 6 points (f x
# length, both ways round): about 2 s of pure Python here. A wider frontier costs more: 8 x 3
# takes 3 s (25,000 states), 12 x 2 40 s (440,000)
REF_STATE_RECTS = sorted((f, n // f) for n in range(1, 26) for f in range(1, min(n, 16) + 1)
                         if n % f == 0 and (n <= 16 or f <= 6))


@pytest.mark.parametrize("f,length", REF_STATE_RECTS, ids=lambda v: str(v))
def test_state_figures_match_the_labelled_reference(f, length):
    """The sweep's peak, total and final numbers of states against the labelled reference's
    enumeration of every border state (the sweep's tables, merging and bookkeeping, not only its
    step). One row of points by hand: the first point leaves two states (the empty frontier,
    and a stone whose chain has no liberty yet), every later one three (empty, a stone with a
    liberty, a stone without), so 3 at the peak and at the end, 2 + 3 (length - 1) in all."""
    s = _sweep(f, length, 1)
    assert (s.peak_states, s.total_states, s.final_states) == ref_state_figures(f, length)
    if f == 1:
        by_hand = (3, 3 * length - 1, 3) if length > 1 else (2, 2, 2)
        assert ref_state_figures(f, length) == by_hand


# ---------------------------------------------------------------------------------------------
# The vectorised test.

def random_boards(rng, n, h, w, p_empty=None):
    p = None if p_empty is None else [p_empty, (1 - p_empty) / 2, (1 - p_empty) / 2]
    return rng.choice(np.arange(3, dtype=np.int8), size=(n, h, w), p=p)


@pytest.mark.parametrize("h,w", [(1, 1), (1, 7), (2, 2), (3, 5), (9, 9), (19, 19), (25, 25),
                                 (25, 1)])
def test_mask_matches_references(h, w):
    rng = np.random.default_rng(h * 100 + w)
    # a sparse and a dense mix, so both answers occur often
    boards = np.concatenate([random_boards(rng, 150, h, w, 0.5), random_boards(rng, 150, h, w)])
    got = legal_position_mask(boards)
    assert got.dtype == bool and got.shape == (300,)
    expected = [reference_legal(b.tolist()) for b in boards]
    assert got.tolist() == expected
    assert got.tolist() == [fastgo.is_legal_position(b) for b in boards]


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.int8, hnp.array_shapes(min_dims=3, max_dims=3, min_side=1, max_side=7),
                  elements=st.integers(0, 2)))
def test_mask_hypothesis(boards):
    assert legal_position_mask(boards).tolist() == [reference_legal(b.tolist()) for b in boards]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64])
def test_mask_dtypes_and_layouts(dtype):
    rng = np.random.default_rng(7)
    boards = random_boards(rng, 64, 6, 5, 0.4)
    expected = legal_position_mask(boards).tolist()
    a = boards.astype(dtype)
    assert legal_position_mask(a).tolist() == expected
    assert legal_position_mask(np.asfortranarray(a)).tolist() == expected
    wide = np.zeros((64, 6, 10), dtype=dtype)
    wide[:, :, ::2] = a
    assert legal_position_mask(wide[:, :, ::2]).tolist() == expected      # strided view
    assert legal_position_mask(a[::-1]).tolist() == expected[::-1]
    assert legal_position_mask(a.tolist()).tolist() == expected             # nested lists


def test_mask_bool_and_threads():
    b = np.array([[[True, False], [False, False]], [[True, True], [True, True]]])
    assert legal_position_mask(b).tolist() == [True, False]
    rng = np.random.default_rng(3)
    boards = random_boards(rng, 3000, 9, 9, 0.4)
    one = legal_position_mask(boards, threads=1)
    assert 0.05 < one.mean() < 0.95
    for t in (2, 3, 8):
        assert (legal_position_mask(boards, threads=t) == one).all()


def test_mask_empty_batch_and_input_untouched():
    assert legal_position_mask(np.zeros((0, 3, 3), np.int8)).shape == (0,)
    b = np.array([[[1, 2], [2, 1]]], dtype=np.uint8)
    before = b.copy()
    assert legal_position_mask(b).tolist() == [False]
    assert (b == before).all()


@pytest.mark.parametrize("bad,exc,msg", [
    (np.zeros((2, 3), np.int8), ValueError, "3-D"),
    (np.zeros((1, 2, 3, 4), np.int8), ValueError, "3-D"),
    (np.zeros((1, 3, 3), np.float64), TypeError, "dtype"),
    (np.zeros((1, 3, 3), object), TypeError, "dtype"),
    (np.array([[["a"]]]), TypeError, "dtype"),
    (np.zeros((1, 0, 3), np.int8), ValueError, "out of range"),
    (np.zeros((1, 26, 3), np.int8), ValueError, "out of range"),
    (np.full((1, 2, 2), 3, np.int8), ValueError, "only 0"),
    (np.full((1, 2, 2), -1, np.int8), ValueError, "only 0"),
    (np.full((1, 2, 2), 255, np.uint8), ValueError, "only 0"),
    (np.full((1, 2, 2), 257, np.int64), ValueError, "only 0"),
    (np.full((1, 2, 2), -1, np.int64), ValueError, "only 0"),
])
def test_mask_refuses_bad_input(bad, exc, msg):
    with pytest.raises(exc, match=msg):
        legal_position_mask(bad)


def test_mask_names_the_bad_board():
    b = np.zeros((5, 3, 3), np.int8)
    b[3, 2, 1] = 7
    with pytest.raises(ValueError, match="board 3 "):
        legal_position_mask(b)


# ---------------------------------------------------------------------------------------------
# The Monte Carlo estimate.

@pytest.mark.parametrize("w,h,exact", [(1, 1, 1), (1, 2, 5), (2, 2, 57), (3, 3, 12675),
                                       (5, 5, SQUARE[4]), (7, 7, SQUARE[6])])
def test_estimate_covers_exact_fraction(w, h, exact):
    # fixed seeds: deterministic; a biased sampler or a wrong test would miss these fractions
    e = estimate_legal_fraction(w, h, 200_000, seed=11)
    truth = exact / 3 ** (w * h)
    assert e.low <= truth <= e.high
    assert e.high - e.low < 0.01
    assert e.fraction == e.legal / e.samples


def test_estimate_19x19():
    # Tromp (2016): 1.196% of 19x19 colourings are legal
    e = estimate_legal_fraction(19, 19, 600_000, seed=2026, confidence=0.999)
    assert e.low <= 0.01196 <= e.high
    assert e.high - e.low < 0.001


def test_estimate_reproducible():
    a = estimate_legal_fraction(9, 9, 50_000, seed=5, threads=1)
    assert a == estimate_legal_fraction(9, 9, 50_000, seed=5, threads=3)
    b = estimate_legal_fraction(9, 9, 50_000, seed=6)
    assert a.legal != b.legal       # a different sample (equal by chance with probability ~1%)
    # the first boards of a longer run are the boards of a shorter one (board i has its own
    # stream): one more sample adds 0 or 1 legal board
    longer = [estimate_legal_fraction(4, 4, n, seed=5).legal for n in range(1000, 1040)]
    steps = np.diff(longer)
    assert set(steps) == {0, 1}
    assert (a.width, a.height, a.samples, a.seed, a.confidence) == (9, 9, 50_000, 5, 0.95)


def test_estimate_is_uniform_per_point():
    # 1x1: legal iff empty, so the fraction is P(empty) = 1/3 exactly; 99.99% interval
    e = estimate_legal_fraction(1, 1, 300_000, seed=3, confidence=0.9999)
    assert e.low < 1 / 3 < e.high and e.high - e.low < 0.01


def test_wilson_interval():
    lo, hi = wilson_interval(0, 10)
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)      # textbook value
    assert wilson_interval(10, 10)[1] == 1.0
    lo, hi = wilson_interval(50, 100)
    assert hi - 0.5 == pytest.approx(0.5 - lo)
    assert lo == pytest.approx(0.4038, abs=1e-4)  # textbook value
    wider = wilson_interval(50, 100, 0.99)
    assert wider[0] < lo and wider[1] > hi


# ---------------------------------------------------------------------------------------------
# Refused input: ValueError / TypeError, never a crash.

@pytest.mark.parametrize("args,exc", [
    ((0, 3), ValueError), ((3, 0), ValueError), ((-1, 2), ValueError),
    ((MAX_FRONTIER + 1, MAX_FRONTIER + 1), ValueError), ((2, 1001), ValueError),
    ((2.0, 2), TypeError), ((True, 2), TypeError), (("2", 2), TypeError), ((None, 2), TypeError),
])
def test_count_refuses_bad_sizes(args, exc):
    with pytest.raises(exc):
        count_legal_positions(*args)
    with pytest.raises(exc):
        count_legal_positions_brute(*args)


def test_count_accepts_numpy_ints_and_wide_rectangles():
    assert count_legal_positions(np.int64(3), np.uint8(2)) == 489
    assert count_legal_positions(1000, 1) == count_legal_positions(1, 1000)


def test_brute_force_limit():
    with pytest.raises(ValueError, match="at most 20 points"):
        count_legal_positions_brute(5, 5)
    assert MAX_BRUTE_POINTS == 20


@pytest.mark.parametrize("threads,exc", [(0, ValueError), (-2, ValueError), (1.5, TypeError),
                                         ("2", TypeError), (10 ** 6, ValueError)])
def test_threads_validated(threads, exc):
    with pytest.raises(exc):
        count_legal_positions(3, 3, threads=threads)
    with pytest.raises(exc):
        count_legal_positions_brute(2, 2, threads=threads)
    with pytest.raises(exc):
        legal_position_mask(np.zeros((1, 2, 2), np.int8), threads=threads)
    with pytest.raises(exc):
        estimate_legal_fraction(2, 2, 10, threads=threads)


@pytest.mark.parametrize("kwargs,exc", [
    (dict(samples=0), ValueError), (dict(samples=10 ** 13), ValueError),
    (dict(samples=1.0), TypeError), (dict(seed=-1), ValueError), (dict(seed=2 ** 64), ValueError),
    (dict(seed="a"), TypeError), (dict(confidence=1.0), ValueError),
    (dict(confidence=0), ValueError), (dict(confidence=float("nan")), ValueError),
    (dict(width=26), ValueError), (dict(height=0), ValueError),
])
def test_estimate_refuses_bad_input(kwargs, exc):
    args = dict(width=3, height=3, samples=10)
    args.update(kwargs)
    with pytest.raises(exc):
        estimate_legal_fraction(args.pop("width"), args.pop("height"), args.pop("samples"), **args)


# A fuzz of the boundary: every argument of every entry point, of every wrong kind.

NOT_INTEGERS = [2.0, np.float64(2), True, False, np.bool_(True), "2", b"2", None, [2], 2 + 0j,
                Fraction(2), Decimal(2), object()]
BAD_SIZES = [0, -1, -2 ** 70, 2 ** 31, 2 ** 63, 2 ** 64, 10 ** 30, np.int64(-3), np.uint64(2 ** 63)]
BAD_SAMPLES = [0, -1, -2 ** 70, 10 ** 12 + 1, 2 ** 64, 10 ** 30, np.int64(-3), np.uint64(2 ** 63)]


@pytest.mark.parametrize("value", NOT_INTEGERS, ids=lambda v: type(v).__name__)
def test_fuzz_sizes_not_integers(value):
    calls = [lambda: count_legal_positions(value, 2), lambda: count_legal_positions(2, value),
             lambda: count_legal_positions_stats(value, 3),
             lambda: count_legal_positions_brute(value, 2),
             lambda: count_legal_positions_brute(2, value),
             lambda: estimate_legal_fraction(value, 3, 10),
             lambda: estimate_legal_fraction(3, value, 10),
             lambda: estimate_legal_fraction(3, 3, value),
             lambda: estimate_legal_fraction(3, 3, 10, seed=value),
             lambda: wilson_interval(value, 10), lambda: wilson_interval(1, value)]
    for call in calls:
        with pytest.raises(TypeError, match="integer"):
            call()


@pytest.mark.parametrize("value", BAD_SIZES, ids=repr)
def test_fuzz_sizes_out_of_range(value):
    for call in [lambda: count_legal_positions(value, 2), lambda: count_legal_positions(3, value),
                 lambda: count_legal_positions_brute(value, 2),
                 lambda: count_legal_positions_brute(1, value),
                 lambda: estimate_legal_fraction(value, 3, 10),
                 lambda: estimate_legal_fraction(3, value, 10)]:
        with pytest.raises(ValueError, match="range|positive"):
            call()


@pytest.mark.parametrize("value", BAD_SAMPLES, ids=repr)
def test_fuzz_samples_and_seed_out_of_range(value):
    with pytest.raises(ValueError, match="samples must"):
        estimate_legal_fraction(3, 3, value)
    if value < 0 or value >= 2 ** 64:
        with pytest.raises(ValueError, match="seed must"):
            estimate_legal_fraction(3, 3, 10, seed=value)


@pytest.mark.parametrize("threads,exc", [
    (0, ValueError), (-1, ValueError), (-2 ** 70, ValueError), (2 ** 31, ValueError),
    (10 ** 30, ValueError), (True, TypeError), (False, TypeError), (np.bool_(True), TypeError),
    (1.0, TypeError), (np.float64(2), TypeError), ("1", TypeError), ([2], TypeError),
])
def test_fuzz_threads(threads, exc):
    for call in [lambda: count_legal_positions(3, 3, threads=threads),
                 lambda: count_legal_positions_stats(3, 3, threads=threads),
                 lambda: count_legal_positions_brute(2, 2, threads=threads),
                 lambda: legal_position_mask(np.zeros((1, 2, 2), np.int8), threads=threads),
                 lambda: estimate_legal_fraction(2, 2, 10, threads=threads)]:
        with pytest.raises(exc, match="threads"):
            call()


def test_sweep_threads_default_and_limit(many_cores):
    # the exact sweep runs on one thread unless asked (README: two measured slower than one on
    # a loaded machine); None is all cores, up to MAX_SWEEP_THREADS
    assert count_legal_positions_stats(3, 3).threads == 1
    assert count_legal_positions_stats(3, 3, threads=None).threads == \
        min(default_threads(), MAX_SWEEP_THREADS)
    assert count_legal_positions_stats(3, 3, threads=np.int8(MAX_SWEEP_THREADS)).threads == 64
    with pytest.raises(ValueError, match="threads must be 1..64"):
        count_legal_positions(3, 3, threads=MAX_SWEEP_THREADS + 1)
    with pytest.raises(ValueError):
        _sweep(3, 3, MAX_SWEEP_THREADS + 1)
    for bad in [(0, 3, 1), (MAX_FRONTIER + 1, 3, 1), (3, 1001, 1), (3, 3, 0)]:
        with pytest.raises(ValueError):
            _sweep(*bad)


@pytest.mark.parametrize("threads", [16, MAX_SWEEP_THREADS])
def test_sweep_many_threads(threads, many_cores):
    # more threads than this machine has: the rounds shrink their slices (memory stays bounded)
    # and the count is still exact
    s = count_legal_positions_stats(8, 8, threads=threads)
    assert s.count == SQUARE[7] and s.threads == threads


@pytest.mark.parametrize("confidence,exc", [
    (0, ValueError), (1, ValueError), (0.0, ValueError), (1.0, ValueError), (-0.5, ValueError),
    (1.5, ValueError), (float("nan"), ValueError), (float("inf"), ValueError),
    (-float("inf"), ValueError), (np.float64(1.0), ValueError), (Fraction(3, 2), ValueError),
    ("0.9", TypeError), (b"0.9", TypeError), (None, TypeError), (True, TypeError),
    (False, TypeError), (np.bool_(True), TypeError), ([0.9], TypeError), (0.9j, TypeError),
])
def test_fuzz_confidence(confidence, exc):
    with pytest.raises(exc, match="confidence"):
        estimate_legal_fraction(3, 3, 10, confidence=confidence)
    with pytest.raises(exc, match="confidence"):
        wilson_interval(1, 10, confidence)


def test_confidence_accepts_real_numbers():
    ref = estimate_legal_fraction(3, 3, 1000, seed=1, confidence=0.9)
    for c in (np.float32(0.9), np.float64(0.9), Fraction(9, 10)):
        e = estimate_legal_fraction(3, 3, 1000, seed=1, confidence=c)
        assert e.legal == ref.legal and e.confidence == pytest.approx(0.9)
        assert type(e.confidence) is float


@pytest.mark.parametrize("successes,trials", [(-1, 10), (11, 10), (0, 0), (0, -5), (1, 0)])
def test_wilson_refuses(successes, trials):
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(successes, trials)


# the mask: arrays of every kind, in every layout

INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
              np.dtype(">i4"), np.dtype(">u2"), bool]
OTHER_DTYPES = [np.float16, np.float32, np.float64, np.complex64, object, "U1", "S1", "M8[s]",
                "m8[s]", np.dtype([("a", np.int8)])]


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_mask_fuzz(data):
    """Random dtype, number of dimensions, sides (0 included), values (out of 0..2 included),
    and a view with random steps (negative, non-contiguous) on every axis: the answer is the
    reference's, or the documented error."""
    dtype = np.dtype(data.draw(st.sampled_from(INT_DTYPES + OTHER_DTYPES), label="dtype"))
    ndim = data.draw(st.integers(0, 4), label="ndim")
    shape = tuple(data.draw(st.lists(st.integers(0, 7), min_size=ndim, max_size=ndim),
                            label="shape"))
    low, high = data.draw(st.sampled_from([(0, 2), (0, 2), (0, 2), (-3, 2), (0, 5)]),
                          label="values")
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
    values = np.asarray(rng.integers(low, high + 1, size=shape))
    if dtype.kind == "b":
        base = values.astype(bool)
    elif dtype.kind in "iu":
        base = values.astype(dtype)     # negative values wrap in unsigned dtypes: out of range
    elif dtype.kind in "fc":
        base = values.astype(dtype)
    elif dtype.kind == "O":
        base = values.astype(object)
    elif dtype.kind in "USMm":
        base = values.astype(dtype)
    else:
        base = np.zeros(shape, dtype)
    steps = tuple(data.draw(st.sampled_from([1, 1, 2, -1, -2]), label="step") for _ in shape)
    a = base[tuple(slice(None, None, k) for k in steps)] if ndim else base
    if dtype.kind not in "iub":
        with pytest.raises(TypeError, match="dtype"):
            legal_position_mask(a)
        return
    if a.ndim != 3:
        with pytest.raises(ValueError, match="3-D"):
            legal_position_mask(a)
        return
    n, h, w = a.shape
    if not (1 <= h <= 25 and 1 <= w <= 25):
        with pytest.raises(ValueError, match="out of range"):
            legal_position_mask(a)
        return
    as_int = a.astype(np.int64)
    if a.size and (as_int.min() < 0 or as_int.max() > 2):
        with pytest.raises(ValueError, match="only 0"):
            legal_position_mask(a)
        return
    before = a.copy()
    got = legal_position_mask(a, threads=data.draw(st.sampled_from([None, 1, 2, 3]),
                                                   label="threads"))
    assert got.dtype == bool and got.shape == (n,)
    assert got.tolist() == [reference_legal(b.tolist()) for b in as_int]
    assert (a == before).all()          # the input is never written


def test_mask_odd_arrays():
    b = np.array([[[1, 2, 0], [2, 1, 0], [0, 0, 0]]], np.int8)
    expected = [reference_legal(b[0].tolist())]
    ro = b.copy()
    ro.flags.writeable = False
    assert legal_position_mask(ro).tolist() == expected                 # read-only
    assert legal_position_mask(np.broadcast_to(b, (4, 3, 3))).tolist() == expected * 4  # stride 0
    assert legal_position_mask(b.astype(">i8")).tolist() == expected   # byte-swapped
    assert legal_position_mask(b.transpose(0, 2, 1)).tolist() == expected  # the transpose
    assert legal_position_mask(np.zeros((3, 25, 25), np.int8)).tolist() == [True] * 3
    assert legal_position_mask(np.ones((2, 1, 1), np.uint8)).tolist() == [False] * 2
    with pytest.raises(ValueError, match="only 0"):
        legal_position_mask(np.full((1, 2, 2), 2 ** 63, np.uint64))
    with pytest.raises(ValueError, match="only 0"):
        legal_position_mask(np.full((1, 2, 2), -128, np.int8))
    with pytest.raises(ValueError):
        legal_position_mask([[[0, 1], [0]]])                            # ragged
    with pytest.raises(TypeError):
        legal_position_mask([[[0, 2 ** 70]]])                           # no integer dtype holds it
    for bad in (None, "abc", object(), [], 1.5):
        with pytest.raises(TypeError):
            legal_position_mask(bad)
    for bad in (5, [1, 2], [[1, 2]]):
        with pytest.raises(ValueError, match="3-D"):
            legal_position_mask(bad)
    for shape in [(0, 0, 3), (0, 3, 0), (0, 26, 1), (2, 1, 26)]:
        with pytest.raises(ValueError, match="out of range"):
            legal_position_mask(np.zeros(shape, np.int8))
    assert legal_position_mask(np.zeros((0, 25, 25), np.uint64)).shape == (0,)


# Ctrl-C: every long call checks for signals as it goes, and frees what it holds.

class Interrupted(Exception):
    pass


@pytest.mark.parametrize("name,call", [
    # full runs here: 12x12 about 13 minutes; 20 points by brute force about 25 s on one thread;
    # 10^10 samples hours. An interrupted call ends within a second or so.
    ("sweep", lambda: count_legal_positions(12, 12)),
    ("parallel sweep", lambda: count_legal_positions(12, 12, threads=2)),
    ("brute", lambda: count_legal_positions_brute(5, 4, threads=1)),
    ("estimate", lambda: estimate_legal_fraction(19, 19, 10 ** 10)),
])
def test_interruptible(name, call):
    def handler(signum, frame):
        raise Interrupted
    old = signal.signal(signal.SIGALRM, handler)
    t0 = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with pytest.raises(Interrupted):
            call()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    # a loose bound, far below the full run: the signal was honoured inside the call
    assert time.perf_counter() - t0 < 10
    assert count_legal_positions(3, 3) == SQUARE[2]        # and the module still works


# fork(): OpenMP's threads do not survive it; a forked child runs every kernel on one thread.

def _child_counts(queue):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        boards = np.random.default_rng(5).integers(0, 3, size=(5000, 5, 5), dtype=np.int8)
        queue.put((default_threads(),
                   count_legal_positions_stats(8, 8, threads=2).count,
                   count_legal_positions_brute(3, 4, threads=2),
                   legal_position_mask(boards).tolist(),
                   legal_position_mask(boards, threads=2).tolist(),
                   estimate_legal_fraction(5, 5, 20000, seed=3).legal))


def test_a_forked_child_counts():
    boards = np.random.default_rng(5).integers(0, 3, size=(5000, 5, 5), dtype=np.int8)
    expected = (1, SQUARE[7], THREE_BY[3], legal_position_mask(boards, threads=2).tolist(),
                legal_position_mask(boards, threads=2).tolist(),
                estimate_legal_fraction(5, 5, 20000, seed=3, threads=2).legal)
    count_legal_positions(8, 8, threads=2)          # the parent's OpenMP threads now exist
    count_legal_positions_brute(3, 3, threads=2)
    assert run_forked(_child_counts, timeout=120) == expected


def test_forked_child_warns_about_threads():
    def child(q):
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            count_legal_positions(3, 3, threads=2)
        q.put([str(w.message) for w in caught])
    assert "fastgo.count runs on one thread in a forked process" in run_forked(child)


def test_public_names():
    assert fastgo.count_legal_positions is count_legal_positions
    assert fastgo.legal_position_mask is legal_position_mask
    assert fastgo.estimate_legal_fraction is estimate_legal_fraction
    assert fastgo.count_legal_positions_brute is count_legal_positions_brute


# ---------------------------------------------------------------------------------------------
# The command line.

def test_cli_count(capsys):
    from fastgo.cli import main
    assert main(["count", "5", "4", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert str(count_legal_positions(5, 4)) in out.replace(",", "")
    assert "border states" in out


def test_cli_estimate(capsys):
    from fastgo.cli import main
    assert main(["count", "19", "19", "--estimate", "20000", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    e = estimate_legal_fraction(19, 19, 20000, seed=4)
    assert f"{e.legal:,} of 20,000" in out
    assert "Wilson" in out


def test_cli_brute(capsys):
    from fastgo.cli import main
    assert main(["count", "3", "3", "--brute"]) == 0
    assert "12,675" in capsys.readouterr().out


def test_cli_count_output(capsys):
    from fastgo.cli import main
    assert main(["count", "6", "5"]) == 0
    out = capsys.readouterr().out
    s = count_legal_positions_stats(6, 5)
    assert f"legal positions on 6x5: {s.count:,}\n" in out
    assert f"border states peak {s.peak_states:,}, summed over the points {s.total_states:,}" in out
    assert " s on 1 thread(s);" in out                 # the exact sweep's default: one thread
    assert "peak RSS" in out


def test_cli_count_in_modular_passes(capsys):
    # 7x7 exact needs two words a count (3^49 > 2^64); allowed less memory than that, the CLI
    # counts modulo 2^64 and then modulo a prime, and prints the published count
    from fastgo.cli import main
    from fastgo.count import sweep_memory
    assert sweep_memory(7, 7, 1) < 0.0004 * 2 ** 30 < sweep_memory(7, 7)
    assert main(["count", "7", "7", "--max-memory", "0.0004"]) == 0
    out = capsys.readouterr().out
    assert f"legal positions on 7x7: {SQUARE[6]:,}\n" in out
    assert "counted modulo 2^64, then modulo primes below 2^63 in 1 more pass(es)" in out
    assert " s on 1 thread(s) in 2 passes;" in out
    for bad in ("0", "inf", "nan", "-1"):
        with pytest.raises(SystemExit):
            main(["count", "7", "7", "--max-memory", bad])
        assert "--max-memory must be a positive number of GiB" in capsys.readouterr().err


def test_cli_prints_counts_of_any_length(capsys):
    # Python refuses int -> text beyond sys.get_int_max_str_digits() (4300 by default; a 10 x 1000
    # count has about 4600 digits): lower the limit to the minimum, 640, and print a 930-digit count
    from fastgo.cli import main
    expected = f"{count_legal_positions(2, 1000):,}"
    assert len(expected.replace(",", "")) > 900
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        assert main(["count", "2", "1000"]) == 0
        assert sys.get_int_max_str_digits() == 640      # restored
    finally:
        sys.set_int_max_str_digits(limit)
    assert f"legal positions on 2x1000: {expected}\n" in capsys.readouterr().out


def test_checkpoint_keeps_counts_of_any_length(tmp_path):
    # result.json holds the count as decimal text, which Python refuses past
    # sys.get_int_max_str_digits() (4300 by default; a 10 x 1000 count passes it): the finished
    # count was lost when it was saved. Lowered to the minimum, 640, a 2 x 700 count (652 digits)
    # is saved and resumed, equal to A266278's recurrence
    a = list(TWO_BY)
    while len(a) < 700:
        a.append(10 * a[-1] - 16 * a[-2] + 31 * a[-3] - 13 * a[-4] + 20 * a[-5] + 2 * a[-6]
                 - a[-7])
    assert a[-1] > 10 ** 651
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        assert count_legal_positions_stats(2, 700, checkpoint=tmp_path).count == a[-1]
        assert count_legal_positions_stats(700, 2, checkpoint=tmp_path).count == a[-1]
        assert sys.get_int_max_str_digits() == 640      # restored
    finally:
        sys.set_int_max_str_digits(limit)
    assert json.loads((tmp_path / "result.json").read_text())["count"] == str(a[-1])

def test_cli_estimate_output(capsys):
    from fastgo.cli import main
    assert main(["count", "9", "9", "--estimate", "5000", "--seed", "8", "--confidence", "0.99",
                 "--threads", "1"]) == 0
    out = capsys.readouterr().out
    e = estimate_legal_fraction(9, 9, 5000, seed=8, confidence=0.99)
    assert f"{e.legal:,} of 5,000" in out
    assert f"0.99 Wilson score interval [{e.low:.5%}, {e.high:.5%}]" in out
    assert "on 1 thread(s)" in out


@pytest.mark.parametrize("argv,msg", [
    (["17", "17"], "--estimate N"),
    (["19", "19"], "--estimate N"),
    (["0", "3"], "positive"),
    (["3", "-2"], "positive"),
    (["2", "1001"], "out of range"),
    (["5", "5", "--brute"], "at most 20 points"),
    (["26", "3", "--estimate", "10"], "out of range"),
    (["3", "3", "--estimate", "0"], "samples"),
    (["3", "3", "--estimate", "-5"], "samples"),
    (["3", "3", "--estimate", "10", "--confidence", "1.5"], "confidence"),
    (["3", "3", "--estimate", "10", "--confidence", "nan"], "confidence"),
    (["3", "3", "--estimate", "10", "--seed", "-1"], "seed"),
    (["3", "3", "--threads", "0"], "threads"),
    (["3", "3", "--threads", "65"], "threads"),
    (["3", "3", "--brute", "--threads", "-1"], "threads"),
    (["3", "3", "--seed", "4"], "--estimate N only"),
    (["3", "3", "--confidence", "0.9"], "--estimate N only"),
    (["3", "3", "--brute", "--estimate", "10"], "not allowed with"),
    (["3", "x"], "invalid int"),
    (["3", "3", "--estimate", "1e3"], "invalid int"),
    (["3"], "required"),
])
def test_cli_refuses(capsys, argv, msg):
    from fastgo.cli import main
    with pytest.raises(SystemExit) as exc:
        main(["count"] + argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert msg in err and "Traceback" not in err
    assert err.startswith("usage: fastgo count")


def _child_env():
    """The environment of a child Python that imports this fastgo."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(fastgo.__file__))] + sys.path))


def test_cli_refuses_in_a_real_process():
    # the installed entry point's path: exit status 2, a one-line reason, no traceback
    r = subprocess.run([sys.executable, "-m", "fastgo", "count", "17", "17"], env=_child_env(),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1] == (
        "fastgo count: error: board size 17x17 out of range for the exact count: its shorter "
        "side may be at most 16; estimate the fraction of legal positions with --estimate N")


OUT_OF_MEMORY = """
import sys
from fastgo.cli import main
from fastgo.count import count_legal_positions
try:
    count_legal_positions(12, 12)
except MemoryError as e:
    print("MemoryError:", e)
print(count_legal_positions(5, 5))          # the module still works
sys.exit(main(["count", "12", "12"]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux has it")
def test_out_of_memory_is_an_exception():
    # 12x12 needs 1.1 GiB of state tables: under a 400 MiB address-space limit a malloc of the
    # sweep fails after a few seconds, which must give a MemoryError (the CLI: a message and
    # exit status 1), never a crash
    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (400 * 2 ** 20, 400 * 2 ** 20))
    r = subprocess.run([sys.executable, "-c", OUT_OF_MEMORY], env=_child_env(), preexec_fn=limit,
                       capture_output=True, text=True, timeout=200)
    assert "MemoryError: out of memory: a table of" in r.stdout
    assert f"\n{SQUARE[4]}\n" in r.stdout
    assert r.returncode == 1
    # (the progress lines of the rows done come first)
    assert r.stderr.splitlines()[-1].startswith("fastgo count: out of memory: a table of")
    assert "Traceback" not in r.stderr


def test_module_doctests():
    import doctest
    import fastgo.count
    result = doctest.testmod(fastgo.count)
    assert result.attempted >= 4 and result.failed == 0


def test_a_confidence_whose_quantile_is_infinite_is_refused_by_name():
    for c in (0.9999999999999999, 1.0, 0.0):
        with pytest.raises(ValueError, match="confidence"):
            estimate_legal_fraction(3, 3, 10, confidence=c)


# ---------------------------------------------------------------------------------------------
# Frontiers past 12 cells, checkpoints, progress and the memory estimate.

@pytest.mark.parametrize("f", [13, 14, 15, 16])
def test_wide_frontier_one_row(f):
    # one row of f points: the 1 x f count by hand (test_one_by_n_far_out's recurrence is the
    # same as the published A102620) and by the sweep along the other side
    assert _sweep(f, 1, 1).count == _sweep(1, f, 1).count == count_legal_positions(1, f)


@pytest.mark.parametrize("f,length", [(13, 1), (16, 1), (13, 2)])
def test_wide_frontier_against_brute_force_or_transpose(f, length):
    expected = (count_legal_positions_brute(f, length) if f * length <= MAX_BRUTE_POINTS
                else _sweep(length, f, 1).count)
    assert _sweep(f, length, 1).count == expected


FIVE_BIT = os.path.join(os.path.dirname(__file__), "data", "legal_counts_5bit.json")


def five_bit_figures():
    """tests/data/legal_counts_5bit.json, a regression file: the figures the sweep gave before
    the 4-bit keys (commit 6981f8d: 5 bits a cell, chains as renumbered labels), "f x length" ->
    [count, peak states, total states, final states]. The program's own earlier output, not an
    independent source: the counts are checked against published values and the brute force
    above, and the state figures against the labelled reference up to 25 points
    (test_state_figures_match_the_labelled_reference); past that this file is all there is.
    Tracked in git and shipped in the sdist: a missing file fails."""
    assert os.path.exists(FIVE_BIT), f"{FIVE_BIT} is missing (tracked in git, in the sdist)"
    with open(FIVE_BIT) as fh:
        return json.load(fh)


def test_same_counts_and_states_as_the_5bit_keys():
    # the keys name the same states as the 5-bit ones did, so every figure agrees
    recorded = five_bit_figures()
    assert len(recorded) >= 60
    for name, (count, peak, total, final) in recorded.items():
        f, length = map(int, name.split("x"))
        if (f, length) in REF_STATE_RECTS:      # where the reference reaches, the file agrees
            assert (peak, total, final) == ref_state_figures(f, length), name
        if f * length > 80:
            continue            # the larger ones: FASTGO_SLOW=1
        s = _sweep(f, length, 1)
        assert (s.count, s.peak_states, s.total_states, s.final_states) == \
            (int(count), peak, total, final), name


@SLOW
def test_same_counts_and_states_as_the_5bit_keys_slow():
    recorded = five_bit_figures()
    for name, (count, peak, total, final) in recorded.items():
        f, length = map(int, name.split("x"))
        if f * length > 80:
            s = _sweep(f, length, 1)
            assert (s.count, s.peak_states, s.total_states, s.final_states) == \
                (int(count), peak, total, final), name


class Stop(Exception):
    pass


def test_checkpoint_and_resume(tmp_path):
    # stop a 8x7 sweep at row 4 (from its progress callback), then resume it: the same count and
    # figures as one uninterrupted sweep
    seen = []

    def stop_at_row_4(p):
        seen.append(p)
        if p.row == 4:
            raise Stop
    with pytest.raises(Stop):
        count_legal_positions_stats(8, 7, checkpoint=tmp_path, progress=stop_at_row_4)
    meta = __import__("json").loads((tmp_path / "sweep.json").read_text())
    assert meta["rows_done"] == 4 and meta["frontier"] == 7 and meta["length"] == 8
    assert sorted(os.listdir(tmp_path)) == ["lock", "states-row4.bin", "sweep.json"]
    assert [(p.row, p.col) for p in seen] == [(r, c) for r in range(4) for c in range(7)] + [(4, 0)]
    rows = []
    resumed = count_legal_positions_stats(8, 7, checkpoint=tmp_path,
                                          progress=lambda p: rows.append(p.row))
    assert rows[0] == 4                                     # nothing redone
    whole = count_legal_positions_stats(8, 7)
    assert resumed.count == whole.count == _sweep(7, 8, 1).count
    assert (resumed.peak_states, resumed.total_states, resumed.final_states) == \
        (whole.peak_states, whole.total_states, whole.final_states)
    # another board in the same directory is refused by name (the finished count left its result)
    assert json.loads((tmp_path / "result.json").read_text())["count"] == str(whole.count)
    with pytest.raises(ValueError, match="result of another board's sweep: 7 points wide and 8 long, not 6 wide and 8 long"):
        count_legal_positions_stats(8, 6, checkpoint=tmp_path)
    # also where the other board's count needs another number of words (a 9x9 count does):
    # that was called a pass of a count in several passes (a counting tester's finding)
    with pytest.raises(ValueError, match="result of another board's sweep: 7 points wide and 8 long, not 9 wide and 9 long"):
        count_legal_positions_stats(9, 9, checkpoint=tmp_path)


def test_the_brute_force_names_its_limit_in_points():
    for w, h in [(1, 21), (21, 1), (5, 5), (2, 11)]:
        with pytest.raises(ValueError, match=f"board size {w}x{h} out of range for the brute "
                                             f"force: at most 20 points"):
            count_legal_positions_brute(w, h)


def test_resumed_sweep_sizes_its_tables_as_before(tmp_path):
    # a checkpoint keeps each column's growth over the last row: the resumed rows' tables are
    # those of an uninterrupted sweep (a resumed 14x14 that guessed 2x growth ran out of memory)
    whole = count_legal_positions_stats(9, 9)
    with pytest.raises(Stop):
        count_legal_positions_stats(9, 9, checkpoint=tmp_path, progress=lambda p: (
            _ for _ in ()).throw(Stop) if p.row == 7 else None)
    meta = json.loads((tmp_path / "sweep.json").read_text())
    assert len(meta["growth"]) == 9 and all(0.5 < g < 1.5 for g in meta["growth"])
    # damaged figures are refused (a state has at most 3 successors), even with the checksum
    # made again; none at all, as an earlier version wrote (nor its checksums), is resumed with
    # typical figures
    for bad in ([1.0] * 8, [1.0] * 8 + [3.5], [1.0] * 8 + ["1"], [1.0] * 8 + [-1], "1.0"):
        (tmp_path / "sweep.json").write_text(json.dumps(_signed(dict(meta, growth=bad))))
        with pytest.raises(ValueError, match="growth must be a list of 9 numbers in 0..3"):
            count_legal_positions_stats(9, 9, checkpoint=tmp_path)
    copy = tmp_path / "old"
    shutil.copytree(tmp_path, copy, ignore=shutil.ignore_patterns("old"))
    (copy / "sweep.json").write_text(json.dumps(dict(
        {k: v for k, v in meta.items() if k not in ("growth", "checksum", "sha256")},
        format="fastgo-sweep-1")))
    with pytest.warns(RuntimeWarning, match="written by an earlier fastgo, without checksums"):
        assert count_legal_positions_stats(9, 9, checkpoint=copy).count == whole.count
    (tmp_path / "sweep.json").write_text(json.dumps(meta))
    resumed = count_legal_positions_stats(9, 9, checkpoint=tmp_path)
    assert resumed.count == whole.count and resumed.table_bytes == whole.table_bytes


def _signed(meta):
    """`meta` with the checksum a checkpoint's JSON file carries, computed here from its
    definition (SHA-256 of the canonical JSON of the other fields): an edit made on purpose."""
    body = {k: v for k, v in meta.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return dict(body, checksum=hashlib.sha256(text.encode()).hexdigest())


def _stop_at_row(row, sweep=0):
    def stop(p):
        if p.sweep == sweep and p.row == row:
            raise Stop
    return stop


def test_a_checkpoint_directory_serves_one_count_at_a_time(tmp_path):
    """Two counts given one checkpoint directory at once (threads here, or processes) renamed
    each other's files: a bare FileNotFoundError (a thread tester's finding). While one runs
    the other is refused by name; after it, the directory resumes as before."""
    import threading
    from fastgo.count import count_legal_positions_stats
    inside, release, got = threading.Event(), threading.Event(), {}

    def hold(p):
        inside.set()
        release.wait(30)

    def first():
        got["first"] = count_legal_positions_stats(6, 6, checkpoint=tmp_path, progress=hold)
    t = threading.Thread(target=first)
    t.start()
    try:
        assert inside.wait(30)
        with pytest.raises(ValueError, match="in use by another count"):
            count_legal_positions_stats(5, 5, checkpoint=tmp_path)
    finally:
        release.set()
        t.join(60)
    assert got["first"].count == count_legal_positions(6, 6)
    assert count_legal_positions_stats(6, 6, checkpoint=tmp_path).count == got["first"].count
    # a count in another process holds the directory too (flock: released with the process)
    other = tmp_path / "other"
    other.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", f"""
import fcntl, os, sys
fd = os.open({str(other / "lock")!r}, os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.readline()
"""], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(ValueError, match="in use by another count"):
            count_legal_positions_stats(4, 4, checkpoint=other)
    finally:
        holder.communicate("\n", timeout=30)
    assert count_legal_positions_stats(4, 4, checkpoint=other).count == count_legal_positions(4, 4)


def test_checkpoint_damage_is_refused(tmp_path):
    with pytest.raises(Stop):
        count_legal_positions_stats(6, 6, checkpoint=tmp_path,
                                    progress=lambda p: (_ for _ in ()).throw(Stop) if p.row == 3
                                    else None)
    name = [n for n in os.listdir(tmp_path) if n.endswith(".bin")][0]
    with open(tmp_path / name, "r+b") as fh:
        fh.truncate(40)
    with pytest.raises(ValueError, match="holds 40 bytes"):
        count_legal_positions_stats(6, 6, checkpoint=tmp_path)
    (tmp_path / "sweep.json").write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match="not a checkpoint of this version"):
        count_legal_positions_stats(6, 6, checkpoint=tmp_path)


def test_checksums_refuse_a_damaged_or_edited_checkpoint(tmp_path, capsys):
    # a tester's findings: one flipped bit of one stored count, or rows_done edited, was resumed
    # into a wrong count that looked exact (one of them above 3^64, the colourings of 8x8)
    from fastgo.cli import main
    with pytest.raises(Stop):
        count_legal_positions_stats(8, 8, checkpoint=tmp_path, progress=_stop_at_row(4))
    states, sweep = tmp_path / "states-row4.bin", tmp_path / "sweep.json"
    good_states, good_meta = states.read_bytes(), sweep.read_text()
    meta = json.loads(good_meta)
    # what is recorded: the states file's SHA-256, and sweep.json's of its other fields
    assert meta["sha256"] == hashlib.sha256(good_states).hexdigest()
    assert meta == _signed(meta)

    def refused(match):
        with pytest.raises(ValueError, match=match):
            count_legal_positions_stats(8, 8, checkpoint=tmp_path)
        states.write_bytes(good_states)
        sweep.write_text(good_meta)

    flipped = bytearray(good_states)
    flipped[-1] ^= 1                            # bit 56 of the last state's count
    states.write_bytes(bytes(flipped))
    refused(r"states-row4\.bin is damaged: its SHA-256 differs from the one .*sweep\.json "
            r"recorded when it was written")
    for edit in (dict(rows_done=7), dict(rows_done=-1), dict(states=meta["states"] - 1)):
        sweep.write_text(json.dumps(dict(meta, **edit)))
        refused(r"sweep\.json is damaged or was edited: its contents differ from the checksum")
    # a reviewer's finding: the checksum deleted made the file pass for an earlier version's,
    # resumed unchecked (the flipped bit then gave a wrong count inside 1..3^(w*h))
    states.write_bytes(bytes(flipped))
    sweep.write_text(json.dumps({k: v for k, v in meta.items() if k != "checksum"}))
    refused(r"sweep\.json is damaged or was edited: its contents differ from the checksum")
    # edits whose checksum was made again: each is refused by what it contradicts
    for edit, match in [
            (dict(rows_done=7), r"file must be 'states-row7\.bin', the states after row 7, got "
                                r"'states-row4\.bin'"),
            (dict(rows_done=-1), r"rows_done must be an integer 1\.\.7, got -1"),
            (dict(rows_done=8), r"rows_done must be an integer 1\.\.7, got 8"),
            (dict(rows_done=True), r"rows_done must be an integer 1\.\.7, got True"),
            (dict(rows_done=7, file="states-row7.bin"), r"states-row7\.bin is missing"),
            (dict(states=meta["states"] - 1), r"holds \d+ bytes, not the \d+ states"),
            (dict(frontier=4, length=16), r"checkpoint of another board's sweep: 4 points wide and 16 long, not 8 wide and 8 long"),
            (dict(limbs=1), r"a pass counting modulo a power of two with 1 words"),
            (dict(primes=[PRIMES[0], PRIMES[1]]), r"a pass counting modulo \[9223"),
            (dict(peak_states=-5), r"peak_states must be an integer at least 0, got -5"),
            (dict(seconds="1"), r"seconds must be a number of seconds >= 0, got '1'"),
            (dict(format="fastgo-sweep-0"), r"not a checkpoint of this version")]:
        sweep.write_text(json.dumps(_signed(dict(meta, **edit))))
        refused(match)
    sweep.write_text("{\"format\": ")
    refused(r"sweep\.json cannot be read as a checkpoint")
    # the command line: the usage and the reason, exit status 2, no traceback
    states.write_bytes(bytes(flipped))
    with pytest.raises(SystemExit) as exc:
        main(["count", "8", "8", "--resume", str(tmp_path)])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("usage: fastgo count")
    assert "states-row4.bin is damaged" in err and "Traceback" not in err
    # put back as written, it resumes to the published count (OEIS A094777)
    states.write_bytes(good_states)
    assert count_legal_positions_stats(8, 8, checkpoint=tmp_path).count == SQUARE[7]


def test_checksums_refuse_an_edited_result(tmp_path):
    # 3x6 finished: its result.json gives the count again without a sweep (Tromp and Farnebäck)
    assert count_legal_positions_stats(3, 6, checkpoint=tmp_path).count == THREE_BY[5]
    path = tmp_path / "result.json"
    d = json.loads(path.read_text())
    assert d == _signed(d) and d["count"] == str(THREE_BY[5])
    path.write_text(json.dumps(dict(d, count=str(THREE_BY[5] + 1))))
    with pytest.raises(ValueError, match=r"result\.json is damaged or was edited"):
        count_legal_positions_stats(3, 6, checkpoint=tmp_path)
    # signed again: no count lies outside 1..3^18 (the empty board is legal, all-black is not);
    # nor may it pass its pass's modulus, 2^64 (one word: 3^18 < 2^64), or be other than digits
    for count, match in [(str(3 ** 18), r"the count of 3x6 came out as 387420489, outside "
                                         r"1\.\.3\^18 \(resumed from .*: the checkpoint is damaged\)"),
                         ("0", r"outside 1\.\.3\^18"),
                         (str(2 ** 64), r"count must be the decimal text of a number below 1 "
                                        r"words' modulus, got '18446744073709551616'"),
                         ("-1", "count must be the decimal text"), (12, "count must be"),
                         ("１２", "count must be")]:
        path.write_text(json.dumps(_signed(dict(d, count=count))))
        with pytest.raises(ValueError, match=match):
            count_legal_positions_stats(3, 6, checkpoint=tmp_path)
    path.write_text(json.dumps(d))
    assert count_legal_positions_stats(6, 3, checkpoint=tmp_path).count == THREE_BY[5]


def test_checksums_refuse_an_edited_plan_or_a_pass_resumed_alone(tmp_path):
    # modular passes (modulo 2^64, then one prime): their plan is checked against the passes the
    # count chooses, since other moduli would join into a wrong count
    from fastgo.count import sweep_memory
    limit = sweep_memory(8, 9, 1)
    with pytest.raises(Stop):
        count_legal_positions_stats(9, 8, checkpoint=tmp_path, progress=_stop_at_row(3, 1),
                                    max_bytes=limit)
    path = tmp_path / "plan.json"
    plan = json.loads(path.read_text())
    assert plan == _signed(plan) and plan["passes"] == [[1, None], [1, [PRIMES[0]]]]
    path.write_text(json.dumps(dict(plan, passes=[[1, None]])))
    with pytest.raises(ValueError, match=r"plan\.json is damaged or was edited"):
        count_legal_positions_stats(9, 8, checkpoint=tmp_path)
    for passes in ([[1, None]], [[1, None], [1, [PRIMES[1]]]], [[2, None]], [[0, None]], "x",
                   [[1, None], [1, [PRIMES[0]]], [1, [PRIMES[1]]]]):
        path.write_text(json.dumps(_signed(dict(plan, passes=passes))))
        with pytest.raises(ValueError, match=r"plan\.json: passes .* are not the passes of a 9x8 "
                                             r"count"):
            count_legal_positions_stats(9, 8, checkpoint=tmp_path)
    path.write_text(json.dumps(plan))
    # one pass's directory resumed as if it were a count: its residues are no count
    for part in ("pass0", "pass1"):
        with pytest.raises(ValueError, match=r"a part of a count in several passes"):
            count_legal_positions_stats(9, 8, checkpoint=tmp_path / part)
    assert count_legal_positions_stats(9, 8, checkpoint=tmp_path).count == \
        count_legal_positions(8, 9)


def test_an_unusable_checkpoint_path_is_refused_before_counting(tmp_path, capsys):
    # a file, or a directory that cannot be made: a one-line reason with the usage (status 2)
    # before any row is swept (no progress line), as the README promises for errors
    from fastgo.cli import main
    (tmp_path / "f").write_text("not a directory")
    for path, said in [(tmp_path / "f", "is a file, not a directory"),
                       (tmp_path / "f" / "sub", "is not writable: Not a directory")]:
        with pytest.raises(SystemExit) as exc:
            main(["count", "7", "6", "--checkpoint", str(path)])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and err.startswith("usage: fastgo count")
        assert f"checkpoint directory {str(path)!r} {said}" in err
        assert "row 1/" not in err and "Traceback" not in err
        with pytest.raises(ValueError, match=said):
            count_legal_positions_stats(7, 6, checkpoint=path, progress=pytest.fail)
    assert (tmp_path / "f").read_text() == "not a directory"


def test_huge_memory_limits_set_no_bound(capsys):
    # a limit above the machine's memory is allowed and bounds nothing (it overflowed a float:
    # OverflowError from the API, a traceback from --max-memory 1e300)
    from fastgo.cli import main
    assert count_legal_positions_stats(3, 3, max_bytes=10 ** 400).count == SQUARE[2]
    assert count_legal_positions_stats(3, 3, max_bytes=np.uint64(2 ** 64 - 1)).count == SQUARE[2]
    for gib in ("1e300", "1.7976931348623157e308"):
        assert main(["count", "3", "3", "--max-memory", gib]) == 0
        assert "legal positions on 3x3: 12,675\n" in capsys.readouterr().out
    # a limit below one word a count is refused as before (status 1, the estimate named)
    assert main(["count", "3", "3", "--max-memory", "1e-300"]) == 1
    assert "3x3 does not fit: even counts of one 64-bit word" in capsys.readouterr().err
    for bad, exc in ((-1, ValueError), (1.5, TypeError), (True, TypeError), ("1", TypeError)):
        with pytest.raises(exc, match="max_bytes"):
            count_legal_positions_stats(3, 3, max_bytes=bad)


def test_sweep_memory_validates_limbs():
    # limbs is a count of 64-bit words: 1 up to the exact counts' (3 for 9x9: 3^81 < 2^192)
    from fastgo.count import sweep_memory
    assert sweep_memory(9, 9) == sweep_memory(9, 9, 3) == sweep_memory(9, 9, np.int8(3))
    # a key and the words of a count a slot: 1 word is half the bytes of 3 (8 + 8 vs 8 + 24)
    assert 2 * sweep_memory(9, 9, 1) == sweep_memory(9, 9, 3)
    for bad, exc, msg in [(0, ValueError, r"limbs must be 1\.\.3 .* got 0"),
                          (-1, ValueError, r"limbs must be 1\.\.3 .* got -1"),
                          (4, ValueError, r"limbs must be 1\.\.3 .* got 4"),
                          (True, TypeError, "limbs must be an integer, not bool"),
                          (2.5, TypeError, "limbs must be an integer, not float"),
                          ("x", TypeError, "limbs must be an integer, not str")]:
        with pytest.raises(exc, match=msg):
            sweep_memory(9, 9, bad)


def test_progress_reports_every_point_and_an_eta():
    got = []
    s = count_legal_positions_stats(6, 5, progress=got.append)
    assert [(p.row, p.col) for p in got] == [(r, c) for r in range(6) for c in range(5)]
    assert all(p.rows == 6 and p.cols == 5 for p in got)
    assert all(p.eta is None for p in got[:4]) and all(p.eta >= 0 for p in got[4:])
    assert got[-1].eta == 0 and got[-1].states == s.final_states
    assert max(p.states for p in got) == s.peak_states


def test_memory_estimate_and_refusal():
    from fastgo.count import sweep_memory
    est = [sweep_memory(n, n) for n in range(1, 15)]
    assert est == sorted(est)
    s = count_legal_positions_stats(9, 9)
    # the estimate sizes both tables for the peak; the sweep's own tables never exceed it
    assert s.table_bytes <= sweep_memory(9, 9) <= 4 * s.table_bytes
    # 14x14 exact (5 words a count) needs more than 16 GiB; 3 words fit
    assert sweep_memory(13, 13) < 16 * 2 ** 30 < sweep_memory(14, 14)
    assert sweep_memory(14, 14, 3) < 16 * 2 ** 30
    with pytest.raises(MemoryError, match=r"9x9 does not fit: even counts of one 64-bit word need "
                                          r"about 5\.7 MiB of state tables \(exact counts 11\.5 "
                                          r"MiB\), and 1,000 bytes are allowed"):
        count_legal_positions_stats(9, 9, max_bytes=1000)
    with pytest.raises(MemoryError, match=r"3x3 does not fit: even counts of one 64-bit word need "
                                          r"about [0-9,]+ bytes .* and 10 bytes are allowed"):
        count_legal_positions_stats(3, 3, max_bytes=10)       # (0.0 MiB against 0.0 MiB)


def test_modular_primes_and_crt():
    from fastgo.count import PRIMES, _crt, _is_prime, _prime
    # the largest primes below 2^63, as published (2^63 - k: primes.utm.edu's "primes just less
    # than a power of two"); _prime finds the ones after PRIMES itself
    assert [2 ** 63 - _prime(k) for k in range(10)] == [25, 165, 259, 301, 375, 387, 391, 409,
                                                        457, 471]
    assert list(PRIMES) == [_prime(k) for k in range(len(PRIMES))]
    # the Miller-Rabin test against trial division, and on strong pseudoprimes to the first
    # bases (3,215,031,751: bases 2, 3, 5, 7; 3,825,123,056,546,413,051: every base up to 23)
    small = [n for n in range(2, 20000) if all(n % d for d in range(2, int(n ** 0.5) + 1))]
    assert [n for n in range(20000) if _is_prime(n)] == small
    assert not _is_prime(3215031751) and not _is_prime(3825123056546413051)
    assert not _is_prime(2 ** 63 - 1) and _is_prime(2 ** 61 - 1)
    rng = random.Random(3)
    moduli = [2 ** 64, PRIMES[0], PRIMES[1], 7]
    for _ in range(200):
        x = rng.randrange(2 ** 64 * PRIMES[0] * PRIMES[1] * 7)
        assert _crt([x % m for m in moduli], moduli) == x


@pytest.mark.parametrize("n,threads", [(8, 1), (9, 1), (9, 2)])
def test_counts_in_modular_passes(n, threads):
    # a memory limit below the exact counts' makes the sweep run modulo 2^64 or 2^128 and then
    # modulo primes, joined by the Chinese remainder theorem: the published counts
    from fastgo.count import sweep_memory
    exact = count_legal_positions_stats(n, n)
    for limbs in range(1, exact.limbs):
        s = count_legal_positions_stats(n, n, threads=threads,
                                        max_bytes=sweep_memory(n, n, limbs))
        assert s.count == SQUARE[n - 1] and s.limbs == limbs and s.passes >= 2
        assert 2 ** (64 * limbs) * max(PRIMES) ** (limbs * (s.passes - 1)) > 3 ** (n * n)
        assert (s.peak_states, s.total_states, s.final_states) == \
            (exact.peak_states, exact.total_states, exact.final_states)
        assert s.table_bytes <= sweep_memory(n, n, limbs)


def test_long_board_in_many_modular_passes():
    # 3 x 1000 needs 75 words a count: exact in one pass, and again in one word a pass (modulo
    # 2^64, then 75 primes below 2^63, more than the tabled PRIMES), equal
    from fastgo.count import _limbs, sweep_memory
    exact = count_legal_positions_stats(3, 1000)
    assert exact.limbs == _limbs(3, 1000) == 75 and exact.passes == 1
    s = count_legal_positions_stats(3, 1000, max_bytes=sweep_memory(3, 1000, 1))
    assert s.count == exact.count and s.passes > len(PRIMES) + 1


def test_sweep_counts_modulo(tmp_path):
    # one pass on its own: the count modulo 2^64, and modulo each of two primes
    from fastgo.count import PRIMES
    assert _sweep(9, 9, 1, limbs=1).count == SQUARE[8] % 2 ** 64
    assert _sweep(9, 9, 2, limbs=2, primes=PRIMES[2:4]).count == \
        (SQUARE[8] % PRIMES[2], SQUARE[8] % PRIMES[3])
    with pytest.raises(ValueError):
        _sweep(9, 9, 1, limbs=2, primes=PRIMES[:1])
    with pytest.raises(ValueError):
        _sweep(9, 9, 1, limbs=1, primes=(2 ** 63 + 1,))


def test_modular_passes_checkpoint_and_resume(tmp_path):
    # stopped in the second pass and resumed: the first pass is not redone, the count is exact
    from fastgo.count import sweep_memory
    limit = sweep_memory(8, 9, 1)
    seen = []

    def stop(p):
        seen.append((p.sweep, p.sweeps, p.row, p.col))
        if p.sweep == 1 and p.row == 3:
            raise Stop
    with pytest.raises(Stop):
        count_legal_positions_stats(9, 8, checkpoint=tmp_path, progress=stop, max_bytes=limit)
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert len(plan["passes"]) == seen[0][1] == 2      # modulo 2^64, then one prime
    assert sorted(os.listdir(tmp_path)) == ["lock", "pass0", "pass1", "plan.json"]
    assert {p[:2] for p in seen} == {(0, 2), (1, 2)}
    assert "result.json" in os.listdir(tmp_path / "pass0")
    assert "result.json" not in os.listdir(tmp_path / "pass1")
    again = []
    # a resumed count keeps its plan even when more memory is allowed now
    s = count_legal_positions_stats(9, 8, checkpoint=tmp_path, progress=lambda p: again.append(
        (p.sweep, p.row)))
    assert again[0] == (1, 3) and again[-1][0] == 1
    assert s.count == count_legal_positions(9, 8) and s.passes == 2 and s.limbs == 1
    # a finished pass leaves its result and no states file
    assert sorted(os.listdir(tmp_path / "pass1")) == ["result.json", "sweep.json"]
    # another board is refused by name
    with pytest.raises(ValueError, match="plan.json is the checkpoint of a 9x8 count, not of 2x70"):
        count_legal_positions_stats(2, 70, checkpoint=tmp_path)


def test_exact_checkpoint_resumes_exact_with_less_memory(tmp_path):
    # the memory allowed when resuming would choose modular passes: the exact checkpoint is
    # resumed as it was started, not begun again
    from fastgo.count import sweep_memory
    with pytest.raises(Stop):
        count_legal_positions_stats(7, 6, checkpoint=tmp_path, progress=lambda p: (
            _ for _ in ()).throw(Stop) if p.row == 3 else None)
    rows = []
    s = count_legal_positions_stats(7, 6, checkpoint=tmp_path, max_bytes=sweep_memory(7, 6, 1),
                                    progress=lambda p: rows.append((p.sweep, p.row)))
    assert rows[0] == (0, 3) and s.passes == 1 and s.count == count_legal_positions(6, 7)
    assert "pass0" not in os.listdir(tmp_path)
    with pytest.raises(ValueError, match="max_bytes must be at least 0"):
        count_legal_positions_stats(5, 5, max_bytes=-1)


def test_cli_refuses_a_board_that_does_not_fit():
    r = subprocess.run([sys.executable, "-m", "fastgo", "count", "16", "16"], env=_child_env(),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith("fastgo count: 16x16 does not fit: even counts of one 64-bit "
                               "word need about ")


def test_cli_checkpoint_progress_and_resume(tmp_path, capsys):
    from fastgo.cli import main
    with pytest.raises(SystemExit) as exc:
        main(["count", "6", "6", "--resume", str(tmp_path)])
    assert exc.value.code == 2 and "no checkpoint there" in capsys.readouterr().err
    assert main(["count", "7", "6", "--checkpoint", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert f"legal positions on 7x6: {count_legal_positions(7, 6):,}\n" in out
    lines = err.splitlines()             # not a terminal: one line per row
    assert len(lines) == 7 and lines[0].startswith("[") and "row 1/7 point 6/6" in lines[0]
    assert "ETA 0:00:00" in lines[-1]
    with pytest.raises(SystemExit):
        main(["count", "7", "6", "--checkpoint", str(tmp_path), "--brute"])
    assert "exact count only" in capsys.readouterr().err


def test_a_finished_checkpoint_is_only_read(tmp_path, monkeypatch):
    """A reviewer's finding: a finished count's checkpoint kept read-only was refused as "not
    writable" (its result is only read). The writability probe stands in for a read-only
    directory here (the tests may run as root, which writes anywhere)."""
    import fastgo.records
    first = count_legal_positions_stats(4, 4, checkpoint=tmp_path)
    assert first.count == SQUARE[3]

    def refuse(path, what, error):
        raise error(f"{what} {path!r} is not writable")
    monkeypatch.setattr(fastgo.records, "make_directory", refuse)
    assert count_legal_positions_stats(4, 4, checkpoint=tmp_path).count == SQUARE[3]
    with pytest.raises(ValueError, match="not writable"):      # an unfinished one still asks
        count_legal_positions_stats(4, 4, checkpoint=tmp_path / "new")


SUBINTERPRETER_CHILD = """
import importlib, numpy as np, fastgo
interpreters = importlib.import_module("_xxsubinterpreters")
interpreters.create()       # (mod_wsgi's default: a process that holds a sub-interpreter)
print(int(fastgo.legal_position_mask(np.zeros((3, 3, 3), np.int8), threads=1).sum()),
      int(fastgo.legal_position_mask(np.zeros((300, 3, 3), np.int8), threads=2).sum()),
      fastgo.estimate_legal_fraction(3, 3, 2000, seed=1, threads=2).legal,
      fastgo.estimate_legal_fraction(3, 3, 2000, seed=1, threads=1).legal,
      fastgo.count_legal_positions_stats(4, 4, threads=2).count,
      fastgo.count_legal_positions(4, 4))
"""


def test_counting_kernels_in_a_process_with_a_sub_interpreter():
    """The parallel counting kernels released the GIL where Cython had to ask whether it was
    held; with a sub-interpreter in the process Python before 3.12 answers wrongly, and the
    process aborted ("PyEval_SaveThread: ... the GIL is released"). They run, and count right."""
    try:
        import _xxsubinterpreters  # noqa: F401
    except ImportError:
        pytest.skip("no _xxsubinterpreters in this Python")
    r = subprocess.run([sys.executable, "-c", SUBINTERPRETER_CHILD], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    mask1, mask2, est2, est1, stats, exact = map(int, r.stdout.split())
    assert (mask1, mask2) == (3, 300)               # the empty board is legal
    assert est2 == est1                              # the sample does not depend on threads
    assert stats == exact == 24318165                # 4x4 legal positions (Tromp's table)


def test_the_brute_force_names_its_points_limit_for_huge_sides_too():
    for w, h in [(2**31, 1), (1, 2**40), (10**30, 10**30)]:
        with pytest.raises(ValueError, match="at most 20 points"):
            count_legal_positions_brute(w, h)
    with pytest.raises(ValueError, match="must be positive"):
        count_legal_positions_brute(0, 2**40)
