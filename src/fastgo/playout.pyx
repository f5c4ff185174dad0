# cython: language_level=3, binding=True, embedsignature=True
"""Random playouts and bulk simulation at C speed: ``playouts`` and ``simulate``.

The kernel (``fastgo/playout.pxd``) plays each game in C without the GIL; a run is split over
OpenMP threads, and playout i draws from its own generator seeded by (seed, i), so the results
are the same whatever the number of threads.
"""

import operator
import os
import time
import warnings

import numpy as np

from fastgo.errors import Slotted
cimport numpy as cnp

cdef extern from *:
    """
    /* OpenMP's thread count, or 1 in a single-threaded build (setup.py: FASTGO_OPENMP=0) */
    #ifdef _OPENMP
    #include <omp.h>
    static int fastgo_max_threads(void) { return omp_get_max_threads(); }
    #define FASTGO_HAS_OPENMP 1
    #else
    static int fastgo_max_threads(void) { return 1; }
    #define FASTGO_HAS_OPENMP 0
    #endif
    """
    int fastgo_max_threads() nogil
    int FASTGO_HAS_OPENMP
from cython.parallel cimport prange, threadid
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint64_t, uintptr_t
from libc.stdlib cimport malloc, calloc, free
from cpython.exc cimport PyErr_CheckSignals

from fastgo.core cimport *
from fastgo.board cimport Board
from fastgo.board import Board as _Board, _KO_CODES
from fastgo.coords import _index
from fastgo.rules import KO_RULES as _RULES_KO

cnp.import_array()

#: the playouts' ko= choices: the board's own rule, or one of fastgo.rules.KO_RULES
KO_CHOICES = ("rules",) + _RULES_KO


def ko_choice(ko):
    """`ko` (a str, numpy's included) as a plain str when it is one of KO_CHOICES, else
    ValueError."""
    if not isinstance(ko, str) or ko not in KO_CHOICES:
        raise ValueError(f"ko must be one of {', '.join(map(repr, KO_CHOICES))}, not {ko!r}")
    return str.__str__(ko)      # (its text: str() of a str Enum member is the member's name)

_MAX_MOVES = 1_000_000
_MAX_THREADS = 1024

cdef enum:
    _CHUNK = 64         # playouts a thread takes at a time: its results fill whole cache lines
                        # (chunks of 8 shared the lines of winners, lengths and capped between
                        # the threads, every playout)
    _BLOCK = 2048       # playouts between two checks for Ctrl-C on one thread; 4 times that
                        # a thread with more (a block's last chunk waits for the slowest)


ctypedef struct Run:
    # everything one playout of a run reads and writes
    const BoardState* start
    const PlayoutSpec* spec
    PlayoutScratch** scratch    # one per thread
    uint64_t seed
    int64_t first               # playout i of this call is playout first + i of the run
    int8_t* owner               # npoints per thread (ostride apart), or NULL
    int64_t* owner_sum          # npoints per thread (ostride apart)
    int npoints
    int ostride                 # npoints rounded up to 64: the threads' rows share no cache line
                                # (the rows start on 64-byte boundaries)
    int32_t* slot               # playout index -> 1 + row of `moves`, or 0; NULL: none recorded
    int16_t* moves
    int cap
    double* scores
    int8_t* winners
    int32_t* lengths
    uint8_t* capped


cdef inline void _one(const Run* r, int64_t i, int tid) noexcept nogil:
    """Playout i of the run, on thread tid; the results go to index i."""
    cdef PlayoutOutcome oc
    cdef int8_t* own = r.owner + tid * r.ostride if r.owner != NULL else NULL
    cdef int16_t* mv = NULL
    cdef int j
    cdef int64_t* sums
    if r.slot != NULL and r.slot[i] > 0:
        mv = r.moves + <int64_t>(r.slot[i] - 1) * r.cap
    playout_run(r.scratch[tid], r.start, r.spec, playout_seed(r.seed, r.first + i), &oc, mv, own)
    r.scores[i] = oc.score
    r.winners[i] = <int8_t>oc.winner
    r.lengths[i] = oc.turns
    r.capped[i] = oc.capped
    if own != NULL:
        sums = r.owner_sum + tid * r.ostride
        for j in range(r.npoints):
            sums[j] += (own[j] == BLACK) - (own[j] == WHITE)


