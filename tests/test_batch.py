"""``BoardBatch`` against n independent ``Board``s (the rules' reference at this layer: Board is
itself checked against the pure-Python rules in test_differential.py).

Hypothesis picks the size (1x1 .. 19x19, rectangles), the ko rule, the suicide option, komi,
scoring, n and a seed; a seeded random stream then drives both sides with the same operations:
legal picks (passes now and then), resets of some games, loads of games from Boards with set-ups
and handicaps. After every operation the colourings, legal masks (superko included), hashes,
scores, winners, terminal flags, move numbers and the side to move must be equal.
"""

import os
import pickle
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fastgo
from fastgo import BLACK, WHITE, Board, BoardBatch, IllegalActionError, random_actions

KO_RULES = ("positional", "situational", "simple")
SIZES = [(1, 1), (1, 2), (2, 1), (2, 2), (3, 2), (2, 3), (3, 3), (4, 3), (4, 4), (5, 5), (7, 4),
         (9, 9), (13, 13), (19, 19)]
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def compare(batch, boards, masks=True):
    n = len(boards)
    assert batch.stones().tolist() == [b.stones().tolist() for b in boards]
    assert batch.hashes.tolist() == [b.hash for b in boards]
    assert batch.to_move.tolist() == [b.to_move for b in boards]
    assert batch.move_numbers.tolist() == [len(b.history) for b in boards]
    assert batch.terminated.tolist() == [b.is_over for b in boards]
    assert batch.scores().tolist() == [b.score().margin for b in boards]
    assert batch.winners().tolist() == [b.score().winner for b in boards]
    if masks:
        m = batch.legal_mask()
        for i in range(n):
            assert m[i].tolist() == boards[i].legal_mask().tolist(), f"game {i}"


def random_board(rng, w, h, rules):
    """A Board with a random set-up (a legal position or a handicap) and a few turns."""
    if rng.random() < 0.5 and w == h and w in (9, 13, 19):
        b = Board(w, rules=rules, handicap=rng.randint(2, 5))
    else:
        grid = np.array([[rng.choice((0, 0, 1, 2)) for _ in range(w)] for _ in range(h)])
        if not fastgo.is_legal_position(grid):
            grid[:] = 0
        b = Board.from_array(grid, to_move=rng.choice((1, 2)), rules=rules)
    for _ in range(rng.randint(0, 6)):
        legal = b.legal_moves()
        if not legal:
            break
        b.play(rng.choice(legal))
    return b


@settings(max_examples=60, **SETTINGS)
@given(size=st.sampled_from(SIZES), ko=st.sampled_from(KO_RULES), suicide=st.booleans(),
       scoring=st.sampled_from(("area", "territory")), komi=st.sampled_from((7.5, 0.0, -1.0)),
       n=st.integers(1, 4), seed=st.integers(0, 2 ** 32 - 1), threads=st.sampled_from((1, 2)))
def test_batch_equals_boards(size, ko, suicide, scoring, komi, n, seed, threads):
    w, h = size
    rng = random.Random(seed)
    rules = fastgo.Rules(ko, suicide, scoring, komi)
    batch = BoardBatch(n, w, h, rules=rules, autoreset="disabled", threads=threads)
    boards = [Board(w, h, rules=rules) for _ in range(n)]
    compare(batch, boards)
    steps = 80 if w * h <= 16 else 30
    for _ in range(steps):
        r = rng.random()
        if r < 0.05:
            mask = np.array([rng.random() < 0.5 for _ in range(n)])
            batch.reset(mask)
            for i in np.flatnonzero(mask):
                boards[i] = Board(w, h, rules=rules)
        elif r < 0.10:
            i = rng.randrange(n)
            boards[i] = random_board(rng, w, h, rules)
            batch.set(i, boards[i])
            assert batch.board(i) == boards[i]
        else:
            actions = []
            for i, b in enumerate(boards):
                if b.is_over:
                    batch.reset(np.arange(n) == i)
                    boards[i] = b = Board(w, h, rules=rules)
                legal = b.legal_moves()
                pass_ = legal[-1]
                pick = pass_ if rng.random() < 0.08 or len(legal) == 1 else rng.choice(legal[:-1])
                actions.append(pick)
            res = batch.step(actions)
            for b, a in zip(boards, actions):
                b.play(a)
            assert res.terminated.tolist() == [b.is_over for b in boards]
            assert res.winners.tolist() == [b.score().winner if b.is_over else 0 for b in boards]
            assert not res.truncated.any() and not res.reset.any()
        compare(batch, boards)
    for i in range(n):
        assert batch.board(i) == boards[i]


