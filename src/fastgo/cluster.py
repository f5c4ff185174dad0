"""Running a ``Simulation``: here on the threaded kernel, or over a Dask or Ray cluster.

``run(spec, cluster=...)`` cuts the run into chunks of game indices, hands them to an engine,
merges each chunk's ``Tally`` as it arrives (exact integer sums: the order does not matter) and,
with ``out=``, has every chunk write its shard and keeps the manifest (``fastgo.records``).
Game i depends on (seed, i) alone, so the statistics and the shards are the same whatever the
engine, the machines, the threads, the chunks that were retried after a worker died, or a
resume.

Engines, by ``cluster``:
- ``None`` or ``"local"``: this process, one chunk at a time on ``threads`` kernel threads (all
  cores by default).
- ``"dask://host:8786"`` (or ``"tcp://..."``), or a ``distributed.Client``: Dask futures over the
  chunks, merged with ``as_completed``. Each task runs the kernel on ``threads`` threads (default
  1) with the GIL released, so a worker's own thread pool (``--nthreads``, its cores by default)
  runs that many chunks at once; for workers started with ``--nthreads 1`` pass ``threads=`` their
  cores. Needs Dask (``pip install "dask[distributed]"``, the ``dask`` extra).
- ``"ray"`` (join the running cluster, or the one this process already ``ray.init``-ed) or
  ``"ray://host:10001"`` (Ray Client): remote tasks with ``num_cpus=threads`` and ``threads``
  passed to the kernel explicitly (Ray sets ``OMP_NUM_THREADS=1`` in its workers), streamed with
  ``ray.wait``. Needs Ray (``pip install "ray[client]"``, the ``ray`` extra).

A cluster retries the chunks of a worker that dies (Dask reschedules them, Ray re-runs the
task); a retried chunk writes the same shard bytes again, so nothing is lost or counted twice.
At most a few chunks per task slot are in flight at once, so a run of millions of chunks holds
little memory on the scheduler.
"""

import importlib
import itertools
import math
import os
import socket
import sys
import time
import uuid

from fastgo.errors import ClusterError, os_error_text, require
from fastgo.playout import KO_CHOICES, POLICIES, default_threads, playouts, _int, _MAX_THREADS
from fastgo.simulation import Simulation, Tally, play_chunk

#: chunks in flight per task slot, and at least: enough queued on each worker that it never
#: waits for the round trip through this process (result in, next chunk out)
_WINDOW = 4
_MIN_IN_FLIGHT = 32


def chunk_task(spec, start, stop, threads, out):
    """What a worker runs for one chunk: play it, write its shard when there is an `out`.
    Returns (Tally, manifest entry or None, kernel seconds, (host, pid))."""
    from fastgo.records import write_shard
    tally, games, seconds = play_chunk(spec, start, stop, threads)
    entry = write_shard(out, spec, tally, games) if out is not None else None
    return tally, entry, seconds, (socket.gethostname(), os.getpid())


def _check_reachable(host, port, timeout, what):
    """The IP address that answered at host:port (a TCP connection), or ClusterError."""
    try:
        with socket.create_connection((host, port), timeout=min(timeout, 10)) as s:
            return s.getpeername()[0]
    except OSError as e:
        raise ClusterError(f"cannot reach the {what} at {host}:{port}: {e.strerror or e}") from None


def _host_port(address, default_port, what):
    rest = address.split("://", 1)[1]
    host, colon, port = rest.rpartition(":")
    if not colon:                       # no port: the default (":8786" has no host: an error)
        host, port = rest, str(default_port)
    if not port.isdigit() or not host:
        raise ClusterError(f"cannot read the {what} address {address!r}: expected host:port")
    return host.strip("[]"), int(port)


class LocalEngine:
    """Chunks one after another in this process, each on `threads` kernel threads."""

    name = "local"

    def __init__(self, threads=None):
        self.threads = default_threads() if threads is None else threads
        self.slots = 1

    def results(self, spec, chunks, out):
        for a, b in chunks:
            yield chunk_task(spec, a, b, self.threads, out)

    def close(self):
        pass


