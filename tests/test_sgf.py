"""SGF: hand-made records (tests/data), round trips, set-up and handicap, rectangular boards,
replay errors with move numbers, malformed files with their line and column."""

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import fastgo
from fastgo import sgf
from board_state import random_game

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
# the directory holding the fastgo these tests import (src/ or site-packages): subprocesses get it
SRC = os.path.dirname(os.path.dirname(os.path.abspath(fastgo.__file__)))


def data(name):
    return os.path.join(DATA, name)


def stones_of(diagram):
    return fastgo.Board.from_diagram(diagram).stones()


def test_rectangular_record_with_setup_pass_and_variations():
    g = sgf.load(data("rect_setup.sgf"))
    assert (g.width, g.height, g.komi, g.handicap, g.result) == (7, 5, 0.5, 0, "W+R")
    assert g.rules == fastgo.PRESETS["chinese"].replace(komi=0.5) and g.rules_name == "Chinese"
    assert g.info["PB"] == "Black Player" and g.info["PW"] == "White ] Player"
    assert np.array_equal(g.setup, stones_of("""
        X X . . . . .
        X X . . . . .
        . . . . . . .
        . . . . . . O
        . . . . . O ."""))
    assert g.to_move == fastgo.WHITE
    v = [(c, fastgo.point_to_vertex(p, 7, 5)) for c, p in g.moves]
    assert v == [(2, "D3"), (1, "C3"), (2, "pass"), (1, "E3"), (2, "D2"), (1, "D4")]
    b = g.board()
    assert np.array_equal(b.stones(), stones_of("""
        X X . . . . .
        X X . X . . .
        . . X O X . .
        . . . O . . O
        . . . . . O ."""))
    assert b.to_move == fastgo.WHITE and b.rules.komi == 0.5
    assert len(g.board(upto=3).history) == 2


def test_tree_structure_escapes_and_old_identifiers():
    roots = sgf.parse("junk before (;FF[3]AddBlack[aa]C[a \\] b \\\\ c\\\nd]"
                      "(;B[bb];W[cc](;B[dd])(;B[ee]))(;B[ff]))")
    (root,) = roots
    assert root.props["AB"] == ["aa"]                     # lower-case letters dropped (FF[3])
    assert root.get("C") == "a ] b \\ cd"                 # escapes and a soft line break
    assert [n.get("B") or n.get("W") for n in root.main_line()][1:] == ["bb", "cc", "dd"]
    assert [c.get("B") for c in root.children] == ["bb", "ff"]
    assert [c.get("B") for c in root.children[0].children[0].children] == ["dd", "ee"]


def test_handicap_record_with_ff3_pass():
    g = sgf.load(data("handicap_19.sgf"))
    assert (g.width, g.height, g.handicap, g.to_move) == (19, 19, 2, fastgo.WHITE)
    assert sorted(fastgo.point_to_vertex(int(p), 19, 19) for p in np.flatnonzero(g.setup)) == ["D4", "Q16"]
    b = g.board()
    assert [fastgo.point_to_vertex(p, 19, 19) for p in b.history] == ["R4", "pass", "D16"]
    assert b.rules == fastgo.PRESETS["japanese"].replace(komi=0.5)
    # on boards over 19x19 "tt" is a point, not a pass
    g = sgf.read_game("(;SZ[21];B[tt])")
    assert fastgo.point_to_vertex(g.moves[0][1], 21, 21) == "U2"


def test_replay_reports_the_first_illegal_move_with_its_number():
    g = sgf.load(data("ko_illegal.sgf"))
    with pytest.raises(sgf.ReplayError) as e:
        g.board()                                     # RU[Japanese]: simple ko
    assert (e.value.move_number, e.value.colour, e.value.vertex, e.value.reason) == (10, 2, "C3", "ko")
    assert (e.value.line, e.value.column) == (4, 3)
    assert str(e.value) == ("move 10 (W C3) is illegal: ko, under Japanese rules (the record's "
                            "RU[Japanese]), komi 0 (the record's KM[]); choose other rules with "
                            "rules= (Game.board) or --rules (fastgo replay) (line 4, column 3)")
    with pytest.raises(sgf.ReplayError, match="move 10 .* superko"):
        g.board(rules="chinese")
    assert len(g.board(upto=10).history) == 9         # everything before it is fine
    with pytest.raises(sgf.ReplayError, match=r"move 4 \(B D2\) is illegal: not this colour's turn"):
        sgf.read_game("(;SZ[5];B[aa];W[bb];B[cc];B[dd])").board()
    with pytest.raises(sgf.ReplayError, match=r"move 3 \(B pass\) is illegal: game over"):
        sgf.read_game("(;SZ[5];B[];W[];B[])").board()


def test_insert_passes_between_moves_of_one_colour():
    g = sgf.read_game("(;SZ[5];B[aa];W[bb];B[cc];B[dd];W[ee])")
    b = g.board(insert_passes=True)
    assert [fastgo.point_to_vertex(p, 5, 5) for p in b.history] == ["A5", "B4", "C3", "pass", "D2", "E1"]
    assert len(g.board(upto=4, insert_passes=True).history) == 3
    # a pass right before would end the game: without insert_passes an error with the record's
    # move number; with it the game resumes from the stones as a new set-up (as GTP play does)
    g = sgf.read_game("(;SZ[5];B[aa];W[];W[bb])")
    with pytest.raises(sgf.ReplayError, match=r"move 3 \(W B4\) is illegal: not this colour's turn"):
        g.board()
    first, second = g.segments(insert_passes=True)
    assert [fastgo.point_to_vertex(p, 5, 5) for p in first.history] == ["A5", "pass"]
    assert [fastgo.point_to_vertex(p, 5, 5) for p in second.history] == ["B4"]
    assert second.first_player == fastgo.WHITE and second.start_position()[4, 0] == fastgo.BLACK
    b = sgf.read_game("(;SZ[5]PL[B];W[aa];W[bb])").board(insert_passes=True)
    assert [fastgo.point_to_vertex(p, 5, 5) for p in b.history] == ["pass", "A5", "pass", "B4"]


def test_wall_record_scores_as_hand_counted():
    b = sgf.load(data("wall.sgf")).board()
    assert b.is_over
    s = b.score()                                     # Black A-C: 15; White D-E: 10 + 7.5
    assert (s.black, s.white) == (15, 17.5)
    assert sgf.result_text(s) == "W+2.5" == sgf.load(data("wall.sgf")).result


def test_encodings_and_collections():
    g = sgf.load(data("latin1.sgf"))
    assert g.info["PB"] == "Jörg" and g.info["PW"] == "René"
    games = sgf.read_games(open(data("collection.sgf")).read())
    assert [(x.width, x.komi, len(x.moves)) for x in games] == [(9, None, 2), (13, 6.5, 1)]
    assert sgf.load(data("collection.sgf"), 1).width == 13
    with pytest.raises(sgf.SgfError, match="2 game tree"):
        sgf.load(data("collection.sgf"), 2)


