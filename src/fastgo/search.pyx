# cython: language_level=3, binding=True, embedsignature=True
"""Monte Carlo tree search in C: UCT with RAVE on playouts, or PUCT on a batched evaluator.

``Search(board, ...)`` holds a tree over `board`'s position (the board is copied, not changed):

- **Node pool.** One array of ``Node``s (40 bytes each, and 2 for a copy of the node's move in
  an array beside it: ``Search.bytes_per_node``) allocated once from the `memory` budget; a node's children are contiguous. When the pool is full, leaves stop
  being expanded (the search goes on, evaluating them as leaves).
- **No positions per node.** Every descent replays its moves from the root into the thread's own
  scratch board (``board_copy`` of the root, ``board_play`` per move), the superko memory of the
  path included (and, for PUCT's history planes, the colourings of the path's last 8 positions).
- **Tree moves.** At a node the children are the points the rules allow there, judged by
  ``core.judge_play`` (Board's own judgement: ko rule, suicide option, superko against the whole
  game and the path), less one-point eyes of the mover (the playout policy's ``is_own_eye``) and
  plays that leave the colouring unchanged (one-stone suicides where allowed), in increasing
  order, and pass last. Two passes in a row end the
  game: such a node is terminal and scored exactly as it stands (the rules' scoring, komi).

**UCT (no evaluator).** A simulation descends from the root, picking at each node the child with
the largest

    (1 - b) * q + b * qa + c * sqrt(ln(N + 1) / (n + 1)),
    q  = (w + r * P) / (n + P),   qa = (wa + r * P) / (na + P),   b = na / (na + n + n * na / E)

(b = 0 when na = 0) where n, w are the child's visits and wins (1 a win, 1/2 a tie) for the
player who moves there, in-flight visits counted as losses (virtual loss); na, wa its
all-moves-as-first (AMAF) statistics (RAVE; b = 0 with ``rave=False``); N the parent's visits;
r the child's prior win rate (1/2; a pass 0.1, or after the opponent's pass, when it ends the
game, its exact result: 1, 1/2 or 0); na and wa start
with ``tactics`` virtual samples won at 0.9 for a capture and 0.8 for an atari escape (see
``_init_children``); P
``prior_visits``; E ``rave_equiv``; c ``exploration``. Ties go to the first child. A leaf with
``expand_after`` visits (the root at once) is expanded; then one playout (``playout_continue``,
the chosen ``policy``) runs from the leaf and its result is backed up: every node on the path
gains a visit and the result for its mover, and every child of a node on the path whose move its
mover played first at or below that node (in the tree or the playout) gains an AMAF sample.

**PUCT (an evaluator).** A descent picks the child with the largest

    q + c_puct * p * sqrt(N) / (1 + n),   q = w / n (n > 0) else fpu

with n, w the child's visits and summed values for its mover (each in-flight visit counts as a
visit of value -1, times ``virtual_loss``), p its prior and N the parent's visits (its own
evaluation included). Descents collect up to ``batch`` distinct leaves (a second descent into a
leaf already collected ends the batch); ``evaluator(planes)`` gets them as a new float32 array
``[B, C, height, width]``, its own to keep, in ``encoding`` (``ENCODINGS`` maps each name to its
C): any encoding of ``fastgo.features``: ``"stones"`` (the default, C = 3: the stones of the
side to move, the opponent's stones, all ones when Black is to move), ``"agz17"`` 17 planes,
``"lz18"`` 18, ``"openspiel4"`` 4, ``"katago"`` 12; a leaf's planes are exactly
``features.encode`` of the Board its path's moves lead to from the root: BoardBatch's encoder
(``planes.encode_planes``) on the replayed leaf, its history planes from the colourings of the
path's positions and then the root game's own (from the Board the Search was made with, and the
moves ``advance`` played), katago's last moves likewise, its ko plane the judgement the tree's
moves get (simple ko, or superko against the game and the path). It returns ``(priors [B, points + 1],
values [B])``: values in [-1, 1] for the side to move (clipped there), every number finite (NaN
or an infinity raises ValueError). Each leaf is expanded with its priors (any scale: read as
float64, clipped at 0, renormalised over its children; uniform when they sum to 0) and its value is
backed up (negated at every other level). A terminal leaf is valued exactly (+1 win, 0 tie, -1
loss), without the evaluator, and counts in the batch like the others: its visit stays in flight
until the batch is backed up (virtual loss steers the batch's other descents from it too), and a
second descent into it ends the batch. ``dirichlet=(alpha, eps)`` mixes Dir(alpha) noise into the
root's priors once per root.

**Threads.** UCT runs ``threads`` workers (OpenMP) that share the tree without a lock (as
Fuego's lock-free search does; a waiting thread would sleep or spin, and the project allows no
spinning): a simulation is started by an atomic add to the call's count (never more than the
limits allow); a leaf is expanded by the one thread whose compare-and-swap marks it, which fills
the children and then publishes ``first`` (release; a descent reads it with acquire); visits,
visits in flight and values are atomic adds, so the counts are exact; AMAF samples and the
cached value terms are plain stores, so two threads updating one child at the same instant may
lose one AMAF sample (a heuristic estimate, never a count), and the value terms are recomputed
from the statistics when the search returns. Playout i of the search object's life draws from
its own generator seeded by (seed, i), so with one thread a search is reproducible; with more,
the interleaving (and so the tree) varies. PUCT collects on one thread.

Limits: ``search(visits=, playouts=, seconds=)`` stops at the first reached (root visits, this
call's simulations, wall time); ``stop()`` from another thread ends it early. ``advance(move)``
plays a move and keeps its subtree. A tree holds at most ``MAX_VISITS`` visits at its root (a
node's counts are 32-bit; every simulation passes through the root, so no node holds more): a
search of a tree that has them returns at once, having run nothing.
"""

import threading
import time

import warnings

import numpy as np
cimport cython
cimport numpy as cnp
from cython.parallel cimport prange
from libc.math cimport sqrt, log
from libc.float cimport DBL_MAX
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset, memcpy
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from cpython.exc cimport PyErr_CheckSignals

from fastgo.core cimport *
from fastgo.board cimport Board
from fastgo.playout cimport (PlayoutScratch, PlayoutOutcome, scratch_new,
                             scratch_free, local_clear, local_add, is_own_eye,
                             playout_continue, playout_seed, spec_from_board,
                             empty_neighbours)
from fastgo.planes cimport (encode_planes, encoding_history, board_colouring, HISTORY,
                            LAST_MOVES)
from fastgo.batch cimport BoardBatch
from fastgo import playout as _playout
from fastgo.playout import (policy_code, default_threads, _int, _seed, _MAX_THREADS, _job_threads,
                            _prisoners)
from fastgo.board import Board as _Board
# PUCT's input encodings, name -> number of planes: BoardBatch's (and so fastgo.features'),
# whose planes are exactly features.encode's
from fastgo.batch import ENCODINGS, _ENC_CODES as _CODES
from fastgo.errors import ArgumentTypeError, Slotted, unmasked

cnp.import_array()

_SLICE = 0.1            # seconds the workers run between two looks for Ctrl-C and stop()
cdef enum:
    # the most visits a tree's root takes (Node's counts are int32_t: a node's visits and
    # visits in flight stay at most this; a child's AMAF samples at most its parent's visits
    # plus `tactics` virtual ones, at most 2**20, which the room left below 2**31 holds)
    _MAX_VISITS = 2145386496      # 2**31 - 2**21
#: the most visits a tree's root takes (see the module docstring)
MAX_VISITS = _MAX_VISITS
#: the most nodes a pool holds (they are numbered by int32; 42 bytes each: about 90 GB), whatever
#: `memory` allows
MAX_NODES = 2**31 - 1


cdef enum:
    _ISQRT_N = 1 << 16
cdef float _ISQRT[_ISQRT_N]          # 1 / sqrt(n + 1): UCT's exploration term without a division
cdef double _SQRTLOG[_ISQRT_N]       # sqrt(ln(N + 1)): its parent part without a log and a sqrt
cdef void _fill_tables() noexcept nogil:
    # in C: the same loop in Python (math.sqrt, a module lookup each time) took 5 ms of every
    # `import fastgo`. sqrt is correctly rounded (IEEE 754), so the entries are math.sqrt's
    cdef int i
    for i in range(_ISQRT_N):
        _ISQRT[i] = <float>(1.0 / sqrt(i + 1.0))
        _SQRTLOG[i] = sqrt(log(<double>i + 1.0))      # libm's, as the formula computes it
_fill_tables()


ctypedef int (*_PlayFn)(BoardState* b, Journal* j, int p, int colour) noexcept nogil
cdef extern from *:
    """
    /* The shared tree's few synchronised operations (GCC and Clang builtins). Relaxed order for
       counters; release/acquire for publishing a node's children. */
    static inline void fastgo_add32(int32_t* p, int32_t v) {
        __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    }
    static inline int64_t fastgo_fetch_add64(int64_t* p, int64_t v) {
        return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    }
    static inline void fastgo_add_f64(double* p, double v) {
        double old, sum;
        __atomic_load(p, &old, __ATOMIC_RELAXED);
        do { sum = old + v; }
        while (!__atomic_compare_exchange(p, &old, &sum, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    }
    static inline int32_t fastgo_load_acquire32(const int32_t* p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    static inline void fastgo_store_release32(int32_t* p, int32_t v) {
        __atomic_store_n(p, v, __ATOMIC_RELEASE);
    }
    static inline int fastgo_cas32(int32_t* p, int32_t expected, int32_t desired) {
        return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL,
                                           __ATOMIC_RELAXED);
    }
    /* n slots of a pool of `cap` whose first `*used` are taken: the first of them, or -1 */
    static inline int64_t fastgo_reserve64(int64_t* used, int64_t n, int64_t cap) {
        int64_t u = __atomic_load_n(used, __ATOMIC_RELAXED);
        do { if (u + n > cap) return -1; }
        while (!__atomic_compare_exchange_n(used, &u, u + n, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        return u;
    }
    """
    void fastgo_add32(int32_t* p, int32_t v) noexcept nogil
    int64_t fastgo_fetch_add64(int64_t* p, int64_t v) noexcept nogil
    void fastgo_add_f64(double* p, double v) noexcept nogil
    int32_t fastgo_load_acquire32(const int32_t* p) noexcept nogil
    void fastgo_store_release32(int32_t* p, int32_t v) noexcept nogil
    bint fastgo_cas32(int32_t* p, int32_t expected, int32_t desired) noexcept nogil
    int64_t fastgo_reserve64(int64_t* used, int64_t n, int64_t cap) noexcept nogil


