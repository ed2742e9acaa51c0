"""Exact play for four players everywhere the solver is used (issue 22), on small variants:
the hint line, the review's method and the winprob bot read the 4-player tables, and five
players keep the approximation, labelled as such."""

from __future__ import annotations

import numpy as np
import pytest

from marsdice.cli import martian_view as view
from marsdice.martian import Roll, State, Variant, new_game
from marsdice.review.martian import method_for
from marsdice.solve import policy
from marsdice.solve.nplayer import solve_nplayer


def rolled(variant: Variant, faces: str) -> State:
    return new_game(variant).apply(Roll.parse(faces))


def test_a_four_player_hint_shows_exact_win_probabilities() -> None:
    variant = Variant(players=4, target=6, dice=5)
    state = rolled(variant, "HHRRC")
    line = view.hint(state)
    assert line is not None and "chance to win" in line and "approximation" not in line
    best = max(policy.analyze(state), key=lambda row: row.win_probability or 0.0)
    assert line.startswith(f"best: {best.action.text()} ")
    assert f"chance to win {best.win_probability:.1%}" in line


def test_a_five_player_hint_is_called_a_rating() -> None:
    state = rolled(Variant(players=5, target=6, dice=5), "HHRRC")
    line = view.hint(state)
    assert line is not None and "chance to win" not in line
    assert "rating" in line and "(approximation)" in line


@pytest.mark.parametrize(
    ("players", "target", "dice", "method"),
    [
        (2, 25, 13, "exact-2p"),
        (3, 25, 13, "exact-3p"),
        (4, 25, 13, "exact-4p"),
        (4, 26, 13, "approximation"),
        (4, 25, 14, "approximation"),
        (5, 6, 5, "approximation"),
        (1, 25, 13, "solo-expected-turns"),
    ],
)
def test_every_number_says_its_method(players: int, target: int, dice: int, method: str) -> None:
    variant = Variant(players=players, target=target, dice=dice)
    assert policy.method_of(variant) == method
    assert method_for(variant) == method, "the review and the hints agree"


def test_the_winprob_bot_plays_the_four_player_table() -> None:
    """At every first choice of a 4-player game, the bot's utility is the exact table's."""
    variant = Variant(players=4, target=6, dice=5)
    table = solve_nplayer(4, 6, 5, use_cache=False)
    state = rolled(variant, "HHRRC")
    np.testing.assert_array_equal(
        policy.turn_utility(state),
        table.turn_utility((0, 0, 0, 0), 0),
    )
    assert policy.position_method(state) == "exact-4p"
