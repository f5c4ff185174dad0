"""The same runs on real clusters on 127.0.0.1: a Dask scheduler with two worker processes, and
a Ray cluster of two CPUs. Statistics and shards must equal the local run's byte for byte, also
when a worker process is SIGKILLed in the middle of the run. Every process these tests start is
stopped by its pid, and every wait is bounded. A worker killed is one of the cluster's own
processes (a descendant of what the test started, found by pid), every socket those processes
listen on is bound to 127.0.0.1, and none of them is left once the cluster is stopped."""

import hashlib
import ipaddress
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from fastgo import cluster, records
from fastgo.simulation import Simulation
from require_extras import importorskip

# Ray turns 127.0.0.1 into the machine's outside address unless it thinks clusters are off (its
# switch for laptops): then every Ray server listens on 127.0.0.1 only. Set before ray is imported
# (and inherited by the processes it starts).
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

# chunks of about 0.1-0.3 s of one core: long enough to kill a worker in the middle of one
SPEC = Simulation.new(24_000, 9, seed=14, records=True, first_moves=True, chunk=2_000)


def digests(path):
    return {n: hashlib.sha256(open(os.path.join(path, n), "rb").read()).hexdigest()
            for n in sorted(os.listdir(path)) if n.endswith(".npz")}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    return cluster.run(SPEC, out=out, threads=1), digests(out)


def check_same_as_local(res, out, local_run):
    want, want_digests = local_run
    assert res.tally.games == SPEC.games
    assert res.tally == want.tally                         # every count, chunk by chunk
    assert digests(out) == want_digests                    # every shard, byte for byte
    m = json.load(open(os.path.join(out, "manifest.json")))
    assert m["complete"] and {n: e["sha256"] for n, e in m["shards"].items()} == want_digests
    assert not [n for n in os.listdir(out) if n.endswith(".tmp")]


def stop(procs):
    """SIGKILL the workers (nothing of theirs needs saving), then stop the scheduler."""
    for p in procs[:0:-1] + procs[:1]:
        if p.poll() is None:
            p.kill() if p is not procs[0] else p.terminate()
    for p in procs:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(15)


def listening(proc):
    """(ip, port) of every TCP socket `proc` listens on and every UDP socket it has bound, the
    IPv4 address of an IPv4-mapped IPv6 one (gRPC's ``::ffff:127.0.0.1``) written as IPv4."""
    import psutil
    out = set()
    conns = proc.net_connections("inet") if hasattr(proc, "net_connections") else \
        proc.connections("inet")
    for c in conns:
        if c.status == psutil.CONN_LISTEN or (c.type == socket.SOCK_DGRAM and not c.raddr):
            ip = ipaddress.ip_address(c.laddr.ip.split("%")[0])
            if ip.version == 6 and ip.ipv4_mapped is not None:
                ip = ip.ipv4_mapped
            out.add((str(ip), c.laddr.port))
    return out


class ClusterWatch:
    """The processes a test started (`roots`, pids) and all their descendants, sampled by pid
    every `every` s in a thread until `stop()`: every process seen, and every socket each one
    listened on. Processes that come and go between two samples (a Ray worker, a Ray Client
    session server) are caught when they live longer than `every`."""

    def __init__(self, roots=(), every=0.2):
        import psutil
        self.psutil = psutil
        self.every = every
        self.roots = []
        self.seen = {}                      # pid -> psutil.Process (its create time pins it)
        self.sockets = {}                   # (pid, name) -> {(ip, port)}
        self.lock = threading.Lock()
        self.done = threading.Event()
        for pid in roots:
            self.add(pid)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def add(self, pid):
        with self.lock:
            self.roots.append(self.psutil.Process(pid))
        self.sample()

    def descendants(self, root):
        """`root`'s descendants now (psutil.Process), by parent pid."""
        try:
            return root.children(recursive=True)
        except self.psutil.Error:
            return []

    def sample(self):
        with self.lock:
            roots = list(self.roots)
        for proc in [p for r in roots for p in [r] + self.descendants(r)]:
            try:
                name, where = proc.name(), listening(proc)
            except self.psutil.Error:               # gone, or a zombie: nothing to listen
                continue
            with self.lock:
                self.seen.setdefault(proc.pid, proc)
                self.sockets.setdefault((proc.pid, name), set()).update(where)

    def _run(self):
        while not self.done.wait(self.every):
            self.sample()

    def stop(self):
        """Stop sampling, after one last sample (bounded: a sample takes milliseconds)."""
        self.sample()
        self.done.set()
        self.thread.join(10)

    def assert_localhost_only(self):
        """Every socket any of these processes listened on is bound to 127.0.0.1."""
        with self.lock:
            sockets = {k: set(v) for k, v in self.sockets.items()}
        wrong = {k: sorted(v) for k, v in sockets.items() if any(ip != "127.0.0.1" for ip, _ in v)}
        assert not wrong, f"listening beyond 127.0.0.1: {wrong}"
        return sockets

    def assert_all_gone(self, timeout=60):
        """Every process seen has exited (zombies awaiting their parent count as exited);
        waits at most `timeout` s."""
        with self.lock:
            procs = list(self.seen.values())
        assert_gone(procs, timeout)


