"""The engines build each step's state as a private draft changed in place (one copy per
step): the state before a step must never change, and the state handed out must be a whole
state, equal (and equal in hash) to the same fields put through the constructor."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from marsdice import attacks, martian


def _rebuilt(state: Any) -> Any:
    """The same fields through the dataclass constructor (every slot set by ``__init__``)."""
    return type(state)(**{f.name: getattr(state, f.name) for f in dataclasses.fields(state)})


def _random_game(start: Any, rng: random.Random) -> list[Any]:
    states = [start]
    state = start
    while not state.is_terminal:
        legal = state.legal_actions()
        action = state.sample_chance(rng) if state.is_chance_node else rng.choice(legal)
        before = _rebuilt(state)
        state = state.apply(action)
        assert states[-1] == before and hash(states[-1]) == hash(before), "a step changed it"
        states.append(state)
    return states


def _martian(seed: int) -> Any:
    variant = martian.Variant(players=1 + seed % 4, target=(25, 6, 3)[seed % 3])
    return martian.new_game(variant)


def _attacks(seed: int, rng: random.Random) -> Any:
    switches: tuple[dict[str, str], ...] = (
        {},
        {"reroll": "subset", "seattle": "after-target", "denver": "target"},
    )
    variant = attacks.Variant.from_values(2 + seed % 4, 1 + seed % 2, switches=switches[seed % 2])
    return attacks.new_game(variant, attacks.deal(variant, rng))


@pytest.mark.parametrize("seed", range(12))
def test_steps_leave_the_state_before_alone_and_hand_out_whole_states(seed: int) -> None:
    rng = random.Random(seed)
    for start in (_martian(seed), _attacks(seed, rng)):
        for state in _random_game(start, rng):
            again = _rebuilt(state)
            assert state == again and hash(state) == hash(again)
            assert repr(state) == repr(again)


def test_the_public_turn_starts_do_not_change_the_state_they_start_from() -> None:
    rng = random.Random(3)
    start = _attacks(0, rng)
    before = _rebuilt(start)
    begun = start.begin_turn(1, 0, bonus=False)
    resumed = start.start_from(boston=True, seattle=True)
    assert start == before
    assert begun.seat == 1 and begun != start
    assert resumed == _rebuilt(resumed)
