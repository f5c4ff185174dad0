"""A simulation's output directory, and reading it back as games.

Layout: one shard per chunk, ``chunk-<start>-<stop>.npz`` (13-digit zero-padded game indices),
written by whichever process played the chunk; ``chunk-<start>-<stop>.sgf`` beside it when the
spec asks for SGF; ``manifest.json``, written by the process that drives the run, naming the spec
and listing every finished shard with its size and SHA-256.

A shard is a zip of ``.npy`` arrays (``numpy.load`` reads it) whose bytes depend on its contents
only (fixed member order and timestamps): the same chunk played twice, on any machine, gives the
same file, so a retried chunk overwrites its shard harmlessly (idempotent), and two runs'
shards can be compared by checksum. It holds ``spec`` (the run's JSON, UTF-8 bytes as uint8),
``fingerprint``, the chunk's ``Tally`` arrays (see ``Tally.to_arrays``) and, with records on,
``game_scores``, ``game_winners``, ``game_lengths``, ``game_capped`` and ``game_moves`` (every
turn of every game, concatenated: game i's are the ``game_lengths[i]`` after the previous games').
Every file is written to a temporary name in the same directory, flushed, and renamed over its
final name: a reader (or a resume) sees a whole shard or none.
"""

from __future__ import annotations  # `X | None` on Python 3.9

import bisect
import collections
import contextlib
import hashlib
import io
import json
import os
import re
import signal
import threading
import time
import uuid
import warnings
import zipfile
from typing import Any, Callable, Iterator, Mapping, SupportsIndex, Union, overload

import numpy as np
import numpy.typing as npt

from fastgo.coords import _index
from fastgo.errors import RecordsError, Slotted
from fastgo.board import Board
from fastgo.simulation import FORMAT, Simulation, Tally

_Path = Union[str, "os.PathLike[str]"]

MANIFEST = "manifest.json"
LOCK = ".driver.lock"       # the driving process's claim on a directory (its pid and host)
_SHARD = re.compile(r"^chunk-(\d{13})-(\d{13})\.npz$")
_TEMP = re.compile(r"^\.(chunk-\d{13}-\d{13}\.(npz|sgf)|manifest\.json)\.\d+\.[0-9a-f]{32}\.tmp$")
_EPOCH = (1980, 1, 1, 0, 0, 0)
#: decoded shards a Records keeps, in bytes (the least recently used go first): random access
#: to a run whose games fit decodes each shard once (a shard of 100,000 9x9 games: about 25 MB)
CACHE_BYTES = 512 * 2**20


def shard_name(start: int, stop: int) -> str:
    return f"chunk-{start:013d}-{stop:013d}.npz"


def _write_atomic(path: str, data: bytes) -> None:
    """Write bytes to `path` through a temporary file in its directory and a rename."""
    folder, base = os.path.split(path)
    tmp = os.path.join(folder, f".{base}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@contextlib.contextmanager
def _ctrl_c_deferred() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) that arrives inside the block until it ends, then send it again,
    to the handler in place before (Python's default raises KeyboardInterrupt; SIG_DFL ends the
    process, SIG_IGN ignores it). On the main thread only (Python runs signal handlers there
    alone), and only where the handler in place is one Python can put back; elsewhere the
    block runs as it is."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is None):    # (a handler not set from Python)
        yield
        return
    held: list[int] = []
    try:
        before = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    except (ValueError, OSError):          # (an embedding without signals)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
        if held:
            signal.raise_signal(signal.SIGINT)


def npz_bytes(arrays: Mapping[str, npt.ArrayLike]) -> bytes:
    """A deflated .npz of `arrays` whose bytes depend on the arrays alone. A Ctrl-C meanwhile is
    acted on after it is built: landing inside zipfile's writes it left objects that raised
    again when collected (a member half closed, an archive marked as being written)."""
    with _ctrl_c_deferred():
        return _npz_bytes(arrays)


