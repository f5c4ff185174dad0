# cython: language_level=3
"""The feature planes' encoder, in C: one function, ``encode_planes``, that writes a position's
planes in any of the encodings ``fastgo.features`` defines ("agz17", "lz18", "openspiel4",
"katago"). ``BoardBatch.encode`` (batch.pyx) calls it per game, from the game's ring of past
colourings; the PUCT search (search.pyx) per leaf, from the colourings of the tree path and of
the root's past. Everything it reads is an argument: the position (a ``BoardState``), the side
to move, the last colourings, the last moves, the ko memory and whether the game is over.
"""

from libc.stdint cimport uint8_t, int8_t, int16_t, int64_t, uint64_t
from libc.string cimport memset
from fastgo.core cimport (BoardState, SeenFn, judge_play, chain_liberties, MAX_PAD, MAX_POINTS,
                          EMPTY, BLACK, WHITE, KO, SUPERKO)

cdef enum:
    HISTORY = 8             # colourings the history planes read: t, t - 1, ..., t - 7
    LAST_MOVES = 5          # katago: planes of the points played 1..5 turns ago

# encoding codes (BoardBatch's ENCODINGS and Search's, in this order)
cdef enum:
    ENC_AGZ17 = 0
    ENC_LZ18 = 1
    ENC_OPENSPIEL4 = 2
    ENC_KATAGO = 3
    ENC_STONES = 4


cdef inline int encoding_planes(int enc) noexcept nogil:
    """The number of planes of encoding `enc`."""
    if enc == ENC_AGZ17:
        return 17
    if enc == ENC_LZ18:
        return 18
    if enc == ENC_OPENSPIEL4:
        return 4
    if enc == ENC_STONES:
        return 3
    return 12


cdef inline bint encoding_history(int enc) noexcept nogil:
    """Whether encoding `enc` reads the past colourings (`cols`, `known` of encode_planes)."""
    return enc == ENC_AGZ17 or enc == ENC_LZ18


ctypedef fused plane_t:
    uint8_t
    float
    double

cdef extern from *:
    """
    /* Two history planes from one compact colouring col of n points: own[i] = (col[i] == me),
       other[i] = (col[i] == opp); plain loops over contiguous memory, which the compiler turns
       into vector compares and stores. One version per output type. */
    #define FASTGO_PLANE_PAIR(T, NAME) static inline void NAME(const uint8_t* restrict col, int n, uint8_t me, uint8_t opp, T* restrict own, T* restrict other) { int i; for (i = 0; i < n; i++) own[i] = (T)(col[i] == me); for (i = 0; i < n; i++) other[i] = (T)(col[i] == opp); }
    FASTGO_PLANE_PAIR(uint8_t, fastgo_planes_u8)
    FASTGO_PLANE_PAIR(float, fastgo_planes_f32)
    FASTGO_PLANE_PAIR(double, fastgo_planes_f64)
    /* One plane: out[i] = (col[i] == value). */
    #define FASTGO_PLANE_EQ(T, NAME) static inline void NAME(const uint8_t* restrict col, int n, uint8_t value, T* restrict out) { int i; for (i = 0; i < n; i++) out[i] = (T)(col[i] == value); }
    FASTGO_PLANE_EQ(uint8_t, fastgo_plane_eq_u8)
    FASTGO_PLANE_EQ(float, fastgo_plane_eq_f32)
    FASTGO_PLANE_EQ(double, fastgo_plane_eq_f64)
    """
    void fastgo_planes_u8(const uint8_t* col, int n, uint8_t me, uint8_t opp,
                          uint8_t* own, uint8_t* other) noexcept nogil
    void fastgo_planes_f32(const uint8_t* col, int n, uint8_t me, uint8_t opp,
                           float* own, float* other) noexcept nogil
    void fastgo_planes_f64(const uint8_t* col, int n, uint8_t me, uint8_t opp,
                           double* own, double* other) noexcept nogil
    void fastgo_plane_eq_u8(const uint8_t* col, int n, uint8_t value, uint8_t* out) noexcept nogil
    void fastgo_plane_eq_f32(const uint8_t* col, int n, uint8_t value, float* out) noexcept nogil
    void fastgo_plane_eq_f64(const uint8_t* col, int n, uint8_t value, double* out) noexcept nogil


cdef inline void board_colouring(const BoardState* b, uint8_t* out) noexcept nogil:
    """b's colouring by public point (row * width + col): EMPTY, BLACK or WHITE, the layout
    of a history ring's slot."""
    cdef int r, c, w = b.width
    for r in range(b.height):
        for c in range(w):
            out[r * w + c] = b.cell[(r + 1) * b.stride + c].color


cdef inline void plane_pair(const uint8_t* col, int n, int me, plane_t* own,
                            plane_t* other) noexcept nogil:
    if plane_t is uint8_t:
        fastgo_planes_u8(col, n, me, 3 - me, own, other)
    elif plane_t is float:
        fastgo_planes_f32(col, n, me, 3 - me, own, other)
    else:
        fastgo_planes_f64(col, n, me, 3 - me, own, other)


