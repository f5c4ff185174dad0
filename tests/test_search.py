"""fastgo.search: the tree's bookkeeping, tactics a search must find, determinism, and PUCT
against a small pure-Python PUCT written here (same visits on a tiny board)."""

import math
import re
import threading
import time

import numpy as np
import pytest

import fastgo
from fastgo.errors import IllegalMoveError
from fastgo.search import Search, SearchResult

V = fastgo.point_to_vertex


def board(diagram, to_move=fastgo.BLACK, komi=0.5, rules="chinese"):
    return fastgo.Board.from_diagram(diagram, to_move=to_move, rules=rules, komi=komi)


def best(b, n, seed=3, **kw):
    r = Search(b, threads=1, seed=seed, **kw).search(playouts=n)
    return V(r.best_move, b.width, b.height), r


# -- bookkeeping ----------------------------------------------------------------------------------

@pytest.mark.parametrize("rave", [True, False])
def test_visits_add_up(rave):
    b = fastgo.Board(7, rules="chinese")
    s = Search(b, threads=1, seed=1, rave=rave)
    r = s.search(playouts=3000)
    # every playout is a root visit; all but the first (which expanded the root) went to a child
    assert r.playouts == 3000 and r.root_visits == 3000
    assert r.visits.sum() == 2999
    r2 = s.search(playouts=500)
    assert r2.playouts == 500 and r2.root_visits == 3500 and r2.visits.sum() == 3499
    r3 = s.search(visits=4000)                     # a visit limit counts the root's total
    assert r3.root_visits == 4000 and r3.playouts == 500
    # the children are the legal points (no eye exists yet) and pass, in order
    assert r.moves.tolist() == list(range(50))
    assert r.pv and r.pv[0] == r.best_move
    assert r.best_move == r.moves[np.argmax(r.visits)]


def test_visits_add_up_with_threads():
    b = fastgo.Board(9, rules="chinese")
    s = Search(b, threads=2, seed=1)
    r = s.search(playouts=4000)
    # a simulation that reaches the root while another thread is expanding it plays out from
    # the root itself: at most one per thread goes to no child
    assert r.playouts == 4000 and r.root_visits == 4000 and 3998 <= r.visits.sum() <= 3999



@pytest.mark.parametrize("size, memory_nodes", [(5, 3000), (9, 1 << 20)])
def test_shared_tree_counts_are_exact(size, memory_nodes):
    # two workers share the tree without a lock: visits and visits in flight are atomic adds,
    # starts are counted atomically against the limits, a leaf is expanded by one thread. So the
    # limits hold exactly, nothing stays in flight, and no node has fewer visits than its
    # children together (a lost update would break that); a small pool fills up mid-search.
    b = fastgo.Board(size, rules="chinese")
    s = Search(b, threads=2, seed=3, memory=memory_nodes * Search.bytes_per_node, expand_after=1)
    r = s.search(visits=3000)
    assert r.root_visits == 3000 and r.playouts == 3000
    s.advance(r.best_move)
    before = s.result().root_visits
    r = s.search(visits=before + 2500)
    assert r.root_visits == before + 2500 and r.playouts == 2500
    r = s.search(playouts=1500)
    assert r.root_visits == before + 4000 and r.playouts == 1500
    t = s._nodes()
    assert len(t) == s.nodes <= s.capacity and (t["pending"] == 0).all()
    assert (t["amaf_visits"] >= 0).all() and (t["value"] >= 0).all() and (t["value"] <= t["visits"]).all()
    inner = np.flatnonzero((t["first"] >= 0) & (t["nchildren"] > 0))
    assert len(inner) > 10
    for i in inner:
        kids = t[t["first"][i]:t["first"][i] + t["nchildren"][i]]
        assert (kids["move"] >= 0).all()
        before_children = t["visits"][i] - kids["visits"].sum()
        assert before_children >= 0
        if s.nodes + size * size < s.capacity:    # the pool never filled
            # its visits before it was expanded, and those in flight then, went to no child (with
            # a full pool, leaves go on taking visits until advance() frees room)
            assert before_children <= 1 + 8


def test_held_back_root_samples_reach_the_tree():
    # with threads, each worker adds up its AMAF samples of the root's children over up to 16
    # simulations before writing them: all of them are in the tree when search() returns. Every
    # simulation that goes below the root samples at least the child it went through (the
    # root's mover played that move first), and nothing else adds samples (tactics=0)
    b = fastgo.Board(9, rules="chinese")
    for n in (2, 9, 24, 41):
        s = Search(b, threads=2, seed=4, tactics=0)
        s.search(playouts=n)
        t = s._nodes()
        kids = t[t["first"][0]:t["first"][0] + t["nchildren"][0]]
        below = int(kids["visits"].sum())
        assert below >= n - 2
        assert kids["amaf_visits"].sum() >= below
        assert ((kids["amaf_visits"] >= kids["visits"]) | (kids["move"] == 81)).all()


def uct_value_term(t, rave, P, E):
    """The module docstring's (1 - b) q + b qa of every node of a `Search._nodes()` table,
    in float64 as written there (q the prior rate when n + P = 0)."""
    n, w = t["visits"].astype(float), t["value"]
    na, wa, r = t["amaf_visits"].astype(float), t["amaf_value"].astype(float), t["prior"].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(n + P > 0, (w + r * P) / (n + P), r)
        if not rave:
            return q
        qa = (wa + r * P) / (na + P)
        b = na / (na + n + n * na / E)
    return np.where(na > 0, (1 - b) * q + b * qa, q)


@pytest.mark.parametrize("rave, threads, prior_visits", [(True, 1, 2.0), (True, 2, 2.0),
                                                         (True, 1, 0.0), (False, 1, 2.0)])
def test_cached_value_terms_equal_the_formula(rave, threads, prior_visits):
    # each node caches its value term (Node.mix), updated by the backup as its visits or AMAF
    # samples change (one division instead of the formula's three): after a search every node's
    # cache is the formula recomputed from its statistics, to the float32 it is kept in
    b = fastgo.Board(7, rules="chinese")
    s = Search(b, threads=threads, seed=2, rave=rave, prior_visits=prior_visits, rave_equiv=500.0)
    r = s.search(playouts=3000)
    s.advance(r.best_move)
    s.search(playouts=1000)
    t = s._nodes()
    assert len(t) == s.nodes and t["visits"][0] >= 1000 and (t["pending"] == 0).all()
    if rave:
        assert (t["amaf_visits"] > 0).sum() > len(t) // 4
    expected = uct_value_term(t, rave, prior_visits, 500.0).astype(np.float32)
    assert np.isfinite(expected).all()
    ulp = np.spacing(np.abs(expected))
    assert (np.abs(t["mix"] - expected) <= ulp).all()
    # and most are exactly the float32 of the formula
    assert (t["mix"] == expected).mean() > 0.99

def test_children_are_the_legal_moves_less_own_eyes():
    b = board("""
        . X . X .
        X X X X X
        . . . . .
        . . O . .
        . . . . .""")
    r = Search(b, threads=1).search(playouts=50)
    legal = set(b.legal_moves())
    eyes = {fastgo.vertex_to_point(v, 5, 5) for v in ("A5", "C5", "E5")}
    assert eyes <= legal
    assert set(r.moves.tolist()) == legal - eyes


