"""Construction, copy(), copy(undo=False), pickling and legal_mask(out=): the state a search
backend relies on."""

import copy
import pickle

import numpy as np
import pytest

import fastgo
import fastgo.coords
from fastgo import sgf
from board_state import random_game, snapshot


@pytest.mark.parametrize("kw", [dict(), dict(handicap=4), dict(ko="situational", suicide=False),
                                dict(ko="simple", rules="japanese")])
def test_pickle_round_trip(kw):
    b = fastgo.Board(9, **kw)
    random_game(b, np.random.default_rng(7), max_turns=70)
    c = pickle.loads(pickle.dumps(b))
    assert snapshot(c) == snapshot(b)
    assert c.rules == b.rules
    c.undo(len(c.history))
    b.undo(len(b.history))
    assert snapshot(c) == snapshot(b)


def test_pickle_of_diagram_set_up_keeps_superko_history():
    b = fastgo.Board.from_diagram("""
        . X O .
        X . X O
        . X O .
        . . . .""", to_move=fastgo.WHITE)
    b.play("B3")                                    # White takes the ko
    c = pickle.loads(pickle.dumps(b))
    assert c.why_illegal("C3") == "superko"         # the set-up colouring is still remembered


def test_copy_is_independent_both_ways():
    b = fastgo.Board(9)
    random_game(b, np.random.default_rng(3), max_turns=40)
    before = snapshot(b)
    for c in (b.copy(), copy.copy(b), copy.deepcopy(b), b.copy(undo=True)):
        assert snapshot(c) == before
        random_game(c, np.random.default_rng(4), max_turns=30)
        c.check_consistency()
        assert snapshot(b) == before
    c = b.copy()
    random_game(b, np.random.default_rng(5), max_turns=30)
    assert snapshot(c) == before


def test_copy_without_undo_plays_and_judges_identically_but_cannot_undo_the_past():
    b = fastgo.Board(9)
    random_game(b, np.random.default_rng(11), max_turns=50)
    assert copy.copy(b).copy(undo=True).copy(undo=True).history == b.history
    c = b.copy()                                    # undo=False is the default
    with pytest.raises(ValueError, match="undo journal"):
        c.undo()
    rng = np.random.default_rng(12)
    for _ in range(40):
        assert snapshot(c) == snapshot(b)
        moves = b.legal_moves()
        m = moves[rng.integers(len(moves))]
        b.play(m)
        c.play(m)
        if b.is_over:
            break
    k = len(c.history) - 50
    c.undo(k)                                       # turns played on the copy can be undone
    b.undo(k)
    assert snapshot(c) == snapshot(b)
    c.check_consistency()


@pytest.mark.parametrize("ko", ["positional", "situational", "simple"])
def test_copies_grow_their_history_and_superko_table_like_the_original(ko):
    # copy() puts the board, the turns and the superko table in one allocation; a copy's turns
    # and table move out of it when they grow: copies of copies, at every stage, played on
    # long after, must judge and record exactly like the original playing the same moves
    rng = np.random.default_rng(3)
    orig = fastgo.Board(5, ko=ko, suicide=True)
    copies = []
    for turn in range(120):
        if turn % 7 == 0:
            copies.append((orig.copy(), turn))
            copies.append((copies[-1][0].copy(), turn))
        if orig.is_over:
            break
        legal = np.flatnonzero(orig.legal_mask())
        orig.play(int(rng.choice(legal)))
    moves = list(orig.history)
    for c, start in copies:
        ref = fastgo.Board(5, ko=ko, suicide=True)
        for m in moves[:start]:
            ref.play(m)
        for m in moves[start:]:
            assert c.legal_mask().tolist() == ref.legal_mask().tolist()
            c.play(m)
            ref.play(m)
        assert c == orig and list(c.history) == moves
        c.undo(len(moves) - start)                  # the turns played on the copy undo
        assert len(c.history) == start

