"""fastgo against GNU Go, a real Go program, over GTP (tests/gtp_referee.py).

Complete 9x9 games in which every move of each side must be accepted by the other, both boards
must agree after every move (``list_stones``), both must agree on the legal moves of the side to
move, and, where the game ends with every dead stone captured, fastgo's area score must equal
GNU Go's ``final_score`` under Chinese rules. Plus handicap placement and SGF exchange.

Skipped when gnugo is not installed, unless FASTGO_REQUIRE_GNUGO=1 (CI sets it) makes that a
failure.
"""

import os

import pytest

import fastgo

from gtp_referee import fastgo_engine, find_gnugo, gnugo_engine, play_game

GNUGO = find_gnugo()
REQUIRE = os.environ.get("FASTGO_REQUIRE_GNUGO") == "1"

pytestmark = pytest.mark.skipif(
    GNUGO is None and not REQUIRE,
    reason="GNU Go is not installed (Debian: apt-get install gnugo); "
           "FASTGO_REQUIRE_GNUGO=1 turns this skip into a failure")


@pytest.fixture
def engines():
    if GNUGO is None:
        pytest.fail("FASTGO_REQUIRE_GNUGO=1 but gnugo is not on PATH or in /usr/games")
    made = []

    def make(playouts=1000, seed=0, gnugo_seed=1):
        # plain UCT on a small budget: these games test agreement, not strength
        fg = fastgo_engine(playouts, seed=seed, extra=["--resign", "0", "--search", "uct"])
        made.append(fg)
        gg = gnugo_engine(1, seed=gnugo_seed, gnugo=GNUGO, extra=["--never-resign"])
        made.append(gg)
        return fg, gg

    yield make
    for e in made:
        e.close()


GAMES = [  # fastgo's colour, komi, handicap, seeds
    ("black", 7.5, 0, 0),
    ("white", 7.5, 0, 1),
    ("white", 0.5, 2, 2),
]

compared = []


@pytest.mark.parametrize("colour, komi, handicap, seed", GAMES)
def test_complete_game_against_gnugo(engines, colour, komi, handicap, seed):
    fg, gg = engines(seed=seed, gnugo_seed=seed + 1)
    r = play_game(fg, gg, colour, size=9, komi=komi, handicap=handicap, check_legal=True)
    # play_game asserted every move's acceptance and the boards after every move
    assert r["resigned"] is None                       # neither side may resign here
    assert r["passes"] >= 2, "the game did not end with two passes"
    assert len(r["moves"]) >= 20 and r["legal_checks"] >= 10
    print(f"{colour} {len(r['moves'])} moves, cleaned up {r['cleaned_up']}, GNU Go "
          f"{r['gnugo_score']:+g}, fastgo area {r['fastgo_area']:+g}, dead {r['gnugo_dead']}")
    if not r["gnugo_dead"]:
        # GNU Go's Chinese counting gives White one point per handicap stone; fastgo's presets
        # add no handicap compensation (README, preset table), so it is taken off by hand
        assert r["fastgo_area"] - handicap == r["gnugo_score"], r
        compared.append(seed)


def test_some_game_ended_with_all_dead_stones_captured():
    # the games above must have compared scores at least once, or the comparison is vacuous
    if not compared:
        pytest.fail("no game ended with all dead stones captured; no score was compared")


