"""The turn solver: the best way to play one turn for any utility of its final score.

A *utility* gives a value to each final turn score ``0..max_score`` (for the expected score it
is the score itself; for "score at least k" an indicator; the win-probability solver passes
the chance of winning after adding that score). :func:`solve_turn` returns, for every turn
position, the value of optimal play and the policy behind it, for one utility or a batch of
them at once (the columns of a 2-D array), in one backward sweep over the turn graph of
:mod:`marsdice.solve.model` by decreasing dice set aside. :func:`score_distribution` gives the
exact distribution of the final score under a solved policy.

>>> solution = expected_score_solution()
>>> round(solution.turn_value(), 10)
3.1103817468
>>> round(float(score_distribution(solution)[0]), 4)  # P(the turn scores 0)
0.2695
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from marsdice.solve.model import FloatArray, TurnModel, turn_model

#: Continuing must beat stopping by more than this, so that exact ties (a turn that can no
#: longer change its score) and rounding noise both stop.
TIE = 1e-12


@dataclass(frozen=True, slots=True)
class TurnSolution:
    """Optimal values of a turn for one or more utilities (columns).

    ``values[row]`` is the value of a row of the model (decide, choose or terminal row);
    ``cont[node]`` the value of rolling on from a decide node. ``choices[n][i]`` (when solved
    with ``policy=True``) is the best option per node and composition of choose group
    ``model.choose_groups[n][i]``, for column 0.
    """

    model: TurnModel
    utility: FloatArray  # (max_score + 1, columns)
    values: FloatArray  # (rows, columns)
    cont: FloatArray  # (nodes, columns)
    choices: tuple[tuple[npt.NDArray[np.int8], ...], ...] | None = None

    @property
    def columns(self) -> int:
        return int(self.utility.shape[1])

    def turn_value(self, column: int = 0) -> float:
        """Value of a whole turn (the first roll is compulsory)."""
        return float(self.cont[self.model.start, column])

    def stop_value(self, node: int, column: int = 0) -> float:
        """Value of stopping at a decide node."""
        return float(self.values[self.model.stop_rows[node], column])

    def continue_value(self, node: int, column: int = 0) -> float:
        return float(self.cont[node, column])

    def row_value(self, row: int, column: int = 0) -> float:
        """Value of a decide row (a node or a terminal) with optimal play from there."""
        return float(self.values[row, column])

    def continues(self, node: int, column: int = 0) -> bool:
        """Whether optimal play rolls again at a decide node."""
        return bool(self.cont[node, column] > self.stop_value(node, column) + TIE)


def as_utility_matrix(utility: npt.ArrayLike, model: TurnModel) -> FloatArray:
    """Check and shape a utility (vector or matrix of columns) over final scores."""
    table = np.asarray(utility, dtype=np.float64)
    if table.ndim == 1:
        table = table[:, None]
    if table.ndim != 2 or table.shape[0] != model.max_score + 1:
        raise ValueError(
            f"a utility gives one value per final score 0..{model.max_score}, got shape "
            f"{np.shape(utility)}"
        )
    if not np.isfinite(table).all():
        raise ValueError("utilities must be finite")
    return table


def solve_turn(utility: npt.ArrayLike, dice: int = 13, *, policy: bool = False) -> TurnSolution:
    """Solve a turn for a utility of the final score (a vector), or for many at once (a matrix
    with one column per utility). ``policy=True`` also records the best choices (column 0)
    for :func:`score_distribution` and batch simulation.

    >>> at_least_ten = [float(s >= 10) for s in range(17)]
    >>> round(solve_turn(at_least_ten).turn_value(), 6)  # best chance to score 10+ in a turn
    0.065226
    """
    model = turn_model(dice)
    table = as_utility_matrix(utility, model)
    width = chunk_columns(model)
    if table.shape[1] <= width:
        values, cont = _sweep(model, table)
    else:  # a few dozen columns at a time keep the sweep's working set in the CPU cache
        parts = [_sweep(model, table[:, i : i + width]) for i in range(0, table.shape[1], width)]
        values = np.hstack([part[0] for part in parts])
        cont = np.hstack([part[1] for part in parts])
    choices = _choices(model, values) if policy else None
    return TurnSolution(model, table, values, cont, choices)


def chunk_columns(model: TurnModel) -> int:
    """Columns swept together: the largest choose group's working array stays near 2 MB (the
    sweep is bound by memory traffic; measured fastest between 16 and 64 columns for 20 dice,
    and up to a few hundred for small dice)."""
    largest = max(
        (
            group.ray_index.size * group.nodes.size
            for groups in model.choose_groups
            for group in groups
        ),
        default=1,
    )
    return int(np.clip(2**18 // max(largest, 1), 16, 512))


def _sweep(model: TurnModel, table: FloatArray) -> tuple[FloatArray, FloatArray]:
    """One backward pass: choose nodes with n dice need decide rows with fewer dice; decide
    nodes with n dice need choose rows with at most n.

    A choose node's value is the expectation over compositions of the best option. Per node an
    option's value depends on one count only (rays taken, or the count of the Earthling type
    taken, whichever type it is), so the rows of ``n + 1`` ray options and ``n + 1`` type
    options are gathered first, then combined per composition with ``maximum`` in the layout
    (compositions, nodes, columns): contiguous blocks, and the expectation is one matrix
    product."""
    size = model.node_count
    width = table.shape[1]
    values = np.empty((model.rows, width))
    values[model.terminal : model.sentinel] = table
    values[model.sentinel] = -np.inf
    cont = np.empty((size, width))
    for n in range(1, model.dice + 1):
        for group in model.choose_groups[n]:
            best = values[group.ray_rows][group.ray_index]  # (compositions, nodes, columns)
            if len(group.type_index):
                by_count = values[group.type_rows]  # (n + 1, nodes, columns)
                for counts in group.type_index:
                    np.maximum(best, by_count[counts], out=best)
            expected = group.probabilities @ best.reshape(len(group.probabilities), -1)
            values[size + group.nodes] = expected.reshape(len(group.nodes), width)
        roll = model.roll_groups[n]
        rolled = np.matmul(roll.tank_probabilities, values[roll.tank_rows])
        cont[roll.nodes] = rolled
        values[roll.nodes] = np.maximum(values[roll.stop_rows], rolled)
    return values, cont


def _choices(model: TurnModel, values: FloatArray) -> tuple[tuple[npt.NDArray[np.int8], ...], ...]:
    """The best option (first on ties) per node and composition of every choose group, for
    column 0 of solved values."""
    column = values[:, 0]
    return tuple(
        tuple(column[group.options].argmax(axis=2).astype(np.int8) for group in groups)
        for groups in model.choose_groups
    )


def start_values(
    utility: FloatArray, dice: int, *, zero_slope: bool = False, step: float = 1e-6
) -> tuple[FloatArray, FloatArray | None]:
    """The value of a whole turn for each utility column and, with ``zero_slope``, its
    derivative in ``u(0)``: the chance that the turn scores 0 under the optimal policy.

    The derivative is measured with a second column whose ``u(0)`` is bumped by ``step``
    *relative to the column's own spread*: a turn's value is unchanged in meaning by
    ``a * u + c`` (``a > 0``), so each column is scaled to ``[0, 1]`` first. (An absolute bump
    is not small when the utilities are, e.g. win chances of 1e-8 when far behind: it turns
    scoring 0 into the best outcome and the measured slope into nonsense.)"""
    model = turn_model(dice)
    if not zero_slope:
        # chunk by chunk, keeping only the start: memory stays small for many columns
        width = chunk_columns(model)
        values = np.concatenate(
            [
                _sweep(model, as_utility_matrix(utility[:, i : i + width], model))[1][model.start]
                for i in range(0, utility.shape[1], width)
            ]
        )
        return values, None
    low = utility.min(axis=0)
    spread = utility.max(axis=0) - low
    spread = np.where(spread > 0, spread, 1.0)
    scaled = (utility - low) / spread
    bumped = scaled.copy()
    bumped[0] += step
    values = solve_turn(np.hstack([scaled, bumped]), dice).cont[model.start]
    k = utility.shape[1]
    slope: FloatArray = np.clip((values[k:] - values[:k]) / step, 0.0, 1.0)
    result: FloatArray = low + spread * values[:k]
    return result, slope


@cache
def expected_score_solution(dice: int = 13) -> TurnSolution:
    """The policy maximising a turn's expected score (solved once per process)."""
    model = turn_model(dice)
    return solve_turn(np.arange(model.max_score + 1, dtype=np.float64), dice, policy=True)


