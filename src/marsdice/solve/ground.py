"""Exact values of any Martian Dice position of a tiny variant: ground truth to check other
solvers, search and learners against (OpenSpiel's ``value_iteration`` through the research
adapters, a trained agent's estimates, ``marsdice analyze``).

:func:`position_value` gives every seat's **expected return** (the engine's
:meth:`~marsdice.martian.rules.State.returns`: a win counts 1, a win shared in a roll-off its
share; solo, minus the number of turns taken) when every player plays to maximise their own
(the same optimal play as the exact solvers and the ``winprob`` bot):

- **start of a turn** (the dice about to be rolled, none set aside), read from the exact
  tables: :func:`~marsdice.solve.nplayer.solve_nplayer` for 2 or more players (every player's
  win probability), :func:`~marsdice.solve.solo.solo_table` solo (the fewest expected turns);
- **within a turn** (a choice, a stop-or-roll, a roll to come), the rest of the turn is walked
  through the engine exactly: every roll with its probability, the mover's best decision at
  each choice (ties: stop before rolling on; Death Rays, then the untaken Earthling with the
  most dice, as :mod:`marsdice.solve.nplayer` breaks them), each end of the turn valued as
  the start of the next one;
- **a roll-off**: each of the ``k`` tied seats expects ``1/k`` (the roll-off is symmetric);
  one under way is finished exactly from the Death Ray law of the dice still to roll;
- **the end**: the returns.

Only tiny variants: the tables grow as ``target ** players`` and a 13-dice turn walked from
its first roll visits many rolls; :data:`LIMIT` bounds the tables (the rulebook's 2-player
game fits, its 3-player game does not). The roll-off must be the rulebook's (6 dice, the
tables' law); any rule the tables do not model is refused with :class:`ValueError`.

>>> from marsdice.martian import Variant, new_game
>>> value = game_value(Variant(players=2, target=3, dice=4))
>>> round(sum(value.values), 12), value.method
(1.0, 'exact 2-player tables')
>>> game_value(Variant(players=1, target=3, dice=4)).values[0] < -1
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Final

from marsdice.martian.rules import (
    EARTHLINGS,
    Action,
    Face,
    Phase,
    State,
    Take,
    Variant,
    new_game,
)
from marsdice.solve.nplayer import NPlayerTable, solve_nplayer
from marsdice.solve.solo import SoloTable, solo_table
from marsdice.solve.turn import TIE

__all__ = ["LIMIT", "PositionValue", "game_value", "position_value"]

#: the largest table (scoreboards times seats, ``target ** players * players``) solved here
LIMIT: Final = 5_000
#: the roll-off the tables model
ROLLOFF_DICE: Final = 6


@dataclass(frozen=True, slots=True)
class PositionValue:
    """Every seat's expected return with optimal play, and how it was found."""

    values: tuple[float, ...]
    method: str


def game_value(variant: Variant) -> PositionValue:
    """The value of a variant's opening (before the first roll)."""
    if not isinstance(variant, Variant):
        raise TypeError(f"game_value takes a Martian Dice Variant, got {type(variant).__name__}")
    return position_value(new_game(variant))


def position_value(state: State) -> PositionValue:
    """Every seat's expected return from ``state`` with optimal play (see the module);
    :class:`ValueError` for a variant too big or with rules the tables do not model,
    :class:`TypeError` for anything but a Martian Dice state."""
    check_state(state, "position_value")
    variant = state.variant
    if state.is_terminal:
        return PositionValue(state.returns(), "the end: the returns")
    if state.phase is Phase.ROLLOFF:
        return PositionValue(_rolloff(state), "roll-off: the Death Ray law")
    walk = _Walk(variant)
    if state.phase is Phase.ROLL and not any(state.set_aside):
        return PositionValue(walk.turn_start(state), walk.method)
    return PositionValue(walk.value(state), walk.method + ", the rest of the turn walked")


def check_state(state: object, function: str) -> None:
    """A clear error for anything but a Martian Dice state (not an AttributeError later)."""
    if not isinstance(state, State):
        raise TypeError(
            f"{function} takes a Martian Dice state (marsdice.martian.rules.State), "
            f"got {type(state).__name__}"
        )


