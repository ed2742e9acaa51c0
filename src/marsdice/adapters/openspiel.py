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
  :meth:`Game.start_from_setup` then gives the opening. ``chance_outcomes`` lists them
  the likeliest first (ties by index: OpenSpiel takes any order, and a sampler walking
  the cumulative probabilities stops about four times sooner in a 13-dice roll's 2,380);
  ``legal_actions`` lists the indices in order.
- Speed: a node's encoded moves are worked out once (:class:`_Moves`) and kept with the
  engine state; the encoded lists are kept per configuration by the identity of the
  engine's tuple (the engines hand out one tuple per dice count, per set of choices), so a
  step decodes nothing and OpenSpiel's many questions (``current_player``,
  ``is_terminal``...) read one field each.
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
  events) as the observation string. ``str(state)`` is the whole position
  (:meth:`Game.position_text` for a spectator, :meth:`Game.hidden_text`, the move number).
- Information states (:class:`Trail`): what the seat saw, read from its views through the
  declaration (:meth:`Game.redact`, :meth:`Game.memo`), so nothing hidden leaks;
  ``resample_from_infostate`` is :meth:`Game.resample` (``ISMCTSBot`` plays through it).
- Games and states pickle and serialize (``random_sim_test(serialize=True)``): a game keeps
  only what its parameters determine (:class:`_Config`, found again by a rebuilt game).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any, Final

from marsdice.adapters import require
from marsdice.adapters.common import MAX_MOVES, TURN_COUNTERS, capped_returns, settings
from marsdice.adapters.encoding import encoder
from marsdice.core.encoding import Encoder
from marsdice.core.errors import IllegalActionError
from marsdice.core.game import (
    CHANCE,
    JSON,
    TERMINAL,
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

#: OpenSpiel's player ids of a chance node and of the end
CHANCE_ID: Final = int(pyspiel.PlayerId.CHANCE)
TERMINAL_ID: Final = int(pyspiel.PlayerId.TERMINAL)
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


def parameter_specification(game: Game) -> dict[str, int | str | bool]:
    """The OpenSpiel parameters of a game and their defaults: every variant parameter of a
    type OpenSpiel has (a whole number or a word, by the game's variant schema), then
    ``max_moves``."""
    properties = game.variant_schema().get("properties")
    kinds = {
        key: schema.get("type") if isinstance(schema, dict) else None
        for key, schema in (properties.items() if isinstance(properties, dict) else ())
    }
    params = game.variant_to_params(game.default_variant(default_players(game)))
    spec: dict[str, int | str | bool] = {}
    for key, value in params.items():
        if kinds.get(key) not in PARAMETER_TYPES:
            continue
        if isinstance(value, int | str) and not isinstance(value, bool):
            spec[key] = value
    spec[MAX_MOVES] = 0
    spec[TURN_COUNTERS] = True
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
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(game),
    )