def assert_gone(procs, timeout):
    """Waits at most `timeout` s for each psutil.Process in `procs` to exit, then asserts it did
    (a pid reused by a new process counts as exited: psutil compares creation times). Any
    left is SIGKILLed (by its pid, the same process) before the assertion fails."""
    import psutil

    def alive(p):
        try:
            return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    deadline = time.monotonic() + timeout
    left = [p for p in procs if alive(p)]
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [p for p in left if alive(p)]
    for p in left:
        try:
            p.kill()
        except psutil.Error:
            pass
    assert not left, f"pids still running {timeout} s after their cluster was stopped: " + \
        ", ".join(str(p.pid) for p in left)


# -- Dask ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    distributed = importorskip("distributed", "dask")
    d = tmp_path_factory.mktemp("dask")
    sched_file = str(d / "scheduler.json")
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False")
    # without a dashboard, the scheduler and the workers still serve HTTP (health, metrics) on
    # the dashboard address, which is 0.0.0.0 unless given: 127.0.0.1, any free port
    common = ["--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
    procs = [subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                               "--port", "0", "--scheduler-file", sched_file, *common],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)]
    watch = None
    try:
        watch = ClusterWatch([procs[0].pid])
        deadline = time.monotonic() + 90
        while not os.path.exists(sched_file):
            assert time.monotonic() < deadline, "the dask scheduler did not start in 90 s"
            assert procs[0].poll() is None, "the dask scheduler exited"
            time.sleep(0.2)
        time.sleep(0.2)                          # the file is complete once it parses
        address = json.load(open(sched_file))["address"]
        for _ in range(2):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "dask", "worker", address, "--host", "127.0.0.1",
                 "--nthreads", "1", "--no-nanny", "--memory-limit", "0", *common],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
            watch.add(procs[-1].pid)
        client = distributed.Client(address, timeout=60, set_as_default=False)
        client.wait_for_workers(2, timeout=90)
        yield address, client, procs[1:]
        client.close()
    finally:
        if watch is not None:
            watch.stop()
        stop(procs)
    sockets = watch.assert_localhost_only()
    assert len([k for k, v in sockets.items() if v]) >= 3   # the scheduler and both workers
    watch.assert_all_gone(30)


def test_dask_run_equals_local(dask_cluster, local_run, tmp_path):
    address, _, _ = dask_cluster
    res = cluster.run(SPEC, "dask://" + address.split("://")[1], out=tmp_path, timeout=60)
    assert res.timing["engine"] == "dask" and res.timing["task_slots"] == 2
    check_same_as_local(res, tmp_path, local_run)


def test_a_tls_default_scheme_does_not_refuse_a_tcp_scheduler(dask_cluster, tmp_path):
    """The identity probe was given a bare ip:port, so Dask's configured default scheme chose
    its protocol: with tls there, a TCP scheduler was refused as "no Dask scheduler"."""
    import dask
    address, _, _ = dask_cluster
    with dask.config.set({"distributed.comm.default-scheme": "tls"}):
        res = cluster.run(Simulation.new(40, 5, seed=1, chunk=20),
                          "dask://" + address.split("://")[1], out=tmp_path, timeout=60)
    assert res.timing["engine"] == "dask" and res.tally.games == 40


