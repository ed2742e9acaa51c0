"""The named cards' transitions: each takes the step's draft (a private copy of the state
being built, see :func:`marsdice.attacks.state._draft`) at the moment its ability acts and
changes it in place, adding the ability's event. :mod:`marsdice.attacks.state` calls them.

Red cards: New York (start of turn), Las Vegas (a bomb), San Francisco, Indianapolis,
Oklahoma City and Memphis (on capture). Green cards: Boston, Seattle, Toronto, Denver.
Detroit and Los Angeles change how a roll is judged and live in the state's judgement.
"""

from __future__ import annotations

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


def boston_move(state: State, card: int) -> None:
    seat = state.seat
    value = state.token(seat, card) + 1
    state._set_token(seat, card, value)
    state._emit(BostonMoved(seat, state.slug(card), value))
    state._start_from(boston=False, seattle=True)


def new_york(state: State) -> None:
    """New York's token moves back one space (removed from 1), at the start of each turn."""
    seat = state.seat
    card = state.face_up_with(Ability.NEW_YORK)
    if card is None or not state.token(seat, card):
        return
    value = state.token(seat, card) - 1
    state._set_token(seat, card, value)
    state._emit(NewYorkBack(seat, state.slug(card), value))


def seattle_set(state: State, face: Face) -> None:
    """One die is set to ``face``; the others are rolled. At the start of the turn the target
    is declared next; after the declaration the nine dice are rolled."""
    state._put(set_face=face)
    state._emit(SeattleUsed(state.seat, face.letter))
    if state.target is None:
        state._start_from(boston=False, seattle=False)
    else:
        state._put(to_roll=DICE - 1, phase=Phase.ROLL)


# --- during the attack -----------------------------------------------------------------------


def toronto_reroll(state: State, face: Face) -> None:
    """One die showing ``face`` is rolled again before the roll is judged (once per turn)."""
    dice = list(state.dice)
    dice[face] -= 1
    state._put(
        heads=dice[0],
        rays=dice[1],
        nukes=dice[2],
        toronto_used=True,
        to_roll=1,
        phase=Phase.TORONTO_ROLL,
    )
    state._emit(TorontoUsed(state.seat, face.letter))


def denver_restart(state: State) -> None:
    """The bombing first roll is ignored and the turn starts again, Denver spent: under the
    seed's ``turn`` rule from its very start (the green cards and New York act again), under
    the ``target`` rule from the declaration of the target (Seattle offered again)."""
    whole = state.variant.denver is DenverRule.TURN
    state._fresh_turn()
    state._put(denver_used=True, new_york_due=whole)
    state._emit(DenverRestarted(state.seat, whole))
    state._start_from(boston=whole, seattle=True)


def las_vegas(state: State) -> tuple[int, ...]:
    """A bomb (or a failed Detroit) moves the player's token on a face-up Las Vegas up one;
    at its requirement (the third bomb) the player takes the card. The cards captured."""
    card = state.face_up_with(Ability.LAS_VEGAS)
    if card is None:
        return ()
    seat = state.seat
    slug = state.slug(card)
    value = state.token(seat, card) + 1
    if value == 1 and not state.free_tokens(seat):
        state._emit(VegasNoToken(seat, slug))
        return ()
    state._emit(VegasBomb(seat, slug, value))
    if value >= state.card(card).requirement:
        state._capture(card, value)
        return (card,)
    state._set_token(seat, card, value)
    return ()


# --- on capture --------------------------------------------------------------------------------


def on_capture(state: State, card: int, where: int) -> None:
    """The captured card's red ability, after its stack has turned up the next card."""
    ability = state.card(card).ability
    if ability in (Ability.SAN_FRANCISCO, Ability.INDIANAPOLIS):
        state._put(extra=state.extra + 1)
        state._emit(ExtraTurn(state.seat, state.slug(card)))
    elif ability is Ability.OKLAHOMA_CITY:
        _cycle_others(state, where)
    elif ability is Ability.MEMPHIS and state.box and any(state.stacks):
        state._put(memphis_due=True)


def _cycle_others(state: State, captured_from: int) -> None:
    """Oklahoma City: every other stack's face-up card goes to its bottom (a stack of one
    turns the same card up again); their tokens go home."""
    stacks = list(state.stacks)
    moved: list[int] = []
    for i, stack in enumerate(stacks):
        if i != captured_from and stack:
            moved.append(stack[0])
            stacks[i] = (*stack[1:], stack[0])
    state._put(stacks=tuple(stacks))
    state._emit(OklahomaCycled(state.seat, tuple(state.slug(c) for c in moved)))
    state._send_home(tuple(moved))
    for i, stack in enumerate(stacks):
        if i != captured_from and stack:
            state._turned_up(i)


def memphis_place(state: State, stack: int) -> None:
    """Memphis's captor chooses the stack; the card is drawn next (chance)."""
    state._put(memphis_stack=stack - 1, phase=Phase.MEMPHIS_DRAW)
    state._emit(MemphisPlaced(state.seat, stack))


def memphis_draw(state: State, card: int) -> None:
    """The drawn card goes face down under the chosen stack; the turn ends. The event names
    the stack only: nobody sees the card."""
    pending = state.pending
    where = state.memphis_stack
    assert pending is not None and where is not None
    stacks = list(state.stacks)
    stacks[where] = (*stacks[where], card)
    box = tuple(c for c in state.box if c != card)
    state._put(stacks=tuple(stacks), box=box, memphis_stack=None)
    state._emit(MemphisDrawn(where + 1))
    state._end_turn(pending)
