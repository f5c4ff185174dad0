"""A small GTP referee: plays games between two GTP engines and checks them against each other.

Used by tests/test_gnugo.py (a few short games) and run as a script for the match against GNU Go:

    python tests/gtp_referee.py --games 20 --playouts 10000 --level 1

Each game: both engines get ``boardsize``, ``clear_board``, ``komi``; fastgo gets ``kgs-rules
chinese`` and GNU Go runs with ``--chinese-rules``. The side to move answers ``genmove``, the
other gets ``play``; both must accept every move. After every move, ``list_stones black`` and
``list_stones white`` of both engines must agree. The game ends with two passes or a
resignation. If after two passes GNU Go lists dead stones, both engines clean up with
``kgs-genmove_cleanup`` (capture every dead stone, then pass), so that the final position can be
counted stone by stone; then GNU Go's ``final_score`` is compared with fastgo's ``fastgo-score``
(area score of the position as it stands).
"""

import argparse
import importlib.util
import os
import queue
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# where the fastgo that `python -m fastgo` in a subprocess must run lives: the one this Python
# finds (installed, or src/ on PYTHONPATH), else the checkout's src/
_SPEC = importlib.util.find_spec("fastgo")
SRC = (os.path.dirname(os.path.dirname(_SPEC.origin)) if _SPEC and _SPEC.origin
       else os.path.join(os.path.dirname(HERE), "src"))


