"""pytest-benchmark suite for walking game trees (fastgo.gametree).

Run: ``python -m pytest benchmarks/test_gametree.py --benchmark-columns=median,iqr,rounds``.
The counts are checked too. perft(7) on 3x3 is checked against perft_divide's sum (the unit
tests check both against walks through Board and the pure-Python reference at smaller depths);
the game counts against the published values. 1x4 takes seconds; 2x2 minutes (FASTGO_SLOW=1;
figures in benchmarks/RESULTS.md).
"""

import os

import pytest

from fastgo import Board
from fastgo.gametree import count_games, perft, perft_divide

SLOW = pytest.mark.skipif(not os.environ.get("FASTGO_SLOW"), reason="set FASTGO_SLOW=1")


@pytest.mark.parametrize("rules", ["tromp-taylor", "japanese"])
def test_perft_3x3_depth_7(benchmark, rules):
    benchmark.group = "perft 3x3 depth 7"
    board = Board(3, rules=rules)
    n = benchmark.pedantic(perft, args=(board, 7), rounds=3)
    assert n == sum(perft_divide(board, 7).values())
    benchmark.extra_info["sequences"] = n


def test_game_count_1x3(benchmark):
    benchmark.group = "complete games"
    assert benchmark.pedantic(count_games, args=(1, 3), rounds=5) == 907


@pytest.mark.parametrize("threads", [1, 2])
def test_game_count_1x4(benchmark, threads):
    benchmark.group = "complete games 1x4"
    assert benchmark.pedantic(count_games, args=(1, 4), kwargs={"threads": threads},
                              rounds=1) == 2_098_407_841


@SLOW
def test_game_count_2x2(benchmark):
    benchmark.group = "complete games"
    assert benchmark.pedantic(count_games, args=(2, 2), rounds=1) == 386_356_909_593
