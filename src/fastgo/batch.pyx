# cython: language_level=3, binding=True, embedsignature=True
"""``BoardBatch``: n games of Go in lock-step, in C memory, stepped without the GIL on all cores.

Every game has the full rules of ``Board``: the legality of a move is ``core.judge_move``, the
same function ``Board.play`` asks, so there is one copy of the rules. Feature planes for neural
networks (``encode``) read each game's ring of its last 8 colourings; see ``fastgo.features``
for the definitions of the encodings.
"""

import os
from collections import namedtuple
from time import perf_counter

import numpy as np
cimport numpy as cnp
cimport cython
from cython.parallel cimport prange, parallel, threadid
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint64_t, INT16_MAX
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy
from cpython.exc cimport PyErr_CheckSignals

from fastgo.core cimport *
from fastgo.board cimport Board
from fastgo.planes cimport (plane_t, encode_planes, encoding_planes, encoding_history,
                            board_colouring, ENC_AGZ17, ENC_LZ18, ENC_OPENSPIEL4, ENC_KATAGO,
                            ENC_STONES)
from fastgo.board import _make_rules, REASONS
from fastgo.coords import check_size, _index
from fastgo.errors import ArgumentTypeError, IllegalActionError, unmasked
from fastgo.playout import _job_threads

cnp.import_array()

# autoreset modes, named as Gymnasium's AutoresetMode values and in fastgo's own spelling
cdef enum:
    AUTORESET_NEXT_STEP = 0
    AUTORESET_SAME_STEP = 1
    AUTORESET_DISABLED = 2
_AUTORESET = {"next-step": AUTORESET_NEXT_STEP, "NextStep": AUTORESET_NEXT_STEP,
              "same-step": AUTORESET_SAME_STEP, "SameStep": AUTORESET_SAME_STEP,
              "disabled": AUTORESET_DISABLED, "Disabled": AUTORESET_DISABLED}
AUTORESET_NAMES = ("next-step", "same-step", "disabled")

cdef enum:
    MOVE_CAP = 6            # a refusal of the batch's own: the game hit max_moves
    STEP_RESET = 100        # next-step autoreset: this game restarts, its action is ignored
    STEP_OOM = 101          # no memory for the turn's records
    STEP_RANGE = 102        # the action is no point and no pass
    CHUNK = 16              # games a thread claims at a time (_run)
    PROBE_MIN_GAP = 16      # steps between tries of the other thread setting (_observe), at first
    PROBE_MAX_GAP = 512     # and at most, after tries that confirmed the choice
    PROBE_STEPS = 2         # steps a try measures
    PROBE_SETTLE = 1        # steps after a change of setting that are not measured
    RANDOM_PARALLEL_WORK = 1 << 22      # random_actions: the least rows * (P + 400) it runs on threads

cdef enum:
    JOB_APPLY = 0
    JOB_ENCODE = 1
    JOB_SCORE = 2
    JOB_RESET = 3

#: the most games a BoardBatch holds
MAX_GAMES = 1 << 26
_ENC_CODES = {"agz17": ENC_AGZ17, "lz18": ENC_LZ18, "openspiel4": ENC_OPENSPIEL4,
              "katago": ENC_KATAGO, "stones": ENC_STONES}
#: encoding name -> number of planes
ENCODINGS = {name: encoding_planes(code) for name, code in _ENC_CODES.items()}
# output dtypes: 0 one byte (bool, uint8, int8), 1 float32, 2 float64
_DTYPES = {np.dtype(np.bool_): 0, np.dtype(np.uint8): 0, np.dtype(np.int8): 0,
           np.dtype(np.float32): 1, np.dtype(np.float64): 2}

_REASONS = dict(REASONS)
_REASONS[MOVE_CAP] = "move cap"

def _unpickle_batch(Board start not None, max_moves, autoreset, threads, boards):
    """BoardBatch.__reduce__'s inverse: a batch of len(boards) games from `start` (a set-up
    with no turn) under its rules (its komi included), each game then set from its Board;
    `threads` None: all cores of this machine."""
    cdef BoardBatch c = BoardBatch.__new__(BoardBatch)
    # a plain Board, judged and used as it is (a subclass's copy() or start_position() would
    # run where the batch trusts what it read), and the boards counted once
    start = start._copy_as(Board, False)
    cap = _index(max_moves, "max_moves")
    boards = list(boards) if isinstance(boards, (list, tuple)) else None
    if (boards is None or not 1 <= len(boards) <= MAX_GAMES or autoreset not in AUTORESET_NAMES
            or start.nturns != 0 or not 0 <= cap <= 2**62):   # (0: no cap, as __init__'s None)
        raise ValueError("not a pickled BoardBatch")
    c.threads = _threads(threads)
    c.threads_all = threads is None
    c._adapt_reset()
    _check_memory(len(boards), start)
    c._allocate(len(boards), start, cap, _AUTORESET[autoreset])
    for i, board in enumerate(boards):
        c.set(i, board)
    return c


def _actions_array(actions, int64_t n, int npoints):
    """`actions` as step takes them (an integer array or sequence of n points or passes; floats
    only when exact integers, in a list), C-contiguous int64; anything else refused. Values of
    an int64 array are range-checked by the step's judgement."""
    a = unmasked(actions, "actions", "played as moves")
    if not isinstance(actions, np.ndarray) and a.ndim == 1:
        if a.dtype.kind in "fO":
            a = _exact_ints(actions, a, npoints)
        elif a.dtype.kind in "iu" and isinstance(actions, (list, tuple)):
            _refuse_bools(actions)          # numpy makes [True, 5] int64: True is no point
    if a.dtype.kind not in "iu" or a.shape != (n,):
        raise (ValueError if a.dtype.kind in "iu" else ArgumentTypeError)(
            f"actions must be an integer array of shape ({n},), got {a.dtype} {a.shape}")
    if a.dtype != np.int64:
        # range-checked before the cast, so that no value wraps into a valid one
        if n and (a.min() < 0 or a.max() > npoints):
            _refuse_range(a, npoints)
        a = a.astype(np.int64)
    return np.ascontiguousarray(a)


# (module= names this module: a namedtuple made while an extension module starts would name
# importlib._bootstrap, and neither pickle nor multiprocessing could find the class)
StepResult = namedtuple("StepResult", "terminated truncated winners reset", module="fastgo.batch")
StepResult.__doc__ = """What one ``BoardBatch.step`` did, per game (numpy arrays of length n):
terminated (bool: this turn was the second pass in a row), truncated (bool: this turn reached
max_moves and did not end the game), winners (int8: for a terminated game 1 Black won, 2 White
won, 0 a tie; 0 elsewhere) and reset (bool: the game was restarted in this step by autoreset:
next-step, a game that was over before the step, its action ignored; same-step, a game that
ended in this step, after its result was recorded)."""


cdef extern from *:
    """
    /* The games of a parallel job, one block per thread: a [lo, hi) range packed in one 64-bit
       word (a 64-byte line each, so that two threads' claims never share one), which its owner
       takes from the front and threads that have run out of their own take from the back, each
       claim one compare-and-swap. A thread keeps the same games from turn to turn (their memory
       stays in its core's cache) and a thread that starts late (woken from sleep) leaves its
       work to the others instead of delaying them. */
    static void* fastgo_blocks_new(int t) {
        void* p = NULL;
        return posix_memalign(&p, 64, (size_t)t * 64) ? NULL : p;
    }
    static inline void fastgo_block_set(void* blocks, int k, int64_t lo, int64_t hi) {
        ((uint64_t*)blocks)[8 * k] = (uint64_t)lo | ((uint64_t)hi << 32);
    }
    static inline int fastgo_take(void* blocks, int k, int64_t chunk, int front,
                                  int64_t* first, int64_t* end) {
        uint64_t* span = (uint64_t*)blocks + 8 * k;
        uint64_t w = __atomic_load_n(span, __ATOMIC_RELAXED), next;
        for (;;) {
            int64_t lo = (uint32_t)w, hi = (uint32_t)(w >> 32);
            if (lo >= hi)
                return 0;
            if (front) {
                *first = lo;
                *end = hi - lo > chunk ? lo + chunk : hi;
                next = (uint64_t)*end | ((uint64_t)hi << 32);
            } else {
                *first = hi - lo > chunk ? hi - chunk : lo;
                *end = hi;
                next = (uint64_t)lo | ((uint64_t)*first << 32);
            }
            if (__atomic_compare_exchange_n(span, &w, next, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
                return 1;
        }
    }
    """
    void* fastgo_blocks_new(int t) noexcept nogil
    void fastgo_block_set(void* blocks, int k, int64_t lo, int64_t hi) noexcept nogil
    bint fastgo_take(void* blocks, int k, int64_t chunk, bint front, int64_t* first,
                     int64_t* end) noexcept nogil


