"""Smart Game Format (SGF, FF[4]) for Go: read and write game records, replay them under rules.

Reading: ``parse(text)`` gives the collection's game trees as ``Node`` trees; ``read_game(text)``
(or ``load(path)``) takes the main line (first variation at every branch) of one game tree into a
``Game``: board size (``SZ[19]`` or rectangular ``SZ[19:13]``, 1..52 a side), komi (``KM``),
handicap (``HA``),
set-up stones of the root (``AB``/``AW``/``AE``, compressed ``aa:cc`` rectangles included), player
to move (``PL``), moves (``B``/``W``, passes as ``[]`` or, on boards up to 19x19, ``[tt]``),
result (``RE``) and rules (``RU``). ``Game.board()`` replays it under the rules, checking every
move, and raises ``ReplayError`` naming the first illegal move and its move number.

Writing: ``to_sgf(game)``, ``board_to_sgf(board)`` and ``games_to_sgf(move_lists, ...)`` write
FF[4] records; reading what they write gives the same game.

Why a parser of our own rather than sgfmill: sgfmill handles square boards only (``SZ[w:h]`` is
refused) up to 26, and we want errors that give the line and column in the file; the format is
small.

Not supported (a clear ``SgfError`` or ``ReplayError`` says so): set-up properties after the
root node, two moves of one colour in a row (fastgo games alternate; a record needs a pass
between them, or ``board(insert_passes=True)``), a move after the game ended with two passes
(``board(insert_passes=True)`` resumes the game from the stones as they stand, as GTP's
``play`` does; ``segments`` gives every part and ``score`` counts their prisoners), one point in two of AB/AW/AE of a node (FF[4]
forbids it), and replaying a board over 25 points a side (fastgo's ``Board`` stops there; such
records up to SGF's 52 are read and written). Not interpreted (some kept in ``Game.info``):
comments, markup, time, game information other than the above.
"""

from __future__ import annotations  # `int | None` fields on Python 3.9

import os
import re
import sys
from dataclasses import dataclass, field

import numpy as np

from fastgo.board import Board, is_legal_position
from fastgo.coords import MAX_SIDE, check_size, point_to_vertex, star_points
from fastgo.errors import IllegalMoveError
from fastgo.rules import PRESETS, Rules

EMPTY, BLACK, WHITE = 0, 1, 2

#: SGF coordinate letters: a..z then A..Z (FF[4] boards up to 52x52); "aa" is the top left.
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: The largest board side SGF can write (and this module reads); ``Board`` goes up to 25.
SGF_MAX_SIDE = len(LETTERS)

#: How fastgo's presets are named in RU[] when written; reading accepts these and the aliases.
RU_NAMES = {"chinese": "Chinese", "japanese": "Japanese", "aga": "AGA", "new-zealand": "NZ",
            "tromp-taylor": "Tromp-Taylor", "ing": "Ing"}
_RU_ALIASES = {"cn": "chinese", "jp": "japanese", "korean": "japanese", "kr": "japanese",
               "goe": "ing", "ing-goe": "ing", "american": "aga", "tt": "tromp-taylor",
               "nz": "new-zealand", "newzealand": "new-zealand"}
#: Rules that match no preset are written as RU[fastgo:ko=...,suicide=...,scoring=...].
_FASTGO_RU = re.compile(r"fastgo:ko=(\w+),suicide=(allowed|forbidden),scoring=(\w+)$")


class SgfError(ValueError):
    """A malformed SGF file or a record fastgo cannot represent. ``offset`` is the character
    position in the text (or None), ``line`` and ``column`` count from 1."""

    def __init__(self, message, text=None, offset=None):
        self.offset = offset
        self.line = self.column = None
        if text is not None and offset is not None:
            self.line = text.count("\n", 0, offset) + 1
            self.column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            message = f"{message} (line {self.line}, column {self.column})"
        super().__init__(message)


class ReplayError(SgfError):
    """A move of the record that the rules refuse. ``move_number`` counts the record's moves
    from 1 (passes included); ``colour``, ``vertex`` and ``reason`` (as ``IllegalMoveError``'s)
    say which move and why."""

    def __init__(self, move_number, colour, vertex, reason, text=None, offset=None):
        self.move_number = move_number
        self.colour = colour
        self.vertex = vertex
        self.reason = reason
        side = "B" if colour == BLACK else "W"
        super().__init__(f"move {move_number} ({side} {vertex}) is illegal: {reason}", text, offset)


# -- the tree ------------------------------------------------------------------------------------

@dataclass
class Node:
    """One SGF node: properties (identifier -> list of raw values, escapes resolved), the
    variations that follow it (``children[0]`` is the main line) and its offset in the text."""

    props: dict = field(default_factory=dict)
    children: list = field(default_factory=list)
    offset: int = 0
    value_offsets: dict = field(default_factory=dict, repr=False)

    def get(self, ident, default=None):
        """The first value of a property, or `default`."""
        values = self.props.get(ident)
        return values[0] if values else default

    # repr and == walk the tree with a stack of their own, not by recursion: a record may be
    # thousands of nodes deep (parse reads it without recursion too)
    def __repr__(self):
        out, todo = [], [self]
        while todo:
            item = todo.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            out.append(f"Node(props={item.props!r}, children=[")
            todo.append(f"], offset={item.offset!r})")
            for k in range(len(item.children) - 1, -1, -1):
                todo.append(item.children[k])
                if k:
                    todo.append(", ")
        return "".join(out)

    def __eq__(self, other):
        if not isinstance(other, Node):
            return NotImplemented
        todo = [(self, other)]
        while todo:
            a, b = todo.pop()
            if (a.props != b.props or a.offset != b.offset or a.value_offsets != b.value_offsets
                    or len(a.children) != len(b.children)):
                return False
            todo.extend(zip(a.children, b.children))
        return True

    __hash__ = None             # mutable

    def main_line(self):
        """This node and the first child of each node after it."""
        node = self
        while True:
            yield node
            if not node.children:
                return
            node = node.children[0]