class DaskEngine:
    """Dask distributed futures over the chunks, merged with ``as_completed``."""

    name = "dask"

    def __init__(self, target, threads=None, timeout=30.0):
        distributed = require("distributed", "dask")
        self._owned = not isinstance(target, distributed.Client)
        if self._owned and not isinstance(target, str):
            # a LocalCluster (in-process ones too: inproc:// addresses), dask_jobqueue's...:
            # a Client of its own, closed with the engine
            try:
                target = distributed.Client(target, timeout=timeout, set_as_default=False)
            except Exception as e:
                raise ClusterError(f"cannot connect to the Dask cluster {target!r}: "
                                   f"{type(e).__name__}: {e}") from None
        elif self._owned:
            address = "tcp://" + target.split("://", 1)[1]
            host, port = _host_port(address, 8786, "Dask scheduler")
            ip = _check_reachable(host, port, timeout, "Dask scheduler")
            target = _dask_client(distributed, address, ip, port, timeout)
        self.client = target
        try:
            try:
                self.client.wait_for_workers(1, timeout=timeout)
            except (TimeoutError, OSError) as e:
                raise ClusterError(f"the Dask cluster has no worker after {timeout} s: {e}") from None
            self._check_workers()
        except BaseException:           # (Ctrl-C too: the scheduler would keep our client)
            self.close()
            raise
        self.threads = 1 if threads is None else threads
        workers = self.client.scheduler_info()["workers"].values()
        self.slots = max(1, sum(w["nthreads"] for w in workers) // self.threads)

    #: what a worker's fastgo says of itself, evaluated there by a builtin: a worker without
    #: fastgo cannot unpickle what names fastgo and ends, so the probe must not need fastgo to
    #: reach it (the workers that join later are checked by each task: _checked_chunk_task)
    _PROBE = "__import__('fastgo').__version__, __import__('fastgo.simulation').simulation.FORMAT"

    def _check_workers(self):
        """ClusterError unless every worker runs this fastgo (its version and spec format):
        another one's games would join the run, or its tasks would fail to unpickle."""
        import fastgo
        from fastgo.simulation import FORMAT
        try:
            seen = self.client.run(eval, self._PROBE, on_error="return")
        except Exception as e:
            raise ClusterError(f"cannot ask the Dask workers which fastgo they run: {e}") from None
        mine = (fastgo.__version__, FORMAT)
        failed = {w: v for w, v in seen.items() if isinstance(v, BaseException)}
        other = {w: v for w, v in seen.items() if w not in failed and tuple(v) != mine}
        if failed or other:
            said = "; ".join([f"{w}: {type(v).__name__}: {v}" for w, v in failed.items()]
                             + [f"{w}: fastgo {v[0]} (spec format {v[1]})" for w, v in other.items()])
            raise ClusterError(_mismatch(mine, said))

    def results(self, spec, chunks, out):
        import pickle
        import fastgo
        from fastgo.simulation import FORMAT
        distributed = require("distributed", "dask")
        run = uuid.uuid4().hex[:12]         # keys of this run only: never another run's results
        todo = iter(chunks)
        mine = (fastgo.__version__, FORMAT)
        task = _checked_chunk_task(mine)
        # the spec travels with each task (about 2 KB: a scattered copy would be lost with the
        # workers that held it), as bytes: a worker without fastgo can load the task
        spec_bytes = pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL)

        def submit(batch):                  # one message to the scheduler per batch
            batch = list(batch)
            if not batch:
                return []
            return self.client.map(task, [spec_bytes] * len(batch), [a for a, _ in batch],
                                   [b for _, b in batch], [self.threads] * len(batch),
                                   [out] * len(batch), retries=3,
                                   key=[f"fastgo-chunk-{a}-{b}-{run}" for a, b in batch])
        live = set(submit(itertools.islice(todo, max(_WINDOW * self.slots, _MIN_IN_FLIGHT))))
        # with_results: the results come over in the background as tasks finish
        done = distributed.as_completed(list(live), loop=self.client.loop, with_results=True)
        try:
            for batch in done.batches():
                for f, result in batch:
                    live.discard(f)
                    f.release()
                    # a lost scheduler cancels the futures, and as_completed hands over the
                    # cancellation as their result
                    if isinstance(result, BaseException):
                        raise ClusterError(f"the Dask cluster gave up chunk {f.key} "
                                           f"({type(result).__name__}: {result}): the scheduler "
                                           f"was lost or restarted") from None
                    if isinstance(result, dict):    # (a chunk's result is a tuple)
                        worker, have = result["fastgo-other"]
                        said = (f"fastgo {have[0]} (spec format {have[1]})"
                                if isinstance(have, tuple) else have)
                        raise ClusterError(_mismatch(mine, f"{worker}, which joined after "
                                                           f"the run began, has {said}"))
                more = submit(itertools.islice(todo, len(batch)))
                live.update(more)
                done.update(more)
                for _, result in batch:
                    yield result
        except distributed.KilledWorker as e:
            raise ClusterError(f"a chunk killed every Dask worker that ran it ({e}): out of "
                               f"memory? (a smaller chunk= needs less)") from None
        finally:
            if live:
                self.client.cancel(list(live))

    def close(self):
        if self._owned:
            self.client.close()


