"""pytest-benchmark suite for SGF records: writing recorded playouts as a collection (what a
simulation's SGF shards cost) and reading it back.

Run: ``python -m pytest benchmarks/test_sgf.py --benchmark-columns=median,iqr,rounds``. Each
benchmark is 1,000 recorded games: divide by 1,000 for a game. The collection read back must
hold the games written (a wrong fast answer is no result).
"""

import pytest

import fastgo
from fastgo import sgf

GAMES = 1000


@pytest.fixture(scope="module", params=[9, 19])
def recorded(request):
    size = request.param
    board = fastgo.Board(size, rules="chinese")
    return board, fastgo.playouts(board, GAMES, seed=1, threads=1, record=GAMES)


def test_games_to_sgf(benchmark, recorded):
    board, games = recorded
    benchmark.group = f"SGF {board.width}x{board.height}, {GAMES} games"
    text = benchmark(sgf.games_to_sgf, games.moves, start=board)
    assert text.count("(;") == GAMES


def test_read_games(benchmark, recorded):
    board, games = recorded
    benchmark.group = f"SGF {board.width}x{board.height}, {GAMES} games"
    text = sgf.games_to_sgf(games.moves, start=board)
    read = benchmark.pedantic(sgf.read_games, args=(text,), rounds=3)
    assert [len(g.moves) for g in read] == [len(m) for m in games.moves]