class _Config:
    """What a game's parameters make (the variant, the cap, the encoder, the chance lists),
    built once per parameter string and shared by every :class:`MarsDiceGame` of it: a game
    that pyspiel unpickles or deserializes gets no Python attributes of its own (its
    ``__setstate__`` makes the C++ game only), so it finds them here again."""

    def __init__(self, game: Game, params: Mapping[str, JSON]) -> None:
        found = settings(game, params)
        self.game = game
        self.variant: Variant = found.variant
        self.max_moves = found.max_moves
        self.turn_counters = found.turn_counters
        self.encoder: Encoder = encoder(game, self.variant, self.max_moves, found.turn_counters)
        #: the information-state vector's size: the observation and what is remembered
        self.info_size = self.encoder.size + len(self.encoder.recall_labels)
        self.perfect = game.game_type.perfect_information
        #: encoded chance lists (:class:`_Moves`) by the identity of the engine's outcome
        #: tuple, which the engines build once per dice count (or box) and hand out again: a
        #: 13-dice roll's 2,380 outcomes are encoded once per variant, for every game and
        #: state sharing it; the legal actions the same way, by their tuple
        self.chance: dict[int, _Moves] = {}
        self.legal: dict[int, _Moves] = {}
        #: each player action's index by the action's identity (the actions kept alive in
        #: ``action_kept``)
        self.action_codes: dict[int, int] = {}
        self.action_kept: dict[int, Action] = {}
        #: an opening of the variant: the context chance indices are read in while the
        #: hidden setup is being dealt (they depend on the variant only)
        self.placeholder: GameState = game.start(self.variant, random.Random(0))
        self.setup_indices: dict[str, int] = {}
        #: the same by the outcome's identity (a game may hand out the same outcomes again),
        #: the outcomes kept alive in ``setup_kept``
        self.setup_codes: dict[int, int] = {}
        self.setup_kept: dict[int, Action] = {}
        #: the setup's first move's encoded outcomes (the same in every game), once built
        self.first_deal: _Moves | None = None
        #: the opening of a game without hidden setup (states are immutable: shared)
        self.opening = None if game.game_type.hidden_setup else self.placeholder
        self.setup_moves = self._setup_moves()

    def setup_index(self, outcome: Action) -> int:
        """A setup move's chance index (Mars Attacks: the draw of that card), by its text."""
        text = outcome.text()
        index = self.setup_indices.get(text)
        if index is None:
            index = self.setup_indices[text] = self.game.encode_chance(self.placeholder, outcome)
        if len(self.setup_codes) >= MOVES_CACHE:
            self.setup_codes.clear()
            self.setup_kept.clear()
        self.setup_codes[id(outcome)] = index
        self.setup_kept[id(outcome)] = outcome  # so that its id names no other object
        return index

    def setup_moves_after(self, dealt: Sequence[Action]) -> _Moves:
        """The next setup move's encoded outcomes after ``dealt`` (none: the setup is
        complete). Built at every deal (the deals differ), so built with few Python
        steps per outcome; the first move's, the same for every game, once."""
        if not dealt and self.first_deal is not None:
            return self.first_deal
        outcomes = self.game.setup_outcomes(self.variant, dealt)
        if not outcomes:
            return _NO_MOVES  # the setup is complete
        moves, probabilities = zip(*outcomes, strict=True)
        codes = self.setup_codes
        try:
            indices = list(map(codes.__getitem__, map(id, moves)))
        except KeyError:
            indices = [self.setup_index(outcome) for outcome in moves]
        if probabilities.count(probabilities[0]) == len(probabilities):
            # a uniform deal: the pairs by index are already the likeliest first
            made = _Moves.uniform(outcomes, moves, indices, _as_float(probabilities[0]))
        else:
            chances = [float(p) for p in probabilities]
            made = _Moves(outcomes, moves, list(zip(indices, chances, strict=True)))
        if not dealt:
            self.first_deal = made
        return made

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

    def chance_moves(self, state: GameState) -> _Moves:
        """The encoded chance outcomes of an engine state."""
        outcomes = state.chance_outcomes()
        known = self.chance.get(id(outcomes))
        if known is not None and known.source is outcomes:
            return known
        encode = self.game.encode_chance
        moves = [o for o, _ in outcomes]
        made = _Moves(outcomes, moves, [(encode(state, o), float(p)) for o, p in outcomes])
        # kept for good: its pairs made again in their order (the numbers first, then the
        # pairs), so that walking or copying them reads memory in order
        chances = [chance + 0.0 for _, chance in made.pairs]
        indices = [index + 0 for index, _ in made.pairs]
        made.pairs = list(zip(indices, chances, strict=True))
        _remember(self.chance, made)
        return made

    def legal_moves(self, state: GameState) -> _Moves:
        """The encoded legal actions of an engine state, by the identity of the engine's
        tuple, else each action by its identity (player actions are encoded by their value
        in the variant's fixed action space, :meth:`Game.decode_action`: an action has the
        same index in every state of the variant)."""
        actions = state.legal_actions()
        known = self.legal.get(id(actions))
        if known is not None and known.source is actions:
            return known
        try:
            indices = list(map(self.action_codes.__getitem__, map(id, actions)))
        except KeyError:
            indices = [self.action_index(state, action) for action in actions]
        made = _Moves(actions, actions, list(zip(indices, repeat(1.0))), chance=False)
        _remember(self.legal, made)
        return made

    def action_index(self, state: GameState, action: Action) -> int:
        """A player action's index, kept by the action's identity."""
        codes = self.action_codes
        index = codes.get(id(action))
        if index is None or self.action_kept[id(action)] is not action:
            if len(codes) >= MOVES_CACHE:
                codes.clear()
                self.action_kept.clear()
            index = codes[id(action)] = self.game.encode_action(state, action)
            self.action_kept[id(action)] = action  # so that its id names no other object
        return index


