"""The contract every game follows, and the one loop that drives any of them.

Three layers, each small:

- :class:`GameState`: one immutable position with explicit chance (OpenSpiel's shape): legal
  actions, exact chance outcomes, ``apply``, ``returns``, plus the few facts every layer above
  needs the same way for every game (scores, winners, placings, turns, rounds) and the
  structured :class:`Event` values the last step produced.
- :class:`Game`: one object per game, registered once in :mod:`marsdice.games`: its name,
  player range and :class:`GameType` (information, chance, utility, hidden setup: declared
  once, as OpenSpiel's ``GameType``), its variant to and from JSON-ready parameters, the
  opening, records, player views (:meth:`Game.observe`), the redacted move log, integer
  encodings, and :meth:`Game.resample` (a full state consistent with what a viewer saw).
  What the layers above load for a game (bots, terminal view, valuator, advice, encoder,
  browser plugin) is named in its registration in :mod:`marsdice.games`, never here.
- :func:`play_steps` / :func:`play_out`: the one drive-the-game loop (tournaments, the terminal
  game, tests, benchmarks and later the server all use it).

Standard library only.
"""

from __future__ import annotations

import dataclasses
import operator
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import ClassVar, Protocol, Self, TypeAlias

from marsdice.core.errors import IllegalActionError, RecordError
from marsdice.core.record import GameRecord, commentary_lines, replay_moves

#: ``current_player`` at a chance node: the dice, not a player, act next.
CHANCE = -1
#: ``current_player`` once the game is over.
TERMINAL = -2

#: A value that :func:`json.dumps` writes as it is.
JSON: TypeAlias = "bool | int | float | str | list[JSON] | dict[str, JSON] | None"
JSONObject: TypeAlias = "dict[str, JSON]"


