"""No input crashes Python (issue 11): re-entrant user code, huge numbers, hostile SGF, size
bombs. Reproducers that crashed the interpreter run in a subprocess, so that a crash fails the
test instead of killing the run."""

import copy
import math
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading
import time
from contextlib import nullcontext

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fastgo
from fastgo import sgf
from fastgo.count import legal_position_mask
from fastgo.gtp import Engine
from forked import run_forked


def run_python(code, timeout=60):
    """Run `code` in a fresh interpreter; (returncode, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


# -- re-entrant user code ----------------------------------------------------------------------------

def test_reinit_from_an_iterator_inside_score_and_playouts_is_refused_in_a_subprocess():
    # the reproducers: a segfault (score) and a heap abort (playouts) before the fix
    rc, out, err = run_python("""
        import fastgo
        b = fastgo.Board(1)
        def gen():
            b.__init__(25); return; yield
        for call in (lambda: b.score(dead=gen()),
                     lambda: fastgo.playouts(b, 64, ownership=True, record=gen())):
            try:
                call()
            except TypeError as e:
                print("refused:", e)
        print(b.width, b.height, b.history)
    """)
    assert rc == 0, err
    assert out.count("refused: Board.__init__ cannot re-initialise a board") == 2
    assert out.endswith("1 1 []\n")


def test_index_that_shrinks_the_board_plays_no_off_board_point_in_a_subprocess():
    rc, out, err = run_python("""
        import fastgo
        class Shrink:
            def __init__(self, b): self.b = b
            def __index__(self):
                try:
                    self.b.__init__(1)
                except TypeError:
                    pass
                return 600
        b = fastgo.Board(25)
        b.play("A1")
        b.play("B1")
        for name in ("play", "is_legal", "why_illegal", "hash_after", "color_at", "chain",
                     "liberties"):
            print(name, getattr(b, name)(Shrink(b)))
    """)
    assert rc == 0, err
    # every re-initialisation was refused: each call is the plain one with point 600 (A25)
    c = fastgo.Board(25)
    c.play("A1")
    c.play("B1")
    want = [f"{name} {getattr(c, name)(600)}" for name in
            ("play", "is_legal", "why_illegal", "hash_after", "color_at", "chain", "liberties")]
    assert out.splitlines() == want
    assert want[:3] == ["play None", "is_legal False", "why_illegal occupied"]


def test_a_board_made_by_new_alone_refuses_a_move_read_while_it_was_initialised():
    # Board.__new__'s 1x1 game may be initialised once, even from a move's own __index__: the
    # method then refuses the move instead of playing a point of the old size on the new one
    rc, out, err = run_python("""
        import fastgo
        for name in ("play", "is_legal", "why_illegal", "hash_after", "color_at", "score"):
            b = fastgo.Board.__new__(fastgo.Board)
            class Grow:
                def __index__(self):
                    b.__init__(25)
                    return 0
            try:
                if name == "score":
                    b.score(dead=iter([Grow()]))
                else:
                    getattr(b, name)(Grow())
            except RuntimeError as e:
                print(name, "refused:", e)
            b.check_consistency()
            assert (b.width, b.history) == (25, []), (b.width, b.history)
    """)
    assert rc == 0, err
    assert out.count("refused: the board changed size") == 6, out


def test_threads_reinitialising_while_another_plays_never_play_off_the_board():
    # the race: one thread plays "t19 " (the pure-Python parser) while another calls
    # __init__; now every __init__ is refused and every turn played is on the 19x19 board
    b = fastgo.Board(19)
    stop = threading.Event()
    refused = []

    def reinit():
        while not stop.is_set():
            try:
                b.__init__(1)
            except TypeError:
                refused.append(1)

    t = threading.Thread(target=reinit)
    t.start()
    try:
        for _ in range(3000):
            b.play("t19 ")
            assert b.history[-1] == 18 * 19 + 18          # T19: the top right
            b.undo()
    finally:
        stop.set()
        t.join()
    assert refused and (b.width, b.height, b.history) == (19, 19, [])
    b.check_consistency()


class Boom(Exception):
    """Raised by hostile user code."""


class Hostile:
    """An int (``__index__``) whose first use acts on `board`: plays, passes, undoes, tries to
    re-initialise it, raises. Records the board's history after acting."""

    def __init__(self, board, actions, value):
        self.board, self.actions, self.value = board, actions, value
        self.acted = False
        self.history_after = None

    def act(self):
        if self.acted:
            return
        self.acted = True
        b = self.board
        for action, k in self.actions:
            if action == "play":
                moves = [m for m in b.legal_moves() if m != b.pass_move]
                if moves:
                    b.play(moves[k % len(moves)])
            elif action == "pass" and not b.is_over:
                b.pass_()
            elif action == "undo" and b.history:
                b.undo()
            elif action == "reinit":
                try:
                    b.__init__(k % 25 + 1)
                except TypeError:
                    pass
            elif action == "raise":
                raise Boom()
        self.history_after = b.history

    def __index__(self):
        self.act()
        return self.value

    def __bool__(self):
        self.act()
        return self.value % 2 == 1


def hostile_iter(items):
    """An iterator whose first step makes every Hostile in `items` act, then yields them."""
    for h in items:
        h.act()
    yield from items


ACTION = st.tuples(st.sampled_from(["play", "pass", "undo", "reinit", "raise", "play", "play"]),
                   st.integers(0, 1000))
METHODS = ["play", "is_legal", "why_illegal", "hash_after", "color_at", "chain", "liberties",
           "score", "undo", "playouts", "copy", "__init__"]


def plain(b, name, values):
    """What method `name` gives for the plain ints `values` on the board as it is now."""
    if name == "score":
        return b.score(dead=values)
    if name == "playouts":
        res = fastgo.playouts(b, values[0], seed=values[1], threads=1, max_moves=values[2],
                              record=values[3:])
        return res.scores.tolist(), [m.tolist() for m in res.moves]
    return getattr(b, name)(values[0])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(1, 6), new_alone=st.booleans(), opening=st.lists(st.integers(0, 50), max_size=8),
       name=st.sampled_from(METHODS), actions=st.lists(st.lists(ACTION, max_size=3), min_size=5, max_size=5),
       values=st.lists(st.integers(-2, 45), min_size=5, max_size=5))
