# cython: language_level=3
"""Walking the whole game tree of small boards: perft and the number of complete games.

Both walk every legal move sequence depth first on one ``Board`` (a copy of the caller's), with
the Board's own rules kernels: ``_status`` judges a move (occupied, suicide, ko, superko),
``_commit`` plays it and ``_undo_turn`` takes it back. There is no second copy of the rules here.

- ``perft(board, depth)``: the number of legal move sequences of exactly `depth` turns from the
  board's position (passes included; two passes in a row end the game, so no sequence goes on
  after them), as chess programs use to prove their move generators. ``perft_divide`` gives the
  count below each first move.
- ``count_games(width, height, rules)``: the number of complete games from the empty board, each
  a sequence of turns that ends with the first two passes in a row. Under positional superko no
  play may recreate an earlier colouring (a pass repeats the colouring and is always allowed), so
  every game is finite: these are the simple paths of Tromp and Farnebäck's game graph ("Combinatorics
  of Go", section on game counts: 1x1 = 1, 1x2 = 9, 1x3 = 907, 1x4 = 2,098,407,841 and, by John
  Tromp's 1999 count, 2x2 = 386,356,909,593).
"""

from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int64_t, uint64_t

from fastgo.board cimport Board
from fastgo.core cimport LEGAL, KO_SIMPLE

from fastgo.board import Board as _Board
from fastgo.coords import _index, point_to_vertex

#: Deepest perft: the walk recurses in C once per turn.
MAX_DEPTH = 64
#: Most points of a count_games board: beyond 4 points the games are far too many to walk.
MAX_GAME_POINTS = 6

cdef enum:
    SIGNAL_EVERY = 1 << 16      # nodes between checks for Ctrl-C


cdef class _Walk:
    """The counters of one walk: nodes visited, for the Ctrl-C checks."""
    cdef int64_t nodes

    cdef inline int tick(self) except -1:
        self.nodes += 1
        if self.nodes % SIGNAL_EVERY == 0:
            PyErr_CheckSignals()
        return 0


cdef inline uint64_t add_checked(uint64_t a, uint64_t b) except? 0:
    """a + b, raising OverflowError when the sum passes 2^64 - 1."""
    if a + b < a:
        raise OverflowError("the count passes 2^64 - 1")
    return a + b


cdef uint64_t perft_walk(Board b, int depth, _Walk w) except? 0:
    """Legal sequences of `depth` turns from b's position (b is left as it was)."""
    cdef int m, n = b.npoints
    cdef uint64_t h, total = 0
    if depth == 0:
        return 1
    w.tick()
    for m in range(n + 1):
        if b._status(m, &h) != LEGAL:        # GAME_OVER after two passes refuses every move
            continue
        if depth == 1:
            total += 1                        # the last turn: count it without playing it
            continue
        b._reserve(m)
        b._commit(m)
        try:
            total = add_checked(total, perft_walk(b, depth - 1, w))
        finally:
            b._undo_turn()
    return total


cdef uint64_t games_walk(Board b, _Walk w) except? 0:
    """Complete games from b's position: sequences of legal turns ending at two passes."""
    cdef int m, n = b.npoints
    cdef uint64_t h, total = 0
    cdef bint passed = b.nturns > 0 and b.turns[b.nturns].move == n
    w.tick()
    for m in range(n + 1):
        if b._status(m, &h) != LEGAL:
            continue
        if m == n and passed:
            total += 1                        # the second pass in a row ends this game
            continue
        b._reserve(m)
        b._commit(m)
        try:
            total = add_checked(total, games_walk(b, w))
        finally:
            b._undo_turn()
    return total


def _walk_board(board, depth):
    if not isinstance(board, _Board):
        raise TypeError(f"board must be a fastgo.Board, not {type(board).__name__}")
    d = _index(depth, "depth")
    if not 0 <= d <= MAX_DEPTH:
        raise ValueError(f"depth must be 0..{MAX_DEPTH}, got {d}")
    return (<Board>board).copy(), d


def perft(board, depth):
    """The number of legal move sequences of exactly `depth` turns from `board`'s position under
    its rules, passes included; two passes in a row end the game and nothing follows them
    (``perft(b, 0)`` is 1). The board is not changed.

    >>> import fastgo
    >>> perft(fastgo.Board(2), 1), perft(fastgo.Board(2), 2)
    (5, 17)
    """
    cdef Board b
    b, d = _walk_board(board, depth)
    return int(perft_walk(b, d, _Walk()))


def perft_divide(board, depth):
    """``perft`` split by the first move: a dict {GTP vertex or "pass": sequences of `depth`
    turns that start with it}, over the legal first moves in point order (depth >= 1)."""
    cdef Board b
    cdef uint64_t h
    cdef int m
    b, d = _walk_board(board, depth)
    if d < 1:
        raise ValueError("perft_divide needs depth >= 1")
    out = {}
    w = _Walk()
    for m in range(b.npoints + 1):
        if b._status(m, &h) != LEGAL:
            continue
        b._reserve(m)
        b._commit(m)
        try:
            out[point_to_vertex(m, b.st.width, b.st.height)] = int(perft_walk(b, d - 1, w))
        finally:
            b._undo_turn()
    return out


def count_games(width, height=None, rules=None):
    """The number of complete games on an empty ``width x height`` board under `rules` (a
    ``Rules``, a preset name or None for Tromp-Taylor): sequences of legal turns from the empty
    board, Black first, that end at the first two passes in a row. The ko rule must be a superko
    (positional: the simple paths of the game graph; situational), else games never end; at most
    ``MAX_GAME_POINTS`` points. Exact, by walking every game: 1x4 takes minutes, 2x2 far longer.

    >>> count_games(1, 1), count_games(1, 2), count_games(1, 3)
    (1, 9, 907)
    """
    board = _Board(width, height, rules=rules)
    cdef Board b = board
    if b.ko_rule == KO_SIMPLE:
        raise ValueError("count_games needs a superko rule (positional or situational): under "
                         "the simple ko rule games can go on for ever")
    if b.npoints > MAX_GAME_POINTS:
        raise ValueError(f"count_games takes boards of at most {MAX_GAME_POINTS} points, got "
                         f"{b.st.width}x{b.st.height}")
    return int(games_walk(b, _Walk()))
