"""Real game records: lenient reading with warnings (and the strict mode that refuses), the one
rule for rules and komi, the streaming collection reader and its flat memory, ``fastgo replay``
over directories and globs with its summary, GTP ``loadsgf``/``printsgf``. Each record in
tests/data reproduces one case that servers write."""

import io
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import fastgo
from fastgo import sgf
from fastgo.gtp import Engine

DATA = os.path.join(os.path.dirname(__file__), "data")


def data(name):
    return os.path.join(DATA, name)


def replay(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "fastgo", "replay", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def lenient(load, *args, **kw):
    """What `load` returns, and the messages of the SgfWarnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        game = load(*args, **kw)
    return game, [str(w.message) for w in caught if issubclass(w.category, sgf.SgfWarning)]


def vertices(points, w, h):
    return sorted(fastgo.point_to_vertex(int(p), w, h) for p in points)


def test_setup_in_the_node_after_the_root_is_merged_with_a_warning():
    g, warned = lenient(sgf.load, data("setup_after_root.sgf"))
    assert warned == ["set-up in node 2, before the first move: merged into the root's (FF[4] "
                      "puts a game's set-up in its root) (line 2, column 1)"]
    assert [str(w) for w in g.warnings] == warned
    assert vertices(np.flatnonzero(g.setup), 19, 19) == ["D16", "Q4"]
    assert g.handicap == 2 and g.to_move == fastgo.WHITE
    b = g.board()
    assert [fastgo.point_to_vertex(p, 19, 19) for p in b.history] == ["R16", "D4", "Q3"]
    with pytest.raises(sgf.SgfError, match="set-up AB after the root node is not supported") as e:
        sgf.load(data("setup_after_root.sgf"), strict=True)
    assert (e.value.line, e.value.column) == (2, 4)
    # after the first move a set-up is still refused: it cannot be replayed as moves
    with pytest.raises(sgf.SgfError, match="set-up AW after the first move"):
        sgf.read_game("(;SZ[9];B[aa];AW[bb])")


def test_simple_text_game_information_has_no_line_breaks():
    """FF[4], SimpleText: line breaks and other white space become spaces (a soft line break,
    escaped, goes); Text (GC) keeps them. PB[Lee<newline>Sedol] was read, and written, with
    its newline (a data-pipeline tester's finding)."""
    g = sgf.read_game("(;GM[1]FF[4]SZ[9]PB[Lee\nSedol]PW[a\tb\r\nc]EV[x\\\ny]"
                      "GC[line\none];B[ee])")
    assert g.info == {"PB": "Lee Sedol", "PW": "a b c", "EV": "xy", "GC": "line\none"}
    g.info["RO"] = "round\n2"
    text = sgf.to_sgf(g)
    assert "RO[round 2]" in text and "GC[line\none]" in text
    assert sgf.read_game(text).info == dict(g.info, RO="round 2")


def test_one_malformed_game_info_value_is_ignored_and_the_game_kept():
    g, warned = lenient(sgf.load, data("bad_handicap.sgf"))
    assert warned == ["bad handicap HA[7.5]: ignored (line 1, column 20)"]
    assert g.handicap == 0 and g.komi == 6.5 and g.info["PB"] == "Alice"
    assert len(g.board().history) == 3
    with pytest.raises(sgf.SgfError, match=r"bad handicap HA\[7.5\] \(line 1, column 20\)"):
        sgf.load(data("bad_handicap.sgf"), strict=True)
    g, warned = lenient(sgf.read_game, "(;SZ[9]KM[seven];B[aa])")
    assert g.komi is None and warned == ["bad komi KM[seven]: ignored (line 1, column 10)"]
    assert g.effective_rules() == sgf.RECORD_RULES          # the rules' own komi


def test_invalid_utf8_in_one_property_replaces_only_its_bad_bytes():
    raw = open(data("cut_utf8.sgf"), "rb").read()
    g, warned = lenient(sgf.load, data("cut_utf8.sgf"))
    # the name cut mid-character: its two stray bytes become one U+FFFD (Python's "replace"
    # replaces a truncated sequence as a whole); the valid names are intact
    assert g.info["PB"] == "李昌\ufffd" and g.info["PW"] == "曹薰铉" and g.info["EV"] == "名人戦"
    assert warned == ["PB holds bytes that are not valid UTF-8: shown as U+FFFD (line 1, column 29)"]
    # strict: the whole file as Latin-1, every name garbled (fastgo's behaviour before)
    g = sgf.load(data("cut_utf8.sgf"), strict=True)
    assert g.info["PW"] == "曹薰铉".encode().decode("latin-1")
    # the charset CA names is used: the same record in GB18030
    gb = raw.replace("曹薰铉".encode(), "曹薰铉".encode("gb18030")).replace(b"CA[UTF-8]", b"CA[GB18030]")
    g, _ = lenient(sgf.read_game, sgf.decode(gb))
    assert g.info["PW"] == "曹薰铉"


def test_implausible_komi_warns_and_a_server_convention_reads_it():
    g, warned = lenient(sgf.load, data("fox_komi.sgf"))
    assert g.komi is None and len(warned) == 1
    assert warned[0].startswith("KM[375] is no plausible komi on a 19x19 board (more than 361 "
                                "points away from 0): ignored, the rules' komi is used; read "
                                "it with komi_convention= one of 'fox'")
    assert g.effective_rules().komi == 7.5                  # RU[Chinese]'s own
    # Fox's even game under Chinese rules: KM[375] is 3.75 stones, 7.5 points (as KaTrain and
    # Sabaki read it; hundredths alone gave 3.75), under Japanese rules KM[650] is 6.5
    g, warned = lenient(sgf.load, data("fox_komi.sgf"), komi_convention="fox")
    assert warned == [] and g.komi == 7.5 and g.rules.komi == 7.5
    for ru, km, komi in [("RU[cn]", 375, 7.5), ("RU[Japanese]", 650, 6.5), ("", 650, 6.5),
                         ("RU[Korean]", 650, 6.5), ("RU[chinese]", 0, 0)]:
        g, warned = lenient(sgf.read_game, f"(;GM[1]AP[foxwq]SZ[19]{ru}KM[{km}])",
                            komi_convention="fox")
        assert warned == [] and g.komi == komi, (ru, km)
    # strict refuses it, as it refuses what lenient reading warns of (it was kept: W+374)
    with pytest.raises(sgf.SgfError, match=r"KM\[375\] is no plausible komi .* read it with "
                                           r"komi_convention="):
        sgf.load(data("fox_komi.sgf"), strict=True)
    assert sgf.load(data("fox_komi.sgf"), strict=True, komi_convention="fox").komi == 7.5
    # the bound: the board's points, at least KOMI_PLAUSIBLE
    assert sgf.read_game("(;SZ[2]KM[99])").komi == 99
    g, warned = lenient(sgf.read_game, "(;SZ[9]KM[-101])")
    assert g.komi is None and warned
    with pytest.raises(ValueError, match="unknown komi convention 'igs'"):
        sgf.read_game("(;SZ[9])", komi_convention="igs")


@pytest.mark.parametrize("size, komi", [(9, 150), (5, -150), (9, 0.5), (19, 650), (2, -1e9)])
def test_a_komi_fastgo_wrote_reads_back_as_written(size, komi):
    """The sgf docstring: reading what board_to_sgf writes gives the same game, so the komi of
    fastgo's own record (AP[fastgo]) is not taken for a server's convention and dropped."""
    b = fastgo.Board(size, komi=komi)
    b.play(b.pass_move if size < 3 else "B2")
    text = sgf.board_to_sgf(b)
    for komi_convention in (None, "fox"):
        g, warned = lenient(sgf.read_game, text, komi_convention=komi_convention)
        assert warned == [] and g.komi == komi and g.board() == b
    # the same record from another program: the heuristic still applies, to the komi's size
    other = text.replace("AP[fastgo]", "AP[Fox:3.1]")
    g, warned = lenient(sgf.read_game, other)
    implausible = abs(komi) > max(size * size, sgf.KOMI_PLAUSIBLE)
    assert (g.komi is None) == implausible and len(warned) == implausible
    if implausible:
        assert (f"is no plausible komi on a {size}x{size} board (more than "
                f"{max(size * size, 100)} points away from 0)") in warned[0]


def test_one_rule_for_rules_and_komi_everywhere(tmp_path):
    """The record's KM wins unless komi= is given; RU unless rules= is given; else
    RECORD_RULES. Game.rules, Game.board, fastgo replay and GTP loadsgf agree."""
    record = tmp_path / "g.sgf"
    record.write_text("(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc])")
    g = sgf.load(record)
    assert g.rules == fastgo.PRESETS["chinese"] and g.rules.komi == 7.5
    assert g.board(rules="japanese").rules == fastgo.PRESETS["japanese"].replace(komi=7.5)
    assert g.board(rules=fastgo.Rules(komi=0)).rules.komi == 7.5        # KM over a Rules' komi
    assert g.board(rules="japanese", komi=6.5).rules.komi == 6.5
    assert g.board(komi=0).rules == fastgo.PRESETS["chinese"].replace(komi=0)
    r = replay(str(record), "--rules", "japanese")
    assert "9x9, Japanese rules (given by the caller), komi 7.5 (the record's KM[])" in r.stdout
    # a record with neither: RECORD_RULES with its own komi, in replay and in GTP, whatever was
    # loaded before
    bare = tmp_path / "bare.sgf"
    bare.write_text("(;GM[1]FF[4]SZ[9];B[ee])")
    assert sgf.load(bare).board().rules == sgf.RECORD_RULES == fastgo.PRESETS["japanese"]
    e = Engine(playouts=10)
    assert e.handle("kgs-rules chinese") == "= \n\n"
    assert e.handle(f"loadsgf {record}") == "= \n\n"
    assert e.handle("fastgo-rules") == "= chinese ko=positional suicide=forbidden scoring=area komi=7.5\n\n"
    assert e.handle(f"loadsgf {bare}") == "= \n\n"
    assert e.handle("fastgo-rules") == "= japanese ko=simple suicide=forbidden scoring=territory komi=6.5\n\n"


def test_a_record_without_ru_is_judged_as_servers_do_and_the_refusal_names_the_rules():
    g = sgf.load(data("no_ru_suicide.sgf"))
    with pytest.raises(sgf.ReplayError) as e:
        g.board()
    assert str(e.value) == ("move 6 (W A5) is illegal: suicide, under Japanese rules (the default "
                            "for records without RU[]), komi 0.5 (the record's KM[]); choose "
                            "other rules with rules= (Game.board) or --rules (fastgo replay) "
                            "(line 2, column 33)")
    b = g.board(rules="tromp-taylor")                # suicide allowed: the two white stones go
    assert b.stones()[4, 0] == b.stones()[3, 0] == fastgo.EMPTY and b.rules.komi == 0.5
    r = replay(data("no_ru_suicide.sgf"))
    assert r.returncode == 1 and "suicide, under Japanese rules (the default" in r.stderr
    r = replay(data("no_ru_suicide.sgf"), "--rules", "tromp-taylor")
    assert r.returncode == 0 and "6 moves replayed, all legal" in r.stdout
    g = sgf.read_game("(;SZ[5]RU[calvinball];B[aa])")
    assert "the default for records: RU[calvinball] names no rules fastgo knows" in g.rules_used()[1]


@pytest.mark.filterwarnings("ignore:bad handicap:fastgo.sgf.SgfWarning")
def test_printsgf_keeps_the_game_information_of_a_loaded_record(tmp_path):
    e = Engine(playouts=10)
    assert e.handle(f"loadsgf {data('bad_handicap.sgf')}") == "= \n\n"
    assert e.handle("play w D4") == "= \n\n"
    out = sgf.read_game(e.handle("printsgf")[2:-2])
    assert out.info == {"PB": "Alice", "PW": "Bob", "DT": "2024-05-01", "EV": "Club night"}
    assert len(out.moves) == 4 and out.komi == 6.5
    assert e.handle("clear_board") == "= \n\n"
    assert sgf.read_game(e.handle("printsgf")[2:-2]).info == {}    # a new game: none


# -- streaming -----------------------------------------------------------------------------------

COLLECTION = textwrap.dedent("""\
    junk before the first tree
    (;GM[1]SZ[9]C[an escaped \\] and (brackets) in a comment]PB[Jörg];B[ee]
    ;W[cc](;B[dd])(;B[gg]))

    (;GM[1]SZ[13]KM[6.5]PW[李昌镐]
    ;B[zz])
    (;GM[1]SZ[5]AB[aa:bb];W[cc])
    """)


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 5, 64, 1 << 20])
def test_iter_games_reads_what_read_games_reads_at_any_chunk_size(chunk_size):
    raw = COLLECTION.encode()
    items = list(sgf.iter_games(io.BytesIO(raw), chunk_size=chunk_size, errors="yield"))
    assert [type(x).__name__ for x in items] == ["Game", "SgfError", "Game"]
    assert [x.game_index for x in items] == [0, 1, 2]
    first, bad, last = items
    assert first.info["PB"] == "Jörg" and first.moves == sgf.read_game(COLLECTION, 0).moves
    assert vertices([p for _, p in first.moves], 9, 9) == ["C7", "D6", "E5"]
    # the error's line and column are the file's, not the game tree's
    assert str(bad) == "point 'zz' is off the 13x13 board (line 6, column 3)"
    assert np.array_equal(last.setup, sgf.read_game(COLLECTION, 2).setup)
    with pytest.raises(sgf.SgfError, match=r"off the 13x13 board \(line 6, column 3\)") as e:
        list(sgf.iter_games(io.BytesIO(raw), chunk_size=chunk_size))
    assert e.value.game_index == 1


