# cython: language_level=3
"""The C data model of fastgo and the kernel that plays on it.

Everything here is C: no Python objects, every function ``noexcept nogil``. The rules core
(``fastgo.board``) and the playout kernel share these structs and functions, and other Cython code
can ``cimport fastgo.core`` to drive boards without the GIL.

Layout. A board of width W and height H is stored padded: stride S = W + 1, the point (row, col)
lives at padded index ``(row + 1) * S + col``; column W of every row and rows -1 and H are WALL, so
the four neighbours of any on-board point are ``p - S, p - 1, p + 1, p + S`` with no edge tests.
A ``BoardState`` is one block whose size follows the board's (``board_bytes(W, H)``: about 1.5 KB
for 9x9, 5.8 KB for 19x19): a header, one 8-byte ``Cell`` per padded point, the neighbour masks,
the chain sizes, then the list of empty points.
It holds no pointer, so copying is one memcpy and boards can lie back to back in one buffer.

Chains are rings: ``next`` links the stones of a chain in a cycle and ``head`` names the chain's
representative stone; a merge relabels the smaller chain (union by size), so ``head`` is O(1).
Per-chain data lives at the head: its pseudo-liberties in its cell, its size at
chain_sizes(b)[head]; the XOR of the Zobrist keys
of its stones (the hash change of its capture) is walked when a capture needs it. Pseudo-liberties
count (stone, empty neighbour) pairs, so a point next to two stones of the chain counts twice:
they add up on a merge with no search for shared liberties, they are zero exactly when the chain
has no liberty, and a play at p takes a chain's last liberty exactly when its pseudo-liberties
equal the number of its stones next to p.

Neighbour masks. ``nbr_masks(b)[p]`` packs which of p's four neighbours (side k = 0..3: p - s,
p - 1, p + 1, p + s) are empty, black and white, four bits each (``NBR_EMPTY``,
``nbr_of(colour)``; bit k of a field is side k), kept up to date on every point (walls' are
written, and read only by settle_point, which masks them off): "has an empty neighbour?", "is
it walled in by one colour?", which sides hold the mover's or the opponent's stones and a new
stone's pseudo-liberties (the empty sides counted) are one read each, where the playout asks
them of every candidate it draws and every play. Exact liberties, which only the Python API
reports, are counted on demand.

Undo. Every write a move makes goes through ``jset*``, which records the old value in an optional
``Journal`` (NULL inside playouts). Undoing a turn restores those values in reverse order.
"""

from libc.stdint cimport uint8_t, int8_t, uint16_t, int16_t, int32_t, uint32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

cdef extern from *:
    """
    #include <stddef.h>
    #ifndef FASTGO_DEBUG
    #define FASTGO_DEBUG 0
    #endif
    #if FASTGO_DEBUG
    /* independent of NDEBUG, which Python's own build flags define */
    #include <stdio.h>
    #include <stdlib.h>
    /* `what` names the check in the .pxd's terms (the condition itself is a generated C
       temporary by the time it gets here), `value` is the value it judged */
    #define FASTGO_ASSERT(x, what, value) do { if (!(x)) { fprintf(stderr, "fastgo: internal check failed: %s (value %lld)\\n", what, (long long)(value)); abort(); } } while (0)
    #else
    #define FASTGO_ASSERT(x, what, value) ((void)(x), (void)(what), (void)(value))
    #endif

    /* The Zobrist keys of zkey() below, looked up instead of computed in the hot loops: filled
       with the same formula when the module is loaded (a GCC/Clang constructor; elsewhere the
       keys are computed on every call). Index 4 * padded point + colour. */
    #include <stdint.h>
    #if defined(__GNUC__) || defined(__clang__)
    #define FASTGO_ZTABLE 1
    static uint64_t fastgo_ztable[4 * 27 * 26];
    __attribute__((constructor)) static void fastgo_ztable_fill(void) {
        uint64_t i, z;
        for (i = 0; i < 4 * 27 * 26; i++) {
            z = 0x66617374676F2121ULL + i * 0x9E3779B97F4A7C15ULL;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
            fastgo_ztable[i] = z ^ (z >> 31);
        }
    }
    #else
    #define FASTGO_ZTABLE 0
    static uint64_t fastgo_ztable[1];
    #endif

    /* the lowest (ctz) and highest (clz: leading zeros) set bit of a nonzero word */
    #ifdef _MSC_VER
    #include <intrin.h>
    static __inline int fastgo_ctz64(unsigned __int64 x) {
        unsigned long i; _BitScanForward64(&i, x); return (int)i;
    }
    static __inline int fastgo_clz64(unsigned __int64 x) {
        unsigned long i; _BitScanReverse64(&i, x); return 63 - (int)i;
    }
    #else
    #define fastgo_ctz64(x) __builtin_ctzll(x)
    #define fastgo_clz64(x) __builtin_clzll(x)
    #endif

    /* Give the free pages of the C heap back to the system after `bytes` were freed in many
       blocks or in blocks glibc kept on its heap (its mmap threshold rises to 32 MiB after a
       larger block is freed): without it a closed Search or a deleted BoardBatch of 20,000
       games left 17 MB resident until the heap was reused. Nothing below 1 MiB or off glibc. */
    #if defined(__GLIBC__)
    #include <malloc.h>
    #define fastgo_trim(bytes) \\
        do { if ((size_t)(bytes) >= ((size_t)1 << 20)) malloc_trim(0); } while (0)
    #else
    #define fastgo_trim(bytes) ((void)(bytes))
    #endif

    /* a hint to bring the cache line at p in for writing; nothing where the compiler has none */
    #if defined(__GNUC__) || defined(__clang__)
    #define fastgo_prefetch(p) __builtin_prefetch((p), 1, 1)
    #else
    #define fastgo_prefetch(p) ((void)(p))
    #endif
    """
    const bint FASTGO_DEBUG
    void FASTGO_ASSERT(bint, const char* what, long long value) noexcept nogil
    const bint FASTGO_ZTABLE
    const uint64_t* fastgo_ztable
    int ctz64 "fastgo_ctz64" (uint64_t x) noexcept nogil
    int clz64 "fastgo_clz64" (uint64_t x) noexcept nogil
    void prefetch "fastgo_prefetch" (const void* p) noexcept nogil
    void heap_trim "fastgo_trim" (size_t nbytes) noexcept nogil

cdef enum:
    EMPTY = 0
    BLACK = 1
    WHITE = 2
    WALL = 3
    MAX_SIDE = 25
    MAX_PAD = (MAX_SIDE + 2) * (MAX_SIDE + 1)   # padded cells of the largest board
    MAX_POINTS = MAX_SIDE * MAX_SIDE
    MASK_WORDS = (MAX_PAD + 63) >> 6           # 64-bit words of a bitset over padded points

# Why a play is or is not allowed; LEGAL is 0 so "if status:" reads as "if refused".
cdef enum MoveStatus:
    LEGAL = 0
    OCCUPIED = 1
    SUICIDE = 2
    KO = 3
    SUPERKO = 4
    GAME_OVER = 5

cdef enum KoRule:
    KO_POSITIONAL = 0
    KO_SITUATIONAL = 1
    KO_SIMPLE = 2

# Fixed Zobrist seed ("fastgo!!"): hashes are the same in every process and documented.
cdef enum:
    ZSEED_HI = 0x66617374
    ZSEED_LO = 0x676F2121


cdef extern from *:
    """
    /* The board is one relocatable block: a fixed header, then one cell per padded point (the
       array ends the struct: its length follows the board's size), then the list of empty points
       (width * height int16). Nothing in it is a pointer, so a memcpy of board_bytes(w, h) copies
       a board, and boards can lie side by side in one buffer. */
    typedef struct {
        uint8_t color;      /* EMPTY, BLACK, WHITE or WALL */
        uint8_t ever;       /* 1 once a stone has stood here */
        int16_t head;       /* representative stone of the chain; 0 (a wall) for non-stones */
        int16_t next;       /* a stone: next stone of its chain's ring; an empty point: its index
                               in the empty list (-1 elsewhere) */
        int16_t plibs;      /* at a head: pseudo-liberties */
    } fastgo_cell;      /* 8 bytes: a cell's address is one scaled index */
    typedef struct {
        int32_t width, height, stride, npad, num_empty;
        int32_t captures[3];
        uint64_t hash;
        fastgo_cell cell[];
    } fastgo_board;
    #define FASTGO_HEADER_BYTES (offsetof(fastgo_board, cell))
    """
    const size_t FASTGO_HEADER_BYTES

    ctypedef struct Cell "fastgo_cell":
        uint8_t color          # EMPTY, BLACK, WHITE or WALL
        uint8_t ever           # 1 once a stone has stood here: a play on a never-used point
                               # makes a colouring that cannot have occurred before
        int16_t head           # representative stone of the chain; 0 (a wall) for non-stones
        int16_t next           # on a stone: the next stone in the chain's ring; on an empty point:
                               # its index in the empty list (empty_pos); -1 on walls
        int16_t plibs          # at a head: pseudo-liberties, (stone, empty neighbour) pairs

    ctypedef struct BoardState "fastgo_board":
        # -- header ---------------------------------------------------------------------------------
        int32_t width          # columns, 1..25
        int32_t height         # rows, 1..25
        int32_t stride         # width + 1: padded distance between rows
        int32_t npad           # (height + 2) * stride: padded cells
        int32_t num_empty      # length of the empty-point list
        int32_t captures[3]    # captures[c]: stones removed from the board to colour c's credit
        uint64_t hash          # XOR of zkey(colour, p) over all stones
        # -- npad cells (a flexible array: the block is board_bytes(width, height) long), then
        # npad neighbour masks (nbr_masks(b): uint16), npad chain sizes (chain_sizes(b)[head]:
        # int16, read only by merges and captures), then
        # the empty list, width * height int16 (empty_list(b)), in no particular order: uniform
        # sampling is one random index
        Cell cell[1]