# Scratches kept between calls of `playouts` (a call of a few playouts spent more on making its
# scratch, 28 KB of it zeroed, than on playing): taken and given back with the GIL held, which
# guards the pool; only tables of at most _POOL_SLOTS slots are kept (about 110 KB a scratch).
cdef enum:
    _POOL = 64
    _POOL_SLOTS = 1 << 13         # (the default cap's table on every size up to 25x25)
cdef PlayoutScratch* _pool[_POOL]
cdef int _pooled = 0


cdef PlayoutScratch* _scratch_take(int max_moves) noexcept:
    """A scratch for playouts of at most max_moves turns: a kept one whose table has the size
    scratch_new would give, else a new one (NULL when out of memory)."""
    global _pooled
    cdef int64_t slots = scratch_slots(max_moves)
    cdef int k
    cdef PlayoutScratch* s
    for k in range(_pooled - 1, -1, -1):
        s = _pool[k]
        if s.mask + 1 == slots:
            _pooled -= 1
            _pool[k] = _pool[_pooled]
            s.max_moves = max_moves     # (the table was sized for it: the same slots)
            return s
    return scratch_new(max_moves)


cdef void _scratch_give(PlayoutScratch* s) noexcept:
    """Keep s for a later call, or free it (NULL: nothing)."""
    global _pooled
    if s != NULL and _pooled < _POOL and s.mask + 1 <= _POOL_SLOTS:
        _pool[_pooled] = s
        _pooled += 1
    else:
        scratch_free(s)


#: Whether this build runs kernels on OpenMP threads (False: built with FASTGO_OPENMP=0, every
#: ``threads`` runs on one core with the same results).
OPENMP = bool(FASTGO_HAS_OPENMP)

_forked = False


def _after_fork_in_child():
    # OpenMP's thread pool does not survive fork(): a forked child runs on one thread
    global _forked
    _forked = True


os.register_at_fork(after_in_child=_after_fork_in_child)


def _available_cores():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


#: The cores this process may run on (its CPU affinity when fastgo was imported). No job starts
#: more threads than this: more only take turns on the same cores, and every thread a job waits
#: for (a sweep's round, a batch's step, a search's end) is then one that is not running.
CORES = _available_cores()


def _job_threads(int t, what):
    """The threads a job asked to run on t threads starts: at most CORES, and one (with a
    RuntimeWarning) in a forked child (OpenMP's thread pool does not survive fork(): a parallel
    region there hangs, out of reach of Ctrl-C). Checked when a job starts, so that an object
    made before the fork is covered too. Results never depend on it."""
    if t > 1 and _forked:
        warnings.warn(f"{what} runs on one thread in a forked process", RuntimeWarning)
        return 1
    return min(t, CORES)


def default_threads():
    """The number of threads a run (of playouts, or of fastgo.count's kernels) uses by default:
    OpenMP's (all cores, or OMP_NUM_THREADS), at most CORES; 1 in a forked child process
    (OpenMP's threads do not survive fork: a child that starts a parallel region after its
    parent ran one hangs)."""
    return 1 if _forked else min(max(1, fastgo_max_threads()), CORES)


