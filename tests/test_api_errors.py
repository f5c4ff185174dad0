"""Malformed input: the right exception, never a crash, and a refused call changes nothing.

Written against the README: a wrong type -> TypeError; a well-typed but bad value
(off-board point, bad vertex, bad size, bad diagram/array, bad rule) -> ValueError; a well-formed
move the rules refuse -> fastgo.IllegalMoveError (a ValueError) with .reason and .move.
"""

import dataclasses
import io
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastgo
from fastgo import BLACK, EMPTY, WHITE

from board_state import snapshot

REASONS = {"occupied", "suicide", "ko", "superko", "game over"}


def sample_board():
    """5x5 with a few stones, a capture and a ko: C3 B, D3 W, ... (built by legal plays)."""
    b = fastgo.Board.from_diagram("""
        5 . . . . .
        4 . . . . .
        3 . X O . .
        2 X . . O .
        1 . X O . .
        """, to_move=WHITE)
    b.play("B2")
    b.play("C2")     # black takes the ko: B2 is now refused for White (superko)
    return b


# ---------------------------------------------------------------------------------------------
# Moves of the wrong type

WRONG_TYPES = [
    3.0, 0.0, float("nan"), float("inf"), None, [0, 0], [1], b"A1", bytearray(b"A1"), {0}, {"a": 1},
    1j, object(), np.float64(2.0), np.array([1, 2]), (0.0, 1), (1, 0.0), (None, 1), ("a", 1),
    ("A", "1"), ((1,), 2), True, False,
]


@pytest.mark.parametrize("move", WRONG_TYPES, ids=repr)
def test_play_wrong_type(move):
    b = sample_board()
    before = snapshot(b)
    with pytest.raises(TypeError):
        b.play(move)
    assert snapshot(b) == before
    for method in (b.is_legal, b.why_illegal, b.chain, b.color_at, b.liberties):
        with pytest.raises(TypeError):
            method(move)
    assert snapshot(b) == before
    b.check_consistency()


NUMPY_INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.intp]


@pytest.mark.parametrize("kind", NUMPY_INTS, ids=lambda k: k.__name__)
def test_numpy_ints_work(kind):
    b = fastgo.Board(5)
    assert b.is_legal(kind(12))
    assert b.why_illegal(kind(12)) is None
    b.play(kind(12))
    assert b.color_at(kind(12)) == BLACK
    assert b.chain(kind(12)).stones == (12,)
    assert b.liberties(kind(12)) == 4
    assert b.why_illegal(kind(12)) == "occupied"
    b.play((kind(0), kind(1)))               # (row, col) of numpy ints
    assert b.color_at(1) == WHITE
    b.play(kind(25))                         # pass
    assert b.history == [12, 1, 25]
    b.undo(kind(2))
    assert b.history == [12]


# ---------------------------------------------------------------------------------------------
# Off-board values

OFF_BOARD = [-1, 26, 27, 100, 2**31, 2**32 + 3, 2**63, 2**64, 2**70, -2**70, -2**63 - 1,
             np.int64(-1), np.int64(2**62), np.uint64(2**64 - 1), np.int8(-128), np.int32(26)]


@pytest.mark.parametrize("move", OFF_BOARD, ids=repr)
def test_off_board_points(move):
    b = sample_board()
    before = snapshot(b)
    with pytest.raises(ValueError) as info:
        b.play(move)
    assert not isinstance(info.value, fastgo.IllegalMoveError)   # malformed, not a rules refusal
    assert snapshot(b) == before
    for method in (b.is_legal, b.why_illegal, b.chain, b.color_at, b.liberties):
        with pytest.raises(ValueError):
            method(move)
    assert snapshot(b) == before


def test_pass_point_is_not_off_board():
    b = fastgo.Board(5)
    assert b.pass_move == 25 and b.num_points == 25
    assert b.is_legal(25)
    b.play(25)
    assert b.history == [25]
    with pytest.raises(ValueError):
        b.play(26)


@pytest.mark.parametrize("move", [(-1, 0), (0, -1), (5, 0), (0, 5), (0, 2**70), (2**70, 0),
                                  (-2**70, 0), (0,), (0, 0, 0), (), (5, 5)], ids=repr)
def test_off_board_rowcol(move):
    b = sample_board()
    before = snapshot(b)
    with pytest.raises(ValueError):
        b.play(move)
    with pytest.raises(ValueError):
        b.is_legal(move)
    assert snapshot(b) == before


BAD_VERTICES = ["I5", "i5", "A0", "Z99", "", " ", "pass2", "passs", "pas", "A", "1", "1A", "AA1",
                "A-1", "A1.0", "A 1", "F1", "A6", "J1", "Z1", "A\u0663", "\x00", "A1A",
                "A+1", "A\uff11", "\u0391\u0031"]


@pytest.mark.parametrize("vertex", BAD_VERTICES, ids=repr)
def test_bad_vertices(vertex):
    b = sample_board()
    before = snapshot(b)
    with pytest.raises(ValueError) as info:
        b.play(vertex)
    assert not isinstance(info.value, fastgo.IllegalMoveError)
    with pytest.raises(ValueError):
        b.why_illegal(vertex)
    with pytest.raises(ValueError):
        fastgo.vertex_to_point(vertex, 5, 5)
    assert snapshot(b) == before