def test_reentrant_user_code_through_every_public_method(size, new_alone, opening, name, actions,
                                                         values):
    """Every method that takes user objects finishes their code before it reads the board: its
    result is the plain call's on the board the user code left, and the board stays a valid
    replay of its history, of the size it started with unless it was Board.__new__'s 1x1 game."""
    b = fastgo.Board.__new__(fastgo.Board) if new_alone else fastgo.Board(size)
    for k in opening:
        moves = b.legal_moves()
        if moves and not b.is_over:
            b.play(moves[k % len(moves)])
    start_size = (b.width, b.height)
    hostile = [Hostile(b, a, v) for a, v in zip(actions, values)]
    try:
        if name == "score":
            got = b.score(dead=hostile_iter(hostile[:2]))
        elif name == "playouts":
            res = fastgo.playouts(b, hostile[0], seed=hostile[1], threads=1, max_moves=hostile[2],
                                  record=hostile_iter(hostile[3:]))
            got = res.scores.tolist(), [m.tolist() for m in res.moves]
        elif name == "copy":
            got = b.copy(undo=hostile[0])
            assert got == b and got.width == b.width
        elif name == "__init__":
            got = b.__init__(hostile[0], hostile[1])
        else:
            got = getattr(b, name)(hostile[0])
    except (ValueError, TypeError, RuntimeError, Boom) as e:
        ok = False
        if isinstance(e, RuntimeError):
            assert new_alone and "changed size" in str(e)
    else:
        ok = True
    # the board is a legal replay of its history (no off-board or illegal turn got in)
    assert all(0 <= m <= b.pass_move for m in b.history)
    b.check_consistency()
    replay = fastgo.Board.from_array(b.start_position(), to_move=b.first_player, rules=b.rules)
    for m in b.history:
        replay.play(m)
    assert replay == b
    if not new_alone:
        assert (b.width, b.height) == start_size
    if not ok:
        return
    if name == "__init__":            # only Board.__new__'s game takes it, once
        assert new_alone and (b.width, b.height, b.history) == (values[0], values[1], [])
        return
    if name == "copy":                # undo as far as the truth of `undo` said
        assert got.history == b.history
        with pytest.raises(ValueError) if b.history and values[0] % 2 == 0 else nullcontext():
            got.undo(len(b.history))
        return
    used = [h.value for h in hostile]
    if name == "play":
        assert b.history[-1] == used[0] and b.history[:-1] == hostile[0].history_after
    elif name == "undo":
        assert b.history == hostile[0].history_after[:len(hostile[0].history_after) - used[0]]
    elif name == "score":
        want = plain(b, name, used[:2])
        assert (got.black, got.white) == (want.black, want.white)
        assert np.array_equal(got.ownership, want.ownership)
    elif name == "playouts":
        assert got == plain(b, name, used)
    else:
        assert got == plain(b, name, used)


def test_pickling_hands_out_a_copy_of_the_setup():
    b = fastgo.Board.from_diagram("X . .\n. . .\n. . O")
    _, args = b.__reduce__()
    setup = args[4]
    setup[:] = 0
    assert b.start_position()[2, 0] == fastgo.BLACK
    assert b == fastgo.Board.from_diagram("X . .\n. . .\n. . O")


# -- GTP ---------------------------------------------------------------------------------------------------

HUGE = ["9" * 5000, "9" * 400, "1" + "0" * 30, "-" + "9" * 400]


def test_gtp_huge_numbers_get_gtp_errors_and_leave_the_engine_usable():
    e = Engine(playouts=20)
    for n in HUGE:
        for line in (f"boardsize {n}", f"rectangular_boardsize 9 {n}", f"fixed_handicap {n}",
                     f"place_free_handicap {n}", f"time_settings {n} 1 1",
                     f"time_settings 10 5 {n}", f"kgs-time_settings absolute {n}",
                     f"kgs-time_settings canadian 10 {n} 5", f"time_left b 5 {n}",
                     f"fastgo-playouts {n}", f"fastgo-seed {n}", f"fastgo-ownership {n}",
                     f"play b A{n}", f"loadsgf x.sgf {n}"):
            answer = e.handle(line)
            assert answer.startswith("?") and "internal error" not in answer, (line[:60], answer)
    for n in ("2147483648", "4294967296"):                   # time values are GTP ints
        for line in (f"time_settings {n} 1 1", f"time_settings 10 5 {n}", f"time_left w 5 {n}",
                     f"kgs-time_settings byoyomi 10 {n} 5"):
            assert e.handle(line) == "? syntax error\n\n", line
    # nothing was taken: the engine plays on, on its 9x9 board, without a clock
    assert (e.width, e.height, e.time_settings, e.clock) == (9, 9, None, {})
    assert e.handle("genmove b").startswith("= ")
    assert e.handle("boardsize " + "9" * 30) == "? unacceptable size\n\n"
    assert e.handle("komi " + "9" * 400) == "? syntax error\n\n"     # not a finite float


def test_gtp_time_settings_in_range_still_work_and_clear_board_restarts_the_clocks():
    e = Engine(playouts=20)
    assert e.handle("time_settings 2147483647 5 2147483647") == "= \n\n"
    assert e.handle("genmove b").startswith("= ")
    assert e.handle("time_left b 0 1") == "= \n\n"
    assert e.clock[1] == (0.0, 1)
    assert e.handle("clear_board") == "= \n\n"
    assert e.clock == {1: (2147483647.0, 0), 2: (2147483647.0, 0)}


def test_loadsgf_of_a_setup_chain_without_liberties_or_a_nul_in_ca_answers_gtp(tmp_path):
    bad = tmp_path / "dead.sgf"
    bad.write_text("(;SZ[3]AB[aa]AW[ba][ab])")
    nul = tmp_path / "nul.sgf"
    nul.write_bytes(b"(;CA[ut\x00f8]SZ[5];B[cc])")
    e = Engine(playouts=20)
    assert e.handle(f"loadsgf {bad}") == ("? cannot load file: the set-up (AB/AW/AE) leaves a "
                                          "chain without liberties (line 1, column 2)\n\n")
    assert e.handle(f"loadsgf {nul}") == "= \n\n"      # decoded as UTF-8
    assert e.handle("list_stones b") == "= C3\n\n"