def parse(text):
    """Parse an SGF collection (str) into its game trees: a list of root ``Node``s.

    Grammar (FF[4]): Collection = GameTree+; GameTree = "(" Node+ GameTree* ")"; Node = ";"
    Property*; Property = PropIdent PropValue+; PropValue = "[" text "]" with "\\" escaping the
    next character (a backslash before a line break removes both). Text before the first "(" is
    ignored; lower-case letters in identifiers (FF[3] style "AddBlack") are dropped. Anything
    else out of place raises ``SgfError`` with its line and column.
    """
    if not isinstance(text, str):
        raise TypeError(f"SGF text must be a str, not {type(text).__name__}")
    n = len(text)
    i = text.find("(")
    if i < 0:
        raise SgfError("no game tree: the file has no '('", text, 0 if not n else n)
    roots = []
    # one frame per open '(': [node the tree hangs from (None at the top), last node of its
    # sequence, whether a variation of this tree has been closed already]
    stack = []
    while i < n:
        c = text[i]
        if c in " \t\r\n\f\v":
            i += 1
        elif c == "(":
            if stack and stack[-1][1] is None:
                raise SgfError("a game tree must start with a node ';'", text, i)
            stack.append([stack[-1][1] if stack else None, None, False])
            i += 1
        elif c == ")":
            if not stack:
                raise SgfError("unmatched ')'", text, i)
            if stack[-1][1] is None:
                raise SgfError("empty game tree '()'", text, i)
            stack.pop()
            if stack:
                stack[-1][2] = True
            i += 1
        elif c == ";":
            if not stack:
                raise SgfError("node outside a game tree", text, i)
            frame = stack[-1]
            if frame[2]:
                raise SgfError("a node after a variation (only variations or ')' may follow one)",
                               text, i)
            node = Node(offset=i)
            i = _parse_properties(text, i + 1, node)
            if frame[1] is not None:
                frame[1].children.append(node)
            elif frame[0] is not None:
                frame[0].children.append(node)
            else:
                roots.append(node)
            frame[1] = node
        else:
            if not stack:
                raise SgfError(f"unexpected {c!r} after the last game tree", text, i)
            raise SgfError(f"unexpected {c!r} (expected ';', '(' or ')')", text, i)
    if stack:
        raise SgfError(f"unexpected end of file: {len(stack)} game tree(s) not closed with ')'",
                       text, n)
    return roots


def _parse_properties(text, i, node):
    """Read a node's properties from text[i:]; return the offset after them."""
    n = len(text)
    while True:
        while i < n and text[i] in " \t\r\n\f\v":
            i += 1
        if i >= n or not text[i].isascii() or not text[i].isalpha():
            return i
        start = i
        while i < n and text[i].isascii() and text[i].isalpha():
            i += 1
        ident = "".join(ch for ch in text[start:i] if ch.isupper())
        if not ident:
            raise SgfError(f"property identifier {text[start:i]!r} has no capital letter", text,
                           start)
        values, offsets = [], []
        while True:
            while i < n and text[i] in " \t\r\n\f\v":
                i += 1
            if i >= n or text[i] != "[":
                break
            value_start = i
            i += 1
            chunk = []
            while True:
                if i >= n:
                    raise SgfError(f"unterminated value of property {ident} (no closing ']')",
                                   text, value_start)
                ch = text[i]
                if ch == "]":
                    i += 1
                    break
                if ch == "\\":
                    i += 1
                    if i >= n:
                        continue
                    ch = text[i]
                    if ch in "\r\n":         # soft line break: both characters go
                        i += 2 if text[i:i + 2] in ("\r\n", "\n\r") else 1
                        continue
                chunk.append(ch)
                i += 1
            values.append("".join(chunk))
            offsets.append(value_start)
        if not values:
            raise SgfError(f"property {ident} has no value '[...]'", text, i if i < n else n)
        node.props.setdefault(ident, []).extend(values)
        node.value_offsets.setdefault(ident, []).extend(offsets)


# -- from the tree to a game -----------------------------------------------------------------------