cdef inline uint8_t* ring_slot(BoardBatch self, int64_t i, int64_t t) noexcept nogil:
    """Game i's ring slot for the colouring after turn t: slot t % HISTORY (the ring keeps the
    last HISTORY colourings; turn 0 is the set-up)."""
    return self.rings + <size_t>i * self.ring_bytes + <size_t>(t % HISTORY) * self.npoints


cdef void encode_game(BoardBatch self, int64_t i, plane_t* out) noexcept nogil:
    """Write game i's planes in the batch's job encoding, [C, height, width], row 0 at the
    bottom: planes.encode_planes on the game's state, ring and records (see fastgo.features for
    each plane's definition)."""
    cdef Game* g = &self.games[i]
    cdef int enc = self.job_encoding, k, known = 0
    cdef const uint8_t* cols[HISTORY]
    if encoding_history(enc):
        # the colourings k turns ago, for the turns since the set-up
        known = g.nturns + 1 if g.nturns + 1 < HISTORY else HISTORY
        for k in range(known):
            cols[k] = ring_slot(self, i, g.nturns - k)
    encode_planes(enc, self.state(i), self.to_move_of(i), self.over(i), cols, known, g.moves,
                  g.nturns, self.ko_rule, self.suicide, &g.ko_hash if g.nturns >= 1 else NULL,
                  hashset_seen, &g.seen, out)


cdef int _live(BoardBatch batch) except -1:
    """Refuse a call on a batch whose __init__ never ran (``BoardBatch.__new__``): it has no
    games, and its pointers are NULL."""
    if batch.games == NULL:
        raise RuntimeError("this BoardBatch was not initialised (call BoardBatch(n, ...))")
    return 0


cdef int _idle(BoardBatch batch) except -1:
    """_live, and no call of another thread running: its jobs rewrite the games without the GIL,
    so a read meanwhile would mix games stepped and not (BoardBatch._enter)."""
    _live(batch)
    if batch.busy:
        raise RuntimeError("this BoardBatch is in use by another call (another thread's, one "
                           "whose callback this is, or one under way in the parent when this "
                           "process was forked, which stays so: make a new batch): one call at "
                           "a time (give each thread its own batch)")
    return 0