def test_replay_goes_on_past_a_bad_file_and_exits_1(tmp_path):
    bad = tmp_path / "bad.sgf"
    bad.write_bytes(b"(;CA[ut\x00f8]SZ[5];B[cc];B[dd])")     # two black moves: illegal
    good = tmp_path / "good.sgf"
    good.write_text("(;SZ[5];B[cc])")
    done = subprocess.run([sys.executable, "-m", "fastgo", "replay", str(bad), str(good)],
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert f"fastgo replay: {bad}: move 2" in done.stderr
    assert f"== {good}" in done.stdout and "1 move replayed, all legal" in done.stdout


# -- SGF ----------------------------------------------------------------------------------------------------

def test_sgf_writers_refuse_non_finite_and_huge_numbers_by_name():
    with pytest.raises(ValueError, match="finite"):
        sgf.number_text(math.inf)
    with pytest.raises(ValueError, match="finite"):
        sgf.number_text(10**400)
    with pytest.raises(ValueError, match="bad komi"):
        sgf.to_sgf(sgf.Game(komi=math.inf))
    for move in (10**30, math.inf, -1, 82, 2.5):
        with pytest.raises(ValueError, match="game 0, turn 2: .* is not a point of a 9x9 board"):
            sgf.games_to_sgf([[40, move]], 9)
    with pytest.raises(TypeError, match="rules name must be a str"):
        sgf.rules_from_name(5)
    assert sgf.number_text(7.5) == "7.5" and sgf.number_text(-3) == "-3"


@pytest.mark.parametrize("size", ["1_9", "\u0669", "٩:9", "9:1_9", "+", "", "0x9", "9.0"])
def test_sgf_numbers_are_ascii_digits(size):
    with pytest.raises(sgf.SgfError, match="bad board size"):
        sgf.read_game(f"(;SZ[{size}])")


def test_sgf_komi_and_handicap_are_ascii_numbers():
    with pytest.warns(sgf.SgfWarning, match=r"HA\[2\] but 0 black stones set up"):
        assert sgf.read_game("(;SZ[9]KM[ 6.5 ]HA[+2])").komi == 6.5
    for root in ("KM[6_5]", "KM[\u0666.5]", "KM[inf]", "KM[1e3]", "HA[\u0662]", "HA[2_0]"):
        # strict reading refuses the record; lenient reading (the default) warns and drops the
        # value, keeping the game
        with pytest.raises(sgf.SgfError, match="bad"):
            sgf.read_game(f"(;SZ[9]{root})", strict=True)
        with pytest.warns(sgf.SgfWarning, match="bad"):
            g = sgf.read_game(f"(;SZ[9]{root})")
        assert g.komi is None and g.handicap == 0


def test_an_ing_game_written_as_ing_reads_back_equal():
    # ing and new-zealand differ only in komi: RU names the preset whose komi matches too
    b = fastgo.Board(9, rules="ing")
    b.play("E5")
    g = sgf.game_of_board(b)
    text = sgf.to_sgf(g)
    assert "RU[Ing]" in text and "KM[8]" in text
    back = sgf.read_game(text)
    assert back == g and back.board() == b
    # the komi still counts, and so do the options RU names
    assert back != sgf.game_of_board(fastgo.Board(9, rules="new-zealand"))
    assert back != sgf.game_of_board(fastgo.Board(9, rules="chinese", komi=8))


def test_repr_and_equality_of_a_deep_node_tree():
    text = "(;SZ[9]" + ";B[aa];W[]" * 2500 + ")"
    a, b = sgf.parse(text)[0], sgf.parse(text)[0]
    assert a == b
    r = repr(a)
    assert r.startswith("Node(props={'SZ': ['9']}, children=[Node(props={'B': ['aa']}")
    assert r.count("Node(") == 5001 and r.endswith(", offset=1)")
    list(b.main_line())[-1].props["C"] = ["x"]
    assert a != b
    small = sgf.parse("(;SZ[9](;B[aa])(;W[bb]))")[0]
    assert repr(small) == ("Node(props={'SZ': ['9']}, children=[Node(props={'B': ['aa']}, "
                           "children=[], offset=8), Node(props={'W': ['bb']}, children=[], "
                           "offset=16)], offset=1)")


def test_setup_rectangles_are_placed_and_checked_like_points():
    g = sgf.read_game("(;SZ[5:3]AB[ab:bc]AW[ea]AE[aa])")
    assert g.setup.tolist() == [[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 0, 0, 2]]
    with pytest.raises(sgf.SgfError, match="'ab' is in both AB and AW"):
        sgf.read_game("(;SZ[5]AB[aa:bb]AW[cc:dd][ab])")
    with pytest.raises(sgf.SgfError, match="'bb' is in both AW and AE"):
        sgf.read_game("(;SZ[5]AW[bb]AE[aa:cc])")
    # the bomb: a 52x52 rectangle repeated costs per value, not per point (5.4 s before)
    text = "(;SZ[52]AB" + "[aa:ZZ]" * 8000 + ")"
    assert sgf.read_game(text).setup.sum() == 52 * 52


# -- memory and time bombs -----------------------------------------------------------------------------

def test_finished_parts_are_compact_and_resumptions_capped():
    g = sgf.read_game("(;SZ[9];B[ee];W[];B[];W[cc];B[];W[];B[dd])")
    parts = g.segments(insert_passes=True)
    assert [type(p).__name__ for p in parts] == ["FinishedPart", "FinishedPart", "Board"]
    first, second, last = parts
    assert first.history == [40, 81, 81] and first.is_over and first.first_player == 1
    assert second.start_position()[4, 4] == 1 and second.first_player == 2
    again = second.board()
    assert again.history == second.history and again.is_over
    assert again.captures == second.captures
    with pytest.raises(ValueError):
        first._setup[0, 0] = 1                                  # shared, read-only
    # passes only: the parts share one set-up array
    g = sgf.read_game("(;SZ[9]" + ";B[];W[]" * 50 + ")")
    parts = g.segments(insert_passes=True)
    assert len(parts) == 50 and len({id(p._setup) for p in parts[:-1]}) == 1
    text = "(;SZ[9]" + ";B[];W[]" * (sgf.MAX_RESUMPTIONS + 2) + ")"
    with pytest.raises(sgf.SgfError, match="resumed after two passes 10000 times"):
        sgf.read_game(text).board(insert_passes=True)


def test_gtp_caps_resumptions_and_undoes_into_a_compact_part(monkeypatch):
    monkeypatch.setattr(sgf, "MAX_RESUMPTIONS", 3)
    e = Engine(playouts=20)
    for line in ["play b E5", "play w pass", "play b pass"] + ["play w pass", "play b pass"] * 3:
        assert e.handle(line) == "= \n\n", line
    assert e.handle("play w pass") == "? the game was resumed after two passes 3 times, fastgo's limit\n\n"
    assert len(e.earlier) == 3 and e.board.is_over
    for _ in range(2):                                         # a pass, then a resumption
        assert e.handle("undo") == "= \n\n"
    assert len(e.earlier) == 2 and e.board.history == [81, 81]
    assert e.handle("printsgf").count(";") == 1 + 7


def test_pass_heavy_inputs_keep_memory_bounded():
    # 8,000 resumptions read from SGF and 6,000 played by GTP: before, each finished part kept a
    # whole Board (about 15 KB: 120 MB and 90 MB); compact parts take a few hundred bytes
    rc, out, err = run_python("""
        import resource
        from fastgo import sgf
        from fastgo.gtp import Engine
        def rss_mb():
            with open("/proc/self/status") as f:
                return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024
        text = "(;SZ[19]" + ";B[];W[]" * 8000 + ")"
        base = rss_mb()
        parts = sgf.read_game(text).segments(insert_passes=True)
        assert len(parts) == 8000
        grown_sgf = rss_mb() - base
        e = Engine(size=19)
        base = rss_mb()
        for _ in range(6000):
            assert e.handle("play b pass") == "= \\n\\n"
            assert e.handle("play w pass") == "= \\n\\n"
        assert len(e.earlier) == 5999
        print(grown_sgf, rss_mb() - base)
    """)
    assert rc == 0, err
    grown_sgf, grown_gtp = map(float, out.split())
    assert grown_sgf < 25 and grown_gtp < 25, out


def test_legal_position_mask_refuses_a_huge_broadcast_view_at_once():
    rc, out, err = run_python("""
        import os, signal, threading, time
        import numpy as np
        from fastgo.count import legal_position_mask
        a = np.broadcast_to(np.zeros(1, dtype=np.int64), (2**31, 25, 25))
        threading.Timer(2.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t = time.perf_counter()
        try:
            legal_position_mask(a, threads=1)
        except (MemoryError, KeyboardInterrupt) as e:
            print(type(e).__name__, time.perf_counter() - t)
        os._exit(0)
    """, timeout=120)
    assert rc == 0, err
    kind, seconds = out.split()
    assert kind in ("MemoryError", "KeyboardInterrupt") and float(seconds) < 10


def test_legal_position_mask_reads_wide_and_strided_input_blockwise():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 3, size=(3000, 4, 5))
    want = [fastgo.is_legal_position(x) for x in a]
    for view in (a, a.astype(np.int8), a.astype(np.uint8)[:, ::-1, :][:, ::-1, :],
                 np.asfortranarray(a.astype(np.int16))):
        assert legal_position_mask(view).tolist() == want
    for bad in (np.full((2, 3, 3), -1, dtype=np.int8), np.full((2, 3, 3), 3, dtype=np.int64),
                np.full((2, 3, 3), -1)[:, ::2]):
        with pytest.raises(ValueError, match="only 0"):
            legal_position_mask(bad)