@dataclass
class Game:
    """A Go game record: what fastgo needs to replay it, plus the other root information.

    ``setup`` is the int8 [height, width] position before the first move (row 0 at the bottom),
    ``to_move`` the colour to play first, ``moves`` the (colour, point) turns of the main line
    (pass = width * height). ``rules`` is the ``Rules`` that ``RU`` names (or None when it is
    absent or unknown; ``rules_name`` keeps the text), with ``komi`` from ``KM`` if given.
    """

    width: int = 19
    height: int = 19
    komi: float | None = None
    handicap: int = 0
    rules_name: str | None = None
    rules: Rules | None = None
    setup: np.ndarray | None = None
    to_move: int = BLACK
    moves: list = field(default_factory=list)
    result: str | None = None
    info: dict = field(default_factory=dict)
    text: str | None = field(default=None, repr=False, compare=False)
    offsets: list = field(default_factory=list, repr=False, compare=False)
    size_offset: int | None = field(default=None, repr=False, compare=False)
    setup_offset: int | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        for name in ("width", "height"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"Game.{name} must be an int, not {type(v).__name__}")
            if not 1 <= v <= SGF_MAX_SIDE:
                raise ValueError(f"Game.{name} must be 1..{SGF_MAX_SIDE}, not {v}")
        if self.setup is None:
            self.setup = np.zeros((self.height, self.width), dtype=np.int8)
        elif np.shape(self.setup) != (self.height, self.width):
            raise ValueError(f"Game.setup must have shape ({self.height}, {self.width}), not "
                             f"{np.shape(self.setup)}")

    def _rules_key(self):
        """What a record says of its rules: the options (RU; None when absent or unknown) and
        the komi (KM, else the rules' komi), as ``to_sgf`` writes them. ``Game.rules``'s own
        komi is not part of it: RU names options, and a preset read back (NZ for an Ing game)
        carries the preset's komi, not the record's."""
        r = self.rules
        komi = self.komi if self.komi is not None else (r.komi if r is not None else None)
        return (None if r is None else (r.ko, r.suicide, r.scoring), komi)

    def __eq__(self, other):
        if not isinstance(other, Game):
            return NotImplemented
        return ((self.width, self.height, self._rules_key(), self.handicap, self.to_move,
                 self.moves, self.result) ==
                (other.width, other.height, other._rules_key(), other.handicap,
                 other.to_move, other.moves, other.result)
                and np.array_equal(self.setup, other.setup))

    def effective_rules(self, rules=None):
        """The rules a replay uses: `rules` (a ``Rules`` or preset name) if given, else the
        record's, else Tromp-Taylor; the record's komi applies unless `rules` is given."""
        if rules is not None:
            return Rules.preset(rules) if isinstance(rules, str) else rules
        base = self.rules if self.rules is not None else PRESETS["tromp-taylor"]
        return base.replace(komi=self.komi)

    def board(self, rules=None, upto=None, insert_passes=False):
        """Replay the record: the set-up, then every move checked by ``Board.play``. `upto`
        stops before that move number (``upto=1``: the set-up only). Raises ``ReplayError`` for
        the first illegal move.

        Two moves of one colour in a row are an error, unless `insert_passes`: then a pass of
        the other colour is played between them, as GTP engines read such a sequence, provided
        it does not end the game (the turn before was not a pass). With `insert_passes`, a move
        after the game ended (two passes), or one of the colour that just passed, resumes the
        game as GTP's ``play`` does: play goes on from the stones as they stand as a new set-up
        (ko and superko forget the earlier positions). The returned board is then that last
        part; its ``captures`` count only the prisoners taken in it (``segments`` gives every
        part, ``prisoners`` and ``score`` add the earlier ones).

        A record of a board over 25 points a side (fastgo's largest) raises ``SgfError``."""
        return self.segments(rules, upto, insert_passes)[-1]

    def segments(self, rules=None, upto=None, insert_passes=False):
        """The replay of ``board`` as a list: one entry per part of the game, each ended by a
        resumption (see ``board``): the finished parts as ``FinishedPart``s, the last, the part
        still being played, as a ``Board``. Without resumption the list holds one board. A game
        resumed more than ``MAX_RESUMPTIONS`` times raises ``SgfError``."""
        if upto is not None:
            if isinstance(upto, bool) or not isinstance(upto, (int, np.integer)):
                raise TypeError(f"upto must be an int or None, not {type(upto).__name__}")
            if upto < 1:
                raise ValueError(f"upto must be at least 1 (1: the set-up only), not {upto}")
        try:
            check_size(self.width, self.height)
        except ValueError:
            raise SgfError(f"cannot replay a {self.width}x{self.height} board: fastgo boards are "
                           f"1..{MAX_SIDE} points a side", self.text, self.size_offset) from None
        rules = self.effective_rules(rules)
        if not is_legal_position(self.setup):
            raise SgfError("the set-up (AB/AW/AE) leaves a chain without liberties", self.text,
                           self.setup_offset)
        b = Board.from_array(self.setup, to_move=self.to_move, rules=rules)
        earlier = []
        moves = self.moves if upto is None else self.moves[:max(0, upto - 1)]
        for k, (colour, point) in enumerate(moves):
            offset = self.offsets[k] if k < len(self.offsets) else None
            if insert_passes and (b.is_over or colour != b.to_move):
                if not b.is_over and (not b.history or b.history[-1] != b.pass_move):
                    b.play(b.pass_move)
                else:                           # resume, as GTP's play does
                    try:
                        finish_part(earlier, b)
                    except ValueError as e:
                        raise SgfError(str(e), self.text, offset) from None
                    b = Board.from_array(b.stones(), to_move=colour, rules=rules)
            if colour != b.to_move:
                raise ReplayError(k + 1, colour, point_to_vertex(point, self.width, self.height),
                                  "not this colour's turn (two moves of one colour in a row; "
                                  "fastgo games alternate, a pass must come between)",
                                  self.text, offset)
            try:
                b.play(point)
            except IllegalMoveError as e:
                raise ReplayError(k + 1, colour, e.vertex, e.reason, self.text, offset) from None
        return earlier + [b]