def expected_children(b):
    """The tree's moves by their definition: Board's legal points, less the mover's one-point
    eyes and plays that leave the colouring unchanged, then pass."""
    out = []
    for m in b.legal_moves():
        if m == b.num_points:
            continue
        if own_eye(b, m) or b.hash_after(m) == b.hash:
            continue
        out.append(m)
    return out + [b.num_points]


@pytest.mark.parametrize("rules", ["tromp-taylor", "chinese", "japanese", "new-zealand",
                                   dict(ko="situational", suicide=True),
                                   dict(ko="simple", suicide=True)])
def test_tree_moves_are_the_rules_legal_moves_deep_in_the_tree(rules):
    # small boards and long random openings make ko, superko and suicide positions; the
    # children of nodes below the root (built from the replayed path) must equal the legal
    # moves of the Board that the moves lead to
    rng = np.random.default_rng(5)
    kw = dict(rules=rules) if isinstance(rules, str) else dict(rules="tromp-taylor", **rules)
    checked = 0
    for game in range(20):
        b = fastgo.Board(4, **kw)
        for _ in range(int(rng.integers(5, 40))):
            if b.is_over:
                break
            b.play(int(rng.choice(b.legal_moves())))
        if b.is_over:
            continue
        s = Search(b, threads=1, seed=game, expand_after=0)
        s.search(playouts=400)
        for depth in range(4):
            r = s.result()
            if not len(r.moves):
                break
            assert r.moves.tolist() == expected_children(b), (rules, game, depth)
            checked += 1
            move = int(r.moves[np.argmax(r.visits)])
            if r.visits.max() == 0:
                break
            s.advance(move)
            b.play(move)
            if b.is_over:
                break
    assert checked >= 20


@pytest.mark.parametrize("ko", ["positional", "situational"])
def test_advance_adds_the_new_root_to_the_superko_memory(ko):
    """advance adds the new root's colouring to the game's superko memory (it read every turn
    of the game again: quadratic over a long game of advances). With no tree kept, an advanced
    search is the search of a new Search on the same game, move for move: on 3x3, where random
    games repeat colourings often, a missing or wrong key changes the playouts."""
    moves = ["B2", "A1", "C3", "B1", "A2", "C1", "pass", "A3", "B3", "C2"]
    b = fastgo.Board(3, rules=fastgo.Rules(ko=ko))
    s = Search(b, threads=1, seed=4)
    for m in moves:
        s.advance(m)                    # (no search yet: nothing kept, each time a new tree)
        b.play(m)
        got = s.search(playouts=3000)
        want = Search(b, threads=1, seed=4).search(playouts=3000)
        assert got.moves.tolist() == want.moves.tolist(), m
        assert got.visits.tolist() == want.visits.tolist(), m
        s = Search(b, threads=1, seed=4)        # a new one for the next advance (no tree)


def test_advance_keeps_the_subtree_and_refuses_illegal_moves():
    b = fastgo.Board(7, rules="chinese")
    s = Search(b, threads=1, seed=2)
    r = s.search(playouts=2000)
    move = int(r.moves[np.argmax(r.visits)])
    kept = int(r.visits.max())
    with pytest.raises(ValueError):
        s.advance("Z99")                                # not a point of this board
    assert s.result().root_visits == 2000            # the refused move changed nothing
    s.advance(move)
    assert s.result().root_visits == kept and s.board.history == [move]
    r2 = s.search(playouts=100)
    assert r2.root_visits == kept + 100
    with pytest.raises(IllegalMoveError):
        s.advance(move)                                 # occupied now
    s.advance("pass")
    assert s.board.to_move == fastgo.BLACK and s.board.history == [move, 49]


def test_bad_arguments_are_refused():
    b = fastgo.Board(5)
    with pytest.raises(TypeError):
        Search("not a board")
    with pytest.raises(ValueError):
        Search(b, memory=100)                           # fewer than points + 2 nodes
    with pytest.raises(ValueError):
        Search(b, policy="smart")
    with pytest.raises(TypeError):
        Search(b, evaluator=3)
    with pytest.raises(ValueError):
        Search(b, threads=0)
    s = Search(b, threads=1)
    with pytest.raises(ValueError):
        s.search()                                      # no limit
    with pytest.raises(ValueError):
        s.search(playouts=-1)
    b.pass_()
    b.pass_()
    with pytest.raises(ValueError):
        Search(b).search(playouts=10)                   # the game is over


def test_a_full_pool_stops_expanding_but_the_search_goes_on():
    b = fastgo.Board(9, rules="chinese")
    s = Search(b, threads=1, memory=200 * Search.bytes_per_node, expand_after=0)
    r = s.search(playouts=2000)
    assert r.root_visits == 2000 and s.nodes <= 200 == s.capacity


# -- tactics --------------------------------------------------------------------------------------

def test_finds_a_one_move_capture():
    b = board("""
        . . . . . . .
        . . . . . . .
        . . X O X . .
        . . X O X . .
        . . . . . . .
        . . . . . . .
        . . . . . . .""")
    assert best(b, 5000)[0] == "D3"


def test_finds_an_atari_escape():
    # Black D4 has one liberty (D3); extending there gives it three; anything else loses it
    b = board("""
        . . . . . . .
        . . . . . . .
        . . . O . . .
        . . O X O . .
        . . . . . . .
        . . . . . . .
        . . . . . . .""")
    assert best(b, 8000)[0] == "D3"


def ladder_captures(b, target):
    """Whether the side to move captures the chain at `target` by a ladder: it ataris at one
    of the chain's two liberties, the defender extends at the other, until the chain has one
    liberty (captured) or three or more (escaped). Returns the working first ataris."""
    def attack(bd, depth):
        libs = bd.chain(target).liberties
        if len(libs) == 1:
            return True
        if len(libs) != 2 or depth > 20:
            return False
        for a in libs:
            c = bd.copy()
            if not c.is_legal(a):
                continue
            c.play(a)
            other = [p for p in c.chain(target).liberties]
            if len(other) != 1 or not c.is_legal(other[0]):
                continue
            c.play(other[0])
            if attack(c, depth + 1):
                return True
        return False
    good = []
    for a in b.chain(target).liberties:
        c = b.copy()
        c.play(a)
        libs = c.chain(target).liberties
        if len(libs) == 1:
            c.play(libs[0])
            if attack(c, 0):
                good.append(V(a, b.width, b.height))
    return good


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_finds_a_short_ladder(seed):
    # White C2 (liberties C1, D2): the atari at D2 drives it along the first line (C1, then
    # B1 or D1 leave one liberty); the atari at C1 lets it out at D2 with three liberties.
    # Uniform playouts do not read this reliably at 20,000 playouts (B3, D3 or D2 by seed);
    # the heavy policy, which escapes ataris and captures, does (about 3/4 of the visits)
    b = board("""
        . . . . .
        . . . . .
        . . X . .
        . X O . .
        . . . . .""")
    working = ladder_captures(b, fastgo.vertex_to_point("C2", 5, 5))
    assert working == ["D2"]                               # the reader confirms the ladder
    move, r = best(b, 20000, seed=seed, policy="heavy")
    assert move == "D2" and r.visits.max() > r.visits.sum() / 2


def test_empty_5x5_prefers_the_centre():
    b = fastgo.Board(5, rules="chinese")
    assert best(b, 20000)[0] == "C3"


# -- determinism ----------------------------------------------------------------------------------