# -- debug build --------------------------------------------------------------------------------------

DEBUG_USER = textwrap.dedent('''
    # cython: language_level=3
    from fastgo.core cimport BoardState, board_new, board_free, to_pad

    def off_board(int point):
        cdef BoardState* b = board_new(5, 5)
        cdef int p = to_pad(b, point)
        board_free(b)
        return p
''')


def build_debug_user(tmp_path, name, source):
    """Build a Cython module `name` that cimports fastgo.core, with FASTGO_DEBUG=1, in tmp_path."""
    pytest.importorskip("Cython")
    (tmp_path / f"{name}.pyx").write_text(source)
    (tmp_path / "setup.py").write_text(textwrap.dedent(f'''
        import sys
        from setuptools import setup, Extension
        from Cython.Build import cythonize
        ext = Extension("{name}", ["{name}.pyx"], define_macros=[("FASTGO_DEBUG", "1")])
        setup(ext_modules=cythonize([ext], quiet=True, include_path=[sys.argv.pop()]))
    '''))
    root = os.path.dirname(os.path.dirname(os.path.abspath(fastgo.__file__)))
    done = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", root],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]


def test_debug_assert_names_the_check_and_the_value(tmp_path):
    build_debug_user(tmp_path, "debug_user", DEBUG_USER)
    run = subprocess.run([sys.executable, "-c", "import debug_user; print(debug_user.off_board(7)); "
                          "debug_user.off_board(-3)"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == -signal.SIGABRT
    assert run.stdout.strip().isdigit()                         # an on-board point passes
    assert ("fastgo: internal check failed: to_pad: 0 <= point < width * height; point "
            "(value -3)") in run.stderr
    assert "__pyx" not in run.stderr


DEBUG_NBR = textwrap.dedent('''
    # cython: language_level=3
    from fastgo.core cimport BoardState, board_new, board_free, board_play, to_pad, nbr_masks

    def play(moves, int spoil):
        """Play (point, colour) pairs on a 5x5 board (empty points only); after `spoil` moves,
        flip one side's bit of a neighbour mask behind the kernel's back."""
        cdef BoardState* b = board_new(5, 5)
        cdef int i = 0
        for point, colour in moves:
            if i == spoil:
                nbr_masks(b)[to_pad(b, 12)] ^= 1
            if b.cell[to_pad(b, point)].color == 0:
                board_play(b, NULL, to_pad(b, point), colour)
            i += 1
        board_free(b)
        return i
''')


def test_debug_build_recounts_the_neighbour_sides_after_every_play(tmp_path):
    build_debug_user(tmp_path, "debug_nbr", DEBUG_NBR)
    rng = np.random.default_rng(3)
    moves = [(int(p), int(c)) for p, c in zip(rng.integers(0, 25, 400), rng.integers(1, 3, 400))]
    # 400 random plays with captures and suicides: every recount agrees
    code = f"import debug_nbr; print(debug_nbr.play({moves!r}, -1))"
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "400", run.stderr[-2000:]
    # a mask spoiled after 50 plays is caught at the next play
    code = f"import debug_nbr; debug_nbr.play({moves!r}, 50)"
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == -signal.SIGABRT
    assert "fastgo: internal check failed: neighbour masks: recorded == recounted" in run.stderr


# -- objects made by __new__ alone ------------------------------------------------------------------

@pytest.mark.parametrize("cls", ["fastgo.BoardBatch", "fastgo.search.Search"])
def test_every_public_attribute_of_an_uninitialised_object_is_refused_in_a_subprocess(cls):
    # X.__new__(X) has NULL pointers and no games: copy(), result() and variation() followed
    # them (a segfault). Every public method and property, called with plausible arguments,
    # raises "not initialised"; plain attributes read as they are; repr works.
    rc, out, err = run_python(f"""
        import inspect, json
        import numpy as np
        import fastgo, fastgo.search
        X = {cls}
        plausible = dict(board=fastgo.Board(5), move=0, i=0, actions=np.zeros(1, np.int64),
                         encoding="agz17", visits=1)
        outcome = {{}}
        for name in dir(X):
            if name.startswith("_") and name not in ("__len__", "__repr__"):
                continue
            obj = X.__new__(X)
            try:
                attr = getattr(obj, name)
                if callable(attr) and not isinstance(attr, type):
                    sig = inspect.signature(attr)
                    args = [plausible.get(p.name, 0) for p in sig.parameters.values()
                            if p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD]
                    kwargs = {{p.name: plausible.get(p.name, 0) for p in sig.parameters.values()
                              if p.kind is p.KEYWORD_ONLY and p.name in plausible}}
                    attr(*args, **kwargs)
                    outcome[name] = "returned"
                else:
                    outcome[name] = "value"
            except RuntimeError as e:
                outcome[name] = "refused" if "was not initialised" in str(e) else repr(e)
            except Exception as e:
                outcome[name] = repr(e)
        obj = X.__new__(X)
        setattr_refused = True
        if X is fastgo.BoardBatch:
            try:
                obj.threads = 2
                setattr_refused = False
            except RuntimeError:
                pass
        print(json.dumps(dict(outcome=outcome, setattr_refused=setattr_refused)))
        """)
    assert rc == 0, err[-2000:]
    got = __import__("json").loads(out)
    outcome = got["outcome"]
    assert outcome.pop("__repr__") == "returned"
    methods = {"fastgo.BoardBatch": {"step", "reset", "legal_mask", "encode", "scores", "winners",
                                     "board", "set", "copy", "stones", "to_move", "terminated",
                                     "truncated", "move_numbers", "hashes", "width", "height",
                                     "num_points", "max_moves", "autoreset", "threads",
                                     "state_bytes", "__len__"},
               "fastgo.search.Search": {"search", "stop", "advance", "result", "variation",
                                        "board", "nodes", "capacity", "threads"}}[cls]
    assert methods <= set(outcome)
    if "close" in outcome:              # (a Search's: nothing to free, nothing done)
        assert outcome.pop("close") == "returned"
    assert {k for k, v in outcome.items() if v != "refused"} <= {
        "rules", "bytes_per_node", "batch", "encoding", "evaluator", "policy", "prisoners"}, outcome
    assert got["setattr_refused"]


# -- batches ------------------------------------------------------------------------------------------

def test_a_batch_serves_one_call_at_a_time():
    # the jobs run without the GIL from fields of the batch: another thread's call meanwhile
    # (here encodings of other plane counts) would aim them at its own buffers; it is refused
    from fastgo.batch import BoardBatch
    b = BoardBatch(2048, 9, threads=1)
    rng = np.random.default_rng(5)
    for _ in range(6):
        b.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in b.legal_mask()]))
    want = {enc: b.encode(enc) for enc in ("openspiel4", "agz17", "katago")}
    results, refused = [], []

    def worker(enc):
        for _ in range(60):
            try:
                results.append((enc, b.encode(enc)))
            except RuntimeError as e:
                assert "in use by another call (another thread's" in str(e)
                refused.append(enc)

    threads = [threading.Thread(target=worker, args=(enc,)) for enc in want]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) + len(refused) == 180 and results
    for enc, out in results:
        assert np.array_equal(out, want[enc]), enc