#: The most times one game may be resumed after two passes (``Game.segments``, GTP ``play``,
#: ``genmove`` and ``loadsgf``): what one input may cost stays bounded (each finished part keeps
#: its set-up, a few hundred bytes; real games resume a handful of times).
MAX_RESUMPTIONS = 10_000


class FinishedPart:
    """A finished part of a resumed game (see ``Game.board``), kept compactly instead of as a
    whole ``Board``: the set-up it started from (``start_position()``, read-only and shared
    with the part before when equal, as in a run of passes), the colour that moved first, its
    turns, the prisoners taken in it and its rules. ``board()`` replays it into a ``Board``.
    It reads like the finished ``Board`` it was: ``history``, ``captures``, ``first_player``,
    ``rules``, ``width``, ``height``, ``is_over``."""

    __slots__ = ("_setup", "first_player", "_moves", "captures", "rules")

    def __init__(self, board, like=None):
        """The part `board` played; `like`: the part before, whose set-up array is reused when
        it is the same position."""
        _check_board(board)
        setup, self.first_player = board_setup(board)
        if like is not None and np.array_equal(like._setup, setup):
            setup = like._setup
        else:
            setup.flags.writeable = False
        self._setup = setup
        self._moves = np.array(board.history, dtype=np.int16)
        self.captures = board.captures
        self.rules = board.rules

    width = property(lambda self: self._setup.shape[1])
    height = property(lambda self: self._setup.shape[0])
    history = property(lambda self: self._moves.tolist(), doc="The part's turns, as points.")
    is_over = property(lambda self: True)

    def start_position(self):
        return self._setup.copy()

    def board(self):
        """The part as a ``Board``: its set-up and turns replayed (all legal: they were)."""
        b = Board.from_array(self._setup, to_move=self.first_player, rules=self.rules)
        for p in self._moves.tolist():
            b.play(p)
        return b

    def __repr__(self):
        return (f"<fastgo.sgf.FinishedPart {self.width}x{self.height}, {len(self._moves)} turns, "
                f"captures {self.captures}>")


def finish_part(earlier, board):
    """Append `board`, a finished part of a resumed game, to `earlier` as a ``FinishedPart``;
    ValueError when the game was resumed ``MAX_RESUMPTIONS`` times already."""
    if len(earlier) >= MAX_RESUMPTIONS:
        raise ValueError(f"the game was resumed after two passes {MAX_RESUMPTIONS} times, "
                         f"fastgo's limit")
    earlier.append(FinishedPart(board, earlier[-1] if earlier else None))


def prisoners(earlier):
    """(black, white) prisoners taken in the boards `earlier` (the finished parts of a resumed
    game, as ``Game.segments`` lists them before the last)."""
    black = white = 0
    for b in earlier:
        black += b.captures[0]
        white += b.captures[1]
    return black, white


def score(board, earlier=(), dead=()):
    """``board.score(dead)`` with the prisoners of the `earlier` parts of a resumed game added
    (they count under territory scoring only). Returns a ``fastgo.board.Score``."""
    s = board.score(dead)
    pb, pw = prisoners(earlier)
    if board.rules.scoring == "area" or not (pb or pw):
        return s
    black, white = s.black + pb, s.white + pw
    winner = BLACK if black > white else WHITE if white > black else EMPTY
    return type(s)(black, white, black - white, winner, s.ownership)


def _parse_point(value, width, height, text, offset, allow_pass):
    """The point of an SGF point value ("" or "tt" on boards up to 19x19 are passes)."""
    if allow_pass and (value == "" or (value == "tt" and width <= 19 and height <= 19)):
        return width * height
    if len(value) != 2 or value[0] not in LETTERS or value[1] not in LETTERS:
        raise SgfError(f"bad point {value!r}", text, offset)
    col, top = LETTERS.index(value[0]), LETTERS.index(value[1])
    if col >= width or top >= height:
        raise SgfError(f"point {value!r} is off the {width}x{height} board", text, offset)
    return (height - 1 - top) * width + col


