"""The solo challenge: reach the target in as few turns as possible, on average.

``turns[a]`` is the least expected number of turns still needed from a total ``a`` below the
target. A turn's utility of its score ``s`` is ``-turns[a + s]`` (zero at the target), and a
turn scoring 0 comes back to ``a`` itself, so each ``turns[a]`` is the fixed point
``x = G(x) = 1 + min over policies of E[turns after]``, found from the top total down by
safeguarded Newton steps (:mod:`marsdice.solve.fixed`; ``G`` is increasing with slope
``P(score 0) < 1``, and ``x >= 1``).

>>> table = solve_solo(target=6, use_cache=False)
>>> round(table.expected_turns(0), 3), round(table.expected_turns(5), 3)
(2.496, 1.163)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from typing import Final

import numpy as np

from marsdice.solve.cache import cached_arrays
from marsdice.solve.fixed import solve_fixed_points
from marsdice.solve.model import FloatArray, IntArray, check_range, turn_model
from marsdice.solve.progress import report
from marsdice.solve.turn import start_values

TOLERANCE: Final = 1e-12


@dataclass(frozen=True, slots=True)
class SoloTable:
    target: int
    dice: int
    turns: FloatArray  # (target,) least expected turns to reach the target from each total

    def expected_turns(self, total: int = 0) -> float:
        return 0.0 if total >= self.target else float(self.turns[total])

    def after_turn(self, total: int) -> FloatArray:
        """Utility of a turn from ``total``: minus the expected turns left after it."""
        max_score = turn_model(self.dice).max_score
        after = total + np.arange(max_score + 1)
        padded = np.concatenate([self.turns, np.zeros(max_score + 1)])
        utility: FloatArray = -padded[after]
        return utility


def solve_solo(
    target: int = 25,
    dice: int = 13,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
) -> SoloTable:
    """The solo table, from the disk cache when present."""
    check_range(target, dice)
    key = {"target": target, "dice": dice, "players": 1}
    arrays = cached_arrays(
        "solo",
        key,
        lambda: {"turns": _solve(target, dice)},
        cache_dir,
        use_cache=use_cache,
        shapes={"turns": (target,)},
    )
    return SoloTable(target, dice, arrays["turns"])


@cache
def solo_table(target: int = 25, dice: int = 13) -> SoloTable:
    return solve_solo(target, dice)


def _solve(target: int, dice: int) -> FloatArray:
    check_range(target, dice)
    model = turn_model(dice)
    max_score = model.max_score
    padded = np.zeros(target + max_score + 1)
    what = f"solo table, target {target}, {dice} dice"
    report(what, 0, target)
    for total in range(target - 1, -1, -1):
        utility = -padded[total + np.arange(max_score + 1)]

        def evaluate(
            x: FloatArray, todo: IntArray, slope: bool, utility: FloatArray = utility
        ) -> tuple[FloatArray, FloatArray | None]:
            column = utility[:, None].copy()
            column[0] = -x
            values, zero = start_values(column, dice, zero_slope=slope)
            return 1.0 - values, zero  # dG/dx = P(score 0)

        guess = np.array([padded[total + 1] + 1.0])  # a little above the next total's
        found = solve_fixed_points(
            evaluate,
            guess,
            1.0,
            np.inf,
            tolerance=TOLERANCE,
            what=f"solo turns from {total} (target {target}, {dice} dice)",
        )
        padded[total] = found[0]
        report(what, target - total, target)
    result: FloatArray = padded[:target].copy()
    return result


def bellman_residual(table: SoloTable) -> float:
    """Largest change when every entry is recomputed from the others by one optimal turn
    (zero for an exact solution)."""
    utility = np.stack([table.after_turn(total) for total in range(table.target)], axis=1)
    utility[0] = -table.turns  # a turn scoring 0 stays put
    values, _ = start_values(utility, table.dice)
    return float(np.abs(1.0 - values - table.turns).max())