def test_user_code_inside_a_batch_call_cannot_start_another():
    from fastgo.batch import BoardBatch
    b = BoardBatch(4, 5, threads=1)

    class Actions:
        def __array__(self, dtype=None, copy=None):
            # every call that reads the games (they read half-stepped games from another
            # thread's step: move_numbers, to_move, ... only checked that the batch was made)
            for call in (lambda: b.encode("agz17"), lambda: b.move_numbers, lambda: b.to_move,
                         lambda: b.terminated, lambda: b.truncated, lambda: b.hashes, b.stones,
                         lambda: b.state_bytes, b.scores, b.winners, b.legal_mask,
                         lambda: b.board(0), b.copy, lambda: setattr(b, "threads", 2)):
                with pytest.raises(RuntimeError, match="in use"):
                    call()
            return np.full(4, 12, dtype=np.int64)

    b.step(Actions())
    assert b.board(0).history == [12] and b.move_numbers.tolist() == [1] * 4


# -- search -------------------------------------------------------------------------------------------

def test_a_search_serves_one_call_at_a_time():
    # user code inside a Search call (a PUCT evaluator, a move's __index__) that starts another
    # search, advances or re-initialises the tree is refused; the call goes on as if it had not
    from fastgo.search import Search
    b = fastgo.Board(5, rules="chinese")

    def uniform(planes):
        n = planes.shape[0]
        return np.full((n, 26), 1 / 26), np.zeros(n)

    refused = []

    def meddling(planes):
        for call in (lambda: s.search(visits=5), lambda: s.advance("C3"), lambda: s.__init__(b)):
            with pytest.raises(RuntimeError) as e:
                call()
            refused.append(str(e.value))
        s.result()                                    # reading the tree is allowed
        return uniform(planes)

    s = Search(b, evaluator=meddling, batch=4)
    got = s.search(visits=40)
    want = Search(b, evaluator=uniform, batch=4).search(visits=40)
    # (the message said "in another thread": a callback of this thread's call is refused too)
    from fastgo.search import _BUSY as busy
    assert busy.startswith("this Search is in the middle of another call (another thread's "
                           "search, a callback inside one of its calls")
    assert refused and set(refused) == {busy, "Search.__init__ called twice"}
    assert got.root_visits == 40 and got.moves.tolist() == want.moves.tolist()
    assert got.visits.tolist() == want.visits.tolist()

    class Move:
        def __index__(self):
            with pytest.raises(RuntimeError, match="in the middle of another call"):
                t.search(playouts=10)
            with pytest.raises(RuntimeError, match="in the middle of another call"):
                t.advance(3)
            return 12

    t = Search(b, threads=1, seed=3)
    t.search(playouts=200)
    t.advance(Move())
    assert t.board.history == [12] and s.board.history == []


# -- what another thread or process may do meanwhile ----------------------------------------------

RACE = """
import sys, threading, time, numpy as np, fastgo
n = 20000
bb = fastgo.BoardBatch(n, 9, threads=1)
bb.step(np.full(n, 40))                          # E5 everywhere: now occupied
acts = np.full(n, 81, np.int64)                  # passes: legal when judged
stop = False
def mutate():                                    # off the board, occupied, legal again
    while not stop:
        acts[:] = 100000; acts[:] = 40; acts[:] = 81
th = threading.Thread(target=mutate)
th.start()
t0 = time.time()
while time.time() - t0 < float(sys.argv[1]):
    try:
        bb.step(acts)
    except ValueError:                           # IllegalActionError: it saw a bad value
        pass
stop = True
th.join()
for i in range(0, n, 101):                       # the C state is the record's replay
    assert bb.board(i).hash == int(bb.hashes[i]), i
print("ok")
"""


