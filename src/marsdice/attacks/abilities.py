"""The named cards' transitions: each takes the state at the moment its ability acts and
returns the state after it, with the ability's event. :mod:`marsdice.attacks.state` calls them.

Red cards: New York (start of turn), Las Vegas (a bomb), San Francisco, Indianapolis,
Oklahoma City and Memphis (on capture). Green cards: Boston, Seattle, Toronto, Denver.
Detroit and Los Angeles change how a roll is judged and live in the state's judgement.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from marsdice.attacks.cards import Ability, Symbol
from marsdice.attacks.events import (
    BostonMoved,
    DenverRestarted,
    ExtraTurn,
    MemphisDrawn,
    MemphisPlaced,
    NewYorkBack,
    OklahomaCycled,
    SeattleUsed,
    TorontoUsed,
    VegasBomb,
    VegasNoToken,
)
from marsdice.attacks.phases import Phase
from marsdice.attacks.variant import DICE, DenverRule, Face

if TYPE_CHECKING:
    from marsdice.attacks.state import State


# --- start of turn --------------------------------------------------------------------------


def boston_cards(state: State) -> tuple[int, ...]:
    """The cards where Boston may push the player's token: not onto the capture space, and
    never Las Vegas (its track counts bombs: the third bomb takes it, not Boston)."""
    return tuple(
        card
        for card, value in state.tokens[state.seat]
        if value + 1 < state.card(card).requirement and state.card(card).symbol is not Symbol.BUST
    )


def boston_move(state: State, card: int) -> State:
    value = state.token(state.seat, card) + 1
    moved = state.set_token(state.seat, card, value)
    moved = moved.emit(BostonMoved(state.seat, state.slug(card), value))
    return moved.start_from(boston=False, seattle=True)


def new_york(state: State) -> State:
    """New York's token moves back one space (removed from 1), at the start of each turn."""
    seat = state.seat
    card = state.face_up_with(Ability.NEW_YORK)
    if card is None or not state.token(seat, card):
        return state
    value = state.token(seat, card) - 1
    return state.set_token(seat, card, value).emit(NewYorkBack(seat, state.slug(card), value))


def seattle_set(state: State, face: Face) -> State:
    """One die is set to ``face``; the others are rolled. At the start of the turn the target
    is declared next; after the declaration the nine dice are rolled."""
    after = replace(state, set_face=face).emit(SeattleUsed(state.seat, face.letter))
    if state.target is None:
        return after.start_from(boston=False, seattle=False)
    return replace(after, to_roll=DICE - 1, phase=Phase.ROLL)


# --- during the attack -----------------------------------------------------------------------


def toronto_reroll(state: State, face: Face) -> State:
    """One die showing ``face`` is rolled again before the roll is judged (once per turn)."""
    dice = list(state.dice)
    dice[face] -= 1
    return replace(
        state,
        heads=dice[0],
        rays=dice[1],
        nukes=dice[2],
        toronto_used=True,
        to_roll=1,
        phase=Phase.TORONTO_ROLL,
    ).emit(TorontoUsed(state.seat, face.letter))


def denver_restart(state: State) -> State:
    """The bombing first roll is ignored and the turn starts again, Denver spent: under the
    seed's ``turn`` rule from its very start (the green cards and New York act again), under
    the ``target`` rule from the declaration of the target (Seattle offered again)."""
    whole = state.variant.denver is DenverRule.TURN
    again = replace(state.fresh_turn(), denver_used=True, new_york_due=whole)
    again = again.emit(DenverRestarted(state.seat, whole))
    return again.start_from(boston=whole, seattle=True)


def las_vegas(state: State) -> tuple[State, tuple[int, ...]]:
    """A bomb (or a failed Detroit) moves the player's token on a face-up Las Vegas up one;
    at its requirement (the third bomb) the player takes the card."""
    card = state.face_up_with(Ability.LAS_VEGAS)
    if card is None:
        return state, ()
    seat = state.seat
    slug = state.slug(card)
    value = state.token(seat, card) + 1
    if value == 1 and not state.free_tokens(seat):
        return state.emit(VegasNoToken(seat, slug)), ()
    state = state.emit(VegasBomb(seat, slug, value))
    if value >= state.card(card).requirement:
        return state.capture(card, value), (card,)
    return state.set_token(seat, card, value), ()


# --- on capture --------------------------------------------------------------------------------


def on_capture(state: State, card: int, where: int) -> State:
    """The captured card's red ability, after its stack has turned up the next card."""
    ability = state.card(card).ability
    seat = state.seat
    if ability in (Ability.SAN_FRANCISCO, Ability.INDIANAPOLIS):
        return replace(state, extra=state.extra + 1).emit(ExtraTurn(seat, state.slug(card)))
    if ability is Ability.OKLAHOMA_CITY:
        return _cycle_others(state, where)
    if ability is Ability.MEMPHIS and state.box and any(state.stacks):
        return replace(state, memphis_due=True)
    return state


def _cycle_others(state: State, captured_from: int) -> State:
    """Oklahoma City: every other stack's face-up card goes to its bottom (a stack of one
    turns the same card up again); their tokens go home."""
    stacks = list(state.stacks)
    moved: list[int] = []
    for i, stack in enumerate(stacks):
        if i != captured_from and stack:
            moved.append(stack[0])
            stacks[i] = (*stack[1:], stack[0])
    cycled = replace(state, stacks=tuple(stacks))
    cycled = cycled.emit(OklahomaCycled(state.seat, tuple(state.slug(c) for c in moved)))
    cycled = cycled.send_home(tuple(moved))
    for i, stack in enumerate(stacks):
        if i != captured_from and stack:
            cycled = cycled.turned_up(i)
    return cycled


def memphis_place(state: State, stack: int) -> State:
    """Memphis's captor chooses the stack; the card is drawn next (chance)."""
    chosen = replace(state, memphis_stack=stack - 1, phase=Phase.MEMPHIS_DRAW)
    return chosen.emit(MemphisPlaced(state.seat, stack))


def memphis_draw(state: State, card: int) -> State:
    """The drawn card goes face down under the chosen stack; the turn ends. The event names
    the stack only: nobody sees the card."""
    assert state.pending is not None and state.memphis_stack is not None
    where = state.memphis_stack
    stacks = list(state.stacks)
    stacks[where] = (*stacks[where], card)
    box = tuple(c for c in state.box if c != card)
    placed = replace(state, stacks=tuple(stacks), box=box, memphis_stack=None)
    return placed.emit(MemphisDrawn(where + 1)).end_turn(state.pending)
