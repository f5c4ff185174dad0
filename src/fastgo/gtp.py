"""A Go Text Protocol (GTP version 2) engine on fastgo: ``fastgo gtp``, ``python -m fastgo.gtp``.

Protocol (GTP 2, draft 2): each input line has control characters other than HT and LF removed,
everything from a ``#`` on removed, HT turned into a space; empty lines are skipped. A line is
``[id] command_name [arguments]``; the answer is ``=[id] result`` or ``?[id] error message``
followed by an empty line. Every failure is an error answer (never a traceback on stdout): any
input line gets exactly one answer, and only ``quit`` or the end of the input ends the engine.

Commands: the required ``protocol_version name version known_command list_commands quit
boardsize clear_board komi play genmove``; ``undo showboard final_score final_status_list
fixed_handicap place_free_handicap set_free_handicap loadsgf printsgf time_settings
kgs-time_settings time_left kgs-rules rectangular_boardsize list_stones reg_genmove
kgs-genmove_cleanup``; and the ``fastgo-`` extensions (``list_commands`` lists them; see
``Engine.__init__``).

Semantics worth knowing:
- The board keeps fastgo's exact rules (default Tromp-Taylor; ``kgs-rules`` or ``fastgo-rules``
  pick another preset or option). ``play`` answers ``illegal move`` for what those rules refuse;
  ``fastgo-why_illegal`` gives the reason.
- fastgo games alternate. A ``play``/``genmove`` for the colour not to move inserts a pass for
  the other colour, unless that pass would end the game (the previous turn was a pass) or the
  game is over; then the game resumes from the current position as a new set-up (the ko and
  superko memory of the earlier turns is dropped; the finished parts are kept in
  ``Engine.earlier``, so their prisoners count in ``showboard``, ``fastgo-score``,
  ``final_score`` and ``printsgf``, which writes every turn, resumed as ``loadsgf`` reads
  it). ``undo`` takes back such steps as one, also across a change of komi or rules.
- ``loadsgf`` takes the record's rules and komi as everything in fastgo does
  (``sgf.Game.rules_used``: its ``RU``/``KM``, else ``sgf.RECORD_RULES`` and their komi), never
  the engine's earlier ones, and answers nothing, as GTP 2 says (GNU Go answers the colour to
  move); ``printsgf`` writes the loaded record's game information.
- A command that takes no arguments answers ``syntax error`` to any (``quit`` quits anyway);
  numbers are ASCII (ints ``[0-9]+``, unsigned as GTP 2's int, so ``-5`` is a syntax error
  like ``+5``; ``fastgo-seed`` also takes a leading ``-``; floats decimal, optional sign and
  exponent); an int of over 19 digits reads as beyond every command's range; time values are
  GTP ints (0..2^31 - 1).
  ``clear_board`` restarts both clocks from the time settings. A game resumes at most
  ``fastgo.sgf.MAX_RESUMPTIONS`` times.
- ``genmove`` is ``fastgo.player``'s player on the C tree search (``fastgo.search``): UCT with
  RAVE over random playouts by default, plain UCT as an option. Its budget is
  ``fastgo-playouts`` playouts per move, cut short by ``fastgo-seconds`` and by the clock:
  ``time_settings`` starts one per colour, ``time_left`` sets it (ignored after settings that
  say "no time limit"), and the engine runs its own
  clock down by its thinking time between them (see ``Engine.time_budget``). It resigns below
  ``fastgo-resign``'s win rate (0: never); ``kgs-genmove_cleanup`` captures the stones it
  judges dead before it passes. ``final_score`` and ``final_status_list`` judge dead stones by
  playout ownership (no seki detection: ``seki`` lists are empty); ``fastgo-score`` scores as
  it stands.
- Analysis: ``lz-analyze`` and ``kata-analyze`` search a copy of the position in the
  background and stream lines until the next command or a raw newline (``run`` drives them);
  ``lz-genmove_analyze`` and ``kata-genmove_analyze`` are genmove with those lines, synchronous
  (see ``Engine._genmove_analyze``). Their ``avoid`` and ``allow`` keys restrict the search
  (``Engine._analysis_args``).
"""

import os
import re
import sys
import threading
import time
import traceback

import numpy as np

import fastgo
from fastgo.board import Board
from fastgo.coords import (check_size, max_fixed_handicap, point_to_vertex, star_points,
                           vertex_to_point)
from fastgo.errors import IllegalMoveError
from fastgo.player import Player, SearchTotals, _check_number
from fastgo.playout import POLICIES, _MAX_THREADS, default_threads, policy_code
from fastgo.rules import PRESETS, Rules
from fastgo import sgf

BLACK, WHITE = 1, 2
_CONTROL = {c: None for c in range(32) if c not in (9, 10)}
_CONTROL[127] = None


#: genmove's searches (``fastgo.search``): UCT with RAVE (the default) or plain UCT
SEARCHES = {"rave": True, "uct": False}


#: Commands that take no arguments: extra ones are a syntax error. (``quit`` is not here: it
#: quits whatever follows it, so that a controller's ``quit`` always ends the engine.)
NO_ARGUMENTS = frozenset({"protocol_version", "name", "version", "list_commands", "clear_board",
                          "showboard", "final_score", "fastgo-score", "fastgo-legal_moves",
                          "fastgo-stats", "undo"})


class GtpError(Exception):
    """A command failed: the message is the GTP error text."""


def _colour(text):
    t = text.lower()
    if t in ("b", "black"):
        return BLACK
    if t in ("w", "white"):
        return WHITE
    raise GtpError("syntax error")