def _checked_chunk_task(want):
    """chunk_task behind a check of the fastgo of the worker that runs it: a worker that joined
    after the run asked them all (_check_workers) could not load a task that names fastgo (it
    ended, and was counted a killed worker), or played the chunk with another fastgo. Made here
    so that it travels by value (a function of no module), with nothing of fastgo in it (the
    spec comes as bytes); a worker whose fastgo is not `want` returns
    {"fastgo-other": (its address, what it has)} instead of playing."""
    def fastgo_chunk(spec, start, stop, threads, out):
        try:
            import fastgo.simulation
            have = (fastgo.__version__, fastgo.simulation.FORMAT)
        except Exception as e:          # (no fastgo there, or a broken one)
            have = f"{type(e).__name__}: {e}"
        if have != want:
            import importlib            # (a module name mypy need not resolve without Dask)
            worker = importlib.import_module("distributed").get_worker()
            return {"fastgo-other": (worker.address, have)}
        import pickle
        from fastgo.cluster import chunk_task
        return chunk_task(pickle.loads(spec), start, stop, threads, out)
    return _ByValue(fastgo_chunk)


class _ByValue:
    """A function that travels as its cloudpickle bytes, made once: Dask pickled a function of
    no module anew with each task (about 0.25 ms of this process's time a chunk; now 0.03)."""

    def __init__(self, function):
        import cloudpickle  # type: ignore[import-untyped, import-not-found, unused-ignore]  # (distributed needs it)
        self.function, self.data = function, cloudpickle.dumps(function)

    def __call__(self, *args):
        return self.function(*args)

    def __reduce__(self):               # what the worker loads is the function itself
        import pickle
        return pickle.loads, (self.data,)


def _mismatch(mine, said):
    """The refusal of workers whose fastgo is not this one (version, spec format) `mine`."""
    return f"every Dask worker must run this fastgo ({mine[0]}, spec format {mine[1]}): {said}"


def _dask_client(distributed, address, ip, port, timeout):
    """A Client of the scheduler at `address` (which answered at `ip`): first asked who it is
    in distributed's own protocol, within `timeout` seconds, because a port that answers but
    speaks no Dask (the dashboard's 8787, any HTTP server or TCP listener) kept Client() waiting
    for ever whatever its timeout (its handshake has none), and a thread left to wait there
    kept its sockets."""
    import asyncio
    unparse_host_port = importlib.import_module("distributed.comm.addressing").unparse_host_port
    hint = "(a port that is not the scheduler's? its default is 8786, the dashboard's 8787)"
    try:
        # the address that answered: no name to look up again on the probe's loop
        # (tcp:// as the Client's address: a bare one took Dask's configured default scheme,
        # and with tls there a TCP scheduler was refused)
        said = _on_private_loop(_dask_identity, "tcp://" + unparse_host_port(ip, port), timeout)
    except (TimeoutError, asyncio.TimeoutError):     # (one class from Python 3.11)
        raise ClusterError(f"no Dask scheduler answered at {address} within {timeout:g} s "
                           f"{hint}") from None
    except Exception as e:
        raise ClusterError(f"what answers at {address} is no Dask scheduler ({type(e).__name__}: "
                           f"{e}) {hint}") from None
    kind = said.get("type") if isinstance(said, dict) else None
    if not (isinstance(kind, str) and "Scheduler" in kind):
        # (a worker's port answers the handshake, and its identity refuses the scheduler's
        # arguments: the Client said TypeError)
        what = f"a Dask {kind}" if isinstance(kind, str) else "a Dask server (a worker?)"
        raise ClusterError(f"what answers at {address} is {what}, not the scheduler {hint}")
    try:
        return distributed.Client(address, timeout=timeout, set_as_default=False)
    except Exception as e:
        raise ClusterError(f"cannot connect to the Dask scheduler at {address}: "
                           f"{type(e).__name__}: {e}") from None


async def _dask_identity(address, timeout):
    """The `identity` of the Dask server at `address` (tcp://ip:port), as Client() first asks
    it: distributed's comm handshake and one call, each step bounded (asyncio.TimeoutError when
    the time is out), and the connection closed whatever happens."""
    import asyncio
    parse_address = importlib.import_module("distributed.comm.addressing").parse_address
    get_backend = importlib.import_module("distributed.comm.registry").get_backend
    deadline = time.monotonic() + timeout

    def left():
        return max(deadline - time.monotonic(), 0.001)
    scheme, loc = parse_address(address)
    comm = await asyncio.wait_for(get_backend(scheme).get_connector().connect(loc), left())
    try:
        # (distributed.comm.connect's handshake, whose read has no timeout)
        local = comm.handshake_info()
        await asyncio.wait_for(comm.write(local), left())
        remote = await asyncio.wait_for(comm.read(), left())
        comm.local_info, comm.remote_info = local, remote
        comm.handshake_options = comm.handshake_configuration(local, remote)
        await asyncio.wait_for(comm.write({"op": "identity", "n_workers": 0, "reply": True}),
                               left())
        return await asyncio.wait_for(comm.read(), left())
    finally:
        comm.abort()