class Playouts(Slotted):
    """The results of a batch of playouts; arrays are indexed by playout.

    scores    float64[n]: Black's points minus White's, komi included, under the rules' scoring
    winners   int8[n]: 1 Black won, 2 White won, 0 a tie
    lengths   int32[n]: turns each playout played, passes included
    capped    bool[n]: stopped by the cap of turns instead of by two passes
    ownership float64[height, width]: mean over the playouts of +1 (Black owns the point at the
              end), -1 (White owns it) or 0; None unless asked for
    moves     list of int32 arrays: the turns of the recorded playouts (points, pass = width *
              height), in the order of ``recorded``, their indices
    seconds   wall time of the run; threads: the threads it used
    """

    __slots__ = ("scores", "winners", "lengths", "capped", "ownership", "moves", "recorded",
                 "seconds", "threads")

    def __init__(self, scores, winners, lengths, capped, ownership, moves, recorded, seconds,
                 threads):
        self.scores = scores
        self.winners = winners
        self.lengths = lengths
        self.capped = capped
        self.ownership = ownership
        self.moves = moves
        self.recorded = recorded
        self.seconds = seconds
        self.threads = threads

    def __len__(self):
        return len(self.scores)

    @property
    def black_wins(self):
        """The share of playouts Black won (ties count half)."""
        n = len(self.scores)
        return float(np.count_nonzero(self.winners == 1) + 0.5 * np.count_nonzero(self.winners == 0)) / n if n else float("nan")

    @property
    def mean_length(self):
        return float(self.lengths.mean()) if len(self.lengths) else float("nan")

    def __repr__(self):
        n = len(self.scores)
        if not n:
            return "<Playouts: none>"
        return (f"<Playouts n={n}: black wins {100 * self.black_wins:.1f}%, mean score "
                f"{self.scores.mean():+.2f}, mean length {self.mean_length:.1f} turns, "
                f"{int(self.capped.sum())} capped; {self.seconds:.3f} s on {self.threads} threads>")


def _seed(value):
    """A seed: an int between -2**1000 and 2**1000 (a bound for sanity: a seed is taken modulo
    2**64 where it is used), as a Python int."""
    return _int(value, "seed", -2**1000, 2**1000,
                "an int between -2**1000 and 2**1000 (it is taken modulo 2**64)")


cpdef object _int(object value, object name, object lo, object hi, object bounds=None):
    """`value` as a Python int in lo..hi: TypeError for a bool or a non-integer (as
    ``coords._index``), ValueError out of range (saying `bounds`, when given, instead of the
    two numbers)."""
    if type(value) is int and lo <= value <= hi:       # the common case, without a call
        return value
    v = _index(value, name)
    if not lo <= v <= hi:
        if bounds is not None:
            raise ValueError(f"{name} must be {bounds}")
        raise ValueError(f"{name} must be between {lo} and {hi}, got {v}")
    return v


cpdef tuple _prisoners(object value):
    """`prisoners=`: (black, white), the stones each colour took in the earlier parts of a game
    resumed after two passes (``fastgo.sgf.prisoners``), each an int in 0..2**24 (more than any
    game takes; the C score adds them to counts of points)."""
    cdef object b, w
    if type(value) is tuple and len(<tuple>value) == 2:    # the common case, without calls
        b, w = value
        if type(b) is int and type(w) is int and 0 <= b <= 2**24 and 0 <= w <= 2**24:
            return value
    if isinstance(value, (str, bytes)):
        raise TypeError("prisoners must be a pair of ints (black, white), not a string")
    try:
        black, white = value
    except (TypeError, ValueError):
        raise TypeError("prisoners must be a pair of ints (black, white), "
                        f"not {type(value).__name__}") from None
    return (_int(black, "prisoners' black count", 0, 2**24),
            _int(white, "prisoners' white count", 0, 2**24))


#: the playout policies by name (see ``playouts``)
POLICIES = {"uniform": POLICY_UNIFORM, "heavy": POLICY_HEAVY}


def policy_code(policy):
    """The kernel's code of a playout policy name ("uniform" or "heavy")."""
    if not isinstance(policy, str) or policy not in POLICIES:
        raise ValueError(f"policy must be 'uniform' or 'heavy', not {policy!r}")
    return POLICIES[policy]


