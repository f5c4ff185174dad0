"""Classic Go situations, hand-checked against the Tromp-Taylor logical rules and the README.

Every position is written as a diagram (top row first, row numbers on the left, GTP columns); the
expected board after each play is another diagram, and the expected captures and refusal reasons
are worked out by hand in the comments next to them.
"""

import textwrap

import numpy as np
import pytest

import fastgo
from fastgo import BLACK, EMPTY, WHITE

from board_state import snapshot

KO_RULES = ("positional", "situational", "simple")
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # GTP: no I

# ---------------------------------------------------------------------------------------------
# Helpers written independently of fastgo, so the tests do not check fastgo against itself.


def grid(text):
    """Diagram -> int8 array [row, col] with row 0 at the bottom (row numbers / letter lines ok)."""
    rows = []
    for line in textwrap.dedent(text).strip("\n").splitlines():
        tokens = line.split()
        if not tokens:
            continue
        if tokens == list(COLUMNS[:len(tokens)]):  # a column-letter line (may contain O and X!)
            continue
        if tokens[0].isdigit():
            tokens = tokens[1:]
        rows.append([{".": EMPTY, "+": EMPTY, "X": BLACK, "O": WHITE}[t.upper()] for t in tokens])
    return np.array(rows[::-1], dtype=np.int8)


def pt(vertex, width):
    """GTP vertex -> point, by hand."""
    return (int(vertex[1:]) - 1) * width + COLUMNS.index(vertex[0].upper())


def board(text, **kw):
    return fastgo.Board.from_diagram(textwrap.dedent(text).strip("\n"), **kw)


def assert_stones(b, text):
    expected = grid(text)
    got = np.asarray(b.stones())
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected, err_msg="\n" + str(b))


def assert_refused(b, move, reason):
    """move is refused for `reason` by why_illegal, is_legal, legal_mask and play, changing nothing."""
    if isinstance(move, str):
        point = b.pass_move if move.lower() == "pass" else pt(move, b.width)
    elif isinstance(move, tuple):
        point = move[0] * b.width + move[1]
    else:
        point = int(move)
    before = snapshot(b)
    assert b.why_illegal(move) == reason
    assert b.is_legal(move) is False
    assert not b.legal_mask()[point]
    assert point not in b.legal_moves()
    with pytest.raises(fastgo.IllegalMoveError) as info:
        b.play(move)
    assert info.value.reason == reason
    assert info.value.move == point
    assert isinstance(info.value, ValueError)
    assert snapshot(b) == before
    b.check_consistency()


def play(b, *moves):
    """Play the moves, each checked legal first, and the board consistent after each."""
    for move in moves:
        assert b.why_illegal(move) is None, (move, b.why_illegal(move), str(b))
        assert b.is_legal(move)
        b.play(move)
        b.check_consistency()


# ---------------------------------------------------------------------------------------------
# Coordinates


def test_coordinates():
    assert fastgo.vertex_to_point("A1", 9, 9) == 0
    assert fastgo.vertex_to_point("B1", 9, 9) == 1
    assert fastgo.vertex_to_point("A2", 9, 9) == 9          # row 0 is the bottom
    assert fastgo.vertex_to_point("H1", 9, 9) == 7
    assert fastgo.vertex_to_point("J1", 9, 9) == 8          # I is skipped: J is column 8
    assert fastgo.vertex_to_point("j1", 9, 9) == 8          # case-insensitive
    assert fastgo.vertex_to_point("J9", 9, 9) == 80
    assert fastgo.vertex_to_point("e5", 9, 9) == 40
    for p in ("pass", "PASS", "Pass"):
        assert fastgo.vertex_to_point(p, 9, 9) == 81
    assert fastgo.point_to_vertex(0, 9, 9) == "A1"
    assert fastgo.point_to_vertex(8, 9, 9) == "J1"
    assert fastgo.point_to_vertex(80, 9, 9) == "J9"
    assert fastgo.point_to_vertex(81, 9, 9).lower() == "pass"
    assert fastgo.point_to_rowcol(0, 9) == (0, 0)
    assert fastgo.point_to_rowcol(7, 5) == (1, 2)
    assert fastgo.rowcol_to_point(1, 2, 5) == 7
    assert fastgo.rowcol_to_point(0, 0, 9) == 0
    # 19x19: T19 is the top right corner, K10 the centre
    assert fastgo.vertex_to_point("T19", 19, 19) == 360
    assert fastgo.vertex_to_point("K10", 19, 19) == 180
    assert fastgo.point_to_vertex(180, 19, 19) == "K10"