class _Walk:
    """The tables of one variant and a memo of the turn positions valued."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        players = variant.players
        self.solo: SoloTable | None = None
        self.table: NPlayerTable | None = None
        if players == 1:
            self.solo = solo_table(variant.target, variant.dice)
            self.method = "exact solo table"
        else:
            size = variant.target**players * players
            if size > LIMIT:
                raise ValueError(
                    f"{players} players to {variant.target} points is too big for the ground "
                    f"truth ({size:,} positions, at most {LIMIT:,})"
                )
            if variant.rolloff_dice != ROLLOFF_DICE:
                raise ValueError(
                    f"the tables model a roll-off of {ROLLOFF_DICE} dice, not "
                    f"{variant.rolloff_dice}"
                )
            self.table = solve_nplayer(players, variant.target, variant.dice)
            self.method = f"exact {players}-player tables"
        self.memo: dict[tuple[object, ...], tuple[float, ...]] = {}

    def turn_start(self, state: State) -> tuple[float, ...]:
        """The value of a position at the start of a turn, from the tables."""
        if self.solo is not None:
            return (-(state.turns[0] + self.solo.expected_turns(state.scores[0])),)
        assert self.table is not None
        values = self.table.win_probabilities(
            state.scores, state.seat, triggered=state.end_triggered
        )
        return tuple(float(v) for v in values)

    def value(self, state: State) -> tuple[float, ...]:
        """The value of any position, walking the rest of the turn."""
        if state.is_terminal:
            return state.returns()
        if state.phase is Phase.ROLLOFF:
            return _rolloff(state)
        if state.phase is Phase.ROLL and not any(state.set_aside):
            return self.turn_start(state)
        key = (state.phase, state.seat, state.scores, state.set_aside, state.rolled)
        found = self.memo.get(key)
        if found is not None:
            return found
        if state.is_chance_node:
            total = [0.0] * self.variant.players
            for roll, p in state.chance_outcomes():
                child = self.value(state.apply(roll))
                for seat, v in enumerate(child):
                    total[seat] += float(p) * v
            result = tuple(total)
        else:
            mover = state.seat
            best: tuple[float, ...] | None = None
            for action in _tie_order(state):
                child = self.value(state.apply(action))
                if best is None or child[mover] > best[mover] + TIE:
                    best = child
            assert best is not None
            result = best
        self.memo[key] = result
        return result


def _tie_order(state: State) -> list[Action]:
    """The legal decisions in the tie-break order of :mod:`marsdice.solve.nplayer`: stop
    before rolling on; Death Rays, then the untaken Earthlings, most dice first."""
    legal = list(state.legal_actions())
    if state.phase is not Phase.CHOOSE:
        return legal  # (stop, roll)
    rolled = state.rolled
    assert rolled is not None

    def rank(action: Action) -> tuple[int, int, int]:
        assert isinstance(action, Take)
        face = action.face
        if face is Face.RAY:
            return (0, 0, 0)
        return (1, -rolled[face], EARTHLINGS.index(face))

    return sorted(legal, key=rank)


def _rolloff(state: State) -> tuple[float, ...]:
    """The roll-off's expected returns: the seats still to roll this round roll their Death
    Rays (binomial, a third per die); each of the ``k`` best after the round expects ``1/k``
    (a repeat is symmetric; a single roll-off shares the win)."""
    variant = state.variant
    seats = state.rolloff_seats
    done = state.rolloff_rays
    dice = variant.rolloff_dice
    law = [Fraction(comb(dice, r) * 2 ** (dice - r), 3**dice) for r in range(dice + 1)]
    values = [Fraction(0)] * variant.players

    def roll(rays: tuple[int, ...], p: Fraction) -> None:
        if len(rays) == len(seats):
            best = max(rays)
            top = [s for s, r in zip(seats, rays, strict=True) if r == best]
            for seat in top:
                values[seat] += p / len(top)
            return
        for r, q in enumerate(law):
            roll((*rays, r), p * q)

    if not done:
        for seat in seats:
            values[seat] = Fraction(1, len(seats))
    else:
        roll(done, Fraction(1))
    return tuple(float(v) for v in values)