cdef inline void plane_eq(const uint8_t* col, int n, int value, plane_t* out) noexcept nogil:
    if plane_t is uint8_t:
        fastgo_plane_eq_u8(col, n, value, out)
    elif plane_t is float:
        fastgo_plane_eq_f32(col, n, value, out)
    else:
        fastgo_plane_eq_f64(col, n, value, out)


cdef inline void fill_plane(plane_t* out, int n, bint value) noexcept nogil:
    cdef int p
    if not value:
        memset(out, 0, <size_t>n * sizeof(plane_t))
        return
    for p in range(n):
        out[p] = 1


cdef inline void encode_planes(int enc, const BoardState* b, int mover, bint over,
                               const uint8_t* const* cols, int known,
                               const int16_t* moves, int64_t nmoves,
                               int ko_rule, bint suicide, const uint64_t* ko_hash, SeenFn seen,
                               const void* memory, plane_t* out) noexcept nogil:
    """Write the planes of encoding `enc` (ENC_*; see fastgo.features for each plane's
    definition), [C, height, width] row 0 at the bottom, of the position `b` with `mover` to
    play.

    cols[k] (k < known <= HISTORY): the colouring (board_colouring's layout) k turns ago, cols[0]
    the position's own; a colouring from before the set-up is not given (its planes are zeros).
    Read by agz17 and lz18 only. moves[0..nmoves): the turns since the set-up, oldest first
    (public points, the pass = width * height); katago reads the last LAST_MOVES (only those
    need to be there: `moves` may be the end of the list). katago's plane 6 is core.judge_play's
    judgement of the mover's play at each empty point (ko_rule, suicide, ko_hash, seen, memory
    as judge_play takes them: the game's simple-ko colouring, NULL before any turn, and its
    superko memory, which holds the position's own key); none when `over` (two passes)."""
    cdef int w = b.width, h = b.height, hw = w * h, s = b.stride, npad = b.npad
    cdef int k, r, c, p, v, q, libs, status
    cdef int64_t t
    cdef int8_t libcache[MAX_PAD]
    cdef uint8_t colouring[MAX_POINTS]
    if enc == ENC_AGZ17 or enc == ENC_LZ18:
        # every plane is written once: history pairs branch-free, absent history as zeros
        for k in range(HISTORY):
            q = 2 * k if enc == ENC_AGZ17 else k
            v = 2 * k + 1 if enc == ENC_AGZ17 else HISTORY + k
            if k < known:
                plane_pair(cols[k], hw, mover, out + q * hw, out + v * hw)
            else:
                fill_plane(out + q * hw, hw, False)
                fill_plane(out + v * hw, hw, False)
        fill_plane(out + 16 * hw, hw, mover == BLACK)
        if enc == ENC_LZ18:
            fill_plane(out + 17 * hw, hw, mover == WHITE)
        return
    if enc == ENC_OPENSPIEL4:
        # every plane written once, by the history planes' vector loops over the colouring
        board_colouring(b, colouring)
        plane_pair(colouring, hw, BLACK, out, out + hw)     # 0, 1: black, white stones
        plane_eq(colouring, hw, EMPTY, out + 2 * hw)        # 2: empty points
        fill_plane(out + 3 * hw, hw, mover == WHITE)        # 3: White to move
        return
    if enc == ENC_STONES:
        board_colouring(b, colouring)
        plane_pair(colouring, hw, mover, out, out + hw)     # 0, 1: the mover's, the opponent's
        fill_plane(out + 2 * hw, hw, mover == BLACK)        # 2: Black to move
        return
    memset(out, 0, <size_t>12 * hw * sizeof(plane_t))
    memset(libcache, -1, npad)
    for r in range(h):
        p = (r + 1) * s
        for c in range(w):
            q = r * w + c
            out[q] = 1                              # 0: on the board
            v = b.cell[p + c].color
            if v == EMPTY:
                if over:
                    continue
                # 6: the ko rule (simple ko or superko) forbids the mover's play here now
                status = judge_play(b, p + c, mover, ko_rule, suicide, ko_hash, seen, memory,
                                    NULL)
                if status == KO or status == SUPERKO:
                    out[6 * hw + q] = 1
                continue
            out[(1 if v == mover else 2) * hw + q] = 1  # 1, 2: the mover's, the opponent's
            if libcache[b.cell[p + c].head] < 0:
                libs = chain_liberties(b, b.cell[p + c].head)
                libcache[b.cell[p + c].head] = <int8_t>(libs if libs < 4 else 4)
            libs = libcache[b.cell[p + c].head]
            if libs <= 3:                           # 3, 4, 5: chains with 1, 2, 3 liberties
                out[(2 + libs) * hw + q] = 1
    for k in range(LAST_MOVES):                     # 7..11: the last five turns' points
        t = nmoves - 1 - k
        if t < 0:
            break
        if moves[t] != hw:
            out[(7 + k) * hw + moves[t]] = 1
