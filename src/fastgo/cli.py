"""Command line: ``fastgo demo`` plays and scores a random game through the Python API."""

import argparse
import sys
import time

import numpy as np

from fastgo.board import Board
from fastgo.rules import PRESETS, Rules


def own_eyes(board):
    """Bool mask [points] of empty points whose on-board neighbours are all the mover's stones."""
    g = board.stones()
    me = board.to_move
    h, w = g.shape
    pad = np.full((h + 2, w + 2), me, dtype=np.int8)     # off-board counts as the mover's
    pad[1:-1, 1:-1] = g
    eye = (g == 0) & (pad[:-2, 1:-1] == me) & (pad[2:, 1:-1] == me) \
        & (pad[1:-1, :-2] == me) & (pad[1:-1, 2:] == me)
    return eye.ravel()


def random_game(board, rng, max_turns=None):
    """Play uniformly random legal moves that do not fill one of the mover's own one-point eyes,
    passing when none is left, until two passes end the game or `max_turns` turns are played."""
    max_turns = 3 * board.num_points if max_turns is None else max_turns
    n = board.num_points
    mask = np.empty(n + 1, dtype=bool)
    turns = 0
    while not board.is_over and turns < max_turns:
        board.legal_mask(out=mask)
        mask[:n] &= ~own_eyes(board)
        candidates = np.flatnonzero(mask[:n])
        board.play(int(rng.choice(candidates)) if len(candidates) else n)
        turns += 1
    return turns


def cmd_demo(args):
    rules = args.rules.replace(komi=args.komi)
    board = Board(args.size, args.height, rules=rules)
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    turns = random_game(board, rng)
    dt = time.perf_counter() - t0
    score = board.score()
    print(board)
    print()
    print(f"{board.width}x{board.height}, {rules}, seed {args.seed}")
    print(f"{turns} turns in {dt * 1e3:.1f} ms ({dt / max(turns, 1) * 1e6:.1f} us per turn of a "
          f"Python loop whose numpy eye filter dominates); game over: {board.is_over}")
    print(f"captures: black {board.captures[0]}, white {board.captures[1]}")
    names = {0: "tie", 1: "black", 2: "white"}
    print(f"score: black {score.black:g}, white {score.white:g} -> {names[score.winner]}"
          + (f" by {abs(score.margin):g}" if score.winner else ""))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="fastgo", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play and score a random game")
    demo.add_argument("--size", type=int, default=9, help="board width (default 9)")
    demo.add_argument("--height", type=int, default=None, help="board height (default: width)")
    demo.add_argument("--rules", default="tromp-taylor", type=Rules.preset,
                      help=f"rules preset: {', '.join(sorted(PRESETS))} (default tromp-taylor)")
    demo.add_argument("--komi", type=float, default=None)
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=cmd_demo)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as e:
        parser.error(str(e))


if __name__ == "__main__":
    sys.exit(main())