def find_gnugo():
    """Path of the GNU Go binary (Debian puts it in /usr/games, often not on PATH), or None."""
    path = shutil.which("gnugo")
    if path:
        return path
    for candidate in ("/usr/games/gnugo", "/usr/local/games/gnugo"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


class GtpFailure(Exception):
    """An engine answered '?' or broke the protocol."""


class GtpClient:
    """One engine process spoken to over GTP; ``ask`` returns the answer text of a success and
    raises ``GtpFailure`` for an error answer, a malformed answer or a timeout."""

    def __init__(self, argv, name, env=None, timeout=120.0):
        self.name = name
        self.timeout = timeout
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, env=env)
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()
        self.next_id = 1

    @staticmethod
    def _pump(stream, q):
        for line in stream:
            q.put(line)
        q.put(None)

    def _drain(self):
        for line in self.proc.stderr:
            self.stderr.append(line)

    def ask_raw(self, command):
        """(ok, text) for one command; the id is sent and checked."""
        ident = self.next_id
        self.next_id += 1
        self.proc.stdin.write(f"{ident} {command}\n")
        self.proc.stdin.flush()
        answer = []
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise GtpFailure(f"{self.name}: no answer to {command!r} in {self.timeout} s") from None
            if line is None:
                raise GtpFailure(f"{self.name} exited during {command!r}: {''.join(self.stderr)[-2000:]}")
            line = line.rstrip("\r\n")
            if not answer and not line:
                continue
            if not line:
                break
            answer.append(line)
        head = answer[0]
        status, _, rest = head.partition(" ")
        if status not in (f"={ident}", f"?{ident}"):
            raise GtpFailure(f"{self.name}: answer {head!r} to {command!r} does not carry id {ident}")
        text = "\n".join([rest] + answer[1:]).strip()
        return status[0] == "=", text

    def ask(self, command):
        ok, text = self.ask_raw(command)
        if not ok:
            raise GtpFailure(f"{self.name} refused {command!r}: {text}")
        return text

    def close(self):
        try:
            self.ask("quit")
        except (GtpFailure, OSError, ValueError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def fastgo_engine(playouts=2000, seed=0, extra=()):
    """A ``fastgo gtp`` process (``python -m fastgo gtp``, the command line that the ``fastgo``
    script runs) from this checkout's src/."""
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    argv = [sys.executable, "-m", "fastgo", "gtp", "--playouts", str(playouts), "--seed", str(seed),
            "--threads", "1", *extra]
    return GtpClient(argv, "fastgo", env=env)


def gnugo_engine(level=1, seed=1, gnugo=None, extra=()):
    """A GNU Go process in GTP mode under Chinese rules, with a fixed random seed."""
    gnugo = gnugo or find_gnugo()
    if gnugo is None:
        raise FileNotFoundError("gnugo is not installed")
    engine = GtpClient([gnugo, "--mode", "gtp", "--level", str(level), "--chinese-rules", *extra],
                       "gnugo")
    engine.ask(f"set_random_seed {seed}")
    return engine


def _stones(engine):
    return (frozenset(engine.ask("list_stones black").upper().split()),
            frozenset(engine.ask("list_stones white").upper().split()))


def parse_score(text):
    """GTP score "B+3.5" / "W+1" / "0" -> Black's margin (negative: White ahead)."""
    text = text.strip().upper()
    if text == "0":
        return 0.0
    side, _, value = text.partition("+")
    if side not in ("B", "W"):
        raise ValueError(f"bad score {text!r}")
    margin = float(value)
    return margin if side == "B" else -margin


def _stats_seconds(stats):
    """The search time in ``fastgo-stats``' first line ("move E5 winrate ... seconds 0.351")."""
    words = stats.split("\n", 1)[0].split()
    return float(words[words.index("seconds") + 1])


def _legal(engine, colour):
    if engine.name == "fastgo":
        return frozenset(engine.ask("fastgo-legal_moves").upper().split()) - {"PASS"}
    return frozenset(engine.ask(f"all_legal {colour}").upper().split()) - {"PASS"}


def play_game(fastgo, gnugo, fastgo_colour="black", size=9, komi=7.5, handicap=0, max_moves=400,
              cleanup_moves=200, check_legal=False, log=None):
    """Play one game; return a dict with the moves, how it ended and the scores. With
    `fastgo_colour` None GNU Go plays both colours and fastgo receives every move.

    Raises ``AssertionError`` when an engine refuses the other's move, the boards differ, the
    engines place different fixed handicap stones, or (`check_legal`) they disagree on the
    legal moves of the side to move."""
    for engine in (fastgo, gnugo):
        engine.ask(f"boardsize {size}")
        engine.ask("clear_board")
        engine.ask(f"komi {komi}")
    fastgo.ask("kgs-rules chinese")
    colour = "black"
    if handicap:
        a = set(fastgo.ask(f"fixed_handicap {handicap}").upper().split())
        b = set(gnugo.ask(f"fixed_handicap {handicap}").upper().split())
        assert a == b, f"fixed_handicap {handicap}: fastgo {sorted(a)}, gnugo {sorted(b)}"
        colour = "white"
    # fastgo_colour None: GNU Go plays both sides and fastgo only follows (and keeps score)
    engines = {c: fastgo if fastgo_colour == c else gnugo for c in ("black", "white")}
    moves = []
    passes = 0
    resigned = None
    legal_checks = 0
    main_moves = None
    phase = "genmove"
    cleanup_left = None
    think = []
    while True:
        mover = engines[colour]
        other = gnugo if mover is fastgo else fastgo
        move = mover.ask(f"{phase} {colour}").upper()
        if mover is fastgo and phase == "genmove":
            # fastgo's own thinking time for the move (read only: the game is not changed)
            think.append(_stats_seconds(fastgo.ask("fastgo-stats")))
        if move == "RESIGN":
            resigned = colour
            break
        ok, text = other.ask_raw(f"play {colour} {move}")
        assert ok, f"{other.name} refused {mover.name}'s move {len(moves) + 1} {colour} {move}: {text}"
        moves.append((colour, move))
        if log:
            log(f"{len(moves):3d} {mover.name:6s} {colour} {move}")
        a, b = _stones(fastgo), _stones(gnugo)
        assert a == b, (f"boards differ after move {len(moves)} {colour} {move}:\n"
                        f"fastgo black-white {sorted(a[0] - b[0])}/{sorted(a[1] - b[1])} "
                        f"gnugo {sorted(b[0] - a[0])}/{sorted(b[1] - a[1])}")
        passes = passes + 1 if move == "PASS" else 0
        colour = "white" if colour == "black" else "black"
        if check_legal and passes == 0 and phase == "genmove":
            la, lb = _legal(fastgo, colour), _legal(gnugo, colour)
            assert la == lb, (f"legal moves differ after move {len(moves)}: only fastgo "
                              f"{sorted(la - lb)}, only gnugo {sorted(lb - la)}")
            legal_checks += 1
        if cleanup_left is not None:
            cleanup_left -= 1
        if passes >= 2:
            if phase == "genmove" and gnugo.ask("final_status_list dead").strip():
                phase, passes, cleanup_left = "kgs-genmove_cleanup", 0, cleanup_moves
                main_moves = len(moves)
                continue
            break
        if len(moves) >= max_moves or cleanup_left == 0:
            break
    result = {"moves": moves, "resigned": resigned, "cleaned_up": phase != "genmove",
              "legal_checks": legal_checks, "handicap": handicap, "komi": komi, "size": size,
              "main_moves": len(moves) if main_moves is None else main_moves,
              "fastgo_colour": fastgo_colour, "passes": passes, "fastgo_seconds": think}
    if resigned:
        winner = "white" if resigned == "black" else "black"
        result["winner"] = winner
        result["margin"] = None
        return result
    result["gnugo_score"] = parse_score(gnugo.ask("final_score"))
    result["gnugo_dead"] = gnugo.ask("final_status_list dead").split()
    result["fastgo_area"] = parse_score(fastgo.ask("fastgo-score"))
    result["fastgo_final"] = parse_score(fastgo.ask("final_score"))
    margin = result["gnugo_score"]
    result["margin"] = margin
    result["winner"] = "black" if margin > 0 else "white" if margin < 0 else "tie"
    return result


def game_sgf(r, fastgo_name="fastgo", gnugo_name="GNU Go"):
    """An SGF record of a refereed game: the moves up to the two passes that ended play, the
    clean-up moves (if any) in a comment, GNU Go's final score as the result."""
    try:
        from fastgo import sgf, vertex_to_point, PRESETS
    except ImportError:
        sys.path.insert(0, SRC)
        from fastgo import sgf, vertex_to_point, PRESETS
    size = r["size"]
    moves = [(1 if c == "black" else 2, vertex_to_point(m, size, size))
             for c, m in r["moves"][:r["main_moves"]]]
    if r["resigned"]:
        result = f"{'W' if r['resigned'] == 'black' else 'B'}+R"
    else:
        m = r["gnugo_score"]
        result = "0" if m == 0 else f"{'B' if m > 0 else 'W'}+{abs(m):g}"
    names = {"PB": fastgo_name if r["fastgo_colour"] == "black" else gnugo_name,
             "PW": fastgo_name if r["fastgo_colour"] == "white" else gnugo_name}
    cleanup = r["moves"][r["main_moves"]:]
    if cleanup:
        names["GC"] = ("clean-up after the passes (kgs-genmove_cleanup): "
                       + " ".join(f"{c[0].upper()} {m}" for c, m in cleanup))
    return sgf.to_sgf(sgf.Game(width=size, height=size, komi=r["komi"], rules=PRESETS["chinese"],
                               moves=moves, result=result, info=names))


def main(argv=None):
    parser = argparse.ArgumentParser(description="fastgo gtp against GNU Go on 9x9 (Chinese rules)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--playouts", type=int, default=10000, help="fastgo playouts per move")
    parser.add_argument("--level", type=int, default=1, help="GNU Go level (default 1)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--seed", type=int, default=0, help="first seed; game i uses seed + i")
    parser.add_argument("--fastgo-args", default="", help="more fastgo gtp options, e.g. '--exploration 0.3'")
    parser.add_argument("--allow-resign", action="store_true",
                        help="let both engines resign (default: neither does, so every game is "
                             "counted to the end and has a margin)")
    parser.add_argument("--sgf-dir", default=None, help="write each game as DIR/game-NN.sgf")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.sgf_dir:
        os.makedirs(args.sgf_dir, exist_ok=True)
    if find_gnugo() is None:
        print("gnugo is not installed (Debian: apt-get install gnugo)", file=sys.stderr)
        return 2
    wins = losses = ties = 0
    margins = []
    think = []
    counted = agreed = 0
    t0 = time.monotonic()
    for i in range(args.games):
        colour = "black" if i % 2 == 0 else "white"
        no_resign = [] if args.allow_resign else ["--resign", "0"]
        fg = fastgo_engine(args.playouts, seed=args.seed + i, extra=no_resign + args.fastgo_args.split())
        gg = gnugo_engine(args.level, seed=args.seed + i + 1,
                          extra=[] if args.allow_resign else ["--never-resign"])
        try:
            r = play_game(fg, gg, colour, args.size, args.komi,
                          log=print if args.verbose else None)
        finally:
            fg.close()
            gg.close()
        if args.sgf_dir:
            with open(os.path.join(args.sgf_dir, f"game-{i + 1:02d}.sgf"), "w") as f:
                f.write(game_sgf(r, f"fastgo ({args.playouts} playouts/move)", f"GNU Go level {args.level}"))
        think += r["fastgo_seconds"]
        if not r["resigned"]:
            counted += 1
            agreed += r["fastgo_area"] == r["gnugo_score"] and not r["gnugo_dead"]
        won = r["winner"] == colour
        wins += won
        ties += r["winner"] == "tie"
        losses += not won and r["winner"] != "tie"
        own_margin = None
        if r["margin"] is not None:
            own_margin = r["margin"] if colour == "black" else -r["margin"]
            margins.append(own_margin)
        how = (f"{r['resigned']} resigned" if r["resigned"] else
               f"GNU Go final_score {r['gnugo_score']:+g} (Black's view), fastgo area "
               f"{r['fastgo_area']:+g}" + (" after clean-up" if r["cleaned_up"] else ""))
        print(f"game {i + 1:2d}: fastgo {colour:5s} {'won ' if won else 'lost'} in "
              f"{len(r['moves'])} moves; {how}", flush=True)
    n = args.games
    print(f"\nfastgo ({args.playouts} playouts/move{', ' + args.fastgo_args if args.fastgo_args else ''}) vs GNU Go level {args.level}, "
          f"{args.size}x{args.size}, komi {args.komi:g}, Chinese rules: {wins} wins, {losses} losses, "
          f"{ties} ties in {n} games; average margin for fastgo "
          f"{(sum(margins) / len(margins)) if margins else float('nan'):+.1f} over the "
          f"{len(margins)} games counted; {time.monotonic() - t0:.0f} s")
    if think:
        print(f"fastgo's search time (fastgo-stats) over its {len(think)} genmove answers: "
              f"mean {sum(think) / len(think):.3f} s, max {max(think):.3f} s")
    if margins:
        ms = sorted(margins)
        print(f"fastgo's margins: median {ms[len(ms) // 2] if len(ms) % 2 else (ms[len(ms) // 2 - 1] + ms[len(ms) // 2]) / 2:+g}, "
              f"wins {sorted(m for m in ms if m > 0)}, losses {sorted(m for m in ms if m < 0)}")
    print(f"every move of both sides accepted and both boards equal after every move (list_stones); "
          f"fastgo's area count equal to GNU Go's final_score with no dead stones left in "
          f"{agreed} of the {counted} games played to the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
