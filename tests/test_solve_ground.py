"""The ground-truth value API (:mod:`marsdice.solve.ground`) against the other solvers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from marsdice.martian import Phase, Roll, Variant, new_game, position
from marsdice.solve import analyze, game_value, position_value, winprob_table
from marsdice.solve.ground import LIMIT, _Walk

TINY = [
    Variant(players=1, target=4, dice=5),
    Variant(players=2, target=4, dice=5),
    Variant(players=3, target=3, dice=4),
]


@pytest.mark.parametrize("variant", TINY, ids=lambda v: f"p{v.players}")
def test_walking_the_first_roll_gives_the_tables_value_of_the_opening(variant: Variant) -> None:
    """Two ways to the same number: the tables' value at the start of the turn, and the
    turn walked through the engine roll by roll, each end read from the tables."""
    start = new_game(variant)
    walk = _Walk(variant)
    total = [0.0] * variant.players
    for roll, p in start.chance_outcomes():
        for seat, v in enumerate(walk.value(start.apply(roll))):
            total[seat] += float(p) * v
    assert total == pytest.approx(list(game_value(variant).values), abs=1e-12)


@pytest.mark.parametrize(("target", "dice"), [(4, 5), (6, 6), (8, 13)])
def test_two_player_values_match_the_two_player_solver(target: int, dice: int) -> None:
    value = game_value(Variant(players=2, target=target, dice=dice))
    table = winprob_table(target, dice)
    assert value.values[0] == pytest.approx(table.win_probability(0, 0, 0), abs=1e-10)
    assert sum(value.values) == pytest.approx(1.0, abs=1e-12)
    assert value.method == "exact 2-player tables"


def test_a_choice_is_worth_the_analysis_best_win_probability() -> None:
    variant = Variant(players=2, target=6, dice=6)
    state = position(variant, (2, 3), seat=1, set_aside=(0, 0, 0, 0, 0), rolled=(1, 2, 1, 1, 1))
    best = max(row.win_probability or 0.0 for row in analyze(state))
    value = position_value(state)
    assert value.values[1] == pytest.approx(best, abs=1e-10)
    assert sum(value.values) == pytest.approx(1.0, abs=1e-12)
    assert "walked" in value.method


def test_three_players_values_sum_to_one_mid_turn() -> None:
    variant = Variant(players=3, target=3, dice=4)
    state = new_game(variant).apply(Roll.parse("RHCK"))
    assert sum(position_value(state).values) == pytest.approx(1.0, abs=1e-12)


def test_solo_values_are_minus_the_turns() -> None:
    variant = Variant(players=1, target=4, dice=5)
    opening = game_value(variant).values[0]
    assert opening < -1
    later = replace(new_game(variant), turns=(3,))
    assert position_value(later).values[0] == pytest.approx(opening - 3, abs=1e-12)


def test_the_end_and_roll_offs() -> None:
    variant = Variant(players=3, target=3, dice=4)
    state = replace(
        new_game(variant),
        scores=(3, 3, 1),
        phase=Phase.ROLLOFF,
        rolloff_seats=(0, 1),
        end_triggered=True,
    )
    assert position_value(state).values == pytest.approx((0.5, 0.5, 0.0))
    # seat 0 rolled no ray: seat 1 wins unless it rolls none too (then 1/2 each)
    under_way = replace(state, rolloff_rays=(0,))
    p_none = (2 / 3) ** 6
    assert position_value(under_way).values == pytest.approx(
        (p_none / 2, 1 - p_none / 2, 0.0), abs=1e-12
    )
    over = replace(state, phase=Phase.OVER, winners=(1,), rolloff_seats=())
    assert position_value(over).values == (0.0, 1.0, 0.0)


def test_big_or_unmodelled_variants_are_refused() -> None:
    with pytest.raises(ValueError, match="too big"):
        game_value(Variant(players=3, target=25))
    assert LIMIT < 3 * 25**3
    with pytest.raises(ValueError, match="roll-off of 6 dice"):
        game_value(Variant(players=2, target=4, dice=5, rolloff_dice=3))


def test_anything_but_a_martian_dice_state_or_variant_is_refused_by_name() -> None:
    import random

    from marsdice.attacks.game import GAME as ATTACKS

    attacks = ATTACKS.start(ATTACKS.variant_from_params({"players": 2}), random.Random(0))
    for wrong in ("P1 0, P2 0", attacks, None):
        with pytest.raises(TypeError, match="position_value takes a Martian Dice state"):
            position_value(wrong)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="game_value takes a Martian Dice Variant, got dict"):
        game_value({"players": 2})  # type: ignore[arg-type]
    from marsdice.solve import best_action, turn_utility

    for function in (analyze, best_action, turn_utility):
        with pytest.raises(TypeError, match=f"{function.__name__} takes a Martian Dice state"):
            function(attacks)  # type: ignore[operator]