def test_vertex_conversion_errors():
    with pytest.raises(TypeError):
        fastgo.vertex_to_point(b"A1", 9, 9)
    with pytest.raises(TypeError):
        fastgo.vertex_to_point(None, 9, 9)
    with pytest.raises(TypeError):
        fastgo.vertex_to_point(3, 9, 9)
    for point in (-1, 82, 2**70):
        with pytest.raises(ValueError):
            fastgo.point_to_vertex(point, 9, 9)
    with pytest.raises(ValueError):
        fastgo.vertex_to_point("A1", 0, 9)
    with pytest.raises(ValueError):
        fastgo.vertex_to_point("A1", 26, 9)
    with pytest.raises(ValueError):
        fastgo.point_to_rowcol(-1, 9)
    with pytest.raises(ValueError):
        fastgo.rowcol_to_point(0, 9, 9)
    with pytest.raises(ValueError):
        fastgo.rowcol_to_point(-1, 0, 9)
    with pytest.raises(TypeError):
        fastgo.rowcol_to_point(0.0, 0, 9)


def test_coordinate_helpers_take_a_square_board_when_height_is_omitted():
    # point_to_rowcol(-1, 9) spoke of a 9x25 board; rowcol_to_point(9, 0, 9) gave 81, the pass
    with pytest.raises(ValueError, match="point -1 is off a 9x9 board"):
        fastgo.point_to_rowcol(-1, 9)
    with pytest.raises(ValueError, match="point 81 is off a 9x9 board"):
        fastgo.point_to_rowcol(81, 9)
    with pytest.raises(ValueError, match=r"\(row, col\) = \(9, 0\) is off a 9x9 board"):
        fastgo.rowcol_to_point(9, 0, 9)
    with pytest.raises(ValueError, match="off a 9x9 board"):
        fastgo.vertex_to_point("A10", 9)
    for width in (0, 26):
        for call in (lambda: fastgo.point_to_rowcol(0, width), lambda: fastgo.rowcol_to_point(0, 0, width),
                     lambda: fastgo.point_to_vertex(0, width), lambda: fastgo.vertex_to_point("A1", width)):
            with pytest.raises(ValueError, match="board size"):
                call()
    assert fastgo.point_to_rowcol(80, 9) == (8, 8) and fastgo.rowcol_to_point(8, 8, 9) == 80
    assert fastgo.point_to_vertex(80, 9) == "J9" and fastgo.point_to_vertex(81, 9) == "pass"
    assert fastgo.vertex_to_point("J9", 9) == 80 and fastgo.vertex_to_point("pass", 9) == 81
    assert fastgo.rowcol_to_point(4, 6, 7, 5) == 34 and fastgo.point_to_vertex(34, 7, 5) == "G5"


# ---------------------------------------------------------------------------------------------
# Sizes


@pytest.mark.parametrize("args", [(0,), (26,), (-1,), (9, 0), (9, 26), (0, 0), (2**70,),
                                  (9, -5), (-2**70,)], ids=repr)
def test_bad_size_value(args):
    with pytest.raises(ValueError):
        fastgo.Board(*args)


@pytest.mark.parametrize("args", [("9",), (9.0,), (9, "9"), (9, 9.5), ([9],), (b"9",), (True,),
                                  (9, False), (1j,)], ids=repr)
def test_bad_size_type(args):
    with pytest.raises(TypeError):
        fastgo.Board(*args)


def test_good_sizes():
    for w, h in [(1, 1), (25, 25), (1, 25), (25, 1), (np.int64(7), np.uint8(3))]:
        b = fastgo.Board(w, h)
        assert (b.width, b.height) == (int(w), int(h))
        assert b.stones().shape == (int(h), int(w))
        assert b.legal_mask().shape == (int(w) * int(h) + 1,)
    assert fastgo.Board(7, None).height == 7
    assert fastgo.Board().width == 9 and fastgo.Board().height == 9


# ---------------------------------------------------------------------------------------------
# Diagrams

BAD_DIAGRAMS = {
    "ragged": ". . .\n. .\n. . .",
    "ragged-longer": ". .\n. . .",
    "unknown char #": ". # .\n. . .\n. . .",
    "unknown char digit": ". 7 .\n. . .",
    "unknown char Y": ". Y .\n. . .",
    "dead black": "X O\nO .",
    "dead white": "X X\nX O",
    "full board": "X X\nX X",
    "dead big chain": "X X X\nX O O\nX O O",
    "empty text": "",
    "only whitespace": "   \n \n",
    "only letters": "A B C",
    "too wide": " ".join(["."] * 26),
    "too tall": "\n".join(["."] * 26),
}


@pytest.mark.parametrize("name", sorted(BAD_DIAGRAMS))
def test_bad_diagram(name):
    with pytest.raises(ValueError):
        fastgo.Board.from_diagram(BAD_DIAGRAMS[name])


@pytest.mark.parametrize("text", [None, b". .\n. .", 5, [". ."]], ids=repr)
def test_diagram_wrong_type(text):
    with pytest.raises(TypeError):
        fastgo.Board.from_diagram(text)


def test_diagram_bad_to_move():
    for to_move in (0, 3, -1, 2**70):
        with pytest.raises(ValueError):
            fastgo.Board.from_diagram(". .\n. .", to_move=to_move)
    b = fastgo.Board.from_diagram(". .\n. .", to_move=WHITE)
    assert b.to_move == WHITE
    assert b.history == []


# ---------------------------------------------------------------------------------------------
# Arrays

BAD_ARRAYS = {
    "value 3": np.array([[0, 3], [0, 0]]),
    "value -1": np.array([[0, -1], [0, 0]]),
    "value 255 uint8": np.array([[0, 255], [0, 0]], dtype=np.uint8),
    "value 257": np.array([[0, 257], [0, 0]], dtype=np.int64),
    "ndim 1": np.zeros(9, dtype=np.int8),
    "ndim 3": np.zeros((3, 3, 3), dtype=np.int8),
    "ndim 0": np.array(0, dtype=np.int8),
    "zero rows": np.zeros((0, 5), dtype=np.int8),
    "zero cols": np.zeros((5, 0), dtype=np.int8),
    "26 wide": np.zeros((3, 26), dtype=np.int8),
    "26 tall": np.zeros((26, 3), dtype=np.int8),
    "dead black corner": np.array([[1, 2], [2, 0]]),
    "dead white corner": np.array([[2, 1], [1, 0]]),
    "full board": np.ones((3, 3), dtype=np.int8),
    "dead in middle": np.array([[0, 2, 0], [2, 1, 2], [0, 2, 0]]),
}


