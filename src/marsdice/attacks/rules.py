"""Mars Attacks: The Dice Game: faces, settings, actions and the immutable game state.

A turn: start-of-turn abilities, declare a target, roll ten dice (chance), nukes and ray guns
lock, then the roll is judged: bombed, captured, or the player stops or rerolls the heads
(possibly switching to another city). Every ability that needs a decision is an action; every
random event (dice, Memphis's card from the box) is an explicit chance node with exact
probabilities. See ``docs/rules-attacks.md``.

>>> stacks = [["Seattle", "Miami"], ["Boston", "Dallas"], ["Toronto", "Phoenix"], ["Denver"]]
>>> state = new_game(Variant(players=2), stacks)
>>> state.phase, [a.text() for a in state.legal_actions()]
(<Phase.TARGET: 'target'>, ['@seattle', '@boston', '@toronto', '@denver'])
>>> state = state.apply(state.parse_action("target boston"))
>>> state.is_chance_node, state.nuke_limit
(True, 6)
>>> state = state.apply(state.parse_action("HHHRRRRRNN"))
>>> [a.text() for a in state.legal_actions()][:3]
['reroll', 'stop', 'reroll@seattle']
>>> state = state.apply(state.parse_action("reroll"))
>>> state = state.apply(state.parse_action("RNH"))
>>> [state.card(c).name for c in state.owned[0]], state.scores, state.seat
(['Boston'], (2, 0), 1)
>>> [state.card(c).name if c is not None else None for c in state.face_up]
['Seattle', 'Dallas', 'Toronto', 'Denver']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum, StrEnum
from fractions import Fraction
from functools import cache
from typing import Any, Final, TypeVar

from marsdice.attacks.cards import (
    Ability,
    Card,
    Symbol,
    builtin_cards,
    slugify,
    validate_cards,
)
from marsdice.core.dice import Counts, dice_outcomes, face_weights, roll_dice
from marsdice.core.errors import ActionParseError, IllegalActionError, VariantError
from marsdice.core.game import CHANCE, TERMINAL

T = TypeVar("T")


class Face(IntEnum):
    """The three face kinds; each shows on two of a die's six sides."""

    HEAD = 0
    RAY = 1
    NUKE = 2

    @property
    def letter(self) -> str:
        return "HRN"[self]

    @property
    def word(self) -> str:
        return ("head", "ray gun", "nuke")[self]


FACES: Final = tuple(Face)
DIE: Final = (Face.HEAD, Face.HEAD, Face.RAY, Face.RAY, Face.NUKE, Face.NUKE)
FACE_PROBABILITIES: Final = face_weights(DIE, len(FACES))
DICE: Final = 10
STACKS: Final = 4
TOKENS: Final = 4
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6


class Difficulty(StrEnum):
    """The two sides of the difficulty card."""

    EASY = "easy"
    HARD = "hard"

    @property
    def nukes(self) -> int:
        return 2 if self is Difficulty.EASY else 1


class BombedRule(StrEnum):
    """What is kept when a player is bombed."""

    LAST_ROLL = "last-roll"  # the seed: only the last roll is lost (default)
    WHOLE_TURN = "whole-turn"  # nothing from the turn counts


class RerollRule(StrEnum):
    """Which heads a reroll takes."""

    ALL = "all"  # every head showing (default)
    SUBSET = "subset"  # any number of the heads showing


class Phase(StrEnum):
    BOSTON = "boston"  # Boston's owner may move a token one space forward
    TARGET = "target"  # declare the target
    SEATTLE = "seattle"  # Seattle's owner may set one die before the first roll
    ROLL = "roll"  # chance: dice are rolled
    TORONTO = "toronto"  # Toronto's owner may reroll one die before the roll is judged
    TORONTO_ROLL = "toronto-roll"  # chance: that one die
    DENVER = "denver"  # Denver's owner, bombed on the first roll, may start again
    DECIDE = "decide"  # stop, or reroll heads (maybe switching the target)
    MEMPHIS = "memphis"  # Memphis's captor chooses a stack for the card from the box
    MEMPHIS_DRAW = "memphis-draw"  # chance: which card comes out of the box
    OVER = "over"


_CHANCE_PHASES: Final = frozenset({Phase.ROLL, Phase.TORONTO_ROLL, Phase.MEMPHIS_DRAW})


class Outcome(StrEnum):
    """How a turn ended."""

    CAPTURED = "captured"
    BOMBED = "bombed"
    DETROIT = "failed Detroit"  # counts as bombed
    STOPPED = "stopped"
    PASSED = "passed"  # nothing could be targeted


