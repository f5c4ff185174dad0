"""A bulk simulation as data: what to play (``Simulation``), its cut into chunks of game indices,
one chunk played (``play_chunk``), and the exact, mergeable statistics of any set of chunks
(``Tally``).

Game i of a run is playout i of ``fastgo.playouts(board, seed=seed)``: its random stream depends
on (seed, i) alone (``playout_seed`` in the kernel), so a chunk [start, stop) played anywhere, on
any number of threads, any number of times, gives the same games, and the statistics of a run are
the sum of its chunks' whatever the partition, the machines or the order they finish in.
"""

from __future__ import annotations  # `X | None` on Python 3.9

import bisect
import hashlib
import json
import math
import time
from typing import TYPE_CHECKING, Any, Callable, Mapping, NoReturn, Sequence, SupportsIndex

import numpy as np
import numpy.typing as npt

from fastgo.board import Board
from fastgo.coords import _flag
from fastgo.errors import IllegalMoveError, Slotted
from fastgo.playout import _int, ko_choice, playouts, policy_code
from fastgo.rules import Rules

if TYPE_CHECKING:
    from fastgo.board import Move

#: the version of a spec's and a shard's layout; a directory written by another is refused
#: (2: the spec names its playout policy)
FORMAT = 2
#: games per kernel call when every game's moves are kept (the call's move buffer is games x cap)
_RECORD_BLOCK = 4096


