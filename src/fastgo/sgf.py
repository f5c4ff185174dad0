"""Smart Game Format (SGF, FF[4]) for Go: read and write game records, replay them under rules.

Reading: ``parse(text)`` gives the collection's game trees as ``Node`` trees; ``read_game(text)``
(or ``load(path)``) takes the main line (first variation at every branch) of one game tree into a
``Game``: board size (``SZ[19]`` or rectangular ``SZ[19:13]``, 1..52 a side), komi (``KM``),
handicap (``HA``),
set-up stones of the root (``AB``/``AW``/``AE``, compressed ``aa:cc`` rectangles included), player
to move (``PL``), moves (``B``/``W``, passes as ``[]`` or, on boards up to 19x19, ``[tt]``),
result (``RE``) and rules (``RU``). ``Game.board()`` replays it under the rules, checking every
move, and raises ``ReplayError`` naming the first illegal move and its move number.

Rules and komi of a replay, everywhere (``Game.rules``, ``Game.board``, ``fastgo replay``, GTP
``loadsgf``): see ``Game.rules_used``. In short: the caller's, else the record's ``RU``/``KM``,
else ``RECORD_RULES`` (simple ko, suicide forbidden, as servers judge records) and its komi.

Lenient reading (the default; ``strict=True`` refuses each case with ``SgfError``, as fastgo did
before): set-up stones in nodes after the root but before the first move join the root's set-up;
a malformed game-information number (``HA[7.5]``, ``KM[seven]``) is ignored; bytes not valid in
the ``CA`` charset become U+FFFD one sequence at a time (``decode``); a property repeated in one
node (FF[4] allows one of each), or a single-valued one given several values (``SZ[9][13]``),
keeps its first value (a set-up list: every stone; a move repeated in its node is an error
either way: which one was played is unknown); an ``HA[n]`` with other than n black stones set
up is kept as written; a komi
further from 0 than both ``KOMI_PLAUSIBLE`` and the board's points (Fox's ``KM[375]``) is
ignored unless `komi_convention` names a ``KOMI_CONVENTIONS`` reading or the record is fastgo's
own (``AP[fastgo]``: its komi is read as written). Each case is an ``SgfWarning`` in
``Game.warnings``, also issued as a Python warning by
``read_game``/``read_games``/``load``/``iter_games``. ``iter_games`` reads a collection one game
at a time in flat memory.

Writing: ``to_sgf(game)``, ``board_to_sgf(board)`` and ``games_to_sgf(move_lists, ...)`` write
FF[4] records; reading what they write gives the same game. Their extra root properties
(``**info``, ``Game.info``) may not be ones they write themselves (``WRITER_PROPERTIES``).

Why a parser of our own rather than sgfmill: sgfmill handles square boards only (``SZ[w:h]`` is
refused) up to 26, and we want errors that give the line and column in the file; the format is
small.

Not supported (a clear ``SgfError`` or ``ReplayError`` says so): set-up properties after the
first move, two moves of one colour in a row (fastgo games alternate; a record needs a pass
between them, or ``board(insert_passes=True)``), a move after the game ended with two passes
(``board(insert_passes=True)`` resumes the game from the stones as they stand, as GTP's
``play`` does; ``segments`` gives every part and ``score`` counts their prisoners), one point in two of AB/AW/AE of a node (FF[4]
forbids it), and replaying a board over 25 points a side (fastgo's ``Board`` stops there; such
records up to SGF's 52 are read and written). Not interpreted (some kept in ``Game.info``):
comments, markup, time, game information other than the above.
"""

from __future__ import annotations  # `int | None` fields on Python 3.9

import array
import bisect
import codecs
import functools
import glob
import itertools
import os
import re
import sys
import threading
import warnings
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, BinaryIO, Callable, Iterable, Iterator, TypeVar, cast

import numpy as np

from fastgo.board import Board, Score, is_legal_position
from fastgo.coords import MAX_SIDE, _flag, _index, check_size, point_to_vertex, star_points
from fastgo.errors import IllegalMoveError, Rebuilt, Slotted
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
#: The rules of a record without RU[] (or with an RU[] fastgo does not know): legality as the
#: servers that write such records judge it (simple ko, suicide forbidden), Japanese scoring.
RECORD_RULES = PRESETS["japanese"]
#: Readings of an implausible KM[] (see ``game_from_tree``): name -> (komi from the value and the
#: record's RU[] value (None without one), what the convention is).
KOMI_CONVENTIONS = {
    # Fox (AP[foxwq]) writes KM[650] for 6.5 under Japanese rules and KM[375] for 7.5 in even
    # games under Chinese rules, whose komi is counted in stones (3.75 stones: 7.5 points); so
    # KaTrain and Sabaki read them
    "fox": (lambda km, ru: km / (50 if _is_chinese(ru) else 100),
            "Fox writes komi in hundredths, of stones under Chinese rules: KM[650] is 6.5, "
            "RU[Chinese]KM[375] is 7.5"),
}
#: A KM[] larger (in absolute value) than this and than the board's points is implausible
#: (unless fastgo wrote the record: AP[fastgo]).
KOMI_PLAUSIBLE = 100
#: Root properties fastgo reads that hold a single value.
_SINGLE_VALUED = ("GM", "SZ", "KM", "HA", "PL", "RU", "CA", "RE", "AP")
#: Rules that match no preset are written as RU[fastgo:ko=...,suicide=...,scoring=...].
_FASTGO_RU = re.compile(r"fastgo:ko=(\w+),suicide=(allowed|forbidden),scoring=(\w+)$")


_BREAKS: Any = None     # (the last long text located in, the offsets of its line breaks)
_SCOPE = threading.local()      # .depth: the public calls under way in this thread (_scoped)


_F = TypeVar("_F", bound=Callable[..., Any])


def _scoped(f: _F) -> _F:
    """`f`, a public call that may locate many places in one text: the text's line breaks,
    found once by ``_locate``, are forgotten when the outermost such call of the thread ends,
    so that they and the text are freed with the caller's last reference (kept for the
    process, a long record's were 1.5 times its size)."""
    @functools.wraps(f)
    def call(*args, **kwargs):
        global _BREAKS
        depth = getattr(_SCOPE, "depth", 0)
        _SCOPE.depth = depth + 1
        try:
            return f(*args, **kwargs)
        finally:
            _SCOPE.depth = depth
            if depth == 0:
                _BREAKS = None
    return cast(_F, call)


_LONG = 65536       # characters from which a text's line breaks are found once and kept


def _long(text):
    """`text` (a str) as an ``_Excerpt`` when it is long, so that its line breaks, once found,
    are kept on it for as long as it lives (the Games read from it hold it: locating errors
    game by game stays linear)."""
    return _Excerpt(text) if type(text) is str and len(text) >= _LONG else text


def _line_breaks(text):
    """The offsets of a long text's line breaks, found once: kept on an ``_Excerpt`` itself,
    else (a str a caller passed to ``parse`` or ``game_from_tree``) until the public call ends
    (``_scoped``). Counting them from the start at each warning made a collection of 16,000
    games with one warning each read in 107 s instead of 37."""
    global _BREAKS
    if isinstance(text, _Excerpt):
        breaks = text.__dict__.get("breaks")
        if breaks is None:
            breaks = text.breaks = array.array("q", [m.start() for m in re.finditer("\n", text)])
        return breaks
    kept = _BREAKS              # (one read: another thread may replace it meanwhile)
    if kept is None or kept[0] is not text:
        kept = (text, array.array("q", [m.start() for m in re.finditer("\n", text)]))
        _BREAKS = kept
    return kept[1]


def _locate(text, offset):
    """(line, column), both from 1, of character `offset` of `text`; a game tree cut from a
    longer file (``iter_games``) counts from where it starts there (its ``origin``)."""
    if len(text) < _LONG:
        line = text.count("\n", 0, offset) + 1
        start = text.rfind("\n", 0, offset) + 1
    else:
        breaks = _line_breaks(text)
        k = bisect.bisect_left(breaks, offset)      # the line breaks before offset
        line = k + 1
        start = breaks[k - 1] + 1 if k else 0
    column = offset - start + 1
    first_line, first_column = getattr(text, "origin", (1, 1))
    return line + first_line - 1, column + (first_column - 1 if line == 1 else 0)


class SgfError(Rebuilt, ValueError):
    """A malformed SGF file or a record fastgo cannot represent. ``offset`` is the character
    position in the text (or None), ``line`` and ``column`` count from 1; ``message`` is the
    text without them."""

    def __init__(self, message, text=None, offset=None):
        self.message = message
        self.offset = offset
        self.line = self.column = None
        if text is not None and offset is not None:
            self.line, self.column = _locate(text, offset)
            message = f"{message} (line {self.line}, column {self.column})"
        super().__init__(message)


class SgfWarning(Rebuilt, UserWarning):
    """Something in a record read leniently that FF[4] does not allow or that makes no sense,
    and what was done about it (see "Lenient reading" in the module docstring). ``line`` and
    ``column`` as ``SgfError``'s."""

    def __init__(self, message, text=None, offset=None):
        self.message = message
        self.line = self.column = None
        if text is not None and offset is not None:
            self.line, self.column = _locate(text, offset)
            message = f"{message} (line {self.line}, column {self.column})"
        super().__init__(message)


