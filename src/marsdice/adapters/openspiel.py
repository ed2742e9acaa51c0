"""Every registered game as an OpenSpiel Python game (needs ``pip install
'marsdice[research]'``).

Importing this module registers ``python_marsdice_NAME`` for each game of
:mod:`marsdice.games` (``python_marsdice_martian``, ``python_marsdice_attacks``) with
:mod:`pyspiel`; load them like any OpenSpiel game::

    import marsdice.adapters.openspiel  # registers the games
    game = pyspiel.load_game("python_marsdice_martian", {"players": 2, "target": 10})

Everything comes from what a game declares (:class:`~marsdice.core.game.GameType` and the
:class:`~marsdice.core.game.Game` methods); this module knows no game by name.

- Chance is explicit and exact: a chance node's outcomes are the engine's
  (:meth:`GameState.chance_outcomes`), indexed by :meth:`Game.encode_chance`, with their
  exact probabilities as floats. A game with a hidden setup (Mars Attacks' deal) starts
  with its :meth:`Game.setup_outcomes` chance moves, one at a time, until the setup is
  complete (Mars Attacks: ``4 * players`` cards, each drawn uniformly from those left, the
  same distribution as the engine's shuffle; its outcomes are the Memphis-draw indices);
  :meth:`Game.start_from_setup` then gives the opening.
- Player actions are :meth:`Game.encode_action` indices (``num_distinct_actions`` =
  :meth:`Game.num_actions`).
- Game type: sequential, explicit stochastic chance, terminal rewards; the information type
  is the game's (Martian Dice perfect, Mars Attacks imperfect: the face-down cards).
  Returns are the engine's: 1 shared among the winners, so 2+ players are constant-sum
  (utility sum 1); solo Martian Dice returns minus the turns taken (general-sum, one
  player).
- Parameters: the game's variant parameters whose schema type is a whole number or a word
  (everything but Mars Attacks' custom ``cards``) plus ``max_moves`` (see
  :mod:`marsdice.adapters.common`: the game stops there, leaders sharing the win; 0 = the
  game's :meth:`Game.max_game_length`). Without ``players``: two, or the game's nearest.
- Observations: the game's encoder (:mod:`marsdice.adapters.encoding`) of the player's
  view as the observation tensor; the view as compact JSON (without the last step's
  events) as the observation string. No information-state tensor or string is provided.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from marsdice.adapters import require
from marsdice.adapters.common import MAX_MOVES, capped_returns, split_params
from marsdice.adapters.encoding import encoder
from marsdice.core.encoding import Encoder
from marsdice.core.game import (
    CHANCE,
    JSON,
    Action,
    ChanceMode,
    Game,
    GameState,
    Information,
    Utility,
    Variant,
)
from marsdice.games import all_games, get_game

pyspiel: Any = require("pyspiel")
np: Any = require("numpy")

#: encoded chance lists kept per game
CHANCE_CACHE: Final = 256
#: the players OpenSpiel gets when none are asked for (brought into the game's range)
DEFAULT_PLAYERS: Final = 2
#: the variant-schema types OpenSpiel has parameters for
PARAMETER_TYPES: Final = ("integer", "string")


def short_name(game: Game) -> str:
    """OpenSpiel's name of one of our games."""
    return f"python_marsdice_{game.name}"


def default_players(game: Game) -> int:
    """Two players, or the nearest count the game allows."""
    return min(max(DEFAULT_PLAYERS, game.min_players), game.max_players)


def parameter_specification(game: Game) -> dict[str, int | str]:
    """The OpenSpiel parameters of a game and their defaults: every variant parameter of a
    type OpenSpiel has (a whole number or a word, by the game's variant schema), then
    ``max_moves``."""
    properties = game.variant_schema().get("properties")
    kinds = {
        key: schema.get("type") if isinstance(schema, dict) else None
        for key, schema in (properties.items() if isinstance(properties, dict) else ())
    }
    params = game.variant_to_params(game.default_variant(default_players(game)))
    spec: dict[str, int | str] = {}
    for key, value in params.items():
        if kinds.get(key) not in PARAMETER_TYPES:
            continue
        if isinstance(value, int | str) and not isinstance(value, bool):
            spec[key] = value
    spec[MAX_MOVES] = 0
    return spec


def _information(game: Game) -> Any:
    kinds = pyspiel.GameType.Information
    known = {
        Information.PERFECT: kinds.PERFECT_INFORMATION,
        Information.IMPERFECT: kinds.IMPERFECT_INFORMATION,
    }
    return known[game.game_type.information]


def _chance_mode(game: Game) -> Any:
    known = {ChanceMode.EXPLICIT: pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC}
    return known[game.game_type.chance]


def _utility(game: Game, players: int | None) -> Any:
    """OpenSpiel's utility kind: a shared win is constant-sum, solo general-sum."""
    kinds = pyspiel.GameType.Utility
    if game.game_type.utility is not Utility.SHARED_WIN:
        raise ValueError(f"no OpenSpiel utility for {game.game_type.utility}")
    return kinds.GENERAL_SUM if players == 1 else kinds.CONSTANT_SUM