@dataclass(frozen=True, slots=True)
class Variant:
    """Game settings; the defaults follow the seed.

    >>> Variant(players=7)
    Traceback (most recent call last):
    ...
    marsdice.core.errors.VariantError: players must be 2-6, got 7
    """

    players: int = 3
    difficulty: Difficulty = Difficulty.EASY
    bombed: BombedRule = BombedRule.LAST_ROLL
    reroll: RerollRule = RerollRule.ALL
    end_stacks: int = 2
    cards: tuple[Card, ...] = field(default_factory=builtin_cards)

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise VariantError(f"players must be {MIN_PLAYERS}-{MAX_PLAYERS}, got {self.players}")
        if not 1 <= self.end_stacks <= STACKS:
            raise VariantError(f"end stacks must be 1-{STACKS}, got {self.end_stacks}")
        for name, enum in (
            ("difficulty", Difficulty),
            ("bombed", BombedRule),
            ("reroll", RerollRule),
        ):
            value = getattr(self, name)
            try:
                object.__setattr__(self, name, enum(value))
            except ValueError:
                allowed = ", ".join(m.value for m in enum)
                raise VariantError(f"{name} must be one of {allowed}, got {value!r}") from None
        object.__setattr__(self, "cards", validate_cards(tuple(self.cards)))
        needed = STACKS * self.players
        if len(self.cards) < needed:
            raise VariantError(
                f"{self.players} players need {needed} cards ({STACKS} stacks of "
                f"{self.players}), the card set has {len(self.cards)}"
            )


# --- actions -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Roll:
    """A chance outcome: how many of the rolled dice show a head, a ray gun, a nuke."""

    counts: Counts

    def text(self) -> str:
        """Face letters, heads first: ``HHRRRN`` (a malformed roll shows what it can)."""
        return "".join(face.letter * n for face, n in zip(FACES, self.counts, strict=False))

    @property
    def dice(self) -> int:
        return sum(self.counts)

    @classmethod
    def parse(cls, text: str) -> Roll:
        """Read the letters H, R, N in any order.

        >>> Roll.parse("nrhh").counts
        (2, 1, 1)
        """
        letters = text.strip().upper()
        if not letters or any(ch not in "HRN" for ch in letters):
            raise ActionParseError(
                f"a roll is written as face letters H (head), R (ray gun), N (nuke), "
                f"e.g. HHRRN, got {text!r}"
            )
        return cls(tuple(letters.count(face.letter) for face in FACES))


@dataclass(frozen=True, slots=True)
class Draw:
    """A chance outcome: the card Memphis brings out of the box."""

    card: str

    def text(self) -> str:
        return f"draw:{self.card}"


@dataclass(frozen=True, slots=True)
class Target:
    """Declare the turn's target."""

    card: str

    def text(self) -> str:
        return f"@{self.card}"


@dataclass(frozen=True, slots=True)
class Reroll:
    """Reroll the heads showing (``count`` of them, ``None`` = all), switching to the city
    ``switch`` first if given."""

    count: int | None = None
    switch: str | None = None

    def text(self) -> str:
        number = "" if self.count is None else str(self.count)
        return f"reroll{number}" + (f"@{self.switch}" if self.switch else "")


