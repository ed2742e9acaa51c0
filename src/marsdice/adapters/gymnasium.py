"""A single-agent Gymnasium environment: you at one seat, our bots at the others (needs
``pip install 'marsdice[research]'``).

Importing this module registers ``marsdice/NAME-v0`` for each game of :mod:`marsdice.games`,
``marsdice/Martian-v0`` and ``marsdice/Attacks-v0``:

>>> import gymnasium
>>> import marsdice.adapters.gymnasium
>>> table = gymnasium.make("marsdice/Martian-v0", opponent="cautious", target=10)
>>> observation, info = table.reset(seed=1)
>>> observation["action_mask"].tolist() == info["action_mask"].tolist()
True

- Options: ``game`` (set by the id; default the first registered game), ``opponent`` (any
  bot the game registers: Martian Dice ``winprob``, ``expected``, ``cautious``, ``random``;
  Mars Attacks ``planner``, ``heuristic``, ``random``; default: the game's default
  opponent), ``seat`` (yours, default 0), ``illegal_reward`` (default -1) and the variant
  parameters (``players``, ``target``, ... and ``max_moves``, see
  :mod:`marsdice.adapters.common`). Martian Dice with ``players=1`` is the solo challenge,
  no opponent.
- Action space: ``Discrete(Game.num_actions(variant))``, the game's integer encoding.
- Observation space: ``Dict(observation=Box(0, high, (size,), float32),
  action_mask=Box(0, 1, (num_actions,), int8))``, the same as PettingZoo's; the mask is
  also in ``info["action_mask"]`` after ``reset`` and every ``step``. Mask your policy's
  choice with it: an illegal action ends the episode with ``illegal_reward`` and
  ``info["illegal_action"] = True``.
- Chance and the bots' moves happen inside ``step``, seeded by ``reset(seed=...)`` (the bots
  get seeds drawn from the same generator).
- ``render_mode``: ``"ansi"`` (``render()`` returns the position as you see it, one line),
  ``"human"`` (the line is printed after ``reset`` and every ``step``; ``render()`` prints
  it and returns None) or None; anything else is refused. ``turn_counters=False`` leaves
  the turn counters out of the vector. The environment pickles, so it runs in ``spawn``
  workers (``gymnasium.make_vec(..., vectorization_mode="async")``).
- Reward: your return from the engine when the game ends (1 shared among the winners, 0 for
  a loss; solo, minus the turns taken), 0 before. At ``max_moves`` the episode is
  *truncated* with reward 0.
"""

from __future__ import annotations

import math
import random
from typing import Any, ClassVar, Final

from marsdice.adapters import require
from marsdice.adapters.common import action_index, play_chance, settings
from marsdice.adapters.encoding import PicklesWithoutEncoder, encoder
from marsdice.bots.base import Bot
from marsdice.bots.registry import bot_spec, make_bot
from marsdice.core.errors import VariantError
from marsdice.core.game import JSON, Game, GameState, index_value
from marsdice.games import all_games, game_names, get_game, registration

np: Any = require("numpy")
gym: Any = require("gymnasium")
spaces: Any = require("gymnasium.spaces")


def env_id(game: Game) -> str:
    """Gymnasium's id of one of our games (``marsdice/Martian-v0``)."""
    return f"marsdice/{game.name.capitalize()}-v0"


#: the registered ids and their games, one per registered game
IDS: Final = {env_id(game): game.name for game in all_games()}


