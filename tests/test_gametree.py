"""perft and count_games (fastgo.gametree) against walks written here through the Python API of
Board and of the pure-Python reference, and against the published game counts.

Published game counts (positional superko, the game ends at two passes in a row): 1x1 = 1,
1x2 = 9, 1x3 = 907 (Tromp and Farnebäck, "Combinatorics of Go"), 1x4 = 2,098,407,841 (ibid.,
seconds: here) and 2x2 = 386,356,909,593 (John Tromp, rec.games.go, 1999; minutes: with
FASTGO_SLOW=1 only, and in benchmarks/test_gametree.py).

count_games walks the first turns in Python (`root_nodes` of them) and the rest in C, and walks
one node of each orbit of the board's symmetries and the exchange of colours: the tests below run
every split, with and without the symmetries, against walks written here that know neither.
"""

import os
import signal
import time

import numpy as np
import pytest

import fastgo
from fastgo import Board
from fastgo import gametree
from fastgo.gametree import MAX_DEPTH, _count_games_walk, count_games, perft, perft_divide

from fastgo.symmetry import transform_planes

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


def test_game_count_1x4():
    # 2,098,407,841 games: seconds of the C walk
    assert count_games(1, 4) == 2_098_407_841


def graph_games(w, h, rules=None):
    """Complete games by a walk in Python over count_games' own game graph, every path, no
    symmetry: checks the C walk and the root split apart from Board's move generation."""
    grids, moves = gametree._game_graph(w, h, rules)

    def walk(q, c, passed, visited):
        n = 1 if passed else walk(q, 1 - c, True, visited)
        for r, m in moves[2 * q + c].items():
            if not (visited >> r) & 1:
                n += m * walk(r, 1 - c, False, visited | 1 << r)
        return n
    return walk(0, 0, False, 1)


@pytest.mark.parametrize("w,h", [(1, 1), (1, 2), (2, 1), (1, 3), (3, 1)])
@pytest.mark.parametrize("rules", ["tromp-taylor", "chinese"])
@pytest.mark.parametrize("symmetry", [True, False])
@pytest.mark.parametrize("root_nodes", [1, 2, 3, 5, 16, 64, 10_000])
def test_game_count_every_split_and_symmetry(w, h, rules, symmetry, root_nodes):
    # root_nodes 1: the C walk from the empty board; 10_000: Python walks every game of these
    # boards; between them the C walk starts from the nodes Python left, one per orbit
    expected = {1: 1, 2: 9, 3: 907}[w * h]
    assert graph_games(w, h, rules) == api_games(ref_game(w, h, rules)) == expected
    for threads in (1, 2):
        assert _count_games_walk(w, h, rules, threads, symmetry, root_nodes)[0] == expected


def test_game_count_symmetry_reduces_the_nodes():
    # the whole walk of 1x3 in Python: the mirror and the exchange of colours leave fewer nodes
    # to walk, the same count
    grids, moves = gametree._game_graph(1, 3, None)
    sizes = []
    for group in ([(list(range(len(grids))), 0)], gametree._colouring_symmetries(grids)):
        root, children, tasks = gametree._root_dag(moves, group, 10 ** 6)
        assert tasks == [] and gametree._dag_games(root, children, {}) == 907
        sizes.append(len(children))
    assert sizes[1] < sizes[0]