class ReplayError(SgfError):
    """A move of the record that the rules refuse. ``move_number`` counts the record's moves
    from 1 (passes included); ``colour``, ``vertex`` and ``reason`` (as ``IllegalMoveError``'s)
    say which move and why; ``rules`` names the rules it was judged under and where they came
    from (see ``Game.rules_used``)."""

    def __init__(self, move_number, colour, vertex, reason, text=None, offset=None, rules=None):
        self.move_number = move_number
        self.colour = colour
        self.vertex = vertex
        self.reason = reason
        self.rules = rules
        side = "B" if colour == BLACK else "W"
        #: how to choose other rules, in the message (a GTP controller has no such choice)
        self.hint = "; choose other rules with rules= (Game.board) or --rules (fastgo replay)"
        under = f", under {rules}{self.hint}" if rules else ""
        super().__init__(f"move {move_number} ({side} {vertex}) is illegal: {reason}{under}",
                         text, offset)


# -- the tree ------------------------------------------------------------------------------------

@dataclass
class Node:
    """One SGF node: properties (identifier -> list of raw values, escapes resolved), the
    variations that follow it (``children[0]`` is the main line) and its offset in the text.
    ``repeated``: the identifiers given more than once in the node (FF[4] allows one each; their
    values are joined in ``props``), each with the index in its values where the repeat starts.
    ``warnings``: what lenient reading found around a root (text skipped before it), for its
    ``Game``'s warnings."""

    props: dict = field(default_factory=dict)
    children: list = field(default_factory=list)
    offset: int = 0
    value_offsets: dict = field(default_factory=dict, repr=False)
    repeated: dict = field(default_factory=dict, repr=False)
    warnings: list = field(default_factory=list, repr=False, compare=False)

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

    __hash__ = None  # type: ignore[assignment]     # mutable

    def main_line(self):
        """This node and the first child of each node after it."""
        node = self
        while True:
            yield node
            if not node.children:
                return
            node = node.children[0]


@_scoped
def parse(text: str) -> list[Node]:
    """Parse an SGF collection (str) into its game trees: a list of root ``Node``s.

    Grammar (FF[4]): Collection = GameTree+; GameTree = "(" Node+ GameTree* ")"; Node = ";"
    Property*; Property = PropIdent PropValue+; PropValue = "[" text "]" with "\\" escaping the
    next character (a backslash before a line break removes both). Text before the first "(;"
    (white space allowed between them; the first "(" when none) is ignored, a "(" in it noted in
    the first root's ``warnings`` (its Game's warning; reading strictly, ``read_game`` and the
    others start at the first "(" instead), and between and
    after trees a byte-order mark, ^Z or NUL (joined or padded files) counts as white space;
    lower-case letters in identifiers (FF[3] style "AddBlack") are dropped. Anything else out
    of place raises ``SgfError`` with its line and column.
    """
    return _parse(text)


def _parse(text, strict=False, banner=True):
    """parse, reading strictly (text before the first "(" only is skipped: a "(" before the
    first "(;" starts a tree, malformed or not) or not (such text is skipped with a warning);
    `banner` False: `text` is one tree cut from a file by iter_games, which skipped the file's
    text before it."""
    if not isinstance(text, str):
        raise TypeError(f"SGF text must be a str, not {type(text).__name__}")
    return list(_trees(text, strict, banner))


#: What lenient reading says of text before the first game tree that holds "(": a banner's
#: "(from the server)", or a malformed game tree ("(FF[4]...", "((;...") that is not read
_SKIPPED = "text before the first game tree '(;' skipped, a '(' in it included"


def _first_tree(text, pos=0):
    """Where the first game tree of an SGF collection (str or bytes) starts, at or after `pos`:
    the first "(" opening a node (white space between them), so that text before the
    collection may hold "(" ("Game record (from the server)"); failing that the first "(", so
    that a malformed tree is read and its fault named; -1 when there is no "(" at all."""
    if isinstance(text, str):
        m = _TREE_START.search(text, pos)
        return m.start() if m else text.find("(", pos)
    m = _TREE_START_BYTES.search(text, pos)
    return m.start() if m else text.find(b"(", pos)


def _trees(text, strict=False, banner=True):
    """_parse's game trees one at a time, each as its ')' closes it (the text after it is read
    when the next is asked for): a reader that keeps the games, not the trees, keeps few
    objects, and Python's collector, which walks the objects alive at every collection of the
    oldest kind, spends less (parsing 1,000 9x9 games, that walk took as long as the rest)."""
    n = len(text)
    i = text.find("(")
    skipped = None
    if banner and not strict:
        start = _first_tree(text)
        if start > i >= 0:
            skipped = SgfWarning(_SKIPPED, text, i)     # (the first game's warning)
        i = start
    if i < 0:
        raise SgfError("no game tree: the file has no '('", text, 0 if not n else n)
    # one frame per open '(': [node the tree hangs from (None at the top), last node of its
    # sequence, whether a variation of this tree has been closed already]
    stack: list[list[Any]] = []
    while i < n:
        c = text[i]
        if c in _SPACE or (not stack and c in _BETWEEN):
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
            root = stack.pop()[0] is None
            if stack:
                stack[-1][2] = True
            i += 1
            if root:
                if skipped is not None:
                    tree.warnings.append(skipped)
                    skipped = None
                yield tree
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
                tree = node
            frame[1] = node
        else:
            if not stack:
                raise SgfError(f"unexpected {c!r} after a game tree", text, i)
            raise SgfError(f"unexpected {c!r} (expected ';', '(' or ')')", text, i)
    if stack:
        raise SgfError(f"unexpected end of file: {len(stack)} game tree(s) not closed with ')'",
                       text, n)


# The common property: capitals, then one value without a backslash and no second value; what
# the general reading below makes of it too, matched at once (a node's reading was a Python step
# a character)
_PLAIN_PROPERTY = re.compile(r"[ \t\r\n\f\v]*([A-Z]+)(\[)([^\]\\]*)\](?![ \t\r\n\f\v]*\[)")


def _parse_properties(text, i, node):
    """Read a node's properties from text[i:]; return the offset after them."""
    n = len(text)
    props = node.props
    plain = _PLAIN_PROPERTY.match
    while True:
        m = plain(text, i)
        if m is not None:
            ident = m[1]
            if ident in props:
                node.repeated.setdefault(ident, len(props[ident]))
                props[ident].append(m[3])
                node.value_offsets[ident].append(m.start(2))
            else:
                props[ident] = [m[3]]
                node.value_offsets[ident] = [m.start(2)]
            i = m.end()
            continue
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
        if ident in node.props:
            node.repeated.setdefault(ident, len(node.props[ident]))
        node.props.setdefault(ident, []).extend(values)
        node.value_offsets.setdefault(ident, []).extend(offsets)


# -- from the tree to a game -----------------------------------------------------------------------

@dataclass
class Game:
    """A Go game record: what fastgo needs to replay it, plus the other root information.

    ``setup`` is the int8 [height, width] position before the first move (row 0 at the bottom),
    ``to_move`` the colour to play first, ``moves`` the (colour, point) turns of the main line
    (pass = width * height). ``komi`` is the record's ``KM`` (None without a valid one);
    ``rules`` the ``Rules`` that ``RU`` names, with that komi (None when ``RU`` is absent or
    unknown; ``rules_name`` keeps the text). ``warnings``: the ``SgfWarning``s of a lenient read.
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
    warnings: list = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self):
        for name in ("width", "height"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"Game.{name} must be an int, not {type(v).__name__}")
            if not 1 <= v <= SGF_MAX_SIDE:
                raise ValueError(f"Game.{name} must be 1..{SGF_MAX_SIDE}, not {v}")
            setattr(self, name, int(v))     # (numpy's small ints wrap in width * height)
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

    def effective_rules(self, rules: Rules | str | None = None, komi: float | None = None) -> Rules:
        """The rules a replay uses (see ``rules_used``)."""
        return self.rules_used(rules, komi)[0]

    def rules_used(self, rules: Rules | str | None = None,
                   komi: float | None = None) -> tuple[Rules, str]:
        """(``Rules``, the words that say which and why) of a replay; the one rule for rules and
        komi everywhere (``board``, ``segments``, ``effective_rules``, ``fastgo replay``, GTP
        ``loadsgf``; ``Game.rules`` is only what the record's ``RU`` names):

        - rules: `rules` (a ``Rules`` or preset name) if given, else the record's ``RU`` if it
          names rules fastgo knows, else ``RECORD_RULES`` (simple ko, suicide forbidden, as
          servers judge records; Japanese territory scoring);
        - komi: `komi` if given, else the record's ``KM`` (even over the komi of a `rules`
          given), else the rules' own."""
        if rules is not None:
            base = Rules.preset(rules) if isinstance(rules, str) else rules
            if not isinstance(base, Rules):
                raise TypeError(f"rules must be a preset name or a Rules, not {type(rules).__name__}")
            where = "given by the caller"
        elif self.rules is not None:
            base, where = self.rules, f"the record's RU[{self.rules_name}]"
        elif self.rules_name is not None:
            base, where = RECORD_RULES, (f"the default for records: RU[{self.rules_name}] names "
                                         "no rules fastgo knows")
        else:
            base, where = RECORD_RULES, "the default for records without RU[]"
        if komi is not None:
            chosen, komi_where = base.replace(komi=komi), "given by the caller"
        elif self.komi is not None:
            chosen, komi_where = base.replace(komi=self.komi), "the record's KM[]"
        else:
            chosen, komi_where = base, "the rules' own: no KM[] in the record"
        return chosen, (f"{rules_to_name(chosen)} rules ({where}), komi "
                        f"{number_text(chosen.komi)} ({komi_where})")

    @_scoped
    def board(self, rules: Rules | str | None = None, upto: int | None = None,
              insert_passes: bool = False, komi: float | None = None) -> Board:
        """Replay the record: the set-up, then every move checked by ``Board.play``, under the
        rules and komi ``rules_used(rules, komi)`` gives. `upto`
        stops before that move number (``upto=1``: the set-up only). Raises ``ReplayError`` for
        the first illegal move, naming the rules used.

        Two moves of one colour in a row are an error, unless `insert_passes`: then a pass of
        the other colour is played between them, as GTP engines read such a sequence, provided
        it does not end the game (the turn before was not a pass). With `insert_passes`, a move
        after the game ended (two passes), or one of the colour that just passed, resumes the
        game as GTP's ``play`` does: play goes on from the stones as they stand as a new set-up
        (ko and superko forget the earlier positions). The returned board is then that last
        part; its ``captures`` count only the prisoners taken in it (``segments`` gives every
        part, ``prisoners`` and ``score`` add the earlier ones).

        A record of a board over 25 points a side (fastgo's largest) raises ``SgfError``."""
        return cast(Board, self.segments(rules, upto, insert_passes, komi)[-1])   # (the last part)

    @_scoped
    def segments(self, rules: Rules | str | None = None, upto: int | None = None,
                 insert_passes: bool = False,
                 komi: float | None = None) -> list[FinishedPart | Board]:
        """The replay of ``board`` as a list: one entry per part of the game, each ended by a
        resumption (see ``board``): the finished parts as ``FinishedPart``s, the last, the part
        still being played, as a ``Board``. Without resumption the list holds one board. A game
        resumed more than ``MAX_RESUMPTIONS`` times raises ``SgfError``."""
        insert_passes = _flag(insert_passes, "insert_passes")
        if upto is not None:
            upto = _index(upto, "upto")
            if upto < 1:
                raise ValueError(f"upto must be at least 1 (1: the set-up only), not {upto}")
        try:
            check_size(self.width, self.height)
        except ValueError:
            raise SgfError(f"cannot replay a {self.width}x{self.height} board: fastgo boards are "
                           f"1..{MAX_SIDE} points a side", self.text, self.size_offset) from None
        rules, rules_text = self.rules_used(rules, komi)
        setup = cast(np.ndarray, self.setup)        # (set by __post_init__)
        if not is_legal_position(setup):
            raise SgfError("the set-up (AB/AW/AE) leaves a chain without liberties", self.text,
                           self.setup_offset)
        b = Board.from_array(setup, to_move=self.to_move, rules=rules)
        earlier: list[FinishedPart | Board] = []
        moves = self.moves if upto is None else self.moves[:max(0, upto - 1)]
        for k, (colour, point) in enumerate(moves):
            offset = self.offsets[k] if k < len(self.offsets) else None
            if insert_passes and (b.is_over or colour != b.to_move):
                if not b.is_over and b.consecutive_passes == 0:     # (history: a list)
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
                                  self.text, offset, rules_text)
            try:
                b.play(point)
            except IllegalMoveError as e:
                raise ReplayError(k + 1, colour, e.vertex, e.reason, self.text, offset,
                                  rules_text) from None
        return earlier + [b]