def test_coordinates_round_trip_every_size():
    for width, height in [(1, 1), (2, 7), (9, 9), (8, 19), (25, 25), (25, 3)]:
        for p in range(width * height + 1):
            v = fastgo.point_to_vertex(p, width, height)
            assert fastgo.vertex_to_point(v, width, height) == p
            assert fastgo.vertex_to_point(v.lower(), width, height) == p
            if p < width * height:
                assert v == COLUMNS[p % width] + str(p // width + 1)
                assert fastgo.point_to_rowcol(p, width, height) == divmod(p, width)
                assert fastgo.rowcol_to_point(*divmod(p, width), width, height) == p


def test_25_wide_last_column_is_z():
    assert fastgo.point_to_vertex(24, 25, 25) == "Z1"
    assert fastgo.point_to_vertex(624, 25, 25) == "Z25"
    assert fastgo.vertex_to_point("z25", 25, 25) == 624
    assert fastgo.vertex_to_point("A25", 25, 25) == 600
    b = fastgo.Board(25)
    b.play("Z25")
    assert b.color_at(624) == BLACK
    assert b.stones()[24, 24] == BLACK
    with pytest.raises(ValueError):
        fastgo.vertex_to_point("I1", 25, 25)


def test_board_accepts_every_move_form():
    for move in (7, (1, 2), "C2", "c2", np.int64(7), (np.int32(1), np.int64(2))):
        b = fastgo.Board(5)
        b.play(move)
        assert b.history == [7]
        assert b.color_at(7) == BLACK
        assert b.color_at("C2") == BLACK
        assert b.stones()[1, 2] == BLACK
        assert b.to_move == WHITE
    b = fastgo.Board(5)
    b.play("pass")
    b.play("PASS")
    assert b.history == [25, 25]


# ---------------------------------------------------------------------------------------------
# Capture before self-capture (rule 7: clear the opponent first, then yourself)

CAPTURE_FIRST = """
    4 . . . .
    3 X . . .
    2 O X . .
    1 . O X .
    """


@pytest.mark.parametrize("ko", KO_RULES)
@pytest.mark.parametrize("suicide", [True, False])
def test_capture_before_self_capture(ko, suicide):
    # White A2 and B1 each have A1 as their only liberty. Black A1 has no empty neighbour, but it
    # clears the two white stones first and then has liberties A2 and B1: legal even with
    # suicide=False.
    b = board(CAPTURE_FIRST, ko=ko, suicide=suicide)
    play(b, "A1")
    assert_stones(b, """
        4 . . . .
        3 X . . .
        2 . X . .
        1 X . X .
        """)
    assert tuple(b.captures) == (2, 0)
    assert b.chain("A1") == (BLACK, (0,), (1, 4))
    assert b.liberties("A1") == 2
    assert b.to_move == WHITE


@pytest.mark.parametrize("ko", KO_RULES)
def test_multi_stone_suicide_allowed_by_default(ko):
    # Same position, White to move: White A1 joins A2 and B1 into a chain {A1, A2, B1} whose
    # neighbours A3, B2, C1 are all black; no black chain loses its last liberty, so White's own
    # three stones are cleared (rule 7), credited to Black.
    b = board(CAPTURE_FIRST, to_move=WHITE, ko=ko)
    play(b, "A1")
    assert_stones(b, """
        4 . . . .
        3 X . . .
        2 . X . .
        1 . . X .
        """)
    assert tuple(b.captures) == (3, 0)
    assert b.to_move == BLACK
    assert b.history == [0]
    b.undo()
    assert_stones(b, CAPTURE_FIRST)
    assert tuple(b.captures) == (0, 0)
    assert b.to_move == WHITE


def test_multi_stone_suicide_default_rules_are_tromp_taylor():
    b = board(CAPTURE_FIRST, to_move=WHITE)
    assert b.rules.suicide is True
    assert b.rules.ko == "positional"
    assert b.rules.scoring == "area"
    play(b, "A1")
    assert tuple(b.captures) == (3, 0)


@pytest.mark.parametrize("ko", KO_RULES)
def test_multi_stone_suicide_refused_without_suicide(ko):
    b = board(CAPTURE_FIRST, to_move=WHITE, ko=ko, suicide=False)
    assert_refused(b, "A1", "suicide")
    for preset in ("chinese", "japanese", "aga"):
        b = board(CAPTURE_FIRST, to_move=WHITE, rules=fastgo.Rules.preset(preset))
        assert_refused(b, "A1", "suicide")


def test_two_stone_suicide_in_open_board():
    # Black A2 has one liberty, A1. Black A1 makes {A1, A2} with neighbours A3, B2, B1: all white,
    # and the white chains keep liberties, so the two black stones are removed.
    text = """
        4 . . . .
        3 O . . .
        2 X O . .
        1 . O . .
        """
    b = board(text)
    play(b, "A1")
    assert_stones(b, """
        4 . . . .
        3 O . . .
        2 . O . .
        1 . O . .
        """)
    assert tuple(b.captures) == (0, 2)
    assert_refused(board(text, suicide=False), "A1", "suicide")


# ---------------------------------------------------------------------------------------------
# Snapback

SNAPBACK = """
    4 . . . .
    3 O O . .
    2 X X O .
    1 . . O .
    """


@pytest.mark.parametrize("ko", KO_RULES)
@pytest.mark.parametrize("suicide", [True, False])
def test_snapback(ko, suicide):
    b = board(SNAPBACK, to_move=WHITE, ko=ko, suicide=suicide)
    # White throws in at A1: its only liberty is B1; Black {A2, B2} keeps B1.
    play(b, "A1")
    assert_stones(b, """
        4 . . . .
        3 O O . .
        2 X X O .
        1 O . O .
        """)
    assert b.liberties("A1") == 1
    assert b.liberties("A2") == 1
    # Black B1 captures the throw-in, leaving {A2, B2, B1} with the single liberty A1.
    play(b, "B1")
    assert_stones(b, """
        4 . . . .
        3 O O . .
        2 X X O .
        1 . X O .
        """)
    assert tuple(b.captures) == (1, 0)
    assert b.chain("B1") == (BLACK, (1, 4, 5), (0,))
    assert b.chain("A2") == b.chain("B2") == b.chain("B1")
    assert b.liberties("B2") == 1
    # White plays A1 again and captures three: not a repetition, the black stones are gone.
    play(b, "A1")
    assert_stones(b, """
        4 . . . .
        3 O O . .
        2 . . O .
        1 O . O .
        """)
    assert tuple(b.captures) == (1, 3)
    assert b.chain("A1") == (WHITE, (0,), (1, 4))
    assert b.history == [0, 1, 0]


# ---------------------------------------------------------------------------------------------
# Simple ko

KO_SETUP = """
    5 . . . . .
    4 . . . . .
    3 . X O . .
    2 X . . O .
    1 . X O . .
    """
KO_REASON = {"positional": "superko", "situational": "superko", "simple": "ko"}


@pytest.mark.parametrize("ko", KO_RULES)
@pytest.mark.parametrize("suicide", [True, False])
def test_simple_ko(ko, suicide):
    b = board(KO_SETUP, to_move=WHITE, ko=ko, suicide=suicide)
    play(b, "B2")          # White fills in: B2's only liberty is C2
    after_white = """
        5 . . . . .
        4 . . . . .
        3 . X O . .
        2 X O . O .
        1 . X O . .
        """
    assert_stones(b, after_white)
    white_hash = b.hash
    play(b, "C2")          # Black takes the ko: captures B2, C2's only liberty is now B2
    assert_stones(b, """
        5 . . . . .
        4 . . . . .
        3 . X O . .
        2 X . X O .
        1 . X O . .
        """)
    assert tuple(b.captures) == (1, 0)
    assert b.liberties("C2") == 1
    # Immediate recapture would recreate the colouring after White's B2.
    assert_refused(b, "B2", KO_REASON[ko])
    assert b.hash != white_hash
    # Ko threat elsewhere and its answer.
    play(b, "E5", "E4")
    # Now the recapture makes a new colouring (E5, E4 are on the board).
    play(b, "B2")
    assert_stones(b, """
        5 . . . . O
        4 . . . . X
        3 . X O . .
        2 X O . O .
        1 . X O . .
        """)
    assert tuple(b.captures) == (1, 1)
    # And Black may not retake at once: that would recreate the colouring after Black's E4.
    assert_refused(b, "C2", KO_REASON[ko])
    # Undo the retake: the position after E4 is back and White's recapture is legal again.
    b.undo()
    assert b.is_legal("B2")
    assert b.to_move == WHITE
    assert tuple(b.captures) == (1, 0)


@pytest.mark.parametrize("ko", KO_RULES)
def test_ko_filled_after_pass(ko):
    # After Black takes the ko, White passes; Black connects at B2, ending the ko.
    b = board(KO_SETUP, to_move=WHITE, ko=ko)
    play(b, "B2", "C2", "pass", "B2")
    assert b.color_at("B2") == BLACK
    assert b.chain("B2").stones == tuple(sorted(pt(v, 5) for v in ("A2", "B2", "C2", "B3", "B1")))


# ---------------------------------------------------------------------------------------------
# Recapture after a multi-stone capture

TWO_STONE = """
    5 . . . . .
    4 . . . . .
    3 . X X O .
    2 X O O . O
    1 . X X O .
    """


@pytest.mark.parametrize("ko", KO_RULES)
@pytest.mark.parametrize("suicide", [True, False])
def test_recapture_after_two_stone_capture(ko, suicide):
    b = board(TWO_STONE, ko=ko, suicide=suicide)
    before = b.hash
    play(b, "D2")          # captures B2 and C2; D2 is left with the single liberty C2
    assert_stones(b, """
        5 . . . . .
        4 . . . . .
        3 . X X O .
        2 X . . X O
        1 . X X O .
        """)
    assert tuple(b.captures) == (2, 0)
    assert b.chain("D2") == (BLACK, (pt("D2", 5),), (pt("C2", 5),))
    # White C2 captures D2 at once: legal, the position differs from before (B2 is empty).
    play(b, "C2")
    assert_stones(b, """
        5 . . . . .
        4 . . . . .
        3 . X X O .
        2 X . O . O
        1 . X X O .
        """)
    assert tuple(b.captures) == (2, 1)
    assert b.hash != before


# ---------------------------------------------------------------------------------------------
# Single-stone suicide
#
# White A2 and B1 guard the corner A1 of a 5x5 board; a black stone on A1 has no liberty and
# captures nothing, so it is cleared again at once: the colouring does not change.

CORNER = """
    5 . . . . .
    4 . . . . .
    3 . . . . .
    2 O . . . .
    1 . O . . .
    """


def test_single_stone_suicide_positional():
    b = board(CORNER)
    assert_refused(b, "A1", "superko")        # it recreates the current colouring
    play(b, "E5", "E1")
    assert_refused(b, "A1", "superko")
    assert_refused(board(CORNER, suicide=False), "A1", "suicide")   # precedence: suicide first
    one = fastgo.Board(1)
    assert_refused(one, 0, "superko")
    assert one.legal_moves() == [1]


def test_single_stone_suicide_situational():
    b = board(CORNER, ko="situational")
    # Situation (colouring, White to move) has not occurred: legal, and nothing changes but the
    # side to move; the stone counts as captured by White.
    before = b.stones().copy()
    play(b, "A1")
    np.testing.assert_array_equal(b.stones(), before)
    assert tuple(b.captures) == (0, 1)
    assert b.to_move == WHITE
    assert b.history == [0]
    # Right after the opponent passes the situation would repeat.
    b = board(CORNER, ko="situational")
    play(b, "E5", "pass")
    assert_refused(b, "A1", "superko")        # (colouring after E5, White to move) again
    play(b, "E4", "E3")
    play(b, "A1")                             # new colouring since: legal again
    # Same with a set-up position where White moves first and passes.
    b = board(CORNER, ko="situational", to_move=WHITE)
    play(b, "pass")
    assert_refused(b, "A1", "superko")        # the start situation had White to move
    assert_refused(board(CORNER, ko="situational", suicide=False), "A1", "suicide")
    one = fastgo.Board(1, ko="situational")
    play(one, 0)
    assert one.stones()[0, 0] == EMPTY
    assert tuple(one.captures) == (0, 1)


def test_single_stone_suicide_simple_ko():
    # simple: a play may not recreate the colouring that followed the player's own previous turn.
    b = board(CORNER, ko="simple")
    play(b, "A1")                             # Black's first turn: nothing to compare with
    assert tuple(b.captures) == (0, 1)
    play(b, "E5")                             # White
    play(b, "A1")                             # colouring now differs from after Black's last turn
    assert tuple(b.captures) == (0, 2)
    play(b, "pass")                           # White passes: colouring unchanged ...
    assert_refused(b, "A1", "ko")             # ... so the suicide repeats Black's last colouring
    play(b, "D4")
    play(b, "E4")
    play(b, "A1")
    assert_refused(board(CORNER, ko="simple", suicide=False), "A1", "suicide")
    assert_refused(board(CORNER, rules=fastgo.Rules.preset("japanese")), "A1", "suicide")


# ---------------------------------------------------------------------------------------------
# Triple ko: three kos along the bottom of a 12x3 board, in the states W (white stone taken
# back), B (black stone inside), W. Six ko captures in a row bring the board back to the start.

TRIPLE_KO = """
    3 . . . . . . . . . . . .
    2 . X O . . X O . . X O .
    1 X O . O X . X O X O . O
      A B C D E F G H J K L M
    """


def test_triple_ko_setup_chains():
    b = board(TRIPLE_KO)
    assert (b.width, b.height) == (12, 3)
    assert b.liberties("B1") == 1 and b.liberties("G1") == 1 and b.liberties("K1") == 1


@pytest.mark.parametrize("ko", KO_RULES)
def test_triple_ko_cycle(ko):
    b = board(TRIPLE_KO, ko=ko)
    start = snapshot(b)          # (width, height, stones, hash, ...)
    seen = {b.hash}
    # B takes ko 1, W ko 2, B ko 3, W ko 1, B ko 2: five new colourings
    for move in ("C1", "F1", "L1", "B1", "G1"):
        play(b, move)
        assert b.hash not in seen
        seen.add(b.hash)
    assert tuple(b.captures) == (3, 2)
    assert_stones(b, """
        3 . . . . . . . . . . . .
        2 . X O . . X O . . X O .
        1 X O . O X . X O X . X O
        """)
    # White K1 would capture L1 and recreate the start colouring (with Black to move).
    if ko == "simple":
        # White's previous turn left ko 1 white, ko 2 white, ko 3 black: not the start.
        play(b, "K1")
        assert_stones(b, TRIPLE_KO)
        assert b.hash == start[3]
        assert tuple(b.captures) == (3, 3)
        play(b, "C1")                         # and round it goes again
        assert tuple(b.captures) == (4, 3)
    else:
        assert_refused(b, "K1", "superko")
        play(b, "pass")                       # White may still pass or play elsewhere


# ---------------------------------------------------------------------------------------------
# Passes and the end of the game


def test_two_passes_end_the_game():
    b = fastgo.Board(5)
    play(b, "pass", "C3", "pass")             # Black passes, White C3, Black passes
    assert not b.is_over                      # the passes were not consecutive
    assert b.to_move == WHITE
    play(b, "pass")                           # White passes too: two in a row
    assert b.is_over
    assert b.history == [25, 12, 25, 25]
    assert b.color_at("C3") == WHITE
    for move in (0, "C3", "E5", "pass", 25, (4, 4)):
        assert_refused(b, move, "game over")  # even the occupied C3: game over comes first
    assert not b.legal_mask().any()
    assert b.legal_moves() == []
    with pytest.raises(fastgo.IllegalMoveError) as info:
        b.pass_()
    assert info.value.reason == "game over"
    assert info.value.move == 25
    b.undo()                                  # takes back White's pass: the game is open again
    assert not b.is_over
    assert b.to_move == WHITE
    assert b.history == [25, 12, 25]
    assert b.legal_mask()[25] and b.legal_mask().sum() == 24 + 1   # 24 empty points and pass
    play(b, "A1")                             # White plays instead of passing
    assert not b.is_over
    play(b, "pass", "pass")
    assert b.is_over
    b.undo(2)
    assert not b.is_over and b.to_move == BLACK
    play(b, "pass")
    assert not b.is_over


def test_occupied():
    b = fastgo.Board(5)
    play(b, "C3")
    assert_refused(b, "C3", "occupied")
    assert_refused(b, 12, "occupied")
    assert_refused(b, (2, 2), "occupied")


# ---------------------------------------------------------------------------------------------
# Scoring: seki, neutral points, empty boards, territory with prisoners and dead stones

SEKI = """
    2 X X X O O
    1 . X . O .
    """


def test_seki_area_scoring():
    # Black {A2, B2, C2, B1} has liberties A1 (its eye) and C1; White {D2, E2, D1} has E1 (its
    # eye) and C1. Whoever fills C1 is captured by a play in its own eye: seki.
    b = board(SEKI, komi=0)
    s = b.score()
    # A1 reaches only black, E1 only white, C1 both: neutral.
    assert s.black == 5 and s.white == 4
    assert s.margin == 1 and s.winner == BLACK
    np.testing.assert_array_equal(s.ownership, grid("""
        2 X X X O O
        1 X X . O O
        """))
    s = board(SEKI, komi=7.5).score()
    assert s.black == 5 and s.white == 11.5 and s.margin == -6.5 and s.winner == WHITE
    # Territory: the eyes still count (no seki exception in these rules), the shared point not.
    s = board(SEKI, komi=0.5, scoring="territory").score()
    assert s.black == 1 and s.white == 1.5 and s.winner == WHITE


@pytest.mark.parametrize("first", ["B", "W"])
def test_seki_filling_the_shared_liberty_loses(first):
    b = board(SEKI, to_move=BLACK if first == "B" else WHITE)
    play(b, "C1")
    if first == "B":
        assert b.liberties("C1") == 1 and b.liberties("D1") == 1
        play(b, "A1")                         # White plays in Black's eye and captures 5
        assert tuple(b.captures) == (0, 5)
        assert_stones(b, """
            2 . . . O O
            1 O . . O .
            """)
    else:
        play(b, "E1")                         # Black plays in White's eye and captures 4
        assert tuple(b.captures) == (4, 0)
        assert_stones(b, """
            2 X X X . .
            1 . X . . X
            """)


def test_neutral_point_area_scoring():
    b = board("""
        5 . X O . O
        4 X X O O O
        3 . X . O .
        2 X X O O O
        1 . X O . O
        """, komi=0)
    s = b.score()
    # Black: 7 stones + A5, A3, A1 = 10. White: 11 stones + D5, E3, D1 = 14. C3 reaches both.
    assert (s.black, s.white, s.margin, s.winner) == (10, 14, -4, WHITE)
    assert s.ownership[2, 2] == EMPTY
    assert (np.asarray(s.ownership) == EMPTY).sum() == 1
    assert s.ownership[0, 0] == BLACK and s.ownership[2, 4] == WHITE


def test_lone_stone_owns_the_board():
    # Rule 9: every empty point reaches only black.
    b = fastgo.Board(9, komi=7.5)
    b.play("E5")
    s = b.score()
    assert (s.black, s.white, s.winner) == (81, 7.5, BLACK)
    assert (np.asarray(s.ownership) == BLACK).all()


@pytest.mark.parametrize("scoring", ["area", "territory"])
def test_empty_board_score(scoring):
    s = fastgo.Board(9, komi=7.5, scoring=scoring).score()
    assert (s.black, s.white, s.margin, s.winner) == (0, 7.5, -7.5, WHITE)
    assert np.asarray(s.ownership).shape == (9, 9)
    assert (np.asarray(s.ownership) == EMPTY).all()
    s = fastgo.Board(9, komi=0, scoring=scoring).score()
    assert (s.black, s.white, s.margin, s.winner) == (0, 0, 0, 0)
    s = fastgo.Board(7, 5, komi=-3).score()
    assert (s.black, s.white, s.margin, s.winner) == (0, -3, 3, BLACK)
    s = fastgo.Board(9).score()
    assert s.white == 7.5 and s.winner == WHITE   # default komi 7.5


TERRITORY = """
    5 . . X O .
    4 . O X O .
    3 . . X O .
    2 . . X O .
    1 O X X O .
    """


def test_territory_scoring_prisoners_and_dead_stones():
    b = board(TERRITORY, scoring="territory", komi=0.5)
    play(b, "A2")                             # captures White A1
    assert tuple(b.captures) == (1, 0)
    play(b, "pass", "pass")
    stones_before = b.stones().copy()
    dead = pt("B4", 5)
    s = b.score(dead=[dead])
    # Black: empty A5 B5 A4 B4 A3 B3 B2 A1 = 8, + 1 prisoner + 1 dead stone = 10.
    # White: E1..E5 = 5 + komi 0.5.
    assert (s.black, s.white, s.margin, s.winner) == (10, 5.5, 4.5, BLACK)
    assert s.ownership[3, 1] == BLACK          # the dead stone's point is Black's
    np.testing.assert_array_equal(b.stones(), stones_before)   # scoring changes nothing
    assert b.color_at(dead) == WHITE
    # Without marking B4 dead its region touches white: only A1 is territory.
    s = b.score()
    assert (s.black, s.white, s.winner) == (2, 5.5, WHITE)
    # Area scoring of the same position: stones count, prisoners do not.
    a = board(TERRITORY, scoring="area", komi=0.5)
    play(a, "A2")
    s = a.score(dead=[dead])
    assert (s.black, s.white) == (15, 10.5)   # 7 stones + 8 points; 5 stones + 5 points + komi
    s = a.score()
    assert (s.black, s.white) == (8, 11.5)    # 7 stones + A1; 6 stones + 5 points + komi


def test_territory_counts_suicide_as_prisoners():
    b = board(CAPTURE_FIRST, to_move=WHITE, scoring="territory", komi=0)
    play(b, "A1")                             # white self-captures three stones
    s = b.score()
    # The whole board is one region touching only black stones: 16 - 3 stones = 13, + 3 prisoners.
    assert s.black == 16 and s.white == 0 and s.winner == BLACK


def test_score_dead_chain_removes_whole_chain():
    b = board("""
        4 . . . .
        3 . O O .
        2 . . . .
        1 X . . .
        """, komi=0)
    s = b.score(dead=[pt("B3", 4)])           # marking one stone removes the chain {B3, C3}
    assert (s.black, s.white) == (16, 0)


# ---------------------------------------------------------------------------------------------
# Handicap

STAR = {
    9: ("C3", "G7", "G3", "C7", "E5", "C5", "G5", "E3", "E7"),
    13: ("D4", "K10", "K4", "D10", "G7", "D7", "K7", "G4", "G10"),
    19: ("D4", "Q16", "Q4", "D16", "K10", "D10", "Q10", "K4", "K16"),
}


@pytest.mark.parametrize("size", [9, 13, 19])
@pytest.mark.parametrize("n", range(2, 10))
def test_handicap(size, n):
    b = fastgo.Board(size, handicap=n)
    stones = np.asarray(b.stones())
    black = {fastgo.point_to_vertex(p, size, size) for p in np.flatnonzero(stones.ravel() == BLACK)}
    assert len(black) == n
    assert not (stones == WHITE).any()
    corners, centre = set(STAR[size][:4]), STAR[size][4]
    left_right, top_bottom = set(STAR[size][5:7]), set(STAR[size][7:9])
    assert black <= set(STAR[size])
    if n == 2:
        assert black == {STAR[size][0], STAR[size][1]}    # lower left and upper right
    elif n == 3:
        assert black < corners
    elif n == 4:
        assert black == corners
    elif n == 5:
        assert black == corners | {centre}
    elif n in (6, 7):
        rest = black - corners - {centre}
        assert corners <= black and rest in (left_right, top_bottom)
        assert (centre in black) == (n == 7)
    elif n == 8:
        assert black == set(STAR[size]) - {centre}
    else:
        assert black == set(STAR[size])
    assert b.to_move == WHITE
    assert b.history == []
    assert tuple(b.captures) == (0, 0)
    b.check_consistency()
    play(b, "A1")
    assert b.color_at("A1") == WHITE


@pytest.mark.parametrize("kwargs", [
    dict(width=9, handicap=1), dict(width=9, handicap=10), dict(width=9, handicap=-1),
    dict(width=19, handicap=20), dict(width=7, handicap=5), dict(width=5, handicap=4),
    dict(width=9, height=13, handicap=2), dict(width=25, handicap=10), dict(width=8, handicap=5),
    dict(width=6, handicap=2),
])
def test_bad_handicap(kwargs):
    with pytest.raises(ValueError):
        fastgo.Board(**kwargs)


def test_no_handicap():
    b = fastgo.Board(9, handicap=0)
    assert not b.stones().any() and b.to_move == BLACK


# ---------------------------------------------------------------------------------------------
# Rectangular boards and diagrams


def test_rectangular_diagram_round_trip():
    text = """
        3 . X . . O
        2 X O . . .
        1 . . . X .
        """
    b = board(text)
    assert (b.width, b.height, b.num_points, b.pass_move) == (5, 3, 15, 15)
    assert_stones(b, text)
    assert b.stones().shape == (3, 5)
    assert b.color_at("D1") == BLACK and b.color_at(3) == BLACK
    assert b.color_at("E3") == WHITE and b.color_at(14) == WHITE
    assert b.color_at("B2") == WHITE and b.color_at((1, 1)) == WHITE
    out = str(b)
    lines = [line.split() for line in out.strip("\n").splitlines() if line.strip()]
    assert lines[0] == list("ABCDE") and lines[-1] == list("ABCDE")
    assert len(lines) == 5
    # row number first (a repeated row number at the end is allowed)
    assert lines[1][:6] == ["3", ".", "X", ".", ".", "O"] and lines[1][6:] in ([], ["3"])
    assert lines[2][:6] == ["2", "X", "O", ".", ".", "."] and lines[2][6:] in ([], ["2"])
    assert lines[3][:6] == ["1", ".", ".", ".", "X", "."] and lines[3][6:] in ([], ["1"])
    c = fastgo.Board.from_diagram(out)
    np.testing.assert_array_equal(c.stones(), b.stones())
    assert c.hash == b.hash
    # tall and thin
    tall = board("""
        5 . X .
        4 . . .
        3 O . .
        2 . . .
        1 . . X
        """)
    assert (tall.width, tall.height) == (3, 5)
    assert tall.color_at("C1") == BLACK and tall.color_at("B5") == BLACK
    assert tall.color_at("A3") == WHITE
    np.testing.assert_array_equal(fastgo.Board.from_diagram(str(tall)).stones(), tall.stones())


def test_diagram_plain_rows_and_plus_signs():
    b = board("""
        + x .
        o + X
        """)
    assert (b.width, b.height) == (3, 2)
    np.testing.assert_array_equal(b.stones(), [[WHITE, EMPTY, BLACK], [EMPTY, BLACK, EMPTY]])


def test_big_board_round_trip():
    b = fastgo.Board(25, 19)
    for move in ("A1", "Z1", "A19", "Z19", "H8", "J9", "K10"):
        b.play(move)
    out = str(b)
    assert "Z" in out and "I" not in out.replace("\n", " ").split()
    c = fastgo.Board.from_diagram(out)
    assert (c.width, c.height) == (25, 19)
    np.testing.assert_array_equal(c.stones(), b.stones())
    assert c.color_at("Z19") == WHITE and c.color_at("J9") == WHITE and c.color_at("K10") == BLACK
    assert c.color_at("H8") == BLACK and c.color_at("A1") == BLACK and c.color_at("Z1") == WHITE


def test_from_array_orientation():
    arr = np.zeros((3, 4), dtype=np.int8)
    arr[0, 1] = BLACK                          # B1
    arr[2, 3] = WHITE                          # D3
    b = fastgo.Board.from_array(arr, to_move=WHITE)
    assert (b.width, b.height) == (4, 3)
    assert b.color_at("B1") == BLACK and b.color_at("D3") == WHITE
    assert b.to_move == WHITE
    np.testing.assert_array_equal(b.stones(), arr)
    assert b.stones().dtype == np.int8


# GTP 2 spec, section 4.1.1 (fixed handicap placement), as a GTP controller expects it.
GTP_FIXED_HANDICAP = {
    (19, 2): "D4 Q16", (19, 3): "D4 Q16 D16", (19, 4): "D4 Q16 D16 Q4",
    (19, 5): "D4 Q16 D16 Q4 K10", (19, 6): "D4 Q16 D16 Q4 D10 Q10",
    (19, 7): "D4 Q16 D16 Q4 D10 Q10 K10", (19, 8): "D4 Q16 D16 Q4 D10 Q10 K4 K16",
    (19, 9): "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10",
    (9, 3): "C3 G7 C7", (9, 9): "C3 G7 C7 G3 C5 G5 E3 E7 E5",
    (13, 4): "D4 K10 D10 K4", (13, 5): "D4 K10 D10 K4 G7",
}


@pytest.mark.parametrize("size,stones", sorted(GTP_FIXED_HANDICAP))
def test_fixed_handicap_follows_gtp(size, stones):
    b = fastgo.Board(size, handicap=stones)
    expected = {fastgo.vertex_to_point(v, size, size) for v in GTP_FIXED_HANDICAP[size, stones].split()}
    assert {p for p in range(size * size) if b.color_at(p) == BLACK} == expected
    assert b.to_move == WHITE and b.first_player == WHITE and b.history == []