# board_play reached through a pointer in the replay, so that the playout's loop is the one call
# site the compiler sees and inlines it there (as in fastgo.playouts)
cdef _PlayFn _replay_play = board_play


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <double>ts.tv_sec + 1e-9 * <double>ts.tv_nsec


def _float(value, name, lo, hi):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    v = float(value)
    if not (lo <= v <= hi):
        raise ValueError(f"{name} must be between {lo} and {hi}, got {value!r}")
    return v


class SearchResult(Slotted):
    """What a search found, for the side to move at the root.

    best_move  the root move with the most visits (ties: the higher value, then the higher prior
               (PUCT: the network's choice when nothing was visited), then the earlier move);
               None when the root has no children (never searched)
    moves      int32[k]: the root's children (points, pass = points)
    visits     int64[k]: their visits; values float64[k]: their mean outcome for the side to move
               (a win rate in [0, 1]; NaN where unvisited); priors float32[k] (PUCT, else 0)
    pv         the principal variation: from the root, the most visited child while it has visits
    winrate    the best move's value (UCT: wins, ties half; PUCT: (q + 1) / 2)
    ownership  float64[height, width]: mean owner of each point at the end of this search's
               playouts (+1 Black, -1 White); None without ``ownership=True`` (or for PUCT)
    playouts   simulations of the last ``search`` call on this root (0 after ``advance``, and
               none counted for leaves an evaluator failed on); root_visits the root's visits
               (reused ones included);
    seconds    wall time; nodes: nodes in use
    """

    __slots__ = ("best_move", "moves", "visits", "values", "priors", "pv", "winrate", "ownership",
                 "playouts", "root_visits", "seconds", "nodes", "width", "height")

    def __init__(self, **fields):
        missing = [k for k in SearchResult.__slots__ if k not in fields]
        unknown = [k for k in fields if k not in SearchResult.__slots__]
        if missing or unknown:
            raise TypeError("SearchResult takes each of its fields by keyword" +
                            (f"; missing: {', '.join(missing)}" if missing else "") +
                            (f"; unknown: {', '.join(unknown)}" if unknown else ""))
        for k, v in fields.items():
            setattr(self, k, v)

    def policy(self, temperature=1.0):
        """Visit-count policy target, float64[points + 1]: visits ** (1 / temperature) normalised
        (temperature 0: all on the most visited moves, shared equally)."""
        t = _float(temperature, "temperature", 0.0, 1e6)
        out = np.zeros(self.width * self.height + 1)
        v = self.visits.astype(np.float64)
        if not len(v) or v.sum() == 0:
            return out
        if t == 0:
            w = (v == v.max()).astype(np.float64)
        else:
            w = (v / v.max()) ** (1.0 / t)
        out[self.moves] = w / w.sum()
        return out

    def __repr__(self):
        from fastgo.coords import point_to_vertex
        bm = "none" if self.best_move is None else point_to_vertex(self.best_move, self.width, self.height)
        return (f"<SearchResult best {bm} winrate {self.winrate:.3f}, {self.playouts} playouts, "
                f"root visits {self.root_visits}, {self.seconds:.3f} s>")


cdef int _live(Search search) except -1:
    """Refuse a call on a Search whose __init__ never ran or failed (``Search.__new__``): its
    pool and workers are missing. __init__ makes the guard last."""
    if search.guard is None:
        if search.closed:
            raise RuntimeError("this Search was closed")
        raise RuntimeError("this Search was not initialised (call Search(board, ...))")
    return 0


# one call at a time: another thread's, or user code (an evaluator, a move's __index__) inside
# one of this Search's calls, is refused with this
_BUSY = ("this Search is in the middle of another call (another thread's search, a callback "
         "inside one of its calls, or a search under way in the parent when this process was "
         "forked, which stays so: make a new Search): one call at a time")


