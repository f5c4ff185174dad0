"""Two threads against one on BoardBatch.step: the step alone and the whole random-play turn
(legal_mask(out=) + random_actions + step), median microseconds a turn of n games.

    python benchmarks/batch_threads.py [--size 9] [--ko positional] [--games 1024] [--rounds 3]

Each round builds a fresh batch per thread count (one, then two, then the other order next
round), plays 300 warm-up turns, then 400 timed ones. The batch picks one thread by itself
while two are slower (BoardBatch's thread choice), so a two-thread figure counts only the turns
that did run on two; the number of those is printed beside it.
"""
import argparse
import time

import numpy as np

from fastgo import BoardBatch, random_actions


def run(size, ko, n, threads, turns=400, warm=300):
    """(median step µs, median turn µs, turns that ran on `threads`) for a fresh batch."""
    batch = BoardBatch(n, size, threads=threads, ko=ko)
    mask = np.empty((n, size * size + 1), dtype=np.bool_)
    acts = np.empty(n, dtype=np.int64)
    steps, whole = [], []
    for k in range(warm + turns):
        began = time.perf_counter()
        batch.legal_mask(out=mask)
        random_actions(mask, 10 ** 6 + k, out=acts, threads=threads)
        used = batch._adaptation()[0]
        before = time.perf_counter()
        batch.step(acts)
        end = time.perf_counter()
        if k >= warm and used == threads:
            steps.append(end - before)
            whole.append(end - began)
    if not steps:
        return float("nan"), float("nan"), 0
    return np.median(steps) * 1e6, np.median(whole) * 1e6, len(steps)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--ko", default="positional", choices=("simple", "positional", "situational"))
    ap.add_argument("--games", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    for r in range(a.rounds):
        got = {}
        for t in ((1, 2) if r % 2 == 0 else (2, 1)):
            got[t] = run(a.size, a.ko, a.games, t)
        (s1, w1, _), (s2, w2, c2) = got[1], got[2]
        print(f"round {r}: step {s1:.0f} / {s2:.0f} us ({s1 / s2:.2f}x), whole turn {w1:.0f} / "
              f"{w2:.0f} us ({w1 / w2:.2f}x); two threads ran {c2} of 400 turns", flush=True)


if __name__ == "__main__":
    main()
