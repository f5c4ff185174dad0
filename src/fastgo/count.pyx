"""Counting legal Go positions (Tromp and Farnebäck, "Combinatorics of Go").

The rule counted: a colouring of a ``width x height`` board (each point empty, black or white) is
a *legal position* when every chain (a maximal set of same-coloured stones connected through
horizontal and vertical neighbours) touches at least one empty point. Ko, history and whose turn
it is play no part.

- ``count_legal_positions(width, height)``: the exact count, by a transfer-matrix sweep (border-
  state dynamic programming) in C with exact multi-limb integer counts, or passes modulo
  2^(64 * limbs) and primes joined by the Chinese remainder theorem where those do not fit in
  memory; ``..._stats`` adds the sweep's figures, a checkpoint directory to resume from and a
  progress callback, and refuses a board whose tables (``sweep_memory``) would not fit even
  with one word a count.
- ``count_legal_positions_brute(width, height)``: every one of the 3^(w*h) colourings tested with
  bitboards (up to 20 points), the independent check of the sweep.
- ``legal_position_mask(boards)``: the test over a stack of boards ``[n, height, width]``.
- ``estimate_legal_fraction(width, height, samples)``: a Monte Carlo estimate of the legal
  fraction with a Wilson score confidence interval, for boards beyond exact counting.

Every kernel runs without the GIL over OpenMP threads. ``threads=None`` means all cores (or
OMP_NUM_THREADS), the default of the brute force, the mask and the estimate; the exact sweep
defaults to one thread (its parallel rounds meet at barriers, and on a loaded machine two threads
measured slower than one). A process forked from one that has run OpenMP code runs every kernel on
one thread (OpenMP's thread pool does not survive fork()).
"""

cimport cython
from cython.parallel cimport parallel, prange
from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset
from fastgo.core cimport clz64, ctz64, prefetch, mix64

cdef extern from *:
    """
    #include <stdlib.h>
    #include <sys/mman.h>
    /* A table of many MiB on 2 MiB pages where the kernel allows it (transparent huge pages in
       "madvise" mode): every probe of the sweep is a random access, and with 4 KiB pages nearly
       every one also misses the TLB. */
    static void* fastgo_table_alloc(size_t n) {
        void* p = NULL;
        if (n < ((size_t)4 << 20)) return malloc(n);
        if (posix_memalign(&p, (size_t)2 << 20, n) != 0) return NULL;
    #ifdef MADV_HUGEPAGE
        madvise(p, n, MADV_HUGEPAGE);
    #endif
        return p;
    }
    /* the high word of a * b: a hash times a table's size gives a slot index below it, so a
       table can have any size */
    #include <stdint.h>
    #if defined(__SIZEOF_INT128__)
    static inline uint64_t fastgo_mulhi(uint64_t a, uint64_t b) {
        return (uint64_t)(((unsigned __int128)a * b) >> 64);
    }
    #elif defined(_MSC_VER)
    #include <intrin.h>
    #define fastgo_mulhi(a, b) __umulh((a), (b))
    #endif
    """
    void* fastgo_table_alloc(size_t n) noexcept nogil
    uint64_t mulhi "fastgo_mulhi" (uint64_t a, uint64_t b) noexcept nogil

import hashlib
import json
import math
import numbers
import os
import sys
import statistics
import threading
import time
import warnings
from collections import namedtuple

import numpy as np

from fastgo.coords import MAX_SIDE, _index

# ---------------------------------------------------------------------------------------------
# Limits (each one is the reason of a ValueError below).

#: Longest frontier of the exact sweep: 16 cells of 4 bits fill a 64-bit state key (memory runs
#: out first: see ``sweep_memory``).
MAX_FRONTIER = 16
#: Longest board side of the exact sweep (the counts then need thousands of bits; the shorter
#: side, not this one, decides the time).
MAX_LENGTH = 1000
#: Most points the brute force takes: 3^20 = 3.5e9 colourings, about a minute on 2 cores.
MAX_BRUTE_POINTS = 20
#: Most threads of the exact sweep (each round holds a buffer per pair of threads).
MAX_SWEEP_THREADS = 64
#: Most threads of the other kernels (as every job's).
from fastgo.playout import _MAX_THREADS as MAX_THREADS
#: Most samples of one estimate: board i draws from its own block of 2^20 random words of a
#: splitmix64 stream, so blocks stay disjoint up to 2^44 boards.
MAX_SAMPLES = 10 ** 12

cdef enum:
    CELL_BITS = 4       # a cell of a state key
    CELL_MASK = 15
    KEY_LAB = 3         # key codes 3..10: KEY_LAB + 4 * (colour - 1) + SINGLE/OPEN/MIDDLE/CLOSE
    SINGLE = 0          # ... the chain's only cell on the frontier
    OPEN = 1            # ... its first of several
    MIDDLE = 2          # ... neither first nor last
    CLOSE = 3           # ... its last
    OFF = 255           # no neighbour there (board edge)
    EST_BATCH = 1 << 18 # boards per nogil batch of an estimate (signals are checked between)
    PARALLEL_STATES = 1 << 14   # fewer source states than this: one thread sweeps the point
    ROUND_SLICE = 1 << 18       # source slots a worker expands per round of a parallel point
    MIN_SLICE = 1 << 12         # ... at least, with many threads (see sweep_point)
    EXPAND_BATCH = 16           # successors prefetched together (see expand)

cdef uint64_t NO_KEY = 0xFFFFFFFFFFFFFFFF   # never a state: no cell of a key is 15
cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15


# one fork guard for the package: fastgo.playout's (a forked child runs on one thread)
from fastgo import playout as _playout
from fastgo.playout import default_threads


cdef int _threads(threads, int most) except -1:
    """A validated thread count (None is all cores, at most `most`; 1..most otherwise), as a
    job runs it (fastgo.playout._job_threads: at most the cores, one in a forked child)."""
    if threads is None:
        return min(default_threads(), most)
    t = _index(threads, "threads")
    if not 1 <= t <= most:
        raise ValueError(f"threads must be 1..{most} (or None for all cores), got {t}")
    return _playout._job_threads(t, "fastgo.count")


def _sides(width, height, int max_short, int max_long, what):
    w = _index(width, "width")
    h = _index(height, "height")
    if w < 1 or h < 1:
        raise ValueError(f"board size {w}x{h}: width and height must be positive")
    if min(w, h) > max_short or max(w, h) > max_long:
        most = (f"each side may be at most {max_long}" if max_short == max_long else
                f"the shorter side may be at most {max_short} and the longer at most {max_long}")
        raise ValueError(f"board size {w}x{h} out of range for {what}: {most}")
    return w, h


# ---------------------------------------------------------------------------------------------
# Exact counts: the transfer-matrix sweep.
#
# The board is swept point by point, row after row, along rows of the shorter side (the frontier,
# f cells). Before point (r, c) the frontier holds, for each column, its most recent point: row r
# for columns < c, row r - 1 for the others. Every state of the frontier maps to the number of
# colourings of the points swept so far that reach it and in which every chain already cut off
# from the unswept points has a liberty. The state key packs a frontier cell in 4 bits:
#     0 empty, 1 a black stone whose chain has a liberty, 2 the same for white,
#     KEY_LAB + 4 * (colour - 1) + kind (3..10): a stone whose chain has no liberty yet.
# Chains that have a liberty need no name: joining one gives the whole chain a liberty and
# nothing else. A chain without one is named by its shape, not by a label (Tromp and
# Farnebaeck's idea): the kind says whether the cell is the chain's only cell on the frontier, its
# first, a middle one or its last, which is enough because chains never cross on the frontier
# (they nest like brackets); so 16 cells fit a 64-bit key, and the sweep computes successors on
# the key itself, several cells at once. A state and its colour swap (which have the same count)
# share one entry keyed by the smaller code, which halves the table. Counts are exact unsigned
# integers of `limbs` 64-bit words, enough for 3^(w*h).

#
# Counts modulo. When exact counts do not fit in memory, the sweep runs several times, each pass
# counting modulo something smaller: 2^(64 * limbs) (the same arithmetic, the carry out of the
# top word dropped), or a residue per word modulo primes below 2^63; the Chinese remainder
# theorem joins the passes' residues into the exact count (count_legal_positions_stats).
#
# Tables. A point's successors go into a hash table (linear probing, any size: the slot index is
# the high word of hash * size); once the point is done the table is packed (its states moved to
# the front, the rest given back) and is the next point's source, which is only read in order.

ctypedef struct Table:
    uint64_t* slots     # cap slots of 1 + limbs words: the key (NO_KEY: free), then the count,
                        # least significant word first; one slot is one cache miss, not two
    int64_t cap         # slots (a packed table: cap == used, no free slot)
    int64_t used
    int limbs
    int stride          # 1 + limbs
    const uint64_t* primes  # NULL: a count is one number in limbs words, modulo 2^(64 * limbs);
                            # else word j is a residue modulo primes[j] (each below 2^63)


cdef int table_init(Table* t, int64_t cap, int limbs, const uint64_t* primes) noexcept nogil:
    """An empty table of `cap` slots. Returns -1 when out of memory."""
    cdef int64_t i
    t.stride = 1 + limbs
    t.slots = <uint64_t*>fastgo_table_alloc(<size_t>cap * t.stride * sizeof(uint64_t))
    t.cap = cap
    t.used = 0
    t.limbs = limbs
    t.primes = primes
    if t.slots == NULL:
        t.cap = 0
        return -1
    for i in range(cap):
        t.slots[i * t.stride] = NO_KEY
    return 0


cdef void table_pack(Table* t) noexcept nogil:
    """Move the used slots to the front and give the rest of the memory back: the table becomes
    a list of states (cap == used), read in order as the next point's source."""
    cdef int64_t i, n = 0
    cdef uint64_t* smaller
    for i in range(t.cap):
        if t.slots[i * t.stride] != NO_KEY:
            if n != i:
                memcpy(t.slots + n * t.stride, t.slots + i * t.stride,
                       t.stride * sizeof(uint64_t))
            n += 1
    smaller = <uint64_t*>realloc(t.slots, <size_t>max(n, 1) * t.stride * sizeof(uint64_t))
    if smaller != NULL:                 # else the block keeps its size: still correct
        t.slots = smaller
    t.cap = n


