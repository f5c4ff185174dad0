"""Demo Go players on ``fastgo.playouts``: flat Monte Carlo, UCT, and UCT with RAVE.

These demonstrate the library; they are not strong programs. The candidate moves are every legal
point that is not a one-point true eye of the mover, and pass. A batch of random playouts
(``fastgo.playouts``: uniform random legal moves that do not fill the mover's own true eyes, to
two passes, scored under the board's rules) is the evaluation.

- ``MonteCarloPlayer`` (flat): each root move is an arm of a bandit; pulling an arm plays the
  move on a copy of the board and runs a batch of playouts; UCB1 (mean win rate
  + c * sqrt(ln N / n)) picks the arm to pull next.
- ``TreePlayer`` (UCT): the same UCB1 at every node of a tree grown one node per iteration.
- ``RavePlayer``: UCT whose values mix in all-moves-as-first statistics (RAVE).

Each searches until its budget of playouts or seconds is spent and plays the root move with
the most playouts (ties: the higher win rate, then a point before pass).

Passing: when the opponent has just passed, passing ends the game, so it is judged exactly
instead of searched: the player passes if the position as it stands wins for it under the
rules' scoring (area unless the rules say territory) and still wins with the stones the playouts
call dead removed; otherwise pass is left out
and it plays on. Else pass is a candidate only when the position as it stands already wins for
the mover: a pass gets no all-moves-as-first samples, and on a small budget the search would
otherwise pass on an empty board and hand the opponent a free move. Resigning: when the best root move's win rate is
below ``resign_threshold`` after at least ``resign_min_playouts`` playouts (0 disables
resigning); with resigning disabled, a position that hopeless (below 2%) after an opponent's pass
is passed, ending the game.
"""

from __future__ import annotations  # `int | None` fields on Python 3.9

import math
import time
from dataclasses import dataclass, field

import numpy as np

from fastgo.board import Board

BLACK, WHITE = 1, 2


def _default_playouts(board, n, *, seed, threads, ownership=False, record=0):
    # fastgo.playouts is the contract; fastgo.playout.playouts is where the kernel lives
    import fastgo
    fn = getattr(fastgo, "playouts", None)
    if fn is None:
        from fastgo.playout import playouts as fn
    return fn(board, n, seed=seed, threads=threads, ownership=ownership, record=record)


def own_eye_mask(board):
    """Bool [points]: empty points whose on-board neighbours are all the mover's stones and
    whose diagonals hold fewer than two opponent stones (none on the edge or in a corner) -- the
    playout policy's true eye, which neither playouts nor the root search fill."""
    g = board.stones()
    me, opp = board.to_move, 3 - board.to_move
    h, w = g.shape
    pad = np.full((h + 2, w + 2), 3, dtype=np.int8)          # 3: off the board
    pad[1:-1, 1:-1] = g
    orth = [pad[:-2, 1:-1], pad[2:, 1:-1], pad[1:-1, :-2], pad[1:-1, 2:]]
    diag = [pad[:-2, :-2], pad[:-2, 2:], pad[2:, :-2], pad[2:, 2:]]
    eye = g == 0
    for n in orth:
        eye &= (n == me) | (n == 3)
    bad = sum((d == opp).astype(np.int8) for d in diag)
    edge = sum((d == 3).astype(np.int8) for d in diag) > 0
    eye &= np.where(edge, bad == 0, bad < 2)
    return eye.ravel()


@dataclass
class Decision:
    """What ``MonteCarloPlayer.choose`` decided and the statistics behind it.

    move: a point (pass = num_points), or None to resign. winrate: the chosen arm's mean win
    rate for the mover. playouts: playouts run. seconds: time taken. arms: (point, pulls in
    playouts, win rate) of every arm, most pulled first."""

    move: int | None
    winrate: float
    playouts: int
    seconds: float
    arms: list = field(default_factory=list)
    reason: str = ""