class _Moves:
    """A chance node's outcomes (or a decision's legal actions) encoded once: the pairs as
    :meth:`MarsDiceState.chance_outcomes` hands them out, likeliest first (OpenSpiel takes
    them in any order; a sampler walking the cumulative probabilities stops sooner), ties
    by index; the indices in order (``legal_actions``); and the engine's move by index (so
    applying one decodes nothing)."""

    __slots__ = ("actions", "by_index", "pairs", "source")

    def __init__(
        self,
        source: object,
        moves: Sequence[Action],
        encoded: list[tuple[int, float]],
        chance: bool = True,
    ) -> None:
        #: the engine's tuple the indices were read from (kept: the caches key on its id)
        self.source = source
        self.by_index: dict[int, Action] = dict(zip(map(_INDEX, encoded), moves, strict=True))
        #: a decision's pairs are never handed out: left as they came
        self.pairs = encoded
        if chance:  # by index, then (a stable sort) the likeliest first
            self.pairs = sorted(encoded, key=_INDEX)
            self.pairs.sort(key=_PROBABILITY, reverse=True)
        self.actions = sorted(self.by_index)

    @classmethod
    def uniform(
        cls, source: object, moves: Sequence[Action], indices: list[int], chance: float
    ) -> _Moves:
        """The outcomes of a uniform chance node (a deal), ``chance`` each: what
        ``__init__`` makes of them, without its sorts by probability."""
        made = _NEW_MOVES(cls)
        made.source = source
        made.by_index = dict(zip(indices, moves, strict=True))
        made.actions = sorted(made.by_index)
        made.pairs = list(zip(made.actions, repeat(chance)))
        return made


_NEW_MOVES: Final = object.__new__
#: probabilities as floats, by the identity of the exact number (kept alive here): a deal
#: asks for the same few fractions at every card, and a Fraction's float costs a Python call
_FLOATS: dict[int, tuple[object, float]] = {}


def _as_float(probability: Any) -> float:
    """``float(probability)``, kept for the numbers the engines hand out again."""
    known = _FLOATS.get(id(probability))
    if known is not None and known[0] is probability:
        return known[1]
    value = float(probability)
    if len(_FLOATS) >= MOVES_CACHE:
        _FLOATS.clear()
    _FLOATS[id(probability)] = (probability, value)
    return value


_INDEX: Final = itemgetter(0)
_PROBABILITY: Final = itemgetter(1)


#: a terminal node's moves
_NO_MOVES: Final = _Moves((), (), [])
#: the encoded lists a configuration keeps of each kind (when full, it starts again)
MOVES_CACHE: Final = 4096


def _remember(cache: dict[int, _Moves], moves: _Moves) -> None:
    """Keep ``moves`` by its source's identity; a full cache is emptied first (a game that
    builds a fresh tuple for every state must not crowd out the shared ones for good)."""
    if len(cache) >= MOVES_CACHE:
        cache.clear()
    cache[id(moves.source)] = moves


#: the configurations made so far, by game and parameter string
_CONFIGS: dict[tuple[str, str], _Config] = {}


def _config(game: Game, params: Mapping[str, JSON]) -> _Config:
    key = (game.name, json.dumps(dict(params), sort_keys=True))
    made = _CONFIGS.get(key)
    if made is None:
        made = _CONFIGS[key] = _Config(game, params)
    return made