MALFORMED = [
    ("", "no game tree", 1, 1),
    ("hello", "no game tree", 1, 6),
    ("(;B[aa]", "unexpected end of file", 1, 8),
    ("(;B[aa", "unterminated value of property B", 1, 4),
    ("(;B[aa]))", "unmatched ')'", 1, 9),
    ("()", "empty game tree", 1, 2),
    ("(B[aa])", "unexpected 'B'", 1, 2),
    ("(;B[aa](;W[bb]);B[cc])", "a node after a variation", 1, 16),
    ("(;SZ[9]\n;B[aa]\n;W ;B[cc])", "property W has no value", 3, 4),
    ("(;B[aa])x", "unexpected 'x' after a game tree", 1, 9),
    ("(;SZ[9]((;B[aa])))", "a game tree must start with a node", 1, 9),
    ("(;1[aa])", "unexpected '1'", 1, 3),
    ("(;GM[2]SZ[8])", "not a Go game record", 1, 5),
    ("(;SZ[53])", "board size SZ[53] not supported: SGF boards are 1..52", 1, 5),
    ("(;SZ[52:0])", "board size SZ[52:0] not supported", 1, 5),
    ("(;SZ[0:9])", "board size SZ[0:9] not supported", 1, 5),
    ("(;SZ[9:x])", "bad board size", 1, 5),
    ("(;SZ[9]\n;B[jj])", "point 'jj' is off the 9x9 board", 2, 3),
    ("(;SZ[9];B[a])", "bad point 'a'", 1, 10),
    ("(;SZ[9];B[aa]W[bb])", "both a black and a white move", 1, 8),
    ("(;SZ[9];B[aa];AB[bb])", "set-up AB after the first move is not supported", 1, 17),
    ("(;SZ[9];B[aa][bb])", "move B with 2 values", 1, 14),
    ("(;SZ[9]PL[X])", "bad player", 1, 10),
    ("(;SZ[9]AB[aa:zz])", "point 'zz' is off the 9x9 board", 1, 10),
    ("(;SZ[9]AB[aa:bb]AE[bb])", "point 'bb' is in both AB and AE of one node", 1, 19),
    ("(;SZ[9]AB[cc]\nAW[dd][cc])", "point 'cc' is in both AB and AW of one node", 2, 7),
    ("(;SZ[19:20];B[tt])", "point 'tt' is off the 19x20 board", 1, 14),   # a pass only to 19x19
    ("(;SZ[9];PL[Q];B[aa])", "bad player PL[Q]", 1, 11),
]


#: What lenient reading warns about and strict reading refuses, as MALFORMED's rows.
LENIENT = [
    ("(;SZ[9]KM[abc])", "bad komi KM[abc]", 1, 10),
    ("(;SZ[9]KM[inf])", "bad komi KM[inf]", 1, 10),
    ("(;SZ[9]HA[two])", "bad handicap HA[two]", 1, 10),
    ("(;SZ[9]HA[-1])", "bad handicap HA[-1]", 1, 10),
    ("(;SZ[9]\nHA[7.5]PB[x])", "bad handicap HA[7.5]", 2, 3),
    ("(;SZ[9];AB[bb])", "set-up AB after the root node is not supported", 1, 11),
    # FF[4]: "Only one of each property is allowed per node"
    ("(;SZ[5]SZ[7])", "property SZ repeated in one node", 1, 10),
    ("(;SZ[9]KM[7.5]\nKM[3])", "property KM repeated in one node", 2, 3),
    ("(;PL[B]PL[W])", "property PL repeated in one node", 1, 10),
    ("(;SZ[9]AB[aa]AddBlack[bb])", "property AB repeated in one node", 1, 22),
    ("(;SZ[9];B[aa]C[x]C[y])", "property C repeated in one node", 1, 19),
]


def test_a_property_repeated_in_a_node_is_read_leniently_with_a_warning():
    """Lenient reading goes on as before, with an SgfWarning: a single-valued property's first
    value, every stone of a repeated set-up list; strict reading refuses (LENIENT above)."""
    with pytest.warns(sgf.SgfWarning) as caught:
        g = sgf.read_game("(;SZ[5]SZ[7]KM[7.5]KM[3]PL[W]PL[B])")
    assert [str(w.message) for w in caught] == [
        f"property {ident} repeated in one node (FF[4] allows one of each per node): the first "
        f"is used (line 1, column {column})" for ident, column in (("SZ", 10), ("KM", 22),
                                                                   ("PL", 32))]
    assert (g.width, g.komi, g.to_move) == (5, 7.5, fastgo.WHITE)
    with pytest.warns(sgf.SgfWarning) as caught:
        g = sgf.read_game("(;SZ[5]AB[aa]AB[bb])")
    assert [str(w.message) for w in caught] == [
        "property AB repeated in one node (FF[4] allows one of each per node): the stones of "
        "each are set up (line 1, column 16)"]
    assert g.setup.sum() == 2 * fastgo.BLACK
    with pytest.raises(sgf.SgfError, match="move B with 2 values"):    # which move: unknown
        sgf.read_game("(;SZ[5];B[aa]B[bb])")


def test_lenient_warnings_leave_no_registry_behind(tmp_path):
    """Each warning names its game's line and column, so under the default filter Python's
    __warningregistry__ of the reading module kept one text per warned game: a server reading
    records grew without end (about 1 KB a game). Every warning is still issued, each time,
    from the caller's line, by read_game, read_games, iter_games and load."""
    import warnings
    import fastgo.sgf
    texts = [f"(;SZ[9]KM[{750 + i}];B[aa])" for i in range(300)]     # Fox's komi: a warning each
    path = tmp_path / "fox.sgf"
    path.write_text("\n".join(texts))
    registry = globals().setdefault("__warningregistry__", {})
    registry.clear()
    module_registry = vars(fastgo.sgf).setdefault("__warningregistry__", {})
    module_registry.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for t in texts:
            sgf.read_game(t)
        sgf.read_games("".join(texts))
        assert len(list(sgf.iter_games(path))) == 300
        assert [sgf.load(path, i).moves for i in range(0, 300, 30)] == [[(fastgo.BLACK, fastgo.vertex_to_point("A9", 9, 9))]] * 10
    assert len(caught) == 3 * 300 + 10
    assert all(issubclass(w.category, sgf.SgfWarning) and "KM[" in str(w.message) for w in caught)
    assert len(registry) <= 1 and len(module_registry) <= 1      # ("version" at most)
    assert {w.filename for w in caught} == {__file__}            # (load and iter_games too)


