"""Counting legal positions (fastgo.count): every count is checked against an independent source.

Sources: the published values (OEIS A094777 n x n, A102620 1 x n, A266278 2 x n; 3 x n from
Tromp and Farnebäck's tables), the brute force over all colourings, a pure-Python flood fill
written here from the rule text, and fastgo.is_legal_position. 9x9 and 10x10 exact counts run
only with FASTGO_SLOW=1 (seconds to a minute), 11x11 and 12x12 with FASTGO_SLOW=2 (minutes);
8x8 and below run by default.
"""

import itertools
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fastgo
from fastgo.count import (MAX_BRUTE_POINTS, MAX_FRONTIER, _sweep, count_legal_positions,
                          count_legal_positions_brute, count_legal_positions_stats,
                          estimate_legal_fraction, legal_position_mask, wilson_interval)

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
def test_sweep_threads(threads):
    s = count_legal_positions_stats(6, 5, threads=threads)
    assert s.count == count_legal_positions(5, 6, threads=1)
    assert s.threads == threads


def test_stats():
    s = count_legal_positions_stats(7, 5, threads=1)
    assert (s.width, s.height, s.frontier) == (7, 5, 5)
    assert s.count == _sweep(7, 5, 1).count
    assert 1 <= s.final_states <= s.peak_states <= s.total_states
    assert s.table_bytes > 0 and s.seconds >= 0
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


def test_cli_refuses_too_wide(capsys):
    from fastgo.cli import main
    with pytest.raises(SystemExit):
        main(["count", "13", "13"])
    assert "out of range" in capsys.readouterr().err


def test_module_doctests():
    import doctest
    import fastgo.count
    result = doctest.testmod(fastgo.count)
    assert result.attempted >= 4 and result.failed == 0