# (The docstring's first lines: the signature, as Board's.)
cdef class BoardBatch:
    """BoardBatch(n, width=9, height=None, *, rules=None, ko=None, suicide=None, scoring=None,
               komi=None, handicap=0, max_moves=None, autoreset="next-step", threads=None)
--

    n games of one size and one rule set, stepped together.

    The rule options are those of ``Board``; every game starts from the same position (empty, or
    the handicap placement). ``max_moves`` caps the turns of a game (truncation; None: no cap).
    ``autoreset`` follows Gymnasium's vector conventions: ``"next-step"`` (a game that ended
    restarts at the next ``step``, whose action for it is ignored), ``"same-step"`` (a game
    restarts in the step that ends it, after its result is recorded: only its winner is left; for
    its final position use "disabled" and ``reset``), ``"disabled"`` (ended games stay ended;
    stepping them is refused until ``reset``). ``threads``: the most cores ``step``, ``encode`` and
    ``reset`` use (default: all); ``step`` measures what a turn costs on one thread and on
    ``threads`` and runs on the cheaper (another job holding a core makes one thread the faster),
    trying the other now and then. Results never depend on it.

    Actions are points ``row * width + col`` (pass = ``width * height``), one per game. The
    class cannot be subclassed (its C methods are called directly, not through a table): wrap
    it instead, as ``fastgo.envs`` does.

    >>> batch = BoardBatch(2, 5)
    >>> r = batch.step([12, 25])            # game 0 plays C3, game 1 passes
    >>> batch.to_move.tolist(), batch.move_numbers.tolist()
    ([2, 2], [1, 1])
    >>> batch.board(0).history
    [12]
    """

    def __cinit__(self):
        self._release()             # no games: every pointer NULL (calls refused until __init__)

    def __dealloc__(self):
        self._release()

    cdef void _release(self) noexcept:
        """Free the games' memory; the batch is then as __new__ left it (calls refused)."""
        cdef int64_t i
        cdef size_t freed = 0
        if self.games != NULL:
            freed = <size_t>self.n * (self.sbytes + self.ring_bytes + sizeof(Game))
            for i in range(self.n):
                free(self.games[i].moves)
                hashset_free(&self.games[i].seen)
        free(self.games)
        free(self.states)
        free(self.rings)
        free(self.masks)
        free(self.hard)
        free(self.spans)
        free(self.ready)
        free(self.blocks)
        self.games = NULL
        self.states = NULL
        self.rings = NULL
        self.masks = NULL
        self.hard = NULL
        self.spans = NULL
        self.ready = NULL
        self.blocks = NULL
        heap_trim(freed)                # (the games' many small blocks too)
        self.nblocks = 0
        self.n = 0
        self.own_actions = None         # (sized for n)

    @cython.embedsignature(False)  # Cython misplaces the `*` of __init__; the docstring says it
    def __init__(self, n, width=9, height=None, *, rules=None, ko=None, suicide=None,
                 scoring=None, komi=None, handicap=0, max_moves=None, autoreset="next-step",
                 threads=None):
        if self.games != NULL:
            raise RuntimeError("BoardBatch.__init__ called twice")
        n = _index(n, "n")
        if not 1 <= n <= MAX_GAMES:
            raise ValueError(f"n must be between 1 and {MAX_GAMES} games, not {n}")
        w, h = check_size(width, width if height is None else height)
        rules = _make_rules(rules, ko, suicide, scoring, komi)
        start = Board(w, h, rules=rules, handicap=handicap)
        if max_moves is None:
            cap = 0
        else:
            cap = _index(max_moves, "max_moves")
            if not 1 <= cap <= 2**62:          # (a cap past any game: as None)
                raise ValueError(f"max_moves must be 1..2**62 (or None), not {cap}")
        if not isinstance(autoreset, str) or autoreset not in _AUTORESET:
            raise ValueError(f"autoreset must be one of {AUTORESET_NAMES}, not {autoreset!r}")
        self.threads = _threads(threads)
        self.threads_all = threads is None
        self._adapt_reset()
        _check_memory(n, start)
        self._allocate(n, start, cap, _AUTORESET[autoreset])

    cdef _allocate(self, int64_t n, Board start, int64_t cap, int autoreset):
        """Allocate n games and start them all from `start` (validated arguments: a C method,
        which Python cannot call with others)."""
        cdef int64_t i
        cdef int w = start.st.width, h = start.st.height
        if self.games != NULL:
            raise RuntimeError("BoardBatch._allocate on a batch that has games")
        self.own_actions = None
        self.n = n
        self.width = w
        self.height = h
        self.npoints = w * h
        self.rules = start.rules
        self.ko_rule = start.ko_rule
        self.suicide = start.suicide
        self.territory = start.territory
        self.komi = start.komi
        self.max_moves = cap
        self.autoreset = autoreset
        self.start = start
        self.loaded = {}
        self.sbytes = (board_bytes(w, h) + 7) & ~<size_t>7
        self.ring_bytes = <size_t>HISTORY * self.npoints
        self.states = <char*>malloc(self.sbytes * n)
        self.rings = <uint8_t*>calloc(n, self.ring_bytes)
        self.games = <Game*>calloc(n, sizeof(Game))
        self.masks = <uint8_t*>malloc(<size_t>n * (self.npoints + 1))
        self.ready = <uint8_t*>calloc(n, 1)
        self.hard_words = 3 * hard_words(start.st)
        self.s_inv = stride_inverse(start.st.stride)
        self.hard = <uint64_t*>calloc(n * self.hard_words, sizeof(uint64_t))
        self.spans = <int16_t*>malloc(<size_t>4 * n * (self.npoints + 1) * sizeof(int16_t))
        # in use until every game is made: a signal handler (Ctrl-C is looked for below) that
        # calls the batch is refused, as a call from another thread is (_idle)
        self.busy = True
        try:
            if (self.states == NULL or self.rings == NULL or self.games == NULL
                    or self.masks == NULL or self.hard == NULL or self.spans == NULL
                    or self.ready == NULL):
                raise MemoryError(f"no memory for {n} {w}x{h} games")
            for i in range(n):
                if hashset_init(&self.games[i].seen, 16):
                    raise MemoryError(f"no memory for {n} {w}x{h} games")
                board_clear(self.state(i), w, h)
                self.restart(i)
                if i & 0xFFF == 0xFFF:
                    PyErr_CheckSignals()        # a large batch takes seconds: Ctrl-C is heard
        except BaseException:
            self._release()                     # no half-made games for a later call to find
            raise
        finally:
            self.busy = False

    # -- per-game kernels (no GIL) -----------------------------------------------------------------

    cdef int judge(self, int64_t i, int point) noexcept nogil:
        """Why game i may not play `point` now (0: it may): core.judge_move, or MOVE_CAP."""
        cdef Game* g = &self.games[i]
        if self.masks[i * (self.npoints + 1) + point]:
            # the kept mask is judge_move's own verdict on this position (checked in debug builds)
            if FASTGO_DEBUG:
                FASTGO_ASSERT(not self.capped(i) and judge_move(
                    self.state(i), point, self.to_move_of(i), self.over(i), self.ko_rule,
                    self.suicide, &g.ko_hash if g.nturns >= 1 else NULL, hashset_seen, &g.seen,
                    NULL) == LEGAL, "BoardBatch: a kept mask allows an illegal action; point", point)
            return LEGAL
        if self.capped(i) and not self.over(i):
            return MOVE_CAP
        return judge_move(self.state(i), point, self.to_move_of(i), self.over(i), self.ko_rule,
                          self.suicide, &g.ko_hash if g.nturns >= 1 else NULL, hashset_seen, &g.seen, NULL)

    cdef bint has_room(self, int64_t i) noexcept nogil:
        """Whether game i's records (move list, superko memory) have room for one more turn."""
        cdef Game* g = &self.games[i]
        return g.nturns + 1 <= g.cap_moves and (self.ko_rule == KO_SIMPLE
                                                or 2 * (g.seen.used + 1) <= g.seen.cap)

    cdef int reserve(self, int64_t i) noexcept nogil:
        """Room for one more turn of game i; -1 when out of memory (the game unchanged).
        ready[i] records whether there is."""
        cdef Game* g = &self.games[i]
        cdef int64_t cap
        cdef int16_t* mem
        self.ready[i] = self.has_room(i)
        if self.ready[i]:
            return 0            # the usual case: one test of what has_room says
        if g.nturns + 1 > g.cap_moves:
            cap = 2 * g.cap_moves if g.cap_moves >= 32 else 64
            mem = <int16_t*>realloc(g.moves, <size_t>cap * sizeof(int16_t))
            if mem == NULL:
                return -1
            g.moves = mem
            g.cap_moves = cap
        if self.ko_rule != KO_SIMPLE and hashset_reserve(&g.seen, 1):
            return -1
        self.ready[i] = 1
        return 0

    cdef void commit(self, int64_t i, int point) noexcept nogil:
        """Play a judged-legal move in game i (room reserved) and record the turn."""
        cdef BoardState* b = self.state(i)
        cdef Game* g = &self.games[i]
        cdef int colour = self.to_move_of(i), p = -1, k, gone = 0
        cdef int32_t captured = b.captures[colour], before = b.num_empty, removed
        cdef uint8_t* slot
        cdef const int16_t* freed = NULL
        cdef bint ended
        g.ko_hash = b.hash
        if point != self.npoints:
            p = to_pad(b, point)
            freed = empty_list(b) + before - 1
            board_play(b, NULL, p, colour)
            g.passes = 0
            # stones the play removed: the opponent's (captures) and then the mover's (suicide)
            removed = b.captures[colour] - captured
            g.stones[3 - colour] -= removed
            g.stones[colour] += 1 - (b.num_empty - before + 1 - removed)
            # board_play took p out of the empty list (its length before - 1), then appended
            # every stone it removed: they are freed[0..gone)
            gone = b.num_empty - before + 1
        else:
            g.passes += 1
        g.moves[g.nturns] = <int16_t>point
        g.nturns += 1
        if self.ko_rule != KO_SIMPLE:
            hashset_add(&g.seen, superko_key(self.ko_rule, b.hash, 3 - colour))
            self.tally(i)
        # the ring's new colouring: the last one, the stone, the removed stones
        slot = ring_slot(self, i, g.nturns)
        memcpy(slot, ring_slot(self, i, g.nturns - 1), self.npoints)
        if p >= 0:
            slot[point] = <uint8_t>colour
            for k in range(gone):
                slot[public_of(freed[k], b.stride, self.s_inv)] = EMPTY
        ended = self.over(i) or self.capped(i)
        if ended or not settling_pays(gone, self.npoints):
            self.refresh_mask(i)
        else:
            self.update_mask(i, p, freed, gone)
        if ended:
            self.ready[i] = 0   # no next turn: an action is refused, or restarts the game
        else:
            self.reserve(i)     # the next turn's room, here on the thread that owns the game

    cdef void ring_colouring(self, int64_t i) noexcept nogil:
        """Game i's colouring now into its ring slot for turn nturns (public points)."""
        board_colouring(self.state(i), ring_slot(self, i, self.games[i].nturns))

    cdef int colourings(self, int64_t i, uint8_t* out) noexcept nogil:
        """Game i's last colourings, newest first: the colouring k turns ago at out + k * npoints
        for k below the count returned (HISTORY, or the turns since the set-up and the set-up).
        The past of a ``Search``'s root (search.pyx), replayed by ``set``."""
        cdef Game* g = &self.games[i]
        cdef int k, known = g.nturns + 1 if g.nturns + 1 < HISTORY else HISTORY
        for k in range(known):
            memcpy(out + <size_t>k * self.npoints, ring_slot(self, i, g.nturns - k), self.npoints)
        return known

    cdef void restart(self, int64_t i) noexcept nogil:
        """Game i back to the batch's start position."""
        self.load_state(i, self.start)
        self.games[i].loaded = 0

    cdef void load_state(self, int64_t i, Board board) noexcept nogil:
        """Game i becomes `board`'s set-up (its turn 0), with no turn played."""
        cdef BoardState* b = self.state(i)
        cdef Game* g = &self.games[i]
        cdef int p
        cdef int16_t* span
        board_copy(b, board.st)
        g.nturns = 0
        g.passes = 0
        g.first = board.first
        g.ko_hash = 0
        hashset_clear(&g.seen)
        span = self.spans + <size_t>4 * i * (self.npoints + 1)
        for p in range(2 * (self.npoints + 1)):
            span[2 * p] = INT16_MAX
            span[2 * p + 1] = -1
        g.stones[BLACK] = g.stones[WHITE] = 0
        for p in range(b.npad):
            if b.cell[p].color == BLACK or b.cell[p].color == WHITE:
                g.stones[b.cell[p].color] += 1
        if self.ko_rule != KO_SIMPLE:
            hashset_add(&g.seen, superko_key(self.ko_rule, b.hash, g.first))
            self.tally(i)
        self.ring_colouring(i)
        self.refresh_mask(i)
        self.reserve(i)

    cdef double margin(self, int64_t i) noexcept nogil:
        """Black's points minus White's (komi in White's) under the batch's scoring, as
        Board.score() counts them with no dead stones marked."""
        cdef BoardState* b = self.state(i)
        cdef uint8_t colour[MAX_PAD]
        cdef int owned[3]
        cdef int territory[3]
        cdef double black, white
        board_colours(b, colour)
        board_ownership(colour, 1, b, NULL, owned, territory)
        return score_points(b, owned, territory, self.territory, self.komi, 0, 0, &black, &white)

    # -- the parallel loop ----------------------------------------------------------------------

    cdef void _work(self, int job, int64_t i) noexcept nogil:
        """Game i's part of `job`."""
        cdef uint8_t** res
        cdef size_t per
        if job == JOB_APPLY:
            res = self.job_res                  # terminated, truncated, winners, reset
            if self.job_flags[i] == STEP_RESET:
                self.restart(i)
                res[3][i] = 1
                return
            self.commit(i, <int>self.job_actions[i])
            if self.over(i):
                res[0][i] = 1
                res[2][i] = winner_of(self.margin(i))
            elif self.capped(i):
                res[1][i] = 1
            if self.autoreset == AUTORESET_SAME_STEP and (res[0][i] or res[1][i]):
                self.restart(i)
                res[3][i] = 1
        elif job == JOB_ENCODE:
            per = <size_t>encoding_planes(self.job_encoding) * self.npoints
            if self.job_dtype == 0:
                encode_game(self, i, self.job_out + per * i)
            elif self.job_dtype == 1:
                encode_game(self, i, (<float*>self.job_out) + per * i)
            else:
                encode_game(self, i, (<double*>self.job_out) + per * i)
        elif job == JOB_SCORE:
            (<double*>self.job_out)[i] = self.margin(i)
        elif job == JOB_RESET:
            if self.job_flags[i]:
                self.restart(i)

    cdef void prefetch_turn(self, int64_t i, int point) noexcept nogil:
        """Ask for the memory game i's turn at `point` will write at random places (the superko
        table's slot for the colouring a play that takes nothing leaves, the ring's next slot),
        while step's judging of the next games goes on, when the same thread plays them next."""
        cdef BoardState* b = self.state(i)
        cdef Game* g = &self.games[i]
        cdef uint64_t key
        cdef int64_t slot
        prefetch(ring_slot(self, i, g.nturns + 1))
        if self.ko_rule != KO_SIMPLE and point != self.npoints:
            key = superko_key(self.ko_rule, b.hash ^ zkey(self.to_move_of(i), to_pad(b, point)),
                              3 - self.to_move_of(i))
            slot = <int64_t>(key & <uint64_t>(g.seen.cap - 1))
            prefetch(&g.seen.counts[slot])
            prefetch(&g.seen.keys[slot])

    cdef void refresh_mask(self, int64_t i) noexcept nogil:
        """Game i's kept mask and hard points judged afresh (core.judge_mask)."""
        cdef Game* g = &self.games[i]
        g.vetoed = judge_mask(self.state(i), self.to_move_of(i), self.over(i) or self.capped(i),
                              self.ko_rule, self.suicide, &g.ko_hash if g.nturns >= 1 else NULL,
                              hashset_seen, &g.seen, self.fresh(i),
                              self.masks + <size_t>i * (self.npoints + 1),
                              self.hard + <size_t>i * self.hard_words)

    cdef void tally(self, int64_t i) noexcept nogil:
        """Game i's stone counts now join its superko memory's (spans)."""
        cdef Game* g = &self.games[i]
        cdef int16_t* span
        cdef int c, own, other
        for c in range(BLACK, WHITE + 1):
            own = g.stones[c]
            other = g.stones[3 - c]
            span = self.spans + 2 * ((2 * i + c - 1) * (self.npoints + 1) + own)
            # selects, not branches: whether a count is new is unpredictable
            span[0] = <int16_t>(other if other < span[0] else span[0])
            span[1] = <int16_t>(other if other > span[1] else span[1])

    cdef int fresh(self, int64_t i) noexcept nogil:
        """What no play by game i's mover can repeat (core.judge_quick): a play that removes no
        stone leaves one stone more of the mover's and as many of the other colour, one that
        captures fewer of the other colour; the memory's counts with that many of the mover's
        (spans) rule them out. One read instead of a look-up a point."""
        cdef Game* g = &self.games[i]
        cdef int colour = self.to_move_of(i)
        cdef int own = g.stones[colour] + 1, other = g.stones[3 - colour]
        cdef const int16_t* span
        cdef int fresh = 0
        if self.ko_rule == KO_SIMPLE or own > self.npoints:
            return 0
        span = self.spans + 2 * ((2 * i + colour - 1) * (self.npoints + 1) + own)
        if other < span[0] or other > span[1]:
            fresh |= QUIET_FRESH
        if other <= span[0]:
            fresh |= CAPTURE_FRESH
        return fresh

    cdef void update_mask(self, int64_t i, int p, const int16_t* freed, int gone) noexcept nogil:
        """Game i's kept mask after a turn: a stone on padded point p (p < 0: a pass) that
        removed the `gone` stones at freed[0..gone) (padded points) changes whether p, the
        freed points and their neighbours play freely (their neighbour masks, colours and
        `ever` are the only ones that changed); the hard points are judged again for the new
        mover, ko and superko memory (core's judgement)."""
        cdef BoardState* b = self.state(i)
        cdef Game* g = &self.games[i]
        cdef uint8_t* out = self.masks + <size_t>i * (self.npoints + 1)
        cdef uint64_t* hard = self.hard + <size_t>i * self.hard_words
        cdef int k
        cdef uint8_t fresh[MAX_POINTS + 1]
        settle_play(b, p, freed, gone, self.ko_rule, self.suicide, self.s_inv, out, hard)
        g.vetoed = judge_hard(b, self.to_move_of(i), self.ko_rule, self.suicide, &g.ko_hash,
                              hashset_seen, &g.seen, self.fresh(i), hard, out, not g.vetoed)
        if FASTGO_DEBUG:
            judge_mask(b, self.to_move_of(i), False, self.ko_rule, self.suicide, &g.ko_hash,
                       hashset_seen, &g.seen, False, fresh, NULL)
            for k in range(self.npoints + 1):
                FASTGO_ASSERT(fresh[k] == out[k], "BoardBatch: a kept mask differs from "
                              "judge_mask at point", k)
            for k in range(b.num_empty):
                p = empty_list(b)[k]
                FASTGO_ASSERT(not is_sole_liberty(b, p) or
                              (hard[2 * hard_words(b) + (p >> 6)] >> (p & 63)) & 1,
                              "BoardBatch: a chain's only liberty is in the kept sole "
                              "liberties; padded point", p)

    cdef int _enter(self) except -1:
        """Claim the batch for one call. The jobs run without the GIL, reading the job_* fields
        and growing the games' move arrays: a second thread's call meanwhile would point them
        at its own buffers or read freed ones, so it is refused instead."""
        _idle(self)
        self.busy = True
        return 0

    cdef void _run(self, int job, int t) noexcept:
        """Run `job` on every game: on t threads, each taking CHUNK games at a time from its
        own block and then from the others' (fastgo_take), or a plain loop on one thread or for
        a small batch. The threads meet once, at the end."""
        cdef int64_t i, n = self.n
        cdef int k
        cdef void* mem
        if self._parallel(t):
            if self.nblocks < t:
                mem = fastgo_blocks_new(t)
                if mem != NULL:
                    free(self.blocks)
                    self.blocks = mem
                    self.nblocks = t
            if self.nblocks >= t:
                for k in range(t):
                    fastgo_block_set(self.blocks, k, n * k // t, n * (k + 1) // t)
                with nogil, parallel(num_threads=t):
                    self._drain(job, threadid(), t)
                return
        with nogil:
            for i in range(n):
                self._work(job, i)

    cdef bint _parallel(self, int t) noexcept nogil:
        """Whether _run runs a job on t threads (a claim packs game indices in 32 bits)."""
        return t > 1 and self.n >= 4 * CHUNK and self.n < (<int64_t>1 << 31)

    cdef void _drain(self, int job, int me, int t) noexcept nogil:
        """Thread `me`'s part of a parallel job: its own block's games from the front, then
        what is left of the others' from the back (_run)."""
        cdef int64_t i, first, end
        cdef int k
        for k in range(t):
            while fastgo_take(self.blocks, (me + k) % t, CHUNK, k == 0, &first, &end):
                for i in range(first, end):
                    self._work(job, i)

    cdef bint _judge_all(self, bint prefetch) noexcept nogil:
        """Judge every game's action into job_flags on the calling thread; whether none was
        refused. The usual case reads two bytes a game (the kept mask's verdict and whether the
        turn's records have room), bytes the caller's legal_mask has just read: the games'
        memory stays with the threads that play them. `prefetch`: ask for the memory each turn
        will write (for a following pass on this thread)."""
        cdef int64_t i, a, P = self.npoints + 1
        cdef int status
        cdef bint ok = True
        for i in range(self.n):
            a = self.job_actions[i]
            if <uint64_t>a < <uint64_t>P and self.masks[i * P + a] & self.ready[i]:
                if FASTGO_DEBUG:
                    FASTGO_ASSERT(self.judge(i, <int>a) == LEGAL and self.has_room(i),
                                  "BoardBatch: a kept mask or ready[] allows a turn that is illegal "
                                  "or has no room; game", i)
                status = LEGAL
            elif <uint64_t>a >= <uint64_t>P:          # before the cast
                status = STEP_RANGE
            elif self.autoreset == AUTORESET_NEXT_STEP and (self.over(i) or self.capped(i)):
                status = STEP_RESET
            else:
                status = self.judge(i, <int>a)
                if status == LEGAL and self.reserve(i):
                    status = STEP_OOM
            if status == LEGAL and prefetch:
                self.prefetch_turn(i, <int>a)
            self.job_flags[i] = <uint8_t>status
            ok &= status == LEGAL or status == STEP_RESET
        return ok

    cdef bint _run_step(self, int t) noexcept:
        """step: every game judged on the calling thread (_judge_all) and, when none was
        refused, played (JOB_APPLY) on t threads. Returns whether it played."""
        cdef bint ok
        with nogil:
            ok = self._judge_all(not self._parallel(t))
        if ok:
            self._run(JOB_APPLY, t)
        return ok

    # -- one thread or many -----------------------------------------------------------------------
    # A step is short (a few hundred microseconds for a thousand games), and its threads meet at
    # its end: when another job holds a core, the thread that shares it is descheduled for
    # milliseconds at a time and every step waits for it, so two threads ran slower than one.
    # The batch measures what a game's turn costs on one thread and on `threads`, uses the
    # cheaper, and tries the other again now and then (after 16 steps, then twice as long each
    # time the try confirms the choice, up to 512): the choice follows the machine's load.
    # The first step after a change of setting is not counted: each thread keeps its own block
    # of games in its core's cache, and that step moves them (a try that counted it judged the
    # setting in use cheaper, whichever it was). Results never depend on the choice (every game
    # is stepped alone).

    cdef void _adapt_reset(self) noexcept:
        self.step_cost[0] = self.step_cost[1] = 0
        self.use_many = True
        self.probe_gap = PROBE_MIN_GAP
        self.probe_in = PROBE_MIN_GAP
        self.probing = 0
        self.settle = 0

    cdef int _threads_now(self) except -1:
        """The threads the next job runs on: `threads`, or one while one is cheaper (or tried);
        one in a forked child (fastgo.playout._job_threads)."""
        return _job_threads(self.threads if self.use_many != (self.probing > 0) else 1,
                            "BoardBatch")

    cdef void _observe(self, bint many, double seconds) noexcept:
        """A step on `threads` (many) or on one thread took `seconds`: update its cost, and
        start, end or schedule a try of the other setting."""
        cdef double per
        cdef bint best
        if self.threads < 2 or self.n < 4 * CHUNK:
            return
        per = seconds / self.n
        if self.settle:
            self.settle -= 1        # the games' memory moved between the cores: not counted
        elif self.step_cost[many] == 0:
            self.step_cost[many] = per
        else:       # a try's steps weigh alike (its two: their mean), the setting in use's decay
            self.step_cost[many] += (0.5 if self.probing else 0.25) * (per - self.step_cost[many])
        if self.probing:
            self.probing -= 1
            if self.probing == 0:
                best = self.step_cost[1] <= self.step_cost[0]
                if best == self.use_many:
                    self.probe_gap = min(2 * self.probe_gap, PROBE_MAX_GAP)
                    self.settle = PROBE_SETTLE          # back to the setting in use
                else:
                    self.probe_gap = PROBE_MIN_GAP
                self.use_many = best
                self.probe_in = self.probe_gap
        else:
            self.probe_in -= 1
            if self.probe_in <= 0:
                self.probing = PROBE_SETTLE + PROBE_STEPS
                self.settle = PROBE_SETTLE
                self.step_cost[not self.use_many] = 0        # measured afresh by the try

    def _adaptation(self):
        """(threads in use for the next step, cost a game on one thread, on `threads`, steps to
        the next try): the state of the choice, for tests."""
        _live(self)
        return self._threads_now(), self.step_cost[0], self.step_cost[1], self.probe_in

    def _feed(self, bint many, double seconds):
        """Tell the choice that a step took `seconds` (tests drive it with made-up timings)."""
        _live(self)
        self._observe(many, seconds)

    # -- stepping ---------------------------------------------------------------------------------

    def step(self, actions):
        """Play one turn in every game: actions[i] is game i's point or pass.

        All actions are judged first; if any is refused, ``IllegalActionError`` names the games
        and reasons and no game changes. Under next-step autoreset a game that was over (or
        truncated) before the call restarts instead and its action is ignored. Returns a
        ``StepResult``."""
        cdef cnp.ndarray acts, flags, terminated, truncated, winners, reset
        cdef cnp.npy_intp dims[1]
        self._enter()
        try:
            if (type(actions) is np.ndarray and cnp.PyArray_NDIM(actions) == 1
                    and cnp.PyArray_DIM(actions, 0) == self.n
                    and cnp.PyArray_TYPE(actions) == cnp.NPY_INT64
                    and cnp.PyArray_ISCARRAY_RO(actions)):
                acts = actions      # the usual call, taken as it is: a step costs microseconds
            else:
                acts = _actions_array(actions, self.n, self.npoints)
            # the jobs read the actions twice without the GIL (judged, then played): from a
            # copy, which no other thread can change in between (the caller's array can)
            if self.own_actions is None:
                dims[0] = self.n
                self.own_actions = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT64, 0)
            memcpy(cnp.PyArray_DATA(self.own_actions), cnp.PyArray_DATA(acts),
                   <size_t>self.n * sizeof(int64_t))
            acts = self.own_actions
            # the results made by the C API: through numpy's Python calls (views of one array)
            # they cost more than the step of a small batch
            dims[0] = self.n
            flags = cnp.PyArray_EMPTY(1, dims, cnp.NPY_UINT8, 0)
            terminated = cnp.PyArray_ZEROS(1, dims, cnp.NPY_BOOL, 0)
            truncated = cnp.PyArray_ZEROS(1, dims, cnp.NPY_BOOL, 0)
            winners = cnp.PyArray_ZEROS(1, dims, cnp.NPY_INT8, 0)
            reset = cnp.PyArray_ZEROS(1, dims, cnp.NPY_BOOL, 0)
            self.job_actions = <const int64_t*>cnp.PyArray_DATA(acts)
            self.job_flags = <uint8_t*>cnp.PyArray_DATA(flags)
            self.job_res[0] = <uint8_t*>cnp.PyArray_DATA(terminated)
            self.job_res[1] = <uint8_t*>cnp.PyArray_DATA(truncated)
            self.job_res[2] = <uint8_t*>cnp.PyArray_DATA(winners)
            self.job_res[3] = <uint8_t*>cnp.PyArray_DATA(reset)
            t = self._threads_now()
            began = perf_counter()
            if self._run_step(t):
                self._observe(t > 1, perf_counter() - began)
            else:
                refused = np.flatnonzero((flags != 0) & (flags != STEP_RESET))
                if (flags[refused] == STEP_OOM).any():
                    raise MemoryError("no memory for the next turn's records")
                raise IllegalActionError(refused.tolist(), acts[refused].tolist(),
                                         [_REASONS[int(f)] if f != STEP_RANGE
                                          else _range_reason(self.npoints)
                                          for f in flags[refused]])
            if self.loaded and reset.any():
                self._forget_loaded(reset)
            return StepResult(terminated, truncated, winners, reset)
        finally:
            self.busy = False

    def reset(self, mask=None):
        """Restart the games where `mask` (bool [n]) is True, or all, from the start position."""
        cdef cnp.ndarray m
        self._enter()
        try:
            if mask is None:
                m = np.ones(self.n, dtype=np.uint8)
            else:
                mk = unmasked(mask, "mask")
                if mk.dtype != np.bool_ or mk.shape != (self.n,):
                    # (an index array is refused: cast to bools, [0, 1, 2] would restart 1 and 2)
                    raise (ValueError if mk.dtype == np.bool_ else ArgumentTypeError)(
                        f"mask must be a bool array of shape ({self.n},), got {mk.dtype} "
                        f"{mk.shape}")
                m = np.ascontiguousarray(mk, dtype=np.uint8)
            self.job_flags = <uint8_t*>cnp.PyArray_DATA(m)
            self._run(JOB_RESET, self._threads_now())
            if self.loaded:
                self._forget_loaded(m)
        finally:
            self.busy = False

    # -- reading ----------------------------------------------------------------------------------

    def legal_mask(self, out=None):
        """bool [n, points + 1]: the moves each game's player may make now (the pass last). A
        game that is over or truncated has none. `out`: a C-contiguous bool array to fill."""
        self._enter()
        try:
            out = _check_out(out, (self.n, self.npoints + 1), np.bool_)
            memcpy(cnp.PyArray_DATA(out), self.masks, <size_t>self.n * (self.npoints + 1))
            return out
        finally:
            self.busy = False

    def encode(self, encoding, out=None, dtype=None):
        """Feature planes of every game, [n, C, height, width] (row 0 at the bottom), in
        `encoding` ("agz17", "lz18", "openspiel4", "katago", "stones"; see fastgo.features for
        the planes). `out`: a C-contiguous array of that shape, dtype bool, uint8, int8, float32 or
        float64, to fill instead of allocating one of `dtype` (default float32). With `out`,
        the planes take its dtype: a `dtype` that differs is refused (ValueError)."""
        self._enter()
        try:
            if not isinstance(encoding, str) or encoding not in _ENC_CODES:
                raise ValueError(f"unknown encoding {encoding!r}; expected one of {sorted(ENCODINGS)}")
            shape = (self.n, ENCODINGS[encoding], self.height, self.width)
            if out is None:
                dt = np.dtype(np.float32 if dtype is None else dtype)
                if dt not in _DTYPES:
                    raise TypeError(f"dtype must be one of bool, uint8, int8, float32, float64, not {dt}")
                out = np.empty(shape, dtype=dt)
            else:
                if not isinstance(out, np.ndarray) or out.dtype.newbyteorder("=") not in _DTYPES:
                    raise TypeError("out must be a numpy array of bool, uint8, int8, float32 or float64")
                if not out.dtype.isnative:
                    _check_out(out, shape, out.dtype.newbyteorder("="))     # (says so)
                if dtype is not None and np.dtype(dtype) != out.dtype:
                    raise ValueError(f"dtype {np.dtype(dtype)} contradicts out's {out.dtype}: the "
                                     f"planes take out's dtype (leave dtype out)")
                out = _check_out(out, shape, out.dtype)
            self.job_encoding = _ENC_CODES[encoding]
            self.job_dtype = _DTYPES[out.dtype]
            self.job_out = <uint8_t*>cnp.PyArray_DATA(out)
            self._run(JOB_ENCODE, self._threads_now())
            return out
        finally:
            self.busy = False

    def scores(self):
        """float64 [n]: Black's points minus White's, komi included, under the rules' scoring
        (area, or territory + prisoners with no dead stones marked), as Board.score().margin."""
        self._enter()
        try:
            out = np.empty(self.n, dtype=np.float64)
            self.job_out = <uint8_t*>cnp.PyArray_DATA(out)
            self._run(JOB_SCORE, self._threads_now())
            return out
        finally:
            self.busy = False

    def winners(self):
        """int8 [n]: the winner of each game as the position stands: 1 Black, 2 White, 0 tie."""
        m = self.scores()
        return np.where(m > 0, BLACK, np.where(m < 0, WHITE, EMPTY)).astype(np.int8)

    @property
    def to_move(self):
        """int8 [n]: 1 where Black is to move, 2 where White is."""
        _idle(self)
        out = np.empty(self.n, dtype=np.int8)
        cdef int8_t[::1] v = out
        cdef int64_t i
        for i in range(self.n):
            v[i] = self.to_move_of(i)
        return out

    @property
    def terminated(self):
        """bool [n]: the game ended by two consecutive passes."""
        _idle(self)
        out = np.empty(self.n, dtype=np.bool_)
        cdef uint8_t[::1] v = out.view(np.uint8)
        cdef int64_t i
        for i in range(self.n):
            v[i] = self.over(i)
        return out

    @property
    def truncated(self):
        """bool [n]: the game reached max_moves turns without ending."""
        _idle(self)
        out = np.empty(self.n, dtype=np.bool_)
        cdef uint8_t[::1] v = out.view(np.uint8)
        cdef int64_t i
        for i in range(self.n):
            v[i] = self.capped(i) and not self.over(i)
        return out

    @property
    def move_numbers(self):
        """int64 [n]: turns played since each game's set-up, passes included."""
        _idle(self)
        out = np.empty(self.n, dtype=np.int64)
        cdef int64_t[::1] v = out
        cdef int64_t i
        for i in range(self.n):
            v[i] = self.games[i].nturns
        return out

    @property
    def hashes(self):
        """uint64 [n]: each game's Zobrist hash of the colouring (as Board.hash)."""
        _idle(self)
        out = np.empty(self.n, dtype=np.uint64)
        cdef uint64_t[::1] v = out
        cdef int64_t i
        for i in range(self.n):
            v[i] = self.state(i).hash
        return out

    def stones(self):
        """int8 [n, height, width]: each game's colouring (0 empty, 1 black, 2 white)."""
        _idle(self)
        out = np.empty((self.n, self.height, self.width), dtype=np.int8)
        cdef int8_t[:, :, ::1] v = out
        cdef int64_t i
        cdef int r, c
        cdef BoardState* b
        for i in range(self.n):
            b = self.state(i)
            for r in range(self.height):
                for c in range(self.width):
                    v[i, r, c] = b.cell[(r + 1) * b.stride + c].color
        return out

    def __len__(self):
        _live(self)
        return self.n

    @property
    def width(self):
        _live(self)
        return self.width

    @property
    def height(self):
        _live(self)
        return self.height

    @property
    def num_points(self):
        _live(self)
        return self.npoints

    @property
    def max_moves(self):
        """The cap of turns per game (truncation), or None."""
        _live(self)
        return self.max_moves or None

    @property
    def autoreset(self):
        """"next-step", "same-step" or "disabled"."""
        _live(self)
        return AUTORESET_NAMES[self.autoreset]

    @property
    def threads(self):
        """The threads asked for (None: all cores); a step runs on at most
        fastgo.playout.CORES of them, or on one while that is cheaper."""
        _live(self)
        return self.threads

    @threads.setter
    def threads(self, value):
        _idle(self)
        self.threads = _threads(value)
        self.threads_all = value is None
        self._adapt_reset()

    @property
    def state_bytes(self):
        """Bytes of C state per game now: the BoardState, the game record, the colouring ring,
        the kept legal mask, its hard points and `ready` byte, the superko filter's counts, the
        superko table and the move list (the last two grow with the game)."""
        _idle(self)
        cdef int64_t i, total = 0
        for i in range(self.n):
            total += (self.games[i].seen.cap * (sizeof(uint64_t) + sizeof(int32_t))
                      + self.games[i].cap_moves * sizeof(int16_t))
        return (self.sbytes + sizeof(Game) + self.ring_bytes + (self.npoints + 1) + 1
                + self.hard_words * sizeof(uint64_t) + 4 * (self.npoints + 1) * sizeof(int16_t)
                + total / self.n)

    # -- games as Boards --------------------------------------------------------------------------

    def _check_index(self, i):
        _live(self)
        i = _index(i, "game index")
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(f"game index out of range 0..{self.n - 1}")
        return i

    def board(self, i):
        """Game i as a ``Board``: the same set-up, rules and turns (so the same history for ko,
        superko and undo)."""
        cdef int64_t k = self._check_index(i), t
        cdef Game* g = &self.games[k]
        self._enter()
        try:
            start = self.loaded[k] if g.loaded else self.start
            b = Board.from_array(start.start_position(), to_move=start.first_player, rules=self.rules)
            for t in range(g.nturns):
                b.play(g.moves[t])
            return b
        finally:
            self.busy = False

    cdef _forget_loaded(self, restarted):
        """Drop the set-ups set() kept for the games restarted (bools or 0/1 [n]): a restarted
        game begins at the batch's start again (a set-up a game, kept after its restart, was
        6.7 KB a 19x19 game: a resource tester's finding)."""
        games = np.flatnonzero(restarted)
        if len(games) < len(self.loaded):
            for k in games.tolist():
                self.loaded.pop(k, None)
        else:
            for k in [k for k in self.loaded if restarted[k]]:
                del self.loaded[k]

    def set(self, i, board):
        """Load game i from a ``Board`` of the batch's size and rules: its set-up (handicap or
        stones), then its turns replayed, so history planes, ko and superko carry over. Under
        same-step autoreset a game that has ended (two passes, max_moves) is refused: such a
        batch restarts a game in the step that ends it."""
        if not isinstance(board, Board):
            raise TypeError(f"board must be a fastgo.Board, not {type(board).__name__}")
        # a private plain copy, read at once: another thread may play on `board` (or start a
        # Board.__new__ one) while the Python code below runs, and a refused set must leave
        # the game as it was (a thread tester's crash and finding)
        cdef Board bd = (<Board>board)._copy_as(Board, False)
        cdef int64_t k = self._check_index(i)
        cdef int point
        self._enter()
        try:
            if (bd.st.width, bd.st.height) != (self.width, self.height):
                raise ValueError(f"the board is {bd.st.width}x{bd.st.height}, the batch "
                                 f"{self.width}x{self.height}")
            # the game is read from the Board's C fields, never through its Python attributes
            # (history, rules, start_position(), first_player), which a subclass can override:
            # a history of any points was replayed unchecked into C arrays (a fuzzer's crash);
            # the rules by the fields the replay's judgement reads first, as a Rules
            # subclass's __eq__ may say anything
            if (bd.ko_rule, bd.suicide) != (self.ko_rule, self.suicide) or bd.rules != self.rules:
                raise ValueError(f"the board's rules {bd.rules} differ from the batch's {self.rules}")
            if self.max_moves and bd.nturns > self.max_moves:
                raise ValueError(f"the board has {bd.nturns} turns, over the batch's max_moves")
            if self.autoreset == AUTORESET_SAME_STEP and (
                    bd._over() or (self.max_moves and bd.nturns == self.max_moves)):
                # (step would refuse every action of it: a same-step batch restarts a game
                # in the step that ends it, so it never holds one that ended)
                raise ValueError("the board's game has ended (two passes or the batch's "
                                 "max_moves): a batch under same-step autoreset holds no ended "
                                 "game; load one still in play")
            setup = (np.zeros((bd.st.height, bd.st.width), dtype=np.int8) if bd.setup is None
                     else bd.setup)
            own_setup = (bd.first != self.start.first
                         or not np.array_equal(setup, self.start.start_position()))
            # (a game from the batch's own start keeps no copy of it: only other set-ups do)
            start = Board.from_array(setup, to_move=bd.first, rules=self.rules) if own_setup \
                else self.start
            history = [bd.turns[t].move for t in range(1, bd.nturns + 1)]
            self.load_state(k, start)
            self.games[k].loaded = own_setup
            if own_setup:
                self.loaded[k] = start
            else:
                self.loaded.pop(k, None)
            # (a Board's turns under the batch's rules are legal here: judged as a check)
            for t, point in enumerate(history):
                if self.judge(k, point):
                    self.restart(k)
                    raise RuntimeError(f"fastgo: turn {t + 1} of the board ({point}) is "
                                       f"illegal in the batch (an internal error)")
                if self.reserve(k):
                    self.restart(k)
                    raise MemoryError(f"no memory to load the game (game {k} restarted)")
                self.commit(k, point)
        finally:
            self.busy = False

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        """Pickled as its start position, its settings and each game as a ``Board`` (set-up and
        turns); unpickling replays the turns (``set``), so each game's planes' history, ko,
        superko, passes and move count are as they were: a game that ended stays ended (and
        restarts at the next step under next-step autoreset)."""
        _live(self)
        boards = [self.board(i) for i in range(self.n)]
        return _unpickle_batch, (self.start, self.max_moves, AUTORESET_NAMES[self.autoreset],
                                 None if self.threads_all else self.threads, boards)

    def copy(self):
        """An independent copy of every game (also ``copy.copy`` and ``copy.deepcopy``)."""
        cdef BoardBatch c = BoardBatch.__new__(BoardBatch)
        cdef int64_t i
        cdef Game* g
        self._enter()
        try:
            c.threads = self.threads
            c.threads_all = self.threads_all
            c._adapt_reset()
            c._allocate(self.n, self.start, self.max_moves, self.autoreset)
            # (in use until every game is copied: a signal handler that found the new batch,
            # through gc.get_objects, stepped it half-made: a thread tester's finding)
            c.busy = True
            c.loaded = dict(self.loaded)
            memcpy(c.rings, self.rings, self.ring_bytes * self.n)
            memcpy(c.masks, self.masks, <size_t>self.n * (self.npoints + 1))
            memcpy(c.hard, self.hard, <size_t>self.n * self.hard_words * sizeof(uint64_t))
            memcpy(c.spans, self.spans, <size_t>4 * self.n * (self.npoints + 1) * sizeof(int16_t))
            for i in range(self.n):
                board_copy(c.state(i), self.state(i))
                g = &c.games[i]
                hashset_free(&g.seen)
                free(g.moves)
                g[0] = self.games[i]
                g.moves = NULL
                g.cap_moves = 0
                if hashset_copy(&g.seen, &self.games[i].seen):
                    hashset_init(&g.seen, 16)
                    raise MemoryError()
                if self.games[i].cap_moves:
                    g.moves = <int16_t*>malloc(self.games[i].cap_moves * sizeof(int16_t))
                    if g.moves == NULL:
                        raise MemoryError()
                    g.cap_moves = self.games[i].cap_moves
                    memcpy(g.moves, self.games[i].moves, g.nturns * sizeof(int16_t))
                c.reserve(i)
                if i % 4096 == 4095:
                    PyErr_CheckSignals()        # (a large batch takes seconds, as __init__)
            return c
        finally:
            c.busy = False
            self.busy = False

    def __repr__(self):
        if self.games == NULL:
            return "<fastgo.BoardBatch, not initialised>"
        return (f"<fastgo.BoardBatch {self.n} games {self.width}x{self.height} "
                f"ko={self.rules.ko} autoreset={AUTORESET_NAMES[self.autoreset]}>")


