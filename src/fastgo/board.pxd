# cython: language_level=3
"""The C-level view of ``fastgo.Board``, for Cython code that ``cimport``s it.

A Board's position is the ``BoardState`` at ``board.st`` (see ``fastgo.core``); read it, or copy it
with ``board_copy`` and play on the copy without the GIL. Write through ``Board`` methods only: the
history, the superko memory, the journal and the kept legal mask must change together (code that
changes ``st`` or ``nturns`` itself must set ``kept`` to ``KEPT_NONE``).
"""

from libc.stdint cimport uint8_t, int32_t, int64_t, uint64_t
from fastgo.core cimport BoardState, Journal, superko_key


cdef enum:
    KEPT_NONE = 0       # no kept mask, or it does not follow the stones (after undo, set-up, copy)
    KEPT_SETTLED = 1    # it follows the stones; its hard points are judged when it is asked for
    KEPT_JUDGED = 2     # and they were, this turn: it is the position's legal mask


ctypedef struct Turn:
    uint64_t hash      # colouring after the turn
    int32_t mark       # journal length before the turn
    int32_t move       # public point, or num_points for a pass


cdef class Board:
    cdef BoardState* st
    cdef Journal journal
    cdef Turn* turns           # turns[0] is the set-up; turns[1..nturns] the turns played
    cdef int64_t nturns
    cdef int64_t cap_turns
    cdef int64_t undo_floor    # turns up to this one cannot be undone (copy(undo=False))
    cdef int32_t* seen         # superko memory: open addressing over the turns, slot = turn + 1
                               # (0 free), keyed by _turn_key; NULL under the simple ko rule
    cdef int64_t seen_cap      # slots of `seen`: a power of two, over twice the turns it holds
    # (the 4-byte fields together and three flags as bytes: the object is 168 bytes, as before
    # the rules' territory and komi were kept here; a kept 9x9 copy after 40 turns, 2,993)
    cdef int block_class       # copy()'s allocation: its size class (_block_get), 0 for none
    cdef int ko_rule
    cdef bint suicide
    cdef bint territory        # rules.scoring == "territory" (and `komi`: the rules' fields read
                               # once, so that the kernels' callers never run user code)
    cdef int npoints
    cdef bint initialised      # set by __init__ (or from_array/copy/unpickling): the size and
                               # rules are fixed from then on, a second __init__ is refused
    cdef int kept              # KEPT_*: whether kmask follows the stones (each play settles the
                               # points it changed, core.settle_around; the hard points are
                               # judged when a mask is asked for) and is this turn's whole mask
    cdef uint8_t first         # colour to move at the set-up
    cdef uint8_t turns_inline  # copy() puts `turns` and `seen` in st's one allocation: never
    cdef uint8_t seen_inline   # freed or resized there, moved out when they must grow
    cdef double komi           # rules.komi
    cdef readonly object rules
    cdef object setup          # int8 [h, w] stones of a non-empty set-up, else None (for pickling)
    cdef uint8_t* kmask        # the kept legal mask (npoints + 1 entries, core.judge_mask's
                               # layout), then its hard points (_khard): one allocation, made
                               # when a mask is first asked for (the object stays 168 bytes)

    cdef int _reset(self, int w, int h, rules) except -1
    cdef bint _seen_contains(self, uint64_t key) noexcept nogil
    cdef void _seen_add(self, int64_t turn) noexcept nogil
    cdef void _seen_remove(self, int64_t turn) noexcept nogil
    cdef int _seen_reserve(self, int64_t turns) except -1
    cdef _begin(self, int w, int h, rules, grid, int first)
    cdef _start(self)
    cpdef Board copy(self, bint undo=*)
    cdef Board _copy_as(self, type cls, bint undo)
    cdef int _status(self, int point, uint64_t* new_hash) noexcept nogil
    cdef int _reserve(self, int point) except -1
    cdef int _reserve_turns(self, int turns) except -1
    cdef int _grow(self, int64_t need, int64_t turns) except -1
    cdef void _commit(self, int point) noexcept nogil
    cdef void _undo_turn(self) noexcept nogil
    cpdef play(self, move)
    cdef int _keep(self) except -1
    cdef void _settle(self, int p, int before) noexcept nogil
    cdef void _mask(self, unsigned char* out) noexcept nogil
    cdef int _parse(self, move) except -1
    cdef int _point(self, move) except -1

    cdef inline uint64_t _key(self, uint64_t h, int to_move) noexcept nogil:
        """What superko remembers of a colouring with hash h and `to_move` to play."""
        return superko_key(self.ko_rule, h, to_move)

    cdef inline uint64_t _turn_key(self, int64_t t) noexcept nogil:
        """The superko key of the colouring after turn t (0: the set-up)."""
        return self._key(self.turns[t].hash, self.first if t % 2 == 0 else 3 - self.first)

    cdef inline size_t _kmask_bytes(self) noexcept nogil:
        """The kept mask's npoints + 1 entries, rounded up to whole words."""
        return (<size_t>self.npoints + 8) & ~(<size_t>7)

    cdef inline uint64_t* _khard(self) noexcept nogil:
        """The kept mask's hard points (core.judge_hard's 3 * hard_words words), after it."""
        return <uint64_t*>(self.kmask + self._kmask_bytes())

    cdef inline int _colour_to_move(self) noexcept nogil:
        return self.first if self.nturns % 2 == 0 else 3 - self.first

    cdef inline int64_t _trailing_passes(self, int64_t most) noexcept nogil:
        """How many turns in a row, back from the last, were passes (at most `most`)."""
        cdef int64_t n = 0
        while n < most and n < self.nturns and self.turns[self.nturns - n].move == self.npoints:
            n += 1
        return n

    cdef inline bint _over(self) noexcept nogil:
        return (self.nturns >= 2 and self.turns[self.nturns].move == self.npoints
                and self.turns[self.nturns - 1].move == self.npoints)

    cdef inline const uint64_t* _ko_hash(self) noexcept nogil:
        """The colouring before the opponent's last turn (what simple ko forbids), NULL before
        any turn."""
        return &self.turns[self.nturns - 1].hash if self.nturns >= 1 else NULL