def test_one_thread_and_a_seed_give_the_same_search():
    b = fastgo.Board(9, rules="tromp-taylor")
    b.play("E5")
    r1 = Search(b, threads=1, seed=7).search(playouts=2000)
    r2 = Search(b, threads=1, seed=7).search(playouts=2000)
    r3 = Search(b, threads=1, seed=8).search(playouts=2000)
    assert r1.visits.tolist() == r2.visits.tolist() and r1.pv == r2.pv
    assert np.array_equal(r1.values, r2.values, equal_nan=True)
    assert r1.visits.tolist() != r3.visits.tolist()


def test_heavy_policy_search_is_reproducible_and_differs_from_uniform():
    b = fastgo.Board(9, rules="chinese")
    r1 = Search(b, threads=1, seed=7, policy="heavy").search(playouts=1500)
    r2 = Search(b, threads=1, seed=7, policy="heavy").search(playouts=1500)
    r3 = Search(b, threads=1, seed=7).search(playouts=1500)
    assert r1.visits.tolist() == r2.visits.tolist()
    assert r1.visits.tolist() != r3.visits.tolist()


def test_ownership_and_time_limit_and_stop():
    b = board("""
        . . . . .
        X X X X X
        . . . . .
        O O O O O
        . . . . .""")
    s = Search(b, threads=1, ownership=True)
    t0 = time.perf_counter()
    r = s.search(seconds=0.2)
    took = time.perf_counter() - t0
    # nothing else stops it: it runs to the limit (a lower bound, which a busy machine cannot
    # break), and stops there (a generous upper bound); it reports the time it took
    assert 0.2 - 1e-9 <= r.seconds <= took < 1.0 and r.playouts > 0
    own = r.ownership
    assert own.shape == (5, 5)
    # the walls' own rows stay theirs in most playouts (the one-row areas behind them can die)
    assert (own[3] > 0.5).all() and (own[1] < -0.5).all()
    assert (own[4] > 0.3).all() and (own[0] < -0.3).all()
    s2 = Search(b, threads=1)
    t = threading.Timer(0.2, s2.stop)
    t.start()
    t0 = time.perf_counter()
    r = s2.search(seconds=30)
    assert time.perf_counter() - t0 < 5 and r.playouts > 0
    assert SearchResult.policy(r, 1.0).sum() == pytest.approx(1.0)


def test_policy_target_temperature():
    b = fastgo.Board(5, rules="chinese")
    r = Search(b, threads=1).search(playouts=500)
    p1 = r.policy(1.0)
    assert p1.shape == (26,) and p1.sum() == pytest.approx(1.0)
    assert np.allclose(p1[r.moves], r.visits / r.visits.sum())
    p0 = r.policy(0)
    assert p0[r.best_move] == pytest.approx(1.0 / (r.visits == r.visits.max()).sum())
    ph = r.policy(0.5)
    w = r.visits.astype(float) ** 2
    assert np.allclose(ph[r.moves], w / w.sum())


# -- PUCT -----------------------------------------------------------------------------------------

def toy_evaluator(planes):
    """Deterministic priors and values from the planes alone (float32, as the search reads)."""
    planes = np.asarray(planes)
    B, _, h, w = planes.shape
    n = h * w
    own = planes[:, 0].reshape(B, n)
    opp = planes[:, 1].reshape(B, n)
    idx = np.arange(n + 1, dtype=np.float32)
    stones = (own.sum(1) + 2 * opp.sum(1)).astype(np.float32)
    priors = 1.0 + ((idx[None, :] * 7 + stones[:, None] * 3) % 5).astype(np.float32)
    values = np.tanh((own.sum(1) - opp.sum(1) + 0.25 * planes[:, 2, 0, 0]) / 3.0).astype(np.float32)
    return priors.astype(np.float32), values


def own_eye(b, p):
    """The playout policy's one-point eye of the side to move (see fastgo.playouts)."""
    g = b.stones()
    h, w = g.shape
    r, c = divmod(p, w)
    me, opp = b.to_move, 3 - b.to_move
    if g[r, c]:
        return False
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < h and 0 <= cc < w and g[rr, cc] != me:
            return False
    bad = edge = 0
    for dr, dc in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < h and 0 <= cc < w:
            bad += g[rr, cc] == opp
        else:
            edge = 1
    return bad == 0 if edge else bad < 2


def planes_of(b):
    g = b.stones()
    me = b.to_move
    return np.stack([(g == me), (g == 3 - me), np.full(g.shape, me == fastgo.BLACK)]).astype(np.float32)


class RefNode:
    def __init__(self, move, prior):
        self.move, self.prior = move, prior
        self.n, self.w, self.kids = 0, 0.0, None


def reference_puct(b, sims, c_puct=1.5, fpu=0.0):
    """AlphaZero PUCT, one leaf at a time: the module docstring's formula, ties to the first."""
    root = RefNode(-1, 0.0)
    for _ in range(sims):
        bd, node, path = b.copy(), root, [root]
        while node.kids:
            sq = math.sqrt(node.n)
            best, bestv = None, -1e300
            for k in node.kids:
                q = k.w / k.n if k.n else fpu
                v = q + c_puct * k.prior * sq / (1 + k.n)
                if v > bestv:
                    best, bestv = k, v
            node = best
            bd.play(node.move)
            path.append(node)
        if bd.is_over:
            s = bd.score()
            v = 0.0 if s.winner == 0 else (1.0 if s.winner == bd.to_move else -1.0)
        else:
            pri, val = toy_evaluator(planes_of(bd)[None])
            v = float(val[0])
            moves = [m for m in bd.legal_moves() if m == bd.num_points or not own_eye(bd, m)]
            raw = [float(pri[0, m]) for m in moves]
            total = sum(raw)
            node.kids = [RefNode(m, float(np.float32(r / total))) for m, r in zip(moves, raw)]
        for d, nd in enumerate(reversed(path)):
            nd.n += 1
            nd.w += -v if d % 2 == 0 else v
    return root


@pytest.mark.parametrize("size, sims", [(3, 300), (4, 200)])
def test_puct_matches_a_pure_python_puct(size, sims):
    b = fastgo.Board(size, rules="chinese", komi=0.5)
    s = Search(b, evaluator=toy_evaluator, batch=1)
    r = s.search(visits=sims)
    ref = reference_puct(b, sims)
    assert r.root_visits == ref.n == sims
    assert r.moves.tolist() == [k.move for k in ref.kids]
    assert r.visits.tolist() == [k.n for k in ref.kids]
    got = np.where(r.visits > 0, r.values, 0)
    want = [(k.w / k.n + 1) / 2 if k.n else 0 for k in ref.kids]
    assert np.allclose(got, want)
    assert np.allclose(r.priors, [k.prior for k in ref.kids])


def test_puct_batches_and_virtual_loss():
    b = fastgo.Board(9, rules="chinese")
    calls = []

    def ev(planes):
        calls.append(planes.shape[0])
        assert planes.shape[1:] == (3, 9, 9) and planes.dtype == np.float32
        return np.ones((planes.shape[0], 82), np.float32), np.zeros(planes.shape[0], np.float32)

    s = Search(b, evaluator=ev, batch=64)
    r = s.search(visits=2000)
    assert r.root_visits == 2000 and r.visits.sum() == 1999
    assert max(calls) == 64 and sum(calls) == 2000
    # virtual loss spreads a batch over distinct leaves: with equal priors and values the
    # first batches after the root's expansion visit 64 different root moves
    assert calls[1] == 64


