"""Reinforcement-learning environments over ``BoardBatch``: Gymnasium (``pip install
gymnasium``, the ``gym`` extra) and PettingZoo (``pip install pettingzoo``, the ``pettingzoo``
extra).

``import fastgo.envs`` needs neither; each class is imported from its module on first use, and
importing this package registers the Gymnasium ids ``fastgo/Go9x9-v0``, ``fastgo/Go19x19-v0``
(and the 13x13 one) when Gymnasium is installed. ``gymnasium.make("fastgo.envs:fastgo/Go9x9-v0")``
imports it for you.

- ``GoEnv``: one game, Gymnasium ``Env`` (``gymnasium.make(id)``)
- ``GoVectorEnv``: n games, Gymnasium ``VectorEnv`` (``gymnasium.make_vec(id, num_envs=n)``)
- ``GoAECEnv``: PettingZoo AEC env with ``go_v5``'s spaces and correct planes
"""

from __future__ import annotations  # `X | None` on Python 3.9

import importlib
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np

from fastgo.errors import require

if TYPE_CHECKING:       # (at runtime each class is imported from its module on first use)
    import numpy.typing as npt

    from fastgo.batch import BoardBatch, StepResult
    from fastgo.envs.gym_envs import GoEnv as GoEnv, GoVectorEnv as GoVectorEnv
    from fastgo.envs.pettingzoo_env import GoAECEnv as GoAECEnv
    from fastgo.rules import Rules

__all__ = ["GoEnv", "GoVectorEnv", "GoAECEnv", "register_envs", "require"]

_HOMES = {"GoEnv": "fastgo.envs.gym_envs", "GoVectorEnv": "fastgo.envs.gym_envs",
          "GoAECEnv": "fastgo.envs.pettingzoo_env"}


def check_action(action: object, n: int) -> int:
    """`action` as an int, if Gymnasium's ``Discrete(n)`` holds it: a Python or numpy integer,
    or a 0-d integer array, in 0..n - 1. Bools, floats and strings are refused (TypeError), as
    are values out of range (ValueError); nothing is truncated into a move."""
    from fastgo.coords import _index
    a = _index(action, "action")
    if not 0 <= a < n:
        raise ValueError(f"action must be 0..{n - 1} (the pass last), not {a}")
    return a


ILLEGAL_ACTIONS = ("raise", "lose")


def check_illegal_action(value: object) -> str:
    """The envs' ``illegal_action`` option: "raise" (an ``IllegalActionError``, nothing changes)
    or "lose" (the player who chose it loses the game at once, reward -1)."""
    if not isinstance(value, str):
        raise TypeError(f"illegal_action must be 'raise' or 'lose', not {type(value).__name__}")
    if value not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action must be 'raise' or 'lose', not {value!r}")
    return value


def _batch(n: SupportsIndex, size: SupportsIndex, height: SupportsIndex | None,
           rules: Rules | str | None, komi: float | None, max_moves: SupportsIndex | None,
           autoreset: str, threads: SupportsIndex | None) -> BoardBatch:
    """The envs' BoardBatch: n games of size x height (height None: square), the move cap
    max_moves (None: 2 x points, as go_v5's)."""
    from fastgo.batch import BoardBatch
    from fastgo.coords import check_size
    # Python ints first: numpy's small integers wrap in the cap's product (np.uint8(25) gave
    # 226 turns, not 1,250)
    size, h = check_size(size, size if height is None else height)
    cap = 2 * size * h if max_moves is None else max_moves
    return BoardBatch(n, size, h, rules=rules, komi=komi, max_moves=cap, autoreset=autoreset,
                      threads=threads)


def _rewards(movers: int | npt.NDArray[np.int8], res: StepResult) -> npt.NDArray[np.float64]:
    """+1 / -1 / 0 to the player who moved (a colour, or one a game), where the step ended the
    game."""
    won = res.winners == movers
    lost = (res.winners != 0) & ~won
    return np.where(res.terminated, won.astype(np.float64) - lost.astype(np.float64), 0.0)


def _step_one(batch: BoardBatch, action: int) -> StepResult:
    """A single-game env's step: its batch of one stepped, a refusal told as the game's own
    (the batch's message names "game 0", which the env's user never made)."""
    from fastgo.errors import IllegalActionError
    try:
        return batch.step(np.array([action], dtype=np.int64))
    except IllegalActionError as e:
        raise IllegalActionError(e.games, e.actions, e.reasons, one=True) from None


def _reward(mover: int, winner: int) -> float:
    """_rewards for one game whose step ended it: +1.0 when the mover won, -1.0 when it lost,
    0.0 for a tie (in plain Python: numpy's calls on arrays of one cost a single-game env's
    step a fifth of its time)."""
    return 0.0 if winner == 0 else (1.0 if winner == mover else -1.0)


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'fastgo.envs' has no attribute {name!r}")


def register_envs() -> None:
    """Register fastgo/Go9x9-v0, fastgo/Go13x13-v0 and fastgo/Go19x19-v0 with Gymnasium (single
    and vector entry points). Idempotent."""
    gym = require("gymnasium", "gym")
    for size in (9, 13, 19):
        env_id = f"fastgo/Go{size}x{size}-v0"
        if env_id not in gym.registry:
            gym.register(env_id, entry_point="fastgo.envs.gym_envs:GoEnv",
                         vector_entry_point="fastgo.envs.gym_envs:GoVectorEnv",
                         kwargs={"size": size})


try:
    import gymnasium as _gymnasium  # type: ignore[import-not-found, unused-ignore]  # noqa: F401  (only to know whether it is there)
except ImportError:
    pass
else:
    register_envs()