cdef void table_free(Table* t) noexcept nogil:
    free(t.slots)
    t.slots = NULL
    t.cap = 0
    t.used = 0


cdef inline uint64_t slot_key(const Table* t, int64_t i) noexcept nogil:
    return t.slots[i * t.stride]


cdef inline uint64_t* slot_val(const Table* t, int64_t i) noexcept nogil:
    return t.slots + i * t.stride + 1


cdef inline int64_t table_bytes(const Table* t) noexcept nogil:
    return t.cap * t.stride * <int64_t>sizeof(uint64_t)


cdef inline void add_counts(uint64_t* a, const uint64_t* b, int limbs,
                            const uint64_t* primes) noexcept nogil:
    """a += b: modulo 2^(64 * limbs) (the carry out of the top word is dropped), or word by
    word modulo primes[j]."""
    cdef uint64_t carry = 0, s, t
    cdef int j
    if primes == NULL:
        for j in range(limbs):
            s = a[j] + b[j]
            t = s + carry
            carry = (s < b[j]) | (t < carry)
            a[j] = t
    else:
        for j in range(limbs):
            s = a[j] + b[j]             # both below primes[j] < 2^63: no overflow
            a[j] = s - primes[j] if s >= primes[j] else s


cdef inline void table_put(Table* t, uint64_t key, uint64_t h, const uint64_t* val) noexcept nogil:
    """Add val to the count of key (h = mix64(key)); the table has a free slot."""
    cdef int64_t i = <int64_t>mulhi(h, <uint64_t>t.cap)
    cdef uint64_t* slot
    while True:
        slot = t.slots + i * t.stride
        if slot[0] == key:
            add_counts(slot + 1, val, t.limbs, t.primes)
            return
        if slot[0] == NO_KEY:
            slot[0] = key
            memcpy(slot + 1, val, t.limbs * sizeof(uint64_t))
            t.used += 1
            return
        i += 1
        if i == t.cap:
            i = 0


cdef int table_add(Table* t, uint64_t key, uint64_t h, const uint64_t* val) noexcept nogil:
    """Add val to the count of key, doubling the table first when it would pass 85% full
    (linear probing slows down sharply beyond; tables are sized for about 75%). Returns -1
    when out of memory."""
    cdef Table bigger
    cdef int64_t i
    if (t.used + 1) * 20 > t.cap * 17:
        if table_init(&bigger, 2 * t.cap, t.limbs, t.primes) != 0:
            return -1
        for i in range(t.cap):
            if slot_key(t, i) != NO_KEY:
                table_put(&bigger, slot_key(t, i), mix64(slot_key(t, i)), slot_val(t, i))
        table_free(t)
        t[0] = bigger
    table_put(t, key, h, val)
    return 0


# Frontier operations on the key itself, 4 bits a cell, several cells at once (SWAR). A mask of
# cells has the bit 4 * i set for cell i ("nibble ones"); times 15 it covers the cells' codes.

cdef uint64_t NIB1 = 0x1111111111111111     # every cell's lowest bit
cdef uint64_t NIB5 = 0x5555555555555555     # 5 in every cell: code + 5 has bit 3 set exactly
                                            # for the labelled codes 3..10, and then its two
                                            # low bits are the kind ((code - 3) & 3)

cdef inline int cell_of(uint64_t key, int i) noexcept nogil:
    return <int>((key >> (CELL_BITS * i)) & CELL_MASK)


cdef inline int code_colour(int code) noexcept nogil:
    """BLACK (1) or WHITE (2) of a stone's code, 0 for an empty cell."""
    return code if code < KEY_LAB else 1 + (code >= KEY_LAB + 4)


cdef inline uint64_t colour_swap(uint64_t key) noexcept nogil:
    """The key of the same frontier with black and white exchanged: 1 <-> 2, and a labelled
    code moves 4 up (black) or down (white), keeping its kind; 0 stays."""
    cdef uint64_t t = key + NIB5
    cdef uint64_t lab = (t >> 3) & NIB1
    cdef uint64_t white = (t >> 2) & lab                     # codes 7..10: t's bit 2 as well
    cdef uint64_t stone = (key | (key >> 1) | (key >> 2) | (key >> 3)) & NIB1
    return ((key + ((lab & ~white) << 2)) - (white << 2)) ^ ((stone & ~lab) * 3)


cdef inline uint64_t canonical(uint64_t key) noexcept nogil:
    """A frontier and its colour swap have the same count: one entry, the smaller key."""
    cdef uint64_t s = colour_swap(key)
    return key if key < s else s


cdef inline uint64_t chain_cells(uint64_t key, int i) noexcept nogil:
    """The cells (nibble ones) of the chain of the labelled cell i. A chain's cells are nested
    like brackets (chains never cross on the frontier): its first cell OPENs, its last CLOSEs.
    The level of every OPEN, MIDDLE and CLOSE cell (opens up to it, less closes before it) is
    its chain's nesting depth; the chain is the cells of that level from the OPEN at or before
    i to the CLOSE at or after it."""
    cdef uint64_t t = key + NIB5
    cdef uint64_t lab = (t >> 3) & NIB1
    cdef uint64_t b0 = t & NIB1, b1 = (t >> 1) & NIB1
    cdef uint64_t opens = lab & b0 & ~b1, closes = lab & b0 & b1, single = lab & ~b0 & ~b1
    cdef uint64_t bit = <uint64_t>1 << (CELL_BITS * i)
    cdef uint64_t level, x, same, below, above, lo, hi
    if single & bit:
        return bit
    # prefix sums in every cell at once (at most 8 opens: no carry between cells); every close
    # before a cell has its open before it too, so the difference borrows nowhere
    level = opens * NIB1 - (closes << 4) * NIB1
    x = level ^ (((level >> (CELL_BITS * i)) & CELL_MASK) * NIB1)
    same = (lab & ~single) & ~((x | (x >> 1) | (x >> 2) | (x >> 3)) & NIB1)
    below = same & opens & ((bit << 1) - 1)
    lo = <uint64_t>1 << (63 - clz64(below))
    above = same & closes & ~(bit - 1)
    hi = above & (~above + 1)
    return same & ~(lo - 1) & ((hi << 1) - 1)


cdef inline uint64_t set_cells(uint64_t key, uint64_t cells, int code) noexcept nogil:
    return (key & ~(cells * CELL_MASK)) | (cells * <uint64_t>code)


cdef inline uint64_t relabel(uint64_t key, uint64_t cells, int colour) noexcept nogil:
    """The cells (nibble ones, at least one) become one chain of `colour` without a liberty:
    SINGLE for one cell, else OPEN, MIDDLE..., CLOSE."""
    cdef int base = KEY_LAB + 4 * (colour - 1)
    if (cells & (cells - 1)) == 0:
        return set_cells(key, cells, base + SINGLE)
    key = set_cells(key, cells, base + MIDDLE)
    return key - (cells & (~cells + 1)) + (<uint64_t>1 << (63 - clz64(cells) & ~3))


cdef inline bint finish(uint64_t* key, int c, bint last_row) noexcept nogil:
    """After colouring point c: on the last row the points left of c have no unswept
    neighbour, so a chain without a liberty must keep a cell at c or right of it (else the
    colouring is not legal: False), and those cells are forgotten (set empty)."""
    cdef uint64_t k = key[0], left, t, lab, b0, b1, opens, cells
    cdef int i
    if not last_row or c == 0:
        return True
    left = NIB1 & ((<uint64_t>1 << (CELL_BITS * c)) - 1)
    t = k + NIB5
    lab = (t >> 3) & NIB1 & left
    b0 = t & NIB1
    b1 = (t >> 1) & NIB1
    if lab & ~(b0 ^ b1):                # a SINGLE or CLOSE left of c: a chain that ends there
        return False
    opens = lab & b0 & ~b1
    while opens:                        # chains running on past c: their cells from c on
        i = ctz64(opens) >> 2
        cells = chain_cells(k, i) & ~left
        key[0] = relabel(key[0], cells, code_colour(cell_of(k, i)))
        opens &= opens - 1
    key[0] &= ~(left * CELL_MASK)
    return True


cdef inline int successors(uint64_t key, int f, int r, int c, bint last_row,
                           uint64_t* out) noexcept nogil:
    """The keys reached by colouring point (r, c) empty, black, white; returns how many (a
    colouring that leaves a chain no way to a liberty is not a legal position and is left out).
    Cell c holds the point above, cell c - 1 the point to the left. An empty point gives both
    their chains a liberty. A stone joins the chains of its colour above and to the left; the
    joined chain has a liberty when one of them had one or the point touches an empty one. The
    point above leaves the frontier: an opponent's chain without a liberty that has no other
    cell there can never gain one."""
    cdef int up = cell_of(key, c) if r > 0 else OFF
    cdef int left = cell_of(key, c - 1) if c > 0 else OFF
    cdef int up_col = 0 if up == OFF else code_colour(up)
    cdef int left_col = 0 if left == OFF else code_colour(left)
    cdef bint up_lab = up != OFF and up >= KEY_LAB, left_lab = left != OFF and left >= KEY_LAB
    cdef bint up_same, left_same, lib
    cdef uint64_t bit = <uint64_t>1 << (CELL_BITS * c)
    cdef uint64_t up_cells = chain_cells(key, c) if up_lab else 0
    cdef uint64_t left_cells = chain_cells(key, c - 1) if left_lab else 0
    cdef uint64_t k, cells
    cdef int colour, n = 0
    # empty: a liberty of the chains above and to the left
    k = key
    if up_lab:
        k = set_cells(k, up_cells, up_col)
    if left_lab:
        k = set_cells(k, left_cells, left_col)
    k &= ~(bit * CELL_MASK)
    if finish(&k, c, last_row):
        out[n] = canonical(k)
        n += 1
    for colour in range(1, 3):
        k = key
        up_same = up_col == colour
        left_same = left_col == colour
        if up_lab and not up_same:
            # the opponent's stone above leaves the frontier: its chain keeps its other cells,
            # and with none left it can never gain a liberty
            if up_cells == bit:
                continue
            k = relabel(k, up_cells & ~bit, up_col)
        lib = up == 0 or left == 0 or (up_same and not up_lab) or (left_same and not left_lab)
        cells = bit
        if up_same:
            cells |= up_cells
        if left_same:
            cells |= left_cells
        if lib:                         # joins chains with a liberty or touches an empty point
            k = set_cells(k, cells, colour)
        elif not up_same or (left_same and (left_cells & up_cells) == 0):
            k = relabel(k, cells, colour)   # a new chain, one joined on the left or a merger
        # (else it extends the chain above in place: same cells, same codes)
        if finish(&k, c, last_row):
            out[n] = canonical(k)
            n += 1
    return n