def _recorded(record, n):
    """The sorted indices of the playouts whose moves are kept."""
    if type(record) is int and record == 0:        # the default, at once
        return range(0)
    if isinstance(record, (bool, np.bool_)):
        raise TypeError("record must be a count or a sequence of playout indices, not a bool")
    try:
        k = operator.index(record)
    except TypeError:
        pass
    else:
        if k < 0:
            raise ValueError(f"record must be >= 0, got {k}")
        return range(min(k, n))         # (not made into a list: a count may be huge)
    if isinstance(record, range) and record.step > 0:       # sorted and distinct already
        if len(record) and not n:
            raise ValueError("no playout to record: n is 0")
        if len(record):
            _int(record[0], "a recorded playout index", 0, n - 1)
            _int(record[-1], "a recorded playout index", 0, n - 1)
        return record
    if isinstance(record, (str, bytes)) or not hasattr(record, "__iter__"):
        raise TypeError(f"record must be a count or a sequence of playout indices, not {type(record).__name__}")
    idx = sorted({_int(i, "a recorded playout index", 0, n - 1) for i in record}) if n else []
    if not n and len(list(record)):
        raise ValueError("no playout to record: n is 0")
    return idx


def _check_record_memory(nrec, cap, count):
    """MemoryError before the moves of `nrec` recorded playouts (up to `cap` turns each, int16)
    and the slot table are allocated, when they would not fit in the memory available now (past
    it the kernel's OOM killer would end the process as the run fills them)."""
    from fastgo.count import memory_refusal
    refusal = memory_refusal(nrec * max(cap, 1) * 2 + count * 4,
                             f"the moves of {nrec} recorded playouts of up to {cap} turns")
    if refusal is not None:
        raise refusal


