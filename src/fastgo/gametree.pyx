# cython: language_level=3
"""Walking the whole game tree of small boards: perft and the number of complete games.

- ``perft(board, depth)``: the number of legal move sequences of exactly `depth` turns from the
  board's position (passes included; two passes in a row end the game, so no sequence goes on
  after them), as chess programs use to prove their move generators. ``perft_divide`` gives the
  count below each first move. It walks every sequence depth first on a copy of the board with
  the Board's own kernels: ``_status`` judges a move (occupied, suicide, ko, superko),
  ``_commit`` plays it and ``_undo_turn`` takes it back; no second copy of the rules.
- ``count_games(width, height, rules)``: the number of complete games from the empty board under
  positional superko, each a sequence of turns that ends with the first two passes in a row: the
  simple paths of Tromp and Farnebäck's game graph ("Combinatorics of Go": 1x1 = 1, 1x2 = 9,
  1x3 = 907, 1x4 = 2,098,407,841; 2x2 = 386,356,909,593 by John Tromp's 1999 count). The graph
  is built by playing every move with Board; the paths are walked with a cache of visited sets.
"""

from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

from fastgo.board cimport Board
from fastgo.core cimport LEGAL, mix64

from fastgo.board import Board as _Board
from fastgo.coords import _index, point_to_vertex

#: Deepest perft: the walk recurses in C once per turn.
MAX_DEPTH = 64
#: Most colourings reachable on a count_games board: a visited set is one 64-bit word.
MAX_GAME_COLOURINGS = 64

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


# ---------------------------------------------------------------------------------------------
# Complete games: simple paths in the game graph, counted over visited sets.
#
# Under positional superko whether a play is legal depends on the colouring, the player and the
# set of colourings the game has visited, nothing else. So the games that go on from a node of
# the walk depend only on (colouring, player, whether the last turn was a pass, visited set): the
# walk remembers the count of nodes it has finished in a cache and meets some of them again
# along other orders of the same moves (only early nodes are kept: see MEMO_VISITED). The graph
# itself (the legal colourings reachable from the empty board, and where each play leads) is
# built by playing every move with Board; the walk over it is a few instructions a node.

ctypedef struct Graph:
    int n                   # colourings, numbered in the order found (0: the empty board)
    int* first              # first[2 * q + c]: start in `succ` of the plays of colour c + 1 at q
    int* succ               # the colouring each play leads to, in point order

ctypedef struct MemoSlot:
    uint64_t visited        # the visited set, a bit per colouring
    uint64_t tag            # 1 + (colouring << 2 | player << 1 | passed); 0: an empty slot
    uint64_t count          # complete games from that node

cdef enum:
    MEMO_BITS = 22          # 4M slots of 24 bytes: a cache, a colliding node replaces the old
    MEMO_VISITED = 12       # only nodes of at most this many visited colourings are remembered:
                            # early in a game the same set is reached in many orders and its
                            # subtree is large; deep nodes are many, rarely met again, and cheap

cdef extern from *:
    """
    #define fastgo_popcount64(x) __builtin_popcountll(x)
    """
    int popcount64 "fastgo_popcount64" (uint64_t x) noexcept nogil


cdef uint64_t paths(const Graph* g, MemoSlot* memo, int q, int c, bint passed,
                    uint64_t visited, _Walk w) except? 0:
    """Complete games from colouring q with colour c + 1 to play (c = 0 Black), `passed` when the
    last turn was a pass, `visited` the colourings seen (q among them)."""
    cdef uint64_t tag = 1 + ((<uint64_t>q << 2) | (<uint64_t>c << 1) | <uint64_t>passed)
    cdef uint64_t total, h
    cdef MemoSlot* slot = NULL
    cdef int k, nxt
    if popcount64(visited) <= MEMO_VISITED:
        h = mix64(visited ^ (tag * <uint64_t>0x9E3779B97F4A7C15))
        slot = &memo[h >> (64 - MEMO_BITS)]
        if slot.tag == tag and slot.visited == visited:
            return slot.count
    w.tick()
    # a pass: the second in a row ends the game, a first one hands the turn over
    total = 1 if passed else paths(g, memo, q, 1 - c, True, visited, w)
    for k in range(g.first[2 * q + c], g.first[2 * q + c + 1]):
        nxt = g.succ[k]
        if not (visited >> nxt) & 1:
            total = add_checked(total, paths(g, memo, nxt, 1 - c, False,
                                             visited | (<uint64_t>1 << nxt), w))
    if slot != NULL:
        slot.visited = visited
        slot.tag = tag
        slot.count = total
    return total


def _game_graph(width, height, rules):
    """The colourings reachable from the empty board by legal plays (Board's rules, no history)
    and, for each colouring and colour, the colourings its plays lead to, in point order."""
    start = _Board(width, height, rules=rules)
    n = start.num_points
    found = {start.stones().tobytes(): 0}
    grids = [start.stones()]
    moves = []                      # moves[2 * q + c]: colourings reached by colour c + 1's plays
    q = 0
    while q < len(grids):
        for colour in (1, 2):
            here = _Board.from_array(grids[q], to_move=colour, rules=rules)
            reached = []
            for m in here.legal_moves():
                if m == n:
                    continue
                after = here.copy()
                after.play(m)
                key = after.stones().tobytes()
                if key not in found:
                    if len(grids) == MAX_GAME_COLOURINGS:
                        raise ValueError(f"count_games takes boards of at most "
                                         f"{MAX_GAME_COLOURINGS} reachable colourings; "
                                         f"{width}x{height} has more")
                    found[key] = len(grids)
                    grids.append(after.stones())
                reached.append(found[key])
            moves.append(reached)
        q += 1
    return moves


def count_games(width, height=None, rules=None):
    """The number of complete games on an empty ``width x height`` board under `rules` (a
    ``Rules``, a preset name or None for Tromp-Taylor; its ko rule must be positional superko):
    the sequences of legal turns from the empty board, Black first, that end at the first two
    passes in a row. No play may recreate a colouring seen before in the game, while a pass (which
    keeps the colouring) is always allowed, so every game is finite: these are the simple paths
    of Tromp and Farnebäck's game graph. Boards of at most ``MAX_GAME_COLOURINGS`` reachable
    colourings (2x2 has 57, 1x4 41; 1x5 already 113). Exact: every game is counted, once per
    node of the walk that the cache has not seen.

    >>> count_games(1, 1), count_games(1, 2), count_games(1, 3)
    (1, 9, 907)
    """
    board = _Board(width, height, rules=rules)
    if board.rules.ko != "positional":
        raise ValueError(f"count_games counts games under positional superko, not under the "
                         f"{board.rules.ko} ko rule of {board.rules}")
    moves = _game_graph(board.width, board.height, board.rules)
    cdef Graph g
    cdef int k, i
    cdef MemoSlot* memo = <MemoSlot*>calloc(<size_t>1 << MEMO_BITS, sizeof(MemoSlot))
    g.n = len(moves) // 2
    g.first = <int*>malloc((len(moves) + 1) * sizeof(int))
    g.succ = <int*>malloc((sum(map(len, moves)) + 1) * sizeof(int))
    try:
        if memo == NULL or g.first == NULL or g.succ == NULL:
            raise MemoryError()
        i = 0
        for k in range(len(moves)):
            g.first[k] = i
            for q in moves[k]:
                g.succ[i] = q
                i += 1
        g.first[len(moves)] = i
        return int(paths(&g, memo, 0, 0, False, 1, _Walk()))
    finally:
        free(memo)
        free(g.first)
        free(g.succ)
