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
  is built by playing every move with Board; every path is walked in C over bit masks, the first
  turns merged under the board's symmetries and the exchange of colours, on OpenMP threads.
"""

from cython.parallel cimport prange, threadid
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

from fastgo.board cimport Board
from fastgo.core cimport LEGAL, ctz64


import numpy as np

from fastgo import playout as _playout
from fastgo.board import Board as _Board
from fastgo.coords import _index, point_to_vertex
from fastgo.playout import _int, default_threads
from fastgo.symmetry import symmetries, transform_planes

#: Deepest perft: the walk recurses in C once per turn.
MAX_DEPTH = 64
#: Most colourings reachable on a count_games board: a visited set is one 64-bit word.
MAX_GAME_COLOURINGS = 64

cdef extern from "Python.h":
    # PyErr_CheckSignals without Cython's exception check: -1 leaves the exception set, to be
    # raised once a loop without the GIL is over (an exception cannot leave a prange's body,
    # nor a nogil walk)
    int check_signals "PyErr_CheckSignals" () noexcept


cdef int raise_pending() except -1:
    """Raise the exception check_signals left set."""
    return -1


cdef enum:
    SIGNAL_EVERY = 1 << 16      # nodes between checks for Ctrl-C


ctypedef struct Walk:
    int64_t nodes           # nodes visited, for the Ctrl-C checks
    int error               # WALK_OVERFLOW, WALK_INTERRUPTED (the exception left set), or 0

cdef enum:
    WALK_OVERFLOW = 1
    WALK_INTERRUPTED = 2


cdef uint64_t perft_walk(Board b, int depth, Walk* w) noexcept nogil:
    """Legal sequences of `depth` turns from b's position (b is left as it was), without the
    GIL: b holds room for `depth` more turns (Board._reserve_turns), and a walk that stops
    (w.error) returns 0 with b as it was."""
    cdef int m, n = b.npoints
    cdef uint64_t h, total = 0, below
    if depth == 0:
        return 1
    w.nodes += 1
    if w.nodes % SIGNAL_EVERY == 0:
        with gil:
            if check_signals() != 0:
                w.error = WALK_INTERRUPTED
                return 0
    for m in range(n + 1):
        if b._status(m, &h) != LEGAL:        # GAME_OVER after two passes refuses every move
            continue
        if depth == 1:
            total += 1                        # the last turn: count it without playing it
            continue
        b._commit(m)
        below = perft_walk(b, depth - 1, w)
        b._undo_turn()
        if w.error:
            return 0
        if total + below < total:
            w.error = WALK_OVERFLOW
            return 0
        total += below
    return total


cdef object walk(Board b, int depth):
    """perft_walk on b without the GIL, its errors raised."""
    cdef Walk w
    cdef uint64_t total
    w.nodes = 0
    w.error = 0
    b._reserve_turns(depth)
    with nogil:
        total = perft_walk(b, depth, &w)
    if w.error == WALK_INTERRUPTED:
        raise_pending()
    if w.error == WALK_OVERFLOW:
        raise OverflowError("the count passes 2^64 - 1")
    return int(total)


def _walk_board(board, depth):
    if not isinstance(board, _Board):
        raise TypeError(f"board must be a fastgo.Board, not {type(board).__name__}")
    d = _index(depth, "depth")
    if not 0 <= d <= MAX_DEPTH:
        raise ValueError(f"depth must be 0..{MAX_DEPTH}, got {d}")
    return (<Board>board)._copy_as(Board, False), d      # (plain: a subclass's copy() not run)


def perft(board, depth):
    """The number of legal move sequences of exactly `depth` turns from `board`'s position under
    its rules, passes included; two passes in a row end the game and nothing follows them
    (``perft(b, 0)`` is 1). The board is not changed.

    On the empty 2x2 board Black has 4 points and a pass; after a stone White has the 3 empty
    points (each leaves both stones a liberty) and a pass, 4 x 4 sequences, and after Black's
    pass 4 points and a pass, 5 more:

    >>> import fastgo
    >>> perft(fastgo.Board(2), 1), perft(fastgo.Board(2), 2)
    (5, 21)
    """
    cdef Board b
    b, d = _walk_board(board, depth)
    return walk(b, d)


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
    for m in range(b.npoints + 1):
        if b._status(m, &h) != LEGAL:
            continue
        b._reserve(m)
        b._commit(m)
        try:
            out[point_to_vertex(m, b.st.width, b.st.height)] = walk(b, d - 1)
        finally:
            b._undo_turn()
    return out


# ---------------------------------------------------------------------------------------------
# Complete games: simple paths in the game graph, counted over visited sets.
#
# Under positional superko whether a play is legal depends on the colouring, the player and the
# set of colourings the game has visited, nothing else. The graph (the legal colourings reachable
# from the empty board, and where each play leads) is built by playing every move with Board;
# the walk over it runs in C without the GIL, a visited set and each colouring's plays a 64-bit
# mask, so a node costs a few instructions. Every game is walked: no cache of counts. The count
# from a node depends only on (colouring, player, passed, visited set), but the same visited set
# ending at the same colouring is rarely met again: on 2x2, a cache of every node hit 0.9% of its
# look-ups and made the walk 12 times slower; of nodes of at most 12 visited colourings, none
# (benchmarks/RESULTS.md).
#
# The first turns are expanded here in Python, to a depth where there are enough nodes to share
# among threads, with a table of the nodes met: nodes that a symmetry of the board, the exchange
# of the colours or both map onto each other have the same number of continuations, so each is
# kept in the smallest form of its orbit and walked once (the exchange matters at the root: the
# games that start with Black's pass are, colours exchanged, those that start with a Black play,
# one pass more). The nodes left are walked in C in parallel (OpenMP), each into its own result,
# and the counts put together in Python: the count does not depend on the threads.

ctypedef struct Graph:
    uint64_t* plays         # plays[2 * q + c]: the colourings that colour c + 1's plays at
                            # colouring q lead to, a bit each
    uint64_t* either        # either[q]: plays[2 * q] | plays[2 * q + 1]
    uint8_t* mult           # mult[(2 * q + c) * 64 + r]: how many of those plays lead to r (2 or
                            # more only when suicides of different chains leave the same colouring)

cdef uint64_t games_after_play(const Graph* g, int q, int c, uint64_t visited) noexcept nogil:
    """Complete games from colouring q with colour c + 1 to play (c = 0 Black) after a play,
    `visited` the colourings seen (q among them): a pass, then the other colour passes too (the
    game ends) or plays; or a play. No overflow: the largest board of at most 64 colourings
    (2x2) has under 2^39 games."""
    return 1 + games_after_plays(g, q, 1 - c, visited) + games_after_plays(g, q, c, visited)


cdef inline uint64_t games_after_plays(const Graph* g, int q, int c,
                                       uint64_t visited) noexcept nogil:
    """Complete games that go on with a play of colour c + 1 at colouring q."""
    cdef uint64_t total = 0, left = g.plays[2 * q + c] & ~visited, seen
    cdef int r
    while left:
        r = ctz64(left)
        left &= left - 1
        seen = visited | (<uint64_t>1 << r)
        if g.either[r] & ~seen:
            total += g.mult[(2 * q + c) * 64 + r] * games_after_play(g, r, 1 - c, seen)
        else:
            total += g.mult[(2 * q + c) * 64 + r]   # no play left from r: pass, pass
    return total


cdef uint64_t games_from(const Graph* g, int q, int c, int passed, uint64_t visited) noexcept nogil:
    """Complete games from any node of the walk: `passed` when the last turn was a pass."""
    if passed:
        return 1 + games_after_plays(g, q, c, visited)
    return games_after_play(g, q, c, visited)


def _game_graph(width, height, rules):
    """The colourings reachable from the empty board by legal plays (Board's rules, no history)
    as stones arrays, and, for each colouring q and colour c + 1, ``moves[2 * q + c]``: a dict
    {colouring its plays lead to: how many plays lead there}, in the order first reached."""
    start = _Board(width, height, rules=rules)
    n = start.num_points
    found = {start.stones().tobytes(): 0}
    grids = [start.stones()]
    moves = []
    q = 0
    while q < len(grids):
        for colour in (1, 2):
            here = _Board.from_array(grids[q], to_move=colour, rules=rules)
            reached = {}
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
                reached[found[key]] = reached.get(found[key], 0) + 1
            moves.append(reached)
        q += 1
    return grids, moves


def _colouring_symmetries(grids):
    """The symmetries of the game graph: for each symmetry k of the board, and with the colours
    kept (swap 0) or exchanged (swap 1), (the permutation of the colourings it induces, swap).
    The rules treat the colours alike and the same under every symmetry, and either colour may
    play first (after a pass), so the reachable colourings map onto each other and colour c's
    plays onto colour c ^ swap's."""
    h, w = grids[0].shape
    index = {g.tobytes(): q for q, g in enumerate(grids)}
    out = []
    for k in symmetries(w, h):
        for swap in (0, 1):
            perm = []
            for g in grids:
                t = np.ascontiguousarray(transform_planes(g, k))
                if swap:
                    t = np.where(t == 0, 0, 3 - t).astype(g.dtype)
                perm.append(index[t.tobytes()])
            out.append((perm, swap))
    return out


def _canonical(q, c, passed, visited, group):
    """The node (q, c, passed, visited) of the walk as the smallest of its images under `group`
    (from _colouring_symmetries): all have the same number of continuations."""
    best = None
    for perm, swap in group:
        v = 0
        left = visited
        while left:
            low = left & -left
            v |= 1 << perm[low.bit_length() - 1]
            left ^= low
        key = (perm[q], c ^ swap, v)
        if best is None or key < best:
            best = key
    return (best[0], best[1], passed, best[2])


def _root_dag(moves, group, min_tasks):
    """The first turns of the walk from the empty board, as a graph of nodes (q, c, passed,
    visited) each in its canonical form under `group`: a node met again (by another order of
    the same colourings, or as the image of one met before under a symmetry or the exchange of
    colours) is walked once. Expanded one turn deeper at a time until at least `min_tasks` nodes
    are left to walk (or none is). Returns (root, children, tasks): children[node] lists
    (child, plays that lead there) for the expanded nodes, a pass as one play; tasks are the
    nodes not expanded, in the order met."""
    root = _canonical(0, 0, False, 1, group)
    children = {}
    seen = {root}
    level = [root]
    while level and len(level) < min_tasks:
        deeper = []
        for node in level:
            q, c, passed, visited = node
            kids = [] if passed else [(_canonical(q, 1 - c, True, visited, group), 1)]
            for r, m in moves[2 * q + c].items():
                if not (visited >> r) & 1:
                    kids.append((_canonical(r, 1 - c, False, visited | (1 << r), group), m))
            children[node] = kids
            for kid, _ in kids:
                if kid not in seen:
                    seen.add(kid)
                    deeper.append(kid)
        level = deeper
    return root, children, level


def _dag_games(root, children, walked):
    """Complete games from the root, given the count of every task in `walked`: a pass after a
    pass ends a game; otherwise the games of a node are those of its children."""
    games = dict(walked)
    # a child has more visited colourings than its node, or as many and a pass more: children
    # first
    for node in sorted(children, key=lambda n: (bin(n[3]).count("1"), n[2]), reverse=True):
        games[node] = int(node[2]) + sum(m * games[kid] for kid, m in children[node])
    return games[root]


#: root nodes to expand before walking: enough tasks to share among threads, few enough to list
ROOT_NODES = 4096


def _count_games_walk(width, height, rules, threads, symmetry=True, root_nodes=ROOT_NODES):
    """count_games with its knobs: returns (the count, root tasks walked). `symmetry` False
    merges only the nodes met again; `root_nodes` is how many nodes to expand in Python before
    walking the rest in C (1: the C walk starts at the empty board)."""
    board = _Board(width, height, rules=rules)
    if board.rules.ko != "positional":
        raise ValueError(f"count_games counts games under positional superko, not under the "
                         f"{board.rules.ko} ko rule of {board.rules}")
    nt = default_threads() if threads is None else _playout._job_threads(
        _int(threads, "threads", 1, _playout._MAX_THREADS), "count_games")
    grids, moves = _game_graph(board.width, board.height, board.rules)
    group = _colouring_symmetries(grids) if symmetry else [(list(range(len(grids))), 0)]
    root, children, tasks = _root_dag(moves, group, _int(root_nodes, "root_nodes", 1, 1 << 20))
    cdef Graph g
    cdef int k, i, nt_c = nt, ntasks = len(tasks)
    cdef volatile int stop[1]
    cdef uint64_t* results = <uint64_t*>calloc(ntasks + 1, sizeof(uint64_t))
    cdef int* tq = <int*>malloc((ntasks + 1) * sizeof(int))
    cdef int* tc = <int*>malloc((ntasks + 1) * sizeof(int))
    cdef int* tp = <int*>malloc((ntasks + 1) * sizeof(int))
    cdef uint64_t* tv = <uint64_t*>malloc((ntasks + 1) * sizeof(uint64_t))
    g.plays = <uint64_t*>calloc(len(moves), sizeof(uint64_t))
    g.either = <uint64_t*>calloc(len(grids), sizeof(uint64_t))
    g.mult = <uint8_t*>calloc(len(moves) * 64, sizeof(uint8_t))
    try:
        if (results == NULL or tq == NULL or tc == NULL or tp == NULL or tv == NULL
                or g.plays == NULL or g.either == NULL or g.mult == NULL):
            raise MemoryError()
        for k in range(len(moves)):
            for r, m in moves[k].items():
                g.plays[k] |= <uint64_t>1 << r
                g.either[k // 2] |= <uint64_t>1 << r
                g.mult[k * 64 + r] = m          # at most the board's points (<= 64)
        stop[0] = 0
        for i, (q, c, passed, visited) in enumerate(tasks):
            tq[i], tc[i], tp[i], tv[i] = q, c, passed, visited
        # one loop over the tasks, handed out one at a time; the calling thread (OpenMP's
        # thread 0, the only one Python's signal handlers run on) checks for Ctrl-C after each of
        # its tasks, and a Ctrl-C makes every thread skip the tasks left
        with nogil:
            for i in prange(ntasks, num_threads=nt_c, schedule="dynamic", chunksize=1):
                if stop[0]:
                    continue
                results[i] = games_from(&g, tq[i], tc[i], tp[i], tv[i])
                if threadid() == 0:
                    with gil:
                        stop[0] = stop[0] | (check_signals() != 0)
        if stop[0]:
            raise_pending()
        return _dag_games(root, children, {tasks[i]: results[i] for i in range(ntasks)}), ntasks
    finally:
        free(results)
        free(tq)
        free(tc)
        free(tp)
        free(tv)
        free(g.plays)
        free(g.either)
        free(g.mult)


def count_games(width, height=None, rules=None, *, threads=None):
    """The number of complete games on an empty ``width x height`` board under `rules` (a
    ``Rules``, a preset name or None for Tromp-Taylor; its ko rule must be positional superko):
    the sequences of legal turns from the empty board, Black first, that end at the first two
    passes in a row. No play may recreate a colouring seen before in the game, while a pass (which
    keeps the colouring) is always allowed, so every game is finite: these are the simple paths
    of Tromp and Farnebäck's game graph. Boards of at most ``MAX_GAME_COLOURINGS`` reachable
    colourings (2x2 has 57, 1x4 41; 1x5 already 113). Every game is walked, but once only for
    the games that a symmetry of the board or the exchange of colours (with Black's first turn a
    pass) maps onto each other. Exact whatever `threads` (None: all cores): the first turns are
    split into tasks walked in parallel and put together in order. Ctrl-C stops it.

    >>> count_games(1, 1), count_games(1, 2), count_games(1, 3)
    (1, 9, 907)
    """
    return _count_games_walk(width, height, rules, threads)[0]