def _npz_bytes(arrays: Mapping[str, npt.ArrayLike]) -> bytes:
    buf = io.BytesIO()
    z = zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED)
    try:
        for name in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            # level 1: deflate at its fastest keeps up with the kernel (level 6 took twice its time)
            z.writestr(info, member.getvalue(), compresslevel=1)
        z.close()
    except BaseException:
        # Ctrl-C inside a member's close leaves the archive marked as being written: closing it
        # (a with statement's exit, or the garbage collector) would raise ValueError in place of
        # the interrupt. The half-built bytes are dropped, so the archive is let go unclosed.
        z.fp = None
        raise
    return buf.getvalue()


def _spec_bytes(spec: Simulation) -> npt.NDArray[np.uint8]:
    return np.frombuffer(json.dumps(spec.to_dict(), sort_keys=True).encode(), np.uint8)


def _write_sgf(path: str, spec: Simulation, games: Mapping[str, npt.NDArray[Any]]) -> str:
    """Write the SGF collection of a chunk's `games` (a shard's game arrays) at `path`; returns
    its SHA-256. The same games give the same bytes."""
    from fastgo import sgf
    ends = np.cumsum(games["lengths"])
    lists = np.split(games["moves"].astype(np.int64), ends[:-1])
    data = sgf.games_to_sgf(lists, start=spec.played_board(), PB="random", PW="random").encode()
    _write_atomic(path, data)
    return hashlib.sha256(data).hexdigest()


def write_shard(out: _Path, spec: Simulation, tally: Tally,
                games: Mapping[str, npt.NDArray[Any]] | None) -> dict[str, Any]:
    """Write the shard of one played chunk (and its SGF when the spec asks) into directory `out`;
    returns its manifest entry {start, stop, sha256, bytes, and sgf_sha256 with an SGF}. A
    shard already there with the same bytes is left alone."""
    (start, stop), = tally.chunks or [(0, 0)]
    arrays: dict[str, npt.ArrayLike] = {
        "spec": _spec_bytes(spec),
        "fingerprint": np.frombuffer(spec.fingerprint().encode(), np.uint8)}
    arrays.update(tally.to_arrays())
    if games is not None:
        arrays.update({"game_" + k: v for k, v in games.items()})
    data = npz_bytes(arrays)
    digest = hashlib.sha256(data).hexdigest()
    path = os.path.join(out, shard_name(start, stop))
    entry = {"start": start, "stop": stop, "sha256": digest, "bytes": len(data)}
    if spec.sgf and games is not None and stop > start:
        entry["sgf_sha256"] = _write_sgf(path[:-4] + ".sgf", spec, games)
    if not (os.path.exists(path) and sha256_file(path) == digest):
        _write_atomic(path, data)
    return entry


def make_directory(path: _Path, what: str, error: Callable[[str], BaseException]) -> None:
    """Create directory `path` (parents included) unless it is there, and check that a file can
    be written in it; `error` (an exception class), naming `what` and the path, when the path is
    a file or the directory cannot be created or written. Shared by the simulation's output
    directory and the count's checkpoint (``fastgo.count``)."""
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, f".probe.{os.getpid()}.{uuid.uuid4().hex}")
        with open(probe, "wb"):
            pass
        os.unlink(probe)
    except FileExistsError:         # makedirs: the path is there, and not a directory
        raise error(f"{what} {path!r} is a file, not a directory") from None
    except OSError as e:
        raise error(f"{what} {path!r} is not writable: {e.strerror or e}") from None


