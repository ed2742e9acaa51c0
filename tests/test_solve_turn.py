"""The turn solver against the reference figure and against brute force on the engine."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from marsdice.martian import (
    CONTINUE,
    STOP,
    Continue,
    Face,
    Phase,
    Roll,
    State,
    Stop,
    Take,
    Variant,
    new_game,
)
from marsdice.martian.rules import NO_DICE
from marsdice.solve.model import node_of_counts, turn_model
from marsdice.solve.policy import action_values, best_action
from marsdice.solve.turn import (
    TIE,
    TurnSolution,
    chunk_columns,
    expected_score_solution,
    score_distribution,
    solve_turn,
)

SCORES = np.arange(17, dtype=np.float64)


def test_expected_score_reproduces_reference() -> None:
    solution = expected_score_solution()
    assert abs(solution.turn_value() - 3.1103817468) < 1e-9


def test_distribution_is_a_law_with_the_solved_mean() -> None:
    solution = expected_score_solution()
    law = score_distribution(solution)
    assert law.min() >= 0
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    assert float(law @ SCORES) == pytest.approx(solution.turn_value(), abs=1e-12)
    assert 0.26 < law[0] < 0.28  # P(turn scores 0), about 26.9%
    assert law[16] > 0  # 13 Earthlings of all three kinds: 13 + 3


def test_batched_columns_match_single_solves() -> None:
    rng = np.random.default_rng(3)
    utilities = rng.random((17, 5))
    batched = solve_turn(utilities)
    for column in range(5):
        single = solve_turn(utilities[:, column])
        assert batched.turn_value(column) == pytest.approx(single.turn_value(), abs=1e-15)


@pytest.mark.parametrize("k", [1, 6, 10, 14])
def test_threshold_utility_is_a_probability_of_its_own_policy(k: int) -> None:
    utility = (k <= SCORES).astype(float)
    solution = solve_turn(utility, policy=True)
    law = score_distribution(solution)
    assert solution.turn_value() == pytest.approx(float(law[k:].sum()), abs=1e-12)
    # playing for k points scores k points at least as often as playing for expected score
    assert solution.turn_value() >= score_distribution(expected_score_solution())[k:].sum()


def test_rejects_a_utility_of_the_wrong_length() -> None:
    with pytest.raises(ValueError, match="one value per final score"):
        solve_turn(np.zeros(5))


# --- brute force on the engine ------------------------------------------------------------


def _brute(state: State, utility: tuple[Fraction, ...]) -> Fraction:
    """Optimal value of the rest of the current turn, by exhaustive search over engine
    states (exact fractions): a completely independent implementation of the turn."""
    return _brute_cached(state, utility)


@cache
def _brute_cached(state: State, utility: tuple[Fraction, ...]) -> Fraction:
    if state.turns[0] > 0:  # the turn ended: the engine scored it
        assert state.last_turn is not None
        return utility[state.last_turn.score]
    if state.phase is Phase.ROLL:
        return sum(
            (p * _brute_cached(state.apply(roll), utility) for roll, p in state.chance_outcomes()),
            Fraction(0),
        )
    return max(_brute_cached(state.apply(a), utility) for a in state.legal_actions())


def _position(set_aside: tuple[int, ...], rolled: str | None) -> State:
    """A first-turn engine state with dice set aside and, optionally, a roll to choose from."""
    state = replace(new_game(Variant(players=2)), set_aside=set_aside)
    if rolled is None:
        return replace(state, phase=Phase.DECIDE)
    return state.apply(Roll.parse(rolled))


UTILITIES = {
    "score": tuple(Fraction(s) for s in range(17)),
    "at least 6": tuple(Fraction(int(s >= 6)) for s in range(17)),
    "odd": tuple(Fraction((7 * s * s + 3) % 11, 7) for s in range(17)),
}

# (tanks, rays, humans, cows, chickens) set aside with 2-4 dice left, and rolls of those dice
CASES = [
    ((3, 2, 4, 0, 0), "RHCK"),
    ((3, 2, 4, 0, 0), None),
    ((2, 2, 2, 3, 0), "TRKK"),
    ((2, 2, 2, 3, 0), None),
    ((4, 3, 0, 3, 0), "RHK"),
    ((1, 1, 3, 3, 2), "TRR"),
    ((3, 1, 2, 2, 2), None),
    ((3, 1, 2, 2, 2), "RRC"),
    ((0, 5, 4, 0, 2), "HC"),
    ((2, 2, 5, 2, 0), None),
    ((5, 3, 1, 1, 0), None),
    ((5, 3, 1, 1, 0), "RRK"),
]


@pytest.mark.parametrize("name", sorted(UTILITIES))
@pytest.mark.parametrize(("set_aside", "rolled"), CASES)
def test_policy_matches_brute_force(
    name: str, set_aside: tuple[int, ...], rolled: str | None
) -> None:
    exact = UTILITIES[name]
    solution = solve_turn(np.array([float(u) for u in exact]))
    state = _position(set_aside, rolled)
    assert state.phase in (Phase.CHOOSE, Phase.DECIDE)
    values = action_values(state, solution)
    truth = {action: _brute(state.apply(action), exact) for action in state.legal_actions()}
    for action, value in values:
        assert value == pytest.approx(float(truth[action]), abs=1e-12)
    # the solver's choice is one of the brute force's optimal actions
    best = max(truth.values())
    chosen = _best(state, solution)
    assert truth[chosen] == best


def _best(state: State, solution: TurnSolution) -> Take | Stop | Continue:
    values = action_values(state, solution)
    if state.phase is Phase.DECIDE:
        return CONTINUE if values[1][1] > values[0][1] + TIE else STOP
    return max(values, key=lambda av: av[1])[0]


def test_whole_turn_with_few_dice_matches_brute_force() -> None:
    """A 3-dice game: the solver's turn value equals exhaustive search from the first roll."""
    exact = tuple(Fraction(s) for s in range(7))
    state = new_game(Variant(players=2, dice=3))
    truth = _brute(state, exact)
    solution = solve_turn(np.arange(7.0), dice=3)
    assert solution.turn_value() == pytest.approx(float(truth), abs=1e-14)