def test_text_before_the_collection_may_hold_a_parenthesis(tmp_path):
    """A banner before the first game tree ("Game record (from the server)") made a file
    unreadable: its "(" was taken for the tree's start. Read leniently, the collection starts at
    the first "(" opening a node, "(;" (as sgfmill reads it), with a warning that says where a
    skipped "(" was (a malformed tree there is not read); without such a tree at the first "("
    still, so that a malformed tree's fault is named; read strictly, at the first "(" as
    before. The charset is the first real root's CA[] (a banner's is none) at every chunk
    size, and a ";", "[" or "(" in the banner is no node, value or tree."""
    raw = (b"Game record (from the server; see (below)) [x] CA[UTF-8] \\\n"
           b"(\n ;CA[ISO-8859-1]SZ[9]PB[Ren\xe9];B[aa]\n;W[bb])(;SZ[5];B[cc])")
    text = raw.decode("latin-1")
    skipped = "text before the first game tree '(;' skipped, a '(' in it included (line 1, column 13)"
    games, warned = lenient(sgf.read_games, text)
    assert [(g.width, len(g.moves)) for g in games] == [(9, 2), (5, 1)] and warned == [skipped]
    # the first game's warning (fastgo replay prints a game's warnings, not Python's)
    assert [str(w) for w in games[0].warnings] == [skipped] and games[1].warnings == []
    assert sgf.decode(raw) == text
    path = tmp_path / "banner.sgf"
    path.write_bytes(raw)
    g, warned = lenient(sgf.load, path)
    assert g.info["PB"] == "René" and warned == [skipped]
    assert lenient(sgf.load, path, 1)[0].width == 5
    for chunk_size in range(1, len(raw) + 2):
        got, warned = lenient(lambda: list(sgf.iter_games(io.BytesIO(raw), chunk_size=chunk_size)))
        assert got == games and warned == [skipped]
    with pytest.raises(sgf.SgfError, match=r"unexpected 'f' .*\(line 1, column 14\)"):
        sgf.load(path, strict=True)
    got = list(sgf.iter_games(io.BytesIO(raw), strict=True, errors="yield"))
    assert [type(x).__name__ for x in got] == ["SgfError", "Game", "Game"]
    # a malformed first tree before a good one: read leniently with the warning (it was an
    # error, and is one strictly)
    two = "(FF[4]SZ[9]PB[first];B[aa])(;SZ[9]PB[second];W[bb])"
    at_1 = skipped.replace("column 13", "column 1")
    assert [(g.info, w) for g, w in [lenient(sgf.read_game, two)]] == [({"PB": "second"}, [at_1])]
    with pytest.raises(sgf.SgfError, match="unexpected 'F'"):
        sgf.read_game(two, strict=True)
    # no tree opens with a node: the first "(" is read, and what is wrong there named
    for bad, message in [("notes (B[aa])", "unexpected 'B' (expected ';', '(' or ')') (line 1, "
                          "column 8)"), ("x ()", "empty game tree '()' (line 1, column 4)")]:
        with pytest.raises(sgf.SgfError) as e:
            sgf.read_games(bad)
        assert str(e.value) == message
        for chunk_size in (1, 2, 3, 1 << 20):
            got = list(sgf.iter_games(io.BytesIO(bad.encode()), chunk_size=chunk_size,
                                      errors="yield"))
            assert [str(x) for x in got] == [message]


