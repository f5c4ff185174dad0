"""The playout kernel against the policy as written (fastgo.playout's docstring), checked move by
move through the pure-Python reference and through the checked Board.play."""

import collections
import json
import math
import os
import sys
import random
import subprocess

import numpy as np
import pytest

from fastgo import Board, Rules
from fastgo.playout import playouts, simulate, default_threads

from reference import RefGame, neighbours, BLACK, WHITE, EMPTY
from forked import run_forked


# -- the policy, independently: an eye by the words, legality by the reference ------------

def diagonals(p, width, height):
    r, c = divmod(p, width)
    return [(r + dr) * width + c + dc for dr in (-1, 1) for dc in (-1, 1)
            if 0 <= r + dr < height and 0 <= c + dc < width]


def is_own_eye(grid, width, height, p, colour):
    """An empty point whose on-board orthogonal neighbours are all `colour`'s stones and which is
    not a false eye: fewer than two diagonal points hold opponent stones, none on the edge."""
    nbs = neighbours(p, width, height)
    if grid[p] != EMPTY or any(grid[q] != colour for q in nbs):
        return False
    opp = sum(grid[q] == 3 - colour for q in diagonals(p, width, height))
    on_edge = len(nbs) < 4
    return opp == 0 if on_edge else opp < 2


def allowed_ref(game):
    """The points the policy may play in the reference game: legal, not an own eye, not a
    one-stone suicide (a play that leaves the colouring unchanged)."""
    grid, colour = game.grid, game.to_move
    out = []
    for p in range(game.num_points):
        if grid[p] != EMPTY or is_own_eye(grid, game.width, game.height, p, colour):
            continue
        if not game.is_legal(p):
            continue
        after = game.copy()
        after.play(p)
        if after.grid != grid:
            out.append(p)
    return out


def allowed_board(board):
    """The same set through the Board API (for boards too big for the reference)."""
    grid = board.stones().ravel().tolist()
    mask = board.legal_mask()
    out = []
    for p in np.flatnonzero(mask[:-1]):
        p = int(p)
        if is_own_eye(grid, board.width, board.height, p, board.to_move):
            continue
        if board.hash_after(p) == board.hash:
            continue                                # one-stone suicide
        out.append(p)
    return out


def score_ref(game, scoring):
    black, white, _ = game.area_score() if scoring == "area" else game.territory_score()
    return black - white - game.komi


def replay(game, moves, allowed):
    """Replay a playout on `game` (a RefGame or a Board), checking the policy at every turn:
    each move is among `allowed(game)`, and a pass only when that is empty."""
    for t, m in enumerate(moves):
        ok = allowed(game)
        if m == game.pass_move:
            assert not ok, f"turn {t}: passed with {len(ok)} points allowed"
        else:
            assert m in ok, f"turn {t}: {m} is not allowed"
        game.play(int(m))
    return game


def replay_ref(width, height, moves, rules, setup=None, to_move=BLACK, prefix=()):
    """Replay a playout through the reference."""
    game = RefGame(width, height, ko=rules.ko, suicide=rules.suicide, komi=rules.komi,
                   setup=setup, to_move=to_move)
    for m in prefix:
        game.play(m)
    return replay(game, moves, allowed_ref)


def replay_board(board, moves):
    """Replay a playout through Board.play on a copy of `board`."""
    return replay(board.copy(), moves, allowed_board)


# -- every playout is a legal game of the policy --------------------------------------------------

RULE_SETS = [Rules(), Rules(ko="situational"), Rules(ko="simple", suicide=False),
             Rules(ko="simple", suicide=True), Rules(ko="positional", suicide=False, komi=0.5),
             Rules(ko="situational", scoring="territory", komi=6.5)]


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
@pytest.mark.parametrize("width,height", [(2, 2), (3, 3), (4, 3), (5, 5)])
def test_small_playouts_replay_through_the_reference(rules, width, height):
    # tiny boards under superko can run long: a cap well above 3 x points
    res = playouts(Board(width, height, rules=rules), 12, seed=width * 7 + height, record=12,
                   threads=2, max_moves=400)
    if rules.ko != "simple":
        assert not res.capped.any()        # superko: every game ends
    for i, moves in zip(res.recorded, res.moves):
        assert len(moves) == res.lengths[i]
        game = replay_ref(width, height, moves.tolist(), rules)
        assert game.is_over != res.capped[i]
        assert res.scores[i] == score_ref(game, rules.scoring)
        assert res.winners[i] == (BLACK if res.scores[i] > 0 else WHITE if res.scores[i] < 0 else 0)


