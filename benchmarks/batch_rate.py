"""BoardBatch game-steps a second on the benchmark's workload, as one number to alternate between
two builds: n = 1024 games, legal_mask(out=) + random_actions + step, 40 (9x9) or 150 (19x19)
warm-up turns, then ROUNDS rounds of 20 steps; prints the median rate (wall clock).

    PYTHONPATH=OLD/src python benchmarks/batch_rate.py 9 2 positional
    PYTHONPATH=NEW/src python benchmarks/batch_rate.py 9 2 positional     # and again, alternating

Arguments: size, threads, ko rule, rounds (default 15), warm-up turns (default 40 on 9x9, 150
on 19x19; a thousand or more puts the games out of step, as in a long run).
"""

import sys
import time

import numpy as np

from fastgo import BoardBatch, random_actions

if len(sys.argv) <= 3 or sys.argv[1] in ("-h", "--help"):   # the docstring is the usage
    print(__doc__)
    sys.exit(0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2)
size, threads, ko = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 15
warm = int(sys.argv[5]) if len(sys.argv) > 5 else 40 if size == 9 else 150
N, STEPS = 1024, 20
batch = BoardBatch(N, size, threads=threads, ko=ko)
mask = np.empty((N, size * size + 1), dtype=np.bool_)
acts = np.empty(N, dtype=np.int64)
for k in range(warm):
    batch.legal_mask(out=mask)
    random_actions(mask, 10_000 + k, out=acts, threads=threads)
    batch.step(acts)
times = []
for r in range(rounds):
    t = time.perf_counter()
    for k in range(STEPS):
        batch.legal_mask(out=mask)
        random_actions(mask, r * STEPS + k, out=acts, threads=threads)
        batch.step(acts)
    times.append(time.perf_counter() - t)
print(f"{N * STEPS / float(np.median(times)):.0f}")