def test_best_action_at_the_rulebook_sample() -> None:
    state = new_game().apply(Roll.parse("TTHHHHRRCCCKK"))
    assert best_action(state, "expected") == Take(Face.HUMAN)


def test_nodes_cover_the_opening() -> None:
    model = turn_model(13)
    assert model.node_id(*node_of_counts(NO_DICE, 13)) == model.start


def _reference_sweep(dice: int, utility: np.ndarray) -> np.ndarray:
    """The plain sweep over every (node, composition, option) row of the model: the compact
    tables the solver uses must give the same values."""
    model = turn_model(dice)
    size = model.node_count
    values = np.empty((model.rows, utility.shape[1]))
    values[model.terminal : model.sentinel] = utility
    values[model.sentinel] = -np.inf
    cont = np.empty((size, utility.shape[1]))
    for n in range(1, dice + 1):
        for group in model.choose_groups[n]:
            best = values[group.options].max(axis=2)
            values[size + group.nodes] = np.einsum("c,ncj->nj", group.probabilities, best)
        roll = model.roll_groups[n]
        cont[roll.nodes] = np.einsum("t,itj->ij", roll.tank_probabilities, values[roll.tank_rows])
        values[roll.nodes] = np.maximum(values[roll.stop_rows], cont[roll.nodes])
    return cont


@pytest.mark.parametrize("dice", [1, 2, 3, 4, 7, 13, 20])
def test_compact_sweep_equals_the_plain_one(dice: int) -> None:
    rng = np.random.default_rng(dice)
    model = turn_model(dice)
    # more columns than one chunk, so that the chunked path is checked too
    utility = rng.random((model.max_score + 1, 2 * chunk_columns(model) + 5))
    solved = solve_turn(utility, dice)
    np.testing.assert_allclose(solved.cont, _reference_sweep(dice, utility), rtol=0, atol=1e-14)