def test_a_step_plays_the_actions_it_judged():
    # step judged the caller's array and then read it again to play, the GIL released between:
    # another thread's write in between was played unjudged (an off-board point: a crash; an
    # occupied one: a stone on a stone). It now plays its own copy of what it judged.
    r = subprocess.run([sys.executable, "-c", RACE, "3"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stderr[-2000:])


def _forked_jobs(batch, search, queue):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batch.step(np.full(len(batch), batch.num_points))
        fastgo.random_actions(np.ones((50000, 82), bool), threads=2)
        search.search(playouts=300)
    queue.put(sorted({str(w.message) for w in caught if w.category is RuntimeWarning}))


def test_a_forked_child_runs_batches_and_searches_on_one_thread(many_cores):
    # OpenMP's threads do not survive fork(): BoardBatch, random_actions and Search (made before
    # the fork, or asked for two threads in the child) hung in a child whose parent had run a
    # parallel region, out of reach of Ctrl-C. They run on one thread there, saying so.
    from fastgo.search import Search
    fastgo.playouts(fastgo.Board(5), 64, threads=2)          # a parallel region in the parent
    batch = fastgo.BoardBatch(20000, 9, threads=2)
    search = Search(fastgo.Board(9), threads=2)
    assert run_forked(_forked_jobs, batch, search) == [
        f"{what} runs on one thread in a forked process"
        for what in ("BoardBatch", "Search.search", "random_actions")]


def test_sizes_past_the_memory_are_refused_before_anything_is_touched():
    # playouts(n, record=n) built a list of n indices first (2**31: RAM grew until the OOM
    # killer, Ctrl-C unheard); a batch past the machine's memory was allocated and touched
    b = fastgo.Board(9)
    for record in (2**31 - 1, range(2**31 - 1)):
        with pytest.raises(MemoryError, match=r"the moves of 2147483647 recorded playouts of "
                                              r"up to 1000 turns need about 4008\.0 GiB"):
            fastgo.playouts(b, 2**31 - 1, record=record)
    assert fastgo.playouts(b, 10, record=range(2, 8, 2)).recorded == [2, 4, 6]
    with pytest.raises(ValueError, match="between 0 and 9, got 11"):
        fastgo.playouts(b, 10, record=range(5, 12))
    from fastgo.batch import BoardBatch
    with pytest.raises(MemoryError, match=r"67108864 19x19 games \(\d+ bytes a game, more as "
                                          r"they grow\) need about \d+\.\d GiB"):
        BoardBatch(1 << 26, 19)
    half = BoardBatch.__new__(BoardBatch)        # a failed __init__ leaves no half-made games
    with pytest.raises(MemoryError):
        half.__init__(1 << 26, 19)
    with pytest.raises(RuntimeError, match="not initialised"):
        half.step([0])
    with pytest.raises(ValueError, match="no playout to record: n is 0"):
        fastgo.playouts(b, 0, record=range(0, 5))


def test_an_interrupted_batch_init_leaves_no_half_made_games():
    # a large batch takes seconds to make: Ctrl-C is heard every 4,096 games, and what was
    # made is freed (the games' pointers were left set: a later call would read half-made games)
    import signal
    from fastgo.batch import BoardBatch

    class Interrupted(Exception):
        pass

    def handler(signum, frame):
        raise Interrupted
    old = signal.signal(signal.SIGALRM, handler)
    interrupted = 0
    try:
        for _ in range(5):
            b = BoardBatch.__new__(BoardBatch)
            signal.setitimer(signal.ITIMER_REAL, 0.004)
            try:
                b.__init__(100_000, 5)
            except Interrupted:
                interrupted += 1
                with pytest.raises(RuntimeError, match="not initialised"):
                    b.step([0])
                assert repr(b) == "<fastgo.BoardBatch, not initialised>"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)
    assert interrupted                      # (each batch takes far longer than 4 ms to make)


# -- subclasses of Board and re-entrant set-ups (a fuzzer's crashes) ---------------------------

def test_copy_and_from_array_never_run_a_subclass_new():
    """copy() called the subclass's __new__ with the private sentinel for a stateless Board
    (passed back to Board.__new__: a segfault at any use), and took whatever it returned: a live
    board was overwritten (garbage, then a segfault). from_array re-initialised a live one."""
    code = """
        import numpy as np
        import fastgo
        calls, live = [], []
        class Spy(fastgo.Board):
            def __new__(cls, *args, **kwargs):
                calls.append(args)
                return super().__new__(cls, *args, **kwargs)
        s = Spy(5)
        s.play(7)
        c = s.copy()
        assert calls == [(5,)] and type(c) is Spy and c.history == [7] and c == s
        for args in calls:
            assert fastgo.Board.__new__(fastgo.Board, *args).width == 1
        class Cached(fastgo.Board):
            def __new__(cls, *args, **kwargs):
                if not live:
                    live.append(super().__new__(cls))
                return live[0]
        b = Cached(9)
        b.play("D4")
        c = b.copy()
        assert c is not b and b.width == 9 and b.history == [30] and c.history == [30]
        c.play("E5")
        assert b.history == [30] and b.legal_mask().sum() == 81
        d = Cached.from_array(np.zeros((3, 3), np.int8))
        assert d is not b and d.width == 3 and b.width == 9 and b.history == [30]
        print("ok")
    """
    rc, out, err = run_python(code)
    assert (rc, out.strip()) == (0, "ok"), err[-2000:]


class Tagged(fastgo.Board):
    """A subclass with attributes (module level: pickle finds it by name)."""


def test_a_subclass_copy_keeps_its_attributes():
    """copy(), copy.copy, copy.deepcopy and pickle dropped a subclass's attributes: copies are
    shallow as copy.copy's are, a deep copy's attributes its own, a pickle's restored."""
    b = Tagged(5)
    b.play(7)
    b.tag = ["mine"]
    for c in (b.copy(), b.copy(True), copy.copy(b)):
        assert type(c) is Tagged and c.tag is b.tag and c.history == [7]
    d = copy.deepcopy(b)
    assert type(d) is Tagged and d.tag == ["mine"] and d.tag is not b.tag and d == b
    d.tag.append("copy's")
    assert b.tag == ["mine"]
    p = pickle.loads(pickle.dumps(b))
    assert type(p) is Tagged and p.tag == ["mine"] and p.history == [7] and p == b
    assert not hasattr(pickle.loads(pickle.dumps(Tagged(5))), "tag")


def test_the_package_reads_a_subclass_board_by_its_c_fields_not_its_overrides():
    """BoardBatch.set (and features.encode) replayed `board.history`, a property a subclass can
    override, unchecked into C arrays (a point of 2e9: a segfault); Search called the board's
    copy() (another size: a heap overflow) and play() (another move: a tree that no longer
    matched its board, a hang). Now each reads the board's own turns and plays on a plain
    private copy: the results are the plain Board's."""
    code = """
        import numpy as np
        import fastgo
        from fastgo import features
        from fastgo.search import Search
        class Lying(fastgo.Board):
            @property
            def history(self):
                return [2_000_000_000, -5]
            def start_position(self):
                return np.ones((9, 9), np.int8)
            def copy(self, undo=False):
                return fastgo.Board(19)
            def play(self, move):
                fastgo.Board.play(self, 40 if move != 40 else 41)
        plain, lying = fastgo.Board(9), Lying(9)
        for m in (20, 30, 21):
            plain.play(m)
            fastgo.Board.play(lying, m)
        batch = fastgo.BoardBatch(1, 9)
        batch.set(0, lying)
        assert batch.board(0).history == [20, 30, 21] and batch.board(0) == plain
        assert np.array_equal(features.encode(lying, "agz17"), features.encode(plain, "agz17"))
        got = []
        for b in (plain, lying):
            s = Search(b, threads=1, seed=3, memory=10**7)
            r1 = s.search(playouts=300)
            s.advance(0)
            r2 = s.search(playouts=300)
            got.append((r1.moves.tolist(), r1.visits.tolist(), r2.moves.tolist(),
                        r2.visits.tolist(), s.board.history))
        assert got[0] == got[1] and got[0][-1] == [20, 30, 21, 0]
        print("ok")
    """
    rc, out, err = run_python(code)
    assert (rc, out.strip()) == (0, "ok"), err[-2000:]