def _on_private_loop(coroutine_function, *args):
    """Run `coroutine_function(*args)` to its end on an event loop of its own, closed after
    (with the threads of its executor), and never made this thread's current loop. Inside a
    running loop (Jupyter), where no other loop can run, it runs on a thread of its own that
    is waited for: the coroutine must bound its own time."""
    import asyncio
    import threading

    def go():
        loop = asyncio.new_event_loop()
        task = loop.create_task(coroutine_function(*args))
        try:
            return loop.run_until_complete(task)
        finally:
            try:
                if not task.done():     # (Ctrl-C) its clean-up, the connection closed, first
                    task.cancel()
                    loop.run_until_complete(asyncio.wait([task]))
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.run_until_complete(loop.shutdown_default_executor())
            finally:
                loop.close()
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return go()
    made = {}

    def on_thread():
        try:
            made["value"] = go()
        except BaseException as e:
            made["error"] = e
    thread = threading.Thread(target=on_thread, name="fastgo-private-loop", daemon=True)
    thread.start()
    thread.join()
    if "error" in made:
        raise made["error"]
    return made["value"]


class RayEngine:
    """Ray remote tasks with num_cpus = threads, streamed with ``ray.wait``."""

    name = "ray"

    def __init__(self, target, threads=None, timeout=30.0):
        ray = require("ray", "ray")
        self._owned = False
        if not ray.is_initialized():
            if target == "ray":
                address = "auto"
                _check_ray_auto(timeout)
            else:
                address = target
                host, port = _host_port(address, 10001, "Ray cluster")
                _check_reachable(host, port, timeout, "Ray cluster")
            try:
                ray.init(address=address, log_to_driver=False)
            except (ConnectionError, RuntimeError, TimeoutError) as e:
                hint = ("" if target == "ray" else " (a cluster with Ray's token authentication, "
                        "the default for local clusters from Ray 2.59, needs RAY_AUTH_MODE=token "
                        "and its token, RAY_AUTH_TOKEN or ~/.ray/auth_token, here too)")
                raise ClusterError(f"cannot connect to the Ray cluster at {target!r}: {e}{hint}") from None
            self._owned = True
        self.threads = 1 if threads is None else threads
        # a task runs on one node: threads= must fit a node, not the cluster's sum (a task no
        # node can take waits for ever)
        nodes = [n.get("Resources", {}).get("CPU", 0) for n in ray.nodes() if n.get("Alive")]
        if max(nodes, default=0) < self.threads:
            raise ClusterError(f"no node of the Ray cluster has the {self.threads} CPUs one task "
                               f"asks for (threads=): its nodes have {sorted(nodes)}")
        self.slots = max(1, sum(int(c) // self.threads for c in nodes))
        self._task = ray.remote(chunk_task).options(num_cpus=self.threads, max_retries=3)

    def results(self, spec, chunks, out):
        ray = require("ray", "ray")
        todo = iter(chunks)
        spec_ref = ray.put(spec)
        submit = lambda ab: self._task.remote(spec_ref, ab[0], ab[1], self.threads, out)
        live = [submit(ab) for ab in itertools.islice(todo, max(_WINDOW * self.slots, _MIN_IN_FLIGHT))]
        try:
            while live:
                ready, live = ray.wait(live, num_returns=1)
                if live:                    # and whatever else is ready by now
                    # (a timeout of 0 left a socket open in this process each run: Ray's)
                    more, live = ray.wait(live, num_returns=len(live), timeout=0.001)
                    ready += more
                results = ray.get(ready)
                live.extend(submit(ab) for ab in itertools.islice(todo, len(ready)))
                yield from results
        finally:
            for ref in live:
                ray.cancel(ref, force=True)

    def close(self):
        if self._owned:
            require("ray", "ray").shutdown()


def _check_ray_auto(timeout):
    """ClusterError at once when the cluster that ``ray.init(address="auto")`` would join does
    not answer at its address (RAY_ADDRESS, else the one the last ``ray start`` recorded, as
    Ray's own lookup finds it): ray.init waited on a dead head's address for minutes (over
    200 s here). An address Ray cannot find, or another scheme than ray://, is Ray's to say."""
    env = os.environ.get("RAY_ADDRESS", "")
    if "://" in env:                    # (ray.init takes it as a Ray Client address)
        if env.startswith("ray://"):
            host, port = _host_port(env, 10001, "Ray cluster")
            _check_reachable(host, port, timeout, "Ray cluster (RAY_ADDRESS)")
        return
    try:
        # the very lookup ray.init makes: RAY_ADDRESS, Ray's temp directory, its processes
        services = importlib.import_module("ray._private.services")
        address = services.canonicalize_bootstrap_address("auto")
        host, colon, port = address.rpartition(":")
        port = int(port)
    except Exception:                   # (none found, "local", or Ray's function moved)
        return
    if colon and host:
        where = "RAY_ADDRESS" if env not in ("", "auto") else "the last `ray start`'s"
        _check_reachable(host.strip("[]"), port, timeout, f"Ray cluster ({where})")


def _check_timeout(timeout, name="timeout"):
    # 0 would make the reachability check's socket non-blocking (a false "cannot reach"), and
    # a negative value is refused by the socket with a message that does not name it
    if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
            and math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"{name} must be a positive number of seconds, got {timeout!r}")


def _check_records_kept(records, out, what="records=True", where="their directory (out=)"):
    # records are kept only in the run's shards: without a directory they would be played and
    # dropped, silently
    if records and out is None:
        raise ValueError(f"{what} keeps the games in the run's shards: it needs {where}")


def connect(cluster=None, threads=None, timeout=30.0):
    """The engine for `cluster` (see the module docstring); raises ClusterError when it cannot
    be reached, ImportError naming the extra when its package is missing. `timeout`: seconds
    to reach a cluster (a positive number)."""
    if threads is not None:
        threads = _int(threads, "threads", 1, _MAX_THREADS)      # (as playouts takes it)
    _check_timeout(timeout)
    if cluster is None or cluster == "local":
        return LocalEngine(threads)
    if isinstance(cluster, str):
        scheme = cluster.split("://", 1)[0] if "://" in cluster else cluster
        if scheme in ("dask", "tcp") and "://" in cluster:
            return DaskEngine(cluster, threads, timeout)
        if scheme == "ray":
            return RayEngine(cluster, threads, timeout)
        raise ClusterError(f"unknown cluster {cluster!r}: expected 'local', 'dask://host:port', "
                           f"'ray' or 'ray://host:port'")
    if (type(cluster).__module__.startswith("distributed")
            or isinstance(getattr(cluster, "scheduler_address", None), str)):
        return DaskEngine(cluster, threads, timeout)      # a Client, or a Dask cluster object
    raise TypeError(f"cluster must be an address, a distributed.Client or a Dask cluster "
                    f"object (LocalCluster, dask_jobqueue's...), not {type(cluster).__name__}")


class Result:
    """A finished (or interrupted) run: `spec` (its chunk size set), `tally`, `timing` (wall
    seconds, games/s, chunks played and resumed, kernel seconds summed over chunks, per-chunk
    overhead), `out`. ``summary()`` is the tally's summary with ``"timing"`` added."""

    def __init__(self, spec, tally, timing, out):
        self.spec, self.tally, self.timing, self.out = spec, tally, timing, out

    def summary(self, confidence=0.95):
        s = self.tally.summary(confidence)
        s["timing"] = dict(self.timing)
        return s

    def __repr__(self):
        t = self.timing
        return (f"<Result {self.tally.games:,} of {self.spec.games:,} games on {t['engine']}: "
                f"{t['seconds']:.2f} s, {t['games_per_second']:,.0f} games/s while playing>")


def choose_chunk(spec, task_threads, slots, seconds=2.0):
    """A chunk size of about `seconds` of work: the kernel's on `task_threads` threads (from a
    0.1 s probe on one thread here) and, with SGF shards, the writing of their games (Python,
    one thread: about 20 times a 9x9 game's playing, timed on 64 of the probe's games); no more
    than an even share of the games per task slot, and at most 100,000 games when every game's
    moves are kept."""
    n = 256
    while True:
        r = playouts(spec.board, n, seed=spec.seed ^ 0x5EED, threads=1, ko=spec.ko,
                     max_moves=spec.max_moves, policy=spec.policy, record=64 if spec.sgf else 0)
        if r.seconds >= 0.1 or n >= 2**20:
            break
        n *= 4
    per_game = max(r.seconds, 1e-9) / n / task_threads
    if spec.sgf:
        from fastgo import sgf
        t = time.perf_counter()
        sgf.games_to_sgf(r.moves, start=spec.played_board())
        per_game += (time.perf_counter() - t) / len(r.moves)
    chunk = int(seconds / per_game)
    chunk = min(chunk, math.ceil(spec.games / slots) if spec.games else 1)
    if spec.records:
        chunk = min(chunk, 100_000)
    return max(1, chunk)


def run(spec, cluster=None, *, out=None, resume=False, threads=None, chunk_seconds=2.0,
        progress=None, timeout=30.0):
    """Play `spec` (a ``Simulation``) on `cluster`; returns ``Result``.

    out: a directory every worker sees; each chunk writes its shard there and this process keeps
    the manifest. resume: finish the run in `out` (its shards are read, not played again); the
    spec must equal the one the directory was started with (a spec without a chunk size takes
    the directory's). The directory is checked before any work: RecordsError when it is not
    writable, holds another run, or holds this run and resume is off.
    threads: kernel threads per task (local: all cores; Dask and Ray: 1). chunk_seconds: the
    work per chunk when the spec has no chunk size. progress(games_done, games_total): called as
    chunks finish. timeout: seconds to reach a cluster (a positive number). On KeyboardInterrupt
    the tasks in flight are cancelled, the manifest lists every finished shard, and the interrupt
    goes on: a resume finishes the run. A spec with records (or SGF) needs `out`: the games are
    kept only in its shards.
    """
    from fastgo.records import RunDirectory
    if not isinstance(spec, Simulation):
        raise TypeError(f"spec must be a fastgo.simulation.Simulation, not {type(spec).__name__}")
    if not (isinstance(chunk_seconds, (int, float)) and math.isfinite(chunk_seconds)
            and chunk_seconds > 0):
        raise ValueError(f"chunk_seconds must be a positive number, got {chunk_seconds!r}")
    directory = None
    if out is not None:
        out = os.path.abspath(os.fspath(out))
        directory = RunDirectory(out, spec, resume)
    elif resume:
        raise ValueError("resume needs the directory of the run (out=)")
    else:
        _check_records_kept(spec.records, out)
    engine = connect(cluster, threads, timeout)
    try:
        t0 = time.perf_counter()
        done = {}
        def choose():                   # (checked before a new directory's manifest is written)
            chosen = choose_chunk(spec, engine.threads, engine.slots, chunk_seconds)
            _check_chunk_count(spec.replace(chunk=chosen))
            return chosen
        if spec.chunk is not None:
            _check_chunk_count(spec)
        if directory is not None:
            spec, done = directory.prepare(choose)
        elif spec.chunk is None:
            spec = spec.replace(chunk=choose())
        _check_chunk_count(spec)
        tally = Tally.empty(spec)
        for t in done.values():
            tally.merge(t)
        todo = [c for c in spec.chunks() if c not in done]
        if progress is not None:
            progress(tally.games, spec.games)
        kernel = 0.0
        t1 = time.perf_counter()
        stream = engine.results(spec, todo, out)
        try:
            for chunk_tally, entry, seconds, _ in stream:
                tally.merge(chunk_tally)
                kernel += seconds
                if directory is not None:
                    directory.record(entry)
                if progress is not None:
                    progress(tally.games, spec.games)
        finally:
            stream.close()                              # cancels what is still in flight
            if directory is not None:
                directory.save(force=True, complete=tally.games == spec.games)
        wall = time.perf_counter() - t1
        played = len(todo)
        timing = {"engine": engine.name, "seconds": time.perf_counter() - t0,
                  "run_seconds": wall, "games_per_second": (tally.games - sum(
                      t.games for t in done.values())) / wall if wall > 0 else float("nan"),
                  "chunks": played, "chunks_resumed": len(done), "chunk_games": spec.chunk,
                  "task_threads": engine.threads, "task_slots": engine.slots,
                  "kernel_seconds": kernel,
                  "overhead_per_chunk_seconds": (wall * engine.slots - kernel) / played
                  if played else 0.0}
        return Result(spec, tally, timing, out)
    finally:
        if directory is not None:
            directory.release()
        engine.close()


# -- fastgo simulate ----------------------------------------------------------------------------

def add_command(parser):
    """The options of ``fastgo simulate`` (the board options come from the CLI)."""
    p = parser
    p.add_argument("--games", type=int, required=True, help="number of games")
    p.add_argument("--handicap", type=int, default=0, help="fixed handicap stones (default 0)")
    p.add_argument("--seed", type=int, default=0, help="game i's randomness is (seed, i)")
    p.add_argument("--ko", default="rules", choices=KO_CHOICES,
                   help="ko rule inside the playouts (default: the rules' own)")
    p.add_argument("--max-moves", type=int, default=None, help="cap of turns per game")
    p.add_argument("--policy", default="uniform", choices=list(POLICIES),
                   help="playout policy, as fastgo.playouts' (default uniform)")
    p.add_argument("--cluster", default="local",
                   help="local (default), dask://host:8786, ray, or ray://host:10001")
    p.add_argument("--threads", type=int, default=None,
                   help="kernel threads per task (local: all cores; dask, ray: 1)")
    p.add_argument("--chunk", type=int, default=None, help="games per chunk (default: about "
                   "--chunk-seconds of work, or the directory's on --resume)")
    p.add_argument("--chunk-seconds", type=float, default=2.0)
    p.add_argument("--out", default=None, help="directory for the shards and the manifest")
    p.add_argument("--resume", action="store_true", help="finish the run in --out")
    p.add_argument("--records", action="store_true",
                   help="keep every game in the shards (needs --out)")
    p.add_argument("--sgf", action="store_true",
                   help="also write the shards' games as SGF (needs --out)")
    p.add_argument("--first-moves", action="store_true", help="count wins by first move")
    p.add_argument("--no-ownership", action="store_true", help="do not sum ownership")
    p.add_argument("--plot", default=None, help="write the ownership, score and length plots "
                   "(.png or .svg)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--timeout", type=float, default=30.0,
                   help="seconds to reach a cluster (default 30)")
    p.set_defaults(func=run_command)


class _TextProgress:
    """A one-line progress report on stderr: games, games/s, ETA (tqdm when installed)."""

    def __init__(self, stream):
        self.stream = stream
        self.t0 = time.perf_counter()
        self.start = None
        self.last = 0.0
        self.bar = None
        try:
            import tqdm  # type: ignore[import-untyped, unused-ignore]  # (types-tqdm has them)
        except ImportError:
            tqdm = None
        self._tqdm = tqdm

    def __call__(self, done, total):
        if self.start is None:
            self.start = done
            if self._tqdm is not None:
                self.bar = self._tqdm.tqdm(total=total, initial=done, unit="game", unit_scale=True,
                                           file=self.stream, dynamic_ncols=True)
        if self.bar is not None:
            self.bar.update(done - self.bar.n)
            return
        now = time.perf_counter()
        if now - self.last < 0.5 and done < total:
            return
        self.last = now
        rate = (done - self.start) / max(now - self.t0, 1e-9)
        eta = (total - done) / rate if rate > 0 else float("inf")
        self.stream.write(f"\r{done:,}/{total:,} games ({100 * done / max(total, 1):.1f}%), "
                          f"{rate:,.0f} games/s, ETA {eta:.0f} s   ")
        self.stream.flush()

    def close(self):
        """End the bar (once: a Ctrl-C closes it twice, in the handler and on the way out)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif self.start is not None:
            self.stream.write("\n")
            self.start = None


MAX_CHUNKS = 10 ** 7      # the driver keeps a list of the chunks: about 100 bytes each


def _resume_hint(out, when=""):
    """The CLI's word on a run that stopped: where its finished shards are, when its directory
    holds a run to resume (an interruption before it was prepared left none)."""
    from fastgo.records import MANIFEST
    if not out or not os.path.exists(os.path.join(out, MANIFEST)):
        return ""
    return f"; the finished shards are in {out}: the same command with --resume finishes the run{when}"


def _check_chunk_count(spec):
    if spec.chunk_count() > MAX_CHUNKS:
        raise ValueError(f"{spec.games:,} games in chunks of {spec.chunk:,} make "
                         f"{spec.chunk_count():,} chunks, more than the {MAX_CHUNKS:,} a run "
                         f"keeps track of: choose a larger chunk")


def _no_nan(value):
    """`value` with every float NaN or infinity (in dicts and lists) made None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_no_nan(v) for v in value]
    return value