def test_recycled_copy_blocks_hold_their_own_boards():
    # copies' allocations are recycled per size class when boards are freed: boards of several
    # sizes and game lengths, copied, dropped and copied again in a shuffled order, stay equal
    # to their originals and consistent, and play on independently
    rng = np.random.default_rng(11)
    originals = []
    for size in (3, 5, 9, 13, 19):
        b = fastgo.Board(size)
        for _ in range(int(rng.integers(0, 3 * size))):
            legal = np.flatnonzero(b.legal_mask()[:-1])
            if len(legal) == 0:
                break
            b.play(int(rng.choice(legal)))
        originals.append(b)
    kept = []
    for step in range(3000):
        o = originals[int(rng.integers(len(originals)))]
        kept.append((o, o.copy()))
        if len(kept) > 50:
            kept.pop(int(rng.integers(len(kept))))
    for o, c in kept:
        assert c == o and c.history == o.history
        c.check_consistency()
        c.play("pass")
        assert c != o


def test_legal_mask_out_array_is_filled_and_checked():
    b = fastgo.Board(5)
    b.play("C3")
    out = np.zeros(26, dtype=bool)
    assert b.legal_mask(out=out) is out
    assert out.tolist() == b.legal_mask().tolist()
    assert not out[12] and out[25]
    for bad in (np.zeros(25, dtype=bool), np.zeros(26, dtype=np.uint8),
                np.zeros((2, 13), dtype=bool), np.zeros(52, dtype=bool)[::2]):
        with pytest.raises(ValueError):
            b.legal_mask(out=bad)
    readonly = np.zeros(26, dtype=bool)
    readonly.flags.writeable = False
    with pytest.raises(ValueError):
        b.legal_mask(out=readonly)
    with pytest.raises(TypeError):
        b.legal_mask(out=[False] * 26)


def test_board_made_by_new_alone_is_a_valid_empty_1x1_game():
    b = fastgo.Board.__new__(fastgo.Board)
    assert (b.width, b.height, b.to_move, b.history) == (1, 1, fastgo.BLACK, [])
    assert b.why_illegal(0) == "superko"            # single-stone suicide on 1x1
    b.pass_()
    b.check_consistency()
    assert b.legal_moves() == [1]


def test_reinit_of_a_live_board_is_refused_and_leaves_it_unchanged():
    # a board's size and rules are fixed once it is initialised (so that no user code run by a
    # method can re-size it under the method): every later __init__, good or bad, is refused
    for make in (lambda: fastgo.Board(9), lambda: fastgo.Board.from_array(np.zeros((9, 9), dtype=np.int8)),
                 lambda: fastgo.Board(9).copy(), lambda: pickle.loads(pickle.dumps(fastgo.Board(9)))):
        b = make()
        b.play("E5")
        before = snapshot(b)
        for kwargs in (dict(width=9, handicap=1), dict(width=30), dict(width=5, height=3),
                       dict(width=9)):
            with pytest.raises(TypeError, match="cannot re-initialise"):
                b.__init__(**kwargs)
            assert snapshot(b) == before
        b.check_consistency()
    # Board.__new__'s empty 1x1 game may be initialised once; a failed attempt does not count
    b = fastgo.Board.__new__(fastgo.Board)
    with pytest.raises(ValueError):
        b.__init__(30)
    b.__init__(5, 3, ko="simple")
    assert (b.width, b.height, b.history, b.rules.ko) == (5, 3, [], "simple")
    with pytest.raises(TypeError, match="cannot re-initialise"):
        b.__init__(5)


def _mix64(z):
    m = 2**64 - 1
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


def test_situation_hash_follows_the_documented_formula():
    white_key = _mix64((0x66617374676F2121 + 3 * 0x9E3779B97F4A7C15) % 2**64)
    b = fastgo.Board(7, 5)
    assert b.situation_hash == b.hash == 0
    b.play("C3")
    assert b.situation_hash == b.hash ^ white_key
    b.pass_()
    assert b.situation_hash == b.hash != 0


def test_equality_is_the_same_game():
    a = fastgo.Board(9, handicap=2)
    b = fastgo.Board(9, handicap=2)
    assert a == b and a == a.copy() and a != fastgo.Board(9) and a != "board"
    a.play("E5")
    assert a != b
    b.play((4, 4))
    assert a == b
    assert fastgo.Board(9) != fastgo.Board(9, komi=6.5)
    with pytest.raises(TypeError):
        hash(a)


