"""Two-player win probabilities: Bellman equations, monotonicity, an independent value
iteration, the disk cache, and exact head-to-head evaluation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from marsdice.solve.cache import table_path
from marsdice.solve.match import match_win_probability
from marsdice.solve.model import turn_model
from marsdice.solve.turn import solve_turn
from marsdice.solve.winprob import (
    WinTable,
    bellman_residual,
    solve_winprob,
    turn_utilities,
    winprob_table,
)


@pytest.fixture(scope="module")
def table() -> WinTable:
    return winprob_table(25, 13)


def test_bellman_equations_hold(table: WinTable) -> None:
    assert bellman_residual(table) <= 1e-9


def test_monotone_in_own_score_and_opponents(table: WinTable) -> None:
    for grid in (table.first, table.second):
        assert (np.diff(grid, axis=0) >= -1e-12).all()  # more points of mine: no worse
        assert (np.diff(grid, axis=1) <= 1e-12).all()  # more points of theirs: no better
        assert ((grid > 0) & (grid < 1)).all()
    assert (np.diff(table.last) <= 1e-12).all()


def test_first_seat_chance_from_the_start(table: WinTable) -> None:
    # the second seat's guaranteed last turn is an edge: the first seat is under 1/2
    assert 0.45 < table.win_probability(0, 0, seat=0) < 0.5
    assert table.win_probability(0, 0, seat=0) == table.first[0, 0]


def test_last_turn_is_a_single_turn_problem(table: WinTable) -> None:
    # needing 0 more to tie: win by scoring anything, tie (half) by scoring nothing
    law = solve_turn((np.arange(17) > 0).astype(float) + 0.5 * (np.arange(17) == 0))
    assert table.last_turn(0) == pytest.approx(law.turn_value(), abs=1e-14)
    assert table.last_turn(-3) == 1.0
    assert table.last_turn(40) == 0.0
    assert table.win_probability(20, 27, seat=1, triggered=True) == table.last_turn(7)


def _value_iteration(target: int) -> WinTable:
    """A plain, independent Jacobi iteration over every entry at once until it stops moving."""
    model = turn_model(13)
    me, opp = (g.ravel() for g in np.indices((target, target)))
    table = WinTable(
        target, 13, np.full((target, target), 0.5), np.full((target, target), 0.5), np.zeros(18)
    )
    need = np.arange(18)
    last = turn_utilities(table, np.zeros_like(need), need, 1, triggered=True)
    table.last[:] = solve_turn(last).cont[model.start]
    for _ in range(500):
        u0 = turn_utilities(table, me, opp, 0)
        u0[0] = 1 - table.second[opp, me]
        u1 = turn_utilities(table, me, opp, 1)
        u1[0] = 1 - table.first[opp, me]
        values = solve_turn(np.hstack([u0, u1])).cont[model.start]
        first, second = values[: len(me)], values[len(me) :]
        change = max(
            np.abs(first - table.first.ravel()).max(), np.abs(second - table.second.ravel()).max()
        )
        table.first[:] = first.reshape(target, target)
        table.second[:] = second.reshape(target, target)
        if change < 1e-14:
            return table
    raise AssertionError("value iteration did not settle")


def test_newton_sweep_equals_value_iteration() -> None:
    fast = solve_winprob(target=7, use_cache=False)
    slow = _value_iteration(7)
    np.testing.assert_allclose(fast.first, slow.first, atol=1e-12)
    np.testing.assert_allclose(fast.second, slow.second, atol=1e-12)


def test_tables_are_cached_by_variant(tmp_path: Path) -> None:
    solved = solve_winprob(target=5, cache_dir=tmp_path)
    path = table_path("winprob", {"target": 5, "dice": 13, "players": 2}, tmp_path)
    assert path.exists()
    with np.load(path) as stored:  # what a later run reads
        np.testing.assert_array_equal(stored["first"], solved.first)
    other = solve_winprob(target=6, cache_dir=tmp_path)
    assert other.first.shape == (6, 6)
    assert len(list(tmp_path.glob("winprob-*.npz"))) == 2
    path.write_bytes(b"not a table")  # a damaged file is recomputed, not trusted
    again = solve_winprob(target=5, cache_dir=tmp_path)
    np.testing.assert_array_equal(again.first, solved.first)


def test_policy_evaluation_agrees_with_the_solver(table: WinTable) -> None:
    # two optimal players: the fixed-policy evaluation reproduces the solved value
    both = match_win_probability("winprob", "winprob")
    assert both == pytest.approx(table.first[0, 0], abs=1e-9)
    # two expected-score players play the same number of turns: a fair game
    assert match_win_probability("expected", "expected") == pytest.approx(0.5, abs=1e-9)


def test_winprob_beats_expected_score_in_both_seats() -> None:
    first = match_win_probability("winprob", "expected")
    second = 1.0 - match_win_probability("expected", "winprob")
    assert first > 0.5 and second > 0.5
    assert (first + second) / 2 > 0.515