def test_superko_masks_exact():
    """Hand-checked rows of six points (A1..F1), White to move, suicide allowed: the batch's
    mask is the rules' (and Board's) under every ko rule."""
    T, F = True, False
    # ". X O . O .", Black takes at D1: ". X . X O .". White's C1 retakes the ko: it recreates
    # the set-up's colouring with Black to move (positional and situational superko, simple
    # ko). White's A1 is a one-stone suicide leaving the colouring as it is: positional
    # superko refuses it, the others allow it (no capture; a new situation). F1 joins E1 and
    # takes their last liberty: a multi-stone suicide that changes the colouring (legal).
    ko = {"positional": [F, F, F, F, F, T, T], "situational": [T, F, F, F, F, T, T],
          "simple": [T, F, F, F, F, T, T]}
    # ". X . . O .": only A1 differs between the rules (the same one-stone suicide)
    quiet = {"positional": [F, F, T, T, F, T, T], "situational": [T, F, T, T, F, T, T],
             "simple": [T, F, T, T, F, T, T]}
    for rule in KO_RULES:
        b = Board.from_array([[0, 1, 2, 0, 2, 0]], to_move=BLACK, ko=rule)
        b.play(3)
        q = Board.from_array([[0, 1, 0, 0, 2, 0]], to_move=WHITE, ko=rule)
        for board, want in ((b, ko[rule]), (q, quiet[rule])):
            batch = BoardBatch(1, 6, 1, ko=rule, autoreset="disabled")
            batch.set(0, board)
            assert batch.legal_mask()[0].tolist() == want == board.legal_mask().tolist(), rule
        assert b.why_illegal(2) == ("ko" if rule == "simple" else "superko")
        assert q.why_illegal(0) == ("superko" if rule == "positional" else None)
    # the retake by a step as well: the batch's own history judges it
    batch = BoardBatch(1, 6, 1, ko="situational", autoreset="disabled")
    batch.set(0, Board.from_array([[0, 1, 2, 0, 2, 0]], to_move=BLACK, ko="situational"))
    batch.step([3])
    assert batch.legal_mask()[0].tolist() == ko["situational"]


def test_illegal_step_changes_nothing():
    batch = BoardBatch(3, 5, autoreset="disabled")
    batch.step([12, 0, 24])
    before = (batch.stones(), batch.hashes, batch.move_numbers, batch.legal_mask())
    with pytest.raises(IllegalActionError) as e:
        batch.step([13, 0, 25])           # game 1 plays on its own stone
    assert e.value.games == [1] and e.value.reasons == ["occupied"] and e.value.actions == [0]
    assert "game 1" in str(e.value) and isinstance(e.value, ValueError)
    after = (batch.stones(), batch.hashes, batch.move_numbers, batch.legal_mask())
    for x, y in zip(before, after):
        assert np.array_equal(x, y)
    with pytest.raises(ValueError):
        batch.step([0, 1])                 # wrong length
    with pytest.raises(ValueError):
        batch.step([0, 1, 26])             # out of range
    with pytest.raises(ValueError):
        batch.step([0.5, 1, 2])            # not integers


@pytest.mark.parametrize("threads", [1, 2])
def test_refused_steps_of_a_large_batch_change_nothing(threads):
    # a batch large enough for the threaded step (every game judged on the calling thread, then
    # played on the threads): a refusal in any game, or an action out of range in any integer
    # dtype, changes no game
    n = 300
    batch = BoardBatch(n, 5, threads=threads, autoreset="disabled")
    rng = np.random.default_rng(5)
    for _ in range(6):
        m = batch.legal_mask()
        m[:, -1] = False                    # no passes: no game ends
        batch.step(random_actions(m, int(rng.integers(1 << 30))))

    def state():
        return (batch.stones(), batch.hashes.copy(), batch.move_numbers.copy(), batch.legal_mask())

    before = state()
    good = random_actions(batch.legal_mask(), 7)
    for bad_games in ([0], [n - 1], [17, 250]):
        acts = good.copy()
        for g in bad_games:
            acts[g] = int(np.flatnonzero(~before[3][g])[0])     # an occupied point
        with pytest.raises(IllegalActionError) as e:
            batch.step(acts)
        assert e.value.games == bad_games
        for x, y in zip(before, state()):
            assert np.array_equal(x, y)
    for dtype, value in [(np.int64, 26), (np.int64, -1), (np.int64, 2**40), (np.int32, -7),
                         (np.uint64, 2**63), (np.uint8, 200)]:
        acts = good.astype(dtype)
        acts[123] = value
        # refused as the rules' refusals are (README: "any refusal raises IllegalActionError
        # naming the games and reasons"), with the value as given, not as cast
        with pytest.raises(IllegalActionError, match="out of range 0..25") as e:
            batch.step(acts)
        assert e.value.games == [123] and e.value.actions == [int(value)]
        assert e.value.reasons == ["out of range 0..25"]
        for x, y in zip(before, state()):
            assert np.array_equal(x, y)
    batch.step(good.astype(np.int32))
    assert (batch.move_numbers == before[2] + 1).all()


def test_every_form_of_actions_plays_the_same_turn():
    # step takes a native C-contiguous int64 array as it is and converts every other integer
    # array or sequence: strided, byte-swapped, other widths, lists, an ndarray subclass. Each
    # plays the turn the plain int64 array plays, and the results are arrays of length n of
    # the documented dtypes, independent of each other
    n = 6
    start = BoardBatch(n, 5, autoreset="same-step")
    rng = np.random.default_rng(11)
    for _ in range(5):
        start.step(random_actions(start.legal_mask(), int(rng.integers(1 << 30))))
    plain = random_actions(start.legal_mask(), 3)
    wide = np.zeros(2 * n, dtype=np.int64)
    wide[::2] = plain

    class Sub(np.ndarray):
        pass

    forms = [plain, wide[::2], plain.astype(">i8"), plain.astype(np.int32),
             plain.astype(np.uint16), plain.tolist(), tuple(plain.tolist()), plain.view(Sub)]
    outcomes = []
    for acts in forms:
        batch = start.copy()
        res = batch.step(acts)
        assert [r.dtype for r in res] == [np.bool_, np.bool_, np.int8, np.bool_]
        assert all(r.shape == (n,) and r.flags.c_contiguous and r.flags.owndata for r in res)
        outcomes.append((batch.stones(), batch.hashes.copy(), batch.move_numbers.copy(),
                         [r.tolist() for r in res]))
    for o in outcomes[1:]:
        assert all(np.array_equal(x, y) for x, y in zip(outcomes[0], o))
    assert (outcomes[0][2] == start.move_numbers + 1).all()
    for bad in (plain[:-1], plain.reshape(2, 3), plain.astype(np.float64), np.array(["a"] * n)):
        with pytest.raises(ValueError, match="actions must be an integer array"):
            start.copy().step(bad)


