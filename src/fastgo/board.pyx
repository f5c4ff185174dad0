# cython: language_level=3, binding=True, embedsignature=True
"""``Board``: a Go game under exact rules, on the C data model of ``fastgo.core``."""

from collections import namedtuple
from copy import deepcopy as _deepcopy

import numpy as np
cimport numpy as cnp
from cpython.long cimport PyLong_AsLongAndOverflow
from cpython.number cimport PyIndex_Check, PyNumber_Index
cimport cython
from cpython.mem cimport PyMem_Malloc, PyMem_Realloc, PyMem_Free
from cpython.list cimport PyList_New
from cpython.object cimport PyObject
from libc.stdint cimport uint8_t, int8_t, int32_t, int64_t, uint64_t
from libc.string cimport memcpy, memset

from fastgo.core cimport *
from fastgo.coords import (check_size, parse_move, point_to_vertex, star_points, vertex_table,
                           COLUMNS, _index)
from fastgo.errors import ArgumentTypeError, IllegalMoveError, ConsistencyError, unmasked
from fastgo.rules import Rules

cnp.import_array()

#: True in a debug build (FASTGO_DEBUG=1): kernel bounds checks on.
DEBUG_BUILD = bool(FASTGO_DEBUG)

EMPTY_ = EMPTY
BLACK_ = BLACK
WHITE_ = WHITE

REASONS = {OCCUPIED: "occupied", SUICIDE: "suicide", KO: "ko", SUPERKO: "superko",
           GAME_OVER: "game over"}

Chain = namedtuple("Chain", "color stones liberties", module="fastgo.board")
Chain.__doc__ = "A chain: its colour, its stones and its liberties (points, sorted)."
class Score(namedtuple("Score", "black white margin winner ownership", module="fastgo.board")):
    """A score: each side's points (komi in White's), margin = black - white,
    winner (0 tie, 1 black, 2 white) and ownership (int8[height, width] of 0/1/2).
    Two scores are equal when every field is (the ownership arrays element by element)."""

    __slots__ = ()

    def __eq__(self, other):
        # (a tuple's == would ask the truth of an array: a ValueError)
        if not isinstance(other, Score):
            return NotImplemented
        return (tuple.__eq__(self[:4], other[:4])
                and np.array_equal(np.asarray(self.ownership), np.asarray(other.ownership)))

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None         # (its ownership array is mutable)

_KO_CODES = {"positional": KO_POSITIONAL, "situational": KO_SITUATIONAL, "simple": KO_SIMPLE}


