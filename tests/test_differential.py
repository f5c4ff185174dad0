"""Differential tests: ``fastgo.Board`` against the pure-Python reference ``tests/reference.py``.

The reference is written straight from the Tromp-Taylor rule text (reach, clearing, the list of
earlier colourings) and the "Rules" section of README.md. Hypothesis drives both
with the same moves and, after every step, compares the colouring, the side to move, the history,
the legality (and its reason) of every point and of the pass, the legal mask and move list, the
captures, the Zobrist hash, the score, the end of the game, chains and liberties, and runs
``check_consistency()``.

Default run: about 40 s on two cores. ``FASTGO_HYPOTHESIS_PROFILE=long`` runs ten times as
many examples (and longer 19x19 games): about 15 minutes. ``FASTGO_HYPOTHESIS_PROFILE=quick``
runs a quarter of them (at least one each) and shorter 19x19 games: the same tests on a smaller
budget, which the wheels' tests use (``test-environment`` in pyproject's cibuildwheel section).

The reference-only tests at the top (``test_ref_*``) run without the compiled package.
"""

import copy as copy_module
import itertools
import os
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, event, given, note, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import reference as R
from reference import BLACK, EMPTY, WHITE, RefGame

try:
    import fastgo
    _IMPORT_ERROR = None
except ImportError as exc:          # the compiled core is not built yet
    fastgo = None
    _IMPORT_ERROR = exc

needs_fastgo = pytest.mark.skipif(fastgo is None, reason=f"fastgo not importable: {_IMPORT_ERROR}")

PROFILES = ("default", "quick", "long")
PROFILE = os.environ.get("FASTGO_HYPOTHESIS_PROFILE", "").strip().lower() or "default"
if PROFILE not in PROFILES:         # a misspelt name would silently run the default budget
    raise ValueError(f"FASTGO_HYPOTHESIS_PROFILE={PROFILE!r}: one of {', '.join(PROFILES)}")


