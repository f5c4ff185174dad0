"""Playouts a CPU-second on one thread, as one number to alternate between two builds:
`fastgo.playouts(Board(size), count, seed=1, threads=1, ko=ko)` after a 2,000-playout warm-up,
timed by the process's CPU clock (so a job on the other core moves it less than wall time).

    PYTHONPATH=OLD/src python benchmarks/playout_rate.py 9 simple 300000
    PYTHONPATH=NEW/src python benchmarks/playout_rate.py 9 simple 300000     # and again, alternating

Arguments: size, ko rule of the playouts, playouts (default 300,000).
"""

import sys
import time

import fastgo

if len(sys.argv) <= 2 or sys.argv[1] in ("-h", "--help"):   # the docstring is the usage
    print(__doc__)
    sys.exit(0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2)
size, ko = int(sys.argv[1]), sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 300_000
board = fastgo.Board(size)
fastgo.playouts(board, 2000, threads=1, ko=ko)
t = time.process_time()
fastgo.playouts(board, count, seed=1, threads=1, ko=ko)
print(f"{count / (time.process_time() - t):.0f}")