def test_sgf_exchange_with_gnugo(engines, tmp_path):
    fg, gg = engines(seed=5, gnugo_seed=6)
    for e in (fg, gg):
        e.ask("boardsize 9")
        e.ask("clear_board")
        e.ask("komi 6.5")
    fg.ask("kgs-rules chinese")
    colour = "black"
    for i in range(30):                            # GNU Go plays both sides; fastgo follows
        move = gg.ask(f"genmove {colour}")
        fg.ask(f"play {colour} {move}")
        colour = "white" if colour == "black" else "black"
    stones = [gg.ask(f"list_stones {c}") for c in ("black", "white")]
    gg.ask(f"printsgf {tmp_path / 'gnugo.sgf'}")
    fg.ask(f"printsgf {tmp_path / 'fastgo.sgf'}")
    fg.ask("clear_board")
    gg.ask("clear_board")
    # GTP 2: loadsgf's output is none; GNU Go answers the colour to move
    assert fg.ask(f"loadsgf {tmp_path / 'gnugo.sgf'}") == ""
    assert gg.ask(f"loadsgf {tmp_path / 'fastgo.sgf'}") == colour
    assert f"\n{colour} to move;" in fg.ask("showboard")
    for c, want in zip(("black", "white"), stones):
        assert set(fg.ask(f"list_stones {c}").split()) == set(want.split())
        assert set(gg.ask(f"list_stones {c}").split()) == set(want.split())
    assert fg.ask("fastgo-rules").endswith("komi=6.5")


@pytest.mark.parametrize("size", [7, 8, 9, 10, 11, 13, 15, 19])
def test_fixed_handicap_matches_gnugo(engines, size):
    fg, gg = engines()
    for n in range(2, fastgo.max_fixed_handicap(size, size) + 1):
        for e in (fg, gg):
            e.ask(f"boardsize {size}")
        a = set(fg.ask(f"fixed_handicap {n}").split())
        b = set(gg.ask(f"fixed_handicap {n}").split())
        assert a == b, (size, n)
        assert set(fg.ask("list_stones black").split()) == set(gg.ask("list_stones black").split())


@pytest.mark.parametrize("seed", [11, 12])
def test_gnugo_self_play_scored_by_fastgo(engines, seed):
    # GNU Go plays both sides, so the game ends with live groups of both colours; fastgo
    # follows every move and must count the cleaned-up final position as GNU Go does
    fg, gg = engines(seed=seed, gnugo_seed=seed)
    r = play_game(fg, gg, None, size=9, komi=6.5, check_legal=True)
    print(f"self-play {len(r['moves'])} moves, cleaned up {r['cleaned_up']}, GNU Go "
          f"{r['gnugo_score']:+g}, fastgo area {r['fastgo_area']:+g}, dead {r['gnugo_dead']}")
    assert r["resigned"] is None and r["passes"] >= 2
    assert not r["gnugo_dead"], "GNU Go's clean-up left dead stones"
    assert r["fastgo_area"] == r["gnugo_score"]
    # both colours hold ground: the count is not the trivial one of an empty or one-colour board
    assert fg.ask("list_stones black") and fg.ask("list_stones white")
    assert abs(r["gnugo_score"]) < 40


def test_final_score_without_a_clean_up_agrees_with_gnugo(engines):
    """final_score at a game's end as it stands, dead stones still on the board: GNU Go plays
    both sides at level 1 (its games end with stones of both colours dead) and both engines
    count. fastgo's dead-stone estimate (whole chains over heavy playouts) named another winner
    than GNU Go in 3 of 12 such games when it judged single stones over uniform playouts."""
    fg, gg = engines(seed=3)
    disagree, dead_seen = [], 0
    for game in range(8):
        gg.ask(f"set_random_seed {game + 1}")
        for e in (fg, gg):
            e.ask("boardsize 9")
            e.ask("clear_board")
            e.ask("komi 7.5")
        fg.ask("kgs-rules chinese")
        colour, passes, moves = "black", 0, 0
        while passes < 2 and moves < 300:
            move = gg.ask(f"genmove {colour}")
            fg.ask(f"play {colour} {move}")
            passes = passes + 1 if move.lower() == "pass" else 0
            colour = "white" if colour == "black" else "black"
            moves += 1
        dead_seen += bool(gg.ask("final_status_list dead").split())
        a, b = fg.ask("final_score"), gg.ask("final_score")
        if a != b:
            disagree.append((game, a, b))
    assert dead_seen >= 3          # the games test the judgement: dead stones were left
    assert not disagree
