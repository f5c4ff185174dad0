"""Command line (``fastgo COMMAND --help`` for each): ``bench`` measures playouts per second (the
main job); ``demo`` plays a random game and scores it through the Python API; ``count`` counts or
estimates legal positions; ``perft`` counts move sequences; ``gtp`` speaks GTP v2; ``replay``
replays SGF records under the rules; ``simulate`` plays a bulk run (locally, on Dask or Ray)."""

import argparse
import json
import math
import os
import sys
import time
from fractions import Fraction

import numpy as np

from fastgo.board import Board
from fastgo.errors import os_error_text
from fastgo.playout import CORES, KO_CHOICES, playouts, default_threads, _MAX_THREADS
from fastgo.rules import PRESETS, Rules


def _seed_option(seed):
    """--seed as the playouts use it: an int between -2**1000 and 2**1000, taken modulo 2**64
    (the seed printed is the one used)."""
    if not -2**1000 <= seed <= 2**1000:
        raise ValueError("--seed must be an integer between -2**1000 and 2**1000 (it is taken "
                         "modulo 2**64)")
    return seed % 2**64


def cmd_demo(args):
    """One random game: the playout kernel plays it (its policy: uniform over the allowed
    moves, own eyes kept), then Board.play replays it through the Python API, which scores it."""
    args.seed = _seed_option(args.seed)
    rules = args.rules.replace(komi=args.komi)
    board = Board(args.size, args.height, rules=rules)
    t0 = time.perf_counter()
    game = playouts(board, 1, seed=args.seed, threads=1, record=1)
    t1 = time.perf_counter()
    for move in game.moves[0].tolist():
        board.play(move)
    t2 = time.perf_counter()
    turns = int(game.lengths[0])
    score = board.score()
    print(board)
    print()
    print(f"{board.width}x{board.height}, {rules}, seed {args.seed}")
    print(f"{turns} turns: played by the playout kernel in {(t1 - t0) * 1e3:.2f} ms, replayed "
          f"through Board.play in {(t2 - t1) * 1e3:.2f} ms ({(t2 - t1) / max(turns, 1) * 1e6:.2f} "
          f"us a turn); game over: {board.is_over}")
    print(f"captures: black {board.captures[0]}, white {board.captures[1]}")
    names = {0: "tie", 1: "black", 2: "white"}
    print(f"score: black {score.black:g}, white {score.white:g} -> {names[score.winner]}"
          + (f" by {abs(score.margin):g}" if score.winner else ""))
    return 0


def _big_int(n):
    """n with thousands separators, however many digits (Python refuses to convert ints of more
    than 4300 digits to text unless told; a 10 x 1000 count has about 4600)."""
    from fastgo.count import _big_text
    return _big_text(n, ",")