def examples(n):
    """max_examples for the default profile, ten times that for the long one, a quarter (at
    least one) for the quick one."""
    return {"long": n * 10, "quick": max(1, n // 4)}.get(PROFILE, n)


SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# Examples on big boards are slow to replay, so shrinking them could take many minutes: report
# them as found (the notes hold the whole game: constructor call and every move).
NO_SHRINK = dict(SETTINGS, phases=[Phase.explicit, Phase.reuse, Phase.generate])

KO_RULES = ("positional", "situational", "simple")
SUICIDE = (True, False)
RULE_COMBOS = list(itertools.product(KO_RULES, SUICIDE))
SMALL_SIZES = [(1, 1), (1, 2), (2, 1), (2, 2), (3, 3), (3, 5), (5, 3), (4, 4)]
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
KOMIS = (7.5, 0.0, 6.5, -2.5, 0.5)
# The games are driven by a seeded random.Random (Hypothesis's own randoms lean hard towards
# small values, which here means passing at once); Hypothesis picks the seed, the size, the rules
# and how many turns to play, and shrinks those.
SEEDS = st.integers(0, 2 ** 64 - 1)


def seeded(seed):
    note(f"rnd = random.Random({seed})")
    return random.Random(seed)


# ---------------------------------------------------------------------------------------------
# Helpers shared by the differential tests.

def vertex(point, width, height):
    if point == width * height:
        return "pass"
    row, col = divmod(point, width)
    return f"{COLUMNS[col]}{row + 1}"


def represent(move, width, height, rnd):
    """The same move in one of the accepted spellings: int, (row, col), GTP vertex, numpy int."""
    n = width * height
    k = rnd.randrange(6)
    if move == n:
        return [n, "pass", "PASS", "Pass", np.int64(n), n][k]
    row, col = divmod(move, width)
    if k == 1:
        return (row, col)
    if k == 2:
        return vertex(move, width, height)
    if k == 3:
        return vertex(move, width, height).lower()
    if k == 4:
        return np.int32(move)
    return move


def random_setup(rnd, width, height):
    """A random legal colouring (flat list), from a random grid with the airless stones removed."""
    density = rnd.choice((0.15, 0.35, 0.6, 0.85))
    grid = [EMPTY if rnd.random() > density else rnd.choice((BLACK, WHITE))
            for _ in range(width * height)]
    return R.make_legal(grid, width, height)


def diagram(grid, width, height, rnd):
    """A from_diagram text for a flat grid, in one of a few accepted styles."""
    style = rnd.randrange(3)
    lines = []
    for r in range(height - 1, -1, -1):
        cells = []
        for c in range(width):
            v = grid[r * width + c]
            if v == EMPTY:
                cells.append(rnd.choice(".+") if style == 1 else ".")
            elif v == BLACK:
                cells.append(rnd.choice("Xx") if style == 1 else "X")
            else:
                cells.append(rnd.choice("Oo") if style == 1 else "O")
        if style == 2:
            lines.append(f"{r + 1:2d} " + " ".join(cells) + f" {r + 1}")
        else:
            lines.append("".join(cells))
    if style == 2:
        letters = "   " + " ".join(COLUMNS[:width])
        lines = [letters] + lines + [letters]
    return "\n".join(lines) + "\n"


def make_pair(width, height, ko, suicide, scoring, komi, setup=None, to_move=BLACK,
              how="array", rnd=None):
    """A fastgo board and a reference game with the same rules and set-up."""
    ref = RefGame(width, height, ko=ko, suicide=suicide, komi=komi, setup=setup, to_move=to_move)
    opts = dict(ko=ko, suicide=suicide, scoring=scoring, komi=komi)
    if setup is None and to_move == BLACK:
        note(f"board = fastgo.Board({width}, {height}, **{opts!r})")
        board = fastgo.Board(width, height, **opts)
    elif how == "diagram":
        text = diagram(setup or [EMPTY] * (width * height), width, height, rnd)
        note(f"board = fastgo.Board.from_diagram({text!r}, to_move={to_move}, **{opts!r})")
        board = fastgo.Board.from_diagram(text, to_move=to_move, **opts)
    else:
        dtype = rnd.choice((np.int8, np.int32, np.int64)) if rnd else np.int64
        arr = np.array(setup or [EMPTY] * (width * height), dtype=dtype).reshape(height, width)
        note(f"board = fastgo.Board.from_array(np.array({arr.tolist()!r}), to_move={to_move}, "
             f"**{opts!r})")
        board = fastgo.Board.from_array(arr, to_move=to_move, **opts)
    return board, ref


def snapshot(board):
    """Everything observable that a refused move, or moves on a copy, must leave unchanged."""
    return (board.stones().tobytes(), board.hash, tuple(board.history), tuple(board.captures),
            board.to_move, board.is_over, board.legal_mask().tobytes())


def check_score(board, ref, dead=()):
    komi = ref.komi
    if board.rules.scoring == "area":
        black, white, own = ref.area_score(dead)
    else:
        black, white, own = ref.territory_score(dead)
    white += komi
    s = board.score(dead=dead) if dead else board.score()
    assert (s.black, s.white) == (black, white), (board.rules.scoring, dead)
    assert s.margin == black - white
    assert s.winner == (BLACK if black > white else WHITE if white > black else EMPTY)
    assert isinstance(s.ownership, np.ndarray) and s.ownership.dtype == np.int8
    assert s.ownership.shape == (ref.height, ref.width)
    assert s.ownership.ravel().tolist() == own, (board.rules.scoring, dead)


def check_agree(board, ref, points=None, rnd=None):
    """Compare board and reference; `points` None means every point and the pass. Returns the
    set of reasons for which some compared move was illegal."""
    w, h, n = ref.width, ref.height, ref.num_points
    assert (board.width, board.height, board.num_points, board.pass_move) == (w, h, n, n)
    stones = board.stones()
    assert isinstance(stones, np.ndarray) and stones.dtype == np.int8 and stones.shape == (h, w)
    grid = ref.grid
    assert stones.ravel().tolist() == grid
    assert board.to_move == ref.to_move
    assert list(board.history) == ref.history
    assert tuple(board.captures) == ref.captures
    assert board.hash == ref.hash()
    assert board.is_over == ref.is_over
    board.check_consistency()

    full = points is None
    moves = range(n + 1) if full else sorted(set(points))
    reasons = set()
    for m in moves:
        expected = ref.why_illegal(m)
        reasons.add(expected)
        got = board.why_illegal(m)
        assert got == expected, f"why_illegal({m} = {vertex(m, w, h)}): fastgo {got!r}, reference {expected!r}"
        assert board.is_legal(m) == (expected is None)
        if m < n:
            assert board.color_at(m) == grid[m]
            if grid[m] != EMPTY:
                colour, chain_stones, libs = ref.chain(m)
                ch = board.chain(m)
                assert (ch.color, tuple(ch.stones), tuple(ch.liberties)) == (colour, chain_stones, libs)
                assert board.liberties(m) == len(libs)
            else:
                with pytest.raises(ValueError):
                    board.chain(m)
    if full:
        mask = board.legal_mask()
        assert isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (n + 1,)
        assert mask.tolist() == ref.legal_mask()
        legal = board.legal_moves()
        assert all(type(m) is int for m in legal)
        assert len(set(legal)) == len(legal) and sorted(legal) == ref.legal_moves()
        check_score(board, ref)
        if rnd is not None and rnd.random() < 0.2:
            # str() prints a diagram that from_diagram reads back (same colouring and hash)
            again = fastgo.Board.from_diagram(str(board))
            assert again.stones().ravel().tolist() == grid and again.hash == board.hash
        if rnd is not None:
            occupied = [p for p in range(n) if grid[p] != EMPTY]
            if occupied and rnd.random() < 0.5:
                dead = rnd.sample(occupied, min(len(occupied), rnd.randint(1, 3)))
                check_score(board, ref, dead)
    return reasons


def refuse(board, ref, move, rep):
    """An illegal move raises IllegalMoveError with the reference's reason; nothing changes."""
    reason = ref.why_illegal(move)
    assert reason is not None
    before = snapshot(board)
    with pytest.raises(fastgo.IllegalMoveError) as info:
        if isinstance(rep, str) and rep == "Pass":
            board.pass_()
        else:
            board.play(rep)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.reason == reason, f"play({move}): fastgo reason {err.reason!r}, reference {reason!r}"
    assert err.move == move
    assert snapshot(board) == before


def step(board, ref, move, rnd):
    """Play `move` (legal or not) on both, in a random spelling."""
    rep = represent(move, ref.width, ref.height, rnd)
    note(f"board.play({rep!r})  # {move} = {vertex(move, ref.width, ref.height)}, "
         f"reference says {ref.why_illegal(move)!r}")
    if ref.is_legal(move):
        if move == ref.pass_move and rnd.random() < 0.3:
            board.pass_()
        else:
            board.play(rep)
        ref.play(move)
    else:
        event(f"refused: {ref.why_illegal(move)}")
        refuse(board, ref, move, rep)


def pick_move(ref, rnd, p_pass=None, p_any=0.14):
    """Mostly a legal play; sometimes any point (maybe illegal); sometimes a pass (less often on
    big boards, so that their games last)."""
    n = ref.num_points
    if p_pass is None:
        p_pass = 0.06 if n <= 25 else 0.02 if n <= 81 else 0.004
    r = rnd.random()
    if r < p_pass:
        return n
    if r < p_pass + p_any:
        return rnd.randrange(n + 1)
    # a uniformly random legal play: try the points in random order (cheap on big boards)
    order = list(range(n))
    rnd.shuffle(order)
    for p in order:
        if ref.is_legal(p):
            return p
    return n


def play_game(board, ref, rnd, nsteps, full_every=1, sample=12):
    n = ref.num_points
    reasons = check_agree(board, ref, rnd=rnd)
    for i in range(nsteps):
        if ref.is_over:
            # nothing but refusals now; then take back a turn or two and go on, or stop
            step(board, ref, rnd.randrange(n + 1), rnd)
            if rnd.random() < 0.25:
                break
            k = rnd.choice((1, 2))
            note(f"board.undo({k})")
            board.undo(k)
            ref.undo(k)
        else:
            move = pick_move(ref, rnd)
            step(board, ref, move, rnd)
        if full_every == 1 or i % full_every == 0 or i == nsteps - 1:
            reasons |= check_agree(board, ref, rnd=rnd)
        else:
            last = ref.history[-1] if ref.history else n
            pts = [last, n] + [rnd.randrange(n) for _ in range(sample)]
            if last < n:
                pts += R.neighbours(last, ref.width, ref.height)
            check_agree(board, ref, points=pts)
    event(f"turns played: {len(ref.history) // 10 * 10}+; captures {'yes' if any(ref.captures) else 'no'}")
    for reason in ("suicide", "ko", "superko"):
        if reason in reasons:
            event(f"some point was judged illegal for {reason}")


# ---------------------------------------------------------------------------------------------
# Reference-only sanity checks (these run without the compiled package).

def test_ref_legal_position_counts():
    assert R.count_legal_positions(1, 1) == 1
    assert R.count_legal_positions(1, 2) == 5
    assert R.count_legal_positions(1, 3) == 15
    assert R.count_legal_positions(2, 2) == 57
    assert R.count_legal_positions(3, 3) == 12675


def test_ref_capture_and_captures_tuple():
    # 3x3 (points 6 7 8 / 3 4 5 / 0 1 2): B A2, W A1, B B2, W B1, B C1 captures W A1+B1
    g = RefGame(3, 3)
    for m in (3, 0, 4, 1):
        g.play(m)
    assert g.grid == [WHITE, WHITE, EMPTY, BLACK, BLACK, EMPTY, EMPTY, EMPTY, EMPTY]
    assert g.chain(0) == (WHITE, (0, 1), (2,))
    g.play(2)
    assert g.grid == [EMPTY, EMPTY, BLACK, BLACK, BLACK, EMPTY, EMPTY, EMPTY, EMPTY]
    assert g.captures == (2, 0)
    assert g.to_move == WHITE
    assert g.history == [3, 0, 4, 1, 2]


def test_ref_suicide_rules():
    # 2x1 board: after B at 0, a white play at 1 has no empty neighbour and captures B (which has
    # no liberty once W is placed): a capture, never suicide
    g = RefGame(2, 1)
    g.play(0)
    assert g.why_illegal(1) is None
    g.play(1)
    assert g.grid == [EMPTY, WHITE] and g.captures == (0, 1)
    # 3x1: B at 1; W at 0 is single-stone suicide: positional superko when suicide is allowed,
    # "suicide" when it is not (suicide is judged before ko)
    for ko in ("positional", "situational", "simple"):
        g = RefGame(3, 1, ko=ko, suicide=True)
        g.play(1)
        expected = "superko" if ko == "positional" else None
        assert g.why_illegal(0) == expected
        g = RefGame(3, 1, ko=ko, suicide=False)
        g.play(1)
        assert g.why_illegal(0) == "suicide"
    # multi-stone suicide, from the 4x1 set-up "X . O ." with Black to move: B at 1 joins the
    # stone at 0 and touches W at 2; the chain 0-1 reaches no empty point while W still reaches 3,
    # so Black's two stones are cleared and count as captured by White
    g = RefGame(4, 1, setup=[BLACK, EMPTY, WHITE, EMPTY])
    assert g.why_illegal(1) is None
    g.play(1)
    assert g.grid == [EMPTY, EMPTY, WHITE, EMPTY] and g.captures == (0, 2)
    g = RefGame(4, 1, suicide=False, setup=[BLACK, EMPTY, WHITE, EMPTY])
    assert g.why_illegal(1) == "suicide"


def test_ref_situational_single_stone_suicide():
    # 1x1: Black's play is a single-stone suicide; the colouring stays empty, White to move next:
    # a new situation, so legal under situational superko; White's then repeats (empty, Black)
    g = RefGame(1, 1, ko="situational")
    assert g.why_illegal(0) is None
    g.play(0)
    assert g.grid == [EMPTY] and g.captures == (0, 1)
    assert g.why_illegal(0) == "superko"
    # 3x1 ". X .": White's play at A1 is a single-stone suicide (X keeps C1)
    setup = [EMPTY, BLACK, EMPTY]
    g = RefGame(3, 1, ko="situational", setup=setup, to_move=WHITE)
    assert g.why_illegal(0) is None           # (setup, Black to move) is new
    g = RefGame(3, 1, ko="situational", setup=setup, to_move=BLACK)
    g.play(g.pass_move)                       # Black passes: (setup, White to move)
    assert g.why_illegal(0) == "superko"      # right after the opponent passed
    g = RefGame(3, 1, ko="situational", setup=setup, to_move=BLACK, suicide=False)
    g.play(g.pass_move)
    assert g.why_illegal(0) == "suicide"      # suicide is judged before superko
    g.play(g.pass_move)
    assert g.is_over and g.why_illegal(0) == "game over" and g.why_illegal(1) == "game over"


def test_ref_scores_and_game_over():
    g = RefGame(5, 5, komi=7.5)
    assert g.area_score() == (0, 0, [EMPTY] * 25)
    assert g.territory_score() == (0, 0, [EMPTY] * 25)
    assert g.hash() == 0
    g.play(12)
    assert g.area_score() == (25, 0, [BLACK] * 25)
    assert g.territory_score()[:2] == (24, 0)
    assert g.hash() == R.zobrist_key(BLACK, 12, 5)
    g.play(g.pass_move)
    assert not g.is_over and g.why_illegal(g.pass_move) is None
    g.play(g.pass_move)
    assert g.is_over
    assert g.legal_moves() == []
    assert g.why_illegal(0) == "game over" and g.why_illegal(12) == "game over"
    g.undo(1)
    assert not g.is_over and g.to_move == BLACK and g.history == [12, g.pass_move]


KO_SETUP = (". X O .\n"
            "X O . O\n"
            ". X O .\n")        # 4 wide, 3 high; Black to move can take the white stone at B2


def parse_ko_setup():
    rows = [line.split() for line in KO_SETUP.strip().splitlines()][::-1]
    return [{".": EMPTY, "X": BLACK, "O": WHITE}[c] for row in rows for c in row]


def test_ref_setup_is_history_entry_0():
    setup = parse_ko_setup()
    take, retake = 1 * 4 + 2, 1 * 4 + 1      # C2, B2
    for ko, expected in (("positional", "superko"), ("situational", "superko"), ("simple", "ko")):
        g = RefGame(4, 3, ko=ko, setup=setup)
        g.play(take)
        assert g.captures == (1, 0)
        assert g.why_illegal(retake) == expected, ko
    # simple ko once both have had a turn: B, W elsewhere, B takes, W may not retake at once
    g = RefGame(4, 3, ko="simple", setup=setup)
    g.play(0)
    g.play(3)
    g.play(take)
    assert g.why_illegal(retake) == "ko"


# ---------------------------------------------------------------------------------------------
# Differential tests: random games.

@needs_fastgo
@pytest.mark.parametrize("ko,suicide", RULE_COMBOS)
@settings(max_examples=examples(60), **SETTINGS)
@given(size=st.sampled_from(SMALL_SIZES), scoring=st.sampled_from(("area", "territory")),
       komi=st.sampled_from(KOMIS), seed=SEEDS,
       with_setup=st.integers(0, 9), nsteps=st.integers(8, 100))
def test_random_games_small(ko, suicide, size, scoring, komi, seed, with_setup, nsteps):
    w, h = size
    rnd = seeded(seed)
    setup, to_move, how = None, BLACK, "array"
    if with_setup >= 7:
        setup = random_setup(rnd, w, h)
        to_move = rnd.choice((BLACK, WHITE))
        how = rnd.choice(("array", "diagram"))
    board, ref = make_pair(w, h, ko, suicide, scoring, komi, setup, to_move, how, rnd)
    play_game(board, ref, rnd, nsteps=nsteps)


@needs_fastgo
@pytest.mark.parametrize("ko,suicide", RULE_COMBOS)
@settings(max_examples=examples(4), **NO_SHRINK)
@given(scoring=st.sampled_from(("area", "territory")), komi=st.sampled_from(KOMIS),
       seed=SEEDS, with_setup=st.booleans())
def test_random_games_9x9(ko, suicide, scoring, komi, seed, with_setup):
    rnd = seeded(seed)
    setup, to_move = None, BLACK
    if with_setup:
        setup = random_setup(rnd, 9, 9)
        to_move = rnd.choice((BLACK, WHITE))
    board, ref = make_pair(9, 9, ko, suicide, scoring, komi, setup, to_move,
                           rnd.choice(("array", "diagram")), rnd)
    play_game(board, ref, rnd, nsteps=70, full_every=1)


@needs_fastgo
@settings(max_examples={"long": 12, "quick": 1}.get(PROFILE, 3), **NO_SHRINK)
@given(ko=st.sampled_from(KO_RULES), suicide=st.booleans(),
       scoring=st.sampled_from(("area", "territory")), seed=SEEDS)
def test_random_games_19x19(ko, suicide, scoring, seed):
    rnd = seeded(seed)
    board, ref = make_pair(19, 19, ko, suicide, scoring, 7.5)
    nsteps = {"long": 450, "quick": 150}.get(PROFILE, 250)
    play_game(board, ref, rnd, nsteps=nsteps, full_every=50, sample=6)


# ---------------------------------------------------------------------------------------------
# Differential tests: a state machine with undo and copies.

STATEFUL_SIZES = SMALL_SIZES + [(5, 5), (9, 9)]


class BoardMachine(RuleBasedStateMachine):
    """Play, pass, undo(k), copy and switch between copies; compare after every step. Every board
    put aside must keep exactly the state it had when it was put aside."""

    def __init__(self):
        super().__init__()
        self.board = None

    @initialize(size=st.sampled_from(STATEFUL_SIZES), ko=st.sampled_from(KO_RULES),
                suicide=st.booleans(), scoring=st.sampled_from(("area", "territory")),
                komi=st.sampled_from(KOMIS), seed=SEEDS,
                with_setup=st.integers(0, 3))
    def start(self, size, ko, suicide, scoring, komi, seed, with_setup):
        w, h = size
        self.rnd = rnd = seeded(seed)
        setup, to_move = None, BLACK
        if with_setup == 0:
            setup = random_setup(rnd, w, h)
            to_move = rnd.choice((BLACK, WHITE))
        self.board, self.ref = make_pair(w, h, ko, suicide, scoring, komi, setup, to_move,
                                         rnd.choice(("array", "diagram")), rnd)
        self.floor = 0              # turns that cannot be undone (after copy(undo=False))
        self.aside = []             # (board, reference, floor, snapshot) of boards put aside

    @rule(kind=st.sampled_from(("legal", "legal", "legal", "any", "pass")))
    def play(self, kind):
        """A legal play, any point or the pass (maybe illegal)."""
        ref = self.ref
        if kind == "any":
            move = self.rnd.randrange(ref.num_points + 1)
        elif kind == "pass":
            move = ref.pass_move
        else:
            move = pick_move(ref, self.rnd, p_pass=0.0, p_any=0.0)
        step(self.board, ref, move, self.rnd)

    @rule(k=st.integers(-1, 6))
    def undo(self, k):
        note(f"board.undo({k})")
        if 0 <= k <= len(self.ref.history) - self.floor:
            self.board.undo(k)
            self.ref.undo(k)
        else:
            before = snapshot(self.board)
            with pytest.raises(ValueError):
                self.board.undo(k)
            assert snapshot(self.board) == before

    @rule(how=st.sampled_from(("copy", "copy", "copy(undo=True)", "copy.copy", "copy.deepcopy")))
    def copy(self, how):
        """Go on with a copy; the original is put aside and must not change."""
        note(f"original = board; board = {how}")
        original = self.board
        if how == "copy":
            # the default copy leaves the undo journal behind: it cannot take back the turns
            # played before it was made but otherwise plays and judges the same
            clone = original.copy()
        elif how == "copy(undo=True)":
            clone = original.copy(undo=True)
        elif how == "copy.copy":
            clone = copy_module.copy(original)
        else:
            clone = copy_module.deepcopy(original)
        self.aside.append((original, self.ref.copy(), self.floor, snapshot(original)))
        if how == "copy":
            self.floor = len(self.ref.history)
        self.board = clone

    @rule(i=st.integers(0, 50))
    def switch(self, i):
        """Go on with a board put aside earlier; put the current one aside."""
        if not self.aside:
            return
        i %= len(self.aside)
        note(f"switch to board put aside #{i}")
        board, ref, floor, _ = self.aside.pop(i)
        self.aside.append((self.board, self.ref, self.floor, snapshot(self.board)))
        self.board, self.ref, self.floor = board, ref, floor

    @invariant()
    def agree(self):
        if self.board is None:
            return
        check_agree(self.board, self.ref, rnd=self.rnd)
        for board, _, _, snap in self.aside:
            assert snapshot(board) == snap, "a board put aside changed"


BoardMachine.TestCase.settings = settings(max_examples=examples(70), stateful_step_count=40,
                                          **SETTINGS)
TestBoardMachine = needs_fastgo(BoardMachine.TestCase)


# ---------------------------------------------------------------------------------------------
# Hashes and set-ups.

@needs_fastgo
def test_zobrist_key_formula():
    for width in (1, 2, 3, 5, 9, 13, 19, 25):
        for point in range(0, width * 25, max(1, width * 25 // 37)):
            for colour in (BLACK, WHITE):
                assert fastgo.zobrist_key(colour, point, width) == R.zobrist_key(colour, point, width)
    assert fastgo.Board(9).hash == 0
    assert fastgo.Board(19).hash == 0


@needs_fastgo
@settings(max_examples=examples(40), **SETTINGS)
@given(size=st.sampled_from([(3, 3), (4, 4), (5, 3), (9, 9), (19, 19)]),
       seed=SEEDS)
def test_hash_independent_of_move_order(size, seed):
    """The same colouring reached by different move orders (and by a set-up) has the same hash."""
    rnd = seeded(seed)
    w, h = size
    n = w * h
    k = rnd.randint(1, max(1, n // 2))
    pts = rnd.sample(range(n), k)
    black, white = pts[::2], pts[1::2]
    results = []
    for _ in range(3):
        b_order, w_order = black[:], white[:]
        rnd.shuffle(b_order)
        rnd.shuffle(w_order)
        board = fastgo.Board(w, h, ko="simple")
        ref = RefGame(w, h, ko="simple")
        ok = True
        for i in range(len(pts)):
            m = b_order[i // 2] if i % 2 == 0 else w_order[i // 2]
            if not ref.is_legal(m):
                ok = False
                break
            board.play(m)
            ref.play(m)
        if ok:
            assert board.hash == ref.hash()
            results.append((board.stones().tobytes(), board.hash))
    for a, b in itertools.combinations(results, 2):
        if a[0] == b[0]:
            assert a[1] == b[1]
    for stones, hsh in results:
        arr = np.frombuffer(stones, dtype=np.int8).reshape(h, w)
        for to_move in (BLACK, WHITE):
            assert fastgo.Board.from_array(arr, to_move=to_move).hash == hsh
        expected = 0
        for p, c in enumerate(arr.ravel().tolist()):
            if c:
                expected ^= fastgo.zobrist_key(c, p, w)
        assert hsh == expected


@needs_fastgo
def test_hash_transposition_with_capture():
    """Two move orders reaching one colouring, one through a capture, on 3x3."""
    a = fastgo.Board(3, ko="situational")
    for m in ("B1", "A1", "A2"):      # W A1 is captured by B A2
        a.play(m)
    assert a.stones().ravel().tolist() == [0, 1, 0, 1, 0, 0, 0, 0, 0]
    b = fastgo.Board(3, ko="situational")
    for m in ("A2", "pass", "B1"):
        b.play(m)
    assert b.stones().ravel().tolist() == a.stones().ravel().tolist()
    assert a.hash == b.hash == R.grid_hash(a.stones().ravel().tolist(), 3)
    assert a.captures == (1, 0) and b.captures == (0, 0)


@needs_fastgo
@pytest.mark.parametrize("how", ["array", "diagram", "diagram-str"])
@pytest.mark.parametrize("ko,expected", [("positional", "superko"), ("situational", "superko"),
                                         ("simple", "ko")])
def test_setup_is_history_entry_0(how, ko, expected):
    setup = parse_ko_setup()
    opts = dict(ko=ko, suicide=False)
    if how == "array":
        board = fastgo.Board.from_array(np.array(setup).reshape(3, 4), **opts)
    elif how == "diagram":
        board = fastgo.Board.from_diagram(KO_SETUP, **opts)
    else:
        board = fastgo.Board.from_diagram(str(fastgo.Board.from_diagram(KO_SETUP)), **opts)
    assert board.stones().ravel().tolist() == setup
    assert board.history == [] and board.to_move == BLACK
    ref = RefGame(4, 3, ko=ko, suicide=False, setup=setup)
    board.play("C2")
    ref.play(6)
    assert board.captures == (1, 0)
    assert board.why_illegal("B2") == ref.why_illegal(5) == expected
    if expected is None:
        board.play("B2")
        assert board.stones().ravel().tolist() == setup
    else:
        with pytest.raises(fastgo.IllegalMoveError) as info:
            board.play("B2")
        assert info.value.reason == expected and info.value.move == 5
    # simple ko proper, once both sides have had a turn since the set-up
    board = fastgo.Board.from_array(np.array(setup).reshape(3, 4), ko="simple")
    for m in ("A1", "D1", "C2"):
        board.play(m)
    assert board.why_illegal("B2") == "ko"
    # undoing back to the set-up keeps the set-up as entry 0
    board = fastgo.Board.from_array(np.array(setup).reshape(3, 4), ko="positional")
    board.play("C2")
    board.undo(1)
    board.play("C2")
    assert board.why_illegal("B2") == "superko"
    with pytest.raises(ValueError):
        board.undo(2)


@needs_fastgo
def test_single_stone_suicide_and_the_setup():
    """On 1x1 the set-up (empty) is entry 0: Black's single-stone suicide would recreate it."""
    board = fastgo.Board.from_array(np.zeros((1, 1), dtype=np.int8), ko="positional")
    assert board.why_illegal(0) == "superko"
    board = fastgo.Board.from_array(np.zeros((1, 1), dtype=np.int8), ko="situational")
    assert board.why_illegal(0) is None
    board.play(0)
    assert board.captures == (0, 1) and board.why_illegal(0) == "superko"
    board = fastgo.Board.from_array(np.zeros((1, 1), dtype=np.int8), ko="situational",
                                    suicide=False)
    assert board.why_illegal(0) == "suicide"


@needs_fastgo
@pytest.mark.parametrize("ko", ["simple", "positional", "situational"])
def test_lone_stone_suicide_after_a_pass(ko):
    """A lone stone's suicide (suicide allowed) leaves the colouring as it is. Right after the
    opponent passed, or made such a suicide itself, that is the colouring before the opponent's
    turn: a simple-ko retake; a situational repeat when the situation recurs; after a stone or at
    the start it is legal (positional: always a repeat). The reference's whole legal mask, against
    a Board's (and its why_illegal) and a BoardBatch's kept mask, on a 6x1 row ". X . . O ."
    where White's play at A1 and Black's at F1 are lone stones' suicides (C1: a quiet stone)."""
    setup = [EMPTY, BLACK, EMPTY, EMPTY, WHITE, EMPTY]
    verdicts = {}
    for before in ("start", "pass", "stone", "suicide"):
        if before == "suicide" and ko == "positional":
            continue                                # Black's E1 is itself a repeat there
        first = WHITE if before == "start" else BLACK
        g = RefGame(6, 1, ko=ko, setup=setup, to_move=first)
        b = fastgo.Board.from_array(np.array([setup]), ko=ko, to_move=first)
        batch = fastgo.BoardBatch(1, 6, 1, ko=ko)
        batch.set(0, b)
        if before != "start":
            move = {"pass": g.pass_move, "stone": 2, "suicide": 5}[before]
            g.play(move)
            b.play(move)
            batch.step(np.array([move]))
        assert g.to_move == WHITE
        expected = verdicts[before] = g.why_illegal(0)
        assert b.why_illegal(0) == expected, before
        assert b.legal_mask().tolist() == list(g.legal_mask()), before
        assert batch.legal_mask()[0].tolist() == list(g.legal_mask()), before
    assert verdicts == {
        "simple": {"start": None, "pass": "ko", "stone": None, "suicide": "ko"},
        "positional": {"start": "superko", "pass": "superko", "stone": "superko"},
        "situational": {"start": None, "pass": "superko", "stone": None, "suicide": "superko"},
    }[ko]


@needs_fastgo
@pytest.mark.parametrize("ko,suicide", RULE_COMBOS)
def test_kept_mask_follows_plays_undos_and_copies(ko, suicide):
    """A Board keeps its legal mask between turns (each play settles the points it changed;
    undo, copies and set-ups judge it afresh), and a mask judged this turn answers is_legal and
    play. In random games with undos (out of game over too) and copies, the mask asked for
    every 1 to 10 turns: legal_moves() equals the moves why_illegal (one judgement a point, the
    rules' judge_move) has no reason against; is_legal agrees at every point; between queries,
    plays of random points are refused with why_illegal's reason, changing nothing, or played.
    Boards from 1x3 to 13x13, dense set-ups included (captures of many stones)."""
    rnd = random.Random(f"kept-{ko}-{suicide}")
    for w, h in [(9, 9), (5, 5), (3, 3), (1, 3), (7, 4), (2, 6), (13, 13)]:
        n = w * h
        setup = random_setup(rnd, w, h) if rnd.random() < 0.5 else None
        board = (fastgo.Board.from_array(np.array(setup, dtype=np.int8).reshape(h, w), ko=ko,
                                         suicide=suicide)
                 if setup is not None else fastgo.Board(w, h, ko=ko, suicide=suicide))
        every = rnd.randint(1, 10)
        for turn in range(150 if n < 100 else 80):
            if turn % every == 0:
                legal = board.legal_moves()
                judged = [p for p in range(n + 1) if board.why_illegal(p) is None]
                assert legal == judged, (w, h, board.history)
                assert [p for p in range(n + 1) if board.is_legal(p)] == judged
            r = rnd.random()
            if board.is_over or (r < 0.1 and len(board.history) >= 2):
                board.undo(2)
            elif r < 0.15:
                board = board.copy(undo=True)
            elif r < 0.5:
                move = rnd.randrange(n + 1)          # any point: legal or not
                reason = board.why_illegal(move)
                if reason is None:
                    board.play(move)
                else:
                    history = board.history
                    with pytest.raises(fastgo.IllegalMoveError) as info:
                        board.play(move)
                    assert info.value.reason == reason and board.history == history
            else:                                   # a legal point, found without the mask
                move = next((p for p in (rnd.randrange(n) for _ in range(20))
                             if board.why_illegal(p) is None), n)
                board.play(move)


@needs_fastgo
def test_from_array_rejects_airless_chains():
    with pytest.raises(ValueError):
        fastgo.Board.from_array(np.array([[1, 2]]))
    with pytest.raises(ValueError):
        fastgo.Board.from_diagram("XO\nOO\n")
    with pytest.raises(ValueError):
        RefGame(2, 1, setup=[BLACK, WHITE])


@needs_fastgo
def test_is_legal_position_exhaustive_small():
    for w, h in ((1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (2, 3)):
        count = 0
        for grid in itertools.product((EMPTY, BLACK, WHITE), repeat=w * h):
            expected = R.is_legal_position(grid, w, h)
            got = fastgo.is_legal_position(np.array(grid, dtype=np.int8).reshape(h, w))
            assert bool(got) == expected, (w, h, grid)
            count += expected
        assert count == R.count_legal_positions(w, h)
    assert sum(bool(fastgo.is_legal_position(np.array(g).reshape(2, 2)))
               for g in itertools.product((0, 1, 2), repeat=4)) == 57


@needs_fastgo
@settings(max_examples=examples(6), **NO_SHRINK)
@given(size=st.sampled_from((9, 13, 19)), stones=st.integers(2, 9), ko=st.sampled_from(KO_RULES),
       suicide=st.booleans(), seed=SEEDS)
def test_handicap_games(size, stones, ko, suicide, seed):
    """Fixed handicap: black stones on the star points, White to move, the placement is the
    set-up; then a short random game against the reference."""
    rnd = seeded(seed)
    lo = 2 if size == 9 else 3
    hi, mid = size - 1 - lo, size // 2
    corners = [(lo, lo), (hi, hi), (hi, lo), (lo, hi)]   # GTP: LL, UR, UL, LR ((row, col))
    expected = {2: corners[:2], 3: corners[:3], 4: corners, 5: corners + [(mid, mid)],
                6: corners + [(mid, lo), (mid, hi)], 7: corners + [(mid, lo), (mid, hi), (mid, mid)],
                8: corners + [(mid, lo), (mid, hi), (lo, mid), (hi, mid)],
                9: corners + [(mid, lo), (mid, hi), (lo, mid), (hi, mid), (mid, mid)]}[stones]
    board = fastgo.Board(size, ko=ko, suicide=suicide, handicap=stones)
    setup = [EMPTY] * (size * size)
    for r, c in expected:
        setup[r * size + c] = BLACK
    assert board.stones().ravel().tolist() == setup
    assert board.to_move == WHITE and board.history == []
    ref = RefGame(size, size, ko=ko, suicide=suicide, komi=board.rules.komi, setup=setup,
                  to_move=WHITE)
    play_game(board, ref, rnd, nsteps=30, full_every=15, sample=6)


@needs_fastgo
def test_malformed_moves_leave_the_board_unchanged():
    board = fastgo.Board(3, 2)
    for m in ("B1", "A2", "C1"):
        board.play(m)
    before = snapshot(board)
    for bad, exc in ((-1, ValueError), (7, ValueError), ((2, 0), ValueError), ((0, 3), ValueError),
                     ((-1, 0), ValueError), ("D1", ValueError), ("A3", ValueError), ("I1", ValueError),
                     ("", ValueError), ("A0", ValueError), (1.0, TypeError), (None, TypeError),
                     (True, TypeError)):
        with pytest.raises(exc):
            board.play(bad)
        assert snapshot(board) == before, bad


def test_every_play_of_dense_positions_joins_and_clears_as_rule_7():
    """board_play's cases one by one: in dense random positions (7x6 and 6x7), every empty point
    played by each colour on a fresh board (simple ko, suicide allowed, no history: every empty
    point is legal). The colouring after the play is the reference's rule 7, the captures add
    up, and check_consistency recounts rings, heads, sizes, pseudo-liberties, neighbour masks,
    the empty list and the hash. The positions must include plays that join two, three and four
    own chains, capture two chains, and clear the mover's own chain of several stones."""
    rnd = random.Random(11)
    seen = {"joins": set(), "captured chains": set(), "own cleared": set()}
    for width, height in ((7, 6), (6, 7)) * 20:
        grid = [EMPTY if rnd.random() > 0.6 else rnd.choice((BLACK, WHITE))
                for _ in range(width * height)]
        # a point ringed by one colour's stones, often of four chains (random grids seldom are)
        r, c = rnd.randrange(1, height - 1), rnd.randrange(1, width - 1)
        grid[r * width + c] = EMPTY
        for q in R.neighbours(r * width + c, width, height):
            grid[q] = rnd.choice((BLACK, WHITE)) if rnd.random() < 0.2 else BLACK
        grid = R.make_legal(grid, width, height)
        arr = np.array(grid).reshape(height, width)
        for p in (q for q in range(width * height) if grid[q] == EMPTY):
            nbrs = R.neighbours(p, width, height)
            for colour in (BLACK, WHITE):
                want, captured, own = R.apply_play(grid, width, height, p, colour)
                board = fastgo.Board.from_array(arr, to_move=colour, ko="simple", suicide=True)
                board.play(p)
                assert board.stones().ravel().tolist() == want, (grid, p, colour)
                caps = board.captures           # (by Black, by White); a suicide counts for the opponent
                assert (caps[colour - 1], caps[2 - colour]) == (captured, own)
                board.check_consistency()
                chains = {frozenset(R.region(grid, width, height, q)) for q in nbrs
                          if grid[q] == colour}
                seen["joins"].add(len(chains))
                taken = {frozenset(R.region(grid, width, height, q)) for q in nbrs
                         if grid[q] == 3 - colour and want[q] == EMPTY}
                seen["captured chains"].add(len(taken))
                seen["own cleared"].add(own)
    assert {2, 3, 4} <= seen["joins"]
    assert 2 in seen["captured chains"]
    assert max(seen["own cleared"]) >= 3