#: The most times one game may be resumed after two passes (``Game.segments``, GTP ``play``,
#: ``genmove`` and ``loadsgf``): what one input may cost stays bounded (each finished part keeps
#: its set-up, a few hundred bytes; real games resume a handful of times).
MAX_RESUMPTIONS = 10_000


class FinishedPart(Slotted):
    """A finished part of a resumed game (see ``Game.board``), kept compactly instead of as a
    whole ``Board``: the set-up it started from (``start_position()``, read-only and shared
    with the part before when equal, as in a run of passes), the colour that moved first, its
    turns, the prisoners taken in it and its rules. ``board()`` replays it into a ``Board``.
    It reads like the finished ``Board`` it was: ``history``, ``move_number``, ``captures``,
    ``first_player``, ``rules``, ``width``, ``height``, ``is_over``."""

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
    move_number = property(lambda self: len(self._moves), doc="How many turns the part played.")
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


def _check_earlier(earlier, board=None):
    """`earlier` as a list: finished parts of a resumed game (Boards or FinishedParts), of
    `board`'s size when given."""
    if isinstance(earlier, (Board, str, bytes)) or not hasattr(earlier, "__iter__"):
        raise TypeError(f"earlier must be a sequence of fastgo.Board, not {type(earlier).__name__}")
    earlier = list(earlier)
    for b in earlier:
        if not isinstance(b, FinishedPart):
            _check_board(b, "earlier's items")
        if board is not None and (b.width, b.height) != (board.width, board.height):
            raise ValueError(f"earlier holds a {b.width}x{b.height} board: the parts of a game "
                             f"are all {board.width}x{board.height}")
    return earlier


def prisoners(earlier):
    """(black, white) prisoners taken in the boards `earlier` (the finished parts of a resumed
    game, as ``Game.segments`` lists them before the last)."""
    black = white = 0
    for b in _check_earlier(earlier):
        black += b.captures[0]
        white += b.captures[1]
    return black, white


def score(board: Board, earlier: Iterable[Board | FinishedPart] = (),
          dead: Iterable[Any] = ()) -> Score:
    """``board.score(dead)`` with the prisoners of the `earlier` parts of a resumed game added
    (they count under territory scoring only). Returns a ``fastgo.board.Score``."""
    _check_board(board)
    s = board.score(dead)
    pb, pw = prisoners(_check_earlier(earlier, board))
    if board.rules.scoring == "area" or not (pb or pw):
        return s
    black, white = s.black + pb, s.white + pw
    winner = BLACK if black > white else WHITE if white > black else EMPTY
    return type(s)(black, white, black - white, winner, s.ownership)


@functools.lru_cache(maxsize=64)
def _point_table(width, height):
    """{SGF point value: point} for every point of a width x height board (no passes): what
    _parse_point reads them as, looked up at once."""
    return {LETTERS[c] + LETTERS[height - 1 - r]: r * width + c
            for r in range(height) for c in range(width)}


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


def _is_chinese(name):
    """Whether an RU[] value (or None) names the Chinese rules."""
    return name is not None and _RU_ALIASES.get(name.strip().lower(), name.strip().lower()) == "chinese"


def rules_from_name(name: str | None) -> Rules | None:
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


def rules_to_name(rules: Rules) -> str:
    """The RU[] value for `rules`: a preset's name when the ko, suicide and scoring options
    match one (``Rules.preset_name``: the one whose komi matches too, when two do; komi is
    written as KM), else ``fastgo:ko=...,suicide=...,scoring=...``."""
    key = rules.preset_name
    if key is not None:
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