class MonteCarloPlayer:
    """Flat Monte Carlo with UCB1 over the root moves (see the module docstring).

    playouts: the budget of playouts per move; seconds: a time budget per move (None: none);
    the search stops at whichever comes first. batch: playouts per pull. exploration: UCB1's c.
    resign_threshold / resign_min_playouts: resign below that win rate (0: never). seed: the
    base seed (each move's playouts get seeds derived from it and the move number). threads:
    passed to ``fastgo.playouts`` (1 suits the small batches). playout_fn: a stand-in with
    ``fastgo.playouts``'s signature, for tests.
    """

    def __init__(self, playouts=3000, seconds=None, *, batch=16, exploration=1.0,
                 resign_threshold=0.03, resign_min_playouts=500, seed=0, threads=1,
                 playout_fn=None):
        self.playouts = playouts
        self.seconds = seconds
        self.batch = batch
        self.exploration = exploration
        self.resign_threshold = resign_threshold
        self.resign_min_playouts = resign_min_playouts
        self.seed = seed
        self.threads = threads
        self.playout_fn = playout_fn or _default_playouts
        self.last = None

    def _run(self, board, n, seed, ownership=False):
        return self.playout_fn(board, n, seed=seed, threads=self.threads, ownership=ownership)

    def dead_stones(self, board, n=200):
        """Points of stones that at least 70% of `n` playouts from `board` end with the
        opponent owning, a dead-stone estimate for scoring (seki is not recognised)."""
        # from the position alone: playouts from a finished game (two passes) would end at once
        # and see every stone alive
        start = Board.from_array(board.stones(), to_move=board.to_move, rules=board.rules)
        res = self._run(start, n, (self.seed * 1_000_003 + 7) % 2**64, ownership=True)
        own = np.asarray(res.ownership).ravel()
        g = board.stones().ravel()
        dead = ((g == BLACK) & (own < -0.4)) | ((g == WHITE) & (own > 0.4))
        return np.flatnonzero(dead).tolist()

    def estimated_score(self, board, n=200):
        """``board.score`` (the board's rules' scoring) with the estimated dead stones removed."""
        return board.score(dead=self.dead_stones(board, n))

    def choose(self, board, *, playouts=None, seconds=None, cleanup=False):
        """Pick a move for the side to move on `board` (not changed). Returns a ``Decision``.

        `cleanup` (KGS's ``kgs-genmove_cleanup``): never pass while opponent stones the playouts
        call dead are on the board, and pass as soon as there are none after an opponent's pass;
        never resign."""
        t0 = time.perf_counter()
        budget = self.playouts if playouts is None else playouts
        seconds = self.seconds if seconds is None else seconds
        deadline = None if seconds is None else t0 + seconds
        me = board.to_move
        npts = board.num_points
        pass_move = npts
        if board.is_over:
            return Decision(None, 0.0, 0, 0.0, reason="game over")
        mask = board.legal_mask()
        mask[:npts] &= ~own_eye_mask(board)
        points = np.flatnonzero(mask[:npts]).tolist()
        history = board.history
        opponent_passed = bool(history) and history[-1] == pass_move
        base_seed = (self.seed * 0x9E3779B1 + 1_000_003 * len(history)) % 2**63

        if cleanup:
            dead = self.dead_stones(board)
            g = board.stones().ravel()
            theirs_dead = any(g[p] == 3 - me for p in dead)
            if not points or (not theirs_dead and opponent_passed):
                return self._done(Decision(pass_move, float("nan"), 0, time.perf_counter() - t0,
                                           [], "cleanup: nothing to capture"))
            arms = points if theirs_dead else points + [pass_move]
        elif opponent_passed:
            # passing ends the game: judge it exactly instead of playing it out
            won = board.score().winner == me and self.estimated_score(board).winner == me
            if won or not points:
                return self._done(Decision(pass_move, 1.0 if won else 0.0, 0,
                                           time.perf_counter() - t0, [], "pass wins" if won else
                                           "no move left"))
            arms = points                            # passing would lose: play on
        else:
            if not points:
                return self._done(Decision(pass_move, float("nan"), 0, time.perf_counter() - t0,
                                           [], "no move left"))
            # pass only where the position as it stands wins already (see the module docstring)
            arms = points + [pass_move] if board.score().winner == me else points
        pulls, wins, total = self._search(board, arms, me, budget, deadline, base_seed)
        rates = np.where(pulls > 0, wins / np.maximum(pulls, 1), -1.0)
        # most pulled; ties by win rate, then a point before pass (pass is the last arm)
        order = sorted(range(len(arms)), key=lambda i: (-pulls[i], -rates[i], i))
        best = order[0]
        decision = Decision(arms[best], float(rates[best]), total, time.perf_counter() - t0,
                            [(arms[i], int(pulls[i]), float(rates[i])) for i in order])
        hopeless = total >= self.resign_min_playouts and max(rates) < max(self.resign_threshold, 0.02)
        if hopeless and not cleanup:
            if self.resign_threshold > 0 and max(rates) < self.resign_threshold:
                decision.move, decision.reason = None, "resign"
            elif opponent_passed:
                # the game is lost either way: end it rather than fill our own eyes and area
                decision.move, decision.reason = pass_move, "hopeless: pass"
        return self._done(decision)

    def _done(self, decision):
        self.last = decision
        return decision

    def _simulate(self, board, seed, me):
        """(wins for `me`, ties counting half; playouts run) of one batch from `board`."""
        res = self._run(board, self.batch, seed % 2**64)
        w = np.asarray(res.winners)
        if not len(w):
            raise ValueError("the playout function returned no playouts")
        return np.count_nonzero(w == me) + 0.5 * np.count_nonzero(w == 0), len(w)

    def _search(self, board, arms, me, budget, deadline, base_seed):
        """Flat UCB1 over the root `arms`: (pulls, wins, playouts) per arm."""
        pulls = np.zeros(len(arms), dtype=np.int64)
        wins = np.zeros(len(arms), dtype=np.float64)
        children = []
        for p in arms:
            c = board.copy()
            c.play(p)
            children.append(c)
        total = 0

        def pull(i):
            nonlocal total
            won, n = self._simulate(children[i], base_seed + total * 0x632BE5AB + i, me)
            wins[i] += won
            pulls[i] += n
            total += n

        for i in range(len(arms)):
            pull(i)
            if deadline is not None and time.perf_counter() > deadline:
                break
        while total < budget:
            if deadline is not None and time.perf_counter() > deadline:
                break
            safe = np.maximum(pulls, 1)
            ucb = wins / safe + self.exploration * np.sqrt(np.log(max(total, 2)) / safe)
            ucb[pulls == 0] = np.inf
            pull(int(np.argmax(ucb)))
        return pulls, wins, total