def test_dask_client_object_and_sigkill_of_a_worker(dask_cluster, local_run, tmp_path):
    """A worker process killed while it runs a chunk: the scheduler moves its chunks to the
    other worker; exactly the run's games, counted once, and the same shards."""
    address, client, workers = dask_cluster
    killed = []

    def kill_a_busy_worker(done, total):
        if killed or done == 0:
            return
        pids = client.run(os.getpid)
        busy = [pids[a] for a, tasks in client.processing().items() if tasks and a in pids]
        ours = [p.pid for p in workers]
        victim = next(pid for pid in busy if pid in ours)
        os.kill(victim, signal.SIGKILL)
        killed.append(victim)

    res = cluster.run(SPEC, client, out=tmp_path, progress=kill_a_busy_worker, timeout=60)
    assert killed
    victim = next(p for p in workers if p.pid == killed[0])
    assert victim.wait(15) == -signal.SIGKILL
    check_same_as_local(res, tmp_path, local_run)
    assert res.tally.chunks == SPEC.chunks()


def test_dask_workers_of_another_fastgo_are_refused_at_once(dask_cluster, monkeypatch, tmp_path):
    """A worker without fastgo could not unpickle a chunk's task and ended, and the run waited
    for ever; one with another fastgo would have added its games (a cluster tester's finding).
    Every worker is asked first, by a builtin that needs no fastgo there: here the probe is
    made to find another version, and a missing module."""
    address, _, _ = dask_cluster
    target = "dask://" + address.split("://")[1]
    for probe, said in [("'0.0.1', 2", r"fastgo 0\.0\.1 \(spec format 2\)"),
                        ("__import__('fastgo_not_installed')", "ModuleNotFoundError")]:
        monkeypatch.setattr(cluster.DaskEngine, "_PROBE", probe)
        with pytest.raises(cluster.ClusterError, match=f"every Dask worker must run this "
                                                       f"fastgo .*{said}"):
            cluster.run(SPEC, target, out=tmp_path / "refused", timeout=60)
        assert not (tmp_path / "refused").exists()


