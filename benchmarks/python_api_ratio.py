"""The per-move Python API side by side with OpenSpiel's (issue 10): the loop a user writes,
a random game driven from Python, on `fastgo.Board` and on OpenSpiel's `go`, alternated.

    taskset -c 1 python benchmarks/python_api_ratio.py [--size 9] [--rounds 5] [--games 400]

Each round plays `games` seeded games on each engine, one after the other, and times them by
the process's CPU clock. A game: the legal moves asked for (`Board.legal_moves()`;
`State.legal_actions()`), one drawn uniformly by `random.Random.choice`, played
(`Board.play`; `State.apply_action`), until the game ends (two passes; OpenSpiel also ends a
game at its `max_game_length`, 2 x points turns). The figure is microseconds a move, and the
ratio OpenSpiel's / fastgo's; then the same ratio of the engines' own time, each loop less the
same calls made on no engine (a C call returning a new list of 40 moves, the draw, a C call
taking the move), timed in the same round: what the draw and the interpreter cost is the same
for both and hides how the engines compare. fastgo runs two rule sets: its default (Tromp-Taylor: positional
superko, suicide allowed), and simple ko with suicide forbidden, which is what OpenSpiel's `go`
judges (a ko point, no suicide). Needs OpenSpiel (`pip install open_spiel`).
"""

import argparse
import sys
import collections
import random
import statistics
import time

import fastgo


def fastgo_games(size, games, seed, rules):
    rng = random.Random(seed)
    moves = 0
    for _ in range(games):
        b = fastgo.Board(size, rules=rules)
        while not b.is_over:
            b.play(rng.choice(b.legal_moves()))
            moves += 1
    return moves


def openspiel_games(game, games, seed):
    rng = random.Random(seed)
    moves = 0
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
            moves += 1
    return moves


def null_games(moves_a_game, games, seed):
    """The loop's own cost: the same calls (a new list of 40 moves, a draw, a one-argument C
    call) on no engine, as many moves a game as the engine measured played."""
    rng = random.Random(seed)
    legal = list(range(40)).copy         # C calls, as the engines' methods are
    play = collections.deque(maxlen=0).append
    moves = 0
    for _ in range(games):
        for _ in range(moves_a_game):
            play(rng.choice(legal()))
            moves += 1
    return moves


def timed(fn, *args):
    t = time.process_time()
    moves = fn(*args)
    return (time.process_time() - t) / moves * 1e6, moves


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", type=int, default=None,
                    help="games a round and engine (default 400 on 9x9, 40 on 19x19)")
    a = ap.parse_args()
    try:
        import pyspiel
    except ImportError:
        sys.exit("python_api_ratio.py runs OpenSpiel beside fastgo: pip install open_spiel")
    games = a.games or (400 if a.size <= 9 else 40)
    game = pyspiel.load_game("go", {"board_size": a.size, "komi": 7.5})
    engines = {
        "openspiel": lambda seed: timed(openspiel_games, game, games, seed),
        "fastgo tromp-taylor": lambda seed: timed(fastgo_games, a.size, games, seed,
                                                  fastgo.Rules()),
        "fastgo simple ko, no suicide": lambda seed: timed(
            fastgo_games, a.size, games, seed, fastgo.Rules(ko="simple", suicide=False)),
    }
    for name, run in engines.items():       # warm-up (imports, caches)
        run(0)
    per_move = {name: [] for name in engines}
    lengths = {}
    for r in range(a.rounds):
        row = []
        for name, run in engines.items():
            us, moves = run(r + 1)
            per_move[name].append(us)
            lengths[name] = moves / games
            row.append(f"{name} {us:.2f} us")
        print(f"round {r + 1}: " + ", ".join(row))
        null, _ = timed(null_games, round(lengths["openspiel"]), games, r + 1)
        per_move["no engine"] = per_move.get("no engine", []) + [null]
        print(f"         no engine (the loop's own calls) {null:.2f} us")
    base = statistics.median(per_move["openspiel"])
    print(f"{a.size}x{a.size}, {games} games a round, medians of {a.rounds} rounds "
          f"(moves a game in the last round):")
    for name, v in per_move.items():
        if name == "no engine":
            continue
        ratios = sorted(o / x for o, x in zip(per_move["openspiel"], v))
        # the engine's own time: the loop less the same calls on no engine, round by round
        own = sorted((o - z) / (x - z) for o, x, z in
                     zip(per_move["openspiel"], v, per_move["no engine"]))
        print(f"  {name:30s} {statistics.median(v):6.2f} us a move ({lengths[name]:.1f} moves);"
              f" OpenSpiel / this {base / statistics.median(v):.2f}x"
              f" (per round {ratios[0]:.2f}-{ratios[-1]:.2f}x); the engines' own time"
              f" {statistics.median(own):.2f}x ({own[0]:.2f}-{own[-1]:.2f}x)")


if __name__ == "__main__":
    main()