ctypedef struct JournalEntry:
    uint16_t offset        # byte offset of the changed field inside BoardState (< 64 KiB)
    uint16_t nbytes        # 1, 2 or 4; a 64-bit field is logged as two 4-byte halves
    uint32_t old           # the value it had


ctypedef struct Journal:
    JournalEntry* entries
    int64_t n              # entries in use
    int64_t cap            # entries allocated; callers reserve journal_bound() before a play


cdef enum:
    JOURNAL_FIXED = 64          # journal_bound: the entries of a play whatever the chains
    JOURNAL_PER_STONE = 32      # ... and per stone of the chains beside it and the new one

cdef inline int64_t journal_bound(const BoardState* b, int p) noexcept nogil:
    """Upper bound of the journal entries a play at padded point p can write.

    Fixed writes: placing the stone and joining the first own chain 16 fields (4 of them
    neighbour masks, 2 the stone's cell), one pseudo-liberty per neighbouring stone (4), 4 per
    further merge (3 at most), 3 per cleared chain or the suicide (4 at most), the capture
    count: under 64. Per stone of the neighbouring chains and the new stone: one relabel in each
    merge where it is on the smaller side (at most 4); clearing it (capture or suicide) writes
    13 more (colour, 3 for the empty list, head, a pseudo-liberty per neighbouring stone, 4
    neighbour masks). So 64 + 32 per stone bounds it; the debug build asserts that no play
    exceeds its reservation.
    """
    cdef int heads[4]
    cdef int n = distinct_neighbour_chains(b, p, heads), k
    cdef int64_t stones = 1
    for k in range(n):
        stones += chain_sizes(b)[heads[k]]
    return JOURNAL_FIXED + JOURNAL_PER_STONE * stones


# ---------------------------------------------------------------------------------------------
# Zobrist keys: a formula (zkey_formula), read from a static table that a C constructor fills with
# it when the module loads, so a cimporting module needs no set-up of its own.

cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)

cdef inline uint64_t zkey_formula(int colour, int p) noexcept nogil:
    cdef uint64_t seed = (<uint64_t>ZSEED_HI << 32) | <uint64_t>ZSEED_LO
    return mix64(seed + <uint64_t>(4 * p + colour) * <uint64_t>0x9E3779B97F4A7C15ULL)

cdef inline uint64_t zkey(int colour, int p) noexcept nogil:
    """Zobrist key of `colour` at padded index `p` (colour 3 at p = 0 marks White to move):
    zkey_formula, read from the table the C block above fills with it."""
    FASTGO_ASSERT(p >= 0 and p < MAX_PAD and colour >= 0 and colour < 4,
                  "zkey: 0 <= padded point p < MAX_PAD and 0 <= colour < 4; p", p)
    if FASTGO_ZTABLE:
        FASTGO_ASSERT(fastgo_ztable[4 * p + colour] == zkey_formula(colour, p),
                      "zkey: the table's key of 4 * p + colour is the formula's", 4 * p + colour)
        return fastgo_ztable[4 * p + colour]
    return zkey_formula(colour, p)

cdef inline uint64_t white_to_move_key() noexcept nogil:
    return zkey(3, 0)


# ---------------------------------------------------------------------------------------------
# Journalled writes.

cdef inline void jlog(BoardState* b, Journal* j, void* field, uint16_t nbytes) noexcept nogil:
    """Record the current value of a 1-, 2- or 4-byte field before it is overwritten."""
    cdef JournalEntry* e
    if j != NULL:
        FASTGO_ASSERT(j.n < j.cap, "journal: an entry within the reserved capacity; entry", j.n)
        e = &j.entries[j.n]
        e.offset = <uint16_t>(<char*>field - <char*>b)
        e.nbytes = nbytes
        e.old = 0
        memcpy(&e.old, field, nbytes)
        j.n += 1

cdef inline void jset8(BoardState* b, Journal* j, uint8_t* f, uint8_t v) noexcept nogil:
    jlog(b, j, f, 1)
    f[0] = v

cdef inline void jset16(BoardState* b, Journal* j, int16_t* f, int16_t v) noexcept nogil:
    jlog(b, j, f, 2)
    f[0] = v

cdef inline void jset32(BoardState* b, Journal* j, int32_t* f, int32_t v) noexcept nogil:
    jlog(b, j, f, 4)
    f[0] = v

cdef inline void jset64(BoardState* b, Journal* j, uint64_t* f, uint64_t v) noexcept nogil:
    jlog(b, j, f, 4)
    jlog(b, j, <char*>f + 4, 4)
    f[0] = v

cdef inline void jset_cell(BoardState* b, Journal* j, Cell* f, Cell v) noexcept nogil:
    """A whole cell written at once (logged as two 4-byte halves)."""
    jlog(b, j, f, 4)
    jlog(b, j, <char*>f + 4, 4)
    f[0] = v

cdef inline void journal_rewind(BoardState* b, Journal* j, int64_t mark) noexcept nogil:
    """Restore every field written since the journal held `mark` entries, newest first."""
    cdef JournalEntry* e
    while j.n > mark:
        j.n -= 1
        e = &j.entries[j.n]
        memcpy(<char*>b + e.offset, &e.old, e.nbytes)


# ---------------------------------------------------------------------------------------------
# Set-up and copy.

cdef enum:
    NBR_EMPTY = 0xF             # the empty neighbours' field of a neighbour mask

cdef inline int pop4(int x) noexcept nogil:
    """How many of the 4 low bits of x (0 <= x < 16) are set: the nibble x of a constant."""
    return <int>((<uint64_t>0x4332322132212110ULL >> (4 * x)) & 0xF)

cdef inline int nbr_of(int colour) noexcept nogil:
    """The field of `colour`'s (BLACK or WHITE) neighbours in a neighbour mask."""
    return 0xF << (4 * colour)

cdef inline uint16_t* nbr_masks(const BoardState* b) noexcept nogil:
    """Packed neighbour masks, one per padded point: bit 4 * c + k is set when p's side k
    (p - s, p - 1, p + 1, p + s) holds colour c (EMPTY, BLACK, WHITE; walls set none). The
    uint16 array after the cells."""
    return <uint16_t*>&b.cell[b.npad]

cdef inline int16_t* chain_sizes(const BoardState* b) noexcept nogil:
    """Stones of each chain, at its head's index: the int16 array after the neighbour masks."""
    return <int16_t*>(nbr_masks(b) + b.npad)

cdef inline int16_t* empty_list(const BoardState* b) noexcept nogil:
    """The empty points (padded indices), num_empty of them: the int16 array after the sizes."""
    return chain_sizes(b) + b.npad

cdef inline size_t board_bytes(int width, int height) noexcept nogil:
    """Bytes a width x height board needs: the header, (height + 2) * (width + 1) cells, neighbour
    masks and chain sizes, the empty list, rounded up to 8 (boards can lie back to back). A
    BoardState lives only where board_new put it or in a caller's buffer of board_bytes bytes at
    an 8-byte-aligned address, set up by board_clear and copied by board_copy (never by value:
    its size depends on the board's)."""
    cdef size_t n = (FASTGO_HEADER_BYTES
                     + <size_t>((height + 2) * (width + 1)) * (sizeof(Cell) + sizeof(uint16_t)
                                                               + sizeof(int16_t))
                     + <size_t>(width * height) * sizeof(int16_t))
    return (n + 7) & ~(<size_t>7)

cdef inline void board_clear(BoardState* b, int width, int height) noexcept nogil:
    """An empty width x height board (1 <= width, height <= MAX_SIDE, checked by the caller) in
    a block of at least board_bytes(width, height) bytes."""
    cdef int p, r, c
    cdef int16_t* empty
    FASTGO_ASSERT(1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE,
                  "board_clear: sides 1..MAX_SIDE (the Zobrist table's); width * 100 + height",
                  width * 100 + height)
    b.width = width
    b.height = height
    b.stride = width + 1
    b.npad = (height + 2) * b.stride
    b.num_empty = 0
    b.captures[0] = 0
    b.captures[1] = 0
    b.captures[2] = 0
    b.hash = 0
    empty = empty_list(b)
    for p in range(b.npad):
        b.cell[p].color = WALL
        b.cell[p].ever = 0
        b.cell[p].head = 0
        b.cell[p].next = -1
        b.cell[p].plibs = 0
        chain_sizes(b)[p] = 0
    for r in range(height):
        for c in range(width):
            p = (r + 1) * b.stride + c
            b.cell[p].color = EMPTY
            b.cell[p].next = <int16_t>b.num_empty
            empty[b.num_empty] = <int16_t>p
            b.num_empty += 1
    for p in range(b.npad):
        nbr_masks(b)[p] = 0
    for r in range(height):             # every on-board neighbour is empty
        for c in range(width):
            p = (r + 1) * b.stride + c
            nbr_masks(b)[p] = <uint16_t>((b.cell[p - b.stride].color == EMPTY) |
                                         ((b.cell[p - 1].color == EMPTY) << 1) |
                                         ((b.cell[p + 1].color == EMPTY) << 2) |
                                         ((b.cell[p + b.stride].color == EMPTY) << 3))

