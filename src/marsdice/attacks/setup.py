"""Setting up a Mars Attacks game: the deal (from the caller's generator) and the opening.

>>> import random
>>> state = new_game(Variant(players=2), deal(Variant(players=2), random.Random(1)))
>>> [len(stack) for stack in state.stacks], len(state.box), state.rounds
([2, 2, 2, 2], 21, 1)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from marsdice.attacks.cards import slugify
from marsdice.attacks.state import State, _slug_index
from marsdice.attacks.variant import STACKS, Variant
from marsdice.core.errors import VariantError


def deal(variant: Variant, rng: random.Random) -> tuple[tuple[str, ...], ...]:
    """Shuffle the cards with ``rng`` and deal 4 stacks of one card per player (as names in
    notation, top first); the rest stay in the box."""
    order = list(range(len(variant.cards)))
    rng.shuffle(order)
    n = variant.players
    return tuple(
        tuple(variant.cards[c].slug for c in order[i * n : (i + 1) * n]) for i in range(STACKS)
    )


def new_game(
    variant: Variant | None = None, stacks: Sequence[Sequence[str | int]] | None = None
) -> State:
    """The opening state: seat 0 about to begin its first turn.

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
                found = index.get(item)  # a name in notation already (every deal's)
                if found is None:
                    found = index.get(slugify(item))
                if found is None:
                    raise VariantError(f"stack {number}: no card called {item!r}")
                row.append(found)
            elif isinstance(item, int) and 0 <= item < len(cards):
                row.append(item)
            else:
                raise VariantError(f"stack {number}: no card number {item!r}")
        dealt.append(tuple(row))
    flat = [c for stack in dealt for c in stack]
    if len(flat) != len(set(flat)):
        twice = sorted({cards[c].name for c in flat if flat.count(c) > 1})
        raise VariantError(f"cards dealt twice: {', '.join(twice)}")
    placed = set(flat)
    box = tuple(c for c in range(len(cards)) if c not in placed)
    players = variant.players
    state = State(
        variant=variant,
        stacks=tuple(dealt),
        box=box,
        tokens=((),) * players,
        owned=((),) * players,
        reached=(0,) * players,
    )
    return state.begin_turn(0, 0, bonus=False)