def whole_number(value: object) -> int | None:
    """``value`` as a whole number if it is one: an int (not a bool), or a float without a
    fraction, as JSON Schema's ``integer`` reads ``25.0``; else None.

    >>> whole_number(25), whole_number(25.0), whole_number(25.5), whole_number(True)
    (25, 25, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return None


def index_value(value: object) -> int | None:
    """``value`` as an int if it is an integer index: a Python or numpy integer (anything
    with ``__index__``), not a bool; else None (a float, a string, a numpy bool).

    >>> index_value(3), index_value(True), index_value(1.0), index_value("1")
    (3, None, None, None)
    """
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def viewer_seat(viewer: object, players: int) -> int | None:
    """A viewer as :meth:`Game.observe` takes it: ``None`` (a spectator) or a seat
    ``0..players-1`` as an int (a numpy integer too); a bool, a float or another seat number
    is refused, so that no view holds a viewer it does not name exactly.

    >>> viewer_seat(None, 2), viewer_seat(1, 2)
    (None, 1)
    >>> viewer_seat(1.0, 2)
    Traceback (most recent call last):
    ...
    ValueError: viewer must be a seat 0-1 or None, got 1.0
    """
    if viewer is None:
        return None
    seat = index_value(viewer)
    if seat is None or not 0 <= seat < players:
        raise ValueError(f"viewer must be a seat 0-{players - 1} or None, got {viewer!r}")
    return seat


class Action(Protocol):
    """A small immutable value with a canonical text form shared by records, CLI and web."""

    def text(self) -> str:
        """The canonical notation, readable back by the state's ``parse_action``."""
        ...


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in one step (a capture, a bomb, a token moved...).

    Subclasses are small frozen dataclasses of plain values (ints, strs, bools, enums, tuples
    of those) with a ``kind`` naming them; views and records render text from them, never the
    other way round.

    >>> @dataclass(frozen=True, slots=True)
    ... class Scored(Event):
    ...     kind: ClassVar[str] = "scored"
    ...     seat: int
    ...     points: int
    >>> Scored(seat=1, points=4).to_json()
    {'type': 'scored', 'seat': 1, 'points': 4}
    """

    kind: ClassVar[str] = "event"

    def to_json(self) -> JSONObject:
        out: JSONObject = {"type": self.kind}
        for name in _field_names(type(self)):
            out[name] = to_json(getattr(self, name))
        return out


def _field_names(cls: type) -> tuple[str, ...]:
    """A dataclass's field names, looked up once per class (every view lists events)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(item.name for item in dataclasses.fields(cls))
    return names


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def to_json(value: object) -> JSON:
    """Plain values as JSON: enums by value, tuples as lists, events and dataclasses as objects.

    >>> to_json((1, (2, "x"), None))
    [1, [2, 'x'], None]
    """
    if isinstance(value, Enum):
        return to_json(value.value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Event):
        return value.to_json()
    if isinstance(value, tuple | list):
        return [to_json(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: to_json(getattr(value, name)) for name in _field_names(type(value))}
    raise TypeError(f"{type(value).__name__} has no JSON form")


class Variant(Protocol):
    """What the generic layers know of a game's settings: how many seats."""

    @property
    def players(self) -> int: ...


class GameState(Protocol):
    """One immutable position of a game; ``apply`` returns a new state.

    The meaning of the shared facts is the same in every game:

    - ``scores``: each seat's points now (Martian Dice: total; Mars Attacks: VP).
    - ``winners``: the seats that won, once the game is over (empty before).
    - ``placings()``: each seat's final place, 1 = won; equal seats share a place.
    - ``turns``: turns each seat has finished, extra turns included.
    - ``rounds``: rounds begun: a round is every seat's regular turn in seat order, so an
      extra turn (Mars Attacks) or a roll-off never starts one.
    - ``events``: what the step that produced this state did, in order.
    """

    @property
    def current_player(self) -> int:
        """The seat to act, or :data:`CHANCE`, or :data:`TERMINAL`."""
        ...

    @property
    def is_terminal(self) -> bool: ...

    @property
    def is_chance_node(self) -> bool: ...

    @property
    def players(self) -> int: ...

    @property
    def scores(self) -> tuple[int, ...]: ...

    @property
    def winners(self) -> tuple[int, ...]: ...

    @property
    def turns(self) -> tuple[int, ...]: ...

    @property
    def rounds(self) -> int: ...

    @property
    def events(self) -> tuple[Event, ...]: ...

    def placings(self) -> tuple[int, ...]: ...

    def legal_actions(self) -> Sequence[Action]: ...

    def chance_outcomes(self) -> Sequence[tuple[Action, Fraction]]: ...

    def sample_chance(self, rng: random.Random) -> Action: ...

    def apply(self, action: Action) -> Self:
        """The next state; an action that is not legal here (or not of this game) raises
        :class:`IllegalActionError` and changes nothing."""
        ...

    def parse_action(self, text: str) -> Action: ...

    def returns(self) -> tuple[float, ...]: ...


class Information(Enum):
    """What the players see of the state."""

    #: everything (Martian Dice)
    PERFECT = "perfect"
    #: not everything: hidden cards, a face-down draw (Mars Attacks)
    IMPERFECT = "imperfect"


class ChanceMode(Enum):
    """How chance enters a game."""

    #: at chance nodes whose every outcome is listed with its exact probability
    #: (:meth:`GameState.chance_outcomes`); the dice or the deck, never a hidden seed
    EXPLICIT = "explicit"


class Utility(Enum):
    """What :meth:`GameState.returns` pays."""

    #: 1 shared equally among the winners (so 2+ players sum to 1); solo: minus the turns
    #: taken (fewer is better)
    SHARED_WIN = "shared-win"


@dataclass(frozen=True, slots=True)
class GameType:
    """What kind of game it is, declared once (OpenSpiel's ``GameType``): the adapters, the
    server and the clients read it instead of asking which game they have."""

    information: Information
    chance: ChanceMode
    utility: Utility
    #: whether :meth:`Game.start` draws something no player sees (a shuffled deck); such a
    #: game deals it as :meth:`Game.setup_outcomes` chance moves for the research adapters
    hidden_setup: bool

    @property
    def perfect_information(self) -> bool:
        return self.information is Information.PERFECT


#: the rounds :meth:`Game.max_game_length` allows: far more than any sensible game lasts
CAP_ROUNDS = 100


@dataclass(frozen=True, slots=True)
class TieBreak:
    """How the places of seats level on points were decided, for a view's ``tie_breaks``.

    ``by`` names the rule: ``"shared"`` (they share a place), ``"rolloff"`` (Martian Dice's
    roll-off), ``"cards"`` (Mars Attacks: more cards captured), ``"reached_first"`` (Mars
    Attacks: who reached the score first). ``seats`` are in the order of their places.
    """

    score: int
    seats: tuple[int, ...]
    places: tuple[int, ...]
    by: str

    def to_json(self) -> JSONObject:
        return {
            "score": self.score,
            "seats": list(self.seats),
            "places": list(self.places),
            "by": self.by,
        }


class Game(ABC):
    """One game as every layer above the engines sees it. Subclasses fill in the rules-specific
    parts; records, replay and encodings' bookkeeping are shared here."""

    #: short name used on the command line, in records and in URLs
    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: what kind of game it is (information, chance, utility, hidden setup)
    game_type: ClassVar[GameType]

    # -- variants --

    @abstractmethod
    def default_variant(self, players: int) -> Variant:
        """The standard rules for this many players (VariantError out of range)."""

    @abstractmethod
    def variant_to_params(self, variant: Variant) -> JSONObject:
        """The settings as plain JSON-ready values; :meth:`variant_from_params` reads them back."""

    @abstractmethod
    def variant_from_params(self, params: Mapping[str, JSON]) -> Variant:
        """Settings from plain values (missing ones take the defaults). A bad value or an
        unknown key raises :class:`VariantError` whose message starts with the field's name."""

    @abstractmethod
    def variant_schema(self) -> JSONObject:
        """The JSON Schema of the parameters :meth:`variant_from_params` accepts: an object
        of its settings, each with its ``type``, ``default`` and its limits (``minimum`` /
        ``maximum`` or ``enum``), so that a client can build a form without the rules."""

    # -- play --

    @abstractmethod
    def start(self, variant: Variant, rng: random.Random) -> GameState:
        """The opening state; hidden setup (a shuffled deck) is drawn from ``rng``."""

    @abstractmethod
    def setup_tags(self, start: GameState) -> tuple[tuple[str, str], ...]:
        """Record tags that rebuild ``start``: the variant and any hidden setup (the deal)."""

    @abstractmethod
    def opening(self, record: GameRecord) -> GameState:
        """The opening state a record's tags describe; raises :class:`RecordError`."""

    @abstractmethod
    def describe_step(
        self, before: GameState, after: GameState, names: Sequence[str]
    ) -> str | None:
        """A line of commentary when a step ends a turn (or a roll-off roll), else None.
        Rendered from ``after.events``."""

    @abstractmethod
    def result_text(self, state: GameState, names: Sequence[str]) -> str:
        """Final (or current) totals and the winners, for the Result tag."""

    @abstractmethod
    def turn_moves(self, variant: Variant) -> int:
        """An upper bound on one turn's moves (decisions and chance outcomes), for
        :meth:`max_game_length`."""

    def max_game_length(self, variant: Variant, rounds: int = CAP_ROUNDS) -> int:
        """An upper bound on a game's length for the research adapters. Neither game has
        one (a player who never banks plays forever), so this is ``rounds`` rounds of the
        longest turns, far beyond what any sensible (or random) play reaches; the adapters
        stop a game there."""
        return rounds * variant.players * self.turn_moves(variant)

    # -- hidden setup, dealt as chance moves (research adapters) --

    def setup_outcomes(
        self, variant: Variant, dealt: Sequence[Action]
    ) -> Sequence[tuple[Action, Fraction]]:
        """The next hidden-setup chance move after ``dealt`` (each outcome with its exact
        probability), or nothing once the setup is complete. A game without hidden setup
        has none."""
        del variant, dealt
        return ()

    def start_from_setup(self, variant: Variant, dealt: Sequence[Action]) -> GameState:
        """The opening state once :meth:`setup_outcomes` has dealt everything."""
        if dealt:
            raise ValueError(f"{self.title} has no hidden setup to deal")
        return self.start(variant, random.Random(0))

    # -- what a viewer saw, made whole again --

    def parse_public(self, state: GameState, text: str) -> Action:
        """A move of a viewer's (redacted) log read in ``state``: a hidden move (a card
        drawn face down) stands for one consistent with it; other moves as
        :meth:`GameState.parse_action` reads them."""
        return state.parse_action(text)

    def memo(self, view: JSONObject) -> JSON:
        """What of a viewer's view :meth:`resample` may use later to narrow its search (small
        and JSON, so a client can keep it for every version, even on disk); None: nothing."""
        del view
        return None

    def resample(
        self,
        variant: Variant,
        public_log: Sequence[str],
        view: JSONObject,
        rng: random.Random,
        *,
        earlier: Mapping[int, JSON] | None = None,
    ) -> GameState:
        """A full state consistent with what a viewer saw: the public (redacted) log from the
        start and the viewer's ``view`` now (``earlier``: :meth:`memo` of the views of
        earlier versions, by version (steps played), when a game with hidden information
        can use them).

        A perfect-information game replays the log: the state itself. A game with hidden
        information draws what the viewer cannot see from ``rng``, exact in everything the
        viewer saw; :class:`~marsdice.core.errors.MarsDiceError` when no state fits.
        """
        del view, rng, earlier
        if not self.game_type.perfect_information:
            raise NotImplementedError(f"{self.title} must resample its hidden information")
        state = self.start(variant, random.Random(0))
        for text in public_log:
            state = state.apply(state.parse_action(text))
        return state

    # -- views --

    def tie_breaks(self, state: GameState) -> tuple[TieBreak, ...]:
        """How each group of seats level on points got its places (the game's own rule); a
        group whose seats share one place is ``"shared"``. Empty before the end."""
        if not state.is_terminal:
            return ()
        places = state.placings()
        groups: dict[int, list[int]] = {}
        for seat, score in enumerate(state.scores):
            groups.setdefault(score, []).append(seat)
        out = []
        for score, seats in sorted(groups.items(), key=lambda item: -item[0]):
            if len(seats) < 2:
                continue
            ordered = tuple(sorted(seats, key=lambda seat: (places[seat], seat)))
            got = tuple(places[seat] for seat in ordered)
            by = "shared" if len(set(got)) == 1 else self.tie_rule(state, ordered)
            out.append(TieBreak(score, ordered, got, by))
        return tuple(out)

    def tie_rule(self, state: GameState, seats: Sequence[int]) -> str:
        """The rule that separated these seats level on points (see :class:`TieBreak`)."""
        del state, seats
        raise NotImplementedError(f"{self.title} has no rule to separate equal scores")

    def turn_seat(self, state: GameState) -> int | None:
        """Whose turn it is, also while the dice roll for it (None once the game is over)."""
        if state.is_terminal:
            return None
        return state.current_player if state.current_player >= 0 else None

    def next_seat(self, state: GameState) -> int | None:
        """Who plays after this turn, as far as the rules say now (None: nobody, the game
        ends; or not known yet)."""
        seat = self.turn_seat(state)
        return None if seat is None else (seat + 1) % state.players

    def last_round(self, state: GameState) -> tuple[int, ...] | None:
        """Once the game's end is triggered, the seats still to play their regular turn in
        this last round, the one playing first (empty when it is the first seat's: the round
        is over); None before the end is triggered or once the game is over."""
        del state
        return None

    def common_view(self, state: GameState, viewer: int | None) -> JSONObject:
        """The keys every game's view shares (see :meth:`observe`)."""
        return {
            "game": self.name,
            "viewer": viewer,
            "players": state.players,
            "current_player": state.current_player,
            "scores": list[JSON](state.scores),
            "turns": list[JSON](state.turns),
            "rounds": state.rounds,
            "winners": list[JSON](state.winners),
            "placings": list[JSON](state.placings()) if state.is_terminal else None,
            "tie_breaks": [tie.to_json() for tie in self.tie_breaks(state)],
            "turn_seat": self.turn_seat(state),
            "next_seat": self.next_seat(state),
            "last_round": _seats_json(self.last_round(state)),
            "events": [event.to_json() for event in state.events],
            "legal_actions": _legal_texts(state, viewer),
        }

    def seat_view(self, spectators: JSONObject, state: GameState, viewer: int) -> JSONObject:
        """``observe(state, viewer)``, made from ``spectators`` (``observe(state, None)``) in
        a game of perfect information: a seat sees what a spectator sees but for the two
        keys of :meth:`common_view` that depend on the viewer, ``viewer`` and its
        ``legal_actions`` (a server with several seats builds the view once). Other games
        observe again."""
        if not self.game_type.perfect_information:
            return self.observe(state, viewer)
        view = dict(spectators)
        view["viewer"] = viewer
        view["legal_actions"] = _legal_texts(state, viewer)
        return view

    @abstractmethod
    def observe(self, state: GameState, viewer: int | None) -> JSONObject:
        """What ``viewer`` (a seat, or ``None`` for a spectator) may see, JSON-ready: enough to
        draw the game and list the legal actions, and nothing hidden from that viewer.

        Every game's view has at least the keys ``game``, ``viewer``, ``players``, ``phase``,
        ``current_player``, ``scores``, ``turns``, ``rounds``, ``winners``, ``placings``
        (each seat's place once the game is over, else None), ``tie_breaks`` (how equal
        scores were separated, :meth:`tie_breaks`), ``turn_seat``, ``next_seat`` and
        ``last_round`` (:meth:`last_round`),
        ``events`` (the last step's, as JSON), ``legal_actions`` (notation; empty unless the
        viewer is to act) and ``board`` (the game's own layout): :meth:`common_view` gives
        the shared ones, so the clients derive no rule. In a game of perfect information a
        seat's view is the spectators' but for ``viewer`` and ``legal_actions``
        (:meth:`seat_view` relies on it).
        """

    def position_text(self, state: GameState, viewer: int | None, *, counters: bool = True) -> str:
        """The whole position as ``viewer`` (a seat, or ``None``: a spectator) sees it, one
        line (the research adapters' position strings). Rendered from :meth:`observe`, so
        it shows nothing hidden from that viewer. ``counters=False`` leaves out the turn
        counters (turns taken, rounds), which only count what happened and make the
        positions of a game without a length limit endless."""
        return self.view_text(self.observe(state, viewer), counters=counters)

    def view_text(self, view: JSONObject, *, counters: bool = True) -> str:
        """A view of :meth:`observe` as one line of text: every key but the last step's
        events and the legal actions, as compact JSON (a game shows its own layout)."""
        import json

        dropped = {"events", "legal_actions"} | (set() if counters else {"turns", "rounds"})
        shown = {k: v for k, v in view.items() if k not in dropped}
        return json.dumps(shown, sort_keys=True, separators=(",", ":"))

    def hidden_text(self, state: GameState) -> str:
        """What no viewer sees (the face-down cards), as text: with
        :meth:`position_text` for a spectator it tells every position apart. Empty for a
        game that hides nothing."""
        del state
        return ""

    def redact(self, before: GameState, action: Action, viewer: int | None) -> str:
        """The notation of ``action`` (played in ``before``) as ``viewer`` may see it: the full
        text, unless it reveals something hidden (a card drawn face down)."""
        del before, viewer
        return action.text()

    def redacted_log(
        self, start: GameState, moves: Sequence[Action], viewer: int | None
    ) -> list[str]:
        """The move log as ``viewer`` may see it."""
        out = []
        state = start
        for action in moves:
            out.append(self.redact(state, action, viewer))
            state = state.apply(action)
        return out

    # -- integer encodings (for the research interfaces) --

    @abstractmethod
    def num_actions(self, variant: Variant) -> int:
        """Size of the fixed player-action space of this variant."""

    @abstractmethod
    def encode_action(self, state: GameState, action: Action) -> int:
        """The index of a player action (not a chance outcome) in ``range(num_actions)``."""

    @abstractmethod
    def decode_action(self, state: GameState, index: int) -> Action:
        """The player action with this index (legal or not); ValueError out of range."""

    @abstractmethod
    def num_chance_outcomes(self, variant: Variant) -> int:
        """Size of the fixed chance-outcome space of this variant."""

    @abstractmethod
    def encode_chance(self, state: GameState, outcome: Action) -> int:
        """The index of a chance outcome of ``state`` in ``range(num_chance_outcomes)``."""

    @abstractmethod
    def decode_chance(self, state: GameState, index: int) -> Action:
        """The chance outcome with this index; ValueError out of range."""

    def legal_mask(self, state: GameState) -> tuple[bool, ...]:
        """One flag per player action: legal now or not (all False at a chance node)."""
        variant = self.variant_of(state)
        mask = [False] * self.num_actions(variant)
        if not state.is_chance_node and not state.is_terminal:
            for action in state.legal_actions():
                mask[self.encode_action(state, action)] = True
        return tuple(mask)

    @abstractmethod
    def variant_of(self, state: GameState) -> Variant:
        """The settings a state is played under."""

    # -- records (shared) --

    def make_record(
        self,
        players: Sequence[str],
        start: GameState,
        moves: Sequence[str],
        extra_tags: Sequence[tuple[str, str]] = (),
    ) -> GameRecord:
        """A record of a game so far from its opening state; the Result tag from a replay."""
        if len(players) != start.players:
            raise RecordError(f"{start.players} players in the game but {len(players)} names")
        base = GameRecord(self.name, tuple(players), self.setup_tags(start), tuple(moves))
        final = self.replay(base)[-1]
        tags = (*base.tags, *extra_tags, ("Result", self.result_text(final, players)))
        return GameRecord(self.name, base.players, tags, base.moves)

    def replay(self, record: GameRecord) -> list[GameState]:
        """Every state of a recorded game, opening included; RecordError names a bad move."""
        if record.game != self.name:
            raise RecordError(f"not a {self.title} record: [Game {record.game!r}]")
        return replay_moves(self.opening(record), record.moves)

    def dumps(self, record: GameRecord) -> str:
        """The record's text, one line per turn with commentary."""
        names = record.players
        return record.dumps(commentary_lines(self.replay(record), names, self.describe_step))


def _legal_texts(state: GameState, viewer: int | None) -> list[JSON]:
    """The legal actions in notation for the viewer to act, else none."""
    if viewer is None or viewer != state.current_player:
        return []
    return [action.text() for action in state.legal_actions()]


def _seats_json(seats: tuple[int, ...] | None) -> JSON:
    return None if seats is None else list[JSON](seats)


# --- the one loop ----------------------------------------------------------------------------

#: Chooses an action for the player to act in a state (a bot, a person at a prompt, a client).
Agent = Callable[[GameState], Action]


@dataclass(frozen=True, slots=True)
class Step:
    """One applied action: the state before, the action, the state after."""

    before: GameState
    action: Action
    after: GameState


def play_steps(
    state: GameState,
    agents: Sequence[Agent],
    rng: random.Random,
    *,
    max_steps: int | None = None,
) -> Iterator[Step]:
    """Drive a game from ``state``: chance nodes are sampled with ``rng``, each seat's agent
    chooses at its decisions. Yields every step; stops at the end (or after ``max_steps``).

    An agent's illegal action raises :class:`IllegalActionError` naming the seat.
    """
    if len(agents) != state.players:
        raise ValueError(f"{state.players} seats but {len(agents)} agents")
    count = 0
    while not state.is_terminal and (max_steps is None or count < max_steps):
        if state.is_chance_node:
            action = state.sample_chance(rng)
            after = state.apply(action)
        else:
            seat = state.current_player
            action = agents[seat](state)
            try:
                after = state.apply(action)
            except IllegalActionError as error:
                raise IllegalActionError(f"seat {seat + 1}: {error}") from error
        yield Step(state, action, after)
        state = after
        count += 1


@dataclass(frozen=True, slots=True)
class Playthrough:
    """A game driven to its end: the opening, every action, the final state."""

    start: GameState
    actions: tuple[Action, ...]
    final: GameState

    @property
    def moves(self) -> tuple[str, ...]:
        """The actions in notation, as a record keeps them."""
        return tuple(action.text() for action in self.actions)


def play_out(
    state: GameState,
    agents: Sequence[Agent],
    rng: random.Random,
    *,
    on_step: Callable[[Step], None] | None = None,
    max_steps: int | None = None,
) -> Playthrough:
    """Play from ``state`` to the end (see :func:`play_steps`) and return the whole game."""
    actions: list[Action] = []
    final = state
    for step in play_steps(state, agents, rng, max_steps=max_steps):
        actions.append(step.action)
        final = step.after
        if on_step is not None:
            on_step(step)
    return Playthrough(state, tuple(actions), final)


def chance_agent(rng: random.Random) -> Agent:
    """An agent playing uniformly random legal actions (a baseline and a fuzzer)."""

    def choose(state: GameState) -> Action:
        return rng.choice(list(state.legal_actions()))

    return choose
