"""Determinization: a Mars Attacks state rebuilt from one seat's public view and log shows
that seat exactly the same view (events included), and the planner bot chooses the same
move from it as from the true state."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from marsdice.attacks.determinize import DeterminizeError, determinize, public_tops
from marsdice.attacks.game import GAME
from marsdice.attacks.state import State
from marsdice.attacks.variant import Variant
from marsdice.bots.registry import make_bot
from marsdice.core.game import Action

VARIANTS: list[dict[str, Any]] = [
    {},
    {"reroll": "subset"},
    {"difficulty": "hard", "bombed": "whole-turn"},
    {"end_stacks": 3, "seattle": "after-target"},
]


def played(seed: int) -> tuple[Variant, State, list[str], dict[int, Any], int]:
    """A seeded random game cut at a seeded random step: the variant, the true state, the
    log as ``seat`` sees it, the face-up cards at every version, and the seat."""
    rng = random.Random(seed)
    players = 2 + seed % 5
    variant = GAME.variant_from_params({"players": players, **VARIANTS[seed % len(VARIANTS)]})
    state = GAME.start(variant, rng)
    names = ["planner", "heuristic", "random"]
    bots = [make_bot(GAME, rng.choice(names), seed=seed * 10 + i) for i in range(players)]
    seat = rng.randrange(players)
    log: list[str] = []
    tops = {0: public_tops(GAME.observe(state, seat))}
    stop = rng.randrange(10, 400)
    while not state.is_terminal and len(log) < stop:
        action: Action = (
            state.sample_chance(rng)
            if state.is_chance_node
            else bots[state.current_player].choose(state)
        )
        log.append(GAME.redact(state, action, seat))
        state = state.apply(action)
        tops[len(log)] = public_tops(GAME.observe(state, seat))
    return variant, state, log, tops, seat


def wire(value: object) -> Any:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("seed", range(16))
def test_same_view_and_same_planner_choice(seed: int) -> None:
    variant, true, log, tops, seat = played(seed)
    view = wire(GAME.observe(true, seat))
    guess = determinize(variant, log, view, random.Random(seed), tops=tops)
    assert wire(GAME.observe(guess, seat)) == view  # events included
    # everything public matches exactly; the hidden parts are only a sample
    assert guess.face_up == true.face_up
    assert [len(s) for s in guess.stacks] == [len(s) for s in true.stacks]
    assert sorted(guess.box + sum(guess.stacks, ())) == sorted(true.box + sum(true.stacks, ()))
    if not true.is_terminal and not true.is_chance_node:
        planner = make_bot(GAME, "planner", seed=1)
        assert planner.choose(guess).text() == planner.choose(true).text()


def test_the_hidden_cards_are_a_seeded_sample() -> None:
    variant, true, log, tops, seat = played(3)
    view = wire(GAME.observe(true, seat))
    one = determinize(variant, log, view, random.Random(1), tops=tops)
    assert one == determinize(variant, log, view, random.Random(1), tops=tops)
    hidden = [determinize(variant, log, view, random.Random(k), tops=tops) for k in range(4)]
    assert len({(s.stacks, s.box) for s in hidden}) > 1  # the face-down cards vary


@pytest.mark.parametrize("seed", [0, 1, 3, 5])
def test_from_the_final_view_alone(seed: int) -> None:
    """A client that reconnects knows only the current view: the search backs up more,
    but still finds a consistent state for these positions."""
    variant, true, log, _, seat = played(seed)
    view = wire(GAME.observe(true, seat))
    guess = determinize(variant, log, view, random.Random(seed), budget=50_000)
    assert wire(GAME.observe(guess, seat)) == view


def test_an_inconsistent_view_is_refused() -> None:
    variant, true, log, tops, seat = played(7)
    view = wire(GAME.observe(true, seat))
    view["scores"][0] += 1
    with pytest.raises(DeterminizeError, match="no deal fits"):
        determinize(variant, log, view, random.Random(0), tops=tops, budget=5_000)
