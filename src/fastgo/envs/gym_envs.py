"""Gymnasium environments: self-play Go over ``BoardBatch``.

Both environments play both colours (self-play): each step is one turn of the player to move,
and the observation is from the point of view of the player to move next. Observations are
dicts: ``"observation"``, the feature planes [C, height, width] of ``encoding`` (default
``agz17``, see ``fastgo.features``), and ``"action_mask"``, int8 [points + 1] (1 = legal, the
pass last). Actions are fastgo points (``row * width + col``, row 0 at the bottom, pass =
``width * height``): what the ``Discrete`` action space holds, a Python or numpy integer (a
bool, float or string is a TypeError, a value out of range a ValueError). An illegal action
raises ``IllegalActionError`` and changes nothing; with ``illegal_action="lose"`` (for learners
that do not mask: Stable-Baselines3's ``check_env`` and ``PPO``) it ends the game instead, the
player who chose it losing (reward -1, ``terminated``, ``info["illegal"]`` the reason).
``action_masks()`` returns the legal moves as bools (sb3-contrib's ``MaskablePPO`` asks for
it).

Rewards go to the player who moved: at the turn that ends the game (the second pass in a row)
+1 if that player won, -1 if they lost, 0 for a tie; 0 on every other turn and on truncation
(``max_moves`` turns, default ``2 * width * height``).
"""

from __future__ import annotations  # `X | None` on Python 3.9

from typing import TYPE_CHECKING, Any, Dict, SupportsIndex, Tuple, Union

import numpy as np
import numpy.typing as npt

from fastgo.coords import _flag
from fastgo.envs import (_batch, _reward, _rewards, _step_one, check_action,
                         check_illegal_action, require)

require("gymnasium", "gym")         # a missing extra is said in fastgo's words
import gymnasium as gym  # type: ignore[import-not-found, unused-ignore]  # noqa: E402
from gymnasium import spaces  # type: ignore[import-not-found, unused-ignore]  # noqa: E402
from gymnasium.vector import AutoresetMode, VectorEnv  # type: ignore[import-not-found, unused-ignore]  # noqa: E402
from gymnasium.vector.utils import batch_space  # type: ignore[import-not-found, unused-ignore]  # noqa: E402

from fastgo.batch import ENCODINGS, MAX_GAMES, _DTYPES, _actions_array, _refuse_range  # noqa: E402
from fastgo.errors import IllegalActionError  # noqa: E402

if TYPE_CHECKING:
    from fastgo.rules import Rules

#: an observation: "observation" (the planes) and "action_mask" (int8), of one game or of each
_Observation = Dict[str, npt.NDArray[Any]]

__all__ = ["GoEnv", "GoVectorEnv"]

_MODES = {AutoresetMode.NEXT_STEP: "next-step", AutoresetMode.SAME_STEP: "same-step",
          AutoresetMode.DISABLED: "disabled"}


def _autoreset_mode(value: Any) -> AutoresetMode:
    """An AutoresetMode from itself or a name: BoardBatch's ("next-step"), the enum member's
    ("NEXT_STEP") or its value ("NextStep"), in any case."""
    names = ", ".join(repr(v) for v in _MODES.values())
    if isinstance(value, AutoresetMode):
        return value
    if not isinstance(value, str):
        raise TypeError(f"autoreset_mode must be an AutoresetMode or one of {names}, not "
                        f"{type(value).__name__}")
    for mode, spelt in _MODES.items():
        if value.lower() in (spelt, mode.name.lower(), str(mode.value).lower()):
            return mode
    raise ValueError(f"autoreset_mode must be an AutoresetMode or one of {names} (or the "
                     f"enum's names), not {value!r}")


def _spaces(width: int, height: int, encoding: str,
            dtype: Any) -> Tuple[spaces.Space[Any], spaces.Discrete]:
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; expected one of {sorted(ENCODINGS)}")
    # the dtypes BoardBatch.encode fills, checked here rather than at the first reset
    try:
        dt = None if dtype is None else np.dtype(dtype)     # (np.dtype(None) is float64)
    except TypeError:
        dt = None
    if dt not in _DTYPES:
        raise TypeError(f"dtype must be one of bool, uint8, int8, float32, float64 (the "
                        f"observation planes), not {repr(dtype) if dt is None else dt}")
    obs = spaces.Dict({
        "observation": spaces.Box(0, 1, (ENCODINGS[encoding], height, width), dtype=dtype),
        "action_mask": spaces.Box(0, 1, (width * height + 1,), dtype=np.int8),
    })
    return obs, spaces.Discrete(width * height + 1)


