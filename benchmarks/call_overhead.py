"""What a call costs beyond the games' work: BoardBatch calls on a batch of one game, the
Gymnasium single-game env's step with a random legal policy, and `playouts` of no playout and of
one (9x9, three stones in); microseconds a call, the best of three runs.

    python benchmarks/call_overhead.py [--calls 30000]

Small batches and single-game environments (GoEnv, the PettingZoo env) pay this on every turn,
so it is measured apart from the game-steps of benchmarks/batch_rate.py.
"""
import argparse
import time

import numpy as np

from fastgo import Board, BoardBatch, playouts, random_actions


def per_call(f, calls):
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(calls):
            f()
        best = min(best, (time.perf_counter() - t) / calls)
    return 1e6 * best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--calls", type=int, default=30000)
    a = ap.parse_args()
    batch = BoardBatch(1, 9, threads=1)
    mask = np.empty((1, 82), dtype=np.bool_)
    acts = np.zeros(1, dtype=np.int64)
    passes = np.array([81], dtype=np.int64)
    print(f"BoardBatch(1, 9).step(pass): {per_call(lambda: batch.step(passes), a.calls):.2f} us")
    print(f"legal_mask(out=): {per_call(lambda: batch.legal_mask(out=mask), a.calls):.2f} us")
    print(f"random_actions(out=, threads=1): "
          f"{per_call(lambda: random_actions(mask, 1, out=acts, threads=1), a.calls):.2f} us")
    board = Board(9)
    for move in ("E5", "C3", "G7"):
        board.play(move)
    for n in (0, 1):
        print(f"playouts(board, {n}, threads=1): "
              f"{per_call(lambda: playouts(board, n, threads=1), a.calls // 3):.2f} us")
    try:
        from fastgo.envs.gym_envs import GoEnv
    except ImportError:             # the gym extra is not installed
        return
    env = GoEnv(9)
    state = {"obs": env.reset(seed=0)[0]}
    rng = np.random.default_rng(0)

    def turn():
        legal = np.flatnonzero(state["obs"]["action_mask"])
        obs, _, term, trunc, _ = env.step(int(legal[rng.integers(len(legal))]))
        state["obs"] = env.reset()[0] if term or trunc else obs

    print(f"GoEnv(9).step with a random legal policy: {per_call(turn, a.calls // 6):.2f} us")


if __name__ == "__main__":
    main()