def rules_from_name(name):
    """The ``Rules`` an RU[] value names (case, spaces, '-' and '_' ignored), or None."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"a rules name must be a str, not {type(name).__name__}")
    m = _FASTGO_RU.match(name.strip())
    if m:
        try:
            return Rules(m.group(1), m.group(2) == "allowed", m.group(3))
        except ValueError:
            return None
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    key = _RU_ALIASES.get(key.replace("-", ""), _RU_ALIASES.get(key, key))
    try:
        return Rules.preset(key)
    except ValueError:
        return None


def rules_to_name(rules):
    """The RU[] value for `rules`: a preset's name when the ko, suicide and scoring options
    match one (komi is written as KM), else ``fastgo:ko=...,suicide=...,scoring=...``."""
    for key, preset in PRESETS.items():
        if (preset.ko, preset.suicide, preset.scoring) == (rules.ko, rules.suicide, rules.scoring):
            return RU_NAMES.get(key, key)
    return (f"fastgo:ko={rules.ko},suicide={'allowed' if rules.suicide else 'forbidden'},"
            f"scoring={rules.scoring}")


# SGF numbers are ASCII: int() and float() alone would take "1_9", "٩", "inf", "1e5"
_SGF_NUMBER = re.compile(r"[+-]?[0-9]+")
_SGF_REAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")


def _sgf_number(text):
    """An SGF Number ("[+-]digits", surrounding spaces allowed) as an int; ValueError else."""
    text = text.strip()
    if not _SGF_NUMBER.fullmatch(text):
        raise ValueError(f"not an SGF number: {text!r:.40}")
    return int(text)


def _sgf_real(text):
    """An SGF Real (a Number with an optional decimal fraction) as a float; ValueError else."""
    text = text.strip()
    if not _SGF_REAL.fullmatch(text):
        raise ValueError(f"not an SGF real: {text!r:.40}")
    return float(text)


def _root_number(root, key, what, convert, valid, text, default, where):
    """The number of root property `key` (KM, HA) converted and checked, or `default` when absent
    or blank; a bad one raises SgfError at its position (`where(root, key)`)."""
    value = root.get(key)
    if value is None or not value.strip():
        return default
    try:
        n = convert(value)
    except ValueError:
        n = None
    if n is None or not valid(n):
        raise SgfError(f"bad {what} {key}[{value}]", text, where(root, key))
    return n


def game_from_tree(root, text=None):
    """The ``Game`` of a game tree's main line (see the module docstring for what is read)."""
    def where(node, ident, k=0):
        offs = node.value_offsets.get(ident)
        return offs[k] if offs and k < len(offs) else node.offset

    gm = root.get("GM")
    if gm is not None and gm.strip() != "1":
        raise SgfError(f"not a Go game record (GM[{gm}]; Go is GM[1])", text, where(root, "GM"))
    size = root.get("SZ", "19").strip()
    try:
        if ":" in size:
            w, h = size.split(":", 1)
            width, height = _sgf_number(w), _sgf_number(h)
        else:
            width = height = _sgf_number(size)
    except ValueError:
        raise SgfError(f"bad board size SZ[{size}]", text, where(root, "SZ")) from None
    if not (1 <= width <= SGF_MAX_SIDE and 1 <= height <= SGF_MAX_SIDE):
        raise SgfError(f"board size SZ[{size}] not supported: SGF boards are 1..{SGF_MAX_SIDE} "
                       "points a side", text, where(root, "SZ"))
    game = Game(width=width, height=height, text=text,
                size_offset=where(root, "SZ") if "SZ" in root.props else root.offset)
    game.komi = _root_number(root, "KM", "komi", _sgf_real, np.isfinite, text, game.komi, where)
    game.handicap = _root_number(root, "HA", "handicap", _sgf_number, lambda n: n >= 0, text,
                                 game.handicap, where)
    game.rules_name = root.get("RU")
    game.rules = rules_from_name(game.rules_name)
    game.result = root.get("RE")
    for ident in ("PB", "PW", "BR", "WR", "DT", "EV", "RO", "PC", "GN", "GC", "TM", "OT", "SO",
                  "US", "AN", "CP", "ON"):
        if ident in root.props:
            game.info[ident] = root.props[ident][0]
    game.setup_offset = root.offset
    # each value (a point or an "aa:cc" rectangle) is one slice of the grid: a file that
    # repeats a 52x52 rectangle costs numpy's time per value, not Python's per point
    placed = np.zeros((height, width), dtype=np.int8)     # 1 + index of the property that set
    idents = ("AB", "AW", "AE")                           # each point up, 0: none
    for code, (ident, colour) in enumerate(zip(idents, (BLACK, WHITE, EMPTY)), 1):
        for value, off in zip(root.props.get(ident, ()), root.value_offsets.get(ident, ())):
            a, _, b = value.partition(":")
            pa = _parse_point(a, width, height, text, off, False)
            pb = _parse_point(b, width, height, text, off, False) if ":" in value else pa
            (r1, c1), (r2, c2) = divmod(pa, width), divmod(pb, width)
            rows, cols = slice(min(r1, r2), max(r1, r2) + 1), slice(min(c1, c2), max(c1, c2) + 1)
            clash = np.flatnonzero((placed[rows, cols] != 0) & (placed[rows, cols] != code))
            if len(clash):
                r, c = divmod(int(clash[0]), cols.stop - cols.start)
                r, c = rows.start + r, cols.start + c
                raise SgfError(f"point {_sgf_point(r * width + c, width, height)!r} is in both "
                               f"{idents[placed[r, c] - 1]} and {ident} of one node (FF[4] "
                               f"forbids it)", text, off)
            placed[rows, cols] = code
            game.setup[rows, cols] = colour
    pl, pl_at = root.get("PL"), where(root, "PL")
    for k, node in enumerate(root.main_line()):
        if k > 0:
            for ident in ("AB", "AW", "AE"):
                if ident in node.props:
                    raise SgfError(f"set-up {ident} after the root node is not supported (fastgo "
                                   "replays a set-up followed by alternating moves)",
                                   text, where(node, ident))
            if "PL" in node.props and not game.moves:
                pl, pl_at = node.get("PL"), where(node, "PL")
        if "B" in node.props and "W" in node.props:
            raise SgfError("a node with both a black and a white move", text, node.offset)
        for ident, colour in (("B", BLACK), ("W", WHITE)):
            if ident in node.props:
                if len(node.props[ident]) != 1:
                    raise SgfError(f"move {ident} with {len(node.props[ident])} values", text,
                                   where(node, ident, 1))
                off = where(node, ident)
                game.moves.append((colour, _parse_point(node.props[ident][0], width, height,
                                                        text, off, True)))
                game.offsets.append(off)
    if pl is not None:
        side = pl.strip().upper()
        if side not in ("B", "W", "BLACK", "WHITE"):
            raise SgfError(f"bad player PL[{pl}]", text, pl_at)
        game.to_move = BLACK if side.startswith("B") else WHITE
    elif game.moves:
        game.to_move = game.moves[0][0]
    elif game.handicap >= 2:
        game.to_move = WHITE
    return game