@pytest.mark.parametrize("name", sorted(BAD_ARRAYS))
def test_bad_array(name):
    with pytest.raises(ValueError):
        fastgo.Board.from_array(BAD_ARRAYS[name])


@pytest.mark.parametrize("name", ["value 3", "value -1", "value 255 uint8", "ndim 1", "ndim 3",
                                  "ndim 0"])
def test_is_legal_position_bad_array(name):
    with pytest.raises(ValueError):
        fastgo.is_legal_position(BAD_ARRAYS[name])


@pytest.mark.parametrize("empty", [[[]], [[]] * 3, np.zeros((0, 3)), np.zeros((3, 0), np.int8)],
                         ids=["[[]]", "3 empty rows", "0x3 float", "3x0 int8"])
def test_a_position_with_no_points_is_refused_as_empty(empty):
    # [[]] said "a position must hold integers 0/1/2, got dtype float64"
    for read in (fastgo.is_legal_position, fastgo.Board.from_array):
        with pytest.raises(ValueError, match=r"a position has no points: shape \(\d, \d\)"):
            read(empty)


def test_is_legal_position_dead_chains():
    for name in ("dead black corner", "dead white corner", "full board", "dead in middle"):
        assert fastgo.is_legal_position(BAD_ARRAYS[name]) is False
    assert fastgo.is_legal_position(np.array([[1, 0], [0, 2]])) is True
    assert fastgo.is_legal_position(np.array([[1, 0], [0, 2]], dtype=np.int64)) is True
    assert fastgo.is_legal_position(np.zeros((1, 1), dtype=np.int8)) is True


def test_float_array():
    with pytest.raises((TypeError, ValueError)):
        fastgo.Board.from_array(np.array([[0.5, 0.0], [0.0, 0.0]]))
    with pytest.raises((TypeError, ValueError)):
        fastgo.Board.from_array(None)
    with pytest.raises((TypeError, ValueError)):
        fastgo.Board.from_array("X.")


def test_array_bad_to_move():
    for to_move in (0, 3):
        with pytest.raises(ValueError):
            fastgo.Board.from_array(np.zeros((3, 3), dtype=np.int8), to_move=to_move)


def test_from_array_does_not_alias_input():
    arr = np.zeros((3, 3), dtype=np.int8)
    b = fastgo.Board.from_array(arr)
    arr[1, 1] = BLACK
    assert b.color_at(4) == EMPTY
    s = b.stones()
    s[0, 0] = WHITE
    assert b.color_at(0) == EMPTY
    b.check_consistency()


# ---------------------------------------------------------------------------------------------
# Rules


def test_bad_rules():
    with pytest.raises(ValueError):
        fastgo.Rules(ko="bogus")
    with pytest.raises(ValueError):
        fastgo.Rules(ko="Positional ")
    with pytest.raises(ValueError):
        fastgo.Rules(scoring="bogus")
    with pytest.raises(ValueError):
        fastgo.Rules.preset("bogus")
    with pytest.raises(ValueError):
        fastgo.Rules.preset("")
    with pytest.raises(TypeError):
        fastgo.Rules(komi="7.5")
    with pytest.raises(TypeError):
        fastgo.Rules(komi=None)
    for komi in (float("nan"), float("inf"), -float("inf"), np.float64("nan")):
        with pytest.raises(ValueError):
            fastgo.Rules(komi=komi)
    r = fastgo.Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.komi = 3


def test_rules_replace():
    """replace() with no change gives the (immutable) Rules itself, so a Board made with given
    rules shares them; any change makes a new, validated Rules."""
    r = fastgo.Rules.preset("japanese")
    assert r.replace() is r and r.replace(ko=None, komi=None) is r
    assert fastgo.Board(5, rules=r).rules is r
    assert fastgo.Board(5, rules=r, komi=0.5).rules == dataclasses.replace(r, komi=0.5)
    s = r.replace(komi=r.komi)          # an equal value is still a new object
    assert s == r and s is not r
    with pytest.raises(ValueError):
        r.replace(ko="bogus")
    with pytest.raises(TypeError):
        r.replace(suicide=1)

    class Mine(fastgo.Rules):
        pass
    m = Mine().replace(komi=1)
    assert type(m) is Mine and m.komi == 1.0 and m.ko == "positional"
    # a Rules altered after construction (or unpickled without __post_init__) is validated
    # again, as dataclasses.replace did, not handed to the board as it is
    for field, value, exc in (("ko", "bogus", ValueError), ("komi", float("nan"), ValueError),
                              ("suicide", 2, TypeError), ("scoring", "x", ValueError)):
        bad = fastgo.Rules()
        object.__setattr__(bad, field, value)
        with pytest.raises(exc):
            fastgo.Board(5, rules=bad)
        with pytest.raises(exc):
            fastgo.BoardBatch(2, 5, rules=bad)