def sha256_file(path: _Path) -> str:
    """SHA-256 (hex) of a file's bytes: the checksum of a shard in the manifest and of a count
    checkpoint's states file (``fastgo.count``)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


_GAME_ARRAYS = ("scores", "winners", "lengths", "capped", "moves")


class _DamagedShard(RecordsError):
    """A shard that cannot be read whole (a resume plays its chunk again)."""


def _check_shard(tally: Tally, g: dict[str, npt.NDArray[Any]] | None) -> None:
    """ValueError unless a shard's tally counts one chunk's games consistently, and its games
    (when read) are that many, their turns the moves' length."""
    n = tally.games
    if len(tally.chunks) != 1 or tally.chunks[0][1] - tally.chunks[0][0] != n:
        raise ValueError(f"the tally counts {n} games for the chunks {tally.chunks}")
    if (tally.wins.shape != (3,) or int(tally.wins.sum()) != n or tally.lengths.ndim != 1
            or int(tally.lengths.sum()) != n or sum(tally.scores.values()) != n):
        raise ValueError("the tally's wins, lengths and scores do not count its games")
    if g is not None:
        if any(g[k].shape != (n,) for k in _GAME_ARRAYS[:4]) or g["moves"].ndim != 1:
            raise ValueError(f"the game arrays do not hold {n} games")
        if (g["lengths"] < 0).any() or int(g["lengths"].sum()) != len(g["moves"]):
            raise ValueError("the games' lengths do not add up to their moves")


def _claims_more_than_it_holds(path: _Path, e: MemoryError) -> bool:
    """Whether the allocation that failed (numpy names its size) is more than all the shard's
    members hold uncompressed: a damaged header's, not a real shortage (numpy allocates what a
    header says before the member's data and checksum are read)."""
    try:
        with zipfile.ZipFile(path) as z:
            held = sum(i.file_size for i in z.infolist())
        asked = int(getattr(e, "_total_size"))
    except Exception:
        return False
    return asked > held


def read_shard(path: _Path, games: bool = False
               ) -> tuple[dict[str, Any], str, Tally, dict[str, npt.NDArray[Any]] | None]:
    """(spec dict, fingerprint, Tally, games dict or None) of one shard; RecordsError, naming
    the file, for one that is not a whole shard (truncated, damaged, another program's, not a
    file)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            spec = json.loads(z["spec"].tobytes().decode())
            fingerprint = z["fingerprint"].tobytes().decode()
            tally = Tally.from_arrays(z)
            g = {k: z["game_" + k] for k in _GAME_ARRAYS} if games else None
        _check_shard(tally, g)
    except MemoryError as e:
        if not _claims_more_than_it_holds(path, e):
            raise
        raise _DamagedShard(f"{path} is not a readable shard: an array header asks for more "
                            f"memory than the file holds ({e})") from None
    except Exception as e:
        # whatever a damaged file makes numpy, zipfile or zlib raise (a tester's single-bit
        # flips gave six kinds besides these: tokenize's TokenError from a header, zipfile's
        # NotImplementedError and RuntimeError, KeyError, TypeError, OSError)
        raise _DamagedShard(f"{path} is not a readable shard: {type(e).__name__}: {e}") from None
    return spec, fingerprint, tally, g


def _run_shard(path: _Path, spec: Simulation, fingerprint: str, games: bool = False
              ) -> tuple[Tally, dict[str, npt.NDArray[Any]] | None]:
    """read_shard for a shard named `path` (its chunk in its name) of the run `spec` (whose
    fingerprint() is `fingerprint`): its Tally and games; RecordsError, naming the file, for one
    that is damaged (read_shard), of another run, or not the chunk of this run its name says."""
    name = _SHARD.match(os.path.basename(path))
    if name is None:
        raise RecordsError(f"{path} is not named as a shard (chunk-<start>-<stop>.npz)")
    a, b = (int(x) for x in name.groups())
    if not (a % spec.chunk == 0 and 0 <= a < spec.games  # type: ignore[operator]
            and b == min(a + spec.chunk, spec.games)):   # type: ignore[operator]
        raise RecordsError(f"{path}: chunk [{a}, {b}) is not one of this run's chunks")
    _, their_fp, tally, g = read_shard(path, games)
    if their_fp != fingerprint:
        raise RecordsError(f"{path} belongs to another run (its spec fingerprint differs)")
    if tally.chunks != [(a, b)]:
        raise RecordsError(f"{path} holds chunk [{tally.chunks[0][0]}, {tally.chunks[0][1]}) "
                           f"of the run, not the chunk [{a}, {b}) its name says (a copied or "
                           f"renamed shard)")
    if (tally.ownership is None) == spec.ownership or (tally.first_moves is None) == spec.first_moves:
        raise _DamagedShard(f"{path} is not a readable shard: its tally lacks or has ownership "
                            f"or first moves against the run's spec")
    return tally, g


def read_manifest(directory: _Path) -> tuple[dict[str, Any], Simulation]:
    """(manifest dict, Simulation) of the run in `directory`; RecordsError when it holds no
    manifest or one that is not a fastgo run's (damaged, another format)."""
    manifest = os.path.join(directory, MANIFEST)
    try:
        with open(manifest, encoding="utf-8") as f:
            m = json.load(f)
        if not isinstance(m, dict) or not isinstance(m.get("shards", {}), dict) or not all(
                isinstance(e, dict) for e in m.get("shards", {}).values()):
            raise ValueError("not a JSON object with a \"shards\" object of objects")
        # (a spec that is not a dict: ValueError)
        return m, Simulation.from_dict(m.get("spec"))  # type: ignore[arg-type]
    except FileNotFoundError:
        raise RecordsError(f"{directory!r} holds no fastgo run ({MANIFEST} is missing)") from None
    except (OSError, ValueError) as e:
        raise RecordsError(f"{manifest} cannot be read as a fastgo run's manifest: {e}") from None