@_scoped
def game_from_tree(root, text=None, *, strict=False, komi_convention=None):
    """The ``Game`` of a game tree's main line (see the module docstring for what is read and
    for lenient reading; `strict` refuses what lenient reading warns about, as fastgo did
    before it; `komi_convention` names a ``KOMI_CONVENTIONS`` reading of an implausible KM)."""
    strict = _flag(strict, "strict")
    if komi_convention is not None and komi_convention not in KOMI_CONVENTIONS:
        raise ValueError(f"unknown komi convention {komi_convention!r}; expected one of "
                         f"{sorted(KOMI_CONVENTIONS)}")

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
    if not strict:
        game.warnings.extend(root.warnings)

    def warn(message, offset):
        game.warnings.append(SgfWarning(message, text, offset))

    def check_repeats(node):
        # FF[4]: "Only one of each property is allowed per node". Lenient reading goes on as
        # before: the first value of a single-valued property, every stone of a set-up list.
        for ident, k in node.repeated.items():
            message = f"property {ident} repeated in one node (FF[4] allows one of each per node)"
            if strict:
                raise SgfError(message, text, where(node, ident, k))
            kept = ("the stones of each are set up" if ident in ("AB", "AW", "AE")
                    else "the first is used")
            warn(f"{message}: {kept}", where(node, ident, k))

    check_repeats(root)
    # the game information fastgo reads holds one value (FF[4]: a Number, Real, Color, or
    # SimpleText): SZ[9][13] is the repeat SZ[9]SZ[13] written another way
    for ident in _SINGLE_VALUED:
        values = root.props.get(ident, ())
        if len(values) > 1 and ident not in root.repeated:
            message = f"property {ident} with {len(values)} values (FF[4] allows one)"
            if strict:
                raise SgfError(message, text, where(root, ident, 1))
            warn(f"{message}: the first is used", where(root, ident, 1))

    def root_number(key, what, convert, valid):
        try:
            return _root_number(root, key, what, convert, valid, text, None, where)
        except SgfError as e:
            if strict:
                raise
            warn(f"{e.message}: ignored", e.offset)
            return None

    game.komi = root_number("KM", "komi", _sgf_real, np.isfinite)
    plausible = max(width * height, KOMI_PLAUSIBLE)
    # a record fastgo wrote holds its Board's komi, whatever it was: no server convention
    ours = _is_fastgo(root.get("AP"))
    if game.komi is not None and abs(game.komi) > plausible and not ours:
        km = root.get("KM").strip()
        if komi_convention is not None:
            read, what = KOMI_CONVENTIONS[komi_convention]
            game.komi = float(read(game.komi, root.get("RU")))
            if abs(game.komi) > plausible:
                message = (f"KM[{km}] is no plausible komi even as {komi_convention!r} reads it "
                           f"({number_text(game.komi)})")
                if strict:
                    raise SgfError(message, text, where(root, "KM"))
                warn(f"{message}: ignored", where(root, "KM"))
                game.komi = None
        else:
            names = ", ".join(f"{k!r} ({v[1]})" for k, v in KOMI_CONVENTIONS.items())
            message = (f"KM[{km}] is no plausible komi on a {width}x{height} board (more than "
                       f"{plausible} points away from 0)")
            hint = f"read it with komi_convention= one of {names}"
            if strict:          # (it was kept: scores off by hundreds, and no word of it)
                raise SgfError(f"{message}: {hint}", text, where(root, "KM"))
            warn(f"{message}: ignored, the rules' komi is used; {hint}, or give komi=",
                 where(root, "KM"))
            game.komi = None
    game.handicap = root_number("HA", "handicap", _sgf_number, lambda n: n >= 0) or 0
    game.rules_name = root.get("RU")
    game.rules = rules_from_name(game.rules_name)
    if game.rules is not None and game.komi is not None:
        game.rules = game.rules.replace(komi=game.komi)
    game.result = root.get("RE")
    for ident in GAME_INFO:
        if ident in root.props:
            game.info[ident] = _simple_text(ident, root.props[ident][0])
            if "\ufffd" in game.info[ident] and not strict:
                warn(_fffd_message(ident, root, text), where(root, ident))
    game.setup_offset = root.offset
    _add_setup(root, game.setup, text)
    pl, pl_at = root.get("PL"), where(root, "PL")
    late_pl = None                  # (colour, node) of a PL after the first move, until a move
    points = _point_table(width, height)
    for k, node in enumerate(root.main_line()):
        props = node.props
        if k > 0:
            if node.repeated:
                check_repeats(node)
            if "AB" in props or "AW" in props or "AE" in props:
                for ident in ("AB", "AW", "AE"):
                    if ident in props and (strict or game.moves):
                        raise SgfError(f"set-up {ident} after the "
                                       f"{'root node' if strict else 'first move'} is not "
                                       "supported (fastgo replays a set-up followed by "
                                       "alternating moves)", text, where(node, ident))
                _add_setup(node, game.setup, text)
                warn(f"set-up in node {k + 1}, before the first move: merged into the root's "
                     "(FF[4] puts a game's set-up in its root)", node.offset)
            if "PL" in props and not game.moves and "B" not in props and "W" not in props:
                pl, pl_at = node.get("PL"), where(node, "PL")
            elif "PL" in props and game.moves and "B" not in props and "W" not in props:
                # a set-up property (FF[4]) after the first move: what it says is judged by the
                # next move (below); one mixed into a move's node (against FF[4], meant either
                # way by its writers) and one naming no player are left as they are
                try:
                    late_pl = (_player(node.get("PL"), text, 0), node)
                except SgfError:
                    late_pl = None
        values = props.get("B")
        ident, colour = "B", BLACK
        if values is None:
            values = props.get("W")
            ident, colour = "W", WHITE
        elif "W" in props:
            raise SgfError("a node with both a black and a white move", text, node.offset)
        if values is not None:
            if len(values) != 1:
                raise SgfError(f"move {ident} with {len(values)} values", text,
                               where(node, ident, 1))
            off = where(node, ident)
            point = points.get(values[0])
            if point is None:           # a pass, or an error to name
                point = _parse_point(values[0], width, height, text, off, True)
            if late_pl is not None and late_pl[0] == colour == game.moves[-1][0]:
                # PL made this move the second of its colour in a row: a set-up of the side to
                # move, which the alternating replay cannot hold (one that agrees is no news)
                raise SgfError(f"set-up PL[{late_pl[1].get('PL')}] after the first move is not "
                               "supported (fastgo replays a set-up followed by alternating "
                               "moves)", text, where(late_pl[1], "PL"))
            late_pl = None
            game.moves.append((colour, point))
            game.offsets.append(off)
    black = int(np.count_nonzero(game.setup == BLACK))
    if game.handicap >= 2 and black != game.handicap:
        # FF[4]: a handicap's stones are set up with AB in the same node (some servers play
        # them as moves instead); the handicap is kept as written
        message = (f"HA[{game.handicap}] but {black} black stone{'s' * (black != 1)} set up "
                   f"(FF[4] sets up a handicap's stones with AB)")
        if strict:
            raise SgfError(message, text, where(root, "HA"))
        warn(f"{message}: HA[{game.handicap}] kept", where(root, "HA"))
    if pl is not None:
        game.to_move = _player(pl, text, pl_at)
    elif game.moves:
        game.to_move = game.moves[0][0]
    elif game.handicap >= 2:
        game.to_move = WHITE
    return game


def _fffd_message(ident, root, text):
    """The warning about U+FFFD in the text of property `ident` of a game's root: the charset
    fastgo read the file in, and why when the game's CA[] names another (a later game of a
    collection is read in the first game's; a CA[] Python does not know, in UTF-8); for a text
    the caller decoded, only that the decoding replaced bytes, and the charset CA[] names."""
    charset = root.get("CA", "UTF-8").strip()
    used = getattr(text, "charset", None)
    if used is None:
        return (f"{ident} holds U+FFFD, bytes the text's decoding could not read (the record's "
                f"charset is {charset})")
    own = _codec(charset.encode("ascii", "replace"))
    if own is None:
        used = f"{used} (CA[{charset}] names no charset Python knows)"
    elif used != own:
        used = f"{used} (the file's charset; this game's CA[{charset}] is not used)"
    else:
        used = charset
    return f"{ident} holds bytes that are not valid {used}: shown as U+FFFD"


def _player(value, text, offset):
    """The colour a PL[] value names (B, W, Black, White, any case)."""
    side = value.strip().upper()
    if side not in ("B", "W", "BLACK", "WHITE"):
        raise SgfError(f"bad player PL[{value}]", text, offset)
    return BLACK if side.startswith("B") else WHITE


def _is_fastgo(ap):
    """Whether an AP[] value (FF[4]: "name:version") names fastgo as the application."""
    return ap is not None and ap.partition(":")[0].strip().lower() == "fastgo"


#: Game information kept in ``Game.info`` (and written back by ``to_sgf``).
GAME_INFO = ("PB", "PW", "BR", "WR", "BT", "WT", "DT", "EV", "RO", "PC", "GN", "GC", "TM", "OT",
             "SO", "US", "AN", "CP", "ON")
#: FF[4]'s line breaks and other white space of a SimpleText value (every GAME_INFO entry but
#: GC, a Text, and TM, a number), which become one space each
_SIMPLE_SPACE = re.compile(r"\r\n|\n\r|[\t\n\r\f\v]")
#: ... and of a Text value (GC), where only the line breaks stay
_TEXT_SPACE = re.compile(r"[\t\f\v]")


_SIMPLE_TEXT = frozenset(GAME_INFO) - {"GC", "TM"}


def _simple_text(ident, value):
    """`value` of property `ident` as FF[4] reads it: a SimpleText one without line breaks,
    white space other than line breaks a space in a Text one (GC)."""
    if ident in _SIMPLE_TEXT:
        return _SIMPLE_SPACE.sub(" ", value)
    return _TEXT_SPACE.sub(" ", value) if ident == "GC" else value


def _add_setup(node, setup, text):
    """Put a node's AB/AW/AE stones on `setup` (int8 [height, width], row 0 at the bottom).
    Each value (a point or an "aa:cc" rectangle) is one slice of the grid: a file that repeats
    a 52x52 rectangle costs numpy's time per value, not Python's per point."""
    height, width = setup.shape
    placed = np.zeros((height, width), dtype=np.int8)     # 1 + index of the property that set
    idents = ("AB", "AW", "AE")                           # each point up, 0: none
    for code, (ident, colour) in enumerate(zip(idents, (BLACK, WHITE, EMPTY)), 1):
        for value, off in zip(node.props.get(ident, ()), node.value_offsets.get(ident, ())):
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
            setup[rows, cols] = colour


def _issue(game):
    """Issue a game's ``SgfWarning``s through Python's ``warnings``, from the first place
    outside this module that led to it (the caller of read_game, load, iter_games...); return
    the game. Issued without a registry: under the default filter Python keeps every text it
    showed from a place in that module's ``__warningregistry__``, and these texts name each
    game's line and column, so a reader that runs for long (a server, a collection of a million
    games) would keep one entry per game, memory without end (the "once" filter still keeps
    each text it shows). Each warning is still shown as the filters say."""
    for w in game.warnings:
        _warn(w)
    return game


