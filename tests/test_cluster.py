"""The same runs on real clusters on 127.0.0.1: a Dask scheduler with two worker processes, and
a Ray cluster of two CPUs. Statistics and shards must equal the local run's byte for byte, also
when a worker process is SIGKILLed in the middle of the run. Every process these tests start is
stopped by its pid, and every wait is bounded."""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from fastgo import cluster, records
from fastgo.simulation import Simulation

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


# -- Dask ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    distributed = pytest.importorskip("distributed")
    d = tmp_path_factory.mktemp("dask")
    sched_file = str(d / "scheduler.json")
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False")
    common = ["--no-dashboard"]
    procs = [subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                               "--port", "0", "--scheduler-file", sched_file, *common],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)]
    try:
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
        client = distributed.Client(address, timeout=60, set_as_default=False)
        client.wait_for_workers(2, timeout=90)
        yield address, client, procs[1:]
        client.close()
    finally:
        stop(procs)


def test_dask_run_equals_local(dask_cluster, local_run, tmp_path):
    address, _, _ = dask_cluster
    res = cluster.run(SPEC, "dask://" + address.split("://")[1], out=tmp_path, timeout=60)
    assert res.timing["engine"] == "dask" and res.timing["task_slots"] == 2
    check_same_as_local(res, tmp_path, local_run)


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


# -- Ray -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    from ray._private import ray_constants
    ray_constants.ENABLE_RAY_CLUSTER = False      # in case ray was imported before this module
    # address="local": always a new cluster of our own, never one a ray_current_cluster file names
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:")
        yield ray
    finally:
        ray.shutdown()


def ray_workers_running(name):
    """pids of this user's Ray worker processes now running a task of function `name` (Ray
    titles a busy worker ``ray::<function>``)."""
    import psutil
    out = []
    for p in psutil.process_iter(["pid", "cmdline"]):
        cmd = p.info["cmdline"] or []
        if cmd and cmd[0].startswith(f"ray::{name}"):
            out.append(p.info["pid"])
    return out


def test_ray_run_equals_local(ray_cluster, local_run, tmp_path):
    res = cluster.run(SPEC, "ray", out=tmp_path, timeout=60)
    assert res.timing["engine"] == "ray" and res.timing["task_slots"] == 2
    check_same_as_local(res, tmp_path, local_run)


def test_ray_sigkill_of_a_worker(ray_cluster, local_run, tmp_path):
    killed = []

    def kill_a_busy_worker(done, total):
        if killed or done == 0 or done > total // 2:
            return
        deadline = time.monotonic() + 10          # the other chunks are queued: one starts soon
        while not killed and time.monotonic() < deadline:
            busy = ray_workers_running("chunk_task")
            if busy:
                os.kill(busy[0], signal.SIGKILL)
                killed.append(busy[0])
            time.sleep(0.01)

    res = cluster.run(SPEC, "ray", out=tmp_path, progress=kill_a_busy_worker, timeout=60)
    assert killed, "no Ray worker was seen running a chunk"
    check_same_as_local(res, tmp_path, local_run)
    assert res.tally.chunks == SPEC.chunks()


def test_ray_threads_per_task(ray_cluster, local_run, tmp_path):
    res = cluster.run(SPEC, "ray", out=tmp_path, threads=2, timeout=60)
    assert res.timing["task_threads"] == 2 and res.timing["task_slots"] == 1
    check_same_as_local(res, tmp_path, local_run)
    with pytest.raises(cluster.ClusterError, match="fewer than threads=3"):
        cluster.run(SPEC, "ray", threads=3)


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ray_client_address(local_run, tmp_path):
    # "ray://host:port": a Ray cluster started by `ray start --head` (its own processes and temp
    # directory) reached through its Ray Client server, from a fresh interpreter. Ray's token
    # authentication (on by default for local clusters since Ray 2.59) needs the same mode and
    # token on both sides, as for any Ray client.
    pytest.importorskip("ray")
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
    code = ("import sys; from fastgo import cluster; from test_cluster import SPEC; "
            "res = cluster.run(SPEC, sys.argv[1], out=sys.argv[2], timeout=60); "
            "print(res.timing['engine'], res.timing['task_slots'])")
    try:
        deadline = time.monotonic() + 120
        while True:                               # the client server answers once the head is up
            done = subprocess.run([sys.executable, "-c", code, f"ray://127.0.0.1:{client}",
                                   str(tmp_path / "out")], capture_output=True, text=True,
                                  env=env, cwd=os.path.dirname(__file__), timeout=300)
            if done.returncode == 0 or time.monotonic() > deadline or head.poll() is not None:
                break
            time.sleep(2)
        assert done.returncode == 0, done.stderr[-3000:]
        assert done.stdout.split()[-2:] == ["ray", "2"]
        check_same_as_local(records.read(tmp_path / "out"), tmp_path / "out", local_run)
    finally:
        head.terminate()                          # `ray start --block` stops its cluster
        try:
            head.wait(60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait(15)
        shutil.rmtree(temp, ignore_errors=True)
