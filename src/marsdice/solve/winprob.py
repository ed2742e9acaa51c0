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
columns of batched turn solves. For a pair, ``x = first[a, b]`` is the one unknown: the
second seat's turn gives ``y = second[b, a]`` from ``x``, the first seat's turn gives back
``G(x)``; ``G`` is increasing with slope ``P(A scores 0) * P(B scores 0) < 1``, so ``x = G(x)``
has one root, found by safeguarded Newton steps (:mod:`marsdice.solve.fixed`: converges for
every variant, even with one or two dice where a turn scores nothing most of the time) until
``|G(x) - x| <= 1e-13``.

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
from marsdice.solve.fixed import solve_fixed_points
from marsdice.solve.model import FloatArray, IntArray, check_range, turn_model
from marsdice.solve.progress import report
from marsdice.solve.turn import solve_turn, start_values

TOLERANCE: Final = 1e-13


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
    # (np.minimum/np.maximum: np.clip costs tens of microseconds on one position's scalars)
    need = np.minimum(np.maximum(opp - me, 0), len(table.last) - 1)
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
    """The two-player tables: from the disk cache when present, else solved (and stored).
    Progress goes to the callback of :func:`marsdice.solve.progress.reporting`."""
    check_range(target, dice)
    key = {"target": target, "dice": dice, "players": 2}
    size = turn_model(dice).max_score + 2
    shapes = {"first": (target, target), "second": (target, target), "last": (size,)}

    def compute() -> dict[str, FloatArray]:
        return _solve(target, dice).arrays()

    arrays = cached_arrays("winprob", key, compute, cache_dir, use_cache=use_cache, shapes=shapes)
    return WinTable(target, dice, arrays["first"], arrays["second"], arrays["last"])


@cache
def winprob_table(target: int = 25, dice: int = 13) -> WinTable:
    """:func:`solve_winprob` once per process (disk cache in the default place)."""
    return solve_winprob(target, dice)


def _solve(target: int, dice: int) -> WinTable:
    check_range(target, dice)
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
    what = f"win-probability table, target {target}, {dice} dice"
    done, total = 0, target * target
    report(what, done, total)
    for diagonal in range(2 * target - 2, -1, -1):
        low = max(0, diagonal - target + 1)
        a = np.arange(low, min(target - 1, diagonal) + 1)
        _solve_diagonal(table, a, diagonal - a)
        done += len(a)
        report(what, done, total)
    return table


def _solve_diagonal(table: WinTable, a: IntArray, b: IntArray) -> None:
    """Fill ``first[a, b]`` and ``second[b, a]`` for the pairs of one total (see the module
    docstring): ``x = first[a, b]`` is the fixed point of the second seat's turn at
    ``(b, a)`` followed by the first seat's turn at ``(a, b)``."""
    first, second, dice = table.first, table.second, table.dice
    base0 = turn_utilities(table, a, b, seat=0)  # the first seat at (a, b)
    base1 = turn_utilities(table, b, a, seat=1)  # the second seat at (b, a)
    y = np.empty(len(a))

    def turns(
        base: FloatArray, zero: FloatArray, todo: IntArray, slope: bool
    ) -> tuple[FloatArray, FloatArray | None]:
        """The turn values with ``u(0) = zero`` (and, with ``slope``, P(score 0))."""
        utility = base[:, todo].copy()
        utility[0] = zero
        return start_values(utility, dice, zero_slope=slope)

    def evaluate(
        x: FloatArray, todo: IntArray, slope: bool
    ) -> tuple[FloatArray, FloatArray | None]:
        second_seat, zero1 = turns(base1, 1.0 - x, todo, slope)
        y[todo] = second_seat
        first_seat, zero0 = turns(base0, 1.0 - second_seat, todo, slope)
        if zero0 is None or zero1 is None:
            return first_seat, None
        return first_seat, zero0 * zero1  # dG/dx: both turns score 0

    x = solve_fixed_points(
        evaluate,
        _guess(first, a, b),
        0.0,
        1.0,
        tolerance=TOLERANCE,
        what=f"win probability at totals {int(a[0] + b[0])} (target {table.target}, {dice} dice)",
    )
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
    me, opp = (grid.ravel() for grid in np.indices((target, target)))
    worst = 0.0
    for seat, grid in ((0, table.first), (1, table.second)):
        utility = turn_utilities(table, me, opp, seat)
        other = table.second if seat == 0 else table.first
        utility[0] = 1.0 - other[opp, me]
        values, _ = start_values(utility, table.dice)
        worst = max(worst, float(np.abs(values - grid[me, opp]).max()))
    need = np.arange(len(table.last))
    utility = turn_utilities(table, np.zeros_like(need), need, seat=1, triggered=True)
    values, _ = start_values(utility, table.dice)
    return max(worst, float(np.abs(values - table.last).max()))