class MarsDiceEnv(PicklesWithoutEncoder, gym.Env):  # type: ignore[misc]
    """You against our bots (see the module)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        game: str | None = None,
        opponent: str | None = None,
        seat: int = 0,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **params: JSON,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = ", ".join(self.metadata["render_modes"])
            raise VariantError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
        self.game = get_game(game or game_names()[0])
        found = settings(self.game, params)
        self.variant, self.max_moves = found.variant, found.max_moves
        self.turn_counters = found.turn_counters
        players = self.variant.players
        index = index_value(seat)
        if index is None:  # True, 1.0, "1"
            raise VariantError(f"seat must be a whole number 0-{players - 1}, got {seat!r}")
        seat = index
        if not 0 <= seat < players:
            raise VariantError(f"seat must be 0-{players - 1}, got {seat}")
        self.seat = seat
        self.opponent = opponent or registration(self.game).default_opponent
        bot_spec(self.game, self.opponent)  # an unknown bot is refused now, not at reset
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, int | float):
            raise VariantError(f"illegal_reward must be a number, got {illegal_reward!r}")
        if not math.isfinite(illegal_reward):
            raise VariantError(f"illegal_reward must be a finite number, got {illegal_reward!r}")
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.encoder = encoder(self.game, self.variant, self.max_moves, found.turn_counters)
        actions = self.game.num_actions(self.variant)
        high = np.array(self.encoder.high, dtype=np.float32)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, high, (self.encoder.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(actions)
        self.rng = random.Random()
        self.state: GameState = self.game.start(self.variant, self.rng)
        self.moves = 0
        self.bots: dict[int, Bot] = {}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new game; ``seed`` seeds the dice, the deal and the bots."""
        super().reset(seed=seed)
        del options
        if seed is not None:
            self.rng = random.Random(seed)
        others = [s for s in range(self.variant.players) if s != self.seat]
        self.bots = {
            s: make_bot(self.game, self.opponent, self.rng.randrange(2**32)) for s in others
        }
        self.state = self.game.start(self.variant, self.rng)
        self.moves = 0
        self._advance()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Your decision, then chance and the bots until your next decision or the end."""
        index = action_index(action)
        if self.state.is_terminal or self.moves >= self.max_moves:  # over: nothing is played
            ended = self.state.is_terminal
            return self._observation(), 0.0, ended, not ended, self._info()
        mask = self.game.legal_mask(self.state)
        if not 0 <= index < len(mask) or not mask[index]:
            info = {**self._info(), "illegal_action": True}
            return self._observation(), self.illegal_reward, True, False, info
        self.state = self.state.apply(self.game.decode_action(self.state, index))
        self.moves += 1
        self._advance()
        terminated = self.state.is_terminal
        truncated = not terminated and self.moves >= self.max_moves
        reward = float(self.state.returns()[self.seat]) if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        """The whole position as you see it, one line of text (``render_mode="ansi"``;
        ``"human"`` prints it; None without a render mode): :meth:`Game.position_text` of
        your view."""
        if self.render_mode is None:
            return None
        text = self.game.position_text(self.state, self.seat, counters=self.turn_counters)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # -- inside a step --

    def _advance(self) -> None:
        """Chance and the bots' decisions until yours, the end or the cap."""
        while self.moves < self.max_moves and not self.state.is_terminal:
            self.state, self.moves = play_chance(self.state, self.rng, self.moves, self.max_moves)
            seat = self.state.current_player
            if self.state.is_terminal or seat == self.seat or self.moves >= self.max_moves:
                return
            self.state = self.state.apply(self.bots[seat].choose(self.state))
            self.moves += 1

    def _mask(self) -> Any:
        to_act = (
            not self.state.is_terminal
            and self.moves < self.max_moves
            and self.state.current_player == self.seat
        )
        mask = self.game.legal_mask(self.state) if to_act else ()
        return np.array(mask or [0] * self.action_space.n, dtype=np.int8)

    def _observation(self) -> dict[str, Any]:
        vector = self.encoder.encode(self.game.observe(self.state, self.seat))
        return {"observation": np.array(vector, dtype=np.float32), "action_mask": self._mask()}

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask(), "scores": list(self.state.scores)}


for _id, _game in IDS.items():
    if _id not in gym.registry:
        gym.register(id=_id, entry_point=f"{__name__}:MarsDiceEnv", kwargs={"game": _game})