def test_batch_set_compares_the_rules_by_their_c_fields_first():
    """BoardBatch.set trusted a Rules subclass's __eq__: a suicide-allowed board entered a
    batch that forbids suicide, its replay failed as "an internal error" and the game was
    restarted by the refused call."""
    class Liar(fastgo.Rules):
        def __eq__(self, other):
            return True
        __hash__ = fastgo.Rules.__hash__
    b = fastgo.Board(3, rules=Liar(suicide=True))
    for m in ["A1", "B1", "pass", "B2", "pass", "A3", "A2"]:     # A2: a two-stone suicide
        b.play(m)
    batch = fastgo.BoardBatch(1, 3, rules=fastgo.Rules(suicide=False))
    batch.step([4])
    with pytest.raises(ValueError, match="differ from the batch's"):
        batch.set(0, b)
    assert batch.board(0).history == [4]


@pytest.mark.parametrize("kwargs,exc", [
    (dict(ko="bogus"), ValueError), (dict(scoring="area51"), ValueError),
    (dict(komi="x"), TypeError), (dict(komi=float("nan")), ValueError),
    (dict(komi=math.inf), ValueError),
])
def test_bad_rules_keywords(kwargs, exc):
    with pytest.raises(exc):
        fastgo.Board(5, **kwargs)
    with pytest.raises(exc):
        fastgo.Board.from_diagram(". .\n. .", **kwargs)
    with pytest.raises(exc):
        fastgo.Board.from_array(np.zeros((2, 2), dtype=np.int8), **kwargs)


# The presets as the rule texts in shared/seeds state them (rules-of-go-wikipedia.md: Japanese
# "no superko ... Suicide is always forbidden. Komi is 6.5", territory scoring; Chinese "area"
# rules, "Komi is usually 7.5", Rule 7A's prohibition of suicide in line with practice outside
# Taiwan and New Zealand, positional superko as in the basic rules; New Zealand "Area scoring
# ... Multi-stone suicide is allowed ... Komi is 7 points"; Ing "Multi-stone suicide is allowed",
# "Black pays White eight points"; the basic (Tromp-Taylor) rules: positional superko, suicide
# allowed, area scoring), with the README's choices where the texts are silent: komi 7.5 for
# Tromp-Taylor and for the AGA (its even-game komi), the AGA's and Ing's ko rules as situational
# superko, the AGA's suicide forbidden (its rules, not the seed's).
SEED_PRESETS = [("tromp-taylor", "positional", True, "area", 7.5),
                ("chinese", "positional", False, "area", 7.5),
                ("japanese", "simple", False, "territory", 6.5),
                ("aga", "situational", False, "area", 7.5),
                ("new-zealand", "situational", True, "area", 7.0),
                ("ing", "situational", True, "area", 8.0)]


@pytest.mark.parametrize("name, ko, suicide, scoring, komi", SEED_PRESETS)
def test_presets_say_what_the_rule_texts_say(name, ko, suicide, scoring, komi):
    r = fastgo.Rules.preset(name)
    assert (r.ko, r.suicide, r.scoring, r.komi) == (ko, suicide, scoring, komi)
    assert fastgo.Board(5, rules=name).rules == r == fastgo.PRESETS[name]


def test_the_readme_preset_table_says_the_same():
    import pathlib
    import re
    text = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text()
    rows = re.findall(r"^\| `([a-z-]+)` \| (\w+) \| (allowed|forbidden) \| (\w+) \| ([\d.]+) \|",
                      text, re.M)
    assert [(n, k, s == "allowed", sc, float(km)) for n, k, s, sc, km in rows] == SEED_PRESETS


def test_presets_and_overrides():
    assert set(fastgo.PRESETS) == {row[0] for row in SEED_PRESETS}
    assert fastgo.Rules() == fastgo.Rules.preset("tromp-taylor")
    japanese = fastgo.Rules.preset("japanese")
    b = fastgo.Board(5, rules=japanese, komi=0)
    assert b.rules.ko == japanese.ko and b.rules.scoring == japanese.scoring
    assert b.rules.suicide == japanese.suicide and b.rules.komi == 0
    b = fastgo.Board(5, rules=japanese, ko="positional", suicide=True)
    assert (b.rules.ko, b.rules.suicide, b.rules.scoring) == ("positional", True, "territory")
    assert fastgo.Board(5, komi=np.float32(0.5)).rules.komi == 0.5
    assert fastgo.Board(5, komi=6).rules.komi == 6


# ---------------------------------------------------------------------------------------------
# Undo, chain


def test_undo_beyond_history():
    b = fastgo.Board(5)
    with pytest.raises(ValueError):
        b.undo()
    b.play("C3")
    b.play("pass")
    before = snapshot(b)
    for n in (3, 100, 2**70, -1, -2**70):
        with pytest.raises(ValueError):
            b.undo(n)
        assert snapshot(b) == before
    for n in ("1", 1.0, None, [1]):
        with pytest.raises(TypeError):
            b.undo(n)
        assert snapshot(b) == before
    b.undo(0)
    assert snapshot(b) == before
    b.undo(2)
    assert b.history == [] and not b.stones().any() and b.to_move == BLACK and b.hash == 0
    with pytest.raises(ValueError):
        b.undo(1)
    d = sample_board()
    d.undo(2)
    with pytest.raises(ValueError):       # nothing before the set-up position
        d.undo(1)
    assert d.to_move == WHITE
    d.check_consistency()


def test_undo_on_a_copy():
    # copy(undo=True) carries the undo journal: it can take back turns played before it was made
    b = fastgo.Board(3)
    b.play("A1")
    c = b.copy(undo=True)
    c.undo()
    c.check_consistency()
    assert c.legal_moves() == list(range(10))
    assert c.history == [] and c.hash == 0
    assert b.history == [0] and b.color_at(0) == BLACK
    c.play("C3")
    c.check_consistency()
    b.check_consistency()


def test_chain_on_empty_point_or_pass():
    b = sample_board()
    for move in ("A1", 0, (0, 0), "E5", 25, "pass"):
        with pytest.raises(ValueError):
            b.chain(move)
    assert b.chain("A2").color == BLACK