def _evaluated(a, shape, what):
    """The evaluator's `what` as a C-contiguous float64 array of `shape`, or ValueError/TypeError
    naming what is wrong (a scalar is not an array of one value; NaN and infinities are refused:
    they carry no preference the search could follow; a masked array neither)."""
    unmasked(a, f"the evaluator's {what}")
    try:
        if np.iscomplexobj(a):      # (numpy would drop the imaginary part with a warning)
            raise TypeError
        # a copy, checked and then read without the GIL: the evaluator's own array may change
        a = np.array(a, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise TypeError(f"the evaluator's {what} must be numbers, got {type(a).__name__}") from None
    if a.shape != shape:
        raise ValueError(f"the evaluator's {what} must have shape {shape}, got {a.shape}")
    bad = ~np.isfinite(a)
    if bad.any():
        where = tuple(int(x[0]) for x in np.nonzero(bad))
        raise ValueError(f"the evaluator's {what} must be finite, got {a[where]} at index "
                         f"{where[0] if len(where) == 1 else where}")
    return a


_COLOURS = {"b": 1, "black": 1, "w": 2, "white": 2}


def _avoid_until(avoid, Board bd):
    """Search's `avoid` triples as [(colour - 1) * (points + 1) + move] -> the depth from which
    the tree explores the move (the largest until_depth given for it), or None when empty."""
    if isinstance(avoid, (str, bytes)):
        raise TypeError("avoid must be a sequence of (colour, moves, until_depth) triples")
    try:
        triples = list(avoid)
    except TypeError:
        raise TypeError("avoid must be a sequence of (colour, moves, until_depth) triples, not "
                        f"{type(avoid).__name__}") from None
    if not triples:
        return None
    cdef int row = bd.npoints + 1
    until = [0] * (2 * row)
    for triple in triples:
        try:
            colour, moves, depth = triple
        except (TypeError, ValueError):
            raise TypeError(f"avoid's entries must be (colour, moves, until_depth) triples, "
                            f"not {triple!r}") from None
        if isinstance(colour, str):
            if colour.lower() not in _COLOURS:
                raise ValueError(f"avoid's colour must be 1, 2, 'b', 'w', 'black' or 'white', "
                                 f"not {colour!r}")
            colour = _COLOURS[colour.lower()]
        else:
            colour = _int(colour, "avoid's colour", 1, 2)
        depth = _int(depth, "avoid's until_depth", 1, 32767)
        if isinstance(moves, str):
            moves = [moves]             # (one vertex)
        elif isinstance(moves, tuple) and len(moves) == 2 and all(
                isinstance(x, (int, np.integer)) for x in moves):
            raise ArgumentTypeError(f"avoid's moves {moves!r} may be two points or one (row, "
                                    f"col): give a list of moves")
        try:
            moves = list(moves)
        except TypeError:
            raise TypeError(f"avoid's moves must be a sequence of points or vertices, not "
                            f"{type(moves).__name__}") from None
        for move in moves:
            k = (colour - 1) * row + bd._parse(move)
            until[k] = max(until[k], depth)
    return until


# (The docstring's first lines: the signature, as board.Board's.)
cdef class Search:
    """Search(board, *, evaluator=None, threads=None, seed=0, memory=268435456,
           policy="uniform", rave=True, exploration=None, rave_equiv=2000.0, prior_visits=2.0,
           expand_after=2, tactics=20, batch=256, fpu=0.0, virtual_loss=1, dirichlet=None,
           encoding="stones", ownership=False, max_moves=None, prisoners=(0, 0), avoid=())
--

    A search tree over a copy of `board` (see the module docstring for the algorithms).

    evaluator: None for UCT on playouts; else a callable ``planes -> (priors, values)`` for PUCT.
    threads: UCT workers (default: all cores; at most ``fastgo.playout.CORES``). seed: playouts' seed (an int between -2**1000 and 2**1000, taken modulo 2**64). memory: bytes for the node
    pool (at most ``MAX_NODES`` nodes are made, whatever it allows). policy: the playout policy
    ("uniform" or "heavy", as ``fastgo.playouts``). rave,
    exploration (UCT c, default 0.1 with RAVE and 0.7 without; PUCT c_puct, default 1.5),
    rave_equiv, prior_visits, expand_after, tactics (virtual AMAF samples for captures and
    atari escapes; 0: none): UCT tuning. batch, fpu, virtual_loss, dirichlet
    ((alpha, eps) or None), encoding (the evaluator's planes, one of fastgo.features'
    encodings: "stones" 3, "agz17" 17, "lz18" 18, "openspiel4" 4, "katago" 12, exactly as
    ``features.encode`` of the leaf's Board; ``ENCODINGS``): PUCT. ownership: playouts record
    final owners.
    max_moves: cap of turns per playout (default 3 x points, at least 1000).
    prisoners: (black, white), the stones each colour took in the earlier parts of a game
    resumed after two passes (``fastgo.sgf.prisoners``): territory scoring counts them in every
    result the search scores (playouts, a game-ending pass, finished leaves).
    avoid: moves the tree does not explore (KataGo's and Leela Zero's ``avoid``): triples
    ``(colour, moves, until_depth)``, colour 1/2 or "b"/"w"/"black"/"white", moves a list of
    points, (row, col) pairs or vertices (pass included; one vertex alone as a str): those
    moves of `colour` are left out of the tree's first `until_depth` plies from the root (1:
    the root's moves alone). The playouts below the tree are not restricted, and a node whose
    every move is avoided keeps the pass. ``advance`` then starts a new tree (the plies count
    from the root).
    """

    bytes_per_node = sizeof(Node) + sizeof(int16_t)

    def __cinit__(self):
        self.max_visits = _MAX_VISITS
        self._null()

    def __dealloc__(self):
        self._free()

    cdef void _null(self) noexcept:
        """Every pointer NULL (nothing allocated, or all freed: _free)."""
        self.pool.nodes = NULL
        self.pool.moves = NULL
        self.root_state = NULL
        self.workers = NULL
        self.nthreads = 0
        self.seen.keys = NULL
        self.seen.counts = NULL
        self.seen.cap = 0
        self.seen.used = 0
        self.planes = NULL
        self.root_ring = NULL
        self.bpaths = NULL
        self.bdepth = NULL
        self.bcand = NULL
        self.bncand = NULL
        self.bcolour = NULL
        self.bterminal = NULL
        self.avoid_until = NULL

    cdef void _free(self) noexcept:
        """Free the C memory (each pointer NULL after: a second call frees nothing)."""
        cdef int t
        cdef size_t freed = 0
        if self.pool.nodes != NULL:     # (a second call frees nothing)
            freed = <size_t>self.pool.cap * (sizeof(Node) + sizeof(int16_t))
        free(self.pool.nodes)
        free(self.pool.moves)
        free(self.root_state)
        if self.workers != NULL:
            for t in range(self.nthreads):
                _worker_free(self.workers[t])
            free(self.workers)
        hashset_free(&self.seen)
        free(self.planes)
        free(self.root_ring)
        free(self.bpaths)
        free(self.bdepth)
        free(self.bcand)
        free(self.bncand)
        free(self.bcolour)
        free(self.bterminal)
        free(self.avoid_until)
        self._null()
        heap_trim(freed)

    def close(self):
        """Free the tree's memory now (its node pool, the workers' boards and buffers) rather
        than when the Search is collected, which for one in a reference cycle (an evaluator
        that is a bound method of the object holding the Search) waits for the cycle
        collector. Every later call but ``close`` is refused; ``with Search(...) as s:``
        closes at the block's end. Refused during another call (a search in another thread,
        a callback inside one of its calls)."""
        if self.guard is None:
            return                      # (closed already, or never initialised)
        if self.readers or not self.guard.acquire(blocking=False):
            raise RuntimeError(_BUSY + "; to close it during a search in another thread, call "
                               "stop() and wait for the search to return")
        self.guard = None               # (first: _live refuses every call from here on)
        self.closed = True
        self.planes_array = None
        self.evaluator = None
        self._free()

    def __enter__(self):
        _live(self)
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @cython.embedsignature(False)  # Cython misplaces the `*` of __init__; the docstring says it
    def __init__(self, board, *, evaluator=None, threads=None, seed=0, memory=256 * 2**20,
                 policy="uniform", rave=True, exploration=None, rave_equiv=2000.0,
                 prior_visits=2.0, expand_after=2, tactics=20, batch=256, fpu=0.0, virtual_loss=1,
                 dirichlet=None, encoding="stones", ownership=False, max_moves=None,
                 prisoners=(0, 0), avoid=()):
        if not isinstance(board, _Board):
            raise TypeError(f"board must be a fastgo.Board, not {type(board).__name__}")
        # set before any user code can run (an argument's __index__ or __float__ re-entering
        # __init__ made the inner call size the buffers the outer one then overflowed)
        if self.entered:
            raise RuntimeError("Search.__init__ called twice")
        self.entered = True
        cdef Board bd
        cdef int t
        cdef int64_t cap
        # a plain Board, copied before any argument is read: an argument's user code could play
        # on the caller's board or start it again at another size (buffers sized for one size
        # and a root of another), and a subclass's copy() (another size) or play() (another
        # move) would desynchronise the buffers or the tree from the root
        self.root_board = bd = (<Board>board)._copy_as(Board, False)
        if evaluator is not None and not callable(evaluator):
            raise TypeError(f"evaluator must be callable, not {type(evaluator).__name__}")
        self.evaluator = evaluator
        self.prm.puct = evaluator is not None
        self.width, self.height, self.npoints = bd.st.width, bd.st.height, bd.npoints
        nthreads = default_threads() if threads is None else _int(threads, "threads", 1, _MAX_THREADS)
        nthreads = min(nthreads, _playout.CORES)    # (more take turns on the cores: never faster)
        if self.prm.puct:
            nthreads = 1
        self.seed = _seed(seed) % 2**64
        memory = _int(memory, "memory", 0, 2**48)
        # nodes are numbered by int32: a pool of more (about 90 GB) is a ceiling never reached
        cap = min(memory // (sizeof(Node) + sizeof(int16_t)), MAX_NODES)
        if cap < self.npoints + 2:
            raise ValueError(f"memory must hold at least {self.npoints + 2} nodes "
                             f"({(self.npoints + 2) * (sizeof(Node) + sizeof(int16_t))} bytes), "
                             f"got {memory}")
        self.policy = policy
        policy_id = policy_code(policy)
        if not isinstance(rave, (bool, np.bool_)):
            raise TypeError("rave must be a bool")
        self.prm.rave = rave and not self.prm.puct
        default_c = 1.5 if self.prm.puct else (0.1 if self.prm.rave else 0.7)
        self.prm.exploration = default_c if exploration is None else _float(exploration, "exploration", 0, 1e6)
        self.prm.rave_equiv = _float(rave_equiv, "rave_equiv", 1e-9, 1e12)
        self.prm.inv_rave_equiv = 1.0 / self.prm.rave_equiv
        self.prm.prior_visits = _float(prior_visits, "prior_visits", 0, 1e9)
        self.prm.expand_after = _int(expand_after, "expand_after", 0, 2**30)
        self.prm.tactics = _int(tactics, "tactics", 0, 2**20)
        self.prm.fpu = _float(fpu, "fpu", -1, 1)
        self.prm.virtual_loss = _int(virtual_loss, "virtual_loss", 0, 2**20)
        self.batch = _int(batch, "batch", 1, 65536)
        if not isinstance(encoding, str) or encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {', '.join(map(repr, ENCODINGS))}, not "
                             f"{encoding!r}")
        self.encoding = encoding
        self.enc = _CODES[encoding]
        self.nplanes = ENCODINGS[encoding]
        if dirichlet is not None:
            try:
                alpha, eps = dirichlet
            except (TypeError, ValueError):
                raise TypeError("dirichlet must be (alpha, eps) or None") from None
            dirichlet = (_float(alpha, "dirichlet alpha", 1e-9, 1e9), _float(eps, "dirichlet eps", 0, 1))
        self.dirichlet = dirichlet
        self.rng = None                 # numpy's Generator, made when noise is first needed
        if not isinstance(ownership, (bool, np.bool_)):
            raise TypeError("ownership must be a bool")
        self.prm.ownership = ownership and not self.prm.puct
        self.prm.max_moves = (max(3 * self.npoints, 1000) if max_moves is None
                              else _int(max_moves, "max_moves", 0, 1_000_000))
        self.prisoners = _prisoners(prisoners)
        until = _avoid_until(avoid, bd)     # (user code: before anything is allocated)
        # an option of the other algorithm would be ignored (a self-play's root noise without
        # an evaluator, a playout policy with one): refused unless left at its default
        if self.prm.puct:
            other = {"policy": policy_id != policy_code("uniform"),
                     "rave_equiv": self.prm.rave_equiv != 2000.0,
                     "prior_visits": self.prm.prior_visits != 2.0,
                     "expand_after": self.prm.expand_after != 2, "tactics": self.prm.tactics != 20}
            what = "the playout search (no evaluator)"
        else:
            other = {"batch": self.batch != 256, "fpu": self.prm.fpu != 0.0,
                     "virtual_loss": self.prm.virtual_loss != 1,
                     "dirichlet": self.dirichlet is not None,
                     "encoding": self.enc != _CODES["stones"]}
            what = "PUCT (an evaluator)"
        given = [name for name, differs in other.items() if differs]
        if given:
            raise ValueError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} "
                             f"only to {what}")

        self.pool.nodes = <Node*>malloc(<size_t>cap * sizeof(Node))
        self.pool.moves = <int16_t*>malloc(<size_t>cap * sizeof(int16_t))
        self.root_state = <BoardState*>malloc(board_bytes(self.width, self.height))
        self.workers = <Worker**>calloc(nthreads, sizeof(Worker*))
        if (self.pool.nodes == NULL or self.pool.moves == NULL or self.root_state == NULL
                or self.workers == NULL):
            # (`memory` is a ceiling: the pool's pages are touched only as it fills, so the
            # memory free now is no test of it; an address space too small is)
            raise MemoryError(f"no memory for a Search's node pool of {cap} nodes "
                              f"(memory={memory} bytes)")
        self.pool.cap = cap
        self.nthreads = nthreads
        self.shared = nthreads > 1
        history = self.prm.puct and encoding_history(self.enc)
        for t in range(nthreads):
            self.workers[t] = _worker_new(self.npoints, self.prm.max_moves)
            if self.workers[t] == NULL:
                raise MemoryError()
            if history:
                self.workers[t].ring = <uint8_t*>malloc(<size_t>HISTORY * self.npoints)
                if self.workers[t].ring == NULL:
                    raise MemoryError()
        if history:
            self.root_ring = <uint8_t*>calloc(HISTORY, self.npoints)
            if self.root_ring == NULL:
                raise MemoryError()
        if self.prm.puct:
            B = self.batch
            C = self.nplanes
            self.planes = <float*>malloc(<size_t>B * C * self.npoints * sizeof(float))
            self.bpaths = <int32_t*>malloc(<size_t>B * (MAX_DEPTH + 1) * sizeof(int32_t))
            self.bdepth = <int32_t*>malloc(<size_t>B * sizeof(int32_t))
            self.bcand = <int16_t*>malloc(<size_t>B * (self.npoints + 1) * sizeof(int16_t))
            self.bncand = <int32_t*>malloc(<size_t>B * sizeof(int32_t))
            self.bcolour = <int8_t*>malloc(<size_t>B * sizeof(int8_t))
            self.bterminal = <double*>malloc(<size_t>B * sizeof(double))
            if (self.planes == NULL or self.bpaths == NULL or self.bdepth == NULL or
                    self.bcand == NULL or self.bncand == NULL or self.bcolour == NULL or
                    self.bterminal == NULL):
                raise MemoryError()
            self.planes_array = np.asarray(<float[:B * C * self.npoints]>self.planes).reshape(
                B, C, self.height, self.width)
        if until is not None:
            self.avoid_until = <int16_t*>malloc(2 * (self.npoints + 1) * sizeof(int16_t))
            if self.avoid_until == NULL:
                raise MemoryError()
            for t in range(2 * (self.npoints + 1)):
                self.avoid_until[t] = until[t]
        self._set_root(policy_id)
        self._root_history(False)
        self._clear_tree()
        self.guard = threading.Lock()   # last: a Search without it is not ready (_live)

    # -- the root ---------------------------------------------------------------------------------

    cdef _set_root(self, int policy_id, bint advanced=False):
        """Read the root position and the game's ko memory from self.root_board (a private copy).
        `advanced`: the board played one turn since the last call, whose colouring's key is
        added to the memory (read afresh, every turn's: a long game of advances was quadratic)."""
        cdef Board bd = self.root_board
        cdef HashSet own
        cdef int t
        cdef uint64_t key
        if advanced and bd.ko_rule != KO_SIMPLE:
            # room in every set first: out of memory, nothing has changed (advance undoes)
            if hashset_reserve(&self.seen, 1):
                raise MemoryError()
            for t in range(self.nthreads):
                if hashset_reserve(&self.workers[t].seen, 1):
                    raise MemoryError()
            spec_from_board(&self.spec, bd, bd.ko_rule, self.prm.max_moves, NULL)
            key = superko_key(bd.ko_rule, bd.turns[bd.nturns].hash, self.spec.to_move)
            hashset_add(&self.seen, key)
            for t in range(self.nthreads):
                hashset_add(&self.workers[t].seen, key)
            self.spec.seen = &self.seen
        else:
            hashset_free(&self.seen)
            spec_from_board(&self.spec, bd, bd.ko_rule, self.prm.max_moves, &own)
            self.seen = own             # the game's superko keys (empty under simple ko)
            if self.spec.seen != NULL:
                self.spec.seen = &self.seen
            for t in range(self.nthreads):
                hashset_free(&self.workers[t].seen)
                if hashset_copy(&self.workers[t].seen, &self.seen):
                    raise MemoryError()
        self.spec.prisoners[BLACK], self.spec.prisoners[WHITE] = self.prisoners
        self.spec.policy = policy_id
        board_copy(self.root_state, bd.st)
        self.root_colour = self.spec.to_move
        self.root_noised = False
        self._clear_counts()            # the last search's counts describe the old root

    cdef _root_history(self, bint advanced):
        """The root game's past as the encoding reads it: its last turns (katago's planes) and,
        for the history planes, its last colourings in root_ring. At the start they are the
        ones ``BoardBatch.set`` replays from the Board's set-up and turns (what
        ``features.encode`` reads); after ``advance`` (`advanced`) the ring gains the new root's
        colouring."""
        cdef Board bd = self.root_board
        cdef BoardBatch one
        cdef uint8_t* past
        cdef int k, n = <int>(bd.nturns if bd.nturns < LAST_MOVES else LAST_MOVES)
        for k in range(n):
            self.root_moves[k] = <int16_t>bd.turns[bd.nturns - n + 1 + k].move
        self.root_nmoves = n
        self.root_turns = bd.nturns
        if self.root_ring == NULL:
            return
        if advanced:
            board_colouring(self.root_state, self.root_ring
                            + <size_t>(self.root_turns % HISTORY) * self.npoints)
            self.root_known = self.root_known + 1 if self.root_known < HISTORY else HISTORY
            return
        one = BoardBatch(1, self.width, self.height, rules=bd.rules, autoreset="disabled",
                         threads=1)
        one.set(0, bd)
        past = <uint8_t*>malloc(<size_t>HISTORY * self.npoints)
        if past == NULL:
            raise MemoryError()
        self.root_known = one.colourings(0, past)
        for k in range(self.root_known):
            memcpy(self.root_ring + <size_t>((self.root_turns - k) % HISTORY) * self.npoints,
                   past + <size_t>k * self.npoints, self.npoints)
        free(past)

    cdef void _clear_counts(self) noexcept nogil:
        """No simulation counted yet, no final owner summed: a search call's start, a new root."""
        cdef int t
        self.started = 0
        for t in range(self.nthreads):
            memset(self.workers[t].owner_sum, 0, self.npoints * sizeof(int64_t))
            self.workers[t].owned = 0

    cdef void _clear_tree(self) noexcept:
        self.pool.used = 1
        self.pool_full = False
        _node_init(&self.pool.nodes[0], -1, 0.5)
        self.pool.moves[0] = -1

    # -- one descent ------------------------------------------------------------------------------

    cdef int _descend(self, Worker* w) noexcept nogil:
        """Walk from the root to a leaf, counting the visit in flight on each node. A node's
        children are read only once its `first` is published (acquire)."""
        cdef Node* nodes = self.pool.nodes
        cdef int32_t ni = 0, child
        cdef int depth = 0
        cdef bint shared = self.shared
        w.path[0] = 0
        while (depth < MAX_DEPTH and fastgo_load_acquire32(&nodes[ni].first) >= 0
               and nodes[ni].nchildren > 0):
            child = _select(&self.prm, nodes, ni)   # before this descent counts at ni: N excludes it
            if shared:
                fastgo_add32(&nodes[ni].pending, 1)
            else:
                nodes[ni].pending += 1
            ni = child
            depth += 1
            w.path[depth] = ni
        if shared:
            fastgo_add32(&nodes[ni].pending, 1)
        else:
            nodes[ni].pending += 1
        w.depth = depth
        return depth

    cdef void _replay(self, Worker* w) noexcept nogil:
        """The position at the leaf of w's path, in w's scratch board and superko memory."""
        cdef PlayoutScratch* s = w.scratch
        cdef BoardState* b = s.board
        cdef int colour = self.root_colour, passes = self.spec.passes, last = self.spec.last_play
        cdef int d, m, p, ko_rule = self.spec.ko_rule
        cdef bint has_ko = self.spec.has_ko_hash
        cdef uint64_t ko_hash = self.spec.ko_hash, before, key
        board_copy(b, self.root_state)
        local_clear(s)
        w.nkeys = 0
        if ko_rule != KO_SIMPLE and hashset_reserve(&w.seen, w.depth) != 0:
            ko_rule = KO_SIMPLE     # out of memory: judged as far as the ko rule goes
        for d in range(1, w.depth + 1):
            m = self.pool.nodes[w.path[d]].move
            before = b.hash
            p = 0
            if m == self.npoints:
                passes += 1
            else:
                p = to_pad(b, m)
                _replay_play(b, NULL, p, colour)
                passes = 0
            if ko_rule != KO_SIMPLE and (p or ko_rule == KO_SITUATIONAL):
                key = superko_key(ko_rule, b.hash, 3 - colour)
                local_add(s, key)               # for the playout (playout_allows)
                hashset_add(&w.seen, key)       # for the tree's moves (judge_play)
                w.path_keys[w.nkeys] = key
                w.nkeys += 1
            has_ko = True
            ko_hash = before
            last = p
            colour = 3 - colour
            if w.ring != NULL and d > w.depth - HISTORY:   # PUCT's history planes
                board_colouring(b, w.ring + <size_t>(d % HISTORY) * self.npoints)
        w.leaf_colour = colour
        w.leaf_passes = passes
        w.leaf_has_ko = has_ko
        w.leaf_ko_hash = ko_hash
        w.leaf_last = last

    cdef void _unreplay(self, Worker* w) noexcept nogil:
        """Take the replayed path's keys out of w.seen again."""
        while w.nkeys > 0:
            w.nkeys -= 1
            hashset_remove(&w.seen, w.path_keys[w.nkeys])

    cdef int _moves(self, Worker* w) noexcept nogil:
        """The children of the replayed leaf into w.cand: the points the rules allow
        (core.judge_play, as Board judges them) less one-point eyes of the mover (is_own_eye,
        the playout policy's) and plays that leave the colouring as it is (a one-stone suicide
        where the rules allow it: a pass in all but name), in order; then pass."""
        cdef BoardState* b = w.scratch.board
        cdef int r, c, p, n = 0, colour = w.leaf_colour
        cdef const uint64_t* ko = &w.leaf_ko_hash if w.leaf_has_ko else NULL
        cdef uint64_t h
        cdef const int16_t* until = NULL
        if self.avoid_until != NULL:        # the colour's row: a move is avoided above a depth
            until = self.avoid_until + (colour - 1) * (self.npoints + 1)
        for r in range(self.height):
            p = (r + 1) * b.stride
            for c in range(self.width):
                if (b.cell[p].color == EMPTY and not is_own_eye(b, p, colour)
                        and (until == NULL or w.depth >= until[r * self.width + c])
                        and judge_play(b, p, colour, self.spec.ko_rule, self.spec.suicide, ko,
                                       hashset_seen, &w.seen, &h) == LEGAL and h != b.hash):
                    w.cand[n] = <int16_t>(r * self.width + c)
                    n += 1
                p += 1
        if until != NULL and n > 0 and w.depth < until[self.npoints]:
            return n                        # (the pass avoided, other moves left)
        w.cand[n] = <int16_t>self.npoints
        return n + 1

    cdef int32_t _alloc(self, int n) noexcept nogil:
        """n contiguous nodes from the pool, or -1 when it is full."""
        cdef int64_t first
        if self.shared:
            first = fastgo_reserve64(&self.pool.used, n, self.pool.cap)
        else:
            first = self.pool.used
            if first + n > self.pool.cap:
                first = -1
            else:
                self.pool.used += n
        if first < 0:
            self.pool_full = True
        return <int32_t>first

    cdef bint _may_start(self) noexcept nogil:
        """Whether another simulation may start under this call's limits (PUCT; UCT between
        slices, no worker running)."""
        cdef double t
        if self.stop_flag:
            return False
        if self.lim_playouts >= 0 and self.started >= self.lim_playouts:
            return False
        if self.lim_visits >= 0 and self.pool.nodes[0].visits + self.pool.nodes[0].pending >= self.lim_visits:
            return False
        if self.pool.nodes[0].visits + self.pool.nodes[0].pending >= self.max_visits:
            return False
        if self.deadline > 0 or self.slice_end > 0:
            t = _now()
            if (self.deadline > 0 and t >= self.deadline) or (self.slice_end > 0 and t >= self.slice_end):
                return False
        return True

    cdef bint _claim(self) noexcept nogil:
        """UCT: start another simulation if this call's limits allow it, counting it in
        `started` (an atomic add: threads never start more than `budget`, the simulations
        left to the playout and visit limits)."""
        cdef double t
        cdef int64_t k
        if self.stop_flag:
            return False
        if self.deadline > 0 or self.slice_end > 0:
            t = _now()
            if (self.deadline > 0 and t >= self.deadline) or (self.slice_end > 0 and t >= self.slice_end):
                return False
        k = fastgo_fetch_add64(&self.started, 1)
        if self.budget >= 0 and k >= self.budget:
            fastgo_fetch_add64(&self.started, -1)
            return False
        return True

    # -- UCT --------------------------------------------------------------------------------------

    cdef bint _uct_simulation(self, Worker* w) noexcept nogil:
        """One descent, expansion, playout and backup. False when the limits are reached."""
        cdef Node* leaf
        cdef int32_t ni, first
        cdef int n, k
        cdef bint expand
        cdef int64_t index
        cdef PlayoutOutcome out
        cdef double result
        if not self._claim():
            return False
        index = fastgo_fetch_add64(&self.simulations, 1)
        self._descend(w)
        ni = w.path[w.depth]
        leaf = &self.pool.nodes[ni]
        # one thread expands a leaf: the one whose compare-and-swap marks it EXPANDING
        expand = (leaf.first == NOT_EXPANDED and not self.pool_full and w.depth < MAX_DEPTH
                  and (ni == 0 or leaf.visits >= self.prm.expand_after)
                  and fastgo_cas32(&leaf.first, NOT_EXPANDED, EXPANDING))
        self._replay(w)
        if expand:
            n = 0 if w.leaf_passes >= 2 else self._moves(w)
            first = self._alloc(n) if n > 0 else 0
            if first < 0:
                fastgo_store_release32(&leaf.first, NOT_EXPANDED)
            else:
                self._init_children(first, n, w)    # nobody reads them before `first` is published
                leaf.nchildren = <int16_t>n
                fastgo_store_release32(&leaf.first, first)
        playout_continue(w.scratch, &self.spec, playout_seed(self.seed, index), &out, w.moves,
                         w.owner if self.prm.ownership else NULL, w.leaf_colour, w.leaf_passes,
                         w.leaf_has_ko, w.leaf_ko_hash, w.leaf_last)
        self._unreplay(w)
        result = 1.0 if out.winner == BLACK else (0.5 if out.winner == EMPTY else 0.0)
        if self.prm.ownership:
            for k in range(self.npoints):
                w.owner_sum[k] += (w.owner[k] == BLACK) - (w.owner[k] == WHITE)
            w.owned += 1
        if self.prm.rave:
            _first_colours(w, self.npoints, out.turns)
        self._backup_uct(w, result)
        return True

    cdef void _init_children(self, int32_t first, int n, Worker* w) noexcept nogil:
        """UCT children of w's replayed leaf, moves w.cand[0..n-1], with their prior knowledge:
        a prior win rate (1/2; a pass 0.1 unless the opponent just passed, so that a search on
        few playouts does not hand the opponent a free move; after the opponent's pass, the pass
        ends the game and its prior is its exact result for the mover, 1 a win, 1/2 a tie, 0 a
        loss, so that RAVE, which never samples a pass, cannot leave a winning one unvisited,
        nor value a losing one as a coin toss) and, with ``tactics``, virtual
        AMAF samples: a move that captures (takes the last liberty of an opponent chain) starts
        with `tactics` samples won at 0.9, one that saves a chain of the mover in atari (its
        liberty, with two or more empty neighbours) with `tactics` samples at 0.8."""
        cdef int k, j, m, p, h, s = w.scratch.board.stride, me = w.leaf_colour
        cdef const BoardState* b = w.scratch.board
        cdef Node* c
        cdef double t = self.prm.tactics
        cdef int nb[4]
        cdef bint capture, escape
        cdef double pass_prior = 0.1
        cdef uint8_t colour[MAX_PAD]
        cdef int owned[3]
        cdef int territory[3]
        cdef double black, white, margin
        if w.leaf_passes == 1:          # the pass ends the game: scored as the position stands
            board_colours(b, colour)
            board_ownership(colour, 1, b, NULL, owned, territory)
            margin = score_points(b, owned, territory, self.spec.territory, self.spec.komi,
                                  self.spec.prisoners[WHITE], self.spec.prisoners[BLACK],
                                  &black, &white)
            margin = margin if me == BLACK else -margin     # (for the mover)
            pass_prior = 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5
        for k in range(n):
            c = &self.pool.nodes[first + k]
            m = w.cand[k]
            _node_init(c, m, pass_prior if m == self.npoints else 0.5)
            self.pool.moves[first + k] = <int16_t>m
            if m == self.npoints or t <= 0:
                continue
            p = to_pad(b, m)
            neighbours(nb, p, s)
            capture = escape = False
            for j in range(4):
                h = b.cell[nb[j]].head
                if h and chain_sole_liberty(b, h):      # in atari
                    if b.cell[h].color == me:
                        escape = escape or empty_neighbours(b, p) >= 2
                    else:
                        capture = True
            if capture or escape:
                c.amaf_visits = <int32_t>t
                c.amaf_value = <float>(t * (0.9 if capture else 0.8))
                c.mix = _mix(&self.prm, c, 0.0)

    cdef void _backup_uct(self, Worker* w, double black) noexcept nogil:
        """Add the playout's result (1 Black won, 0 White, 1/2 a tie) along w's path (RAVE:
        w.first_colour filled by _first_colours). Every node whose statistics change gets its
        cached value term (Node.mix) recomputed. Shared tree: visits, visits in flight and values
        by atomic adds; AMAF samples and value terms by plain stores (see the module docstring)."""
        cdef int d, k, mover, tc, nhits, n
        cdef Node* nd
        cdef Node* c
        cdef Node* kids
        cdef const int16_t* kmoves
        cdef double r
        cdef uint8_t* fc = w.first_colour
        cdef const Params* prm = &self.prm
        cdef float res
        cdef bint shared = self.shared
        cdef double P = prm.prior_visits
        cdef int16_t hits[MAX_POINTS + 1]
        cdef double xn[MAX_POINTS + 1]
        cdef double xa[MAX_POINTS + 1]
        cdef double xna[MAX_POINTS + 1]
        cdef double xaa[MAX_POINTS + 1]
        cdef float terms[MAX_POINTS + 1]
        for d in range(w.depth, -1, -1):
            nd = &self.pool.nodes[w.path[d]]
            mover = self.root_colour if d % 2 == 1 else 3 - self.root_colour
            r = black if mover == BLACK else 1.0 - black
            if shared:
                fastgo_add32(&nd.visits, 1)
                fastgo_add32(&nd.pending, -1)
                if r != 0:                  # a loss adds nothing: no compare-and-swap loop
                    fastgo_add_f64(&nd.value, r)
            else:
                nd.visits += 1
                nd.pending -= 1
                nd.value += r
            nd.mix = _mix(prm, nd, 0.0)
            if prm.rave:
                if nd.first >= 0:
                    tc = 3 - mover
                    res = <float>(black if tc == BLACK else 1.0 - black)
                    kids = &self.pool.nodes[nd.first]
                    kmoves = &self.pool.moves[nd.first]
                    n = nd.nchildren
                    # the hits listed without a branch (about half the children, at random),
                    # then updated
                    nhits = 0
                    for k in range(n):
                        hits[nhits] = <int16_t>k
                        nhits += fc[kmoves[k]] == tc
                    if d < HOLD_LEVELS and shared:
                        # the threads' descents share the top of the tree: each worker holds
                        # its samples of those children back for up to HOLD_SIMS simulations,
                        # so that the threads do not write the same cache lines at every backup
                        if w.held_node[d] != w.path[d]:
                            self._release(w, d)
                            w.held_node[d] = w.path[d]
                        for k in range(nhits):
                            w.held_na[d][hits[k]] += 1
                            w.held_aa[d][hits[k]] += res
                        w.held_sims[d] += 1
                        if w.held_sims[d] >= HOLD_SIMS:
                            self._release(w, d)
                    else:
                        for k in range(nhits):
                            c = &kids[hits[k]]
                            c.amaf_visits += 1
                            c.amaf_value += res
                            xn[k] = c.visits
                            xa[k] = c.value + c.prior * P
                            xna[k] = c.amaf_visits
                            xaa[k] = c.amaf_value + c.prior * P
                        if P > 0:   # n + P > 0: every hit's term by _mix's last formula, at once
                            _rave_terms(prm, nhits, xn, xa, xna, xaa, terms)
                            for k in range(nhits):
                                kids[hits[k]].mix = terms[k]
                        else:
                            for k in range(nhits):
                                kids[hits[k]].mix = _mix(prm, &kids[hits[k]], 0.0)
                if d >= 1 and nd.move != self.npoints:
                    fc[nd.move] = <uint8_t>mover

    cdef void _work(self, int t) noexcept nogil:
        while self._uct_simulation(self.workers[t]):
            pass
        cdef int d
        if self.shared:
            for d in range(HOLD_LEVELS):
                self._release(self.workers[t], d)
                self.workers[t].held_node[d] = -1

    cdef void _release(self, Worker* w, int d) noexcept nogil:
        """Add the AMAF samples that w held back of node w.held_node[d]'s children to them."""
        cdef Node* nd
        cdef Node* c
        cdef int k
        cdef int32_t* na = w.held_na[d]
        cdef float* aa = w.held_aa[d]
        if w.held_sims[d] and w.held_node[d] >= 0:
            nd = &self.pool.nodes[w.held_node[d]]
            for k in range(nd.nchildren):
                if na[k]:
                    c = &self.pool.nodes[nd.first + k]
                    c.amaf_visits += na[k]
                    c.amaf_value += aa[k]
                    c.mix = _mix(&self.prm, c, 0.0)
                    na[k] = 0
                    aa[k] = 0
        w.held_sims[d] = 0

    # -- PUCT -------------------------------------------------------------------------------------

    cdef double _terminal_value(self, Worker* w) noexcept nogil:
        """+1, 0 or -1 for the side to move at a finished leaf: the position scored as it stands."""
        cdef BoardState* b = w.scratch.board
        cdef int owned[3]
        cdef int territory[3]
        cdef double score, black, white
        board_area_counts(b, owned, territory)
        score = score_points(b, owned, territory, self.spec.territory, self.spec.komi,
                             self.spec.prisoners[WHITE], self.spec.prisoners[BLACK],
                             &black, &white)
        if w.leaf_colour == WHITE:
            score = -score
        return 1.0 if score > 0 else (-1.0 if score < 0 else 0.0)

    cdef void _backup_puct(self, const int32_t* path, int depth, double v, int colour) noexcept nogil:
        """Add value v (for `colour`, to move at the leaf) along the path."""
        cdef int d
        cdef Node* nd
        for d in range(depth, -1, -1):
            nd = &self.pool.nodes[path[d]]
            nd.visits += 1
            nd.pending -= 1
            # the node's mover is the leaf's mover at every other level
            nd.value += -v if (depth - d) % 2 == 0 else v

    cdef void _encode(self, Worker* w, float* out) noexcept nogil:
        """The planes of w's replayed leaf in the search's encoding: planes.encode_planes
        (BoardBatch's encoder) with the leaf's past: the colourings of
        the path's positions (w.ring) and then the root's (root_ring), the path's moves and then
        the root game's, the leaf's ko memory and superko keys (w.seen, the ones the tree's
        moves are judged by)."""
        cdef const uint8_t* cols[HISTORY]
        cdef int16_t last[LAST_MOVES]
        cdef int k, known = 0, nlast, depth = w.depth
        cdef int64_t dd
        if w.ring != NULL:
            known = depth + self.root_known
            known = known if known < HISTORY else HISTORY
            for k in range(known):
                dd = depth - k                  # the depth of the position k turns ago
                if dd >= 1:
                    cols[k] = w.ring + <size_t>(dd % HISTORY) * self.npoints
                else:                           # the root's, or before it
                    cols[k] = self.root_ring + <size_t>((self.root_turns + dd) % HISTORY) * self.npoints
        # the last turns, oldest first: the root game's, then the path's moves
        nlast = depth + self.root_nmoves
        nlast = nlast if nlast < LAST_MOVES else LAST_MOVES
        for k in range(nlast):                  # last[nlast - 1 - k]: the turn k + 1 turns ago
            if k < depth:
                last[nlast - 1 - k] = self.pool.nodes[w.path[depth - k]].move
            else:
                last[nlast - 1 - k] = self.root_moves[self.root_nmoves - 1 - (k - depth)]
        encode_planes(self.enc, w.scratch.board, w.leaf_colour, w.leaf_passes >= 2, cols, known,
                      last, nlast, self.spec.ko_rule, self.spec.suicide,
                      &w.leaf_ko_hash if w.leaf_has_ko else NULL, hashset_seen, &w.seen, out)

    cdef int _collect(self) noexcept nogil:
        """Descend until `batch` leaves are collected (or a limit or a collision). A finished
        game's leaf is valued at once but keeps its visit in flight, as the others, until the
        batch is applied: backed up at once, its path alone would carry no virtual loss, and the
        batch's descents would pile onto it. Returns the leaves collected (self.nevals of them
        wait for the evaluator)."""
        cdef Worker* w = self.workers[0]
        cdef int k = 0, d
        cdef int32_t ni
        cdef Node* leaf
        self.nevals = 0
        while k < self.batch and self._may_start():
            self._descend(w)
            ni = w.path[w.depth]
            leaf = &self.pool.nodes[ni]
            if leaf.pending > 1:                 # (a leaf is unexpanded or finished)
                for d in range(w.depth + 1):        # already in this batch: wait for it
                    self.pool.nodes[w.path[d]].pending -= 1
                break
            self.started += 1
            self.simulations += 1
            self._replay(w)
            memcpy(self.bpaths + k * (MAX_DEPTH + 1), w.path, (w.depth + 1) * sizeof(int32_t))
            self.bdepth[k] = w.depth
            self.bcolour[k] = <int8_t>w.leaf_colour
            if w.leaf_passes >= 2:
                self.bterminal[k] = self._terminal_value(w)
                self.bncand[k] = -1
                self._unreplay(w)
                leaf.first = 0                       # terminal: never expanded
                leaf.nchildren = 0
                k += 1
                continue
            if leaf.first == NOT_EXPANDED:
                self.bncand[k] = self._moves(w)
                memcpy(self.bcand + k * (self.npoints + 1), w.cand, self.bncand[k] * sizeof(int16_t))
            else:
                self.bncand[k] = 0                  # expanded already, or at the depth limit
            self._encode(w, self.planes + <size_t>self.nevals * self.nplanes * self.npoints)
            self._unreplay(w)
            self.nevals += 1
            k += 1
        return k

    cdef void _apply(self, int k, const double* priors, const double* values) noexcept nogil:
        """Expand the k collected leaves with the evaluator's priors and back up its values
        (rows in the order of the leaves that wait for it), the finished games' their own."""
        cdef int i, j, n, e = 0
        cdef int32_t first
        cdef int32_t* path
        cdef Node* leaf
        cdef Node* c
        cdef const int16_t* cand
        cdef const double* pr
        cdef double total, p, scale
        for i in range(k):
            path = self.bpaths + i * (MAX_DEPTH + 1)
            leaf = &self.pool.nodes[path[self.bdepth[i]]]
            n = self.bncand[i]
            if n < 0:                           # a finished game
                self._backup_puct(path, self.bdepth[i], self.bterminal[i], self.bcolour[i])
                continue
            if n > 0 and leaf.first == NOT_EXPANDED:
                first = self._alloc(n)
                if first >= 0:
                    cand = self.bcand + i * (self.npoints + 1)
                    pr = priors + e * (self.npoints + 1)
                    total = 0.0
                    scale = 1.0
                    for j in range(n):
                        p = pr[cand[j]]
                        total += p if p > 0 else 0.0     # (finite: _evaluated)
                    if total > DBL_MAX:         # finite priors whose sum is not: scaled first
                        for j in range(n):
                            scale = pr[cand[j]] if pr[cand[j]] > scale else scale
                        total = 0.0
                        for j in range(n):
                            p = pr[cand[j]] / scale
                            total += p if p > 0 else 0.0
                    for j in range(n):
                        c = &self.pool.nodes[first + j]
                        p = pr[cand[j]] / scale
                        p = p if p > 0 else 0.0
                        _node_init(c, cand[j], p / total if total > 0 else 1.0 / n)
                        self.pool.moves[first + j] = cand[j]
                    leaf = &self.pool.nodes[path[self.bdepth[i]]]
                    leaf.first = first
                    leaf.nchildren = <int16_t>n
            self._backup_puct(path, self.bdepth[i], values[e], self.bcolour[i])
            e += 1

    cdef void _abandon(self, int k) noexcept nogil:
        """Take back the visits in flight of k collected leaves (the evaluator failed): they are
        not simulations of this call."""
        cdef int i, d
        self.started -= k
        for i in range(k):
            for d in range(self.bdepth[i] + 1):
                self.pool.nodes[self.bpaths[i * (MAX_DEPTH + 1) + d]].pending -= 1

    cdef _evaluate(self, int k):
        """Call the evaluator on the self.nevals of the k collected leaves that wait for it (none:
        no call); expand and back up."""
        cdef int e = self.nevals
        if e == 0:
            with nogil:
                self._apply(k, NULL, NULL)
            return
        try:
            # a new array each call: the evaluator may keep it (the buffer is the next batch's)
            out = self.evaluator(np.array(self.planes_array[:e]))
            try:
                priors, values = out
            except (TypeError, ValueError):
                raise TypeError("the evaluator must return (priors, values)") from None
            # float64: an unnormalised prior such as exp(100) overflows float32 (into an inf)
            priors = _evaluated(priors, (e, self.npoints + 1), "priors")
            values = np.clip(_evaluated(values, (e,), "values"), -1.0, 1.0)
        except BaseException:
            self._abandon(k)
            raise
        cdef const double[:, ::1] pv = priors
        cdef const double[::1] vv = values
        with nogil:
            self._apply(k, &pv[0, 0], &vv[0])

    cdef _noise(self):
        cdef Node* root = &self.pool.nodes[0]
        cdef int k
        if self.dirichlet is None or self.root_noised or root.first < 0 or root.nchildren == 0:
            return
        alpha, eps = self.dirichlet
        if self.rng is None:
            self.rng = np.random.default_rng(self.seed)
        noise = self.rng.dirichlet([alpha] * root.nchildren)
        for k in range(root.nchildren):
            c = &self.pool.nodes[root.first + k]
            c.prior = <float>((1 - eps) * c.prior + eps * noise[k])
        self.root_noised = True

    # -- the Python API ---------------------------------------------------------------------------

    def search(self, *, visits=None, playouts=None, seconds=None):
        """Search until the root has `visits` visits, this call ran `playouts` simulations (UCT
        playouts or PUCT leaf evaluations) or `seconds` passed, whichever comes first (at least
        one limit is required); ``stop()`` ends it early. Returns ``SearchResult``."""
        _live(self)
        if visits is None and playouts is None and seconds is None:
            raise ValueError("give a limit: visits, playouts or seconds")
        lim_v = -1 if visits is None else _int(visits, "visits", 0, 2**62)
        lim_p = -1 if playouts is None else _int(playouts, "playouts", 0, 2**62)
        secs = None if seconds is None else _float(seconds, "seconds", 0, 1e9)
        if self.root_board.is_over:
            raise ValueError("the game is over: nothing to search")
        cdef int t, k
        cdef int64_t i, left
        cdef Node* nodes
        cdef int nthreads = _job_threads(self.nthreads, "Search.search")
        cdef double t0, slice_end
        _live(self)                     # (again: the arguments' conversions ran user code)
        if not self.guard.acquire(blocking=False):
            raise RuntimeError(_BUSY)
        try:
            self.lim_visits = lim_v
            self.lim_playouts = lim_p
            self.stop_flag = 0
            # the budget: the playout limit, the visits the limit leaves, and the room the
            # counters have (MAX_VISITS), the least of them
            lim_v = self.max_visits if lim_v < 0 else min(lim_v, self.max_visits)
            left = max(0, lim_v - self.pool.nodes[0].visits - self.pool.nodes[0].pending)
            self.budget = left if lim_p < 0 else min(lim_p, left)
            self._clear_counts()
            t0 = _now()
            self.deadline = t0 + secs if secs is not None else 0.0
            if secs is not None and secs == 0:
                self.deadline = -1.0
                self.lim_playouts = 0
                self.budget = 0
            if self.prm.puct:
                self._noise()           # a root expanded already (advance): before any descent
            while True:
                if self.prm.puct:
                    # the slice is looked at between batches only: a batch is filled by the
                    # limits alone, so that a seeded search is the same at any speed
                    slice_end = _now() + _SLICE
                    while True:
                        with nogil:
                            k = self._collect()
                        if k:
                            self._evaluate(k)
                            self._noise()
                        if _now() >= slice_end or not self._may_start():
                            break
                else:
                    self.slice_end = _now() + _SLICE
                    with nogil:
                        if nthreads == 1:
                            self._work(0)
                        else:
                            for t in prange(nthreads, num_threads=nthreads, schedule="static", chunksize=1):
                                self._work(t)
                PyErr_CheckSignals()
                self.slice_end = 0
                if not self._may_start():
                    break
            if self.shared:
                # threads may have stored a value term computed just before another's update
                nodes = self.pool.nodes
                if nthreads == 1:       # (no parallel region: a forked child has no pool)
                    for i in range(self.pool.used):
                        nodes[i].mix = _mix(&self.prm, &nodes[i], 0.0)
                else:
                    for i in prange(self.pool.used, nogil=True, num_threads=nthreads,
                                    schedule="static"):
                        nodes[i].mix = _mix(&self.prm, &nodes[i], 0.0)
            return self._result(_now() - t0)
        finally:
            self.slice_end = 0
            self.guard.release()

    @property
    def full(self):
        """Whether the root has ``MAX_VISITS`` visits: the tree takes no more (a search
        returns at once; ``advance`` to a child makes room)."""
        _live(self)
        return self.pool.nodes[0].visits + self.pool.nodes[0].pending >= self.max_visits

    def _limit_visits(self, n):
        """For tests: a cap below ``MAX_VISITS`` on the root's visits, kept by the same code."""
        self.max_visits = _int(n, "n", 1, _MAX_VISITS)

    def stop(self):
        """Ask a running ``search`` (in another thread) to return after its current simulations.
        A stop before the search starts is not kept (a search clears it as it begins); a stop
        of a closed Search does nothing (there is no search to stop)."""
        if self.closed:
            return
        _live(self)
        self.stop_flag = 1

    def advance(self, move):
        """Play `move` (a point, (row, col), GTP vertex or "pass"; illegal moves raise and change
        nothing) at the root and keep the subtree below it as the new tree (a new tree under
        `avoid`, whose plies count from the root)."""
        _live(self)
        cdef Board bd = self.root_board
        cdef Node* root
        cdef Node* old
        cdef Node* fresh
        cdef int32_t child = -1, k
        cdef int64_t used, i
        if self.readers or not self.guard.acquire(blocking=False):
            raise RuntimeError(_BUSY)       # (advance moves the tree to a new pool)
        try:
            point = bd._parse(move)
            bd.play(point)
            root = &self.pool.nodes[0]
            if root.first >= 0 and self.avoid_until == NULL:
                for k in range(root.nchildren):
                    if self.pool.nodes[root.first + k].move == point:
                        child = root.first + k
            try:
                self._set_root(self.spec.policy, True)
            except MemoryError:
                bd.undo()           # (nothing else changed: the root is as it was)
                raise
            self._root_history(True)
            if child < 0:
                self._clear_tree()
                return
            old = self.pool.nodes
            fresh = <Node*>malloc(<size_t>self.pool.cap * sizeof(Node))
            if fresh == NULL:
                self._clear_tree()
                warnings.warn("Search.advance: no memory for a second pool to copy the kept "
                              "subtree into: the search starts a new tree", RuntimeWarning)
                return
            fresh[0] = old[child]
            fresh[0].move = -1
            used = 1
            i = 0
            while i < used:             # breadth first: children stay contiguous
                if fresh[i].first >= 0 and fresh[i].nchildren > 0:
                    memcpy(&fresh[used], &old[fresh[i].first], fresh[i].nchildren * sizeof(Node))
                    fresh[i].first = <int32_t>used
                    used += fresh[i].nchildren
                i += 1
            free(old)
            self.pool.nodes = fresh
            self.pool.used = used
            for i in range(used):
                self.pool.moves[i] = fresh[i].move
            self.pool_full = False
        finally:
            self.guard.release()

    def _result(self, double seconds):
        _live(self)
        self.readers += 1               # (numpy's calls below may let another thread run)
        try:
            return self._read_result(seconds)
        finally:
            self.readers -= 1

    cdef object _read_result(self, double seconds):
        cdef Node* root = &self.pool.nodes[0]
        cdef Node* c
        cdef int k, n = root.nchildren if root.first >= 0 else 0
        moves = np.empty(n, dtype=np.int32)
        visits = np.empty(n, dtype=np.int64)
        values = np.full(n, np.nan)
        priors = np.empty(n, dtype=np.float32)
        for k in range(n):
            c = &self.pool.nodes[root.first + k]
            moves[k] = c.move
            visits[k] = c.visits
            priors[k] = c.prior if self.prm.puct else 0.0
            if c.visits:
                values[k] = (c.value / c.visits + 1) / 2 if self.prm.puct else c.value / c.visits
        best = None
        winrate = float("nan")
        if n:
            order = sorted(range(n), key=lambda i: (-visits[i], -(values[i] if visits[i] else -1),
                                                    -priors[i], i))
            best = int(moves[order[0]])
            winrate = float(values[order[0]])
        pv = self._pv(0)
        own = None
        if self.prm.ownership:
            sums = np.zeros(self.npoints)
            count = 0
            for k in range(self.nthreads):
                sums += np.asarray(<int64_t[:self.npoints]>self.workers[k].owner_sum)
                count += self.workers[k].owned
            own = (sums / count if count else np.full(self.npoints, np.nan)).reshape(self.height, self.width)
        return SearchResult(best_move=best, moves=moves, visits=visits, values=values,
                            priors=priors, pv=pv, winrate=winrate, ownership=own,
                            playouts=int(self.started), root_visits=int(root.visits),
                            seconds=seconds, nodes=int(self.pool.used), width=self.width,
                            height=self.height)

    cdef list _pv(self, int32_t ni):
        """The moves from node ni down the most visited child while it has visits (ties as
        best_move's: the higher value, then the higher prior, then the earlier move)."""
        cdef int k, bestk, bestv
        cdef double bestq, q, bestp, prior
        cdef Node* c
        pv = []
        while self.pool.nodes[ni].first >= 0 and self.pool.nodes[ni].nchildren > 0:
            bestk, bestv, bestq, bestp = -1, 0, 0.0, 0.0
            for k in range(self.pool.nodes[ni].nchildren):
                c = &self.pool.nodes[self.pool.nodes[ni].first + k]
                if c.visits == 0:
                    continue
                q = c.value / c.visits
                prior = c.prior if self.prm.puct else 0.0
                if c.visits > bestv or (c.visits == bestv and (q > bestq or
                                                               (q == bestq and prior > bestp))):
                    bestk, bestv, bestq, bestp = k, c.visits, q, prior
            if bestk < 0:
                break
            ni = self.pool.nodes[ni].first + bestk
            pv.append(int(self.pool.nodes[ni].move))
        return pv

    def variation(self, move):
        """The principal variation that starts with the root move `move` (a point or pass):
        [move] and then the most visited moves below it; [] when `move` is not a root move."""
        _live(self)
        cdef Board bd = self.root_board
        cdef int point = bd._parse(move), k      # (user code: before the tree is read)
        cdef Node* root
        _live(self)
        self.readers += 1               # (the list's allocations may run a collection)
        try:
            root = &self.pool.nodes[0]
            if root.first >= 0:
                for k in range(root.nchildren):
                    if self.pool.nodes[root.first + k].move == point:
                        return [point] + self._pv(root.first + k)
            return []
        finally:
            self.readers -= 1

    def _nodes(self):
        """A copy of the nodes in use (index = pool index; node 0 the root) as a numpy structured
        array with Node's fields, for tests and inspection. Not while a search runs."""
        _live(self)
        cdef Node n
        cdef char* base = <char*>&n
        fields = [("first", np.int32, <char*>&n.first - base),
                  ("nchildren", np.int16, <char*>&n.nchildren - base),
                  ("move", np.int16, <char*>&n.move - base),
                  ("visits", np.int32, <char*>&n.visits - base),
                  ("pending", np.int32, <char*>&n.pending - base),
                  ("value", np.float64, <char*>&n.value - base),
                  ("amaf_visits", np.int32, <char*>&n.amaf_visits - base),
                  ("amaf_value", np.float32, <char*>&n.amaf_value - base),
                  ("prior", np.float32, <char*>&n.prior - base),
                  ("mix", np.float32, <char*>&n.mix - base)]
        dt = np.dtype({"names": [f[0] for f in fields], "formats": [f[1] for f in fields],
                       "offsets": [f[2] for f in fields], "itemsize": sizeof(Node)})
        _live(self)                     # (again: a collection above may have run a close)
        if not self.guard.acquire(blocking=False):
            raise RuntimeError(_BUSY)
        try:
            raw = bytes((<char*>self.pool.nodes)[:self.pool.used * sizeof(Node)])
        finally:
            self.guard.release()
        return np.frombuffer(raw, dtype=dt).copy()

    def __reduce__(self):
        raise TypeError("a Search cannot be copied or pickled (its tree lives in C memory): "
                        "make a new Search of search.board (a Board, which pickles)")

    def __copy__(self):
        self.__reduce__()

    def __deepcopy__(self, memo):
        self.__reduce__()

    def result(self):
        """The ``SearchResult`` of the tree as it stands (no search)."""
        return self._result(0.0)

    @property
    def board(self):
        """A copy of the root position as a ``Board`` (a plain one: the search plays on a plain
        private copy of the board it was given, whatever its class)."""
        _live(self)
        return self.root_board.copy()

    @property
    def nodes(self):
        """Nodes in use in the pool; ``capacity``: nodes it holds."""
        _live(self)
        return int(self.pool.used)

    @property
    def capacity(self):
        _live(self)
        return int(self.pool.cap)

    @property
    def threads(self):
        """The UCT workers: `threads` as asked, at most the cores (fastgo.playout.CORES)."""
        _live(self)
        return self.nthreads