def _exact_ints(actions, a, npoints):
    """A list of integers that numpy made float64 (one beyond int64 among others: [2**63, 1])
    or object (beyond uint64) as int64, its values range-checked as the ints they are; `a`, the
    array numpy made, for anything else (floats are refused as such)."""
    if a.ndim != 1 or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                              for x in actions):
        return a
    exact = np.array([int(x) for x in actions], dtype=object)
    if ((exact < 0) | (exact > npoints)).any():
        _refuse_range(exact, npoints)
    return exact.astype(np.int64)


def _check_memory(int64_t n, Board start):
    """MemoryError, before any allocation, when n games would not fit in the memory available
    now: their fixed state (the board, the colouring ring, the kept mask, its hard points and
    spans, the records' first allocations) is touched as the games start, and past what the
    machine has the kernel's OOM killer would end the process instead."""
    from fastgo.count import memory_refusal
    cdef int w = start.st.width, h = start.st.height, P = w * h + 1
    per_game = (((board_bytes(w, h) + 7) & ~<size_t>7) + HISTORY * (P - 1) + P
                + 3 * hard_words(start.st) * 8 + 4 * P * 2 + sizeof(Game) + 16 * 12)
    refusal = memory_refusal(n * per_game, f"{n} {w}x{h} games ({per_game} bytes a game, "
                                           f"more as they grow)")
    if refusal is not None:
        raise refusal


