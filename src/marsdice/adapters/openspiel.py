"""Both games as OpenSpiel Python games (needs ``pip install 'marsdice[research]'``).

Importing this module registers ``python_marsdice_martian`` and ``python_marsdice_attacks``
with :mod:`pyspiel`; load them like any OpenSpiel game::

    import marsdice.adapters.openspiel  # registers the games
    game = pyspiel.load_game("python_marsdice_martian", {"players": 2, "target": 10})

- Chance is explicit and exact: a chance node's outcomes are the engine's
  (:meth:`GameState.chance_outcomes`), indexed by :meth:`Game.encode_chance`, with their
  exact probabilities as floats. Mars Attacks' hidden deal is played out as the first
  ``4 * players`` chance moves, one card at a time drawn uniformly from those left (the
  same distribution as the engine's shuffle); its outcomes are the Memphis-draw indices.
- Player actions are :meth:`Game.encode_action` indices (``num_distinct_actions`` =
  :meth:`Game.num_actions`).
- Game type: sequential, explicit stochastic chance, terminal rewards. Martian Dice is
  perfect information, Mars Attacks imperfect (the face-down cards). Returns are the
  engine's: 1 shared among the winners, so 2+ players are constant-sum (utility sum 1);
  solo Martian Dice returns minus the turns taken (general-sum, one player).
- Parameters: the game's variant parameters that are numbers or words (everything but Mars
  Attacks' custom ``cards``) plus ``max_moves`` (see :mod:`marsdice.adapters.common`: the
  game stops there, leaders sharing the win; 0 = a hundred rounds' worth).
- Observations: :mod:`marsdice.adapters.encoding`'s vector of the player's view as the
  observation tensor; the view as compact JSON (without the last step's events) as the
  observation string. No information-state tensor or string is provided.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from marsdice.adapters import require
from marsdice.adapters.common import MAX_MOVES, capped_returns, split_params
from marsdice.adapters.encoding import Encoder, encoder
from marsdice.attacks.actions import Draw
from marsdice.attacks.setup import new_game as new_attacks_game
from marsdice.attacks.variant import Variant as AttacksVariant
from marsdice.core.game import CHANCE, JSON, Game, GameState, Variant
from marsdice.games import get_game

pyspiel: Any = require("pyspiel")
np: Any = require("numpy")

#: OpenSpiel's short name of each game
NAMES: Final = {"martian": "python_marsdice_martian", "attacks": "python_marsdice_attacks"}
#: encoded chance lists kept per game
CHANCE_CACHE: Final = 256
#: the players OpenSpiel gets when none are asked for
DEFAULT_PLAYERS: Final = {"martian": 2, "attacks": 2}


def parameter_specification(game: Game) -> dict[str, int | str]:
    """The OpenSpiel parameters of a game and their defaults: every variant parameter of a
    type OpenSpiel has (a whole number or a word), then ``max_moves``."""
    params = game.variant_to_params(game.default_variant(DEFAULT_PLAYERS[game.name]))
    spec: dict[str, int | str] = {}
    for key, value in params.items():
        if isinstance(value, int | str) and not isinstance(value, bool) and key != "cards":
            spec[key] = value
    spec[MAX_MOVES] = 0
    return spec


def game_type(game: Game, players: int | None = None) -> Any:
    """The :class:`pyspiel.GameType` of a game (``players``: the solo game is general-sum)."""
    perfect = game.name == "martian"
    info = pyspiel.GameType.Information
    utility = pyspiel.GameType.Utility
    return pyspiel.GameType(
        short_name=NAMES[game.name],
        long_name=f"Python {game.title} (marsdice)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=info.PERFECT_INFORMATION if perfect else info.IMPERFECT_INFORMATION,
        utility=utility.GENERAL_SUM if players == 1 else utility.CONSTANT_SUM,
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
    """One of our games as a :class:`pyspiel.Game`; ``GAME`` names it."""

    GAME: str = ""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        self.game: Game = get_game(self.GAME)
        merged: dict[str, JSON] = dict(parameter_specification(self.game))
        merged.update({key: _plain(value) for key, value in (params or {}).items()})
        self.variant: Variant
        self.variant, self.max_moves = split_params(self.game, merged)
        self.encoder: Encoder = encoder(self.game, self.variant, self.max_moves)
        players = self.variant.players
        solo = players == 1
        info = pyspiel.GameInfo(
            num_distinct_actions=self.game.num_actions(self.variant),
            max_chance_outcomes=self.game.num_chance_outcomes(self.variant),
            num_players=players,
            min_utility=-float(self.max_moves + 1) if solo else 0.0,  # turns begun
            max_utility=-1.0 if solo else 1.0,
            utility_sum=None if solo else 1.0,
            max_game_length=self.max_moves,
        )
        super().__init__(game_type(self.game, players), info, merged)
        #: encoded chance lists by the identity of the engine's (cached, immutable) outcome
        #: tuple: the engines hand out the same tuple for the same roll, and an index depends
        #: only on the variant, so rolls of 13 dice (2380 outcomes) are encoded once
        self.chance_cache: dict[int, tuple[object, tuple[tuple[int, float], ...]]] = {}
        #: the card set's names in notation (Mars Attacks), for the deal
        self.slugs: tuple[str, ...] = tuple(c.slug for c in getattr(self.variant, "cards", ()))
        # a dealt-in-file-order opening: what the encodings need before the real deal is done
        self.placeholder: GameState = self.game.start(self.variant, random.Random(0))

    def new_initial_state(self) -> MarsDiceState:
        """The opening; Mars Attacks starts with its deal's chance moves."""
        if self.game.name == "attacks":
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


