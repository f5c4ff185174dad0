"""Two threads against one for playouts, beside what two cores give at best (issue 10's "at
least 1.9x on two idle cores"): the same seeded 9x9 playouts, wall-clock, in three ways a round:

    python benchmarks/thread_ceiling.py [--size 9] [--ko simple] [--count 200000] [--rounds 3]

- one thread: `fastgo.playouts(board, count, threads=1)` in one process;
- two threads: `playouts(board, 2 * count, threads=2)` in one process;
- the ceiling: two processes at once, each `playouts(board, count, threads=1)` pinned to its own
  core, started together (their playouts a second summed over the later one's end).

The ceiling is what the machine itself allows two independent single-thread jobs (a shared
cache and memory, the clock a busy chip runs at, other tenants of a VM); two threads over one
thread is what a user sees, and two threads over the ceiling what the project's threading loses.
Each way runs in a fresh process; the order of the three turns round by round.
"""
import argparse
import os
import statistics
import subprocess
import sys

CHILD = r"""
import os, sys, time
import fastgo
size, ko, count, threads, cpu = (int(sys.argv[1]), sys.argv[2], int(sys.argv[3]),
                                 int(sys.argv[4]), int(sys.argv[5]))
if cpu >= 0:
    os.sched_setaffinity(0, {cpu})
board = fastgo.Board(size)
fastgo.playouts(board, 2000, seed=1, threads=threads, ko=ko)           # warm up
sys.stdout.write("ready\n"); sys.stdout.flush()
sys.stdin.readline()                                                   # go
t = time.perf_counter()
fastgo.playouts(board, count, seed=2, threads=threads, ko=ko)
sys.stdout.write(f"{time.perf_counter() - t}\n")
"""


def run_together(jobs):
    """Start each (size, ko, count, threads, cpu) job in its own process, release them together
    once all are warm, and return their seconds."""
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, *map(str, job)], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE) for job in jobs]
    try:
        for p in procs:
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError("a benchmark process failed to start")
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        return [float(p.stdout.readline()) for p in procs]
    except BaseException:
        for p in procs:         # (an end of input would read as "go")
            p.kill()
        raise
    finally:
        for p in procs:
            try:
                p.stdin.close()
            except OSError:         # (a child gone: its pipe is broken)
                pass
            p.wait(timeout=60)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--ko", default="simple", choices=("simple", "positional", "situational"))
    ap.add_argument("--count", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        sys.exit("thread_ceiling.py needs two cores")
    ways = {
        "one thread": lambda: a.count / run_together([(a.size, a.ko, a.count, 1, -1)])[0],
        "two threads": lambda: 2 * a.count / run_together(
            [(a.size, a.ko, 2 * a.count, 2, -1)])[0],
        "ceiling": lambda: 2 * a.count / max(run_together(
            [(a.size, a.ko, a.count, 1, cpus[0]), (a.size, a.ko, a.count, 1, cpus[1])])),
    }
    rates = {name: [] for name in ways}
    names = list(ways)
    for r in range(a.rounds):
        order = names[r % 3:] + names[:r % 3]
        for name in order:
            rates[name].append(ways[name]())
        print(f"round {r + 1}: " + ", ".join(f"{n} {rates[n][-1]:,.0f}/s" for n in names),
              flush=True)
    two = [t / o for t, o in zip(rates["two threads"], rates["one thread"])]
    ceil = [c / o for c, o in zip(rates["ceiling"], rates["one thread"])]
    eff = [t / c for t, c in zip(rates["two threads"], rates["ceiling"])]
    print(f"{a.size}x{a.size} {a.ko} ko, {a.count:,} playouts a thread, medians of {a.rounds} "
          f"rounds (min-max):")
    for label, v in (("two threads / one thread", two), ("ceiling / one thread", ceil),
                     ("two threads / ceiling", eff)):
        print(f"  {label:26s} {statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})")


if __name__ == "__main__":
    main()
