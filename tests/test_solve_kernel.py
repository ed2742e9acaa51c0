"""The compiled turn sweep (marsdice.solve.kernel) against the numpy reference.

The kernel must give what the numpy sweep gives, to 1e-12, for the turn laws and values of
many utilities at once (ties included: the documented tie rule decides them), and whole
exact solves must agree entry by entry with the same work done (same policy iteration).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from marsdice.solve import nplayer
from marsdice.solve.model import FloatArray, turn_model
from marsdice.solve.nplayer import KERNEL_ENV, SolveStats, _solve, turn_laws, turn_values
from marsdice.solve.turn import solve_turn

kernel = pytest.importorskip("marsdice.solve.kernel")


def utilities(dice: int, columns: int, seed: int) -> FloatArray:
    """Random utilities, some with exact ties (few levels, constant, increasing)."""
    scores = turn_model(dice).max_score + 1
    rng = np.random.default_rng(seed)
    u = rng.random((scores, columns))
    u[:, : columns // 4] = np.round(u[:, : columns // 4] * 3) / 3  # many equal options
    u[:, columns // 4] = 0.5  # nothing matters: every choice ties
    u[:, columns // 4 + 1] = np.arange(scores, dtype=np.float64)  # the expected score
    u[:, columns // 4 + 2] = (np.arange(scores) >= scores // 2).astype(np.float64)
    return u


@pytest.mark.parametrize("dice", [1, 2, 3, 5, 8, 13])
def test_laws_and_values_match_numpy(dice: int, monkeypatch: pytest.MonkeyPatch) -> None:
    model = turn_model(dice)
    u = utilities(dice, 77, seed=dice)  # not a multiple of the block width: padding
    monkeypatch.setenv(KERNEL_ENV, "numpy")
    values, laws = turn_laws(model, u)
    checks = turn_values(model, u)
    fast_values, fast_laws = kernel.turn_laws(dice, u)
    assert fast_laws.shape == laws.shape == (77, model.max_score + 1)
    assert np.abs(fast_values - values).max() < 1e-12
    assert np.abs(fast_laws - laws).max() < 1e-12
    assert np.abs(fast_laws.sum(axis=1) - 1.0).max() < 1e-12
    fast_checks = kernel.turn_values(dice, u)
    assert np.abs(fast_checks - checks).max() < 1e-12
    assert np.abs(fast_checks - solve_turn(u, dice).cont[model.start]).max() < 1e-12


def test_a_single_column_and_a_wide_batch() -> None:
    """Block widths adapt to the batch (one column, thousands); results do not."""
    u = utilities(13, 1100, seed=7)
    values, laws = kernel.turn_laws(13, u)
    one_value, one_law = kernel.turn_laws(13, u[:, 500:501])
    assert one_value[0] == values[500]
    np.testing.assert_array_equal(one_law[0], laws[500])


def test_the_tie_rule_is_the_numpy_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A utility where stopping and rolling tie exactly: both sweeps stop (the law puts the
    mass on banking), and at equal options both take the first."""
    dice = 5
    model = turn_model(dice)
    u = np.zeros((model.max_score + 1, 1))
    u[1:] = 1.0  # any point is as good as any other
    _, fast = kernel.turn_laws(dice, u)
    monkeypatch.setenv(KERNEL_ENV, "numpy")
    _, reference = turn_laws(model, u)
    np.testing.assert_allclose(fast, reference, rtol=0, atol=1e-15)
    assert fast[0, 1:].sum() > 0.5, "scoring at all is what counts: stop on the first point"


@pytest.mark.parametrize(("players", "target", "dice"), [(3, 8, 5), (4, 5, 4), (3, 6, 13)])
def test_whole_solves_match_numpy(
    players: int, target: int, dice: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KERNEL_ENV, "numpy")
    slow_stats = SolveStats()
    slow = _solve(players, target, dice, None, slow_stats)
    monkeypatch.setenv(KERNEL_ENV, "numba")
    fast_stats = SolveStats()
    fast = _solve(players, target, dice, None, fast_stats)
    assert np.abs(fast.values - slow.values).max() < 1e-12
    for a, b in zip(fast.last, slow.last, strict=True):
        assert np.abs(a - b).max() < 1e-12
    assert fast_stats == slow_stats, "the same policy iteration, pass for pass"


def test_the_sweep_is_chosen_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KERNEL_ENV, "numpy")
    assert nplayer._kernel() is None
    monkeypatch.setenv(KERNEL_ENV, "numba")
    assert nplayer._kernel() is kernel
    monkeypatch.delenv(KERNEL_ENV)
    assert nplayer._kernel() is kernel, "the compiled sweep by default"
    monkeypatch.setenv(KERNEL_ENV, "fortran")
    with pytest.raises(ValueError, match="numba"):
        nplayer._kernel()


def test_without_numba_the_numpy_sweep_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KERNEL_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "marsdice.solve.kernel", None)  # import fails
    assert nplayer._kernel() is None
    table = nplayer.solve_nplayer(3, 4, 3, use_cache=False)
    assert table.win_probabilities((0, 0, 0), 0).sum() == pytest.approx(1.0, abs=1e-12)