def test_a_masked_array_of_actions_is_refused():
    # np.asarray drops a masked array's mask: its masked entries ("no action chosen") were
    # played as moves
    batch = BoardBatch(4, 5)
    with pytest.raises(TypeError, match="masked array"):
        batch.step(np.ma.array([13, 14, 15, 16], mask=[0, 1, 0, 0]))
    assert batch.move_numbers.tolist() == [0] * 4
    batch.step(np.ma.array([13, 14, 15, 16], mask=[0, 1, 0, 0]).filled(25))
    assert batch.move_numbers.tolist() == [1] * 4 and batch.stones()[1].sum() == 0
    # so are masked masks and positions (a fuzzer's finding: a fully masked reset mask still
    # restarted game 0, random_actions drew from masked rows, from_array placed masked stones)
    with pytest.raises(TypeError, match="masked array"):
        batch.reset(np.ma.array([True, False, False, False], mask=True))
    assert batch.move_numbers.tolist() == [1] * 4
    with pytest.raises(TypeError, match="masked array"):
        random_actions(np.ma.array(batch.legal_mask(), mask=True), seed=1)
    with pytest.raises(TypeError, match="masked array"):
        Board.from_array(np.ma.array(np.ones((5, 5), int), mask=True))
    for bad in (None, "ab", b"ab"):
        with pytest.raises(TypeError, match="a position must be a 2-D array"):
            Board.from_array(bad)


def test_a_list_of_ints_beyond_int64_is_out_of_range_not_float():
    # numpy makes [2**63, 1, 2, 3] float64 and [2**64, ...] object: step said "actions must be
    # an integer array ..., got float64 (4,)" of a list of ints
    batch = BoardBatch(4, 5)
    for big in (2**63, 2**64, -2**63 - 1, np.uint64(2**63)):
        for acts in ([big, 1, 2, 3], (1, 2, 3, big)):
            with pytest.raises(IllegalActionError, match=rf"action {int(big)} out of range 0..25"):
                batch.step(acts)
    assert batch.move_numbers.tolist() == [0] * 4
    with pytest.raises(ValueError, match="got float64"):
        batch.step([1.5, 1, 2, 3])                  # floats are still refused as floats
    for acts in ([True, 1, 2, 3], (1, 2, np.True_, 3), [5, 1, 2, False], [1, np.array(True), 2, 3]):
        # numpy makes them int64: True was played as point 1
        with pytest.raises(ValueError, match=r"not bools \(games \[\d\]\)"):
            batch.step(acts)
    assert batch.move_numbers.tolist() == [0] * 4
    batch.step([np.uint64(5), 1, 2, 3])             # ints of mixed kinds play (numpy: float64)
    assert batch.board(0).history == [5] and batch.board(3).history == [3]


def test_out_buffers_are_checked_then_filled():
    # legal_mask, encode and random_actions fill a caller's buffer only when it is a writeable,
    # C-contiguous numpy array of the exact shape and dtype in native byte order; anything else
    # is refused with TypeError (not an array) or ValueError, and the buffer is left as it was
    batch = BoardBatch(3, 5)
    batch.step([6, 7, 25])
    want_mask = batch.legal_mask()
    want_planes = batch.encode("agz17", dtype=np.uint8)
    want_acts = random_actions(want_mask, 9)
    calls = [(lambda out: batch.legal_mask(out=out), want_mask),
             (lambda out: batch.encode("agz17", out=out), want_planes),
             (lambda out: random_actions(want_mask, 9, out=out), want_acts)]
    for call, want in calls:
        good = np.zeros_like(want)
        assert call(good) is good and np.array_equal(good, want)
        wide = np.zeros((2,) + want.shape, dtype=want.dtype)
        readonly = np.zeros_like(want)
        readonly.flags.writeable = False
        bad = [np.zeros(want.shape[:-1] + (want.shape[-1] + 1,), dtype=want.dtype),
               np.zeros((1,) + want.shape, dtype=want.dtype), wide[0, ::-1], readonly]
        if want.dtype.itemsize > 1:        # a byte-swapped copy of a wider type
            bad.append(np.zeros(want.shape, dtype=want.dtype.newbyteorder(">")))
        for out in bad + [np.zeros(want.shape, dtype=np.int32)]:
            before = out.copy()
            # (encode names a dtype it cannot write at all a TypeError)
            with pytest.raises(ValueError if out.dtype != np.int32 else (ValueError, TypeError)):
                call(out)
            assert np.array_equal(out, before)
        with pytest.raises(TypeError):
            call(want.tolist())


def test_two_passes_and_autoreset_modes():
    # disabled: a finished game refuses moves until reset
    batch = BoardBatch(2, 3, autoreset="disabled", komi=0.5)
    batch.step([4, 9])
    res = batch.step([9, 9])
    assert res.terminated.tolist() == [False, True] and res.winners.tolist() == [0, 2]
    with pytest.raises(IllegalActionError) as e:
        batch.step([9, 9])
    assert e.value.games == [1] and e.value.reasons == ["game over"]
    batch.reset(np.array([False, True]))
    res = batch.step([9, 4])
    assert res.terminated.tolist() == [True, False]
    assert res.winners.tolist() == [1, 0]      # Black's stone owns the 3x3 board
    # next-step: the finished game restarts at the next step, its action ignored
    batch = BoardBatch(2, 3, komi=0.5)
    batch.step([9, 4])
    res = batch.step([9, 9])
    assert res.terminated.tolist() == [True, False] and batch.terminated.tolist() == [True, False]
    assert not batch.legal_mask()[0].any()
    res = batch.step([4, 9])                  # game 0's action is ignored
    assert res.reset.tolist() == [True, False] and res.terminated.tolist() == [False, True]
    assert batch.move_numbers.tolist() == [0, 3] and batch.stones()[0].sum() == 0
    # same-step: the game restarts in the step that ends it
    batch = BoardBatch(1, 3, autoreset="same-step", komi=0.5)
    batch.step([9])
    res = batch.step([9])
    assert res.terminated.tolist() == [True] and res.reset.tolist() == [True]
    assert res.winners.tolist() == [2] and batch.move_numbers.tolist() == [0]
    assert not batch.terminated.any()


