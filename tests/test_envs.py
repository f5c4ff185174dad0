"""The Gymnasium and PettingZoo environments: Gymnasium's env checker, the vector env against
Gymnasium's own SyncVectorEnv over the single env (every autoreset mode), rewards on a hand-played
game, PettingZoo's api_test, and the AEC env's planes against go_v5's where go_v5 is right."""

import numpy as np
import pytest

import fastgo
from require_extras import importorskip

gym = importorskip("gymnasium", "gym")
pettingzoo = importorskip("pettingzoo", "pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

import fastgo.envs  # noqa: E402,F401  (registers the ids)
from fastgo.envs import GoAECEnv, GoEnv, GoVectorEnv  # noqa: E402


@pytest.mark.parametrize("env_id", ["fastgo/Go9x9-v0", "fastgo/Go19x19-v0"])
def test_registered_single_env_passes_check_env(env_id):
    env = gym.make(env_id)
    check_env(env.unwrapped, skip_render_check=False)
    obs, _ = env.reset(seed=0)
    assert obs["action_mask"].all()


def test_make_with_module_prefix_and_kwargs():
    env = gym.make("fastgo.envs:fastgo/Go9x9-v0", encoding="katago", komi=0.5)
    check_env(env.unwrapped)
    assert env.observation_space["observation"].shape == (12, 9, 9)
    rect = GoEnv(size=7, height=5, encoding="lz18", render_mode="ansi")
    check_env(rect)
    rect.reset()
    assert "A" in rect.render()


def test_vector_env_reset_takes_the_seeds_gymnasiums_vector_envs_take():
    """GoVectorEnv.reset refused a list of seeds (one per env) and numpy ints ("Seed must be a
    python integer"), which training code written for SyncVectorEnv passes. A list seeds the
    samplers with its first int; its length must be the envs'."""
    env = GoVectorEnv(4, 5)
    for seed in ([7, 8, 9, 10], (None, 7, None, None), np.int64(7), 7, np.arange(7, 11)):
        env.reset(seed=seed)
        drawn = env.action_space.sample().tolist()
        env.reset(seed=7)
        assert env.action_space.sample().tolist() == drawn, seed
    env.reset(seed=[None] * 4)
    with pytest.raises(ValueError, match="a list of 4 seeds \\(one per env\\), got 3"):
        env.reset(seed=[1, 2, 3])


@pytest.mark.parametrize("mode,copy", [(AutoresetMode.NEXT_STEP, True),
                                       (AutoresetMode.SAME_STEP, True),
                                       (AutoresetMode.DISABLED, True),
                                       (AutoresetMode.NEXT_STEP, False),
                                       (AutoresetMode.SAME_STEP, False),
                                       (AutoresetMode.DISABLED, False)])
def test_vector_env_matches_sync_vector_env(mode, copy):
    """Same actions through GoVectorEnv and through Gymnasium's SyncVectorEnv of GoEnvs: the
    same observations, rewards, flags and final observations at every step. With copy=False
    the observations are the env's own buffers, the same arrays every step."""
    n, size, cap = 6, 3, 12                 # a 3x3 board and a low cap: games end often
    ours = gym.make_vec("fastgo/Go9x9-v0", num_envs=n, vectorization_mode="vector_entry_point",
                        size=size, komi=0.5, max_moves=cap, autoreset_mode=mode, copy=copy)
    ref = SyncVectorEnv([lambda: GoEnv(size, komi=0.5, max_moves=cap) for _ in range(n)],
                        autoreset_mode=mode)
    assert ours.metadata["autoreset_mode"] == mode
    assert ours.single_observation_space == ref.single_observation_space
    assert ours.observation_space == ref.observation_space
    assert ours.action_space == ref.action_space
    o1, _ = ours.reset(seed=3)
    o2, _ = ref.reset(seed=3)
    ends = 0
    for t in range(120):
        for k in o1:
            assert np.array_equal(o1[k], o2[k]), (t, k)
        assert ours.observation_space.contains(o1)
        rng = np.random.default_rng(t)
        mask = o1["action_mask"].astype(bool)
        acts = fastgo.random_actions(mask, t)
        acts[rng.random(n) < 0.3] = size * size         # pass often
        acts[~mask.any(1)] = 0                          # games to restart: any action
        before = o1
        o1, r1, te1, tr1, i1 = ours.step(acts)
        o2, r2, te2, tr2, i2 = ref.step(acts)
        for k in o1:
            assert np.shares_memory(before[k], o1[k]) == (not copy)
        assert np.array_equal(r1, r2) and np.array_equal(te1, te2) and np.array_equal(tr1, tr2)
        ends += int(te1.sum() + tr1.sum())
        if mode == AutoresetMode.SAME_STEP and "final_obs" in i2:
            assert np.array_equal(i1["_final_obs"], i2["_final_obs"])
            for j in np.flatnonzero(i2["_final_obs"]):
                for k in o1:
                    assert np.array_equal(i1["final_obs"][j][k], i2["final_obs"][j][k])
        if mode == AutoresetMode.DISABLED and (te1.any() or tr1.any()):
            m = te1 | tr1
            o1, _ = ours.reset(options={"reset_mask": m})
            o2, _ = ref.reset(options={"reset_mask": m})
    assert ends > 10


def test_the_vector_env_s_masks_are_the_batch_s():
    """Its int8 action masks draw in fastgo.random_actions as they are (they were refused), and
    reset_mask is what BoardBatch.reset takes: an index array was cast to bools, so [0, 1, 2]
    restarted games 1 and 2 and kept game 0 (an API tester's finding); now it is refused."""
    env = GoVectorEnv(3, 5, threads=1, autoreset_mode=AutoresetMode.DISABLED)
    obs, _ = env.reset()
    acts = fastgo.random_actions(obs["action_mask"], 5)
    assert obs["action_mask"].dtype == np.int8
    assert all(obs["action_mask"][i, a] for i, a in enumerate(acts))
    env.step(np.array([1, 2, 3]))
    # a wrong dtype is an ArgumentTypeError, a TypeError as the README says (and a ValueError)
    for bad in (np.array([0, 1, 2]), np.array([0, 1, 0]), np.array([0.0, 1.0, 0.0])):
        with pytest.raises(fastgo.errors.ArgumentTypeError, match="mask must be a bool array"):
            env.reset(options={"reset_mask": bad})
        with pytest.raises(TypeError):
            env.batch.reset(bad)
    with pytest.raises(ValueError, match="mask must be a bool array of shape") as e:
        env.reset(options={"reset_mask": np.array([True, False])})
    assert not isinstance(e.value, TypeError)
    assert env.batch.move_numbers.tolist() == [1, 1, 1]        # nothing restarted
    # nor reseeded: a refused reset drew the same samples afterwards as no reset
    env.reset(seed=5, options={"reset_mask": np.array([False] * 3)})
    want = [env.action_space.sample().tolist() for _ in range(3)]
    env.reset(seed=5, options={"reset_mask": np.array([False] * 3)})
    env.action_space.sample()
    with pytest.raises(TypeError):
        env.reset(seed=5, options={"reset_mask": np.array([0, 1, 2])})
    assert [env.action_space.sample().tolist() for _ in range(2)] == want[1:]
    # nor restarted by a refused seed (the games were reset before Gymnasium looked at it)
    env.step(np.array([5, 6, 7]))
    for bad in (-1, 1.5, "x"):
        with pytest.raises(Exception):
            env.reset(seed=bad)
        assert env.batch.move_numbers.tolist() == [2, 2, 2]
    env.reset(options={"reset_mask": np.array([True, False, True])})
    assert env.batch.move_numbers.tolist() == [0, 2, 0]


def test_autoreset_modes_by_every_documented_name():
    """The README names the modes NEXT_STEP / SAME_STEP / DISABLED and the docstring next-step
    / same-step / disabled (BoardBatch's autoreset): both were refused ("'same-step' is not a
    valid AutoresetMode"), only Gymnasium's values ("SameStep") were taken."""
    for mode in AutoresetMode:
        names = [mode, mode.name, mode.name.lower(), mode.value, mode.name.lower().replace("_", "-")]
        for name in names:
            assert GoVectorEnv(2, 5, threads=1, autoreset_mode=name).metadata[
                "autoreset_mode"] is mode
    for bad in ("sometimes", "", "n-e-x-t_s-t-e-p", "DIS_ABLED", "same step", "Next-Step "):
        with pytest.raises(ValueError, match="'next-step', 'same-step', 'disabled'"):
            GoVectorEnv(2, 5, threads=1, autoreset_mode=bad)
    for bad in (1, None, b"next-step"):
        with pytest.raises(TypeError, match="'next-step', 'same-step', 'disabled'"):
            GoVectorEnv(2, 5, threads=1, autoreset_mode=bad)


def test_rewards_go_to_the_mover():
    env = GoEnv(3, komi=0.5)
    env.reset()
    env.step(4)                     # Black C... the centre
    _, r, te, _, _ = env.step(9)    # White passes
    assert (r, te) == (0.0, False)
    _, r, te, _, _ = env.step(9)    # Black passes: game over, Black owns the board
    assert (r, te) == (1.0, True)
    env.reset()
    env.step(9)
    env.step(4)                     # White takes the centre
    env.step(9)
    _, r, te, _, _ = env.step(9)    # White's pass ends it: White wins
    assert (r, te) == (1.0, True)
    env.reset()
    env.step(4)
    env.step(9)
    env.step(0)
    env.step(9)                     # White passed, Black...
    _, r, te, _, _ = env.step(9)    # ...Black passes: not over (only one pass in a row)? no:
    assert te and r == 1.0          # White's pass then Black's: two in a row, Black won
    with pytest.raises(fastgo.IllegalActionError, match=r"^illegal action 9: game over$"):
        env.step(9)


def test_a_single_game_env_refuses_an_action_as_its_own_game_s():
    # the message named "game 0" of the batch of one inside ("illegal actions in 1 game(s):
    # game 0: action 4 occupied"), a game the env's user never made
    env = GoEnv(3)
    env.reset()
    env.step(4)
    with pytest.raises(fastgo.IllegalActionError) as e:
        env.step(4)
    assert str(e.value) == "illegal action 4: occupied"
    assert (e.value.games, e.value.actions, e.value.reasons) == ([0], [4], ["occupied"])
    aec = GoAECEnv(3)
    aec.reset()
    aec.step(4)
    with pytest.raises(fastgo.IllegalActionError, match=r"^illegal action 4: occupied$"):
        aec.step(4)
    assert aec.batch.move_numbers.tolist() == [1]       # nothing changed


@pytest.mark.parametrize("komi, reward", [(-0.5, -1.0), (0, 0.0), (0.5, 1.0)])
def test_the_mover_s_reward_is_its_result_on_the_empty_board(komi, reward):
    # two passes end the game on the empty board: 0 points each, komi decides; White moved last
    env = GoEnv(3, komi=komi)
    env.reset()
    env.step(9)
    _, r, te, tr, _ = env.step(9)
    assert (r, te, tr) == (reward, True, False) and type(r) is float


@pytest.mark.parametrize("make", [lambda: GoEnv(9), lambda: GoAECEnv(board_size=9)])
def test_step_takes_what_the_discrete_space_holds_and_refuses_the_rest(make):
    # -0.5, 1.9, "5" and True were truncated into moves (A1, 1, 5, 1); 2**64 overflowed
    env = make()
    env.reset()
    space = env.action_space if isinstance(env, GoEnv) else env.action_space("black_0")
    for bad, error in [(-0.5, TypeError), (1.9, TypeError), (np.float32(3.0), TypeError),
                       ("5", TypeError), (True, TypeError), (np.True_, TypeError),
                       (np.array([5]), TypeError), (None, TypeError), (2**64, ValueError),
                       (-1, ValueError), (82, ValueError), (np.int64(-3), ValueError)]:
        with pytest.raises(error, match="action"):
            env.step(bad)
        assert env.batch.move_numbers.tolist() == [0], bad
    played = [5, np.int8(6), np.uint16(7), np.array(8), np.array(81, dtype=np.int16)]
    for a in played:
        assert space.contains(a)
        env.step(a)
    assert env.batch.board(0).history == [5, 6, 7, 8, 81]


@pytest.mark.parametrize("make", [lambda d: GoVectorEnv(2, 5, dtype=d), lambda d: GoEnv(5, dtype=d)])
def test_an_observation_dtype_encode_cannot_fill_is_refused_by_the_constructor(make):
    # GoVectorEnv(2, 5, dtype=np.int64) was made, and its reset() failed speaking of `out`
    for bad in (np.int64, np.float16, "garbage", None):
        with pytest.raises(TypeError, match="dtype must be one of bool, uint8, int8, float32, float64"):
            make(bad)
    for good in (np.uint8, "float64", bool):
        env = make(good)
        obs, _ = env.reset()
        assert obs["observation"].dtype == np.dtype(good)


@pytest.mark.parametrize("kwargs, komi", [({}, 7.5), ({"rules": "japanese"}, 6.5),
                                          ({"rules": fastgo.Rules(komi=-0.5)}, -0.5),
                                          ({"rules": "japanese", "komi": -2}, -2)])
def test_aec_env_scores_with_the_rules_komi_unless_told(kwargs, komi):
    # GoAECEnv's default komi=7.5 overrode every rules' komi (a preset's 6.5, a Rules' -0.5)
    env = GoAECEnv(board_size=3, **kwargs)
    env.reset()
    env.step(9)                             # Black passes, White passes: the empty board,
    env.step(9)                             # Black's score 0 - komi
    assert env.batch.board(0).rules.komi == komi
    black = env.rewards["black_0"] if env.rewards["black_0"] else env._cumulative_rewards["black_0"]
    assert black == (1 if komi < 0 else -1)


def test_render_modes_outside_the_metadata_are_refused():
    # GoVectorEnv kept any render_mode, and render() then raised NotImplementedError
    for make in (lambda m: GoVectorEnv(2, 5, render_mode=m), lambda m: GoEnv(5, render_mode=m),
                 lambda m: GoAECEnv(board_size=5, render_mode=m)):
        with pytest.raises(ValueError, match="render_mode must be None"):
            make("rgb")
        assert make(None).render_mode is None
    assert GoEnv(5, render_mode="ansi").render_mode == "ansi"
    for mode in ("human", "rgb_array"):
        with pytest.raises(ValueError, match="render_mode must be None"):
            GoVectorEnv(2, 5, render_mode=mode)


def test_human_rendering_prints_the_board(capsys):
    """PettingZoo's render_test builds the env with render_mode="human" first, which was
    refused; "human" prints the board (GoEnv at each reset and step, as Gymnasium's envs)."""
    from pettingzoo.test import render_test
    render_test(lambda render_mode=None: GoAECEnv(board_size=5, render_mode=render_mode))
    env = GoAECEnv(board_size=3, render_mode="human")
    env.reset()
    env.step(4)
    capsys.readouterr()
    assert env.render() is None and capsys.readouterr().out == str(env.batch.board(0)) + "\n"
    genv = GoEnv(3, render_mode="human")
    genv.reset()
    genv.step(4)
    out = capsys.readouterr().out
    assert out == str(fastgo.Board(3)) + "\n" + str(genv.batch.board(0)) + "\n"
    assert "X" in out and genv.render() is None


def test_ansi_renders_when_asked_and_prints_nothing(capsys):
    """Gymnasium's and PettingZoo's "ansi": render() returns the text; printing on every step is
    "human"'s (GoAECEnv printed the board at every step)."""
    aec = GoAECEnv(board_size=3, render_mode="ansi")
    aec.reset(seed=0)
    env = GoEnv(3, render_mode="ansi")
    env.reset(seed=0)
    aec.step(4)
    env.step(4)
    assert capsys.readouterr().out == ""
    board = fastgo.Board(3)
    board.play(4)
    assert aec.render() == env.render() == str(board)


def test_vector_env_names_its_own_arguments():
    # num_envs=0 was refused as the BoardBatch's "n must be between 1 and ..."
    for bad in (0, -3, 2**40):
        with pytest.raises(ValueError, match=f"num_envs must be between 1 and .*, not {bad}"):
            GoVectorEnv(bad, 5)
    for bad in (2.0, True, "4"):
        with pytest.raises(TypeError, match="num_envs must be an int"):
            GoVectorEnv(bad, 5)
    assert GoVectorEnv(np.int32(3), 5).num_envs == 3


def test_importing_the_envs_needs_neither_extra_until_used():
    """README: `import fastgo.envs` imports Gymnasium (when installed) to register its ids, and
    PettingZoo only when GoAECEnv is first used."""
    import subprocess
    import sys
    code = ("import sys, fastgo.envs; a = 'pettingzoo' in sys.modules; "
            "fastgo.envs.GoAECEnv; print(a, 'gymnasium' in sys.modules, 'pettingzoo' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "True"]


def test_pettingzoo_api_test():
    api_test(GoAECEnv(board_size=5), num_cycles=500, verbose_progress=False)
    api_test(GoAECEnv(board_size=9, max_moves=40), num_cycles=200, verbose_progress=False)


def test_aec_planes_against_go_v5():
    """go_v5's planes hold the right stones, but each position from the point of view of the
    player who had just moved (so own and opponent alternate with k), with row 0 at the top; under simple ko and no suicide (go_v5's rules) the masks agree."""
    importorskip("pygame", "test")          # go_v5's module imports it (pettingzoo[classic])
    from pettingzoo.classic import go_v5
    size = 7
    theirs = go_v5.env(board_size=size, komi=7.5)
    ours = GoAECEnv(board_size=size, komi=7.5, rules=fastgo.Rules("simple", False, "area", 7.5))
    theirs.reset()
    ours.reset()
    rng = np.random.default_rng(5)

    def flip_move(a):
        if a == size * size:
            return a
        r, c = divmod(a, size)
        return (size - 1 - r) * size + c

    for t in range(60):
        agent = ours.agent_selection
        assert agent == theirs.agent_selection
        if ours.terminations[agent] or ours.truncations[agent]:
            break
        mine = ours.observe(agent)
        other = theirs.observe(agent)
        po, pt = mine["observation"], other["observation"][::-1]      # rows from the bottom
        for k in range(8):
            # go_v5 saw the position k turns ago from the player who had just moved then: the
            # opponent for even k (own and opponent swapped), the observer for odd k
            swap = 1 - k % 2
            assert np.array_equal(po[:, :, 2 * k], pt[:, :, 2 * k + swap]), (t, k)
            assert np.array_equal(po[:, :, 2 * k + 1], pt[:, :, 2 * k + 1 - swap]), (t, k)
        assert po[:, :, 16].all() == (agent == "black_0")
        assert pt[:, :, 16].all() == (agent == "white_0")
        mask = mine["action_mask"]
        their_mask = other["action_mask"][[flip_move(a) for a in range(size * size + 1)]]
        assert np.array_equal(mask, their_mask), t
        legal = np.flatnonzero(mask[:-1])
        a = int(rng.choice(legal)) if len(legal) and rng.random() > 0.05 else size * size
        ours.step(a)
        theirs.step(flip_move(a))


@pytest.mark.parametrize("size", [np.uint8(25), np.int8(9), np.uint8(12), np.int16(19)])
def test_numpy_small_integer_sizes_make_the_envs_of_that_size(size):
    """The default cap is 2 x points and the spaces hold points + 1 actions: numpy's small
    integers wrapped in the products (np.uint8(25): a cap of 226 turns and, in the AEC env, a
    Discrete(114) space beside masks of 626 entries; np.int8(9): a refusal of max_moves=-94)."""
    n = int(size)
    env = GoEnv(size)
    assert env.batch.max_moves == 2 * n * n and env.action_space.n == n * n + 1
    vec = GoVectorEnv(2, size)
    assert vec.batch.max_moves == 2 * n * n and vec.single_action_space.n == n * n + 1
    aec = GoAECEnv(size)
    assert aec.batch.max_moves == 2 * n * n
    assert aec.action_space("black_0").n == n * n + 1
    assert aec.observation_space("black_0")["action_mask"].shape == (n * n + 1,)
    aec.reset()
    assert aec.observe("black_0")["action_mask"].shape == (n * n + 1,)


def test_an_illegal_action_loses_the_game_when_asked():
    """illegal_action="lose" (for learners that do not mask): the game ends, lost by the player
    who chose the action, the position as it was and no move allowed; a later step is refused
    as after two passes, and reset starts again. Out-of-range actions are still refused. The
    default still raises and changes nothing."""
    env = GoEnv(5, illegal_action="lose")
    env.reset(seed=0)
    env.step(12)                                    # Black C3
    before = env.unwrapped.batch.board(0)
    assert before.why_illegal(12) == "occupied"
    obs, reward, terminated, truncated, info = env.step(12)
    assert (reward, terminated, truncated, info) == (-1.0, True, False, {"illegal": "occupied"})
    assert not obs["action_mask"].any() and not env.action_masks().any()
    assert env.unwrapped.batch.board(0).history == before.history == [12]
    with pytest.raises(fastgo.errors.IllegalActionError, match="game over"):
        env.step(13)
    with pytest.raises(ValueError, match="action must be 0..25"):
        env.step(26)
    obs, _ = env.reset()
    assert obs["action_mask"].all() and env.action_masks().dtype == np.bool_
    plain = GoEnv(5)
    plain.reset()
    plain.step(12)
    with pytest.raises(fastgo.errors.IllegalActionError, match="occupied"):
        plain.step(12)
    assert plain.batch.board(0).history == [12]
    for bad, error in ((True, TypeError), ("win", ValueError)):
        with pytest.raises(error, match="illegal_action must be 'raise' or 'lose'"):
            GoEnv(5, illegal_action=bad)
        with pytest.raises(error, match="illegal_action must be 'raise' or 'lose'"):
            GoVectorEnv(2, 5, illegal_action=bad)


def test_a_single_env_that_loses_on_illegal_actions_passes_check_env_with_unmasked_actions():
    """Gymnasium's check_env, then random actions from the whole space (no mask, as a learner
    without masking draws them) on a 3x3 board, where most are illegal: every step is answered,
    each illegal one (by Board.why_illegal on the position) ends the game with -1."""
    env = GoEnv(3, illegal_action="lose")
    check_env(env)
    rng = np.random.default_rng(1)
    env.reset(seed=1)
    losses = 0
    for _ in range(400):
        action = int(rng.integers(0, 10))
        reason = env.batch.board(0).why_illegal(action)
        _, reward, terminated, truncated, info = env.step(action)
        if reason is not None:
            assert (reward, terminated, info) == (-1.0, True, {"illegal": reason})
            losses += 1
        else:
            assert "illegal" not in info
        if terminated or truncated:
            env.reset()
    assert losses > 50


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_the_vector_env_loses_illegal_actions_as_sync_vector_env_over_goenv(mode):
    """GoVectorEnv(illegal_action="lose") against Gymnasium's SyncVectorEnv over
    GoEnv(illegal_action="lose"), unmasked random actions (most illegal on 3x3): the same
    observations, rewards, flags, infos (the reasons, under final_info in same-step) and final
    observations at every step, in every autoreset mode."""
    n, size, cap = 6, 3, 12
    ours = GoVectorEnv(n, size, komi=0.5, max_moves=cap, autoreset_mode=mode,
                       illegal_action="lose")
    ref = SyncVectorEnv([lambda: GoEnv(size, komi=0.5, max_moves=cap, illegal_action="lose")
                         for _ in range(n)], autoreset_mode=mode)
    o1, _ = ours.reset(seed=3)
    o2, _ = ref.reset(seed=3)
    losses = 0
    for t in range(200):
        for k in o1:
            assert np.array_equal(o1[k], o2[k]), (t, k)
        assert np.array_equal(ours.action_masks(), o1["action_mask"].astype(bool))
        acts = np.random.default_rng(t).integers(0, size * size + 1, n)
        o1, r1, te1, tr1, i1 = ours.step(acts)
        o2, r2, te2, tr2, i2 = ref.step(acts)
        assert np.array_equal(r1, r2) and np.array_equal(te1, te2) and np.array_equal(tr1, tr2)
        assert sorted(i1) == sorted(i2), t
        if mode == AutoresetMode.SAME_STEP and "final_obs" in i2:
            assert np.array_equal(i1["_final_obs"], i2["_final_obs"])
            for j in np.flatnonzero(i2["_final_obs"]):
                for k in o1:
                    assert np.array_equal(i1["final_obs"][j][k], i2["final_obs"][j][k]), (t, j)
            i1, i2 = i1["final_info"], i2["final_info"]
            assert sorted(i1) == sorted(i2), t
        if "_illegal" in i2:
            assert np.array_equal(i1["_illegal"], i2["_illegal"])
            assert list(i1["illegal"]) == list(i2["illegal"])
            losses += int(i1["_illegal"].sum())
        if mode == AutoresetMode.DISABLED and (te1.any() or tr1.any()):
            with pytest.raises(fastgo.errors.IllegalActionError, match="game over"):
                ours.step(np.zeros(n, dtype=np.int64))
            m = te1 | tr1
            o1, _ = ours.reset(options={"reset_mask": m})
            o2, _ = ref.reset(options={"reset_mask": m})
    assert losses > 100


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED])
def test_a_reset_mask_of_any_form_the_batch_takes_restarts_a_lost_game(mode):
    """reset(options={"reset_mask": (True, False)}) restarted the batch's game but left the
    env's record of the loss (a tuple indexed the record as axes): the new game showed no legal
    move and its next action was ignored or refused (a reviewer's finding)."""
    for mask in ((True, False), [True, False], np.array([True, False])):
        env = GoVectorEnv(2, 5, illegal_action="lose", autoreset_mode=mode)
        env.reset()
        env.step(np.array([12, 12]))
        _, rewards, terminated, _, _ = env.step(np.array([12, 13]))     # game 0 loses
        assert rewards.tolist() == [-1.0, 0.0] and terminated.tolist() == [True, False]
        obs, _ = env.reset(options={"reset_mask": mask})
        assert obs["action_mask"][0].all() and env.action_masks()[0].all()
        env.step(np.array([0, 1]))
        assert env.batch.board(0).history == [0]