@dataclass(frozen=True, slots=True)
class Stop:
    """End the attack; the token goes on the target's track."""

    def text(self) -> str:
        return "stop"


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline the optional ability on offer (Boston, Seattle, Toronto, Denver)."""

    def text(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Restart:
    """Denver: ignore the bombing first roll and start the turn again."""

    def text(self) -> str:
        return "restart"


@dataclass(frozen=True, slots=True)
class BostonMove:
    """Boston: move your token on this card one space forward."""

    card: str

    def text(self) -> str:
        return f"boston@{self.card}"


@dataclass(frozen=True, slots=True)
class SeattleSet:
    """Seattle: set one die to this face; the other nine are rolled."""

    face: Face

    def text(self) -> str:
        return f"seattle:{self.face.letter}"


@dataclass(frozen=True, slots=True)
class TorontoReroll:
    """Toronto: reroll one die now showing this face."""

    face: Face

    def text(self) -> str:
        return f"toronto:{self.face.letter}"


@dataclass(frozen=True, slots=True)
class MemphisPlace:
    """Memphis: the card from the box goes under stack ``stack`` (numbered from 1)."""

    stack: int

    def text(self) -> str:
        return f"memphis:{self.stack}"


STOP: Final = Stop()
PASS: Final = Pass()
RESTART: Final = Restart()
Decision = Target | Reroll | Stop | Pass | Restart | BostonMove | SeattleSet | TorontoReroll
Action = Roll | Draw | Decision | MemphisPlace

HELP: Final = {
    Phase.BOSTON: "boston@CARD moves your token there one space forward; pass",
    Phase.TARGET: "@CARD declares the target (a unique start of the name is enough)",
    Phase.SEATTLE: "seattle:H, seattle:R or seattle:N sets one die; pass",
    Phase.TORONTO: "toronto:H, toronto:R or toronto:N rerolls one such die; pass",
    Phase.DENVER: "restart starts the turn again; pass accepts the bomb",
    Phase.DECIDE: "reroll (rerollK for K heads) or reroll@CITY to switch target; stop",
    Phase.MEMPHIS: "memphis:N puts the box card under stack N",
}


# --- turn results --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnResult:
    """How a finished turn went, kept for commentary and display."""

    seat: int
    turn: int
    outcome: Outcome
    target: int | None = None
    count: int = 0
    dice: Counts = (0, 0, 0)
    limit: int = 0
    captured: tuple[int, ...] = ()
    token: tuple[int, int] | None = None
    notes: tuple[str, ...] = ()


# --- state ---------------------------------------------------------------------------------

Tokens = tuple[tuple[int, int], ...]  # (card, value) pairs, sorted by card


@dataclass(frozen=True, slots=True)
class State:
    """One immutable position. Build with :func:`new_game`; advance with :meth:`apply`.

    Cards are indices into ``variant.cards``; a stack lists its cards top (face-up) first.
    """

    variant: Variant
    stacks: tuple[tuple[int, ...], ...]
    box: tuple[int, ...]
    tokens: tuple[Tokens, ...]
    owned: tuple[tuple[int, ...], ...]
    reached: tuple[int, ...]
    seat: int = 0
    phase: Phase = Phase.TARGET
    turn: int = 0
    extra: int = 0
    end_triggered: bool = False
    # the turn in progress
    target: int | None = None
    heads: int = 0
    rays: int = 0
    nukes: int = 0
    rolls: int = 0
    to_roll: int = 0
    set_face: Face | None = None
    fallback: tuple[int, int] | None = None
    toronto_used: bool = False
    denver_used: bool = False
    memphis_stack: int | None = None
    pending: TurnResult | None = None
    events: tuple[str, ...] = ()
    # history and result
    log: tuple[TurnResult, ...] = ()
    winners: tuple[int, ...] = ()

    # -- protocol --

    @property
    def current_player(self) -> int:
        if self.phase is Phase.OVER:
            return TERMINAL
        if self.phase in _CHANCE_PHASES:
            return CHANCE
        return self.seat

    @property
    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def is_chance_node(self) -> bool:
        return self.phase in _CHANCE_PHASES

    def legal_actions(self) -> tuple[Action, ...]:
        phase = self.phase
        if self.is_chance_node:
            return tuple(outcome for outcome, _ in self.chance_outcomes())
        if phase is Phase.BOSTON:
            moves = tuple(BostonMove(self.card(c).slug) for c in self._boston_cards())
            return (*moves, PASS)
        if phase is Phase.TARGET:
            return tuple(Target(self.card(c).slug) for c in self.targets())
        if phase is Phase.SEATTLE:
            return (*(SeattleSet(face) for face in FACES), PASS)
        if phase is Phase.TORONTO:
            dice = self.dice
            return (*(TorontoReroll(face) for face in FACES if dice[face]), PASS)
        if phase is Phase.DENVER:
            return (RESTART, PASS)
        if phase is Phase.DECIDE:
            return self._decide_actions()
        if phase is Phase.MEMPHIS:
            return tuple(MemphisPlace(i + 1) for i, stack in enumerate(self.stacks) if stack)
        return ()

    def chance_outcomes(self) -> tuple[tuple[Roll | Draw, Fraction], ...]:
        """Every distinct outcome of the pending chance event, with its exact probability."""
        if self.phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            return _roll_outcomes(self.to_roll)
        if self.phase is Phase.MEMPHIS_DRAW:
            share = Fraction(1, len(self.box))
            return tuple((Draw(self.card(c).slug), share) for c in self.box)
        return ()

    def sample_chance(self, rng: random.Random) -> Roll | Draw:
        """Roll the dice (one by one) or draw from the box with the given generator."""
        if self.phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            return Roll(roll_dice(rng, self.to_roll, DIE, len(FACES)))
        if self.phase is Phase.MEMPHIS_DRAW:
            return Draw(self.card(self.box[rng.randrange(len(self.box))]).slug)
        raise IllegalActionError(f"nothing random happens in phase {self.phase.value}")

    def parse_action(self, text: str) -> Action:
        """Read notation in context: face letters or ``draw:CARD`` at a chance node, a
        decision otherwise (see :data:`HELP`)."""
        if self.phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            return Roll.parse(text)
        if self.phase is Phase.MEMPHIS_DRAW:
            name = text.strip()
            name = name[5:] if name.lower().startswith("draw:") else name
            return Draw(resolve_card(name, self.variant.cards, [self.card(c) for c in self.box]))
        action = parse_decision(text, self.variant.cards, self._preferred_cards())
        if isinstance(action, Reroll) and action.count is not None and action.count == self.heads:
            return Reroll(None, action.switch)
        return action

    def apply(self, action: Action) -> State:
        """The state after ``action``; raises :class:`IllegalActionError` and changes nothing if
        the action is not legal here."""
        phase = self.phase
        if phase is Phase.OVER:
            raise self._illegal(action, "the game is over")
        if isinstance(action, Roll) and phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            if (
                len(action.counts) != len(FACES)
                or any(c < 0 for c in action.counts)
                or action.dice != self.to_roll
            ):
                raise self._illegal(action, f"the roll must show exactly {self.to_roll} dice")
            return self._after_roll(action.counts)
        if isinstance(action, Draw) and phase is Phase.MEMPHIS_DRAW:
            index = self._index(action.card)
            if index is None or index not in self.box:
                raise self._illegal(action, "that card is not in the box")
            return self._after_draw(index)
        if action not in self.legal_actions():
            raise self._illegal(action, self._why_not(action))
        match action:
            case BostonMove():
                return self._after_boston(self._card_index(action.card))
            case Target():
                return self._after_target(self._card_index(action.card))
            case SeattleSet():
                return replace(self, set_face=action.face, to_roll=DICE - 1, phase=Phase.ROLL)
            case TorontoReroll():
                return self._after_toronto(action.face)
            case Restart():
                return self._restart()
            case Reroll():
                return self._after_reroll(action)
            case Stop():
                return self._stop()
            case MemphisPlace():
                return replace(self, memphis_stack=action.stack - 1, phase=Phase.MEMPHIS_DRAW)
            case Pass():
                return self._after_pass()
        raise self._illegal(action, f"it is not a move of the {phase.value} phase")

    def returns(self) -> tuple[float, ...]:
        """At the end: 1 shared among the winners, 0 to the rest; before the end: all zero."""
        if not self.is_terminal:
            return tuple(0.0 for _ in self.owned)
        share = 1.0 / len(self.winners)
        return tuple(share if seat in self.winners else 0.0 for seat in range(len(self.owned)))

    # -- views of the position --

    def card(self, index: int) -> Card:
        return self.variant.cards[index]

    @property
    def face_up(self) -> tuple[int | None, ...]:
        """The face-up card of each stack (``None`` for an empty stack)."""
        return tuple(stack[0] if stack else None for stack in self.stacks)

    @property
    def nuke_limit(self) -> int:
        """Nuke symbols on the face-up cards plus the difficulty card's."""
        face_up = (self.card(c).nukes for c in self.face_up if c is not None)
        return sum(face_up) + self.variant.difficulty.nukes

    @property
    def dice(self) -> Counts:
        """This turn's dice: heads showing, ray guns and nukes locked."""
        return (self.heads, self.rays, self.nukes)

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(sum(self.card(c).vp for c in cards) for cards in self.owned)

    @property
    def turns(self) -> tuple[int, ...]:
        """Turns each seat has finished (extra turns and passes included)."""
        counts = [0] * self.variant.players
        for result in self.log:
            counts[result.seat] += 1
        return tuple(counts)

    @property
    def empty_stacks(self) -> int:
        return sum(1 for stack in self.stacks if not stack)

    def targets(self) -> tuple[int, ...]:
        """Face-up cards that may be declared a target (all but Las Vegas)."""
        return tuple(c for c in self.face_up if c is not None and self.card(c).targetable)

    def switch_targets(self) -> tuple[int, ...]:
        """Face-up cities other than the target: where a reroll may switch to."""
        return tuple(
            c
            for c in self.targets()
            if c != self.target and self.card(c).is_city and self.card(c).targetable
        )

    def token(self, seat: int, card: int) -> int:
        """The value of ``seat``'s token on ``card`` (0 if none)."""
        for where, value in self.tokens[seat]:
            if where == card:
                return value
        return 0

    def free_tokens(self, seat: int) -> int:
        return TOKENS - len(self.tokens[seat])

    def owns(self, seat: int, ability: Ability) -> bool:
        return any(self.card(c).ability is ability for c in self.owned[seat])

    def face_up_with(self, ability: Ability) -> int | None:
        """The face-up card with this ability, if any."""
        for c in self.face_up:
            if c is not None and self.card(c).ability is ability:
                return c
        return None

    def count(self, card: int, seat: int | None = None) -> int:
        """The count for ``card`` now: the token's value plus this turn's dice of its symbol."""
        seat = self.seat if seat is None else seat
        symbol = self.card(card).symbol
        dice = {Symbol.RAY: self.rays, Symbol.NUKE: self.nukes, Symbol.HEAD: self.heads}
        return self.token(seat, card) + dice.get(symbol, 0)

    def ranking_key(self, seat: int) -> tuple[int, int, int]:
        """Higher is better: VP, then cards, then who reached their score first."""
        return (self.scores[seat], len(self.owned[seat]), -self.reached[seat])

    def placings(self) -> tuple[int, ...]:
        """Final place of each seat by the ranking (ties share a place)."""
        keys = [self.ranking_key(seat) for seat in range(len(self.owned))]
        return tuple(1 + sum(1 for other in keys if other > key) for key in keys)

    @property
    def turns_left_in_round(self) -> int | None:
        """Once the end is triggered: regular turns still to come after this one."""
        if not self.end_triggered:
            return None
        return self.variant.players - 1 - self.seat

    # -- transitions --

    def _begin_turn(self, seat: int, extra: int) -> State:
        state = self._fresh_turn(
            seat=seat, extra=extra, turn=self.turn + 1, phase=Phase.TARGET, events=()
        )
        if not state.targets():
            state = replace(state, end_triggered=True)
            return state._end_turn(TurnResult(seat, state.turn, Outcome.PASSED))
        events: list[str] = []
        new_york = state.face_up_with(Ability.NEW_YORK)
        if new_york is not None and state.token(seat, new_york):
            value = state.token(seat, new_york) - 1
            state = state._set_token(seat, new_york, value)
            name = state.card(new_york).name
            events.append(f"{name}: token back to {value}" if value else f"{name}: token removed")
        if state.owns(seat, Ability.BOSTON) and state._boston_cards():
            return replace(state, phase=Phase.BOSTON, events=tuple(events))
        return replace(state, events=tuple(events))

    def _boston_cards(self) -> tuple[int, ...]:
        return tuple(
            card
            for card, value in self.tokens[self.seat]
            if value + 1 < self.card(card).requirement
        )

    def _after_boston(self, card: int) -> State:
        value = self.token(self.seat, card) + 1
        moved = self._set_token(self.seat, card, value)
        note = f"Boston: token on {self.card(card).name} to {value}"
        return replace(moved, phase=Phase.TARGET, events=(*self.events, note))

    def _after_target(self, card: int) -> State:
        state = replace(self, target=card, to_roll=DICE)
        if self.owns(self.seat, Ability.SEATTLE):
            return replace(state, phase=Phase.SEATTLE)
        return replace(state, phase=Phase.ROLL)

    def _after_roll(self, counts: Counts) -> State:
        heads, rays, nukes = counts
        if self.phase is Phase.ROLL and self.set_face is not None:
            heads, rays, nukes = (
                n + (self.set_face == face) for n, face in zip(counts, FACES, strict=True)
            )
        state = replace(
            self,
            heads=self.heads + heads,
            rays=self.rays + rays,
            nukes=self.nukes + nukes,
            rolls=self.rolls + (self.phase is Phase.ROLL),
            set_face=None,
            to_roll=0,
        )
        toronto = self.owns(self.seat, Ability.TORONTO) and not self.toronto_used
        if self.phase is Phase.ROLL and toronto:
            return replace(state, phase=Phase.TORONTO)
        return state._judge()

    def _after_toronto(self, face: Face) -> State:
        dice = list(self.dice)
        dice[face] -= 1
        note = f"Toronto: rerolls a {face.word}"
        return replace(
            self,
            heads=dice[0],
            rays=dice[1],
            nukes=dice[2],
            toronto_used=True,
            to_roll=1,
            phase=Phase.TORONTO_ROLL,
            events=(*self.events, note),
        )

    def _after_pass(self) -> State:
        if self.phase is Phase.BOSTON:
            return replace(self, phase=Phase.TARGET)
        if self.phase is Phase.SEATTLE:
            return replace(self, phase=Phase.ROLL)
        if self.phase is Phase.TORONTO:
            return self._judge()
        assert self.phase is Phase.DENVER
        return self._bombed(Outcome.BOMBED)

    def _judge(self) -> State:
        """After a roll (and Toronto): bombed, captured, a decision, or the attack ends."""
        assert self.target is not None
        card = self.card(self.target)
        if card.symbol is not Symbol.NUKE and self.nukes >= self.nuke_limit:
            if self.rolls == 1 and not self.denver_used and self.owns(self.seat, Ability.DENVER):
                return replace(self, phase=Phase.DENVER)
            return self._bombed(Outcome.BOMBED)
        if self.count(self.target) >= card.requirement:
            state, notes = self._capture(self.target)
            result = self._result(Outcome.CAPTURED, captured=(self.target,), notes=notes)
            return state._conclude(result)
        if card.is_city and self.heads > 0:
            return replace(self, phase=Phase.DECIDE)
        return self._stop()

    def _restart(self) -> State:
        note = "Denver: bombed on the first roll, starts the turn again"
        return self._fresh_turn(phase=Phase.TARGET, events=(*self.events, note), denver_used=True)

    def _after_reroll(self, action: Reroll) -> State:
        assert self.target is not None
        count = self.heads if action.count is None else action.count
        target = self.target if action.switch is None else self._card_index(action.switch)
        return replace(
            self,
            fallback=(self.target, self.count(self.target)),
            target=target,
            heads=self.heads - count,
            to_roll=count,
            phase=Phase.ROLL,
        )

    def _stop(self) -> State:
        """The attack ends without a capture (the player stopped or no head is left)."""
        assert self.target is not None
        if self.card(self.target).ability is Ability.DETROIT:
            return self._bombed(Outcome.DETROIT)
        state, token, notes = self._place(self.target, self.count(self.target))
        return state._end_turn(self._result(Outcome.STOPPED, token=token, notes=notes))

    def _bombed(self, outcome: Outcome) -> State:
        """Bombed (or a failed Detroit): keep what the rule keeps, then Las Vegas."""
        state: State = self
        token = None
        notes: list[str] = []
        if self.variant.bombed is BombedRule.LAST_ROLL and self.fallback is not None:
            state, token, placed_notes = state._place(*self.fallback)
            notes += placed_notes
        captured: tuple[int, ...] = ()
        vegas = state.face_up_with(Ability.LAS_VEGAS)
        if vegas is not None:
            name = state.card(vegas).name
            value = state.token(self.seat, vegas)
            if value == 0 and not state.free_tokens(self.seat):
                notes.append(f"{name}: no free token to record the bomb")
            elif value + 1 >= state.card(vegas).requirement:
                state, capture_notes = state._capture(vegas)
                captured = (vegas,)
                notes += [f"{name}: bombed {value + 1} times, takes the card", *capture_notes]
            else:
                state = state._set_token(self.seat, vegas, value + 1)
                notes.append(f"{name}: token to {value + 1}")
        result = self._result(outcome, captured=captured, token=token, notes=tuple(notes))
        return state._conclude(result)

    def _place(
        self, card: int, value: int
    ) -> tuple[State, tuple[int, int] | None, tuple[str, ...]]:
        """Put (or move) the player's token on ``card`` at ``value`` if it may go there."""
        seat = self.seat
        if value < 1 or self.card(card).ability is Ability.DETROIT:
            return self, None, ()
        if value <= self.token(seat, card):
            return self, None, ()
        if not self.token(seat, card) and not self.free_tokens(seat):
            return self, None, ("no free token: the progress is lost",)
        return self._set_token(seat, card, value), (card, value), ()

    def _capture(self, card: int) -> tuple[State, tuple[str, ...]]:
        """The player takes ``card``: tokens go home, the stack turns up its next card, the
        card's on-capture ability fires and the end may be triggered."""
        seat = self.seat
        where = self.face_up.index(card)
        owned = _set(self.owned, seat, (*self.owned[seat], card))
        reached = _set(self.reached, seat, self.turn) if self.card(card).vp else self.reached
        tokens = tuple(tuple(t for t in mine if t[0] != card) for mine in self.tokens)
        stacks = _set(self.stacks, where, self.stacks[where][1:])
        state = replace(self, owned=owned, reached=reached, tokens=tokens, stacks=stacks)
        notes: list[str] = []
        ability = self.card(card).ability
        if ability in (Ability.SAN_FRANCISCO, Ability.INDIANAPOLIS):
            state = replace(state, extra=state.extra + 1)
            notes.append(f"{self.card(card).name}: extra turn")
        elif ability is Ability.OKLAHOMA_CITY:
            state = state._cycle_others(where)
            notes.append(f"{self.card(card).name}: the other face-up cards go under their stacks")
        elif ability is Ability.MEMPHIS and state.box and any(state.stacks):
            state = replace(state, memphis_stack=-1)
        if not state.end_triggered and state.empty_stacks >= self.variant.end_stacks:
            state = replace(state, end_triggered=True)
            notes.append("the end is triggered: the round is completed")
        return state, tuple(notes)

    def _cycle_others(self, captured_from: int) -> State:
        stacks = list(self.stacks)
        moved: set[int] = set()
        for i, stack in enumerate(stacks):
            if i != captured_from and stack:
                moved.add(stack[0])
                stacks[i] = (*stack[1:], stack[0])
        tokens = tuple(tuple(t for t in mine if t[0] not in moved) for mine in self.tokens)
        return replace(self, stacks=tuple(stacks), tokens=tokens)

    def _conclude(self, result: TurnResult) -> State:
        if self.memphis_stack == -1:
            return replace(self, phase=Phase.MEMPHIS, pending=result, memphis_stack=None)
        return self._end_turn(result)

    def _after_draw(self, card: int) -> State:
        assert self.pending is not None and self.memphis_stack is not None
        where = self.memphis_stack
        stacks = _set(self.stacks, where, (*self.stacks[where], card))
        box = tuple(c for c in self.box if c != card)
        note = f"Memphis: a card from the box goes under stack {where + 1}"
        result = replace(self.pending, notes=(*self.pending.notes, note))
        state = replace(self, stacks=stacks, box=box, memphis_stack=None, pending=None)
        return state._end_turn(result)

    def _end_turn(self, result: TurnResult) -> State:
        state = replace(self, log=(*self.log, result), pending=None)
        if self.extra > 0:
            return state._begin_turn(self.seat, self.extra - 1)
        if self.end_triggered and self.seat == self.variant.players - 1:
            return state._finish()
        return state._begin_turn((self.seat + 1) % self.variant.players, 0)

    def _finish(self) -> State:
        seats = range(self.variant.players)
        best = max(self.ranking_key(seat) for seat in seats)
        winners = tuple(seat for seat in seats if self.ranking_key(seat) == best)
        return self._fresh_turn(phase=Phase.OVER, winners=winners, events=())

    def _fresh_turn(self, **changes: Any) -> State:
        """The state with the turn-in-progress fields cleared, plus ``changes``."""
        fresh: dict[str, Any] = {
            "target": None,
            "heads": 0,
            "rays": 0,
            "nukes": 0,
            "rolls": 0,
            "to_roll": 0,
            "set_face": None,
            "fallback": None,
            "toronto_used": False,
            "denver_used": False,
            "memphis_stack": None,
            "pending": None,
        }
        return replace(self, **{**fresh, **changes})

    def _result(
        self,
        outcome: Outcome,
        captured: tuple[int, ...] = (),
        token: tuple[int, int] | None = None,
        notes: tuple[str, ...] = (),
    ) -> TurnResult:
        assert self.target is not None
        return TurnResult(
            seat=self.seat,
            turn=self.turn,
            outcome=outcome,
            target=self.target,
            count=self.count(self.target),
            dice=self.dice,
            limit=self.nuke_limit,
            captured=captured,
            token=token,
            notes=(*self.events, *notes),
        )

    def _set_token(self, seat: int, card: int, value: int) -> State:
        mine = [t for t in self.tokens[seat] if t[0] != card]
        if value > 0:
            mine.append((card, value))
        return replace(self, tokens=_set(self.tokens, seat, tuple(sorted(mine))))

    def _decide_actions(self) -> tuple[Action, ...]:
        counts: list[int | None] = [None]
        if self.variant.reroll is RerollRule.SUBSET:
            counts += list(range(1, self.heads))
        switches: list[str | None] = [None]
        switches += [self.card(c).slug for c in self.switch_targets()]
        rerolls = [Reroll(count, switch) for switch in switches for count in counts]
        return (rerolls[0], STOP, *rerolls[1:])

    # -- names and errors --

    def _index(self, slug: str) -> int | None:
        return _slug_index(self.variant.cards).get(slug)

    def _card_index(self, slug: str) -> int:
        index = self._index(slug)
        assert index is not None
        return index

    def _preferred_cards(self) -> list[Card]:
        """Cards a short name most likely means here: the face-up ones."""
        return [self.card(c) for c in self.face_up if c is not None]

    def _why_not(self, action: Action) -> str:
        phase = self.phase
        match action:
            case Target() if phase is Phase.TARGET:
                index = self._index(action.card)
                if index is not None and self.card(index).ability is Ability.LAS_VEGAS:
                    return "Las Vegas can never be a target"
                return "only a face-up card can be the target"
            case Reroll() if phase is Phase.DECIDE:
                if action.count is not None and self.variant.reroll is RerollRule.ALL:
                    return "every head showing is rerolled (the 'all heads' rule)"
                if action.count is not None and not 0 < action.count <= self.heads:
                    return f"there are {self.heads} heads to reroll"
                return "a reroll may only switch to another face-up city (not a monument)"
            case BostonMove() if phase is Phase.BOSTON:
                return "Boston moves one of your tokens, and not onto the capture space"
            case TorontoReroll() if phase is Phase.TORONTO:
                return f"no die shows a {action.face.word}"
        return f"it is not a move of the {phase.value} phase"

    def _illegal(self, action: Action, reason: str) -> IllegalActionError:
        if self.is_chance_node:
            legal = "a draw from the box" if self.phase is Phase.MEMPHIS_DRAW else "a roll"
            legal += f" of {self.to_roll} dice" if self.phase is not Phase.MEMPHIS_DRAW else ""
        elif self.is_terminal:
            legal = "nothing: the game is over"
        else:
            legal = ", ".join(a.text() for a in self.legal_actions())
        return IllegalActionError(f"illegal action {action.text()!r}: {reason}; legal: {legal}")


