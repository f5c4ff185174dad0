"""What limits the playout kernel's speed, by probes around its own code (kernel_probe.pyx: the
kernel's playout_pick and board_play in a plain turn loop). Alternated rounds, CPU time, the
median of each variant against the plain loop:

    taskset -c 1 python benchmarks/kernel_probe.py [--size 9] [--games 100000] [--rounds 3]

- lanes 2, 4, 8: playouts interleaved a turn each in one thread. No gain means the kernel does
  not wait on chains of dependent loads and stores that other games' work could fill.
- pad 1, 3: 40 or 120 independent additions a turn: the cost of an instruction at the margin.
- branches 1, 2: one or two branches a turn on a fresh random bit (each mispredicted half the
  time): the cost of a mispredicted branch.
- draws: how many points the kernel draws a turn, by the class of the point (an empty
  neighbour; only the mover's stones beside it; only the opponent's; both) and how many of
  each the policy allows: the events its unpredictable branches decide.
- verdict 1, 2: the verdict on a drawn point without branches (vs the kernel's sequence of
  early tests): whether trading branches for work pays.

First checks that the plain loop plays exactly fastgo.playouts' games (the same lengths and
wins for seed 1), so the probes measure the kernel itself. Builds the .pyx with Cython into
build/kernel_probe (x86-64 and GCC or clang: the probes are inline assembly). Needs the package
built in place (`python setup.py build_ext --inplace`).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.join(ROOT, "build", "kernel_probe")

SETUP = """
import numpy as np
from setuptools import setup, Extension
from Cython.Build import cythonize
setup(script_args=["build_ext", "--inplace", "--build-temp", "tmp"],
      ext_modules=cythonize([Extension("kernel_probe", [{src!r}], extra_compile_args=["-O3"],
                                       include_dirs=[np.get_include(), {inc!r}])],
                            include_path=[{inc!r}], build_dir="c", quiet=True))
"""

VARIANTS = [("plain", {}), ("lanes 2", {"lanes": 2}), ("lanes 4", {"lanes": 4}),
            ("lanes 8", {"lanes": 8}), ("pad 40", {"pad": 1}), ("pad 120", {"pad": 3}),
            ("1 branch", {"branches": 1}), ("2 branches", {"branches": 2}),
            ("verdict, no branch", {"verdict": 1}), ("verdict after the free test", {"verdict": 2})]


def build():
    os.makedirs(BUILD, exist_ok=True)
    src = os.path.join(HERE, "kernel_probe.pyx")
    code = SETUP.format(src=src, inc=os.path.join(ROOT, "src"))
    r = subprocess.run([sys.executable, "-c", code], cwd=BUILD, capture_output=True, text=True)
    if r.returncode:
        sys.exit(r.stdout + r.stderr)
    sys.path.insert(0, BUILD)
    import kernel_probe
    return kernel_probe


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "src"))
    import numpy as np
    import fastgo
    probe = build()

    n = min(a.games, 2000)
    r = fastgo.playouts(fastgo.Board(a.size), n, seed=1, threads=1, ko="simple")
    turns, wins = probe.run(a.size, n)
    if (turns, wins) != (int(np.sum(r.lengths)), int(np.sum(r.winners == fastgo.BLACK))):
        sys.exit(f"the probe's games differ from fastgo.playouts': {(turns, wins)}")
    print(f"{a.size}x{a.size}, {a.games} playouts a round, {a.rounds} rounds; the plain loop plays "
          f"fastgo.playouts' games ({turns / n:.1f} turns a game)")

    turns, classes = probe.draws(a.size, n)
    if turns != probe.run(a.size, n)[0]:
        sys.exit("the counting loop's games differ from the kernel's")
    print(f"draws a turn by the drawn point's class (drawn, allowed), {n} playouts:")
    for name, (drawn, allowed) in classes.items():
        print(f"  {name:16} {drawn / turns:6.3f} {allowed / turns:6.3f}")
    times = {name: [] for name, _ in VARIANTS}
    moves = None
    for _ in range(a.rounds):
        for name, kw in VARIANTS:
            t = time.process_time()
            turns, _ = probe.run(a.size, a.games, **kw)
            times[name].append((time.process_time() - t) / turns)
            moves = moves or turns
    base = statistics.median(times["plain"])
    print(f"{'variant':30} {'ns a turn':>10} {'vs plain':>9}")
    for name, _ in VARIANTS:
        t = statistics.median(times[name])
        print(f"{name:30} {t * 1e9:10.2f} {base / t:9.3f}")


if __name__ == "__main__":
    main()
