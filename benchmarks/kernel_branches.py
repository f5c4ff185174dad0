"""Where the playout kernel's branches go wrong, per source line: cachegrind's branch simulator
over seeded playouts, mapped from the generated C back to the .pxd/.pyx lines.

    python benchmarks/kernel_branches.py [--size 9] [--ko simple] [--games 600] [--top 20]
                                         [--sort instructions]

Runs `fastgo.playouts(Board(size), games, seed=3, threads=1, ko=ko)` under
``valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes`` and prints, per move, the
instructions, conditional branches and simulated mispredictions of the kernel (the code of
playout.c), then the source lines with the most mispredictions. The simulator's predictor is
simpler than a real core's, so this is a map of the data-dependent branches, not a forecast of
time: only alternated timing (playout_rate.py) decides whether a change is faster. Needs the
package built in place (the generated C under build/cython).
"""
import argparse
import collections
import os
import re
import tempfile

from kernel_instructions import CHILD, valgrind

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CFILE = os.path.join(ROOT, "build", "cython", "src", "fastgo", "playout.c")


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
    ap.add_argument("--ko", default="simple", choices=("simple", "positional", "situational"))
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--sort", default="mispredicted", choices=("mispredicted", "instructions"),
                    help="order of the source lines")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cachegrind.out")
        r = valgrind(["--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
                      f"--cachegrind-out-file={out}"], CHILD, [a.games, a.size, a.ko])
        moves = int(re.search(r"moves (\d+)", r.stdout).group(1))
        mapping = source_map(CFILE)
        counts = collections.defaultdict(lambda: [0] * 5)       # Ir Bc Bcm Bi Bim
        fl = None
        with open(out) as f:
            for line in f:
                if line.startswith("fl="):
                    fl = line[3:].strip()
                    continue
                m = re.match(r"^(\d+)((?: \d+)+)$", line.strip())
                if m and fl and os.path.basename(fl) == "playout.c":
                    for j, v in enumerate(map(int, m.group(2).split())):
                        counts[mapping.get(int(m.group(1)), "?")][j] += v
    total = [sum(v[j] for v in counts.values()) for j in range(3)]
    print(f"{a.size}x{a.size} ko={a.ko}, {a.games} games, {moves} moves; per move: "
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
              f"({v[1] / moves:5.2f} branches) a move  {key:24s} {text}")


if __name__ == "__main__":
    main()