def test_a_seeded_puct_search_is_the_same_at_any_speed(monkeypatch):
    """PUCT collects its batches on one thread and a seeded search is reproducible: but a batch
    stopped filling when the 0.1 s slice between looks for Ctrl-C ended, so on 19x19 with
    large batches (or a busy core) which leaves shared a batch, and so the tree, followed the
    clock. With slices of 10 µs (every batch's collection outlasting its slice) the search is
    the one of the normal slices, batch by batch."""
    import fastgo.search as search_module
    b = fastgo.Board(9, rules="chinese")
    b.play("E5")

    def run():
        calls = []

        def ev(planes):
            calls.append(len(planes))
            n = len(planes)
            stones = planes.reshape(n, planes.shape[1], -1)
            priors = np.ones((n, 82))
            priors[:, :81] += stones[:, 0] * 3 + np.arange(81) / 81
            return priors, stones[:, 1].mean(1) - stones[:, 0].mean(1)
        r = Search(b, evaluator=ev, seed=1, batch=48, dirichlet=(0.3, 0.25)).search(visits=1500)
        return calls, r.moves.tolist(), r.visits.tolist(), r.values.tolist()

    normal = run()
    monkeypatch.setattr(search_module, "_SLICE", 1e-5)
    assert search_module._SLICE == 1e-5
    assert run() == normal and max(normal[0]) == 48


def _even(planes):
    """Every move equally likely, every position even."""
    n, _, h, w = planes.shape
    return np.ones((n, h * w + 1)), np.zeros(n)


@pytest.mark.parametrize("batch, vl", [(1024, 30), (4096, 10)])
def test_a_finished_game_keeps_its_virtual_loss_until_the_batch_is_applied(batch, vl):
    # Black's pass on the empty 9x9 board loses (White passes: komi), every other move is even.
    # A finished game's leaf was backed up at once, its path alone free of virtual loss, so the
    # batch's descents piled onto it: pass became the best move at a 10% win rate
    b = fastgo.Board(9)
    seen = []
    r = Search(b, evaluator=lambda p: (seen.append(len(p)), _even(p))[1], batch=batch,
               virtual_loss=vl).search(playouts=12000)
    visits = dict(zip(r.moves.tolist(), r.visits.tolist()))
    others = [v for m, v in visits.items() if m != b.pass_move]
    assert r.best_move != b.pass_move and abs(r.winrate - 0.5) < 0.01
    assert visits[b.pass_move] <= max(others)
    assert sum(seen) >= 0.99 * r.playouts


def test_without_virtual_loss_a_finished_game_collected_twice_ends_the_batch():
    # virtual_loss=0: nothing steers a batch's descents apart, so a second descent into a leaf
    # already collected ends the batch; a finished game's leaf escaped that test, and every
    # descent of the batch went to White's losing pass (256 visits, the best move at 0.000)
    b = fastgo.Board(9, komi=-7.5)
    b.play("pass")                          # White's pass ends the game: Black wins by 7.5
    r = Search(b, evaluator=_even, batch=256, virtual_loss=0).search(playouts=5000)
    visits = dict(zip(r.moves.tolist(), r.visits.tolist()))
    others = [v for m, v in visits.items() if m != b.pass_move]
    assert r.best_move != b.pass_move and visits[b.pass_move] <= np.median(others)


def test_a_huge_virtual_loss_in_flight_does_not_overflow():
    # virtual_loss 2**20 times 4,096 visits in flight overflowed an int: NaN scores, and every
    # descent went to the first child (A1 4,664 visits, the median 100)
    b = fastgo.Board(9)
    r = Search(b, evaluator=_even, batch=4096, virtual_loss=2**20).search(playouts=8192)
    others = np.delete(r.visits, list(r.moves).index(b.pass_move))
    assert others.max() <= 2 * np.median(others)


def test_a_pool_holds_at_most_max_nodes_whatever_memory_allows():
    # nodes are numbered by int32: a pool past 2**31 nodes failed its expansions silently, past
    # 2**32 overwrote live nodes. An 88 GB pool may not be allocatable here: then the refusal
    # names the capped size
    from fastgo.search import MAX_NODES
    assert MAX_NODES == 2**31 - 1
    try:
        s = Search(fastgo.Board(9), threads=1, memory=2**48)
    except MemoryError as e:
        assert f"pool of {MAX_NODES} nodes" in str(e)
    else:
        assert s.capacity == MAX_NODES
        del s


def test_options_of_the_other_algorithm_are_refused():
    # a playout search took dirichlet= and never noised its root (self-play without
    # exploration), and PUCT took a playout policy it never ran
    b = fastgo.Board(5)
    for kwargs in [dict(dirichlet=(0.03, 0.25)), dict(batch=8), dict(fpu=-1.0),
                   dict(virtual_loss=3), dict(encoding="agz17")]:
        with pytest.raises(ValueError, match=f"{next(iter(kwargs))} applies only to PUCT"):
            Search(b, threads=1, **kwargs)
    for kwargs in [dict(policy="heavy"), dict(tactics=5), dict(expand_after=50),
                   dict(rave_equiv=10.0), dict(prior_visits=1.0)]:
        with pytest.raises(ValueError, match=f"{next(iter(kwargs))} applies only to the playout"):
            Search(b, evaluator=_even, **kwargs)
    with pytest.raises(ValueError, match="batch, dirichlet apply only to PUCT"):
        Search(b, batch=8, dirichlet=(0.3, 0.25))
    # their defaults given explicitly, and the options both take, are accepted
    Search(b, threads=1, batch=256, fpu=0, virtual_loss=1, encoding="stones", exploration=0.5)
    Search(b, evaluator=_even, policy="uniform", tactics=20, exploration=2.0, rave=False)


def test_search_results_pickle_under_every_protocol_and_need_every_field():
    import pickle
    r = Search(fastgo.Board(5), threads=1, seed=1).search(playouts=200)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(r, protocol=protocol))
        assert repr(back) == repr(r) and back.pv == r.pv and np.array_equal(back.visits, r.visits)
        assert np.array_equal(back.policy(), r.policy())
    with pytest.raises(TypeError, match="missing: best_move, moves"):
        SearchResult()                      # (its repr and policy() failed on the missing fields)
    with pytest.raises(TypeError, match="unknown: colour"):
        SearchResult(colour=1, **{k: getattr(r, k) for k in SearchResult.__slots__})


def test_puct_evaluator_errors_leave_the_tree_consistent():
    b = fastgo.Board(5, rules="chinese")

    def bad(planes):
        return np.ones((planes.shape[0], 3)), np.zeros(planes.shape[0])

    s = Search(b, evaluator=bad, batch=8)
    with pytest.raises(ValueError, match="priors must have shape"):
        s.search(visits=10)
    good = Search(b, evaluator=toy_evaluator, batch=8)
    with pytest.raises(TypeError):
        Search(b, evaluator=lambda p: 3, batch=8).search(visits=5)
    assert good.search(visits=50).root_visits == 50


