"""Feature planes against plain numpy encoders written here from each format's definition
(AlphaGo Zero's paper, Leela Zero's Network::gather_features, OpenSpiel's GoState::
ObservationTensor, KataGo's NNInputs::fillRowV7), and the symmetries: encoders commute with
them, masks and policies round-trip."""

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fastgo
from fastgo import Board, BoardBatch
from fastgo.features import ENCODINGS, encode
from fastgo import symmetry as S

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def colourings(board):
    """The colouring after each turn since the set-up (index 0: the set-up)."""
    b = Board.from_array(board.start_position(), to_move=board.first_player, rules=board.rules)
    out = [b.stones()]
    for m in board.history:
        b.play(m)
        out.append(b.stones())
    return out


def ref_planes(board, encoding):
    cs = colourings(board)
    t = len(cs) - 1
    me, op = board.to_move, 3 - board.to_move
    h, w = board.height, board.width

    def past(k):                        # colouring k turns ago, zeros before the set-up
        return cs[t - k] if t - k >= 0 else np.zeros((h, w), np.int8)

    if encoding == "agz17":
        p = np.zeros((17, h, w))
        for k in range(8):
            p[2 * k] = past(k) == me
            p[2 * k + 1] = past(k) == op
        p[16] = me == fastgo.BLACK
    elif encoding == "lz18":
        p = np.zeros((18, h, w))
        for k in range(8):
            p[k] = past(k) == me
            p[8 + k] = past(k) == op
        p[16] = me == fastgo.BLACK
        p[17] = me == fastgo.WHITE
    elif encoding == "openspiel4":
        s = board.stones()
        p = np.stack([s == 1, s == 2, s == 0, np.full((h, w), me == fastgo.WHITE)]).astype(float)
    elif encoding == "stones":
        s = board.stones()
        p = np.stack([s == me, s == op, np.full((h, w), me == fastgo.BLACK)]).astype(float)
    else:
        assert encoding == "katago"
        s = board.stones()
        p = np.zeros((12, h, w))
        p[0] = 1
        p[1] = s == me
        p[2] = s == op
        for r in range(h):
            for c in range(w):
                q = r * w + c
                if s[r, c]:
                    libs = board.liberties(q)
                    if libs <= 3:
                        p[2 + libs, r, c] = 1
                elif board.why_illegal(q) in ("ko", "superko"):
                    p[6, r, c] = 1
        hist = board.history
        for k in range(5):
            if len(hist) > k and hist[-1 - k] != w * h:
                p[7 + k].flat[hist[-1 - k]] = 1
    return p


def random_game(rng, w, h, ko, turns):
    b = Board(w, h, ko=ko)
    if rng.random() < 0.3:
        grid = np.array([[rng.choice((0, 0, 0, 1, 2)) for _ in range(w)] for _ in range(h)])
        if fastgo.is_legal_position(grid):
            b = Board.from_array(grid, to_move=rng.choice((1, 2)), ko=ko)
    for _ in range(turns):
        legal = b.legal_moves()
        if not legal or b.is_over:
            break
        b.play(legal[-1] if rng.random() < 0.05 or len(legal) == 1 else rng.choice(legal[:-1]))
    return b


SIZES = [(1, 1), (2, 2), (3, 3), (4, 3), (3, 5), (5, 5), (9, 9), (19, 19)]


@settings(max_examples=40, **SETTINGS)
@given(size=st.sampled_from(SIZES), ko=st.sampled_from(("positional", "situational", "simple")),
       seed=st.integers(0, 2 ** 32 - 1), turns=st.integers(0, 40),
       encoding=st.sampled_from(sorted(ENCODINGS)))
def test_encoding_matches_definition(size, ko, seed, turns, encoding):
    w, h = size
    rng = random.Random(seed)
    games = [random_game(rng, w, h, ko, turns) for _ in range(3)]
    batch = BoardBatch(3, w, h, ko=ko, autoreset="disabled")
    for i, g in enumerate(games):
        batch.set(i, g)
    for dtype in (np.float32, np.uint8, np.bool_, np.float64):
        got = batch.encode(encoding, dtype=dtype)
        assert got.shape == (3, ENCODINGS[encoding], h, w) and got.dtype == dtype
        for i, g in enumerate(games):
            assert np.array_equal(got[i].astype(float), ref_planes(g, encoding)), (encoding, i)
    one = encode(games[0], encoding)
    assert np.array_equal(one, ref_planes(games[0], encoding))


def test_encode_into_buffer_and_errors():
    batch = BoardBatch(4, 9)
    batch.step([40, 41, 42, 81])
    buf = np.full((4, 17, 9, 9), 7, dtype=np.float32)
    assert batch.encode("agz17", out=buf) is buf
    assert buf.max() == 1 and buf[0, 0, 4, 4] == 0 and buf[0, 1, 4, 4] == 1  # White to move now
    with pytest.raises(ValueError):
        batch.encode("agz17", out=np.zeros((4, 16, 9, 9), np.float32))
    with pytest.raises(ValueError):
        batch.encode("agz17", out=np.zeros((4, 17, 9, 9), np.float32)[:, :, ::-1])
    with pytest.raises(TypeError):
        batch.encode("agz17", out=np.zeros((4, 17, 9, 9), np.int32))
    with pytest.raises(ValueError):
        batch.encode("alphago48")
    with pytest.raises(TypeError):
        encode("not a board", "agz17")