def _warn(w):
    """Issue the SgfWarning w as _issue says, from the first place outside this module."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    if frame is None:
        filename, lineno, module = "sys", 1, "sys"
    else:
        filename, lineno = frame.f_code.co_filename, frame.f_lineno
        module = frame.f_globals.get("__name__", "<string>")
    # (no module_globals: with it Python asks the module's loader for its source at every
    # warning, shown or not, which fails for `python -c` and `python -m`)
    warnings.warn_explicit(w, type(w), filename, lineno, module=module, registry=None)


@_scoped
def read_game(text: str, index: int = 0, *, strict: bool = False,
              komi_convention: str | None = None) -> Game:
    """The ``Game`` of the main line of game tree `index` of an SGF text; lenient reading's
    ``SgfWarning``s are issued as Python warnings (and kept in ``Game.warnings``)."""
    index = _index(index, "index")
    text = _long(text)
    trees = _parse(text, _flag(strict, "strict"))
    if not -len(trees) <= index < len(trees):
        raise SgfError(f"the collection has {len(trees)} game tree(s); no game {index}")
    return _issue(game_from_tree(trees[index], text, strict=strict,
                                 komi_convention=komi_convention))


@_scoped
def read_games(text: str, *, strict: bool = False,
               komi_convention: str | None = None) -> list[Game]:
    """The ``Game``s of every game tree of an SGF collection (all in memory: ``iter_games``
    reads a large file one game at a time)."""
    if not isinstance(text, str):
        raise TypeError(f"SGF text must be a str, not {type(text).__name__}")
    text = _long(text)
    # Each tree is read as it is parsed and then dropped (see _trees), as if the whole text
    # were parsed first: an error in its syntax anywhere is the one raised, else the first
    # game's that cannot be read, after the warnings of the games before it
    games, failure = [], None
    for root in _trees(text, _flag(strict, "strict")):
        if failure is None:
            try:
                games.append(game_from_tree(root, text, strict=strict,
                                            komi_convention=komi_convention))
            except Exception as e:
                failure = e
    for game in games:      # (a loop, not a comprehension: its warnings name the caller)
        _issue(game)
    if failure is not None:
        raise failure
    return games


#: A CA[] in SGF bytes, its value the charset's name.
_CA = re.compile(rb"CA\s*\[([^\]]*)\]")
#: The start of a CA[] that more bytes may complete: its value still open at the end, or a "C"
#: or "CA" there.
_CA_OPEN = re.compile(rb"CA\s*(?:\[[^\]]*)?\Z|C\Z")


def _charset(data):
    """The Python codec of the CA[] in the first game tree's root node of SGF bytes (where
    FF[4] puts it; a CA[] of a later game tree is not the file's), or None (no CA there, or
    one Python does not know as a text encoding)."""
    scan = [0, False, 0, -1]
    end = _root_end(data, scan)
    if scan[3] < 0:
        return None                 # no game tree opens with a node
    m = _CA.search(data, scan[3], len(data) if end is None else end)
    return None if m is None else _codec(m.group(1))


# every kind of SGF syntax byte, and escapes that Python's escape codecs would read as theirs
_SYNTAX = b"(;FF[4]CA[x]SZ[19]B[aa]C[a\\]b\\\\c\\ud:e];W[])\n"


def _codec(name):
    """The Python codec a CA[] value (bytes) names, or None when Python knows no such text
    encoding."""
    name = name.decode("ascii", "replace").strip()
    try:
        # LookupError for unknown names; UnicodeError for codecs that cannot replace a bad byte
        # (punycode before Python 3.13, UTF-16); AssertionError from bytes-to-bytes codecs
        # ("hex", "zlib", "base64": they assert errors == "strict")
        codecs.getincrementaldecoder(name)("replace").decode(b"\xff\x80(;", final=True)
        # the CA[] was found as ASCII bytes, so the file's syntax is ASCII: a codec that reads
        # it otherwise is none (punycode, which 3.13 lets replace everything into nothing;
        # EBCDIC; unicode_escape, which would undo SGF's own escapes before the parser)
        if codecs.decode(_SYNTAX, name) != _SYNTAX.decode("ascii"):
            return None
        name = codecs.lookup(name).name
    except Exception:       # (whatever a codec raises: any failure means "not this charset")
        return None
    # files labelled GB2312 are often written in GBK, and readers (browsers after the WHATWG
    # Encoding Standard, iconv-lite) decode both labels with GB18030, their superset: Python's
    # gb2312 loses the characters GB2312 lacks (the last of 申真谞, Shin Jinseo's name)
    return "gb18030" if name in ("gb2312", "gbk") else name


def decode(data: bytes, strict: bool = False) -> str:
    """Text of SGF bytes in the charset the CA[] of the first game tree's root node names (UTF-8
    without one or when Python does not know it): a collection is decoded in one charset, the
    same ``iter_games`` chooses (GB2312 and GBK labels: GB18030, as browsers read them). Each
    byte that is not valid in it becomes U+FFFD on its own, so one name cut mid-character
    leaves the others intact (``game_from_tree`` warns about the property). In a charset whose
    second bytes include ASCII ones (GBK, Shift_JIS, Big5: "[", "\\", "]" among them, as in
    塢, 錦) a name cut after a first byte takes the "]" that follows as its second, and the
    property's value runs on: decoding comes before parsing, in fastgo as in every reader.

    `strict`: the whole file in CA's charset if it decodes, else UTF-8, else Latin-1 (which
    decodes anything)."""
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    elif not isinstance(data, bytes):
        raise TypeError(f"SGF data must be bytes, not {type(data).__name__}")
    return _decode(data, _flag(strict, "strict"))[0]


def _decode(data, strict):
    """(decode's text, the codec it was read in: None when strict), the codec for
    game_from_tree's warnings about the games of a collection whose own CA[] differs."""
    enc = _charset(data)
    if strict:
        for e in ([enc] if enc else []) + ["utf-8"]:
            try:
                return data.decode(e), None
            except UnicodeError:                  # UnicodeError: codecs such as punycode
                continue
        return data.decode("latin-1"), None
    return data.decode(enc or "utf-8", "replace"), enc or "utf-8"


@_scoped
def load(path: str | bytes | os.PathLike[Any], index: int = 0, *, strict: bool = False,
         komi_convention: str | None = None) -> Game:
    """The ``Game`` of game tree `index` of the SGF file at `path` (a str, bytes or
    ``os.PathLike`` path; a file descriptor number is refused)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a str, bytes or os.PathLike, not {type(path).__name__}")
    with open(path, "rb") as f:
        text, charset = _decode(f.read(), _flag(strict, "strict"))
        text = _Excerpt(text)           # (naming its charset: see _fffd_message)
        text.charset = charset
        return read_game(text, index, strict=strict,
                         komi_convention=komi_convention)


class _Excerpt(str):
    """SGF text read from a file: one game tree cut from it, with the (line, column) where it
    starts there (``origin``), so that errors and warnings give the file's line and column, or
    the whole file; ``charset``, the codec it was decoded in (None: strictly, or unknown)."""
    origin = (1, 1)
    charset = None


_TREE_OUTSIDE = re.compile(r"[()\[]")            # what matters outside a property value
#: White space (FF[4]: space, tab, line breaks, form feed, vertical tab); between and after game
#: trees also what joined or padded files leave there: a byte-order mark, DOS's end-of-file ^Z, NUL
_SPACE = " \t\r\n\f\v"
_BETWEEN = "\ufeff\x1a\x00"
_TREE_AFTER = re.compile("[^" + re.escape(_SPACE + _BETWEEN) + "]")    # ... and after a game tree
#: The opening of a collection's first game tree, "(" and its first node's ";" (text before it,
#: a server's banner, may hold a "(" itself), as str and as bytes; and, in bytes that may go on,
#: a "(" whose ";" may be still to come
_TREE_START = re.compile(r"\([ \t\r\n\f\v]*;")
_TREE_START_BYTES = re.compile(rb"\([ \t\r\n\f\v]*;")
_TREE_START_CUT = re.compile(r"\([ \t\r\n\f\v]*\Z")
_TREE_START_CUT_BYTES = re.compile(rb"\([ \t\r\n\f\v]*\Z")
_STRAY = {";": "node outside a game tree", ")": "unmatched ')'"}    # parse's words for them
_TREE_INSIDE = re.compile(r"[\]\\]")             # ... and inside one


def iter_games(source: str | bytes | os.PathLike[Any] | BinaryIO, *, strict: bool = False,
               komi_convention: str | None = None, errors: str = "raise",
               chunk_size: int = 1 << 20) -> Iterator[Game | SgfError]:
    """The ``Game``s of an SGF collection one at a time, reading `source` (a path, or a binary
    file object) in chunks of `chunk_size` bytes: memory holds one game tree, however large the
    file. The file is decoded as ``decode`` does it: in the charset of the CA[] in the first
    game tree's root node, where FF[4] puts it (else in UTF-8): whatever
    `chunk_size`, reading goes on to that CA[] or the node's end before choosing. Each game
    tree is then parsed and read as ``read_game`` does, with the same lenient reading
    (`strict`, `komi_convention`), its warnings issued as Python warnings.

    A game tree followed by anything but white space or the next tree cannot be read (the
    text after it may be the rest of the game, cut off by a stray ')'): its error is the one
    ``parse`` gives for that text (between and after trees a byte-order mark, ^Z or NUL count
    as white space, for both).

    `errors`: ``"raise"`` stops at the first game tree that cannot be read with its
    ``SgfError``; ``"yield"`` yields the ``SgfError`` in that game's place and goes on. Either
    way the error (and each ``Game``) has a ``game_index`` attribute (0: the first tree).
    `strict` decodes the whole file at once, as ``decode(data, strict=True)`` (its Latin-1
    fallback needs every byte)."""
    strict = _flag(strict, "strict")
    if errors not in ("raise", "yield"):
        raise ValueError(f"errors must be 'raise' or 'yield', not {errors!r}")
    if komi_convention is not None and komi_convention not in KOMI_CONVENTIONS:
        raise ValueError(f"unknown komi convention {komi_convention!r}; expected one of "
                         f"{sorted(KOMI_CONVENTIONS)}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, not {chunk_size!r}")
    if isinstance(source, (str, bytes, os.PathLike)):
        with open(source, "rb") as f:
            yield from _iter_games(f, strict, komi_convention, errors, chunk_size)
    elif hasattr(source, "read"):
        yield from _iter_games(source, strict, komi_convention, errors, chunk_size)
    else:
        raise TypeError(f"source must be a path or a binary file object, not "
                        f"{type(source).__name__}")


def _iter_games(f, strict, komi_convention, errors, chunk_size):
    first = f.read(chunk_size)
    if not isinstance(first, bytes):
        raise TypeError("iter_games reads bytes: open the file in binary mode ('rb')")
    charset = None
    if strict:
        chunks = iter([decode(first + f.read(), strict=True)])
    else:
        head, charset = _read_to_charset(f, first, chunk_size)
        decoder = codecs.getincrementaldecoder(charset or "utf-8")("replace")

        def pieces():
            data = head
            while data:
                yield decoder.decode(data)
                data = f.read(chunk_size)
            yield decoder.decode(b"", final=True)
        chunks = pieces()
    k = 0
    skipped = []                    # where _split_trees skipped a "(" before the first tree
    for tree, origin, stray in _split_trees(chunks, not strict, skipped):
        text = _Excerpt(tree)
        text.origin = origin
        text.charset = None if strict else charset or "utf-8"     # (see _decode)
        note = None
        if skipped:                     # (the first game's warning, as parse gives it)
            at = _Excerpt("(")
            at.origin = skipped.pop()
            note = SgfWarning(_SKIPPED, at, 0)
        try:
            roots = _parse(text, strict, banner=False)
            if note is not None:
                roots[0].warnings.append(note)
            if stray is not None:   # text after the tree (its end may be cut): what parse says
                at = _Excerpt(stray[0])
                at.origin = stray[1]
                raise SgfError(_STRAY.get(stray[0], f"unexpected {stray[0]!r} after a game tree"),
                               at, 0)
            item = _issue(game_from_tree(roots[0], text, strict=strict,
                                         komi_convention=komi_convention))
        except SgfError as e:
            if errors == "raise":
                e.game_index = k
                raise
            item = e
        item.game_index = k
        yield item
        k += 1
    if k == 0:
        none = SgfError("no game tree: the file has no '('")
        none.game_index = 0
        if errors == "raise":
            raise none
        yield none


def _read_to_charset(f, first, chunk_size):
    """(the bytes read, the codec or None) of a file whose first `chunk_size` bytes are `first`:
    reads on in chunks until the first CA[] or the end of the first game tree's root node (where
    FF[4] puts CA), so that the charset chosen does not depend on `chunk_size`."""
    head = bytearray(first)
    scan = [0, False, 0, -1]        # _root_end's state
    ca_from = 0                     # no CA[] can start before this offset
    while True:
        end = _root_end(head, scan)
        if scan[3] >= 0:            # in the first tree's root (a banner's CA[] is none)
            ca_from = max(ca_from, scan[3])
            m = _CA.search(head, ca_from, len(head) if end is None else end)
            if m is not None:
                return bytes(head), _codec(m.group(1))
            # a CA[] cut by the chunk's end: search again from its start, not from the beginning
            cut = _CA_OPEN.search(head, ca_from)
            ca_from = len(head) if cut is None else cut.start()
        more = f.read(chunk_size) if end is None else b""
        if not more:
            return bytes(head), None
        head += more


_ROOT_OUTSIDE = re.compile(rb"[()\[;]")        # what ends a root node outside a value
_ROOT_INSIDE = re.compile(rb"[\]\\]")         # ... and what matters inside one


def _root_end(data, state):
    """The offset in SGF bytes `data` of the ';', '(' or ')' that ends the first game tree's
    root node (text before the tree skipped, as ``parse`` skips it: see _first_tree), or None
    when `data` does not reach it yet. `state` ([stage, in a value, offset, the tree's offset
    or -1]) carries the scan on as `data` grows: stage 0 before the tree's "(;", 1 in the
    root's properties."""
    stage, in_value, pos, start = state
    n = len(data)
    while True:
        if stage == 0:
            m = _TREE_START_BYTES.search(data, pos)
            if m is None:
                cut = _TREE_START_CUT_BYTES.search(data, pos)
                pos = n if cut is None else cut.start()
                break
            stage, pos, start = 1, m.end(), m.start()
        elif in_value:
            m = _ROOT_INSIDE.search(data, pos)
            if m is None:
                pos = n
                break
            if m.group() == b"\\":
                if m.end() >= n:                    # the escaped byte is still to come
                    pos = m.start()
                    break
                pos = m.end() + 1
            else:
                in_value, pos = False, m.end()
        else:
            m = _ROOT_OUTSIDE.search(data, pos)
            if m is None:
                pos = n
                break
            if m.group() == b"[":
                in_value, pos = True, m.end()
            else:                                   # the next node, a variation, the tree's end
                state[:] = [stage, in_value, pos, start]
                return m.start()                    # (or a malformed tree: parse says so)
    state[:] = [stage, in_value, pos, start]
    return None