def test_a_later_tree_is_read_from_its_own_start_by_iter_games():
    """iter_games parsed each tree it cut from the file as a whole file, skipping to its first
    "(;": a malformed later tree lost its games without a word (a reviewer's finding)."""
    for text, message in [("(;PB[a])((;PB[b])(;PB[c])",
                            "a game tree must start with a node ';' (line 1, column 10)"),
                          ("(;PB[a])\n(x(;PB[b])",
                           "unexpected 'x' (expected ';', '(' or ')') (line 2, column 2)")]:
        with pytest.raises(sgf.SgfError) as e:
            sgf.read_games(text)
        assert str(e.value) == message
        for chunk_size in (1, 3, 1 << 20):
            got = list(sgf.iter_games(io.BytesIO(text.encode()), chunk_size=chunk_size,
                                      errors="yield"))
            assert [x.info["PB"] if isinstance(x, sgf.Game) else str(x) for x in got] == [
                "a", message]


#: (Python codec, CA[] value, two names): a collection whose CA[] follows names in its charset
CHARSETS = [("gb2312", "GB2312", "中文", "李昌镐"),
            # GBK under either label, as servers write it and browsers read it (GB18030, its
            # superset): Python's gb2312 turned the last character of 申真谞 into U+FFFD
            ("gbk", "GB2312", "申真谞", "柯洁"), ("gbk", "GBK", "申真谞", "柯洁"),
            ("latin-1", "ISO-8859-1", "Jörg", "René"),
            ("shift_jis", "Shift_JIS", "表ソ", "本因坊")]     # 表, ソ: second byte 0x5C ('\\')