def test_move_number_counts_the_turns_as_history_lists_them():
    # (GTP and SGF read len(history) and history[-1], a list of every turn made at each call:
    # a record's replay was quadratic in its length)
    b = fastgo.Board(5)
    for k, m in enumerate(["C3", "pass", "D4", "B2", "pass"]):
        assert b.move_number == len(b.history) == k
        b.play(m)
    assert b.move_number == 5 and b.copy().move_number == 5
    assert pickle.loads(pickle.dumps(b)).move_number == 5
    b.undo(2)
    assert b.move_number == len(b.history) == 3
    assert fastgo.Board.from_array(b.stones()).move_number == 0
    part = sgf.FinishedPart(b)
    assert part.move_number == len(part.history) == 3


def test_free_handicap_placements_that_are_refused_say_why():
    # a repeated point was "needs at least two distinct points" of a list holding two
    for handicap, message in [(["D4", "D4", "Q16"], "D4 is given twice"),
                              (["D4"], "needs at least two stones"),
                              (["D4", "pass"], "no pass")]:
        with pytest.raises(ValueError, match=message):
            fastgo.Board(19, handicap=handicap)


def test_start_position_and_first_player():
    b = fastgo.Board(9, handicap=["C3", "G7"])
    b.play("E5")
    start = b.start_position()
    assert start.dtype == np.int8 and start[2, 2] == start[6, 6] == fastgo.BLACK
    assert start.sum() == 2 and b.first_player == fastgo.WHITE
    e = fastgo.Board(5, 3)
    assert e.start_position().shape == (3, 5) and not e.start_position().any()
    assert e.first_player == fastgo.BLACK


def test_move_forms_agree():
    b = fastgo.Board(19)
    forms = [60, np.int64(60), np.uint16(60), (3, 3), "D4", "d4", (np.int32(3), 3)]
    for f in forms:
        assert b.hash_after(f) == b.hash_after(60)
        assert b.why_illegal(f) is None
    assert b.hash_after("pass") == b.hash_after(361) == b.hash_after(np.int16(361)) == 0


def test_dead_stones_as_a_mask():
    b = fastgo.Board.from_diagram("""
        . X . .
        X X . .
        . . . O
        . . . .""")
    mask = np.zeros((4, 4), dtype=bool)
    mask[1, 3] = True                               # the white stone at D2
    by_mask, by_list = b.score(dead=mask), b.score(dead=["D2"])
    assert by_mask[:4] == by_list[:4] and (by_mask.ownership == by_list.ownership).all()
    assert b.score(dead=mask.ravel()).black == 16
    with pytest.raises(ValueError):
        b.score(dead=np.zeros((3, 3), dtype=bool))
    # a 0/1 integer mask (as the environments' int8 masks) is a mask too: it was read as the
    # points A1, B1 ..., scoring other stones (or "no stone at A1") without a word
    for dtype in (np.int8, np.uint8, np.int64):
        assert b.score(dead=mask.astype(dtype))[:4] == by_list[:4]
        assert b.score(dead=mask.ravel().astype(dtype))[:4] == by_list[:4]
    # an integer array of points stays a list of points, at any length
    assert b.score(dead=np.array([7, 7]))[:4] == by_list[:4]
    points = np.full(16, 7)
    assert b.score(dead=points)[:4] == by_list[:4]
    # a two-dimensional array is a mask: of the board's shape, of bools or 0 and 1 (an integer
    # one of another shape said "no stone at A1", one holding a 2 "move must be an integer")
    with pytest.raises(ValueError, match=r"must have shape \(4, 4\) or \(16,\), not \(3, 3\)"):
        b.score(dead=np.zeros((3, 3), dtype=np.int8))
    with pytest.raises(ValueError, match="holds only 0 and 1"):
        b.score(dead=mask.astype(np.int8) * 2)
    with pytest.raises(TypeError, match="not float64"):
        b.score(dead=mask.astype(float))