def read_game(text, index=0):
    """The ``Game`` of the main line of game tree `index` of an SGF text."""
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"index must be an int, not {type(index).__name__}")
    trees = parse(text)
    if not -len(trees) <= index < len(trees):
        raise SgfError(f"the collection has {len(trees)} game tree(s); no game {index}")
    return game_from_tree(trees[index], text)


def read_games(text):
    """The ``Game``s of every game tree of an SGF collection."""
    return [game_from_tree(root, text) for root in parse(text)]


def decode(data):
    """Text of SGF bytes: the charset of the first CA[] if it names one Python knows and it
    decodes the bytes, else UTF-8, else Latin-1 (which decodes anything)."""
    m = re.search(rb"CA\s*\[([^\]]*)\]", data)
    encodings = ([m.group(1).decode("ascii", "replace").strip()] if m else []) + ["utf-8"]
    for enc in encodings:
        try:
            return data.decode(enc)
        except (LookupError, ValueError):   # ValueError: a NUL in the name; UnicodeError
            continue                        # (a ValueError): codecs such as punycode
    return data.decode("latin-1")


def load(path, index=0):
    """The ``Game`` of game tree `index` of the SGF file at `path` (a str, bytes or
    ``os.PathLike`` path; a file descriptor number is refused)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a str, bytes or os.PathLike, not {type(path).__name__}")
    with open(path, "rb") as f:
        return read_game(decode(f.read()), index)


# -- writing -----------------------------------------------------------------------------------------

def _escape(value):
    return str(value).replace("\\", "\\\\").replace("]", "\\]")


def _sgf_point(point, width, height):
    if point == width * height:
        return ""
    row, col = divmod(point, width)
    return LETTERS[col] + LETTERS[height - 1 - row]


def number_text(x):
    """A float as SGF and GTP numbers are written: "7", "6.5", "-0.25", shortest exact form."""
    try:
        x = float(x)
    except OverflowError:
        x = float("inf")                # an int too large for a float
    if not np.isfinite(x):
        raise ValueError(f"cannot write {x} as an SGF or GTP number: numbers are finite")
    return str(int(x)) if x == int(x) and abs(x) < 1e15 else repr(x)


def to_sgf(game, application="fastgo"):
    """An FF[4] record of `game` (one game tree, moves one node each)."""
    w, h = game.width, game.height
    root = ["FF[4]", "GM[1]", "CA[UTF-8]", f"AP[{_escape(application)}]",
            f"SZ[{w}]" if w == h else f"SZ[{w}:{h}]"]
    rules = game.rules
    if rules is not None:
        root.append(f"RU[{_escape(rules_to_name(rules))}]")
    elif game.rules_name is not None:
        root.append(f"RU[{_escape(game.rules_name)}]")
    komi = game.komi if game.komi is not None else (rules.komi if rules is not None else None)
    if komi is not None:
        try:
            root.append(f"KM[{number_text(komi)}]")
        except ValueError as e:
            raise ValueError(f"bad komi: {e}") from None
    if game.handicap:
        root.append(f"HA[{game.handicap}]")
    for ident, value in game.info.items():
        if not (isinstance(ident, str) and ident.isascii() and ident.isalpha() and ident.isupper()):
            raise ValueError(f"SGF property identifiers are upper-case letters, not {ident!r}")
        root.append(f"{ident}[{_escape(value)}]")
    if game.result is not None:
        root.append(f"RE[{_escape(game.result)}]")
    flat = np.asarray(game.setup).reshape(-1)
    for ident, colour in (("AB", BLACK), ("AW", WHITE)):
        points = np.flatnonzero(flat == colour)
        if len(points):
            root.append(ident + "".join(f"[{_sgf_point(int(p), w, h)}]" for p in points))
    first = game.moves[0][0] if game.moves else BLACK
    if game.to_move != first or (not game.moves and game.to_move != BLACK):
        root.append(f"PL[{'B' if game.to_move == BLACK else 'W'}]")
    lines = ["(;" + "".join(root)]
    line = []
    for colour, point in game.moves:
        line.append(f";{'B' if colour == BLACK else 'W'}[{_sgf_point(int(point), w, h)}]")
        if len(line) == 12:
            lines.append("".join(line))
            line = []
    if line:
        lines.append("".join(line))
    return "\n".join(lines) + ")\n"


def result_text(score, resigned=None):
    """RE[] text: "B+3.5", "W+0.5", "0" (a tie) from a ``Score``; "B+R"/"W+R" if `resigned`
    names the winner of a resignation."""
    if resigned is not None:
        return f"{'B' if resigned == BLACK else 'W'}+R"
    if score.winner == EMPTY:
        return "0"
    return f"{'B' if score.winner == BLACK else 'W'}+{number_text(abs(score.margin))}"


def board_setup(board):
    """(set-up stones int8 [height, width], colour that moved first) of a ``Board`` or a
    ``FinishedPart``."""
    if isinstance(board, FinishedPart):
        return board.start_position(), board.first_player
    _check_board(board)
    # The Board keeps its set-up for pickling; __reduce__ is the public door to it.
    _, (cls, width, height, rules, setup, first, history) = board.__reduce__()
    if setup is None:
        setup = np.zeros((height, width), dtype=np.int8)
    return np.array(setup, dtype=np.int8), int(first)


def _check_board(board, name="board"):
    if not isinstance(board, Board):
        raise TypeError(f"{name} must be a fastgo.Board, not {type(board).__name__}")


def game_of_board(board, result=None, *, earlier=(), handicap=None, **info):
    """The ``Game`` of a ``Board``: its set-up, turns and rules. `result` defaults to the score
    as the position stands when the game is over (else none); `info` adds root properties such
    as ``PB="fastgo"``.

    `earlier`: the finished parts of a resumed game (``FinishedPart``s or boards, oldest
    first, as ``Game.segments`` lists them): the record then starts from the first one's set-up and holds
    every part's turns, which ``Game.board(insert_passes=True)`` (and GTP's ``loadsgf``) resume
    the same way; their prisoners count in the result. `handicap`: the HA[] to write. A
    ``Board`` does not record how it was made, so by default HA[n] is written only when the
    set-up is exactly the fixed star-point placement of n black stones with White to move
    first (``Board(handicap=n)``); a set-up from ``from_array``/``from_diagram`` or a free
    placement is written as AB/AW stones (and PL) without HA."""
    _check_board(board)
    if isinstance(earlier, Board) or not hasattr(earlier, "__iter__"):
        raise TypeError(f"earlier must be a sequence of fastgo.Board, not {type(earlier).__name__}")
    earlier = list(earlier)
    for b in earlier:
        if not isinstance(b, FinishedPart):
            _check_board(b, "earlier's items")
    parts = earlier + [board]
    setup, first = board_setup(parts[0])
    moves = []
    for part in parts:
        colour = board_setup(part)[1]
        for p in part.history:
            moves.append((colour, int(p)))
            colour = 3 - colour
    if result is None and board.is_over:
        result = result_text(score(board, earlier))
    if handicap is None:
        handicap = 0
        n = int(np.count_nonzero(setup == BLACK))
        if first == WHITE and n >= 2 and not (setup == WHITE).any():
            try:
                points = star_points(board.width, board.height, n)
            except ValueError:
                points = None
            if points is not None and sorted(points) == np.flatnonzero(setup.reshape(-1) == BLACK).tolist():
                handicap = n
    elif isinstance(handicap, bool) or not isinstance(handicap, (int, np.integer)) or handicap < 0:
        raise ValueError(f"handicap must be None or an int >= 0, not {handicap!r}")
    return Game(width=board.width, height=board.height, komi=board.rules.komi,
                handicap=int(handicap), rules=board.rules, setup=setup,
                to_move=first, moves=moves, result=result, info=dict(info))


def board_to_sgf(board, result=None, *, earlier=(), handicap=None, **info):
    """An FF[4] record of a ``Board``'s game (see ``game_of_board``)."""
    return to_sgf(game_of_board(board, result, earlier=earlier, handicap=handicap, **info))