def _refuse_bools(actions):
    bad = [i for i, x in enumerate(actions) if isinstance(x, (bool, np.bool_))
           or isinstance(x, np.ndarray) and x.dtype == np.bool_]
    if bad:
        raise ValueError(f"actions must be integers, not bools (games {bad[:5]})")


def _range_reason(npoints):
    return f"out of range 0..{npoints}"


def _refuse_range(a, npoints):
    """An action that is no point and no pass is refused as the rules' refusals are (each game
    named, with its action and why), before any game is judged."""
    bad = np.flatnonzero((a < 0) | (a > npoints))
    raise IllegalActionError(bad.tolist(), [int(x) for x in a[bad]],
                             [_range_reason(npoints)] * len(bad))


def _threads(value):
    if value is None:
        from fastgo.playout import default_threads
        return default_threads()
    from fastgo.playout import _int, _MAX_THREADS
    return _int(value, "threads", 1, _MAX_THREADS)     # (as playouts and Search bound it)


def _check_out(out, shape, dtype):
    """A fresh array of `shape` and `dtype`, or `out` checked to be one (C-contiguous,
    writeable, in the machine's byte order)."""
    if out is None:
        return np.empty(shape, dtype=dtype)
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    # (aligned, writeable, in native byte order and C-contiguous: one flag test)
    if not cnp.PyArray_ISCARRAY(<cnp.ndarray>out) or out.shape != shape or out.dtype != dtype:
        raise (ArgumentTypeError if out.dtype != dtype else ValueError)(
            f"out must be a writeable C-contiguous {np.dtype(dtype)} array of shape {shape} in "
            f"native byte order, got {out.dtype} {out.shape}")
    return out