def test_move_cap_truncates():
    batch = BoardBatch(2, 5, max_moves=3, autoreset="disabled")
    for k in range(2):
        res = batch.step([k, k + 5])
        assert not res.truncated.any()
    res = batch.step([10, 25])
    assert res.truncated.tolist() == [True, True] and batch.truncated.all()
    assert not batch.legal_mask().any()
    with pytest.raises(IllegalActionError) as e:
        batch.step([11, 12])
    assert e.value.reasons == ["move cap", "move cap"]
    batch = BoardBatch(1, 5, max_moves=1)       # next-step: restarts
    batch.step([3])
    assert batch.truncated.tolist() == [True]
    res = batch.step([0])
    assert res.reset.tolist() == [True] and batch.move_numbers.tolist() == [0]


def test_handicap_copy_and_board():
    batch = BoardBatch(2, 9, handicap=4, komi=0.5)
    assert batch.to_move.tolist() == [2, 2] and (batch.stones() == 1).sum() == 8
    batch.step([0, 80])
    c = batch.copy()
    c.step([1, 79])
    assert batch.move_numbers.tolist() == [1, 1] and c.move_numbers.tolist() == [2, 2]
    ref = Board(9, handicap=4, komi=0.5)
    ref.play(0)
    ref.play(1)
    assert c.board(0) == ref
    assert np.array_equal(c.board(0).stones(), c.stones()[0])
    with pytest.raises(IndexError):
        batch.board(2)
    with pytest.raises(ValueError):
        batch.set(0, Board(9, komi=7.5))       # other rules
    with pytest.raises(ValueError):
        batch.set(0, Board(7, komi=0.5))       # other size
    with pytest.raises(TypeError):
        batch.set(0, None)


def test_constructor_validation():
    for bad in (dict(n=0), dict(n=-1), dict(n=2, width=0), dict(n=2, width=26),
                dict(n=2, autoreset="sometimes"), dict(n=2, max_moves=0), dict(n=2, threads=0)):
        with pytest.raises(ValueError):
            BoardBatch(**bad)
    with pytest.raises(TypeError):
        BoardBatch("3")


def test_state_bytes_reported():
    # the documented parts, each at least: the board block (README, Data model: an 8-byte cell,
    # a 2-byte neighbour mask and a 2-byte chain size a padded point, (h + 2) x (w + 1), and a
    # 2-byte empty-list entry a point), the 8-position colouring ring (a byte a point), the kept
    # legal mask (a byte a point and the pass); and the records grow as the games go on
    for size in (9, 19):
        b = BoardBatch(4, size)
        points, padded = size * size, (size + 2) * (size + 1)
        fresh = b.state_bytes
        assert fresh >= 12 * padded + 2 * points + 8 * points + points + 1
        for k in range(3 * size):
            b.step(random_actions(b.legal_mask(), k))
        assert b.state_bytes >= fresh


def test_superko_table_grows_with_the_game():
    """The README's bound: the superko table keeps at most 48 bytes (four 12-byte slots) per
    colouring it remembers, plus its first 16 slots. Two batches play the same number of turns
    (stones only, so every turn adds a colouring), one under simple ko, which keeps no table
    beyond the first 16 slots: the difference of state_bytes is the table's growth (the move
    lists grow alike)."""
    turns, n = 140, 4           # just past a rebuild (at 128 colourings), where growth shows
    rng = np.random.default_rng(5)
    kept = {}
    for ko in ("positional", "simple"):
        b = BoardBatch(n, 9, ko=ko, max_moves=None)
        mask = np.empty((n, 82), dtype=np.bool_)
        for _ in range(turns):
            b.legal_mask(out=mask)
            assert mask[:, :81].any(axis=1).all()       # a stone can be played in every game
            b.step(np.array([rng.choice(np.flatnonzero(row[:81])) for row in mask]))
        kept[ko] = b.state_bytes
    table = kept["positional"] - kept["simple"] + 16 * 12
    assert 16 * 12 < table <= 4 * 12 * (turns + 1) + 16 * 12


