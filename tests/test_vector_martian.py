"""The batched Martian Dice env against the scalar engine: the same dice give the same games.

Every game of a seeded batch is replayed through :mod:`marsdice.martian.rules` with the
batch's own rolls as scripted dice; each state, mask, reward and game end must agree.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from marsdice.core.dice import dice_outcomes
from marsdice.martian import FACES, Phase, Roll, RolloffMode, State, Variant, new_game
from marsdice.martian.game import ACTIONS
from marsdice.martian.rules import FACE_PROBABILITIES
from marsdice.vector.martian import (
    ACTION_COUNT,
    CHOOSE,
    DECIDE,
    MartianVectorEnv,
    RollTable,
    observation_labels,
    random_actions,
)

VARIANTS = [
    Variant(players=2),
    Variant(players=3, target=6),  # short games: many ends, ties and roll-offs
    Variant(players=4, target=4, rolloff_dice=2),  # roll-offs that tie again
    Variant(players=3, target=5, rolloff_mode=RolloffMode.SINGLE, rolloff_dice=1),
    Variant(players=1, target=10),  # solo: returns are minus the turns taken
    Variant(players=2, target=8, dice=4),
]


def play(env: MartianVectorEnv, steps: int, seed: int) -> list[tuple[np.ndarray, ...]]:
    """(observation, mask, action, rewards, done) per step, random legal play."""
    rng = np.random.default_rng(seed)
    obs, mask = env.observation(), env.mask()
    trace = []
    for _ in range(steps):
        actions = random_actions(mask, rng)
        after, rewards, done, next_mask = env.step(actions)
        trace.append((obs, mask, actions, rewards.copy(), done.copy()))
        obs, mask = after, next_mask
    return trace


def expected_row(state: State, labels: tuple[str, ...]) -> dict[str, int]:
    players = state.variant.players
    row = {f"score_{seat}": state.scores[seat] for seat in range(players)}
    rolled = state.rolled or (0,) * len(FACES)
    for face in FACES:
        row[f"aside_{face.name.lower()}"] = state.set_aside[face]
        row[f"rolled_{face.name.lower()}"] = rolled[face]
    row["seat"] = state.seat
    row["phase"] = CHOOSE if state.phase is Phase.CHOOSE else DECIDE
    row["last_round"] = int(state.end_triggered)
    assert set(row) == set(labels)
    return row


def replay(env: MartianVectorEnv, trace: list[tuple[np.ndarray, ...]], game: int) -> int:
    """Replay one game index through the scalar engine; the number of games it finished."""
    rolls = iter(env.rolls(game))
    labels = observation_labels(env.players)

    def settle(state: State) -> State:
        while state.is_chance_node:
            state = state.apply(Roll(next(rolls)))
        return state

    state = settle(new_game(env.variant))
    finished = 0
    for obs, mask, actions, rewards, done in trace:
        assert state.phase in (Phase.CHOOSE, Phase.DECIDE)
        want = expected_row(state, labels)
        got = dict(zip(labels, (int(v) for v in obs[game]), strict=True))
        assert got == want
        legal = [ACTIONS.index(a) for a in state.legal_actions()]  # type: ignore[arg-type]
        assert np.flatnonzero(mask[game]).tolist() == sorted(legal)
        state = settle(state.apply(ACTIONS[int(actions[game])]))
        if state.is_terminal:
            assert done[game]
            assert rewards[game].tolist() == pytest.approx(list(state.returns()))
            finished += 1
            state = settle(new_game(env.variant))
        else:
            assert not done[game]
            assert not rewards[game].any()
    assert next(rolls, None) is None  # every roll the batch drew was used, in order
    return finished


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"p{v.players}t{v.target}d{v.dice}")
def test_every_game_of_a_batch_is_the_scalar_engines_game_with_the_same_dice(
    variant: Variant,
) -> None:
    env = MartianVectorEnv(24, variant, seed=7, record=True)
    trace = play(env, 300, seed=3)
    finished = sum(replay(env, trace, game) for game in range(env.n))
    assert finished > 0  # the trace crosses game ends (and the resets after them)


def test_roll_offs_are_replayed_too() -> None:
    """A 4-seat game to 4 points with 2 roll-off dice ties often, and ties again."""
    variant = Variant(players=4, target=4, rolloff_dice=2)
    env = MartianVectorEnv(16, variant, seed=11, record=True)
    trace = play(env, 200, seed=5)
    for game in range(env.n):
        replay(env, trace, game)
    rolloff_rolls = sum(1 for game in range(env.n) for roll in env.rolls(game) if sum(roll) == 2)
    assert rolloff_rolls > 0


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(1, 5),
    target=st.integers(1, 13),
    dice=st.integers(2, 13),
)
def test_random_seeds_and_variants_agree_with_the_engine(
    seed: int, players: int, target: int, dice: int
) -> None:
    variant = Variant(players=players, target=target, dice=dice, rolloff_dice=2)
    env = MartianVectorEnv(4, variant, seed=seed, record=True)
    trace = play(env, 60, seed=seed + 1)
    for game in range(env.n):
        replay(env, trace, game)


def test_the_same_seed_gives_the_same_batch_and_another_seed_another() -> None:
    def run(seed: int) -> list[list[int]]:
        env = MartianVectorEnv(8, Variant(players=2), seed=seed, record=True)
        play(env, 50, seed=0)
        return [[hash(r) for r in env.rolls(game)] for game in range(env.n)]

    assert run(1) == run(1)
    assert run(1) != run(2)


@pytest.mark.parametrize("n", [1, 5, 13])
def test_the_roll_table_gives_each_outcome_the_engines_exact_chance(n: int) -> None:
    table = RollTable([n])
    exact = dice_outcomes(n, FACE_PROBABILITIES)
    assert [tuple(row) for row in table.outcomes.tolist()] == [roll for roll, _ in exact]
    widths = np.diff(np.concatenate([[n << 53], table.keys])).tolist()
    for width, (_, p) in zip(widths, exact, strict=True):
        assert abs(Fraction(width, 1 << 53) - p) <= Fraction(1, 1 << 52)


def test_draws_land_in_their_own_dice_counts_block() -> None:
    table = RollTable([3, 4, 13])
    rng = np.random.default_rng(0)
    dice = np.array([3, 4, 13] * 1000)
    counts = table.draw(rng, dice)
    assert (counts.sum(axis=1) == dice).all()


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    env = MartianVectorEnv(3, Variant(players=2), seed=2)
    before = env.observation()
    mask = env.mask()
    actions = mask.argmax(axis=1)
    actions[1] = int(np.flatnonzero(~mask[1])[0])
    with pytest.raises(ValueError, match="not legal in game 1"):
        env.step(actions)
    assert (env.observation() == before).all()
    with pytest.raises(ValueError, match="actions are 0-5"):
        env.step(np.full(3, ACTION_COUNT))
    with pytest.raises(ValueError, match="3 whole numbers"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="at least 1"):
        MartianVectorEnv(0)


def test_rolls_are_kept_only_when_asked() -> None:
    env = MartianVectorEnv(2, Variant(players=2), seed=0)
    with pytest.raises(ValueError, match="record=True"):
        env.rolls(0)


def test_a_game_index_past_the_batch_is_refused_not_answered_with_no_rolls() -> None:
    env = MartianVectorEnv(2, Variant(players=2), seed=0, record=True)
    assert env.rolls(np.int64(1))  # a numpy index is an index
    for game in (2, -1, 1.0, True, "0"):
        with pytest.raises(ValueError, match=r"game must be 0-1"):
            env.rolls(game)  # type: ignore[arg-type]


def test_a_float_or_bool_action_array_is_named_by_its_type() -> None:
    env = MartianVectorEnv(2, Variant(players=2), seed=0)
    for actions in (np.array([5.0, 5.0]), np.array([True, False])):
        with pytest.raises(ValueError, match=f"got an array of {actions.dtype}"):
            env.step(actions)


def test_bad_settings_are_refused_by_name_and_a_bad_reseed_changes_nothing() -> None:
    assert MartianVectorEnv(np.int64(2), seed=np.int64(3)).n == 2  # numpy integers are whole
    for count in (0, 2.0, True, "2"):
        with pytest.raises(ValueError, match="number of games"):
            MartianVectorEnv(count)  # type: ignore[arg-type]
    for seed in (-1, 1.5, "x", None):
        with pytest.raises(ValueError, match="seed must be a whole number of 0 or more"):
            MartianVectorEnv(2, seed=seed)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="variant must be a Martian Dice Variant, got dict"):
        MartianVectorEnv(2, {"players": 2})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="record must be True or False"):
        MartianVectorEnv(2, record=1)  # type: ignore[arg-type]
    env = MartianVectorEnv(2, Variant(players=2), seed=5)
    before, stream = env.observation(), env.rng.bit_generator.state
    with pytest.raises(ValueError, match="seed must be"):
        env.reset("abc")  # type: ignore[arg-type]
    assert env.seed == 5 and env.rng.bit_generator.state == stream
    assert (env.observation() == before).all()


def test_the_game_declares_its_batched_env() -> None:
    from marsdice.games import load, registration

    env_class = load(registration("martian").vector or "")
    assert env_class is MartianVectorEnv
    assert registration("attacks").vector is None
