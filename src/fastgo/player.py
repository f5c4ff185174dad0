"""The genmove player: ``fastgo.search`` (UCT with RAVE on playouts, in C) plus the decisions a
tree search does not make: when to pass, resign and clean up, and which dead stones to remove.

The tree is kept between moves: when the board the player is asked about continues the game of
its last search (same start, the same turns and then some), the search ``advance``s through the
new turns and keeps their subtree; otherwise it starts a new tree.

Passing: when the opponent has just passed, passing ends the game, so it is judged exactly
instead of searched: the player passes if the position as it stands wins for it under the
rules' scoring and still wins with the stones the playouts call dead removed; otherwise it plays
the best move other than pass. Else it passes only when the search prefers pass and the position
as it stands already wins for it. Resigning: when the best root move's win rate is below
``resign_threshold`` once the root has at least ``resign_min_playouts`` visits (the playouts
behind the win rates, those of a subtree kept from earlier moves included; 0 disables resigning);
with resigning disabled, a position that hopeless (below 2%) after an opponent's pass is passed,
ending the game.
"""

from __future__ import annotations  # `int | None` fields on Python 3.9

import time
from dataclasses import dataclass, field

import numpy as np

from fastgo.board import Board
from fastgo.playout import (playouts as _playouts, _int, _seed, _MAX_THREADS, default_threads,
                            policy_code)
from fastgo.search import Search, SearchResult, _avoid_until
from fastgo.sgf import score as game_score, prisoners as game_prisoners

BLACK, WHITE = 1, 2


class SearchTotals:
    """One search run as several ``Search.search`` calls on the same tree (slices), summed.

    Each call's ``SearchResult`` counts only that call's playouts, seconds and ownership (its
    ownership is the mean final owner over its own playouts); ``add`` returns a copy of the
    latest result with those three made the totals since this object was made: playouts and
    seconds summed, ownership the playout-weighted mean of the slices' ownership (so the mean
    over all their playouts, as one call of that many playouts would give). The tree's fields
    (moves, visits, values, pv, root_visits...) are the tree's as it stands, kept as they are.
    A new search (a new analysis) starts a new ``SearchTotals``."""

    def __init__(self):
        self.playouts = 0
        self.seconds = 0.0
        self._owner_sum = None          # sum over the slices of playouts x mean ownership

    def add(self, result):
        self.playouts += int(result.playouts)
        self.seconds += float(result.seconds)
        # a slice of no playouts has no ownership (NaN): it weighs nothing
        if result.ownership is not None and result.playouts > 0:
            weighted = np.asarray(result.ownership, dtype=np.float64) * result.playouts
            self._owner_sum = weighted if self._owner_sum is None else self._owner_sum + weighted
        total = SearchResult(**{k: getattr(result, k) for k in SearchResult.__slots__})
        total.playouts, total.seconds = self.playouts, self.seconds
        if result.ownership is not None:
            total.ownership = (self._owner_sum / self.playouts if self._owner_sum is not None
                               else np.full(np.shape(result.ownership), np.nan))
        return total


@dataclass
class Decision:
    """What ``Player.choose`` decided and the statistics behind it.

    move: a point (pass = num_points), or None to resign. winrate: the chosen move's win rate
    for the mover. playouts: playouts this search ran. seconds: time taken. arms: (point,
    visits, win rate) of every root move, most visited first. pv: the principal variation."""

    move: int | None
    winrate: float
    playouts: int
    seconds: float
    arms: list = field(default_factory=list)
    reason: str = ""
    pv: list = field(default_factory=list)