def candidate_moves(board):
    """The moves a search considers at `board`: legal points that are not one-point true eyes
    of the mover, and pass; none once the game is over."""
    if board.is_over:
        return []
    mask = board.legal_mask()
    n = board.num_points
    mask[:n] &= ~own_eye_mask(board)
    return np.flatnonzero(mask).tolist()


class _Node:
    """A tree node: its candidate moves and, per move, playouts, wins for the mover here and
    the child node (made on the second visit)."""

    __slots__ = ("mover", "moves", "n", "w", "kids", "total")

    def __init__(self, mover, moves):
        self.mover = mover
        self.moves = moves
        self.n = np.zeros(len(moves), dtype=np.float64)
        self.w = np.zeros(len(moves), dtype=np.float64)
        self.kids = [None] * len(moves)
        self.total = 0


class TreePlayer(MonteCarloPlayer):
    """UCT (Monte Carlo tree search with UCB1 at every node) on the same playouts, root rules
    (exact pass judgement, clean-up, resigning) and budget as ``MonteCarloPlayer``.

    Each iteration walks down from the root by UCB1 (unvisited moves first, in a random
    order), plays the chosen moves on a copy of the board, adds a node the second time a move
    is reached, runs a batch of playouts from where the walk stopped and adds the wins to
    every move on the way (for the side that played it). A finished game (two passes) is a
    leaf scored as it stands.
    """

    def __init__(self, playouts=10000, seconds=None, *, batch=8, exploration=0.7, **kw):
        super().__init__(playouts, seconds, batch=batch, exploration=exploration, **kw)

    def _search(self, board, arms, me, budget, deadline, base_seed):
        rng = np.random.default_rng(base_seed)
        root = _Node(me, list(arms))
        # visit the root moves in a random order first (ties of unvisited moves go to the first)
        order = rng.permutation(len(arms))
        root.moves = [arms[i] for i in order]
        total = 0
        c = self.exploration
        while total < budget:
            if deadline is not None and time.perf_counter() > deadline and total > 0:
                break
            b = board.copy()
            node = root
            path = []
            while True:
                if not node.moves:
                    break                                 # game over: score it as it stands
                if node.total == 0:
                    i = 0
                else:
                    unvisited = np.flatnonzero(node.n == 0)
                    if len(unvisited):
                        i = int(unvisited[0])
                    else:
                        ucb = node.w / node.n + c * np.sqrt(math.log(node.total) / node.n)
                        i = int(np.argmax(ucb))
                b.play(node.moves[i])
                path.append((node, i))
                if node.n[i] == 0:
                    break                                 # a new leaf: play out from here
                if node.kids[i] is None:
                    moves = candidate_moves(b)
                    rng.shuffle(moves)
                    node.kids[i] = _Node(b.to_move, moves)
                node = node.kids[i]
            won, n = self._simulate(b, base_seed + total * 0x632BE5AB, me)
            for nd, i in path:
                nd.n[i] += n
                nd.w[i] += won if nd.mover == me else n - won
                nd.total += n
            total += n
        # report per root arm in the caller's order
        index = {m: k for k, m in enumerate(root.moves)}
        pulls = np.array([root.n[index[m]] for m in arms], dtype=np.int64)
        wins = np.array([root.w[index[m]] for m in arms], dtype=np.float64)
        return pulls, wins, total