def run_command(args):
    """``fastgo simulate``: a bad option value or spec raises ValueError, which fastgo.cli.main
    reports with this subcommand's usage (status 2)."""
    import json
    try:
        if not 1 <= args.games <= 2**62:     # (Simulation's bound, said in the option's words)
            raise ValueError(f"--games must lie in 1..2**62, got {args.games}")
        if not 0 <= args.seed < 2**64:  # as the API (it was taken modulo 2**64: 2**64 ran as 0)
            raise ValueError(f"--seed must lie in 0..2**64 - 1, got {args.seed}")
        spec = Simulation.new(args.games, args.size, args.height, rules=args.rules.replace(komi=args.komi),
                              handicap=args.handicap, seed=args.seed, ko=args.ko,
                              max_moves=args.max_moves, policy=args.policy,
                              ownership=not args.no_ownership,
                              first_moves=args.first_moves, records=args.records or args.sgf,
                              sgf=args.sgf, chunk=args.chunk)
        if not (math.isfinite(args.chunk_seconds) and args.chunk_seconds > 0):
            raise ValueError(f"--chunk-seconds must be positive, got {args.chunk_seconds}")
        _check_timeout(args.timeout, "--timeout")
        _check_records_kept(args.records or args.sgf, args.out,
                            "--records" if args.records else "--sgf", "--out DIR")
        if args.plot is not None:
            from fastgo import plot
            if args.plot.rsplit(".", 1)[-1].lower() not in plot.FORMATS:
                raise ValueError(f"--plot {args.plot}: the file must end in .png or .svg")
            plot._pyplot()                 # a missing matplotlib is said before the run
            folder = os.path.dirname(os.path.abspath(args.plot))
            if not os.path.isdir(folder):      # (said after the run, the results were lost)
                raise ValueError(f"--plot {args.plot}: no directory {folder}")
    except ImportError as e:
        print(f"fastgo simulate: {e}", file=sys.stderr)
        return 1
    bar = None if args.no_progress else _TextProgress(sys.stderr)
    try:
        result = run(spec, args.cluster, out=args.out, resume=args.resume, threads=args.threads,
                     chunk_seconds=args.chunk_seconds, progress=bar, timeout=args.timeout)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        print(f"fastgo simulate: interrupted{_resume_hint(args.out)}", file=sys.stderr)
        return 130
    except (ClusterError, ImportError) as e:
        print(f"fastgo simulate: {e}{_resume_hint(args.out, ' once the cause is mended')}",
              file=sys.stderr)
        return 1
    except OSError as e:                # a full disk, a directory gone: no traceback
        where = _resume_hint(args.out, " once the cause is mended")
        print(f"fastgo simulate: {os_error_text(e)}{where}", file=sys.stderr)
        return 1
    finally:
        if bar is not None:
            bar.close()
    s = result.summary()
    if args.json:
        s["spec"] = {k: v for k, v in result.spec.to_dict().items() if k != "board"}
        s["spec"]["rules"] = args.rules_name
        s["spec"]["size"] = [result.spec.board.width, result.spec.board.height]
        b = result.spec.board
        s["spec"]["komi"] = b.rules.komi
        # the start position (a handicap's stones, White to move): what else tells runs apart
        s["spec"]["start"] = {"black_stones": int((b.stones() == 1).sum()),
                              "white_stones": int((b.stones() == 2).sum()),
                              "to_move": "black" if b.to_move == 1 else "white"}
        # strict JSON: a value without a number (one game's score deviation) is null, not NaN
        print(json.dumps(_no_nan(s), allow_nan=False))
        return _save_plot(result, args.plot)
    t = s["timing"]
    b = result.spec.board
    lo, hi = s["black_win_interval"]
    wlo, whi = s["white_win_interval"]
    print(f"fastgo simulate: {s['games']:,} games on {b.width}x{b.height}, {args.rules_name} "
          f"rules, komi {b.rules.komi:g}, seed {result.spec.seed}, ko {result.spec.ko}, "
          f"policy {result.spec.policy}")
    rows = [("black wins", f"{s['black_wins']:,}", f"{100 * s['black_win_rate']:.2f}% "
             f"[{100 * lo:.2f}, {100 * hi:.2f}]"),
            ("white wins", f"{s['white_wins']:,}", f"{100 * s['white_win_rate']:.2f}% "
             f"[{100 * wlo:.2f}, {100 * whi:.2f}]"),
            ("ties", f"{s['ties']:,}", f"{100 * s['tie_rate']:.2f}%"),
            ("mean score", f"{s['mean_score']:+.2f}", f"stdev {s['score_stdev']:.2f}"),
            ("mean length", f"{s['mean_length']:.1f}", "turns"),
            ("capped", f"{s['capped']:,}", ""),
            # the rate is the playing's (set-up and the first probe of the engine excluded)
            ("time", f"{t['seconds']:.2f} s",
             (f"playing {t['run_seconds']:.2f} s of it, {t['games_per_second']:,.0f} games/s"
              if t["chunks"] else "nothing left to play")
             + f" on {t['engine']}, {t['chunks']} chunks of {t['chunk_games']:,}"
             + (f" ({t['chunks_resumed']} resumed)" if t["chunks_resumed"] else ""))]
    for name, value, extra in rows:
        print(f"  {name:<12} {value:>12}  {extra}")
    print(f"  (intervals: Wilson, {100 * s['confidence']:g}%)")
    if args.out:
        print(f"  shards and manifest in {result.out}")
    status = _save_plot(result, args.plot)
    if args.plot is not None and status == 0:
        print(f"  plots in {args.plot}")
    return status


def _save_plot(result, path):
    """Save the run's plots to `path` (None: none asked for) after its results were printed, so
    that a file that cannot be written (a directory, no permission, a full disk) loses nothing:
    0, or 1 with the reason on stderr."""
    if path is None:
        return 0
    from fastgo import plot
    try:
        plot.save(result, path)
    except OSError as e:
        print(f"fastgo simulate: cannot write the plots to {path}: {e.strerror or e}",
              file=sys.stderr)
        return 1
    return 0