def test_search_init_re_entered_from_an_argument_is_refused():
    """An argument's __index__ calling __init__ again: the inner call completed (the guard was
    set at the end), sized the buffers for its 2x2 board, and the outer one copied a 19x19
    position into them (an abort in the debug build, a hang in the release one)."""
    code = """
        import fastgo
        from fastgo.search import Search
        s = Search.__new__(Search)
        class Threads:
            def __index__(self):
                s.__init__(fastgo.Board(2), threads=1, memory=10**6)
                return 1
        try:
            s.__init__(fastgo.Board(19), threads=Threads(), memory=10**6)
        except RuntimeError as e:
            assert "called twice" in str(e)
        else:
            raise AssertionError("re-entered __init__ accepted")
        try:
            s.search(playouts=10)
        except RuntimeError:
            pass
        print("ok")
    """
    rc, out, err = run_python(code)
    assert (rc, out.strip()) == (0, "ok"), err[-2000:]


def test_search_of_a_new_board_started_again_by_an_argument_is_sized_for_its_copy():
    """Search read a Board.__new__ board's size (1x1) before its arguments, whose __index__
    then made it a 19x19 game, and copied the board after: buffers for one point, a 19x19 root
    (a heap overflow: "free(): invalid next size", or a segfault). The board is now copied
    first, so the search is of the 1x1 game it was given."""
    code = """
        import gc, fastgo
        from fastgo.search import Search
        for k in range(3):
            b = fastgo.Board.__new__(fastgo.Board)
            class One:
                def __index__(self):
                    b.__init__(19)
                    return 1
            s = Search(b, threads=One(), ownership=True, seed=k)
            r = s.search(playouts=3000)
            assert (s.board.width, s.board.height, s.board.history) == (1, 1, [])
            assert r.moves.tolist() == [1] and r.ownership.shape == (1, 1), r
            assert b.width == 19
            del s
            gc.collect()
        print("ok")
    """
    rc, out, err = run_python(code)
    assert (rc, out.strip()) == (0, "ok"), err[-2000:]


class _HookRules(fastgo.Rules):
    """Rules whose field reads run `hook` (a Rules subclass is kept as it is by a Board)."""
    hook = None

    def __getattribute__(self, name):
        hook = type(self).hook
        if hook is not None and name in ("scoring", "komi"):
            type(self).hook = None
            hook()
        return object.__getattribute__(self, name)


def test_the_rules_fields_are_read_once_when_the_board_starts():
    """playouts and Search.advance read a board's scoring and komi while they read the board:
    a Rules subclass's read that played on it ran the playouts from a position the game never
    had (the new stones, the old player to move), and one that raised left advance half done
    (the root board advanced, the tree not), and the next search segfaulted. The fields are
    read once, when the board's game starts (and the board is as it was then)."""
    b = fastgo.Board(9, rules=_HookRules())
    b.play("E5")
    want = fastgo.playouts(b.copy(), 300, seed=5, threads=1).scores
    _HookRules.hook = lambda: b.play("D4")
    got = fastgo.playouts(b, 300, seed=5, threads=1).scores
    assert b.history == [40] and _HookRules.hook is not None      # no user code ran
    assert np.array_equal(got, want)
    _HookRules.hook = None
    s = fastgo.Search(b, threads=1, seed=1)
    s.search(playouts=500)

    def fail():
        raise KeyError("rules read")
    _HookRules.hook = fail
    s.advance("D4")                     # reads no rules field: no half-done advance
    assert s.board.history == [40, 30] and s.search(playouts=500).root_visits >= 500
    with pytest.raises(KeyError):       # where the rules are read: the new board's start
        fastgo.Board(9, rules=_HookRules())
    _HookRules.hook = None
    # the score of a territory board (its fields as the board was made) matches a plain one's
    t = fastgo.Board(5, rules=_HookRules(scoring="territory", komi=0.5))
    t.play("C3")
    plain = t.copy()
    plain_rules = fastgo.Rules(scoring="territory", komi=0.5)
    assert t.score() == fastgo.Board.from_array(plain.stones(), rules=plain_rules).score()


def test_a_signal_handler_inside_a_batch_being_made_is_refused():
    """BoardBatch's __init__ looks for Ctrl-C while it makes its games (a large batch takes
    seconds): a signal handler that used the batch then read games not made yet (a legal
    mask of uninitialised memory; a step died of SIGFPE). It is refused as a call from
    another thread is, and the batch made afterwards is whole."""
    code = """
        import signal, numpy as np, fastgo
        b = fastgo.BoardBatch.__new__(fastgo.BoardBatch)
        seen = []
        def handler(sig, frame):
            for call in (b.legal_mask, lambda: b.step(np.full(len(b), 40))):
                try:
                    call()
                    seen.append("ran")
                except RuntimeError as e:
                    seen.append(str(e)[:25])
        signal.signal(signal.SIGALRM, handler)
        for tries in range(5):
            signal.setitimer(signal.ITIMER_REAL, 0.01)
            b.__init__(60000, 9, threads=1)
            signal.setitimer(signal.ITIMER_REAL, 0)
            if seen:
                break
            b = fastgo.BoardBatch.__new__(fastgo.BoardBatch)    # (made before the timer)
        assert seen == ["this BoardBatch is in use"] * 2, seen
        assert b.legal_mask().all(1).all() and b.move_numbers.max() == 0
        print("ok")
    """
    rc, out, err = run_python(code)
    assert (rc, out.strip()) == (0, "ok"), err[-2000:]


def test_rule_names_are_matched_exactly_not_by_a_strings_own_eq():
    """A str subclass whose __eq__ says True to everything passed `ko in KO_RULES`: Board and
    BoardBatch then raised KeyError, and a bogus scoring was accepted."""
    class Liar(str):
        def __eq__(self, other):
            return True
        __hash__ = str.__hash__
    for kwargs in (dict(ko=Liar("bogus")), dict(scoring=Liar("bogus"))):
        with pytest.raises(ValueError, match="unknown"):
            fastgo.Board(5, **kwargs)
        with pytest.raises(ValueError, match="unknown"):
            fastgo.BoardBatch(2, 5, **kwargs)
    class Plain(str):
        pass
    r = fastgo.Rules(ko=Plain("simple"), scoring=Plain("territory"))
    assert type(r.ko) is str and type(r.scoring) is str and r == fastgo.Rules("simple", scoring="territory")


def test_smaller_boundary_findings_of_the_fuzzer():
    # complex priors were taken, the imaginary part dropped with a warning
    from fastgo.search import Search
    def complex_eval(planes):
        n = planes.shape[0]
        return np.full((n, 26), 1 + 2j), np.zeros(n)
    s = Search(fastgo.Board(5), evaluator=complex_eval, memory=10**6)
    with pytest.raises(TypeError, match="priors must be numbers"):
        s.search(playouts=10)
    # "ſ1" (a long s) upper-cased to the vertex S1
    for bad in ("\u017f1", "\u0131" + "2"):
        with pytest.raises(ValueError, match="bad GTP vertex"):
            fastgo.vertex_to_point(bad, 19)
        with pytest.raises(ValueError):
            fastgo.Board(19).play(bad)
    # a private set-up method was callable from Python with unchecked arguments
    assert not hasattr(fastgo.BoardBatch, "_allocate")


