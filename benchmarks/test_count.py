"""pytest-benchmark suite for counting legal positions (fastgo.count).

Run: ``python -m pytest benchmarks/test_count.py --benchmark-columns=median,iqr,rounds
--benchmark-sort=name``. The exact counts are checked too (a wrong fast answer is no result).
10x10 and larger are one-off runs of the CLI (``/usr/bin/time -v fastgo count 10 10``), not
benchmarks: see benchmarks/RESULTS.md.
"""

import numpy as np
import pytest

from fastgo.count import (count_legal_positions_brute, count_legal_positions_stats,
                          default_threads, estimate_legal_fraction, legal_position_mask)

SQUARE = {7: 83677847847984287628595, 8: 990966953618170260281935463385,
          9: 103919148791293834318983090438798793469}
THREADS = sorted({1, default_threads()})


@pytest.mark.parametrize("n", [7, 8, 9])
@pytest.mark.parametrize("threads", THREADS)
def test_exact_square(benchmark, n, threads):
    benchmark.group = f"exact count {n}x{n}"
    stats = benchmark.pedantic(count_legal_positions_stats, args=(n, n),
                               kwargs=dict(threads=threads), rounds=5 if n < 9 else 2)
    assert stats.count == SQUARE[n]
    benchmark.extra_info.update(peak_states=stats.peak_states, total_states=stats.total_states,
                                table_bytes=stats.table_bytes)


@pytest.mark.parametrize("threads", THREADS)
def test_brute_force_4x4(benchmark, threads):
    benchmark.group = "brute force 4x4 (3^16 = 43M colourings)"
    n = benchmark.pedantic(count_legal_positions_brute, args=(4, 4),
                           kwargs=dict(threads=threads), rounds=3)
    assert n == 24318165


BATCH = 100_000


@pytest.fixture(scope="module")
def boards_19():
    """100,000 uniformly random 19x19 colourings (int8), about 1.2% of them legal."""
    return np.random.default_rng(19).integers(0, 3, size=(BATCH, 19, 19), dtype=np.int8)


@pytest.fixture(scope="module")
def boards_9():
    """100,000 uniformly random 9x9 colourings (int8), about 23% of them legal."""
    return np.random.default_rng(9).integers(0, 3, size=(BATCH, 9, 9), dtype=np.int8)


@pytest.mark.parametrize("threads", THREADS)
def test_mask_19x19(benchmark, boards_19, threads):
    """Per-board time = median / 100,000; boards per second per core = 1e5 / median / threads."""
    benchmark.group = f"legal_position_mask, {BATCH:,} random 19x19 boards"
    out = benchmark.pedantic(legal_position_mask, args=(boards_19,),
                             kwargs=dict(threads=threads), rounds=10)
    assert 0.008 < out.mean() < 0.016
    benchmark.extra_info["boards"] = BATCH


@pytest.mark.parametrize("threads", THREADS)
def test_mask_9x9(benchmark, boards_9, threads):
    """As for 19x19."""
    benchmark.group = f"legal_position_mask, {BATCH:,} random 9x9 boards"
    out = benchmark.pedantic(legal_position_mask, args=(boards_9,),
                             kwargs=dict(threads=threads), rounds=10)
    assert abs(out.mean() - SQUARE[9] / 3 ** 81) < 0.01      # 23.4% exactly
    benchmark.extra_info["boards"] = BATCH


@pytest.mark.parametrize("threads", THREADS)
def test_estimate_19x19(benchmark, threads):
    """Board generation (in C, seeded) plus the test, per board = median / 100,000."""
    benchmark.group = f"estimate_legal_fraction 19x19, {BATCH:,} samples"
    e = benchmark.pedantic(estimate_legal_fraction, args=(19, 19, BATCH),
                           kwargs=dict(seed=1, threads=threads), rounds=10)
    assert e.low < 0.01196 < e.high
