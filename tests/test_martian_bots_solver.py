"""The solver bots and the analysis API on engine states: legal, consistent, and (3 players:
the exact tables; 4+: the approximation; solo: the fewest-turns policy) doing what they claim."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from marsdice.bots import make_bot
from marsdice.bots.martian_solver import ExpectedScoreBot, WinProbabilityBot
from marsdice.martian import (
    CONTINUE,
    GAME,
    STOP,
    Phase,
    Roll,
    State,
    Take,
    Variant,
    new_game,
    position,
)
from marsdice.solve.batch import simulate_games
from marsdice.solve.multi import turn_utility_multi
from marsdice.solve.policy import analyze, best_action, turn_utility
from marsdice.solve.solo import solve_solo
from marsdice.solve.turn import solve_turn
from marsdice.solve.winprob import turn_utilities, winprob_table


def play(variant: Variant, names: list[str], seed: int) -> State:
    rng = random.Random(seed)
    bots = [make_bot(GAME, name, seed=seed) for name in names]
    state = new_game(variant)
    while not state.is_terminal:
        if state.is_chance_node:
            state = state.apply(state.sample_chance(rng))
        else:
            action = bots[state.current_player].choose(state)
            assert action in state.legal_actions()
            state = state.apply(action)
    return state


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_bots_play_legal_games(players: int) -> None:
    names = ["winprob", "expected", "cautious", "random"][:players]
    # three and four players: a small game keeps the exact tables' first solve short in CI
    small = {3: 10, 4: 8}
    variant = Variant(players=players, target=small.get(players, 25))
    for seed in range(3):
        final = play(variant, names, seed)
        assert final.is_terminal


def test_three_and_four_players_play_from_the_exact_tables_five_from_the_approximation() -> None:
    from marsdice.solve import nplayer, policy
    from marsdice.solve.multi import turn_utility_multi

    three = position(
        Variant(players=3, target=8, dice=5), (3, 6, 1), seat=1, rolled=(1, 1, 1, 1, 1)
    )
    exact = nplayer.solve_nplayer(3, 8, 5, use_cache=False).turn_utility(
        (3, 6, 1), 1, triggered=False
    )
    np.testing.assert_array_equal(policy.turn_utility(three), exact)
    approx = turn_utility_multi(winprob_table(8, 5), (3, 6, 1), 1, False, "min")
    assert np.abs(exact - approx).max() > 1e-6, "the approximation is not the exact table"
    four = position(
        Variant(players=4, target=8, dice=5), (3, 6, 1, 0), seat=1, rolled=(1, 1, 1, 1, 1)
    )
    exact4 = nplayer.solve_nplayer(4, 8, 5, use_cache=False).turn_utility(
        (3, 6, 1, 0), 1, triggered=False
    )
    np.testing.assert_array_equal(policy.turn_utility(four), exact4)
    approx4 = turn_utility_multi(winprob_table(8, 5), (3, 6, 1, 0), 1, False, "min")
    assert np.abs(exact4 - approx4).max() > 1e-6, "the approximation is not the exact table"
    assert policy.method_of(four.variant) == "exact-4p"
    five = position(
        Variant(players=5, target=8, dice=5), (3, 6, 1, 0, 2), seat=1, rolled=(1, 1, 1, 1, 1)
    )
    np.testing.assert_array_equal(
        policy.turn_utility(five),
        turn_utility_multi(winprob_table(8, 5), (3, 6, 1, 0, 2), 1, False, "min"),
    )
    assert policy.method_of(five.variant) == "approximation"
    big = Variant(players=3, target=26)
    assert not policy.exact_three_players(big.target, big.dice)
    assert not policy.exact_players(4, 26, 13) and not policy.exact_players(4, 25, 14)
    assert policy.exact_players(4, 25, 13) and not policy.exact_players(5, 8, 5)


def test_registry_names() -> None:
    assert make_bot(GAME, "expected").name == "expected"
    assert make_bot(GAME, "winprob", seed=3).name == "winprob"


def test_expected_bot_stops_and_rolls_as_the_solver_says() -> None:
    bot = ExpectedScoreBot()
    start = new_game()
    # one die left, tanks level with rays, 6 points: a tank (1/6) would cost all 6, a chicken
    # (1/6) adds 4: rolling is worth 34/6 < 6
    safe = replace(start, set_aside=(3, 3, 4, 2, 0), phase=Phase.DECIDE)
    assert bot.choose(safe) is STOP
    # nothing to bank yet: keep rolling
    empty = replace(start, set_aside=(1, 2, 0, 0, 0), phase=Phase.DECIDE)
    assert bot.choose(empty) is CONTINUE


def test_winprob_bot_needs_points_on_the_last_turn() -> None:
    """Second seat, last turn, 10 behind: stopping on 6 points loses for sure, so it rolls."""
    bot = WinProbabilityBot()
    state = replace(
        new_game(),
        scores=(27, 17),
        turns=(8, 7),
        seat=1,
        end_triggered=True,
        set_aside=(3, 3, 4, 2, 0),
        phase=Phase.DECIDE,
    )
    assert ExpectedScoreBot().choose(state) is STOP
    assert bot.choose(state) is CONTINUE


def test_analysis_lists_every_legal_action() -> None:
    state = new_game().apply(Roll.parse("TTHHHHRRCCCKK"))
    choices = analyze(state)
    assert [c.action for c in choices] == list(state.legal_actions())
    assert all(0 < (c.win_probability or 0) < 1 for c in choices)
    best = max(choices, key=lambda c: c.win_probability or 0)
    assert best.action == best_action(state, "winprob")
    decide = state.apply(Take(best.action.face))  # type: ignore[union-attr]
    stop, go = analyze(decide)
    assert stop.action is STOP and go.action is CONTINUE
    assert stop.expected_score == decide.turn_score


def test_solo_analysis_counts_turns() -> None:
    state = new_game(Variant(players=1)).apply(Roll.parse("TTHHHHRRCCCKK"))
    choices = analyze(state)
    assert all(c.win_probability is None for c in choices)
    assert all(c.expected_turns is not None and c.expected_turns > 8 for c in choices)


def test_two_player_utility_is_the_exact_one() -> None:
    """The 3+ player approximation, given two players, is exactly the solved utility."""
    table = winprob_table()
    for a, b in [(0, 0), (10, 24), (24, 3), (17, 17)]:
        for seat in (0, 1):
            me, opp = (a, b) if seat == 0 else (b, a)
            scores = (a, b)
            multi = turn_utility_multi(table, scores, seat, triggered=False)
            exact = turn_utilities(table, np.array([me]), np.array([opp]), seat)[:, 0]
            exact[0] = 1 - (table.second if seat == 0 else table.first)[opp, me]
            np.testing.assert_allclose(multi, exact, atol=1e-15)
    state = replace(new_game(), scores=(26, 20), seat=1, end_triggered=True)
    last = turn_utility(state)
    assert last[6] == 0.5 and last[7] == 1.0 and last[5] == 0.0


def test_last_seat_final_round_is_exact() -> None:
    """Last seat of three, the end triggered: beat the best total, share a tie."""
    table = winprob_table()
    u = turn_utility_multi(table, (26, 26, 20), seat=2, triggered=True)
    assert u[5] == 0 and u[6] == pytest.approx(1 / 3) and u[7] == 1


def test_approximation_beats_expected_score_with_three_players() -> None:
    """Seat rotation, one win-probability player against two expected-score players (a small
    run for CI: the docs report 18,000 games, about 5 standard errors above 1/3)."""
    rng = np.random.default_rng(33)
    games = 2_000
    rate = 0.0
    for seat in range(3):
        lineup = ["expected"] * 3
        lineup[seat] = "winprob"
        rate += simulate_games(tuple(lineup), games, rng).win_rates[seat] / 3  # type: ignore[arg-type]
    assert rate > 1 / 3


def test_solo_table_satisfies_its_equation() -> None:
    table = solve_solo(target=25, use_cache=False)
    start = solve_turn(table.after_turn(0))
    # turns(0) = 1 + best E[turns after one turn], the 0-score turn looping back
    assert table.expected_turns(0) == pytest.approx(1 - start.turn_value(), abs=1e-9)
    assert 8 < table.expected_turns(0) < 9
    assert (np.diff(table.turns) < 0).all()


def test_the_solve_size_counts_the_exact_tables_for_three_and_four_players() -> None:
    from marsdice.bots.martian_solver import solve_size

    assert solve_size(Variant(players=3)) == 25**3 * 13
    assert solve_size(Variant(players=4)) == 25**4 * 13
    assert solve_size(Variant(players=4, target=30)) == 30**2 * 13, "the approximation's tables"
    assert solve_size(Variant(players=5)) == 25**2 * 13