# A bool mask row read eight bytes at a time (sixteen when counting on x86-64): a word's nonzero
# bytes become 0x01 bytes, whose count is one multiply (at most 8, so no byte overflows). Loads
# are little-endian (fastgo_le64), so byte b of a word is entry 8w + b on any machine.
cdef enum:
    DRAW_WORDS = 80         # random_action's words of eight entries: rows up to 640 (25x25 + 1)

cdef extern from *:
    """
    /* random_action's count on x86-64, where SSE2 is always there: 16 entries a step, each
       byte compared with 0 and the two halves' 0/1 bytes summed (psadbw); before[w] gets the
       count before word w, for the words 0 .. 2 * pairs - 1. Returns the count after them.
       Other machines count every word in random_action's own loop (FASTGO_SSE2 0). */
    #if defined(__SSE2__) || defined(_M_X64) || defined(_M_AMD64)
    #include <emmintrin.h>
    #define FASTGO_SSE2 1
    static inline int64_t fastgo_pair_counts(const uint8_t* row, int64_t pairs, int32_t* before,
                                             int64_t count) {
        const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1);
        for (int64_t k = 0; k < pairs; k++) {
            __m128i x = _mm_loadu_si128((const __m128i*)(row + 16 * k));
            __m128i sums = _mm_sad_epu8(_mm_andnot_si128(_mm_cmpeq_epi8(x, zero), one), zero);
            before[2 * k] = (int32_t)count;
            count += _mm_cvtsi128_si32(sums);
            before[2 * k + 1] = (int32_t)count;
            count += _mm_extract_epi16(sums, 4);
        }
        return count;
    }
    #else
    #define FASTGO_SSE2 0
    static inline int64_t fastgo_pair_counts(const uint8_t* row, int64_t pairs, int32_t* before,
                                             int64_t count) {
        (void)row; (void)pairs; (void)before;
        return count;
    }
    #endif
    /* A word loaded from memory as little-endian (byte b in bits 8b .. 8b + 7). */
    static inline uint64_t fastgo_le64(uint64_t x) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        return __builtin_bswap64(x);
    #else
        return x;
    #endif
    }
    """
    bint FASTGO_SSE2
    uint64_t fastgo_le64(uint64_t x) noexcept nogil
    int64_t fastgo_pair_counts(const uint8_t* row, int64_t pairs, int32_t* before,
                               int64_t count) noexcept nogil

