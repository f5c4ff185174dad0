"""Where the playout kernel's branches go wrong, per source line: cachegrind's branch simulator
over seeded playouts, mapped from the generated C back to the .pxd/.pyx lines.

    python benchmarks/kernel_branches.py [--size 9] [--ko simple] [--games 600] [--top 20]
                                         [--sort instructions]
    python benchmarks/kernel_branches.py --batch [--ko positional] [--games 256] [--steps 200]

Runs `fastgo.playouts(Board(size), games, seed=3, threads=1, ko=ko)` under
``valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes`` and prints, per move, the
instructions, conditional branches and simulated mispredictions of the kernel (the code of
playout.c), then the source lines with the most mispredictions. With `--batch`, the same for
``BoardBatch`` (the code of batch.c) per game-step of batch_instructions.py's loop
(``legal_mask``, ``random_actions``, ``step`` on one thread; the Python around them is not
counted). The simulator's predictor is simpler than a real core's, so this is a map of the
data-dependent branches, not a forecast of time: only alternated timing (playout_rate.py,
batch_split.py) decides whether a change is faster. Needs the package built in place (the
generated C under build/cython).
"""
import argparse
import collections
import os
import re
import tempfile

from batch_instructions import CHILD as BATCH_CHILD
from kernel_instructions import CHILD, valgrind

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CFILES = {False: os.path.join(ROOT, "build", "cython", "src", "fastgo", "playout.c"),
          True: os.path.join(ROOT, "build", "cython", "src", "fastgo", "batch.c")}


def source_map(cfile):
    """C line -> 'fastgo/file.pxd:line' from the markers Cython writes before each source line."""
    mapping, cur = {}, "?"
    with open(cfile) as f:
        for i, line in enumerate(f, 1):
            m = re.match(r'\s*/\* "(fastgo/[\w.]+)":(\d+)', line)
            if m:
                cur = f"{m.group(1)}:{m.group(2)}"
            mapping[i] = cur
    return mapping


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--ko", choices=("simple", "positional", "situational"),
                    help="ko rule (default: simple for playouts, positional for --batch)")
    ap.add_argument("--games", type=int, help="playouts (default 600), or games of the batch (256)")
    ap.add_argument("--batch", action="store_true", help="BoardBatch's code instead of the playouts'")
    ap.add_argument("--steps", type=int, default=200, help="steps of the batch (--batch)")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--sort", default="mispredicted", choices=("mispredicted", "instructions"),
                    help="order of the source lines")
    a = ap.parse_args()
    ko = a.ko or ("positional" if a.batch else "simple")
    games = a.games or (256 if a.batch else 600)
    cfile = CFILES[a.batch]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cachegrind.out")
        child, args = (BATCH_CHILD, [games, a.size, ko, a.steps]) if a.batch else (CHILD, [games, a.size, ko])
        r = valgrind(["--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
                      f"--cachegrind-out-file={out}"], child, args)
        moves = int(re.search(r"(?:moves|steps) (\d+)", r.stdout).group(1))
        mapping = source_map(cfile)
        counts = collections.defaultdict(lambda: [0] * 5)       # Ir Bc Bcm Bi Bim
        fl = None
        with open(out) as f:
            for line in f:
                if line.startswith("fl="):
                    fl = line[3:].strip()
                    continue
                m = re.match(r"^(\d+)((?: \d+)+)$", line.strip())
                if m and fl and os.path.basename(fl) == os.path.basename(cfile):
                    for j, v in enumerate(map(int, m.group(2).split())):
                        counts[mapping.get(int(m.group(1)), "?")][j] += v
    total = [sum(v[j] for v in counts.values()) for j in range(3)]
    unit = "game-step" if a.batch else "move"
    what = f"{games} games x {a.steps} steps" if a.batch else f"{games} games"
    print(f"{a.size}x{a.size} ko={ko}, {what}, {moves} {unit}s; per {unit}: "
          f"{total[0] / moves:.1f} instructions, {total[1] / moves:.2f} conditional branches, "
          f"{total[2] / moves:.2f} mispredicted (simulated)")
    column = 2 if a.sort == "mispredicted" else 0
    for key, v in sorted(counts.items(), key=lambda kv: -kv[1][column])[:a.top]:
        text = ""
        if ":" in key:
            path, line = key.rsplit(":", 1)
            try:
                with open(os.path.join(ROOT, "src", path)) as f:
                    text = f.read().split("\n")[int(line) - 1].strip()[:70]
            except OSError:
                pass
        print(f"{v[0] / moves:6.1f} instructions {v[2] / moves:6.3f} mispredicted "
              f"({v[1] / moves:5.2f} branches) a {unit}  {key:24s} {text}")


if __name__ == "__main__":
    main()