def games_to_sgf(move_lists, width=9, height=None, *, rules=None, komi=None, handicap=0,
                 start=None, **info):
    """One SGF collection (str) of several games played from the same start: the games that
    ``fastgo.simulate`` or ``fastgo.playouts`` recorded (``record=N``), e.g.
    ``games_to_sgf(res.moves, 9, rules="chinese")`` after ``res = simulate(100, 9,
    rules="chinese", record=100)``, or ``games_to_sgf(res.moves, start=board)`` after
    ``res = playouts(board, 100, record=100)``. A ``Playouts`` result may be passed for its
    ``moves``.

    Each move list holds points (pass = width * height); each game is replayed through
    ``Board.play``, so a list the rules refuse raises ``IllegalMoveError`` naming the game (from
    0) and the turn (from 1); playouts run with another ``ko`` than the board's rule may hold
    such moves. A game gets RE[] from its score when it ended with two passes (a playout stopped
    by ``max_moves`` gets none). `start` is a ``Board`` the games continue (its own turns are
    written first); otherwise an empty `width` x `height` board under `rules`, `komi`,
    `handicap`. `info` adds root properties to every game, e.g. ``PB="random"``.
    """
    if hasattr(move_lists, "moves") and hasattr(move_lists, "recorded"):
        move_lists = move_lists.moves                      # a Playouts result
    if isinstance(move_lists, (str, bytes)) or not hasattr(move_lists, "__iter__"):
        raise TypeError(f"move_lists must be a sequence of move lists, not "
                        f"{type(move_lists).__name__}")
    move_lists = list(move_lists)
    if not move_lists:
        raise ValueError("no games to write (an SGF collection needs at least one game): record "
                         "them with simulate(..., record=N) or playouts(..., record=N)")
    if start is None:
        start = Board(width, height, rules=rules, komi=komi, handicap=handicap)
    elif not isinstance(start, Board):
        raise TypeError(f"start must be a fastgo.Board or None, not {type(start).__name__}")
    trees = []
    for k, moves in enumerate(move_lists):
        b = start.copy()
        try:
            points = np.asarray(moves).reshape(-1).tolist()      # Python ints (or others)
        except (TypeError, ValueError):
            points = None
        if points is None or any(isinstance(p, (str, bytes)) for p in points):
            raise TypeError(f"game {k}: a move list must hold int points (pass = width * height), "
                            f"not {moves!r:.60}")
        for j, p in enumerate(points):
            if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= b.pass_move:
                raise ValueError(f"game {k}, turn {j + 1}: {p!r:.40} is not a point of a "
                                 f"{b.width}x{b.height} board (moves are ints 0..{b.pass_move}, "
                                 f"pass = width * height)")
            try:
                b.play(p)
            except IllegalMoveError as e:
                err = IllegalMoveError(e.move, e.vertex, e.reason)
                err.args = (f"game {k}, turn {j + 1}: {e}",)
                raise err from None
        trees.append(board_to_sgf(b, **info))
    return "".join(trees)