@pytest.mark.parametrize("how", ["-c", "-m", "stdin"])
def test_lenient_warnings_from_scripts_without_a_source_file(how, tmp_path):
    """A lenient read's warnings from `python -c`, `python -m` and a script on stdin (where a
    module's loader has no source to give) are shown, and the game is read."""
    code = ("import warnings; from fastgo import sgf\n"
            "g = sgf.read_game('(;SZ[9]KM[750];B[aa])')\n"
            "print(len(g.moves), len(list(sgf.iter_games(__import__('io').BytesIO("
            "b'(;SZ[9]KM[750])(;SZ[9]KM[650])')))))\n")
    (tmp_path / "reader.py").write_text(code)
    args = {"-c": ["-c", code], "-m": ["-m", "reader"], "stdin": ["-"]}[how]
    r = subprocess.run([sys.executable, "-W", "default", *args], input=code if how == "stdin" else None,
                       capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 0 and r.stdout.split() == ["1", "2"], r.stderr
    assert r.stderr.count("SgfWarning: KM[") == 3


#: The properties the writers write themselves, each with a value that would change the game.
WRITER_OWNED = [("FF", "3"), ("GM", "1"), ("CA", "Latin-1"), ("AP", "other"), ("SZ", "7"),
                ("RU", "Japanese"), ("KM", "3"), ("HA", "2"), ("RE", "B+R"), ("PL", "W"),
                ("AB", "cc"), ("AW", "cc"), ("AE", "ee"), ("B", "ee"), ("W", "ee")]


@pytest.mark.parametrize("ident, value", WRITER_OWNED)
def test_writers_refuse_extra_root_properties_they_write_themselves(ident, value):
    """FF[4] allows one of each property per node, and the sgf docstring says reading what the
    writers write gives the same game: `info` may add PB or GC, not a second KM or a stone."""
    for write in (sgf.board_to_sgf, sgf.game_of_board):
        with pytest.raises(ValueError, match=f"info may not set {ident}: the writers take"):
            write(fastgo.Board(9), **{ident: value})
    with pytest.raises(ValueError, match=f"info may not set {ident}"):
        sgf.games_to_sgf([[40]], 9, **{ident: value})
    g = sgf.game_of_board(fastgo.Board(9))
    g.info[ident] = value
    with pytest.raises(ValueError, match=f"info may not set {ident}"):
        sgf.to_sgf(g)


def test_writers_take_other_root_properties_and_refuse_malformed_identifiers():
    b = fastgo.Board(9, komi=6.5)
    b.play("E5")
    text = sgf.board_to_sgf(b, PB="fastgo", GC="a ] comment", XY="kept")
    g = sgf.read_game(text, strict=True)
    assert g.info == {"PB": "fastgo", "GC": "a ] comment"} and "XY[kept]" in text
    assert g.board() == b
    for ident in ("pb", "Pb", "P1", "", "PÖ", "P B"):     # FF[4]: upper-case letters only
        with pytest.raises(ValueError, match="SGF property identifiers are upper-case letters"):
            sgf.board_to_sgf(b, **{ident: "x"})
        with pytest.raises(ValueError, match="upper-case letters"):
            sgf.game_of_board(b, **{ident: "x"})


@pytest.mark.parametrize("text, message, line, column, strict",
                         [r + (False,) for r in MALFORMED] + [r + (True,) for r in LENIENT])
def test_malformed_files_say_what_and_where(text, message, line, column, strict):
    with pytest.raises(sgf.SgfError) as e:
        sgf.read_game(text, strict=strict)
    assert message in str(e.value)
    assert (e.value.line, e.value.column) == (line, column)
    assert str(e.value).endswith(f"(line {line}, column {column})")


def test_setup_rules_not_matching_a_preset_and_an_empty_board_white_to_move():
    b = fastgo.Board(6, 4, ko="situational", suicide=False, scoring="territory", komi=-2)
    text = sgf.board_to_sgf(b)
    assert "RU[fastgo:ko=situational,suicide=forbidden,scoring=territory]KM[-2]" in text
    assert sgf.read_game(text).board() == b
    w = fastgo.Board.from_array(np.zeros((3, 4), dtype=np.int8), to_move=fastgo.WHITE)
    text = sgf.board_to_sgf(w)
    assert "PL[W]" in text and sgf.read_game(text).board() == w
    assert sgf.rules_from_name("Korean") == fastgo.PRESETS["japanese"]
    assert sgf.rules_from_name("GOE") == fastgo.PRESETS["ing"]
    assert sgf.rules_from_name("New Zealand") == fastgo.PRESETS["new-zealand"]
    assert sgf.rules_from_name("calvinball") is None
    g = sgf.read_game("(;SZ[5]RU[calvinball]KM[3])")
    assert g.rules is None and g.effective_rules() == sgf.RECORD_RULES.replace(komi=3)


@pytest.mark.parametrize("size, kw, seed", [
    ((1, 1), {}, 0), ((2, 3), {}, 1), ((7, 5), dict(rules="chinese"), 2),
    ((9, 9), dict(rules="japanese", handicap=3), 3), ((13, 19), dict(ko="situational"), 4),
    ((19, 19), dict(rules="aga", handicap=9), 5), ((25, 25), dict(rules="ing"), 6),
    ((25, 2), dict(rules="new-zealand", komi=0), 7), ((5, 5), dict(handicap=["A1", "E5", "C3"]), 8),
    ((4, 4), dict(komi=6.123456789), 9), ((6, 3), dict(komi=-0.25, rules="chinese"), 10),
])
def test_round_trip_of_random_games(size, kw, seed):
    b = fastgo.Board(*size, **kw)
    random_game(b, np.random.default_rng(seed))
    text = sgf.board_to_sgf(b, PB="fastgo", GC="round ] trip")
    g = sgf.read_game(text)
    assert g.board() == b                                   # same set-up, rules, turns
    assert g.info == {"PB": "fastgo", "GC": "round ] trip"}
    assert sgf.to_sgf(g) == text                            # and writing again changes nothing
    if b.is_over:
        assert g.result == sgf.result_text(b.score())


def test_round_trip_of_a_diagram_setup():
    b = fastgo.Board.from_diagram("""
        . X O .
        X . X O
        . X O .""", to_move=fastgo.WHITE, rules="chinese")
    b.play("B2")                                      # White takes the ko
    c = sgf.read_game(sgf.board_to_sgf(b)).board()
    assert c == b
    assert c.why_illegal("C2") == b.why_illegal("C2") == "superko"   # the set-up is remembered
    b.play("A1")
    c = sgf.read_game(sgf.board_to_sgf(b)).board()
    assert c == b and c.why_illegal("C2") is None is b.why_illegal("C2")


@pytest.mark.parametrize("handicap, setup", [(0, ""), (2, "AB[cc][gg]"), (2, ""), (3, "AB[cc][gg][ee]")])
@pytest.mark.parametrize("pl", ["", "PL[B]", "PL[W]"])
@pytest.mark.parametrize("moves", ["", ";W[dd]", ";B[dd]"])
def test_the_side_to_move_round_trips_whatever_the_handicap(handicap, setup, pl, moves):
    """to_sgf writes PL where the reader would otherwise choose another side: after HA[2] or
    more without moves the reader's default is White (PL[B] was left out and came back White)."""
    ha = f"HA[{handicap}]" if handicap else ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sgf.SgfWarning)
        g = sgf.read_game(f"(;GM[1]FF[4]SZ[9]{ha}{setup}{pl}{moves})")
    # HA[n] with other than n black stones set up is read as written, with a warning
    assert len(g.warnings) == (handicap >= 2 and setup.count("[") != handicap)
    BLACK, WHITE = fastgo.BLACK, fastgo.WHITE
    want = (BLACK if pl == "PL[B]" else WHITE if pl == "PL[W]" else
            (BLACK if moves[1] == "B" else WHITE) if moves else WHITE if handicap >= 2 else BLACK)
    assert g.to_move == want
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sgf.SgfWarning)
        back = sgf.read_game(sgf.to_sgf(g))
    assert back == g and back.to_move == want