cdef inline uint64_t true_bytes(uint64_t w) noexcept nogil:
    """The word w with 0x01 where a byte is nonzero, 0x00 elsewhere."""
    return ((((w & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | w) >> 7) & 0x0101010101010101ULL

cdef inline int64_t ones(uint64_t w) noexcept nogil:
    """The sum of the bytes of w, each 0 or 1."""
    return <int64_t>((w * 0x0101010101010101ULL) >> 56)

cdef inline uint64_t row_word(const uint8_t* row, int64_t w) noexcept nogil:
    """true_bytes of entries 8w .. 8w + 7 of a row (all of them inside it)."""
    cdef uint64_t x
    memcpy(&x, row + 8 * w, 8)
    return true_bytes(fastgo_le64(x))

cdef uint64_t row_tail(const uint8_t* row, int64_t P) noexcept nogil:
    """true_bytes of the row's last word, entries 8 * ((P - 1) // 8) .. P - 1 (zeros beyond)."""
    cdef uint64_t x = 0
    cdef int64_t at = 8 * ((P - 1) >> 3)
    if P >= 8:      # the row's last eight bytes, shifted down past those of the word before
        memcpy(&x, row + P - 8, 8)
        return true_bytes(fastgo_le64(x) >> (8 * (8 - (P - at))))
    memcpy(&x, row + at, <size_t>(P - at))
    return true_bytes(fastgo_le64(x))

cdef inline int64_t draw_below(uint64_t s, int64_t i, int64_t count) noexcept nogil:
    """random_actions' index for row i: uniform in [0, count) by Lemire's multiply-shift with
    rejection on the splitmix64 stream of (seed, i); s is mix64(seed), mixed once a call."""
    cdef uint64_t r = mix64(s ^ (<uint64_t>i * <uint64_t>0x9E3779B97F4A7C15ULL))
    cdef uint64_t x = (r >> 32) * <uint64_t>count, t
    if (x & <uint64_t>0xFFFFFFFFULL) < <uint64_t>count:
        t = ((<uint64_t>1 << 32) - <uint64_t>count) % <uint64_t>count
        while (x & <uint64_t>0xFFFFFFFFULL) < t:
            r = mix64(r + <uint64_t>0x9E3779B97F4A7C15ULL)
            x = (r >> 32) * <uint64_t>count
    return <int64_t>(x >> 32)

cdef inline int64_t random_action(const uint8_t* row, int64_t P, uint64_t s, int64_t i) noexcept nogil:
    """random_actions' draw for row i of P entries: uniform over the nonzero entries (Lemire's
    draw_below), or P - 1 (the pass)."""
    # One pass counts the legal entries of each word, keeping the count before each word; the
    # k-th legal entry is then found without a branch (how many words begin at or before it,
    # then within its word by a running count per byte): where it lies in a row is random, and
    # loops that stop there were mispredicted about twice a row.
    cdef int32_t before[DRAW_WORDS]
    cdef int32_t k, at = 0          # 32 bits: the compiler compares several words at a time
    cdef int64_t words = (P + 7) >> 3, w, pairs, count
    cdef uint64_t word, tail
    if words > DRAW_WORDS:
        return random_action_long(row, P, s, i)
    pairs = ((words - 1) >> 1) * FASTGO_SSE2    # counted sixteen entries at a time
    count = fastgo_pair_counts(row, pairs, before, 0)
    for w in range(2 * pairs, words - 1):
        before[w] = <int32_t>count
        count += ones(row_word(row, w))
    before[words - 1] = <int32_t>count
    tail = row_tail(row, P)
    count += ones(tail)
    if count == 0:
        return P - 1
    k = <int32_t>draw_below(s, i, count)        # below count <= 8 * DRAW_WORDS
    # the word holding entry k is the last whose count before it is at most k (one with no
    # legal entry shares its count with the next word, which then counts too)
    for w in range(1, words):
        at += before[w] <= k
    k -= before[at]
    # byte b of word * 0x0101..: the legal entries among bytes 0..b (at most 8, no carries);
    # adding 0x7F - k sets the high bit exactly where that running count exceeds k
    word = (tail if at == words - 1 else row_word(row, at)) * 0x0101010101010101ULL
    word = ((word + <uint64_t>(0x7F - k) * 0x0101010101010101ULL) >> 7) & 0x0101010101010101ULL
    return 8 * <int64_t>at + 8 - ones(word)

cdef int64_t random_action_long(const uint8_t* row, int64_t P, uint64_t s, int64_t i) noexcept nogil:
    """random_action for rows longer than DRAW_WORDS words: the same draw, counted byte by
    byte."""
    cdef int64_t count = 0, j, k
    for j in range(P):
        count += row[j] != 0
    if count == 0:
        return P - 1
    k = draw_below(s, i, count)
    for j in range(P):
        if row[j]:
            if k == 0:
                return j
            k -= 1
    return P - 1


def random_actions(mask, seed=None, out=None, threads=None):
    """For each row of a legal mask [n, points + 1], an action drawn uniformly among its legal
    entries (the pass included), or the pass where none is legal (a finished game's ignored
    action). The mask is bool, or integers 0/1 (the environments' int8 action masks).
    With an int `seed` the draws are deterministic in the seed and the mask, whatever `threads`
    (the cores to use; default all): row i uses the splitmix64 stream of (seed, i). Without one
    (None) each call draws its seed from the operating system, so that a random policy's games
    differ (a fixed seed repeats a game whose masks repeat). Returns int64 [n], or fills `out`."""
    m = unmasked(mask, "mask")
    if m.dtype != np.bool_ and not np.issubdtype(m.dtype, np.integer):
        raise ArgumentTypeError(f"mask must be a bool or 0/1 integer array [n, points + 1], got "
                        f"{m.dtype} {m.shape}")
    if m.ndim != 2 or m.shape[1] < 1:
        raise ValueError(f"mask must be an array [n, points + 1], got {m.dtype} {m.shape}")
    if m.dtype != np.bool_:
        if m.size and (m.min() < 0 or m.max() > 1):
            raise ValueError(f"an integer mask holds 0 and 1 only, got values from {m.min()} "
                             f"to {m.max()}")
        m = m.view(np.bool_) if m.dtype.itemsize == 1 else m.astype(np.bool_)
    m = np.ascontiguousarray(m)
    cdef int64_t n = m.shape[0], P = m.shape[1], i
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little")
    cdef uint64_t s = mix64(<uint64_t>(_index(seed, "seed") & 0xFFFFFFFFFFFFFFFF))
    cdef int nt = _job_threads(_threads(threads), "random_actions")
    out = _check_out(out, (n,), np.int64)
    cdef const uint8_t* mk = <const uint8_t*>cnp.PyArray_DATA(m)
    cdef int64_t* o = <int64_t*>cnp.PyArray_DATA(out)
    # threads only for a mask worth waking them for: a row takes about 15 + P / 25 ns on one
    # thread here (1,024 rows of 82: 22 us; of 362: 34 us), and a second thread, asleep between
    # calls, costs about 100 us to wake and join (1,024 x 362: 48 us on one thread, 155 on
    # two; 16,384 x 82: 324 / 240); rows * (P + 400) >= 2**22 is about 180 us of work
    if nt > 1 and n * (P + 400) >= RANDOM_PARALLEL_WORK:
        # rows handed out in chunks as threads free up: with a core busy elsewhere, halves
        # fixed in advance left the call waiting for the slow one (two threads 0.67-0.91 of
        # one's speed with a CI run on the cores: a thread tester's finding)
        for i in prange(n, nogil=True, num_threads=nt, schedule="dynamic", chunksize=256):
            o[i] = random_action(mk + i * P, P, s, i)
    else:
        with nogil:
            for i in range(n):
                o[i] = random_action(mk + i * P, P, s, i)
    return out