class GoVectorEnv(VectorEnv[_Observation, npt.NDArray[np.int64], npt.NDArray[Any]]):
    """``num_envs`` self-play games in one ``BoardBatch``, stepped in C on all cores.

    ``GoVectorEnv(num_envs=16, size=9, height=None, *, rules=None, komi=None, encoding="agz17",
    dtype=np.float32, max_moves=None, autoreset_mode=AutoresetMode.NEXT_STEP, threads=None,
    copy=True, render_mode=None, illegal_action="raise")``. Autoreset follows Gymnasium
    (``metadata["autoreset_mode"]``): next-step (the step after a game ends restarts it, its action
    ignored, reward 0), same-step (the ending step returns the new game's observation, the final
    one in ``info["final_obs"]``), or disabled (restart with ``reset(options={"reset_mask":
    mask})``). ``copy`` as in Gymnasium's ``SyncVectorEnv``: True returns new observation arrays
    each call; False returns the env's own two buffers, which the next ``step`` or ``reset``
    overwrites (the copy of the planes took about a third of a step of 1,024 9x9 games); final
    observations are copies either way.
    ``illegal_action="lose"``: a game whose action is illegal ends, lost by its mover (reward -1,
    ``terminated``, ``info["illegal"]`` the reason), its position as it was; the other games
    step as usual, and the lost game restarts as the autoreset mode says (as
    ``SyncVectorEnv`` over ``GoEnv(illegal_action="lose")``).
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: Union[int, np.integer[Any]] = 16, size: SupportsIndex = 9,
                 height: SupportsIndex | None = None, *, rules: Rules | str | None = None,
                 komi: float | None = None, encoding: str = "agz17",
                 dtype: npt.DTypeLike = np.float32, max_moves: SupportsIndex | None = None,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 threads: SupportsIndex | None = None, copy: bool = True,
                 render_mode: str | None = None, illegal_action: str = "raise") -> None:
        mode = _autoreset_mode(autoreset_mode)
        self.illegal_action = check_illegal_action(illegal_action)
        if render_mode is not None:        # (metadata["render_modes"] is empty)
            raise ValueError(f"GoVectorEnv renders nothing: render_mode must be None, not "
                             f"{render_mode!r} (GoEnv renders 'ansi', 'human' and 'rgb_array'; "
                             f"a game's frame: fastgo.draw.rgb(env.batch.board(i)))")
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)):
            raise TypeError(f"num_envs must be an int, not {type(num_envs).__name__}")
        if not 1 <= num_envs <= MAX_GAMES:
            raise ValueError(f"num_envs must be between 1 and {MAX_GAMES}, not {num_envs}")
        self.metadata = dict(self.metadata, autoreset_mode=mode)
        self.render_mode = render_mode
        self._same_step = mode == AutoresetMode.SAME_STEP
        self.batch = _batch(num_envs, size, height, rules, komi, max_moves,
                            "disabled" if self._same_step else _MODES[mode], threads)
        self.num_envs = int(num_envs)
        self.encoding = encoding
        w, h = self.batch.width, self.batch.height
        self.single_observation_space, self.single_action_space = _spaces(w, h, encoding, dtype)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.copy = _flag(copy, "copy")
        self._planes = np.empty(self.observation_space["observation"].shape,  # type: ignore[index]
                                dtype=dtype)          # (a Dict space)
        self._mask = np.empty((num_envs, w * h + 1), dtype=np.bool_)
        # games ended by an illegal action, still at that position: restarted by the next step
        # (next-step autoreset) or by reset (disabled); the batch does not know they ended
        self._lost = np.zeros(num_envs, dtype=np.bool_)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """bool [num_envs, points + 1]: each game's legal moves now (the pass last; none in a
        game that is over): the observation's ``action_mask``, as sb3-contrib asks for it."""
        mask = self.batch.legal_mask()
        mask[self._lost] = False
        return mask

    def _obs(self, copy: bool | None = None) -> _Observation:
        self.batch.encode(self.encoding, out=self._planes)
        self.batch.legal_mask(out=self._mask)
        self._mask[self._lost] = False
        if not (self.copy if copy is None else copy):
            # a bool array's bytes are 0 and 1: viewed as int8 they are the mask space's values
            return {"observation": self._planes, "action_mask": self._mask.view(np.int8)}
        return {"observation": self._planes.copy(), "action_mask": self._mask.astype(np.int8)}

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[_Observation, dict[str, Any]]:
        """Restart every game, or those where ``options["reset_mask"]`` (bool [num_envs], as
        ``BoardBatch.reset`` takes) is True. Go has no randomness: `seed` only seeds the
        spaces' samplers. As Gymnasium's vector envs, `seed` may be an int (numpy's too) or a
        list of one per env (ints or None, as ``SyncVectorEnv`` takes), whose first int seeds
        the samplers."""
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != self.num_envs:
                raise ValueError(f"seed: a list of {self.num_envs} seeds (one per env), got "
                                 f"{len(seed)}")
            seed = next((s for s in seed if s is not None), None)
        if isinstance(seed, np.integer):
            seed = int(seed)
        mask = None if options is None else options.get("reset_mask")
        # the seed checked (Gymnasium's own refusal of a bad one), then the games, then the
        # generators: a refused seed or mask (an index array, made bools, reset other games)
        # leaves the env as it was, its games and generators alike
        if seed is not None:
            gym.utils.seeding.np_random(seed)
        self.batch.reset(mask)
        self._lost[slice(None) if mask is None else np.asarray(mask, dtype=np.bool_)] = False
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
        return self._obs(), {}

    def step(self, actions: npt.ArrayLike
             ) -> tuple[_Observation, npt.NDArray[np.float64], npt.NDArray[np.bool_],
                        npt.NDArray[np.bool_], dict[str, Any]]:
        movers = self.batch.to_move
        if self.illegal_action == "lose":
            return self._step_losing(movers, actions)
        res = self.batch.step(actions)
        return self._finish(_rewards(movers, res), res.terminated.copy(), res.truncated.copy(),
                            {})

    def _step_losing(self, movers: npt.NDArray[np.int8], actions: npt.ArrayLike
                     ) -> tuple[_Observation, npt.NDArray[np.float64], npt.NDArray[np.bool_],
                                npt.NDArray[np.bool_], dict[str, Any]]:
        """step under illegal_action="lose". The games whose actions the rules refuse pass in
        the batch's step and are then set back to their position (Board copies): the batch
        steps every game or none. A game lost at an earlier step restarts here under next-step
        autoreset (its action ignored, as the batch does for a game that ended by passes)."""
        n, npoints = self.num_envs, self.batch.num_points
        acts = _actions_array(actions, n, npoints).copy()
        if n and (acts.min() < 0 or acts.max() > npoints):
            _refuse_range(acts, npoints)
        restart = self._lost.copy()
        if restart.any():
            if self.metadata["autoreset_mode"] == AutoresetMode.DISABLED:
                games = np.flatnonzero(restart)
                raise IllegalActionError(games, acts[games], ["game over"] * len(games))
            acts[restart] = npoints             # (played, then reset)
        live = ~(self.batch.terminated | self.batch.truncated | restart)
        lose = live & ~self.batch.legal_mask()[np.arange(n), acts]
        boards = {int(i): self.batch.board(int(i)) for i in np.flatnonzero(lose)}
        reasons = np.full(n, None, dtype=object)
        for i, board in boards.items():
            reasons[i] = board.why_illegal(int(acts[i]))
        acts[lose] = npoints
        res = self.batch.step(acts)
        for i, board in boards.items():
            self.batch.set(i, board)
        if restart.any():
            self.batch.reset(restart)
            self._lost[restart] = False
        rewards = _rewards(movers, res)
        terminated = res.terminated.copy()
        truncated = res.truncated.copy()
        rewards[restart] = 0.0
        terminated[restart] = truncated[restart] = False
        rewards[lose] = -1.0
        terminated[lose] = True
        truncated[lose] = False
        info: dict[str, Any] = {}
        if lose.any():
            info["illegal"] = reasons
            info["_illegal"] = lose
            self._lost |= lose
        return self._finish(rewards, terminated, truncated, info)

    def _finish(self, rewards: npt.NDArray[np.float64], terminated: npt.NDArray[np.bool_],
                truncated: npt.NDArray[np.bool_], info: dict[str, Any]
                ) -> tuple[_Observation, npt.NDArray[np.float64], npt.NDArray[np.bool_],
                           npt.NDArray[np.bool_], dict[str, Any]]:
        """step's end: same-step autoreset's final observations and restarts (the ending
        step's `info` goes to ``final_info``, as Gymnasium's vector envs do), the observation."""
        if self._same_step and (terminated.any() or truncated.any()):
            ended = terminated | truncated
            final = self._obs(copy=True)       # the new games' observations overwrite ours
            info = {"final_obs": np.full(self.num_envs, None, dtype=object), "_final_obs": ended,
                    "final_info": info, "_final_info": ended}
            for i in np.flatnonzero(ended):
                info["final_obs"][i] = {k: v[i] for k, v in final.items()}
            self.batch.reset(ended)
            self._lost[ended] = False
        return self._obs(), rewards, terminated, truncated, info