cdef inline int part_of(uint64_t h, int nparts) noexcept nogil:
    """The table (of nparts) a successor with hash h goes to: from the hash's low bits, which
    the slot index (its high word times the size) hardly depends on."""
    return <int>(<uint32_t>h % <uint32_t>nparts)


cdef int expand(const Table* src, int nsrc, Table* dst, int f, int r, int c,
                bint last_row) noexcept nogil:
    """Sweep point (r, c) on one thread into the one table dst. Successors go in batches: the
    batch's slots are prefetched first, so the random accesses into dst overlap instead of
    waiting one by one. Returns -1 when out of memory."""
    cdef uint64_t out[3]
    cdef uint64_t keys[EXPAND_BATCH + 3]
    cdef uint64_t hashes[EXPAND_BATCH + 3]
    cdef const uint64_t* vals[EXPAND_BATCH + 3]
    cdef uint64_t h, key
    cdef int s, k, n, nb = 0, b
    cdef int64_t i
    for s in range(nsrc):
        for i in range(src[s].cap + 1):
            if i < src[s].cap:
                key = slot_key(&src[s], i)
                if key == NO_KEY:
                    continue
                n = successors(key, f, r, c, last_row, out)
                for k in range(n):
                    h = mix64(out[k])
                    keys[nb] = out[k]
                    hashes[nb] = h
                    vals[nb] = slot_val(&src[s], i)
                    prefetch(dst.slots + <int64_t>mulhi(h, <uint64_t>dst.cap) * dst.stride)
                    nb += 1
                if nb < EXPAND_BATCH:
                    continue
            for b in range(nb):
                if table_add(dst, keys[b], hashes[b], vals[b]) != 0:
                    return -1
            nb = 0
    return 0


ctypedef struct Buffer:
    uint64_t* items     # n items of `stride` words: a successor state, its hash (mix64), then
                        # the count it inherits (a copy: the source is then read in order only)
    int64_t n
    int64_t cap
    int stride          # 2 + limbs


cdef int buffer_reserve(Buffer* b, int64_t n) noexcept nogil:
    """Room for n items in b; -1 when out of memory."""
    cdef uint64_t* grown
    if n > b.cap:
        grown = <uint64_t*>realloc(b.items, <size_t>n * b.stride * sizeof(uint64_t))
        if grown == NULL:
            return -1
        b.items = grown
        b.cap = n
    return 0


cdef int scatter(const Table* src, int64_t start, int64_t stop, Buffer* out, int nparts, int f,
                 int r, int c, bint last_row) noexcept nogil:
    """Expand source slots start..stop-1, appending each successor to out[its table]."""
    cdef uint64_t succ[3]
    cdef uint64_t h
    cdef uint64_t* item
    cdef Buffer* b
    cdef int k, n
    cdef int64_t i
    for i in range(start, stop):
        if slot_key(src, i) == NO_KEY:
            continue
        n = successors(slot_key(src, i), f, r, c, last_row, succ)
        for k in range(n):
            h = mix64(succ[k])
            b = &out[part_of(h, nparts)]
            if b.n == b.cap and buffer_reserve(b, 2 * b.cap + 64) != 0:
                return -1
            item = b.items + b.n * b.stride
            item[0] = succ[k]
            item[1] = h
            memcpy(item + 2, slot_val(src, i), (b.stride - 2) * sizeof(uint64_t))
            b.n += 1
    return 0


cdef int gather(Buffer* bufs, int part, int nparts, Table* dst, Buffer* scratch) noexcept nogil:
    """Add every successor bound for table `part` (from every worker's buffer) into it, in 256
    runs by address: a counting sort on the hash's top byte (the slot index is the hash's high
    word times the size) into `scratch` (this part's own) puts together those that land in one
    256th of the table. In a table of many GiB nearly every random access would also miss the
    TLB, and a page walk costs more than the cache miss (a virtual machine walks two page
    tables); in runs, the translations of the few dozen pages a run touches stay at hand. The
    slot of the successor EXPAND_BATCH places ahead is prefetched."""
    cdef int t, bucket, stride = scratch.stride
    cdef int64_t i, n
    cdef Buffer* b
    cdef uint64_t* item
    cdef uint64_t* runs
    cdef int64_t start[257]
    memset(start, 0, sizeof(start))
    for t in range(nparts):
        b = &bufs[t * nparts + part]
        for i in range(b.n):
            start[(b.items[i * stride + 1] >> 56) + 1] += 1
    for bucket in range(256):
        start[bucket + 1] += start[bucket]
    n = start[256]
    if buffer_reserve(scratch, n) != 0:
        return -1
    runs = scratch.items
    for t in range(nparts):
        b = &bufs[t * nparts + part]
        for i in range(b.n):
            item = b.items + i * stride
            bucket = <int>(item[1] >> 56)
            memcpy(runs + start[bucket] * stride, item, stride * sizeof(uint64_t))
            start[bucket] += 1
        b.n = 0
    for i in range(n):
        if i + EXPAND_BATCH < n:
            prefetch(dst.slots + <int64_t>mulhi(runs[(i + EXPAND_BATCH) * stride + 1],
                                                <uint64_t>dst.cap) * dst.stride)
        item = runs + i * stride
        if table_add(dst, item[0], item[1], item + 2) != 0:
            return -1
    return 0