def _split_trees(chunks, banner=True, skipped=None):
    """(text, (line, column), stray) of each top-level game tree "(...)" in a stream of text
    chunks. Text before the first tree is skipped, as ``parse`` skips it (see _first_tree:
    from the first "(" only when no tree opens with a node; with `banner` False, reading
    strictly, text before the first "(" alone), the (line, column) of a "(" in it appended to
    `skipped`; after a tree only
    white space may come before the next one: `stray` is None, or the first other character
    and its (line, column) (for the caller to refuse, as ``parse`` refuses it; the text up to
    the next "(" is then skipped). A tree is given once what follows it is known. An unfinished
    tree at the end is given as it is, for ``parse`` to say what is missing."""
    buf, pos, start = "", 0, None       # text held; where scanning goes on; the tree's start
    depth, in_value = 0, False
    held = None                         # a tree that ended, not given yet
    line, column, mark = 1, 1, 0        # line and column of buf[mark]
    opened, first = not banner, None    # the first tree found; the first "(" before that
    for chunk in itertools.chain(chunks, [None]):
        if chunk is None:               # the end
            if opened or first is None:
                break
            # no tree opens with a node: read from the first "(" (for parse to name the fault)
            opened, pos, chunk = True, first, ""
        keep = start if start is not None else first if not opened and first is not None else pos
        line, column = _advance(buf, mark, keep, line, column)
        buf, pos, mark = buf[keep:] + chunk, pos - keep, 0
        if start is not None:
            start = 0
        if first is not None:
            first -= keep
        while True:
            if not opened:
                m = _TREE_START.search(buf, pos)
                if first is None:       # the first "(" of the text before the tree
                    f = buf.find("(", pos, len(buf) if m is None else m.start())
                    first = f if f >= 0 else None
                if m is None:
                    cut = _TREE_START_CUT.search(buf, pos)
                    pos = len(buf) if cut is None else cut.start()
                    break
                if first is not None and first < m.start() and skipped is not None:
                    skipped.append(_advance(buf, mark, first, line, column))
                opened, start, depth, pos = True, m.start(), 1, m.start() + 1
                continue
            if in_value:
                m = _TREE_INSIDE.search(buf, pos)
                if m is None:
                    pos = len(buf)
                    break
                if m.group() == "\\":
                    if m.end() >= len(buf):             # the escaped character is still to come
                        pos = m.start()
                        break
                    pos = m.end() + 1
                else:
                    in_value, pos = False, m.end()
                continue
            if held is not None:
                m = _TREE_AFTER.search(buf, pos)
                if m is None:
                    pos = len(buf)
                    break
                if m.group() != "(":
                    line, column = _advance(buf, mark, m.start(), line, column)
                    mark = m.start()
                    yield held + ((m.group(), (line, column)),)
                    pos = m.end()
                else:
                    yield held + (None,)
                held = None
                continue
            m = _TREE_OUTSIDE.search(buf, pos)
            if m is None:
                pos = len(buf)
                break
            c, pos = m.group(), m.end()
            if c == "[":
                in_value = depth > 0
            elif c == "(":
                if depth == 0:
                    start = m.start()
                depth += 1
            elif depth > 0:
                depth -= 1
                if depth == 0:
                    line, column = _advance(buf, mark, start, line, column)
                    mark = start
                    held, start = (buf[start:pos], (line, column)), None
    if held is not None:
        yield held + (None,)
    if start is not None:
        line, column = _advance(buf, mark, start, line, column)
        yield buf[start:], (line, column), None


def _advance(text, a, b, line, column):
    """(line, column) of text[b] given those of text[a] (a <= b)."""
    n = text.count("\n", a, b)
    if n == 0:
        return line, column + (b - a)
    return line + n, b - text.rfind("\n", a, b)


# -- writing -----------------------------------------------------------------------------------------

def _escape(value):
    return str(value).replace("\\", "\\\\").replace("]", "\\]")


def _sgf_point(point, width, height):
    if point == width * height:
        return ""
    row, col = divmod(point, width)
    return LETTERS[col] + LETTERS[height - 1 - row]


@functools.lru_cache(maxsize=64)
def _sgf_points(width, height):
    """_sgf_point of every point of a width x height board, the pass last: a record's moves
    are written by look-up."""
    return tuple(_sgf_point(p, width, height) for p in range(width * height + 1))


def number_text(x):
    """A float as SGF and GTP numbers are written: "7", "6.5", "-0.25", "0.00001", the shortest
    plain decimal that reads back as the same float. SGF's Real has no exponent (FF[4]: Number
    ["." Digit {Digit}]), so 1e-05 is written in full."""
    try:
        x = float(x)
    except OverflowError:
        x = float("inf")                # an int too large for a float
    if not np.isfinite(x):
        raise ValueError(f"cannot write {x} as an SGF or GTP number: numbers are finite")
    # repr is the shortest text that reads back exactly; Decimal writes its digits without an
    # exponent and normalize() drops trailing zeros ("7.0" -> "7"); + 0.0 makes -0.0 plain 0
    return format(Decimal(repr(x + 0.0)).normalize(), "f")


#: The root properties the writers write themselves, from the game and their arguments: extra
#: root information (``Game.info``, the writers' ``**info``) may not hold them, since a second
#: copy is invalid FF[4] (one of each per node) and a set-up stone or a move makes another game.
WRITER_PROPERTIES = frozenset({"FF", "GM", "CA", "AP", "SZ", "RU", "KM", "HA", "RE", "PL", "AB",
                               "AW", "AE", "B", "W"})