@pytest.mark.parametrize("rules", RULE_SETS[:4], ids=str)
def test_playouts_from_a_position_with_history_replay_through_the_reference(rules):
    # a ko fight in progress: the history decides which recaptures are allowed
    setup = Board.from_diagram("""
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
    """, rules=rules)
    prefix = ["C4", "B4"]          # B4 retakes the ko at once: refused, so only C4 is played
    b = setup.copy()
    for m in prefix:
        if b.is_legal(m):
            b.play(m)
    res = playouts(b, 10, seed=3, record=10)
    for i, moves in zip(res.recorded, res.moves):
        grid = setup.stones().ravel().tolist()
        game = replay_ref(5, 5, moves.tolist(), rules, setup=grid, prefix=b.history)
        assert res.scores[i] == score_ref(game, rules.scoring)


@pytest.mark.parametrize("size,n", [(9, 6), (19, 2)])
def test_full_size_playouts_replay_through_board(size, n):
    b = Board(size)
    res = playouts(b, n, seed=size, record=n)
    for i, moves in zip(res.recorded, res.moves):
        end = replay_board(b, moves.tolist())
        assert end.is_over and not res.capped[i]
        assert res.scores[i] == end.score().margin


def test_playouts_continue_a_game_and_leave_the_board_alone():
    b = Board(9, rules="chinese")
    random = np.random.default_rng(0)
    for _ in range(30):
        b.play(int(random.choice(allowed_board(b))))
    before = (b.stones().tolist(), b.history, b.hash, b.captures)
    res = playouts(b, 4, seed=1, record=4, ownership=True)
    assert (b.stones().tolist(), b.history, b.hash, b.captures) == before
    b.check_consistency()
    owners = []
    for i, moves in zip(res.recorded, res.moves):
        end = replay_board(b, moves.tolist())
        assert res.scores[i] == end.score().margin
        own = end.score().ownership
        owners.append((own == BLACK).astype(int) - (own == WHITE))
    assert np.array_equal(res.ownership, np.mean(owners, axis=0))


@pytest.mark.parametrize("width,height", [(1, 1), (2, 1), (3, 2), (5, 5), (7, 4), (9, 9), (25, 3)])
@pytest.mark.parametrize("rules", ["tromp-taylor", "japanese"])
def test_both_scorers_agree_with_the_replayed_board(width, height, rules):
    # the kernel counts the final area one way without ownership and another way with it
    b = Board(width, height, rules=rules)
    plain = playouts(b, 40, seed=width * height, record=40)
    owned = playouts(b, 40, seed=width * height, ownership=True)
    assert np.array_equal(plain.scores, owned.scores)
    for i, moves in zip(plain.recorded, plain.moves):
        assert plain.scores[i] == replay_board(b, moves.tolist()).score().margin


@pytest.mark.parametrize("rules", ["japanese", "tromp-taylor"])
def test_a_resumed_game_s_prisoners_count_under_territory_scoring(rules):
    """prisoners=(black, white): the stones each colour took before this part of a resumed
    game. Each playout's score is the replayed final board's ``fastgo.sgf.score`` with those
    prisoners (here an earlier part in which they were taken): under territory scoring the
    margin moves by black - white, under area scoring not at all."""
    from fastgo import sgf
    b = Board(5, rules=rules)
    earlier = [Board(5, rules=rules), Board(5, rules=rules)]
    for part, moves in zip(earlier, ["A1 B1 E5 A2", "A1 B1 E2 E1 D1 A2"]):
        for m in moves.split():
            part.play(m)
    assert sgf.prisoners(earlier) == (1, 2)     # White took A1 twice, Black E1 once
    res = playouts(b, 30, seed=7, record=30, prisoners=(1, 2))
    for i, moves in zip(res.recorded, res.moves):
        assert res.scores[i] == sgf.score(replay_board(b, moves.tolist()), earlier).margin
    plain = playouts(b, 30, seed=7)
    assert np.array_equal(res.scores - plain.scores,
                          np.full(30, -1.0 if rules == "japanese" else 0.0))


