"""Instructions a move inside the playout kernel, counted by callgrind (repeatable, unlike time).

    python benchmarks/kernel_instructions.py [--size 9] [--ko simple] [--games 1200]

Runs `fastgo.playouts(Board(size), games, seed=3, threads=1, ko=ko)` under
``valgrind --tool=callgrind`` collecting only inside the kernel's per-playout function (copy of
the start, the moves, the score), and divides by the moves played. The same seed plays the same
games on every commit whose rules and policy agree, so two builds compare move for move.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

KERNEL = "__pyx_f_6fastgo_7playout__one"
CHILD = ("import sys, numpy as np, fastgo; n, size, ko = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3];"
         "r = fastgo.playouts(fastgo.Board(size), n, seed=3, threads=1, ko=ko);"
         "print('moves', int(np.sum(r.lengths)))")


def valgrind(options, child, args):
    """Run `python -c child *args` under valgrind with `options` (the tool and its output file),
    one thread, fixed hash seed; returns the completed process (stdout, stderr: valgrind's
    summary)."""
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return subprocess.run(["valgrind", *options, sys.executable, "-c", child, *map(str, args)],
                          capture_output=True, text=True, env=env, check=True)


def callgrind(function, child, args, keep=None):
    """Run `python -c child *args` under callgrind collecting only inside the C `function` (or
    each of a tuple of functions, none called inside another); returns (instructions collected,
    the child's stdout). `keep`: a path to copy the output to."""
    functions = (function,) if isinstance(function, str) else function
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        r = valgrind(["--tool=callgrind", *(f"--toggle-collect={f}" for f in functions),
                      f"--callgrind-out-file={out}"], child, args)
        if keep:
            shutil.copy(out, keep)
    return int(re.search(r"Collected : (\d+)", r.stderr).group(1)), r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--ko", default="simple", choices=("simple", "positional", "situational"))
    ap.add_argument("--games", type=int, default=1200)
    a = ap.parse_args()
    instructions, stdout = callgrind(KERNEL, CHILD, [a.games, a.size, a.ko])
    moves = int(re.search(r"moves (\d+)", stdout).group(1))
    print(f"{a.size}x{a.size} ko={a.ko}: {instructions / moves:.1f} instructions a move "
          f"({a.games} games, {moves} moves, {instructions} instructions in {KERNEL})")


if __name__ == "__main__":
    main()