@pytest.mark.parametrize("text, ident, values", [("(;SZ[9][13])", "SZ", 2), ("(;SZ[9]KM[5][6])", "KM", 2),
                                                 ("(;SZ[9]PL[W][B])", "PL", 2),
                                                 ("(;SZ[9]HA[2][3]AB[aa][bb])", "HA", 2),
                                                 ("(;SZ[9]RU[Chinese][Japanese][AGA])", "RU", 3)])
def test_a_single_valued_property_with_several_values_is_a_repeat(text, ident, values):
    """FF[4]: SZ, KM, HA, PL, RU hold one value; SZ[9][13] is SZ[9]SZ[13] written another way
    (lenient: the first, with a warning; strict: refused). It was read as its first value with
    no word, even under strict=True, while the repeat was refused."""
    message = f"property {ident} with {values} values (FF[4] allows one)"
    with pytest.warns(sgf.SgfWarning, match=re.escape(message + ": the first is used")):
        g = sgf.read_game(text)
    first = sgf.read_game(re.sub(ident + r"(\[[^]]*\])(\[[^]]*\])+", ident + r"\1", text))
    assert g == first and g.width == 9
    with pytest.raises(sgf.SgfError, match=re.escape(message)):
        sgf.read_game(text, strict=True)


@pytest.mark.parametrize("text, black", [("(;SZ[19]HA[4]KM[0.5];W[pd];B[dd])", 0),
                                         ("(;SZ[19]HA[4]AB[dd];W[pd])", 1),
                                         ("(;SZ[19]HA[2]AB[dd][pp][dp])", 3)])
def test_a_handicap_its_set_up_contradicts_is_read_as_written_with_a_warning(text, black):
    """FF[4]: a handicap's stones are set up with AB in its node; HA[n] with other than n black
    stones was read without a word (strict too), as board_to_sgf refuses to write it."""
    n = int(re.search(r"HA\[(\d+)\]", text).group(1))
    message = f"HA[{n}] but {black} black stone{'s' * (black != 1)} set up"
    with pytest.warns(sgf.SgfWarning, match=re.escape(message)):
        g = sgf.read_game(text)
    assert g.handicap == n and int((g.setup == fastgo.BLACK).sum()) == black
    with pytest.raises(sgf.SgfError, match=re.escape(message)):
        sgf.read_game(text, strict=True)
    # as FF[4] has it: no warning
    assert sgf.read_game("(;SZ[19]HA[2]AB[dd][pp];W[pd])", strict=True).handicap == 2


def test_games_to_sgf_from_recorded_playouts_replay_to_their_scores():
    playouts = getattr(fastgo, "playouts", None)
    if playouts is None:
        from fastgo.playout import playouts
    start = fastgo.Board(7, 6, rules="chinese")
    start.play("D4")
    res = playouts(start, 5, seed=3, threads=1, record=5)
    text = sgf.games_to_sgf(res.moves, start=start, PB="random", PW="random")
    games = sgf.read_games(text)
    assert len(games) == 5
    for i, g in enumerate(games):
        b = g.board()
        assert b.history == [start.history[0]] + list(map(int, res.moves[i]))
        assert b.score().margin == res.scores[i]
        if not res.capped[i]:
            assert b.is_over and g.result == sgf.result_text(b.score())
    with pytest.raises(fastgo.IllegalMoveError):
        sgf.games_to_sgf([[3, 3]], 9)


def test_big_boards_up_to_52_are_read_and_written_but_not_replayed():
    text = "(;FF[4]GM[1]SZ[52:30]KM[6.5]AB[Zd][aB:bC]AW[aa]\n;B[tt];W[Zc];B[];W[tt])"
    g = sgf.read_game(text)
    assert (g.width, g.height, g.komi) == (52, 30, 6.5)
    # "Zd": column 51 ("Z" is the 52nd letter), fourth row from the top (row 26 from the
    # bottom); "aB:bC": columns 0-1, rows 27-28 from the top ("B" is the 28th letter); "tt" is
    # the point (19, 19) here, not a pass; points are row * width + col, row 0 at the bottom
    assert g.setup[26, 51] == fastgo.BLACK and g.setup[29, 0] == fastgo.WHITE
    assert g.setup[1:3, 0:2].tolist() == [[1, 1], [1, 1]]         # aB:bC, rows 27 and 28 from the top
    assert np.count_nonzero(g.setup) == 6
    assert g.moves == [(1, 10 * 52 + 19), (2, 27 * 52 + 51), (1, 52 * 30), (2, 10 * 52 + 19)]
    assert sgf.read_game(sgf.to_sgf(g)) == g                      # round trip
    with pytest.raises(sgf.SgfError) as e:
        g.board()
    assert str(e.value) == ("cannot replay a 52x30 board: fastgo boards are 1..25 points a side "
                            "(line 1, column 15)")
    g = sgf.read_game("(;SZ[52];B[ZZ])")
    assert g.moves == [(1, 51)] and sgf.to_sgf(g).endswith("SZ[52]\n;B[ZZ])\n")
    # up to 19x19 "tt" is a pass, and written passes are always "[]"
    g = sgf.read_game("(;SZ[19:13];B[tt];W[aa])")
    assert g.moves == [(1, 19 * 13), (2, 12 * 19)]
    assert sgf.to_sgf(g).endswith(";B[];W[aa])\n")


