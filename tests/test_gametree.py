"""perft and count_games (fastgo.gametree) against walks written here through the Python API of
Board and of the pure-Python reference, and against the published game counts.

Published game counts (positional superko, the game ends at two passes in a row): 1x1 = 1,
1x2 = 9, 1x3 = 907 (Tromp and Farnebäck, "Combinatorics of Go"), 1x4 = 2,098,407,841 (ibid.)
and 2x2 = 386,356,909,593 (John Tromp, rec.games.go, 1999) with FASTGO_SLOW=1 only: neither has
finished on the shared development machine yet (benchmarks/RESULTS.md).
"""

import os

import pytest

import fastgo
from fastgo import Board
from fastgo.gametree import MAX_DEPTH, count_games, perft, perft_divide

from reference import RefGame

SLOW = pytest.mark.skipif(not os.environ.get("FASTGO_SLOW"), reason="set FASTGO_SLOW=1")

RULES = ["tromp-taylor", "japanese", "chinese", "aga"]


def api_perft(g, depth):
    """perft through a game's Python API (legal_moves, play, undo): a Board or a RefGame."""
    if depth == 0:
        return 1
    n = 0
    for m in g.legal_moves():
        g.play(m)
        n += api_perft(g, depth - 1)
        g.undo()
    return n


def api_games(g):
    """Complete games through a game's Python API: every legal turn, until two passes."""
    n = 0
    for m in g.legal_moves():
        g.play(m)
        n += 1 if g.is_over else api_games(g)
        g.undo()
    return n


def ref_game(w, h, rules):
    r = fastgo.Rules.preset(rules)
    return RefGame(w, h, ko=r.ko, suicide=r.suicide)


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("w,h,depth", [(1, 1, 4), (1, 3, 6), (2, 2, 5), (3, 2, 4), (3, 3, 3)])
def test_perft_matches_board_and_reference(w, h, depth, rules):
    b = Board(w, h, rules=rules)
    expected = api_perft(b, depth)
    assert expected == api_perft(ref_game(w, h, rules), depth)
    assert perft(b, depth) == expected
    assert b.history == [] and b.hash == 0          # the walk ran on a copy


def test_perft_by_depth_on_3x3():
    # every depth up to 4 against the Board walk; counts grow with the depth
    b = Board(3, 3)
    got = [perft(b, d) for d in range(5)]
    assert got == [api_perft(b, d) for d in range(5)]
    assert got[:2] == [1, 10]                       # nine points and a pass


def test_perft_from_a_position_with_ko_and_passes():
    # a ko on 4x3 and a pass already played: the walk starts from the board's history
    b = Board(4, 3)
    for m in ["B1", "C1", "A2", "D2", "B3", "C3", "C2", "pass"]:
        b.play(m)
    for depth in range(4):
        assert perft(b, depth) == api_perft(b, depth)
    g = RefGame(4, 3)
    for m in ["B1", "C1", "A2", "D2", "B3", "C3", "C2", "pass"]:
        g.play(b.num_points if m == "pass" else fastgo.vertex_to_point(m, 4, 3))
    assert perft(b, 3) == api_perft(g, 3)


def test_two_passes_end_the_game():
    b = Board(3, 3)
    b.pass_()
    b.pass_()
    assert perft(b, 0) == 1 and perft(b, 1) == 0 and perft(b, 5) == 0
    b = Board(3, 3)
    b.pass_()
    # after one pass: a second pass ends the game, so it has no continuation of length 2
    assert perft(b, 2) == sum(perft_divide(b, 2).values())
    assert perft_divide(b, 2)["pass"] == 0


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_divide_sums_to_perft(depth):
    b = Board(3, 3)
    b.play("B2")
    parts = perft_divide(b, depth)
    assert sum(parts.values()) == perft(b, depth)
    legal = [fastgo.point_to_vertex(m, 3, 3) if m < 9 else "pass" for m in b.legal_moves()]
    assert list(parts) == legal
    for vertex, n in parts.items():
        c = b.copy()
        c.play(vertex)
        assert n == api_perft(c, depth - 1)


@pytest.mark.parametrize("w,h,expected", [(1, 1, 1), (1, 2, 9), (2, 1, 9), (1, 3, 907),
                                          (3, 1, 907)])
def test_game_counts_published(w, h, expected):
    assert count_games(w, h) == expected


@pytest.mark.parametrize("w,h", [(1, 1), (1, 2), (1, 3)])
@pytest.mark.parametrize("rules", ["tromp-taylor", "chinese"])
def test_game_counts_match_reference(w, h, rules):
    assert count_games(w, h, rules) == api_games(ref_game(w, h, rules))


@SLOW
def test_game_count_1x4():
    # 2,098,407,841 games (minutes)
    assert count_games(1, 4) == count_games(4, 1) == 2_098_407_841


@pytest.mark.parametrize("w,h", [(1, 2), (1, 3)])
def test_game_graph_walk_matches_board_walk(w, h):
    # every game walked through Board's Python API, next to the graph's count
    assert count_games(w, h) == api_games(Board(w, h))


@SLOW
def test_game_count_2x2_published():
    assert count_games(2, 2) == 386_356_909_593


def test_refusals():
    with pytest.raises(TypeError, match="fastgo.Board"):
        perft("3x3", 2)
    with pytest.raises(ValueError, match="depth"):
        perft(Board(3), -1)
    with pytest.raises(ValueError, match="depth"):
        perft(Board(3), MAX_DEPTH + 1)
    with pytest.raises(TypeError):
        perft(Board(3), 2.0)
    with pytest.raises(ValueError, match="depth >= 1"):
        perft_divide(Board(3), 0)
    for ko in ("simple", "situational"):
        with pytest.raises(ValueError, match="positional superko"):
            count_games(1, 2, fastgo.Rules(ko=ko))
    with pytest.raises(ValueError, match="at most 64 reachable colourings; 1x5 has more"):
        count_games(1, 5)
    with pytest.raises(ValueError):
        count_games(0, 2)


def test_public_names():
    assert fastgo.perft is perft and fastgo.count_games is count_games


def test_cli_perft(capsys):
    from fastgo.cli import main
    assert main(["perft", "3", "--size", "3", "--divide"]) == 0
    out = capsys.readouterr().out
    assert f"perft(3) on 3x3, tromp-taylor rules: {perft(Board(3), 3):,}" in out
    assert f"B2: {api_perft(_after(Board(3), 'B2'), 2):,}\n" in out
    assert main(["perft", "2", "--size", "4", "--height", "3", "--moves", "B1 pass"]) == 0
    assert f"perft(2) on 4x3, tromp-taylor rules: {perft(_after(Board(4, 3), 'B1', 'pass'), 2):,}" \
        in capsys.readouterr().out


def test_cli_games(capsys):
    from fastgo.cli import main
    assert main(["count", "1", "3", "--games"]) == 0
    assert "complete games on 1x3 under tromp-taylor rules: 907 " in capsys.readouterr().out


def _after(b, *moves):
    for m in moves:
        b.play(m)
    return b