@pytest.mark.parametrize("w,h", [(2, 2), (1, 4), (1, 3)])
@pytest.mark.parametrize("rules", ["chinese", "tromp-taylor"])
def test_game_graph_symmetries_are_automorphisms(w, h, rules):
    # what the reduction rests on, for 2x2's eight symmetries too: each, with the colours kept or
    # exchanged, maps the empty board to itself and every play of colour c onto a play of colour
    # c ^ swap (so a node onto a node with as many continuations)
    grids, moves = gametree._game_graph(w, h, rules)
    group = gametree._colouring_symmetries(grids)
    assert len(group) == 2 * (8 if w == h else 4)
    for i, (p, swap) in enumerate(group):
        assert sorted(p) == list(range(len(grids))) and p[0] == 0
        for q, g in enumerate(grids):
            # the colouring the permutation names is the transformed stones array
            t = transform_planes(g, i // 2)
            assert (grids[p[q]] == (np.where(t == 0, 0, 3 - t) if swap else t)).all()
            for c in (0, 1):
                image = {p[r]: m for r, m in moves[2 * q + c].items()}
                assert moves[2 * p[q] + (c ^ swap)] == image
    if (w, h) == (2, 2):
        # Black's four first plays are one orbit, and White's four after Black's pass the same
        # one with the colours exchanged: the root's children are that node and the pass
        root, children, _ = gametree._root_dag(moves, group, 3)
        kids = children[root]
        assert len(kids) == 5 and len({k for k, _ in kids}) == 2
        passed = next(k for k, _ in kids if k[2])
        assert {k for k, _ in children[passed]} == {k for k, _ in kids if not k[2]}


class Interrupted(Exception):
    pass


# (the handler's exception that lands in a callback, e.g. hypothesis's gc callback, is reported
# by pytest as unraisable: expected here, see below)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("threads", [1, 2])
def test_game_count_interruptible(threads):
    # 2x2 takes minutes: a signal handler's exception stops it (the calling thread checks after
    # each of its tasks) and leaves the module working
    def handler(signum, frame):
        raise Interrupted
    old = signal.signal(signal.SIGALRM, handler)
    t0 = time.perf_counter()
    # repeated every 0.25 s: a handler's exception that lands in a finaliser or a callback is
    # printed and dropped by Python (a loaded machine made that happen once), the next one is not
    signal.setitimer(signal.ITIMER_REAL, 0.5, 0.25)
    try:
        with pytest.raises(Interrupted):
            count_games(2, 2, threads=threads)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.perf_counter() - t0 < 10            # a loose bound, far below the full run
    assert _count_games_walk(1, 3, None, threads, True, 1)[0] == 907      # all in C


@SLOW
def test_game_count_threads_agree():
    # 1x4 split over one and two threads (the 1x3 tests above split their tiny walks too)
    assert count_games(1, 4, threads=1) == count_games(4, 1, threads=2) == 2_098_407_841


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
    with pytest.raises(ValueError, match="threads"):
        count_games(1, 2, threads=0)
    with pytest.raises(TypeError, match="threads"):
        count_games(1, 2, threads=1.5)


def test_perft_of_2x2_counted_by_hand():
    # Black: 4 points (each a corner of 2x2) or a pass, 5. After a stone White may play on any of
    # the 3 empty points (each leaves both stones a liberty) or pass: 4 x 4 = 16. After Black's
    # pass White has 4 points and a pass: 5. 16 + 5 = 21 (the docstring said 17)
    assert perft(Board(2), 1) == 4 + 1
    assert perft(Board(2), 2) == 4 * 4 + 5 == 21
    assert perft_divide(Board(2), 2) == {"A1": 4, "B1": 4, "A2": 4, "B2": 4, "pass": 5}


def test_module_doctests():
    # the docstrings' examples (help(fastgo.perft) shows them) run as written
    import doctest
    result = doctest.testmod(gametree)
    assert result.attempted >= 4 and result.failed == 0

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


@pytest.mark.parametrize("argv, msg", [(["2", "--size", "0"], "board size 0x0"),
                                       (["2", "--moves", "I5"], "bad GTP vertex"),
                                       (["2", "--rules", "nope"], "nope")])
def test_cli_perft_refuses_bad_values_with_its_usage(capsys, argv, msg):
    # a bad value found after parsing gave the top-level usage ("usage: fastgo [-h] {bench,...")
    from fastgo.cli import main
    with pytest.raises(SystemExit) as e:
        main(["perft"] + argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: fastgo perft") and msg in err and "Traceback" not in err


def test_cli_perft_says_when_its_count_passes_64_bits(capsys, monkeypatch):
    # (a walk's counter is 64 bits: perft_walk raises OverflowError past 2^64 - 1)
    from fastgo.cli import main

    def overflow(board, depth):
        raise OverflowError("the count passes 2^64 - 1")
    monkeypatch.setattr(gametree, "perft", overflow)
    assert main(["perft", "30", "--size", "19"]) == 1
    assert capsys.readouterr().err == "fastgo perft: the count passes 2^64 - 1\n"


# (a repeat that lands in a finaliser is printed by Python and dropped, as the comment says)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("argv", [
    ["perft", "12", "--size", "3"],                     # hours
    ["perft", "8", "--size", "4", "--divide"],
    ["count", "12", "12"],                              # minutes
    ["count", "2", "2", "--games", "--threads", "1"],   # minutes
    ["bench", "--size", "19", "--count", "3000000", "--threads", "1"]])
def test_cli_ctrl_c_ends_every_long_command_the_same_way(argv, capsys):
    # Ctrl-C (KeyboardInterrupt, raised here from a timer's handler) gave perft a traceback where
    # count said "interrupted" with status 130 (the README's promise): one handler in the CLI
    from fastgo.cli import main

    def handler(signum, frame):
        raise KeyboardInterrupt
    old = signal.signal(signal.SIGALRM, handler)
    # repeated, as in test_game_count_interruptible: one that lands in a finaliser is dropped
    signal.setitimer(signal.ITIMER_REAL, 0.5, 0.25)
    try:
        code = main(argv)
    except KeyboardInterrupt:           # (a traceback: failed here, not the session stopped)
        code = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    err = capsys.readouterr().err
    assert code == 130 and err.splitlines()[-1] == f"fastgo {argv[0]}: interrupted"
    assert "Traceback" not in err

def test_perft_lets_other_threads_run_and_a_watchdog_stop_it():
    """perft walks without the GIL (it held it for the whole walk: every other Python thread
    stood still, so a watchdog thread could not even send its Ctrl-C); a KeyboardInterrupt
    from another thread's os.kill stops it, and the board is as it was."""
    import threading
    b = Board(4)
    b.play("B2")
    before = (b.history, b.hash, b.stones().tobytes())
    ticks = []
    done = threading.Event()

    def heartbeat():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.002)
    t = threading.Thread(target=heartbeat, daemon=True)
    t.start()
    try:
        while len(ticks) < 2:              # the thread is running before the walk starts
            time.sleep(0.001)
        start = len(ticks)
        perft(Board(3), 6)                      # about 0.2 s
        during = len(ticks) - start
    finally:
        done.set()
        t.join(5)
    assert during >= 3

    watchdog = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    watchdog.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            perft(b, 40)                        # years
    finally:
        watchdog.cancel()
    assert (b.history, b.hash, b.stones().tobytes()) == before


def test_cli_games(capsys):
    from fastgo.cli import main
    assert main(["count", "1", "3", "--games"]) == 0
    assert "complete games on 1x3 under tromp-taylor rules: 907 " in capsys.readouterr().out
    assert main(["count", "2", "1", "--games", "--threads", "2"]) == 0
    assert "complete games on 2x1 under tromp-taylor rules: 9 (" in capsys.readouterr().out


def _after(b, *moves):
    for m in moves:
        b.play(m)
    return b
