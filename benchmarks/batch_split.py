"""Where a BoardBatch game-step's time goes: legal_mask(out=), random_actions and step timed
apart, one thread, after 300 warm-up turns; nanoseconds a game-step.

    python benchmarks/batch_split.py [--size 9] [--ko positional] [--games 1024] [--steps 400]

Run it at several --games to see when the games' memory stops fitting in the caches.
"""
import argparse
import time

import numpy as np

from fastgo import BoardBatch, random_actions


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--ko", default="positional", choices=("simple", "positional", "situational"))
    ap.add_argument("--games", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=400)
    a = ap.parse_args()
    n = a.games
    batch = BoardBatch(n, a.size, threads=1, ko=a.ko)
    mask = np.empty((n, a.size * a.size + 1), dtype=np.bool_)
    acts = np.empty(n, dtype=np.int64)
    for k in range(300):
        batch.legal_mask(out=mask)
        random_actions(mask, 10 ** 6 + k, out=acts, threads=1)
        batch.step(acts)
    spent = [0.0, 0.0, 0.0]
    for k in range(a.steps):
        t0 = time.perf_counter()
        batch.legal_mask(out=mask)
        t1 = time.perf_counter()
        random_actions(mask, k, out=acts, threads=1)
        t2 = time.perf_counter()
        batch.step(acts)
        t3 = time.perf_counter()
        spent[0] += t1 - t0
        spent[1] += t2 - t1
        spent[2] += t3 - t2
    ns = [1e9 * x / (a.steps * n) for x in spent]
    print(f"{a.size}x{a.size} ko={a.ko} n={n}: ns a game-step: legal_mask {ns[0]:.0f}, "
          f"random_actions {ns[1]:.0f}, step {ns[2]:.0f}; {a.steps * n / sum(spent):,.0f} game-steps/s")


if __name__ == "__main__":
    main()