# --- setup ---------------------------------------------------------------------------------


def deal(variant: Variant, rng: random.Random) -> tuple[tuple[str, ...], ...]:
    """Shuffle the cards with ``rng`` and deal 4 stacks of one card per player (as names in
    notation); the rest stay in the box."""
    order = list(range(len(variant.cards)))
    rng.shuffle(order)
    n = variant.players
    return tuple(tuple(variant.cards[c].slug for c in order[i * n : (i + 1) * n]) for i in range(4))


def new_game(
    variant: Variant | None = None, stacks: Sequence[Sequence[str | int]] | None = None
) -> State:
    """The opening state: seat 0 about to declare a target.

    ``stacks`` gives the 4 stacks top first, as card names in notation or indices; any size
    is accepted (tests use short stacks). Without it the cards are dealt in file order.
    """
    variant = variant or Variant()
    cards = variant.cards
    if stacks is None:
        n = variant.players
        stacks = [list(range(i * n, (i + 1) * n)) for i in range(STACKS)]
    if len(stacks) != STACKS:
        raise VariantError(f"there are {STACKS} stacks, got {len(stacks)}")
    index = _slug_index(cards)
    dealt: list[tuple[int, ...]] = []
    for number, stack in enumerate(stacks, start=1):
        row: list[int] = []
        for item in stack:
            if isinstance(item, str):
                if slugify(item) not in index:
                    raise VariantError(f"stack {number}: no card called {item!r}")
                row.append(index[slugify(item)])
            elif isinstance(item, int) and 0 <= item < len(cards):
                row.append(item)
            else:
                raise VariantError(f"stack {number}: no card number {item!r}")
        dealt.append(tuple(row))
    flat = [c for stack in dealt for c in stack]
    if len(flat) != len(set(flat)):
        twice = sorted({cards[c].name for c in flat if flat.count(c) > 1})
        raise VariantError(f"cards dealt twice: {', '.join(twice)}")
    box = tuple(c for c in range(len(cards)) if c not in set(flat))
    players = variant.players
    state = State(
        variant=variant,
        stacks=tuple(dealt),
        box=box,
        tokens=((),) * players,
        owned=((),) * players,
        reached=(0,) * players,
    )
    return state._begin_turn(0, 0)