@pytest.mark.parametrize("suicide", [True, False])
@pytest.mark.parametrize("ko", KO_RULES)
def test_masks_match_reference_with_shortcut_cases(ko, suicide):
    """The batch's legal masks equal the pure-Python reference's (tests/reference.py) on random
    games of small boards, and those games reach the cases core.judge_play settles from the
    neighbour masks without a preview: a play next to an empty point refused by superko (and
    the same point legal again at a later turn of that mover: the kept mask's entry, 0 after that
    refusal, must be judged again even where the stone counts rule out every repeat), a
    play walled in by the mover's own stones (legal or refused), and a walled-in capture of a
    chain that fell into atari at a turn played away from that point (the kept sole liberties,
    core.settle_sole_liberties: a version that skipped the opponent's chains failed here)."""
    from collections import Counter
    from reference import RefGame, apply_play, neighbours
    rnd = random.Random(11)
    seen = Counter()
    for w, h in [(2, 2), (3, 2), (3, 3), (4, 4), (5, 5)]:
        n = 16
        batch = BoardBatch(n, w, h, ko=ko, suicide=suicide, threads=1)
        refs = [RefGame(w, h, ko=ko, suicide=suicide) for _ in range(n)]
        refused = [dict() for _ in range(n)]     # point -> the turn superko refused it, next to empty
        last = [None] * n                         # each game's last play (a point), None after a pass
        for _ in range(150):
            mask, grids = batch.legal_mask(), batch.stones().reshape(n, -1)
            actions = []
            for i, ref in enumerate(refs):
                assert mask[i].tolist() == ref.legal_mask(), f"{w}x{h} game {i}"
                mover = batch.to_move[i]
                turn = int(batch.move_numbers[i])
                for p in np.flatnonzero(grids[i] == 0):
                    r, c = divmod(int(p), w)
                    nbrs = [grids[i][q] for q in ((r - 1) * w + c, (r + 1) * w + c) if 0 <= q < w * h]
                    nbrs += [grids[i][r * w + cc] for cc in (c - 1, c + 1) if 0 <= cc < w]
                    reason = ref.why_illegal(int(p))
                    if 0 in nbrs and reason == "superko":
                        seen["superko next to an empty point"] += 1
                        refused[i][int(p)] = turn
                    elif (0 in nbrs and reason is None and int(p) in refused[i]
                          and (turn - refused[i][int(p)]) % 2 == 0):
                        seen["superko next to an empty point, legal again"] += 1
                    if nbrs and all(v == mover for v in nbrs) and reason != "game over":
                        seen["walled in by own stones, " + ("legal" if reason is None else "refused")] += 1
                    if (0 not in nbrs and reason is None and last[i] is not None
                            and last[i] not in neighbours(int(p), w, h)
                            and apply_play(list(grids[i]), w, h, int(p), mover)[1] > 0):
                        # the chain it captures fell into atari away from this point: the kept
                        # sole liberties must have found it there (core.settle_sole_liberties)
                        seen["walled in, captures, the last play not beside it"] += 1
                legal = np.flatnonzero(mask[i])
                actions.append(int(rnd.choice(legal)) if len(legal) else w * h)
            result = batch.step(np.array(actions))
            for i in range(n):
                if result.reset[i]:
                    refs[i] = RefGame(w, h, ko=ko, suicide=suicide)
                    refused[i].clear()
                    last[i] = None
                else:
                    refs[i].play(actions[i])
                    last[i] = actions[i] if actions[i] < w * h else None
    assert seen["walled in by own stones, legal"] > 0
    assert seen["walled in, captures, the last play not beside it"] > 0
    if not (ko == "simple" and suicide):    # refused there only as suicide or repetition
        assert seen["walled in by own stones, refused"] > 0
    if ko != "simple":
        assert seen["superko next to an empty point"] > 0
        assert seen["superko next to an empty point, legal again"] > 0


def _mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2 ** 64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2 ** 64 - 1)
    return z ^ (z >> 31)


def _random_action_model(row, seed, i):
    """random_actions' documented draw for row i, in plain Python: the legal entries (nonzero
    bytes) in order, an index uniform in [0, count) by Lemire's multiply-shift with rejection
    over the splitmix64 stream of (seed, i); the pass when nothing is legal."""
    legal = [j for j, v in enumerate(row) if v]
    if not legal:
        return len(row) - 1
    count, golden, m32 = len(legal), 0x9E3779B97F4A7C15, 2 ** 32 - 1
    r = _mix64(_mix64(seed) ^ ((i * golden) & (2 ** 64 - 1)))
    x = (r >> 32) * count
    if (x & m32) < count:
        t = (2 ** 32 - count) % count
        while (x & m32) < t:
            r = _mix64((r + golden) & (2 ** 64 - 1))
            x = (r >> 32) * count
    return legal[x >> 32]


@pytest.mark.parametrize("points", [1, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 26, 50, 82, 362, 640, 641, 700])
def test_random_actions_follow_the_documented_draw(points):
    # rows of every density, read eight bytes at a time by the kernel (byte by byte past 640);
    # any nonzero byte (a bool view of other bytes) counts as legal, and a row with one legal
    # entry at either end
    rng = np.random.default_rng(points)
    raw = (rng.random((40, points)) < rng.random((40, 1))) * rng.integers(1, 256, (40, points))
    raw[0] = 0
    raw[1] = 0
    raw[1, -1] = 7
    raw[2] = 0
    raw[2, 0] = 1
    mask = raw.astype(np.uint8).view(np.bool_)
    for seed in (0, 5, 2 ** 63 + 11):
        got = fastgo.random_actions(mask, seed)
        assert got.tolist() == [_random_action_model(raw[i].tolist(), seed, i) for i in range(40)]
        assert all(raw[i, a] for i, a in enumerate(got) if raw[i].any())


def test_random_actions_take_the_environments_integer_masks():
    """The envs' action masks are int8 0/1; random_actions refused them ("mask must be a bool
    array"), so the README's example cast them. 0/1 integers of any width draw as the same
    bools; other values and other dtypes are refused, saying what came."""
    rng = np.random.default_rng(3)
    mask = rng.random((64, 26)) < 0.4
    want = fastgo.random_actions(mask, 11).tolist()
    for dtype in (np.int8, np.uint8, np.int32, np.int64):
        assert fastgo.random_actions(mask.astype(dtype), 11).tolist() == want
    for bad, err, msg in [(mask * 2, ValueError, "0 and 1 only"),
                          (-mask.astype(np.int8), ValueError, "0 and 1 only"),
                          (mask.astype(np.float32), TypeError, "got float32 \\(64, 26\\)"),
                          (mask[0], ValueError, "got bool \\(26,\\)")]:
        with pytest.raises(err, match=msg):
            fastgo.random_actions(bad, 1)