def cmd_count(args):
    """Exact count of legal positions (transfer-matrix sweep), or a Monte Carlo estimate."""
    import resource
    from fastgo import count as fc
    w, h = args.width, args.height
    if args.estimate is None and (args.seed is not None or args.confidence is not None):
        raise ValueError("--seed and --confidence apply to --estimate N only")
    if (args.checkpoint or args.resume) and (args.estimate is not None or args.brute or args.games):
        raise ValueError("--checkpoint and --resume apply to the exact count only")
    if args.max_memory is not None and (args.estimate is not None or args.brute or args.games):
        raise ValueError("--max-memory applies to the exact count only")
    if args.rules_name != "tromp-taylor" and not args.games:
        raise ValueError("--rules applies to --games only")
    if args.estimate is not None:
        t0 = time.perf_counter()
        e = fc.estimate_legal_fraction(w, h, args.estimate,
                                       seed=0 if args.seed is None else args.seed,
                                       confidence=0.95 if args.confidence is None else args.confidence,
                                       threads=args.threads)
        dt = time.perf_counter() - t0
        total = 3 ** (w * h)
        print(f"legal positions on {w}x{h}, Monte Carlo: {e.legal:,} of {e.samples:,} uniformly "
              f"random colourings legal (seed {e.seed})")
        print(f"fraction {e.fraction:.5%}; {e.confidence:.4g} Wilson score interval "
              f"[{e.low:.5%}, {e.high:.5%}]")
        print(f"count about {e.fraction * total:.4e} in [{e.low * total:.4e}, "
              f"{e.high * total:.4e}] of 3^{w * h} colourings")
        print(f"{dt:.2f} s, {e.samples / dt:,.0f} boards/s on {_threads_run(args)} thread(s)")
        return 0
    if args.brute:
        t0 = time.perf_counter()
        n = fc.count_legal_positions_brute(w, h, threads=args.threads)
        dt = time.perf_counter() - t0
        print(f"legal positions on {w}x{h}: {n:,} (brute force over all 3^{w * h} = "
              f"{3 ** (w * h):,} colourings, {dt:.2f} s on {_threads_run(args)} thread(s))")
        return 0
    if args.games:
        from fastgo.gametree import count_games
        t0 = time.perf_counter()
        n = count_games(w, h, args.rules, threads=args.threads)
        print(f"complete games on {w}x{h} under {args.rules_name} rules: {n:,} "
              f"({time.perf_counter() - t0:.2f} s on {_threads_run(args)} thread(s))")
        return 0
    if min(w, h) > fc.MAX_FRONTIER:
        raise ValueError(f"board size {w}x{h} out of range for the exact count: its shorter side "
                         f"may be at most {fc.MAX_FRONTIER}; estimate the fraction of legal "
                         f"positions with --estimate N")
    if args.resume is not None and not any(os.path.exists(os.path.join(args.resume, name))
                                           for name in ("sweep.json", "plan.json",
                                                        "result.json")):
        raise ValueError(f"--resume {args.resume}: no checkpoint there (sweep.json, plan.json or "
                         f"result.json); "
                         f"start the count with --checkpoint {args.resume}")
    if args.max_memory is not None and not 0 < args.max_memory < float("inf"):
        raise ValueError(f"--max-memory must be a positive number of GiB, got {args.max_memory}")
    # in exact arithmetic: GiB times 2^30 overflows a float past 1.7e299 (any size is allowed;
    # more than the machine has sets no bound of its own)
    max_bytes = None if args.max_memory is None else int(Fraction(args.max_memory) * 2 ** 30)
    s = fc.count_legal_positions_stats(w, h, threads=1 if args.threads is None else args.threads,
                                       checkpoint=args.checkpoint or args.resume,
                                       max_bytes=max_bytes, progress=_progress_bar(sys.stderr))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rss /= 2 ** 20 if sys.platform == "darwin" else 2 ** 10        # bytes there, KiB on Linux
    print(f"legal positions on {w}x{h}: {_big_int(s.count)}")
    print(f"fraction of the 3^{w * h} colourings: {s.count / 3 ** (w * h):.6g}")
    print(f"transfer-matrix sweep along the {s.frontier}-point side, {w * h} points: border states "
          f"peak {s.peak_states:,}, summed over the points {s.total_states:,} (a state and its "
          f"colour swap counted once)")
    if s.passes > 1:
        print(f"counted modulo 2^{64 * s.limbs}, then modulo primes below 2^63 in {s.passes - 1} "
              f"more pass(es) (exact counts do not fit in memory), joined by the Chinese "
              f"remainder theorem")
    passes = f" in {s.passes} passes" if s.passes > 1 else ""
    print(f"{s.seconds:.3f} s on {s.threads} thread(s){passes}; state tables at most "
          f"{s.table_bytes / 2 ** 20:.1f} MiB; process peak RSS {rss:.0f} MiB")
    return 0