class RunDirectory:
    """The driver's side of an output directory: checks it before any work, knows the finished
    shards, keeps the manifest."""

    def __init__(self, out: _Path, spec: Simulation, resume: bool = False) -> None:
        self.out = os.fspath(out)
        self.spec = spec
        self.resume = resume
        self.locked = False
        self.entries: dict[str, dict[str, Any]] = {}
        self._saved = 0.0
        self._took = 0.0            # seconds the last manifest rewrite took

    def prepare(self, choose_chunk: Callable[[], int]
                ) -> tuple[Simulation, dict[tuple[int, int], Tally]]:
        """Create or check the directory. Returns (spec, {chunk: Tally}) for the chunks already
        finished (resume); a spec without a chunk size takes the manifest's, or choose_chunk()'s
        in a new directory. Raises RecordsError when the directory cannot take this run."""
        make_directory(self.out, "output directory", RecordsError)
        self._lock()
        try:
            return self._prepare(choose_chunk)
        except BaseException:
            self.release()
            raise

    def _lock(self):
        """Claim the directory for this process: two drivers (two runs started at once, or two
        resumes) would each see no other's manifest yet, write the same shard names and remove
        each other's temporary files. A claim whose process is gone (on this host) is taken
        over; one from another host is honoured until its file is removed."""
        import socket
        path = os.path.join(self.out, LOCK)
        me = f"{os.getpid()} {socket.gethostname()}"
        for _ in range(2):
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                try:
                    with open(path, encoding="utf-8") as f:
                        pid, host = f.read().split(" ", 1)
                    pid = int(pid)
                except (OSError, ValueError):
                    pid, host = None, "?"
                if pid is not None and host == socket.gethostname() and not _alive(pid):
                    try:
                        os.unlink(path)         # its driver is gone: a stale claim
                    except OSError:
                        pass
                    continue
                raise RecordsError(f"output directory {self.out!r} is in use by another run's "
                                   f"driver (process {pid} on {host}); wait for it, or remove "
                                   f"{LOCK} there if that process is gone") from None
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(me)
            self.locked = True
            return
        raise RecordsError(f"output directory {self.out!r}: {LOCK} could not be taken")

    def release(self) -> None:
        """Give up the claim (the run is over, finished or not)."""
        if self.locked:
            self.locked = False
            try:
                os.unlink(os.path.join(self.out, LOCK))
            except OSError:
                pass

    def _prepare(self, choose_chunk):
        out = self.out
        names = os.listdir(out)
        shards = sorted(n for n in names if _SHARD.match(n))
        manifest = os.path.join(out, MANIFEST)
        spec = self.spec
        if not os.path.exists(manifest):
            if shards:
                raise RecordsError(f"output directory {out!r} holds {len(shards)} shards and no "
                                   f"{MANIFEST}: another run's or a damaged one; use another directory")
            if spec.chunk is None:
                spec = spec.replace(chunk=choose_chunk())
            self.spec = spec
            self.save(force=True)
            return spec, {}
        m, theirs = read_manifest(out)
        if spec.chunk is None:
            spec = spec.replace(chunk=theirs.chunk)
        diff = spec.differences(theirs)
        if diff:
            said = "; ".join(f"{k} {_short(mine)} here, {_short(there)} there"
                             for k, (mine, there) in diff.items())
            if self.resume:
                raise RecordsError(f"cannot resume the run in {out!r}: this one differs from it "
                                   f"({said})")
            raise RecordsError(f"output directory {out!r} holds another run ({said}); use "
                               f"another directory")
        if not self.resume:
            raise RecordsError(f"output directory {out!r} already holds this run ({len(shards)} of "
                               f"{spec.chunk_count()} chunks finished): pass resume=True (fastgo "
                               f"simulate --resume) to finish it, or use another directory")
        self.spec = spec
        self.sweep()
        fp = spec.fingerprint()
        listed = m.get("shards", {})
        done = {}
        for n in shards:
            a, b = (int(x) for x in _SHARD.match(n).groups())
            path = os.path.join(out, n)
            if not os.path.isfile(path):
                raise RecordsError(f"{path} is not a shard (not a file)")
            entry = listed.get(n)
            digest = sha256_file(path)
            if entry is not None and entry.get("sha256") != digest:
                warnings.warn(f"{path}: checksum differs from the manifest's; the chunk is played "
                              f"again", RuntimeWarning)
                continue
            try:
                # a shard the manifest does not vouch for has its games decoded too: a damaged
                # game array would otherwise be listed as good, and never played again
                tally, _ = _run_shard(path, spec, fp, games=entry is None and spec.records)
            except (OSError, _DamagedShard) as e:       # (another run's shard: RecordsError)
                warnings.warn(f"{path} cannot be read ({e}); the chunk is played again", RuntimeWarning)
                continue
            done[(a, b)] = tally
            self.entries[n] = {"start": a, "stop": b, "sha256": digest, "bytes": os.path.getsize(path)}
            if spec.sgf and b > a:
                self.entries[n]["sgf_sha256"] = self._check_sgf(path, entry, b - a)
        self.save(force=True)
        return spec, done

    def _check_sgf(self, path: str, entry: dict[str, Any] | None, count: int) -> str:
        """The SHA-256 of a finished shard's SGF collection of `count` games, written again
        from the shard's games when it is missing or differs from the manifest's checksum (the
        same games give the same bytes). One the manifest has no checksum of (a shard it did
        not list yet, or a run of a fastgo before the checksums) is taken as it is when it
        holds `count` game trees and ends as the writer ends one (writing every one again
        would cost a run of many shards hours)."""
        sgf_path = path[:-4] + ".sgf"
        want = (entry or {}).get("sgf_sha256")
        damaged = os.path.exists(sgf_path)
        if damaged:
            with open(sgf_path, "rb") as f:
                data = f.read()
            got = hashlib.sha256(data).hexdigest()
            if got == want or (want is None and data.endswith(b")\n")
                               and data.count(b"(;") == count):
                return got
        warnings.warn(f"{sgf_path} is {'damaged' if damaged else 'missing'}; written again from "
                      f"{os.path.basename(path)}", RuntimeWarning)
        _, _, _, games = read_shard(path, games=True)
        if games is None:
            raise RecordsError(f"{path} holds no games to write {sgf_path} from")
        return _write_sgf(sgf_path, self.spec, games)

    def record(self, entry: dict[str, Any]) -> None:
        """Note a finished shard; the manifest is rewritten at most once a second, and at most
        2% of the time (a rewrite grows with the shards): a resume finds the shards the
        manifest has not listed yet by reading them."""
        self.entries[shard_name(entry["start"], entry["stop"])] = entry
        self.save()

    def save(self, force: bool = False, complete: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._saved < max(1.0, 50 * self._took):
            return
        from fastgo import __version__
        m = {"fastgo": __version__, "format": FORMAT, "fingerprint": self.spec.fingerprint(),
             "spec": self.spec.to_dict(), "chunks": self.spec.chunk_count(), "complete": complete,
             "shards": dict(sorted(self.entries.items()))}
        _write_atomic(os.path.join(self.out, MANIFEST), json.dumps(m, indent=1).encode())
        self._saved = time.monotonic()
        self._took = self._saved - now
        if complete:
            self.sweep()

    def sweep(self) -> None:
        """Remove the temporary files of writers that were killed mid-write (a worker lost to
        SIGKILL leaves its `.chunk-….tmp`); called before a resume and when a run completes,
        when no writer of this run is left."""
        for n in os.listdir(self.out):
            if _TEMP.match(n):
                try:
                    os.unlink(os.path.join(self.out, n))
                except OSError:
                    pass


def _alive(pid: int) -> bool:
    """Whether a process `pid` runs on this host (one of another user's counts as running; a
    zombie, which has exited and waits for its parent to reap it, does not: the signal test
    finds it, and a killed driver's parent that resumes before reaping it was refused)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:      # (Linux; elsewhere: running)
            stat = f.read()
        return stat[stat.rindex(b")") + 2:stat.rindex(b")") + 3] != b"Z"    # (after the name)
    except (OSError, ValueError):
        return True


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Game(Slotted):
    """One recorded game: its index in the run, moves (int32 points, pass = width * height),
    score (Black minus White, komi included), winner (1, 2, 0 a tie), length (turns), capped."""

    __slots__ = ("index", "moves", "score", "winner", "length", "capped", "_start")

    def __init__(self, index: int, moves: npt.NDArray[np.int32], score: float, winner: int,
                 length: int, capped: bool, start: Board) -> None:
        self.index, self.moves, self.score, self.winner = index, moves, score, winner
        self.length, self.capped, self._start = length, capped, start

    def board(self) -> Board:
        """The final position: a copy of the run's start with every move played (and checked)."""
        b = self._start.copy()
        for p in self.moves.tolist():
            b.play(p)
        return b

    def __repr__(self) -> str:
        return (f"<Game {self.index}: {self.length} turns, score {self.score:+g}"
                f"{', capped' if self.capped else ''}>")


class Records:
    """A run's directory read back (``fastgo.records.read(path)``): `spec`, `manifest`, the
    merged `tally` of its shards, and, when the run kept records, its games: ``len`` (the games
    the directory holds), indexing by the run's game index as a sequence of ``spec.games``
    games (``records[i]``, ``records[-1]`` the run's last; a slice ``records[a:b:k]`` lists the
    games it selects that the directory holds), iteration in index order. `complete`: every
    chunk is there; in a run that is not, a game of a missing chunk raises IndexError.

    A shard's games are decoded when one of them is first asked for and kept (up to
    ``CACHE_BYTES`` of decoded shards, the least recently used dropped first), so games read
    in any order (a shuffled epoch) cost what reading them in order does while the run's games
    fit."""

    def __init__(self, path: _Path) -> None:
        self.path = os.fspath(path)
        self.manifest, self.spec = read_manifest(self.path)
        self.tally = Tally.empty(self.spec)
        self._shards = []
        fp = self.spec.fingerprint()
        for n in sorted(os.listdir(self.path)):
            if _SHARD.match(n):
                tally, _ = _run_shard(os.path.join(self.path, n), self.spec, fp)
                self.tally.merge(tally)     # (chunks of one partition, named uniquely: disjoint)
                self._shards.append((tally.chunks[0], n))
        self._starts = [a for (a, _), _ in self._shards]
        self._cache: collections.OrderedDict[int, dict[str, Any]] = collections.OrderedDict()
        # (shard k -> its decoded games, the last used last)
        self._cached_bytes = 0
        self._lock = threading.Lock()
        self._start = self.spec.played_board()     # (the board the games are replayed on)
        self.complete = self.tally.games == self.spec.games

    def __len__(self) -> int:
        return self.tally.games if self.spec.records else 0

    def __getstate__(self):
        # the decoded shards stay behind (a worker process decodes what it reads: a pickle of
        # a Records grew with every shard read), and so does the lock, which does not pickle
        state = self.__dict__.copy()
        state["_cache"], state["_cached_bytes"], state["_lock"] = None, 0, None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._cache = collections.OrderedDict()
        self._lock = threading.Lock()

    def _games_of(self, k):
        with self._lock:            # (threads reading games share the cache and its count)
            g = self._cache.get(k)
            if g is not None:
                self._cache.move_to_end(k)
                return g
        _, _, _, g = read_shard(os.path.join(self.path, self._shards[k][1]), games=True)
        g["offsets"] = np.concatenate([[0], np.cumsum(g["lengths"], dtype=np.int64)])
        size = sum(a.nbytes for a in g.values())
        with self._lock:
            if k in self._cache:    # another thread decoded it meanwhile
                return self._cache[k]
            while self._cache and self._cached_bytes + size > CACHE_BYTES:
                _, old = self._cache.popitem(last=False)
                self._cached_bytes -= sum(a.nbytes for a in old.values())
            self._cache[k] = g
            self._cached_bytes += size
        return g

    def _shard_of(self, index):
        """The shard holding game `index` (0 <= index < spec.games), or None (a missing chunk)."""
        k = bisect.bisect_right(self._starts, index) - 1
        return k if k >= 0 and index < self._shards[k][0][1] else None

    @overload
    def __getitem__(self, index: SupportsIndex) -> Game: ...
    @overload
    def __getitem__(self, index: slice) -> list[Game]: ...
    def __getitem__(self, index: SupportsIndex | slice) -> Game | list[Game]:
        if not self.spec.records:
            raise RecordsError("this run kept statistics only (records=False): no games to read")
        n = self.spec.games
        if isinstance(index, slice):
            held = ((i, self._shard_of(i)) for i in range(n)[index])
            return [self._game(i, k) for i, k in held if k is not None]
        i = _index(index, "game index")
        if not -n <= i < n:
            raise IndexError(f"game index {i} out of range: the run has {n} games")
        i += n if i < 0 else 0
        k = self._shard_of(i)
        if k is None:
            raise IndexError(f"game {i} is not in {self.path!r}: its chunk is missing (the run "
                             f"is not complete)")
        return self._game(i, k)

    def _game(self, index, k):
        """Game `index`, held by shard k."""
        g = self._games_of(k)
        j = index - self._shards[k][0][0]
        moves = g["moves"][g["offsets"][j]:g["offsets"][j + 1]].astype(np.int32)
        return Game(index, moves, float(g["scores"][j]), int(g["winners"][j]), int(g["lengths"][j]),
                    bool(g["capped"][j]), self._start)

    def __iter__(self) -> Iterator[Game]:
        if not self.spec.records:
            return
        for k, ((a, b), _) in enumerate(self._shards):
            for i in range(a, b):
                yield self._game(i, k)


def read(path: _Path) -> Records:
    """The run in directory `path` as ``Records``."""
    return Records(path)
