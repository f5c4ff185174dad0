"""Games per second of one bulk run through fastgo.simulate (threads=2), fastgo.cluster's local
engine, a Dask cluster (LocalCluster: worker processes, one thread each) and a Ray cluster
(ray.init), all on this machine, and the per-chunk overhead of each engine.

    python benchmarks/cluster_speed.py --seconds 20 [--size 9] [--workers 2] [--json]

The run is sized to about --seconds on `--workers` threads of fastgo.simulate; the cluster runs
play the same spec (the same games: their statistics are checked equal) in chunks of about
--chunk-seconds of one core. Overhead per chunk: (wall x task slots - kernel seconds) / chunks,
from a second run of many tiny chunks. Not a test: speed is only meaningful side by side.
"""

import argparse
import json
import os
import sys

import fastgo
from fastgo import cluster
from fastgo.simulation import Simulation


def simulate_rate(spec, threads):
    r = fastgo.simulate(spec.games, spec.board.width, seed=spec.seed, threads=threads, ownership=True)
    return spec.games / r.seconds, r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk-seconds", type=float, default=2.0)
    ap.add_argument("--tiny-chunks", type=int, default=200)
    ap.add_argument("--engines", default="dask,ray")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    w = a.workers
    probe = Simulation.new(20_000, a.size, seed=1)
    rate, _ = simulate_rate(probe, w)
    games = int(rate * a.seconds)
    spec = Simulation.new(games, a.size, seed=1)
    one_core = rate / w
    chunk = max(1, int(one_core * a.chunk_seconds))
    rows = []

    def row(name, games_per_s, extra):
        rows.append({"engine": name, "games": games, "games_per_second": games_per_s, **extra})
        if not a.json:
            print(f"{name:<22} {games_per_s:>12,.0f} games/s  {extra}", flush=True)

    base, ref = simulate_rate(spec, w)
    row(f"simulate threads={w}", base, {})
    res = cluster.run(spec.replace(chunk=chunk * w), threads=w)
    row("cluster local", res.timing["games_per_second"], {"chunks": res.timing["chunks"],
        "ratio_to_simulate": round(res.timing["games_per_second"] / base, 3)})
    engines = {}
    if "dask" in a.engines:
        from distributed import Client, LocalCluster
        lc = LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                          dashboard_address=None, host="127.0.0.1")
        engines["dask"] = (Client(lc), lambda c=lc: c.close())
    for name in a.engines.split(","):
        if name == "ray":
            os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"    # servers on 127.0.0.1
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            import ray
            ray.init(address="local", num_cpus=w, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
            engines["ray"] = ("ray", ray.shutdown)
        if name not in engines:
            continue
        target, close = engines[name]
        try:
            warm = cluster.run(Simulation.new(200, a.size, chunk=50), target)     # imports, pools
            del warm
            res = cluster.run(spec.replace(chunk=chunk), target, timeout=120)
            same = res.tally.wins.tolist()[1] == int((ref.winners == 1).sum())
            row(name, res.timing["games_per_second"],
                {"chunks": res.timing["chunks"], "chunk_games": chunk,
                 "ratio_to_simulate": round(res.timing["games_per_second"] / base, 3),
                 # the share of the task slots' wall time spent in the kernel
                 "kernel_share": round(res.timing["kernel_seconds"] / (
                     res.timing["run_seconds"] * res.timing["task_slots"]), 3),
                 "same_black_wins": same})
            tiny = cluster.run(Simulation.new(a.tiny_chunks * 20, a.size, chunk=20), target,
                               timeout=120)
            row(f"{name} tiny chunks", tiny.timing["games_per_second"],
                {"chunks": tiny.timing["chunks"],
                 "overhead_per_chunk_ms": round(1e3 * tiny.timing["overhead_per_chunk_seconds"], 2)})
        finally:
            close()
    base2, _ = simulate_rate(spec, w)
    row(f"simulate threads={w} again", base2, {})
    if a.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