def test_superko_memory_stays_sized_to_the_history_under_play_undo_churn():
    # a search plays and undoes millions of moves: removed keys must not grow the table
    b = fastgo.Board(9)
    rng = np.random.default_rng(0)
    for _ in range(20000):
        a, c = rng.choice(81, 2, replace=False)
        b.play(int(a))
        b.play(int(c))
        b.undo(2)
    b.check_consistency()
    assert b._superko_slots <= 64


class MyBoard(fastgo.Board):
    """A user's subclass (module level, so pickle can find it)."""


def test_subclasses_survive_copy_and_pickle():
    b = MyBoard(9)
    b.play("E5")
    for c in (b.copy(), copy.deepcopy(b), pickle.loads(pickle.dumps(b))):
        assert type(c) is MyBoard and c == b


def test_shared_tables_are_read_only_and_bools_are_not_numbers():
    with pytest.raises(TypeError):
        fastgo.coords.vertex_table(9, 9)["A1"] = 5
    with pytest.raises(TypeError):
        fastgo.Rules(komi=True)
    assert fastgo.Rules(suicide=np.bool_(False)).suicide is False


class _Tagged(fastgo.Playouts):
    __slots__ = ("__tag", "me")

    def tag(self):
        return self.__tag


class _Free(fastgo.Playouts):
    pass


def test_value_classes_with_slots_pickle_under_every_protocol(tmp_path):
    """Playouts, Tally, records.Game and what holds them refused pickle protocols 0 and 1 (a
    class with __slots__ and no __getstate__), as SearchResult had: a process tester's finding."""
    from fastgo import cluster, records
    spec = fastgo.Simulation.new(40, 5, seed=1, chunk=20, records=True)
    result = cluster.run(spec, out=tmp_path / "run", threads=1)
    run = records.read(tmp_path / "run")
    b = fastgo.Board(5)
    b.play("C3")
    b.pass_()
    b.pass_()
    values = {"Playouts": fastgo.playouts(b.copy(), 10, seed=1, threads=1, record=2),
              "Tally": result.tally, "records.Game": run[5],
              "FinishedPart": sgf.FinishedPart(b)}
    for name, value in values.items():
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            back = pickle.loads(pickle.dumps(value, protocol))
            assert type(back) is type(value), (name, protocol)
            for k in type(value).__slots__:
                x, y = getattr(back, k), getattr(value, k)
                if isinstance(x, list):
                    assert all(np.array_equal(u, v) for u, v in zip(x, y)), (name, k)
                elif isinstance(x, (fastgo.Board, dict, fastgo.Rules)):
                    assert x == y, (name, k)
                else:
                    assert np.array_equal(np.asarray(x), np.asarray(y)), (name, k)
        assert type(copy.deepcopy(value)) is type(value)
    for protocol in (0, 1):             # and what holds them
        assert pickle.loads(pickle.dumps(result, protocol)).tally.games == 40
        assert len(pickle.loads(pickle.dumps(run, protocol))) == 40
    # a subclass keeps its own slots (a private one too), its __dict__ and the base's fields,
    # and an object that holds itself comes back holding itself (a reviewer's cases)
    for cls in (_Tagged, _Free):
        obj = cls.__new__(cls)
        for k in fastgo.Playouts.__slots__:
            setattr(obj, k, getattr(values["Playouts"], k))
        if cls is _Tagged:
            obj._Tagged__tag, obj.me = "t", obj
        else:
            obj.extra = [1, 2]
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            back = pickle.loads(pickle.dumps(obj, protocol))
            assert np.array_equal(back.scores, obj.scores) and back.threads == obj.threads
            if cls is _Tagged:
                assert back.tag() == "t" and back.me is back
            else:
                assert back.extra == [1, 2]
        assert copy.deepcopy(obj).threads == obj.threads