def test_random_actions_without_a_seed_differ_from_call_to_call():
    """The default seed was 0, so a "random" policy written as in the README's environment
    example (random_actions(obs["action_mask"])) replayed one game per environment for ever
    (a tester: 60 episodes on 4 envs, 4 distinct games). Without a seed each call draws a fresh
    one; an int seed still repeats its draws."""
    mask = np.ones((200, 82), dtype=np.bool_)
    draws = {tuple(fastgo.random_actions(mask).tolist()) for _ in range(3)}
    assert len(draws) == 3          # equal by chance with probability 82 ** -200
    assert fastgo.random_actions(mask, 5).tolist() == fastgo.random_actions(mask, 5).tolist()
    batch = BoardBatch(1, 5)
    games = set()
    for episode in range(3):
        batch.reset()
        moves = []
        while not batch.terminated.all() and len(moves) < 400:
            acts = fastgo.random_actions(batch.legal_mask())
            moves.append(tuple(acts.tolist()))
            batch.step(acts)
        games.add(tuple(moves))
    assert len(games) == 3


def test_random_actions_same_on_any_thread_count():
    # 12,000 rows of 82: enough work for the threaded path (rows * (P + 400) >= 2**22)
    rng = np.random.default_rng(7)
    mask = rng.random((12000, 82)) < rng.random((12000, 1))
    one = fastgo.random_actions(mask, 99, threads=1)
    assert one.tolist() == fastgo.random_actions(mask, 99, threads=2).tolist()
    assert one.tolist() == fastgo.random_actions(mask, 99, threads=3).tolist()
    assert [_random_action_model(mask[i].tolist(), 99, i) for i in (0, 1234, 11999)] == \
        one[[0, 1234, 11999]].tolist()
    with pytest.raises(ValueError):
        fastgo.random_actions(mask, 99, threads=0)


@pytest.mark.parametrize("ko", ["positional", "situational", "simple"])
def test_kept_masks_follow_copies_loads_and_resets(ko):
    # The masks a batch keeps from turn to turn (and its superko filter's counts) must travel
    # with copy(), be rebuilt by set() and reset(), and stay equal to Board.legal_mask: on 4x4,
    # where captures and repetitions are frequent, after every turn of two diverging copies.
    batch = BoardBatch(16, 4, ko=ko, max_moves=200, threads=1)
    mask = np.empty((16, 17), dtype=bool)
    for t in range(30):
        batch.legal_mask(out=mask)
        batch.step(fastgo.random_actions(mask, t, threads=1))
    other = batch.copy()
    source = Board(4, ko=ko)
    for move in (5, 6, 9, 10, 4, 16, 11):
        source.play(move)
    other.set(3, source)
    other.reset(np.arange(16) % 5 == 0)
    for t in range(60):
        for b, seed in ((batch, t), (other, 1000 + t)):
            b.legal_mask(out=mask)
            for i in range(16):
                expected = b.board(i).legal_mask()
                if b.terminated[i] or b.truncated[i]:
                    expected[:] = False
                assert np.array_equal(mask[i], expected), (ko, t, i)
            b.step(fastgo.random_actions(mask, seed, threads=1))


def test_thread_choice_follows_the_measured_costs(many_cores):
    # step runs on one thread or on `threads`, whichever a game's turn costs less on (measured;
    # made-up timings here), and tries the other again after 16 steps, then after twice as long
    # each time a try confirms the choice. A try measures two steps after one it does not count
    # (the games' memory moving between the cores), and so does the return from a try.
    batch = BoardBatch(1024, 9, threads=2)
    assert batch._adaptation() == (2, 0.0, 0.0, 16)

    def feed(one, many, steps):
        for _ in range(steps):
            t = batch._adaptation()[0]
            batch._feed(t > 1, (many if t > 1 else one) * 1024)

    feed(one=500e-9, many=700e-9, steps=16)         # two threads slower: a busy machine
    assert batch._adaptation()[0] == 1              # the try of one thread begins
    feed(one=9e-6, many=700e-9, steps=1)            # its first step, moving the games: not counted
    assert batch._adaptation()[:3] == (1, 0.0, pytest.approx(700e-9))
    feed(one=500e-9, many=700e-9, steps=2)
    used, one, many, next_try = batch._adaptation()
    assert (used, next_try) == (1, 16) and one == pytest.approx(500e-9) and many == pytest.approx(700e-9)
    feed(one=500e-9, many=700e-9, steps=16 + 3)     # the try of two threads confirms: gap 32
    assert batch._adaptation()[0::3] == (1, 32)
    feed(one=9e-6, many=700e-9, steps=1)            # back on one thread: not counted
    assert batch._adaptation()[1] == pytest.approx(500e-9)
    feed(one=500e-9, many=300e-9, steps=31 + 3)     # the machine frees up
    assert batch._adaptation()[0::3] == (2, 16)
    batch.threads = 2                               # a new setting starts afresh
    assert batch._adaptation() == (2, 0.0, 0.0, 16)
    for small in (BoardBatch(8, 9, threads=2), BoardBatch(1024, 9, threads=1)):
        small._feed(True, 1.0)                      # nothing to choose: never measured
        assert small._adaptation()[1:3] == (0.0, 0.0)


