"""Exact win probabilities for two players under optimal play by both.

Rules solved (the engine's): the end is triggered when a total reaches the target; the round is
completed, so if the first seat triggers it the second seat has one last turn; if the second
seat reaches the target the game ends at once. A tie at the end goes to the Death Ray roll-off,
which is symmetric, so it is worth exactly 1/2 to each.

Tables, for the player to move with own total ``me`` and opponent total ``opp`` (both below the
target):

- ``first[me, opp]``: the first seat to move (the second seat plays after it this round),
- ``second[me, opp]``: the second seat to move, the opponent not having triggered the end,
- ``last[k]``: the second seat's last turn, needing ``k`` more points than it has to tie
  (the first seat triggered the end): win with ``> k``, half with ``== k``.

A turn's utility of its final score ``s`` is the win probability after it, read from the
tables (``1 - second[opp, me + s]`` for the first seat, say). A turn scoring 0 leads back to
the same pair of totals with the other seat to move, so each pair ``first[a, b]``,
``second[b, a]`` is a fixed point of two turn solves. Pairs are solved by decreasing total
``a + b`` (every scoring turn moves to a larger total), all pairs of one total at once as the
columns of one batched turn solve, by Newton's method (policy iteration) on the two unknowns
with slopes from a perturbed column; a pair is done when both values reproduce themselves to
1e-13.

>>> table = solve_winprob(target=8, use_cache=False)
>>> round(table.win_probability(0, 0, seat=0), 4)  # the second seat's last turn is an edge
0.4714
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from typing import Final

import numpy as np

from marsdice.solve.cache import cached_arrays
from marsdice.solve.model import FloatArray, IntArray, turn_model
from marsdice.solve.turn import solve_turn

TOLERANCE: Final = 1e-13
STEP: Final = 1e-6  # perturbation of u(0) that measures the slope P(score 0)
MAX_PASSES: Final = 60


@dataclass(frozen=True, slots=True)
class WinTable:
    """Solved two-player win probabilities (see the module docstring for the meaning)."""

    target: int
    dice: int
    first: FloatArray  # (target, target)
    second: FloatArray  # (target, target)
    last: FloatArray  # (max_score + 2,): last[k] for k = 0..max_score + 1

    def last_turn(self, need: int) -> float:
        """Win chance of a last turn that ties by scoring ``need`` (and wins by more)."""
        if need < 0:
            return 1.0
        return float(self.last[min(need, len(self.last) - 1)])

    def win_probability(self, me: int, opp: int, seat: int, *, triggered: bool = False) -> float:
        """Chance that the player about to start a turn wins, with optimal play by both.

        ``seat`` is 0 for the first seat, 1 for the second; ``triggered`` means the opponent
        (the first seat) reached the target and this is the second seat's last turn.
        """
        if triggered:
            return self.last_turn(opp - me)
        if max(me, opp) >= self.target:
            raise ValueError("a total at the target means the game is over or in its last turn")
        return float((self.first if seat == 0 else self.second)[me, opp])

    def after_turn(self, me: int, opp: int, seat: int, triggered: bool = False) -> FloatArray:
        """The utility of the mover's turn: win chance after it, for each final turn score."""
        column: FloatArray = turn_utilities(self, np.array([me]), np.array([opp]), seat, triggered)
        return column[:, 0]

    def arrays(self) -> dict[str, FloatArray]:
        return {"first": self.first, "second": self.second, "last": self.last}


def turn_utilities(
    table: WinTable, me: IntArray, opp: IntArray, seat: int, triggered: bool = False
) -> FloatArray:
    """Utility columns (one per pair) of the mover's turn: the win probability after scoring
    each ``s``. For ``s = 0`` this reads the (possibly still unknown) table entry of the other
    seat at the same totals."""
    max_score = len(table.last) - 2
    target = table.target
    scores = np.arange(max_score + 1)[:, None]
    mine = me[None, :] + scores  # (scores, pairs)
    result: FloatArray
    if triggered:  # second seat, last turn: beat opp
        result = np.where(mine > opp, 1.0, np.where(mine == opp, 0.5, 0.0))
        return result
    capped = np.minimum(mine, target - 1)
    if seat == 0:
        need = np.clip(mine - opp[None, :], 0, max_score + 1)
        over = 1.0 - table.last[need]
        going = 1.0 - table.second[opp[None, :], capped]
    else:
        over = np.ones_like(mine, dtype=np.float64)
        going = 1.0 - table.first[opp[None, :], capped]
    result = np.where(mine >= target, over, going)
    return result


def position_columns(
    table: WinTable, seat: int, me: IntArray, opp: IntArray, triggered: IntArray
) -> IntArray:
    """Column of :func:`all_position_utilities` for the mover's position: the first seat
    ``[0, T*T)`` (index ``me * T + opp``), the second seat ``[T*T, 2*T*T)``, the second seat's
    last turn ``2*T*T + need``."""
    target = table.target
    need = np.clip(opp - me, 0, len(table.last) - 1)
    capped_me = np.minimum(me, target - 1)
    normal = seat * target * target + capped_me * target + np.minimum(opp, target - 1)
    result: IntArray = np.where(triggered, 2 * target * target + need, normal)
    return result


