"""Exact head-to-head results of two fixed two-player strategies (no simulation noise).

Each strategy ("expected" or "winprob") gives, at every position, a law of the mover's turn
score (:func:`~marsdice.solve.batch.score_distributions`). The chance that the first seat wins
then follows by the same diagonal sweep as the solver, with the policies fixed: per pair of
totals a 2x2 linear system for the self-loop of turns scoring 0.

Two expected-score players come out at exactly 1/2 (they always play the same number of
turns), two optimal players at the solver's own value: both are checked in
``tests/test_solve_winprob.py`` (not here, as they need the solved tables).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from marsdice.solve.batch import Policy, score_distributions, two_player_policies
from marsdice.solve.model import FloatArray


@cache
def _laws(target: int, dice: int) -> FloatArray:
    return score_distributions(two_player_policies(target, dice).tables)


def match_win_probability(first: Policy, second: Policy, target: int = 25, dice: int = 13) -> float:
    """Chance that the first seat, playing ``first``, beats the second seat playing
    ``second`` (roll-off ties count 1/2)."""
    two = two_player_policies(target, dice)
    laws = _laws(target, dice)
    top = laws.shape[1] - 1
    x = np.zeros((target, target))  # first seat wins | first seat to move, totals (a, b)
    y = np.zeros((target, target))  # first seat wins | second seat to move

    def law(policy: Policy, seat: int, me: int, opp: int, triggered: bool = False) -> FloatArray:
        index = two.expected_column
        if policy == "winprob":
            index = int(two.column(seat, np.array(me), np.array(opp), np.array(triggered)))
        row: FloatArray = laws[index]
        return row

    def last_turn(a_total: int, b: int) -> float:
        """First seat wins | it reached ``a_total`` and the second seat has one last turn."""
        q = law(second, 1, b, a_total, triggered=True)
        final = b + np.arange(top + 1)
        return float(q @ np.where(final < a_total, 1.0, np.where(final == a_total, 0.5, 0.0)))

    for total in range(2 * target - 2, -1, -1):
        for a in range(max(0, total - target + 1), min(target - 1, total) + 1):
            b = total - a
            q0, q1 = law(first, 0, a, b), law(second, 1, b, a)
            c0 = sum(
                q0[s] * (last_turn(a + s, b) if a + s >= target else y[a + s, b])
                for s in range(1, top + 1)
            )
            c1 = sum(q1[s] * x[a, b + s] for s in range(1, top + 1) if b + s < target)
            p0, p1 = q0[0], q1[0]
            x[a, b] = (c0 + p0 * c1) / (1.0 - p0 * p1)
            y[a, b] = c1 + p1 * x[a, b]
    return float(x[0, 0])
