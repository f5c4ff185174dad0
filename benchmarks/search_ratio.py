"""Playouts a second inside a UCT search over bare fastgo.playouts, in one process, to alternate
between two builds: 9x9 Chinese, n playouts each of bare, RAVE search, UCT search, bare (CPU time
for one thread, wall clock for more); prints each rate and the searches' ratios to the mean bare
rate.

    PYTHONPATH=OLD/src python benchmarks/search_ratio.py 20000 2 uniform
    PYTHONPATH=NEW/src python benchmarks/search_ratio.py 20000 2 uniform   # and again, alternating
"""

import sys
import time

import fastgo
from fastgo.search import Search

if len(sys.argv) <= 3 or sys.argv[1] in ("-h", "--help"):   # the docstring is the usage
    print(__doc__)
    sys.exit(0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2)
n, threads, policy = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
b = fastgo.Board(9, rules="chinese")
fastgo.playouts(b, 2000, threads=threads, policy=policy)
clock = time.process_time if threads == 1 else time.perf_counter
rates = {}
for what in ("bare", "rave", "uct", "bare"):
    t = clock()
    if what == "bare":
        fastgo.playouts(b, n, threads=threads, seed=1, policy=policy)
    else:
        Search(b, threads=threads, seed=1, policy=policy, rave=what == "rave").search(playouts=n)
    rates.setdefault(what, []).append(n / (clock() - t))
bare = sum(rates["bare"]) / 2
print(" ".join(f"{k} {sum(v) / len(v):.0f}" for k, v in rates.items()),
      " ".join(f"{k}/bare={rates[k][0] / bare:.3f}" for k in ("rave", "uct")))