def test_a_pass_that_ended_the_history_counts():
    # Black's only empty points are its own eyes, and White's plays there are one-stone suicides
    eyes = """
        . X .
        X X X
        . X .
    """
    b = Board.from_diagram(eyes, to_move=WHITE)
    b.pass_()
    res = playouts(b, 5, record=5)
    assert all(m.tolist() == [b.pass_move] for m in res.moves)        # Black's pass ends it
    b = Board.from_diagram(eyes, to_move=BLACK)
    res = playouts(b, 5, record=5)
    assert all(m.tolist() == [b.pass_move] * 2 for m in res.moves)
    assert (res.scores == 9 - 7.5).all() and not res.capped.any()
    b.pass_()
    b.pass_()
    res = playouts(b, 5)
    assert (res.lengths == 0).all() and (res.scores == b.score().margin).all()


def test_the_cap_stops_and_flags_a_playout():
    b = Board(9)
    res = playouts(b, 20, seed=4, max_moves=25, record=20)
    assert res.capped.all() and (res.lengths == 25).all()
    for i, moves in zip(res.recorded, res.moves):
        end = replay_board(b, moves.tolist())
        assert res.scores[i] == end.score().margin


@pytest.mark.parametrize("threads", [1, 2])
def test_the_cap_holds_after_a_call_with_a_smaller_one(threads):
    # calls reuse their scratches (the same superko table size serves caps 10 and 14): the
    # second call's playouts must still run to its own cap
    b = Board(9)
    playouts(b, 4, seed=1, max_moves=10, threads=threads)
    res = playouts(b, 20, seed=4, max_moves=14, threads=threads)
    assert res.capped.all() and (res.lengths == 14).all()
    again = playouts(b, 20, seed=4, max_moves=14, threads=threads)
    assert (again.scores == res.scores).all() and (again.lengths == res.lengths).all()


def test_calls_from_several_python_threads_at_once_keep_their_results():
    # the kept scratches are taken and given back under the GIL while the playouts run without
    # it: four threads calling at once with caps of other table sizes must each get the results
    # a call alone gives
    import threading
    b = Board(9)
    b.play("E5")
    cases = [dict(seed=s, max_moves=m, threads=t, ko=k)
             for s, m, t, k in [(1, None, 1, "rules"), (2, 30, 2, "simple"), (3, 500, 1, "positional"),
                                (4, 5000, 2, "rules")]]
    alone = [playouts(b, 6, **c) for c in cases]
    failures = []

    def worker(k):
        for _ in range(40):
            r = playouts(b, 6, **cases[k])
            if not (np.array_equal(r.scores, alone[k].scores)
                    and np.array_equal(r.lengths, alone[k].lengths)):
                failures.append(k)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads) and failures == []


def test_simple_ko_in_playouts_replays_under_simple_ko():
    b = Board(7)
    res = playouts(b, 8, seed=9, ko="simple", record=8)
    simple = Board(7, ko="simple")
    for i, moves in zip(res.recorded, res.moves):
        end = replay_board(simple, moves.tolist())
        assert res.scores[i] == end.score().margin


def test_a_superko_override_judges_the_game_so_far():
    # the board keeps situational memory; playouts under positional superko must rebuild it
    b = Board(4, 3, ko="situational")
    for m in ["A1", "B1", "pass", "C2"]:
        b.play(m)
    res = playouts(b, 20, seed=5, ko="positional", record=20)
    for moves in res.moves:
        game = replay_ref(4, 3, moves.tolist(), Rules(ko="positional"), prefix=b.history)
        assert game.is_over