def playouts(board, n=1, *, seed=0, threads=None, ko="rules", max_moves=None, ownership=False,
             record=0, first=0, policy="uniform", prisoners=(0, 0)):
    """Play `n` random games to the end from `board`'s position (the board is not changed) and
    score them.

    The policy: each turn the mover plays a point drawn uniformly from those it may play (legal
    under the rules and the playout's ko rule, not a one-point eye of its own, not a one-stone
    suicide), and passes when there is none; two consecutive passes end the game (a pass that
    ended the board's game so far counts). The eye: every on-board orthogonal neighbour is the
    mover's stone, and fewer than two diagonal points hold opponent stones (none on the edge or
    in a corner). Scoring: the rules' (area: stones + empty points reaching only that colour;
    territory: those empty points + prisoners), komi to White. prisoners: (black, white), the
    stones each colour took in the earlier parts of a game resumed after two passes (a new
    Board holds only its own part's, ``fastgo.sgf.prisoners`` counts the others'); territory
    scoring adds them.

    seed: an int between -2**1000 and 2**1000, taken modulo 2**64; the same seed gives the same
    results whatever `threads`.
    first: the index of this call's first playout in the run seeded `seed`: playout k of the call
    is playout first + k of the run, so calls over [0, a) and [a, b) give exactly the playouts of
    one call over [0, b) (how ``fastgo.cluster`` cuts a run into chunks).
    threads: OpenMP threads (default: all cores; one in a process forked after playouts ran).
    ko: "rules" (the board's rule; superko is judged exactly, against the whole game),
    "simple", "positional" or "situational". max_moves: the cap of turns per playout (default
    3 x points, at least 1000: thin and tiny boards run long); capped playouts are scored as they
    stand and flagged. ownership: also average who owns each point at the end (NaN when n is 0).
    record: keep the moves of the first `record` playouts, or of the playouts with the given
    indices. The run can be interrupted (Ctrl-C) between blocks of playouts.
    policy: "uniform" (above) or "heavy": before the uniform draw, look at the
    opponent's last play; if its chain is in atari, or one of the mover's chains next to it is,
    play an allowed capture or escape (the liberty of the chain in atari; for the mover's chain
    its liberty when that point has two or more empty neighbours, or the last liberty of an
    opponent chain in atari touching it), drawn uniformly among them; otherwise the uniform
    draw, made once more when it would join a chain of the mover and leave it one liberty
    without capturing (see ``heavy_pick`` in playout.pxd).
    Returns ``Playouts``.
    """
    if not isinstance(board, Board):
        raise TypeError(f"board must be a fastgo.Board, not {type(board).__name__}")
    cdef Board bd
    # every argument first: their user code (__index__, iterators) runs before the board is read
    cdef int64_t count = _int(n, "n", 0, 2**31 - 1)
    cdef uint64_t seed64 = _seed(seed) % 2**64
    cdef int64_t first64 = _int(first, "first", 0, 2**62)
    cdef int policy_id = policy_code(policy)
    earlier_black, earlier_white = _prisoners(prisoners)
    cdef int nthreads = default_threads() if threads is None else _job_threads(
        _int(threads, "threads", 1, _MAX_THREADS), "fastgo.playouts")
    max_moves = None if max_moves is None else _int(max_moves, "max_moves", 0, _MAX_MOVES)
    ko = ko_choice(ko)
    if not isinstance(ownership, (bool, np.bool_)):
        raise TypeError(f"ownership must be a bool, not {type(ownership).__name__}")
    cdef bint want_owner = ownership
    recorded = _recorded(record, count)
    cdef int64_t nrec = len(recorded)
    # then a private plain copy, read at once: nothing another thread does to `board` from here
    # on (a Board.__new__ one initialised meanwhile, while the memory check below reads a file)
    # reaches the playouts, which run on it without the GIL
    bd = (<Board>board)._copy_as(Board, False)
    cdef int npoints = bd.npoints
    cdef int cap = max(3 * npoints, 1000) if max_moves is None else max_moves
    if nrec:
        _check_record_memory(nrec, cap, count)
    cdef int ko_rule = bd.ko_rule if ko == "rules" else _KO_CODES[ko]
    # threads take chunks of _CHUNK playouts (of 8 in a short run, where a chunk's wait at
    # the end would cost more than its shared cache lines): more threads than chunks would
    # only wait
    cdef int chunk = _CHUNK if count >= 16 * _CHUNK * nthreads else 8
    nthreads = max(1, min(nthreads, <int>((count + chunk - 1) // chunk)))
    cdef int ostride = (npoints + 63) & ~63

    cdef cnp.npy_intp dims[1]
    dims[0] = count
    scores = cnp.PyArray_EMPTY(1, dims, cnp.NPY_FLOAT64, 0)    # (np.empty, without its parsing)
    winners = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT8, 0)
    lengths = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
    capped = cnp.PyArray_EMPTY(1, dims, cnp.NPY_BOOL, 0)
    cdef double* score_p = <double*>cnp.PyArray_DATA(scores)
    cdef int8_t* winner_p = <int8_t*>cnp.PyArray_DATA(winners)
    cdef int32_t* length_p = <int32_t*>cnp.PyArray_DATA(lengths)
    cdef uint8_t* capped_p = <uint8_t*>cnp.PyArray_DATA(capped)

    cdef PlayoutSpec spec
    cdef HashSet own_seen
    cdef const BoardState* start = bd.st
    cdef PlayoutScratch** scratch = NULL
    cdef int8_t* owner = NULL
    cdef int64_t* owner_sum = NULL
    cdef void* owner_raw = NULL
    cdef void* sum_raw = NULL
    cdef int32_t* slot = NULL
    cdef int16_t* moves = NULL
    cdef int64_t i, j, t, lo, hi
    cdef Run run
    spec_from_board(&spec, bd, ko_rule, cap, &own_seen)
    spec.policy = policy_id
    spec.prisoners[BLACK] = earlier_black
    spec.prisoners[WHITE] = earlier_white
    try:
        scratch = <PlayoutScratch**>calloc(nthreads, sizeof(PlayoutScratch*))
        if scratch == NULL:
            raise MemoryError()
        for t in range(nthreads):
            scratch[t] = _scratch_take(cap)
            if scratch[t] == NULL:
                raise MemoryError()
        if want_owner:
            # on 64-byte boundaries (malloc's are 16): each thread's rows its own cache lines
            owner_raw = malloc(nthreads * ostride * sizeof(int8_t) + 63)
            sum_raw = calloc(nthreads * ostride * sizeof(int64_t) + 63, 1)
            if owner_raw == NULL or sum_raw == NULL:
                raise MemoryError()
            owner = <int8_t*>((<uintptr_t>owner_raw + 63) & ~(<uintptr_t>63))
            owner_sum = <int64_t*>((<uintptr_t>sum_raw + 63) & ~(<uintptr_t>63))
        if nrec:
            # zeros from calloc: the pages of a large run are touched only where read (a loop
            # writing -1 everywhere took seconds, deaf to Ctrl-C, for 2**31 playouts)
            slot = <int32_t*>calloc(count, sizeof(int32_t))
            moves = <int16_t*>malloc(nrec * max(cap, 1) * sizeof(int16_t))
            if slot == NULL or moves == NULL:
                raise MemoryError()
            for j, i in enumerate(recorded):
                slot[i] = <int32_t>(j + 1)

        run.start = start
        run.spec = &spec
        run.scratch = scratch
        run.seed = seed64
        run.first = first64
        run.owner = owner
        run.owner_sum = owner_sum
        run.npoints = npoints
        run.ostride = ostride
        run.slot = slot
        run.moves = moves
        run.cap = cap
        run.scores = score_p
        run.winners = winner_p
        run.lengths = length_p
        run.capped = capped_p
        t0 = time.perf_counter()
        lo = 0
        while lo < count:       # in blocks, so that Ctrl-C is seen between them
            hi = min(count, lo + _BLOCK * (1 if nthreads == 1 else 4 * nthreads))
            with nogil:
                if nthreads == 1:       # no OpenMP region: nothing to start or join
                    for i in range(lo, hi):
                        _one(&run, i, 0)
                else:
                    for i in prange(lo, hi, num_threads=nthreads, schedule="dynamic",
                                    chunksize=chunk):
                        _one(&run, i, threadid())
            PyErr_CheckSignals()
            lo = hi
        seconds = time.perf_counter() - t0

        own_mean = None
        if want_owner:
            sums = np.zeros(npoints, dtype=np.float64)
            for t in range(nthreads):
                sums += np.asarray(<int64_t[:npoints]>(owner_sum + t * ostride))
            own_mean = (sums / count if count else np.full(npoints, np.nan)).reshape(start.height, start.width)
        games = []
        for j, i in enumerate(recorded):
            games.append(np.asarray(<int16_t[:length_p[i]]>(moves + j * cap)).astype(np.int32)
                         if length_p[i] else np.empty(0, dtype=np.int32))
        return Playouts(scores, winners, lengths, capped, own_mean, games, list(recorded), seconds,
                        nthreads)
    finally:
        if scratch != NULL:
            for t in range(nthreads):
                _scratch_give(scratch[t])
        free(scratch)
        free(owner_raw)
        free(sum_raw)
        free(slot)
        free(moves)
        hashset_free(&own_seen)


def simulate(n, width=9, height=None, *, rules=None, komi=None, handicap=0, seed=0, threads=None,
             ko="rules", max_moves=None, ownership=False, record=0, first=0, policy="uniform"):
    """Play `n` random games from the empty board of the given size and rules (a ``Rules`` or a
    preset name; `komi` and `handicap` as for ``Board``) and score them: ``playouts`` from a new
    ``Board`` (a new game took no prisoners). Returns ``Playouts``."""
    board = _Board(width, height, rules=rules, komi=komi, handicap=handicap)
    return playouts(board, n, seed=seed, threads=threads, ko=ko, max_moves=max_moves,
                    ownership=ownership, record=record, first=first, policy=policy)