def _utility_bounds(game: Game, players: int, max_moves: int) -> tuple[float, float, float | None]:
    """Minimum, maximum and sum of the returns (solo: minus the turns begun, at most one
    more than the moves)."""
    if game.game_type.utility is not Utility.SHARED_WIN:
        raise ValueError(f"no OpenSpiel utility for {game.game_type.utility}")
    if players == 1:
        return -float(max_moves + 1), -1.0, None
    return 0.0, 1.0, 1.0


def game_type(game: Game, players: int | None = None) -> Any:
    """The :class:`pyspiel.GameType` of a game, from its :class:`GameType` (``players``: the
    solo game is general-sum)."""
    return pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"Python {game.title} (marsdice)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=_chance_mode(game),
        information=_information(game),
        utility=_utility(game, players),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(game),
    )


class MarsDiceGame(pyspiel.Game):  # type: ignore[misc]
    """One of our games as a :class:`pyspiel.Game`; ``GAME`` names it (each registered game
    gets its subclass, :data:`GAME_CLASSES`)."""

    GAME: str = ""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        self.game: Game = get_game(self.GAME)
        merged: dict[str, JSON] = dict(parameter_specification(self.game))
        merged.update({key: _plain(value) for key, value in (params or {}).items()})
        self.variant: Variant
        self.variant, self.max_moves = split_params(self.game, merged)
        self.encoder: Encoder = encoder(self.game, self.variant, self.max_moves)
        players = self.variant.players
        low, high, total = _utility_bounds(self.game, players, self.max_moves)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.game.num_actions(self.variant),
            max_chance_outcomes=self.game.num_chance_outcomes(self.variant),
            num_players=players,
            min_utility=low,
            max_utility=high,
            utility_sum=total,
            max_game_length=self.max_moves,
        )
        super().__init__(game_type(self.game, players), info, merged)
        #: encoded chance lists by the identity of the engine's (cached, immutable) outcome
        #: tuple: the engines hand out the same tuple for the same roll, and an index depends
        #: only on the variant, so rolls of 13 dice (2380 outcomes) are encoded once
        self.chance_cache: dict[int, tuple[object, tuple[tuple[int, float], ...]]] = {}
        #: an opening of the variant: the context chance indices are read in while the
        #: hidden setup is being dealt (they depend on the variant only)
        self.placeholder: GameState = self.game.start(self.variant, random.Random(0))
        #: the chance moves the hidden setup takes (0 without one)
        self.setup_moves = self._setup_moves()

    def new_initial_state(self) -> MarsDiceState:
        """The opening; a game with a hidden setup starts with its deal's chance moves."""
        if self.game.game_type.hidden_setup:
            return MarsDiceState(self, None)
        return MarsDiceState(self, self.game.start(self.variant, random.Random(0)))

    def __deepcopy__(self, memo: dict[int, object]) -> MarsDiceGame:
        """A game never changes: its states' copies share it."""
        del memo
        return self

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> Observer:
        """The observer of the players' views (no perfect-recall information state)."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            raise ValueError("marsdice games provide observations, not information states")
        return Observer(self)

    # -- the hidden setup --

    def setup_index(self, outcome: Action) -> int:
        """A setup move's chance index (Mars Attacks: the draw of that card)."""
        return self.game.encode_chance(self.placeholder, outcome)

    def _setup_moves(self) -> int:
        """The setup's length, dealt with the first outcome each time: a shuffled deck deals
        the same number of cards whatever comes out."""
        if not self.game.game_type.hidden_setup:
            return 0
        dealt: list[Action] = []
        while len(dealt) < self.max_moves:
            outcomes = self.game.setup_outcomes(self.variant, dealt)
            if not outcomes:
                break
            dealt.append(outcomes[0][0])
        return len(dealt)


def _game_class(game: Game) -> type[MarsDiceGame]:
    """The OpenSpiel game class of one registered game, named after it (``MartianGame``) in
    this module, so that a pickled game finds its class again."""
    name = f"{game.name.capitalize()}Game"
    return type(
        name,
        (MarsDiceGame,),
        {
            "GAME": game.name,
            "__doc__": f"``{short_name(game)}``: {game.title}.",
            "__module__": __name__,
            "__qualname__": name,
        },
    )


#: the game class of each registered game, by OpenSpiel short name
GAME_CLASSES: Final = {short_name(game): _game_class(game) for game in all_games()}
globals().update({cls.__name__: cls for cls in GAME_CLASSES.values()})