def test_pettingzoo_env_is_wrapped_as_go_v5_s():
    """fastgo.envs.pettingzoo_env.env() wraps GoAECEnv in go_v5.env()'s wrappers: PettingZoo's
    api_test passes; a step before reset is refused; an illegal action ends the game with -1 to
    the agent that chose it (TerminateIllegalWrapper's rule, which warns) and 0 to the other.
    raw_env() and GoAECEnv raise instead."""
    from fastgo.envs import pettingzoo_env
    api_test(pettingzoo_env.env(board_size=5), num_cycles=200)
    env = pettingzoo_env.env(board_size=5)
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    env.reset()
    env.step(12)
    env.step(12)                                    # White on Black's stone
    assert env.rewards == {"black_0": 0, "white_0": -1.0}
    assert all(env.terminations.values())
    raw = pettingzoo_env.raw_env(board_size=5)
    assert type(raw) is GoAECEnv
    raw.reset()
    raw.step(12)
    with pytest.raises(fastgo.errors.IllegalActionError, match="occupied"):
        raw.step(12)


def test_envs_pickle_and_play_on_as_the_originals():
    """A pickled env (Gymnasium's made one in its wrappers, the vector env with a game lost to
    an illegal action, PettingZoo's wrapped AEC env) continues exactly as the original: its
    BoardBatch pickles game by game (a BoardBatch was refused, so no env could be pickled)."""
    import pickle
    single = gym.make("fastgo/Go9x9-v0")
    single.reset(seed=1)
    single.step(40)
    copy = pickle.loads(pickle.dumps(single))
    for a, b in zip(single.step(41), copy.step(41)):
        if isinstance(a, dict) and "observation" in a:
            assert all(np.array_equal(a[k], b[k]) for k in a)
        else:
            assert a == b
    vec = GoVectorEnv(4, 5, illegal_action="lose", autoreset_mode=AutoresetMode.DISABLED)
    vec.reset(seed=2)
    vec.step(np.array([0, 1, 2, 3]))
    vec.step(np.array([0, 5, 6, 7]))                # game 0 loses (occupied)
    copy = pickle.loads(pickle.dumps(vec))
    assert np.array_equal(copy.action_masks(), vec.action_masks())
    assert not copy.action_masks()[0].any() and copy.action_masks()[1:].any()
    with pytest.raises(fastgo.errors.IllegalActionError, match="game over"):
        copy.step(np.array([9, 9, 9, 9]))
    for env in (vec, copy):
        env.reset(options={"reset_mask": np.array([True, False, False, False])})
    for a, b in zip(vec.step(np.array([9, 10, 11, 12])), copy.step(np.array([9, 10, 11, 12]))):
        if isinstance(a, dict):
            assert sorted(a) == sorted(b)
            assert all(np.array_equal(a[k], b[k]) for k in a if k in ("observation", "action_mask"))
        else:
            assert np.array_equal(a, b)
    from fastgo.envs import pettingzoo_env
    aec = pettingzoo_env.env(board_size=5)
    aec.reset()
    aec.step(12)
    copy = pickle.loads(pickle.dumps(aec))
    for env in (aec, copy):
        env.step(13)
    assert aec.agent_selection == copy.agent_selection and aec.rewards == copy.rewards
    assert np.array_equal(aec.observe("black_0")["observation"],
                          copy.observe("black_0")["observation"])