@pytest.mark.parametrize("other", [None, "0.0.1"])
def test_a_dask_worker_of_another_fastgo_that_joins_during_the_run_is_named(dask_cluster, tmp_path,
                                                                            other):
    """The workers are asked which fastgo they run when the run starts; one that joined later
    without fastgo could not load a task and ended (with a nanny, again and again: a "killed
    worker, out of memory?"), and one of another version played its chunks with its own
    fastgo, merged silently (the last session's closing note). Every task now checks the
    fastgo of the worker that runs it before it plays: the run ends with a ClusterError that
    names the worker. Here a worker joins once the run has begun, with no fastgo, or with this
    one's modules under another version."""
    address, client, _ = dask_cluster
    site = tmp_path / "site"
    site.mkdir()
    if other is None:
        (site / "fastgo.py").write_text("raise ModuleNotFoundError('no fastgo on this worker', "
                                        "name='fastgo')\n")
        said = "ModuleNotFoundError: no fastgo on this worker"
    else:
        real = os.path.dirname(cluster.__file__)
        (site / "fastgo").mkdir()
        (site / "fastgo" / "__init__.py").write_text(
            f"__path__ = [{real!r}]\n"
            f"exec(compile(open({real + '/__init__.py'!r}).read(), 'fastgo', 'exec'))\n"
            f"__version__ = {other!r}\n")
        said = rf"fastgo {other} \(spec format \d+\)"
    # many short chunks: the run outlasts the start of a worker
    spec = Simulation.new(300 * 40, 9, seed=5, chunk=40)
    late, before = [], len(client.scheduler_info()["workers"])

    def start_a_worker(done, total):
        if late:
            return
        env = dict(os.environ, PYTHONPATH=str(site), DASK_DISTRIBUTED__WORKER__DAEMON="False")
        late.append(subprocess.Popen(
            [sys.executable, "-m", "dask", "worker", address, "--host", "127.0.0.1",
             "--nthreads", "1", "--no-nanny", "--memory-limit", "0", "--no-dashboard",
             "--dashboard-address", "127.0.0.1:0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path))
        client.wait_for_workers(before + 1, timeout=60)

    try:
        with pytest.raises(cluster.ClusterError, match=rf"every Dask worker must run this "
                                                       rf"fastgo .*joined after the run began, "
                                                       rf"has {said}"):
            cluster.run(spec, "dask://" + address.split("://")[1], progress=start_a_worker,
                        timeout=60)
        assert late
    finally:
        for p in late:
            p.kill()
            p.wait(15)
    deadline = time.monotonic() + 30        # the scheduler lets it go: the next tests see the
    while len(client.scheduler_info()["workers"]) > before:         # fixture's workers alone
        assert time.monotonic() < deadline, "the scheduler still lists the killed worker"
        time.sleep(0.1)


def test_a_dask_address_that_answers_but_is_no_scheduler_is_refused_in_time(tmp_path):
    """The dashboard's port (8787 for 8786) or any HTTP server answers the reachability check,
    and distributed.Client then waited for ever whatever its timeout (a tester's finding)."""
    importorskip("distributed", "dask")
    import http.server
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    server.daemon_threads = True        # (a handler waits on Dask's bytes for a request line)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    try:
        t = time.monotonic()
        with pytest.raises(cluster.ClusterError, match="Dask scheduler"):
            cluster.run(SPEC, f"dask://127.0.0.1:{server.server_address[1]}", out=tmp_path,
                        timeout=2)
        assert time.monotonic() - t < 30
    finally:
        server.shutdown()
        server.server_close()


def test_a_dask_workers_address_is_refused_as_no_scheduler(dask_cluster, tmp_path):
    """A worker answers Dask's handshake: the Client then failed on a TypeError of the worker's
    identity call; it is now named for what it is."""
    _, client, _ = dask_cluster
    worker = next(iter(client.scheduler_info()["workers"]))
    with pytest.raises(cluster.ClusterError, match="is a Dask server .*not the scheduler"):
        cluster.run(SPEC, "dask://" + worker.split("://")[1], out=tmp_path, timeout=5)


def open_sockets():
    """This process's sockets: psutil's (family, local, remote, status) of each, else the
    /proc/self/fd entries of sockets."""
    try:
        import psutil
    except ImportError:
        fds = [os.path.join("/proc/self/fd", n) for n in os.listdir("/proc/self/fd")]
        return sorted(t for t in (os.readlink(f) for f in fds if os.path.exists(f))
                      if t.startswith("socket:"))
    return sorted((c.family, c.laddr, c.raddr, c.status)
                  for c in psutil.Process().net_connections("all"))


def test_a_plain_tcp_listener_is_refused_in_time_and_leaves_no_thread_or_socket(tmp_path):
    """A listener that accepts and never answers: the Client waited there for ever, so it was
    made on a thread given up at the deadline, and that thread stayed with its socket, one more
    each run (the last session's closing note). Refused in time, with nothing left behind, also
    when called from inside a running event loop (Jupyter)."""
    importorskip("distributed", "dask")
    import asyncio
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    target = f"dask://127.0.0.1:{listener.getsockname()[1]}"

    def refused():
        t = time.monotonic()
        with pytest.raises(cluster.ClusterError, match="Dask scheduler"):
            cluster.run(SPEC, target, out=tmp_path / "refused", timeout=1)
        assert time.monotonic() - t < 10

    async def in_a_running_loop():
        refused()

    try:
        threads, sockets = threading.active_count(), open_sockets()
        refused()
        loop = asyncio.new_event_loop()         # (not made this thread's current loop)
        try:
            loop.run_until_complete(in_a_running_loop())
        finally:
            loop.close()
        assert threading.active_count() == threads, threading.enumerate()
        assert open_sockets() == sockets
        assert not (tmp_path / "refused").exists()
    finally:
        listener.close()


# -- Ray -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ray_cluster():
    """A Ray cluster of our own (``ray.init(address="local")``), with the ClusterWatch of the
    processes ``ray.init`` started (gcs_server, raylet, monitors; the raylet's workers are its
    descendants) and the raylet's pid."""
    ray = importorskip("ray", "ray")
    import psutil
    from ray._private import ray_constants
    ray_constants.ENABLE_RAY_CLUSTER = False      # in case ray was imported before this module
    me = psutil.Process()
    before = listening(me)                        # the driver's own, from before ray.init
    # address="local": always a new cluster of our own, never one a ray_current_cluster file names
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    watch = None
    try:
        assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:")
        started = ray._private.worker._global_node.all_processes   # what this ray.init started
        raylet = started[ray_constants.PROCESS_TYPE_RAYLET][0].process.pid
        watch = ClusterWatch([info.process.pid for infos in started.values() for info in infos])
        assert raylet in watch.seen
        driver_sockets = listening(me) - before   # the driver's core worker listens too
        yield ray, watch, raylet
        driver_sockets |= listening(me) - before
    finally:
        if watch is not None:
            watch.stop()
        ray.shutdown()
    assert all(ip == "127.0.0.1" for ip, _ in driver_sockets), driver_sockets
    sockets = watch.assert_localhost_only()
    assert any(v for (_, name), v in sockets.items() if name == "raylet")
    assert any(v for (_, name), v in sockets.items() if name == "gcs_server")
    watch.assert_all_gone(60)                     # ray.shutdown() stopped every one of them


def ray_workers_running(raylet, name):
    """psutil.Process of the workers of the raylet `raylet` (pid: they are its descendants) now
    running a task of function `name` (Ray titles a busy worker ``ray::<function>``)."""
    import psutil
    out = []
    for p in psutil.Process(raylet).children(recursive=True):
        try:
            cmd = p.cmdline()
        except psutil.Error:
            continue
        if cmd and cmd[0].startswith(f"ray::{name}"):
            out.append(p)
    return out


def test_ray_run_equals_local(ray_cluster, local_run, tmp_path):
    res = cluster.run(SPEC, "ray", out=tmp_path, timeout=60)
    assert res.timing["engine"] == "ray" and res.timing["task_slots"] == 2
    check_same_as_local(res, tmp_path, local_run)


def test_ray_sigkill_of_a_worker(ray_cluster, local_run, tmp_path):
    """A worker of our own cluster (a descendant of its raylet) killed while it runs a chunk:
    Ray retries the chunk; the same tally and shards."""
    import psutil
    _, watch, raylet = ray_cluster
    killed = []

    def kill_a_busy_worker(done, total):
        if killed or done == 0 or done > total // 2:
            return
        deadline = time.monotonic() + 10          # the other chunks are queued: one starts soon
        while not killed and time.monotonic() < deadline:
            busy = ray_workers_running(raylet, "chunk_task")
            if busy:
                victim = busy[0]
                ours = {p.pid for p in psutil.Process(raylet).children(recursive=True)}
                assert victim.pid in ours, (victim.pid, raylet, ours)
                try:
                    victim.send_signal(signal.SIGKILL)   # psutil: only if still the same process
                except psutil.NoSuchProcess:             # its chunk ended just now: the next one
                    continue
                killed.append(victim)
            time.sleep(0.01)

    res = cluster.run(SPEC, "ray", out=tmp_path, progress=kill_a_busy_worker, timeout=60)
    assert killed, "no Ray worker was seen running a chunk"
    assert_gone(killed, 15)
    check_same_as_local(res, tmp_path, local_run)
    assert res.tally.chunks == SPEC.chunks()


def test_ray_threads_per_task(ray_cluster, local_run, tmp_path):
    res = cluster.run(SPEC, "ray", out=tmp_path, threads=2, timeout=60)
    assert res.timing["task_threads"] == 2 and res.timing["task_slots"] == 1
    check_same_as_local(res, tmp_path, local_run)
    # a task runs on one node: threads= must fit a node (the sum of several nodes' CPUs let
    # a task through that no node could take, and the run waited for ever: a tester's finding)
    with pytest.raises(cluster.ClusterError, match="no node of the Ray cluster has the 3 CPUs"):
        cluster.run(SPEC, "ray", out=tmp_path / "three", threads=3)    # (records need out=)


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_dead_ray_address_is_refused_at_once(tmp_path):
    """`--cluster ray` joins the cluster at RAY_ADDRESS (or the last `ray start`'s): ray.init
    waited on a dead head's address for minutes, whatever the timeout (over 200 s here: the
    last session's closing note). A TCP check of the address Ray's own lookup gives, and of a
    Ray Client address in RAY_ADDRESS, refuses it at once. In a fresh interpreter: this one's
    Ray may be initialised by the fixture above."""
    importorskip("ray", "ray")
    dead = free_port()                    # (nothing listens there)
    code = ("import os, sys, time; from fastgo import cluster; from fastgo import Simulation\n"
            "for address in sys.argv[1:]:\n"
            "    os.environ['RAY_ADDRESS'] = address\n"
            "    t = time.monotonic()\n"
            "    try:\n"
            "        cluster.run(Simulation.new(100, 9, chunk=50), 'ray', timeout=2)\n"
            "    except cluster.ClusterError as e:\n"
            "        print(f'{time.monotonic() - t:.1f} {e}', flush=True)\n")
    env = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", RAY_USAGE_STATS_ENABLED="0")
    proc = subprocess.Popen([sys.executable, "-c", code, f"127.0.0.1:{dead}",
                             f"ray://127.0.0.1:{dead}"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    stdout, stderr = communicate(proc, 90)
    lines = stdout.splitlines()
    assert len(lines) == 2, stdout + stderr[-3000:]
    for line in lines:
        seconds, said = line.split(" ", 1)
        assert float(seconds) < 10
        assert said.startswith(f"cannot reach the Ray cluster (RAY_ADDRESS) at 127.0.0.1:{dead}")


def communicate(proc, timeout):
    """(stdout, stderr) of `proc` within `timeout` seconds; killed (and reaped) if it overruns."""
    try:
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=15)


def test_ray_client_address(local_run, tmp_path):
    # "ray://host:port": a Ray cluster started by `ray start --head` (its own processes and temp
    # directory) reached through its Ray Client server, from a fresh interpreter. Ray's token
    # authentication (on by default for local clusters since Ray 2.59) needs the same mode and
    # token on both sides, as for any Ray client.
    importorskip("ray", "ray")
    import secrets
    import shutil
    import tempfile
    gcs, client = free_port(), free_port()
    temp = tempfile.mkdtemp(prefix="fastgo-ray-")   # short: Ray's socket paths have a limit
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(16))
    head = subprocess.Popen(
        [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block",
         f"--port={gcs}", f"--ray-client-server-port={client}", "--num-cpus=2",
         "--node-ip-address=127.0.0.1", "--include-dashboard=false",
         f"--temp-dir={temp}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    watch = None
    code = ("import sys; from fastgo import cluster; from test_cluster import SPEC; "
            "res = cluster.run(SPEC, sys.argv[1], out=sys.argv[2], timeout=60); "
            "print(res.timing['engine'], res.timing['task_slots'])")
    try:
        watch = ClusterWatch([head.pid])
        deadline = time.monotonic() + 120
        while True:                               # the client server answers once the head is up
            proc = subprocess.Popen([sys.executable, "-c", code, f"ray://127.0.0.1:{client}",
                                     str(tmp_path / "out")], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env=env,
                                    cwd=os.path.dirname(__file__))
            watch.add(proc.pid)
            stdout, stderr = communicate(proc, 300)
            if proc.returncode == 0 or time.monotonic() > deadline or head.poll() is not None:
                break
            time.sleep(2)
        assert proc.returncode == 0, stderr[-3000:]
        assert stdout.split()[-2:] == ["ray", "2"]
        check_same_as_local(records.read(tmp_path / "out"), tmp_path / "out", local_run)
    finally:
        if watch is not None:
            watch.stop()
        head.terminate()                          # `ray start --block` stops its cluster
        try:
            head.wait(60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait(15)
        shutil.rmtree(temp, ignore_errors=True)
    sockets = watch.assert_localhost_only()
    everywhere = set().union(*sockets.values())
    assert ("127.0.0.1", gcs) in everywhere and ("127.0.0.1", client) in everywhere
    watch.assert_all_gone(60)                     # terminating the head stopped its cluster