# -- the eye rule on hand-made positions ----------------------------------------------------------

def first_moves(board, n=4000, seed=0):
    res = playouts(board, n, seed=seed, max_moves=1, record=n)
    return np.array([m[0] for m in res.moves])


def test_eye_rule_on_hand_checked_positions():
    # Black to move. A1 is a corner eye; E5 a centre eye with one white diagonal (still an eye);
    # J9 a corner point with a white diagonal H8 (false eye: playable).
    b = Board.from_diagram("""
        . . . . . . . X .
        . . . . . . . O X
        . . . . . . . . O
        . . . . X . . . .
        . . . X . X . . .
        . . . O X . . . .
        . . . . . . . . .
        X . . . . . . . .
        . X . . . . . . .
    """)
    allowed = set(allowed_board(b))
    a1, e5, j9 = 0, 4 * 9 + 4, 80
    assert a1 not in allowed and e5 not in allowed and j9 in allowed
    seen = set(first_moves(b, 6000).tolist())
    assert seen == allowed


def test_no_move_left_means_a_pass():
    # Black's only empty points are its own two eyes: it must pass at once
    b = Board.from_diagram("""
        . X
        X X
        X .
    """)
    res = playouts(b, 5, record=5)
    for moves in res.moves:
        assert moves.tolist() == [b.pass_move] + moves.tolist()[1:]


# -- exact uniform sampling -----------------------------------------------------------------------

def chi2_critical(df, z=3.719):
    """Upper 1e-4 quantile of chi-square (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.mark.parametrize("diagram", [
    # gaps and refusals spread unevenly through the empty list: a "random start, then scan"
    # sampler would favour the points after a run of refused ones
    """
    . X . . O
    X . X O .
    . X . . .
    O . . X X
    . O . X .
    """,
    """
    . . . . . . .
    . X X X X X .
    . X . X . X .
    . X X X X X .
    . . . . . . .
    . . O . O . .
    . . . . . . .
    """,
])
def test_first_moves_are_uniform_over_the_allowed_points(diagram):
    b = Board.from_diagram(diagram)
    allowed = allowed_board(b)
    n = 40 * len(allowed) * 50
    moves = first_moves(b, n, seed=11)
    counts = np.bincount(moves, minlength=b.num_points + 1)
    assert set(np.flatnonzero(counts).tolist()) == set(allowed)
    expected = n / len(allowed)
    chi2 = float(((counts[allowed] - expected) ** 2 / expected).sum())
    assert chi2 < chi2_critical(len(allowed) - 1)


# -- seeds, threads, results ----------------------------------------------------------------------

@pytest.mark.parametrize("size,count", [(9, 300), (5, 9000)])
def test_same_seed_same_results_whatever_the_threads(many_cores, size, count):
    # (9,000: threads take chunks of 64, each its own cache lines of the results and of the
    # ownership rows; a short run chunks of 8)
    b = Board(size)
    runs = [playouts(b, count, seed=42, threads=t, record=[0, 7, count - 1], ownership=True)
            for t in (1, 2, 3, 8)]
    for r in runs[1:]:
        for name in ("scores", "winners", "lengths", "capped", "ownership"):
            assert np.array_equal(getattr(r, name), getattr(runs[0], name)), name
        assert all(np.array_equal(a, c) for a, c in zip(r.moves, runs[0].moves))
    assert runs[0].recorded == [0, 7, count - 1]
    other = playouts(b, count, seed=43)
    assert not np.array_equal(other.scores, runs[0].scores)


CORES_CHILD = """
import os, sys
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})     # one core, before fastgo loads
import fastgo, fastgo.playout
from fastgo.search import Search
b = fastgo.BoardBatch(1024, 9, threads=2)
print(fastgo.playout.CORES, fastgo.playout.default_threads(), b._adaptation()[0],
      Search(fastgo.Board(5), threads=8).threads, b.threads,
      fastgo.count_legal_positions_stats(4, 4, threads=4).threads)