def zobrist_key(colour, point, width):
    """The 64-bit Zobrist key of a stone of `colour` (1 black, 2 white) at `point` on a board of
    `width` columns: ``mix64(SEED + (4 * ((row + 1) * (width + 1) + col) + colour) * 0x9E3779B97F4A7C15)``
    with splitmix64's finaliser and SEED = 0x66617374676F2121. A position's hash is the XOR of
    the keys of its stones; the empty board hashes to 0. The white-to-move key of
    ``situation_hash`` is the same formula with padded index 0 and colour 3: ``mix64(SEED + 3 *
    0x9E3779B97F4A7C15)``."""
    colour, point, width = _index(colour, "colour"), _index(point, "point"), _index(width, "width")
    if colour not in (BLACK, WHITE):
        raise ValueError(f"colour must be 1 (black) or 2 (white), not {colour}")
    check_size(width, 1)
    if not 0 <= point < width * MAX_SIDE:
        raise ValueError(f"point {point} out of range")
    return zkey(colour, (point // width + 1) * (width + 1) + point % width)


cdef bint place_grid(BoardState* b, const uint8_t* grid) noexcept nogil:
    """Put the stones of a row-major grid (0/1/2, b's width and height) on the empty board b, one
    play each. True when no stone was cleared on the way, which happens exactly when every chain of
    the grid has a liberty: a partial chain always has the empty point where its missing stones go,
    and a chain without liberty in the grid is cleared when its last neighbour is placed."""
    cdef int r, c
    for r in range(b.height):
        for c in range(b.width):
            if grid[r * b.width + c]:
                board_play(b, NULL, (r + 1) * b.stride + c, grid[r * b.width + c])
    return b.captures[BLACK] == 0 and b.captures[WHITE] == 0


cdef bint grid_is_legal(const uint8_t* grid, int width, int height) except -1:
    """True when every chain of the row-major grid has a liberty (a legal position)."""
    cdef BoardState* b = board_new(width, height)
    cdef bint legal
    if b == NULL:
        raise MemoryError()
    legal = place_grid(b, grid)
    board_free(b)
    return legal


cdef _grid_from_array(array, int* width, int* height):
    """Validate a 2-D array of 0/1/2 and return it as a C-contiguous uint8 copy: its shape and
    dtype checked first, then its values on the copy (another thread, or user code the caller
    runs later, may write the caller's array; its shape cannot change)."""
    if array is None or isinstance(array, (str, bytes)):
        raise TypeError(f"a position must be a 2-D array of 0/1/2, not {type(array).__name__}")
    a = unmasked(array, "the position")
    if a.ndim != 2:
        raise ValueError(f"a position must be a 2-D array [height, width], got {a.ndim} dimensions")
    if a.size == 0:         # before the dtype: np.asarray([[]]) is float64
        raise ValueError(f"a position has no points: shape {a.shape} (at least 1x1)")
    if a.dtype.kind not in "iub":
        raise TypeError(f"a position must hold integers 0/1/2, got dtype {a.dtype}")
    h, w = check_size(a.shape[1], a.shape[0])[::-1]
    if a is array or a.base is not None:   # (the caller's memory; a list's array is new)
        a = np.array(a, order="C", copy=True)
    if a.min() < 0 or a.max() > 2:
        raise ValueError("a position may hold only 0 (empty), 1 (black) and 2 (white)")
    width[0] = w
    height[0] = h
    return a.astype(np.uint8, copy=False)


_DEFAULT_RULES = Rules()
cdef object _BARE = object()    # Board.__new__(cls, _BARE): no state yet, the caller fills it
cdef object _NUMPY_BOOL = np.bool_  # (read once: _parse's slow path runs for every numpy int)

cdef extern from "Python.h":
    void _set_item "PyList_SET_ITEM"(object, Py_ssize_t, PyObject*)
    void _incref "Py_INCREF"(PyObject*)

# the ints 0 .. MAX_POINTS, made once: legal_moves fills its lists with them (the tuple, out of
# Python's reach, keeps them alive)
cdef tuple _INTS = tuple(range(MAX_POINTS + 1))
cdef PyObject* _INT_OBJECTS[MAX_POINTS + 1]
for _i in range(MAX_POINTS + 1):
    _INT_OBJECTS[_i] = <PyObject*>_INTS[_i]


cdef inline PyObject** _pick(PyObject** dst, PyObject** src, const uint8_t* mask,
                             Py_ssize_t n) noexcept nogil:
    """Copy src[i] to dst, in order, for each i < n whose mask[i] (0 or 1) is 1; returns the end
    of what was written. No branch on the mask (which points are legal is unpredictable), four
    entries a round (pointer-wide indices: no sign extension at each)."""
    cdef Py_ssize_t i = 0
    while i + 4 <= n:
        dst[0] = src[i]
        dst += mask[i]
        dst[0] = src[i + 1]
        dst += mask[i + 1]
        dst[0] = src[i + 2]
        dst += mask[i + 2]
        dst[0] = src[i + 3]
        dst += mask[i + 3]
        i += 4
    while i < n:
        dst[0] = src[i]
        dst += mask[i]
        i += 1
    return dst


def _make_rules(rules, ko, suicide, scoring, komi):
    """A validated Rules from a Rules, a preset name or None, with keyword overrides."""
    if rules is None:
        rules = _DEFAULT_RULES
    elif isinstance(rules, str):
        rules = Rules.preset(rules)
    elif not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules or a preset name, not {type(rules).__name__}")
    return rules.replace(ko=ko, suicide=suicide, scoring=scoring, komi=komi)


def _restore(cls, width, height, rules, setup, first, history):
    """Unpickle a Board: the set-up, then every turn replayed and checked."""
    width, height = check_size(width, height)
    if setup is None:
        setup = np.zeros((height, width), dtype=np.int8)
    b = cls.from_array(setup, to_move=first, rules=rules)
    if (b.width, b.height) != (width, height):
        raise ValueError(f"a pickled {width}x{height} Board with a {b.width}x{b.height} set-up")
    for m in history:
        b.play(m)
    return b


def is_legal_position(array):
    """True when every chain of the position (int array [height, width] of 0/1/2) has a liberty:
    the colourings Tromp and Farnebäck count as legal positions."""
    cdef int w, h
    g = _grid_from_array(array, &w, &h)
    cdef const uint8_t[:, ::1] view = g
    return bool(grid_is_legal(&view[0, 0], w, h))


cdef inline long _plain_int(object o, long bad) except? -2:
    """o as a C long when it is exactly an int that fits, else `bad` (the slow path decides)."""
    cdef int overflow = 0
    cdef long v
    if type(o) is not int:
        return bad
    v = PyLong_AsLongAndOverflow(o, &overflow)
    return bad if overflow else v


cdef bint board_seen(const void* board, uint64_t key) noexcept nogil:
    """SeenFn (core.judge_play) over a Board's table of turns."""
    return (<Board>board)._seen_contains(key)


# Not tracked by the cyclic garbage collector: a Board's Python fields (its Rules, its set-up
# array) never refer back to a Board, so it is never part of a cycle;
# untracking cost a tree of kept boards a GC list update per copy() and full-GC passes over
# every board.
# copy()'s allocations, recycled: a Board freed puts its block on a list of its size class (sizes
# rounded up to _BLOCK_UNIT), from which the next copy() of that class takes it. A tree of kept
# boards frees and copies boards all the time; through malloc each free touched the chunk's
# neighbours at a random place in memory, and the new copy landed on cold memory.
cdef enum:
    _BLOCK_UNIT = 256           # bytes of a size class step
    _BLOCK_CLASSES = 256        # classes 1..255: blocks up to 64 KiB (larger ones are not kept)
    _BLOCK_KEEP = 64            # blocks kept per class at most
    _BLOCK_BUDGET = 8 << 20     # bytes kept in all classes at most (64 of every class would be
                                # 510 MiB, never given back: a resource tester's finding)
# per class, a stack of kept blocks: the pointers live here, so giving a block back does not
# touch its memory (a dropped board's block is cold: a random place among the boards alive)
cdef void* _block_kept[_BLOCK_CLASSES][_BLOCK_KEEP]
cdef int _block_count[_BLOCK_CLASSES]
cdef size_t _block_bytes = 0    # bytes of the blocks kept


cdef inline void* _block_get(size_t nbytes, int* cls) noexcept:
    """A block of at least nbytes (GIL held): a kept one of its class, or a new one."""
    global _block_bytes
    cdef size_t c = (nbytes + _BLOCK_UNIT - 1) // _BLOCK_UNIT
    if c >= _BLOCK_CLASSES:
        cls[0] = 0
        return PyMem_Malloc(nbytes)
    cls[0] = <int>c
    if _block_count[c]:
        _block_count[c] -= 1
        _block_bytes -= c * _BLOCK_UNIT
        return _block_kept[c][_block_count[c]]
    return PyMem_Malloc(c * _BLOCK_UNIT)


cdef inline void _block_put(void* blk, int cls) noexcept:
    """Give back a block of class cls (0: a plain allocation) (GIL held)."""
    global _block_bytes
    if (cls == 0 or _block_count[cls] >= _BLOCK_KEEP
            or _block_bytes + <size_t>cls * _BLOCK_UNIT > _BLOCK_BUDGET):
        PyMem_Free(blk)
        return
    _block_kept[cls][_block_count[cls]] = blk
    _block_count[cls] += 1
    _block_bytes += <size_t>cls * _BLOCK_UNIT


def _free_kept_blocks():
    """Free every block kept for copies (tests that count a copy's bytes start from none);
    returns the bytes freed."""
    global _block_bytes
    cdef int c
    freed = _block_bytes
    for c in range(_BLOCK_CLASSES):
        while _block_count[c]:
            _block_count[c] -= 1
            PyMem_Free(_block_kept[c][_block_count[c]])
    _block_bytes = 0
    return freed


# A C class's docstring starts with its signature, ended by a line "--" and an empty line:
# CPython shows it as the class's __text_signature__ (inspect.signature, help).
@cython.no_gc
cdef class Board:
    """Board(width=9, height=None, *, rules=None, ko=None, suicide=None, scoring=None,
          komi=None, handicap=0)
--

    A game of Go: the board, whose turn it is, the history that ko and superko look back to.

    Sizes 1..25 each (height defaults to width). ``rules`` is a ``Rules`` or a preset name; the
    keyword options override it. ``handicap`` is a stone count for GTP's fixed placement
    (``star_points``: square boards from 7x7 to 25x25) or a list of moves for free placement;
    handicap stones are part of the set-up and White moves first. A board is initialised once: its
    size and rules are fixed, and ``__init__`` on a live board raises ``TypeError``. The rules'
    fields are read once, when the game starts: a ``Rules`` subclass's attribute code runs then and
    never while the board is read, and a ``Rules`` altered later through ``object.__setattr__``
    changes ``rules`` but not the game.

    Moves are points ``row * width + col`` (A1 = 0, row 0 at the bottom, pass = width * height),
    ``(row, col)`` tuples or GTP vertices such as ``"D4"`` and ``"pass"``.

    >>> b = Board(5)
    >>> b.play("C3"); b.play((2, 3)); b.to_move
    1
    >>> b.chain("C3")
    Chain(color=1, stones=(12,), liberties=(7, 11, 17))
    """

    def __cinit__(self, *args, **kwargs):
        # Every Board, even one made by Board.__new__ alone, owns valid state: an empty 1x1 game.
        # copy() asks for a bare object (_BARE) and fills it itself.
        if args and args[0] is _BARE:
            return
        self.st = <BoardState*>PyMem_Malloc(board_bytes(1, 1))
        self.cap_turns = 8
        self.turns = <Turn*>PyMem_Malloc(self.cap_turns * sizeof(Turn))
        if self.st == NULL or self.turns == NULL:
            raise MemoryError()
        board_clear(self.st, 1, 1)
        self._reset(1, 1, _DEFAULT_RULES)
        self._start()

    def __dealloc__(self):
        if self.st != NULL:
            _block_put(self.st, self.block_class)       # class 0: a plain allocation, freed
        PyMem_Free(self.journal.entries)
        if not self.turns_inline:
            PyMem_Free(self.turns)
        if not self.seen_inline:
            PyMem_Free(self.seen)
        PyMem_Free(self.kmask)

    @cython.embedsignature(False)  # Cython misplaces the `*` of __init__; the docstring says it
    def __init__(self, width=9, height=None, *, rules=None, ko=None, suicide=None, scoring=None,
                 komi=None, handicap=0):
        # A Board is initialised once: its size never changes under a running method (user code
        # such as an iterator or __index__ could otherwise re-size it between the method's
        # reading of the size and its use). The flag is set before any user code runs.
        if self.initialised:
            raise TypeError("Board.__init__ cannot re-initialise a board: make a new Board")
        self.initialised = True
        try:
            w, h = check_size(width, width if height is None else height)
            rules = _make_rules(rules, ko, suicide, scoring, komi)
            if isinstance(handicap, (list, tuple)):
                points = [parse_move(m, w, h) for m in handicap]
            else:
                n = _index(handicap, "handicap")
                points = star_points(w, h, n) if n else []
            grid = None
            if points:
                if w * h in points:
                    raise ValueError("handicap placement: no pass")
                if len(set(points)) != len(points):
                    twice = next(p for p in points if points.count(p) > 1)
                    raise ValueError(f"handicap placement: {point_to_vertex(twice, w, h)} is "
                                     f"given twice")
                if len(points) < 2:
                    raise ValueError("handicap placement needs at least two stones (one is no "
                                     "handicap: play it as Black's first move)")
                grid = np.zeros((h, w), dtype=np.uint8)
                for p in points:
                    grid[p // w, p % w] = BLACK
                if not grid_is_legal(<uint8_t*>cnp.PyArray_DATA(grid), w, h):
                    raise ValueError("handicap stones leave a chain without liberties")
        except BaseException:
            self.initialised = False        # the board is still Board.__new__'s empty 1x1 game
            raise
        # everything is validated: from here on nothing can fail
        self._begin(w, h, rules, grid, WHITE if grid is not None else BLACK)

    # -- construction -----------------------------------------------------------------------------

    cdef int _reset(self, int w, int h, rules) except -1:
        """An empty w x h game under `rules` (a validated Rules), reusing the allocations."""
        cdef void* mem
        # the rules' fields first: a Rules subclass's attribute reads may run user code, which
        # must find the board as it was (and every later reader reads these copies)
        cdef int ko_rule = _KO_CODES[rules.ko]
        cdef bint suicide = rules.suicide, territory = rules.scoring == "territory"
        cdef double komi = rules.komi
        if self.turns_inline or self.seen_inline or self.block_class:
            raise RuntimeError("Board._reset on a copy")     # only new boards are reset
        if board_bytes(w, h) != board_bytes(self.st.width, self.st.height):
            mem = PyMem_Realloc(self.st, board_bytes(w, h))
            if mem == NULL:
                raise MemoryError()
            self.st = <BoardState*>mem
        PyMem_Free(self.seen)
        self.seen = NULL
        self.seen_cap = 0
        PyMem_Free(self.kmask)          # sized for the old board
        self.kmask = NULL
        self.kept = KEPT_NONE
        self.ko_rule = ko_rule
        if ko_rule != KO_SIMPLE:
            self._seen_reserve(1)
        self.rules = rules
        self.suicide = suicide
        self.territory = territory
        self.komi = komi
        self.npoints = w * h
        self.first = BLACK
        self.setup = None
        board_clear(self.st, w, h)
        self.journal.n = 0
        return 0

    # -- superko memory: the turns' keys, found through a table of turn indices -------------------

    cdef bint _seen_contains(self, uint64_t key) noexcept nogil:
        """True when the colouring after some turn (or the set-up) has superko key `key`."""
        cdef int64_t i = <int64_t>(key & <uint64_t>(self.seen_cap - 1))   # keys are Zobrist XORs
        while self.seen[i]:
            if self._turn_key(self.seen[i] - 1) == key:
                return True
            i = (i + 1) & (self.seen_cap - 1)
        return False

    cdef void _seen_add(self, int64_t turn) noexcept nogil:
        """Remember turn `turn` (room reserved by _seen_reserve)."""
        cdef int64_t i = <int64_t>(self._turn_key(turn) & <uint64_t>(self.seen_cap - 1))
        while self.seen[i]:
            i = (i + 1) & (self.seen_cap - 1)
        self.seen[i] = <int32_t>(turn + 1)

    cdef void _seen_remove(self, int64_t turn) noexcept nogil:
        """Forget turn `turn`, the last one added. Emptying its slot cuts no other key's probe
        run: every key added before it was placed while the slot was free."""
        cdef int64_t i = <int64_t>(self._turn_key(turn) & <uint64_t>(self.seen_cap - 1))
        while self.seen[i] != turn + 1:
            i = (i + 1) & (self.seen_cap - 1)
        self.seen[i] = 0

    cdef int _seen_reserve(self, int64_t turns) except -1:
        """Room for turns 0 .. turns - 1 at a load of at most one half: rebuilt from the turns
        held (0 .. nturns) when the table is too small."""
        cdef int64_t cap = 16, t
        cdef int32_t* mem
        if 2 * turns <= self.seen_cap:
            return 0
        if turns >= (<int64_t>1 << 31) - 1:
            raise MemoryError()
        while cap < 2 * turns:
            cap *= 2
        mem = <int32_t*>PyMem_Malloc(cap * sizeof(int32_t))
        if mem == NULL:
            raise MemoryError()
        memset(mem, 0, cap * sizeof(int32_t))
        cdef bint held = self.seen != NULL
        if not self.seen_inline:
            PyMem_Free(self.seen)
        self.seen_inline = False
        self.seen = mem
        self.seen_cap = cap
        if held:
            for t in range(self.nturns + 1):
                self._seen_add(t)
        return 0

    cdef _begin(self, int w, int h, rules, grid, int first):
        """Start a game from a validated legal set-up (uint8 grid [h, w], or None for an empty
        board) with `first` to move. No Python code runs from the reset on (a thread tester's
        crash: another thread played on a Board.__new__ board between them)."""
        setup = None
        if grid is not None and grid.any():
            setup = grid.astype(np.int8)
            setup.flags.writeable = False           # shared by copies
        self._reset(w, h, rules)
        if setup is not None:
            place_grid(self.st, <uint8_t*>cnp.PyArray_DATA(grid))
            self.setup = setup
        self.first = first
        self.initialised = True
        self._start()

    cdef _start(self):
        """Make the current colouring the set-up: history entry 0."""
        self.nturns = 0
        self.undo_floor = 0
        self.kept = KEPT_NONE
        self.turns[0].mark = 0
        self.turns[0].hash = self.st.hash
        self.turns[0].move = -1
        if self.ko_rule != KO_SIMPLE:
            memset(self.seen, 0, self.seen_cap * sizeof(int32_t))
            self._seen_add(0)

    @classmethod
    def from_array(cls, array, *, to_move=BLACK, rules=None, ko=None, suicide=None, scoring=None,
                   komi=None):
        """A game starting from a position: int array [height, width] of 0 empty, 1 black,
        2 white, row 0 at the bottom. The position is the first entry of the history that ko and
        superko look back to; a position in which some chain has no liberty is refused."""
        cdef int w, h
        grid = _grid_from_array(array, &w, &h)
        colour = _index(to_move, "to_move")
        if colour not in (BLACK, WHITE):
            raise ValueError(f"to_move must be 1 (black) or 2 (white), not {colour}")
        if not grid_is_legal(<uint8_t*>cnp.PyArray_DATA(grid), w, h):
            raise ValueError("illegal position: some chain has no liberty")
        rules = _make_rules(rules, ko, suicide, scoring, komi)
        cdef Board b = Board.__new__(cls)     # (a new object whatever cls.__new__ returns)
        b._begin(w, h, rules, grid, colour)
        return b

    @classmethod
    def from_diagram(cls, text, *, to_move=BLACK, rules=None, ko=None, suicide=None, scoring=None,
                     komi=None):
        """A game starting from an ASCII diagram, top row first: ``.`` or ``+`` empty, ``X``
        black, ``O`` white (either case). Row numbers and lines of column letters, as ``str()``
        prints them, are allowed. See ``from_array`` for the set-up semantics."""
        if not isinstance(text, str):
            raise TypeError(f"a diagram must be a str, not {type(text).__name__}")
        rows = []
        for line in text.splitlines():
            cells = line.split()
            if not cells:
                continue
            if cells[0].isdigit():
                cells = cells[1:]
            if cells and cells[-1].isdigit():
                cells = cells[:-1]
            cells = "".join(cells)
            if not cells or COLUMNS.startswith(cells.upper()):   # a line of column letters
                continue
            row = []
            for ch in cells:
                if ch in ".+":
                    row.append(EMPTY)
                elif ch in "Xx":
                    row.append(BLACK)
                elif ch in "Oo":
                    row.append(WHITE)
                else:
                    raise ValueError(f"unknown character {ch!r} in diagram line {line!r}")
            rows.append(row)
        if not rows:
            raise ValueError("empty diagram")
        if len({len(r) for r in rows}) != 1:
            raise ValueError("diagram rows have different lengths")
        return cls.from_array(np.array(rows[::-1], dtype=np.int8), to_move=to_move, rules=rules,
                              ko=ko, suicide=suicide, scoring=scoring, komi=komi)

    cpdef Board copy(self, bint undo=False):
        """An independent copy: the board, the history and the superko memory, so the copy plays,
        judges ko and superko and scores exactly like the original. It can undo the turns played
        on it, but not those played before it was made unless `undo` is true: the undo journal
        grows with the game (about 100 bytes a turn), and the history and superko memory by
        about 24 bytes a turn (a 9x9 copy takes about 2 KB at the start and 3 KB after 40
        turns, a 19x19 one after 200 turns about 11.4 KB). ``copy.copy`` and
        ``copy.deepcopy`` copy the journal too; a subclass's copy keeps its attributes."""
        cdef Board b = self._copy_as(type(self), undo)
        if getattr(self, "__dict__", None):
            b.__dict__.update(self.__dict__)    # a subclass's attributes (as copy.copy: shallow)
        return b

    cdef Board _copy_as(self, type cls, bint undo):
        """copy() as an object of class cls (Board or a subclass), without a subclass's
        attributes. The package's own code takes plain copies of a caller's board (cls Board):
        nothing a subclass overrides runs then."""
        # Cython calls Board's tp_new directly, for a subclass too: a subclass's own __new__
        # would receive the private _BARE (a Board without state, had it kept it) or could
        # return a live board, which the copy would overwrite
        cdef Board b = Board.__new__(cls, _BARE)
        cdef size_t nbytes = board_bytes(self.st.width, self.st.height)
        b.rules = self.rules
        b.setup = self.setup
        b.ko_rule = self.ko_rule
        b.suicide = self.suicide
        b.territory = self.territory
        b.komi = self.komi
        b.npoints = self.npoints
        b.first = self.first
        b.initialised = True
        b.nturns = self.nturns
        b.undo_floor = self.undo_floor if undo else self.nturns
        b.cap_turns = self.nturns + 2
        b.seen_cap = self.seen_cap if self.seen != NULL else 0
        # one allocation: the board (a multiple of 8 bytes), then the turns, then the superko table
        cdef size_t tbytes = <size_t>b.cap_turns * sizeof(Turn)
        cdef char* block = <char*>_block_get(nbytes + tbytes + <size_t>b.seen_cap * sizeof(int32_t),
                                             &b.block_class)
        if block != NULL:
            b.st = <BoardState*>block
            b.turns = <Turn*>(block + nbytes)
            b.turns_inline = True
            if self.seen != NULL:
                b.seen = <int32_t*>(block + nbytes + tbytes)
                b.seen_inline = True
        # without undo the journal starts empty and is allocated by the first play (_reserve)
        if undo and self.journal.n:
            b.journal.cap = self.journal.n
            b.journal.entries = <JournalEntry*>PyMem_Malloc(b.journal.cap * sizeof(JournalEntry))
        if (b.st == NULL or b.turns == NULL or (self.seen != NULL and b.seen == NULL)
                or (b.journal.cap and b.journal.entries == NULL)):
            raise MemoryError()         # __dealloc__ frees what was allocated
        memcpy(b.st, self.st, nbytes)
        memcpy(b.turns, self.turns, (self.nturns + 1) * sizeof(Turn))
        if self.seen != NULL:
            memcpy(b.seen, self.seen, self.seen_cap * sizeof(int32_t))
        if b.journal.cap:
            memcpy(b.journal.entries, self.journal.entries, self.journal.n * sizeof(JournalEntry))
            b.journal.n = self.journal.n
        # without the journal, the marks of turns below undo_floor are never read again
        return b

    def __copy__(self):
        return self.copy(True)

    def __reduce__(self):
        # rebuilt by replaying the turns from the set-up through the checked play()
        # a copy of the set-up: the board's own array must not be handed out writeable;
        # a subclass's attributes as the state (pickle puts them back in its __dict__)
        history = [self.turns[t].move for t in range(1, self.nturns + 1)]
        rebuilt = (_restore, (type(self), self.st.width, self.st.height, self.rules,
                              None if self.setup is None else self.setup.copy(), self.first,
                              history))
        state = getattr(self, "__dict__", None)
        return rebuilt + (state,) if state else rebuilt

    def __deepcopy__(self, memo):
        cdef Board b = self._copy_as(type(self), True)
        memo[id(self)] = b
        state = getattr(self, "__dict__", None)
        if state:               # the copy's own attributes, not the original's objects
            b.__dict__.update(_deepcopy(state, memo))
        return b

    # -- the rules ---------------------------------------------------------------------------------

    cdef int _status(self, int point, uint64_t* new_hash) noexcept nogil:
        """Why the side to move may not play `point` (0 = it may); the new colouring's hash
        (core.judge_move: the one judgement Board and BoardBatch share)."""
        return judge_move(self.st, point, self._colour_to_move(), self._over(), self.ko_rule,
                          self.suicide, self._ko_hash(), board_seen, <void*>self, new_hash)

    cdef int _reserve(self, int point) except -1:
        """Room for one more turn in every growing array."""
        cdef int64_t need = self.journal.n
        if point != self.npoints:
            need += journal_bound(self.st, to_pad(self.st, point))
        return self._grow(need, self.nturns + 2)

    cdef int _reserve_turns(self, int turns) except -1:
        """Room for `turns` more turns of any kind, for a caller that plays them without the
        GIL (where _reserve cannot raise): each as journal_bound's bound with every point a
        stone beside the play."""
        return self._grow(self.journal.n + <int64_t>turns * (JOURNAL_FIXED
                                                              + JOURNAL_PER_STONE * self.npoints),
                          self.nturns + turns + 1)

    cdef int _grow(self, int64_t need, int64_t turns) except -1:
        """Room for `need` journal entries and turns 0 .. turns - 1 (and their superko keys)."""
        cdef int64_t cap
        cdef void* mem
        if need >= (<int64_t>1 << 31):     # (a C constant: 2 ** 31 made a Python int a play)
            raise MemoryError()     # a turn's mark is an int32
        if need > self.journal.cap:
            cap = max(need, 2 * self.journal.cap)     # (a kept copy that plays once stays small)
            mem = PyMem_Realloc(self.journal.entries, cap * sizeof(JournalEntry))
            if mem == NULL:
                raise MemoryError()
            self.journal.entries = <JournalEntry*>mem
            self.journal.cap = cap
        if turns > self.cap_turns:
            cap = max(turns, 2 * self.cap_turns)
            if self.turns_inline:           # in copy()'s block: moved out
                mem = PyMem_Malloc(cap * sizeof(Turn))
                if mem != NULL:
                    memcpy(mem, self.turns, self.cap_turns * sizeof(Turn))
            else:
                mem = PyMem_Realloc(self.turns, cap * sizeof(Turn))
            if mem == NULL:
                raise MemoryError()
            self.turns = <Turn*>mem
            self.turns_inline = False
            self.cap_turns = cap
        if self.ko_rule != KO_SIMPLE:
            self._seen_reserve(turns)
        return 0

    cdef void _commit(self, int point) noexcept nogil:
        """Play a move already judged legal and record the turn."""
        cdef int colour = self._colour_to_move(), before = self.st.num_empty, p
        cdef int64_t mark = self.journal.n
        if self.kept:
            self.kept = KEPT_SETTLED        # a new turn: its hard points are judged again
        if point != self.npoints:
            p = to_pad(self.st, point)
            board_play(self.st, &self.journal, p, colour)
            if self.kept:
                self._settle(p, before)
        self.nturns += 1
        self.turns[self.nturns].mark = <int32_t>mark
        self.turns[self.nturns].hash = self.st.hash
        self.turns[self.nturns].move = point
        if self.ko_rule != KO_SIMPLE:
            self._seen_add(self.nturns)

    cpdef play(self, move):
        """Play `move` for the side to move (a point, (row, col), GTP vertex or "pass").

        Raises ``IllegalMoveError`` (a ``ValueError``) naming the reason when the rules refuse it,
        and leaves the game unchanged."""
        cdef int point
        cdef uint64_t h
        cdef int status
        point = self._parse(move)
        # a mask judged this turn answers for a legal move (the common case of a loop that asks
        # for the legal moves and plays one); only a refusal needs its reason
        if self.kept == KEPT_JUDGED and self.kmask[point]:
            status = LEGAL
            if FASTGO_DEBUG:
                FASTGO_ASSERT(self._status(point, &h) == LEGAL, "Board.play: a move the kept "
                              "mask allows is legal; point", point)
        else:
            status = self._status(point, &h)
        if status:
            raise IllegalMoveError(point, point_to_vertex(point, self.st.width, self.st.height),
                                   REASONS[status])
        self._reserve(point)
        self._commit(point)

    def pass_(self):
        """Pass (always legal until two consecutive passes end the game)."""
        self.play(self.npoints)

    def undo(self, n=1):
        """Take back the last `n` turns (passes included)."""
        cdef int64_t k = _plain_int(n, -1)
        if k < 0:
            n = _index(n, "n")
            k = n if 0 <= n <= self.nturns else -1     # compare as Python ints: n may be huge
        if not 0 <= k <= self.nturns - self.undo_floor:
            if k > 0 and self.undo_floor:
                raise ValueError(f"cannot undo {n} turns: this board is a copy made without its "
                                 f"undo journal (copy(undo=True) keeps it) and can take back "
                                 f"{self.nturns - self.undo_floor}")
            raise ValueError(f"cannot undo {n} turns: {self.nturns} played since the set-up")
        while k:
            self._undo_turn()
            k -= 1

    cdef void _undo_turn(self) noexcept nogil:
        """Take back the last turn (the caller checked that one can be taken back)."""
        cdef Turn* t = &self.turns[self.nturns]
        if self.ko_rule != KO_SIMPLE:
            self._seen_remove(self.nturns)
        journal_rewind(self.st, &self.journal, t.mark)
        self.nturns -= 1
        self.kept = KEPT_NONE

    def is_legal(self, move):
        """True when the side to move may play `move` now."""
        cdef uint64_t h
        cdef int point = self._parse(move)
        if self.kept == KEPT_JUDGED:        # this turn's mask (see play)
            return self.kmask[point] != 0
        return self._status(point, &h) == LEGAL

    def why_illegal(self, move):
        """None when `move` is legal, else the reason: "occupied", "suicide", "ko", "superko" or
        "game over"."""
        cdef uint64_t h
        return REASONS.get(self._status(self._parse(move), &h))

    def hash_after(self, move):
        """The hash of the colouring `move` would leave (even an illegal one), without playing it;
        the current hash for a pass, and for an occupied point (where no play is possible)."""
        cdef uint64_t h
        cdef int point = self._parse(move)
        cdef int captured
        if point == self.npoints:
            return self.st.hash
        board_preview(self.st, to_pad(self.st, point), self._colour_to_move(), &h, &captured)
        return h

    cdef int _keep(self) except -1:
        """Allocate the kept mask, where there is none yet (a new or copied board)."""
        if self.kmask == NULL:
            self.kmask = <uint8_t*>PyMem_Malloc(self._kmask_bytes()
                                                + 3 * hard_words(self.st) * sizeof(uint64_t))
            if self.kmask == NULL:
                raise MemoryError()
            self.kept = KEPT_NONE
        return 0

    cdef void _settle(self, int p, int before) noexcept nogil:
        """The kept mask after a stone on padded point p, the empty list `before` long before it
        (core.settle_play, as BoardBatch keeps its masks; judged afresh where that does not pay)."""
        cdef BoardState* b = self.st
        cdef int gone = b.num_empty - before + 1     # the stones it removed (see settle_play)
        if not settling_pays(gone, self.npoints):
            self.kept = KEPT_NONE
            return
        settle_play(b, p, empty_list(b) + before - 1, gone, self.ko_rule, self.suicide,
                    stride_inverse(b.stride), self.kmask, self._khard())

    cdef void _mask(self, uint8_t* out) noexcept nogil:
        """core.judge_mask's answer at out: from the kept mask (allocated by _keep) with its hard
        points judged for the mover now, or judged afresh into it when it does not follow the
        stones."""
        cdef int colour = self._colour_to_move(), k
        cdef uint8_t check[MAX_POINTS + 1]
        if self._over() or self.kmask == NULL:
            judge_mask(self.st, colour, self._over(), self.ko_rule, self.suicide, self._ko_hash(),
                       board_seen, <void*>self, 0, out, NULL)
            return
        if self.kept == KEPT_SETTLED:
            judge_hard(self.st, colour, self.ko_rule, self.suicide, self._ko_hash(), board_seen,
                       <void*>self, 0, self._khard(), self.kmask, False)
        elif self.kept == KEPT_NONE:
            judge_mask(self.st, colour, False, self.ko_rule, self.suicide, self._ko_hash(),
                       board_seen, <void*>self, 0, self.kmask, self._khard())
        self.kept = KEPT_JUDGED
        memcpy(out, self.kmask, self.npoints + 1)
        if FASTGO_DEBUG:
            judge_mask(self.st, colour, False, self.ko_rule, self.suicide, self._ko_hash(),
                       board_seen, <void*>self, 0, check, NULL)
            for k in range(self.npoints + 1):
                FASTGO_ASSERT(check[k] == out[k], "Board: the kept mask differs from judge_mask "
                              "at point", k)

    def legal_mask(self, out=None):
        """Legality of every point and, last, of the pass: bool array of length points + 1.
        `out`, if given, is a C-contiguous bool array of that length to fill instead."""
        cdef cnp.npy_intp n = self.npoints + 1
        if out is None:
            out = cnp.PyArray_EMPTY(1, &n, cnp.NPY_BOOL, 0)      # (np.empty's call: 0.3 µs)
        elif not isinstance(out, cnp.ndarray):
            raise TypeError(f"out must be a numpy bool array, not {type(out).__name__}")
        elif not (cnp.PyArray_TYPE(out) == cnp.NPY_BOOL and cnp.PyArray_NDIM(out) == 1
                  and cnp.PyArray_DIM(out, 0) == self.npoints + 1
                  and cnp.PyArray_IS_C_CONTIGUOUS(out) and cnp.PyArray_ISWRITEABLE(out)):
            raise (ValueError if cnp.PyArray_TYPE(out) == cnp.NPY_BOOL else ArgumentTypeError)(
                f"out must be a writeable C-contiguous bool array of shape ({self.npoints + 1},), "
                f"got {out.dtype} {out.shape}")
        self._keep()
        self._mask(<uint8_t*>cnp.PyArray_DATA(out))
        return out

    def legal_moves(self):
        """The legal moves (points, then the pass) as a list of ints."""
        cdef uint8_t mask[MAX_POINTS + 1]
        cdef PyObject* picked[MAX_POINTS + 1]
        cdef int i, n
        self._keep()
        self._mask(mask)
        n = _pick(picked, _INT_OBJECTS, mask, self.npoints + 1) - picked
        out = PyList_New(n)         # filled in place with shared int objects: no allocation
        for i in range(n):
            _incref(picked[i])      # the list steals a reference
            _set_item(out, i, picked[i])
        return out

    # -- reading the position ----------------------------------------------------------------------

    @property
    def width(self):
        return self.st.width

    @property
    def height(self):
        return self.st.height

    @property
    def num_points(self):
        return self.npoints

    @property
    def pass_move(self):
        """The pass: ``width * height``."""
        return self.npoints

    @property
    def to_move(self):
        """1 when Black is to move, 2 when White is."""
        return self._colour_to_move()

    @property
    def hash(self):
        """64-bit Zobrist hash of the colouring (see ``zobrist_key``); the empty board is 0."""
        return self.st.hash

    @property
    def _superko_slots(self):
        """Slots of the superko hash table (for tests of its sizing)."""
        return self.seen_cap

    @property
    def situation_hash(self):
        """``hash`` XORed with ``zobrist_key``'s white-to-move key when White is to play: a key
        for (colouring, side to move), what situational superko compares and what a search's
        transposition table wants."""
        return self.st.hash ^ white_to_move_key() if self._colour_to_move() == WHITE else self.st.hash

    @property
    def history(self):
        """The turns played since the set-up, as points (passes as ``pass_move``)."""
        return [self.turns[i].move for i in range(1, self.nturns + 1)]

    @property
    def move_number(self):
        """How many turns were played since the set-up, passes included: ``len(history)``
        without making the list (as ``BoardBatch.move_numbers``)."""
        return self.nturns

    @property
    def captures(self):
        """(stones captured by Black, stones captured by White); stones a player removes by
        their own suicide count for the opponent."""
        return (self.st.captures[BLACK], self.st.captures[WHITE])

    @property
    def is_over(self):
        """True after two consecutive passes."""
        return self._over()

    @property
    def consecutive_passes(self):
        """How many turns in a row, counting back from the last, were passes (2 ends the game)."""
        return self._trailing_passes(self.nturns)

    def stones(self):
        """The colouring as int8 [height, width] (0 empty, 1 black, 2 white), row 0 at the bottom."""
        cdef int w = self.st.width, h = self.st.height, r, c
        out = np.empty((h, w), dtype=np.int8)
        cdef int8_t[:, ::1] v = out
        for r in range(h):
            for c in range(w):
                v[r, c] = self.st.cell[(r + 1) * self.st.stride + c].color
        return out

    def color_at(self, move):
        """Colour at a point: 0 empty, 1 black, 2 white."""
        point = self._point(move)
        return self.st.cell[to_pad(self.st, point)].color

    cdef int _parse(self, move) except -1:
        """The point of a move (pass = num_points); TypeError / ValueError when malformed. Plain
        and numpy ints, (row, col) tuples and vertices take fast paths; the rest, and every error,
        go through coords.parse_move."""
        cdef long v = _plain_int(move, -1), r, c
        cdef int w = self.st.width, h = self.st.height
        if 0 <= v <= self.npoints:
            return v
        if type(move) is tuple and len(<tuple>move) == 2:
            r = _plain_int((<tuple>move)[0], -1)
            c = _plain_int((<tuple>move)[1], -1)
            if 0 <= r < h and 0 <= c < w:
                return r * w + c
        # The paths below run Python code (the vertex table, __index__, the parser), during
        # which another thread or the move's own methods may act on this board: the result is
        # judged against the size read before them, and refused if the size has changed.
        if type(move) is str:
            v = vertex_table(w, h).get(move, -1)      # (coords keeps the tables of 64 sizes)
            if v < 0:
                v = parse_move(move, w, h)
        elif (type(move) is not bool and type(move) is not int and type(move) is not _NUMPY_BOOL
              and PyIndex_Check(move)):      # (numpy before 2.3 lets its bools be indices)
            try:
                v = _plain_int(PyNumber_Index(move), -1)
            except TypeError:       # (a numpy array of other than one element: its own words)
                v = -1
            if not 0 <= v <= w * h:
                v = parse_move(move, w, h)
        else:
            v = parse_move(move, w, h)
        if self.st.width != w or self.st.height != h:
            raise RuntimeError("the board changed size while its move was read")
        return v

    cdef int _point(self, move) except -1:
        cdef int point = self._parse(move)
        if point == self.npoints:
            raise ValueError("a pass is not a point of the board")
        return point

    def chain(self, move):
        """The chain at `move`: Chain(color, stones, liberties), points sorted."""
        cdef int p = to_pad(self.st, self._point(move))
        cdef int h = self.st.cell[p].head, st = h, s = self.st.stride, q, n = 0
        cdef int colour = self.st.cell[p].color
        cdef int32_t stones[MAX_POINTS]
        cdef uint8_t is_lib[MAX_PAD]
        if colour == EMPTY:
            raise ValueError(f"no stone at {point_to_vertex(from_pad(self.st, p), self.st.width, self.st.height)}")
        # walk the chain in C first: no Python object (whose allocation may run a collector
        # and user code) is made while the board is read
        memset(is_lib, 0, self.st.npad)
        while True:
            stones[n] = from_pad(self.st, st)
            n += 1
            for q in (st - s, st - 1, st + 1, st + s):
                if self.st.cell[q].color == EMPTY:
                    is_lib[q] = 1
            st = self.st.cell[st].next
            if st == h:
                break
        libs = [from_pad(self.st, q) for q in range(self.st.npad) if is_lib[q]]
        return Chain(colour, tuple(sorted([stones[i] for i in range(n)])), tuple(sorted(libs)))

    def liberties(self, move):
        """Exact number of liberties of the chain at `move`: its distinct empty neighbours,
        counted by a walk of the chain (the kernel keeps pseudo-liberties)."""
        cdef int p = to_pad(self.st, self._point(move))
        if self.st.cell[p].color == EMPTY:
            raise ValueError(f"no stone at {point_to_vertex(from_pad(self.st, p), self.st.width, self.st.height)}")
        return chain_liberties(self.st, self.st.cell[p].head)

    # -- scoring -----------------------------------------------------------------------------------

    def score(self, dead=()):
        """Score the position as it stands (the game need not be over).

        `dead` lists points of chains the players agree are dead; they are removed first (and count
        as prisoners under territory scoring). A numpy array is a mask of the board's shape,
        (height, width) or (width * height,), of bools or the integers 0 and 1 (the
        environments' int8 masks), when it is bool, not one-dimensional, or that long holding
        only 0 and 1 (a list of points that long would repeat A1 and B1). Area: stones + empty
        points reaching only that colour (rule 9). Territory: empty points reaching only that
        colour + prisoners + dead stones. Komi goes to White. Returns Score(black, white, margin,
        winner, ownership)."""
        cdef int w = self.st.width, h = self.st.height, p, q
        cdef int removed[3]
        cdef int owned[3]
        cdef int territory[3]
        cdef uint8_t colour[MAX_PAD]     # the colouring with the dead stones removed
        cdef double black, white, margin
        if isinstance(dead, np.ndarray) and (dead.dtype == np.bool_ or dead.ndim != 1 or (
                dead.dtype.kind in "iu" and dead.shape == (w * h,)
                and ((dead == 0) | (dead == 1)).all())):
            if dead.shape not in ((h, w), (w * h,)):
                raise ValueError(f"a dead-stone mask must have shape ({h}, {w}) or ({w * h},), "
                                 f"not {dead.shape}")
            if dead.dtype.kind not in "biu":
                raise ArgumentTypeError(f"a dead-stone mask holds bools or the integers 0 and "
                                        f"1, not {dead.dtype}")
            if dead.dtype != np.bool_ and not ((dead == 0) | (dead == 1)).all():
                raise ValueError("a dead-stone mask of integers holds only 0 and 1")
            dead = np.flatnonzero(dead).tolist()
        elif isinstance(dead, (str, bytes)) or not hasattr(dead, "__iter__"):
            raise TypeError(f"dead must be an iterable of moves or a numpy mask, not "
                            f"{type(dead).__name__}")
        # every piece of user code (the iterator, __index__) runs before the board is read; the
        # reading below calls no Python code (the rules' fields were read at the board's start)
        dead = [self._point(m) for m in dead]
        owner = np.empty((h, w), dtype=np.int8)
        if self.st.width != w or self.st.height != h:
            raise RuntimeError("the board changed size while its dead stones were read")
        board_colours(self.st, colour)
        removed[:] = [0, 0, 0]
        for m in dead:
            p = to_pad(self.st, <int>m)
            if self.st.cell[p].color == EMPTY:
                raise ValueError(f"dead stones: no stone at {point_to_vertex(from_pad(self.st, p), w, h)}")
            if colour[p] == EMPTY:
                continue                 # its chain was already listed
            q = p
            while True:
                colour[q] = EMPTY
                removed[self.st.cell[p].color] += 1
                q = self.st.cell[q].next
                if q == p:
                    break
        board_ownership(colour, 1, self.st, <int8_t*>cnp.PyArray_DATA(owner), owned, territory)
        margin = score_points(self.st, owned, territory, self.territory, self.komi,
                              removed[BLACK], removed[WHITE], &black, &white)
        return Score(black, white, margin, winner_of(margin), owner)

    @property
    def winner(self):
        """The winner under the rules' scoring as the position stands: 0 tie, 1 black, 2 white."""
        return self.score().winner

    # -- checks and display ------------------------------------------------------------------------

    def check_consistency(self):
        """Recompute chains, liberties, sizes, chain hashes, neighbour masks, the empty list, the
        hash and the superko memory from the colouring and the history alone, and raise
        ``ConsistencyError`` where the incremental state disagrees."""
        cdef BoardState* b = self.st
        cdef int p, q, s = b.stride
        err = []
        seen = {}
        total = 0
        for p in range(b.npad):
            col = b.cell[p].color
            on = p >= s and p < b.npad - s and p % s != b.width
            if on != (col != WALL):
                err.append(f"cell {p}: wall/board mismatch")
            if col == BLACK or col == WHITE:
                total ^= zkey(col, p)
                if p in seen:
                    continue
                chain = {p}
                stack = [p]
                while stack:
                    x = stack.pop()
                    for q in (x - s, x - 1, x + 1, x + s):
                        if b.cell[q].color == col and q not in chain:
                            chain.add(q)
                            stack.append(q)
                libs = {q for x in chain for q in (x - s, x - 1, x + 1, x + s) if b.cell[q].color == EMPTY}
                hd = b.cell[p].head
                if hd not in chain or any(b.cell[x].head != hd for x in chain):
                    err.append(f"chain at {p}: heads disagree")
                    continue
                ring = set()
                x = hd
                while x not in ring and len(ring) <= len(chain):
                    ring.add(x)
                    x = b.cell[x].next
                if ring != chain:
                    err.append(f"chain at {p}: ring is not the chain")
                pairs = sum(b.cell[q].color == EMPTY for x in chain for q in (x - s, x - 1, x + 1, x + s))
                if b.cell[hd].plibs != pairs:
                    err.append(f"chain at {p}: {b.cell[hd].plibs} pseudo-liberties recorded, {pairs} true")
                if chain_liberties(b, hd) != len(libs):
                    err.append(f"chain at {p}: {chain_liberties(b, hd)} liberties counted, {len(libs)} true")
                if chain_sizes(b)[hd] != len(chain):
                    err.append(f"chain at {p}: size {chain_sizes(b)[hd]} recorded, {len(chain)} true")
                ch = 0
                for x in chain:
                    ch ^= zkey(col, x)
                if chain_hash(b, hd) != ch:
                    err.append(f"chain at {p}: chain hash wrong")
                for x in chain:
                    seen[x] = hd
            elif col == EMPTY:
                i = b.cell[p].next
                if not (0 <= i < b.num_empty and empty_list(b)[i] == p):
                    err.append(f"empty point {p} missing from the empty list")
        for p in range(b.npad):
            if b.cell[p].color != WALL:
                want = 0
                for k, q in enumerate((p - s, p - 1, p + 1, p + s)):
                    c = b.cell[q].color
                    want |= 1 << (4 * c + k) if c != WALL else 0
                if nbr_masks(b)[p] != want:
                    err.append(f"point {p}: neighbour masks {nbr_masks(b)[p]:#x} recorded, "
                               f"{want:#x} true")
        n_empty = sum(1 for p in range(b.npad) if b.cell[p].color == EMPTY)
        if n_empty != b.num_empty:
            err.append(f"{b.num_empty} points listed empty, {n_empty} true")
        if total != b.hash:
            err.append("position hash differs from the recomputed one")
        if self.turns[self.nturns].hash != b.hash:
            err.append("history's last hash differs from the board's")
        for p in range(b.npad):
            if (b.cell[p].color == BLACK or b.cell[p].color == WHITE) and not b.cell[p].ever:
                err.append(f"cell {p}: a stone where no stone ever stood")
        if self.ko_rule != KO_SIMPLE:
            # the superko memory holds exactly the set-up's and every turn's key, each findable
            expected = {}
            for i in range(self.nturns + 1):
                k = self._key(self.turns[i].hash, self.first if i % 2 == 0 else 3 - self.first)
                expected[k] = expected.get(k, 0) + 1
            slots = sorted(self.seen[i] - 1 for i in range(self.seen_cap) if self.seen[i])
            if slots != list(range(self.nturns + 1)):
                err.append("superko memory differs from the history")
            if any(not self._seen_contains(k) for k in expected):
                err.append("superko memory cannot find a key it holds")
            if not 2 * (self.nturns + 1) <= self.seen_cap:
                err.append("superko memory over half full")
        if err:
            raise ConsistencyError("; ".join(err))

    def __str__(self):
        cdef int w = self.st.width, h = self.st.height
        letters = "   " + " ".join(COLUMNS[:w])
        lines = [letters]
        chars = ".XO"
        for r in range(h - 1, -1, -1):
            row = " ".join(chars[self.st.cell[(r + 1) * self.st.stride + c].color] for c in range(w))
            lines.append(f"{r + 1:2d} {row} {r + 1}")
        lines.append(letters)
        return "\n".join(lines)

    def __eq__(self, other):
        """Equal boards are the same game: size, rules, set-up, first player and turns."""
        if not isinstance(other, Board):
            return NotImplemented
        cdef Board o = other
        return (self.st.width == o.st.width and self.st.height == o.st.height
                and self.rules == o.rules and self.first == o.first
                and np.array_equal(self.start_position(), o.start_position())
                and self.nturns == o.nturns and self.history == o.history)

    __hash__ = None             # mutable

    def start_position(self):
        """The set-up the game started from (handicap or diagram stones; zeros when it started
        empty) as int8 [height, width]: history entry 0."""
        if self.setup is None:
            return np.zeros((self.st.height, self.st.width), dtype=np.int8)
        return self.setup.copy()

    @property
    def first_player(self):
        """The colour that moved first after the set-up: 1 black, 2 white (after a handicap)."""
        return self.first

    def __repr__(self):
        side = "black" if self._colour_to_move() == BLACK else "white"
        return (f"<fastgo.Board {self.st.width}x{self.st.height} {side} to move, "
                f"{self.nturns} turns, hash {self.st.hash:#018x}>")

    def _repr_svg_(self):
        """The board as an SVG picture (Jupyter shows it): ``fastgo.draw.svg(self)``."""
        from fastgo import draw             # pure Python, imported when first drawn
        return draw.svg(self)

    def _repr_html_(self):
        """The SVG picture with the size and whose turn it is: ``fastgo.draw.html(self)``."""
        from fastgo import draw
        return draw.html(self)