@pytest.mark.parametrize("n,threads", [(64, 3), (203, 2), (1000, 5), (130, 64)])
def test_every_game_is_played_once_a_step_on_any_number_of_threads(n, threads, many_cores):
    # The threads split the games into blocks and take chunks of each other's when they run out
    # (more threads than cores, sizes that divide unevenly, blocks shorter than a chunk): every
    # game must be played exactly once a step, as on one thread (its move count, colouring and
    # mask), through the move list's and superko memory's growth past their first sizes.
    a = BoardBatch(n, 5, threads=1, max_moves=150)
    b = BoardBatch(n, 5, threads=threads, max_moves=150)
    mask = np.empty((n, 26), dtype=bool)
    many = 0
    for t in range(150):
        a.legal_mask(out=mask)
        acts = random_actions(mask, 1000 + t, threads=1)
        b._feed(False, 1.0)                         # one thread "slow": stay on `threads`
        many += b._adaptation()[0] == threads
        ra, rb = a.step(acts), b.step(acts)
        assert (b.move_numbers == a.move_numbers).all()
        assert (a.hashes == b.hashes).all()
        assert all((x == y).all() for x, y in zip(ra, rb))
        assert (b.legal_mask() == a.legal_mask()).all()
    assert (a.stones() == b.stones()).all()
    assert many > 100


STEAL_CHILD = """
import numpy as np
import fastgo.playout
from fastgo import BoardBatch, random_actions
fastgo.playout.CORES = 1024         # (four threads asked for, whatever this machine's cores)
a, b = BoardBatch(300, 5, threads=1), BoardBatch(300, 5, threads=4)
mask = np.empty((300, 26), dtype=bool)
many = 0
for t in range(60):
    a.legal_mask(out=mask)
    acts = random_actions(mask, t, threads=1)
    b._feed(False, 1.0)
    many += b._adaptation()[0] == 4
    a.step(acts), b.step(acts)
    assert (a.move_numbers == b.move_numbers).all() and (a.hashes == b.hashes).all()
print("same" if many > 40 else many)
"""