def _check_number(name, value, low, high, integer=False, low_open=False, high_open=False):
    """ValueError/TypeError unless `value` is a (finite, integer if asked) number in range (the
    checks of Player's and the GTP engine's settings)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if integer and not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    # ints of any size compare exactly with floats (np.isfinite would refuse a huge int)
    finite = isinstance(value, (int, np.integer)) or bool(np.isfinite(value))
    if not finite or value < low or value > high or (low_open and value == low) \
            or (high_open and value == high):
        lo, hi = "(" if low_open else "[", ")" if high_open else "]"
        shown = str(value) if len(str(value)) <= 40 else f"{str(value)[:20]}...({len(str(value))} digits)"
        def bound(x):
            return str(x) if isinstance(x, int) and abs(x) >= 10**15 else f"{x:g}"
        raise ValueError(f"{name} must be in {lo}{bound(low)}, {bound(high)}{hi}, not {shown}")


def _avoid_triples(avoid, board):
    """Search's `avoid` for `board`, checked, as one canonical tuple of (colour, moves, depth)
    triples (a colour's moves grouped by the depth they are avoided to): read once, so an
    iterator is not used up, and compared as a whole to keep a tree (arrays of moves have no
    truth value)."""
    until = _avoid_until(avoid, board)
    if until is None:
        return ()
    row = board.num_points + 1
    triples = []
    for colour in (1, 2):
        depths = {}
        for move in range(row):
            depth = until[(colour - 1) * row + move]
            if depth:
                depths.setdefault(depth, []).append(move)
        triples += [(colour, tuple(moves), depth) for depth, moves in sorted(depths.items())]
    return tuple(triples)


class Player:
    """A ``fastgo.search.Search`` that plays games (see the module docstring).

    playouts: the budget per move; seconds: a time budget per move (None: none); whichever
    comes first stops the search. rave, exploration, policy ("uniform" or "heavy"), threads,
    seed, memory: the search's (``fastgo.search.Search``). resign_threshold /
    resign_min_playouts: resign below that win rate (0: never).
    """

    #: seconds of one slice of a search that reports as it goes (``think``'s `report`)
    SLICE = 0.05
    #: playouts ``choose`` runs when its time allowed none (about a millisecond on 9x9)
    MIN_PLAYOUTS = 16

    def __init__(self, playouts=10000, seconds=None, *, rave=True, exploration=None,
                 policy="uniform", resign_threshold=0.03, resign_min_playouts=500, seed=0,
                 threads=1, memory=256 * 2**20):
        # checked here, not at the first move (numpy integers taken as ints)
        self.playouts = None if playouts is None else _int(playouts, "playouts", 1, 2**62)
        # (a resign threshold of 1 would resign every move: GTP's --resign refuses it too)
        for name, value, high, low_open, high_open in [
                ("seconds", seconds, 1e9, True, False),
                ("exploration", exploration, 1e6, False, False),
                ("resign_threshold", resign_threshold, 1, False, True)]:
            if value is not None:
                _check_number(name, value, 0, high, low_open=low_open, high_open=high_open)
        self.seconds = None if seconds is None else float(seconds)
        self.rave = bool(rave)
        self.exploration = None if exploration is None else float(exploration)
        policy_code(policy)
        self.policy = policy
        self.resign_threshold = float(resign_threshold)
        self.resign_min_playouts = _int(resign_min_playouts, "resign_min_playouts", 0, 2**62)
        self.seed = _seed(seed)
        # (None: every core, as Search and playouts take it)
        self.threads = default_threads() if threads is None else _int(threads, "threads", 1, _MAX_THREADS)
        self.memory = _int(memory, "memory", 0, 2**48)
        self.last = None
        self._search = None
        self._settings = None

    # -- the tree ---------------------------------------------------------------------------------

    def _current(self):
        return (self.rave, self.exploration, self.policy, self.seed, self.threads, self.memory)

    def tree(self, board, earlier=(), avoid=()):
        """The search over `board`'s position: the kept tree advanced through the turns played
        since, or a new one. `earlier`: as ``choose``'s (their prisoners count in the search's
        results under territory scoring); `avoid`: ``Search``'s (a tree under other avoid
        triples is not kept)."""
        s = self._search
        prisoners = game_prisoners(earlier)
        avoid = _avoid_triples(avoid, board)
        settings = self._current() + (avoid,)
        if s is not None and self._settings == settings and s.prisoners == prisoners:
            root = s.board
            done = root.history
            if board.history[:len(done)] == done and len(board.history) >= len(done):
                try:
                    for move in board.history[len(done):]:
                        s.advance(move)
                except ValueError:
                    s = None
                if s is not None and s.board == board:
                    return s
        self._search = Search(board, threads=self.threads, seed=self.seed % 2**64,
                              rave=self.rave, exploration=self.exploration, policy=self.policy,
                              memory=self.memory, ownership=True, prisoners=prisoners,
                              avoid=avoid)
        self._settings = settings
        return self._search

    def think(self, board, *, playouts=None, seconds=None, report=None, earlier=(), avoid=()):
        """Search `board`'s position (the kept tree grows) and return the ``SearchResult``.

        With `report`, the search runs as slices of at most ``SLICE`` seconds on the same tree
        until `playouts` playouts in all or `seconds` since the start (the first reached; one is
        required), calling ``report(result, final)`` after each slice with the totals so far
        (``SearchTotals``; `final` True after the last), and returns the last of those. With one
        thread and a playout budget this is the very search one call would make (playout i of
        a tree's life draws from its own generator, seeded by (seed, i), whatever the calls),
        so the same tree, ownership and move; a time budget differs only as any two timed
        searches do (and the reports' time counts against it). `earlier`, `avoid`: as
        ``choose``'s."""
        tree = self.tree(board, earlier, avoid)
        if report is None:
            return tree.search(playouts=playouts, seconds=seconds)
        if playouts is None and seconds is None:
            raise ValueError("give a limit: playouts or seconds")
        totals, t0 = SearchTotals(), time.monotonic()
        while True:
            left = None if playouts is None else playouts - totals.playouts
            cut = self.SLICE if seconds is None else max(0.0, min(self.SLICE, seconds - (time.monotonic() - t0)))
            result = totals.add(tree.search(playouts=left, seconds=cut))
            # (a full tree, MAX_VISITS at its root, takes no more: its searches return at once)
            final = ((playouts is not None and totals.playouts >= playouts)
                     or (seconds is not None and time.monotonic() - t0 >= seconds)
                     or tree.full)
            report(result, final)
            if final:
                return result

    # -- dead stones ------------------------------------------------------------------------------

    def ownership(self, board, n=1000, policy=None, seed=None):
        """Mean owner of each point (+1 Black, -1 White), float [height, width], over `n`
        playouts of `policy` (default the player's) from `board`'s position alone (a finished
        game is not continued); `seed` the playouts' (default: one from the player's)."""
        start = Board.from_array(board.stones(), to_move=board.to_move, rules=board.rules)
        if seed is None:
            seed = (self.seed * 1_000_003 + 7) % 2**64
        return np.asarray(_playouts(start, n, seed=seed, threads=1, ownership=True,
                                    policy=self.policy if policy is None else policy).ownership)

    def dead_stones(self, board, n=1000):
        """Points of the chains that `n` playouts of the heavy policy from `board`'s position
        end, on balance, with the opponent owning (the chain's mean ownership leans to the
        opponent): a dead-stone estimate for scoring; seki is not recognised as such. The
        playouts' seed is the position's (its colouring's hash and the player to move), not the
        player's: two players, whatever their seeds, judge a position alike (two engines' GTP
        ``final_score`` of a game agree).

        Whole chains, heavy playouts (which take a chain in atari and avoid self-atari): in
        GNU Go 3.8 level-1 self-play games on 9x9 (Chinese rules), the score with these dead
        stones removed was GNU Go's ``final_score`` in 40 of 40 (seeds 1-40) and 39 of 40
        (seeds 100-139, a reviewer's), judged stone by stone over 400 uniform playouts, with
        70% of them needed, in 27 and 29 (benchmarks/RESULTS.md)."""
        own = self.ownership(board, n, policy="heavy",
                             seed=(board.hash ^ board.to_move * 0x9E3779B97F4A7C15) % 2**64).ravel()
        g = board.stones().ravel()
        dead, seen = [], np.zeros(g.size, dtype=bool)
        for p in np.flatnonzero(g).tolist():
            if seen[p]:
                continue
            stones = list(board.chain(p).stones)
            seen[stones] = True
            lean = own[stones].mean() * (1 if g[p] == BLACK else -1)
            if lean < 0:
                dead += stones
        return sorted(dead)

    def estimated_score(self, board, n=1000, earlier=()):
        """``board.score`` (the board's rules' scoring) with the estimated dead stones removed;
        `earlier`: the finished parts of a resumed game, whose prisoners count under territory
        scoring (``fastgo.sgf.score``)."""
        return game_score(board, earlier, self.dead_stones(board, n))

    # -- a move -----------------------------------------------------------------------------------

    def choose(self, board, *, playouts=None, seconds=None, cleanup=False, report=None,
               earlier=(), avoid=()):
        """Pick a move for the side to move on `board` (not changed). Returns a ``Decision``.

        `earlier`: the finished parts of a game resumed after two passes (GTP's, an SGF
        record's ``Game.segments`` before the last), whose prisoners count in the score that
        decides a pass under territory scoring (``fastgo.sgf.score``).

        `cleanup` (KGS's ``kgs-genmove_cleanup``): pass only after an opponent's pass when no
        opponent stone the playouts call dead is left (or when no other move is left); never
        resign. `report`: ``think``'s, called as the search goes (not at all when the move is
        decided without one: a pass that wins). `avoid`: ``Search``'s triples, the moves the
        search leaves out (KataGo's and Leela Zero's ``avoid`` and ``allow``): an avoided pass
        is not chosen while another move is left. A finished game (two passes) has no move to
        choose: ValueError."""
        if not isinstance(board, Board):
            raise TypeError(f"board must be a fastgo.Board, not {type(board).__name__}")
        t0 = time.perf_counter()
        budget = self.playouts if playouts is None else playouts
        seconds = self.seconds if seconds is None else seconds
        if board.is_over:       # (a Decision's None move would read as a resignation)
            raise ValueError("the game is over (two passes): there is no move to choose; play "
                             "on from its stones with Board.from_array(board.stones(), "
                             "to_move=..., rules=board.rules)")
        me = board.to_move
        pass_move = board.num_points
        opponent_passed = board.consecutive_passes > 0
        avoid = _avoid_triples(avoid, board)    # (checked before any search; read once)
        pass_avoided = any(c == me and pass_move in moves for c, moves, _ in avoid)

        def stop(reason, winrate=float("nan")):
            return self._done(Decision(pass_move, winrate, 0, time.perf_counter() - t0, [], reason))

        may_pass = game_score(board, earlier).winner == me
        if cleanup:
            g = board.stones().ravel()
            theirs_dead = any(g[p] == 3 - me for p in self.dead_stones(board))
            if not theirs_dead and opponent_passed:
                return stop("cleanup: nothing to capture")
            # otherwise answer every move with a move: the opponent is capturing what it thinks
            # dead, and the clean-up is scored by area, where playing inside one's own area
            # costs nothing
            may_pass = False
        elif opponent_passed:
            # passing ends the game: judge it exactly instead of playing it out
            if (may_pass and not pass_avoided
                    and self.estimated_score(board, earlier=earlier).winner == me):
                return stop("pass wins", 1.0)
            may_pass = False
        r = self.think(board, playouts=budget, seconds=seconds, report=report, earlier=earlier,
                       avoid=avoid)
        if r.playouts == 0 and r.root_visits == 0:
            # a time budget too short for one playout (a clock nearly run out): a few playouts
            # still, for a move; a pass from a search that saw nothing could end a lost game
            r = self.think(board, playouts=self.MIN_PLAYOUTS, earlier=earlier, avoid=avoid)
        order = sorted(range(len(r.moves)), key=lambda i: (-r.visits[i], -np.nan_to_num(r.values[i], nan=-1), i))
        arms = [(int(r.moves[i]), int(r.visits[i]), float(r.values[i])) for i in order]
        choices = [a for a in arms if a[0] != pass_move or may_pass]
        if not choices or (choices[0][0] == pass_move and len(arms) == 1):
            return self._done(Decision(pass_move, float("nan"), r.playouts, time.perf_counter() - t0,
                                       arms, "no move left", r.pv))
        move, _, rate = choices[0]
        decision = Decision(move, rate, r.playouts, time.perf_counter() - t0, arms, "", r.pv)
        total = r.root_visits   # (the children's visits sum to one fewer: the root's own first)
        best = max(np.nan_to_num(r.values, nan=0.0))
        if total >= self.resign_min_playouts and best < max(self.resign_threshold, 0.02) and not cleanup:
            if self.resign_threshold > 0 and best < self.resign_threshold:
                decision.move, decision.reason = None, "resign"
            elif opponent_passed:
                # the game is lost either way: end it rather than fill our own eyes and area
                decision.move, decision.reason = pass_move, "hopeless: pass"
        return self._done(decision)

    def _done(self, decision):
        self.last = decision
        return decision
