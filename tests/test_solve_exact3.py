"""Exact three- (and four-) player win probabilities: marsdice.solve.nplayer.

Small variants (few dice, low targets) so that everything runs in seconds. The references
here are written independently of the solver: the turn policy and its score law come from
``solve_turn`` / ``score_distribution`` and the batch policy tables, the game's transitions
and final scoring from the rules as stated in ``docs/rules-martian.md``.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from marsdice.solve.batch import policy_tables, score_distributions
from marsdice.solve.model import FloatArray, turn_model
from marsdice.solve.nplayer import (
    NPlayerTable,
    Strategy,
    evaluate_lineup,
    nplayer_cached,
    rolloff_shares,
    score_laws,
    simulate_lineup,
    solve_nplayer,
)
from marsdice.solve.turn import solve_turn
from marsdice.solve.winprob import solve_winprob

State = tuple[tuple[int, ...], int, bool]  # scores, seat to move, end triggered


@pytest.fixture(scope="module")
def small() -> NPlayerTable:
    return solve_nplayer(3, target=8, dice=5, use_cache=False)


# --- an independent model of the game --------------------------------------------------------


def after_turn(state: State, points: int, target: int) -> State | tuple[float, ...]:
    """The next state, or every player's share of the win when the game is over."""
    scores, seat, triggered = state
    players = len(scores)
    new = tuple(s + points if j == seat else s for j, s in enumerate(scores))
    triggered = triggered or new[seat] >= target
    if triggered and seat == players - 1:
        best = max(new)
        tied = [j for j in range(players) if new[j] == best]
        return tuple(1.0 / len(tied) if j in tied else 0.0 for j in range(players))
    return (new, (seat + 1) % players, triggered)


def all_states(players: int, target: int, max_score: int) -> list[State]:
    """Every position a game can reach at the start of a turn (BFS from all open ones)."""
    seen: set[State] = set()
    todo: list[State] = [
        (scores, seat, False)
        for scores in itertools.product(range(target), repeat=players)
        for seat in range(players)
    ]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        for points in range(max_score + 1):
            nxt = after_turn(state, points, target)
            if isinstance(nxt[1], int) and len(nxt) == 3:
                todo.append(nxt)  # type: ignore[arg-type]
    return sorted(seen)


def outcome_matrix(
    state: State, values: dict[State, FloatArray], target: int, max_score: int
) -> FloatArray:
    """``(scores, players)``: every player's value after each final turn score."""
    rows = []
    for points in range(max_score + 1):
        nxt = after_turn(state, points, target)
        if len(nxt) == 3 and isinstance(nxt[1], int):
            rows.append(values[nxt])  # type: ignore[index]
        else:
            rows.append(np.array(nxt, dtype=np.float64))
    return np.array(rows)


def play_turns(utilities: FloatArray, dice: int) -> tuple[FloatArray, FloatArray]:
    """Optimal values and the law of the turn score for each utility column, from the turn
    solver and the batch policy tables (not the n-player solver's own sweep)."""
    solution = solve_turn(utilities, dice)
    laws = score_distributions(policy_tables(solution))
    return solution.cont[solution.model.start], laws


def value_iteration(players: int, target: int, dice: int) -> dict[State, FloatArray]:
    """Plain value iteration over every state: each mover plays its turn optimally for its
    own values, the others' values follow that policy; until nothing moves by 1e-14."""
    max_score = turn_model(dice).max_score
    states = all_states(players, target, max_score)
    values = {state: np.full(players, 1.0 / players) for state in states}
    for _ in range(2000):
        matrices = [outcome_matrix(state, values, target, max_score) for state in states]
        mover = np.stack([m[:, state[1]] for m, state in zip(matrices, states, strict=True)], 1)
        _, laws = play_turns(mover, dice)
        change = 0.0
        fresh = {}
        for state, law, matrix in zip(states, laws, matrices, strict=True):
            fresh[state] = law @ matrix
            change = max(change, float(np.abs(fresh[state] - values[state]).max()))
        values = fresh
        if change < 1e-14:
            return values
    raise AssertionError("value iteration did not converge")


def table_value(table: NPlayerTable, state: State) -> FloatArray:
    scores, seat, triggered = state
    return table.win_probabilities(scores, seat, triggered=triggered)