class MarsDiceGame(pyspiel.Game):  # type: ignore[misc]
    """One of our games as a :class:`pyspiel.Game`; ``GAME`` names it (each registered game
    gets its subclass, :data:`GAME_CLASSES`).

    Like OpenSpiel's own Python games it keeps nothing that its parameters do not
    determine: everything it knows is its :class:`_Config`, found again from
    ``get_parameters()`` by a game that pyspiel unpickled or deserialized."""

    GAME: str = ""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        game = get_game(self.GAME)
        merged: dict[str, JSON] = dict(parameter_specification(game))
        merged.update({key: _plain(value) for key, value in (params or {}).items()})
        config = _config(game, merged)
        players = config.variant.players
        low, high, total = _utility_bounds(game, players, config.max_moves)
        info = pyspiel.GameInfo(
            num_distinct_actions=game.num_actions(config.variant),
            max_chance_outcomes=game.num_chance_outcomes(config.variant),
            num_players=players,
            min_utility=low,
            max_utility=high,
            utility_sum=total,
            max_game_length=config.max_moves,
        )
        super().__init__(game_type(game, players), info, merged)
        self.config = config

    def __getattr__(self, name: str) -> Any:
        """Only for a game pyspiel rebuilt without its Python attributes: its configuration
        from its parameters, then the attribute asked for."""
        if name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        if name != "config":
            return getattr(self.config, name)
        params = {key: _plain(value) for key, value in self.get_parameters().items()}
        config = _config(get_game(self.GAME), params)
        self.__dict__["config"] = config
        return config

    @property
    def game(self) -> Game:
        """Our game (the engine's declaration)."""
        return self.config.game

    @property
    def variant(self) -> Variant:
        return self.config.variant

    @property
    def max_moves(self) -> int:
        return self.config.max_moves

    @property
    def encoder(self) -> Encoder:
        return self.config.encoder

    @property
    def setup_moves(self) -> int:
        """The chance moves the hidden setup takes (0 without one)."""
        return self.config.setup_moves

    @property
    def placeholder(self) -> GameState:
        return self.config.placeholder

    def new_initial_state(self) -> MarsDiceState:
        """The opening; a game with a hidden setup starts with its deal's chance moves."""
        return MarsDiceState(self, self.config.opening)

    def __deepcopy__(self, memo: dict[int, object]) -> MarsDiceGame:
        """A game never changes: its states' copies share it."""
        del memo
        return self

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> Observer:
        """The observer of the players' views, or of their information states (perfect
        recall: the views they saw, :class:`Observer`)."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        recall = iig_obs_type is not None and bool(iig_obs_type.perfect_recall)
        return Observer(self, recall)

    def setup_index(self, outcome: Action) -> int:
        """A setup move's chance index (Mars Attacks: the draw of that card)."""
        return self.config.setup_index(outcome)


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
    dealt), the setup's outcomes dealt so far, the moves played (for the cap) and, in a game
    with hidden information, the :class:`Trail` of its steps (for the information states).

    All of it is on one plain object (:class:`_Node`, the only entry of ``__dict__``): an
    attribute of a pyspiel object costs several times one of a plain object, and OpenSpiel
    reads these at every move. pyspiel serializes a Python state as its ``__dict__`` and
    clones it with ``deepcopy`` of it, so the node pickles and copies; the game is not in it
    (the ``owner`` slot is set again by :meth:`MarsDiceGame.new_initial_state` when pyspiel
    deserializes)."""

    __slots__ = ("__dict__", "owner")

    def __init__(
        self,
        game: MarsDiceGame,
        state: GameState | None,
        dealt: tuple[Action, ...] = (),
        moves: int = 0,
        trail: Trail | None = None,
    ) -> None:
        super().__init__(game)
        owner: _Config = game.config
        self.owner = owner
        if trail is None and state is not None and not owner.perfect:
            trail = Trail(state)
        self._n = _Node(state, _Dealt(dealt), moves, trail, owner.max_moves)

    def __getattr__(self, name: str) -> Any:
        """Only for a state pyspiel unpickled (its Python object is made anew, the ``owner``
        slot empty): the configuration of its game."""
        if name != "owner":
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        owner: _Config = self.get_game().config
        self.owner = owner
        return owner

    @property
    def state(self) -> GameState | None:
        """The engine's state (``None`` while the hidden setup is being dealt)."""
        return self._n.value

    @state.setter
    def state(self, value: GameState | None) -> None:
        self._n.start(value)

    @property
    def dealt(self) -> tuple[Action, ...]:
        """The hidden setup's outcomes dealt so far."""
        return self._n.dealt

    @property
    def moves(self) -> int:
        """The moves played (decisions and chance outcomes: the cap counts them)."""
        return self._n.played

    @property
    def trail(self) -> Trail | None:
        """What the seats saw (a game with hidden information, once its setup is dealt)."""
        return self._n.trail

    @trail.setter
    def trail(self, value: Trail | None) -> None:
        self._n.trail = value

    # -- what OpenSpiel asks --

    def current_player(self) -> int:
        return self._n.node

    def is_terminal(self) -> bool:
        return self._n.node == TERMINAL_ID

    def is_chance_node(self) -> bool:
        return self._n.node == CHANCE_ID

    def _legal_actions(self, player: int) -> list[int]:
        n = self._n
        if player != n.node or player < 0:
            return []
        moves = n.encoded
        if moves is None:
            moves = n.encoded = self.owner.legal_moves(n.value)  # type: ignore[arg-type]
        return list(moves.actions)

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions' indices, in order (of the player to act, or ``player``); at a
        chance node the outcomes' indices."""
        n = self._n
        node = n.node
        if player is None or player == node:
            if node == TERMINAL_ID:
                return []
            moves = n.encoded
            if moves is None:
                moves = self._moves()
            return list(moves.actions)
        if player == CHANCE_ID:
            return [action for action, _ in self.chance_outcomes()]
        return self._legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Every outcome's index with its exact probability (as a float), the likeliest
        first (ties by index)."""
        n = self._n
        if n.node != CHANCE_ID and n.value is not None:
            return []  # not a chance node (the hidden setup's outcomes even at the cap)
        moves = n.encoded
        if moves is None:
            moves = self._moves()
        return list(moves.pairs)

    def _moves(self) -> _Moves:
        """The encoded moves of this node (its chance outcomes or legal actions), kept with
        the engine state."""
        n = self._n
        state = n.value
        config = self.owner
        player = n.player
        if state is None:
            moves = config.setup_moves_after(n.dealt)
        elif player >= 0:  # the engine's tuple's encoding, if kept (config.legal_moves)
            actions = state.legal_actions()
            known = config.legal.get(id(actions))
            if known is None or known.source is not actions:
                known = config.legal_moves(state)
            moves = known
        elif player == CHANCE_ID:
            moves = config.chance_moves(state)
        else:
            moves = _NO_MOVES
        n.encoded = moves
        return moves

    def _apply_action(self, action: int) -> None:
        n = self._n
        if n.node == TERMINAL_ID:  # the end, or the move cap: nothing is played past it
            raise IllegalActionError(f"the game is over (move {n.played} of {n.cap}): no move")
        moves = n.encoded
        if moves is None:
            moves = self._moves()
        state = n.value
        move = moves.by_index.get(action)
        if state is None:
            if move is None:
                move = self._setup_outcome(action)  # raises: not a card to deal now
            n.played += 1
            self._deal(move)
            return
        if move is None:  # not legal here: the engine says why
            game = self.owner.game
            decode = game.decode_chance if n.player == CHANCE_ID else game.decode_action
            move = decode(state, action)
        after = state.apply(move)
        # _Node.step, written out (every move of every game comes here)
        n.value = after
        player = after.current_player
        n.player = player = player if player >= 0 else _PLAYER_IDS[player]
        n.played = played = n.played + 1
        n.node = TERMINAL_ID if played >= n.cap else player
        n.encoded = None
        n._cache = None
        if n.trail is not None:
            n.trail = n.trail.extend(move, after)

    def _deal(self, move: Action) -> None:
        """A move of the hidden setup; the opening once it is all dealt."""
        config = self.owner
        n = self._n
        n.dealt = dealt = _Dealt((*n.dealt, move))
        after_deal = config.setup_moves_after(dealt)
        if after_deal.actions:
            n.start(None)
            n.encoded = after_deal
            return
        n.start(start := config.game.start_from_setup(config.variant, dealt))
        if not config.perfect:
            n.trail = Trail(start)

    def _action_to_string(self, player: int, action: int) -> str:
        game = self.owner.game
        context = self.state if self.state is not None else self.owner.placeholder
        if player == CHANCE_ID:
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
        """The whole position: what a spectator sees (:meth:`Game.position_text`) and, in a
        game with hidden information, the hidden part (:meth:`Game.hidden_text`)."""
        node = self._n
        if node.value is None:
            dealing = f"dealing: {len(self.dealt)} of {self.owner.setup_moves} cards dealt"
            names = ",".join(outcome.text().split(":", 1)[-1] for outcome in self.dealt)
            return f"{dealing}: {names}" if names else dealing
        known = node.cache.get("str")
        if known is None:
            game = self.owner.game
            # (a solo game's counters whatever ``turn_counters`` says: its return is the
            # turns it took, so two positions apart by them are two positions)
            counters = self.owner.turn_counters or self.owner.variant.players == 1
            text = game.position_text(node.value, None, counters=counters)
            hidden = game.hidden_text(node.value)
            known = node.cache["str"] = f"{text} | {hidden}" if hidden else text
        return f"{known} | move {self.moves} of {self.owner.max_moves}"

    def observation_string(self, player: int | None = None) -> str:
        """The player's view as compact JSON (the last step's events and legal actions left
        out); while the hidden setup is dealt, how far it is."""
        if player is None:
            player = self.current_player()
        else:
            self._check_player(player)
        return self.owner_observer.string_from(self, player)

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """The game's encoder of the player's view (all zeros while the setup is dealt)."""
        if player is None:
            player = self.current_player()
        else:
            self._check_player(player)
        return list(self._vector(player))

    def information_state_string(self, player: int | None = None) -> str:
        """What the player has seen, perfect recall (:class:`Trail`); in a
        perfect-information game, the moves so far (OpenSpiel's history string)."""
        player = self.current_player() if player is None else player
        self._check_player(player)
        if self.owner.perfect:
            return str(self.history_str())
        if self.trail is None:
            return f"dealing: {len(self.dealt)} of {self.owner.setup_moves} cards dealt"
        return self.trail.text(self.owner.game, player)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """The player's observation vector, then what it remembers of the views it saw
        (Mars Attacks: a flag per card seen face up)."""
        player = self.current_player() if player is None else player
        self._check_player(player)
        vector = list(self._vector(player))
        if self.trail is not None:
            vector += self.owner.encoder.remember(self.trail.memos(self.owner.game, player))
        elif self.owner.encoder.recall_labels:
            vector += [0.0] * len(self.owner.encoder.recall_labels)
        return vector

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> MarsDiceState:
        """A full state the player cannot tell from this one: the declaration's
        :meth:`Game.resample` from the player's redacted log, its view and the memos of the
        views it saw, drawing the hidden part with a generator seeded from
        ``probability_sampler`` (OpenSpiel's, as ISMCTS passes it)."""
        self._check_player(player)
        state = self._n.value
        if self.owner.perfect or state is None or self.trail is None:
            return self.clone()  # type: ignore[no-any-return]
        game = self.owner.game
        seed = int(float(probability_sampler()) * 2**53)
        log, earlier = self.trail.public(game, player)
        view = game.observe(state, player)
        sample = game.resample(self.owner.variant, log, view, random.Random(seed), earlier=earlier)
        again: MarsDiceState = self.clone()  # (OpenSpiel's history and move number kept)
        again.state = sample
        again.trail = self.trail.seen_by(game, player, sample)
        return again

    # -- helpers --

    @property
    def owner_observer(self) -> Observer:
        return _observer(self.owner)

    def _check_player(self, player: int) -> None:
        if not 0 <= player < self.owner.variant.players:
            raise ValueError(
                f"player must be a seat 0-{self.owner.variant.players - 1}, got {player}"
            )

    def _vector(self, player: int) -> tuple[float, ...]:
        """The encoded view of a player, cached with the engine state."""
        node = self._n
        if node.value is None:
            return (0.0,) * self.owner.encoder.size
        key = ("tensor", player)
        known = node.cache.get(key)
        if known is None:
            view = self.owner.game.observe(node.value, player)
            known = node.cache[key] = tuple(self.owner.encoder.encode(view))
        return known  # type: ignore[return-value]

    # -- the hidden setup --

    def _setup_outcome(self, index: int) -> Action:
        """The setup move with this chance index; ValueError for one not dealable now."""
        for outcome, _ in self.owner.game.setup_outcomes(self.owner.variant, self.dealt):
            if self.owner.setup_index(outcome) == index:
                return outcome
        text = self.owner.game.decode_chance(self.owner.placeholder, index).text()
        if any(done.text() == text for done in self.dealt):
            raise ValueError(f"{text} is already dealt")
        raise ValueError(f"{text} is not a card to deal")


class _Step:
    """One engine step of a :class:`Trail`: its action, with the states around it and each
    player's line once asked for (a random game that never asks keeps no states alive)."""

    __slots__ = ("action", "after", "before", "seen")

    def __init__(
        self, action: Action, before: GameState | None = None, after: GameState | None = None
    ) -> None:
        self.action = action
        self.before = before
        self.after = after
        #: per player: the step as it saw it (redacted move, memo of its view after)
        self.seen: dict[int, tuple[str, JSON]] | None = None

    def line(self, game: Game, player: int) -> tuple[str, JSON]:
        seen = self.seen
        if seen is None:
            seen = self.seen = {}
        known = seen.get(player)
        if known is None:
            assert self.before is not None and self.after is not None  # Trail.played
            memo = game.memo(game.observe(self.after, player))
            text = game.redact(self.before, self.action, player)
            known = seen[player] = (text, memo)
        return known


class Trail:
    """The engine steps of a game with hidden information since its opening: what its
    information states are read from, through the declaration only (each move as
    :meth:`Game.redact` shows it to the player, the :meth:`Game.memo` of the player's
    view after it, and its view now), so they hold nothing the player did not see.

    Immutable and shared by clones; a step's lines are worked out once, when first asked.
    A trail made by :meth:`seen_by` (a resampled state) starts with what one player saw
    before the sample (``prefix``): the game's hidden part is hidden from every seat alike
    (Mars Attacks' face-down cards), so that is what each seat saw.

    Its steps are the first ``length`` of a list that trails grown from it share and only
    ever append to (a step costs one append, not a copy of the steps before); a trail
    grown from one that already grew starts a list of its own. A step keeps its action
    only; the states around it are replayed from the opening the first time a line is
    asked for (the engine is deterministic, chance being moves too), so that playing on
    without asking keeps no old state alive. ``now`` is the state after the last step."""

    __slots__ = ("length", "log", "now", "prefix", "start")

    def __init__(
        self,
        start: GameState,
        steps: Sequence[_Step] = (),
        prefix: tuple[tuple[tuple[str, JSON], ...], JSON] | None = None,
        log: list[_Step] | None = None,
        now: GameState | None = None,
    ) -> None:
        self.start = start
        self.log = list(steps) if log is None else log
        self.length = len(self.log)
        #: (the steps before ``start`` as seen, the memo of the opening) or None
        self.prefix = prefix
        if now is None:
            now = self._last() if self.length else start
        self.now: GameState = now

    @property
    def steps(self) -> tuple[_Step, ...]:
        return tuple(self.log[: self.length])

    def played(self) -> list[_Step]:
        """The steps with their states, replayed where not yet known."""
        steps = self.log[: self.length]
        state = self.start
        for step in steps:
            if step.after is None:
                step.before = state
                step.after = state.apply(step.action)
            state = step.after
        return steps

    def _last(self) -> GameState:
        """The state after the last step (replayed if need be)."""
        after = self.played()[-1].after
        assert after is not None
        return after

    def extend(self, action: Action, after: GameState) -> Trail:
        """This trail and one more step, ``action``, that led to ``after``."""
        log = self.log
        length = self.length
        if len(log) != length:  # a trail already grew from this one
            log = log[:length]
        log.append(_Step(action))
        # what __init__ would make of these, written out (every move of a game with hidden
        # information comes here)
        grown: Trail = _NEW_TRAIL(Trail)
        grown.start = self.start
        grown.log = log
        grown.length = length + 1
        grown.prefix = self.prefix
        grown.now = after
        return grown

    def __deepcopy__(self, memo: dict[int, object]) -> Trail:
        del memo
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the opening and the actions (the states are replayed)."""
        return (_rebuild_trail, (self.start, tuple(s.action for s in self.steps), self.prefix))

    def _seen(self, game: Game, player: int) -> tuple[JSON, list[tuple[str, JSON]]]:
        if self.prefix is None:
            opening = game.memo(game.observe(self.start, player))
            earlier: list[tuple[str, JSON]] = []
        else:
            opening = self.prefix[1]
            earlier = list(self.prefix[0])
        return opening, earlier + [step.line(game, player) for step in self.played()]

    def text(self, game: Game, player: int) -> str:
        """The information state string: the opening's memo, each move and memo, one line
        each, then the player's view now (compact JSON without events and legal actions)."""
        opening, lines = self._seen(game, player)
        out = [f"seat {player}", f"start {_compact(opening)}"]
        out += [text if memo is None else f"{text} {_compact(memo)}" for text, memo in lines]
        view = game.observe(self.now, player)
        view.pop("events", None)
        view.pop("legal_actions", None)
        out.append(_compact(view))
        return "\n".join(out)

    def memos(self, game: Game, player: int) -> list[JSON]:
        """The memos of every view the player saw, oldest first."""
        opening, lines = self._seen(game, player)
        return [opening, *(memo for _, memo in lines)]

    def public(self, game: Game, player: int) -> tuple[list[str], dict[int, JSON]]:
        """The player's redacted log from the opening and the memos by version, as
        :meth:`Game.resample` takes them."""
        opening, lines = self._seen(game, player)
        earlier = {0: opening}
        earlier.update({version: memo for version, (_, memo) in enumerate(lines, start=1)})
        return [text for text, _ in lines], earlier

    def seen_by(self, game: Game, player: int, sample: GameState) -> Trail:
        """The trail of a resampled state: what ``player`` saw, then steps from ``sample``."""
        opening, lines = self._seen(game, player)
        return Trail(sample, (), (tuple(lines), opening))


_NEW_TRAIL: Final = object.__new__


def _rebuild_trail(
    start: GameState,
    actions: tuple[Action, ...],
    prefix: tuple[tuple[tuple[str, JSON], ...], JSON] | None,
) -> Trail:
    """An unpickled trail, its states replayed at once (an action that does not play raises
    here, not later)."""
    return Trail(start, tuple(_Step(action) for action in actions), prefix)


def _compact(value: JSON) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class _Node:
    """What a :class:`MarsDiceState` holds: the engine's immutable state and what was
    worked out from it (OpenSpiel's player id, the encoded moves, encoded views, the
    position string), the moves played, the setup dealt and the :class:`Trail`.

    A move changes it in place (the engine state and what goes with it replaced, the cache
    dropped, never emptied); OpenSpiel clones a Python state with ``deepcopy``, which makes
    a shallow copy: the engine state, the encoded moves and the cache are shared, as they
    belong to the engine state and it never changes."""

    __slots__ = ("_cache", "cap", "dealt", "encoded", "node", "played", "player", "trail", "value")

    def __init__(
        self,
        value: GameState | None,
        dealt: _Dealt,
        played: int,
        trail: Trail | None,
        cap: int,
    ) -> None:
        self.dealt = dealt
        self.played = played
        self.trail = trail
        #: the move cap (``max_moves``): the game ends there
        self.cap = cap
        self.value: GameState | None = None
        #: OpenSpiel's id of who acts (before the move cap; the hidden setup is chance),
        #: and what ``current_player`` answers (the cap included)
        self.player = self.node = CHANCE_ID
        #: the encoded chance outcomes or legal actions, once asked for
        self.encoded: _Moves | None = None
        self._cache: dict[object, object] | None = None
        self.start(value)

    def start(self, value: GameState | None) -> None:
        """Hold ``value`` (with nothing worked out from it yet); the moves are as they are."""
        self.value = value
        self.player = CHANCE_ID
        if value is not None:
            player = value.current_player
            self.player = player if player >= 0 else _PLAYER_IDS[player]
        self.node = TERMINAL_ID if self.played >= self.cap else self.player
        self.encoded = None
        self._cache = None

    @property
    def cache(self) -> dict[object, object]:
        """Views, vectors and strings worked out from the state (made when first used)."""
        if self._cache is None:
            self._cache = {}
        return self._cache

    def __deepcopy__(self, memo: dict[int, object]) -> _Node:
        """A shallow copy: the engine state and what belongs to it are shared."""
        del memo
        copy = _NEW_NODE(_Node)
        copy.value = self.value
        copy.player = self.player
        copy.node = self.node
        copy.encoded = self.encoded
        copy._cache = self._cache
        copy.dealt = self.dealt
        copy.played = self.played
        copy.trail = self.trail
        copy.cap = self.cap
        return copy

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the engine state, the setup, the moves, the trail and the cap (the
        rest is worked out again)."""
        return (_Node, (self.value, self.dealt, self.played, self.trail, self.cap))


#: OpenSpiel's ids of the engine's chance and terminal players
_PLAYER_IDS: Final = {CHANCE: CHANCE_ID, TERMINAL: TERMINAL_ID}
_NEW_NODE: Final = object.__new__


class _Dealt(tuple):  # type: ignore[type-arg]
    """The setup's outcomes dealt so far: immutable, so clones share it."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, object]) -> _Dealt:
        del memo
        return self


class Observer:
    """OpenSpiel's Python observer protocol: ``tensor``, ``dict``, ``set_from``,
    ``string_from``. The observation is the game's encoder of the player's view; with
    ``recall`` (a perfect-recall observation type) it is the information state."""

    def __init__(self, game: MarsDiceGame | _Config, recall: bool = False) -> None:
        self.config: _Config = game if isinstance(game, _Config) else game.config
        self.recall = recall
        size = self.config.info_size if recall else self.config.encoder.size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"info_state" if recall else "observation": self.tensor}

    def set_from(self, state: MarsDiceState, player: int) -> None:
        """The vector of ``player`` (all zeros while the hidden setup is dealt)."""
        if self.recall:
            self.tensor[:] = state.information_state_tensor(player)
        else:
            self.tensor[:] = state._vector(player)

    def string_from(self, state: MarsDiceState, player: int) -> str:
        """The view as compact JSON, the last step's events and legal actions left out; with
        ``recall``, the information state string."""
        if self.recall:
            return state.information_state_string(player)
        node = state._n
        if node.value is None:
            return f"dealing: {len(state.dealt)} of {self.config.setup_moves} cards dealt"
        key = ("string", player)
        known = node.cache.get(key)
        if known is None:
            view = self.config.game.observe(node.value, player)
            view.pop("events", None)
            view.pop("legal_actions", None)
            known = node.cache[key] = _compact(view)
        return str(known)


#: the default (observation) observer of each configuration
_OBSERVERS: dict[int, tuple[_Config, Observer]] = {}


def _observer(config: _Config) -> Observer:
    known = _OBSERVERS.get(id(config))
    if known is None or known[0] is not config:
        known = _OBSERVERS[id(config)] = (config, Observer(config))
    return known[1]


def _plain(value: Any) -> JSON:
    """An OpenSpiel parameter value as a plain JSON value."""
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return str(value)


for _class in GAME_CLASSES.values():
    pyspiel.register_game(game_type(get_game(_class.GAME)), _class)
