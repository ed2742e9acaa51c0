"""Every variant the game accepts solves: a grid over the range (players 1-10, target 1-100,
dice 1-20, both roll-off modes) checks convergence, the Bellman residual and sanity of the
tables; the fixed-point method itself on cases where plain Newton steps cycle or crawl.

The fast grid takes a few seconds; the largest corners are ``slow`` (about 30 s in all), and
the worst case of all (target 100 with 20 dice, about a minute) is measured by
``bench/bench_solve_range.py`` instead."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from marsdice.core.errors import VariantError
from marsdice.martian import RolloffMode, Variant, position
from marsdice.martian.rules import MAX_DICE, MAX_PLAYERS, MAX_TARGET
from marsdice.solve import policy, solo, winprob
from marsdice.solve.fixed import ConvergenceError, solve_fixed_points
from marsdice.solve.model import turn_model
from marsdice.solve.multi import turn_utility_multi
from marsdice.solve.progress import reporting
from marsdice.solve.turn import solve_turn

RESIDUAL = 1e-11

# (target, dice): small dice with the largest targets (a turn scores 0 most of the time), the
# largest dice with small targets, and the cases that failed to converge before
FAST_GRID = [
    (1, 1),
    (2, 1),
    (100, 1),
    (1, 2),
    (25, 2),
    (40, 2),
    (100, 2),
    (30, 3),
    (100, 3),
    (57, 5),
    (1, 13),
    (2, 20),
    (5, 20),
]
SLOW_GRID = [(100, 13), (40, 20)]


def _check_two_player(target: int, dice: int) -> winprob.WinTable:
    table = winprob.solve_winprob(target, dice, use_cache=False)
    assert winprob.bellman_residual(table) <= RESIDUAL
    for grid in (table.first, table.second):
        assert np.isfinite(grid).all()
        assert ((grid >= 0) & (grid <= 1)).all()
        assert (np.diff(grid, axis=0) >= -1e-12).all()  # more points of mine: no worse
        assert (np.diff(grid, axis=1) <= 1e-12).all()  # more points of theirs: no better
    assert (np.diff(table.last) <= 1e-12).all()
    return table


def _check_solo(target: int, dice: int) -> None:
    table = solo.solve_solo(target, dice, use_cache=False)
    assert solo.bellman_residual(table) <= RESIDUAL
    assert (table.turns >= 1).all()
    assert (np.diff(table.turns) <= 1e-12).all()  # closer to the target: fewer turns


@pytest.mark.parametrize(("target", "dice"), FAST_GRID)
def test_two_player_and_solo_tables_converge(target: int, dice: int) -> None:
    _check_two_player(target, dice)
    _check_solo(target, dice)


@pytest.mark.slow
@pytest.mark.parametrize(("target", "dice"), SLOW_GRID)
def test_large_corners_converge(target: int, dice: int) -> None:
    _check_two_player(target, dice)
    _check_solo(target, dice)


def test_one_die_is_a_coin_flip_turn() -> None:
    # one die: the roll is compulsory and scores 1 (an Earthling, 1/2) or 0, whatever the
    # policy; the solo game from 0 to the target needs 2 turns per point
    table = solo.solve_solo(9, 1, use_cache=False)
    np.testing.assert_allclose(table.turns, 2.0 * np.arange(9, 0, -1), atol=1e-12)
    # two players racing to 1 point: the first seat scores (1/2), then the second seat's last
    # turn ties (1/2, a roll-off worth 1/2): 3/8; or it scores 0 and the second seat wins at
    # once (1/2) or hands back: x = 3/8 + 1/2 * (1 - y), y = 1/2 + 1/2 * (1 - x): x = 1/2
    two = winprob.solve_winprob(1, 1, use_cache=False)
    assert two.first[0, 0] == pytest.approx(0.5, abs=1e-14)
    assert two.second[0, 0] == pytest.approx(0.75, abs=1e-14)


def test_multiplayer_utilities_over_the_range() -> None:
    for target, dice in [(1, 1), (100, 1), (100, 2), (2, 20), (5, 20)]:
        table = winprob.solve_winprob(target, dice, use_cache=False)
        model = turn_model(dice)
        for players in (3, MAX_PLAYERS):
            for scores in ([0] * players, [max(0, target - 1 - k) for k in range(players)]):
                for seat in (0, players - 1):
                    for triggered in (False, True):
                        utility = turn_utility_multi(table, scores, seat, triggered)
                        assert utility.shape == (model.max_score + 1,)
                        assert ((utility >= 0) & (utility <= 1)).all()
                        assert 0 <= solve_turn(utility, dice).turn_value() <= 1


@pytest.mark.parametrize("mode", list(RolloffMode))
@pytest.mark.parametrize("rolloff_dice", [1, 20])
def test_analysis_at_the_corners_for_every_rolloff(mode: RolloffMode, rolloff_dice: int) -> None:
    # the roll-off is symmetric in both modes: a tie is worth 1/k to each of k leaders, so the
    # tables do not depend on it; the analysis works for every variant at the range's corners
    for players, target, dice in [(1, 100, 1), (2, 100, 2), (3, 1, 1), (MAX_PLAYERS, 3, 20)]:
        variant = Variant(players, target, dice, rolloff_dice=rolloff_dice, rolloff_mode=mode)
        scores = tuple(max(0, target - 2 - seat) for seat in range(players))
        state = position(variant, scores, seat=players - 1, rolled=(0, 0, dice, 0, 0))
        choices = policy.analyze(state)
        assert choices
        for choice in choices:
            assert np.isfinite(choice.expected_score)
            if players == 1:
                assert choice.expected_turns is not None and choice.expected_turns >= 1
            else:
                assert choice.win_probability is not None
                assert 0 <= choice.win_probability <= 1


def test_variants_outside_the_range_are_refused_before_any_work() -> None:
    for target, dice in [(0, 13), (MAX_TARGET + 1, 13), (10**9, 13), (25, 0), (25, MAX_DICE + 1)]:
        with pytest.raises(VariantError, match=r"target must be|dice must be"):
            winprob.solve_winprob(target, dice, use_cache=False)
        with pytest.raises(VariantError, match=r"target must be|dice must be"):
            solo.solve_solo(target, dice, use_cache=False)


def test_progress_is_reported_up_to_the_total() -> None:
    calls: list[tuple[str, int, int]] = []
    with reporting(lambda what, done, total: calls.append((what, done, total))):
        winprob.solve_winprob(6, 3, use_cache=False)
        solo.solve_solo(6, 3, use_cache=False)
    for kind in ("win-probability", "solo"):
        seen = [(done, total) for what, done, total in calls if what.startswith(kind)]
        assert seen[0][0] == 0 and seen[-1][0] == seen[-1][1]
        assert all(a[0] <= b[0] for a, b in itertools.pairwise(seen))
    count = len(calls)
    winprob.solve_winprob(6, 3, use_cache=False)  # no callback installed: nothing reported
    assert len(calls) == count


# --- the fixed-point method on its own --------------------------------------------------


def _line(slope: float, intercept: float):  # type: ignore[no-untyped-def]
    def evaluate(v, todo, measure):  # type: ignore[no-untyped-def]
        return slope * v + intercept, (np.full(len(v), slope) if measure else None)

    return evaluate


def test_fixed_points_where_newton_cycles() -> None:
    # G flat (slope 0) within 0.02 of the root 0.5, slope 0.9 beyond: an S-shaped h = G - v on
    # which Newton's method from beyond the flat part jumps between 0.5 - 0.18 and 0.5 + 0.18
    def g_of(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        outside = np.abs(v - 0.5) > 0.02
        g = 0.5 + 0.9 * np.sign(v - 0.5) * np.maximum(np.abs(v - 0.5) - 0.02, 0.0)
        return g, np.where(outside, 0.9, 0.0)

    v = np.array([0.7])
    for _ in range(50):  # plain Newton: a 2-cycle
        g, slope = g_of(v)
        v = v + (g - v) / (1.0 - slope)
    assert abs(v[0] - 0.5) == pytest.approx(0.18)

    def evaluate(v, todo, slope):  # type: ignore[no-untyped-def]
        return g_of(v)  # the exact slope on every pass: Newton steps unless safeguarded

    guesses = np.array([0.0, 0.1, 0.32, 0.68, 0.7, 0.99])
    roots = solve_fixed_points(evaluate, guesses, 0.0, 1.0, tolerance=1e-14)
    np.testing.assert_allclose(roots, 0.5, atol=1e-14)


def test_fixed_points_with_slope_near_one() -> None:
    # a turn that almost never scores: G(v) = (1 - 1e-9) v + 1e-9 * 0.3, root 0.3; and an
    # unbounded one (solo): G(v) = 0.999 v + 1, root 1000, no upper end given
    near = _line(1 - 1e-9, 0.3e-9)
    root = solve_fixed_points(near, np.array([0.9]), 0.0, 1.0, tolerance=1e-16)
    assert root[0] == pytest.approx(0.3, abs=1e-6)
    far = _line(0.999, 1.0)
    root = solve_fixed_points(far, np.array([1.0]), 1.0, np.inf, tolerance=1e-9)
    assert root[0] == pytest.approx(1000.0, rel=1e-9)


def test_fixed_points_report_noise_above_the_tolerance() -> None:
    rng = np.random.default_rng(0)

    def noisy(v, todo, slope):  # type: ignore[no-untyped-def]
        return 0.5 * v + 0.25 + rng.normal(0, 1e-6, len(v)), (
            np.full(len(v), 0.5) if slope else None
        )

    with pytest.raises(ConvergenceError, match=r"tolerance|passes"):
        solve_fixed_points(noisy, np.array([0.1]), 0.0, 1.0, tolerance=1e-15)


def test_stderr_progress_bar_draws_and_goes(capsys: pytest.CaptureFixture[str]) -> None:
    from marsdice.solve.progress import report, stderr_progress

    with stderr_progress(delay=0.0) as callback:
        winprob.solve_winprob(12, 4, use_cache=False)
        callback("a long solve", 1, 3)  # left unfinished: closed with the block
    report("after the block", 1, 2)  # nobody listens any more
    assert capsys.readouterr().out == ""  # the bar is on stderr only


def test_two_player_decisions_without_the_all_positions_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a game too large for every position's turn in memory solves each turn as it comes
    variant = Variant(2, 9, 5)
    states = [
        position(variant, (3, 7), seat=0, rolled=(1, 1, 1, 1, 1)),
        position(variant, (3, 7), seat=1, set_aside=(1, 2, 1, 0, 0)),
        position(variant, (9, 6), seat=1, rolled=(0, 2, 2, 1, 0), end_triggered=True),
    ]
    looked_up = [policy.analyze(state) for state in states]
    monkeypatch.setattr(policy, "TWO_PLAYER_BUDGET", 0)
    assert not policy.two_player_turns_fit(9, 5)
    for state, before in zip(states, looked_up, strict=True):
        after = policy.analyze(state)
        assert [c.action for c in after] == [c.action for c in before]
        for a, b in zip(after, before, strict=True):
            assert a.win_probability == pytest.approx(b.win_probability, abs=1e-12)


def test_zero_slope_is_measured_relative_to_the_utility() -> None:
    from marsdice.solve.turn import start_values

    # utilities a billion times smaller than a point (win chances when far behind): the
    # measured slope is still the chance that the expected-score policy scores 0 (between
    # 0.269458 and 0.276791 depending on how ties are broken), not the 1 an absolute bump
    # would give by making 0 the best score
    for scale in (1.0, 1e-9, 1e-300):
        utility = scale * np.arange(17.0)[:, None]
        value, slope = start_values(utility, 13, zero_slope=True)
        assert value[0] == pytest.approx(3.1103817468 * scale, rel=1e-9)
        assert slope is not None and 0.2694 < slope[0] < 0.2768