def _check_info(info):
    """ValueError unless every key of `info` (extra root properties) is an FF[4] property
    identifier (upper-case letters) that the writers do not write themselves."""
    for ident in info:
        if not (isinstance(ident, str) and ident.isascii() and ident.isalpha() and ident.isupper()):
            raise ValueError(f"SGF property identifiers are upper-case letters, not {ident!r}")
        if ident in WRITER_PROPERTIES:
            raise ValueError(f"info may not set {ident}: the writers take "
                             f"{', '.join(sorted(WRITER_PROPERTIES))} from the game itself (its "
                             "size, rules, komi, handicap, set-up, moves and result)")


def _is_int(v):
    return not isinstance(v, (bool, np.bool_)) and isinstance(v, (int, np.integer))


def _check_game_fields(game):
    """ValueError (TypeError for a wrong type) unless `game`'s moves, side to move, handicap and
    set-up are what a record can hold: (colour BLACK or WHITE, point 0..width * height, the last
    a pass) pairs, BLACK or WHITE, an int >= 0, a height x width array of 0, 1 and 2. (A point
    past the board was written as another point or as letters that are none.)"""
    npoints = game.width * game.height
    for j, move in enumerate(game.moves):
        if not isinstance(move, (tuple, list)) or len(move) != 2:
            raise TypeError(f"Game.moves[{j}] must be a (colour, point) pair, not {move!r:.40}")
        colour, p = move
        if not _is_int(colour) or colour not in (BLACK, WHITE):
            raise ValueError(f"Game.moves[{j}]: colour {colour!r:.20} is neither BLACK (1) nor "
                             f"WHITE (2)")
        if not _is_int(p) or not 0 <= p <= npoints:
            raise ValueError(f"Game.moves[{j}]: {p!r:.40} is not a point of a {game.width}x"
                             f"{game.height} board (ints 0..{npoints}, pass = width * height)")
    if not _is_int(game.to_move) or game.to_move not in (BLACK, WHITE):
        raise ValueError(f"Game.to_move must be BLACK (1) or WHITE (2), not {game.to_move!r:.20}")
    if not _is_int(game.handicap) or game.handicap < 0:
        raise ValueError(f"Game.handicap must be an int >= 0, not {game.handicap!r:.20}")
    shape = np.shape(game.setup)
    if shape != (game.height, game.width):
        raise ValueError(f"Game.setup must be a {game.height}x{game.width} array (height, width) "
                         f"for the {game.width}x{game.height} board, not of shape {shape}")
    if not np.isin(game.setup, (EMPTY, BLACK, WHITE)).all():
        raise ValueError("Game.setup may hold only 0 (empty), 1 (black) and 2 (white)")


def to_sgf(game: Game, application: str = "fastgo") -> str:
    """An FF[4] record of `game` (one game tree, moves one node each). ``game.info`` may not
    hold the properties the writer writes itself (``WRITER_PROPERTIES``: ValueError)."""
    _check_info(game.info)
    _check_game_fields(game)
    return _write(game, application)


def _write(game, application="fastgo"):
    """to_sgf of a `game` whose fields were checked (or made from a Board: valid as made)."""
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
        root.append(f"{ident}[{_escape(_simple_text(ident, str(value)))}]")
    if game.result is not None:
        root.append(f"RE[{_escape(game.result)}]")
    flat = np.asarray(game.setup).reshape(-1)
    for ident, colour in (("AB", BLACK), ("AW", WHITE)):
        points = np.flatnonzero(flat == colour)
        if len(points):
            root.append(ident + "".join(f"[{_sgf_point(int(p), w, h)}]" for p in points))
    # PL where the reader's default differs: the first move's colour, else White after a
    # handicap of two or more, else Black
    first = game.moves[0][0] if game.moves else WHITE if game.handicap >= 2 else BLACK
    if game.to_move != first:
        root.append(f"PL[{'B' if game.to_move == BLACK else 'W'}]")
    lines = ["(;" + "".join(root)]
    at = _sgf_points(w, h)
    nodes = [f";{'B' if colour == BLACK else 'W'}[{at[point]}]" for colour, point in game.moves]
    lines.extend("".join(nodes[k:k + 12]) for k in range(0, len(nodes), 12))    # 12 a line
    return "\n".join(lines) + ")\n"


def result_text(score: Score, resigned: int | None = None) -> str:
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


def setup_handicap(setup, first):
    """The n that HA[n] may state for a set-up (int8 [height, width]) and the colour that moves
    first: its black stones when it has two or more, no white one, and White moves first; else
    0 (no handicap)."""
    n = int(np.count_nonzero(setup == BLACK))
    return n if first == WHITE and n >= 2 and not (setup == WHITE).any() else 0


def _check_board(board, name="board"):
    if not isinstance(board, Board):
        raise TypeError(f"{name} must be a fastgo.Board, not {type(board).__name__}")


def game_of_board(board, result=None, *, earlier=(), handicap=None, **info):
    """The ``Game`` of a ``Board``: its set-up, turns and rules. `result` defaults to the score
    as the position stands when the game is over (else none); `info` adds root properties such
    as ``PB="fastgo"``, not those the writer writes itself (``WRITER_PROPERTIES``: SZ, KM, RU,
    AB, B, RE... are the board's, the rules', `result`'s; ValueError).

    `earlier`: the finished parts of a resumed game (``FinishedPart``s or boards, oldest
    first, as ``Game.segments`` lists them): the record then starts from the first one's set-up and holds
    every part's turns, which ``Game.board(insert_passes=True)`` (and GTP's ``loadsgf``) resume
    the same way; their prisoners count in the result. `handicap`: the HA[] to write. A
    ``Board`` does not record how it was made, so by default HA[n] is written only when the
    set-up is exactly the fixed star-point placement of n black stones with White to move
    first (``Board(handicap=n)``); a set-up from ``from_array``/``from_diagram`` or a free
    placement is written as AB/AW stones (and PL) without HA. An explicit `handicap` must be 0
    (no HA) or the set-up's n black stones with White first (``setup_handicap``): a count the
    stones contradict is refused (ValueError)."""
    _check_board(board)
    _check_info(info)
    earlier = _check_earlier(earlier, board)
    parts = earlier + [board]
    setup, first = board_setup(parts[0])
    moves = []
    for part in parts:
        first_colour = board_setup(part)[1]         # (turns alternate from it)
        moves.extend(zip(itertools.cycle((first_colour, 3 - first_colour)), part.history))
    if result is None and board.is_over:
        result = result_text(score(board, earlier))
    n = setup_handicap(setup, first)
    if handicap is None:
        handicap = 0
        if n:
            try:
                points = star_points(board.width, board.height, n)
            except ValueError:
                points = None
            if points is not None and sorted(points) == np.flatnonzero(setup.reshape(-1) == BLACK).tolist():
                handicap = n
    elif isinstance(handicap, bool) or not isinstance(handicap, (int, np.integer)) or handicap < 0:
        raise ValueError(f"handicap must be None or an int >= 0, not {handicap!r}")
    elif handicap not in (0, n):
        nb, nw = int(np.count_nonzero(setup == BLACK)), int(np.count_nonzero(setup == WHITE))
        raise ValueError(f"handicap={handicap} does not match the board's set-up ({nb} black and "
                         f"{nw} white stones, {'White' if first == WHITE else 'Black'} first): "
                         f"HA[n] states n black stones set up with White to move first")
    return Game(width=board.width, height=board.height, komi=board.rules.komi,
                handicap=int(handicap), rules=board.rules, setup=setup,
                to_move=first, moves=moves, result=result, info=dict(info))


def board_to_sgf(board: Board, result: str | None = None, *,
                 earlier: Iterable[Board | FinishedPart] = (),
                 handicap: int | None = None, **info: Any) -> str:
    """An FF[4] record of a ``Board``'s game (see ``game_of_board``)."""
    return _write(game_of_board(board, result, earlier=earlier, handicap=handicap, **info))


