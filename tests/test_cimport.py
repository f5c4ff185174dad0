"""The C-level API: other Cython code cimports fastgo.core and fastgo.playout and plays and runs
playouts without the GIL.

Compiles a small extension against the installed package's .pxd (needs Cython and a C
compiler, both in the test extras / build tools) and checks it plays exactly like Board.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import fastgo
from board_state import random_game

pytest.importorskip("Cython")

KERNEL_USER = textwrap.dedent('''
    # cython: language_level=3
    from libc.stdint cimport uint64_t
    from fastgo.core cimport (BoardState, board_new, board_free, board_bytes, board_clear,
                              board_copy, board_preview, board_play, to_pad, BLACK, OCCUPIED)
    from libc.stdlib cimport malloc, free

    def replay(int width, int height, moves, int first):
        """Play the points alternately (passes skipped over) on a C board, without the GIL; copy
        it into a caller's buffer of board_bytes and read the copy."""
        cdef BoardState* b = board_new(width, height)
        cdef BoardState* c = <BoardState*>malloc(board_bytes(width, height))
        cdef int colour = first, p, captured
        cdef uint64_t h
        cdef bint previewed = True
        for m in moves:
            if m < width * height:
                p = to_pad(b, m)
                with nogil:
                    if board_preview(b, p, colour, &h, &captured) != OCCUPIED:
                        board_play(b, NULL, p, colour)
                        previewed = previewed and b.hash == h
            colour = 3 - colour
        if not previewed:
            return None
        board_clear(c, width, height)
        board_copy(c, b)
        board_free(b)
        out = ([c.cell[to_pad(c, q)].color for q in range(width * height)], c.hash,
               c.captures[1], c.captures[2])
        free(c)
        return out

    from fastgo.core cimport HashSet, hashset_free, KO_SIMPLE
    from fastgo.board cimport Board
    from fastgo.playout cimport (PlayoutSpec, PlayoutScratch, PlayoutOutcome, spec_from_board,
                                 scratch_new, scratch_free, playout_run, playout_seed)

    def run_playouts(Board board, int n, uint64_t seed, bint simple_ko):
        """Playouts through the cimported kernel: (score, turns) of each."""
        cdef PlayoutSpec spec
        cdef HashSet own
        cdef PlayoutOutcome out
        cdef PlayoutScratch* s = scratch_new(1000)
        cdef int i
        spec_from_board(&spec, board, KO_SIMPLE if simple_ko else board.ko_rule, 1000, &own)
        results = []
        for i in range(n):
            with nogil:
                playout_run(s, board.st, &spec, playout_seed(seed, i), &out, NULL, NULL)
            results.append((out.score, out.turns))
        scratch_free(s)
        hashset_free(&own)
        return results

    def capped_by_scratch(Board board, int scratch_moves):
        """A spec allowing 1000 turns on a scratch sized for fewer: the scratch's cap holds."""
        cdef PlayoutSpec spec
        cdef HashSet own
        cdef PlayoutOutcome out
        cdef PlayoutScratch* s = scratch_new(scratch_moves)
        spec_from_board(&spec, board, board.ko_rule, 1000, &own)
        with nogil:
            playout_run(s, board.st, &spec, playout_seed(1, 0), &out, NULL, NULL)
        scratch_free(s)
        hashset_free(&own)
        return out.turns, out.capped
''')

SETUP = textwrap.dedent('''
    from setuptools import setup, Extension
    from Cython.Build import cythonize
    import sys
    setup(ext_modules=cythonize([Extension("kernel_user", ["kernel_user.pyx"])], quiet=True,
                                include_path=[sys.argv.pop()]))
''')


@pytest.fixture(scope="module")
def kernel_user(tmp_path_factory):
    d = tmp_path_factory.mktemp("cimport")
    (d / "kernel_user.pyx").write_text(KERNEL_USER)
    (d / "setup.py").write_text(SETUP)
    # where fastgo/core.pxd is: the installed package (or the source tree it was imported from)
    root = os.path.dirname(os.path.dirname(os.path.abspath(fastgo.__file__)))
    done = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", root], cwd=d,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    sys.path.insert(0, str(d))
    try:
        import kernel_user
        yield kernel_user
    finally:
        sys.path.remove(str(d))


@pytest.mark.parametrize("size,seed", [(9, 1), (19, 2), (5, 3)])
def test_cimported_kernel_plays_like_board(kernel_user, size, seed):
    b = fastgo.Board(size, suicide=True)
    random_game(b, np.random.default_rng(seed))
    stones, h, by_black, by_white = kernel_user.replay(size, size, b.history, b.first_player)
    assert stones == b.stones().ravel().tolist()
    assert h == b.hash
    assert (by_black, by_white) == b.captures


@pytest.mark.parametrize("size,ko", [(9, "rules"), (7, "simple")])
def test_cimported_playouts_match_the_python_api(kernel_user, size, ko):
    b = fastgo.Board(size)
    for m in ["E5", "D4", "pass"]:
        if b.is_legal(m):
            b.play(m)
    got = kernel_user.run_playouts(b, 50, 7, ko == "simple")
    res = fastgo.playouts(b, 50, seed=7, ko=ko)
    assert [s for s, _ in got] == res.scores.tolist()
    assert [t for _, t in got] == res.lengths.tolist()


def test_a_scratch_caps_the_playouts_it_can_remember(kernel_user):
    assert kernel_user.capped_by_scratch(fastgo.Board(9), 10) == (10, True)
    turns, capped = kernel_user.capped_by_scratch(fastgo.Board(9), 1000)
    assert 50 < turns < 1000 and not capped