# --- notation --------------------------------------------------------------------------------

_FACE_WORDS: Final = {
    **dict.fromkeys(("h", "head", "heads", "martian", "martians"), Face.HEAD),
    **dict.fromkeys(("r", "ray", "rays", "raygun", "rayguns", "ray-gun", "gun"), Face.RAY),
    **dict.fromkeys(("n", "nuke", "nukes", "bomb"), Face.NUKE),
}


def resolve_card(text: str, cards: Sequence[Card], preferred: Sequence[Card] = ()) -> str:
    """A card's name in notation from what a person typed: the exact name, or a start of it
    that fits one card (the ``preferred`` ones, say face-up, first).

    >>> cards = builtin_cards()
    >>> resolve_card("Los Angeles", cards), resolve_card("okla", cards)
    ('los-angeles', 'oklahoma-city')
    >>> resolve_card("san j", cards)
    'san-jose'
    >>> resolve_card("sa", cards)
    Traceback (most recent call last):
    ...
    marsdice.core.errors.ActionParseError: 'sa' fits several cards: san-francisco, san-antonio, ...
    """
    slug = slugify(text)
    if not slug:
        raise ActionParseError("name a card")
    slugs = [card.slug for card in cards]
    if slug in slugs:
        return slug
    for pool in ([card.slug for card in preferred], slugs):
        fits = [s for s in pool if s.startswith(slug)]
        if len(fits) == 1:
            return fits[0]
        if len(fits) > 1 and pool is slugs:
            raise ActionParseError(f"{text.strip()!r} fits several cards: {', '.join(fits)}")
    raise ActionParseError(f"no card called {text.strip()!r}")


