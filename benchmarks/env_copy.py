"""GoVectorEnv's step with and without copies of its observations (copy=True / copy=False),
alternated in rounds: microseconds a step of --games 9x9 games (agz17 float32 planes), random
legal actions drawn by fastgo.random_actions from the observation's action mask.

    python benchmarks/env_copy.py [--games 1024] [--size 9] [--threads 2] [--steps 200] [--rounds 5]

Each round times --steps steps of a fresh env of each kind (after 20 untimed steps); the
figures are the per-round medians of the step times. Only the ratio is meaningful on a shared
machine.
"""
import argparse
import statistics
import time

import fastgo
from fastgo.envs import GoVectorEnv


def step_times(games, size, threads, steps, copy, seed):
    env = GoVectorEnv(games, size, threads=threads, copy=copy)
    obs, _ = env.reset(seed=seed)
    times = []
    for i in range(20 + steps):
        actions = fastgo.random_actions(obs["action_mask"].view(bool), seed + i)   # int8 0/1
        t = time.perf_counter()
        obs, _, _, _, _ = env.step(actions)
        if i >= 20:
            times.append(time.perf_counter() - t)
    env.close()
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1024)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    res = {True: [], False: []}
    for r in range(a.rounds):
        for copy in (True, False):
            res[copy].append(step_times(a.games, a.size, a.threads, a.steps, copy, r))
    for copy in (True, False):
        us = [t * 1e6 for t in res[copy]]
        print(f"copy={copy!s:5}: {statistics.median(us):8.1f} us a step (rounds {min(us):.1f}-{max(us):.1f})")
    ratios = [t / f for t, f in zip(res[True], res[False])]
    print(f"copy=True / copy=False: median {statistics.median(ratios):.2f} "
          f"({min(ratios):.2f}-{max(ratios):.2f}), {a.games} {a.size}x{a.size} games, "
          f"threads={a.threads}")


if __name__ == "__main__":
    main()
