"""Turn utilities for any number of players from the two-player tables.

With two players this is exact: the utility of the mover's final turn score is the solved win
probability after it. With three or more the game's state space is too large to solve, so the
utility is an approximation built from the same tables (``combine``):

- the end not yet triggered, staying below the target: the win chance against each opponent
  alone, from the two-player table with the seat order they have relative to the mover
  (an opponent later in the round plays next, as the second seat; an earlier one starts the
  next round, as the first seat), combined as the minimum -- the most dangerous opponent --
  (``"min"``, the default) or the product (``"product"``, opponents treated as independent);
- reaching the target: every player later in the round gets a last turn to beat the new
  total; the chance that each fails is ``1 - last[...]`` of the two-player table, multiplied
  over them (exact when the mover is the last seat: then it is a win);
- in the final round (the end was triggered earlier in the round): the mover must beat the
  best final total of the earlier players, ties shared, and survive the last turns of the
  later players as above. For the last seat this is exact.

>>> from marsdice.solve.winprob import solve_winprob
>>> table = solve_winprob(target=6, use_cache=False)
>>> u = turn_utility_multi(table, scores=(0, 3, 5), seat=0, triggered=False)
>>> bool(u[0] < u[6]), float(u[6]) < 1.0
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from marsdice.solve.model import FloatArray, IntArray
from marsdice.solve.winprob import WinTable

Combine = Literal["min", "product"]


def turn_utility_multi(
    table: WinTable,
    scores: Sequence[int],
    seat: int,
    triggered: bool,
    combine: Combine = "min",
) -> FloatArray:
    """The mover's utility of each final turn score ``0..max_score`` (see module docstring)."""
    target = table.target
    max_score = len(table.last) - 2
    mine = scores[seat] + np.arange(max_score + 1)
    later = [scores[j] for j in range(seat + 1, len(scores))]
    earlier = [scores[j] for j in range(seat)]
    survive = np.ones(max_score + 1)
    for opp in later:  # each later player's last turn must fall short of ours
        survive = survive * (1.0 - _last(table, mine - opp))
    if triggered:
        best = max(earlier) if earlier else -1
        ties = sum(1 for s in earlier if s == best)
        share = np.where(mine > best, 1.0, np.where(mine == best, 1.0 / (1 + ties), 0.0))
        result: FloatArray = share * survive
        return result
    capped = np.minimum(mine, target - 1)
    pairwise = [1.0 - table.second[opp, capped] for opp in later]
    pairwise += [1.0 - table.first[opp, capped] for opp in earlier]
    if not pairwise:  # solo: not a game this function plays
        raise ValueError("a multiplayer utility needs at least one opponent")
    going = np.min(pairwise, axis=0) if combine == "min" else np.prod(pairwise, axis=0)
    result = np.where(mine >= target, survive, going)
    return result


def _last(table: WinTable, need: IntArray) -> FloatArray:
    """Vectorised :meth:`WinTable.last_turn`: 1 when the later player is already ahead."""
    clipped = np.clip(need, 0, len(table.last) - 1)
    values: FloatArray = np.where(need < 0, 1.0, table.last[clipped])
    return values