def test_puct_priors_of_any_scale_and_refused_non_finite_numbers():
    """Priors are renormalised over the legal moves, so their scale is free: exp(100) (past
    float32's range) was read as float32, became an inf, and an inf became a prior of 0: the
    favourite got nothing. NaN and infinities carry no preference and are refused; so is a
    scalar where one value per leaf is due."""
    b = fastgo.Board(5, rules="chinese")

    def logits(planes):
        z = np.zeros((len(planes), 26))
        z[:, 12] = 100.0                # C3, by far the favourite
        return np.exp(z), np.zeros(len(planes))

    r = Search(b, evaluator=logits, batch=1).search(playouts=1)
    pri = dict(zip(r.moves.tolist(), r.priors.tolist()))
    assert pri[12] == pytest.approx(1.0) and pri[0] == pytest.approx(0.0, abs=1e-30)
    # finite priors whose sum overflows float64: the same shares as priors 1 and 2
    huge = lambda p: (np.tile(np.where(np.arange(26) < 13, 1e308, 0.5e308), (len(p), 1)),
                      np.zeros(len(p)))
    r = Search(b, evaluator=huge, batch=1).search(playouts=1)
    w = np.where(r.moves < 13, 2.0, 1.0)
    assert np.allclose(r.priors, w / w.sum())

    def spoiled(where, what):
        def ev(planes):
            p, v = np.full((len(planes), 26), 0.5), np.zeros(len(planes))
            (p if where == "priors" else v)[(0, 3) if where == "priors" else 0] = what
            return p, v
        return ev

    for where in ("priors", "values"):
        for what in (np.inf, -np.inf, np.nan):
            s = Search(b, evaluator=spoiled(where, what), batch=4)
            with pytest.raises(ValueError, match=f"{where} must be finite"):
                s.search(playouts=8)
            assert s.result().root_visits == 0
    for batch, value in ((1, 0.0), (4, 0.0), (1, np.zeros((1, 1)))):
        s = Search(b, evaluator=lambda p, value=value: (np.ones((len(p), 26)), value), batch=batch)
        # (the first call evaluates the root alone)
        with pytest.raises(ValueError, match=rf"values must have shape \(1,\), got "
                                             rf"{re.escape(str(np.shape(value)))}"):
            s.search(playouts=8)
    with pytest.raises(TypeError, match="priors must be numbers"):
        Search(b, evaluator=lambda p: ([["x"] * 26], [0.0]), batch=1).search(playouts=1)


def test_puct_evaluator_owns_the_planes_it_is_given():
    """Each batch's planes are a new array: an evaluator that keeps them (inputs for training)
    finds them as they were, also after the Search is gone (they were a view of the Search's
    buffer: overwritten by the next batch, freed with the Search)."""
    kept = []

    def ev(planes):
        kept.append((planes, planes.copy()))
        n = planes.shape[0]
        return np.full((n, 26), 1 / 26, np.float32), np.zeros(n, np.float32)

    s = Search(fastgo.Board(5, rules="chinese"), evaluator=ev, batch=8)
    s.search(playouts=60)
    del s
    assert len(kept) > 2
    for planes, seen in kept:
        assert planes.flags.owndata and np.array_equal(planes, seen)
        planes[:] = 7.0                 # the evaluator's own memory to write


def test_result_counts_the_last_search_of_this_root():
    """SearchResult.playouts: the simulations of the last search call on this root; advance
    starts a new root (0), and leaves an evaluator failed on are not counted."""
    s = Search(fastgo.Board(7, rules="chinese"), threads=1, seed=1, ownership=True)
    assert s.search(playouts=300).playouts == 300 and s.result().playouts == 300
    s.advance("pass")
    r = s.result()
    assert r.playouts == 0 and np.isnan(r.ownership).all()

    def failing(planes):
        raise RuntimeError("no network")

    p = Search(fastgo.Board(5, rules="chinese"), evaluator=failing, batch=4)
    with pytest.raises(RuntimeError):
        p.search(playouts=10)
    assert p.result().playouts == 0 and p.result().root_visits == 0


def test_dirichlet_noise_is_in_the_root_priors_before_the_first_descent():
    """A root expanded already (after advance) got its noise only after the first batch of a
    search, which was chosen by the priors without it (up to `batch` leaves). It is now in the
    priors before any descent: a search of no playouts shows it, and it is mixed in once."""
    def flat(planes):
        return np.ones((len(planes), 26)), np.zeros(len(planes))
    s = Search(fastgo.Board(5, rules="chinese"), evaluator=flat, batch=8,
               dirichlet=(0.03, 1.0), seed=1)
    s.search(playouts=200)
    s.advance("C3")
    plain = s.result().priors
    assert np.allclose(plain, 1 / len(plain))               # the child's own priors: uniform
    noised = s.search(playouts=0).priors
    assert noised.max() > 0.2 and np.isclose(noised.sum(), 1, atol=1e-5)   # Dir(0.03): spiky
    assert np.array_equal(s.search(playouts=50).priors, noised)     # once a root


def test_best_move_pv_and_analysis_order_break_ties_alike():
    # tied visits: best_move took the higher value, the principal variation the earlier move
    for seed in range(6):
        r = Search(fastgo.Board(7, rules="chinese"), threads=1, seed=seed).search(playouts=5)
        assert r.pv[0] == r.best_move


def test_avoid_leaves_moves_out_of_the_first_plies():
    """avoid=(colour, moves, until_depth): those moves of that colour are no node of the tree
    in its first until_depth plies (KataGo's avoid); deeper, and in the playouts, they are."""
    b = fastgo.Board(5, rules="chinese")
    V = lambda v: fastgo.vertex_to_point(v, 5, 5)
    for evaluator in (None, toy_evaluator):
        s = Search(b, threads=1, evaluator=evaluator, avoid=[("b", ["C3", "B2"], 3),
                                                             (2, [V("C3"), "pass"], 2)])
        s.search(visits=3000)
        t = s._nodes()
        depth = {0: 0}
        deep = set()
        for i in range(len(t)):
            if t["first"][i] >= 0:
                for c in range(t["first"][i], t["first"][i] + t["nchildren"][i]):
                    depth[c] = depth[i] + 1
                    ply, move = depth[c], int(t["move"][c])
                    black = ply % 2 == 1
                    if black and ply <= 3:
                        assert move not in (V("C3"), V("B2")), (ply, move)
                    elif not black and ply <= 2:
                        assert move not in (V("C3"), 25), (ply, move)
                    elif move in (V("C3"), V("B2")):
                        deep.add(ply)
        assert deep and min(deep) >= 4      # below the avoided plies they are searched
        # a new tree after advance: the plies count from the new root
        s.advance("A1")
        assert s._nodes()["nchildren"][0] == 0
        r = s.search(visits=200)
        assert V("C3") not in r.moves and 25 not in r.moves    # White's ply 1 now
        assert len(r.moves) == 23                       # (A1 taken)
    # a node whose every move is avoided keeps the pass
    s = Search(b, threads=1, avoid=[("b", range(26), 1)])
    r = s.search(playouts=50)
    assert r.moves.tolist() == [25]


@pytest.mark.parametrize("avoid,error", [
    (5, TypeError), ("b C3 1", TypeError), ([("b", ["C3"])], TypeError),
    ([("x", ["C3"], 1)], ValueError), ([(3, ["C3"], 1)], ValueError),
    ([(True, ["C3"], 1)], TypeError), ([("b", ["Z9"], 1)], ValueError),
    ([("b", (2, 2), 1)], TypeError), ([("white", (2, 2), 1)], TypeError),
    ([("b", [99], 1)], ValueError), ([("b", ["C3"], 0)], ValueError),
    ([("b", ["C3"], 1.5)], TypeError), ([("b", 5, 1)], TypeError),
])
def test_avoid_is_checked(avoid, error):
    with pytest.raises(error):
        Search(fastgo.Board(5), avoid=avoid)