class GoEnv(gym.Env[_Observation, SupportsIndex]):
    """One self-play game (a ``BoardBatch`` of one). ``GoEnv(size=9, height=None, *, rules=None,
    komi=None, encoding="agz17", dtype=np.float32, max_moves=None, render_mode=None,
    illegal_action="raise")``; ``render_mode="ansi"``: ``render()`` gives the board as text;
    ``"rgb_array"``: as an RGB image, uint8 [rows, cols, 3] (``fastgo.draw.rgb``: Gymnasium's
    ``RecordVideo`` takes it); ``"human"``: each ``reset`` and ``step`` prints it as text
    (Gymnasium's convention).
    ``illegal_action="lose"``: an illegal move ends the game, lost by the player who chose it
    (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(self, size: SupportsIndex = 9, height: SupportsIndex | None = None, *,
                 rules: Rules | str | None = None, komi: float | None = None,
                 encoding: str = "agz17", dtype: npt.DTypeLike = np.float32,
                 max_moves: SupportsIndex | None = None, render_mode: str | None = None,
                 illegal_action: str = "raise") -> None:
        if render_mode not in (None, "ansi", "human", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array', not "
                             f"{render_mode!r}")
        self.render_mode = render_mode
        self.illegal_action = check_illegal_action(illegal_action)
        self._lost = False          # the game ended by an illegal action (illegal_action="lose")
        self.batch = _batch(1, size, height, rules, komi, max_moves, "disabled", 1)
        self.encoding = encoding
        self.observation_space, self.action_space = _spaces(
            self.batch.width, self.batch.height, encoding, dtype)
        self._dtype = dtype

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """bool [points + 1]: the legal moves now (the pass last; none once the game is over):
        the observation's ``action_mask``, as sb3-contrib's ``MaskablePPO`` asks for it."""
        mask = self.batch.legal_mask()[0]
        if self._lost:
            mask[:] = False
        return mask

    def _obs(self) -> _Observation:
        return {"observation": self.batch.encode(self.encoding, dtype=self._dtype)[0],
                "action_mask": self.action_masks().astype(np.int8)}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[_Observation, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
        self.batch.reset()
        self._lost = False
        if self.render_mode == "human":
            print(self.batch.board(0))
        return self._obs(), {}

    def step(self, action: SupportsIndex
             ) -> tuple[_Observation, float, bool, bool, dict[str, Any]]:
        action = check_action(action, self.batch.num_points + 1)
        if self._lost:                  # as a game over by two passes
            raise IllegalActionError([0], [action], ["game over"], one=True)
        if (self.illegal_action == "lose" and not self.batch.legal_mask()[0][action]
                and not (self.batch.terminated[0] or self.batch.truncated[0])):
            reason = self.batch.board(0).why_illegal(action)
            self._lost = True
            if self.render_mode == "human":
                print(self.batch.board(0))
            return self._obs(), -1.0, True, False, {"illegal": reason}
        mover = int(self.batch.to_move[0])
        res = _step_one(self.batch, action)
        terminated = bool(res.terminated[0])
        reward = _reward(mover, int(res.winners[0])) if terminated else 0.0
        if self.render_mode == "human":
            print(self.batch.board(0))
        return self._obs(), reward, terminated, bool(res.truncated[0]), {}

    def render(self) -> str | npt.NDArray[np.uint8] | None:  # type: ignore[override]  # (str frames: 'ansi')
        if self.render_mode == "ansi":
            return str(self.batch.board(0))
        if self.render_mode == "rgb_array":
            from fastgo.draw import rgb
            return rgb(self.batch.board(0))
        return None
