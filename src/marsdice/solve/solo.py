"""The solo challenge: reach the target in as few turns as possible, on average.

``turns[a]`` is the least expected number of turns still needed from a total ``a`` below the
target. A turn's utility of its score ``s`` is ``-turns[a + s]`` (zero at the target), and a
turn scoring 0 comes back to ``a`` itself, so each ``turns[a]`` is the fixed point
``x = 1 + min over policies of E[turns after]``; it is found by Newton's method (slopes from a
perturbed column), from the top total down.

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
from marsdice.solve.model import FloatArray, turn_model
from marsdice.solve.turn import solve_turn

TOLERANCE: Final = 1e-12
STEP: Final = 1e-6
MAX_PASSES: Final = 60


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
    key = {"target": target, "dice": dice, "players": 1}
    arrays = cached_arrays(
        "solo", key, lambda: {"turns": _solve(target, dice)}, cache_dir, use_cache=use_cache
    )
    return SoloTable(target, dice, arrays["turns"])


@cache
def solo_table(target: int = 25, dice: int = 13) -> SoloTable:
    return solve_solo(target, dice)


def _solve(target: int, dice: int) -> FloatArray:
    if target < 1:
        raise ValueError(f"target must be at least 1, got {target}")
    max_score = turn_model(dice).max_score
    padded = np.zeros(target + max_score + 1)
    start = turn_model(dice).start
    for total in range(target - 1, -1, -1):
        utility = -padded[total + np.arange(max_score + 1)]
        x = padded[total + 1] + 1.0  # a guess a little above the next total's
        for _ in range(MAX_PASSES):
            utility[0] = -x
            bumped = utility.copy()
            bumped[0] += STEP
            values = solve_turn(np.stack([utility, bumped], axis=1), dice).cont[start]
            new = 1.0 - values[0]
            if abs(new - x) <= TOLERANCE:
                x = new
                break
            slope = (values[1] - values[0]) / STEP  # P(turn scores 0) under the policy
            x = x + (new - x) / (1.0 - slope)
        else:
            raise RuntimeError("solo iteration did not converge")
        padded[total] = x
    result: FloatArray = padded[:target].copy()
    return result