# GTP numbers are ASCII: int() and float() alone would take "1_9", Arabic-Indic digits, "inf"
_INT = re.compile(r"[0-9]+")
_SIGNED_INT = re.compile(r"-?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


#: Significant digits an int argument is read to: a longer number (Python would refuse to
#: convert one of over 4,300 digits) reads as +-10**20, beyond every command's range (the
#: largest is fastgo-seed's 2**64 - 1), so that the command answers its own range error.
_INT_DIGITS = 20
#: GTP 2's int: 0 <= x <= 2**31 - 1; time values are read as such.
GTP_INT_MAX = 2**31 - 1
#: The seeds the engine takes, from its constructor, ``--seed`` and ``fastgo-seed`` alike: 64-bit
#: ints, signed or not (the search takes any int modulo 2**64, so -1 is a seed like any other,
#: and 2**64 - 1 the same seed; a seed printed by ``fastgo bench`` or ``simulate`` is taken).
SEED_MIN, SEED_MAX = -2**63, 2**64 - 1


def _int_arg(text, signed=False):
    """An int argument: ASCII digits, as GTP 2's int is unsigned, so a sign ('-5', '+5') is a
    syntax error like any other character; `signed` also takes a leading minus (fastgo-seed's
    seeds)."""
    if not (_SIGNED_INT if signed else _INT).fullmatch(text):
        raise GtpError("syntax error")
    if len(text.lstrip("-").lstrip("0")) > _INT_DIGITS:
        return -10**_INT_DIGITS if text.startswith("-") else 10**_INT_DIGITS
    return int(text)


def _time_args(args):
    """Time values (seconds, stones) of time_settings and kgs-time_settings: GTP ints."""
    values = [_int_arg(a) for a in args]
    if any(not 0 <= v <= GTP_INT_MAX for v in values):
        raise GtpError("syntax error")
    return values


def _float_arg(text):
    """A float argument: ASCII decimal, optional sign and exponent, finite."""
    if not _FLOAT.fullmatch(text):
        raise GtpError("syntax error")
    v = float(text)
    if not np.isfinite(v):
        raise GtpError("syntax error")
    return v


def _result(margin_winner):
    margin, winner = margin_winner
    if winner == 0:
        return "0"
    return f"{'B' if winner == BLACK else 'W'}+{sgf.number_text(abs(margin))}"


class Engine:
    """The GTP state machine: ``handle(line)`` returns the full answer (ending in an empty
    line) or None for a line that holds no command; ``quit_requested`` is set by ``quit``.

    playouts, seconds, resign, seed, threads: the genmove player's settings (see
    ``fastgo.player.Player``; threads None: every core); rules: a preset name or ``Rules``
    (komi included; None: tromp-taylor); size: the board.
    """

    def __init__(self, *, playouts=10000, seconds=None, resign=0.03, seed=0, threads=1,
                 rules="tromp-taylor", size=9, exploration=None, search="rave", player=None,
                 policy="uniform", ponder=False):
        rules = "tromp-taylor" if rules is None else rules
        self.rules = Rules.preset(rules) if isinstance(rules, str) else rules
        if not isinstance(self.rules, Rules):
            raise TypeError(f"rules must be a preset name or a Rules, not {type(rules).__name__}")
        # the engine's rules for a new game (clear_board, boardsize): these, kgs-rules' and
        # fastgo-rules', with komi's komi; self.rules are the game's (a loaded record's own)
        self.chosen = self.rules
        self.width, self.height = check_size(size, size)
        if not isinstance(search, str) or search not in SEARCHES:
            raise ValueError(f"search must be one of {sorted(SEARCHES)}, not {search!r}")
        _check_number("playouts", playouts, 1, 10**9, integer=True)
        if seconds is not None:
            _check_number("seconds", seconds, 0, 86400, low_open=True)
        _check_number("resign", resign, 0, 1, high_open=True)
        threads = default_threads() if threads is None else threads
        _check_number("threads", threads, 1, _MAX_THREADS, integer=True)
        _check_number("seed", seed, SEED_MIN, SEED_MAX, integer=True)
        if exploration is not None:
            _check_number("exploration", exploration, 0, 1e6)
        policy_code(policy)                 # "uniform" or "heavy", else ValueError
        self.player = player or Player(playouts, seconds, rave=SEARCHES[search], policy=policy,
                                       resign_threshold=resign, seed=seed, threads=threads)
        if exploration is not None:
            self.player.exploration = exploration
        self.ponder = bool(ponder)
        self._lock = threading.RLock()      # one command at a time (handle)
        self.stream = None                 # an analysis command's _Stream, for run() to start
        self.pondering_due = False         # a genmove just played: run() may ponder (ponder=True)
        self.quit_requested = False
        self.last_search = None            # (Decision, width, height) of the last genmove
        self.time_settings = None          # (main, byo-yomi time, byo-yomi stones); None: no limit
        self.clock = {}                    # colour -> (seconds, stones) left, as time_left says
        self.no_time_limit = False         # time_settings said "no time limit": no clock at all
        self.periods_left = False          # kgs-time_settings byoyomi: time_left's stones are
                                           # the periods left (kgsGtp's), each one move's
        self._clear()
        self.commands = {
            "protocol_version": self.cmd_protocol_version,
            "name": self.cmd_name,
            "version": self.cmd_version,
            "known_command": self.cmd_known_command,
            "list_commands": self.cmd_list_commands,
            "quit": self.cmd_quit,
            "boardsize": self.cmd_boardsize,
            "rectangular_boardsize": self.cmd_rectangular_boardsize,
            "clear_board": self.cmd_clear_board,
            "komi": self.cmd_komi,
            "play": self.cmd_play,
            "genmove": self.cmd_genmove,
            "reg_genmove": self.cmd_reg_genmove,
            "kgs-genmove_cleanup": self.cmd_kgs_genmove_cleanup,
            "undo": self.cmd_undo,
            "showboard": self.cmd_showboard,
            "final_score": self.cmd_final_score,
            "final_status_list": self.cmd_final_status_list,
            "fixed_handicap": self.cmd_fixed_handicap,
            "place_free_handicap": self.cmd_place_free_handicap,
            "set_free_handicap": self.cmd_set_free_handicap,
            "loadsgf": self.cmd_loadsgf,
            "printsgf": self.cmd_printsgf,
            "time_settings": self.cmd_time_settings,
            "kgs-time_settings": self.cmd_kgs_time_settings,
            "time_left": self.cmd_time_left,
            "kgs-rules": self.cmd_kgs_rules,
            "list_stones": self.cmd_list_stones,
            "fastgo-rules": self.cmd_fastgo_rules,
            "fastgo-playouts": self.cmd_fastgo_playouts,
            "fastgo-seconds": self.cmd_fastgo_seconds,
            "fastgo-resign": self.cmd_fastgo_resign,
            "fastgo-seed": self.cmd_fastgo_seed,
            "fastgo-stats": self.cmd_fastgo_stats,
            "fastgo-score": self.cmd_fastgo_score,
            "fastgo-why_illegal": self.cmd_fastgo_why_illegal,
            "fastgo-legal_moves": self.cmd_fastgo_legal_moves,
            "fastgo-ownership": self.cmd_fastgo_ownership,
            "lz-analyze": self.cmd_lz_analyze,
            "kata-analyze": self.cmd_kata_analyze,
            "lz-genmove_analyze": self.cmd_lz_genmove_analyze,
            "kata-genmove_analyze": self.cmd_kata_genmove_analyze,
            "gogui-analyze_commands": self.cmd_gogui_analyze_commands,
        }

    # -- protocol ----------------------------------------------------------------------------------

    def handle(self, line, write=None):
        """The answer to one input line (see the module docstring), or None if it is empty.

        `write` (``run`` passes its output's): where a genmove_analyze writes its whole answer
        as the search goes (its lines, the ``play`` line and the empty line); handle then
        returns "". Without it the whole answer is returned at the end. Calls from several
        threads are answered one at a time, in the order they take the engine (GTP is one
        stream of commands: a genmove must play on the position it searched)."""
        with self._lock:
            return self._handle(line, write)

    def _handle(self, line, write):
        if isinstance(line, (bytes, bytearray)):
            line = bytes(line).decode("utf-8", "replace")
        elif not isinstance(line, str):
            raise TypeError(f"line must be a str or bytes, not {type(line).__name__}")
        line = line.translate(_CONTROL).split("#", 1)[0].replace("\t", " ")
        words = line.split()
        if not words:
            return None
        ident = ""
        if words[0].isdigit() and words[0].isascii():
            ident = words.pop(0)
            if not words:
                return f"?{ident} syntax error: no command\n\n"
        name, args = words[0], words[1:]
        handler = self.commands.get(name)
        try:
            if handler is None:
                raise GtpError("unknown command")
            if args and name in NO_ARGUMENTS:
                raise GtpError("syntax error")
            result = handler(args)
            ok = True
            if isinstance(result, _Stream):
                if result.move:
                    # genmove_analyze: synchronous, the whole answer is written here
                    return self._genmove_analyze(ident, result, write)
                # an analysis command: its answer stays open; run() streams its lines and
                # ends it with the empty line when the next command arrives
                self.stream = result
                return f"={ident}\n"
        except GtpError as e:
            result, ok = str(e), False
        except BrokenPipeError:             # (genmove_analyze's lines: the controller is gone)
            raise
        except Exception as e:              # a bug: answer, keep going, log to stderr
            print(f"fastgo gtp: internal error in {name!r}:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            result, ok = f"internal error: {type(e).__name__}: {e}", False
        result = result or ""
        if not ok:
            result = " ".join(result.split())       # an error message is one line
        else:
            # no empty line may appear inside an answer (it would end the answer early)
            lines = result.rstrip("\n").split("\n")
            result = "\n".join(lines[:1] + [l for l in lines[1:] if l.strip()])
        return f"{'=' if ok else '?'}{ident} {result}\n\n"

    def run(self, infile=None, outfile=None):
        """Answer the lines of `infile` (bytes, default stdin) on `outfile` (text, default stdout)
        until ``quit`` or the end of the input."""
        infile = infile or sys.stdin.buffer
        outfile = outfile or sys.stdout
        worker = None

        def write(text):                    # a genmove_analyze's lines, as they come
            outfile.write(text)
            outfile.flush()
        try:
            for raw in infile:
                text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
                if not text.translate(_CONTROL).split("#", 1)[0].strip():
                    # a raw newline ends an analysis (KataGo's and Leela Zero's rule, which GUIs
                    # use to stop one); pondering goes on until a command
                    if worker is not None and worker.stream is not None:
                        worker.finish()
                        worker = None
                    continue
                if worker is not None:          # a command arrived: analysis or pondering ends
                    worker.finish()
                    worker = None
                # a genmove_analyze answers here, synchronously: lines and raw newlines that
                # arrive meanwhile wait in the input until its answer is complete (KataGo's
                # and Leela Zero's rule: it is not ended by a newline or the next command)
                answer = self.handle(raw, write)
                if answer is None:
                    continue
                outfile.write(answer)
                outfile.flush()
                if self.quit_requested:
                    break
                if self.stream is not None:
                    worker = _Background(self, outfile, self.stream)
                    self.stream = None
                elif self.ponder and self.pondering_due:
                    worker = _Background(self, outfile, None)
                self.pondering_due = False
        except BrokenPipeError:             # the controller went away: nothing to answer
            pass
        finally:
            if worker is not None:
                worker.finish()
            try:
                outfile.flush()
            except BrokenPipeError:
                _drop_output(outfile)
            except (OSError, ValueError):   # (an output closed or failing otherwise: as it is)
                pass
        return 0

    # -- state ----------------------------------------------------------------------------------------

    def _clear(self, board=None, earlier=(), handicap=0, info=None):
        if board is None:                  # a new game: the engine's rules again
            self.rules = self.chosen
        self.board = board if board is not None else Board(self.width, self.height, rules=self.rules)
        self.info = dict(info or {})       # a loaded record's game information, for printsgf
        # the finished parts of a resumed game (see _bring_to_move), oldest first: their turns
        # are in printsgf's record and their prisoners in the scores and showboard
        self.earlier = list(earlier)
        self.handicap = handicap           # HA of the game's set-up, for printsgf (None: as
                                           # board_to_sgf decides)
        self.undo_stack = []               # ("undo", k) or ("resume",)
        self.resigned = None               # the colour genmove resigned for, until the game
                                           # changes (printsgf's RE[])

    def _rebuild(self, rules):
        """The game replayed under other rules (komi changes, kgs-rules mid-game). Every part of
        a resumed game is replayed; the undo records stay valid (same turns, same parts)."""
        earlier, b, k = [], None, 0
        for old in self.earlier + [self.board]:
            if b is not None:
                sgf.finish_part(earlier, b)
            setup, first = sgf.board_setup(old)
            b = Board.from_array(setup, to_move=first, rules=rules)
            for p in old.history:
                k += 1
                try:
                    b.play(p)
                except IllegalMoveError as e:
                    raise GtpError(f"move {k} of the game is illegal under those rules: {e.reason}") from None
        self.rules = rules
        self.earlier, self.board = earlier, b

    def _prisoners(self):
        """(black, white) stones captured in the whole game, earlier parts included."""
        pb, pw = sgf.prisoners(self.earlier)
        return self.board.captures[0] + pb, self.board.captures[1] + pw

    def _score(self, dead=()):
        return sgf.score(self.board, self.earlier, dead)

    def _vertex(self, point):
        return point_to_vertex(point, self.width, self.height)

    def _parse_vertex(self, text, what="syntax error"):
        try:
            return vertex_to_point(text, self.width, self.height)
        except ValueError:
            raise GtpError(what) from None

    def _board_empty(self):
        return self.board.move_number == 0 and not self.board.stones().any()

    def _bring_to_move(self, colour):
        """Make it `colour`'s turn (see the module docstring); return the undo record's steps."""
        b = self.board
        if not b.is_over and b.to_move == colour:
            return ("undo", 0)
        if not b.is_over and b.consecutive_passes == 0:       # (history: a list of every turn)
            b.play(b.pass_move)
            return ("undo", 1)
        # resume: a new part from the stones as they stand; the finished one is kept, compactly
        try:
            sgf.finish_part(self.earlier, b)
        except ValueError as e:
            raise GtpError(str(e)) from None
        self.board = Board.from_array(b.stones(), to_move=colour, rules=self.rules)
        return ("resume",)

    def _play(self, colour, point):
        record = self._bring_to_move(colour)
        try:
            self.board.play(point)
        except IllegalMoveError:
            self._revert(record)
            raise GtpError("illegal move") from None
        if record[0] == "undo":
            self.undo_stack.append(("undo", record[1] + 1))
        else:
            self.undo_stack.append(record)
        self.resigned = None

    def _revert(self, record):
        if record[0] == "undo":
            if record[1]:
                self.board.undo(record[1])
        else:                              # "resume": back to the finished part
            self.board = self.earlier.pop().board()

    # -- required commands ---------------------------------------------------------------------------

    def cmd_protocol_version(self, args):
        return "2"

    def cmd_name(self, args):
        return "fastgo"

    def cmd_version(self, args):
        return f"{fastgo.__version__} (Monte Carlo tree search, UCT with RAVE)"

    def cmd_known_command(self, args):
        if len(args) != 1:
            raise GtpError("syntax error")
        return "true" if args[0] in self.commands else "false"

    def cmd_list_commands(self, args):
        return "\n".join(self.commands)

    def cmd_quit(self, args):
        self.quit_requested = True
        return ""

    def cmd_boardsize(self, args):
        if len(args) != 1:
            raise GtpError("syntax error")
        return self._resize(_int_arg(args[0]), _int_arg(args[0]))

    def cmd_rectangular_boardsize(self, args):
        if len(args) != 2:
            raise GtpError("syntax error")
        return self._resize(_int_arg(args[0]), _int_arg(args[1]))

    def _resize(self, width, height):
        try:
            check_size(width, height)
        except ValueError:
            raise GtpError("unacceptable size") from None
        self.width, self.height = width, height
        self._clear()
        return ""

    def cmd_clear_board(self, args):
        self._clear()
        self._set_clock(self.time_settings, self.no_time_limit)   # a new game: the clocks start again
        return ""

    def cmd_komi(self, args):
        if len(args) != 1:
            raise GtpError("syntax error")
        komi = _float_arg(args[0])
        self._rebuild(self.rules.replace(komi=komi))
        self.chosen = self.chosen.replace(komi=komi)
        return ""

    def cmd_play(self, args):
        if len(args) != 2:
            raise GtpError("syntax error")
        colour = _colour(args[0])
        if args[1].lower() == "pass":
            point = self.board.pass_move
        else:
            try:
                point = vertex_to_point(args[1], self.width, self.height)
            except ValueError as e:
                # a well-formed vertex off this board is an illegal move, anything else bad syntax
                raise GtpError("illegal move" if "off a" in str(e) else "syntax error") from None
        self._play(colour, point)
        return ""

    def cmd_genmove(self, args):
        return self._genmove(args, play=True)

    def cmd_reg_genmove(self, args):
        return self._genmove(args, play=False)

    def cmd_kgs_genmove_cleanup(self, args):
        return self._genmove(args, play=True, cleanup=True)

    def _genmove(self, args, play, cleanup=False):
        if len(args) != 1:
            raise GtpError("syntax error")
        return self._generate(_colour(args[0]), play, cleanup)

    def _generate(self, colour, play, cleanup=False, report=None, avoid=()):
        """genmove's rule for `colour` (the side that moves: a pass or a resumption makes it
        its turn, as play does): the player's move under the budget (``fastgo-playouts``,
        ``fastgo-seconds``, the clock's share), resigning as it decides; played when `play`
        (and the clock run down), else the board is left as it was. Returns the vertex,
        ``pass`` or ``resign``. `report`: ``Player.think``'s, for genmove_analyze's lines;
        `avoid`: ``Player.choose``'s."""
        record = self._bring_to_move(colour)
        t0 = time.monotonic()
        try:
            decision = self.player.choose(self.board, seconds=self.time_budget(colour),
                                          cleanup=cleanup, report=report, earlier=self.earlier,
                                          avoid=avoid)
        except BaseException:
            self._revert(record)             # leave no inserted pass behind
            raise
        self.last_search = (decision, self.width, self.height)
        if decision.move is None or not play:
            self._revert(record)
            if play:
                self._spend(colour, time.monotonic() - t0)
                if decision.move is None:
                    self.resigned = colour
            return "resign" if decision.move is None else self._vertex(decision.move)
        self.board.play(decision.move)
        self.resigned = None
        self.pondering_due = not self.board.is_over
        steps = record[1] + 1 if record[0] == "undo" else None
        self.undo_stack.append(("undo", steps) if steps is not None else record)
        self._spend(colour, time.monotonic() - t0)
        return self._vertex(decision.move)

    # -- optional commands -----------------------------------------------------------------------------

    def cmd_undo(self, args):
        if args:
            raise GtpError("syntax error")
        if self.undo_stack:
            self._revert(self.undo_stack.pop())
        elif self.board.move_number:
            self.board.undo()               # a turn of a loaded game
        elif self.earlier:
            self.board = self.earlier.pop().board()   # a resumption of a loaded game
        else:
            raise GtpError("cannot undo")
        self.resigned = None
        return ""

    def cmd_showboard(self, args):
        b = self.board
        side = "black" if b.to_move == BLACK else "white"
        cb, cw = self._prisoners()
        lines = [str(b), f"{side} to move; captures: black {cb}, white {cw}; "
                         f"turns {sum(x.move_number for x in self.earlier) + b.move_number}{'; game over' if b.is_over else ''}",
                 f"rules: {self._rules_text()}"]
        return "\n" + "\n".join(lines)

    def _dead(self):
        return self.player.dead_stones(self.board)

    def cmd_final_score(self, args):
        s = self._score(self._dead())
        return _result((s.margin, s.winner))

    def cmd_final_status_list(self, args):
        if len(args) != 1 or args[0] not in ("alive", "dead", "seki"):
            raise GtpError("syntax error")
        if args[0] == "seki":
            return ""
        dead = set(self._dead())
        g = self.board.stones().ravel()
        want_dead = args[0] == "dead"
        lines, seen = [], set()
        for p in np.flatnonzero(g).tolist():
            if p in seen or (p in dead) != want_dead:
                continue
            stones = self.board.chain(p).stones
            seen.update(stones)
            lines.append(" ".join(self._vertex(q) for q in stones))
        return "\n".join(lines)

    def _handicap(self, points):
        try:
            board = Board(self.width, self.height, rules=self.rules, handicap=list(points))
        except ValueError:
            raise GtpError("bad vertex list") from None
        self._clear(board, handicap=len(points))
        return " ".join(self._vertex(p) for p in points)

    def cmd_fixed_handicap(self, args):
        if len(args) != 1:
            raise GtpError("syntax error")
        n = _int_arg(args[0])
        if not self._board_empty():
            raise GtpError("board not empty")
        if not max_fixed_handicap(self.width, self.height):
            raise GtpError(f"invalid number of stones: GTP's fixed handicap layout is defined "
                           f"on square boards from 7x7 to 25x25, not {self.width}x{self.height} "
                           f"(place_free_handicap places any number)")
        try:
            points = star_points(self.width, self.height, n)
        except ValueError:
            raise GtpError("invalid number of stones") from None
        return self._handicap(points)

    def cmd_place_free_handicap(self, args):
        if len(args) != 1:
            raise GtpError("syntax error")
        n = _int_arg(args[0])
        if not self._board_empty():
            raise GtpError("board not empty")
        if not 2 <= n < self.width * self.height:
            raise GtpError("invalid number of stones")
        return self._handicap(free_handicap_points(self.width, self.height, n))

    def cmd_set_free_handicap(self, args):
        if not self._board_empty():
            raise GtpError("board not empty")
        points = [self._parse_vertex(a, "bad vertex list") for a in args]
        if (len(points) < 2 or len(set(points)) != len(points)
                or self.width * self.height in points or len(points) >= self.width * self.height):
            raise GtpError("bad vertex list")
        self._handicap(points)
        return ""

    def cmd_loadsgf(self, args):
        if not 1 <= len(args) <= 2:
            raise GtpError("syntax error")
        upto = _int_arg(args[1]) if len(args) == 2 else None
        if upto is not None and upto < 1:
            raise GtpError("syntax error")
        try:
            game = sgf.load(args[0])
        except OSError as e:
            raise GtpError(f"cannot load file: {e.strerror or e}") from None
        except sgf.SgfError as e:
            raise GtpError(f"cannot load file: {e}") from None
        # the rules and komi of a record as everywhere (sgf.Game.rules_used): nothing is kept
        # from the engine's rules or an earlier record. They are this game's: a new game
        # (clear_board, boardsize) has the engine's rules again, with the record's komi (GTP 2:
        # loadsgf sets the komi, which stays until the next komi command)
        try:
            # as with play: two moves of one colour in a row mean the other colour passed
            # and a move after two passes resumes the game
            parts = game.segments(upto=upto, insert_passes=True)
        except sgf.SgfError as e:
            # (the record's rules are used: the hint of how to choose others is no GTP's)
            message = str(e).replace(e.hint, "") if isinstance(e, sgf.ReplayError) else str(e)
            raise GtpError(f"cannot load file: {message}") from None
        self.width, self.height, self.rules = game.width, game.height, parts[-1].rules
        self.chosen = self.chosen.replace(komi=self.rules.komi)
        # the record's HA[] for printsgf where its set-up bears it out (board_to_sgf refuses a
        # count the stones contradict, as in a record that plays its handicap stones as moves)
        borne = sgf.setup_handicap(*sgf.board_setup(parts[0]))
        handicap = game.handicap if game.handicap == borne else None
        self._clear(parts[-1], parts[:-1], handicap, game.info)
        return ""       # GTP 2: output none (GNU Go answers the colour to move; showboard says it)

    def cmd_printsgf(self, args):
        if len(args) > 1:
            raise GtpError("syntax error")
        # a resumed game: every part's turns (loadsgf resumes them alike), prisoners in RE;
        # after genmove resigned (and nothing since), the opponent's win
        result = None if self.resigned is None else "BW"[self.resigned == BLACK] + "+R"
        text = sgf.board_to_sgf(self.board, result, earlier=self.earlier,
                                handicap=self.handicap, **self.info)
        if args:
            try:
                with open(args[0], "w", encoding="utf-8") as f:
                    f.write(text)
            except OSError as e:
                raise GtpError(f"cannot save file: {e.strerror or e}") from None
            return ""
        return text

    def cmd_time_settings(self, args):
        if len(args) != 3:
            raise GtpError("syntax error")
        main, byo, stones = _time_args(args)
        # GTP: byo-yomi time > 0 with 0 stones means no time limit (and all zeros can mean
        # nothing else sensible)
        no_limit = stones == 0 and (byo > 0 or main == 0)
        self.periods_left = False
        self._set_clock(None if no_limit else (main, byo, stones), declared=True)
        return ""

    def cmd_kgs_time_settings(self, args):
        if not args:
            raise GtpError("syntax error")
        kind, rest = args[0].lower(), _time_args(args[1:])
        if kind == "none" and not rest:
            settings = None
        elif kind == "absolute" and len(rest) == 1:
            settings = (rest[0], 0, 0)
        elif kind == "byoyomi" and len(rest) == 3:
            settings = (rest[0], rest[1], 1)   # each period covers one move
        elif kind == "canadian" and len(rest) == 3:
            settings = (rest[0], rest[1], rest[2])
        else:
            raise GtpError("syntax error")
        if settings is not None and settings[1] > 0 and settings[2] == 0:
            settings = None
        self.periods_left = kind == "byoyomi" and settings is not None
        self._set_clock(settings, declared=True)
        return ""

    def _set_clock(self, settings, declared=False):
        """New time settings: both clocks start (main time, or the first byo-yomi period when
        there is none). `declared` None settings are the controller's "no time limit", under
        which time_left is ignored."""
        self.time_settings = settings
        self.no_time_limit = declared and settings is None
        self.clock = {}
        if settings is not None:
            main, byo, stones = settings
            start = (float(main), 0) if main > 0 or not (byo > 0 and stones > 0) else (float(byo), stones)
            self.clock = {BLACK: start, WHITE: start}

    def cmd_time_left(self, args):
        if len(args) != 3:
            raise GtpError("syntax error")
        colour = _colour(args[0])
        seconds, (stones,) = _float_arg(args[1]), _time_args(args[2:])
        if self.periods_left and stones > 0:
            stones = 1                  # in a period of Japanese byo-yomi: this move's time
        if not self.no_time_limit:     # (under "no time limit" it describes no clock: time_left
            self.clock[colour] = (max(0.0, seconds), stones)    # 0 0 made every move a pass)
        return ""

    def time_budget(self, colour):
        """Seconds ``genmove`` may think for `colour`: the per-move cap (``--seconds``,
        ``fastgo-seconds``; None: none) and, when there is a clock, a share of it. A clock comes
        from ``time_settings`` (or a ``time_left`` alone, read as absolute time).

        In main time: what is left over the moves still to play (at least 10, or half the empty
        points), plus half a byo-yomi stone's time when byo-yomi follows; in a byo-yomi period:
        its time over its stones. Of that share 85% less 0.05 s (at least 0.05 s), and never
        more than 85% less 0.05 s of the time this move may still take (what is left, plus one
        byo-yomi period if one follows main time), so that the search's last batch and the
        answer's way back fit and the clock does not run out."""
        cap = self.player.seconds
        if colour not in self.clock:
            return cap
        main, byo, stones = self.time_settings or (0, 0, 0)
        left, period_stones = self.clock[colour]
        if period_stones > 0:                  # in byo-yomi: share the period's time
            share, hard = left / period_stones, left
        else:
            empties = int(np.count_nonzero(self.board.stones() == 0))
            share, hard = left / max(10, empties // 2), left
            if byo > 0 and stones > 0:         # byo-yomi follows: some of it can go now
                share += 0.5 * byo / stones
                hard += byo                    # running into the first period is allowed
        budget = min(max(0.05, 0.85 * share - 0.05), max(0.0, 0.85 * hard - 0.05))
        return budget if cap is None else min(cap, budget)

    def _spend(self, colour, seconds):
        """Run our own clock down by a genmove's time (until the controller's next time_left):
        main time first, then byo-yomi periods (a period ends, and a new one begins, when its
        stones are played)."""
        if colour not in self.clock:
            return
        main, byo, stones = self.time_settings or (0, 0, 0)
        left, period_stones = self.clock[colour]
        left -= seconds
        if period_stones == 0:
            if left < 0 and byo > 0 and stones > 0:   # main time ran out: this move opens byo-yomi
                left, period_stones = byo + left, stones - 1
                if period_stones == 0:
                    left, period_stones = float(byo), stones
        else:
            period_stones -= 1
            if period_stones == 0 and left >= 0:     # the period's stones are played: a new one
                left, period_stones = float(byo), stones
        self.clock[colour] = (max(0.0, left), period_stones)

    def cmd_kgs_rules(self, args):
        if len(args) != 1:
            raise GtpError("syntax error")
        try:
            preset = Rules.preset(args[0])
        except ValueError:
            raise GtpError("unknown rules") from None
        self._rebuild(preset.replace(komi=self.rules.komi))
        self.chosen = self.rules
        return ""

    def cmd_list_stones(self, args):
        if len(args) != 1:
            raise GtpError("syntax error")
        colour = _colour(args[0])
        g = self.board.stones().ravel()
        return " ".join(self._vertex(p) for p in np.flatnonzero(g == colour).tolist())

    # -- fastgo extensions -------------------------------------------------------------------------------

    def _rules_text(self):
        r = self.rules
        return (f"{r.preset_name or 'custom'} ko={r.ko} suicide={'allowed' if r.suicide else 'forbidden'} "
                f"scoring={r.scoring} komi={sgf.number_text(r.komi)}")

    def cmd_fastgo_rules(self, args):
        """``fastgo-rules``: the rules; ``fastgo-rules [PRESET] [ko=..] [suicide=allowed|
        forbidden] [scoring=area|territory] [komi=..]`` sets them (the game is replayed)."""
        if not args:
            return self._rules_text()
        rules = self.rules
        changes = {}
        for a in args:
            if "=" not in a:
                try:
                    rules = Rules.preset(a).replace(komi=self.rules.komi)
                except ValueError:
                    raise GtpError(f"unknown rules preset {a}") from None
                continue
            key, value = a.split("=", 1)
            if key == "ko":
                changes["ko"] = value
            elif key == "suicide":
                if value not in ("allowed", "forbidden", "true", "false"):
                    raise GtpError("suicide must be allowed or forbidden")
                changes["suicide"] = value in ("allowed", "true")
            elif key == "scoring":
                changes["scoring"] = value
            elif key == "komi":
                changes["komi"] = _float_arg(value)
            else:
                raise GtpError(f"unknown rules option {key}")
        try:
            rules = Rules(**{**rules.__dict__, **changes})
        except (ValueError, TypeError) as e:
            raise GtpError(str(e)) from None
        self._rebuild(rules)
        self.chosen = rules
        return ""

    def _setting(self, args, attr, parse, check):
        if not args:
            value = getattr(self.player, attr)
            # an int as it is (seed 1234567, not 1.23457e+06): the answer reads back as a value
            return "0" if value is None else str(value) if isinstance(value, int) else f"{value:g}"
        if len(args) != 1:
            raise GtpError("syntax error")
        value = parse(args[0])
        if not check(value):
            raise GtpError(f"bad value {args[0]}")
        setattr(self.player, attr, value)
        return ""

    def cmd_fastgo_playouts(self, args):
        return self._setting(args, "playouts", _int_arg, lambda v: 1 <= v <= 10**9)

    def cmd_fastgo_seconds(self, args):
        if args and len(args) == 1 and _float_arg(args[0]) == 0:
            self.player.seconds = None
            return ""
        return self._setting(args, "seconds", _float_arg, lambda v: 0 < v <= 86400)

    def cmd_fastgo_resign(self, args):
        return self._setting(args, "resign_threshold", _float_arg, lambda v: 0 <= v < 1)

    def cmd_fastgo_seed(self, args):
        return self._setting(args, "seed", lambda a: _int_arg(a, signed=True),
                             lambda v: SEED_MIN <= v <= SEED_MAX)

    def cmd_fastgo_stats(self, args):
        if args:
            raise GtpError("syntax error")
        if self.last_search is None:
            return "no genmove yet"
        d, w, h = self.last_search          # the board may have changed size since

        def vertex(p):
            return point_to_vertex(p, w, h)
        move = "resign" if d.move is None else vertex(d.move)
        lines = [f"move {move} winrate {d.winrate:.3f} playouts {d.playouts} seconds {d.seconds:.3f}"
                 + (f" ({d.reason})" if d.reason else "")]
        for point, pulls, rate in d.arms[:10]:
            lines.append(f"{vertex(point)} {pulls} {rate:.3f}")
        return "\n".join(lines)

    def cmd_fastgo_score(self, args):
        s = self._score()
        return _result((s.margin, s.winner))

    def cmd_fastgo_why_illegal(self, args):
        if len(args) != 1:
            raise GtpError("syntax error")
        point = self._parse_vertex(args[0])
        return self.board.why_illegal(point) or "legal"

    def cmd_fastgo_legal_moves(self, args):
        return " ".join(self._vertex(p) for p in self.board.legal_moves())

    def cmd_fastgo_ownership(self, args):
        """``fastgo-ownership [n]``: mean ownership (+1 black .. -1 white) over n playouts, one
        board row per line, top row first."""
        n = _int_arg(args[0]) if args else 1000
        if not 1 <= n <= 10**7 or len(args) > 1:
            raise GtpError("syntax error")
        if self.board.is_over:      # the count: its owners (0, 1 black, 2 white) as +1 .. -1
            own = np.array([0.0, 1.0, -1.0])[self.board.score().ownership]
        else:
            own = self.player.ownership(self.board, n)
        return "\n".join(" ".join(f"{v:+.2f}" for v in row) for row in np.asarray(own)[::-1])


    # -- analysis (Lizzie, Sabaki, GoGui) ----------------------------------------------------------

    # the other keys Leela Zero and KataGo take with one value, read and ignored: their kind
    _ANALYSIS_KEYS = {"minmoves": "int", "maxmoves": "int", "pvVisits": "bool",
                      "pvEdgeVisits": "bool", "rootInfo": "bool", "ownershipStdev": "bool",
                      "movesOwnership": "bool", "movesOwnershipStdev": "bool"}

    def _analysis_args(self, args, kata):
        """``[colour] [interval] [key value ...]`` of the analysis and genmove_analyze commands:
        interval in centiseconds (default 100), ``ownership true|false`` (the kata- commands
        print it), and Leela Zero's and KataGo's ``avoid PLAYER VERTICES UNTILDEPTH`` (any
        number; the tree leaves those moves of PLAYER out of its first UNTILDEPTH plies:
        ``Search``'s `avoid`) and ``allow`` of the same form (one a colour: every other point
        avoided, the pass never, as in Leela Zero), VERTICES comma-separated vertices or
        ranges ``A1:C3`` (the rectangle between two corners), ``pass`` and ``resign`` (which
        is never searched); the other keys of one value they take (minmoves, maxmoves,
        pvVisits, rootInfo...) are checked and ignored; any other word is a syntax error.
        Returns (colour or None, interval in seconds, ownership, the avoid triples)."""
        interval, ownership, colour, avoid, allowed = 100, False, None, [], set()
        args = list(args)
        if args and args[0].lower() in ("b", "w", "black", "white"):
            colour = _colour(args.pop(0))
        if args and args[0].isdigit():
            interval = _int_arg(args.pop(0))
        pairs = []
        while args:
            key = args.pop(0)
            if key in ("avoid", "allow"):
                if len(args) < 3:
                    raise GtpError("syntax error")
                who, vertices, depth = _colour(args[0]), args[1], _int_arg(args[2])
                del args[:3]
                if depth < 1 or (key == "allow" and who in allowed):
                    raise GtpError("syntax error")
                points = self._vertex_set(vertices)
                if key == "allow":
                    allowed.add(who)
                    points = set(range(self.width * self.height)) - points
                avoid.append((who, sorted(points), min(depth, 32767)))
                continue
            if not args:
                raise GtpError("syntax error")
            pairs.append((key, args.pop(0)))
        for key, value in pairs:
            kind = ("int" if key == "interval" else "bool" if key == "ownership"
                    else self._ANALYSIS_KEYS.get(key))
            if kind == "int":
                number = _int_arg(value)
            elif kind == "bool" and value in ("true", "false"):
                number = None
            else:
                raise GtpError("syntax error")
            if key == "interval":
                interval = number
            elif key == "ownership":
                ownership = kata and value == "true"        # (lz-analyze prints none)
        return colour, max(interval, 1) / 100.0, ownership, avoid

    def _vertex_set(self, text):
        """The points of avoid's and allow's comma-separated vertices and ranges (``A1:C3``,
        the rectangle between two corners), pass included, resign left out; a syntax error
        for anything else."""
        w, h = self.width, self.height
        points = set()
        try:
            for item in text.split(","):
                if item.lower() == "resign":
                    continue
                if ":" in item:
                    a, b = (vertex_to_point(v, w, h) for v in item.split(":", 1))
                    if w * h in (a, b):
                        raise ValueError("a range of passes")
                    rows = range(min(a // w, b // w), max(a // w, b // w) + 1)
                    cols = range(min(a % w, b % w), max(a % w, b % w) + 1)
                    points.update(r * w + c for r in rows for c in cols)
                else:
                    points.add(vertex_to_point(item, w, h))
        except ValueError:
            raise GtpError("syntax error") from None
        return points

    def _analysed(self, colour, interval, kind, ownership, avoid):
        """The analysis of the position genmove `colour` would search (the side to move when
        None): a copy of the board's (a pass played in it when the other side is to move), or,
        after two passes, a new part from the stones as they stand, which play and genmove
        would resume (the finished one counts among the earlier parts' prisoners)."""
        board, earlier = self.board.copy(), self.earlier
        if colour is not None and colour != board.to_move and not board.is_over:
            board.pass_()
        if board.is_over:
            earlier = list(earlier)
            try:
                sgf.finish_part(earlier, board)
            except ValueError as e:
                raise GtpError(str(e)) from None
            board = Board.from_array(board.stones(), rules=self.rules,
                                     to_move=board.to_move if colour is None else colour)
        return _Stream(board, interval, kind, ownership, earlier=earlier, avoid=avoid)

    def cmd_lz_analyze(self, args):
        """``lz-analyze [colour] [interval]``: Leela Zero's streaming analysis: every `interval`
        centiseconds a line of ``info move V visits N winrate W prior P lcb L order K pv ...``
        entries (winrate, prior and lcb in 1/10000, for `colour`, default the side to move; the
        prior is uniform, 1 / the root's moves: the UCT search has no policy) until the next
        command or a raw newline."""
        colour, interval, _, avoid = self._analysis_args(args, kata=False)
        return self._analysed(colour, interval, "lz", False, avoid)

    def cmd_kata_analyze(self, args):
        """``kata-analyze [colour] [interval] [ownership true]``: KataGo's streaming analysis,
        as lz-analyze with win rates and priors in [0, 1], and with ``ownership true`` the
        ownership of every point (+1 the side to move's), top row first, after the moves: the
        mean final owner over all the analysis's playouts so far (``SearchTotals``)."""
        colour, interval, ownership, avoid = self._analysis_args(args, kata=True)
        return self._analysed(colour, interval, "kata", ownership, avoid)

    def cmd_lz_genmove_analyze(self, args):
        """``lz-genmove_analyze [colour] [interval] [key value ...]``: genmove with lz-analyze's
        lines as it searches (see ``_genmove_analyze``)."""
        colour, interval, _, avoid = self._analysis_args(args, kata=False)
        return _Stream(None, interval, "lz", False, colour=colour, move=True, avoid=avoid)

    def cmd_kata_genmove_analyze(self, args):
        """``kata-genmove_analyze [colour] [interval] [key value ...]``: genmove with
        kata-analyze's lines (``ownership true`` included) as it searches."""
        colour, interval, ownership, avoid = self._analysis_args(args, kata=True)
        return _Stream(None, interval, "kata", ownership, colour=colour, move=True, avoid=avoid)

    def _genmove_analyze(self, ident, stream, write):
        """lz-/kata-genmove_analyze, as Leela Zero and KataGo define them: ``genmove colour``
        (colour default the side to move; the same rule, budget, resignation and clock: see
        ``_generate``) that answers ``=[id]`` as its search starts (after the first slice, or
        with the move when there is no search), then the analysis command's line every
        interval while it searches (``Player.think``'s slices of 0.05 s) and one last line for
        the whole search, then ``play <vertex|pass|resign>`` and the empty line. With one
        thread and a playout budget the move is genmove's (the sliced search is the same
        search). Synchronous: nothing ends it early (``run`` reads the next line after it).
        An error before the answer opens is a ``?`` answer; one after it (a bug) ends the
        answer with the empty line and no play line, logged on stderr, as KataGo does."""
        held, opened = [], False

        def emit(text):
            nonlocal opened
            if not opened:
                text, opened = f"={ident}\n" + text, True
            if write is None:
                held.append(text)
            else:
                write(text)

        due = time.monotonic() + stream.interval

        def report(result, final):
            nonlocal due
            if final or time.monotonic() >= due:
                # the board is the search's root until the move is played, after the last report
                line = self.analysis_line(result, self.board, stream.kind, stream.ownership,
                                          avoid=stream.avoid)
                emit(line or "")
                due = time.monotonic() + stream.interval
            elif not opened:
                emit("")                    # opens the answer: '=' within the first slice

        try:
            move = self._generate(stream.colour or self.board.to_move, play=True, report=report,
                                  avoid=stream.avoid)
        except BrokenPipeError:
            raise                           # the controller went away: run ends quietly
        except Exception:
            if not opened:
                raise                       # handle answers it as any error
            print("fastgo gtp: genmove_analyze stopped by an internal error:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            emit("\n")
            return "" if write is not None else "".join(held)
        emit(f"play {move}\n\n")
        return "" if write is not None else "".join(held)

    def cmd_gogui_analyze_commands(self, args):
        """GoGui's analyze menu: the ownership map (``dboard``) and the last search's statistics."""
        return "dboard/Ownership/fastgo-ownership\nstring/Last search/fastgo-stats"

    def analysis_line(self, result, board, kind, ownership, earlier=None, avoid=()):
        """One analysis line (see cmd_lz_analyze / cmd_kata_analyze) from a ``SearchResult``,
        or None when no move has a visit yet."""
        w, h = board.width, board.height
        search = self.player.tree(board, self.earlier if earlier is None else earlier, avoid)
        # best_move's order: most visits, then the higher value, then the earlier move (the
        # higher prior before it, under PUCT: the UCT search's priors are all 0)
        order = [i for i in sorted(range(len(result.moves)),
                                   key=lambda i: (-result.visits[i], -np.nan_to_num(result.values[i], nan=-1)))
                 if result.visits[i] > 0]
        parts = []
        for k, i in enumerate(order):
            move = int(result.moves[i])
            n = int(result.visits[i])
            rate = float(result.values[i])
            lcb = max(0.0, rate - 1.0 / np.sqrt(n))
            prior = 1.0 / max(1, len(result.moves))
            pv = " ".join(point_to_vertex(p, w, h) for p in search.variation(move))
            if kind == "lz":
                parts.append(f"info move {point_to_vertex(move, w, h)} visits {n} winrate "
                             f"{int(round(10000 * rate))} prior {int(round(10000 * prior))} lcb "
                             f"{int(round(10000 * lcb))} order {k} pv {pv}")
            else:
                parts.append(f"info move {point_to_vertex(move, w, h)} visits {n} winrate "
                             f"{rate:.6f} prior {prior:.6f} lcb {lcb:.6f} order {k} pv {pv}")
        if not parts:
            return None             # nothing visited yet: no line (an empty one ends the answer)
        line = " ".join(parts)
        if ownership and result.ownership is not None:
            own = np.nan_to_num(np.asarray(result.ownership))[::-1]
            if board.to_move == WHITE:
                own = -own
            line += " ownership " + " ".join(f"{v:.4f}" for v in own.ravel())
        return line + "\n"


class _Stream:
    """An analysis command's parsed request: the position (None for genmove_analyze, which
    searches the board's) and the game's earlier parts (None: the engine's), seconds between
    lines, "lz" or "kata", ownership; colour (or None) and `move` for genmove_analyze; the
    moves the search avoids (``Search``'s `avoid`)."""

    def __init__(self, board, interval, kind, ownership, colour=None, move=False, earlier=None,
                 avoid=()):
        self.board, self.interval, self.kind, self.ownership = board, interval, kind, ownership
        self.colour, self.move, self.earlier, self.avoid = colour, move, earlier, avoid


class _Background:
    """A thread that searches the engine's position until the next command: an analysis
    stream (lines written to `out` every interval) or, with `stream` None, pondering (the tree
    the next genmove reuses grows). ``finish()`` stops it within one slice of the search
    (0.05 s) and, for a stream, ends the open answer with its empty line. An analysis's
    ownership is the mean over all its slices' playouts (``SearchTotals``, new for each)."""

    SLICE = Player.SLICE

    def __init__(self, engine, out, stream):
        self.engine, self.out, self.stream = engine, out, stream
        self.board = stream.board if stream is not None else engine.board.copy()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        player = self.engine.player
        next_line = time.monotonic() + (self.stream.interval if self.stream else 0)
        avoid = self.stream.avoid if self.stream is not None else ()
        totals = SearchTotals()
        try:
            while not self.done.is_set():
                # a slice at a time under the engine's lock: another thread's handle (a
                # genmove in the one Search) waits for the slice, not the other way round
                with self.engine._lock:
                    earlier = self.engine.earlier
                    if self.stream is not None and self.stream.earlier is not None:
                        earlier = self.stream.earlier
                    r = totals.add(player.think(self.board, seconds=self.SLICE, earlier=earlier,
                                                avoid=avoid))
                    full = player.tree(self.board, earlier, avoid).full
                if full:                            # (MAX_VISITS: wait, do not spin)
                    self.done.wait(self.SLICE)
                if self.stream is not None and time.monotonic() >= next_line and not self.done.is_set():
                    line = self.engine.analysis_line(r, self.board, self.stream.kind,
                                                     self.stream.ownership, earlier, avoid)
                    if line:
                        self.out.write(line)
                        self.out.flush()
                    next_line = time.monotonic() + self.stream.interval
        except BrokenPipeError:             # the controller went away (run ends quietly)
            pass
        except Exception:                   # never let a search error kill the engine
            print("fastgo gtp: analysis stopped by an internal error:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)

    def finish(self):
        self.done.set()
        self.thread.join()
        if self.stream is not None:
            try:
                self.out.write("\n")
                self.out.flush()
            except BrokenPipeError:         # (as above: nothing to end)
                pass


def _drop_output(outfile):
    """The controller closed the engine's output: what is still buffered can never be written,
    and the interpreter's last flush of stdout would print "Exception ignored ... BrokenPipeError"
    (Python 3.13 does). The descriptor is pointed at os.devnull instead (the remedy Python's
    documentation of SIGPIPE gives); an output without one (a StringIO) is left as it is."""
    try:
        fd = outfile.fileno()
    except (AttributeError, OSError, ValueError):
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(devnull, fd)
    except OSError:
        pass
    finally:
        os.close(devnull)


def free_handicap_points(width, height, n):
    """`n` handicap points for ``place_free_handicap``: the fixed layout where it exists
    (``star_points``: square boards from 7x7 to 25x25, 2..4 or 2..9 stones), else points spread
    greedily (each the farthest
    from those chosen, off the first line when the board allows), starting from the centre."""
    try:
        return star_points(width, height, n)
    except ValueError:
        pass
    margin = 1 if min(width, height) >= 5 else 0
    candidates = [(r, c) for r in range(margin, height - margin) for c in range(margin, width - margin)]
    if len(candidates) < n:
        candidates = [(r, c) for r in range(height) for c in range(width)]
    chosen = [min(candidates, key=lambda rc: (abs(rc[0] - (height - 1) / 2) + abs(rc[1] - (width - 1) / 2), rc))]
    while len(chosen) < n:
        best = max((rc for rc in candidates if rc not in chosen),
                   key=lambda rc: (min(abs(rc[0] - r) + abs(rc[1] - c) for r, c in chosen),
                                   sum(abs(rc[0] - r) + abs(rc[1] - c) for r, c in chosen),
                                   -rc[0], -rc[1]))
        chosen.append(best)
    return [r * width + c for r, c in chosen]


def main(argv=None):
    """``python -m fastgo.gtp [options]``: ``fastgo gtp``, through the CLI (its option errors,
    Ctrl-C and exit status)."""
    from fastgo.cli import main as cli_main
    return cli_main(["gtp", *(sys.argv[1:] if argv is None else argv)])


def add_command(parser):
    """Make `parser` (an ``argparse`` subcommand's) the ``fastgo gtp`` command."""
    add_arguments(parser)
    parser.set_defaults(func=run_from_args)    # (fastgo.cli.main reports a bad option value)


def add_arguments(parser):
    parser.add_argument("--playouts", type=int, default=10000, help="playouts per move (default 10000)")
    parser.add_argument("--seconds", type=float, default=None, help="at most this many seconds per move")
    parser.add_argument("--resign", type=float, default=0.03,
                        help="resign below this win rate (default 0.03; 0 never resigns)")
    parser.add_argument("--rules", default="tromp-taylor",
                        help=f"rules preset: {', '.join(sorted(PRESETS))} (default tromp-taylor)")
    parser.add_argument("--komi", type=float, default=None)
    parser.add_argument("--size", type=int, default=9, help="initial board size (default 9)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="playout threads (default 1)")
    parser.add_argument("--search", default="rave", choices=sorted(SEARCHES),
                        help="rave: tree search with RAVE (default); uct: plain UCT")
    parser.add_argument("--exploration", type=float, default=None,
                        help="UCB1 exploration constant c (default: the search's)")
    parser.add_argument("--policy", default="uniform", choices=list(POLICIES),
                        help="playout policy (fastgo.playouts; default uniform)")
    parser.add_argument("--ponder", action="store_true",
                        help="search on the opponent's time, between a genmove and the next command")


def run_from_args(args):
    rules = Rules.preset(args.rules).replace(komi=args.komi)
    check_size(args.size, args.size)
    engine = Engine(playouts=args.playouts, seconds=args.seconds, resign=args.resign,
                    seed=args.seed, threads=args.threads, rules=rules, size=args.size,
                    exploration=args.exploration, search=args.search, policy=args.policy,
                    ponder=args.ponder)
    # answers go to stdout only; line-buffered text so each answer leaves at once
    out = open(sys.stdout.fileno(), "w", encoding="utf-8", newline="\n", closefd=False)
    return engine.run(sys.stdin.buffer, out)


if __name__ == "__main__":
    sys.exit(main())