cdef int sweep_point(const Table* src, int nsrc, Table* dst, int nt, int f, int r, int c,
                     bint last_row) noexcept:
    """One point of the sweep on nt threads, each owning table dst[t] (the successors whose hash
    bits pick t). In rounds of nt slices of the source, worker t expands slice t into nt
    buffers, one per table; then worker p adds the buffers bound for table p (gather: in runs
    by address, through its scratch buffer). So every state is expanded once, and no two threads
    ever write the same table or buffer. A round buffers up to 3 successors of 2 + limbs words
    per source slot: the slices shrink with more than two threads, so that a round holds about
    2 * ROUND_SLICE slots (about 60 MiB for 3 limbs, as much again in the scratch) whatever nt.
    Returns -1 when out of memory."""
    cdef int t, s, failed = 0
    cdef int64_t base, lo, hi, slice_
    cdef int64_t most = max(<int64_t>MIN_SLICE, min(<int64_t>ROUND_SLICE, 2 * ROUND_SLICE // nt))
    cdef Buffer* bufs
    cdef Buffer* scratch
    # called with the GIL, released here: a parallel block inside a nogil function makes Cython
    # ask whether the GIL is held, which Python before 3.12 can answer wrongly (a sub-
    # interpreter in the process, or its exit), and a wrong answer aborts the process
    with nogil:
        if nt == 1:
            return expand(src, nsrc, dst, f, r, c, last_row)
        bufs = <Buffer*>calloc(nt * nt + nt, sizeof(Buffer))
        if bufs == NULL:
            return -1
        scratch = bufs + nt * nt            # gather's, one a table (grown as needed)
        for t in range(nt * nt + nt):
            bufs[t].stride = 2 + dst[0].limbs
        for t in range(nt * nt):                # the expected share; grows when larger
            failed |= buffer_reserve(&bufs[t], 3 * most // nt + 64) != 0
        s = 0
        while s < nsrc and not failed:
            base = 0
            # small tables: split them evenly rather than leave workers without a slice
            slice_ = min(most, (src[s].cap + nt - 1) // nt)
            while base < src[s].cap and not failed:
                for t in prange(nt, num_threads=nt, schedule="static", chunksize=1):
                    lo = min(base + t * slice_, src[s].cap)
                    hi = min(lo + slice_, src[s].cap)
                    failed += -scatter(&src[s], lo, hi, &bufs[t * nt], nt, f, r, c, last_row)
                for t in prange(nt, num_threads=nt, schedule="static", chunksize=1):
                    failed += -gather(bufs, t, nt, &dst[t], &scratch[t])
                base += nt * slice_
            s += 1
        for t in range(nt * nt + nt):
            free(bufs[t].items)
        free(bufs)
        return -1 if failed else 0


CountStats = namedtuple("CountStats", ["count", "width", "height", "frontier", "peak_states",
                                       "total_states", "final_states", "table_bytes", "limbs",
                                       "threads", "seconds", "passes"], defaults=(1,),
                        module="fastgo.count")
CountStats.__doc__ = """The exact count of legal positions and what the sweep took.

count: the number of legal positions; frontier: the cells of the sweep's border (the shorter
side); peak_states: the most border states held at once (colour-swapped pairs counted once);
total_states: the states summed over all points swept (the work of one pass); final_states:
states after the last point; table_bytes: the most memory the state tables held at once; limbs:
64-bit words per count (in the first pass); threads: the threads it ran on (at most
fastgo.playout.CORES, whatever was asked); seconds: wall time of the sweeps (summed over the
runs of a resumed count); passes: how many times the board was swept (1: exact counts; more:
counts modulo 2^(64 * limbs) and modulo primes below 2^63, joined by the Chinese remainder
theorem, when exact counts do not fit in memory)."""

SweepProgress = namedtuple("SweepProgress", ["row", "col", "rows", "cols", "states", "seconds",
                                             "eta", "sweep", "sweeps"], defaults=(0, 1),
                           module="fastgo.count")
SweepProgress.__doc__ = """Where a count stands, passed to its ``progress`` callback after every
point: point (row, col) of rows x cols of pass `sweep` (0-based) of `sweeps` is done, `states`
border states are held, `seconds` have passed (earlier passes and earlier runs of a resumed count
included), and `eta` more seconds are expected (None until a row has been timed): the last whole
row's time per point times the points left, the passes still to come taken as long as this one
(an underestimate while the states still grow, in the first rows)."""

#: Peak border states of the sweep of an n x n board by frontier width n, measured with this
#: code (11 to 13: the CLI runs of benchmarks/RESULTS.md, the same state space); wider frontiers
#: are extrapolated by GROWTH per cell.
PEAK_STATES = {1: 2, 2: 9, 3: 43, 4: 159, 5: 587, 6: 2_279, 7: 9_319, 8: 38_151, 9: 156_499,
               10: 650_621, 11: 2_735_947, 12: 11_611_394, 13: 49_762_947}
GROWTH = 4.3
#: A destination table is sized for its expected states at this load (it grows past 85%).
TABLE_LOAD = 0.75
#: ... and at most this one where the memory budget leaves less room.
TABLE_FULL = 0.84
#: The largest primes below 2^63, the moduli of the modular passes (a sum of two residues
#: stays below 2^64).
PRIMES = (2 ** 63 - 25, 2 ** 63 - 165, 2 ** 63 - 259, 2 ** 63 - 301, 2 ** 63 - 375,
          2 ** 63 - 387, 2 ** 63 - 391, 2 ** 63 - 409)

CHECKPOINT_FORMAT = "fastgo-sweep-2"    # the key encoding and file layout; bump when either changes
# the same layout without checksums (earlier versions): resumed with a warning. Every file of
# CHECKPOINT_FORMAT carries its checksum, so one without (a checksum deleted) is refused
_UNCHECKED_FORMAT = "fastgo-sweep-1"
cdef int64_t CHUNK = 1 << 16            # states per read or write of a checkpoint file


def _limbs(int f, int length):
    """64-bit words per exact count: enough for any number below 3^(f * length), which no
    count reaches (the all-black board is never legal)."""
    return (((<object>3) ** (f * length)).bit_length() + 63) // 64


def _is_prime(n):
    """Miller-Rabin with the first 12 primes as bases: exact below 3.3e24."""
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
    if n < 2 or any(n % p == 0 for p in bases):
        return n in bases
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


_more_primes = list(PRIMES)


def _prime(int k):
    """The k-th largest prime below 2^63 (0-based): PRIMES, then more found as needed (a long
    board needs about one per 63 bits of 3^(w*h))."""
    while len(_more_primes) <= k:
        n = _more_primes[-1] - 2
        while not _is_prime(n):
            n -= 2
        _more_primes.append(n)
    return _more_primes[k]


def _peak_states(int f):
    return PEAK_STATES.get(f) or int(PEAK_STATES[13] * GROWTH ** (f - 13))


def sweep_memory(width, height, limbs=None):
    """The estimated peak memory (bytes) of the state tables of the count of a ``width x
    height`` board with counts of `limbs` 64-bit words (default: exact counts): the peak border
    states (``PEAK_STATES``, extrapolated beyond 13 cells) once packed (a point's source) and
    once in a hash table sized for them with 5% to spare at ``TABLE_LOAD`` (its
    destination), each a key and the count's words. `limbs`: an int from 1 to the words of
    the exact counts (TypeError for another type, bools included; ValueError out of range)."""
    w, h = _sides(width, height, MAX_FRONTIER, MAX_LENGTH, "the exact count")
    f, length = min(w, h), max(w, h)
    exact = _limbs(f, length)
    if limbs is None:
        limbs = exact
    else:               # more words than the exact count's are never used
        limbs = _index(limbs, "limbs")
        if not 1 <= limbs <= exact:
            raise ValueError(f"limbs must be 1..{exact} (64-bit words a count; {exact} hold the "
                             f"exact counts of {w}x{h}), got {limbs}")
    return _table_bytes(f, limbs)


def _table_bytes(int f, int limbs):
    return int(_peak_states(f) * (1 + 1.05 / TABLE_LOAD)) * 8 * (1 + limbs)


def _plan(int f, int length, limit):
    """The passes of a count within `limit` bytes of tables: [(limbs, primes or None)]. Exact
    counts in one pass when they fit; else the widest counts that fit, first modulo
    2^(64 * limbs), then modulo as many of PRIMES (limbs of them a pass) as it takes for the
    moduli's product to pass 3^(f * length), above any count."""
    exact = _limbs(f, length)
    if _table_bytes(f, exact) <= limit:
        return [(exact, None)]
    limbs = exact - 1
    while limbs > 0 and _table_bytes(f, limbs) > limit:
        limbs -= 1
    if limbs == 0:
        return None
    return _passes(f, length, limbs)


def _passes(int f, int length, int limbs):
    """The passes of a count whose first pass has counts of `limbs` words (fewer than exact):
    modulo 2^(64 * limbs), then modulo the primes (limbs of them a pass) it takes for the
    product of the moduli to pass 3^(f * length)."""
    bound = (<object>3) ** (f * length)
    plan = [(limbs, None)]
    modulus = (<object>1) << (64 * limbs)
    used = 0
    while modulus <= bound:
        primes = []
        while modulus <= bound and len(primes) < limbs:
            primes.append(_prime(used))
            modulus *= primes[-1]
            used += 1
        plan.append((len(primes), tuple(primes)))
    return plan


def _crt(residues, moduli):
    """The number below the product of the (pairwise coprime) moduli with these residues."""
    x, m = 0, 1
    for r, q in zip(residues, moduli):
        x += m * ((r - x) * pow(m, -1, q) % q)
        m *= q
    return x


def available_memory():
    """Bytes of memory a new allocation can have now: Linux's MemAvailable, Windows' available
    physical memory, elsewhere the physical memory; None where none of these can be read."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    if sys.platform == "win32":
        import ctypes

        class Status(ctypes.Structure):     # MEMORYSTATUSEX
            _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong)] + [
                (name, ctypes.c_ulonglong) for name in ("total_phys", "avail_phys",
                "total_page", "avail_page", "total_virtual", "avail_virtual", "extended")]

        status = Status()
        status.length = ctypes.sizeof(Status)
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
            return int(status.avail_phys)
        return None
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def memory_refusal(need, what):
    """A MemoryError naming `what` when `need` bytes exceed the memory available now; None when
    they fit, are small (under 64 MiB: no look at the system, a call costs microseconds), or
    the memory cannot be read."""
    if need < 64 << 20:
        return None
    available = available_memory()
    if available is None or need <= available:
        return None
    return MemoryError(f"{what} need about {need / 2**30:.1f} GiB; "
                       f"{available / 2**30:.1f} GiB are available")


def count_legal_positions_stats(width, height, *, threads=1, checkpoint=None, progress=None,
                                max_bytes=None):
    """``count_legal_positions`` with the figures of the sweep, as a ``CountStats``.

    ``checkpoint``: a directory; after every row the border states are saved there (one file of
    keys and counts, and ``sweep.json``; with several passes, one subdirectory a pass and
    ``plan.json``), and a count started again with the same directory resumes after the last
    saved row; every file there carries a SHA-256 checksum (against damage, not a forgery: the
    checksums are unkeyed), and a resume refuses (``ValueError`` naming the file and what is
    wrong) a file that differs from its checksum, a checkpoint of
    another board or kind of count, and figures out of range; while a count runs, a second count
    on the same directory is refused (``ValueError``): in this process, and in others by a lock
    on the file ``lock`` there (``flock``; none where the system has no flock or the file cannot
    be made).
    ``progress``: called with a
    ``SweepProgress`` after every point. ``max_bytes``: the memory the state tables may take, an
    int >= 0 (default: 75% of the memory available now); a limit above the machine's memory sets
    no bound of its own (a table that does not fit then raises ``MemoryError``). When exact
    counts (``sweep_memory``) would not fit, the board is swept several times with narrower
    counts (modulo 2^(64 * limbs), then modulo primes), joined exactly by the Chinese remainder
    theorem; when not even one word a count fits, ``MemoryError`` names the estimate."""
    w, h = _sides(width, height, MAX_FRONTIER, MAX_LENGTH, "the exact count")
    f, length = min(w, h), max(w, h)
    nt = _threads(threads, MAX_SWEEP_THREADS)
    if max_bytes is not None and _index(max_bytes, "max_bytes") < 0:
        raise ValueError(f"max_bytes must be at least 0, got {max_bytes}")
    if max_bytes is None:
        available = available_memory() or 1 << 62     # (unknown: not bounded here)
        limit = int(0.75 * available)
        allowed = lambda: f"{_gib(limit)} may be used (75% of the {_gib(available)} available)"
    else:
        limit = _index(max_bytes, "max_bytes")
        allowed = lambda: f"{_gib(limit)} are allowed"
    lock = None
    if checkpoint is not None:          # a resumed count keeps the passes it started with
        checkpoint = os.fspath(checkpoint)
        # a path that is a file or cannot be made is refused before any work; a finished count
        # is only read (a checkpoint kept read-only after the count is still its answer)
        from fastgo.records import make_directory
        if not os.path.isfile(os.path.join(checkpoint, "result.json")):
            make_directory(checkpoint, "checkpoint directory", ValueError)
            lock = _lock_checkpoint(checkpoint)
        try:
            plan = _saved_plan(checkpoint, w, h)
            return _count_planned(w, h, f, length, nt, checkpoint, progress, plan, limit, allowed)
        finally:
            if lock is not None:
                _unlock_checkpoint(lock)
    return _count_planned(w, h, f, length, nt, None, progress, None, limit, allowed)


_LOCKED = set()                  # (device, inode) of the checkpoint directories counts hold here
_LOCKED_GUARD = threading.Lock()


def _lock_checkpoint(directory):
    """Hold a checkpoint directory for one count: in this process by its (device, inode), in
    others by flock on its file `lock` (released when the count ends or its process dies; on
    NFS flock keeps processes apart, not threads). Two counts writing one directory failed
    with a bare FileNotFoundError (one renamed the files the other wrote: a thread tester's
    finding). Returns what _unlock_checkpoint takes."""
    st = os.stat(directory)
    key = (st.st_dev, st.st_ino)
    busy = ValueError(f"the checkpoint directory {directory!r} is in use by another count (in "
                      f"this process or another): give each count a directory of its own")
    with _LOCKED_GUARD:
        if key in _LOCKED:
            raise busy
        _LOCKED.add(key)
    fd = None
    try:
        import fcntl
        fd = os.open(os.path.join(directory, "lock"), os.O_RDONLY | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except ImportError:                 # (Windows: this process's threads alone are kept apart)
        pass
    except BlockingIOError:
        os.close(fd)
        _unlock_checkpoint((key, None))
        raise busy from None
    except OSError:                     # (no file can be made there: a directory being read)
        if fd is not None:
            os.close(fd)
        fd = None
    return key, fd


def _unlock_checkpoint(held):
    key, fd = held
    if fd is not None:
        os.close(fd)                    # (the flock goes with its descriptor)
    with _LOCKED_GUARD:
        _LOCKED.discard(key)


def _count_planned(int w, int h, int f, int length, int nt, checkpoint, progress, plan, limit,
                   allowed):
    """count_legal_positions_stats from its checked arguments and the plan of passes resumed
    from `checkpoint` (None: chosen here)."""
    if plan is None:
        plan = _plan(f, length, limit)
    if plan is None:
        raise MemoryError(f"{w}x{h} does not fit: even counts of one 64-bit word need about "
                          f"{_gib(sweep_memory(w, h, 1))} of state tables (exact counts "
                          f"{_gib(sweep_memory(w, h))}), and {allowed()}")
    budget = _table_bytes(f, plan[0][0])
    if len(plan) > 1 and checkpoint is not None:
        _write_json(os.path.join(checkpoint, "plan.json"),
                    dict(format=CHECKPOINT_FORMAT, width=w, height=h,
                         passes=[[limbs, None if primes is None else list(primes)]
                                 for limbs, primes in plan]))
    passes, before = [], 0.0
    for i, (limbs, primes) in enumerate(plan):
        where = checkpoint if checkpoint is None or len(plan) == 1 else \
            os.path.join(checkpoint, f"pass{i}")
        report = None
        if progress is not None:
            def report(p, before=before, i=i):
                done = p.seconds + before
                eta = None if p.eta is None else \
                    p.eta + (len(plan) - 1 - i) * (p.seconds + p.eta)
                progress(p._replace(seconds=done, eta=eta, sweep=i, sweeps=len(plan)))
        s = _sweep(f, length, nt, where, report, limbs, primes, budget)
        passes.append(s)
        before += s.seconds
    if len(plan) == 1:
        count = passes[0].count
    else:
        residues, moduli = [passes[0].count], [(<object>1) << (64 * plan[0][0])]
        for s, (limbs, primes) in zip(passes[1:], plan[1:]):
            residues.extend(s.count)
            moduli.extend(primes)
        count = _crt(residues, moduli)
    # the empty board is legal and the all-black one never: a count outside this range can come
    # only from a checkpoint altered past its checksums (or a bug), and is never returned
    if not 1 <= count < (<object>3) ** (w * h):
        where = f" (resumed from {checkpoint!r}: the checkpoint is damaged)" if checkpoint else ""
        shown = _big_text(count)
        shown = shown if len(shown) <= 100 else f"a number of {len(shown)} digits"
        raise ValueError(f"the count of {w}x{h} came out as {shown}, outside 1..3^{w * h}{where}")
    first = passes[0]
    return first._replace(count=count, width=w, height=h, seconds=before, passes=len(plan),
                          table_bytes=max(s.table_bytes for s in passes))


def _gib(n):
    if n >= 2 ** 60:            # (in integers: a float overflows past 1e308)
        return f"{n >> 30:,} GiB"
    if n >= 2 ** 30:
        return f"{n / 2 ** 30:.1f} GiB"
    return f"{n / 2 ** 20:.1f} MiB" if n >= 2 ** 20 else f"{n:,} bytes"   # (0.0 MiB hid 10 bytes)


class _AnyDigits:
    """Lifts Python's limit on converting ints to and from decimal text (4,300 digits by
    default; a 10 x 1000 count has about 4,600) while it is entered."""

    def __enter__(self):
        get = getattr(sys, "get_int_max_str_digits", None)
        self.limit = None if get is None else get()
        if self.limit is not None:
            sys.set_int_max_str_digits(0)

    def __exit__(self, *exc):
        if self.limit is not None:
            sys.set_int_max_str_digits(self.limit)
        return False


def _big_text(n, fmt=""):
    """format(n, fmt) however many digits n has (the CLI prints counts with it)."""
    with _AnyDigits():
        return format(n, fmt)


def _saved_plan(directory, int w, int h):
    """The passes of the count checkpointed in `directory`: plan.json's (several passes), or
    the one pass of a sweep.json or result.json there; None when there is none. A plan of
    another board, or one whose passes are not a count's, is refused by name."""
    cdef int f = min(w, h), length = max(w, h)
    exact = _limbs(f, length)
    path = os.path.join(directory, "plan.json")
    if os.path.exists(path):
        data = _read_checkpoint(path)
        if (data.get("width"), data.get("height")) not in ((w, h), (h, w)):
            raise ValueError(f"{path} is the checkpoint of a {data.get('width')}x"
                             f"{data.get('height')} count, not of {w}x{h}")
        saved = data.get("passes")
        try:
            plan = [(limbs, None if primes is None else tuple(primes)) for limbs, primes in saved]
            first = plan[0][0]
            valid = type(first) is int and 1 <= first < exact and plan == _passes(f, length, first)
        except (TypeError, ValueError, IndexError):
            valid = False
        # the moduli must be those the count chose: others (fewer primes, another width) would
        # join into a wrong count
        if not valid:
            raise ValueError(f"{path}: passes {saved!r} are not the passes of a {w}x{h} count "
                             f"(counts modulo 2^(64 x words), then modulo the primes below 2^63 "
                             f"that take the moduli past 3^{w * h})")
        return plan
    for name in ("result.json", "sweep.json"):
        path = os.path.join(directory, name)
        if os.path.exists(path):        # one pass (the board is checked by _sweep)
            data = _read_checkpoint(path)
            if (data.get("frontier"), data.get("length")) != (min(w, h), max(w, h)):
                raise _other_sweep(path, name[:-5].replace('sweep', 'checkpoint'), data,
                                   min(w, h), max(w, h))
            # a pass alone is exact: a modular one's directory (passN) holds residues
            if data.get("limbs") != exact or data.get("primes") is not None:
                raise ValueError(f"{path} holds a pass counting modulo "
                                 f"{data.get('primes') or 'a power of two'} with "
                                 f"{data.get('limbs')!r} words, and {directory!r} no plan.json: "
                                 f"a part of a count in several passes (resume the directory "
                                 f"that holds its plan.json), not a {w}x{h} count")
            return [(exact, None)]
    return None


def _write_json(path, data):
    """Write a checkpoint's JSON file whole or not at all (a temporary file renamed into
    place), with the checksum of its fields (fastgo.simulation.json_sha256) as "checksum"."""
    from fastgo.simulation import json_sha256
    data = dict(data, checksum=json_sha256(data))
    with open(path + ".tmp", "w") as fh:
        json.dump(data, fh, indent=1)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(path + ".tmp", path)


def _read_checkpoint(path):
    """The fields of a checkpoint's JSON file, its checksum checked: ValueError naming the file
    when it cannot be read, is not this format's, or differs from its checksum (damaged or
    edited). One written by an earlier fastgo (_UNCHECKED_FORMAT) has no checksum: it is read
    with a warning."""
    from fastgo.simulation import json_sha256
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as e:     # (a JSON or UTF-8 error is a ValueError)
        raise ValueError(f"{path} cannot be read as a checkpoint: {e}") from None
    found = data.get("format") if isinstance(data, dict) else None
    if found not in (CHECKPOINT_FORMAT, _UNCHECKED_FORMAT):
        raise ValueError(f"{path} is not a checkpoint of this version of fastgo's sweep "
                         f"(format {found!r}, expected {CHECKPOINT_FORMAT!r})")
    if found == _UNCHECKED_FORMAT:
        warnings.warn(f"{path} was written by an earlier fastgo, without checksums: it is "
                      f"resumed unchecked", RuntimeWarning, stacklevel=2)
    elif data.get("checksum") != json_sha256({k: v for k, v in data.items() if k != "checksum"}):
        raise ValueError(f"{path} is damaged or was edited: its contents differ from the "
                         f"checksum written with them")
    return data


def _whole(path, data, key, low, high=None):
    """data[key], an int in low..high (no upper bound when high is None); ValueError naming
    the file otherwise."""
    x = data.get(key)
    if type(x) is not int or x < low or (high is not None and x > high):
        bound = f"{low}..{high}" if high is not None else f"at least {low}"
        raise ValueError(f"{path}: {key} must be an integer {bound}, got {x!r}")
    return x


def _figures(path, data, keys):
    """Check the sweep's figures `keys` (ints >= 0) and its seconds (a finite number >= 0)."""
    for key in keys:
        _whole(path, data, key, 0)
    x = data.get("seconds")
    if type(x) not in (int, float) or not 0 <= x < math.inf:
        raise ValueError(f"{path}: seconds must be a number of seconds >= 0, got {x!r}")


cdef int64_t collect(const Table* tabs, int ntabs, int64_t* pos, uint64_t* out,
                     int64_t most) noexcept nogil:
    """Copy up to `most` used slots (key and count) of tables tabs[0..ntabs-1] into out, from
    position pos = (table, slot) on, and advance pos; returns how many were copied."""
    cdef int64_t n = 0
    cdef int stride = tabs[0].stride
    while n < most and pos[0] < ntabs:
        if pos[1] >= tabs[pos[0]].cap:
            pos[0] += 1
            pos[1] = 0
            continue
        if slot_key(&tabs[pos[0]], pos[1]) != NO_KEY:
            memcpy(out + n * stride, tabs[pos[0]].slots + pos[1] * stride,
                   stride * sizeof(uint64_t))
            n += 1
        pos[1] += 1
    return n


cdef _save(const Table* tabs, int ntabs, directory, dict meta):
    """Write the states of tables tabs to `directory` (a new states file, then sweep.json naming
    it and holding its SHA-256, each renamed into place when complete; then the older states
    file goes)."""
    cdef int64_t pos[2]
    cdef int64_t n, states = 0
    cdef int stride = tabs[0].stride
    buf = np.empty(CHUNK * stride, dtype=np.uint64)
    cdef uint64_t[::1] view = buf
    name = f"states-row{meta['rows_done']}.bin"
    path = os.path.join(directory, name)
    digest = hashlib.sha256()       # of the bytes as written (no second read of many GiB)
    pos[0] = pos[1] = 0
    with open(path + ".tmp", "wb") as fh:
        while True:
            with nogil:
                n = collect(tabs, ntabs, pos, &view[0], CHUNK)
            if n == 0:
                break
            fh.write(buf[:n * stride].data)
            digest.update(buf[:n * stride].data)
            states += n
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(path + ".tmp", path)
    _write_json(os.path.join(directory, "sweep.json"),
                dict(meta, states=int(states), file=name, sha256=digest.hexdigest()))
    for other in os.listdir(directory):
        if other.startswith("states-row") and other != name:
            os.remove(os.path.join(directory, other))


def _other_sweep(path, what, meta, f, length):
    # (in the sweep's terms, the board's shorter side first: a 5x4 board's is 4 wide, 5 long)
    return ValueError(f"{path} is the {what} of another board's sweep: {meta.get('frontier')} "
                      f"points wide and {meta.get('length')} long, not {f} wide and {length} long")


def _same_sweep(path, what, meta, int f, int length, int limbs, primes):
    """Refuse the checkpoint or result at `path` when it belongs to another board or pass."""
    if (meta.get("frontier"), meta.get("length")) != (f, length):
        raise _other_sweep(path, what, meta, f, length)
    if (meta.get("limbs"), meta.get("primes")) != (limbs, None if primes is None else list(primes)):
        raise ValueError(f"{path} counts with {meta.get('limbs')!r} words modulo "
                         f"{meta.get('primes') or 'a power of two'}, not as this pass does "
                         f"({limbs} words modulo {list(primes) if primes else 'a power of two'})")


def _load_result(path, int f, int length, int limbs, primes, int nt):
    """The CountStats of the pass finished in an earlier run, from its result.json."""
    d = _read_checkpoint(path)
    _same_sweep(path, "result", d, f, length, limbs, primes)
    _figures(path, d, ("peak_states", "total_states", "final_states", "table_bytes"))
    moduli = [(<object>1) << (64 * limbs)] if primes is None else list(primes)
    text = [d.get("count")] if primes is None else d.get("count")
    count = []
    if isinstance(text, list):
        with _AnyDigits():
            count = [int(x) for x in text if type(x) is str and x.isascii() and x.isdigit()]
    if len(count) != len(moduli) or len(count) != len(text) or not all(
            0 <= x < q for x, q in zip(count, moduli)):
        raise ValueError(f"{path}: count must be the decimal text of "
                         f"{'a number' if primes is None else 'numbers'} below {limbs} words' "
                         f"modulus, got {str(d.get('count'))[:80]!r}")
    return CountStats(count[0] if primes is None else tuple(count), f, length, f,
                      d["peak_states"], d["total_states"], d["final_states"], d["table_bytes"],
                      limbs, nt, d["seconds"])


def _load_meta(directory, int f, int length, int limbs, primes):
    """The checkpoint in `directory` for this board and pass, or None when there is none; its
    checksums, spec and figures checked (ValueError naming the file and what is wrong)."""
    path = os.path.join(directory, "sweep.json")
    if not os.path.exists(path):
        return None
    meta = _read_checkpoint(path)
    _same_sweep(path, "checkpoint", meta, f, length, limbs, primes)
    # saved after rows 1..length-1 (the last row's states make the result instead)
    rows = _whole(path, meta, "rows_done", 1, length - 1)
    states = _whole(path, meta, "states", 1)
    _figures(path, meta, ("peak_states", "total_states", "table_bytes"))
    name = f"states-row{rows}.bin"
    if meta.get("file") != name:
        raise ValueError(f"{path}: file must be {name!r}, the states after row {rows}, got "
                         f"{meta.get('file')!r}")
    states_path = os.path.join(directory, name)
    if not os.path.isfile(states_path):
        raise ValueError(f"{states_path} is missing ({path} names it)")
    size = os.path.getsize(states_path)
    if size != states * 8 * (1 + limbs):
        raise ValueError(f"{states_path} holds {size} bytes, not the "
                         f"{states} states that {path} names")
    if meta["format"] == CHECKPOINT_FORMAT:     # (an earlier version's: _read_checkpoint warned)
        from fastgo.records import sha256_file
        if meta.get("sha256") != sha256_file(states_path):
            raise ValueError(f"{states_path} is damaged: its SHA-256 differs from the one "
                             f"{path} recorded when it was written")
    g = meta.get("growth")              # (absent in an earlier version's checkpoint)
    if g is not None and not (isinstance(g, list) and len(g) == f and all(
            type(x) in (int, float) and 0 <= x <= 3 for x in g)):
        raise ValueError(f"{path}: growth must be a list of {f} numbers in 0..3 (a state has "
                         f"at most 3 successors), got {g!r}")
    return meta


cdef _load(Table* t, directory, dict meta):
    """Read the states of a checkpoint into t, a packed table of exactly that many slots."""
    cdef int64_t n, left = meta["states"]
    cdef int stride = t.stride
    with open(os.path.join(directory, meta["file"]), "rb") as fh:
        while left > 0:
            n = min(left, CHUNK)
            view = memoryview(<char[:n * stride * 8]><char*>(t.slots + t.used * stride))
            if fh.readinto(view) != n * stride * 8:
                raise ValueError(f"{meta['file']} ends early")
            t.used += n
            left -= n


def _sweep(int f, int length, int nt, checkpoint=None, progress=None, limbs=None, primes=None,
           budget=None):
    """Sweep a board of `length` rows of `f` points on nt threads, whichever side is shorter
    (the tests use it to sweep along the longer side); a CountStats with width f. Counts have
    `limbs` words (default: exact) modulo 2^(64 * limbs), or with `primes` (limbs of them) a
    residue modulo each; the count is then that residue (a tuple for primes). `budget`: bytes
    the tables may take (a destination table gets up to twice the room its expected states
    need within it). With a checkpoint directory, save the states after every row and resume
    from the last saved row; a finished pass leaves its result there (result.json)."""
    if limbs is None:
        limbs = _limbs(f, length)
    if not (1 <= f <= MAX_FRONTIER and 1 <= length <= MAX_LENGTH and 1 <= nt <= MAX_SWEEP_THREADS
            and 1 <= limbs and (primes is None or len(primes) == limbs)):
        raise ValueError(f"_sweep({f}, {length}, {nt}, limbs={limbs}) out of range")
    if primes is not None and not all(1 < q < 2 ** 63 for q in primes):
        raise ValueError("_sweep: the primes must lie in 2..2^63-1")
    moduli = None if primes is None else np.array(primes, dtype=np.uint64)
    cdef const uint64_t[::1] mod_view = moduli
    cdef const uint64_t* cprimes = NULL if moduli is None else &mod_view[0]
    cdef int w = f, h = length
    cdef int climbs = limbs
    cdef Table* src = NULL
    cdef Table* dst = NULL
    cdef Table* tmp
    cdef int nsrc = 1, t, r, c, failed, parts, first_row = 0
    cdef int64_t states, cap, peak = 1, total = 0, peak_bytes = 0, nbytes, slot = 8 * (1 + limbs)
    cdef uint64_t[::1] one
    cdef bint last_row
    cdef int64_t i, final
    cdef int j
    cdef uint64_t key
    meta = None
    if checkpoint is not None:
        checkpoint = os.fspath(checkpoint)
        os.makedirs(checkpoint, exist_ok=True)
        done = os.path.join(checkpoint, "result.json")
        if os.path.exists(done):        # this pass finished in an earlier run
            return _load_result(done, f, length, limbs, primes, nt)
        meta = _load_meta(checkpoint, f, length, limbs, primes)
    src = <Table*>malloc(nt * sizeof(Table))
    dst = <Table*>malloc(nt * sizeof(Table))
    if src == NULL or dst == NULL:
        free(src)
        free(dst)
        raise MemoryError()
    for t in range(nt):
        src[t].slots = dst[t].slots = NULL
        src[t].cap = src[t].used = dst[t].cap = dst[t].used = 0
    earlier = 0.0 if meta is None else meta["seconds"]
    # growth[c]: states after point c over states before it, in the last row swept; at most 3
    # on row 0 (nothing is refused there), about 1.2-1.7 on row 1 (measured to 13 cells); a
    # checkpoint keeps the last row's
    if meta is None:
        growth = [3.0] * f
    elif "growth" in meta:
        growth = [float(g) for g in meta["growth"]]
    else:       # a checkpoint of an earlier version: growth as measured to 13 cells (the first
        # column gains most, the last loses; row 1 more than later rows)
        g = (1.7, 1.36, 0.8) if meta["rows_done"] == 1 else (1.45, 1.07, 0.7)
        growth = [g[0]] + [g[1]] * (f - 2) + [g[2]] if f > 1 else [g[0]]
    t0 = time.perf_counter()
    row_start = t0
    per_point = None
    try:
        if meta is None:
            # the start: one state, every column's "point above" off the board, count 1
            if table_init(&src[0], 1, climbs, cprimes) != 0:
                raise MemoryError()
            start = np.zeros(limbs, dtype=np.uint64)
            start[:1 if primes is None else limbs] = 1      # 1, or 1 modulo every prime
            one = start
            table_put(&src[0], 0, mix64(0), &one[0])
        else:
            first_row = meta["rows_done"]
            peak, total, peak_bytes = meta["peak_states"], meta["total_states"], meta["table_bytes"]
            if table_init(&src[0], max(1, meta["states"]), climbs, cprimes) != 0:
                raise MemoryError(f"out of memory: a table of {meta['states']:,} states to "
                                  f"resume {w}x{h}")
            _load(&src[0], checkpoint, meta)
        for r in range(first_row, length):
            last_row = r == length - 1
            for c in range(f):
                states = 0
                for t in range(nsrc):
                    states += src[t].used
                # threads pay off only on big steps (each one reads every source state)
                parts = nt if states >= PARALLEL_STATES else 1
                # room for the states the last row's growth at this column expects, 5% more
                # at TABLE_LOAD, and up to twice that where the budget leaves room; where it
                # does not, up to TABLE_FULL
                need = int(states * growth[c] * 1.05 / TABLE_LOAD) + 16
                least = int(states * growth[c] * 1.05 / TABLE_FULL) + 16
                room = need * 2 if budget is None else budget // slot - states - 16 * parts
                cap = max(least, min(2 * need, room)) // parts + 16
                for t in range(parts):
                    if table_init(&dst[t], cap, climbs, cprimes) != 0:
                        raise MemoryError(f"out of memory: a table of {cap:,} states for point "
                                          f"({r}, {c}) of {w}x{h}")
                failed = sweep_point(src, nsrc, dst, parts, f, r, c, last_row)   # (without the GIL)
                if failed:
                    raise MemoryError(f"out of memory sweeping point ({r}, {c}) of {w}x{h}")
                nbytes = 0
                for t in range(nsrc):
                    nbytes += table_bytes(&src[t])
                    table_free(&src[t])
                for t in range(parts):
                    nbytes += table_bytes(&dst[t])
                peak_bytes = max(peak_bytes, nbytes)
                with nogil:
                    for t in range(parts):
                        table_pack(&dst[t])
                new_states = 0
                for t in range(parts):
                    new_states += dst[t].used
                if r > 0 and states > 0:
                    growth[c] = new_states / states
                elif r == 0:
                    growth[c] = 2.0
                peak = max(peak, new_states)
                total += new_states
                tmp = src
                src = dst
                dst = tmp
                nsrc = parts
                PyErr_CheckSignals()        # Ctrl-C works between points
                now = time.perf_counter()
                if c == f - 1:
                    per_point = (now - row_start) / f
                    row_start = now
                if progress is not None:
                    left = (length - 1 - r) * f + f - 1 - c
                    progress(SweepProgress(r, c, length, f, int(new_states), earlier + now - t0,
                                           None if per_point is None else per_point * left))
            if checkpoint is not None and not last_row:
                _save(src, nsrc, checkpoint, dict(
                    format=CHECKPOINT_FORMAT, frontier=f, length=length, limbs=limbs,
                    primes=None if primes is None else list(primes),
                    rows_done=r + 1, peak_states=int(peak), total_states=int(total),
                    table_bytes=int(peak_bytes), seconds=earlier + now - t0, growth=growth))
        # legal: no chain is left without a liberty
        sums = [0] * limbs
        final = 0
        for t in range(nsrc):
            for i in range(src[t].cap):
                key = slot_key(&src[t], i)
                if key == NO_KEY:
                    continue
                final += 1
                if _has_label(key, f):
                    continue
                for j in range(limbs):
                    sums[j] += slot_val(&src[t], i)[j]
        if primes is None:              # (a Python int shift: the count has many limbs)
            count = sum(x << (64 * j) for j, x in enumerate(sums)) % ((<object>1) << (64 * limbs))
        else:
            count = tuple(x % q for x, q in zip(sums, primes))
        seconds = earlier + time.perf_counter() - t0
        if checkpoint is not None:
            _write_json(os.path.join(checkpoint, "result.json"), dict(
                format=CHECKPOINT_FORMAT, frontier=f, length=length, limbs=limbs,
                primes=None if primes is None else list(primes),
                count=_big_text(count) if primes is None else [str(x) for x in count],
                peak_states=int(peak), total_states=int(total), final_states=int(final),
                table_bytes=int(peak_bytes), seconds=seconds))
            for other in os.listdir(checkpoint):    # the result makes the last row's states idle
                if other.startswith("states-row"):
                    os.remove(os.path.join(checkpoint, other))
        return CountStats(count, f, length, f, peak, total, final, peak_bytes, limbs, nt, seconds)
    finally:
        for t in range(nt):
            table_free(&src[t])
            table_free(&dst[t])
        free(src)
        free(dst)


cdef bint _has_label(uint64_t key, int f) noexcept nogil:
    cdef int i
    for i in range(f):
        if ((key >> (CELL_BITS * i)) & CELL_MASK) >= KEY_LAB:
            return True
    return False


def count_legal_positions(width, height, *, threads=1):
    """The exact number of legal positions on a ``width x height`` board, as a Python int.

    A position (each point empty, black or white) is legal when every chain touches an empty
    point. The count comes from a transfer-matrix sweep along the shorter side (at most
    ``MAX_FRONTIER`` = 16, as memory allows; the longer side at most ``MAX_LENGTH``), exactly.
    Border states grow about 4x per unit of the shorter side and time a little faster (on the
    README's 2-core machine 7x7 takes under 0.1 s, 9x9 a few seconds, 11x11 about 3 minutes).
    ``threads`` (1..``MAX_SWEEP_THREADS``, None: all cores) defaults to 1: the parallel sweep
    meets at a barrier twice per round of every point, and it pays only on an idle machine.
    Ctrl-C interrupts it between points.

    >>> count_legal_positions(2, 2), count_legal_positions(3, 3)
    (57, 12675)
    """
    return count_legal_positions_stats(width, height, threads=threads).count


# ---------------------------------------------------------------------------------------------
# Brute force: every colouring, as a pair of bitboards (black, white) over at most 20 points.

cdef inline uint64_t dilate(uint64_t x, uint64_t not_left, uint64_t not_right, uint64_t full,
                            int w) noexcept nogil:
    """The points next to a point of x (bit row * w + col)."""
    return (((x << 1) & not_left) | ((x >> 1) & not_right) | (x << w) | (x >> w)) & full


cdef inline bint all_breathe(uint64_t stones, uint64_t empty, uint64_t not_left,
                             uint64_t not_right, uint64_t full, int w) noexcept nogil:
    """True when every stone of `stones` (one colour) is joined to an empty point through
    stones of `stones`: grow from the stones next to empty points until nothing changes."""
    cdef uint64_t reach = stones & dilate(empty, not_left, not_right, full, w), grown
    while reach != stones:
        grown = reach | (dilate(reach, not_left, not_right, full, w) & stones)
        if grown == reach:
            return False
        reach = grown
    return True


cdef int64_t legal_with_black(uint64_t black, uint64_t not_left, uint64_t not_right,
                              uint64_t full, int w) noexcept nogil:
    """The legal colourings whose black stones are `black`: white runs over the subsets of the
    other points."""
    cdef uint64_t rest = full & ~black, white = 0, empty
    cdef int64_t n = 0
    if not all_breathe(black, rest, not_left, not_right, full, w):
        return 0        # even with every other point empty some black chain has no liberty
    while True:
        empty = rest & ~white
        if all_breathe(black, empty, not_left, not_right, full, w) and \
                all_breathe(white, empty, not_left, not_right, full, w):
            n += 1
        white = (white - rest) & rest   # the next subset of `rest`
        if white == 0:
            return n


def count_legal_positions_brute(width, height, *, threads=None):
    """The number of legal positions on a ``width x height`` board (at most 20 points) by testing
    every one of the 3^(width*height) colourings: every chain must touch an empty point. Meant as
    the independent check of ``count_legal_positions``.

    >>> count_legal_positions_brute(2, 2)
    57
    """
    w, h = _index(width, "width"), _index(height, "height")
    if w >= 1 and h >= 1 and w * h > MAX_BRUTE_POINTS:      # (Python ints: no overflow)
        raise ValueError(f"board size {w}x{h} out of range for the brute force: at most "
                         f"{MAX_BRUTE_POINTS} points (3^{MAX_BRUTE_POINTS} colourings)")
    w, h = _sides(width, height, MAX_BRUTE_POINTS, MAX_BRUTE_POINTS, "the brute force")
    if w * h > MAX_BRUTE_POINTS:
        raise ValueError(f"board size {w}x{h} out of range for the brute force: at most "
                         f"{MAX_BRUTE_POINTS} points (3^{MAX_BRUTE_POINTS} colourings)")
    cdef int nt = _threads(threads, MAX_THREADS), cw = w, n = w * h
    cdef uint64_t full = (<uint64_t>1 << n) - 1, not_left = 0, not_right = 0
    cdef int64_t black, total = 0, part, blacks = <int64_t>1 << n
    # about 4,096 blocks of black sets, with a check for Ctrl-C between them (3^20 colourings
    # take about a minute). A black set's work is the 2^(points - its stones) white sets beside
    # it, so the first block, the sets of the lowest points alone, holds (2/3)^12 of it all
    # (with 64 blocks, (2/3)^6: 9%, seconds before a Ctrl-C was seen)
    cdef int64_t lo = 0, hi, block = max(<int64_t>1 << 8, blacks >> 12)
    cdef int p
    for p in range(n):
        if p % cw != 0:
            not_left |= <uint64_t>1 << p
        if p % cw != cw - 1:
            not_right |= <uint64_t>1 << p
    while lo < blacks:
        hi = min(blacks, lo + block)
        part = 0
        with nogil:
            for black in prange(lo, hi, num_threads=nt, schedule="dynamic", chunksize=64):
                part += legal_with_black(<uint64_t>black, not_left, not_right, full, cw)
        total += part
        lo = hi
        PyErr_CheckSignals()
    return int(total)


# ---------------------------------------------------------------------------------------------
# The test over many boards, and the Monte Carlo estimate built on it.

cdef inline int board_status(const uint8_t* g, int w, int h, uint8_t* pad,
                             int* stack) noexcept nogil:
    """1 when the board g ([h][w] of 0/1/2) is a legal position, 0 when not, 2 when it holds a
    value other than 0/1/2. `pad` is a (h + 2) x (w + 2) board whose rim holds 3 (off board),
    `stack` room for h * w points."""
    cdef int s = w + 2, r, c, p, q, d, v, x, n
    cdef bint lib
    cdef int nb[4]
    nb[0] = -s
    nb[1] = -1
    nb[2] = 1
    nb[3] = s
    for r in range(h):
        for c in range(w):
            v = g[r * w + c]
            if v > 2:
                return 2
            pad[(r + 1) * s + c + 1] = <uint8_t>v
    for r in range(h):
        for c in range(w):
            p = (r + 1) * s + c + 1
            v = pad[p]
            if v != 1 and v != 2:
                continue            # empty, or a stone of a chain already seen (v | 4)
            # flood the chain from p, marking its stones v | 4; it needs one empty neighbour
            pad[p] = <uint8_t>(v | 4)
            stack[0] = p
            n = 1
            lib = False
            while n:
                n -= 1
                q = stack[n]
                for d in range(4):
                    x = pad[q + nb[d]]
                    if x == 0:
                        lib = True
                    elif x == v:
                        pad[q + nb[d]] = <uint8_t>(v | 4)
                        stack[n] = q + nb[d]
                        n += 1
            if not lib:
                return 0
    return 1


cdef inline void pad_init(uint8_t* pad, int w, int h) noexcept nogil:
    memset(pad, 3, (w + 2) * (h + 2))


cdef void mask_kernel(const uint8_t* boards, int64_t n, int w, int h, uint8_t* out,
                      int nt) noexcept:
    """Called with the GIL, which it releases (as sweep_point, for the same reason)."""
    cdef int64_t i
    cdef uint8_t* pad
    cdef int* stack = NULL
    pad = NULL      # (the threads' own copies are set in the block; this quiets the compiler)
    with nogil, parallel(num_threads=nt):
        pad = <uint8_t*>malloc((w + 2) * (h + 2))
        stack = <int*>malloc(w * h * sizeof(int))
        if pad != NULL:
            pad_init(pad, w, h)
        for i in prange(n, schedule="dynamic", chunksize=256):
            if pad == NULL or stack == NULL:
                out[i] = 3
            else:
                out[i] = <uint8_t>board_status(boards + i * w * h, w, h, pad, stack)
        free(pad)
        free(stack)


def legal_position_mask(boards, *, threads=None):
    """Which of many boards are legal positions: ``boards`` is an integer array
    ``[n, height, width]`` of 0 (empty), 1 (black), 2 (white), sides 1..25; returns a bool array
    ``[n]``, True where every chain touches an empty point. Runs without the GIL on ``threads``
    threads (default: all cores). An int8/uint8 C-contiguous array is read in place.

    >>> legal_position_mask([[[1, 2], [0, 1]], [[1, 0], [0, 2]]]).tolist()
    [False, True]
    """
    a = np.asarray(boards)
    if a.dtype.kind not in "iub":
        raise TypeError(f"boards must hold integers 0/1/2, got dtype {a.dtype}")
    if a.ndim != 3:
        raise ValueError(f"boards must be a 3-D array [n, height, width], got {a.ndim} dimensions")
    n, h, w = a.shape
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
        raise ValueError(f"board size {w}x{h} out of range: width and height must be 1..{MAX_SIDE}")
    cdef int nt = _threads(threads, MAX_THREADS)
    out = np.empty(n, dtype=np.uint8)
    if n == 0:
        return out.view(bool)
    # A C-contiguous byte array is read in place; anything else is narrowed into a uint8 array
    # allocated first (a huge broadcast view fails here at once, with MemoryError) and filled one
    # block at a time; the kernel runs block by block too, so that Ctrl-C is seen between them.
    direct = a.itemsize == 1 and a.flags.c_contiguous
    src = a.view(np.uint8) if direct else np.empty((n, h, w), dtype=np.uint8)
    cdef const uint8_t[:, :, ::1] view
    cdef uint8_t[::1] res = out
    cdef int64_t lo = 0, hi, block = max(1, (1 << 22) // (w * h))
    cdef int cw = w, ch = h
    while lo < n:
        hi = min(n, lo + block)
        if not direct:
            part = a[lo:hi]
            if a.itemsize == 1:
                # the kernel refuses any byte above 2, which includes every negative int8
                np.copyto(src[lo:hi], part.view(np.uint8) if part.dtype != np.uint8 else part)
            else:
                if part.min() < 0 or part.max() > 2:
                    raise ValueError("boards may hold only 0 (empty), 1 (black) and 2 (white)")
                np.copyto(src[lo:hi], part, casting="unsafe")
        view = src[lo:hi]
        mask_kernel(&view[0, 0, 0], hi - lo, cw, ch, &res[lo], nt)      # (without the GIL)
        PyErr_CheckSignals()
        lo = hi
    if (out == 3).any():
        raise MemoryError()
    bad = np.flatnonzero(out == 2)
    if len(bad):
        raise ValueError(f"boards may hold only 0 (empty), 1 (black) and 2 (white); board "
                         f"{bad[0]} holds another value")
    return out.view(bool)


cdef uint8_t TRITS[243][5]          # the base-3 digits of 0..242
for _b in range(243):
    for _t in range(5):
        TRITS[_b][_t] = (_b // 3 ** _t) % 3


cdef inline void random_board(uint8_t* g, int npoints, uint64_t seed, int64_t index) noexcept nogil:
    """Board `index` of a seeded sample: each point empty, black or white with probability 1/3
    exactly, so every colouring is equally likely. Bytes of a splitmix64 stream (board i reads
    the block starting at word i * 2^20) below 243 = 3^5 give five base-3 digits; the others
    are rejected, which keeps the digits exactly uniform."""
    cdef uint64_t state = seed + <uint64_t>index * (<uint64_t>1 << 20) * GOLDEN, x
    cdef int k = 0, b, t, byte
    while k < npoints:
        state += GOLDEN
        x = mix64(state)
        for b in range(8):
            byte = x & 255
            x >>= 8
            if byte < 243:
                for t in range(5):
                    if k < npoints:
                        g[k] = TRITS[byte][t]
                        k += 1


cdef int64_t estimate_kernel(int w, int h, uint64_t seed, int64_t start, int64_t stop,
                             int nt) noexcept:
    """Legal boards among boards start..stop-1 of the sample; -1 when out of memory. Called
    with the GIL, which it releases (as sweep_point, for the same reason)."""
    cdef int64_t i, legal = 0, failed = 0
    cdef uint8_t* pad
    cdef uint8_t* g = NULL
    cdef int* stack = NULL
    pad = NULL      # (the threads' own copies are set in the block; this quiets the compiler)
    with nogil, parallel(num_threads=nt):
        pad = <uint8_t*>malloc((w + 2) * (h + 2))
        g = <uint8_t*>malloc(w * h)
        stack = <int*>malloc(w * h * sizeof(int))
        if pad != NULL:
            pad_init(pad, w, h)
        for i in prange(start, stop, schedule="dynamic", chunksize=256):
            if pad == NULL or g == NULL or stack == NULL:
                failed += 1
            else:
                random_board(g, w * h, seed, i)
                legal += board_status(g, w, h, pad, stack)
        free(pad)
        free(g)
        free(stack)
    return -1 if failed else legal


LegalFractionEstimate = namedtuple("LegalFractionEstimate", [
    "width", "height", "samples", "legal", "fraction", "low", "high", "confidence", "seed"],
    module="fastgo.count")
LegalFractionEstimate.__doc__ = """A Monte Carlo estimate of the fraction of legal positions.

legal of samples uniformly random colourings were legal; fraction = legal / samples; (low, high)
is the Wilson score interval for a binomial proportion at the given confidence. Multiply by
3**(width*height) for the count."""


def _confidence(value):
    """A confidence level as a float strictly between 0 and 1 (real numbers only: not a string,
    not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"confidence must be a real number, not {type(value).__name__}")
    c = float(value)
    if not (0 < c < 1 and 0.5 + c / 2 < 1):    # so close to 1 that its quantile is infinite
        raise ValueError(f"confidence must be strictly between 0 and 1 (and below 1 - 2e-16), "
                         f"got {c!r}")
    return c


def wilson_interval(successes, trials, confidence=0.95):
    """The Wilson score interval (low, high) for a binomial proportion: the proportions p for
    which the observed successes lie within z standard errors, sqrt(p(1-p)/trials), of p, where
    z is the two-sided normal quantile of `confidence`. Unlike the normal (Wald) interval it stays
    inside [0, 1] and covers well for proportions near 0, such as 1.2%."""
    n = _index(trials, "trials")
    k = _index(successes, "successes")
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, got {k} of {n}")
    confidence = _confidence(confidence)
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # at k = 0 or k = n the bound is exactly 0 or 1; rounding must not move it
    low = 0.0 if k == 0 else max(0.0, centre - half)
    return low, (1.0 if k == n else min(1.0, centre + half))


def estimate_legal_fraction(width, height, samples, *, seed=0, confidence=0.95, threads=None):
    """Estimate the fraction of the 3^(width*height) colourings that are legal positions (every
    chain touches an empty point) from `samples` uniformly random colourings, each point empty,
    black or white with probability 1/3. Returns a ``LegalFractionEstimate`` with the Wilson score
    interval at `confidence`. The sample depends on `seed` (0 .. 2^64 - 1) and not on `threads`:
    the same call gives the same answer on any machine. Sides 1..25, samples 1..10^12.

    >>> e = estimate_legal_fraction(2, 2, 10000, seed=1)
    >>> e.low < 57 / 81 < e.high
    True
    """
    w, h = _sides(width, height, MAX_SIDE, MAX_SIDE, "the estimate")
    n = _index(samples, "samples")
    if not 1 <= n <= MAX_SAMPLES:
        raise ValueError(f"samples must be 1..{MAX_SAMPLES}, got {n}")
    s = _index(seed, "seed")
    if not 0 <= s < 2 ** 64:
        raise ValueError(f"seed must be 0 .. 2**64 - 1, got {s}")
    confidence = _confidence(confidence)        # validated before the long part
    cdef int nt = _threads(threads, MAX_THREADS)
    cdef uint64_t key = mix64(<uint64_t>s)      # nearby seeds start far apart in the stream
    cdef int64_t start = 0, stop, got, legal = 0, total = n
    cdef int cw = w, ch = h
    while start < total:
        stop = min(total, start + EST_BATCH)
        got = estimate_kernel(cw, ch, key, start, stop, nt)       # (without the GIL)
        if got < 0:
            raise MemoryError()
        legal += got
        start = stop
        PyErr_CheckSignals()
    low, high = wilson_interval(legal, n, confidence)
    return LegalFractionEstimate(w, h, n, int(legal), legal / n, low, high, confidence, s)


def _successors(key, f, r, c, last_row):
    """The keys the sweep reaches from border state `key` by colouring point (r, c) of a
    frontier of f cells (empty, black, white; a refused colouring is left out): the hook the
    tests check the key arithmetic through."""
    cdef uint64_t out[3]
    cdef int n, depth = 0, i, v
    if not (1 <= f <= MAX_FRONTIER and 0 <= c < f and r >= 0):
        raise ValueError(f"_successors: f={f}, r={r}, c={c} out of range")
    if not 0 <= key < (1 << (CELL_BITS * f)):
        raise ValueError(f"_successors: key {key:#x} is not a key of {f} cells")
    for i in range(f):                  # codes 0..10, brackets (OPEN ... CLOSE) that match
        v = (key >> (CELL_BITS * i)) & CELL_MASK
        kind = -1 if v < KEY_LAB else (v - KEY_LAB) & 3
        if v > KEY_LAB + 7 or (kind in (MIDDLE, CLOSE) and depth == 0):
            raise ValueError(f"_successors: key {key:#x} is not a border state")
        depth += (kind == OPEN) - (kind == CLOSE)
    if depth:
        raise ValueError(f"_successors: key {key:#x} is not a border state")
    n = successors(key, f, r, c, bool(last_row), out)
    return [out[i] for i in range(n)]