def test_gbk_names_read_whole_even_with_a_bracket_as_second_byte():
    """About 350 GBK characters have "[", "\\" or "]" as their second byte (塢 = 89 5D, 錦 =
    E5 5C, 廬 = 8F 5D): files labelled GBK (or GB2312, which they often are) read them whole
    (a reviewer's finding: a GB2312-first decoding broke such files), through decode,
    read_game and iter_games alike."""
    for ca in ("GBK", "GB2312"):
        text = f"(;CA[{ca}]SZ[9]PB[塢錦]PW[廬申真谞]GC[a \\] b];B[ee])"
        data = text.encode("gbk")
        assert b"\x89]" in data and b"\xe5\\" in data
        want = {"PB": "塢錦", "PW": "廬申真谞", "GC": "a ] b"}
        assert sgf.read_game(sgf.decode(data)).info == want
        assert sgf.read_game(sgf.decode(data, strict=True), strict=True).info == want
        for chunk_size in (1, 7, 1 << 20):
            assert next(sgf.iter_games(io.BytesIO(data), chunk_size=chunk_size)).info == want


@pytest.mark.parametrize("codec, ca, black, white", CHARSETS)
def test_iter_games_decodes_in_the_charset_of_ca_at_every_chunk_size(tmp_path, codec, ca, black,
                                                                      white):
    """The iter_games docstring: the file is decoded in the charset of its first CA[], as
    decode does; so the games do not depend on chunk_size, even one that ends before CA[]."""
    text = (f"(;GM[1]FF[4]SZ[9]PB[{black}]GC[{white} \\] (;)]CA[{ca}]PW[{white}]"
            f";B[ee];W[cc])\n(;GM[1]FF[4]SZ[5]PB[{white}];B[cc])\n")
    data = text.encode(codec)
    assert sgf.decode(data) == text
    want = sgf.read_games(text)
    assert [g.info for g in want] == [{"PB": black, "PW": white, "GC": f"{white} ] (;)"},
                                      {"PB": white}]
    path = tmp_path / "c.sgf"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # nor any "bytes that are not valid" warning
        for chunk_size in range(1, len(data) + 1):
            for source in (path, io.BytesIO(data)):
                got = list(sgf.iter_games(source, chunk_size=chunk_size))
                assert got == want and [g.info for g in got] == [g.info for g in want], chunk_size


