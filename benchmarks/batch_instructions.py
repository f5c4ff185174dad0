"""Instructions a game-step of ``BoardBatch`` (``step`` + ``legal_mask(out=...)``), counted by
callgrind (repeatable, unlike time).

    python benchmarks/batch_instructions.py [--size 9] [--ko positional] [--games 1024] [--steps 300]

Plays `steps` rounds of random legal play in `games` games on one thread (``legal_mask`` into a
preallocated buffer, ``random_actions`` from it, ``step``; next-step autoreset) under
``valgrind --tool=callgrind``, collecting only inside ``BoardBatch._judge_all`` and
``BoardBatch._run`` (step's C loops over the games: the judging of the actions, then the turns
and the masks they leave; the two are called one after the other, never one inside the other,
which would stop callgrind's toggle). Python's argument checks and numpy calls around them are
not counted. Divides by game-steps (games x steps). The seeds are
fixed, so two builds whose rules agree play the same games move for move.
"""
import argparse
import re

from kernel_instructions import callgrind

KERNEL = ("__pyx_f_6fastgo_5batch_10BoardBatch__judge_all", "__pyx_f_6fastgo_5batch_10BoardBatch__run")
CHILD = """
import sys, numpy as np, fastgo
from fastgo.batch import random_actions
n, size, ko, steps = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
batch = fastgo.BoardBatch(n, size, ko=ko, threads=1)
mask = np.empty((n, size * size + 1), dtype=np.bool_)
actions = np.empty(n, dtype=np.int64)
resets = 0
for t in range(steps):
    batch.legal_mask(out=mask)
    random_actions(mask, seed=t, out=actions, threads=1)
    resets += int(batch.step(actions).reset.sum())
print('steps', n * steps, 'resets', resets, 'hash', int(np.bitwise_xor.reduce(batch.hashes)))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--ko", default="positional", choices=("simple", "positional", "situational"))
    ap.add_argument("--games", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--keep", metavar="FILE", help="keep the callgrind output (for callgrind_annotate)")
    a = ap.parse_args()
    instructions, stdout = callgrind(KERNEL, CHILD, [a.games, a.size, a.ko, a.steps], keep=a.keep)
    m = re.search(r"steps (\d+) resets (\d+) hash (\d+)", stdout)
    steps = int(m.group(1))
    print(f"{a.size}x{a.size} ko={a.ko}: {instructions / steps:.1f} instructions a game-step "
          f"({a.games} games x {a.steps} steps, {m.group(2)} restarts, final hash xor {m.group(3)}; "
          f"{instructions} instructions in {' and '.join(KERNEL)})")


if __name__ == "__main__":
    main()