def games_to_sgf(move_lists: Any, width: int = 9, height: int | None = None, *,
                 rules: Rules | str | None = None, komi: float | None = None, handicap: int = 0,
                 start: Board | None = None, **info: Any) -> str:
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
    `handicap`. `info` adds root properties to every game, e.g. ``PB="random"`` (not those the
    writer writes itself, as ``game_of_board``).
    """
    _check_info(info)
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
        # an integer array (what playouts record) is checked at once, anything else a point
        # at a time
        checked = (isinstance(moves, np.ndarray) and moves.dtype.kind in "iu"
                   and (moves.size == 0 or (moves.min() >= 0 and moves.max() <= b.pass_move)))
        if isinstance(moves, np.ndarray):
            points = moves.reshape(-1).tolist()
        elif isinstance(moves, (str, bytes)) or not hasattr(moves, "__iter__"):
            points = None
        else:
            points = list(moves)
        if points is None or (not checked and any(isinstance(p, (str, bytes)) for p in points)):
            raise TypeError(f"game {k}: a move list must hold int points (pass = width * height), "
                            f"not {moves!r:.60}")
        for j, p in enumerate(points):
            if not checked and (isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer))
                                or not 0 <= p <= b.pass_move):
                raise ValueError(f"game {k}, turn {j + 1}: {p!r:.40} is not a point of a "
                                 f"{b.width}x{b.height} board (moves are ints 0..{b.pass_move}, "
                                 f"pass = width * height)")
            try:
                b.play(int(p))
            except IllegalMoveError as e:
                err = IllegalMoveError(e.move, e.vertex, e.reason)
                err.args = (f"game {k}, turn {j + 1}: {e}",)
                raise err from None
        trees.append(board_to_sgf(b, **info))
    return "".join(trees)


# -- fastgo replay ------------------------------------------------------------------------------------

def add_command(parser):
    """Make `parser` (an ``argparse`` subcommand's) the ``fastgo replay`` command."""
    add_arguments(parser)
    parser.set_defaults(func=run_replay)       # (fastgo.cli.main reports a bad option value)


def add_arguments(parser):
    """The options of ``fastgo replay``."""
    parser.add_argument("files", nargs="+", metavar="PATH",
                        help="SGF files, directories (every *.sgf below them) or glob patterns "
                             "('games/**/*.sgf')")
    parser.add_argument("--rules", default=None, metavar="PRESET",
                        help=f"rules preset to replay under: {', '.join(sorted(PRESETS))} "
                             "(default: the record's RU[], else simple ko and no suicide as "
                             "servers judge records: japanese)")
    parser.add_argument("--komi", type=float, default=None, metavar="K",
                        help="komi (default: the record's KM[], else the rules')")
    parser.add_argument("--game", type=int, default=None, metavar="N",
                        help="replay only game N of each file (1: the first; default: every game "
                             "of a collection)")
    parser.add_argument("--upto", type=int, default=None, metavar="N",
                        help="stop before this move number (1: the set-up only; default: replay "
                             "every move)")
    parser.add_argument("--insert-passes", action="store_true",
                        help="play a pass between two moves of one colour (default: an error)")
    parser.add_argument("--strict", action="store_true",
                        help="refuse what lenient reading warns about (set-up after the root, a "
                             "malformed game-info value, a property repeated in one node or "
                             "given several values, a handicap the set-up contradicts, an "
                             "implausible komi; a move repeated in its node is an error "
                             "either way)")
    parser.add_argument("--komi-convention", choices=sorted(KOMI_CONVENTIONS), default=None,
                        help="read an implausible KM[] this way: "
                             + "; ".join(f"{k}: {v[1]}" for k, v in KOMI_CONVENTIONS.items()))
    parser.add_argument("--summary", action="store_true",
                        help="print no boards; at the end, the counts of games, of the records' "
                             "results and of refusals by reason")
    parser.add_argument("--quiet", action="store_true",
                        help="print no boards and no warnings: only what failed (stderr)")


def replay_paths(patterns):
    """(path, None) for each file that `patterns` names, or (pattern, error message): a
    directory gives every ``*.sgf`` below it (any case, sorted), a pattern with ``*?[`` that
    names no existing file is expanded as a glob (``**`` for any depth), sorted."""
    for pattern in patterns:
        if os.path.isdir(pattern):
            found = sorted(os.path.join(d, name) for d, _, names in os.walk(pattern)
                           for name in names if name.lower().endswith(".sgf"))
            if not found:
                yield pattern, "no *.sgf file in this directory"
            yield from ((p, None) for p in found)
        elif not os.path.exists(pattern) and glob.has_magic(pattern):
            found = sorted(p for p in glob.glob(pattern, recursive=True) if not os.path.isdir(p))
            if not found:
                yield pattern, "no file matches this pattern"
            yield from ((p, None) for p in found)
        else:
            yield pattern, None


def _refusal_kind(error):
    """The reason of a refusal without its particulars, to count refusals by reason."""
    if isinstance(error, ReplayError):
        return "illegal move: " + error.reason.split(" (")[0]
    if isinstance(error, OSError):
        return "cannot read the file"
    message = getattr(error, "message", str(error)).split(":")[0]
    # particulars (values, quoted text) become [...], but a quoted piece of syntax ("unmatched
    # ')'") is the reason itself
    message = re.sub(r"\[[^\]]*\]|'[^']*'",
                     lambda m: m[0] if m[0] in ("'('", "')'", "';'", "'()'") else "[...]", message)
    return re.sub(r"\d+", "N", message)


def _result_kind(result):
    """A record's RE[] as a kind of result: "B+R", "W+T", "B+ points", "draw", ..."""
    if result is None or not result.strip():
        return "no RE[]"
    r = result.strip().upper()
    if r in ("0", "DRAW", "JIGO") or r.startswith("0"):
        return "draw"
    m = re.match(r"([BW])\+(.?)", r)
    if not m:
        return "void" if r.startswith("VOID") else "unknown (?)" if r.startswith("?") else "other"
    if m.group(2) in ("R", "T", "F"):
        return f"{m.group(1)}+{m.group(2)}"
    return f"{m.group(1)}+ points" if m.group(2) else f"{m.group(1)}+"


def run_replay(args):
    """``fastgo replay PATH...``: replay the main line of every game of each file (or game
    ``--game`` only), checking every move; print each final position and its score as it
    stands (``--summary``: counts at the end instead; ``--quiet``: nothing but failures).
    Collections are read one game at a time (``iter_games``). A bad option raises
    ``ValueError``. A file that cannot be read, a malformed record or an illegal move is
    reported on stderr (the file, the game, the reason with its line and column, the rules
    used) and the other games go on; the exit status is then 1."""
    if args.upto is not None and args.upto < 1:
        raise ValueError(f"--upto must be at least 1 (1: the set-up only), not {args.upto}")
    if args.game is not None and args.game < 1:
        raise ValueError(f"--game must be at least 1 (1: the first game of a file), not {args.game}")
    if args.rules is not None:
        Rules.preset(args.rules)               # ValueError for an unknown name
    if args.komi is not None:
        Rules(komi=args.komi)                  # ValueError for nan, inf
    boards = not (args.summary or args.quiet)
    counts = {"files": 0, "games": 0, "replayed": 0, "refused": 0, "warnings": 0}
    results, refusals = {}, {}
    status = 0

    def fail(where, error):
        nonlocal status
        status = 1
        counts["refused"] += 1
        kind = _refusal_kind(error)
        refusals[kind] = refusals.get(kind, 0) + 1
        sys.stdout.flush()
        message = f"cannot read it: {error.strerror or error}" if isinstance(error, OSError) else error
        print(f"fastgo replay: {where}: {message}", file=sys.stderr, flush=True)

    many = len(args.files) > 1 or any(os.path.isdir(p) or glob.has_magic(p) for p in args.files)
    for path, missing in replay_paths(args.files):
        if missing is not None:
            status = 1
            print(f"fastgo replay: {path}: {missing}", file=sys.stderr, flush=True)
            continue
        counts["files"] += 1
        k = -1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SgfWarning)     # printed below, or not (--quiet)
                items = _with_more(iter_games(path, strict=args.strict, errors="yield",
                                              komi_convention=args.komi_convention))
                for k, (item, more) in enumerate(items):
                    if args.game is not None and k != args.game - 1:
                        continue
                    collection = more or k > 0
                    where = f"{path}, game {k + 1}" if collection and args.game is None else path
                    if boards and (many or collection and args.game is None):
                        print(f"== {where}", flush=True)
                    counts["games"] += 1
                    if isinstance(item, SgfError):
                        fail(where, item)
                        continue
                    _replay_one(args, item, where, boards, fail, counts, results)
                    if args.game is not None:
                        break
        except (OSError, ValueError) as e:      # ValueError: any other bad input
            if boards and many:
                print(f"== {path}", flush=True)
            counts["games"] += 1
            fail(path, e)
            continue
        if args.game is not None and k < args.game - 1:
            if boards and many:
                print(f"== {path}", flush=True)
            status = 1
            print(f"fastgo replay: {path}: no game {args.game}: the file holds {k + 1} game(s)",
                  file=sys.stderr, flush=True)
    if args.summary:
        _print_summary(counts, results, refusals)
    return status


def _with_more(items):
    """(item, whether another follows) of each item of an iterator."""
    it = iter(items)
    for previous in it:
        for item in it:
            yield previous, True
            previous = item
        yield previous, False


def _replay_one(args, game, where, boards, fail, counts, results):
    """Replay one game of ``fastgo replay``: print it (if `boards`) or count it."""
    if not args.quiet:
        for w in game.warnings:
            counts["warnings"] += 1
            print(f"fastgo replay: {where}: warning: {w}", file=sys.stderr, flush=True)
    try:
        parts = game.segments(rules=args.rules, upto=args.upto, insert_passes=args.insert_passes,
                              komi=args.komi)
    except (SgfError, ValueError) as e:
        fail(where, e)
        return
    counts["replayed"] += 1
    kind = _result_kind(game.result)
    results[kind] = results.get(kind, 0) + 1
    if boards:
        _print_replay(game, parts[-1], game.rules_used(args.rules, args.komi)[1], parts[:-1])
        print()


def _print_summary(counts, results, refusals):
    def listing(d):
        return ", ".join(f"{k} {v}" for k, v in sorted(d.items(), key=lambda kv: (-kv[1], kv[0])))
    print(f"files: {counts['files']}; games: {counts['games']}, replayed {counts['replayed']}, "
          f"refused {counts['refused']}; warnings: {counts['warnings']}")
    print(f"results of the replayed records: {listing(results) or 'none'}")
    print(f"refusals by reason: {listing(refusals) or 'none'}", flush=True)


def _print_replay(game, board, rules_text, earlier=()):
    rules = board.rules
    total = score(board, earlier)
    print(board)
    print()
    n = board.move_number + sum(b.move_number for b in earlier)
    resumed = f" (resumed {len(earlier)} time{'' if len(earlier) == 1 else 's'} after the game ended)" if earlier else ""
    print(f"{game.width}x{game.height}, {rules_text}; "
          f"{n} move{'' if n == 1 else 's'} replayed, all legal{resumed}; game over: {board.is_over}")
    pb, pw = prisoners(earlier)
    print(f"captures: black {board.captures[0] + pb}, white {board.captures[1] + pw}")
    print(f"score as the position stands ({rules.scoring}, no dead stones removed): "
          f"black {total.black:g}, white {total.white:g} -> {result_text(total)}")
    if game.result is not None:
        print(f"the record's result: {game.result}")
    sys.stdout.flush()
