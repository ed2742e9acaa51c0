"""The turn of Martian Dice as a compact finite graph, built once per number of dice.

Why a graph of its own: the engine's :class:`~marsdice.martian.State` is exact but holds every
die and history; a solver needs only what decides the future of a turn. That is a *node*
``(n, m, d, e)``:

- ``n`` dice not yet set aside (1..dice),
- ``m`` Earthling types already taken (0..3) -- by symmetry it does not matter which,
- ``d`` = rays - tanks set aside, clamped to ``[-n, n]``: with ``d >= n`` tanks can no longer
  win, and ``d < -n`` can no longer be rescued (the turn is certain to score 0),
- ``e`` Earthlings set aside.

Each node is used twice: as a *decide* node (the player just took a face and may stop) and as
a *choose* node (the non-tank dice of a roll are on the table, ``n`` of them). A roll from a
decide node with ``n`` dice first sets aside ``t`` tanks (binomial) and lands on the choose
node ``(n - t, m, d - t, e)``; the choice then leads to a decide node with fewer dice or to a
*terminal* row holding the final turn score. The non-tank dice of a roll are summarised as a
*composition*: rays, the counts of the untaken Earthling types sorted (their order is
irrelevant), and the dice of taken types lumped as junk.

Values live in one array of rows: decide rows, choose rows, one terminal row per final score
and a sentinel row (-inf) for options that do not exist. Solving is then a few gathers per
group of nodes; see :mod:`marsdice.solve.turn`.

>>> model = turn_model(13)
>>> model.max_score, model.node_count  # positions that matter, after symmetry
(16, 635)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import comb, factorial
from typing import Final

import numpy as np
import numpy.typing as npt

from marsdice.core.errors import VariantError
from marsdice.martian.rules import BONUS, MAX_TARGET, Face
from marsdice.martian.rules import MAX_DICE as GAME_MAX_DICE

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: Probability that a die is a tank, and the split of the other five sides.
P_TANK: Final = 1.0 / 6.0
#: Given a die is not a tank: ray 2/5, each Earthling type 1/5.
EARTHLING_TYPES: Final = 3
#: The turn graph can be built for this many dice (the game accepts ``GAME_MAX_DICE``).
MAX_DICE: Final = 30


@dataclass(frozen=True, slots=True)
class ChooseGroup:
    """Choose nodes with ``n`` dice on the table and ``m`` types taken, all sharing one list of
    compositions: ``options[i, c, k]`` is the row reached by option ``k`` of composition ``c``
    at node ``rows[i]`` (the sentinel if that option does not exist)."""

    n: int
    m: int
    nodes: IntArray  # node ids
    probabilities: FloatArray  # (compositions,)
    compositions: IntArray  # (compositions, 2 + untaken types): rays, sorted counts..., junk
    options: IntArray  # (nodes, compositions, 1 + untaken types): row per option
    # The same options, compact (what the solver sweeps): an option's row depends on the node
    # and on one count only (rays, or the count of the Earthling type taken), so per node
    # there are ``n + 1`` ray rows and ``n + 1`` type rows; ``ray_rows[n + 1]`` is the score
    # row for the composition that offers nothing (all dice of taken types).
    ray_rows: IntArray  # (n + 2, nodes): row after taking r rays (0: sentinel)
    type_rows: IntArray  # (n + 1, nodes): row after taking c of an untaken type (0: sentinel)
    ray_index: IntArray  # (compositions,): rays, or n + 1 for the stuck composition
    type_index: IntArray  # (untaken types, compositions): the count of each untaken type


@dataclass(frozen=True, slots=True)
class RollGroup:
    """Decide nodes with ``n`` dice left: rolling lands on ``tank_rows[i, t]`` with binomial
    probability ``tank_probabilities[t]``; stopping scores ``stop_rows[i]``."""

    n: int
    nodes: IntArray
    tank_probabilities: FloatArray  # (n + 1,)
    tank_rows: IntArray  # (nodes, n + 1)
    stop_rows: IntArray  # (nodes,)


@dataclass(frozen=True, slots=True)
class TurnModel:
    """The whole turn graph for a number of dice. Row layout: decide rows ``[0, N)``, choose
    rows ``[N, 2N)``, terminal rows ``terminal + score``, then the sentinel row."""

    dice: int
    nodes: IntArray  # (N, 4): n, m, d, e
    lookup: IntArray  # (dice + 1, 4, 2 * dice + 1, dice + 1) -> node id or -1; d offset by dice
    choose_groups: tuple[tuple[ChooseGroup, ...], ...]  # indexed by n (0 empty)
    roll_groups: tuple[RollGroup, ...]  # indexed by n (0 is a placeholder)
    start: int  # node id of the opening (all dice, nothing set aside)
    stop_rows: IntArray  # (N,): the terminal row a decide node banks when stopping

    @property
    def node_count(self) -> int:
        return len(self.nodes)

    @property
    def max_score(self) -> int:
        return self.dice + (BONUS if self.dice >= EARTHLING_TYPES else 0)

    @property
    def terminal(self) -> int:
        """Row of final score 0; score ``s`` is row ``terminal + s``."""
        return 2 * self.node_count

    @property
    def sentinel(self) -> int:
        return self.terminal + self.max_score + 1

    @property
    def rows(self) -> int:
        return self.sentinel + 1

    def node_id(self, n: int, m: int, d: int, e: int) -> int:
        """The node of a turn position (``d`` unclamped); raises KeyError if unreachable, and
        ValueError for a doomed position (tanks can no longer be beaten)."""
        if d < -n:
            raise ValueError("doomed: tanks outnumber rays whatever happens")
        node = int(self.lookup[n, m, min(d, n) + self.dice, e])
        if node < 0:
            raise KeyError((n, m, d, e))
        return node

    def decide_row(self, n: int, m: int, d: int, e: int) -> int:
        """Row holding the value of the decide position reached after a choice: a terminal row
        when no dice are left or the turn is doomed."""
        if n == 0 or d < -n:
            return self.terminal + score_of(d, e, m)
        return self.node_id(n, m, d, e)


def check_range(target: int, dice: int) -> None:
    """Refuse a variant the game does not accept (the tables are solved for every variant it
    does, each within a minute: see ``docs/strategy.md``), before any memory is spent."""
    if not 1 <= target <= MAX_TARGET:
        raise VariantError(f"target must be 1-{MAX_TARGET}, got {target}")
    if not 1 <= dice <= GAME_MAX_DICE:
        raise VariantError(f"dice must be 1-{GAME_MAX_DICE}, got {dice}")


def score_of(d: int, e: int, m: int) -> int:
    """Turn score of a position: 0 if tanks outnumber rays, else Earthlings plus the bonus.

    >>> score_of(0, 5, 3), score_of(-1, 5, 3), score_of(2, 4, 2)
    (8, 0, 4)
    """
    if d < 0:
        return 0
    return e + (BONUS if m == EARTHLING_TYPES else 0)


def node_of_counts(set_aside: tuple[int, ...], dice: int) -> tuple[int, int, int, int]:
    """``(n, m, d, e)`` of engine counts ``(tanks, rays, humans, cows, chickens)`` set aside."""
    earthlings = [set_aside[face] for face in (Face.HUMAN, Face.COW, Face.CHICKEN)]
    n = dice - sum(set_aside)
    return (
        n,
        sum(1 for c in earthlings if c),
        set_aside[Face.RAY] - set_aside[Face.TANK],
        sum(earthlings),
    )


@cache
def turn_model(dice: int = 13) -> TurnModel:
    """Build (once per process) the turn graph for ``dice`` dice."""
    if not 1 <= dice <= MAX_DICE:
        raise ValueError(f"dice must be 1-{MAX_DICE}, got {dice}")
    nodes = _enumerate_nodes(dice)
    size = len(nodes)
    lookup = np.full((dice + 1, 4, 2 * dice + 1, dice + 1), -1, dtype=np.int64)
    lookup[nodes[:, 0], nodes[:, 1], nodes[:, 2] + dice, nodes[:, 3]] = np.arange(size)
    terminal = 2 * size
    max_score = dice + (BONUS if dice >= EARTHLING_TYPES else 0)
    sentinel = terminal + max_score + 1

    def score_rows(d: IntArray, e: IntArray, m: IntArray | int) -> IntArray:
        bonus = np.where(np.asarray(m) == EARTHLING_TYPES, BONUS, 0)
        return np.where(d < 0, terminal, terminal + e + bonus)

    def decide_rows(
        valid: npt.NDArray[np.bool_], n: IntArray, m: int, d: IntArray, e: IntArray
    ) -> IntArray:
        """Rows for decide positions given unclamped ``d`` (vectorised ``decide_row``); the
        sentinel where ``valid`` is false."""
        valid, n, d, e = np.broadcast_arrays(valid, n, d, e)
        ended = (n == 0) | (d < -n)
        safe_n = np.where(ended, 0, n)
        found = lookup[safe_n, m, np.clip(np.minimum(d, n), -dice, dice) + dice, e]
        rows = np.where(ended, score_rows(d, e, m), found)
        if (rows[valid] < 0).any():
            raise AssertionError("turn graph is missing a reachable node")
        return np.where(valid, rows, sentinel)

    choose_groups: list[tuple[ChooseGroup, ...]] = [()]
    roll_groups: list[RollGroup] = [
        RollGroup(
            0,
            nodes=np.zeros(0, np.int64),
            tank_probabilities=np.ones(1),
            tank_rows=np.zeros((0, 1), np.int64),
            stop_rows=np.zeros(0, np.int64),
        )
    ]
    for n in range(1, dice + 1):
        groups = []
        for m in range(EARTHLING_TYPES + 1):
            ids = np.flatnonzero((nodes[:, 0] == n) & (nodes[:, 1] == m))
            if not len(ids):
                continue
            comps, probs = _compositions(n, m)
            d = nodes[ids, 2][:, None]
            e = nodes[ids, 3][:, None]
            rays = comps[None, :, 0]
            options = [decide_rows(rays > 0, n - rays, m, d + rays, e)]
            untaken = EARTHLING_TYPES - m
            for k in range(untaken):
                count = comps[None, :, 1 + k]
                # a duplicate of the previous (sorted) count leads to the same node
                fresh = count > 0
                if k:
                    fresh &= count != comps[None, :, k]
                options.append(decide_rows(fresh, n - count, m + 1, d, e + count))
            stack = np.stack(np.broadcast_arrays(*options), axis=-1)
            stuck = (stack == sentinel).all(axis=-1)
            stack[..., 0] = np.where(
                stuck, np.broadcast_to(score_rows(d, e, m), stuck.shape), stack[..., 0]
            )
            groups.append(_group(n, m, ids, probs, comps, stack, stuck, sentinel))
        choose_groups.append(tuple(groups))

        ids = np.flatnonzero(nodes[:, 0] == n)
        m_, d_, e_ = (nodes[ids, k][:, None] for k in (1, 2, 3))
        t = np.arange(n + 1)[None, :]
        left = n - t
        after = np.minimum(d_ - t, left)
        ended = (left == 0) | (after < -left)  # no dice on the table, or doomed
        found = lookup[np.where(ended, 0, left), m_, np.clip(after, -dice, dice) + dice, e_]
        tank_rows = np.where(ended, score_rows(d_ - t, e_, m_), found + size)
        if (found[~ended] < 0).any():
            raise AssertionError("turn graph is missing a choose node")
        tank_probs = np.array(
            [comb(n, k) * P_TANK**k * (1 - P_TANK) ** (n - k) for k in range(n + 1)]
        )
        stop_rows = score_rows(nodes[ids, 2], nodes[ids, 3], nodes[ids, 1])
        roll_groups.append(RollGroup(n, ids, tank_probs, tank_rows, stop_rows))

    start = int(lookup[dice, 0, dice, 0])
    stops = score_rows(nodes[:, 2], nodes[:, 3], nodes[:, 1])
    return TurnModel(dice, nodes, lookup, tuple(choose_groups), tuple(roll_groups), start, stops)


def _group(
    n: int,
    m: int,
    ids: IntArray,
    probs: FloatArray,
    comps: IntArray,
    stack: IntArray,
    stuck: npt.NDArray[np.bool_],
    sentinel: int,
) -> ChooseGroup:
    """A choose group with its compact option tables (see :class:`ChooseGroup`)."""
    untaken = EARTHLING_TYPES - m
    ray_rows = np.full((n + 2, len(ids)), sentinel, dtype=np.int64)
    has_rays = comps[:, 0] > 0
    ray_rows[comps[has_rays, 0]] = stack[:, has_rays, 0].T
    ray_index = comps[:, 0].copy()
    stuck_comps = np.flatnonzero(stuck.all(axis=0))
    if len(stuck_comps):
        ray_rows[n + 1] = stack[:, stuck_comps[0], 0]
        ray_index[stuck_comps] = n + 1
    type_rows = np.full((n + 1, len(ids)), sentinel, dtype=np.int64)
    for k in range(untaken):
        count = comps[:, 1 + k]
        offered = count > 0  # a repeated count (sorted) has the sentinel: the same option
        if k:
            offered &= count != comps[:, k]
        type_rows[count[offered]] = stack[:, offered, 1 + k].T
    type_index = np.ascontiguousarray(comps[:, 1 : 1 + untaken].T)
    return ChooseGroup(n, m, ids, probs, comps, stack, ray_rows, type_rows, ray_index, type_index)


def _enumerate_nodes(dice: int) -> IntArray:
    """Every ``(n, m, d, e)`` a turn can reach, ordered by ``n`` then ``m``."""
    found = []
    for n in range(1, dice + 1):
        aside = dice - n
        for m in range(EARTHLING_TYPES + 1):
            for e in range(aside + 1):
                if (e == 0) != (m == 0) or e < m:
                    continue
                fighters = aside - e  # tanks + rays set aside
                for d in range(-n, n + 1):
                    exact = abs(d) <= fighters and (fighters - d) % 2 == 0
                    clamped = d == n and fighters >= n
                    if exact or clamped:
                        found.append((n, m, d, e))
    return np.array(found, dtype=np.int64).reshape(-1, 4)


def _compositions(n: int, m: int) -> tuple[IntArray, FloatArray]:
    """Non-tank dice ``n`` split as rays, sorted counts of the ``3 - m`` untaken Earthling
    types, and junk (taken types), with probabilities given that no die is a tank."""
    untaken = EARTHLING_TYPES - m
    rows = [
        (rays, *counts) for rays in range(n + 1) for counts in _sorted_counts(n - rays, untaken)
    ]
    comps = np.array(rows, dtype=np.int64).reshape(-1, 1 + untaken)
    junk = n - comps.sum(axis=1)
    if not m:
        comps, junk = comps[junk == 0], junk[junk == 0]
    ways = _FACTORIAL[n] / _FACTORIAL[comps].prod(axis=1) / _FACTORIAL[junk]
    earthlings = comps[:, 1:]
    if untaken == 3:  # which untaken type has which count: 6, 3 or 1 ways
        equal = (earthlings[:, 0] == earthlings[:, 1]).astype(int) + (
            earthlings[:, 1] == earthlings[:, 2]
        )
        ways *= np.choose(equal, [6, 3, 1])
    elif untaken == 2:
        ways *= np.where(earthlings[:, 0] == earthlings[:, 1], 1, 2)
    probs = ways * 2.0 ** comps[:, 0] * float(m) ** junk / 5.0**n
    return np.column_stack([comps, junk]), probs


_FACTORIAL: Final = np.array([float(factorial(k)) for k in range(MAX_DICE + 1)])


@cache
def _sorted_counts(total: int, parts: int, cap: int | None = None) -> tuple[tuple[int, ...], ...]:
    """Non-increasing tuples of ``parts`` counts with sum at most ``total``."""
    if parts == 0:
        return ((),)
    cap = total if cap is None else min(cap, total)
    return tuple(
        (first, *rest)
        for first in range(cap, -1, -1)
        for rest in _sorted_counts(total - first, parts - 1, first)
    )
