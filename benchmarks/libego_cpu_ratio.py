"""fastgo's playouts against libego 0.1.126's, both timed in CPU seconds of their own process.

    python benchmarks/libego_cpu_ratio.py [--size 9] [--rounds 5] [--ko simple|positional]

`../shared/bench/libego/compare.py` divides fastgo's wall-clock rate by libego's CPU-time rate,
which is fair only on an idle machine. Here both sides count the CPU time of the process that
plays (libego's own "kpps" line is user CPU time; fastgo's child reads time.process_time()
around one `fastgo.playouts(threads=1)` call), alternating, so a job on the other core moves
both alike. Prints each round's ratio and the median.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIBEGO = os.path.join(HERE, "..", "..", "shared", "bench", "libego")
CHILD = ("import sys, time, fastgo; n, size, ko = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3];"
         "b = fastgo.Board(size); fastgo.playouts(b, 1000, threads=1, ko=ko);"
         "t = time.process_time(); fastgo.playouts(b, n, seed=1, threads=1, ko=ko);"
         "print(n / (time.process_time() - t))")


def libego(exe, count):
    out = subprocess.run([exe, str(count)], capture_output=True, text=True, check=True).stdout
    return float(re.search(r"([\d.]+) kpps", out).group(1)) * 1000


def fastgo(size, count, ko):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", CHILD, str(count), str(size), ko],
                         capture_output=True, text=True, check=True, env=env).stdout
    return float(out.split()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--size", type=int, default=9, choices=(9, 19))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ko", default="simple", choices=("simple", "positional"))
    ap.add_argument("--libego", default=LIBEGO, help="libego's bench directory (build.sh, compare.py)")
    a = ap.parse_args()
    bindir = subprocess.run([os.path.join(a.libego, "build.sh")], capture_output=True, text=True,
                            check=True).stdout.strip()
    exe = os.path.join(bindir, f"libego-bench{a.size}")
    count = 400_000 if a.size == 9 else 80_000
    ratios = []
    for r in range(a.rounds):
        pair = [("libego", lambda: libego(exe, count)), ("fastgo", lambda: fastgo(a.size, count, a.ko))]
        got = dict((name, fn()) for name, fn in (pair if r % 2 == 0 else pair[::-1]))
        ratios.append(got["fastgo"] / got["libego"])
        print(f"round {r}: libego {got['libego']:,.0f}/s  fastgo {got['fastgo']:,.0f}/s  (CPU time)  "
              f"ratio {ratios[-1]:.3f}", flush=True)
    print(f"fastgo/libego {a.size}x{a.size} ko={a.ko}, CPU time: min {min(ratios):.3f} "
          f"median {statistics.median(ratios):.3f} max {max(ratios):.3f}")


if __name__ == "__main__":
    main()