def _progress_bar(out):
    """A SweepProgress callback: on a terminal one line redrawn after every point, elsewhere (a
    log) one line per row."""
    tty = out.isatty()

    def clock(seconds):
        seconds = int(seconds)
        return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"

    def show(p):
        done = p.row * p.cols + p.col + 1
        total = p.rows * p.cols
        if not tty and p.col != p.cols - 1:
            return
        bar = "#" * (20 * done // total) + "." * (20 - 20 * done // total)
        eta = "?" if p.eta is None else clock(p.eta)
        sweep = f"pass {p.sweep + 1}/{p.sweeps} " if p.sweeps > 1 else ""
        line = (f"[{bar}] {sweep}row {p.row + 1}/{p.rows} point {p.col + 1}/{p.cols}, "
                f"{p.states:,} states, {clock(p.seconds)} elapsed, ETA {eta}")
        print(("\r" + line + "\033[K") if tty else line, end="" if tty else "\n", file=out,
              flush=True)
        if tty and done == total:
            print(file=out)
    return show


def cmd_perft(args):
    """Legal move sequences of a given length (perft), in total or per first move."""
    try:
        return _perft(args)
    except OverflowError as e:          # a count past the walk's 64-bit counter
        print(f"fastgo perft: {e}", file=sys.stderr)
        return 1


def _perft(args):
    from fastgo.gametree import perft, perft_divide
    board = Board(args.size, args.height, rules=args.rules)
    for move in args.moves.split() if args.moves else []:
        board.play(move)
    t0 = time.perf_counter()
    if args.divide:
        parts = perft_divide(board, args.depth)
        for move, n in parts.items():
            print(f"{move}: {n:,}")
        n = sum(parts.values())
    else:
        n = perft(board, args.depth)
    print(f"perft({args.depth}) on {board.width}x{board.height}, {args.rules_name} rules: {n:,} "
          f"({time.perf_counter() - t0:.3f} s)")
    return 0


def _threads_run(args):
    """The threads a job asked for with --threads (all cores without) runs on: at most the
    cores this process may use (fastgo.playout.CORES)."""
    return min(args.threads or default_threads(), CORES)


def _thread_counts(text):
    """"1,all" -> [1, cores]; duplicates dropped, order kept."""
    out = []
    for part in text.split(","):
        part = part.strip().lower()
        if part != "all" and not (part.isascii() and part.isdigit()):
            raise ValueError(f"--threads takes thread counts and 'all', separated by commas, "
                             f"not {text!r}")
        n = default_threads() if part == "all" else int(part)
        if not 1 <= n <= _MAX_THREADS:
            raise ValueError(f"--threads: thread counts must be 1..{_MAX_THREADS}, got {n}")
        if n not in out:
            out.append(n)
    return out


def cmd_bench(args):
    """Run the same seeded playouts once per thread count and report the rates."""
    try:
        return _bench(args)
    except MemoryError:
        print("fastgo bench: out of memory (try a smaller --count)", file=sys.stderr)
        return 1


def _bench(args):
    if not (math.isfinite(args.seconds) and 0 < args.seconds <= 86400):
        raise ValueError(f"--seconds must be a number of seconds in (0, 86400], got {args.seconds}")
    if args.count is not None and not 1 <= args.count <= 2**31 - 1:
        raise ValueError(f"--count must be 1..{2**31 - 1}, got {args.count}")
    rules = args.rules.replace(komi=args.komi)
    board = Board(args.size, args.height, rules=rules)
    ko = rules.ko if args.ko == "rules" else args.ko
    threads = _thread_counts(args.threads)
    args.seed = _seed_option(args.seed)
    playouts(board, 200, seed=args.seed + 1, threads=max(threads), ko=args.ko)    # warm up
    count = args.count
    if count is None:       # calibrate: about args.seconds on one thread, from a probe of 0.2 s
        n = 500
        while True:
            probe = playouts(board, n, seed=args.seed + 2, threads=1, ko=args.ko)
            if probe.seconds >= min(0.2, args.seconds / 4) or n >= 2**24:
                break
            n *= 4
        rate = n / max(probe.seconds, 1e-9)
        count = min(2**31 - 1, max(1000, int(math.ceil(args.seconds * rate / 1000)) * 1000))
    if not args.json:
        print(f"fastgo bench: {board.width}x{board.height}, {args.rules_name} rules, komi {rules.komi:g}, "
              f"ko in playouts: {ko}, {count:,} playouts per run, seed {args.seed}")
        print(f"{'threads':>7} {'seconds':>8} {'playouts/s':>11} {'playouts/min':>13} {'moves/s':>12} "
              f"{'mean moves':>10} {'ended by 2 passes':>17}")
    first, rates, used = None, {}, {}
    for t in threads:
        r = playouts(board, count, seed=args.seed, threads=t, ko=args.ko)
        used[t] = r.threads
        moves = int(r.lengths.sum())
        row = {"size": board.width, "width": board.width, "height": board.height,
               "rules": args.rules_name, "ko": ko, "komi": rules.komi, "seed": args.seed,
               "threads": r.threads, "threads_asked": t, "playouts": count, "seconds": r.seconds,
               "playouts_per_second": count / r.seconds, "playouts_per_minute": 60 * count / r.seconds,
               "moves_per_second": moves / r.seconds, "mean_moves": moves / count,
               "capped": int(r.capped.sum()), "ended_by_passes": 1 - float(r.capped.mean())}
        rates[t] = row["playouts_per_second"]
        if first is None:
            first = r
        # the same seed must give the same games whatever the thread count
        row["same_results_as_first_run"] = bool(np.array_equal(r.scores, first.scores)
                                                and np.array_equal(r.lengths, first.lengths))
        if args.json:
            print(json.dumps(row))
        else:
            print(f"{r.threads:>7} {r.seconds:>8.3f} {row['playouts_per_second']:>11,.0f} "
                  f"{row['playouts_per_minute']:>13,.0f} {row['moves_per_second']:>12,.0f} "
                  f"{row['mean_moves']:>10.1f} {100 * row['ended_by_passes']:>16.2f}%")
        if not row["same_results_as_first_run"]:
            print("error: results differ between thread counts", file=sys.stderr)
            return 1
    if not args.json and 1 in rates and len(rates) > 1:
        t = max(rates)
        if used[t] > 1:
            print(f"speed-up, {used[t]} threads over 1: {rates[t] / rates[1]:.2f}x; identical "
                  f"results on every thread count")
        else:           # (one core, or a build without OpenMP: every run had one thread)
            print("identical results on every thread count (each ran on one thread here)")
    if not args.json and max(threads) > CORES:
        print(f"(more threads than the {CORES} core(s) this process may use are not started)")
    return 0


def _board_options(p):
    """The board a subcommand plays on: size, height, rules preset (main() turns it into Rules)."""
    p.add_argument("--size", type=int, default=9, help="board width (default 9)")
    p.add_argument("--height", type=int, default=None, help="board height (default: width)")
    p.add_argument("--rules", dest="rules_name", default="tromp-taylor",
                   help=f"rules preset: {', '.join(sorted(PRESETS))} (default tromp-taylor)")
    p.add_argument("--komi", type=float, default=None)


def _handle_pending_signals():
    """Nothing: entering a Python function runs the signal handlers pending for this thread. A
    Ctrl-C that reached another thread (an OpenMP worker) as a command ended (`fastgo gtp` at
    the end of its input) is then this command's, not a traceback at the interpreter's exit."""


def main(argv=None):
    parser = argparse.ArgumentParser(prog="fastgo", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    bench = sub.add_parser("bench", help="measure random playouts per second (the main job)")
    _board_options(bench)
    bench.add_argument("--ko", default="rules", choices=KO_CHOICES,
                       help="ko rule inside the playouts (default: the rules' own)")
    bench.add_argument("--count", type=int, default=None,
                       help="playouts per run (default: about --seconds on one thread)")
    bench.add_argument("--seconds", type=float, default=2.0, help="target run time on one thread")
    bench.add_argument("--threads", default="1,all",
                       help="comma-separated thread counts to run, 'all' = every core (default 1,all)")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--json", action="store_true", help="one JSON object per run")
    bench.set_defaults(func=cmd_bench)
    demo = sub.add_parser("demo", help="play and score a random game")
    _board_options(demo)
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=cmd_demo)
    count = sub.add_parser("count", help="count legal positions exactly, or estimate the fraction",
                           description="Count the legal positions of a WIDTH x HEIGHT board "
                           "exactly (a transfer-matrix sweep; shorter side at most 16, memory "
                           "allowing), by brute force, or estimate their fraction by Monte Carlo; "
                           "or count the complete games of a tiny board (--games).")
    count.add_argument("width", type=int)
    count.add_argument("height", type=int)
    how = count.add_mutually_exclusive_group()
    how.add_argument("--estimate", type=int, metavar="N", default=None,
                     help="Monte Carlo estimate from N random boards instead of the exact count")
    how.add_argument("--brute", action="store_true",
                     help="count by testing every colouring (at most 20 points)")
    count.add_argument("--seed", type=int, default=None, help="seed of the estimate (default 0)")
    count.add_argument("--confidence", type=float, default=None,
                       help="confidence of the estimate's interval (default 0.95)")
    count.add_argument("--threads", type=int, default=None,
                       help="threads (default: 1 for the exact sweep, all cores for --estimate, "
                       "--brute and --games)")
    how.add_argument("--games", action="store_true",
                     help="count the complete games on the empty board instead (tiny boards)")
    count.add_argument("--rules", dest="rules_name", default="tromp-taylor",
                       help="rules preset of --games (default tromp-taylor: positional superko)")
    count.add_argument("--max-memory", type=float, metavar="GIB", default=None,
                       help="GiB the exact count's state tables may take (default: 75%% of the "
                       "memory available); when exact counts do not fit, the board is swept "
                       "several times with counts modulo 2^64k and primes")
    where = count.add_mutually_exclusive_group()
    where.add_argument("--checkpoint", metavar="DIR", default=None,
                       help="save the exact count's border states to DIR after every row, and "
                       "resume from DIR if it holds a checkpoint of this board")
    where.add_argument("--resume", metavar="DIR", default=None,
                       help="resume the exact count checkpointed in DIR (and go on saving there)")
    count.set_defaults(func=cmd_count)
    perft = sub.add_parser("perft", help="count legal move sequences of a given length")
    _board_options(perft)
    perft.add_argument("depth", type=int, help="turns per sequence (passes included)")
    perft.add_argument("--moves", default="", help="moves played first, e.g. \"C3 pass B2\"")
    perft.add_argument("--divide", action="store_true", help="the count below each first move")
    perft.set_defaults(func=cmd_perft)
    from fastgo import gtp as _gtp, sgf as _sgf    # pure Python, cheap to import
    gtp = sub.add_parser("gtp", help="speak GTP v2 on stdin/stdout (a Monte Carlo demo player)")
    _gtp.add_command(gtp)                          # option errors: the subcommand's usage
    replay = sub.add_parser("replay", help="replay SGF records, checking every move; print each "
                            "final position and its score")
    _sgf.add_command(replay)
    simulate = sub.add_parser("simulate", help="bulk random games here or on a Dask or Ray "
                              "cluster: statistics, shards, plots")
    _board_options(simulate)
    from fastgo import cluster as _cluster       # imports dask/ray only when a run asks
    _cluster.add_command(simulate)
    for command in sub.choices.values():
        # a bad option value is reported with the usage of the subcommand that took it
        command.set_defaults(command_parser=command)
    args = parser.parse_args(argv)
    if hasattr(args, "rules_name"):
        try:
            args.rules = Rules.preset(args.rules_name)
        except ValueError as e:
            args.command_parser.error(str(e))
    try:
        code = args.func(args)
        _handle_pending_signals()
        return code
    except ValueError as e:                 # a bad option value: usage and reason, status 2
        args.command_parser.error(str(e))       # (a TypeError, a bug, keeps its traceback)
    except MemoryError as e:                # a count's tables, a run's records
        print(f"fastgo {args.command}: {e or 'out of memory'}", file=sys.stderr)
        return 1
    except OSError as e:                    # a full disk, a checkpoint directory gone mid-count
        print(f"fastgo {args.command}: {os_error_text(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # every long command (count, perft, bench, demo, replay) ends the same way on Ctrl-C;
        # simulate says first where its finished shards are
        print(f"fastgo {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