# --- tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["repeat", "single"])
@pytest.mark.parametrize("rolloff_dice", [1, 3, 6])
@pytest.mark.parametrize("tied", [2, 3, 4])
def test_rolloff_is_fair_in_both_modes(tied: int, rolloff_dice: int, mode: str) -> None:
    shares = rolloff_shares(tied, rolloff_dice, mode)
    assert shares == pytest.approx([1.0 / tied] * tied, abs=1e-12)


def test_win_probabilities_sum_to_one(small: NPlayerTable) -> None:
    assert np.abs(small.values.sum(axis=-1) - 1.0).max() < 1e-12
    for table in small.last:
        assert np.abs(table.sum(axis=-1) - 1.0).max() < 1e-12
    assert (small.values >= -1e-15).all()
    states = all_states(3, small.target, small.max_score)
    for state in states:
        assert table_value(small, state).sum() == pytest.approx(1.0, abs=1e-12)
        outcomes = small.turn_outcomes(state[0], state[1], triggered=state[2])
        assert np.abs(outcomes.sum(axis=1) - 1.0).max() < 1e-12


def test_bellman_equations_hold_for_every_player(small: NPlayerTable) -> None:
    """Each position's values equal one optimal turn of the mover (its own value: the best
    over all policies; everyone's: the law of the optimal policy times the values after it)
    followed by the table's values."""
    target, dice = small.target, small.dice
    states = all_states(3, target, small.max_score)
    values = {state: table_value(small, state) for state in states}
    matrices = [outcome_matrix(state, values, target, small.max_score) for state in states]
    mover = np.stack([m[:, state[1]] for m, state in zip(matrices, states, strict=True)], 1)
    best, laws = play_turns(mover, dice)
    worst = 0.0
    for i, state in enumerate(states):
        assert best[i] == pytest.approx(values[state][state[1]], abs=1e-9)
        worst = max(worst, float(np.abs(laws[i] @ matrices[i] - values[state]).max()))
    assert worst < 1e-9