# ---------------------------------------------------------------------------------------------
# A refused move leaves the board exactly as it was


def test_refused_moves_change_nothing():
    b = sample_board()
    b2 = b.copy()
    before = snapshot(b)
    refusals = {"B2": "superko", "C2": "occupied", "A2": "occupied"}
    for move, reason in refusals.items():
        with pytest.raises(fastgo.IllegalMoveError) as info:
            b.play(move)
        assert info.value.reason == reason
        assert snapshot(b) == before
        b.check_consistency()
    s = fastgo.Board.from_diagram(". O\nO .", suicide=False)   # A2 and B1 are empty
    before_s = snapshot(s)
    with pytest.raises(fastgo.IllegalMoveError) as info:
        s.play("A2")
    assert info.value.reason == "suicide" and info.value.move == 2
    assert snapshot(s) == before_s
    # the board still plays normally afterwards, identically to an untouched copy
    for x in (b, b2):
        x.play("E5")
        x.play("E4")
        x.play("B2")
    assert snapshot(b) == snapshot(b2)
    b.pass_()
    b.pass_()
    over = snapshot(b)
    for move in ("A5", "pass", 0, "C2"):
        with pytest.raises(fastgo.IllegalMoveError) as info:
            b.play(move)
        assert info.value.reason == "game over"
        assert snapshot(b) == over
    with pytest.raises(fastgo.IllegalMoveError):
        b.pass_()
    assert snapshot(b) == over
    b.check_consistency()


def test_illegal_move_error_is_value_error():
    assert issubclass(fastgo.IllegalMoveError, ValueError)
    b = fastgo.Board(3)
    b.play("B2")
    with pytest.raises(ValueError):
        b.play("B2")


# ---------------------------------------------------------------------------------------------
# Fuzzing the API boundary

VERTICES = ["A1", "B2", "C3", "b1", "pass", "PASS", "e5", "I1", "A0", "Z99", "", "pass2", "A٣"]
JUNK = st.one_of(
    st.integers(-3, 30),
    st.integers(-3, 30),
    st.integers(),
    st.integers(min_value=-2**80, max_value=2**80),
    st.text(max_size=4),
    st.sampled_from(VERTICES),
    st.tuples(st.integers(-2, 6), st.integers(-2, 6)),
    st.tuples(st.integers(), st.integers()),
    st.tuples(st.floats(), st.none()),
    st.tuples(),
    st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4)),
    st.floats(),
    st.none(),
    st.booleans(),
    st.binary(max_size=3),
    st.lists(st.integers(0, 5), max_size=3),
    st.builds(np.int64, st.integers(-2**63, 2**63 - 1)),
    st.builds(np.uint8, st.integers(0, 255)),
)
ACTIONS = ["play", "play", "legal", "legal", "legal", "legal", "is_legal", "why_illegal", "chain",
           "liberties", "color_at", "undo", "undo", "pass", "copy", "copy", "score"]


def _call(b, action, arg):
    if action == "legal":
        return None
    if action == "pass":
        return b.pass_()
    if action == "copy":
        return b.copy()
    if action == "score":
        return b.score()
    return getattr(b, action)(arg)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_fuzz_api_boundary(data):
    width = data.draw(st.integers(1, 5), label="width")
    height = data.draw(st.integers(1, 5), label="height")
    rules = dict(ko=data.draw(st.sampled_from(["positional", "situational", "simple"])),
                 suicide=data.draw(st.booleans()),
                 scoring=data.draw(st.sampled_from(["area", "territory"])))
    if data.draw(st.booleans(), label="from array"):
        arr = np.array(data.draw(st.lists(st.integers(0, 2), min_size=width * height,
                                          max_size=width * height)), dtype=np.int8)
        arr = arr.reshape(height, width)
        try:
            b = fastgo.Board.from_array(arr, to_move=data.draw(st.sampled_from([BLACK, WHITE])),
                                        **rules)
        except ValueError:
            assert fastgo.is_legal_position(arr) is False
            b = fastgo.Board(width, height, **rules)
        else:
            assert fastgo.is_legal_position(arr) is True
    else:
        b = fastgo.Board(width, height, **rules)
    b.check_consistency()
    for _ in range(data.draw(st.integers(5, 40), label="steps")):
        action = data.draw(st.sampled_from(ACTIONS), label="action")
        if action == "undo":
            arg = data.draw(st.one_of(st.integers(0, 3), st.integers(0, 3), JUNK), label="n")
        elif action not in ("legal", "pass", "copy", "score"):
            arg = data.draw(JUNK, label="arg")
        else:
            arg = None
        if action == "legal":
            moves = b.legal_moves()
            assert moves == [int(m) for m in np.flatnonzero(b.legal_mask())]
            if not moves:
                assert b.is_over
                continue
            arg = data.draw(st.sampled_from(moves), label="legal move")
            action = "play"
        before = snapshot(b)
        predicted = None
        if action == "play":
            try:
                predicted = b.why_illegal(arg)
            except (TypeError, ValueError) as e:
                assert not isinstance(e, fastgo.IllegalMoveError)
                predicted = e
            assert snapshot(b) == before
        try:
            result = _call(b, action, arg)
        except (TypeError, ValueError) as e:
            assert snapshot(b) == before, (action, arg)
            if isinstance(e, fastgo.IllegalMoveError):
                assert action in ("play", "pass")
                assert e.reason in REASONS
                if action == "play":
                    assert predicted == e.reason, (arg, predicted, e.reason)
            elif action == "play":
                assert type(predicted) is type(e), (arg, predicted, e)
        else:
            if action == "play":
                assert predicted is None, (arg, predicted)
            elif action == "is_legal":
                assert result is True or result is False
            elif action == "why_illegal":
                assert result is None or result in REASONS
            elif action == "chain":
                assert result.color in (BLACK, WHITE) and len(result.stones) >= 1
            elif action == "copy":
                result.check_consistency()
                assert snapshot(result) == before
                if data.draw(st.booleans(), label="go on with the copy"):
                    b = result               # the copy must undo and play like the original
                    continue
            if action in ("is_legal", "why_illegal", "chain", "liberties", "color_at", "copy",
                          "score"):
                assert snapshot(b) == before, action
        b.check_consistency()