def test_perft_walks_a_plain_copy_of_a_board_subclass():
    """perft and perft_divide copied through the board's own copy(): a subclass whose copy()
    returns a 2x2 board made perft(3x3, 2) the 2x2 answer, 21 (a fuzzer's finding). They walk
    a plain copy of the C fields, as Search and BoardBatch.set do."""
    class Other(fastgo.Board):
        def copy(self, undo=False):
            return fastgo.Board(2)
    b = Other(3)
    assert fastgo.perft(b, 2) == fastgo.perft(fastgo.Board(3), 2) == 91
    assert sorted(fastgo.perft_divide(b, 1)) == sorted(fastgo.perft_divide(fastgo.Board(3), 1))
    assert len(fastgo.perft_divide(b, 1)) == 10


def test_a_pickled_boards_size_is_checked_before_anything_is_made():
    """Board's reconstructor made the empty set-up of the size it was given before checking it
    (MemoryError: 931 GiB for 10**6 x 10**6, a fuzzer's finding), and took a set-up of another
    size than the pickle's header."""
    from fastgo.board import _restore
    with pytest.raises(ValueError, match="out of range"):
        _restore(fastgo.Board, 10**6, 10**6, None, None, 1, [])
    with pytest.raises(ValueError, match="9x9 Board with a 5x5 set-up"):
        _restore(fastgo.Board, 9, 9, None, np.zeros((5, 5), np.int8), 1, [])
    b = fastgo.Board(5, 3)
    b.play("B2")
    assert pickle.loads(pickle.dumps(b)).history == b.history


# -- other threads and signal handlers on the same objects (a thread tester's findings) ----------

def test_from_array_reads_the_callers_array_once():
    """from_array checked the array, ran user code (to_move's __index__, the rules), then read
    the array again: values written meanwhile (3, 200) made a segfault or a board of
    impossible colours. It works on a copy taken first."""
    a = np.zeros((9, 9), np.uint8)
    a[4, 4] = 1

    class Evil:
        def __index__(self):
            a[:] = 3
            return 2
    b = fastgo.Board.from_array(a, to_move=Evil())
    assert b.stones()[4, 4] == 1 and b.stones().sum() == 1 and b.to_move == fastgo.WHITE
    b.check_consistency()


def test_set_loads_the_board_as_it_was_when_called():
    """BoardBatch.set read the board's size and turns, ran user code (the index's __index__,
    the rules' comparison), then read the turns again: a board played on meanwhile (another
    thread, here the index) was loaded with a turn past max_moves, and the refused set
    restarted the game. It loads a copy taken first."""
    board = fastgo.Board(5)
    for m in ("C3", "D3"):
        board.play(m)

    class Index:
        def __index__(self):
            board.play("C4")
            return 1
    batch = fastgo.BoardBatch(2, 5, max_moves=2)
    batch.set(Index(), board)                   # two turns when set was called
    assert batch.board(1).history == [12, 13] and len(board.history) == 3


def test_boards_initialised_by_another_thread_crash_nothing_in_a_subprocess():
    """A Board.__new__ board that another thread initialises while a call reads it: playouts
    sized their buffers for 1 point and wrote 361 (heap corruption), BoardBatch.set loaded a
    19x19 game into a 1x1 batch, and __init__ with a handicap ran numpy between its reset and
    its stones, so another thread's play landed in between (inconsistent boards, then a
    segfault). Each race runs a fixed number of rounds; every outcome must be a result or a
    clean refusal."""
    rc, out, err = run_python("""
        import sys, threading, fastgo
        from fastgo import Board
        sys.setswitchinterval(1e-6)
        slot, done = [None], [False]
        def initer():
            while not done[0]:
                b = slot[0]
                if b is not None:
                    slot[0] = None
                    try:
                        b.__init__(19)
                    except TypeError:
                        pass
        t = threading.Thread(target=initer); t.start()
        batch = fastgo.BoardBatch(4, 1)
        for it in range(400):
            b = Board.__new__(Board)
            slot[0] = b
            # (on a copy taken at the call: the board as it was then)
            r = fastgo.playouts(b, 34, ownership=True, record=34, max_moves=1_000_000,
                                threads=1)
            assert r.ownership.size in (1, 361)
            b = Board.__new__(Board)
            slot[0] = b
            try:
                batch.set(1, b)
                assert batch.board(1).width == 1
            except ValueError as e:
                assert "the board is 19x19" in str(e), e
        done[0] = True; t.join()
        slot, done = [None], [False]
        def player():
            while not done[0]:
                b = slot[0]
                if b is None:
                    continue
                try:
                    b.play("D4")
                    slot[0] = None
                except (ValueError, RuntimeError):
                    pass
        t = threading.Thread(target=player); t.start()
        for it in range(1500):
            b = Board.__new__(Board)
            slot[0] = b
            b.__init__(19, handicap=9)
            slot[0] = None
            b.check_consistency()
        done[0] = True; t.join()
        print("ok")
    """, timeout=300)
    assert rc == 0 and out.strip() == "ok", (rc, out, err[-2000:])


def test_a_signal_handler_finds_a_batch_being_copied_in_use():
    """BoardBatch.copy() looks for signals every 4096 games while the copy is half made: a
    handler that found it (gc.get_objects) could step it, and the finished copy's kept masks
    then disagreed with its games (a later step segfaulted). It is in use until it is done."""
    import gc
    n = 3 * 4096 + 10
    src = fastgo.BoardBatch(n, 5)
    for k in range(5):
        src.step(fastgo.random_actions(src.legal_mask(), seed=k))
    seen = []

    def handler(sig, frame):
        for o in gc.get_objects():
            if type(o) is fastgo.BoardBatch and o is not src and len(o) == n:
                try:
                    moves = o.move_numbers
                except RuntimeError:
                    seen.append("in use")
                    continue
                # (a copy finished before the handler ran is whole, and rightly usable)
                if not np.array_equal(moves, src.move_numbers):
                    seen.append("usable half made")
    took = []
    for _ in range(3):
        t0 = time.perf_counter()
        src.copy()
        took.append(time.perf_counter() - t0)
    old = signal.signal(signal.SIGALRM, handler)
    try:
        for attempt in range(100):
            # (the copy's loop is its last few milliseconds, after making the games)
            # (below the fastest copy's time: a signal after the copy returned would find it
            # finished and usable)
            signal.setitimer(signal.ITIMER_REAL, min(took) * (0.5 + (attempt % 25) / 60))
            c = src.copy()
            signal.setitimer(signal.ITIMER_REAL, 0)
            del c
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert "in use" in seen and "usable half made" not in seen, seen