@pytest.mark.parametrize("limit", ["1", "2"])
def test_threads_that_never_come_leave_their_games_to_the_others(limit):
    # OpenMP may give a region fewer threads than asked (here OMP_THREAD_LIMIT): the blocks of
    # the threads that never start are played from the back by the ones that do.
    env = dict(os.environ, OMP_THREAD_LIMIT=limit)
    r = subprocess.run([sys.executable, "-c", STEAL_CHILD], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "same", r.stderr


def test_batch_is_final():
    # its C methods are called directly (the step's loops inline them): no subclass may
    # override them
    with pytest.raises(TypeError):
        type("Sub", (BoardBatch,), {})


def test_thread_choice_changes_no_result(many_cores):
    # Games stepped while the choice switches between one thread and two (driven by made-up
    # timings) end exactly as on one thread.
    a = BoardBatch(512, 7, threads=1, max_moves=80)
    b = BoardBatch(512, 7, threads=2, max_moves=80)
    mask = np.empty((512, 50), dtype=bool)
    used = set()
    for t in range(120):
        used.add(b._adaptation()[0])
        a.legal_mask(out=mask)
        acts = random_actions(mask, t, threads=1)
        assert (b.legal_mask() == mask).all()
        b._feed(b._adaptation()[0] > 1, 1.0 if (t // 7) % 2 else 1e-6)
        ra, rb = a.step(acts), b.step(acts)
        assert (a.hashes == b.hashes).all()
        assert all((x == y).all() for x, y in zip(ra, rb))
    assert used == {1, 2}


def _same_batches(a, b):
    for name in ("to_move", "move_numbers", "terminated", "truncated", "hashes"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for name in ("stones", "scores", "winners"):
        assert np.array_equal(getattr(a, name)(), getattr(b, name)()), name
    assert np.array_equal(a.legal_mask(), b.legal_mask())
    for enc in ("agz17", "katago"):         # (the history planes, the ko plane)
        assert np.array_equal(a.encode(enc), b.encode(enc)), enc


@pytest.mark.parametrize("kw", [dict(), dict(handicap=2, max_moves=30, autoreset="disabled"),
                                dict(rules="japanese", autoreset="same-step"),
                                dict(ko="situational", suicide=False)])
def test_a_pickled_batch_plays_on_exactly_as_the_original(kw):
    """pickle (a BoardBatch was refused: a vector env could not be pickled either) keeps every
    game: its set-up (a game set from a Board with its own stones too), turns, the planes'
    history, ko and superko memory, passes and ends; the copy then steps exactly as the
    original for 60 steps of random actions with many passes."""
    a = BoardBatch(8, 7, **kw)
    rng = np.random.default_rng(1)

    def play(batch_pair, steps, seed):
        for t in range(steps):
            m = batch_pair[0].legal_mask()
            m[:, -1] |= ~m.any(1)               # (ended games: any action)
            acts = fastgo.random_actions(m, seed + t)
            acts[rng.random(8) < 0.3] = 49
            results = [batch.step(acts) for batch in batch_pair]
            for x, y in zip(results[0], results[-1]):
                assert np.array_equal(x, y)
            ended = results[0].terminated | results[0].truncated
            if batch_pair[0].autoreset == "disabled" and ended.any():
                for batch in batch_pair:
                    batch.reset(ended)
            if len(batch_pair) == 2:
                _same_batches(*batch_pair)

    play([a], 25, 0)
    diagram = np.zeros((7, 7), dtype=np.int8)
    diagram[3, 3], diagram[2, 2] = 1, 2
    own = fastgo.Board.from_array(diagram, to_move=2, rules=a.rules)
    own.play("E5")
    a.set(3, own)
    a.set(4, a.board(5))                        # (from the batch's own start: no copy kept)
    b = pickle.loads(pickle.dumps(a))
    _same_batches(a, b)
    assert (b.board(3).history, b.board(3).start_position().tolist()) == \
        (own.history, diagram.tolist())
    assert b.rules == a.rules and b.max_moves == a.max_moves and b.autoreset == a.autoreset
    play([a, b], 60, 100)


def test_unpickling_refuses_what_no_batch_pickles():
    """_unpickle_batch (reached by a hand-made pickle) refuses a start that is no Board (None
    reached the C fields: a segfault, a reviewer's finding) or one with turns played (its games
    would restart from another position than board(i) rebuilds); `threads` pickles as asked
    (None: all cores of the machine that unpickles)."""
    from fastgo.batch import _unpickle_batch
    with pytest.raises(TypeError):
        _unpickle_batch(None, 0, "next-step", 1, [Board(5)])
    played = Board(5)
    played.play("C3")
    with pytest.raises(ValueError, match="not a pickled BoardBatch"):
        _unpickle_batch(played, 0, "next-step", 1, [Board(5)])
    for cap in (-1, 2**63 - 1):                     # (outside __init__'s 1..2**62, or 0)
        with pytest.raises(ValueError, match="not a pickled BoardBatch"):
            _unpickle_batch(Board(5), cap, "next-step", 1, [Board(5)])
    assert BoardBatch(2, 5).__reduce__()[1][3] is None
    assert BoardBatch(2, 5, threads=1).__reduce__()[1][3] == 1
    batch = BoardBatch(2, 5, threads=1)
    batch.threads = None
    assert pickle.loads(pickle.dumps(batch)).__reduce__()[1][3] is None


def test_unpickling_runs_no_code_of_a_board_subclass_and_counts_the_boards_once():
    """A fuzzer's findings: _unpickle_batch took `start.copy()` (a subclass's override, whose
    board the batch trusted: games that were not what board(i) rebuilt, a 19x19 batch whose
    memory was judged as 5x5) and kept a subclass start whose start_position() set() and
    board() call; and it read len(boards) three times (a list whose length changes between
    them made a batch of more games than boards)."""
    from fastgo.batch import _unpickle_batch

    class Sneaky(Board):
        def copy(self, undo=False):
            b = Board(5)
            b.play(12)
            return b

        def start_position(self):
            g = super().start_position()
            g[0, 0] = 1
            return g
    batch = _unpickle_batch(Sneaky(5), 0, "next-step", 1, [Board(5), Board(5)])
    batch.reset()
    for i in range(2):
        assert batch.board(i).stones().sum() == 0 and type(batch.board(i)) is Board
        assert batch.board(i).hash == batch.hashes[i] == Board(5).hash
    assert pickle.loads(pickle.dumps(batch)).hashes.tolist() == batch.hashes.tolist()

    class Shifty(list):
        calls = 0

        def __len__(self):
            Shifty.calls += 1
            return 1 if Shifty.calls < 3 else 3
    batch = _unpickle_batch(Board(5), 0, "next-step", 1, Shifty([Board(5)]))
    assert len(batch) == 1
    with pytest.raises(ValueError, match="not a pickled BoardBatch"):
        _unpickle_batch(Board(5), 0, "next-step", 1, iter([Board(5)]))


@pytest.mark.parametrize("ended", ["passes", "cap"])
def test_a_same_step_batch_refuses_to_load_an_ended_game(ended):
    """Under same-step autoreset a game restarts in the step that ends it, so step refuses any
    action of an ended one: set() loaded one anyway (a fuzzer's finding), which no step could
    then move. Other modes take it (next-step restarts it at the next step)."""
    b = Board(5)
    for m in (["C3", "pass", "pass"] if ended == "passes" else ["C3", "D3", "C4"]):
        b.play(m)
    batch = BoardBatch(2, 5, autoreset="same-step", max_moves=3)
    before = batch.hashes.copy()
    with pytest.raises(ValueError, match="same-step"):
        batch.set(0, b)
    assert batch.hashes.tolist() == before.tolist() and batch.board(0).history == []
    other = BoardBatch(2, 5, autoreset="next-step", max_moves=3)
    other.set(0, b)
    other.step([0, 0])                      # the restart (the actions of ended games unused)
    assert other.board(0).history == [] and other.board(1).history == [0]
    other.step([0, 1])
    assert other.board(0).history == [0]


@pytest.mark.parametrize("how", ["reset", "next-step"])
def test_a_restarted_game_keeps_no_set_up_of_its_own(how):
    """set() keeps a game's own set-up (board(i) rebuilds from it) until the game restarts:
    restarted by reset or by next-step autoreset, it begins at the batch's start again, and the
    set-up was kept anyway (6.7 KB a 19x19 game: a resource tester's finding). By tracemalloc:
    what set() added is given back."""
    import gc
    import tracemalloc
    diagram = np.zeros((19, 19), dtype=np.int8)
    diagram[3, 3] = 1
    source = Board.from_array(diagram, to_move=2)
    source.play("pass")
    source.play("pass")                             # (ended: next-step restarts it)
    batch = BoardBatch(256, 19)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(256):
            batch.set(i, source)
        loaded = tracemalloc.get_traced_memory()[0] - before
        assert batch.board(7).start_position()[3, 3] == 1
        if how == "reset":
            batch.reset()
        else:
            assert batch.step(np.zeros(256, dtype=np.int64)).reset.all()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert not batch.board(7).start_position().any() and batch.board(7).history == []
    assert loaded > 256 * 1000 and after < loaded / 10, (loaded, after)
