"""Every registered game as a PettingZoo AEC environment (needs ``pip install
'marsdice[research]'``).

>>> from marsdice.adapters.pettingzoo import env
>>> table = env(game="martian", players=2, target=10)
>>> table.reset(seed=1)
>>> table.agents, table.agent_selection
(['player_0', 'player_1'], 'player_0')

- Agents ``player_0`` ... one per seat; the agent to act is the seat to decide. Chance
  (dice, Mars Attacks' deal and Memphis draws) happens inside the environment with a
  ``random.Random`` seeded by ``reset(seed=...)``.
- Action space: ``Discrete(Game.num_actions(variant))``, the game's integer encoding.
- Observation space: ``Dict(observation=Box(0, high, (size,), float32),
  action_mask=Box(0, 1, (num_actions,), int8))``; the vector is
  the game's encoder's (:mod:`marsdice.adapters.encoding`, viewer-relative seats), the mask is
  :meth:`Game.legal_mask` for the agent to act and all zeros for the others.
- Rewards: the engine's returns when the game ends (1 shared among the winners; solo Martian
  Dice, minus the turns taken), 0 before. At ``max_moves`` (see
  :mod:`marsdice.adapters.common`) every agent is truncated with reward 0.
- ``state()``: the whole position as a vector (the encoder of a spectator's view);
  ``position`` is the engine's state. ``render_mode``: ``"ansi"`` (``render()`` returns the
  position as one line of text), ``"human"`` (the line is printed after ``reset`` and every
  ``step``; ``render()`` prints it and returns None) or None; anything else is refused.
- ``turn_counters=False`` leaves the turn counters out of the vectors (see
  :mod:`marsdice.adapters.common`). Environments pickle (the encoder is rebuilt).
- :func:`env` wraps :class:`raw_env` in PettingZoo's usual wrappers (an illegal action
  ends the game with reward -1 for its agent); ``raw_env`` raises
  :class:`~marsdice.core.errors.IllegalActionError` instead.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from marsdice.adapters import require
from marsdice.adapters.common import action_index, capped_returns, play_chance, seed_value, settings
from marsdice.adapters.encoding import PicklesWithoutEncoder, encoder
from marsdice.core.errors import IllegalActionError, VariantError
from marsdice.core.game import JSON, GameState
from marsdice.games import game_names, get_game

np: Any = require("numpy")
spaces: Any = require("gymnasium.spaces")
_pettingzoo: Any = require("pettingzoo")
wrappers: Any = require("pettingzoo.utils.wrappers")


def env(game: str | None = None, render_mode: str | None = None, **params: JSON) -> Any:
    """A wrapped AEC environment of ``game`` (default: the first registered game) with
    these variant parameters."""
    wrapped = raw_env(game=game, render_mode=render_mode, **params)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(PicklesWithoutEncoder, _pettingzoo.AECEnv):  # type: ignore[misc]
    """One game table as an AEC environment (see the module)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "marsdice_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self, game: str | None = None, render_mode: str | None = None, **params: JSON
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = ", ".join(self.metadata["render_modes"])
            raise VariantError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
        self.game = get_game(game or game_names()[0])
        found = settings(self.game, params)
        self.variant, self.max_moves = found.variant, found.max_moves
        self.turn_counters = found.turn_counters
        self.encoder = encoder(self.game, self.variant, self.max_moves, found.turn_counters)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(self.variant.players)]
        actions = self.game.num_actions(self.variant)
        high = np.array(self.encoder.high, dtype=np.float32)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, high, (self.encoder.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(actions)
        self.rng = random.Random()
        #: the engine's state (``position``, since PettingZoo's ``state()`` is a method)
        self.position: GameState = self.game.start(self.variant, self.rng)
        self.moves = 0

    def state(self) -> Any:
        """The whole position as a vector: the game's encoder of a spectator's view (seat
        1 as seat+0), what PettingZoo's ``state()`` promises (its ``state_space``)."""
        view = self.game.observe(self.position, None)
        return np.array(self.encoder.encode(view), dtype=np.float32)

    @property
    def state_space(self) -> Any:
        return self._observation_space["observation"]

    def observation_space(self, agent: str) -> Any:
        self._seat(agent)
        return self._observation_space

    def action_space(self, agent: str) -> Any:
        self._seat(agent)
        return self._action_space

    def _seat(self, agent: str) -> int:
        """The seat of one of ``possible_agents``; anything else is refused by name."""
        try:
            return self.possible_agents.index(agent)
        except ValueError:
            agents = ", ".join(self.possible_agents)
            raise ValueError(f"unknown agent {agent!r}: the agents are {agents}") from None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` seeds the dice (and the deal)."""
        del options
        if seed is not None:
            self.rng = random.Random(seed_value(seed))  # refused before anything changes
        self.position, self.moves = play_chance(
            self.game.start(self.variant, self.rng), self.rng, 0, self.max_moves
        )
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._settle()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self._seat(agent)
        vector = self.encoder.encode(self.game.observe(self.position, seat))
        to_act = self._to_act() == seat
        mask = self.game.legal_mask(self.position) if to_act else ()
        return {
            "observation": np.array(vector, dtype=np.float32),
            "action_mask": np.array(mask or [0] * self._action_space.n, dtype=np.int8),
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None
        self._cumulative_rewards[agent] = 0.0
        decoded = self.game.decode_action(self.position, action_index(action))
        self.position = self.position.apply(decoded)  # IllegalActionError names what is legal
        self.position, self.moves = play_chance(
            self.position, self.rng, self.moves + 1, self.max_moves
        )
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._settle()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The whole position as text (``render_mode="ansi"``; ``"human"`` prints it; None
        without a render mode): what a spectator sees, :meth:`Game.position_text`."""
        if self.render_mode is None:
            return None
        text = self.game.position_text(self.position, None, counters=self.turn_counters)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    # -- the end of the game and whose turn it is --

    def _to_act(self) -> int | None:
        finished = self.position.is_terminal or self.moves >= self.max_moves
        return None if finished else self.position.current_player

    def _settle(self) -> None:
        """Whose turn it is, or the end: returns as rewards, or truncation at the cap."""
        seat = self._to_act()
        if seat is not None:
            self.agent_selection = self.possible_agents[seat]
            return
        if self.position.is_terminal:
            for agent, value in zip(self.agents, self.position.returns(), strict=True):
                self.rewards[agent] = value
                self.terminations[agent] = True
        else:
            for agent, value in zip(self.agents, capped_returns(self.position), strict=True):
                self.truncations[agent] = True
                self.infos[agent]["capped_returns"] = value
        self.agent_selection = self.agents[0]


__all__ = ["IllegalActionError", "env", "raw_env"]
