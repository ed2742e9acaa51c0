"""Batch simulation: equal in distribution to the exact turn law, and games that agree with
the exact head-to-head values."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from marsdice.solve.batch import (
    expected_chain,
    expected_policy,
    score_distributions,
    simulate_games,
    simulate_turns,
    two_player_policies,
)
from marsdice.solve.match import match_win_probability
from marsdice.solve.turn import expected_score_solution, score_distribution

ALPHA = 1e-3  # a fixed seed makes the outcome reproducible; this bounds a false alarm


def chi_square(observed: np.ndarray, probabilities: np.ndarray) -> tuple[float, int]:
    """Pearson's statistic, pooling the rare top scores into one cell (expected count >= 5)."""
    expected = probabilities * observed.sum()
    keep = expected >= 5
    cells_obs = np.append(observed[keep], observed[~keep].sum())
    cells_exp = np.append(expected[keep], expected[~keep].sum())
    statistic = float(((cells_obs - cells_exp) ** 2 / cells_exp).sum())
    return statistic, len(cells_obs) - 1


def critical_value(df: int, alpha: float = ALPHA) -> float:
    """Upper quantile of chi-square (Wilson-Hilferty: accurate to well under 1% here)."""
    z = NormalDist().inv_cdf(1 - alpha)
    return float(df * (1 - 2 / (9 * df) + z * np.sqrt(2 / (9 * df))) ** 3)


def test_critical_value_approximation() -> None:
    assert critical_value(10, 0.05) == pytest.approx(18.307, rel=0.01)
    assert critical_value(16, 0.001) == pytest.approx(39.252, rel=0.01)


@pytest.mark.parametrize("fast", [True, False])
def test_turn_scores_follow_the_exact_law(fast: bool) -> None:
    """Both simulators (the folded chain, and the general per-column tables) against the exact
    law of the expected-score policy."""
    rng = np.random.default_rng(20240601)
    policy = expected_chain() if fast else expected_policy()
    scores = simulate_turns(policy, 300_000, rng)
    law = score_distribution(expected_score_solution())
    statistic, df = chi_square(np.bincount(scores, minlength=17).astype(float), law)
    assert df >= 12
    assert statistic < critical_value(df)


def test_the_test_detects_a_wrong_law() -> None:
    """The same check rejects a slightly different policy (power, not just a pass)."""
    rng = np.random.default_rng(7)
    scores = simulate_turns(expected_policy(), 300_000, rng)
    law = score_distribution(expected_score_solution())
    shifted = np.roll(law, 1) * 0.02 + law * 0.98
    statistic, df = chi_square(np.bincount(scores, minlength=17).astype(float), shifted)
    assert statistic > critical_value(df)


def test_win_probability_columns_follow_their_laws() -> None:
    two = two_player_policies()
    laws = score_distributions(two.tables)
    rng = np.random.default_rng(11)
    columns = np.array([0, 24 * 25 + 3, 25 * 25 + 12 * 25 + 20, 2 * 25 * 25 + 9])
    for column in columns:
        scores = simulate_turns(two.tables, 60_000, rng, np.full(60_000, column))
        statistic, df = chi_square(np.bincount(scores, minlength=17).astype(float), laws[column])
        assert statistic < critical_value(df), column


def test_expected_score_games_are_fair() -> None:
    stats = simulate_games(("expected", "expected"), 100_000, np.random.default_rng(5))
    se = 0.5 / np.sqrt(stats.games)
    assert abs(stats.win_rates[0] - 0.5) < 4 * se
    assert stats.wins.sum() == pytest.approx(stats.games)
    assert 7 < stats.mean_rounds < 11


def test_seeded_tournament_winprob_beats_expected_over_alternating_seats() -> None:
    """Equal games in each seat order; the win-probability bot comes out ahead, by about
    what the exact evaluation says."""
    rng = np.random.default_rng(2026)
    games = 100_000
    first = simulate_games(("winprob", "expected"), games, rng).win_rates[0]
    second = simulate_games(("expected", "winprob"), games, rng).win_rates[1]
    rate = (first + second) / 2
    se = 0.5 / np.sqrt(2 * games)
    assert rate > 0.5 + 4 * se
    exact = (
        match_win_probability("winprob", "expected")
        + 1
        - match_win_probability("expected", "winprob")
    ) / 2
    assert abs(rate - exact) < 4 * se


def test_solo_games_take_the_expected_number_of_turns() -> None:
    from marsdice.solve.solo import solo_table

    stats = simulate_games(("winprob",), 40_000, np.random.default_rng(9))
    exact = solo_table().expected_turns(0)
    # sd of the number of turns is about 2: four standard errors
    assert abs(stats.mean_rounds - exact) < 4 * 2.0 / np.sqrt(40_000)
    assert (stats.mean_scores >= 25).all()


def test_two_player_games_too_large_for_policy_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    # every position's policy would not fit: turns are solved per scoreboard, same play
    from marsdice.solve import batch

    kwargs = {"target": 8, "dice": 5}
    with_tables = simulate_games(("winprob", "expected"), 3000, np.random.default_rng(4), **kwargs)
    monkeypatch.setattr(batch, "TWO_PLAYER_BUDGET", 0)
    assert not batch.two_player_policies_fit(8, 5)
    on_the_fly = simulate_games(("winprob", "expected"), 3000, np.random.default_rng(5), **kwargs)
    rate, other = with_tables.win_rates[0], on_the_fly.win_rates[0]
    error = np.sqrt(rate * (1 - rate) / 3000 * 2)
    assert abs(rate - other) < 4 * error