cdef inline void _first_colours(Worker* w, int npoints, int turns) noexcept nogil:
    """RAVE: w.first_colour[point] = the colour that played it first in the playout's w.moves
    (0: nobody; a pass, index npoints, never counts)."""
    cdef uint8_t* fc = w.first_colour
    cdef int t
    memset(fc, 0, npoints + 1)
    for t in range(turns - 1, -1, -1):     # backwards: the earliest play of a point wins
        fc[w.moves[t]] = <uint8_t>(w.leaf_colour if t % 2 == 0 else 3 - w.leaf_colour)
    fc[npoints] = 0


cdef inline float _mix(const Params* prm, const Node* c, double pending) noexcept nogil:
    """UCT's value term (1 - b) q + b qa of child c, with `pending` more lost visits.

    With q = a / u, qa = aa / ua and b = na / (na + g), g = n + n na / E, the term is
    (g a ua + na aa u) / ((na + g) u ua): one division (the hot path of a RAVE search)."""
    cdef double n = c.visits + pending, na, a, u, aa, P = prm.prior_visits
    u = n + P
    if u <= 0:              # n = P = 0: q is the prior rate, and b = 1 when there are AMAF samples
        if not prm.rave or c.amaf_visits == 0:
            return c.prior
        return <float>(c.amaf_value / <double>c.amaf_visits)
    a = c.value + c.prior * P
    if not prm.rave or c.amaf_visits == 0:
        return <float>(a / u)
    na = c.amaf_visits
    aa = c.amaf_value + c.prior * P
    return _rave_term(n, a, na, aa, P, prm.inv_rave_equiv)