def test_a_player_reads_avoid_once_and_keeps_its_tree_across_equal_ones():
    """Player.choose read `avoid` twice (a generator was used up by the check, and the search
    then avoided nothing), and compared raw triples to keep its tree (numpy arrays of moves
    raised on the second move): a reviewer's findings."""
    from fastgo.player import Player
    b = fastgo.Board(5, rules="chinese")
    c3 = fastgo.vertex_to_point("C3", 5, 5)
    p = Player(300, threads=1)
    d = p.choose(b, avoid=(t for t in [("b", [c3], 1)]))
    assert c3 not in [m for m, _, _ in d.arms]
    tree = p._search
    for _ in range(2):
        d = p.choose(b, avoid=[("b", np.array([c3]), 1)])
        assert c3 not in [m for m, _, _ in d.arms] and p._search is tree


def test_a_masked_evaluator_output_is_refused():
    b = fastgo.Board(3)

    def masked(planes):
        n = len(planes)
        return np.ma.array(np.ones((n, 10)), mask=True), np.zeros(n)
    with pytest.raises(TypeError, match="masked array"):
        Search(b, evaluator=masked, batch=1).search(visits=2)


def test_avoid_takes_numpy_colours_pairs_and_names():
    b = fastgo.Board(5)
    for colour in (np.int64(1), "BLACK", "b"):
        s = Search(b, threads=1, avoid=[(colour, [(2, 2), "pass"], 1)])
        r = s.search(playouts=100)
        assert 12 not in r.moves and 25 not in r.moves and len(r.moves) == 24


def test_puct_ties_go_to_the_higher_prior():
    """Under PUCT a tie of visits and values goes to the network's choice: after one visit (the
    root's own) best_move was A1, the earliest point, whatever the priors (a tester's
    finding)."""
    b = fastgo.Board(5, rules="chinese")
    favourite = fastgo.vertex_to_point("C3", 5, 5)

    def peaked(planes):
        priors = np.full((len(planes), 26), 1e-3, dtype=np.float32)
        priors[:, favourite] = 1.0
        return priors, np.zeros(len(planes), dtype=np.float32)
    r = Search(b, evaluator=peaked, batch=1, threads=1).search(visits=1)
    assert r.visits.sum() == 0 and r.best_move == favourite
    # equal visits and values below the root: the principal variation takes the higher prior
    def flat_but_one(planes):
        priors = np.ones((len(planes), 26), dtype=np.float32)
        priors[:, 25] = 0.0                 # (no pass)
        priors[:, fastgo.vertex_to_point("B2", 5, 5)] = 1.01
        return priors, np.zeros(len(planes), dtype=np.float32)
    r = Search(b, evaluator=flat_but_one, batch=1, threads=1).search(visits=3)
    b2 = fastgo.vertex_to_point("B2", 5, 5)
    assert r.visits[0] == r.visits[b2] == 1 and r.values[0] == r.values[b2]     # A1 and B2 tie
    assert r.best_move == b2 and r.pv == [b2]


def test_dirichlet_noise_changes_root_priors_reproducibly():
    b = fastgo.Board(5, rules="chinese")
    plain = Search(b, evaluator=toy_evaluator, batch=4).search(visits=100)
    n1 = Search(b, evaluator=toy_evaluator, batch=4, dirichlet=(0.3, 0.25), seed=1).search(visits=100)
    n2 = Search(b, evaluator=toy_evaluator, batch=4, dirichlet=(0.3, 0.25), seed=1).search(visits=100)
    assert np.allclose(n1.priors, n2.priors) and not np.allclose(n1.priors, plain.priors)
    assert n1.priors.sum() == pytest.approx(1.0, abs=1e-5)



# -- PUCT input encodings -------------------------------------------------------------------------

def node_paths(t):
    """{pool index: the moves from the root to that node} of a Search's _nodes()."""
    paths, order = {0: ()}, [0]
    for i in order:
        if t["first"][i] >= 0:
            for c in range(t["first"][i], t["first"][i] + t["nchildren"][i]):
                paths[c] = paths[i] + (int(t["move"][c]),)
                order.append(c)
    return paths


def expanded(s):
    """The move paths (from the root) of the nodes the evaluator expanded (terminal nodes have
    no children)."""
    t = s._nodes()
    return [p for i, p in node_paths(t).items() if t["first"][i] >= 0 and t["nchildren"][i] > 0]


def recording_evaluator(rows, points):
    """An evaluator that keeps every row it is given; priors and values from the planes (so
    that the tree's shape depends on them), favouring the points given first."""
    def ev(planes):
        assert planes.dtype == np.float32 and planes.flags.c_contiguous
        rows.extend(np.array(planes))
        n = planes.shape[0]
        flat = planes.reshape(n, -1)
        pri = np.ones((n, points + 1)) + flat[:, :points + 1] * 0.5
        for rank, p in enumerate(ev.favour):
            pri[:, p] += 8.0 / (rank + 1)
        return pri, np.tanh(flat.sum(1) % 5 - 2.0)
    ev.favour = []
    return ev


def check_planes(s, root, encoding, rows, before=()):
    """Every row the evaluator got is exactly features.encode of the Board the path of one node
    expanded in this search leads to, and those nodes are exactly the ones expanded (as
    multisets): the nodes expanded now less `before` (paths expanded before the search)."""
    want = []
    left = list(before)
    for path in expanded(s):
        if path in left:
            left.remove(path)
            continue
        bd = root.copy()
        for m in path:
            bd.play(m)
        want.append(fastgo.features.encode(bd, encoding))
    assert not left
    assert len(rows) == len(want) > 0
    for r in rows:
        assert r.shape == (fastgo.search.ENCODINGS[encoding], root.height, root.width)
    assert sorted(r.tobytes() for r in rows) == sorted(w.tobytes() for w in want)


def ko_board(rules, **kw):
    """A rectangular game of 10 turns (over HISTORY = 8), the last one a ko capture: Black may
    not retake at D2 now."""
    b = fastgo.Board(5, 4, rules=rules, **kw)
    for m in ["A4", "E4", "B2", "D1", "C1", "D3", "C3", "E2", "D2", "C2"]:
        b.play(m)
    return b


ENCODINGS = [e for e in fastgo.search.ENCODINGS if e != "stones"]


def test_puct_encodings_are_the_features_encodings():
    assert fastgo.search.ENCODINGS == {"stones": 3, **fastgo.features.ENCODINGS}
    b = fastgo.Board(5, rules="chinese")
    for bad in ["agz", "AGZ17", "", None, 17, ["katago"]]:
        with pytest.raises(ValueError) as e:
            Search(b, evaluator=toy_evaluator, encoding=bad)
        for name in fastgo.search.ENCODINGS:
            assert repr(name) in str(e.value)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("rules", ["tromp-taylor", "japanese",
                                   dict(rules="tromp-taylor", ko="situational")])
