"""What a chunk's result costs the process that gathers a bulk run: the pickled size of one
chunk's Tally and the time of Tally.merge, chunks arriving in order (as a cluster run merges them).

    python benchmarks/tally_cost.py [--size 9] [--games 20000] [--chunks 2000]

Plays one chunk of --games games (ownership counted, as the cluster runs' default), then merges
--chunks copies of its tally, each relabelled as the next chunk, into an empty tally.
"""
import argparse
import copy
import pickle
import time

from fastgo.simulation import Simulation, Tally, play_chunk


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--chunks", type=int, default=2000)
    a = ap.parse_args()
    spec = Simulation.new(a.games * a.chunks, a.size, seed=1)
    tally, _, _ = play_chunk(spec, 0, a.games, threads=1)
    size = len(pickle.dumps(tally, protocol=pickle.HIGHEST_PROTOCOL))
    parts = []
    for i in range(a.chunks):
        t = copy.copy(tally)
        t.chunks = [(i * a.games, (i + 1) * a.games)]
        parts.append(t)
    total = Tally.empty(spec)
    t0 = time.perf_counter()
    for t in parts:
        total.merge(t)
    merge = (time.perf_counter() - t0) / a.chunks
    assert total.games == a.games * a.chunks
    print(f"{a.size}x{a.size}, chunks of {a.games} games: a tally pickles to {size:,} bytes; "
          f"a merge takes {merge * 1e3:.3f} ms ({a.chunks} chunks merged in order)")


if __name__ == "__main__":
    main()