def test_a_dtype_that_contradicts_out_is_refused_and_out_is_left_alone():
    # encode("agz17", out=<uint8>, dtype=np.float32) returned the uint8 buffer silently
    batch = BoardBatch(4, 5)
    batch.step([12, 13, 14, 25])
    buf = np.full((4, 17, 5, 5), 7, np.uint8)
    for game in (batch, batch.board(0)):
        out = buf if game is batch else buf[0]
        with pytest.raises(ValueError, match="dtype float32 contradicts out's uint8"):
            encode(game, "agz17", out=out, dtype=np.float32)
        assert (buf == 7).all()
    assert batch.encode("agz17", out=buf, dtype=np.uint8) is buf     # the same dtype: fine
    assert np.array_equal(buf, batch.encode("agz17", dtype=np.uint8))
    assert batch.encode("agz17").dtype == np.float32 and encode(batch, "agz17").dtype == np.float32


# -- symmetries ------------------------------------------------------------------------------

def test_symmetry_numbers_are_the_documented_bits():
    """README: "numbers 0..7 (bits: transpose, then mirror rows, mirror columns)": bit 4
    transposes, then bit 1 mirrors the rows (row 0 is the bottom), bit 2 the columns. On 3x3
    (A1 = 0, B1 = 1, C1 = 2, A2 = 3, A3 = 6, C3 = 8), by hand:"""
    a1, b1, c1, a2, a3, c3 = 0, 1, 2, 3, 6, 8
    want = {0: (a1, b1, c1), 1: (a3, 7, c3), 2: (c1, b1, a1), 3: (c3, 7, a3),
            4: (a1, a2, a3), 5: (a3, a2, a1), 6: (c1, 5, c3), 7: (c3, 5, c1)}
    for k, images in want.items():
        assert tuple(S.transform_move(p, k, 3, 3) for p in (a1, b1, c1)) == images, k
    x = np.arange(6).reshape(2, 3)          # 2 rows, 3 columns
    assert np.array_equal(S.transform_planes(x, 1), x[::-1])
    assert np.array_equal(S.transform_planes(x, 2), x[:, ::-1])
    assert np.array_equal(S.transform_planes(np.arange(9).reshape(3, 3), 4),
                          np.arange(9).reshape(3, 3).T)


@settings(max_examples=25, **SETTINGS)
@given(size=st.sampled_from([(1, 1), (3, 3), (4, 3), (2, 5), (5, 5), (9, 9)]),
       seed=st.integers(0, 2 ** 32 - 1), turns=st.integers(0, 30))
def test_encoders_commute_with_symmetries(size, seed, turns):
    w, h = size
    rng = random.Random(seed)
    b = random_game(rng, w, h, "positional", turns)
    for k in S.symmetries(w, h):
        t = S.transform_board(b, k)
        for enc in ENCODINGS:
            assert np.array_equal(S.transform_planes(encode(b, enc), k), encode(t, enc)), (k, enc)
        assert np.array_equal(S.transform_policy(b.legal_mask(), k, w, h), t.legal_mask())
        assert np.array_equal(S.transform_planes(b.stones(), k), t.stones())
        assert t.score().margin == b.score().margin


@pytest.mark.parametrize("w,h", [(9, 9), (5, 3), (1, 1), (19, 19)])
def test_policies_moves_and_inverses(w, h):
    rng = np.random.default_rng(1)
    pol = rng.random((3, w * h + 1))
    for k in S.symmetries(w, h):
        back = S.transform_policy(S.transform_policy(pol, k, w, h), S.inverse(k), w, h)
        assert np.array_equal(back, pol)
        moved = S.transform_policy(pol, k, w, h)
        for q in range(w * h + 1):
            assert moved[0, S.transform_move(q, k, w, h)] == pol[0, q]
            assert S.transform_move(S.transform_move(q, k, w, h), S.inverse(k), w, h) == q
        planes = rng.random((2, 4, h, w))
        assert np.array_equal(S.transform_planes(S.transform_planes(planes, k), S.inverse(k)),
                              planes)
    # the 8 (or 4) transforms are distinct on a generic board
    x = np.arange(w * h).reshape(h, w)
    if w * h > 1:
        images = {S.transform_planes(x, k).tobytes() for k in S.symmetries(w, h)}
        assert len(images) == len(S.symmetries(w, h))
    if w != h:
        with pytest.raises(ValueError):
            S.transform_move(0, 4, w, h)
    with pytest.raises(ValueError):
        S.transform_planes(x, 8)


def test_random_transform_round_trips():
    batch = BoardBatch(16, 9)
    rng = np.random.default_rng(0)
    for _ in range(5):
        m = batch.legal_mask()
        batch.step(np.array([rng.choice(np.flatnonzero(r[:-1])) for r in m]))
    planes = batch.encode("lz18")
    masks = batch.legal_mask()
    ks, tp, tm = S.random_transform(planes, masks, rng=3)
    assert len(set(ks.tolist())) > 1
    for i, k in enumerate(ks):
        assert np.array_equal(S.transform_planes(tp[i], S.inverse(int(k))), planes[i])
        assert np.array_equal(S.transform_policy(tm[i], S.inverse(int(k)), 9, 9), masks[i])


def test_random_transform_refuses_a_policy_of_another_length():
    # planes for 4 samples and a policy for 3 raised a raw IndexError
    planes = np.zeros((4, 17, 5, 5), np.float32)
    for policy in (np.zeros((3, 26)), np.zeros((5, 26)), np.zeros((4, 25)), np.zeros(26),
                   np.zeros((4, 26, 1))):
        with pytest.raises(ValueError, match=r"policy must be \[n, points \+ 1\] = \[4, 26\]"):
            S.random_transform(planes, policy, rng=0)
    ks, _, pol = S.random_transform(planes, np.zeros((4, 26)), rng=0)
    assert len(ks) == 4 and pol.shape == (4, 26)