"""


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
def test_jobs_start_at_most_the_cores_the_process_may_use():
    """More threads than cores only take turns on them (and every thread a job waits for is
    then one that is not running): a process allowed one core starts one thread whatever it
    asks (BoardBatch.threads says what was asked)."""
    r = subprocess.run([sys.executable, "-c", CORES_CHILD], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    cores, default, used, search, asked, parts = map(int, r.stdout.split())
    assert (cores, default, used, search, asked, parts) == (1, 1, 1, 1, 2, 1)


def test_default_policy_ends_random_games_by_two_passes():
    # the bar: at least 99.5% of 9x9 and 19x19 playouts end by two passes
    assert simulate(2000, 9, seed=1).capped.mean() <= 0.005
    assert simulate(200, 19, seed=1).capped.mean() <= 0.005


def test_the_first_three_turns_are_drawn_with_the_policy_s_probabilities():
    """The policy draws uniformly among the allowed points at every turn, so a sequence of three
    turns from a position has probability 1 / |A0| * 1 / |A1| * 1 / |A2|, the allowed sets of
    each position on the way (allowed_board; a pass when a set is empty). The kernel's three
    first turns against those exact probabilities (chi-square): the refused points it swapped
    out of its list at one turn, the captures and merges of the plays, must not bias the next
    draws (the first-move test sees only turn 0)."""
    b = Board.from_diagram("""
        . X . . O
        X . X O .
        . X . . .
        O . . X X
        . O . X .
        """)
    expected = {}

    def walk(board, prefix, prob):
        if len(prefix) == 3:
            expected[tuple(prefix)] = prob
            return
        allowed = allowed_board(board) or [board.pass_move]
        for m in allowed:
            nxt = board.copy()
            nxt.play(m)
            walk(nxt, prefix + [m], prob / len(allowed))

    walk(b, [], 1.0)
    assert math.isclose(sum(expected.values()), 1.0)
    n = 60 * len(expected)
    res = playouts(b, n, seed=5, max_moves=3, record=n)
    seen = collections.Counter(tuple(m.tolist()) for m in res.moves)
    assert set(seen) <= set(expected)
    chi2 = sum((seen.get(k, 0) - n * q) ** 2 / (n * q) for k, q in expected.items())
    assert chi2 < chi2_critical(len(expected) - 1), (chi2, len(expected))


def test_simulate_is_playouts_from_a_new_board():
    a = simulate(50, 7, 5, rules="japanese", seed=8, record=3)
    c = playouts(Board(7, 5, rules="japanese"), 50, seed=8, record=3)
    assert np.array_equal(a.scores, c.scores)
    assert all(np.array_equal(x, y) for x, y in zip(a.moves, c.moves))
    h = simulate(10, 9, handicap=2, seed=1, record=1)
    assert h.moves[0].size > 0
    # first=k as playouts takes it (the README said "the same": simulate refused it)
    later = simulate(20, 7, 5, rules="japanese", seed=8, first=30)
    assert np.array_equal(later.scores, a.scores[30:])


def test_results_object():
    r = simulate(100, 5, seed=3)
    assert len(r) == 100 and r.scores.dtype == np.float64 and r.winners.dtype == np.int8
    assert r.lengths.dtype == np.int32 and r.capped.dtype == np.bool_ and r.ownership is None
    assert r.black_wins == (r.winners == BLACK).mean() and r.mean_length == r.lengths.mean()
    assert r.winners.tolist() == [BLACK if x > 0 else WHITE if x < 0 else 0 for x in r.scores]
    assert "Playouts n=100" in repr(r)
    empty = simulate(0, 5)
    assert len(empty) == 0 and "none" in repr(empty)
    # OpenMP's count: every core this process may run on, unless OMP_NUM_THREADS says otherwise
    if "OMP_NUM_THREADS" not in os.environ and hasattr(os, "sched_getaffinity"):
        assert default_threads() == len(os.sched_getaffinity(0))


# -- the API boundary -----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,error", [
    (dict(n=-1), ValueError), (dict(n=1.5), TypeError), (dict(n="3"), TypeError),
    (dict(threads=0), ValueError), (dict(threads=2.0), TypeError),
    (dict(ko="superko"), ValueError), (dict(ko=None), ValueError),
    (dict(max_moves=-1), ValueError), (dict(max_moves=10**9), ValueError),
    (dict(seed=1.0), TypeError), (dict(seed="x"), TypeError), (dict(n=True), TypeError),
    (dict(ownership=1), TypeError), (dict(record=True), TypeError), (dict(record=-2), ValueError),
    (dict(record=[5000]), ValueError), (dict(record="abc"), TypeError),
])
def test_bad_arguments_raise(kwargs, error):
    b = Board(5)
    args = dict(n=10)
    args.update(kwargs)
    with pytest.raises(error):
        playouts(b, **args)


def test_bad_board_raises():
    with pytest.raises(TypeError):
        playouts("board", 3)
    with pytest.raises(TypeError):
        playouts(None, 3)
    with pytest.raises(ValueError):
        simulate(3, 0)
    with pytest.raises(ValueError):
        simulate(3, 9, rules="no such rules")


def test_extreme_sizes():
    for w, h in [(1, 1), (1, 2), (2, 1), (25, 25), (25, 1)]:
        r = simulate(4, w, h, seed=1, record=1, threads=2)
        assert not r.capped.any()
        replay_board(Board(w, h), r.moves[0].tolist())


def test_first_moves_are_exactly_the_allowed_points_in_random_positions():
    # positions with history under every rule set and every ko option: the set of first moves
    # over many playouts must be the policy's allowed set, computed through Board and the eye rule
    rng = random.Random(5)
    for it in range(36):
        size = rng.choice([3, 4, 5, 7])
        rules = Rules(ko=rng.choice(["positional", "situational", "simple"]),
                      suicide=rng.random() < 0.5)
        b = Board(size, rules=rules)
        for _ in range(rng.randint(0, 3 * size * size)):
            a = allowed_board(b)
            if not a or b.is_over:
                break
            b.play(rng.choice(a + [b.pass_move] * (rng.random() < 0.05)))
        if b.is_over:
            continue
        ko = rng.choice(["rules", "simple", "positional", "situational"])
        probe = b
        if ko != "rules":
            probe = Board(size, rules=rules.replace(ko=ko))
            for m in b.history:
                probe.play(m)
        expected = set(allowed_board(probe)) or {b.pass_move}
        n = max(200, 60 * len(expected))
        res = playouts(b, n, seed=it, max_moves=1, record=n, ko=ko)
        assert {int(m[0]) for m in res.moves} == expected, (size, rules, ko, b.history)


def test_ownership_of_the_empty_board_is_symmetric():
    # the empty board and the policy are symmetric under the eight rotations and reflections:
    # any bias of the sampler towards some points or directions breaks it
    own = simulate(4000, 9, seed=3, ownership=True).ownership
    sd = math.sqrt(2 / 4000)                 # of a difference of two means of values in [-1, 1]
    for k in range(4):
        for image in (np.rot90(own, k), np.rot90(own, k).T):
            assert np.abs(image - own).max() < 4 * sd


@pytest.mark.parametrize("komi", [0.1, 0.3, 2.2, -1.7])
def test_fractional_komi_scores_exactly_like_board(komi):
    b = Board(5, komi=komi)
    res = playouts(b, 60, seed=1, record=60)
    for i, moves in zip(res.recorded, res.moves):
        assert res.scores[i] == replay_board(b, moves.tolist()).score().margin


def test_a_situational_override_judges_the_game_so_far():
    b = Board(4, 3)
    for m in ["A1", "B1", "pass", "C2"]:
        b.play(m)
    res = playouts(b, 20, seed=6, ko="situational", record=20)
    for moves in res.moves:
        replay_ref(4, 3, moves.tolist(), Rules(ko="situational"), prefix=b.history)


def test_a1_with_an_opponent_diagonal_is_a_false_eye():
    # A1 is the one point whose lower-left diagonal lies outside the padded array
    b = Board.from_diagram("""
        . . . .
        X . . .
        X O . .
        . X . .
    """)
    assert 0 in allowed_board(b)
    assert 0 in set(first_moves(b, 3000).tolist())
    b = Board.from_diagram("""
        . . . .
        X . . .
        X X . .
        . X . .
    """)
    assert 0 not in set(first_moves(b, 3000).tolist())


def test_seeds_are_taken_modulo_2_to_the_64():
    b = Board(5)
    assert np.array_equal(playouts(b, 20, seed=2**64 + 3).scores, playouts(b, 20, seed=3).scores)
    assert np.array_equal(playouts(b, 20, seed=-1).scores, playouts(b, 20, seed=2**64 - 1).scores)


def test_ownership_of_no_playouts_is_nan():
    assert np.isnan(playouts(Board(5), 0, ownership=True).ownership).all()


def _child_run(queue):
    queue.put(float(playouts(Board(5), 64, seed=2).scores.sum()))


def test_a_forked_child_runs_playouts():
    # OpenMP's threads do not survive fork(): after playouts ran in the parent, a forked child
    # must still finish (on one thread) and get the same results
    playouts(Board(5), 64, threads=2)
    assert run_forked(_child_run) == float(playouts(Board(5), 64, seed=2).scores.sum())


# -- the command-line benchmark -------------------------------------------------------------------

def test_bench_json_rows_agree_with_a_direct_run(capsys, many_cores):
    import json
    from fastgo.cli import main
    assert main(["bench", "--size", "5", "--count", "300", "--threads", "1,2", "--seed", "3",
                 "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["threads"] for r in rows] == [1, 2]
    direct = playouts(Board(5), 300, seed=3, threads=1)
    for r in rows:
        assert r["size"] == 5 and r["playouts"] == 300 and r["same_results_as_first_run"]
        assert r["mean_moves"] == pytest.approx(direct.lengths.mean())
        assert r["playouts_per_second"] == pytest.approx(300 / r["seconds"])
        assert r["ended_by_passes"] == 1 - direct.capped.mean()


def test_bench_table_says_what_the_readme_says(capsys):
    # "prints playouts per second and per minute, moves per second and the mean game length"
    import re
    from fastgo.cli import main
    n = 20000
    assert main(["bench", "--size", "5", "--count", str(n), "--threads", "1", "--seed", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = lines.index(next(l for l in lines if l.split()[:2] == ["threads", "seconds"]))
    assert lines[head].split() == ["threads", "seconds", "playouts/s", "playouts/min", "moves/s",
                                   "mean", "moves", "ended", "by", "2", "passes"]
    threads, seconds, per_s, per_min, moves_s, mean, ended = re.split(r"\s+", lines[head + 1].strip())
    per_s, per_min, moves_s = (float(x.replace(",", "")) for x in (per_s, per_min, moves_s))
    direct = playouts(Board(5), n, seed=3, threads=1)
    assert threads == "1" and float(mean) == pytest.approx(direct.lengths.mean(), abs=0.05)
    assert abs(per_s * float(seconds) - n) <= 0.0005 * per_s + 1        # (seconds: 3 decimals)
    assert per_min == pytest.approx(60 * per_s, rel=1e-4)
    assert moves_s == pytest.approx(per_s * direct.lengths.mean(), rel=1e-4)
    assert ended == f"{100 * (1 - direct.capped.mean()):.2f}%"


def test_demo_prints_a_finished_game_and_its_score():
    # "fastgo demo plays and scores one random game through the Python API": the printed board
    # is a finished game's (no allowed move but passes: every empty point an eye) and the
    # printed score is its area count (stones plus empty regions reaching one colour)
    import re
    import subprocess
    out = subprocess.run([sys.executable, "-m", "fastgo", "demo", "--size", "5", "--seed", "3"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    rows = [l.split()[1:-1] for l in out.splitlines() if re.match(r"^\s*\d+ [.XO ]+\d+$", l)]
    assert len(rows) == 5 and "game over: True" in out
    grid = {(4 - r, c): v for r, row in enumerate(rows) for c, v in enumerate(row)}
    black = white = 0
    seen = set()
    for (r, c), v in grid.items():
        black += v == "X"
        white += v == "O"
        if v == "." and (r, c) not in seen:            # flood the empty region
            region, reach, todo = set(), set(), [(r, c)]
            while todo:
                q = todo.pop()
                if q in region or q not in grid:
                    continue
                if grid[q] != ".":
                    reach.add(grid[q])
                    continue
                region.add(q)
                todo += [(q[0] + 1, q[1]), (q[0] - 1, q[1]), (q[0], q[1] + 1), (q[0], q[1] - 1)]
            seen |= region
            black += len(region) * (reach == {"X"})
            white += len(region) * (reach == {"O"})
    m = re.search(r"score: black ([\d.]+), white ([\d.]+) -> (\w+)", out)
    assert (float(m.group(1)), float(m.group(2))) == (black, white + 7.5)
    assert m.group(3) == ("black" if black > white + 7.5 else "white")


def test_demo_and_bench_take_seeds_as_the_playouts_do(capsys):
    # demo refused negative seeds that bench and the API take, and printed 2**64 as its seed
    # while it played seed 0's game: both now print the seed used (modulo 2**64)
    from fastgo.cli import main

    def demo(seed):
        main(["demo", "--size", "5", "--seed", str(seed)])
        return "\n".join(l for l in capsys.readouterr().out.splitlines() if " ms" not in l) + "\n"

    assert demo(2**64) == demo(0) and "seed 0\n" in demo(0)
    assert demo(-5) == demo(2**64 - 5) and f"seed {2**64 - 5}\n" in demo(-5)
    with pytest.raises(SystemExit):
        demo(2**1001)
    main(["bench", "--count", "300", "--threads", "1", "--seed", "-1", "--json"])
    assert json.loads(capsys.readouterr().out)["seed"] == 2**64 - 1


def test_bench_on_one_thread_claims_no_speed_up(capsys, monkeypatch):
    # with one core every run has one thread: it printed "speed-up, 1 threads over 1"
    import fastgo.cli
    import fastgo.playout
    from fastgo.cli import main
    monkeypatch.setattr(fastgo.cli, "CORES", 1)
    monkeypatch.setattr(fastgo.playout, "CORES", 1)
    main(["bench", "--count", "300", "--threads", "1,2"])
    out = capsys.readouterr().out
    assert "speed-up" not in out and "each ran on one thread here" in out


@pytest.mark.parametrize("argv", [["--seconds", "inf"], ["--seconds", "nan"], ["--seconds", "0"],
                                  ["--threads", "abc"], ["--threads", "0"], ["--count", "0"],
                                  ["--count", str(2**31)], ["--size", "26"], ["--rules", "foo"]])
def test_bench_refuses_bad_options_with_its_usage(argv, capsys):
    from fastgo.cli import main
    with pytest.raises(SystemExit) as e:
        main(["bench"] + argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    # the subcommand's usage: a bad value found after parsing gave the top-level one
    assert err.startswith("usage: fastgo bench") and "Traceback" not in err


def _omp_settings(env):
    """OpenMP's settings as the runtime in a fresh `import fastgo` process reports them."""
    import subprocess
    import sys
    prog = ("import ctypes, ctypes.util, fastgo; fastgo.simulate(16, 5, threads=2); "
            "ctypes.CDLL(ctypes.util.find_library('gomp') or 'libgomp.so.1').omp_display_env(0)")
    done = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="libgomp's omp_display_env")
def test_waiting_threads_sleep_instead_of_spinning():
    # libgomp reads OMP_WAIT_POLICY when it loads: importing fastgo must have set it by then
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    assert "OMP_WAIT_POLICY = 'PASSIVE'" in _omp_settings(env)
    # a policy the user set is kept
    assert "OMP_WAIT_POLICY = 'ACTIVE'" in _omp_settings(dict(env, OMP_WAIT_POLICY="active"))
