"""Benchmarks of ``BoardBatch`` and, side by side, the same random-play workload through the
peers' Python APIs (skipped where a peer is not installed).

Run: ``OPENBLAS_NUM_THREADS=1 python -m pytest benchmarks/test_batch.py
--benchmark-columns=median,iqr --benchmark-sort=name``; each benchmark's ``extra_info`` holds
``game_steps_per_second`` (per thread: ``per_thread``).

The workload: uniformly random legal play (pass included) until the game ends, then a new game.
For ``BoardBatch`` (Tromp-Taylor rules: positional superko, the default; and the same with the
simple ko rule) one round is STEPS turns of n = 1024 games: ``legal_mask(out=...)``, optionally
``encode("agz17", out=...)`` into a preallocated float32 buffer, ``random_actions(mask, ...)``
and ``step(actions)`` (next-step autoreset). The batch first plays WARM turns so that the boards
are in mid-game.
"""

import random

import numpy as np
import pytest

from fastgo import BoardBatch, random_actions

N = 1024
STEPS = 20
WARM = {9: 40, 19: 150}


def _batch_round(batch, mask, acts, buf, k0):
    for k in range(STEPS):
        batch.legal_mask(out=mask)
        if buf is not None:
            batch.encode("agz17", out=buf)
        random_actions(mask, k0 + k, out=acts, threads=batch.threads)
        batch.step(acts)


@pytest.mark.parametrize("ko", ["positional", "simple"])
@pytest.mark.parametrize("planes", [None, "agz17"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("size", [9, 19])
def test_batch_step_mask(benchmark, size, threads, planes, ko):
    batch = BoardBatch(N, size, threads=threads, ko=ko)
    mask = np.empty((N, size * size + 1), dtype=np.bool_)
    acts = np.empty(N, dtype=np.int64)
    buf = None if planes is None else np.empty((N, 17, size, size), dtype=np.float32)
    for k in range(WARM[size]):
        batch.legal_mask(out=mask)
        random_actions(mask, 10_000 + k, out=acts, threads=threads)
        batch.step(acts)
    counter = iter(range(0, 10 ** 9, STEPS))
    benchmark.pedantic(lambda: _batch_round(batch, mask, acts, buf, next(counter)),
                       rounds=10, warmup_rounds=1)
    rate = N * STEPS / benchmark.stats.stats.median
    benchmark.extra_info.update(game_steps_per_second=rate, per_thread=rate / threads,
                                threads=threads, state_bytes=batch.state_bytes)


@pytest.mark.parametrize("size", [9, 19])
def test_random_actions(benchmark, size):
    """random_actions alone on one thread: 1024 masks of the size's points + 1 entries, each
    row legal with its own probability in [0.1, 1)."""
    rng = np.random.default_rng(size)
    P = size * size + 1
    mask = rng.random((N, P)) < 0.1 + 0.9 * rng.random((N, 1))
    acts = np.empty(N, dtype=np.int64)
    seeds = iter(range(10 ** 9))    # a new seed each call: a repeated draw trains the branch predictor
    benchmark(lambda: random_actions(mask, next(seeds), out=acts, threads=1))
    benchmark.extra_info.update(rows_per_second=N / benchmark.stats.stats.median)


# -- the peers, through their Python APIs ------------------------------------------------------

PEER_STEPS = {9: 100, 19: 100}
PGX_STEPS = 5


@pytest.mark.parametrize("size", [9, 19])
def test_peer_fastgo_aec_env(benchmark, size):
    """fastgo's own PettingZoo env, one game, the same loop as go_v5's below."""
    pytest.importorskip("pettingzoo")       # the env needs the pettingzoo extra
    from fastgo.envs import GoAECEnv
    env = GoAECEnv(board_size=size)
    _aec_bench(benchmark, env, size)


@pytest.mark.parametrize("size", [9, 19])
def test_peer_pettingzoo_go_v5(benchmark, size):
    pytest.importorskip("pygame")
    go_v5 = pytest.importorskip("pettingzoo.classic.go_v5")
    _aec_bench(benchmark, go_v5.env(board_size=size), size)


def _aec_bench(benchmark, env, size):
    rng = random.Random(1)
    env.reset()

    def run():                          # counts turns played, not restarts
        done = 0
        while done < PEER_STEPS[size]:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.reset()
                continue
            mask = env.observe(agent)["action_mask"]
            env.step(rng.choice(np.flatnonzero(mask).tolist()))
            done += 1

    benchmark.pedantic(run, rounds=3, warmup_rounds=1)
    benchmark.extra_info["game_steps_per_second"] = PEER_STEPS[size] / benchmark.stats.stats.median


@pytest.mark.parametrize("size", [9, 19])
def test_peer_openspiel(benchmark, size):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("go", {"board_size": size, "komi": 7.5})
    rng = random.Random(1)
    state = [game.new_initial_state()]

    def run():                          # counts turns played, not restarts
        done = 0
        while done < PEER_STEPS[size]:
            s = state[0]
            if s.is_terminal():
                state[0] = game.new_initial_state()
                continue
            s.observation_tensor()
            s.apply_action(rng.choice(s.legal_actions()))
            done += 1

    benchmark.pedantic(run, rounds=3, warmup_rounds=1)
    benchmark.extra_info["game_steps_per_second"] = PEER_STEPS[size] / benchmark.stats.stats.median


@pytest.mark.parametrize("size", [9, 19])
def test_peer_pgx_cpu(benchmark, size):
    """pgx on the CPU: jit(vmap(step)) over 1024 games, random legal actions drawn in JAX."""
    pgx = pytest.importorskip("pgx")
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    env = pgx.make(f"go_{size}x{size}")
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    keys = jax.random.split(jax.random.PRNGKey(0), N)
    state = [init(keys)]

    @jax.jit
    def pick(key, mask):
        logits = jnp.where(mask, 0.0, -jnp.inf)
        return jax.random.categorical(key, logits, axis=-1)

    key = [jax.random.PRNGKey(1)]

    def run():
        for _ in range(PGX_STEPS):
            key[0], k = jax.random.split(key[0])
            s = state[0]
            state[0] = step(s, pick(k, s.legal_action_mask))
        state[0].observation.block_until_ready()

    run()                                   # compile
    benchmark.pedantic(run, rounds=3, warmup_rounds=1)
    benchmark.extra_info["game_steps_per_second"] = N * PGX_STEPS / benchmark.stats.stats.median


@pytest.mark.parametrize("size", [9, 19])
def test_peer_envpool(benchmark, size):
    """EnvPool's C++ Go env (`GoNxN-v1`, pgx's rules), n = 1024 games on one thread, its own
    autoreset; random legal actions drawn in numpy from its `legal_action_mask`."""
    envpool = pytest.importorskip("envpool")
    env = envpool.make(f"Go{size}x{size}-v1", env_type="gymnasium", num_envs=N, num_threads=1)
    rng = np.random.default_rng(1)
    info = [env.reset()[1]]

    def run():
        for _ in range(STEPS):
            mask = info[0]["legal_action_mask"]
            info[0] = env.step((rng.random(mask.shape) * mask).argmax(1))[4]

    benchmark.pedantic(run, rounds=3, warmup_rounds=1)
    benchmark.extra_info["game_steps_per_second"] = N * STEPS / benchmark.stats.stats.median