class MartianDiceGame(MarsDiceGame):
    """``python_marsdice_martian``."""

    GAME = "martian"


class MarsAttacksGame(MarsDiceGame):
    """``python_marsdice_attacks``."""

    GAME = "attacks"


class MarsDiceState(pyspiel.State):  # type: ignore[misc]
    """A position: the engine's immutable state (``None`` while Mars Attacks is being
    dealt), the cards dealt so far and the moves played (for the cap)."""

    def __init__(
        self,
        game: MarsDiceGame,
        state: GameState | None,
        dealt: tuple[int, ...] = (),
        moves: int = 0,
    ) -> None:
        super().__init__(game)
        self.owner = game
        self._shared = _Shared(state)
        self.dealt = dealt
        self.moves = moves

    @property
    def state(self) -> GameState | None:
        """The engine's state (``None`` while Mars Attacks is being dealt)."""
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
            left = self._undealt()
            return [(self._deal_index(card), 1.0 / len(left)) for card in left]
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
            self.dealt = (*self.dealt, self._deal_card(action))
            if len(self.dealt) == self._deal_size():
                self.state = self._dealt_opening()
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
            return f"deal:{outcome.removeprefix('draw:')}" if self.state is None else outcome
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
            return f"dealing: {len(self.dealt)} of {self._deal_size()} cards dealt"
        return self.owner.game.result_text(self.state, _names(self.owner.variant.players))

    # -- the deal of Mars Attacks --

    def _deal_size(self) -> int:
        return 4 * self.owner.variant.players

    def _undealt(self) -> list[int]:
        return [card for card in range(len(self.owner.slugs)) if card not in self.dealt]

    def _deal_index(self, card: int) -> int:
        """A dealt card's outcome index: the draw of that card (as Memphis's draw)."""
        return self.owner.game.encode_chance(self.owner.placeholder, Draw(self.owner.slugs[card]))

    def _deal_card(self, index: int) -> int:
        outcome = self.owner.game.decode_chance(self.owner.placeholder, index)
        if not isinstance(outcome, Draw) or outcome.card not in self.owner.slugs:
            raise ValueError(f"{outcome.text()} is not a card to deal")
        card = self.owner.slugs.index(outcome.card)
        if card in self.dealt:
            raise ValueError(f"{outcome.text()} is already dealt")
        return card

    def _dealt_opening(self) -> GameState:
        """The engine's opening once every stack is dealt (the rest stay in the box)."""
        n = self.owner.variant.players
        stacks = [list(self.dealt[i * n : (i + 1) * n]) for i in range(4)]
        variant = self.owner.variant
        assert isinstance(variant, AttacksVariant)
        return new_attacks_game(variant, stacks)


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
    ``string_from``; the vector is :mod:`marsdice.adapters.encoding`'s."""

    def __init__(self, game: MarsDiceGame) -> None:
        self.game = game
        self.tensor = np.zeros(game.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MarsDiceState, player: int) -> None:
        """The vector of ``player``'s view (all zeros while Mars Attacks is dealt)."""
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


for _game_class in (MartianDiceGame, MarsAttacksGame):
    pyspiel.register_game(game_type(get_game(_game_class.GAME)), _game_class)