def test_results_and_errors_cross_process_boundaries():
    """What a worker process returns or raises reaches its parent by pickle. The namedtuples
    made while an extension module started named importlib._bootstrap as their module (no
    pickle could find them), and the package's exceptions, rebuilt from their message alone,
    failed to unpickle: a multiprocessing pool whose worker raised one never returned."""
    import multiprocessing as mp
    batch = fastgo.BoardBatch(2, 5)
    step = batch.step([12, 13])
    b = fastgo.Board(5)
    b.play("C3")
    made = [step, b.score(), b.chain("C3"), fastgo.count.estimate_legal_fraction(3, 3, 50, seed=1)]
    for value in made:
        assert type(value).__module__.startswith("fastgo.")
        back = pickle.loads(pickle.dumps(value))
        assert type(back) is type(value)
        for x, y in zip(back, value):
            assert np.array_equal(np.asarray(x), np.asarray(y))
    with pytest.raises(fastgo.IllegalActionError) as batch_error:
        batch.step([12, 26])
    with pytest.raises(fastgo.IllegalMoveError) as move_error:
        b.play("C3")
    # sgf's too (an API tester: a process pool replaying records broke on the first
    # ReplayError, whose __init__ takes the move, not the message)
    from fastgo import sgf
    with pytest.raises(sgf.ReplayError) as replay_error:
        sgf.read_game("(;SZ[9]\n;B[ee];W[ee])").board()
    with pytest.raises(sgf.SgfError) as syntax_error:
        sgf.read_game("(;SZ[9]\n;B[ee]")
    with pytest.warns(sgf.SgfWarning) as warned:
        sgf.read_game("(;SZ[9]KM[750];B[ee])")
    assert replay_error.value.line == 2 and syntax_error.value.line is not None
    for e in (batch_error.value, move_error.value, replay_error.value, syntax_error.value,
              warned[0].message):
        notes = hasattr(e, "add_note")          # (Python 3.11 and later)
        if notes:
            e.add_note("seen in game 3")        # (kept, as a plain ValueError keeps it)
        for back in (pickle.loads(pickle.dumps(e)), copy.copy(e), copy.deepcopy(e)):
            assert type(back) is type(e) and str(back) == str(e) and vars(back) == vars(e)
            assert back.args == e.args
            assert not notes or back.__notes__ == ["seen in game 3"]
    # a pool's worker raising one: the parent gets it (it hung)
    with mp.get_context("spawn").Pool(1) as pool:
        with pytest.raises(fastgo.IllegalMoveError, match="occupied") as got:
            pool.apply_async(_replay_twice, ("C3",)).get(timeout=120)
    assert got.value.reason == "occupied" and got.value.vertex == "C3"


def _replay_twice(vertex):
    b = fastgo.Board(5)
    b.play(vertex)
    b.play(vertex)


def test_batches_copy_and_pickle_and_a_search_refuses_with_a_reason():
    """copy.copy / copy.deepcopy of a BoardBatch are its copy() (independent games), and a
    pickled one is another independent batch (test_batch checks that it plays on alike);
    copying or pickling a Search (state in C memory) is refused with a reason that says what
    to do instead, not Cython's "no default __reduce__"."""
    batch = fastgo.BoardBatch(2, 5)
    batch.step([12, 13])
    for c in (copy.copy(batch), copy.deepcopy(batch), pickle.loads(pickle.dumps(batch))):
        assert c is not batch and c.board(1) == batch.board(1)
        c.step([0, 0])
        assert batch.board(0).history == [12] and c.board(0).history == [12, 0]
    with pytest.raises(RuntimeError, match="not initialised"):
        pickle.dumps(fastgo.BoardBatch.__new__(fastgo.BoardBatch))
    from fastgo.search import Search
    s = Search(fastgo.Board(5))
    for how in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="make a new Search of search.board"):
            how(s)


def test_scores_compare_as_values():
    """Score == Score asked a numpy array for its truth (ValueError): two scores are equal when
    every field is, the ownership element by element."""
    a, b = fastgo.Board(5), fastgo.Board(5)
    assert a.score() == b.score() and not (a.score() != b.score())
    a.play("C3")
    b.play("C3")
    assert a.score() == b.score()
    other = a.score()._replace(ownership=a.score().ownership.copy())
    other.ownership[0, 0] = 2           # the same counts, another ownership
    assert other[:4] == a.score()[:4] and other != a.score()
    b.play("D4")
    assert a.score() != b.score()
    assert pickle.loads(pickle.dumps(a.score())) == a.score()
    with pytest.raises(TypeError):
        hash(a.score())