def test_puct_planes_are_features_encode_of_the_leaf(encoding, rules):
    """The planes of every leaf are features.encode of the Board the path leads to (history
    from before the root included: a game of 10 turns with a capture and a ko), then again
    after advance (one move the tree kept, then one it did not)."""
    kw = dict(rules=rules) if isinstance(rules, str) else rules
    b = ko_board(**kw)
    rows = []
    ev = recording_evaluator(rows, b.num_points)
    d2, c2, a1 = (fastgo.vertex_to_point(v, 5, 4) for v in ("D2", "C2", "A1"))
    ev.favour = [a1, d2, c2]        # a threat, the retake, the ko's other side
    s = Search(b, evaluator=ev, batch=8, encoding=encoding, threads=2)
    s.search(visits=150)
    check_planes(s, b, encoding, rows)
    assert rows[0].tobytes() == fastgo.features.encode(b, encoding).tobytes()   # the root first
    if encoding == "katago":
        # plane 6: Black's retake at D2 at the root; deeper, White's at C2 after Black retook
        assert rows[0][6].reshape(-1)[d2] == 1
        assert any(r[6].reshape(-1)[c2] for r in rows[1:])
    # advance into the kept subtree, then to a move it never expanded
    for move in [s.result().best_move, None]:
        if move is None:
            ours = {p[0] for p in expanded(s) if p}
            move = next(m for m in b.legal_moves() if m not in ours)
        s.advance(move)
        b.play(move)
        assert s.board.history == b.history
        before = expanded(s)
        rows.clear()
        s.search(visits=s.result().root_visits + 60)
        check_planes(s, b, encoding, rows, before)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_puct_planes_of_a_set_up_board_and_a_short_game(encoding):
    """A game from a set-up (stones placed, White first) with fewer turns than the history
    holds: the colourings from before the set-up are zeros in the leaves' planes as in
    features.encode. Several advances pass HISTORY turns."""
    b = fastgo.Board.from_diagram("""
        . . . . . .
        . X . . O .
        . . . . . .
        . X . . O .
        . . . . . .""", to_move=fastgo.WHITE, rules="tromp-taylor")
    b.play("C3")
    rows = []
    ev = recording_evaluator(rows, b.num_points)
    s = Search(b, evaluator=ev, batch=4, encoding=encoding)
    for _ in range(10):
        rows.clear()
        before = expanded(s)
        s.search(visits=s.result().root_visits + 40)
        check_planes(s, b, encoding, rows, before)
        move = s.result().best_move
        if move == b.num_points:
            move = next(m for m in b.legal_moves() if m != b.num_points)
        s.advance(move)
        b.play(move)


@pytest.mark.parametrize("encoding", ["agz17", "katago"])
@pytest.mark.parametrize("rules", ["tromp-taylor", dict(rules="tromp-taylor", ko="situational"),
                                   dict(rules="tromp-taylor", ko="simple")])
def test_puct_planes_after_random_openings(encoding, rules):
    """Long random openings on 4x4 make captures, ko and superko positions: the planes of every
    leaf (katago's plane 6 judged as the tree judges moves, with the game's superko memory and
    the path's) are features.encode's."""
    rng = np.random.default_rng(11)
    kw = dict(rules=rules) if isinstance(rules, str) else rules
    forbidden = 0
    for game in range(8):
        b = fastgo.Board(4, **kw)
        for _ in range(int(rng.integers(10, 40))):
            if b.is_over:
                break
            b.play(int(rng.choice(b.legal_moves())))
        if b.is_over:
            continue
        rows = []
        s = Search(b, evaluator=recording_evaluator(rows, b.num_points), batch=4,
                   encoding=encoding)
        s.search(visits=60)
        check_planes(s, b, encoding, rows)
        if encoding == "katago":
            forbidden += sum(int(r[6].sum()) for r in rows)
    assert encoding != "katago" or forbidden > 0


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_puct_planes_of_leaves_left_unexpanded(encoding):
    """A full pool: leaves past it are evaluated without being expanded, again at every visit.
    Each row is still features.encode of the Board some node's path leads to, every expanded
    node's planes are among them, and the rows number more than the nodes expanded."""
    b = ko_board("tromp-taylor")
    rows = []
    ev = recording_evaluator(rows, b.num_points)
    s = Search(b, evaluator=ev, batch=4, encoding=encoding,
               memory=4 * (b.num_points + 1) * Search.bytes_per_node)
    s.search(visits=200)
    t = s._nodes()
    assert len(t) > s.capacity - (b.num_points + 1)      # the pool filled
    encodings = {}
    for i, path in node_paths(t).items():
        bd = b.copy()
        for m in path:
            bd.play(m)
        encodings[path] = fastgo.features.encode(bd, encoding).tobytes()
    got = [r.tobytes() for r in rows]
    assert set(got) <= set(encodings.values())
    done = expanded(s)
    assert all(encodings[p] in got for p in done)
    assert len(got) > len(done)


def test_puct_stones_encoding_is_unchanged():
    """The default encoding: 3 planes, the mover's stones, the opponent's, ones when Black is
    to move (the pure-Python PUCT above reads them too)."""
    b = ko_board("chinese")
    rows = []
    s = Search(b, evaluator=recording_evaluator(rows, b.num_points), batch=4)
    assert s.encoding == "stones"
    s.search(visits=30)
    want = []
    for path in expanded(s):
        bd = b.copy()
        for m in path:
            bd.play(m)
        want.append(planes_of(bd))
    assert sorted(r.tobytes() for r in rows) == sorted(w.tobytes() for w in want)

# -- the heavy playout policy ---------------------------------------------------------------------

def test_heavy_playouts_capture_and_escape_first():
    # Black's last play D4 puts White's D5 in atari; its liberty D6 has three empty
    # neighbours: the heavy policy's only urgent move for White, so every playout starts there
    b = board("""
        . . . . . . .
        . . . . . . .
        . . X O X . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .""")
    b.play("D4")
    uniform = fastgo.playouts(b, 400, seed=1, record=400, policy="uniform")
    heavy = fastgo.playouts(b, 400, seed=1, record=400, policy="heavy")
    d6 = fastgo.vertex_to_point("D6", 7, 7)
    assert sum(int(m[0]) == d6 for m in heavy.moves) == 400
    assert sum(int(m[0]) == d6 for m in uniform.moves) < 100
    # a capture: White's last play D5 leaves it one liberty (D4): Black takes it every time
    c = board("""
        . . . . . . .
        . . . X . . .
        . . X . X . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .""", to_move=fastgo.WHITE)
    c.play("D5")
    d4 = fastgo.vertex_to_point("D4", 7, 7)
    assert all(int(m[0]) == d4 for m in fastgo.playouts(c, 200, seed=2, record=200, policy="heavy").moves)
    # rules are exact whatever the policy: every recorded game replays legally
    for m in fastgo.playouts(b, 50, seed=3, record=50, policy="heavy").moves:
        d = b.copy()
        for p in m:
            d.play(int(p))


@pytest.mark.parametrize("kind", ["uct-1", "uct-2", "puct"])
def test_a_full_tree_takes_no_more_visits(kind):
    """A tester's finding: a node's counts are 32-bit, and a search past 2**31 visits wrapped
    them negative and read its tables out of bounds (a segfault after about 5 minutes on 1x1).
    The root takes at most MAX_VISITS (every simulation passes through it, so no node takes
    more); the same code is exercised here with a cap set low (_limit_visits)."""
    from fastgo.search import MAX_VISITS
    # room below int32's wrap for the most virtual AMAF samples `tactics` adds (2**20)
    assert MAX_VISITS + 2**20 < 2**31 - 1
    with pytest.raises(ValueError):
        Search(fastgo.Board(5), tactics=2**20 + 1)
    if kind == "puct":
        s = Search(fastgo.Board(5), evaluator=lambda p: (np.ones((len(p), 26)), np.zeros(len(p))))
    else:
        s = Search(fastgo.Board(5), threads=int(kind[-1]), seed=3)
    s._limit_visits(700)
    assert not s.full
    first = s.search(playouts=5000)
    assert first.root_visits == 700 and first.playouts == 700 and s.full
    again = s.search(playouts=5000, seconds=30)
    assert again.playouts == 0 and again.root_visits == 700 and again.seconds < 5
    nodes = s._nodes()
    assert nodes["visits"].max() <= 700 and nodes["pending"].max() == 0
    s.advance(first.best_move)                  # a child's subtree: room again
    assert not s.full and s.search(playouts=50).playouts == 50


