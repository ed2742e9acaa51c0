"""Properties of random legal play under random variants (hypothesis)."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from marsdice.core.record import GameRecord
from marsdice.martian import FACES, GAME, Face, Phase, RolloffMode, State, Variant, new_game

variants = st.builds(
    Variant,
    players=st.integers(1, 5),
    target=st.integers(1, 30),
    dice=st.integers(1, 13),
    rolloff_dice=st.integers(1, 6),
    rolloff_mode=st.sampled_from(list(RolloffMode)),
)


def random_game(variant: Variant, seed: int) -> tuple[list[State], list[str]]:
    rng = random.Random(seed)
    state = new_game(variant)
    states, moves = [state], []
    while not state.is_terminal:
        if state.is_chance_node:
            action = state.sample_chance(rng)
        else:
            action = rng.choice(state.legal_actions())
        state = state.apply(action)
        states.append(state)
        moves.append(action.text())
    return states, moves


def dice_in_play(state: State) -> int:
    """Dice set aside plus dice on the table or about to be rolled."""
    aside = sum(state.set_aside)
    if state.phase is Phase.CHOOSE:
        assert state.rolled is not None
        return aside + sum(state.rolled) - state.rolled[Face.TANK]
    if state.phase is Phase.ROLL:
        return aside + state.chance_outcomes()[0][0].dice
    return aside + state.dice_left


@settings(max_examples=60, deadline=None)
@given(variant=variants, seed=st.integers(0, 2**32))
def test_random_play_to_the_end(variant: Variant, seed: int) -> None:
    states, _ = random_game(variant, seed)
    final = states[-1]
    assert final.is_terminal and final.winners
    for before, after in itertools.pairwise(states):
        assert all(b <= a for b, a in zip(before.scores, after.scores, strict=True))
        if after.phase in (Phase.ROLL, Phase.CHOOSE, Phase.DECIDE):
            assert dice_in_play(after) == variant.dice
        assert len(after.set_aside) == len(FACES)
    best = max(final.scores)
    assert all(final.scores[w] == best for w in final.winners)
    if not variant.solo:
        assert len(set(final.turns)) == 1, "everyone had the same number of turns"
        assert max(final.scores) >= variant.target


@settings(max_examples=40, deadline=None)
@given(variant=variants, seed=st.integers(0, 2**32), cut=st.floats(0, 1))
def test_records_round_trip(variant: Variant, seed: int, cut: float) -> None:
    states, moves = random_game(variant, seed)
    keep = int(len(moves) * cut)
    names = tuple(f'P{i} "q"' for i in range(variant.players))
    record = GAME.make_record(names, states[0], moves[:keep], [("Seed", str(seed))])
    text = GAME.dumps(record)
    again = GameRecord.loads(text)
    assert again == record
    assert GAME.replay(again)[-1] == states[keep]