def test_rgb_array_rendering_draws_the_stones_where_they_stand():
    """render_mode="rgb_array" (Gymnasium's RecordVideo and HumanRendering take it): an RGB
    image, uint8 [(rows + 1) * cell, (cols + 1) * cell, 3], row 1 at the bottom; read back at
    the intersections: black and white fills where the stones are (by Board.stones), the grid's
    line colour at empty ones, the wood between lines. Gymnasium's checker renders it too."""
    from fastgo.draw import CELL, rgb
    env = GoEnv(5, height=4, render_mode="rgb_array")
    check_env(env, skip_render_check=False)
    env.reset()
    for action in (0, 7, 19, 12):                   # Black A1, White C2, Black E4, White C3
        env.step(action)
    img = env.render()
    assert img.shape == (5 * CELL, 6 * CELL, 3) and img.dtype == np.uint8
    stones = env.batch.board(0).stones()
    colours = {1: (0, 0, 0), 2: (255, 255, 255), 0: (0, 0, 0)}
    for row in range(4):
        for col in range(5):
            y, x = (4 - row) * CELL - 1, (col + 1) * CELL - 1      # (pixel centres at +0.5)
            assert tuple(img[y:y + 2, x:x + 2].mean((0, 1)).round()) == \
                colours[int(stones[row, col])], (row, col)
    wood = tuple(img[CELL + CELL // 2, CELL + CELL // 2])          # between four lines
    assert wood == (0xdc, 0xb3, 0x5c)
    assert np.array_equal(rgb(env.batch.board(0)), img)
    assert int(stones[0, 0]) == 1 and int(stones[1, 2]) == 2
    aec = GoAECEnv(board_size=5, render_mode="rgb_array")
    aec.reset()
    assert aec.render().shape == (6 * CELL, 6 * CELL, 3)
    with pytest.raises(ValueError, match="cell must be an int in 8..128"):
        rgb(fastgo.Board(5), cell=4)