class RavePlayer(TreePlayer):
    """UCT with RAVE (rapid action value estimation, Gelly and Silver 2007) on the same
    playouts and root rules.

    Every node also keeps all-moves-as-first statistics: after each playout, every point whose
    first play from that node on (in the tree and the playout) was the node's mover's counts as
    a sample of that move. A move's value mixes its own win rate q and its AMAF win rate a as
    (1 - beta) q + beta a with beta = sqrt(k / (3 n + k)), n its playouts and k
    ``equivalence``, plus the UCB1 term c sqrt(ln N / (n + 1)); so unvisited moves are ranked
    by AMAF instead of all being tried once. Costs a recorded move list per playout.
    """

    def __init__(self, playouts=10000, seconds=None, *, batch=8, exploration=0.1,
                 equivalence=1000, **kw):
        super().__init__(playouts, seconds, batch=batch, exploration=exploration, **kw)
        self.equivalence = equivalence

    def _search(self, board, arms, me, budget, deadline, base_seed):
        rng = np.random.default_rng(base_seed)
        npts = board.num_points
        order = rng.permutation(len(arms))
        root = _RaveNode(me, [arms[i] for i in order], npts)
        first = np.full(npts + 1, _UNPLAYED, dtype=np.int64)
        total = 0
        c, k = self.exploration, float(self.equivalence)
        while total < budget:
            if deadline is not None and time.perf_counter() > deadline and total > 0:
                break
            b = board.copy()
            node = root
            path = []
            while node.moves:
                beta = np.sqrt(k / (3 * node.n + k))
                # no information yet: the node's mean (a pass never gets AMAF samples; a fixed
                # 0.5 would favour it whenever the mover is behind)
                mean = node.w.sum() / node.total if node.total else 0.5
                q = np.where(node.n > 0, node.w / np.maximum(node.n, 1), mean)
                a = np.where(node.an > 0, node.aw / np.maximum(node.an, 1), q)
                value = ((1 - beta) * q + beta * a
                         + c * np.sqrt(math.log(node.total + 1) / (node.n + 1)))
                i = int(np.argmax(value))
                b.play(node.moves[i])
                path.append((node, i))
                if node.n[i] == 0:
                    break
                if node.kids[i] is None:
                    moves = candidate_moves(b)
                    rng.shuffle(moves)
                    node.kids[i] = _RaveNode(b.to_move, moves, npts)
                node = node.kids[i]
            res = self.playout_fn(b, self.batch, seed=(base_seed + total * 0x632BE5AB) % 2**64,
                                  threads=self.threads, record=self.batch)
            winners = np.asarray(res.winners)
            if not len(winners):
                raise ValueError("the playout function returned no playouts")
            for j, winner in enumerate(winners.tolist()):
                _backup(path, np.asarray(res.moves[j], dtype=np.int64), winner, first)
            total += len(winners)
        index = {m: j for j, m in enumerate(root.moves)}
        pulls = np.array([root.n[index[m]] for m in arms], dtype=np.int64)
        wins = np.array([root.w[index[m]] for m in arms], dtype=np.float64)
        return pulls, wins, total


_UNPLAYED = 1 << 40


def _backup(path, tail, winner, first):
    """Credit one playout to the (node, move index) pairs of `path` (root first): the move's
    playouts and wins, and the AMAF samples of every node. `tail` holds the playout's turns
    after the path's; `winner` is 0, 1 or 2; `first` is scratch: int64 [points + 1], all
    ``_UNPLAYED``, and left so.

    AMAF: a node's move m gets a sample when, counting the turns from that node on (the path
    below it, then the playout), the first play at point m was made by the node's mover (an
    even offset); passes get none."""
    depth = len(path)
    # first[p]: the first turn, counted from the root, at or after the node being credited, at
    # which p was played; set for the playout, then extended upwards through the path
    u, at = np.unique(tail, return_index=True)
    first[u] = at + depth
    for d in range(depth - 1, -1, -1):
        nd, i = path[d]
        first[nd.moves[i]] = d
        won = 1.0 if winner == nd.mover else 0.5 if winner == 0 else 0.0
        nd.n[i] += 1
        nd.w[i] += won
        nd.total += 1
        f = first[nd.points] - d
        hit = (f % 2 == 0) & (f < _UNPLAYED - d) & nd.not_pass
        nd.an[hit] += 1
        nd.aw[hit] += won
    first[tail] = _UNPLAYED
    for nd, i in path:
        first[nd.moves[i]] = _UNPLAYED


class _RaveNode(_Node):
    __slots__ = ("an", "aw", "points", "not_pass")

    def __init__(self, mover, moves, npts):
        super().__init__(mover, moves)
        self.an = np.zeros(len(moves), dtype=np.float64)
        self.aw = np.zeros(len(moves), dtype=np.float64)
        self.points = np.asarray(moves, dtype=np.int64)
        self.not_pass = self.points != npts