@pytest.fixture(params=["numba", "numpy"])
def sweep(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both turn sweeps: the compiled kernel and the numpy reference (``MARSDICE_SOLVE_KERNEL``)."""
    monkeypatch.setenv("MARSDICE_SOLVE_KERNEL", request.param)
    return str(request.param)


def test_agrees_with_plain_value_iteration(sweep: str) -> None:
    table = solve_nplayer(3, target=5, dice=3, use_cache=False)
    reference = value_iteration(3, 5, 3)
    worst = max(
        float(np.abs(table_value(table, state) - value).max()) for state, value in reference.items()
    )
    assert worst < 1e-9


@pytest.mark.parametrize(("target", "dice"), [(3, 1), (4, 2)])
def test_the_fewest_dice_agree_with_plain_value_iteration(
    target: int, dice: int, sweep: str
) -> None:
    """One die scores at most one point a turn: the smallest turn the solver must handle."""
    table = solve_nplayer(3, target=target, dice=dice, use_cache=False)
    reference = value_iteration(3, target, dice)
    worst = max(
        float(np.abs(table_value(table, state) - value).max()) for state, value in reference.items()
    )
    assert worst < 1e-9


def test_four_players_agree_with_plain_value_iteration(sweep: str) -> None:
    table = solve_nplayer(4, target=3, dice=2, use_cache=False)
    reference = value_iteration(4, 3, 2)
    worst = max(
        float(np.abs(table_value(table, state) - value).max()) for state, value in reference.items()
    )
    assert worst < 1e-9


def test_two_players_reproduce_the_two_player_tables() -> None:
    pair = solve_winprob(target=10, dice=6, use_cache=False)
    table = solve_nplayer(2, target=10, dice=6, use_cache=False)
    assert np.abs(table.values[:, :, 0, 0] - pair.first).max() < 1e-12
    assert np.abs(table.values[:, :, 1, 1].T - pair.second).max() < 1e-12


def test_last_seat_in_the_last_round_faces_a_one_turn_problem(small: NPlayerTable) -> None:
    """Seat 2 after a trigger: win by beating the best total, share a tie with the tied
    leaders (each 1/k after the roll-off), lose otherwise."""
    target, top = small.target, small.max_score
    checked = 0
    for first, second in itertools.product(range(target + top), repeat=2):
        if max(first, second) < target:
            continue
        for mine in range(target):
            best = max(first, second)
            leaders = (first == best) + (second == best)
            step = [
                1.0 if mine + x > best else 1.0 / (leaders + 1) if mine + x == best else 0.0
                for x in range(top + 1)
            ]
            expected = solve_turn(step, small.dice).turn_value()
            got = small.win_probabilities((first, second, mine), 2, triggered=True)
            assert got[2] == pytest.approx(expected, abs=1e-12)
            share = (1.0 - expected) / leaders
            assert got[0] == pytest.approx(share if first == best else 0.0, abs=1e-12)
            checked += 1
    assert checked > 100


def test_turn_utility_and_score_laws(small: NPlayerTable) -> None:
    utility = small.turn_utility((3, 5, 1), 1)
    assert utility.shape == (small.max_score + 1,)
    assert utility[0] == pytest.approx(small.win_probabilities((3, 5, 1), 2)[1])
    assert np.all(np.diff(utility) >= -1e-12)  # more points never hurt the mover
    laws = score_laws(small, [((3, 5, 1), 1, False), ((9, 5, 1), 1, True)])
    assert np.abs(laws.sum(axis=1) - 1.0).max() < 1e-12
    # the mover's value is the law times its utility
    assert laws[0] @ utility == pytest.approx(small.win_probabilities((3, 5, 1), 1)[1])


def test_positions_are_checked(small: NPlayerTable) -> None:
    with pytest.raises(ValueError, match="last round"):
        small.win_probabilities((8, 0, 0), 1)
    with pytest.raises(ValueError, match="reached the target"):
        small.win_probabilities((1, 0, 0), 1, triggered=True)
    with pytest.raises(ValueError, match="3 scores"):
        small.win_probabilities((1, 0), 0)


def test_cache_and_progress(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        calls.append((done, total))

    assert not nplayer_cached(3, 4, 3, cache_dir=tmp_path)
    first = solve_nplayer(3, target=4, dice=3, cache_dir=tmp_path, progress=progress)
    assert nplayer_cached(3, 4, 3, cache_dir=tmp_path)
    assert calls
    assert calls[-1][0] == calls[-1][1]
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    calls.clear()
    again = solve_nplayer(3, target=4, dice=3, cache_dir=tmp_path, progress=progress)
    assert not calls  # read from the cache
    assert np.array_equal(first.values, again.values)
    for path in tmp_path.iterdir():
        path.write_bytes(b"not a table")
    healed = solve_nplayer(3, target=4, dice=3, cache_dir=tmp_path)
    assert np.array_equal(first.values, healed.values)


def test_exact_play_beats_the_approximation() -> None:
    """Exact evaluation: the exact strategy in one seat against two approximating players
    wins more than the approximation does in that seat, averaged over the seats."""
    target, dice = 10, 6
    table = solve_nplayer(3, target=target, dice=dice, use_cache=False)
    approx = evaluate_lineup(["approx"] * 3, target, dice)
    exact_seat = []
    for seat in range(3):
        lineup: list[Strategy] = ["approx"] * 3
        lineup[seat] = "exact"
        exact_seat.append(evaluate_lineup(lineup, target, dice, exact=table)[seat])
    assert approx.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.array(exact_seat) > approx)  # in every seat
    assert np.mean(exact_seat) > np.mean(approx) + 5e-4
    # the exact tables are what all-exact play is worth
    everyone = evaluate_lineup(["exact"] * 3, target, dice, exact=table)
    assert everyone == pytest.approx(table.win_probabilities((0, 0, 0), 0), abs=1e-12)


@pytest.mark.slow
def test_seeded_simulation_agrees_with_exact_evaluation() -> None:
    target, dice, games = 10, 6, 6000
    table = solve_nplayer(3, target=target, dice=dice, use_cache=False)
    lineup: list[Strategy] = ["exact", "approx", "expected"]
    exact = evaluate_lineup(lineup, target, dice, exact=table)
    wins = simulate_lineup(
        lineup, games, np.random.default_rng(7), target=target, dice=dice, exact=table
    )
    assert wins.sum() == pytest.approx(games)
    error = np.sqrt(exact * (1 - exact) / games)
    assert np.all(np.abs(wins / games - exact) < 4 * error)