def test_setup_with_ae_pl_and_escaped_text():
    text = ("(;GM[1]FF[4]SZ[5]AB[aa:ae]AW[ee]AE[cc]PL[W]KM[-3.5]HA[0]RE[B+R]RU[AGA]"
            r"C[a \\ backslash, a \] bracket, a \\\] both]GN[x\\]" "\n;W[cc])")
    g = sgf.read_game(text)
    assert g.to_move == fastgo.WHITE and g.komi == -3.5 and g.handicap == 0
    assert g.result == "B+R" and g.rules == fastgo.PRESETS["aga"].replace(komi=-3.5)
    assert np.count_nonzero(g.setup == fastgo.BLACK) == 5 and g.setup[0, 4] == fastgo.WHITE
    assert g.info["GN"] == "x\\"
    assert sgf.parse(text)[0].get("C") == r"a \ backslash, a ] bracket, a \] both"
    b = g.board()
    assert b.history == [fastgo.vertex_to_point("C3", 5, 5)] and b.rules.komi == -3.5
    again = sgf.read_game(sgf.to_sgf(g))
    assert again == g and again.info["GN"] == "x\\"
    assert "RU[AGA]KM[-3.5]" in sgf.to_sgf(g) and "RE[B+R]" in sgf.to_sgf(g)


def test_public_functions_validate_their_arguments():
    g = sgf.read_game("(;SZ[5];B[aa];W[bb])")
    with pytest.raises(ValueError, match="upto must be at least 1"):
        g.board(upto=0)
    with pytest.raises(TypeError, match="upto must be an int"):
        g.board(upto="2")
    with pytest.raises(ValueError, match="unknown rules preset"):
        g.board(rules="calvinball")
    with pytest.raises(TypeError, match="SGF text must be a str"):
        sgf.parse(b"(;SZ[5])")
    with pytest.raises(TypeError, match="index must be an int"):
        sgf.read_game("(;SZ[5])", "0")
    with pytest.raises(ValueError, match="must be 1..52"):
        sgf.Game(width=60, height=5)
    with pytest.raises(ValueError, match="shape"):
        sgf.Game(width=5, height=5, setup=np.zeros((4, 4), dtype=np.int8))
    with pytest.raises(ValueError, match="upper-case letters"):
        sgf.board_to_sgf(fastgo.Board(5), pb="me")
    with pytest.raises(ValueError, match="no games to write"):
        sgf.games_to_sgf(fastgo.simulate(3, 5, seed=1, threads=1).moves, 5)
    with pytest.raises(TypeError, match="move_lists"):
        sgf.games_to_sgf(7, 5)
    with pytest.raises(TypeError, match="start must be"):
        sgf.games_to_sgf([[1]], start="board")
    with pytest.raises(fastgo.IllegalMoveError, match="game 1, turn 2: .*occupied"):
        sgf.games_to_sgf([[0, 1], [2, 2]], 5)


def test_games_to_sgf_takes_a_playouts_result_and_leaves_capped_games_without_a_result():
    b = fastgo.Board(5, rules="chinese")
    b.play("C3")
    res = fastgo.playouts(b, 4, seed=2, threads=1, record=[1, 3], max_moves=6)
    assert res.capped[[1, 3]].all()
    games = sgf.read_games(sgf.games_to_sgf(res, start=b))
    assert [len(g.moves) for g in games] == [1 + len(m) for m in res.moves] == [7, 7]
    assert all(g.result is None for g in games)
    res = fastgo.playouts(b, 4, seed=2, threads=1, record=4)
    games = sgf.read_games(sgf.games_to_sgf(res, start=b))
    for g, score, capped in zip(games, res.scores, res.capped):
        assert not capped and g.result == sgf.result_text(g.board().score())
        assert g.board().score().margin == score