def all_position_utilities(table: WinTable) -> FloatArray:
    """The turn utility of every two-player position, as columns (see
    :func:`position_columns`), the 0-score entry read from the solved table."""
    target = table.target
    me, opp = (grid.ravel() for grid in np.indices((target, target)))
    parts = []
    for seat, other in ((0, table.second), (1, table.first)):
        utility = turn_utilities(table, me, opp, seat)
        utility[0] = 1.0 - other[opp, me]
        parts.append(utility)
    need = np.arange(len(table.last))
    parts.append(turn_utilities(table, np.zeros_like(need), need, 1, triggered=True))
    return np.hstack(parts)


def solve_winprob(
    target: int = 25,
    dice: int = 13,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
) -> WinTable:
    """The two-player tables: from the disk cache when present, else solved (and stored)."""
    key = {"target": target, "dice": dice, "players": 2}

    def compute() -> dict[str, FloatArray]:
        return _solve(target, dice).arrays()

    arrays = cached_arrays("winprob", key, compute, cache_dir, use_cache=use_cache)
    return WinTable(target, dice, arrays["first"], arrays["second"], arrays["last"])


@cache
def winprob_table(target: int = 25, dice: int = 13) -> WinTable:
    """:func:`solve_winprob` once per process (disk cache in the default place)."""
    return solve_winprob(target, dice)


def _solve(target: int, dice: int) -> WinTable:
    if target < 1:
        raise ValueError(f"target must be at least 1, got {target}")
    model = turn_model(dice)
    max_score = model.max_score
    need = np.arange(max_score + 2)
    last_utility = np.where(
        np.arange(max_score + 1)[:, None] > need[None, :],
        1.0,
        np.where(np.arange(max_score + 1)[:, None] == need[None, :], 0.5, 0.0),
    )
    solved = solve_turn(last_utility, dice)
    last = solved.cont[model.start].copy()
    first = np.zeros((target, target))
    second = np.zeros((target, target))
    table = WinTable(target, dice, first, second, last)
    for total in range(2 * target - 2, -1, -1):
        low = max(0, total - target + 1)
        a = np.arange(low, min(target - 1, total) + 1)
        _solve_diagonal(table, a, total - a)
    return table


def _solve_diagonal(table: WinTable, a: IntArray, b: IntArray) -> None:
    """Fill ``first[a, b]`` and ``second[b, a]`` for pairs of one total by Newton's method."""
    first, second, dice = table.first, table.second, table.dice
    x = _guess(first, a, b)  # first[a, b]
    y = _guess(second, b, a)  # second[b, a]
    base0 = turn_utilities(table, a, b, seat=0)
    base1 = turn_utilities(table, b, a, seat=1)
    slope0 = np.zeros(len(a))
    slope1 = np.zeros(len(a))
    todo = np.arange(len(a))
    for _ in range(MAX_PASSES):
        measure = todo  # slopes are refreshed on every pass of an unfinished pair
        u0 = base0[:, todo].copy()
        u1 = base1[:, todo].copy()
        u0[0] = 1.0 - y[todo]
        u1[0] = 1.0 - x[todo]
        bumped0, bumped1 = u0.copy(), u1.copy()
        bumped0[0] += STEP
        bumped1[0] += STEP
        solution = solve_turn(np.hstack([u0, u1, bumped0, bumped1]), dice)
        values = solution.cont[solution.model.start]
        k = len(todo)
        f0, f1 = values[:k], values[k : 2 * k]
        slope0[measure] = (values[2 * k : 3 * k] - f0) / STEP
        slope1[measure] = (values[3 * k :] - f1) / STEP
        residual = np.maximum(np.abs(f0 - x[todo]), np.abs(f1 - y[todo]))
        done = residual <= TOLERANCE
        p0, p1 = slope0[todo], slope1[todo]
        # Newton step: with both turn policies fixed, values are affine in (x, y)
        x_new = (f0 - p0 * f1 + p0 * y[todo] - p0 * p1 * x[todo]) / (1.0 - p0 * p1)
        y_new = f1 - p1 * (x_new - x[todo])
        x[todo] = np.where(done, f0, x_new)
        y[todo] = np.where(done, f1, y_new)
        todo = todo[~done]
        if not len(todo):
            break
    else:
        raise RuntimeError("win-probability iteration did not converge")
    first[a, b] = x
    second[b, a] = y


def _guess(grid: FloatArray, me: IntArray, opp: IntArray) -> FloatArray:
    """Start from the neighbours one point up (already solved), averaged."""
    top = grid.shape[0] - 1
    up_me = np.where(me < top, grid[np.minimum(me + 1, top), opp], 1.0)
    up_opp = np.where(opp < top, grid[me, np.minimum(opp + 1, top)], 0.0)
    guess: FloatArray = 0.5 * (up_me + up_opp)
    return guess


def bellman_residual(table: WinTable) -> float:
    """Largest change when every table entry is recomputed from the others by one optimal
    turn: zero for an exact solution."""
    target = table.target
    model = turn_model(table.dice)
    me, opp = (grid.ravel() for grid in np.indices((target, target)))
    worst = 0.0
    for seat, grid in ((0, table.first), (1, table.second)):
        utility = turn_utilities(table, me, opp, seat)
        other = table.second if seat == 0 else table.first
        utility[0] = 1.0 - other[opp, me]
        values = solve_turn(utility, table.dice).cont[model.start]
        worst = max(worst, float(np.abs(values - grid[me, opp]).max()))
    need = np.arange(len(table.last))
    utility = turn_utilities(table, np.zeros_like(need), need, seat=1, triggered=True)
    values = solve_turn(utility, table.dice).cont[model.start]
    return max(worst, float(np.abs(values - table.last).max()))