# -- fastgo replay ------------------------------------------------------------------------------------

def report_usage_errors(parser, run, args):
    """``run(args)``, with a ``ValueError`` (a bad option value) reported by `parser` as a usage
    error: the subcommand's usage line and the message on stderr, exit status 2."""
    try:
        return run(args)
    except ValueError as e:
        parser.error(str(e))


def add_command(parser):
    """Make `parser` (an ``argparse`` subcommand's) the ``fastgo replay`` command."""
    add_arguments(parser)
    parser.set_defaults(func=lambda args: report_usage_errors(parser, run_replay, args))


def add_arguments(parser):
    """The options of ``fastgo replay``."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="SGF files")
    parser.add_argument("--rules", default=None, metavar="PRESET",
                        help=f"rules preset to replay under: {', '.join(sorted(PRESETS))} "
                             "(default: the record's RU[], else tromp-taylor)")
    parser.add_argument("--komi", type=float, default=None, metavar="K",
                        help="komi (default: the record's KM[])")
    parser.add_argument("--game", type=int, default=None, metavar="N",
                        help="replay only game N of each file (1: the first; default: every game "
                             "of a collection)")
    parser.add_argument("--upto", type=int, default=None, metavar="N",
                        help="stop before this move number (1: the set-up only; default: replay "
                             "every move)")
    parser.add_argument("--insert-passes", action="store_true",
                        help="play a pass between two moves of one colour (default: an error)")


def run_replay(args):
    """``fastgo replay FILE...``: replay the main line of every game of each file (or game
    ``--game`` only), checking every move; print each final position and its score as it
    stands. A bad option raises ``ValueError``. A file that cannot be read, a malformed file or
    an illegal move is reported on stderr (the file, the game, the reason with its line and
    column) and the other games go on; the exit status is then 1."""
    if args.upto is not None and args.upto < 1:
        raise ValueError(f"--upto must be at least 1 (1: the set-up only), not {args.upto}")
    if args.game is not None and args.game < 1:
        raise ValueError(f"--game must be at least 1 (1: the first game of a file), not {args.game}")
    preset = Rules.preset(args.rules) if args.rules is not None else None
    if args.komi is not None:
        Rules(komi=args.komi)                  # ValueError for nan, inf
    status = 0

    def fail(where, message):
        nonlocal status
        status = 1
        sys.stdout.flush()
        print(f"fastgo replay: {where}: {message}", file=sys.stderr, flush=True)

    many = len(args.files) > 1
    for path in args.files:
        try:
            with open(path, "rb") as f:
                text = decode(f.read())
            trees = parse(text)
        except (OSError, ValueError) as e:      # ValueError: SgfError and any other bad input
            if many:
                print(f"== {path}", flush=True)
            fail(path, f"cannot read it: {e.strerror or e}" if isinstance(e, OSError) else e)
            continue
        if args.game is not None and args.game > len(trees):
            if many:
                print(f"== {path}", flush=True)
            fail(path, f"no game {args.game}: the file holds {len(trees)} game(s)")
            continue
        picked = [args.game - 1] if args.game is not None else range(len(trees))
        for k in picked:
            where = path if len(trees) == 1 else f"{path}, game {k + 1} of {len(trees)}"
            if many or len(picked) > 1:
                print(f"== {where}", flush=True)
            try:
                game = game_from_tree(trees[k], text)
                if preset is not None:
                    rules = preset.replace(komi=args.komi if args.komi is not None else game.komi)
                else:
                    rules = game.effective_rules()
                    if args.komi is not None:
                        rules = rules.replace(komi=args.komi)
                parts = game.segments(rules=rules, upto=args.upto, insert_passes=args.insert_passes)
            except (SgfError, ValueError) as e:
                fail(where, e)
                continue
            _print_replay(game, parts[-1], rules, preset is None, parts[:-1])
            if many or len(picked) > 1:
                print()
    return status


def _print_replay(game, board, rules, rules_from_record, earlier=()):
    total = score(board, earlier)
    print(board)
    print()
    name = rules_to_name(rules)
    if rules_from_record and game.rules is None:
        name += (f" (the record's RU[{game.rules_name}] is not known; Tromp-Taylor used)"
                 if game.rules_name else " (no RU[] in the record)")
    n = len(board.history) + sum(len(b.history) for b in earlier)
    resumed = f" (resumed {len(earlier)} time{'' if len(earlier) == 1 else 's'} after the game ended)" if earlier else ""
    print(f"{game.width}x{game.height}, rules {name}, komi {number_text(rules.komi)}; "
          f"{n} move{'' if n == 1 else 's'} replayed, all legal{resumed}; game over: {board.is_over}")
    pb, pw = prisoners(earlier)
    print(f"captures: black {board.captures[0] + pb}, white {board.captures[1] + pw}")
    print(f"score as the position stands ({rules.scoring}, no dead stones removed): "
          f"black {total.black:g}, white {total.white:g} -> {result_text(total)}")
    if game.result is not None:
        print(f"the record's result: {game.result}")
    sys.stdout.flush()