cdef inline float _rave_term(double n, double a, double na, double aa, double P,
                             double iE) noexcept nogil:
    """_mix's formula for a child with AMAF samples and n + P > 0 (one division)."""
    cdef double u = n + P, ua = na + P, g = n + n * na * iE
    return <float>((g * a * ua + na * aa * u) / ((na + g) * u * ua))


cdef inline void _rave_terms(const Params* prm, int m, const double* n, const double* a,
                             const double* na, const double* aa, float* out) noexcept nogil:
    """_rave_term for m children with AMAF samples and n + P > 0 (n visits, a and aa the sums
    with the prior's P visits added, na AMAF samples), in one loop without branches the compiler
    vectorizes (the divisions two at a time)."""
    cdef int k
    cdef double P = prm.prior_visits, iE = prm.inv_rave_equiv
    for k in range(m):
        out[k] = _rave_term(n[k], a[k], na[k], aa[k], P, iE)


cdef inline int32_t _select(const Params* prm, Node* nodes, int32_t ni) noexcept nogil:
    """The child of node ni a descent follows (see the module docstring)."""
    cdef Node* nd = &nodes[ni]
    cdef Node* kids = &nodes[nd.first]
    cdef Node* c
    cdef int k, best = 0, vl = prm.virtual_loss
    cdef int64_t nv
    cdef double bestv = -1e300, v, n, q, logn, sq
    cdef double cx = prm.exploration
    if prm.puct:
        # (in doubles: vl * pending overflows an int at vl = 2**20 and 2,048 visits in flight)
        sq = sqrt(<double>nd.visits + <double>vl * nd.pending)
        for k in range(nd.nchildren):
            c = &kids[k]
            n = c.visits + <double>vl * c.pending
            q = (c.value - <double>vl * c.pending) / n if n > 0 else prm.fpu
            v = q + cx * c.prior * sq / (1.0 + n)
            if v > bestv:
                bestv = v
                best = k
        return nd.first + best
    nv = nd.visits + <int64_t>vl * nd.pending
    logn = cx * (_SQRTLOG[nv] if nv < _ISQRT_N else sqrt(log(<double>nv + 1.0)))
    for k in range(nd.nchildren):
        c = &kids[k]
        # the value term is cached in c.mix (kept current by _backup_uct); visits in flight
        # need it recomputed
        if c.pending:
            nv = c.visits + <int64_t>vl * c.pending
            v = _mix(prm, c, <double>vl * c.pending)
        else:
            nv = c.visits
            v = c.mix
        if cx > 0:             # c sqrt(ln N) / sqrt(n + 1), the latter from a table
            v += logn * (_ISQRT[nv] if nv < _ISQRT_N else 1.0 / sqrt(nv + 1.0))
        if v > bestv:
            bestv = v
            best = k
    return nd.first + best


