"""Benchmarks of the playout kernel and of a random game driven move by move from Python.

Run: ``OPENBLAS_NUM_THREADS=1 python -m pytest benchmarks/test_playouts.py
--benchmark-columns=median,iqr --benchmark-sort=name``. Each kernel benchmark is one call of
``playouts`` with a fixed count; divide the count by the median for playouts per second (the
``extra_info`` of each run holds the figure too).
"""

import random

import pytest

import fastgo
from fastgo.playout import default_threads

COUNTS = {9: 2000, 19: 200}


@pytest.mark.parametrize("ko", ["simple", "rules"])
@pytest.mark.parametrize("size", [9, 19])
@pytest.mark.parametrize("threads", [1, "all"])
def test_kernel_playouts(benchmark, size, ko, threads):
    b = fastgo.Board(size)
    n = COUNTS[size]
    t = default_threads() if threads == "all" else threads
    fastgo.playouts(b, n // 4, threads=t, ko=ko)            # warm the threads and caches
    res = benchmark(fastgo.playouts, b, n, threads=t, ko=ko, seed=1)
    benchmark.extra_info["playouts"] = n
    benchmark.extra_info["threads"] = t
    benchmark.extra_info["playouts_per_second"] = n / benchmark.stats.stats.median
    benchmark.extra_info["mean_moves"] = res.mean_length


def python_random_game(size, rng):
    """Uniform over the legal moves, pass included, until two passes: the loop a user writes."""
    b = fastgo.Board(size)
    while not b.is_over:
        b.play(rng.choice(b.legal_moves()))
    return b


@pytest.mark.parametrize("size", [9, 19])
def test_python_random_game(benchmark, size):
    rng = random.Random(7)
    b = benchmark(python_random_game, size, rng)
    assert b.is_over