#: text after a game tree, which parse (read_games, load, GTP loadsgf) refuses: iter_games
#: (fastgo replay) skipped it, and read a game cut short by a stray ')' as a whole one
STRAY = [("(;GM[1]SZ[9]RE[B+R];B[ee](;W[cc]));W[gg];B[cg];W[gc])\n", 1, 0, ";"),
         ("(;SZ[9];B[aa]))", 1, 0, ")"),
         ("(;SZ[9];B[aa]);(;SZ[9])", 2, 0, ";"),
         ("(;SZ[9];B[aa])[x](;SZ[9])", 2, 0, "["),
         ("(;SZ[9];B[aa])\n\n junk\n(;SZ[9];B[bb])", 2, 0, "j"),
         ("(;SZ[9];B[aa])\u3000(;SZ[9];B[bb])\n", 2, 0, "\u3000"),     # not FF[4]'s white space
         ("(;SZ[9];B[aa]C)\n x(;SZ[9])", 2, 0, "C")]       # the tree's own error comes first


@pytest.mark.parametrize("text, games, bad, char", STRAY)
def test_iter_games_refuses_text_after_a_game_tree_as_read_games_does(text, games, bad, char):
    with pytest.raises(sgf.SgfError) as want:
        sgf.read_games(text)
    assert repr(char) in str(want.value) or char in ";)C"     # (";": node outside, ")": unmatched)
    for chunk_size in range(1, len(text) + 2):
        items = list(sgf.iter_games(io.BytesIO(text.encode()), chunk_size=chunk_size,
                                    errors="yield"))
        assert len(items) == games and [x.game_index for x in items] == list(range(games))
        assert isinstance(items[bad], sgf.SgfError) and str(items[bad]) == str(want.value)
        assert all(isinstance(x, sgf.Game) for k, x in enumerate(items) if k != bad)
        with pytest.raises(sgf.SgfError) as e:
            list(sgf.iter_games(io.BytesIO(text.encode()), chunk_size=chunk_size))
        assert str(e.value) == str(want.value) and e.value.game_index == bad
    # text before the first tree and white space between trees stay allowed, as parse has them,
    # and so do what joined or padded files leave there: a byte-order mark, ^Z, NUL
    ok = "header\n(;SZ[9];B[aa])\n \t\r\n\ufeff(;SZ[9];B[bb])\n\x1a\x00"
    for chunk_size in (1, 2, 1 << 20):
        got = list(sgf.iter_games(io.BytesIO(ok.encode()), chunk_size=chunk_size))
        assert got == sgf.read_games(ok) and len(got) == 2