cdef inline void _node_init(Node* c, int move, double prior) noexcept nogil:
    c.first = NOT_EXPANDED
    c.nchildren = 0
    c.move = <int16_t>move
    c.visits = 0
    c.pending = 0
    c.value = 0.0
    c.amaf_visits = 0
    c.amaf_value = 0.0
    # UCT reads `prior` as the prior win rate, PUCT as the evaluator's prior
    c.prior = <float>prior
    c.mix = <float>prior         # UCT's value term of a node without visits: its prior rate


cdef Worker* _worker_new(int npoints, int max_moves) noexcept nogil:
    cdef Worker* w = <Worker*>calloc(1, sizeof(Worker))
    if w == NULL:
        return NULL
    # the superko memory holds the tree's moves and the playout's
    w.scratch = scratch_new(max_moves + MAX_DEPTH)
    w.moves = <int16_t*>malloc((max_moves + 1) * sizeof(int16_t))
    w.owner = <int8_t*>malloc(npoints * sizeof(int8_t))
    w.owner_sum = <int64_t*>calloc(npoints, sizeof(int64_t))
    w.first_colour = <uint8_t*>malloc(npoints + 1)
    w.cand = <int16_t*>malloc((npoints + 1) * sizeof(int16_t))
    cdef int d
    cdef bint held = True
    for d in range(HOLD_LEVELS):
        w.held_na[d] = <int32_t*>calloc(npoints + 1, sizeof(int32_t))
        w.held_aa[d] = <float*>calloc(npoints + 1, sizeof(float))
        w.held_node[d] = -1
        held = held and w.held_na[d] != NULL and w.held_aa[d] != NULL
    if (w.scratch == NULL or w.moves == NULL or w.owner == NULL or w.owner_sum == NULL or
            w.first_colour == NULL or w.cand == NULL or not held):
        _worker_free(w)
        return NULL
    return w


cdef void _worker_free(Worker* w) noexcept nogil:
    if w != NULL:
        scratch_free(w.scratch)
        hashset_free(&w.seen)
        for d in range(HOLD_LEVELS):
            free(w.held_na[d])
            free(w.held_aa[d])
        free(w.moves)
        free(w.owner)
        free(w.owner_sum)
        free(w.first_colour)
        free(w.cand)
        free(w.ring)
        free(w)
