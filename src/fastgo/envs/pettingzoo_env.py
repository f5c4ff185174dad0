"""A PettingZoo AEC environment with the spaces of PettingZoo's ``classic.go_v5`` and correct
planes, backed by a ``BoardBatch`` of one game.

Same as ``go_v5``: agents ``black_0`` and ``white_0`` (Black first), observation dict with
``"observation"`` bool [N, N, 17] and ``"action_mask"`` int8 [N * N + 1] (all zero for the agent
not to move), ``Discrete(N * N + 1)`` actions with the pass last, +1 / -1 to the winner / loser at
the end. Scored by the rules (``rules``: a ``fastgo.Rules`` or a preset name; Tromp-Taylor by
default, area scoring) with ``komi`` when given, else the rules' own (7.5 by default, as
``go_v5``).

Where it differs from ``go_v5``:

- planes: plane 2k = the observing agent's stones k turns ago, plane 2k + 1 = its opponent's
  (k = 0..7; zeros before the start), plane 16 = all 1 when the observing agent is Black (the
  AlphaGo Zero layout, ``agz17``, seen from that agent). ``go_v5`` stacks each position from the
  point of view of the player who had just moved, so its plane 0 holds the opponent's stones when
  you observe, and its plane 16 is 1 for White although its documentation says Black;
- points: actions and the board's rows are fastgo's (``row * N + col``, row 0 at the bottom, A1 =
  0); ``go_v5`` puts row 0 at the top. Flip the rows (``obs[::-1]``, ``(N - 1 - row) * N + col``)
  to convert;
- rules: exact positional superko by default (any ``fastgo.Rules``), in the legal mask; ``go_v5``
  does not mask positional superko;
- a move cap (``max_moves``, default ``2 * N * N``) truncates the game, reward 0.

``env()`` wraps it as ``go_v5.env()`` does (an illegal action loses the game); ``GoAECEnv`` and
``raw_env()`` raise ``IllegalActionError`` on one instead.
"""

from __future__ import annotations  # `X | None` on Python 3.9

from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np
import numpy.typing as npt

from fastgo.envs import _batch, _reward, _step_one, check_action, require

require("pettingzoo", "pettingzoo")
from gymnasium import spaces  # type: ignore[import-not-found, unused-ignore]  # noqa: E402
from pettingzoo import AECEnv  # type: ignore[import-untyped, import-not-found, unused-ignore]  # noqa: E402  (no type hints)
from pettingzoo.utils import AgentSelector, wrappers  # type: ignore[import-untyped, import-not-found, unused-ignore]  # noqa: E402


if TYPE_CHECKING:
    from fastgo.rules import Rules

__all__ = ["GoAECEnv", "env", "raw_env"]


class GoAECEnv(AECEnv):
    """``GoAECEnv(board_size=19, komi=None, *, rules=None, max_moves=None, render_mode=None)``."""

    metadata = {"name": "fastgo_go_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "is_parallelizable": False, "render_fps": 2}

    def __init__(self, board_size: SupportsIndex = 19, komi: float | None = None, *,
                 rules: Rules | str | None = None, max_moves: SupportsIndex | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "ansi", "human", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array', not "
                             f"{render_mode!r}")
        self.render_mode = render_mode
        self.batch = _batch(1, board_size, None, rules, komi, max_moves, "disabled", 1)
        n = self.batch.width
        self.possible_agents = ["black_0", "white_0"]
        self.agents = self.possible_agents[:]
        space = spaces.Dict({
            "observation": spaces.Box(0, 1, (n, n, 17), dtype=bool),
            "action_mask": spaces.Box(0, 1, (n * n + 1,), dtype=np.int8),
        })
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n * n + 1) for a in self.possible_agents}
        self._colour = {"black_0": 1, "white_0": 2}

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        planes = self.batch.encode("agz17", dtype=np.bool_)[0]      # the mover's view
        if self._colour[agent] != self.batch.to_move[0]:
            planes = planes[[k ^ 1 for k in range(16)] + [16]]      # swap own / opponent
            planes[16] = self._colour[agent] == 1
        mask = np.zeros(self.batch.num_points + 1, dtype=np.int8)
        if agent == self.agent_selection and not (self.terminations[agent]
                                                  or self.truncations[agent]):
            mask[:] = self.batch.legal_mask()[0]
        return {"observation": np.ascontiguousarray(planes.transpose(1, 2, 0)),
                "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.batch.reset()
        self.agents = self.possible_agents[:]
        self._selector = AgentSelector(self.agents)
        self.agent_selection = self._selector.reset()
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}

    def step(self, action: SupportsIndex | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        action = check_action(action, self.batch.num_points + 1)
        self._cumulative_rewards[agent] = 0.0
        res = _step_one(self.batch, action)
        self.rewards = {a: 0.0 for a in self.agents}
        if res.terminated[0]:
            for a in self.agents:           # each as if it had made the last move
                self.rewards[a] = _reward(self._colour[a], int(res.winners[0]))
            self.terminations = {a: True for a in self.agents}
        elif res.truncated[0]:
            self.truncations = {a: True for a in self.agents}
        self.agent_selection = self._selector.next()
        self._accumulate_rewards()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The board as text ("ansi"), printed ("human": PettingZoo's render_test asks for it
        first), or as an RGB image ("rgb_array", ``fastgo.draw.rgb``: uint8 [rows, cols, 3])."""
        if self.render_mode is None:
            return None
        if self.render_mode == "human":
            print(self.batch.board(0))
            return None
        if self.render_mode == "rgb_array":
            from fastgo.draw import rgb
            return rgb(self.batch.board(0))
        return str(self.batch.board(0))

    def close(self) -> None:
        pass


def raw_env(**kwargs: Any) -> GoAECEnv:
    """A ``GoAECEnv`` without wrappers (``go_v5.raw_env``'s counterpart): an illegal action
    raises ``IllegalActionError`` and changes nothing."""
    return GoAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """A ``GoAECEnv`` in ``go_v5.env()``'s wrappers, PettingZoo's own: an illegal action ends
    the game with reward -1 to the agent that chose it (``TerminateIllegalWrapper``, which warns),
    an action outside the space fails an assertion, and a call before ``reset`` is refused
    (``OrderEnforcingWrapper``)."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(GoAECEnv(**kwargs), illegal_reward=-1)))