# ---------------------------------------------------------------------------------------------
# Exact counts of legal positions (Tromp & Farneback: 1, 57, 12675)


def all_colourings(height, width):
    n = height * width
    digits = (np.arange(3 ** n)[:, None] // 3 ** np.arange(n)) % 3
    return digits.reshape(-1, height, width).astype(np.int8)


def reference_legal(arr):
    """Every chain touches an empty point: flood fill from the empty points, by hand."""
    h, w = arr.shape
    ok = np.zeros_like(arr, dtype=bool)
    stack = [(r, c) for r in range(h) for c in range(w) if arr[r, c] == EMPTY]
    for r, c in stack:
        ok[r, c] = True
    while stack:
        r, c = stack.pop()
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < h and 0 <= cc < w and not ok[rr, cc]:
                # a stone is reached from an empty neighbour, or from a same-coloured stone
                if arr[r, c] == EMPTY or arr[rr, cc] == arr[r, c]:
                    ok[rr, cc] = True
                    stack.append((rr, cc))
    return bool(ok.all())


@pytest.mark.parametrize("height,width,expected", [(1, 1, 1), (2, 2, 57), (3, 3, 12675)])
def test_count_legal_positions(height, width, expected):
    count = accepted = 0
    for arr in all_colourings(height, width):
        legal = fastgo.is_legal_position(arr)
        assert legal is True or legal is False
        count += legal
        try:
            b = fastgo.Board.from_array(arr)
        except ValueError:
            assert not legal, arr
        else:
            assert legal, arr
            accepted += 1
            if accepted % 97 == 1:
                np.testing.assert_array_equal(b.stones(), arr)
                b.check_consistency()
    assert count == expected
    assert accepted == expected


@pytest.mark.parametrize("height,width", [(1, 4), (4, 1), (2, 3), (3, 2)])
def test_rectangular_legal_positions_match_reference(height, width):
    arrays = all_colourings(height, width)
    got = [fastgo.is_legal_position(a) for a in arrays]
    want = [reference_legal(a) for a in arrays]
    assert got == want
    # a board and its transpose have the same number of legal positions
    assert sum(got) == sum(reference_legal(a.T.copy()) for a in arrays)


# -- the constructors' signatures as documented -------------------------------------------------------

def _documented_signatures(cls):
    """The signatures that cls's docstring states: the one CPython reads from its first lines
    (``__text_signature__``, what inspect.signature and help show) and every ``Name(...)``
    literal, each as an inspect.Signature."""
    import inspect
    import re
    texts = re.findall(rf"``{cls.__name__}(\(.*?\))``", cls.__doc__, re.S)
    sigs = [inspect.signature(cls)]
    for text in texts:
        space = {}
        exec(f"def f{' '.join(text.split())}: pass", space)
        sigs.append(inspect.signature(space["f"]))
    return sigs


@pytest.mark.parametrize("cls", ["Board", "BoardBatch", "Search"])
def test_constructor_signatures_shown_are_the_ones_accepted(cls):
    # help() showed Board(width=9, height=None, rules=None, *, ...) from Cython's embedded
    # signature, whose `*` sits one parameter late: Board(9, 9, "chinese") fails
    from fastgo.search import Search
    cls = {"Board": fastgo.Board, "BoardBatch": fastgo.BoardBatch, "Search": Search}[cls]
    required = {"n": 2, "board": fastgo.Board(5)}
    small = {"threads": 1, "memory": 2**16}           # a cheap Search
    sigs = _documented_signatures(cls)
    assert sigs
    for sig in sigs:
        params = list(sig.parameters.values())
        positional = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
        keyword = [p for p in params if p.kind is p.KEYWORD_ONLY]
        assert positional and keyword and len(positional) + len(keyword) == len(params)
        args = [required[p.name] if p.default is p.empty else p.default for p in positional]
        kwargs = {k: v for k, v in small.items() if k in sig.parameters}
        cls(*args, **kwargs)                              # every positional one, by position
        for p in keyword:
            cls(*args, **{**kwargs, p.name: p.default})   # each keyword one by keyword...
            with pytest.raises(TypeError, match="positional"):
                cls(*args, p.default, **kwargs)           # ...and not by position


# ---------------------------------------------------------------------------------------------
# Batches, planes and symmetries: the argument named, the type or range said

def test_batch_arguments_of_the_wrong_kind_are_named():
    from fastgo import features
    from fastgo import symmetry as S
    # threads beyond int raised a bare OverflowError, naming nothing; playouts and Search bound
    # them to 1..1024
    for big in (1025, 2**31, 2**64):
        with pytest.raises(ValueError, match=rf"threads must be between 1 and 1024, got {big}"):
            fastgo.BoardBatch(2, 5, threads=big)
        with pytest.raises(ValueError, match="threads must be between 1 and 1024"):
            fastgo.random_actions(np.ones((2, 26), bool), threads=big)
    batch = fastgo.BoardBatch(2, 5)
    with pytest.raises(ValueError, match="threads must be between 1 and 1024"):
        batch.threads = 0
    # a list raised "unhashable type: 'list'" from a dict look-up
    with pytest.raises(ValueError, match="autoreset must be one of"):
        fastgo.BoardBatch(2, 5, autoreset=["disabled"])
    with pytest.raises(ValueError, match="unknown encoding"):
        batch.encode(["agz17"])
    # a big-endian float32 array was told it is no float32 array
    with pytest.raises(ValueError, match="in native byte order, got >f4"):
        batch.encode("agz17", out=np.zeros((2, 17, 5, 5), ">f4"))
    assert "autoreset=next-step" in repr(batch)         # (was the C code: autoreset=0)
    assert "autoreset=disabled" in repr(fastgo.BoardBatch(1, 5, autoreset="disabled"))
    # one Board's planes: the message named the batch of one's shape, (1, 17, 5, 5)
    for bad in (np.zeros((18, 5, 5), np.float32), np.zeros((17, 5, 5), np.float32)[:, ::-1]):
        with pytest.raises(ValueError, match=r"shape \(17, 5, 5\) in native byte order, got "
                                             rf"float32 \({bad.shape[0]}, 5, 5\)"):
            features.encode(fastgo.Board(5), "agz17", out=bad)
    # a point of a symmetry: 1.5 and True were taken as point 1, a pass 9.0 came back a float
    for bad in (1.5, True, 9.0, "A1", None):
        with pytest.raises(TypeError, match="point must be an integer"):
            S.transform_move(bad, 1, 3, 3)
    assert S.transform_move(np.int16(9), 5, 3, 3) == 9 and S.transform_move(0, 1, 3, 3) == 6


def test_player_settings_are_checked_when_it_is_made():
    """A fuzzer's findings: Player took every setting unchecked and failed at its first move
    (a numpy seed: OverflowError; seed='x': a string-formatting error; a bad resign_threshold
    only after 500 playouts). Numpy integers are ints, as Search and playouts take them."""
    from fastgo.player import Player
    p = Player(64, seed=np.int64(3), threads=np.int32(1))
    assert p.choose(fastgo.Board(5)).move is not None and p.seed == 3
    for kw, exc in [(dict(seed="x"), TypeError), (dict(seed=1.5), TypeError),
                    (dict(resign_threshold="x"), TypeError), (dict(resign_threshold=2), ValueError),
                    (dict(resign_threshold=1), ValueError),     # (resigned every move)
                    (dict(resign_threshold=float("nan")), ValueError), (dict(seconds=0), ValueError),
                    (dict(playouts=0), ValueError), (dict(threads=0), ValueError),
                    (dict(policy="x"), ValueError), (dict(memory=-1), ValueError),
                    (dict(exploration=float("inf")), ValueError), (dict(playouts=True), TypeError)]:
        with pytest.raises(exc):
            Player(**kw)
    with pytest.raises(TypeError, match="board must be a fastgo.Board"):
        p.choose("x")
    # a finished game has no move to choose: it returned Decision(move=None), which the
    # Decision's own docstring calls a resignation (a GTP tester's finding)
    over = fastgo.Board(5)
    over.pass_()
    over.pass_()
    with pytest.raises(ValueError, match="the game is over"):
        p.choose(over)


def test_flags_are_bools_everywhere():
    """playouts, Search and Simulation refused a flag that is no bool; sgf and the vector env
    took any truthy value, so strict="false" read a record strictly and insert_passes="no"
    inserted passes (an API tester's finding). numpy's bools are bools."""
    from fastgo import sgf
    text = "(;SZ[5];B[aa];B[bb])"
    for bad in ("false", "no", 1, 0, None):
        for call in (lambda v: sgf.read_game(text, strict=v), lambda v: sgf.read_games(text, strict=v),
                     lambda v: sgf.decode(b"(;SZ[5])", strict=v),
                     lambda v: list(sgf.iter_games(io.BytesIO(text.encode()), strict=v)),
                     lambda v: sgf.read_game(text).board(insert_passes=v),
                     lambda v: fastgo.Simulation.new(4, 5, records=v)):
            with pytest.raises(TypeError, match="must be a bool"):
                call(bad)
    assert sgf.read_game(text).board(insert_passes=np.bool_(True)).history == [20, 25, 16]


def test_none_means_the_default_and_a_board_is_asked_for_by_name():
    """threads=None and rules=None mean the default wherever they are taken (Player and the GTP
    Engine raised TypeError: "threads must be an int, not NoneType"); BoardBatch.set said
    Cython's "Argument 'board' has incorrect type" where the others say what they want."""
    from fastgo.gtp import Engine
    from fastgo.player import Player
    from fastgo.playout import default_threads
    assert Player(10, threads=None).threads == default_threads()
    e = Engine(threads=None, rules=None)
    assert e.player.threads == default_threads() and e.rules == fastgo.Rules.preset("tromp-taylor")
    with pytest.raises(TypeError, match="board must be a fastgo.Board, not str"):
        fastgo.BoardBatch(1, 5).set(0, "x")


def test_ko_choices_take_strings_of_any_kind():
    """ko= names one of the choices as a str of any kind (numpy's, a str Enum's member), kept
    as the plain text: a str Enum's member was taken as 'Ko.SIMPLE' and failed with a KeyError
    (a second reviewer's finding)."""
    import enum
    from fastgo.simulation import Simulation

    class Ko(str, enum.Enum):
        SIMPLE = "simple"
    b = fastgo.Board(5)
    want = fastgo.playouts(b, 4, seed=1, ko="simple").scores.tolist()
    for ko in (Ko.SIMPLE, np.str_("simple")):
        assert fastgo.playouts(b, 4, seed=1, ko=ko).scores.tolist() == want
        spec = Simulation.new(4, 5, ko=ko)
        assert type(spec.ko) is str and spec.ko == "simple" and '"ko": "simple"' in str(spec.to_dict()).replace("'", '"')
    with pytest.raises(ValueError, match="ko must be one of"):
        fastgo.playouts(b, 1, ko=b"simple")


def test_a_wrong_dtype_is_a_type_error_that_is_still_a_value_error():
    """A wrong type is a TypeError in every entry point: arrays of the wrong dtype (actions,
    masks, out=) and a symmetry that is no int said ValueError, where Board and GoEnv say
    TypeError for the same mistake (an API tester's finding). They raise
    errors.ArgumentTypeError, both, so callers that caught ValueError still do; a wrong shape
    or range stays a ValueError alone."""
    from fastgo import symmetry
    from fastgo.errors import ArgumentTypeError
    batch = fastgo.BoardBatch(2, 5)
    b = fastgo.Board(5)
    for call in (lambda: batch.step(np.array([1.0, 2.0])), lambda: batch.step(["a", "b"]),
                 lambda: batch.legal_mask(out=np.zeros((2, 26), np.int8)),
                 lambda: b.legal_mask(out=np.zeros(26, np.uint8)),
                 lambda: fastgo.random_actions(np.zeros((2, 26), np.float32)),
                 lambda: symmetry.transform_move(3, "1", 5, 5),
                 lambda: symmetry.transform_move(3, 1.0, 5, 5)):
        with pytest.raises(ArgumentTypeError) as e:
            call()
        assert isinstance(e.value, TypeError) and isinstance(e.value, ValueError)
    for call in (lambda: batch.step(np.array([1, 2, 3])),
                 lambda: batch.legal_mask(out=np.zeros((3, 26), bool)),
                 lambda: b.legal_mask(out=np.zeros(25, bool)),
                 lambda: symmetry.transform_move(3, 8, 5, 5)):
        with pytest.raises(ValueError) as e:
            call()
        assert not isinstance(e.value, TypeError)
    assert batch.move_numbers.tolist() == [0, 0]


def test_earlier_parts_of_a_game_are_checked():
    """sgf.score and Player.choose(earlier=): items that are no Board raised AttributeError, a
    board of another size was taken silently."""
    from fastgo import sgf
    from fastgo.player import Player
    b = fastgo.Board(5)
    for bad, exc in [([None], TypeError), ((1,), TypeError), ("x", TypeError),
                     (b, TypeError), ([fastgo.Board(7)], ValueError)]:
        with pytest.raises(exc):
            sgf.score(b, bad)
        with pytest.raises(exc):
            Player(16).choose(b, earlier=bad)
    assert sgf.score(b, [fastgo.Board(5)]) == b.score()


def test_batch_max_moves_past_int64_is_a_value_error():
    for v in (2**63, np.uint64(2**63), 10**30, 0, -1):
        with pytest.raises(ValueError, match="max_moves"):
            fastgo.BoardBatch(2, 5, max_moves=v)


def test_symmetry_functions_check_the_board_and_its_size():
    """A fuzzer's findings: transform_policy computed width * height before any check (a str
    width was repeated: a 40 GB string, then MemoryError), transform_board read attributes of
    anything, symmetries took anything."""
    import fastgo.symmetry as sym
    p = np.zeros(10)
    for width, height, exc in [("positional", 2**32, TypeError), (np.uint64(3), -1, ValueError),
                               (2**63, 1, ValueError), (-3, -3, ValueError), (None, 3, TypeError)]:
        with pytest.raises(exc):
            sym.transform_policy(p, 0, width, height)
        with pytest.raises(exc):
            sym.symmetries(width, height)
    with pytest.raises(TypeError, match="fastgo.Board"):
        sym.transform_board(fastgo.BoardBatch(1, 9), 0)
    assert list(sym.symmetries(np.int64(3), 3)) == list(range(8))
    assert sym.transform_policy(np.arange(10), 1, 3, 3).tolist() == [6, 7, 8, 3, 4, 5, 0, 1, 2, 9]


def test_a_numpy_array_as_a_move_says_what_a_move_is():
    """A fuzzer's finding: an array of other than one element passed numpy's "only integer
    scalar arrays can be converted to a scalar index" through; the board's own words now (as
    for any other object), and the board is unchanged."""
    b = fastgo.Board(9)
    b.play(0)
    before = snapshot(b)
    for m in (np.array([1, 2]), np.array([]), np.zeros((2, 2), np.int64)):
        for call in (b.play, b.is_legal, b.why_illegal, b.hash_after):
            with pytest.raises(TypeError, match="move must be an integer, not ndarray"):
                call(m)
    assert snapshot(b) == before
    b.play(np.array(5))                 # a 0-d array is a point
    assert b.history == [0, 5]


def test_a_seed_past_1000_bits_is_refused_in_a_short_message():
    """Seeds are ints between -2**1000 and 2**1000, taken modulo 2**64 (the docstrings said any int,
    and the refusal printed both 302-digit bounds: 939 characters)."""
    from fastgo.player import Player
    from fastgo.search import Search
    b = fastgo.Board(5)
    for make in (lambda s: fastgo.playouts(b, 1, seed=s), lambda s: Search(b, seed=s),
                 lambda s: Player(8, seed=s)):
        for seed in (2**1000 + 1, -2**1000 - 1):
            with pytest.raises(ValueError) as e:
                make(seed)
            assert str(e.value) == ("seed must be an int between -2**1000 and 2**1000 (it is "
                                    "taken modulo 2**64)")
        make(2**1000)
        make(-2**1000)
    # taken modulo 2**64: the same games
    assert (fastgo.playouts(b, 4, seed=2**1000).scores
            == fastgo.playouts(b, 4, seed=2**1000 % 2**64).scores).all()
