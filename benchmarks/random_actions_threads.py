"""random_actions on one thread against two, on whatever else the machine is running (the
standard: more threads never slower than fewer on a busy machine): a random legal mask of
`--rows` x 362 (19x19), the best of 5 calls a way, alternated `--rounds` times.

    python benchmarks/random_actions_threads.py [--rows 16384] [--rounds 3]
"""
import argparse
import time

import numpy as np

import fastgo


def best_ms(mask, threads, calls=5):
    best = float("inf")
    for _ in range(calls):
        t = time.perf_counter()
        fastgo.random_actions(mask, seed=1, threads=threads)
        best = min(best, time.perf_counter() - t)
    return 1e3 * best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rows", type=int, default=16384)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    mask = np.random.default_rng(0).random((a.rows, 362)) < 0.5
    for _ in range(a.rounds):
        one, two = best_ms(mask, 1), best_ms(mask, 2)
        print(f"threads 1: {one:.2f} ms  threads 2: {two:.2f} ms  two/one speed {one / two:.2f}")


if __name__ == "__main__":
    main()
