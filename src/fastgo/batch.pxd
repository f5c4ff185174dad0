# cython: language_level=3
"""The C-level view of ``fastgo.BoardBatch``: n games of one size and rule set in C memory.

Each game is a ``BoardState`` (allocated through ``board_bytes``/``board_clear``, copied with
``board_copy``), a ``Game`` record (turn count, move list, superko memory) and a ring of its last
``HISTORY`` colourings for the history feature planes (``planes.encode_planes`` writes the planes
from them). Legality is ``core.judge_move``, the judgement ``Board`` uses, so a batch game and a
``Board`` under the same rules agree on every move.
"""

cimport cython
from libc.stdint cimport uint8_t, int16_t, int32_t, int64_t, uint32_t, uint64_t
from fastgo.core cimport BoardState, HashSet
from fastgo.board cimport Board

from fastgo.planes cimport HISTORY     # colourings each game remembers for the history planes


ctypedef struct Game:
    int64_t nturns          # turns played since the set-up, passes included
    int64_t cap_moves       # entries allocated at `moves`
    int16_t* moves          # moves[k]: public point of turn k + 1 (the pass = width * height)
    uint64_t ko_hash        # colouring before the opponent's last turn (meaningful when nturns >= 1)
    HashSet seen            # superko memory: the key of the set-up and of every turn (unused
                            # under the simple ko rule)
    int32_t stones[3]       # stones[c]: stones of colour c on the board now
    int32_t first           # colour to move at the set-up
    int32_t passes          # consecutive passes at the end of the turns so far (2: game over)
    int32_t loaded          # 1 when set() loaded this game from a Board with its own set-up
    int32_t vetoed          # the kept mask may hold a 0 for a hard point with a liberty (core.judge_hard)


@cython.final                   # no subclass: the methods below are called directly (and inlined)
cdef class BoardBatch:
    cdef int64_t n                  # games
    cdef int width, height, npoints
    cdef int ko_rule
    cdef bint suicide
    cdef bint territory             # territory scoring (else area)
    cdef double komi
    cdef int64_t max_moves          # turn cap (truncation); 0: none
    cdef int autoreset              # AUTORESET_* code
    cdef int threads                # the most threads a call uses
    cdef bint threads_all           # `threads` was asked as None (all cores): so it pickles
    # step's choice between one thread and `threads` (see _observe): the measured seconds a
    # game's turn costs on one thread [0] and on `threads` [1] (moving averages; 0: unmeasured),
    # the setting in use, steps until the other one is tried again, the gap between tries, and
    # the steps left in a try
    cdef double step_cost[2]
    cdef bint use_many
    cdef int64_t probe_in
    cdef int64_t probe_gap
    cdef int probing
    cdef int settle                 # steps still to pass unmeasured after a change of setting
    cdef size_t sbytes              # bytes from one game's BoardState to the next
    cdef char* states               # n BoardStates
    cdef Game* games
    cdef size_t ring_bytes          # HISTORY * npoints: one game's colouring ring
    cdef uint8_t* rings             # ring slot (t % HISTORY) holds the colouring after turn t by
                                    # public point
    cdef uint8_t* masks             # masks[i * (npoints + 1) + a]: 1 when game i may make action a
                                    # now (judge_move == LEGAL; none once over or capped), made by
                                    # commit and load_state while the game's memory is in cache,
                                    # so legal_mask is a copy and step's check a byte read
    cdef uint8_t* ready             # ready[i]: 1 when game i's records have room for its next
                                    # turn (reserve), so that step's check of a turn the mask
                                    # allows reads two bytes
    cdef void* blocks               # the parallel jobs' claims, one block a thread (_run)
    cdef int nblocks
    cdef int hard_words             # 3 * core.hard_words: a game's three-part hard-point bitset
    cdef uint32_t s_inv             # core.stride_inverse of the boards' stride (core.public_of)
    cdef uint64_t* hard             # hard + i * hard_words: game i's hard points (core.judge_mask)
    cdef int16_t* spans             # superko rules: at spans + 2 * ((2 * i + c - 1) * (npoints + 1) + x),
                                    # the fewest and the most stones of the other colour in the
                                    # colourings of game i's superko memory with x stones of
                                    # colour c (INT16_MAX, -1: none); a filter in front of the
                                    # memory (fresh)
    cdef readonly object rules
    cdef Board start                # the position every reset returns to (empty or handicap)
    cdef object loaded              # dict: game index -> Board at the set-up set() loaded
    cdef bint busy                  # a call that runs jobs or follows the games' pointers
                                    # is under way (it may have released the GIL): another
                                    # thread's call is refused (_enter)
    # the arguments of the parallel loop's jobs (see _work)
    cdef object own_actions         # int64 [n]: step's copy of the actions, judged and played
                                    # (the caller's array may change while the GIL is released)
    cdef const int64_t* job_actions
    cdef uint8_t* job_flags
    cdef uint8_t* job_out
    cdef uint8_t* job_res[4]        # step: terminated, truncated, winners, reset (n bytes each)
    cdef int job_dtype
    cdef int job_encoding

    cdef inline BoardState* state(self, int64_t i) noexcept nogil:
        return <BoardState*>(self.states + <size_t>i * self.sbytes)

    cdef inline int to_move_of(self, int64_t i) noexcept nogil:
        cdef Game* g = &self.games[i]
        return g.first ^ (3 * <int>(g.nturns & 1))     # BLACK ^ 3 == WHITE; no branch

    cdef inline bint over(self, int64_t i) noexcept nogil:
        return self.games[i].passes >= 2

    cdef inline bint capped(self, int64_t i) noexcept nogil:
        return self.max_moves > 0 and self.games[i].nturns >= self.max_moves

    cdef int judge(self, int64_t i, int point) noexcept nogil
    cdef _allocate(self, int64_t n, Board start, int64_t cap, int autoreset)
    cdef int reserve(self, int64_t i) noexcept nogil
    cdef bint has_room(self, int64_t i) noexcept nogil
    cdef void commit(self, int64_t i, int point) noexcept nogil
    cdef void ring_colouring(self, int64_t i) noexcept nogil
    cdef int colourings(self, int64_t i, uint8_t* out) noexcept nogil
    cdef void restart(self, int64_t i) noexcept nogil
    cdef void load_state(self, int64_t i, Board board) noexcept nogil
    cdef double margin(self, int64_t i) noexcept nogil
    cdef void update_mask(self, int64_t i, int p, const int16_t* freed, int gone) noexcept nogil
    cdef int fresh(self, int64_t i) noexcept nogil
    cdef void tally(self, int64_t i) noexcept nogil
    cdef void refresh_mask(self, int64_t i) noexcept nogil
    cdef void prefetch_turn(self, int64_t i, int point) noexcept nogil
    cdef void _work(self, int job, int64_t i) noexcept nogil
    cdef void _run(self, int job, int t) noexcept
    cdef bint _parallel(self, int t) noexcept nogil
    cdef void _drain(self, int job, int me, int t) noexcept nogil
    cdef bint _judge_all(self, bint prefetch) noexcept nogil
    cdef bint _run_step(self, int t) noexcept
    cdef void _observe(self, bint many, double seconds) noexcept
    cdef void _adapt_reset(self) noexcept
    cdef void _release(self) noexcept
    cdef int _threads_now(self) except -1
    cdef int _enter(self) except -1
    cdef _forget_loaded(self, restarted)
