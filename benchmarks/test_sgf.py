"""pytest-benchmark suite for SGF records: writing recorded playouts as a collection (what a
simulation's SGF shards cost) and reading it back.

Run: ``python -m pytest benchmarks/test_sgf.py --benchmark-columns=median,iqr,rounds``. Each
benchmark is 1,000 recorded games: divide by 1,000 for a game. The collection read back must
hold the games written (a wrong fast answer is no result).
"""

import random

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


@pytest.mark.parametrize("turns", [5000, 20000])
def test_replay_with_the_passes_put_back(benchmark, turns):
    """A record that leaves out its passes (two moves of one colour in a row), replayed with
    ``insert_passes=True`` as GTP loadsgf replays: each put-back pass read the whole history
    (quadratic: 0.1 s at 5,000 turns, 2.3 s at 20,000), now the last turn alone. Time should
    grow four-fold from 5,000 to 20,000 turns, not sixteen-fold."""
    benchmark.group = "SGF replay, passes left out"
    # a random game under simple ko with suicide allowed, a pass at every third turn when the
    # opponent then has a point to play (the game goes on)
    board = fastgo.Board(19, rules=fastgo.Rules(ko="simple"))
    rng = random.Random(1)
    while board.move_number < turns:
        if board.move_number % 3 == 0 and board.consecutive_passes == 0:
            board.pass_()
            if len(board.legal_moves()) > 1:
                continue
            board.undo()
        board.play(rng.choice(board.legal_moves()[:-1]))
    game = sgf.read_game(sgf.to_sgf(sgf.game_of_board(board)))
    game.moves = [m for m in game.moves if m[1] != board.pass_move]     # the passes left out
    replayed = benchmark.pedantic(game.board, kwargs={"insert_passes": True}, rounds=3)
    assert replayed.move_number == board.move_number


@pytest.mark.parametrize("games", [2000, 8000])
def test_replay_errors_of_a_long_collection_game_by_game(benchmark, games):
    """Each game of one long collection replayed (Game.board()) and refused at its last move,
    whose error gives the line: the collection's line breaks are found once and kept on the
    text the Games share (a reviewer measured 26-32 s for 8,000 games when they were found
    again for each game, 0.54 s now). Time should grow four-fold from 2,000 to 8,000 games."""
    benchmark.group = "SGF replay errors, one collection"
    one = "(;GM[1]FF[4]SZ[9]C[a\nb\nc]\n;B[ee]\n;W[ee])\n"          # W plays on B's stone
    read = sgf.read_games(one * games)

    def replay_all():
        lines = []
        for game in read:
            try:
                game.board()
            except sgf.ReplayError as e:
                lines.append(e.line)
        return lines
    lines = benchmark.pedantic(replay_all, rounds=3)
    assert lines == [5 * k + 5 for k in range(games)]          # (five lines a game)