def test_a_collection_is_decoded_in_one_charset_by_load_and_iter_games_alike(tmp_path):
    """The charset is the CA[] of the first game's root node, for load (decode) as for
    iter_games: load took the first CA[] anywhere and garbled game 0 without a warning
    ('RenÃ©'), while iter_games decoded game 1 with U+FFFD."""
    path = tmp_path / "ca2.sgf"
    path.write_bytes(b"(;SZ[9]PB[Ren\xc3\xa9])(;CA[ISO-8859-1]SZ[9]PB[Jos\xe9])")
    assert sgf.decode(path.read_bytes()) == "(;SZ[9]PB[René])(;CA[ISO-8859-1]SZ[9]PB[Jos\ufffd])"
    g0, warned0 = lenient(sgf.load, path, 0)
    g1, warned1 = lenient(sgf.load, path, 1)
    assert g0.info == {"PB": "René"} and warned0 == []
    # the warning names the charset the bytes were read in, not the game's own CA[] (it said
    # "not valid ISO-8859-1" of a byte that is valid ISO-8859-1)
    in_utf8 = ("PB holds bytes that are not valid utf-8 (the file's charset; this game's "
               "CA[ISO-8859-1] is not used): shown as U+FFFD (line 1, column 40)")
    assert g1.info == {"PB": "Jos\ufffd"} and warned1 == [in_utf8]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", sgf.SgfWarning)
        streamed = list(sgf.iter_games(path, chunk_size=3))
    assert [g.info for g in streamed] == [g0.info, g1.info]
    assert [str(w.message) for w in caught] == [in_utf8]
    # a str given by the caller (sgf.decode's is a plain str too): the game's own CA[] is named
    assert type(sgf.decode(path.read_bytes())) is str
    _, warned = lenient(sgf.read_game, sgf.decode(path.read_bytes()), 1)
    assert warned == ["PB holds U+FFFD, bytes the text's decoding could not read (the record's "
                      "charset is ISO-8859-1) (line 1, column 40)"]
    # a CA[] Python does not know: the file is read in UTF-8, and the warning says so
    path.write_bytes(b"(;CA[bogus]SZ[9]PB[\xff])")
    assert lenient(sgf.load, path)[1] == ["PB holds bytes that are not valid utf-8 (CA[bogus] "
                                          "names no charset Python knows): shown as U+FFFD "
                                          "(line 1, column 19)"]
    # a CA[] in the first root counts wherever it stands there, and Latin-1 then reads both
    path.write_bytes(b"(;SZ[9]PB[Jos\xe9]CA[ISO-8859-1])(;SZ[9]PB[Ren\xe9])")
    assert [sgf.load(path, k).info["PB"] for k in (0, 1)] == ["José", "René"]