class MarsDiceState(pyspiel.State):  # type: ignore[misc]
    """A position: the engine's immutable state (``None`` while a hidden setup is being
    dealt), the setup's outcomes dealt so far and the moves played (for the cap)."""

    def __init__(
        self,
        game: MarsDiceGame,
        state: GameState | None,
        dealt: tuple[Action, ...] = (),
        moves: int = 0,
    ) -> None:
        super().__init__(game)
        self.owner = game
        self._shared = _Shared(state)
        self.dealt = dealt
        self.moves = moves

    @property
    def state(self) -> GameState | None:
        """The engine's state (``None`` while the hidden setup is being dealt)."""
        return self._shared.value

    @state.setter
    def state(self, value: GameState | None) -> None:
        self._shared = _Shared(value)

    # -- what OpenSpiel asks --

    def current_player(self) -> int:
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if self.state is None or self.state.current_player == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        return self.state.current_player

    def is_terminal(self) -> bool:
        if self.moves >= self.owner.max_moves:
            return True
        return self.state is not None and self.state.is_terminal

    def _legal_actions(self, player: int) -> list[int]:
        if self.state is None or self.is_terminal() or player != self.state.current_player:
            return []
        game = self.owner.game
        return sorted(game.encode_action(self.state, a) for a in self.state.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Every outcome's index with its exact probability (as a float)."""
        game = self.owner.game
        if self.state is None:
            outcomes = self._setup_outcomes()
            return [(self.owner.setup_index(o), float(p)) for o, p in outcomes]
        outcomes = self.state.chance_outcomes()
        known = self.owner.chance_cache.get(id(outcomes))
        if known is not None and known[0] is outcomes:
            return list(known[1])
        pairs = sorted((game.encode_chance(self.state, o), float(p)) for o, p in outcomes)
        if len(self.owner.chance_cache) < CHANCE_CACHE:
            self.owner.chance_cache[id(outcomes)] = (outcomes, tuple(pairs))
        return pairs

    def _apply_action(self, action: int) -> None:
        game = self.owner.game
        self.moves += 1
        if self.state is None:
            self.dealt = (*self.dealt, self._setup_outcome(action))
            if not self._setup_outcomes():
                self.state = game.start_from_setup(self.owner.variant, self.dealt)
            return
        if self.state.is_chance_node:
            self.state = self.state.apply(game.decode_chance(self.state, action))
        else:
            self.state = self.state.apply(game.decode_action(self.state, action))

    def _action_to_string(self, player: int, action: int) -> str:
        game = self.owner.game
        context = self.state if self.state is not None else self.owner.placeholder
        if player == int(pyspiel.PlayerId.CHANCE):
            outcome = game.decode_chance(context, action).text()
            # a setup move reads ``deal:`` and what the outcome names (``draw:CARD``: the card)
            return f"deal:{outcome.split(':', 1)[-1]}" if self.state is None else outcome
        return game.decode_action(context, action).text()

    def returns(self) -> list[float]:
        """The engine's returns at the end; at the cap, :func:`capped_returns`."""
        players = self.owner.variant.players
        if self.state is None or not self.is_terminal():
            return [0.0] * players
        if self.state.is_terminal:
            return list(self.state.returns())
        return list(capped_returns(self.state))

    def __str__(self) -> str:
        if self.state is None:
            return f"dealing: {len(self.dealt)} of {self.owner.setup_moves} cards dealt"
        return self.owner.game.result_text(self.state, _names(self.owner.variant.players))

    # -- the hidden setup --

    def _setup_outcomes(self) -> Sequence[tuple[Action, Any]]:
        return self.owner.game.setup_outcomes(self.owner.variant, self.dealt)

    def _setup_outcome(self, index: int) -> Action:
        """The setup move with this chance index; ValueError for one not dealable now."""
        for outcome, _ in self._setup_outcomes():
            if self.owner.setup_index(outcome) == index:
                return outcome
        text = self.owner.game.decode_chance(self.owner.placeholder, index).text()
        if any(done.text() == text for done in self.dealt):
            raise ValueError(f"{text} is already dealt")
        raise ValueError(f"{text} is not a card to deal")


class _Shared:
    """Holds an immutable engine state; OpenSpiel clones a Python state with ``deepcopy``,
    which would otherwise copy the whole engine state at every clone."""

    __slots__ = ("value",)

    def __init__(self, value: GameState | None) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, object]) -> _Shared:
        del memo
        return self


class Observer:
    """OpenSpiel's Python observer protocol: ``tensor``, ``dict``, ``set_from``,
    ``string_from``; the vector is the game's encoder's."""

    def __init__(self, game: MarsDiceGame) -> None:
        self.game = game
        self.tensor = np.zeros(game.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MarsDiceState, player: int) -> None:
        """The vector of ``player``'s view (all zeros while the hidden setup is dealt)."""
        if state.state is None:
            self.tensor.fill(0.0)
            return
        view = self.game.game.observe(state.state, player)
        self.tensor[:] = self.game.encoder.encode(view)

    def string_from(self, state: MarsDiceState, player: int) -> str:
        """The view as compact JSON, the last step's events and legal actions left out."""
        if state.state is None:
            return str(state)
        view = self.game.game.observe(state.state, player)
        view.pop("events", None)
        view.pop("legal_actions", None)
        return json.dumps(view, sort_keys=True, separators=(",", ":"))


def _plain(value: Any) -> JSON:
    """An OpenSpiel parameter value as a plain JSON value."""
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return str(value)


def _names(players: int) -> Sequence[str]:
    return [f"P{seat + 1}" for seat in range(players)]


for _class in GAME_CLASSES.values():
    pyspiel.register_game(game_type(get_game(_class.GAME)), _class)