def test_replay_command_on_several_files_and_collections(tmp_path):
    env = dict(os.environ, PYTHONPATH=SRC)
    r = subprocess.run([sys.executable, "-m", "fastgo", "replay", data("collection.sgf"),
                        data("ko_illegal.sgf"), data("wall.sgf")],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 1                               # one file had an illegal move
    heads = [line for line in r.stdout.splitlines() if line.startswith("== ")]
    assert heads == [f"== {data('collection.sgf')}, game 1",
                     f"== {data('collection.sgf')}, game 2",
                     f"== {data('ko_illegal.sgf')}", f"== {data('wall.sgf')}"]
    assert ("13x13, Japanese rules (the default for records without RU[]), komi 6.5 (the "
            "record's KM[]); 1 move replayed") in r.stdout
    assert "12 moves replayed, all legal; game over: True" in r.stdout   # wall.sgf still ran
    assert r.stderr == (f"fastgo replay: {data('ko_illegal.sgf')}: move 10 (W C3) is illegal: "
                        "ko, under Japanese rules (the record's RU[Japanese]), komi 0 (the "
                        "record's KM[]); choose other rules with rules= (Game.board) or --rules "
                        "(fastgo replay) (line 4, column 3)\n")
    r = subprocess.run([sys.executable, "-m", "fastgo", "replay", "--game", "2",
                        data("collection.sgf")], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and "== " not in r.stdout and r.stdout.count("x13, Japanese rules") == 1
    for args, message in [(["--game", "3"], "no game 3: the file holds 2 game(s)"),
                          (["--game", "0"], "--game must be at least 1"),
                          (["--upto", "0"], "--upto must be at least 1"),
                          (["--rules", "calvinball"], "unknown rules preset"),
                          (["--komi", "nan"], "komi must be finite")]:
        r = subprocess.run([sys.executable, "-m", "fastgo", "replay", *args, data("collection.sgf")],
                           capture_output=True, text=True, env=env, timeout=120)
        assert r.returncode in (1, 2) and message in r.stderr and "Traceback" not in r.stderr, r.stderr
    big = tmp_path / "big.sgf"
    big.write_text("(;SZ[30]\n;B[aa])")
    junk = tmp_path / "junk.sgf"
    junk.write_bytes(b"\x00\xff(;SZ[9];B[ee]\xfe)")
    r = subprocess.run([sys.executable, "-m", "fastgo", "replay", str(big), str(junk),
                        str(tmp_path / "missing.sgf")], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 1 and r.stdout.count("== ") == 3 and "Traceback" not in r.stderr
    err = r.stderr.splitlines()
    assert err[0] == f"fastgo replay: {big}: cannot replay a 30x30 board: fastgo boards are 1..25 points a side (line 1, column 5)"
    assert err[1].startswith(f"fastgo replay: {junk}: unexpected ") and "(line 1, column" in err[1]
    assert err[2].startswith(f"fastgo replay: {tmp_path / 'missing.sgf'}: cannot read it: ")


def test_replay_command(tmp_path):
    env = dict(os.environ, PYTHONPATH=SRC)

    def run(*args):
        return subprocess.run([sys.executable, "-m", "fastgo", "replay", *args],
                              capture_output=True, text=True, env=env, timeout=120)
    r = run(data("wall.sgf"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("   A B C D E\n 5 . . X O . 5\n")
    assert "12 moves replayed, all legal; game over: True" in r.stdout
    assert "black 15, white 17.5 -> W+2.5" in r.stdout
    assert "the record's result: W+2.5" in r.stdout
    r = run(data("wall.sgf"), "--komi", "0")
    assert "black 15, white 10 -> B+5" in r.stdout
    r = run(data("ko_illegal.sgf"))
    assert r.returncode == 1 and r.stdout == ""
    assert "move 10 (W C3) is illegal: ko, under Japanese rules (the record's RU[Japanese])" in r.stderr
    assert "Traceback" not in r.stderr
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;SZ[9]\n;B[ee]\n;W[ff]")
    r = run(str(bad))
    assert r.returncode == 1 and "unexpected end of file" in r.stderr and "line 3" in r.stderr
    r = run(str(tmp_path / "missing.sgf"))
    assert r.returncode == 1 and "No such file" in r.stderr
    r = run(data("rect_setup.sgf"), "--upto", "2", "--rules", "japanese")
    assert r.returncode == 0 and "1 move replayed" in r.stdout and "Japanese rules (given" in r.stdout


@pytest.mark.parametrize("kw", [dict(rules="japanese", handicap=2), dict(rules="aga", komi=0.5),
                                dict(width=7, height=5, rules="ing")])
def test_games_to_sgf_from_simulate(kw):
    kw = dict(kw)
    width, height = kw.pop("width", 9), kw.pop("height", None)
    res = fastgo.simulate(4, width, height, seed=11, threads=1, record=4, **kw)
    games = sgf.read_games(sgf.games_to_sgf(res.moves, width, height, **kw))
    for g, moves, score in zip(games, res.moves, res.scores):
        b = g.board()
        assert b.history == list(map(int, moves))
        assert b.score().margin == score                  # the kernel's count, replayed


# -- regressions from the new-user review ------------------------------------------------------------

def test_play_after_two_passes_resumes_with_insert_passes_and_keeps_the_prisoners():
    g = sgf.read_game("(;SZ[9]RU[Japanese];B[ee];W[];B[];W[cc];B[dd])")
    with pytest.raises(sgf.ReplayError, match=r"move 4 \(W C7\) is illegal: game over"):
        g.board()                                   # strict by default
    first, second = g.segments(insert_passes=True)
    assert first.is_over and len(first.history) == 3
    assert second.first_player == fastgo.WHITE and len(second.history) == 2
    assert g.board(insert_passes=True) == second
    assert second.color_at("E5") == second.color_at("D6") == fastgo.BLACK
    assert second.color_at("C7") == fastgo.WHITE
    # prisoners of the first part count in the score (territory scoring) and in the record:
    # Japanese, komi 0: B B1, W A1, B A2 takes A1; W E5; both pass; B J9; both pass. A1 is
    # Black's territory (1) plus 1 prisoner, the rest touches both colours: B+2 by hand
    g = sgf.read_game("(;SZ[9]RU[Japanese]KM[0];B[bi];W[ai];B[ah];W[ee];B[];W[];B[ia];W[];B[])")
    parts = g.segments(insert_passes=True)
    assert len(parts) == 2 and parts[-1].captures == (0, 0)
    assert sgf.prisoners(parts[:-1]) == (1, 0)
    s = sgf.score(parts[-1], parts[:-1])
    assert (s.black, s.white, s.margin, s.winner) == (2, 0, 2, fastgo.BLACK)
    assert parts[-1].score().margin == 1          # the part alone misses the prisoner
    text = sgf.board_to_sgf(parts[-1], earlier=parts[:-1])
    assert "RE[B+2]" in text and ";B[bi];W[ai];B[ah];W[ee];B[];W[];B[ia];W[];B[]" in text
    again = sgf.read_game(text).segments(insert_passes=True)
    assert [p.history for p in again] == [p.history for p in parts]


def test_replay_command_resumes_with_insert_passes(tmp_path):
    path = tmp_path / "resumed.sgf"
    path.write_text("(;SZ[9]RU[Japanese]KM[0];B[bi];W[ai];B[ah];W[ee];B[];W[];B[ia];W[];B[])")
    r = subprocess.run([sys.executable, "-m", "fastgo", "replay", "--insert-passes", str(path)],
                       capture_output=True, env={**os.environ, "PYTHONPATH": SRC})
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr
    assert "9 moves replayed, all legal (resumed 1 time after the game ended)" in out
    assert "captures: black 1, white 0" in out and "-> B+2" in out


def test_handicap_is_written_only_for_a_handicap_placement():
    b = fastgo.Board(9, handicap=2)
    assert "HA[2]" in sgf.board_to_sgf(b)
    # the same count of black stones as a diagram set-up, White to move: no handicap claimed
    d = fastgo.Board.from_diagram("\n".join(["........."] * 7 + ["X........", ".X......."]), to_move=2)
    text = sgf.board_to_sgf(d)
    assert "HA[" not in text and "AB[" in text and "PL[W]" in text
    g = sgf.read_game(text)
    assert g.handicap == 0 and g.board() == d
    free = fastgo.Board(5, handicap=["A1", "E5", "C3"])
    assert "HA[" not in sgf.board_to_sgf(free) and "HA[3]" in sgf.board_to_sgf(free, handicap=3)
    with pytest.raises(ValueError, match="handicap must be"):
        sgf.board_to_sgf(free, handicap=-1)


def test_an_explicit_handicap_the_set_up_contradicts_is_refused():
    # HA[7] was written over 3 stones; HA[n] states n black stones with White to move first
    b = fastgo.Board(9, handicap=3)
    assert "HA[3]" in sgf.board_to_sgf(b, handicap=3) and "HA[" not in sgf.board_to_sgf(b, handicap=0)
    for bad in (7, 2, 1):
        with pytest.raises(ValueError, match=f"handicap={bad} does not match the board's set-up "
                                             r"\(3 black and 0 white stones, White first\)"):
            sgf.board_to_sgf(b, handicap=bad)
    mixed = fastgo.Board.from_diagram("\n".join(["....."] * 3 + ["XO...", "X...."]), to_move=2)
    with pytest.raises(ValueError, match="2 black and 1 white stones"):
        sgf.board_to_sgf(mixed, handicap=2)
    black_first = fastgo.Board.from_diagram("\n".join(["....."] * 3 + ["X....", "X...."]))
    with pytest.raises(ValueError, match="Black first"):
        sgf.board_to_sgf(black_first, handicap=2)
    with pytest.raises(ValueError, match="does not match"):
        sgf.board_to_sgf(fastgo.Board(9), handicap=2)


def test_a_record_whose_ha_its_set_up_contradicts_is_saved_by_printsgf_without_it(tmp_path):
    # handicap stones played as moves: loadsgf keeps the game, printsgf writes no false HA[]
    from fastgo.gtp import Engine
    path = tmp_path / "ha.sgf"
    path.write_text("(;SZ[9]HA[2]KM[0.5];B[gc];B[cg];W[ee])")
    e = Engine()
    with pytest.warns(sgf.SgfWarning, match=r"HA\[2\] but 0 black stones set up"):
        assert e.handle(f"loadsgf {path}").startswith("=")
    answer = e.handle("printsgf")
    assert answer.startswith("=") and "HA[" not in answer and ";B[gc]" in answer


KOMIS = [1e-05, 1e16, 1e+300, 0.1, -7.5, 7.5, 0, -0.0, 5e-324, 123456789.123, 2.0**70, -1e-200]


@pytest.mark.parametrize("komi", KOMIS)
def test_komi_is_written_as_a_plain_decimal_that_reads_back_exactly(komi):
    # KM[1e-05] and KM[1e+16] were written, and their own reader refused them ("bad komi")
    text = sgf.board_to_sgf(fastgo.Board(5, komi=komi))
    km = text.split("KM[")[1].split("]")[0]
    assert sgf._SGF_REAL.fullmatch(km), km
    assert sgf.read_game(text, strict=True).komi == komi
    assert float(sgf.number_text(komi)) == komi


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_komi_round_trips_through_sgf(komi):
    text = sgf.board_to_sgf(fastgo.Board(3, komi=komi))
    assert sgf.read_game(text, strict=True).komi == komi


def test_charset_that_raises_unicode_error_falls_back_and_bad_paths_are_refused(tmp_path):
    pun = tmp_path / "pun.sgf"
    pun.write_bytes(b"(;CA[punycode]SZ[9]PB[J\xc3\xb6rg];B[ee])")
    g = sgf.load(pun)                       # punycode cannot decode it: UTF-8, like other charsets
    assert g.info["PB"] == "J\u00f6rg" and g.moves == [(fastgo.BLACK, 40)]
    # (Python 3.13's punycode replaced the whole file by nothing; EBCDIC reads the syntax
    # otherwise: charsets that do not read SGF's ASCII syntax as ASCII are none)
    for name in (b"cp037", b"utf-16-le", b"utf-32", b"hex", b"base64", b"zlib", b"bz2", b"uu",
                 b"quopri", b"unicode_escape", b"raw_unicode_escape", b"rot13"):
        g = sgf.read_game(sgf.decode(b"(;CA[" + name + b"]SZ[9]PB[J\xc3\xb6rg];B[ee])"))
        assert g.info["PB"] == "J\u00f6rg" and g.moves == [(fastgo.BLACK, 40)]
    ok = tmp_path / "ok.sgf"
    ok.write_text("(;SZ[5];B[cc])")
    r = subprocess.run([sys.executable, "-m", "fastgo", "replay", str(pun), str(ok)],
                       capture_output=True, env={**os.environ, "PYTHONPATH": SRC})
    assert r.returncode == 0 and r.stdout.decode().count("1 move replayed") == 2, r.stderr
    from fastgo.gtp import Engine
    assert Engine(playouts=10).handle(f"loadsgf {pun}") == "= \n\n"
    for bad in (5, None, 2.5, ["a.sgf"]):
        with pytest.raises(TypeError, match="path must be a str, bytes or os.PathLike"):
            sgf.load(bad)


def test_writers_name_a_bad_board_or_move_list():
    with pytest.raises(TypeError, match="board must be a fastgo.Board, not NoneType"):
        sgf.board_to_sgf(None)
    with pytest.raises(TypeError, match="earlier"):
        sgf.board_to_sgf(fastgo.Board(5), earlier=[None])
    with pytest.raises(TypeError, match="game 0: a move list must hold int points"):
        sgf.games_to_sgf([["E5"]], 9)


@pytest.mark.parametrize("kw, message", [
    (dict(width=52, height=52, moves=[(1, 2705)]), "2705 is not a point of a 52x52 board"),
    (dict(width=9, height=9, moves=[(1, 100)]), "100 is not a point of a 9x9 board"),
    (dict(width=9, height=9, moves=[(1, -1)]), "-1 is not a point of a 9x9 board"),
    (dict(width=9, height=9, moves=[(1, True)]), "True is not a point"),
    (dict(width=9, height=9, moves=[(0, 5)]), "colour 0 is neither BLACK"),
    (dict(width=9, height=9, moves=[(2, 5), (3, 6)]), r"moves\[1\]: colour 3"),
    (dict(width=9, height=9, to_move=0), "to_move must be BLACK"),
    (dict(width=9, height=9, handicap=-1), "handicap must be an int >= 0")])
def test_to_sgf_refuses_moves_and_fields_no_record_can_hold(kw, message):
    """A point past the board was written as another point (52x52: 2705 as B[bZ], read back
    as point 1) or as letters that are none; a colour 0 as W."""
    with pytest.raises(ValueError, match=message):
        sgf.to_sgf(sgf.Game(**kw))
    # the edges of the range are written and read back: the last point and the pass
    g = sgf.Game(width=52, height=52, moves=[(1, 52 * 52 - 1), (2, 52 * 52)])
    assert sgf.read_game(sgf.to_sgf(g)).moves == g.moves


def test_a_game_with_numpy_sizes_writes_every_point():
    """Game's sizes become Python ints: np.uint8(19) * np.uint8(19) wrapped to 105, and to_sgf
    refused point 300 and the pass as off the board. A set-up value other than 0, 1, 2 is
    refused (it was dropped without a word)."""
    g = sgf.Game(width=np.uint8(19), height=np.uint8(19), moves=[(1, 300), (2, 361)])
    assert type(g.width) is int and sgf.read_game(sgf.to_sgf(g)).moves == [(1, 300), (2, 361)]
    setup = np.zeros((9, 9), dtype=np.int8)
    setup[0, 0] = 3
    with pytest.raises(ValueError, match="Game.setup may hold only 0"):
        sgf.to_sgf(sgf.Game(width=9, height=9, setup=setup))


_PIECES = [";", " ", "\n", "\t", "B[aa]", "W[cc]", "B[]", "W[tt]", "AB[aa][bb]", "AB[cc]",
           "C[a\\]b]", "C[x\\\ny]", "KM[6.5]", "b[aa]", "AddBlack[aa]", "B [aa]", "B[aa] [bb]",
           "B[aa]\n[bb]", "PL[W]", "\u00fc[a]", "C[\u00e9]", "XX[1]", "SZ[5]", "W[zz]",
           "B[aa]B[bb]", "C[]", "(;B[dd])", "(;W[ee];B[ff])"]
_JUNK = ["", "", "", "(", ")", "[x]", "GN[", "B[ab", "]", "\\", ";;", "B[a]]"]


@given(st.lists(st.sampled_from(_PIECES), max_size=30), st.sampled_from(_JUNK),
       st.integers(0, 30))
def test_the_plain_property_reading_agrees_with_the_general_one(pieces, junk, at):
    """parse() reads the common property (capitals, one value without a backslash) by one
    regular expression; the general character-by-character reading (the same function with
    that expression never matching) must make the same trees, repeats and errors of any text."""
    pieces.insert(min(at, len(pieces)), junk)
    text = "(;" + "".join(pieces) + ")"

    def outcome():
        try:
            roots = sgf.parse(text)
        except sgf.SgfError as e:
            return ("error", str(e))
        nodes, todo = [], list(roots)
        while todo:
            node = todo.pop()
            nodes.append((node.props, node.offset, node.value_offsets, node.repeated,
                          len(node.children)))
            todo.extend(node.children)
        return ("trees", nodes)

    fast = outcome()
    plain = sgf._PLAIN_PROPERTY
    sgf._PLAIN_PROPERTY = re.compile(r"(?!)")     # never matches: the general reading alone
    try:
        general = outcome()
    finally:
        sgf._PLAIN_PROPERTY = plain
    assert fast == general


def test_a_tree_built_by_hand_reads_as_a_game():
    # Node and game_from_tree are public: a tree without value offsets (not parsed from text)
    # reads as before the move loop's table (a reviewer's finding: KeyError 'B')
    root = sgf.Node(props={"SZ": ["9"]}, children=[sgf.Node(props={"B": ["cc"]}, children=[
        sgf.Node(props={"W": [""]})])])
    game = sgf.game_from_tree(root)
    assert game.moves == [(1, 6 * 9 + 2), (2, 81)]


def test_warnings_in_a_long_collection_name_their_lines():
    # a long text's line breaks are found once (counting them at each warning made a collection
    # with a warning a game quadratic): each game's warnings must name the lines and columns of
    # the same game read alone, shifted by the three lines of each game before it
    game = "(;FF[4]SZ[9]KM[650]\n;B[ee]C[x]C[y]\n;W[cc])\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = [(w.line, w.column) for w in sgf.read_games("\r\n" + game)[0].warnings]
        text = "\r\n" + game * 3000           # (over 64 KB: the kept line breaks)
        assert len(text) > 65536 and len(alone) == 2
        games = sgf.read_games(text)
    for k in (0, 1, 1234, 2999):
        assert [(w.line, w.column) for w in games[k].warnings] == [
            (line + 3 * k, column) for line, column in alone]


def test_a_player_to_move_after_the_first_move_is_a_set_up():
    # FF[4]: PL is a set-up property. After the first move it was dropped without a word (the
    # record then failed as "two moves of one colour", or a pass was made up)
    with pytest.raises(sgf.SgfError, match=r"set-up PL\[B\] after the first move is not supported"):
        sgf.read_game("(;SZ[9];B[ee];PL[B];B[cc])")
    # one that the next move agrees with, or none follows, says nothing new; one mixed into a
    # move's node (against FF[4]; Sabaki's means "who plays next") or naming no player is left
    for text in ("(;SZ[9];B[ee];PL[W];W[cc])", "(;SZ[9];B[ee];PL[white];W[cc])",
                 "(;SZ[9];B[ee];PL[B];W[cc])", "(;SZ[9];B[ee];W[cc];PL[B])",
                 "(;SZ[9];B[ee]PL[W];W[cc])", "(;SZ[9];B[ee];PL[B]W[cc])",
                 "(;SZ[9];B[ee];PL[x];W[cc])", "(;SZ[9];B[ee];PL[];W[cc])"):
        g = sgf.read_game(text)
        assert g.moves[:2] == [(fastgo.BLACK, 40), (fastgo.WHITE, 56)], text
        assert g.board().history == [40, 56] and g.to_move == fastgo.BLACK, text
    g = sgf.read_game("(;SZ[9];B[ee];W[cc]PL[B];B[dd])")
    assert g.board().history == [40, 56, 48]


def test_writing_a_game_whose_set_up_is_not_its_board_s_shape_is_refused():
    # a 19x19 set-up was written on a 9x9 record as wrong points and letters off the board
    g = sgf.read_game("(;SZ[9:5];B[aa])")
    assert g.setup.shape == (5, 9)
    for bad in (np.zeros((19, 19), np.int8), np.zeros((9, 5), np.int8), np.zeros(45, np.int8)):
        g.setup = bad
        with pytest.raises(ValueError, match="Game.setup must be a 5x9 array"):
            sgf.to_sgf(g)
    g.setup = [[0] * 9] * 4 + [[1] + [0] * 8]        # (a list of the right shape is written)
    assert sgf.read_game(sgf.to_sgf(g)).setup[4, 0] == fastgo.BLACK


def test_a_text_value_keeps_its_line_breaks_and_spaces_the_rest():
    # FF[4] Text: "White spaces other than linebreaks are converted to space"
    g = sgf.read_game("(;SZ[9]GC[tab\there\vx\fy\nnext line]PB[a\tb\nc];B[aa])")
    assert g.info["GC"] == "tab here x y\nnext line" and g.info["PB"] == "a b c"


def test_refusals_are_counted_by_a_reason_that_keeps_its_syntax():
    # "unmatched ')'" was counted as "unmatched [...]"
    kinds = [sgf._refusal_kind(sgf.SgfError(m)) for m in (
        "unmatched ')'", "unexpected 'f' (expected ';', '(' or ')')", "empty game tree '()'",
        "point 'aw' is off the 9x9 board")]
    assert kinds == ["unmatched ')'", "unexpected [...] (expected ';', '(' or ')')",
                     "empty game tree '()'", "point [...] is off the NxN board"]


def test_a_long_record_s_line_breaks_are_freed_with_the_record():
    """Warnings and errors give line and column; in a long text the line breaks were found
    once and kept in a module global with the text for the rest of the process (8.8 MiB after a
    5.7 MiB record was read and dropped: a resource tester's finding). They are kept only while
    the public call runs: after it, with the caller's references dropped, nothing is held."""
    import gc
    import tracemalloc

    def record(lines, move="dd"):
        return "(;GM[1]FF[4]SZ[19]KM[x]C[" + "a comment line\n" * lines + f"];B[{move}];W[pp])\n"

    def read(move):
        if move == "zz":                    # off the board: read_game's error
            with pytest.raises(sgf.SgfError, match="line 100001"):
                sgf.read_game(record(100_000, move))
            return
        with pytest.warns(sgf.SgfWarning, match=r"line 1, column"):
            game = sgf.read_game(record(100_000, move))
        with pytest.raises(sgf.ReplayError, match="line 100001"):
            game.board()                    # (W[pp] on B[pp]'s point: the replay's error)

    for move in ("pp", "zz"):
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        read(move)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        assert held < 100_000, (move, held)         # (the text alone is 1.4 MiB)
