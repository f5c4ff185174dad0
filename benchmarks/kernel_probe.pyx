# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""What limits the playout kernel's speed: the kernel's own move choice and play (playout_pick,
board_play from fastgo's .pxd files) in a plain turn loop, with probes around it. Built and run by
kernel_probe.py, which says what each probe shows.

- lanes > 1: that many playouts in one thread, one turn of each in turn (independent games give
  a core's out-of-order engine independent work to overlap: a gain would mean the kernel waits
  on chains of dependent loads and stores);
- pad: per turn, `pad` blocks of 40 independent additions (4 chains of 10), which change nothing:
  what an instruction costs at the margin;
- branches: per turn, that many conditional branches on a fresh random bit (half mispredicted):
  what a mispredicted branch costs;
- verdict 1: the simple-ko verdict on every drawn point computed without a branch (free, or next
  to an own stone and not a true eye, or a capture judged in full), one branch on the result;
  verdict 2: the same after the kernel's own early test of a free point.

Simple ko, suicide allowed, komi 7.5, from the empty board; playout i is seeded as
fastgo.playouts(..., seed=1) seeds it, so with lanes, pad and branches only the time changes."""

from libc.stdint cimport int64_t, uint64_t, int16_t, uint16_t
from fastgo.core cimport *
from fastgo.playout cimport *


cdef extern from *:
    """
    static inline void probe_pad(void) {
        unsigned long a = 0, b = 0, c = 0, d = 0;
        __asm__ volatile(".rept 10\\n\\tadd $1, %0\\n\\tadd $1, %1\\n\\tadd $1, %2\\n\\tadd $1, %3\\n\\t.endr"
                         : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
    }
    static inline int probe_branch(unsigned long bit) {
        int x = 0;
        __asm__ volatile("test $1, %1\\n\\tjz 1f\\n\\tadd $1, %0\\n1:" : "+r"(x) : "r"(bit));
        return x;
    }
    """
    void probe_pad() noexcept nogil
    int probe_branch(uint64_t bit) noexcept nogil


ctypedef struct Lane:
    PlayoutScratch* s
    uint64_t rng
    int colour, passes, turns
    bint has_ko
    uint64_t ko_hash


cdef inline bint true_eye(const BoardState* b, int p, int colour, int n) noexcept nogil:
    """is_own_eye's diagonal test, for a point whose neighbours are the mover's stones or walls."""
    cdef int s = b.stride, opp = 3 - colour, bad
    cdef const Cell* c = b.cell
    bad = ((c[(p - s - 1) * (p - s - 1 > 0)].color == opp) + (c[p - s + 1].color == opp) +
           (c[p + s - 1].color == opp) + (c[p + s + 1].color == opp))
    return bad < 2 - (((n >> (4 * colour)) & 0xF) != 0xF)


cdef inline int verdict_pick(PlayoutScratch* s, const PlayoutSpec* g, uint64_t* rng, int colour,
                             bint has_ko, uint64_t ko_hash, bint early) noexcept nogil:
    """playout_pick under simple ko with the verdict computed without branches (see above): the
    same draws, the same choice."""
    cdef BoardState* b = s.board
    cdef int16_t* empty = empty_list(b)
    cdef uint16_t* nbr = nbr_masks(b)
    cdef int k = b.num_empty, i, p, q, n, own, oppb, last, opp = 3 - colour
    cdef bint free, ownany, ok, suicide = g.suicide
    while k:
        i = <int>rng_below(rng, <uint32_t>k)
        p = empty[i]
        n = nbr[p]
        if early and (n & NBR_EMPTY):
            return p
        free = (n & NBR_EMPTY) != 0
        own = (n >> (4 * colour)) & 0xF
        oppb = (n >> (4 * opp)) & 0xF
        ownany = own != 0
        last = last_liberty_sides(b, p)
        ok = free | (ownany & (suicide | ((oppb & last) != 0) | ((own & ~last) != 0)) &
                     ~((oppb == 0) & true_eye(b, p, colour, n)))
        if ok:
            return p
        if (not free) & (not ownany) & ((oppb & last) != 0):       # a capture: a ko retake?
            if simple_ko_allows(b, p, colour, suicide, has_ko, ko_hash):
                return p
        k -= 1
        q = empty[k]
        empty[i] = <int16_t>q
        b.cell[q].next = <int16_t>i
        empty[k] = <int16_t>p
        b.cell[p].next = <int16_t>k
    return 0


cdef inline bint turn(Lane* L, const PlayoutSpec* g, int pad, int branches, int verdict,
                      uint64_t* sink) noexcept nogil:
    """One turn of L's game; False when the game is over."""
    cdef BoardState* b = L.s.board
    cdef uint64_t before = b.hash
    cdef int p, k
    for k in range(pad):
        probe_pad()
    for k in range(branches):
        sink[0] += probe_branch(L.rng >> (40 + k))
    if verdict:
        p = verdict_pick(L.s, g, &L.rng, L.colour, L.has_ko, L.ko_hash, verdict == 2)
    else:
        p = playout_pick(L.s, g, &L.rng, L.colour, L.has_ko, L.ko_hash)
    if p:
        board_play(b, NULL, p, L.colour)
        L.passes = 0
    else:
        L.passes += 1
    L.has_ko = True
    L.ko_hash = before
    L.colour = 3 - L.colour
    L.turns += 1
    return L.passes < 2 and L.turns < g.max_moves


cdef void probe_spec(PlayoutSpec* g, int size) noexcept:
    """fastgo.playouts' spec for an empty board under Tromp-Taylor with simple ko in the
    playouts."""
    g.to_move = BLACK
    g.passes = 0
    g.ko_rule = KO_SIMPLE
    g.suicide = True
    g.territory = False
    g.has_ko_hash = False
    g.ko_hash = 0
    g.seen = NULL
    g.komi = 7.5
    g.max_moves = max(3 * size * size, 1000)
    g.policy = POLICY_UNIFORM
    g.last_play = 0


cdef inline void start_lane(Lane* L, const BoardState* start, const PlayoutSpec* g,
                            int64_t i) noexcept nogil:
    board_copy(L.s.board, start)
    L.rng = playout_seed(1, i)
    L.colour = g.to_move
    L.passes = 0
    L.turns = 0
    L.has_ko = False
    L.ko_hash = 0


def run(int size, int64_t n, int lanes=1, int pad=0, int branches=0, int verdict=0):
    """Play n playouts; returns (turns played, Black's wins)."""
    if not 1 <= lanes <= 8 or not 1 <= size <= 19 or n < 1:
        raise ValueError("lanes 1..8, size 1..19, n >= 1")
    cdef BoardState* start = board_new(size, size)
    cdef PlayoutSpec g
    cdef Lane lane[8]
    cdef int k, active = lanes, owned[3], territory[3]
    cdef int64_t next_game = 0, turns = 0, wins = 0
    cdef uint64_t sink = 0
    probe_spec(&g, size)
    for k in range(lanes):
        lane[k].s = scratch_new(g.max_moves)
        if lane[k].s == NULL or start == NULL:
            raise MemoryError()         # (a probe: what was allocated is not freed)
        start_lane(&lane[k], start, &g, next_game)
        next_game += 1
    with nogil:
        while active:
            for k in range(lanes):
                if lane[k].s == NULL or turn(&lane[k], &g, pad, branches, verdict, &sink):
                    continue
                turns += lane[k].turns
                board_area_counts(lane[k].s.board, owned, territory)
                wins += owned[BLACK] - owned[WHITE] - g.komi > 0
                if next_game < n:
                    start_lane(&lane[k], start, &g, next_game)
                    next_game += 1
                else:
                    scratch_free(lane[k].s)
                    lane[k].s = NULL
                    active -= 1
    board_free(start)
    return turns, wins + 0 * sink


def draws(int size, int64_t n):
    """Play n playouts as run() does and count the kernel's draws by the class of the drawn point
    and by whether the policy allowed it. Returns (turns, {class: (drawn, allowed)}); classes:
    free (an empty neighbour), own walls (only the mover's stones and walls beside it: an eye or
    a false eye), opponent walls (only the opponent's and walls), mixed (both colours, no empty
    point), and passes (turns with no allowed point)."""
    cdef BoardState* start = board_new(size, size)
    cdef PlayoutSpec g
    cdef Lane L
    cdef int64_t i, turns = 0, passes = 0
    cdef int64_t drawn[4]
    cdef int64_t allowed[4]
    cdef int16_t* empty
    cdef int k, j, p, q, c, nb, own, opp
    cdef uint64_t before
    cdef bint ok
    for k in range(4):
        drawn[k] = allowed[k] = 0
    probe_spec(&g, size)
    L.s = scratch_new(g.max_moves)
    if L.s == NULL or start == NULL:
        raise MemoryError()
    for i in range(n):
        start_lane(&L, start, &g, i)
        while L.passes < 2 and L.turns < g.max_moves:
            # playout_pick's loop, counting (the same draws: its first-draw shortcut only
            # returns earlier what playout_allows allows)
            before = L.s.board.hash
            empty = empty_list(L.s.board)
            k = L.s.board.num_empty
            p = 0
            while k:
                j = <int>rng_below(&L.rng, <uint32_t>k)
                q = empty[j]
                nb = nbr_masks(L.s.board)[q]
                own = nb & nbr_of(L.colour)
                opp = nb & nbr_of(3 - L.colour)
                c = 0 if nb & NBR_EMPTY else 3 if own and opp else 1 if own else 2
                ok = playout_allows(L.s, &g, q, L.colour, L.has_ko, L.ko_hash)
                drawn[c] += 1
                allowed[c] += ok
                if ok:
                    p = q
                    break
                k -= 1
                empty[j] = empty[k]
                L.s.board.cell[empty[k]].next = <int16_t>j
                empty[k] = <int16_t>q
                L.s.board.cell[q].next = <int16_t>k
            if p:
                board_play(L.s.board, NULL, p, L.colour)
                L.passes = 0
            else:
                L.passes += 1
                passes += 1
            L.has_ko = True
            L.ko_hash = before
            L.colour = 3 - L.colour
            L.turns += 1
        turns += L.turns
    scratch_free(L.s)
    board_free(start)
    names = ("free", "own walls", "opponent walls", "mixed")
    out = {names[k]: (drawn[k], allowed[k]) for k in range(4)}
    out["passes"] = (passes, 0)
    return turns, out