cdef inline BoardState* board_new(int width, int height) noexcept nogil:
    """An empty width x height board on the heap (free it with board_free); NULL when out of memory."""
    cdef BoardState* b = <BoardState*>malloc(board_bytes(width, height))
    if b != NULL:
        board_clear(b, width, height)
    return b

cdef inline void board_free(BoardState* b) noexcept nogil:
    free(b)

cdef inline void board_copy(BoardState* dst, const BoardState* src) noexcept nogil:
    """dst (a block of board_bytes for src's size) becomes src: one memcpy. The whole empty list
    is copied, not only num_empty entries: removing the last entry only shortens the list, so
    undoing that removal (num_empty grows back) relies on the stale entry past the end."""
    memcpy(dst, src, board_bytes(src.width, src.height))


# ---------------------------------------------------------------------------------------------
# Coordinates.

cdef inline int to_pad(const BoardState* b, int point) noexcept nogil:
    """Public point (row * width + col) to padded index."""
    FASTGO_ASSERT(point >= 0 and point < b.width * b.height,
                  "to_pad: 0 <= point < width * height; point", point)
    return (point // b.width + 1) * b.stride + point % b.width

cdef inline int from_pad(const BoardState* b, int p) noexcept nogil:
    """Padded index to public point."""
    return (p // b.stride - 1) * b.width + p % b.stride


cdef inline void neighbours(int* nb, int p, int s) noexcept nogil:
    """The four orthogonal neighbours of padded point p (row stride s) into nb[0..4)."""
    nb[0] = p - s
    nb[1] = p - 1
    nb[2] = p + 1
    nb[3] = p + s


# ---------------------------------------------------------------------------------------------
# Reading chains.

cdef inline int stones_next_to(const BoardState* b, int p, int h) noexcept nogil:
    """How many of p's orthogonal neighbours belong to the chain headed by h."""
    cdef int s = b.stride
    cdef const Cell* c = &b.cell[0]
    return ((c[p - s].head == h) + (c[p - 1].head == h) +
            (c[p + 1].head == h) + (c[p + s].head == h))

cdef inline bint takes_last_liberty(const BoardState* b, int p, int h) noexcept nogil:
    """A stone at the empty point p leaves the chain headed by h without liberties: every
    pseudo-liberty of the chain is a pair with p."""
    return b.cell[h].plibs == stones_next_to(b, p, h)

cdef inline uint64_t chain_hash(const BoardState* b, int h) noexcept nogil:
    """XOR of the Zobrist keys of the stones of the chain headed by h: the hash change of its
    capture. Walked, not stored: only captures and suicides need it."""
    cdef int st = h, colour = b.cell[h].color
    cdef uint64_t z = 0
    while True:
        z ^= zkey(colour, st)
        st = b.cell[st].next
        if st == h:
            return z

cdef inline int chain_liberties(const BoardState* b, int h) noexcept nogil:
    """Exact liberties of the chain headed by h: its distinct empty neighbours. Each empty
    neighbour is counted at the first of its own neighbours that belongs to the chain."""
    cdef int st = h, s = b.stride, k, e, first, n = 0
    cdef const Cell* c = &b.cell[0]
    cdef int nb[4]
    while True:
        neighbours(nb, st, s)
        for k in range(4):
            e = nb[k]
            if c[e].color != EMPTY:
                continue
            if c[e - s].head == h:
                first = e - s
            elif c[e - 1].head == h:
                first = e - 1
            elif c[e + 1].head == h:
                first = e + 1
            else:
                first = e + s
            n += first == st
        st = c[st].next
        if st == h:
            break
    return n

cdef inline bint has_empty_neighbour(const BoardState* b, int p) noexcept nogil:
    return (nbr_masks(b)[p] & NBR_EMPTY) != 0

cdef inline void nbr_move(uint16_t* nbr, BoardState* b, Journal* j, Py_ssize_t p, Py_ssize_t s,
                          int delta) noexcept nogil:
    """p changed colour: `delta` is the change of a neighbour's sides when the change is on its
    side 0, (1 << 4 * new) - (1 << 4 * old). p is side 3 of p - s, 2 of p - 1, 1 of p + 1 and
    0 of p + s. Walls are written too (never read), so no test is needed."""
    jset16(b, j, <int16_t*>&nbr[p - s], <int16_t>(nbr[p - s] + delta * 8))
    jset16(b, j, <int16_t*>&nbr[p - 1], <int16_t>(nbr[p - 1] + delta * 4))
    jset16(b, j, <int16_t*>&nbr[p + 1], <int16_t>(nbr[p + 1] + delta * 2))
    jset16(b, j, <int16_t*>&nbr[p + s], <int16_t>(nbr[p + s] + delta))

cdef inline int distinct_neighbour_chains(const BoardState* b, int p, int* heads) noexcept nogil:
    """Store the distinct chains (their heads) next to p in heads[0..n) and return n (0..4)."""
    # head is 0 on empty points and walls. Branch-free: each head is stored at heads[n] and kept
    # (n advances) only when it is a new one; random games make these tests unpredictable.
    cdef int s = b.stride, n
    cdef const Cell* c = &b.cell[0]
    cdef int h0 = c[p - s].head, h1 = c[p - 1].head, h2 = c[p + 1].head, h3 = c[p + s].head
    heads[0] = h0
    n = h0 != 0
    heads[n] = h1
    n += (h1 != 0) & (h1 != h0)
    heads[n] = h2
    n += (h2 != 0) & (h2 != h0) & (h2 != h1)
    heads[n] = h3
    n += (h3 != 0) & (h3 != h0) & (h3 != h1) & (h3 != h2)
    return n


# ---------------------------------------------------------------------------------------------
# Previewing a play: legality and the hash of the resulting colouring, without playing it.

cdef inline int board_preview(const BoardState* b, int p, int colour, uint64_t* new_hash,
                              int* captured) noexcept nogil:
    """Look at the play of `colour` on padded point p.

    Returns OCCUPIED, SUICIDE (the play would clear some of the mover's own stones: legal under
    Tromp-Taylor, refused when suicide is forbidden) or LEGAL, and stores the hash of the colouring
    the play would leave and the number of opponent stones it would capture. Ko is not judged here.
    """
    cdef int heads[4]
    cdef int n, k, h
    cdef int opp = 3 - colour
    cdef bint has_empty, own_survives = False
    cdef uint64_t hsh
    FASTGO_ASSERT(p > 0 and p < b.npad, "board_preview: 0 < padded point p < npad; p", p)
    captured[0] = 0
    if b.cell[p].color != EMPTY:
        new_hash[0] = b.hash
        return OCCUPIED
    hsh = b.hash ^ zkey(colour, p)
    has_empty = has_empty_neighbour(b, p)
    n = distinct_neighbour_chains(b, p, heads)
    for k in range(n):
        h = heads[k]
        if b.cell[h].color == opp:
            if takes_last_liberty(b, p, h):   # captured first (rule 7)
                hsh ^= chain_hash(b, h)
                captured[0] += chain_sizes(b)[h]
        elif not takes_last_liberty(b, p, h):   # keeps a liberty other than p
            own_survives = True
    if has_empty or captured[0] > 0 or own_survives:
        new_hash[0] = hsh
        return LEGAL
    # nothing reaches empty: the new stone and every own chain it joins are cleared
    hsh ^= zkey(colour, p)
    for k in range(n):
        if b.cell[heads[k]].color == colour:
            hsh ^= chain_hash(b, heads[k])
    new_hash[0] = hsh
    return SUICIDE


# ---------------------------------------------------------------------------------------------
# Playing.

cdef inline void add_empty(BoardState* b, Journal* j, int p) noexcept nogil:
    FASTGO_ASSERT(b.num_empty < b.width * b.height and p > 0 and p < b.npad,
                  "add_empty: room in the empty list and 0 < padded point p < npad; p", p)
    jset16(b, j, &empty_list(b)[b.num_empty], <int16_t>p)
    jset16(b, j, &b.cell[p].next, <int16_t>b.num_empty)
    jset32(b, j, &b.num_empty, b.num_empty + 1)

cdef inline int merge_chains(BoardState* b, Journal* j, int a, int c) noexcept nogil:
    """Join the chains headed by a and c (same colour, both next to the stone just played): the
    smaller is relabelled into the larger, and pseudo-liberties and sizes add up.
    Returns the head of the joined chain."""
    cdef int big = a, small = c, st
    cdef int16_t t
    cdef Cell* cl = b.cell
    cdef int16_t* size = chain_sizes(b)
    if size[c] > size[a]:
        big = c
        small = a
    st = small
    while True:
        jset16(b, j, &cl[st].head, <int16_t>big)
        st = cl[st].next
        if st == small:
            break
    t = cl[big].next
    jset16(b, j, &cl[big].next, cl[small].next)
    jset16(b, j, &cl[small].next, t)
    jset16(b, j, &size[big], size[big] + size[small])
    jset16(b, j, &cl[big].plibs, cl[big].plibs + cl[small].plibs)
    return big

cdef inline int remove_chain(BoardState* b, Journal* j, int h) noexcept nogil:
    """Clear the chain headed by h; each stone next to a freed point gains a pseudo-liberty."""
    cdef int st = h, q, k, s = b.stride, count = 0, colour = b.cell[h].color, nx
    cdef uint64_t z = 0
    cdef Cell* cl = b.cell
    cdef int nb[4]
    while True:
        nx = cl[st].next                # read first: add_empty reuses the field
        z ^= zkey(colour, st)
        jset8(b, j, &cl[st].color, EMPTY)
        jset16(b, j, &cl[st].head, 0)
        add_empty(b, j, st)
        nbr_move(nbr_masks(b), b, j, st, s, 1 - (1 << (4 * colour)))    # a stone -> empty
        count += 1
        # stones of other chains next to the freed point gain a pair with it; the chain's own
        # stones still to be cleared add to plibs[h], which is zeroed below, those cleared to the
        # wall's plibs[0] (head 0) unchanged: no branch to mispredict
        neighbours(nb, st, s)
        for k in range(4):
            q = cl[nb[k]].head
            jset16(b, j, &cl[q].plibs, cl[q].plibs + (q != 0))
        st = nx
        if st == h:
            break
    jset64(b, j, &b.hash, b.hash ^ z)
    jset16(b, j, &cl[h].plibs, 0)
    return count


cdef inline void debug_check_nbr(const BoardState* b) noexcept nogil:
    """Debug builds, after every play: each on-board point's neighbour masks against a recount
    from the colours (side k of colour c sets bit 4 * c + k, a wall nothing)."""
    cdef int r, c, p, k, v, want, s = b.stride
    cdef int nb[4]
    for r in range(b.height):
        for c in range(b.width):
            p = (r + 1) * s + c
            neighbours(nb, p, s)
            want = 0
            for k in range(4):
                v = b.cell[nb[k]].color
                want |= (1 << (4 * v + k)) if v != WALL else 0
            FASTGO_ASSERT(nbr_masks(b)[p] == want,
                          "neighbour masks: recorded == recounted; padded point", p)

cdef inline int board_play(BoardState* b, Journal* j, int point, int colour) noexcept nogil:
    """Rule 7: colour the empty point p, clear the opponent's chains that no longer reach empty,
    then clear the mover's own. Legality (ko, suicide option) is the caller's business; p must be
    empty. Returns the number of opponent stones captured."""
    # Random games make every test of what lies beside p unpredictable, so the common cases go
    # without branches: the stone joins the first own chain beside it (or stands alone) by
    # splicing, and only a second own chain (about one play in six) or a capture takes a branch.
    # The header and the arrays' addresses are read once, before the first store (a byte store
    # may alias anything, so the compiler would read them again), and indices are pointer-wide
    # (no sign extension at every use).
    cdef Py_ssize_t p = point, s = b.stride, npad = b.npad, n_empty = b.num_empty
    cdef Cell* cl = b.cell
    cdef uint16_t* nbr = <uint16_t*>&cl[npad]
    cdef int16_t* size = <int16_t*>(nbr + npad)
    cdef int16_t* empty = size + npad
    cdef int opp = 3 - colour, captured = 0, removed, around, own, opps, takes, more
    cdef Py_ssize_t i, last, h0, h1, h2, h3, o0, o1, o2, o3, me, t, q, other
    cdef uint64_t hsh
    cdef Cell stone
    cdef Py_ssize_t nb[4]
    cdef Py_ssize_t hh[4]               # hh[k]: h_k, for the sides in `more`
    FASTGO_ASSERT(p > 0 and p < npad and cl[p].color == EMPTY,
                  "board_play: padded point p is on the board and empty; p", p)
    around = nbr[p]
    own = (around >> (4 * colour)) & 0xF
    opps = (around >> (4 * opp)) & 0xF
    i = cl[p].next
    last = empty[n_empty - 1]
    h0 = cl[p - s].head
    h1 = cl[p - 1].head
    h2 = cl[p + 1].head
    h3 = cl[p + s].head
    hsh = b.hash ^ zkey(colour, p)
    # p leaves the empty list: the last entry takes its place
    FASTGO_ASSERT(i >= 0 and i < n_empty and empty[i] == p,
                  "board_play: padded point p is in the empty list; p", p)
    jset16(b, j, &empty[i], <int16_t>last)
    jset16(b, j, &cl[last].next, <int16_t>i)
    jset32(b, j, &b.num_empty, <int32_t>(n_empty - 1))
    jset64(b, j, &b.hash, hsh)
    nbr_move(nbr, b, j, p, s, (1 << (4 * colour)) - 1)        # an empty point -> a stone
    # each neighbouring stone loses its pair with p. Heads are 0 on empty points and walls, which
    # then rewrite plibs[0] (a wall's, never read) unchanged
    jset16(b, j, &cl[h0].plibs, cl[h0].plibs - (h0 != 0))
    jset16(b, j, &cl[h1].plibs, cl[h1].plibs - (h1 != 0))
    jset16(b, j, &cl[h2].plibs, cl[h2].plibs - (h2 != 0))
    jset16(b, j, &cl[h3].plibs, cl[h3].plibs - (h3 != 0))
    # an opponent's chain left without a pseudo-liberty is captured (after the merges: its head
    # stays); bit k of takes is set when the chain on side k is such a chain
    takes = opps & ((cl[h0].plibs == 0) | ((cl[h1].plibs == 0) << 1) |
                    ((cl[h2].plibs == 0) << 2) | ((cl[h3].plibs == 0) << 3))
    # the stone joins the chain on the first side that holds an own stone, or heads its own
    # (o_k: h_k on an own side, else 0; selects on o_k compile to conditional moves, where
    # selects on bits of `own` became branches)
    o0 = h0 & -(own & 1)
    o1 = h1 & -((own >> 1) & 1)
    o2 = h2 & -((own >> 2) & 1)
    o3 = h3 & -((own >> 3) & 1)
    me = p
    me = o3 if o3 else me
    me = o2 if o2 else me
    me = o1 if o1 else me
    me = o0 if o0 else me
    # bit k of more: side k holds an own chain other than me's, by its head before the play
    more = own & (((h1 != me) << 1) | ((h2 != me) << 2) | ((h3 != me) << 3))
    # p's cell written whole: the stone, ever used, in me's chain, a ring of one with no pairs.
    # Then it is spliced into me's ring after me (nothing changes when me is p), and me's chain
    # counts it and its pairs. p's fields are written before the splice so that the case
    # me == p needs no choice: selecting the values instead puts a load on the critical path
    stone.color = <uint8_t>colour
    stone.ever = 1
    stone.head = <int16_t>me
    stone.next = <int16_t>p
    stone.plibs = 0
    jset_cell(b, j, &cl[p], stone)
    jset16(b, j, &size[p], 0)
    t = cl[me].next
    jset16(b, j, &cl[me].next, <int16_t>p)
    jset16(b, j, &cl[p].next, <int16_t>t)
    jset16(b, j, &size[me], size[me] + 1)
    jset16(b, j, &cl[me].plibs, cl[me].plibs + pop4(around & NBR_EMPTY))
    # join the other own chains, lowest side first, each by its head now: a chain met on two
    # sides is me's own by the second
    hh[1] = h1
    hh[2] = h2
    hh[3] = h3
    while more:
        other = cl[hh[ctz64(<uint64_t>more)]].head
        if other != me:
            me = merge_chains(b, j, me, other)
        more &= more - 1
    if takes:                           # the capturing sides alone, lowest first
        nb[0] = p - s
        nb[1] = p - 1
        nb[2] = p + 1
        nb[3] = p + s
        while takes:
            q = nb[ctz64(<uint64_t>takes)]
            takes &= takes - 1
            if cl[q].color == opp:      # a chain met again after its capture has no stone there
                captured += remove_chain(b, j, cl[q].head)
        jset32(b, j, &b.captures[colour], b.captures[colour] + captured)
    elif cl[me].plibs == 0:             # self-capture: only possible when nothing was captured
        removed = remove_chain(b, j, me)
        jset32(b, j, &b.captures[opp], b.captures[opp] + removed)
    if FASTGO_DEBUG:
        debug_check_nbr(b)
    return captured


# ---------------------------------------------------------------------------------------------
# Scoring.

cdef inline void board_colours(const BoardState* b, uint8_t* out) noexcept nogil:
    """The padded colouring of b as npad bytes at out (a copy to read or mark)."""
    cdef int p
    for p in range(b.npad):
        out[p] = b.cell[p].color

cdef inline int empty_region(uint8_t* colour, int step, int s, int p, int16_t* region,
                             int* reach) noexcept nogil:
    """Flood the empty region of the unvisited empty point p in a padded colouring (row stride
    s) whose point q has its colour at colour[q * step] (step 1: a byte array; sizeof(Cell): a
    board's cells): write its points to region, mark them visited (WALL + 1), OR into reach the
    colours it touches (BLACK | WHITE = 3: both). Returns its size."""
    cdef int n = 1, i = 0, q, k, v
    cdef int nb[4]
    region[0] = p
    colour[p * step] = WALL + 1
    reach[0] = 0
    while i < n:
        q = region[i]
        i += 1
        neighbours(nb, q, s)
        for k in range(4):
            v = colour[nb[k] * step]
            if v == EMPTY:
                colour[nb[k] * step] = WALL + 1
                region[n] = nb[k]
                n += 1
            elif v == BLACK or v == WHITE:
                reach[0] |= v
    return n

cdef inline void board_ownership(uint8_t* colour, int step, const BoardState* b, int8_t* owner,
                                 int* owned, int* territory) noexcept nogil:
    """Owner of every point of a padded colouring with b's layout (colour[q * step], as in
    empty_region): a stone's colour, or for an empty point the single colour its empty region
    reaches (rule 3), else 0. Writes owner[row * width + col], owned[c] = points owned by c and
    territory[c] = the empty ones among them; owner may be NULL. Marks visited empty points
    (as WALL + 1), which may be in b's own cells when the board is not used again."""
    cdef int16_t region[MAX_POINTS]
    cdef int r, c, p, n, i, reach, v
    cdef int s = b.stride
    owned[0] = owned[1] = owned[2] = 0
    territory[0] = territory[1] = territory[2] = 0
    for r in range(b.height):
        for c in range(b.width):
            p = (r + 1) * s + c
            v = colour[p * step]
            if v == BLACK or v == WHITE:
                if owner != NULL:
                    owner[r * b.width + c] = v
                owned[v] += 1
            elif v == EMPTY:
                n = empty_region(colour, step, s, p, region, &reach)
                if reach == 3:
                    reach = 0               # reaches both colours: nobody's
                owned[reach] += n
                territory[reach] += n
                if owner != NULL:
                    for i in range(n):
                        owner[from_pad(b, region[i])] = reach

cdef inline double score_points(const BoardState* b, const int* owned, const int* territory,
                                bint by_territory, double komi, int dead_black, int dead_white,
                                double* black, double* white) noexcept nogil:
    """The score of a counted position (owned and territory as board_ownership leaves them):
    under area scoring (rule 9) each colour's points are the points it owns; under territory
    scoring its empty points it owns plus its prisoners (b.captures) and the opponent's stones
    taken besides: dead_white are White's stones marked dead or taken before this board's part
    of a resumed game (Black's prisoners), dead_black Black's. Komi joins White's points last.
    Stores both and returns Black's minus White's (winner_of gives the winner)."""
    if by_territory:
        black[0] = territory[BLACK] + b.captures[BLACK] + dead_white
        white[0] = territory[WHITE] + b.captures[WHITE] + dead_black
    else:
        black[0] = owned[BLACK]
        white[0] = owned[WHITE]
    white[0] += komi
    return black[0] - white[0]

cdef inline int winner_of(double margin) noexcept nogil:
    """BLACK, WHITE, or EMPTY for a tie, from Black's points minus White's."""
    return BLACK if margin > 0 else WHITE if margin < 0 else EMPTY

cdef inline void board_area_counts(BoardState* b, int* owned, int* territory) noexcept nogil:
    """owned and territory as board_ownership leaves them, faster where a random game ends:
    stones are counted without branches, and the empty points are read from the empty list; one
    with no empty neighbour (an eye, mostly) is a region of its own, owned by the one colour
    among its neighbours. Marks visited points in b's cells: b is not used again."""
    cdef int16_t region[MAX_POINTS]
    cdef int k, p, n, m, reach, s = b.stride, black = 0, white = 0, v
    cdef Cell* cl = b.cell
    cdef const int16_t* empty = empty_list(b)
    for p in range(s, b.npad - s):      # the rows of the board in one loop (walls count nothing)
        v = cl[p].color
        black += v == BLACK
        white += v == WHITE
    owned[0] = territory[0] = territory[1] = territory[2] = 0
    owned[BLACK] = black
    owned[WHITE] = white
    for k in range(b.num_empty):
        p = empty[k]
        if cl[p].color != EMPTY:
            continue                        # in a region already counted
        m = nbr_masks(b)[p]
        if m & NBR_EMPTY:
            n = empty_region(&cl[0].color, sizeof(Cell), s, p, region, &reach)
        else:
            n = 1
            # BLACK 1, WHITE 2, both 3, neither (walls only) 0
            reach = ((m & nbr_of(BLACK)) != 0) | (((m & nbr_of(WHITE)) != 0) << 1)
        reach = 0 if reach == 3 else reach
        owned[reach] += n
        territory[reach] += n


# ---------------------------------------------------------------------------------------------
# A multiset of 64-bit hashes with LIFO removal: the colourings (or situations) of a game so far.
# Open addressing with linear probing; a removed key stays as a tombstone (count 0) so that probe
# chains of other keys are never cut.

ctypedef struct HashSet:
    uint64_t* keys
    int32_t* counts        # -1 never used, 0 tombstone, > 0 occurrences
    int64_t cap            # power of two
    int64_t used           # slots not -1

cdef inline int64_t hashset_find(const HashSet* s, uint64_t key) noexcept nogil:
    """Slot holding `key` (maybe a tombstone), or the never-used slot where it would go. The keys
    are Zobrist hashes, uniform in every bit, so their low bits index the table unmixed."""
    cdef int64_t i = <int64_t>(key & <uint64_t>(s.cap - 1))
    while s.counts[i] != -1 and s.keys[i] != key:
        i = (i + 1) & (s.cap - 1)
    return i

cdef inline bint hashset_contains(const HashSet* s, uint64_t key) noexcept nogil:
    return s.counts[hashset_find(s, key)] > 0

cdef inline void hashset_add(HashSet* s, uint64_t key) noexcept nogil:
    """Add one occurrence; the caller has reserved room (hashset_reserve): a full table has no
    never-used slot left, and the probe for a new key would never end."""
    cdef int64_t i = hashset_find(s, key)
    if s.counts[i] == -1:
        FASTGO_ASSERT(2 * (s.used + 1) <= s.cap, "hashset_add: room reserved by hashset_reserve "
                      "(load at most one half); keys", s.used)
        s.keys[i] = key
        s.counts[i] = 1
        s.used += 1
    else:
        s.counts[i] += 1

cdef inline void hashset_remove(HashSet* s, uint64_t key) noexcept nogil:
    """Remove one occurrence of a key that is present."""
    cdef int64_t i = hashset_find(s, key)
    FASTGO_ASSERT(s.counts[i] > 0, "hashset_remove: the key is present; slot", i)
    s.counts[i] -= 1

cdef inline int hashset_init(HashSet* s, int64_t cap) noexcept nogil:
    """An empty set with room for cap / 2 keys (cap a power of two). Returns -1 when out of memory.
    Keys and counts share one allocation."""
    s.keys = <uint64_t*>malloc(<size_t>cap * (sizeof(uint64_t) + sizeof(int32_t)))
    if s.keys == NULL:
        s.counts = NULL
        s.cap = 0
        s.used = 0
        return -1
    s.counts = <int32_t*>(s.keys + cap)
    memset(s.counts, 0xFF, <size_t>cap * sizeof(int32_t))
    s.cap = cap
    s.used = 0
    return 0

cdef inline void hashset_clear(HashSet* s) noexcept nogil:
    """Empty the set, keeping its room."""
    memset(s.counts, 0xFF, <size_t>s.cap * sizeof(int32_t))
    s.used = 0

cdef inline void hashset_free(HashSet* s) noexcept nogil:
    free(s.keys)
    s.keys = NULL
    s.counts = NULL
    s.cap = 0
    s.used = 0

cdef inline int hashset_reserve(HashSet* s, int64_t extra) noexcept nogil:
    """Make room for `extra` more keys, keeping the load under one half (tombstones are dropped
    when the table is rebuilt). Returns -1 when out of memory, leaving the set unchanged."""
    cdef HashSet t
    cdef int64_t cap = 16, live = 0, i, k
    if 2 * (s.used + extra) <= s.cap:
        return 0
    for i in range(s.cap):
        live += s.counts[i] > 0
    # size for the live keys only: tombstones left by undo must not make the table grow forever.
    # A load of at most 3/8 after the rebuild leaves cap / 8 keys before the next one (a table
    # that grows doubles; at most a quarter, the table of a growing game grew fourfold)
    while 8 * (live + extra) > 3 * cap:
        cap *= 2
    if hashset_init(&t, cap) != 0:
        return -1
    for i in range(s.cap):
        if s.counts[i] > 0:
            k = hashset_find(&t, s.keys[i])
            t.keys[k] = s.keys[i]
            t.counts[k] = s.counts[i]
            t.used += 1
    hashset_free(s)
    s[0] = t
    return 0

cdef inline int hashset_copy(HashSet* dst, const HashSet* src) noexcept nogil:
    """dst becomes an independent copy of src (dst not initialised). Returns -1 when out of memory."""
    if src.cap == 0:
        return hashset_init(dst, 16)
    dst.keys = <uint64_t*>malloc(<size_t>src.cap * (sizeof(uint64_t) + sizeof(int32_t)))
    if dst.keys == NULL:
        dst.counts = NULL
        dst.cap = 0
        dst.used = 0
        return -1
    memcpy(dst.keys, src.keys, <size_t>src.cap * (sizeof(uint64_t) + sizeof(int32_t)))
    dst.counts = <int32_t*>(dst.keys + src.cap)
    dst.cap = src.cap
    dst.used = src.used
    return 0


# ---------------------------------------------------------------------------------------------
# The rules' judgement of a move: the one place Board and BoardBatch ask whether a move is legal.

cdef inline uint64_t superko_key(int ko_rule, uint64_t h, int to_move) noexcept nogil:
    """What superko remembers of a colouring with hash h and `to_move` to play: the colouring
    alone (positional) or with the side to move (situational: h ^ the white-to-move key)."""
    if ko_rule == KO_SITUATIONAL and to_move == WHITE:
        return h ^ white_to_move_key()
    return h

# A game's superko memory as judge_play asks it: contains(memory, key) says whether the game so
# far has had a colouring (or situation) with that key. Board keeps the keys as a table of its turns,
# BoardBatch and the playouts as a HashSet (hashset_seen); a function pointer lets one judgement
# serve both, and it is called only for the rare plays that could repeat a colouring.
ctypedef bint (*SeenFn)(const void* memory, uint64_t key) noexcept nogil

cdef inline bint hashset_seen(const void* memory, uint64_t key) noexcept nogil:
    """SeenFn over a HashSet."""
    return hashset_contains(<const HashSet*>memory, key)

cdef inline int judge_by_preview(const BoardState* b, int p, int colour, int ko_rule, bint suicide,
                                 const uint64_t* ko_hash, SeenFn seen, const void* memory,
                                 uint64_t* new_hash) noexcept nogil:
    """judge_play by board_preview: every case, the resulting colouring's hash stored."""
    cdef int status, captured
    cdef uint64_t h
    status = board_preview(b, p, colour, &h, &captured)
    new_hash[0] = h
    if status == OCCUPIED:
        return OCCUPIED
    if status == SUICIDE and not suicide:
        return SUICIDE
    if ko_rule == KO_SIMPLE:
        if ko_hash != NULL and h == ko_hash[0]:
            return KO
        return LEGAL
    if status == LEGAL and not b.cell[p].ever:
        return LEGAL        # the stone stands where none ever stood: a colouring never seen
    if seen(memory, superko_key(ko_rule, h, 3 - colour)):
        return SUPERKO
    return LEGAL

cdef inline bint plays_freely_by(uint16_t nb, uint8_t ever, int ko_rule) noexcept nogil:
    """A play on an empty point with neighbour masks nb is legal whatever the colour and the
    game so far: the point has an empty neighbour, so the stone keeps a liberty (no suicide),
    and either the ko rule is simple ko, which cannot bite there (a retake refills the point
    after the opponent's last turn captured our lone stone on it, so every neighbour was then,
    and still is, a wall or an opponent's stone), or no stone ever stood there (`ever` 0: a
    colouring that cannot have occurred before). Branch-free: random positions make each test
    unpredictable."""
    return ((nb & NBR_EMPTY) != 0) & ((ko_rule == KO_SIMPLE) | (ever == 0))

cdef inline int captured_by(const BoardState* b, int p, int colour, int* taken) noexcept nogil:
    """How many opponent stones a play of `colour` at the empty point p captures (0 when none;
    without an opponent's neighbour, one read). taken: the head of a captured chain (the stone
    itself when a single stone is captured), left as it was when none is."""
    cdef int heads[4]
    cdef int n, k, h, captured = 0, opp = 3 - colour
    if not (nbr_masks(b)[p] & nbr_of(opp)):
        return 0
    n = distinct_neighbour_chains(b, p, heads)
    for k in range(n):
        h = heads[k]
        if b.cell[h].color == opp and takes_last_liberty(b, p, h):
            captured += chain_sizes(b)[h]
            taken[0] = h
    return captured

cdef inline bint is_ko_retake(const BoardState* b, int p, int colour, int captured, int taken,
                              const uint64_t* ko_hash) noexcept nogil:
    """The capturing play of `colour` at p (capturing `captured` stones, `taken` among them)
    recreates *ko_hash, the colouring before the opponent's last turn (NULL: no turn yet). Only
    a single-stone capture can: that turn must have captured exactly our stone at p and this one
    takes exactly its stone back, so only then is a hash formed."""
    return (ko_hash != NULL and captured == 1 and
            (b.hash ^ zkey(colour, p) ^ zkey(3 - colour, taken)) == ko_hash[0])

cdef inline int retakes_ko(const BoardState* b, int p, int colour, const uint64_t* ko_hash) noexcept nogil:
    """KO when the capturing play of `colour` at p recreates *ko_hash (is_ko_retake), else LEGAL."""
    cdef int taken = 0, captured
    if ko_hash == NULL:
        return LEGAL
    captured = captured_by(b, p, colour, &taken)
    return KO if is_ko_retake(b, p, colour, captured, taken, ko_hash) else LEGAL

# What a caller may know of its superko memory that spares look-ups (judge_quick's `fresh`):
cdef enum:
    QUIET_FRESH = 1     # no play by the mover that removes no stone leaves a remembered colouring
    CAPTURE_FRESH = 2   # nor does a play that removes opponent stones only

cdef inline int last_liberty_sides(const BoardState* b, int p) noexcept nogil:
    """The sides of p as a 4-bit mask (bit k: p - s, p - 1, p + 1, p + s, as the neighbour
    masks) where the neighbour is a stone of a chain whose only liberty is the empty point p
    (takes_last_liberty)."""
    # the four judged without a branch (random positions make every test here unpredictable,
    # and telling costs more than judging): a chain met twice is judged twice, and the stones of
    # h_k next to p are 1 + its equal pairs. Walls and empty points have head 0, whose plibs
    # (a wall's) stays 0: never equal to a count of at least 1.
    cdef int h0, h1, h2, h3, e01, e02, e03, e12, e13, e23, s = b.stride
    FASTGO_ASSERT(b.cell[0].plibs == 0, "last_liberty_sides: the wall at 0 has no "
                  "pseudo-liberty; plibs", b.cell[0].plibs)
    h0 = b.cell[p - s].head
    h1 = b.cell[p - 1].head
    h2 = b.cell[p + 1].head
    h3 = b.cell[p + s].head
    e01 = h0 == h1
    e02 = h0 == h2
    e03 = h0 == h3
    e12 = h1 == h2
    e13 = h1 == h3
    e23 = h2 == h3
    return ((b.cell[h0].plibs == 1 + e01 + e02 + e03) |
            ((b.cell[h1].plibs == 1 + e01 + e12 + e13) << 1) |
            ((b.cell[h2].plibs == 1 + e02 + e12 + e23) << 2) |
            ((b.cell[h3].plibs == 1 + e03 + e13 + e23) << 3))

cdef inline bint is_sole_liberty(const BoardState* b, int p) noexcept nogil:
    """The empty point p is the only liberty of a chain next to it (of either colour)."""
    return last_liberty_sides(b, p) != 0

cdef inline void judge_neighbours(const BoardState* b, int p, int colour, bint* takes,
                                  bint* survives) noexcept nogil:
    """For a play of `colour` at the empty point p: whether it takes the last liberty of an
    opponent chain next to p, and whether an own chain next to p keeps a liberty other than p."""
    cdef int n = nbr_masks(b)[p], last = last_liberty_sides(b, p)
    takes[0] = (n >> (4 * (3 - colour))) & last != 0
    survives[0] = (n >> (4 * colour)) & 0xF & ~last != 0

cdef inline int judge_lives(const BoardState* b, int p, int colour, int ko_rule, bint suicide,
                            const uint64_t* ko_hash, SeenFn seen, const void* memory, int fresh,
                            bint takes) noexcept nogil:
    """judge_quick for a play of `colour` at the empty point p whose stone stays on the board
    (it keeps a liberty, or an own chain it joins does, or it captures: `takes`): legal unless
    it repeats a colouring."""
    cdef uint64_t h
    if not takes:
        if ko_rule == KO_SIMPLE or (fresh & QUIET_FRESH) or not b.cell[p].ever:
            # the colouring gains this stone alone: no retake (that refills a point walled in
            # by the opponent by capturing, see plays_freely_by), and under superko nothing repeated
            return LEGAL
        h = b.hash ^ zkey(colour, p)
        return SUPERKO if seen(memory, superko_key(ko_rule, h, 3 - colour)) else LEGAL
    if ko_rule == KO_SIMPLE:
        return retakes_ko(b, p, colour, ko_hash)
    if fresh & CAPTURE_FRESH:
        return LEGAL
    return judge_by_preview(b, p, colour, ko_rule, suicide, ko_hash, seen, memory, &h)

cdef inline int judge_with_liberty(const BoardState* b, int p, int colour, int ko_rule,
                                   const uint64_t* ko_hash, SeenFn seen, const void* memory,
                                   int fresh) noexcept nogil:
    """judge_quick for an empty point p with an empty neighbour: the stone keeps a liberty, so
    the play is legal unless it repeats a colouring (superko; simple ko only by a capture)."""
    cdef bint takes = False, survives
    if fresh == QUIET_FRESH | CAPTURE_FRESH:
        return LEGAL
    if nbr_masks(b)[p] & nbr_of(3 - colour):      # a capture needs an opponent's neighbour
        judge_neighbours(b, p, colour, &takes, &survives)
    # (no suicide: the suicide option does not matter)
    return judge_lives(b, p, colour, ko_rule, True, ko_hash, seen, memory, fresh, takes)

cdef inline int judge_lone_suicide(const BoardState* b, int colour, int ko_rule, bint suicide,
                                   const uint64_t* ko_hash, SeenFn seen,
                                   const void* memory) noexcept nogil:
    """judge_quick for a play of `colour` walled in by the opponent that captures nothing: the
    stone is cleared at once, leaving the colouring as it is with the opponent to move. Refused
    as a suicide when suicide is off; else a repeat under positional superko; under simple ko a
    retake only when the opponent's turn changed nothing (a pass, or a lone stone's suicide)."""
    if not suicide:
        return SUICIDE
    if ko_rule == KO_POSITIONAL:
        return SUPERKO
    if ko_rule == KO_SIMPLE:
        return KO if ko_hash != NULL and b.hash == ko_hash[0] else LEGAL
    return SUPERKO if seen(memory, superko_key(ko_rule, b.hash, 3 - colour)) else LEGAL

cdef inline int judge_walled(const BoardState* b, int p, int colour, int ko_rule, bint suicide,
                             const uint64_t* ko_hash, SeenFn seen, const void* memory,
                             int fresh) noexcept nogil:
    """judge_quick for an empty point p with no empty neighbour: the stone lives by a capture or
    by an own chain that keeps another liberty; otherwise the play is a suicide."""
    cdef bint takes, survives
    cdef uint64_t h
    cdef uint16_t nb = nbr_masks(b)[p]
    if ko_rule == KO_SIMPLE and suicide and (nb & nbr_of(colour)):
        # next to an own stone: no retake (see plays_freely_by); a suicide is allowed and
        # clears own stones that stood before the opponent's last turn too (a turn never adds
        # the other side's stones), so it cannot recreate that colouring
        return LEGAL
    judge_neighbours(b, p, colour, &takes, &survives)
    if takes or survives:
        return judge_lives(b, p, colour, ko_rule, suicide, ko_hash, seen, memory, fresh, takes)
    if not (nb & nbr_of(colour)):
        return judge_lone_suicide(b, colour, ko_rule, suicide, ko_hash, seen, memory)
    if not suicide:
        return SUICIDE
    return judge_by_preview(b, p, colour, ko_rule, suicide, ko_hash, seen, memory, &h)

cdef inline int judge_calm(const BoardState* b, int p, int colour, int ko_rule, bint suicide,
                           const uint64_t* ko_hash, SeenFn seen, const void* memory,
                           int fresh) noexcept nogil:
    """judge_quick for an empty point p that is no chain's only liberty (is_sole_liberty
    false): the play captures nothing and every own chain next to p keeps another liberty, so
    the stone stays when it has an empty or an own neighbour, and is a lone stone's suicide
    otherwise. No chain is read."""
    if nbr_masks(b)[p] & (NBR_EMPTY | nbr_of(colour)):
        return judge_lives(b, p, colour, ko_rule, suicide, ko_hash, seen, memory, fresh, False)
    return judge_lone_suicide(b, colour, ko_rule, suicide, ko_hash, seen, memory)

cdef inline int judge_quick(const BoardState* b, int p, int colour, int ko_rule, bint suicide,
                            const uint64_t* ko_hash, SeenFn seen, const void* memory,
                            int fresh) noexcept nogil:
    """judge_play without the resulting hash: only the plays that could repeat a colouring get
    theirs computed. `fresh` (superko rules; QUIET_FRESH | CAPTURE_FRESH): what the caller knows
    that no play of a kind can repeat, from the stone counts such plays leave (BoardBatch keeps
    the counts of its memory's colourings)."""
    cdef uint16_t nb = nbr_masks(b)[p]
    if b.cell[p].color != EMPTY:
        return OCCUPIED
    if plays_freely_by(nb, b.cell[p].ever, ko_rule):
        return LEGAL
    if nb & NBR_EMPTY:
        return judge_with_liberty(b, p, colour, ko_rule, ko_hash, seen, memory, fresh)
    return judge_walled(b, p, colour, ko_rule, suicide, ko_hash, seen, memory, fresh)

cdef inline int judge_play(const BoardState* b, int p, int colour, int ko_rule, bint suicide,
                           const uint64_t* ko_hash, SeenFn seen, const void* memory,
                           uint64_t* new_hash) noexcept nogil:
    """Why `colour` may not play the padded point p now (LEGAL = it may), the game not over:
    OCCUPIED; SUICIDE when the play clears the mover's own stones and suicide is off; under the
    simple ko rule KO when the play recreates *ko_hash, the colouring before the opponent's last
    turn (ko_hash NULL before any turn); under superko SUPERKO when seen(memory, key) holds the key
    (superko_key) of the colouring the play leaves with the opponent to move. Stores that
    colouring's hash in new_hash, unless new_hash is NULL (judge_quick)."""
    if new_hash == NULL:
        return judge_quick(b, p, colour, ko_rule, suicide, ko_hash, seen, memory, 0)
    return judge_by_preview(b, p, colour, ko_rule, suicide, ko_hash, seen, memory, new_hash)

cdef inline int judge_move(const BoardState* b, int point, int colour, bint over, int ko_rule,
                           bint suicide, const uint64_t* ko_hash, SeenFn seen, const void* memory,
                           uint64_t* new_hash) noexcept nogil:
    """judge_play for a public point, or the pass (point = width * height, always legal while
    the game goes on); GAME_OVER for any move once `over` (two passes). new_hash may be NULL."""
    if over:
        return GAME_OVER
    if point == b.width * b.height:
        if new_hash != NULL:
            new_hash[0] = b.hash
        return LEGAL
    return judge_play(b, to_pad(b, point), colour, ko_rule, suicide, ko_hash, seen, memory, new_hash)

# A legal mask is judged in two parts. Most empty points play freely (plays_freely_by: legal
# whatever the colour and the history, a fact that changes only when a neighbour changes); the
# rest, the "hard" points, are judged one by one. They come in two kinds, kept apart so that
# the judgement needs no test of which: points with an empty neighbour (under superko, used
# before: judge_with_liberty, legal at once when the caller's memory rules out every repeat)
# and walled-in points (judge_walled). A caller that keeps a mask from turn to turn
# (BoardBatch) keeps the hard points as a bitset over padded points in three parts of
# hard_words() words (with a liberty, walled in, then "sole liberties"), settles the points
# next to a play (settle_point) and judges only the hard ones again (judge_hard). The third
# part holds 1 at least at every empty point that is some chain's only liberty
# (is_sole_liberty): a hard point with 0 there captures nothing and leaves every own chain a
# liberty, and is judged without reading a chain (judge_calm); one with 1 is judged in full, so
# a superset is exact too, only slower. Only a chain next to a play loses a liberty, so the
# part is kept by looking at those chains (settle_sole_liberties).

cdef inline int hard_words(const BoardState* b) noexcept nogil:
    """64-bit words of one part of a hard-point bitset: (npad + 63) // 64."""
    return (b.npad + 63) >> 6

cdef inline int public_of(int p, int s, uint32_t s_inv) noexcept nogil:
    """from_pad(b, p) for a board of stride s, s_inv = ceil(2**20 / s): p // s as a multiply and
    a shift, exact for every padded index (p * s_inv / 2**20 exceeds p / s by less than
    MAX_PAD / 2**20 < 1 / s, short of the next whole number); no division."""
    return p - s - <int>((<uint32_t>p * s_inv) >> 20) + 1    # (row - 1) * width + p - row * stride

cdef inline uint32_t stride_inverse(int s) noexcept nogil:
    return ((1 << 20) + s - 1) // s

cdef inline bint tracks_sole_liberties(int ko_rule, bint suicide) noexcept nogil:
    """Whether a kept hard-point bitset follows the sole liberties (settle_sole_liberties) under
    these rules, or holds 1 at every point in that part. Under simple ko with suicide allowed
    no point with a liberty is hard and a walled point next to an own stone is legal at once
    (judge_walled): judge_calm spares little, less than the upkeep's mispredicted branches cost
    (BoardBatch, 9x9 simple ko, the two builds side by side: 0.83-0.86 of the time without)."""
    return ko_rule != KO_SIMPLE or not suicide

cdef inline bint judge_hard(const BoardState* b, int colour, int ko_rule, bint suicide,
                            const uint64_t* ko_hash, SeenFn seen, const void* memory,
                            int fresh, const uint64_t* hard, uint8_t* out,
                            bint liberty_clean) noexcept nogil:
    """out[public point] = (judge_play == LEGAL) for every padded point in the two kinds of
    hard point of the three-part bitset `hard` (fresh: see judge_quick); those outside the
    third part by judge_calm. A point with a liberty is legal whenever the memory rules out
    every repeat its play can make (both kinds for a sole liberty, QUIET_FRESH for the others),
    and settle_point and judge_mask write 1 there: with `liberty_clean` (no such entry of out
    is 0) those are skipped. Returns whether some entry of that kind is 0 now (the next call's
    liberty_clean is its negation)."""
    cdef int w, p, s = b.stride, words = hard_words(b)
    cdef uint32_t s_inv = stride_inverse(s)
    cdef uint64_t bits
    cdef bint refused = False, ok
    cdef bint skip_calm = liberty_clean and (fresh & QUIET_FRESH)
    cdef bint skip_sole = liberty_clean and fresh == QUIET_FRESH | CAPTURE_FRESH
    # where the rules keep no sole liberties every hard point is judged in full, in one loop a
    # kind (each loop's exit is a branch mispredicted about once a word)
    cdef bint calm = tracks_sole_liberties(ko_rule, suicide)
    for w in range(words):
        if calm and not skip_calm:
            bits = hard[w] & ~hard[2 * words + w]
            while bits:
                p = (w << 6) + ctz64(bits)
                bits &= bits - 1
                ok = judge_calm(b, p, colour, ko_rule, suicide, ko_hash, seen, memory,
                                fresh) == LEGAL
                out[public_of(p, s, s_inv)] = ok
                refused |= not ok
        if not skip_sole:
            bits = hard[w] & (hard[2 * words + w] if calm else ~(<uint64_t>0))
            while bits:
                p = (w << 6) + ctz64(bits)
                bits &= bits - 1
                ok = judge_with_liberty(b, p, colour, ko_rule, ko_hash, seen, memory,
                                        fresh) == LEGAL
                out[public_of(p, s, s_inv)] = ok
                refused |= not ok
        if calm:
            bits = hard[words + w] & ~hard[2 * words + w]
            while bits:
                p = (w << 6) + ctz64(bits)
                bits &= bits - 1
                out[public_of(p, s, s_inv)] = judge_calm(b, p, colour, ko_rule, suicide, ko_hash,
                                                         seen, memory, fresh) == LEGAL
        bits = hard[words + w] & (hard[2 * words + w] if calm else ~(<uint64_t>0))
        while bits:
            p = (w << 6) + ctz64(bits)
            bits &= bits - 1
            out[public_of(p, s, s_inv)] = judge_walled(b, p, colour, ko_rule, suicide, ko_hash,
                                                       seen, memory, fresh) == LEGAL
    return refused

cdef inline void settle_point(const BoardState* b, int p, int q, int words, int ko_rule,
                              uint8_t* out, uint64_t* hard) noexcept nogil:
    """Point p's entry out[q] in a kept mask and its hard bits, after a play on or next to it:
    a stone 0, an empty point 1 when it has an empty neighbour (it plays freely, or it is hard
    with a liberty: see judge_hard), else hard and walled in (its entry judge_hard's). A wall
    clears its hard bits (never set) and writes 0 at out[q] (see settle_around)."""
    cdef uint64_t bit = <uint64_t>1 << (p & 63)
    cdef int w = p >> 6
    cdef uint16_t nb = nbr_masks(b)[p]
    cdef bint empty = b.cell[p].color == EMPTY
    cdef bint free = plays_freely_by(nb, b.cell[p].ever, ko_rule)
    cdef bint liberty = (nb & NBR_EMPTY) != 0
    # no branches: whether a neighbour's state changed is unpredictable
    hard[w] = (hard[w] & ~bit) | (bit * (empty & (not free) & liberty))
    hard[words + w] = (hard[words + w] & ~bit) | (bit * (empty & (not liberty)))
    out[q] = empty & liberty

cdef inline void settle_around(const BoardState* b, int p, int ko_rule, uint32_t s_inv,
                               uint8_t* out, uint64_t* hard) noexcept nogil:
    """settle_point for the on-board point p and its four neighbours: after p changed colour,
    theirs are the only neighbour masks that changed. s_inv: stride_inverse(b.stride). A
    neighbour's public index is p's plus or minus 1 or the width (stride - 1); a wall's entry
    goes to p's own, which p's settling writes last (no branch on which sides are walls:
    arithmetic, as GCC made branches of selects here)."""
    cdef int s = b.stride, w = s - 1, words = hard_words(b), q = public_of(p, s, s_inv)
    cdef const Cell* c = &b.cell[0]
    settle_point(b, p - s, q - w * (c[p - s].color != WALL), words, ko_rule, out, hard)
    settle_point(b, p - 1, q - (c[p - 1].color != WALL), words, ko_rule, out, hard)
    settle_point(b, p + 1, q + (c[p + 1].color != WALL), words, ko_rule, out, hard)
    settle_point(b, p + s, q + w * (c[p + s].color != WALL), words, ko_rule, out, hard)
    settle_point(b, p, q, words, ko_rule, out, hard)

cdef inline int chain_sole_liberty(const BoardState* b, int h) noexcept nogil:
    """The only liberty of the chain headed by h (a stone), or 0 when it has none or several:
    the chain is in atari exactly when this is not 0."""
    cdef int st = h, s = b.stride, k, e, lib = 0
    cdef int nb[4]
    if b.cell[h].plibs > 4 or (b.cell[h].plibs > 1 and chain_sizes(b)[h] == 1):
        return 0        # one liberty makes at most four pairs with a chain, one with a stone
    while True:
        neighbours(nb, st, s)
        for k in range(4):
            e = nb[k]
            if b.cell[e].color == EMPTY and e != lib:
                if lib:
                    return 0
                lib = e
        st = b.cell[st].next
        if st == h:
            return lib

cdef inline void set_bit(uint64_t* bits, int p) noexcept nogil:
    bits[p >> 6] |= <uint64_t>1 << (p & 63)

cdef inline void settle_sole_liberties(const BoardState* b, int q, uint64_t* sole) noexcept nogil:
    """The sole-liberty part of a kept hard-point bitset (judge_hard) after a play on the padded
    point q: q no longer counts, and each chain next to q lost a liberty there, so its only one
    left, if any, counts now. A turn adds no other sole liberty (a chain next to the stones it
    removes gains liberties), and the points it stops (that such a chain was in atari at) stay
    in the set until the next judge_mask: finding them cost more than judging them as hard."""
    cdef int nb[4]
    cdef int k, lib, colour = b.cell[q].color
    sole[q >> 6] &= ~(<uint64_t>1 << (q & 63))
    if colour == EMPTY:
        return          # a suicide: the chains next to q lost nothing
    lib = chain_sole_liberty(b, b.cell[q].head)
    if lib:
        set_bit(sole, lib)
    if nbr_masks(b)[q] & nbr_of(3 - colour):
        # a chain met on two sides is looked at twice: cheaper than telling
        neighbours(nb, q, b.stride)
        for k in range(4):
            if b.cell[nb[k]].color == 3 - colour:
                lib = chain_sole_liberty(b, b.cell[nb[k]].head)
                if lib:
                    set_bit(sole, lib)

cdef inline bint settling_pays(int gone, int npoints) noexcept nogil:
    """Whether a kept mask is settled after a play that removed `gone` stones (settle_play),
    or judged afresh (judge_mask): settling each freed point costs more past a fifth of the
    board."""
    return 5 * gone <= npoints

cdef inline void settle_play(const BoardState* b, int p, const int16_t* freed, int gone,
                             int ko_rule, bint suicide, uint32_t s_inv, uint8_t* out,
                             uint64_t* hard) noexcept nogil:
    """A kept mask (out) and its hard points after a stone on padded point p (p < 0: a pass)
    that removed the `gone` stones at freed[0..gone) (padded points): p, the freed points and
    their neighbours are the only ones whose neighbour masks, colours and `ever` changed
    (settle_around), and only the chains next to p lost a liberty (settle_sole_liberties). The
    hard points are then judged for the next mover by judge_hard. board_play appends the stones
    it removes to the empty list: freed = empty_list(b) + (num_empty before the play) - 1."""
    cdef int k
    if p >= 0:
        settle_around(b, p, ko_rule, s_inv, out, hard)
        if tracks_sole_liberties(ko_rule, suicide):
            settle_sole_liberties(b, p, hard + 2 * hard_words(b))
    for k in range(gone):
        settle_around(b, freed[k], ko_rule, s_inv, out, hard)

cdef inline bint judge_mask(const BoardState* b, int colour, bint over, int ko_rule, bint suicide,
                            const uint64_t* ko_hash, SeenFn seen, const void* memory,
                            int fresh, uint8_t* out, uint64_t* hard) noexcept nogil:
    """judge_move == LEGAL for every public point and, last, the pass: width * height + 1 bytes
    of 0/1 at out (fresh: see judge_quick). `hard`, when not NULL, receives the hard
    points and the sole liberties (3 * hard_words(b) words, see judge_hard; none once the game
    is over; all where tracks_sole_liberties is false). Returns judge_hard's answer (False once
    over)."""
    cdef int k, p, q, s = b.stride, npoints = b.width * b.height
    cdef bint free, kept = hard != NULL and tracks_sole_liberties(ko_rule, suicide)
    # local copies: every store to out (bytes) could alias the board, so a field read through
    # b inside the loop would be read again after each store
    cdef const int16_t* empty = empty_list(b)
    cdef const uint16_t* nbr = nbr_masks(b)
    cdef const Cell* cell = &b.cell[0]
    cdef uint64_t local[3 * MASK_WORDS]
    cdef uint32_t s_inv = stride_inverse(s)
    cdef int words = hard_words(b)
    cdef uint64_t bit
    if hard == NULL:
        hard = local
    memset(hard, 0, 3 * words * sizeof(uint64_t))
    memset(out, 0, npoints + 1)
    if over:
        return False
    out[npoints] = 1
    if not kept:            # for one judgement judge_walled's own look is cheaper than finding them
        memset(hard + 2 * words, 0xFF, words * sizeof(uint64_t))
    for k in range(b.num_empty):       # stones are never legal: only the empty points are judged
        p = empty[k]
        q = public_of(p, s, s_inv)
        FASTGO_ASSERT(q == from_pad(b, p), "judge_mask: the public index of padded point p", p)
        free = plays_freely_by(nbr[p], cell[p].ever, ko_rule)
        out[q] = (nbr[p] & NBR_EMPTY) != 0                  # see settle_point
        bit = <uint64_t>(1 - free) << (p & 63)              # no branches: unpredictable
        hard[(p >> 6) + words * ((nbr[p] & NBR_EMPTY) == 0)] |= bit
        if kept and (nbr[p] & ~NBR_EMPTY):         # a stone next to it: a chain's liberty
            hard[2 * words + (p >> 6)] |= <uint64_t>is_sole_liberty(b, p) << (p & 63)
    return judge_hard(b, colour, ko_rule, suicide, ko_hash, seen, memory, fresh, hard, out, True)
