"""Martian Dice rules: faces, variant settings, actions and the immutable game state.

A turn: roll the dice left (chance), tanks are set aside automatically, the player takes
one allowed face type, then stops or rolls again. See ``docs/rules-martian.md``.

>>> state = new_game(Variant(players=2))
>>> state.phase, state.current_player == CHANCE
(<Phase.ROLL: 'roll'>, True)
>>> state = state.apply(state.parse_action("TTHHHHRRCCCKK"))
>>> [a.text() for a in state.legal_actions()]
['rays', 'humans', 'cows', 'chickens']
>>> state = state.apply(Take(Face.HUMAN)).apply(STOP)
>>> state.scores, state.seat
((0, 0), 1)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from fractions import Fraction
from functools import cache
from typing import Any, Final, TypeVar

from marsdice.core.dice import Counts, dice_outcomes, face_weights, parse_roll, roll_dice, roll_text
from marsdice.core.drafts import Drafts
from marsdice.core.errors import ActionParseError, IllegalActionError, VariantError
from marsdice.core.game import CHANCE, TERMINAL, Event
from marsdice.core.game import Action as GameAction
from marsdice.martian.events import (
    Continued,
    GameOver,
    LastRound,
    Rolled,
    RolloffBegun,
    RolloffDecided,
    RolloffRolled,
    Took,
    TurnScored,
)
from marsdice.martian.events import Face as Face
from marsdice.martian.events import TurnEnd as TurnEnd

_LETTERS: Final = "TRHCK"
FACES: Final = tuple(Face)
EARTHLINGS: Final = (Face.HUMAN, Face.COW, Face.CHICKEN)
#: The six sides of a Martian die.
DIE: Final = (Face.TANK, Face.RAY, Face.RAY, Face.HUMAN, Face.COW, Face.CHICKEN)
FACE_PROBABILITIES: Final = face_weights(DIE, len(FACES))
#: Points for having at least one of each Earthling type.
BONUS: Final = 3
NO_DICE: Final[Counts] = (0, 0, 0, 0, 0)

MAX_PLAYERS: Final = 10
MAX_TARGET: Final = 100
MAX_DICE: Final = 20


class RolloffMode(StrEnum):
    """How a tie for first place is settled by the Death Ray roll-off."""

    REPEAT = "repeat"  # the still-tied best roll again until one remains (project default)
    SINGLE = "single"  # one roll-off; a tie in it is a shared win (Board Game Arena)


class Phase(StrEnum):
    ROLL = "roll"  # chance: the current player's dice are rolled
    CHOOSE = "choose"  # the player takes one face type from the roll
    DECIDE = "decide"  # the player stops or rolls again
    ROLLOFF = "rolloff"  # chance: a tied player rolls for Death Rays
    OVER = "over"


#: the phases as plain names: looking a member up on its enum class costs several times a
#: global's look-up, and the engine asks for one at every step
_ROLL: Final = Phase.ROLL
_CHOOSE: Final = Phase.CHOOSE
_DECIDE: Final = Phase.DECIDE
_ROLLOFF: Final = Phase.ROLLOFF
_OVER: Final = Phase.OVER
_CHANCE_PHASES: Final = (_ROLL, _ROLLOFF)


@dataclass(frozen=True, slots=True)
class Variant:
    """Game settings; defaults are the rulebook's. A bad setting raises
    :class:`VariantError` whose message starts with the field's name.

    >>> Variant(players=11)
    Traceback (most recent call last):
    ...
    marsdice.core.errors.VariantError: players must be 1-10 (1 = solo challenge), got 11
    """

    players: int = 2
    target: int = 25
    dice: int = 13
    rolloff_dice: int = 6
    rolloff_mode: RolloffMode = RolloffMode.REPEAT

    def __post_init__(self) -> None:
        _check_range("players", self.players, MAX_PLAYERS, " (1 = solo challenge)")
        _check_range("target", self.target, MAX_TARGET)
        _check_range("dice", self.dice, MAX_DICE)
        _check_range("rolloff_dice", self.rolloff_dice, MAX_DICE)
        mode: object = self.rolloff_mode
        if not isinstance(mode, str) or mode not in {m.value for m in RolloffMode}:
            modes = ", ".join(m.value for m in RolloffMode)
            raise VariantError(f"rolloff_mode must be one of {modes}, got {mode!r}")
        object.__setattr__(self, "rolloff_mode", RolloffMode(mode))

    @property
    def solo(self) -> bool:
        return self.players == 1


def _check_range(name: str, value: object, top: int, note: str = "") -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise VariantError(f"{name} must be a whole number, got {value!r}")
    if not 1 <= value <= top:
        raise VariantError(f"{name} must be 1-{top}{note}, got {value}")


# --- actions -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Roll:
    """A chance outcome: how many dice show each face (tank, ray, human, cow, chicken)."""

    counts: Counts

    def text(self) -> str:
        """Faces as letters in face order, e.g. ``TTRHHH``."""
        return roll_text(self.counts, _LETTERS)

    @property
    def dice(self) -> int:
        return sum(self.counts)

    def __getitem__(self, face: Face) -> int:
        return self.counts[face]

    @classmethod
    def parse(cls, text: str) -> Roll:
        """Read letters T R H C K in any order.

        >>> Roll.parse("hhTk").counts
        (1, 0, 2, 0, 1)
        """
        return cls(parse_roll(text, _LETTERS, "TTRHHC"))


@dataclass(frozen=True, slots=True)
class Take:
    """Set aside every die of one face type from the current roll."""

    face: Face

    def text(self) -> str:
        return self.face.plural


@dataclass(frozen=True, slots=True)
class Stop:
    """End the turn and score it."""

    def text(self) -> str:
        return "stop"


@dataclass(frozen=True, slots=True)
class Continue:
    """Roll the dice not yet set aside."""

    def text(self) -> str:
        return "roll"


STOP: Final = Stop()
CONTINUE: Final = Continue()
#: the faces a player can take (by value: a face is an int)
_TAKEN: Final = frozenset(range(1, 5))
#: the choice after a take (one tuple, handed out every time)
_DECISIONS: Final = (STOP, CONTINUE)
Action = Roll | Take | Stop | Continue

_WORDS: Final[dict[str, Take | Stop | Continue]] = {
    **{alias: Take(Face.RAY) for alias in ("r", "ray", "rays", "death", "deathray", "deathrays")},
    **{alias: Take(Face.HUMAN) for alias in ("h", "human", "humans")},
    **{alias: Take(Face.COW) for alias in ("c", "cow", "cows")},
    **{alias: Take(Face.CHICKEN) for alias in ("k", "chicken", "chickens")},
    **dict.fromkeys(("s", "stop"), STOP),
    **dict.fromkeys(("g", "go", "roll", "continue", "again"), CONTINUE),
}


def parse_decision(text: str) -> Take | Stop | Continue:
    """Read a player's decision, accepting short forms.

    >>> parse_decision("H"), parse_decision("stop")
    (Take(face=<Face.HUMAN: 2>), Stop())
    """
    key = text.strip().lower().replace(" ", "").replace("-", "")
    try:
        return _WORDS[key]
    except KeyError:
        raise ActionParseError(
            f"unknown command {text!r}: use rays (r), humans (h), cows (c), chickens (k), "
            "stop (s) or roll (g)"
        ) from None


# --- scoring -----------------------------------------------------------------------------


def score_turn(set_aside: Counts) -> int:
    """Points scored by a turn that set these dice aside.

    >>> score_turn((3, 3, 4, 0, 1))  # the rulebook's sample turn
    5
    >>> score_turn((2, 1, 4, 0, 0))  # more tanks than rays
    0
    >>> score_turn((0, 0, 1, 1, 1))  # all three Earthlings: bonus
    6
    """
    if set_aside[Face.TANK] > set_aside[Face.RAY]:
        return 0
    earthlings = [set_aside[face] for face in EARTHLINGS]
    return sum(earthlings) + (BONUS if all(earthlings) else 0)


def allowed_faces(rolled: Counts, set_aside: Counts) -> tuple[Face, ...]:
    """Face types the player may take from a roll: rays always, an Earthling only once a turn."""
    return tuple(
        face for face in FACES[1:] if rolled[face] and (face is Face.RAY or not set_aside[face])
    )


@dataclass(frozen=True, slots=True)
class TurnResult:
    """How the last finished turn went, kept for display."""

    seat: int
    set_aside: Counts
    score: int
    reason: TurnEnd


@dataclass(frozen=True, slots=True)
class RolloffRound:
    """One round of the Death Ray roll-off: each contender and the rays rolled."""

    seats: tuple[int, ...]
    rays: tuple[int, ...]


# --- state -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class State:
    """One immutable position. Build with :func:`new_game`; advance with :meth:`apply`.

    ``events`` is what the step that produced this state did (empty at the opening).
    """

    variant: Variant
    scores: tuple[int, ...]
    turns: tuple[int, ...]
    seat: int = 0
    phase: Phase = _ROLL
    set_aside: Counts = NO_DICE
    rolled: Counts | None = None
    end_triggered: bool = False
    last_turn: TurnResult | None = None
    rolloff_seats: tuple[int, ...] = ()
    rolloff_rays: tuple[int, ...] = ()
    rolloff_history: tuple[RolloffRound, ...] = ()
    winners: tuple[int, ...] = field(default=())
    events: tuple[Event, ...] = ()

    # -- protocol --

    @property
    def current_player(self) -> int:
        if self.phase is _OVER:
            return TERMINAL
        if self.phase in _CHANCE_PHASES:
            return CHANCE
        return self.seat

    @property
    def is_terminal(self) -> bool:
        return self.phase is _OVER

    @property
    def is_chance_node(self) -> bool:
        return self.phase in _CHANCE_PHASES

    @property
    def players(self) -> int:
        return self.variant.players

    @property
    def rounds(self) -> int:
        """Rounds begun: every seat's turn in seat order is a round; the opening is in round
        1 and a roll-off starts none.

        >>> new_game().rounds, new_game().apply(Roll.parse("T" * 13)).rounds
        (1, 1)
        """
        if self.phase in (_ROLLOFF, _OVER):
            return max(max(self.turns), 1)
        return self.turns[self.seat] + 1

    @property
    def roller(self) -> int:
        """The seat whose dice are rolled or who decides next (the roll-off contender too)."""
        if self.phase is _ROLLOFF:
            return self.rolloff_seats[len(self.rolloff_rays)]
        return self.seat

    @property
    def dice_left(self) -> int:
        """Dice not set aside this turn (those on the table, during a choice)."""
        return self.variant.dice - sum(self.set_aside)

    @property
    def dice_to_roll(self) -> int:
        if self.phase is _ROLLOFF:
            return self.variant.rolloff_dice
        return self.dice_left if self.phase is _ROLL else 0

    @property
    def turn_score(self) -> int:
        """What the turn would score if it ended now."""
        return score_turn(self.set_aside)

    def legal_actions(self) -> tuple[Action, ...]:
        if self.is_chance_node:
            return tuple(roll for roll, _ in self.chance_outcomes())
        if self.phase is _CHOOSE:
            assert self.rolled is not None
            return _takes(self.rolled, self.set_aside)
        if self.phase is _DECIDE:
            return _DECISIONS
        return ()

    def chance_outcomes(self) -> tuple[tuple[Roll, Fraction], ...]:
        """Every distinct roll of the dice about to be rolled, with its exact probability."""
        phase = self.phase
        if phase is _ROLL:
            return _outcomes(self.variant.dice - sum(self.set_aside))
        if phase is _ROLLOFF:
            return _outcomes(self.variant.rolloff_dice)
        return ()

    def sample_chance(self, rng: random.Random) -> Roll:
        """Roll the dice about to be rolled, one by one, with the given generator."""
        if not self.is_chance_node:
            raise IllegalActionError(f"no dice to roll in phase {self.phase.value}")
        return Roll(roll_dice(rng, self.dice_to_roll, DIE, len(FACES)))

    def parse_action(self, text: str) -> Action:
        """Read notation in context: face letters at a chance node, a decision otherwise."""
        return Roll.parse(text) if self.is_chance_node else parse_decision(text)

    def apply(self, action: GameAction) -> State:
        """The state after ``action``, its ``events`` saying what happened; raises
        :class:`IllegalActionError` and changes nothing if the action is not legal here (or
        is not a Martian Dice action)."""
        events: list[Event] = []
        phase = self.phase
        if phase is _ROLL and isinstance(action, Roll):
            counts = action.counts
            # the checks of _check_roll, with builtins (the engine's busiest step)
            if len(counts) != 5 or min(counts) < 0 or sum(counts) != self.dice_left:
                raise self._illegal(action, f"the roll must show exactly {self.dice_left} dice")
            after = _copy(self)
            after._after_roll(counts, events)
        elif phase is _ROLLOFF and isinstance(action, Roll):
            self._check_roll(action)
            after = _copy(self)
            after._after_rolloff(action, events)
        elif phase is _CHOOSE and isinstance(action, Take):
            rolled = self.rolled
            assert rolled is not None
            face = action.face
            # allowed_faces, for the one face taken: a ray always, an Earthling once a turn
            if face not in _TAKEN or not rolled[face] or (face != 1 and self.set_aside[face]):
                raise self._illegal(action, self._why_not(face))
            after = _copy(self)
            after._after_take(action.face, events)
        elif phase is _DECIDE and isinstance(action, Stop):
            after = _copy(self)
            after._end_turn(TurnEnd.STOPPED, events)
        elif phase is _DECIDE and isinstance(action, Continue):
            events.append(_continued(self.seat, self.dice_left))
            after = _copy(self)
            _SET_PHASE(after, _ROLL)
        elif isinstance(action, Roll | Take | Stop | Continue):
            raise self._illegal(action, f"it is not a move of the {phase.value} phase")
        else:
            raise self._illegal(action, "it is not a Martian Dice action")
        _SET_EVENTS(after, tuple(events))
        return after

    def returns(self) -> tuple[float, ...]:
        """At the end: 1 shared among the winners, 0 to the rest; in a solo game, minus the
        number of turns taken. Before the end: all zero."""
        if not self.is_terminal:
            return tuple(0.0 for _ in self.scores)
        if self.variant.solo:
            return (-float(self.turns[0]),)
        share = 1.0 / len(self.winners)
        return tuple(share if seat in self.winners else 0.0 for seat in range(len(self.scores)))

    def placings(self) -> tuple[int, ...]:
        """Final place of each seat: winners 1st, then by total, equal totals sharing a place."""
        places = []
        for seat, score in enumerate(self.scores):
            if seat in self.winners:
                places.append(1)
            else:
                better = sum(
                    1
                    for other, s in enumerate(self.scores)
                    if other not in self.winners and s > score
                )
                places.append(1 + len(self.winners) + better)
        return tuple(places)

    # -- transitions (each appends what it did to ``events``) --
    #
    # A step copies the state once (:func:`_copy`) and these change that private copy in
    # place before :meth:`apply` hands it out (a frozen copy per change cost most of the
    # engine's time). Each reads what it needs before it changes a field.

    def _put(self, **changes: Any) -> None:
        """Set fields of a draft (see :func:`_copy`); never of a state handed out."""
        for name, value in changes.items():
            _SETTERS[name](self, value)

    def _check_roll(self, roll: Roll) -> None:
        expected = self.dice_to_roll
        if (
            len(roll.counts) != len(FACES)
            or any(c < 0 for c in roll.counts)
            or roll.dice != expected
        ):
            raise self._illegal(roll, f"the roll must show exactly {expected} dice")

    def _after_roll(self, rolled: Counts, events: list[Event]) -> None:
        # the fields set one by one, not through _put: this runs at every roll
        tanks = rolled[0]
        aside = self.set_aside
        events.append(_rolled(self.seat, rolled, tanks, aside == NO_DICE))
        set_aside = (aside[0] + tanks, *aside[1:])
        _SET_SET_ASIDE(self, set_aside)
        _SET_PHASE(self, _CHOOSE)
        if not _takes(rolled, set_aside):  # the same faces as allowed_faces, kept
            _SET_ROLLED(self, None)
            self._end_turn(TurnEnd.NO_CHOICE, events)
        else:
            _SET_ROLLED(self, rolled)

    def _after_take(self, face: Face, events: list[Event]) -> None:
        rolled = self.rolled
        assert rolled is not None
        count = rolled[face]
        events.append(_took(self.seat, face, count))
        set_aside = _bump(self.set_aside, face, count)
        _SET_SET_ASIDE(self, set_aside)
        _SET_ROLLED(self, None)
        if self.variant.dice == sum(set_aside):
            self._end_turn(TurnEnd.NO_DICE, events)
        else:
            _SET_PHASE(self, _DECIDE)

    def _end_turn(self, reason: TurnEnd, events: list[Event]) -> None:
        seat = self.seat
        variant = self.variant
        aside = self.set_aside
        tanks_won = aside[Face.TANK] > aside[Face.RAY]
        bonus = not tanks_won and all(aside[face] for face in EARTHLINGS)
        score = score_turn(aside)
        scores = _bump(self.scores, seat, score)
        events.append(TurnScored(seat, aside, score, reason, scores[seat], tanks_won, bonus))
        _SET_SCORES(self, scores)
        _SET_TURNS(self, _bump(self.turns, seat, 1))
        key = (seat, aside, reason)
        result = _RESULTS.get(key)
        if result is None:
            result = _RESULTS[key] = _keep(_RESULTS, TurnResult(seat, aside, score, reason))
        _SET_LAST_TURN(self, result)
        _SET_SET_ASIDE(self, NO_DICE)
        _SET_ROLLED(self, None)
        _SET_PHASE(self, _ROLL)
        reached = scores[seat] >= variant.target
        if variant.solo:
            if reached:
                events.append(GameOver((0,), scores))
                self._put(phase=_OVER, winners=(0,))
            return
        last = variant.players - 1
        if reached and not self.end_triggered and seat < last:
            remaining = tuple(range(seat + 1, variant.players))
            events.append(LastRound(seat, scores[seat], variant.target, remaining))
        triggered = self.end_triggered or reached
        if triggered and seat == last:
            self._finish(events)
        else:
            _SET_SEAT(self, (seat + 1) % variant.players)
            _SET_END_TRIGGERED(self, triggered)

    def _finish(self, events: list[Event]) -> None:
        best = max(self.scores)
        tied = tuple(seat for seat, score in enumerate(self.scores) if score == best)
        if len(tied) == 1:
            events.append(GameOver(tied, self.scores))
            self._put(phase=_OVER, winners=tied, end_triggered=True)
            return
        events.append(RolloffBegun(tied, best, 1))
        self._put(phase=_ROLLOFF, rolloff_seats=tied, rolloff_rays=(), end_triggered=True)

    def _after_rolloff(self, roll: Roll, events: list[Event]) -> None:
        rays = roll[Face.RAY]
        events.append(RolloffRolled(self.roller, roll.counts, rays))
        rolled = (*self.rolloff_rays, rays)
        seats = self.rolloff_seats
        if len(rolled) < len(seats):
            self._put(rolloff_rays=rolled)
            return
        history = (*self.rolloff_history, RolloffRound(seats, rolled))
        best = max(rolled)
        top = tuple(s for s, r in zip(seats, rolled, strict=True) if r == best)
        events.append(RolloffDecided(seats, rolled, top))
        if len(top) == 1 or self.variant.rolloff_mode is RolloffMode.SINGLE:
            events.append(GameOver(top, self.scores))
            self._put(
                phase=_OVER,
                winners=top,
                rolloff_seats=(),
                rolloff_rays=(),
                rolloff_history=history,
            )
            return
        events.append(RolloffBegun(top, self.scores[top[0]], len(history) + 1))
        self._put(rolloff_seats=top, rolloff_rays=(), rolloff_history=history)

    # -- errors --

    def _why_not(self, face: Face) -> str:
        assert self.rolled is not None
        if face is Face.TANK:
            return "tanks are set aside automatically"
        if not self.rolled[face]:
            return f"no {face.plural} were rolled"
        return f"{face.plural} were already set aside this turn"

    def _illegal(self, action: GameAction, reason: str) -> IllegalActionError:
        if self.is_chance_node:
            legal = f"a roll of {self.dice_to_roll} dice"
        elif self.is_terminal:
            legal = "nothing: the game is over"
        else:
            legal = ", ".join(a.text() for a in self.legal_actions())
        return IllegalActionError(f"illegal action {action.text()!r}: {reason}; legal: {legal}")


def position(
    variant: Variant,
    scores: tuple[int, ...],
    *,
    seat: int = 0,
    set_aside: Counts = NO_DICE,
    rolled: Counts | None = None,
    end_triggered: bool = False,
) -> State:
    """A decision in the middle of a game, for analysis: ``set_aside`` is the turn so far
    before ``rolled`` (the whole roll, tanks included). With no roll, the player has just
    taken a face and decides whether to stop. Anything that cannot arise in play is refused.

    >>> state = position(Variant(), (10, 12), set_aside=(2, 0, 4, 0, 0), rolled=(1, 2, 0, 3, 1))
    >>> state.phase.value, [a.text() for a in state.legal_actions()]
    ('choose', ['rays', 'cows', 'chickens'])
    """
    if len(scores) != variant.players or any(score < 0 for score in scores):
        raise VariantError(f"give {variant.players} scores of 0 or more, got {scores}")
    if not 0 <= seat < variant.players:
        raise VariantError(f"seat must be 0-{variant.players - 1}, got {seat}")
    if len(set_aside) != len(FACES) or any(c < 0 for c in set_aside):
        raise VariantError(f"set-aside dice must be 5 counts of 0 or more, got {set_aside}")
    left = variant.dice - sum(set_aside)
    if left < 1:
        raise VariantError(f"{sum(set_aside)} dice set aside leaves none of {variant.dice}")
    zeros = (0,) * variant.players
    state = State(variant, scores, zeros, seat=seat, set_aside=set_aside)
    state = replace(state, end_triggered=end_triggered)
    if rolled is None:
        if sum(set_aside) == set_aside[Face.TANK]:
            raise VariantError("with no roll, something other than tanks must be set aside")
        return replace(state, phase=_DECIDE)
    if len(rolled) != len(FACES) or any(c < 0 for c in rolled) or sum(rolled) != left:
        raise VariantError(f"the roll must show the {left} dice not set aside, got {rolled}")
    after = _bump(set_aside, Face.TANK, rolled[Face.TANK])
    if not allowed_faces(rolled, after):
        raise VariantError("nothing can be taken from that roll: the turn is already over")
    return replace(state, set_aside=after, rolled=rolled, phase=_CHOOSE)


def new_game(variant: Variant | None = None) -> State:
    """The opening state: seat 0 is about to roll every die."""
    variant = variant or Variant()
    zeros = (0,) * variant.players
    return State(variant=variant, scores=zeros, turns=zeros)


def _takes(rolled: Counts, set_aside: Counts) -> tuple[Take, ...]:
    """The takes allowed from a roll (:func:`allowed_faces` as a mask of the four faces
    that can be taken), one tuple per set of faces: the same tuple is handed out again,
    so that callers that encode it can keep the encoding by its identity."""
    return _TAKES[
        (8 if rolled[1] else 0)
        | (4 if rolled[2] and not set_aside[2] else 0)
        | (2 if rolled[3] and not set_aside[3] else 0)
        | (1 if rolled[4] and not set_aside[4] else 0)
    ]


#: the takes allowed by each mask of :func:`_takes` (rays 8, humans 4, cows 2, chickens 1)
_TAKES: Final = tuple(
    tuple(Take(face) for bit, face in zip((8, 4, 2, 1), FACES[1:], strict=True) if mask & bit)
    for mask in range(16)
)


@cache
def _outcomes(n: int) -> tuple[tuple[Roll, Fraction], ...]:
    return tuple((Roll(counts), p) for counts, p in dice_outcomes(n, FACE_PROBABILITIES))


# -- the values a step makes, shared: equal events are made once --
#
# Events and turn results are frozen values; a step hands out the one already made with the
# same fields instead of building another (a frozen dataclass costs a microsecond to build,
# a look-up a tenth of that), for those that come back often (a turn's score, with the
# total in it, seldom does). Each table is emptied when it reaches KEPT entries.

#: the most values each table keeps
KEPT: Final = 1 << 14
_ROLLED: Final[dict[tuple[int, Counts, bool], Rolled]] = {}
_TOOK: Final[dict[int, Took]] = {}
_CONTINUED: Final[dict[int, Continued]] = {}
_RESULTS: Final[dict[tuple[int, Counts, TurnEnd], TurnResult]] = {}

_V = TypeVar("_V")


def _keep(table: dict[Any, _V], value: _V) -> _V:
    """``value``, with ``table`` emptied first if full (the caller stores it)."""
    if len(table) >= KEPT:
        table.clear()
    return value


def _rolled(seat: int, counts: Counts, tanks: int, first: bool) -> Rolled:
    key = (seat, counts, first)
    known = _ROLLED.get(key)
    if known is None:
        known = _ROLLED[key] = _keep(_ROLLED, Rolled(seat, counts, tanks, first))
    return known


def _took(seat: int, face: Face, count: int) -> Took:
    key = (seat * 8 + face) * 64 + count
    known = _TOOK.get(key)
    if known is None:
        known = _TOOK[key] = _keep(_TOOK, Took(seat, face, count))
    return known


def _continued(seat: int, dice: int) -> Continued:
    key = seat * 64 + dice
    known = _CONTINUED.get(key)
    if known is None:
        known = _CONTINUED[key] = _keep(_CONTINUED, Continued(seat, dice))
    return known


def _bump(values: tuple[int, ...], index: int, by: int) -> tuple[int, ...]:
    """``values`` with ``by`` added at ``index`` (through a list: quicker than slices)."""
    bumped = list(values)
    bumped[index] += by
    return tuple(bumped)


# -- drafts: one copy per step, changed in place before anyone sees it --

_DRAFTS: Final = Drafts(State)
_FIELDS: Final = tuple(f.name for f in fields(State))
_SETTERS: Final = _DRAFTS.setters
_SET_EVENTS: Final = _SETTERS["events"]
_SET_PHASE: Final = _SETTERS["phase"]
_SET_SET_ASIDE: Final = _SETTERS["set_aside"]
_SET_ROLLED: Final = _SETTERS["rolled"]
_SET_SCORES: Final = _SETTERS["scores"]
_SET_TURNS: Final = _SETTERS["turns"]
_SET_LAST_TURN: Final = _SETTERS["last_turn"]
_SET_SEAT: Final = _SETTERS["seat"]
_SET_END_TRIGGERED: Final = _SETTERS["end_triggered"]


#: one copy of a state per step, changed in place until it is handed out
_draft: Final = _DRAFTS.draft


#: a copy of a state, every field the same (a step changes it with the setters above)
_copy: Final = _DRAFTS.copy