def parse_decision(
    text: str, cards: Sequence[Card] | None = None, preferred: Sequence[Card] = ()
) -> Decision | MemphisPlace:
    """Read a player's decision, with short forms for typing (see :data:`HELP`).

    >>> parse_decision("r 3 @ san fran").text(), parse_decision("Seattle R").text()
    ('reroll3@san-francisco', 'seattle:R')
    """
    cards = builtin_cards() if cards is None else cards
    raw = " ".join(text.strip().lower().split())

    def card(name: str) -> str:
        return resolve_card(name, cards, preferred)

    def face(word: str) -> Face:
        if word not in _FACE_WORDS:
            raise ActionParseError(f"a face is H (head), R (ray gun) or N (nuke), got {word!r}")
        return _FACE_WORDS[word]

    if raw in ("s", "stop"):
        return STOP
    if raw in ("p", "pass", "no", "skip", "accept", "keep"):
        return PASS
    if raw in ("restart", "denver"):
        return RESTART
    for prefix in ("@", "target ", "attack ", "t "):
        if raw.startswith(prefix):
            return Target(card(raw[len(prefix) :]))
    for word in ("reroll", "roll", "r"):
        if raw == word or (raw.startswith(word) and raw[len(word)] in " @0123456789"):
            return _parse_reroll(raw[len(word) :], card)
    head, _, rest = raw.replace(":", " ").replace("@", " ").partition(" ")
    rest = rest.strip()
    if head == "boston" and rest:
        return BostonMove(card(rest))
    if head in ("seattle", "set") and rest:
        return SeattleSet(face(rest))
    if head == "toronto" and rest:
        return TorontoReroll(face(rest))
    if head in ("memphis", "stack") and rest.isdigit():
        return MemphisPlace(int(rest))
    raise ActionParseError(
        f"unknown command {text.strip()!r}: use @CARD, reroll, stop, pass, boston@CARD, "
        "seattle:H/R/N, toronto:H/R/N, restart or memphis:N"
    )


def _parse_reroll(rest: str, card: Callable[[str], str]) -> Reroll:
    rest = rest.strip()
    number, _, switch = rest.partition("@")
    number = number.strip()
    if not switch and " " in number:
        number, _, switch = number.partition(" ")
    if number and not number.isdigit():
        number, switch = "", rest
    count = int(number) if number else None
    if count == 0:
        raise ActionParseError("reroll at least one head")
    name = switch.strip().removeprefix("to ").strip()
    return Reroll(count, card(name) if name else None)


# --- helpers -------------------------------------------------------------------------------


@cache
def _roll_outcomes(n: int) -> tuple[tuple[Roll | Draw, Fraction], ...]:
    return tuple((Roll(counts), p) for counts, p in dice_outcomes(n, FACE_PROBABILITIES))


@cache
def _slug_index(cards: tuple[Card, ...]) -> dict[str, int]:
    return {card.slug: i for i, card in enumerate(cards)}


def _set(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])