def json_sha256(value: Any) -> str:
    """SHA-256 (hex) of `value`'s canonical JSON (sorted keys, no spaces): a run's fingerprint,
    and the checksum a count checkpoint's JSON files carry of their other fields
    (``fastgo.count``)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Simulation:
    """What a bulk run plays and keeps; immutable once made.

    board       the start position (a ``Board``, copied; ``Simulation.new`` makes an empty one)
    games       how many games: indices 0 .. games - 1
    seed        game i is playout i of ``fastgo.playouts(board, seed=seed)`` (0 .. 2**64 - 1:
                a run's spec names one seed, not its residue)
    ko, max_moves, policy   as for ``fastgo.playouts`` (max_moves None: the kernel's default
                cap; policy "uniform" or "heavy"); a ko other than "rules" is the rule the
                games are played and replayed under (``played_board``)
    ownership   sum who owns each point at the end (+1 Black, -1 White)
    first_moves count wins by the first move each game played
    records     keep every game (moves, score, winner, length, capped) in the shards
    sgf         also write each shard's games as an SGF collection (needs records)
    chunk       games per chunk (None: chosen when the run starts, from a speed probe, and then
                written to the run's manifest so that a resume cuts the same chunks)
    """

    __slots__ = ("board", "games", "seed", "ko", "max_moves", "policy", "ownership",
                 "first_moves", "records", "sgf", "chunk")
    board: Board
    games: int
    seed: int
    ko: str
    max_moves: int | None
    policy: str
    ownership: bool
    first_moves: bool
    records: bool
    sgf: bool
    chunk: int | None

    def __init__(self, board: Board, games: SupportsIndex, *, seed: SupportsIndex = 0,
                 ko: str = "rules", max_moves: SupportsIndex | None = None,
                 policy: str = "uniform", ownership: bool = True, first_moves: bool = False,
                 records: bool = False, sgf: bool = False,
                 chunk: SupportsIndex | None = None) -> None:
        if not isinstance(board, Board):
            raise TypeError(f"board must be a fastgo.Board, not {type(board).__name__}")
        set_ = object.__setattr__
        set_(self, "board", board.copy())
        set_(self, "games", _int(games, "games", 0, 2**62))
        set_(self, "seed", _int(seed, "seed", 0, 2**64 - 1))
        set_(self, "ko", ko_choice(ko))
        if ko != "rules":
            self.played_board()             # (its history must stand under that ko rule)
        set_(self, "max_moves", None if max_moves is None else _int(max_moves, "max_moves", 0, 1_000_000))
        policy_code(policy)                 # "uniform" or "heavy", else ValueError
        set_(self, "policy", policy)
        set_(self, "ownership", _flag(ownership, "ownership"))
        set_(self, "first_moves", _flag(first_moves, "first_moves"))
        set_(self, "records", _flag(records, "records"))
        set_(self, "sgf", _flag(sgf, "sgf"))
        if self.sgf and not self.records:
            raise ValueError("sgf=True writes the recorded games: it needs records=True")
        set_(self, "chunk", None if chunk is None else _int(chunk, "chunk", 1, 2**31 - 1))

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("a Simulation is immutable: make another with .replace()")

    @classmethod
    def new(cls, games: SupportsIndex, width: SupportsIndex = 9,
            height: SupportsIndex | None = None, *, rules: Rules | str | None = None,
            komi: float | None = None, handicap: SupportsIndex | Sequence[Move] = 0,
            **options: Any) -> Simulation:
        """A run from the empty board of the given size and rules (a ``Rules`` or a preset name;
        komi and handicap as for ``Board``); options as for ``Simulation``."""
        return cls(Board(width, height, rules=rules, komi=komi, handicap=handicap), games, **options)

    def replace(self, **changes: Any) -> Simulation:
        """A copy with some fields changed."""
        fields = {k: getattr(self, k) for k in self.__slots__ if k not in ("board", "games")}
        fields.update(changes)
        return Simulation(fields.pop("board", self.board), fields.pop("games", self.games), **fields)

    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], Simulation], tuple[dict[str, Any]]]:
        return (_from_dict, (self.to_dict(),))

    @property
    def cap(self) -> int:
        """The cap of turns per game the kernel applies."""
        n = self.board.num_points
        return max(3 * n, 1000) if self.max_moves is None else self.max_moves

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description from which ``from_dict`` rebuilds the same run."""
        b = self.board
        r = b.rules
        d = {k: getattr(self, k) for k in self.__slots__ if k != "board"}
        d["format"] = FORMAT
        d["board"] = {"width": b.width, "height": b.height,
                      "rules": {"ko": r.ko, "suicide": r.suicide, "scoring": r.scoring, "komi": r.komi},
                      "setup": b.start_position().tolist(), "first": int(b.first_player),
                      "history": [int(m) for m in b.history]}
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Simulation:
        """The run ``to_dict`` described; anything else (another format, a missing or
        malformed field, an illegal history) raises ValueError."""
        if not isinstance(d, dict):
            raise ValueError(f"a simulation spec is a dict, not {type(d).__name__}")
        if d.get("format") != FORMAT:
            raise ValueError(f"a simulation spec of format {d.get('format')!r}; this fastgo reads {FORMAT}")
        try:
            bd = d["board"]
            setup = np.array(bd["setup"], dtype=np.int64).reshape(bd["height"], bd["width"])
            board = Board.from_array(setup, to_move=bd["first"], rules=Rules(**bd["rules"]))
            for m in bd["history"]:
                board.play(m)
            fields = {k: d[k] for k in cls.__slots__ if k not in ("board", "games")}
            return cls(board, d["games"], **fields)
        except (KeyError, TypeError, AttributeError, IndexError, OverflowError) as e:
            raise ValueError(f"not a simulation spec: {type(e).__name__}: {e}") from None

    def played_board(self) -> Board:
        """The start position under the rules the games are played by (a new Board each call):
        a copy of `board`, or with ko other than "rules" the same position under
        ``board.rules.replace(ko=ko)`` (set-up, first player and history replayed), which
        records and SGF shards replay the games on. ValueError when the history breaks that
        ko rule."""
        b = self.board
        if self.ko == "rules" or self.ko == b.rules.ko:
            return b.copy()             # (the spec's own stays as it was made)
        played = Board.from_array(b.start_position(), to_move=b.first_player,
                                  rules=b.rules.replace(ko=self.ko))
        for k, m in enumerate(b.history):
            try:
                played.play(m)
            except IllegalMoveError as e:
                raise ValueError(f"ko={self.ko!r}: turn {k + 1} of the board's history breaks "
                                 f"that rule ({e.reason})") from None
        return played

    def fingerprint(self) -> str:
        """SHA-256 (hex) of the canonical JSON of ``to_dict``: equal for equal runs."""
        return json_sha256(self.to_dict())

    def differences(self, other: Simulation) -> dict[str, tuple[Any, Any]]:
        """{field: (this run's value, other's)} for each field in which this run differs from
        `other`, the board's by their own names (e.g. "board.rules.komi")."""
        a, b = _flat(self.to_dict()), _flat(other.to_dict())
        return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Simulation):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def chunks(self) -> list[tuple[int, int]]:
        """The chunks [start, stop) of game indices, in order; every one `chunk` games but the
        last."""
        if self.chunk is None:
            raise ValueError("this Simulation has no chunk size yet: set chunk=")
        return [(a, min(a + self.chunk, self.games)) for a in range(0, self.games, self.chunk)]

    def chunk_count(self) -> int:
        """How many chunks `chunks()` lists, without listing them."""
        if self.chunk is None:
            raise ValueError("this Simulation has no chunk size yet: set chunk=")
        return -(-self.games // self.chunk)

    def __repr__(self) -> str:
        b = self.board
        return (f"<Simulation {self.games:,} games on {b.width}x{b.height} ({b.rules}), seed "
                f"{self.seed}, ko {self.ko}, policy {self.policy}, chunk {self.chunk}>")


def _from_dict(d: dict[str, Any]) -> Simulation:
    return Simulation.from_dict(d)


def _flat(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested dict as one level, its keys joined by dots."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _wilson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """fastgo.count's Wilson score interval for k successes in n trials (NaN for none)."""
    from fastgo.count import wilson_interval
    return wilson_interval(k, n, confidence) if n else (float("nan"), float("nan"))


class Tally(Slotted):
    """The statistics of a set of chunks of one run, merged exactly (integer sums):

    games         games counted
    wins          int64[3]: ties, Black's wins, White's wins
    capped        games stopped by the cap of turns
    scores        {score: games}: Black minus White, komi included (in no particular order)
    lengths       int64[cap + 1]: games by turns played, passes included
    ownership     int64[height, width]: the sum over games of +1 (Black owns the point at the
                  end) / -1 (White) / 0, or None when not asked for
    first_moves   int64[points + 1, 3]: games by first move (row `points`: a pass) and result
                  (columns as `wins`), or None; a game of no turns (the start was over) has none
    chunks        the chunks counted, sorted; a merge refuses one counted twice
    """

    __slots__ = ("games", "wins", "capped", "scores", "lengths", "ownership", "first_moves", "chunks")

    def __init__(self, games: int, wins: npt.NDArray[np.int64], capped: int,
                 scores: dict[float, int], lengths: npt.NDArray[np.int64],
                 ownership: npt.NDArray[np.int64] | None, first_moves: npt.NDArray[np.int64] | None,
                 chunks: list[tuple[int, int]]) -> None:
        self.games = games
        self.wins = wins
        self.capped = capped
        self.scores = scores
        self.lengths = lengths
        self.ownership = ownership
        self.first_moves = first_moves
        self.chunks = chunks

    @classmethod
    def empty(cls, spec: Simulation) -> Tally:
        b = spec.board
        return cls(0, np.zeros(3, np.int64), 0, {}, np.zeros(spec.cap + 1, np.int64),
                   np.zeros((b.height, b.width), np.int64) if spec.ownership else None,
                   np.zeros((b.num_points + 1, 3), np.int64) if spec.first_moves else None, [])

    def merge(self, other: Tally) -> Tally:
        """Add `other`'s counts to this tally (in place) and return it. Raises ValueError if a
        chunk would be counted twice."""
        # checked first and then inserted in place: a copy of the list at every merge made a run
        # of n chunks cost n^2 (1.4 ms a merge at 200,000 chunks); chunks arriving in order
        # are appended
        new = sorted(other.chunks)         # usually one: a bisection, not a sort
        mine = self.chunks
        reach = None                        # the new chunk reaching furthest so far
        for c in new:
            i = bisect.bisect_left(mine, c)
            for near in mine[max(0, i - 1):i + 1] + ([reach] if reach else []):
                if c[0] < near[1] and near[0] < c[1]:
                    raise ValueError(f"chunk [{c[0]}, {c[1]}) overlaps chunk [{near[0]}, "
                                     f"{near[1]}) already counted")
            reach = c if reach is None or c[1] > reach[1] else reach
        self.games += other.games
        self.wins = self.wins + other.wins
        self.capped += other.capped
        scores = self.scores = dict(self.scores)
        for s, k in other.scores.items():
            scores[s] = scores.get(s, 0) + k
        self.lengths = self.lengths + other.lengths
        if self.ownership is not None:
            # (one run's tallies: both count ownership, or neither)
            self.ownership = self.ownership + other.ownership  # type: ignore[operator]
        if self.first_moves is not None:
            self.first_moves = self.first_moves + other.first_moves  # type: ignore[operator]
        for c in new:
            bisect.insort(mine, c)
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tally):
            return NotImplemented
        same = lambda a, b: (a is None and b is None) or (a is not None and b is not None
                                                          and np.array_equal(a, b))
        return (self.games == other.games and np.array_equal(self.wins, other.wins)
                and self.capped == other.capped and self.scores == other.scores
                and np.array_equal(self.lengths, other.lengths) and same(self.ownership, other.ownership)
                and same(self.first_moves, other.first_moves) and self.chunks == other.chunks)

    __hash__ = None  # type: ignore[assignment]

    def to_arrays(self) -> dict[str, npt.NDArray[Any] | np.int64]:
        """The tally as named numpy arrays (what a shard stores); ``from_arrays`` reads them."""
        scores = sorted(self.scores.items())
        out: dict[str, npt.NDArray[Any] | np.int64] = {
               "games": np.int64(self.games), "wins": self.wins, "capped": np.int64(self.capped),
               "score_values": np.array([s for s, _ in scores], np.float64).reshape(-1),
               "score_counts": np.array([k for _, k in scores], np.int64).reshape(-1),
               "lengths": self.lengths, "chunks": np.array(self.chunks, np.int64).reshape(-1, 2)}
        if self.ownership is not None:
            out["ownership"] = self.ownership
        if self.first_moves is not None:
            out["first_moves"] = self.first_moves
        return out

    @classmethod
    def from_arrays(cls, a: Mapping[str, Any]) -> Tally:
        return cls(int(a["games"]), np.asarray(a["wins"], np.int64), int(a["capped"]),
                   {float(s): int(k) for s, k in zip(a["score_values"], a["score_counts"])},
                   np.asarray(a["lengths"], np.int64),
                   np.asarray(a["ownership"], np.int64) if "ownership" in a else None,
                   np.asarray(a["first_moves"], np.int64) if "first_moves" in a else None,
                   [tuple(int(x) for x in c)  # type: ignore[misc]  # (pairs: reshape(-1, 2))
                    for c in np.asarray(a["chunks"]).reshape(-1, 2)])

    def summary(self, confidence: float = 0.95) -> dict[str, Any]:
        """Win rates with Wilson score intervals at `confidence`, score and length moments and
        histograms, ownership as a mean per point; a JSON-ready dict."""
        if not 0 < confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {confidence}")
        n = self.games
        ties, black, white = (int(x) for x in self.wins)
        scores = sorted(self.scores.items())
        values = np.array([s for s, _ in scores], np.float64).reshape(-1)
        counts = np.array([k for _, k in scores], np.float64).reshape(-1)
        turns = np.arange(len(self.lengths), dtype=np.float64)
        mean_score = float(values @ counts / n) if n else float("nan")
        mean_len = float(turns @ self.lengths / n) if n else float("nan")
        out = {
            "games": n, "black_wins": black, "white_wins": white, "ties": ties,
            "capped": self.capped, "confidence": confidence,
            "black_win_rate": black / n if n else float("nan"),
            "black_win_interval": _wilson(black, n, confidence),
            "white_win_rate": white / n if n else float("nan"),
            "white_win_interval": _wilson(white, n, confidence),
            "tie_rate": ties / n if n else float("nan"),
            "mean_score": mean_score,
            "score_stdev": float(math.sqrt(max(  # type: ignore[arg-type]
                0.0, (values - mean_score) ** 2 @ counts / (n - 1))))
                           if n > 1 else float("nan"),
            "mean_length": mean_len,
            # keys as short as exact: %g's six digits merged the scores of a large komi
            "score_histogram": {(f"{s:g}" if float(f"{s:g}") == s else repr(float(s))): k
                                for s, k in scores},
            "length_histogram": {str(t): int(k) for t, k in enumerate(self.lengths) if k},
        }
        if self.ownership is not None:
            out["ownership_mean"] = (self.ownership / n).tolist() if n else None
        if self.first_moves is not None:
            out["first_moves"] = {str(p): [int(x) for x in row]
                                  for p, row in enumerate(self.first_moves) if row.any()}
        return out


def play_chunk(spec: Simulation, start: int, stop: int, threads: SupportsIndex | None = None
               ) -> tuple[Tally, dict[str, npt.NDArray[Any]] | None, float]:
    """Play games [start, stop) of `spec` on `threads` kernel threads (None: all cores).
    Returns (Tally, games, seconds): games is None unless spec.records, else a dict of the
    games' arrays (scores, winners, lengths, capped, moves: every turn, concatenated)."""
    if not (0 <= start <= stop <= spec.games):
        raise ValueError(f"chunk [{start}, {stop}) is not within the run's {spec.games} games")
    board = spec.board
    n = stop - start
    npoints = board.num_points
    keep_moves = spec.records or spec.first_moves
    block = _RECORD_BLOCK if keep_moves else max(n, 1)
    parts = []
    own = np.zeros((board.height, board.width), np.int64) if spec.ownership else None
    firsts = []
    t0 = time.perf_counter()
    for lo in range(start, stop, block):
        k = min(block, stop - lo)
        r = playouts(board, k, seed=spec.seed, threads=threads, ko=spec.ko,
                     max_moves=spec.max_moves, ownership=spec.ownership,
                     record=k if keep_moves else 0, first=lo, policy=spec.policy)
        if own is not None:
            # the kernel's integer sums, back from their mean: |sum| <= k < 2**31, so the
            # float64 product is within 2**-21 of the integer
            # (r.ownership: asked for, so not None)
            own += np.rint(r.ownership * k).astype(np.int64)  # type: ignore[operator]
        if keep_moves:
            firsts.append(np.array([m[0] if len(m) else -1 for m in r.moves], np.int64))
        parts.append((r.scores, r.winners, r.lengths, r.capped,
                      np.concatenate(r.moves).astype(np.int16) if spec.records and k else None))
    seconds = time.perf_counter() - t0

    def cat(i: int, dt: type[np.generic]) -> npt.NDArray[Any]:
        return np.concatenate([p[i] for p in parts]) if parts else np.empty(0, dt)
    scores, winners, lengths, capped = (cat(0, np.float64), cat(1, np.int8), cat(2, np.int32),
                                        cat(3, np.bool_))
    values, counts = np.unique(scores, return_counts=True)
    first_moves = None
    if spec.first_moves:
        first = np.concatenate(firsts) if firsts else np.empty(0, np.int64)
        played = first >= 0
        first_moves = np.zeros((npoints + 1, 3), np.int64)
        np.add.at(first_moves, (first[played], winners[played].astype(np.int64)), 1)
    tally = Tally(n, np.bincount(winners, minlength=3).astype(np.int64), int(capped.sum()),
                  {float(s): int(c) for s, c in zip(values, counts)},
                  np.bincount(lengths, minlength=spec.cap + 1).astype(np.int64), own,
                  first_moves, [(start, stop)] if n else [])
    games = None
    if spec.records:
        moves = [p[4] for p in parts if p[4] is not None]
        games = {"scores": scores, "winners": winners, "lengths": lengths, "capped": capped,
                 "moves": np.concatenate(moves) if moves else np.empty(0, np.int16)}
    return tally, games, seconds