def test_a_full_tree_ends_a_reporting_search_and_an_analysis():
    """Player.think(report=) (genmove_analyze) and the GTP analysis loop end or wait on a full
    tree, where each slice runs nothing (a budget of playouts was never reached: a loop)."""
    from fastgo.player import Player
    board = fastgo.Board(5)
    p = Player(playouts=10_000, threads=1)
    p.tree(board)._limit_visits(400)
    reports = []
    r = p.think(board, playouts=10_000, report=lambda res, final: reports.append(final))
    assert r.root_visits == 400 and reports[-1] is True and len(reports) < 50


def test_search_memory_that_cannot_be_had_is_refused_with_its_size():
    # a bare MemoryError() before. (`memory` is a ceiling, touched as the pool fills: only an
    # allocation that fails is refused, 2**48 bytes being more than a process can address)
    with pytest.raises(MemoryError, match=r"no memory for a Search's node pool of \d+ nodes "
                                          r"\(memory=281474976710656 bytes\)"):
        Search(fastgo.Board(9), memory=2**48)


WALLS = """
    . X . O .
    X X X O O
    . X . O .
    X X X O O
    . X . O ."""


@pytest.mark.parametrize("rave", [True, False])
@pytest.mark.parametrize("komi, wins", [(0.5, True), (2.0, None), (2.5, False)])
def test_the_pass_that_ends_the_game_starts_with_its_exact_result(rave, komi, wins):
    """After White's pass, Black's pass ends the game; Black has 12 points to White's 10 (the
    three shared points are nobody's): with komi 0.5 it wins, 2 ties, 2.5 loses. Its prior
    win rate is that result, so RAVE (which never samples a pass) visits a winning pass and
    chooses it: before, a RAVE search of 400 playouts never visited it."""
    b = fastgo.Board.from_diagram(WALLS, to_move=fastgo.WHITE, rules="chinese", komi=komi)
    b.play(b.pass_move)
    score = b.score()
    assert score.margin == 2 - komi
    r = Search(b, threads=1, seed=1, rave=rave).search(playouts=400)
    k = list(r.moves).index(b.pass_move)
    if wins:
        assert r.best_move == b.pass_move and r.visits[k] == r.visits.max() and r.values[k] == 1.0
    elif wins is None:          # a tie: the pass is scored 1/2 whenever it is visited
        assert r.visits[k] == 0 or r.values[k] == 0.5
    else:
        assert r.best_move != b.pass_move and (r.visits[k] == 0 or r.values[k] == 0.0)


@pytest.mark.parametrize("rave", [True, False])
@pytest.mark.parametrize("prisoners, komi, wins", [((0, 0), -0.5, True), ((0, 1), -0.5, False),
                                                    ((2, 1), 0.5, True), ((1, 1), 0.5, False)])
def test_a_resumed_game_s_prisoners_count_in_the_search_under_territory(rave, prisoners, komi,
                                                                         wins):
    """Japanese rules (territory): after White's pass, Black's pass ends the game with 3 points
    of territory each (the shared middle column is nobody's), so Black's margin is its earlier
    prisoners minus White's minus komi (by hand). The search scored the current part alone:
    with prisoners (0, 1) and komi -0.5 it took a losing pass (+0.5 without them) for a win."""
    b = fastgo.Board.from_diagram(WALLS, to_move=fastgo.WHITE, rules="japanese", komi=komi)
    b.play(b.pass_move)
    pb, pw = prisoners
    assert b.score().margin == -komi            # this part alone: 3 points each
    s = Search(b, threads=1, seed=1, rave=rave, prisoners=prisoners)
    assert s.prisoners == prisoners
    r = s.search(playouts=400)
    k = list(r.moves).index(b.pass_move)
    assert (pb - pw - komi > 0) == wins
    if wins:
        assert r.best_move == b.pass_move and r.values[k] == 1.0
    else:
        assert r.best_move != b.pass_move and (r.visits[k] == 0 or r.values[k] == 0.0)


def test_a_resumed_game_s_prisoners_leave_area_scoring_alone():
    """Area scoring counts no prisoners: the same search with and without them is the same
    search (one thread, one seed)."""
    b = fastgo.Board.from_diagram(WALLS, to_move=fastgo.WHITE, rules="chinese", komi=0.5)
    b.play(b.pass_move)
    a = Search(b, threads=1, seed=3).search(playouts=300)
    c = Search(b, threads=1, seed=3, prisoners=(0, 40)).search(playouts=300)
    assert list(a.moves) == list(c.moves) and list(a.visits) == list(c.visits)
    assert np.array_equal(a.values, c.values, equal_nan=True)


@pytest.mark.parametrize("bad, error", [("ab", TypeError), (3, TypeError), ((1, 2, 3), TypeError),
                                        ((1.0, 2), TypeError), ((-1, 0), ValueError),
                                        ((0, 2**31), ValueError), ((True, 0), TypeError)])
def test_search_prisoners_are_checked(bad, error):
    with pytest.raises(error, match="prisoners"):
        Search(fastgo.Board(5), threads=1, prisoners=bad)
    with pytest.raises(error, match="prisoners"):
        fastgo.playouts(fastgo.Board(5), 1, prisoners=bad)


def test_close_frees_the_tree_now_and_refuses_what_follows():
    """close() (and the end of a with block) frees the tree's C memory without waiting for the
    collector (a Search in a reference cycle, through an evaluator that is a bound method of
    its owner, held its pool until a full collection: a resource tester's finding); every
    later call is refused with "closed", a second close does nothing, and a close during a
    search in another thread or from the evaluator inside a search is refused and changes
    nothing."""
    import threading
    board = fastgo.Board(9)
    with Search(board, threads=1, memory=4 << 20) as s:
        assert s.search(playouts=300).playouts == 300
    for call in (lambda: s.search(playouts=1), s.result, lambda: s.advance("E5"),
                 lambda: s.variation(40), lambda: s.nodes, lambda: s.board, lambda: s.full):
        with pytest.raises(RuntimeError, match="this Search was closed"):
            call()
    s.close()
    s.stop()                                        # (nothing to stop: nothing done)
    s = Search(board, threads=1)
    running = threading.Thread(target=lambda: s.search(seconds=1.0))
    running.start()
    time.sleep(0.2)
    with pytest.raises(RuntimeError, match="one call at a time.*call stop"):
        s.close()
    running.join()
    assert s.result().playouts > 0
    refused = []

    def evaluator(planes):
        try:
            s2.close()
        except RuntimeError as e:
            refused.append(str(e))
        n = planes.shape[0]
        return np.full((n, 82), 1 / 82), np.zeros(n)
    s2 = Search(board, evaluator=evaluator, batch=8)
    s2.search(visits=16)
    assert refused and all("one call at a time" in r for r in refused)
    assert s2.nodes > 1
    s2.close()
