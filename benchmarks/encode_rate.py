"""BoardBatch.encode alone, ns a game, per encoding and output dtype, as numbers to alternate
between two builds: n mid-game games (1,024 on 9x9 after 40 turns, 256 on 19x19 after 150) of
uniformly random play, one thread; each number is the fastest of REPS rounds of 10 calls.

    PYTHONPATH=OLD/src taskset -c 1 python benchmarks/encode_rate.py
    PYTHONPATH=NEW/src taskset -c 1 python benchmarks/encode_rate.py     # and again, alternating

Arguments: rounds (default 9), ko rule (default positional).
"""

import sys
import time

import numpy as np

from fastgo import BoardBatch, random_actions
from fastgo.features import ENCODINGS

if sys.argv[1:2] in (["-h"], ["--help"]):       # the docstring is the usage
    print(__doc__)
    sys.exit(0)
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 9
ko = sys.argv[2] if len(sys.argv) > 2 else "positional"
for size, n, warm in ((9, 1024, 40), (19, 256, 150)):
    batch = BoardBatch(n, size, threads=1, ko=ko)
    mask = np.empty((n, size * size + 1), dtype=np.bool_)
    acts = np.empty(n, dtype=np.int64)
    for k in range(warm):
        batch.legal_mask(out=mask)
        random_actions(mask, k, out=acts, threads=1)
        batch.step(acts)
    for encoding in ENCODINGS:
        for dtype in (np.float32, np.uint8):
            out = np.empty((n, ENCODINGS[encoding], size, size), dtype=dtype)
            batch.encode(encoding, out=out)
            best = float("inf")
            for _ in range(reps):
                t0 = time.perf_counter()
                for _ in range(10):
                    batch.encode(encoding, out=out)
                best = min(best, (time.perf_counter() - t0) / 10 / n * 1e9)
            print(f"{size}x{size} {ko} {encoding:10s} {np.dtype(dtype).name:7s} {best:8.1f} ns/game")