def score_distribution(solution: TurnSolution) -> FloatArray:
    """Exact probability of each final score ``0..max_score`` when the turn is played by the
    solution's policy (column 0): a forward pass of probability mass along the policy."""
    if solution.choices is None:
        raise ValueError("solve with policy=True to get the score distribution")
    model = solution.model
    size = model.node_count
    mass = np.zeros(model.rows)  # roll mass on decide nodes, mass on choose rows, terminals
    arriving = np.zeros(size)  # mass arriving at decide nodes (before stop / roll)
    arriving_roll = np.zeros(size)
    arriving_roll[model.start] = 1.0
    stops = ~continue_flags(solution)
    for n in range(model.dice, 0, -1):
        roll = model.roll_groups[n]
        here = roll.nodes
        stopped = arriving[here] * stops[here]
        np.add.at(mass, roll.stop_rows, stopped)
        rolling = arriving[here] - stopped + arriving_roll[here]
        np.add.at(mass, roll.tank_rows, rolling[:, None] * roll.tank_probabilities[None, :])
        for group, picked in zip(model.choose_groups[n], solution.choices[n], strict=True):
            incoming = mass[size + group.nodes]
            targets = np.take_along_axis(group.options, picked[..., None], axis=2)[..., 0]
            weights = incoming[:, None] * group.probabilities[None, :]
            decided = targets < size
            np.add.at(arriving, targets[decided], weights[decided])
            np.add.at(mass, targets[~decided], weights[~decided])
    return mass[model.terminal : model.sentinel].copy()


def continue_flags(solution: TurnSolution, column: int = 0) -> npt.NDArray[np.bool_]:
    """Per decide node: does optimal play roll again (ties stop)?"""
    stop = solution.values[solution.model.stop_rows, column]
    flags: npt.NDArray[np.bool_] = solution.cont[:, column] > stop + TIE
    return flags