def test_iter_games_on_paths_unfinished_files_and_bad_arguments(tmp_path):
    path = tmp_path / "c.sgf"
    path.write_bytes(b"(;SZ[9];B[aa])\n(;SZ[9];B[bb]\n")
    items = list(sgf.iter_games(path, errors="yield"))
    assert items[0].moves == [(fastgo.BLACK, 72)]
    assert str(items[1]) == ("unexpected end of file: 1 game tree(s) not closed with ')' "
                             "(line 3, column 1)")
    path.write_bytes(b"no tree here")
    with pytest.raises(sgf.SgfError, match="no game tree"):
        list(sgf.iter_games(path))
    with pytest.raises(TypeError, match="binary mode"):
        list(sgf.iter_games(io.StringIO("(;SZ[9])")))
    with pytest.raises(TypeError, match="a path or a binary file object"):
        list(sgf.iter_games(5))
    with pytest.raises(ValueError, match="errors must be"):
        list(sgf.iter_games(path, errors="skip"))
    with pytest.raises(ValueError, match="chunk_size"):
        list(sgf.iter_games(path, chunk_size=0))


MEMORY_PROBE = """
import resource, sys
from fastgo import sgf
n = moves = 0
for game in sgf.iter_games(sys.argv[1], chunk_size=1 << 16):
    n += 1
    moves += len(game.moves)
print(n, moves, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _collection(path, games):
    """An SGF collection of `games` 19x19 games of 200 moves (about 1.2 KiB a game)."""
    rng = np.random.default_rng(games)
    letters = "abcdefghijklmnopqrs"
    with open(path, "w", encoding="utf-8") as f:
        for k in range(games):
            pts = rng.integers(0, 19, size=(200, 2))
            moves = "".join(f";{'BW'[i % 2]}[{letters[a]}{letters[b]}]" for i, (a, b) in enumerate(pts))
            f.write(f"(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[6.5]PB[player {k}]PW[李昌镐]RE[B+R]"
                    f"{moves})\n")


@pytest.mark.skipif(sys.platform == "win32", reason="resource.getrusage")
def test_iter_games_peak_memory_stays_flat_on_a_large_collection(tmp_path):
    """Read in chunks of 64 KiB, a collection ten times larger (1.8 MiB, 1,500 games) peaks
    within 2 MiB of a small one (both over several chunks). Read whole (``read_games``), such
    collections peak at about 20 times the file's size (3,000 games: 3.6 MiB, 113 MiB of RSS,
    of which 41 MiB the interpreter and fastgo)."""
    peaks = {}
    for games in (150, 1500):
        path = tmp_path / f"{games}.sgf"
        _collection(path, games)
        r = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(path)], capture_output=True,
                           text=True, timeout=600)
        n, moves, peak_kib = map(int, r.stdout.split())
        assert (n, moves) == (games, 200 * games), r.stderr
        peaks[games] = peak_kib
    assert os.path.getsize(tmp_path / "1500.sgf") > 1.75 * 2**20
    assert (peaks[1500] - peaks[150]) / 1024 < 2, peaks


# -- fastgo replay ---------------------------------------------------------------------------------

def test_replay_takes_directories_and_globs_and_summarises(tmp_path):
    games = tmp_path / "games"
    (games / "sub").mkdir(parents=True)
    for name in ("wall.sgf", "ko_illegal.sgf", "collection.sgf", "bad_handicap.sgf"):
        (games / "sub" / name).write_bytes(open(data(name), "rb").read())
    (games / "notes.txt").write_text("not a record")
    (games / "UPPER.SGF").write_text("(;SZ[5];B[cc];W[cc])")
    r = replay(str(games), "--summary")
    assert r.returncode == 1                                  # two records refused
    assert r.stdout == ("files: 5; games: 6, replayed 4, refused 2; warnings: 1\n"
                        "results of the replayed records: no RE[] 3, W+ points 1\n"
                        "refusals by reason: illegal move: ko 1, illegal move: occupied 1\n")
    assert "warning: bad handicap HA[7.5]: ignored" in r.stderr
    assert r.stderr.count("is illegal") == 2
    r = replay(str(games), "--summary", "--quiet")
    assert "warning" not in r.stderr and r.stderr.count("is illegal") == 2
    r = replay(str(games / "**" / "w*.sgf"), "--quiet")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = replay(str(games / "sub" / "[wc]*.sgf"))             # wall, collection: three boards
    assert r.returncode == 0 and r.stdout.count("== ") == 3 and r.stdout.count("all legal") == 3
    r = replay("*.sgf", cwd=tmp_path)
    assert r.returncode == 1 and "*.sgf: no file matches this pattern" in r.stderr
    (tmp_path / "empty").mkdir()
    r = replay(str(tmp_path / "empty"))
    assert r.returncode == 1 and "no *.sgf file in this directory" in r.stderr
    r = replay(data("fox_komi.sgf"), "--komi-convention", "fox", "--summary")
    assert r.returncode == 0 and r.stderr == "" and "results of the replayed records: W+ points 1" in r.stdout
    r = replay(data("fox_komi.sgf"), "--strict")
    assert r.returncode == 1 and "KM[375] is no plausible komi" in r.stderr
    r = replay(data("setup_after_root.sgf"), "--strict")
    assert r.returncode == 1 and "set-up AB after the root node is not supported" in r.stderr
