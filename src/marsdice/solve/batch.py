"""Fast batch simulation with numpy: many turns and games at once, played by solved policies.

Why: the object engine rolls die by die (a few thousand turns a second); tournaments between
solver bots and statistical checks need millions. Here a turn lives on the compact graph of
:mod:`marsdice.solve.model`: a roll from a decide node with ``n`` dice and ``m`` Earthling types
taken is one draw from the joint law of (tanks, composition of the other dice), sampled with
Walker's alias method (two uniforms, O(1)); the policy is a table lookup per (choose node,
composition, policy column). Every turn of a batch advances one roll per step.

A :class:`PolicyTables` holds one or more policy *columns* (one per turn utility):
``expected_policy()`` has the single expected-score column; :func:`two_player_policies` holds
every win-probability turn policy of the two-player game plus the expected-score one.

>>> rng = np.random.default_rng(1)
>>> scores = simulate_turns(expected_chain(), 200_000, rng)
>>> abs(float(scores.mean()) - 3.1104) < 0.03  # the exact mean, within 4 standard errors
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import comb
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from marsdice.solve.model import P_TANK, FloatArray, IntArray, TurnModel, turn_model
from marsdice.solve.multi import Combine, turn_utility_multi
from marsdice.solve.solo import solo_table
from marsdice.solve.turn import TIE, TurnSolution, solve_turn
from marsdice.solve.winprob import (
    WinTable,
    all_position_utilities,
    position_columns,
    winprob_table,
)

Policy = Literal["expected", "winprob"]
Generator = np.random.Generator

#: Columns solved together when policy tables are built (bounds memory).
CHUNK: Final = 256
#: Largest :func:`two_player_policies` (bytes); bigger games solve turns per scoreboard.
TWO_PLAYER_BUDGET: Final = 256 * 2**20


@dataclass(frozen=True, slots=True)
class RollSampler:
    """The joint law of one roll from each (dice left, types taken), as alias tables.

    Outcome ``o`` sets aside ``tanks[o]`` tanks and shows composition ``comp[o]`` of the
    choose group the remaining dice fall in.
    """

    base: IntArray  # (dice + 1, 4): first outcome of each (n, m)
    size: IntArray  # (dice + 1, 4): number of outcomes
    accept: FloatArray  # (outcomes,)
    alias: IntArray  # (outcomes,)
    tanks: IntArray  # (outcomes,)
    comp: IntArray  # (outcomes,)
    probability: FloatArray  # (outcomes,): the joint law itself

    def sample(self, n: IntArray, m: IntArray, rng: Generator) -> IntArray:
        """One outcome id per (n, m) pair."""
        size = self.size[n, m]
        pick = self.base[n, m] + np.minimum((rng.random(len(n)) * size).astype(np.int64), size - 1)
        keep = rng.random(len(n)) < self.accept[pick]
        return np.where(keep, pick, self.alias[pick])


@dataclass(frozen=True, slots=True)
class PolicyTables:
    """Policies for batch play on the turn graph, one column per turn utility.

    ``choice[col, offset[q] + c]`` is the row reached from choose node ``q`` with composition
    ``c``; ``cont[col, x]`` says whether decide node ``x`` rolls on. (Column-major, so that
    one policy's table is contiguous.)
    """

    model: TurnModel
    sampler: RollSampler
    tank_rows: IntArray  # (nodes, dice + 1): choose row (or terminal) after t tanks
    offset: IntArray  # (nodes,): first choice row of each choose node
    choice: npt.NDArray[np.int32]  # (columns, choice rows)
    cont: npt.NDArray[np.bool_]  # (columns, nodes)
    stop_score: IntArray  # (nodes,)

    @property
    def columns(self) -> int:
        return int(self.cont.shape[0])


def _alias(probabilities: FloatArray) -> tuple[FloatArray, IntArray]:
    """Walker/Vose alias table of a discrete law."""
    k = len(probabilities)
    scaled = probabilities * k / probabilities.sum()
    accept = np.ones(k)
    alias = np.arange(k)
    small = [i for i in range(k) if scaled[i] < 1.0]
    large = [i for i in range(k) if scaled[i] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        accept[s], alias[s] = scaled[s], g
        scaled[g] -= 1.0 - scaled[s]
        (small if scaled[g] < 1.0 else large).append(g)
    return accept, alias


@cache
def roll_sampler(dice: int = 13) -> RollSampler:
    """Alias tables for every (dice left, types taken)."""
    model = turn_model(dice)
    comps = {(g.n, g.m): g.probabilities for groups in model.choose_groups for g in groups}
    base = np.zeros((dice + 1, 4), dtype=np.int64)
    size = np.zeros((dice + 1, 4), dtype=np.int64)
    accept, alias, tanks, comp, law = [], [], [], [], []
    start = 0
    for n in range(1, dice + 1):
        for m in range(4):
            probs: list[float] = []
            t_list: list[int] = []
            c_list: list[int] = []
            for t in range(n + 1):
                weight = comb(n, t) * P_TANK**t * (1 - P_TANK) ** (n - t)
                inner = comps.get((n - t, m), np.ones(1)) if t < n else np.ones(1)
                probs.extend((weight * inner).tolist())
                t_list.extend([t] * len(inner))
                c_list.extend(range(len(inner)))
            a, al = _alias(np.array(probs))
            base[n, m], size[n, m] = start, len(probs)
            accept.append(a)
            alias.append(al + start)
            tanks.append(np.array(t_list))
            comp.append(np.array(c_list))
            law.append(np.array(probs))
            start += len(probs)
    return RollSampler(
        base,
        size,
        np.concatenate(accept),
        np.concatenate(alias),
        np.concatenate(tanks),
        np.concatenate(comp),
        np.concatenate(law),
    )


def policy_tables(solution: TurnSolution) -> PolicyTables:
    """Extract every column's policy from a solved (batched) turn."""
    model = solution.model
    size = model.node_count
    values = solution.values
    offset = np.zeros(size, dtype=np.int64)
    pieces = []
    start = 0
    for groups in model.choose_groups:
        for group in groups:
            options = values[group.options]  # (nodes, comps, options, columns)
            best = options[:, :, 0]
            rows = np.broadcast_to(group.options[:, :, 0, None], best.shape)
            for k in range(1, options.shape[2]):  # first best option, as argmax would pick
                better = options[:, :, k] > best
                best = np.where(better, options[:, :, k], best)
                rows = np.where(better, group.options[:, :, k, None], rows)
            pieces.append(rows.astype(np.int32).transpose(2, 0, 1).reshape(values.shape[1], -1))
            count = len(group.probabilities)
            offset[group.nodes] = start + count * np.arange(len(group.nodes))
            start += count * len(group.nodes)
    stop = values[model.stop_rows]
    cont = solution.cont > stop + TIE
    tank_rows = np.full((size, model.dice + 1), -1, dtype=np.int64)
    for roll in model.roll_groups[1:]:
        tank_rows[roll.nodes, : roll.n + 1] = roll.tank_rows
    return PolicyTables(
        model,
        roll_sampler(model.dice),
        tank_rows,
        offset,
        np.concatenate(pieces, axis=1),
        np.ascontiguousarray(cont.T),
        model.stop_rows - model.terminal,
    )


@cache
def expected_policy(dice: int = 13) -> PolicyTables:
    """The expected-score policy as a one-column table."""
    model = turn_model(dice)
    return policy_tables(solve_turn(np.arange(model.max_score + 1, dtype=np.float64), dice))


@dataclass(frozen=True, slots=True)
class TurnChain:
    """One policy column as a Markov chain on rows, the fastest way to play it: from decide
    node ``x`` the next row (a decide node or a terminal) is one alias draw among its distinct
    successors, ``go[row]`` says whether play rolls on from there and ``final[row]`` is the
    score if the turn ends there."""

    model: TurnModel
    base: IntArray  # (nodes,)
    size: IntArray  # (nodes,)
    accept: FloatArray
    target: IntArray
    other: IntArray
    go: npt.NDArray[np.bool_]  # (rows,)
    final: IntArray  # (rows,)


def turn_chain(tables: PolicyTables, column: int = 0) -> TurnChain:
    """Fold the roll law and one column's choices into a per-node law of the next row."""
    model = tables.model
    size, terminal = model.node_count, model.terminal
    sampler = tables.sampler
    base = np.zeros(size, dtype=np.int64)
    count = np.zeros(size, dtype=np.int64)
    accept, target, other = [], [], []
    start = 0
    for x in range(size):
        n, m = (int(v) for v in model.nodes[x, :2])
        outcomes = np.arange(sampler.base[n, m], sampler.base[n, m] + sampler.size[n, m])
        rows = tables.tank_rows[x, sampler.tanks[outcomes]]
        on_table = rows < terminal
        flat = tables.offset[rows[on_table] - size] + sampler.comp[outcomes[on_table]]
        rows[on_table] = tables.choice[column, flat]
        successors, where = np.unique(rows, return_inverse=True)
        law: FloatArray = np.bincount(where, sampler.probability[outcomes]).astype(np.float64)
        a, al = _alias(law)
        base[x], count[x] = start, len(successors)
        accept.append(a)
        target.append(successors)
        other.append(successors[al])
        start += len(successors)
    go = np.zeros(model.rows, dtype=bool)
    go[:size] = tables.cont[column]
    final = np.zeros(model.rows, dtype=np.int64)
    final[:size] = tables.stop_score
    final[terminal : model.sentinel] = np.arange(model.max_score + 1)
    return TurnChain(
        model,
        base,
        count,
        np.concatenate(accept),
        np.concatenate(target),
        np.concatenate(other),
        go,
        final,
    )


@cache
def expected_chain(dice: int = 13) -> TurnChain:
    """The expected-score policy as a chain (for the fastest simulation)."""
    return turn_chain(expected_policy(dice))


def _simulate_chain(chain: TurnChain, count: int, rng: Generator) -> IntArray:
    scores = np.zeros(count, dtype=np.int64)
    node = np.full(count, chain.model.start, dtype=np.int64)
    active = np.arange(count)
    while active.size:
        x = node[active]
        size = chain.size[x]
        pick = chain.base[x] + np.minimum((rng.random(len(x)) * size).astype(np.int64), size - 1)
        row = np.where(
            rng.random(len(x)) < chain.accept[pick], chain.target[pick], chain.other[pick]
        )
        going = chain.go[row]
        scores[active] = chain.final[row]
        node[active] = row
        active = active[going]
    return scores


def simulate_turns(
    policy: PolicyTables | TurnChain,
    count: int,
    rng: Generator,
    columns: IntArray | None = None,
) -> IntArray:
    """Final scores of ``count`` independent turns, turn ``i`` played by policy column
    ``columns[i]`` (default column 0), or all by one chain."""
    if isinstance(policy, TurnChain):
        return _simulate_chain(policy, count, rng)
    tables = policy
    model = tables.model
    size, terminal = model.node_count, model.terminal
    nodes = model.nodes
    cols = np.zeros(count, dtype=np.int64) if columns is None else np.asarray(columns)
    scores = np.zeros(count, dtype=np.int64)
    node = np.full(count, model.start, dtype=np.int64)
    active = np.arange(count)
    sampler = tables.sampler
    while active.size:
        x = node[active]
        outcome = sampler.sample(nodes[x, 0], nodes[x, 1], rng)
        row = tables.tank_rows[x, sampler.tanks[outcome]]
        on_table = row < terminal
        target = row.copy()
        chosen = tables.offset[row[on_table] - size] + sampler.comp[outcome[on_table]]
        target[on_table] = tables.choice[cols[active[on_table]], chosen]
        decided = target < terminal
        going = np.zeros(len(active), dtype=bool)
        going[decided] = tables.cont[cols[active[decided]], target[decided]]
        ended = ~going
        final = np.where(
            decided, tables.stop_score[np.where(decided, target, 0)], target - terminal
        )
        scores[active[ended]] = final[ended]
        node[active[going]] = target[going]
        active = active[going]
    return scores


# --- games ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TwoPlayerPolicies:
    """Every turn policy a two-player game can need: win-probability columns for the first
    seat ``[0, T*T)`` (index ``me * T + opp``), the second seat ``[T*T, 2*T*T)``, the second
    seat's last turn ``2*T*T + need``, and last the expected-score column."""

    table: WinTable
    tables: PolicyTables

    @property
    def expected_column(self) -> int:
        return self.tables.columns - 1

    def column(self, seat: int, me: IntArray, opp: IntArray, triggered: IntArray) -> IntArray:
        return position_columns(self.table, seat, me, opp, triggered)


def two_player_policies_fit(target: int = 25, dice: int = 13) -> bool:
    """Whether :func:`two_player_policies` stays within :data:`TWO_PLAYER_BUDGET` (the
    default game: 85 MB; 100 points with 13 dice would take 1.3 GB)."""
    model = turn_model(dice)
    choices = sum(g.probabilities.size * g.nodes.size for gs in model.choose_groups for g in gs)
    columns = 2 * target * target + model.max_score + 3
    return columns * (4 * choices + model.node_count) <= TWO_PLAYER_BUDGET


@cache
def two_player_policies(target: int = 25, dice: int = 13) -> TwoPlayerPolicies:
    """Solve the turn for every two-player position (in chunks) and keep the policies."""
    table = winprob_table(target, dice)
    model = turn_model(dice)
    expected = np.arange(model.max_score + 1, dtype=np.float64)[:, None]
    utilities = np.hstack([all_position_utilities(table), expected])
    chunks = [
        policy_tables(solve_turn(utilities[:, i : i + CHUNK], dice))
        for i in range(0, utilities.shape[1], CHUNK)
    ]
    first = chunks[0]
    merged = PolicyTables(
        first.model,
        first.sampler,
        first.tank_rows,
        first.offset,
        np.vstack([c.choice for c in chunks]),
        np.vstack([c.cont for c in chunks]),
        first.stop_score,
    )
    return TwoPlayerPolicies(table, merged)


@cache
def solo_policies(target: int = 25, dice: int = 13) -> PolicyTables:
    """The solo challenge's fewest-turns policy, one column per total below the target."""
    table = solo_table(target, dice)
    utilities = np.stack([table.after_turn(total) for total in range(target)], axis=1)
    return policy_tables(solve_turn(utilities, dice))


@dataclass(frozen=True, slots=True)
class GameStats:
    """Results of a batch of games: ``wins[seat]`` counts a roll-off tie as a share."""

    games: int
    wins: FloatArray  # (players,)
    mean_scores: FloatArray  # (players,)
    mean_rounds: float  # rounds per game (turns, solo)

    @property
    def win_rates(self) -> FloatArray:
        rates: FloatArray = self.wins / self.games
        return rates


def simulate_games(
    lineup: tuple[Policy, ...],
    games: int,
    rng: Generator,
    *,
    target: int = 25,
    dice: int = 13,
    combine: Combine = "min",
) -> GameStats:
    """Play ``games`` games at once, seat ``i`` using policy ``lineup[i]`` ("expected" or
    "winprob"); a tie for first place is settled by the symmetric roll-off, counted as equal
    shares. Two players use the exact tables (turns solved on the fly for each distinct
    scoreboard when every position's policy would not fit in memory); three or more, the
    approximation (turns solved on the fly); one player plays the solo challenge."""
    players = len(lineup)
    tables = players == 2 and "winprob" in lineup and two_player_policies_fit(target, dice)
    two = two_player_policies(target, dice) if tables else None
    solo = solo_policies(target, dice) if players == 1 and lineup[0] == "winprob" else None
    scores = np.zeros((games, players), dtype=np.int64)
    triggered = np.zeros(games, dtype=bool)
    rounds = np.zeros(games, dtype=np.int64)
    live = np.arange(games)
    while live.size:
        rounds[live] += 1
        for seat in range(players):
            if not live.size:
                break
            me = scores[live, seat]
            if two is not None and lineup[seat] == "winprob":
                cols = two.column(seat, me, scores[live, 1 - seat], triggered[live])
                turn = simulate_turns(two.tables, len(live), rng, cols)
            elif solo is not None:
                turn = simulate_turns(solo, len(live), rng, me)
            elif lineup[seat] == "winprob":
                turn = _turns_on_the_fly(
                    scores[live], seat, triggered[live], target, dice, rng, combine
                )
            else:
                turn = simulate_turns(expected_chain(dice), len(live), rng)
            scores[live, seat] += turn
            if players == 1:
                live = live[scores[live, 0] < target]
                continue
            triggered[live] |= scores[live, seat] >= target
        if players > 1:
            live = live[~triggered[live]]
    mean_rounds = float(rounds.mean())
    if players == 1:
        return GameStats(games, np.full(1, float(games)), scores.mean(axis=0), mean_rounds)
    best = scores.max(axis=1, keepdims=True)
    top = scores == best
    shares = top / top.sum(axis=1, keepdims=True)
    return GameStats(games, shares.sum(axis=0), scores.mean(axis=0), mean_rounds)


def _turns_on_the_fly(
    board: IntArray,
    seat: int,
    triggered: npt.NDArray[np.bool_],
    target: int,
    dice: int,
    rng: Generator,
    combine: Combine,
) -> IntArray:
    """Turns of a win-probability player whose utility depends on the whole scoreboard."""
    win = winprob_table(target, dice)
    utilities = np.stack(
        [
            turn_utility_multi(win, tuple(int(s) for s in row), seat, bool(t), combine)
            for row, t in zip(board, triggered, strict=True)
        ],
        axis=1,
    )
    unique, columns = np.unique(utilities, axis=1, return_inverse=True)
    turns = np.empty(len(board), dtype=np.int64)
    order = np.argsort(columns, kind="stable")
    for i in range(0, unique.shape[1], CHUNK):
        tables = policy_tables(solve_turn(unique[:, i : i + CHUNK], dice))
        pick = order[(columns[order] >= i) & (columns[order] < i + CHUNK)]
        turns[pick] = simulate_turns(tables, len(pick), rng, columns[pick] - i)
    return turns


def score_distributions(tables: PolicyTables) -> FloatArray:
    """Exact law of the final turn score under every policy column, ``(columns, scores)``: a
    forward pass of probability mass along each column's policy."""
    model = tables.model
    size, rows, width = model.node_count, model.rows, tables.columns
    column = np.arange(width)
    mass = np.zeros((rows, width))  # choose rows and terminals receive mass
    arriving = np.zeros((size, width))  # at decide nodes, after a choice
    rolling = np.zeros((size, width))
    rolling[model.start] = 1.0

    def scatter(targets: IntArray, weights: FloatArray) -> None:
        flat = (targets * width + column).ravel()
        mass.ravel()[:] += np.bincount(flat, weights.ravel(), minlength=rows * width)

    for n in range(model.dice, 0, -1):
        roll = model.roll_groups[n]
        here = roll.nodes
        going = tables.cont[:, here].T
        stopped = np.where(going, 0.0, arriving[here])
        scatter(np.broadcast_to(roll.stop_rows[:, None], stopped.shape), stopped)
        out = np.where(going, arriving[here], 0.0) + rolling[here]
        for t in range(n + 1):
            scatter(
                np.broadcast_to(roll.tank_rows[:, t, None], out.shape),
                out * roll.tank_probabilities[t],
            )
        for group in model.choose_groups[n]:
            incoming = mass[size + group.nodes]  # (nodes, columns)
            count = len(group.probabilities)
            index = tables.offset[group.nodes][:, None] + np.arange(count)[None, :]
            targets = np.moveaxis(tables.choice[:, index], 0, -1).astype(np.int64)
            weights = incoming[:, None, :] * group.probabilities[None, :, None]
            decided = targets < size
            moved = np.zeros((size, width))
            np.add.at(
                moved,
                (targets[decided], np.broadcast_to(column, targets.shape)[decided]),
                weights[decided],
            )
            arriving += moved
            scatter(np.where(decided, model.sentinel, targets), np.where(decided, 0.0, weights))
    result: FloatArray = mass[model.terminal : model.sentinel].T.copy()
    return result
