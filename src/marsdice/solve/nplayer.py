"""Exact win probabilities for three (or four) players, every player playing to win.

Rules solved (the engine's, ``docs/rules-martian.md``): a total reaching the target triggers
the end; the round is completed (the players after the trigger in seat order have one last
turn each; seat 0 does not play again); the highest total wins and a tie for it goes to the
Death Ray roll-off. The roll-off is symmetric, so each of ``k`` tied leaders has the same
expected share, ``1/k``, whether it is repeated until one player remains or played once with a
shared win (:func:`rolloff_shares` computes it from the dice law and checks this): the value
of a player is the expected return of the game (1 for a win, ``1/k`` for a shared win), which
is the chance to win, shared wins counted as shares. The values of all players sum to 1.

Positions, ``N`` players, target ``T``:

- *open*: every total below ``T``, the end not triggered: ``values[s_0, ..., s_{N-1}, p, q]``
  is player ``q``'s win probability when seat ``p`` is about to start a turn;
- *last round*: seat ``t`` reached the target this round and seat ``p > t`` is to move. The
  seats before ``p`` have finished; what matters of them is the best total ``B`` and the number
  ``k`` of seats holding it (the *leaders*, who share one value); of each seat ``j >= p`` the
  gap ``B - s_j``, clamped to ``max_score + 1`` (a gap no turn can close).
  ``last[p - 1][g_p - 1, ..., g_{N-1} - 1, k - 1]`` holds ``[leaders' total, v_p, ...,
  v_{N-1}]`` (each leader has ``leaders' total / k``; finished seats that are not leaders 0).

Every player maximises their own chance to win. The mover's choice is a turn policy for the
utility "my win probability after a final turn score ``x``"; the other players' values follow
that policy. **Ties between equally good choices for the mover** (which change the others'
chances) are broken by the solver bots' convention: the mover stops unless rolling on is
better by more than ``TIE`` (1e-12); at a choice of dice it takes the first option within
``TIE`` of the best in the turn graph's order: Death Rays first, then the untaken Earthling
type with the most dice (see :mod:`marsdice.solve.model`).

Method. Last-round tables are solved first, seat ``N - 1`` down to seat 1 (no cycles: each
seat plays once). Open positions are swept by decreasing sum of totals: a scoring turn leads
to a larger sum (already solved) or to the last round, and a scoreless turn leads to the same
totals with the next seat to move, so the ``N`` positions of one scoreboard form a cycle.
Each cycle is solved by policy iteration. With the movers' turn policies fixed, every value
follows from the law of each mover's turn score (:func:`turn_laws`: an optimal backward sweep
that records the choices, then a forward sweep of probability mass along them) and a cyclic
linear system per player, ``V_p = c_p + P_p(0) V_{p+1}``. A mover's own value of a scoreless
turn (``V_{p+1}`` for itself) is all its policy depends on; it starts from an extrapolation
of the scoreboards with one and two more points. After each pass a cheap optimal solve
(``solve_turn``) at the new own values checks every policy: a mover whose best value gains more
than ``CHECK`` (1e-11) over its current policy gets a new law; a scoreboard is done when its
own values reproduce themselves to 1e-13 or no policy can gain. A scoreboard whose policies
still change after ``STUCK`` passes is in a best-response cycle (no profile of pure policies is
an equilibrium under the tie rule): its last profile is kept, and :class:`SolveStats` counts
such scoreboards and the most a mover could gain there (none in the 3-player game). All
scoreboards of one sum are solved together, as the columns of batched sweeps.

The two sweeps (:func:`turn_laws`, :func:`turn_values`) run compiled when numba is installed
(:mod:`marsdice.solve.kernel`, the blocks of a call on every core; the same results to
1e-12), else in numpy, the reference (``MARSDICE_SOLVE_KERNEL=numpy`` forces it).

Cost (default game, 13 dice, target 25): 3 players, 46,875 open positions, about 2.2 law
sweeps and 2.5 checks per position: 7 s of CPU compiled (51 s in numpy), 230 MB. 4 players:
1.56 million positions, about 30 times the work: 172 s of CPU compiled (1,259 s in numpy),
403 MB (see ``docs/strategy-3p.md``).

>>> table = solve_nplayer(players=3, target=4, dice=4, use_cache=False)
>>> [round(float(p), 4) for p in table.win_probabilities((0, 0, 0), seat=0)]
[0.3191, 0.3324, 0.3486]
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from math import comb
from types import ModuleType
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from marsdice.solve.cache import cache_dir as resolve_cache_dir
from marsdice.solve.cache import cached_arrays, table_path
from marsdice.solve.model import FloatArray, IntArray, TurnModel, turn_model
from marsdice.solve.turn import TIE, solve_turn

#: Environment variable: ``numpy`` sweeps with numpy (the reference), ``numba`` (the default)
#: with the compiled kernel of :mod:`marsdice.solve.kernel` when numba is installed.
KERNEL_ENV: Final = "MARSDICE_SOLVE_KERNEL"
#: Bump when this solver's output changes meaning (part of the cache key).
NPLAYER_VERSION: Final = 1
#: A scoreboard is solved when every mover's own value reproduces itself to this.
TOLERANCE: Final = 1e-13
MAX_PASSES: Final = 60
#: Passes after which a scoreboard whose policies still change is taken to be in a
#: best-response cycle (counted in :class:`SolveStats`; none in the 3-player game).
STUCK: Final = 30
#: Columns per cheap check (bounds memory: about 0.5 MB per column at 13 dice).
CHUNK_CHECK: Final = 512
#: Positions per batched sweep (bounds memory: about 0.1 KB x columns x rows each).
CHUNK: Final = 128
#: A policy counts as still optimal when a re-solve gains at most this.
CHECK: Final = 1e-11

#: ``progress(done, total)``: positions solved so far, out of all positions.
Progress = Callable[[int, int], None]
#: Fixed strategies :func:`evaluate_lineup` can evaluate: the exact tables, the two-player
#: approximation of :mod:`marsdice.solve.multi` (``"approx"`` = minimum, ``"product"``), and
#: the expected-score policy.
Strategy = Literal["exact", "approx", "product", "expected"]


@dataclass(frozen=True, slots=True)
class NPlayerTable:
    """Solved win probabilities of every position (see the module docstring for the layout)."""

    target: int
    dice: int
    players: int
    values: FloatArray  # (T,) * N + (N, N): [scores..., mover, player]
    last: tuple[FloatArray, ...]  # last[p - 1]: (gap,) * (N - p) + (p, N - p + 1)

    @property
    def max_score(self) -> int:
        return turn_model(self.dice).max_score

    @property
    def far(self) -> int:
        """Clamped gap to the leader: no single turn closes it."""
        return self.max_score + 1

    def win_probabilities(
        self, scores: Sequence[int], seat: int, *, triggered: bool = False
    ) -> FloatArray:
        """Every player's chance to win when ``seat`` is about to start a turn with the totals
        ``scores``; ``triggered``: the end was triggered this round (seat ``seat`` has a last
        turn)."""
        self._check(scores, seat, triggered)
        if not triggered:
            row: FloatArray = self.values[tuple(scores)][seat].copy()
            return row
        gaps, k, leaders = _last_state(scores, seat, self.far)
        roles = self.last[seat - 1][(*(g - 1 for g in gaps), k - 1)]
        return _spread(roles, seat, leaders, self.players)

    def turn_outcomes(
        self, scores: Sequence[int], seat: int, *, triggered: bool = False
    ) -> FloatArray:
        """``(max_score + 1, players)``: every player's win probability after the mover's turn
        scores ``x`` (row ``x``), with optimal play afterwards."""
        self._check(scores, seat, triggered)
        if not triggered:
            board = np.asarray(scores, dtype=np.int64)[None, :]
            return _open_outcomes(self.values, self.last, board, seat, self.target, self.far)[:, 0]
        gaps, k, leaders = _last_state(scores, seat, self.far)
        roles = _last_outcomes(
            self.last, seat, self.players, np.array([gaps]), np.array([k]), self.far, self.dice
        )[:, 0]
        return np.stack([_spread(r, seat, leaders, self.players) for r in roles])

    def turn_utility(
        self, scores: Sequence[int], seat: int, *, triggered: bool = False
    ) -> FloatArray:
        """The mover's utility of each final turn score: its own win probability after it.
        Solve the turn for it (``solve_turn``) to play the exact strategy."""
        utility: FloatArray = self.turn_outcomes(scores, seat, triggered=triggered)[:, seat]
        return utility.copy()

    def arrays(self) -> dict[str, FloatArray]:
        return {"values": self.values} | {f"last{p + 1}": t for p, t in enumerate(self.last)}

    def _check(self, scores: Sequence[int], seat: int, triggered: bool) -> None:
        if len(scores) != self.players or not 0 <= seat < self.players:
            raise ValueError(f"give {self.players} scores and a seat below {self.players}")
        if min(scores) < 0:
            raise ValueError("scores are never negative")
        if triggered:
            if seat == 0 or max(scores[:seat]) < self.target:
                raise ValueError("in the last round a seat before the mover reached the target")
            if max(scores[seat:]) >= self.target:
                raise ValueError("seats yet to play in the last round are below the target")
        elif max(scores) >= self.target:
            raise ValueError("a total at the target means the last round has begun")


def _last_state(
    scores: Sequence[int], seat: int, far: int
) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """Gaps of the seats still to play to the best finished total, the number of leaders, and
    the leaders' seats."""
    best = max(scores[:seat])
    leaders = tuple(j for j in range(seat) if scores[j] == best)
    gaps = tuple(min(best - s, far) for s in scores[seat:])
    return gaps, len(leaders), leaders


def _spread(roles: FloatArray, seat: int, leaders: tuple[int, ...], players: int) -> FloatArray:
    """Per-player values from last-round roles ``[leaders' total, v_seat, ...]``."""
    out = np.zeros(players)
    out[list(leaders)] = roles[0] / len(leaders)
    out[seat:] = roles[1:]
    return out


def rolloff_shares(tied: int, rolloff_dice: int = 6, mode: str = "repeat") -> FloatArray:
    """Expected return of each of ``tied`` players entering the Death Ray roll-off (in seat
    order), computed from the dice: each rolls ``rolloff_dice`` dice, most rays wins; ties
    roll again (``"repeat"``) or share the win (``"single"``). Symmetric, so ``1/tied`` each.

    >>> [round(float(v), 12) for v in rolloff_shares(3, 6, "single")]
    [0.333333333333, 0.333333333333, 0.333333333333]
    """
    p_ray = 1.0 / 3.0
    law = np.array(
        [
            comb(rolloff_dice, r) * p_ray**r * (1 - p_ray) ** (rolloff_dice - r)
            for r in range(rolloff_dice + 1)
        ]
    )
    below = np.concatenate([[0.0], np.cumsum(law)[:-1]])  # P(fewer than r rays)
    # one player with r rays, each other at most r: P(exactly j others tie at r)
    shares = np.zeros(tied)
    for r, p in enumerate(law):
        for j in range(tied):  # j of the other tied - 1 players also roll r, the rest fewer
            ways = comb(tied - 1, j) * law[r] ** j * below[r] ** (tied - 1 - j)
            if j == 0:
                gain = 1.0
            elif mode == "single":
                gain = 1.0 / (j + 1)
            else:  # repeat among the j + 1 at the top: symmetric again
                gain = float(rolloff_shares(j + 1, rolloff_dice, mode)[0]) if j + 1 < tied else 0.0
            shares += p * ways * gain
    if mode != "single":
        # the whole group tying again: the same roll-off starts over (geometric series)
        again = float((law**tied).sum())
        shares = shares / (1.0 - again)
    return shares


# --- outcomes of a turn --------------------------------------------------------------------


def _open_outcomes(
    values: FloatArray,
    last: Sequence[FloatArray],
    board: IntArray,
    seat: int,
    target: int,
    far: int,
) -> FloatArray:
    """``(scores, boards, players)``: win probabilities after seat ``seat`` ends its turn with
    ``x`` points from each open scoreboard ``board[i]`` (row ``x = 0`` reads the next seat's
    entry at the same totals)."""
    players = board.shape[1]
    max_score = far - 1
    xs = np.arange(max_score + 1)[:, None]
    new = board[None, :, seat] + xs  # (X, M)
    out = np.zeros((max_score + 1, len(board), players))
    below = new < target
    nxt = (seat + 1) % players
    index = [np.broadcast_to(board[None, :, j], new.shape) for j in range(players)]
    index[seat] = np.minimum(new, target - 1)
    gathered = values[(*index, nxt)]  # (X, M, players)
    out[below] = gathered[below]
    over = ~below
    if seat == players - 1:
        out[over, seat] = 1.0
    else:
        gaps = [
            np.clip(new - board[None, :, j], 1, far)[over] - 1 for j in range(seat + 1, players)
        ]
        roles = last[seat][(*gaps, 0)]  # (count, players - seat): [leaders, seat + 1, ...]
        out[over, seat] = roles[:, 0]
        out[over, seat + 1 :] = roles[:, 1:]
    return out


def _last_outcomes(
    last: Sequence[FloatArray],
    seat: int,
    players: int,
    gaps: IntArray,
    leaders: IntArray,
    far: int,
    dice: int,
) -> FloatArray:
    """``(scores, states, roles)``: last-round values after seat ``seat`` scores ``x`` from
    states ``gaps[i]`` (of seats ``seat..``), ``leaders[i]`` tied leaders. Roles:
    ``[leaders' total, seat, seat + 1, ...]``."""
    max_score = turn_model(dice).max_score
    xs = np.arange(max_score + 1)[:, None]
    delta = xs - gaps[None, :, 0]  # (X, M): my final total minus the best so far
    k = np.broadcast_to(leaders[None, :], delta.shape).astype(np.float64)
    out = np.zeros((max_score + 1, len(gaps), players - seat + 1))
    ahead, level, behind = delta > 0, delta == 0, delta < 0
    share = 1.0 / (k + 1.0)  # each of k + 1 tied leaders (see rolloff_shares)
    if seat == players - 1:
        out[..., 0] = np.where(behind, 1.0, np.where(level, k * share, 0.0))
        out[..., 1] = np.where(ahead, 1.0, np.where(level, share, 0.0))
        return out
    rest = gaps[None, :, 1:]  # (1, M, later)
    moved = np.where(
        ahead[..., None], np.minimum(rest + np.maximum(delta, 0)[..., None], far), rest
    )
    k_next = np.where(ahead, 1, np.where(level, k + 1, k)).astype(np.int64)
    index = tuple(moved[..., j] - 1 for j in range(moved.shape[-1]))
    roles = last[seat][(*index, k_next - 1)]  # (X, M, players - seat)
    group = roles[..., 0]
    out[..., 0] = np.where(behind, group, np.where(level, group * k * share, 0.0))
    out[..., 1] = np.where(ahead, group, np.where(level, group * share, 0.0))
    out[..., 2:] = roles[..., 1:]
    return out


# --- the batched turn sweep ----------------------------------------------------------------


def turn_laws(model: TurnModel, utilities: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Optimal play of many turns at once, one utility per column of ``utilities``
    ``(scores, positions)``: the value of each turn (the first roll is compulsory) and the
    exact law of its final score under the optimal policy, ties broken as in the module
    docstring, ``(positions, scores)``. Every player's value of the mover's turn is then the
    law times that player's values after each score."""
    scores, positions = utilities.shape
    if scores != model.max_score + 1:
        raise ValueError(f"utilities give one row per final score 0..{model.max_score}")
    kernel = _kernel()
    if kernel is not None:
        compiled: tuple[FloatArray, FloatArray] = kernel.turn_laws(model.dice, utilities)
        return compiled
    values = np.empty(positions)
    laws = np.empty((positions, scores))
    for start in range(0, positions, CHUNK):
        stop = min(start + CHUNK, positions)
        width = max(8, 1 << (stop - start - 1).bit_length())  # few sizes: few index plans
        part = utilities[:, start : start + width]
        if part.shape[1] < width:  # pad with copies of the last column
            part = np.hstack([part, np.repeat(part[:, -1:], width - part.shape[1], axis=1)])
        value, law = _laws_chunk(model, part)
        values[start:stop], laws[start:stop] = value[: stop - start], law[: stop - start]
    return values, laws


def turn_values(model: TurnModel, utilities: FloatArray) -> FloatArray:
    """The value of a whole turn for each column of ``utilities`` (the cheap check of the
    policy iteration): ``solve_turn(...).cont[model.start]``, compiled when available."""
    kernel = _kernel()
    if kernel is not None:
        fast: FloatArray = kernel.turn_values(model.dice, utilities)
        return fast
    return np.concatenate(
        [
            solve_turn(utilities[:, i : i + CHUNK_CHECK], model.dice).cont[model.start]
            for i in range(0, utilities.shape[1], CHUNK_CHECK)
        ]
    )


def _kernel() -> ModuleType | None:
    """The compiled sweep (:mod:`marsdice.solve.kernel`) unless numpy is asked for
    (``MARSDICE_SOLVE_KERNEL=numpy``) or numba is not installed."""
    if os.environ.get(KERNEL_ENV, "numba").strip().lower() == "numpy":
        return None
    try:
        kernel = importlib.import_module("marsdice.solve.kernel")
    except ImportError:  # numba missing: the numpy sweep, same results
        return None
    return kernel if kernel.compiled() else None


@cache
def _plan(
    dice: int, positions: int
) -> tuple[tuple[tuple[IntArray, tuple[IntArray, ...]], ...], ...]:
    """Flat indices for :func:`_laws_chunk`, per choose group: the row (times ``positions``,
    plus the lane) of option 0, and the steps to options 1, 2, ...; and per roll group the
    rows reached by stopping and by each number of tanks."""
    model = turn_model(dice)
    lane = np.arange(positions)
    plan = []
    for n in range(model.dice + 1):
        groups = []
        for group in model.choose_groups[n]:
            options = group.options.astype(np.int64)
            first = options[:, :, 0, None] * positions + lane
            steps = tuple(
                ((options[:, :, k] - options[:, :, k - 1]) * positions)[:, :, None]
                for k in range(1, options.shape[2])
            )
            groups.append((first, steps))
        if n:
            roll = model.roll_groups[n]
            rolled = np.concatenate(
                [
                    (roll.stop_rows[:, None] * positions + lane).ravel(),
                    (roll.tank_rows[:, :, None] * positions + lane).ravel(),
                ]
            )
            groups.append((rolled, ()))
        plan.append(tuple(groups))
    return tuple(plan)


def _laws_chunk(model: TurnModel, utilities: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Backward: optimal values and the row chosen at every (choose node, composition), as a
    flat index ``row * positions + lane``; then forward: the probability mass reaching each
    row along those choices (``np.bincount``)."""
    positions = utilities.shape[1]
    size, rows = model.node_count, model.rows
    plan = _plan(model.dice, positions)
    decide = np.empty((rows, positions))
    decide[model.terminal : model.sentinel] = utilities
    decide[model.sentinel] = -np.inf
    chosen: list[list[IntArray]] = [[] for _ in range(model.dice + 1)]
    rolls: list[npt.NDArray[np.bool_]] = [np.zeros((0, 0), bool)] * (model.dice + 1)
    start = int(np.flatnonzero(model.roll_groups[model.dice].nodes == model.start)[0])
    value = np.empty(positions)
    for n in range(1, model.dice + 1):
        for group, (first, steps) in zip(model.choose_groups[n], plan[n], strict=False):
            options = decide[group.options]  # (nodes, compositions, options, positions)
            best = options.max(axis=2)
            index = first
            if steps:  # the first option within TIE of the best
                low = best - TIE
                passed = options[:, :, 0] < low
                index = first + passed * steps[0]
                for k in range(1, len(steps)):
                    passed &= options[:, :, k] < low
                    index += passed * steps[k]
            chosen[n].append(index)
            decide[size + group.nodes] = np.matmul(group.probabilities, best)
        roll = model.roll_groups[n]
        rolled = np.matmul(roll.tank_probabilities, decide[roll.tank_rows])
        stop = decide[roll.stop_rows]
        go = rolled > stop + TIE
        rolls[n] = go
        decide[roll.nodes] = np.where(go, rolled, stop)
        if n == model.dice:
            value = rolled[start]
    flat = np.zeros(rows * positions)
    mass = flat.reshape(rows, positions)  # decide rows: arriving; choose rows: rolled into
    for n in range(model.dice, 0, -1):
        roll = model.roll_groups[n]
        arriving = mass[roll.nodes]
        rolling = np.where(rolls[n], arriving, 0.0)
        stopped = arriving - rolling
        if n == model.dice:
            rolling[start] += 1.0  # the compulsory first roll
        weight = np.concatenate(
            [
                stopped.ravel(),
                (rolling[:, None, :] * roll.tank_probabilities[None, :, None]).ravel(),
            ]
        )
        _scatter(flat, plan[n][-1][0], weight)
        if not chosen[n]:
            continue
        weights = [
            (mass[size + group.nodes][:, None, :] * group.probabilities[None, :, None]).ravel()
            for group in model.choose_groups[n]
        ]
        index = np.concatenate([c.ravel() for c in chosen[n]])
        _scatter(flat, index, np.concatenate(weights))
    laws: FloatArray = mass[model.terminal : model.sentinel].T.copy()
    return value, laws


def _scatter(flat: FloatArray, index: IntArray, weight: FloatArray) -> None:
    """``flat[index] += weight`` with repeats: ``np.add.at`` for few entries, a full-size
    ``np.bincount`` for many."""
    if 4 * len(index) < flat.size:
        np.add.at(flat, index, weight)
    else:
        flat += np.bincount(index, weight, minlength=flat.size)


# --- the solver ----------------------------------------------------------------------------

#: Decision utilities of a fixed strategy: ``(kind, seat, states) -> (scores, states)``, kind
#: ``"open"`` (states: scoreboards) or ``"last"`` (states: gaps and leaders as columns).
Decider = Callable[[str, int, IntArray], FloatArray]


@dataclass(slots=True)
class SolveStats:
    """Work done by a solve: law sweeps and cheap checks, in turn positions."""

    law_positions: int = 0
    check_positions: int = 0
    passes: int = 0
    #: scoreboards left in a best-response cycle, and the most a mover could gain there
    cycles: int = 0
    worst_gain: float = 0.0


def _last_tables(
    model: TurnModel, players: int, decider: Decider | None, stats: SolveStats
) -> tuple[FloatArray, ...]:
    far = model.max_score + 1
    last: list[FloatArray] = [np.zeros(0)] * (players - 1)
    for seat in range(players - 1, 0, -1):
        later = players - seat
        shape = (far,) * later + (seat,)
        grid = np.indices(shape).reshape(len(shape), -1).T
        gaps, leaders = grid[:, :later] + 1, grid[:, later] + 1
        roles = _last_outcomes(last, seat, players, gaps, leaders, far, model.dice)
        mover = roles[:, :, 1] if decider is None else decider("last", seat, grid + 1)
        _, laws = turn_laws(model, mover)
        stats.law_positions += len(grid)
        values = np.einsum("ix,xir->ir", laws, roles)
        last[seat - 1] = values.reshape((*shape, later + 1))
    return tuple(last)


def _solve_open(
    model: TurnModel,
    players: int,
    target: int,
    last: Sequence[FloatArray],
    decider: Decider | None,
    stats: SolveStats,
    progress: Progress | None = None,
    done: int = 0,
    total: int = 0,
) -> FloatArray:
    """The open table, by decreasing sum of totals (policy iteration per scoreboard when the
    movers play to win, ``decider`` None; one evaluation for fixed strategies)."""
    far = model.max_score + 1
    values = np.zeros((target,) * players + (players, players))
    boards = np.indices((target,) * players).reshape(players, -1).T
    sums = boards.sum(axis=1)
    seats = np.arange(players)
    for level in range(players * (target - 1), -1, -1):
        board = boards[sums == level]
        outcome = np.stack(
            [_open_outcomes(values, last, board, p, target, far) for p in range(players)], axis=2
        )  # (X, M, mover, player); row 0 (the next seat's value, same totals) is unknown
        if decider is None:
            solved = _cycle_iteration(model, outcome, stats)
        else:
            mover = np.stack([decider("open", int(p), board) for p in seats], axis=2)
            _, laws = turn_laws(model, mover.reshape(mover.shape[0], -1))
            stats.law_positions += laws.shape[0]
            solved = _evaluate_cycle(laws.reshape(len(board), players, -1), outcome)
        values[tuple(board.T)] = solved
        done += len(board) * players
        if progress is not None:
            progress(done, total)
    return values


def _evaluate_cycle(laws: FloatArray, outcome: FloatArray) -> FloatArray:
    """Values of the positions of each scoreboard, ``(M, mover, player)``, given the law of
    each mover's turn score ``laws[i, p]`` and the values after each score ``outcome[x, i, p,
    q]`` (row 0 ignored). Solves ``V_p = c_p + P_p(0) V_{p+1}`` around the cycle of movers."""
    m, players = laws.shape[:2]
    p0 = laws[:, :, 0]
    c = np.einsum("ipx,xipq->ipq", laws[:, :, 1:], outcome[1:])
    values = np.empty_like(c)
    loop = np.prod(p0, axis=1)  # the whole cycle scoreless
    for p in range(players):
        acc = np.zeros((m, players))
        weight = np.ones(m)
        for j in range(players):
            q = (p + j) % players
            acc += weight[:, None] * c[:, q]
            weight = weight * p0[:, q]
        values[:, p] = acc / (1.0 - loop)[:, None]
    result: FloatArray = values
    return result


def _cycle_iteration(model: TurnModel, outcome: FloatArray, stats: SolveStats) -> FloatArray:
    """Policy iteration on the movers' own values of a scoreless turn, for all scoreboards of
    one level at once: the law of a mover's turn is swept again only when a cheap optimal
    solve says its policy is no longer optimal."""
    _, m, players, _ = outcome.shape
    seats = np.arange(players)
    nxt = (seats + 1) % players
    own_utility = outcome[:, :, seats, seats].copy()  # (X, M, mover)
    # guess: extrapolated from the own values with one and two points more (with one die a
    # turn scores at most 1: the value with one point more); only a start for the iteration
    if own_utility.shape[0] > 2:
        own = 2.0 * own_utility[1] - own_utility[2]
    else:
        own = own_utility[1].copy()
    laws = np.zeros((m, players, outcome.shape[0]))
    stale = np.ones((m, players), bool)
    result = np.empty((m, players, players))
    todo = np.arange(m)
    for attempt in range(MAX_PASSES):
        stats.passes += 1
        board, seat = np.nonzero(stale[todo])
        board = todo[board]
        if len(board):
            u = own_utility[:, board, seat].copy()
            u[0] = own[board, seat]
            _, laws[board, seat] = turn_laws(model, u)
            stale[board, seat] = False
            stats.law_positions += len(board)
        values = _evaluate_cycle(laws[todo], outcome[:, todo])
        fresh = values[:, nxt, seats]  # (todo, mover)
        done = np.abs(fresh - own[todo]).max(axis=1) <= TOLERANCE
        rest = ~done
        gain = np.zeros(len(todo))
        if rest.any():
            # still optimal at the new own values? (max of a cheap solve vs the affine value)
            check = todo[rest]
            u = own_utility[:, check].copy()
            u[0] = fresh[rest]
            flat = u.reshape(u.shape[0], -1)
            best = turn_values(model, flat).reshape(len(check), players)
            stats.check_positions += flat.shape[1]
            kept = laws[check, :, 0] * fresh[rest] + np.einsum(
                "ipx,xip->ip", laws[check, :, 1:], own_utility[1:, check]
            )
            changed = best - kept > CHECK
            gain[rest] = (best - kept).max(axis=1)
            stale[check] = changed
            done[rest] = ~changed.any(axis=1)
        if attempt + 1 >= STUCK:
            # a best-response cycle: no profile of pure policies is an equilibrium under the
            # tie rule; keep the last profile, an equilibrium to within its movers' gains
            cycling = ~done
            stats.cycles += int(cycling.sum())
            stats.worst_gain = max(stats.worst_gain, float(gain[cycling].max(initial=0.0)))
            done[:] = True
        result[todo[done]] = values[done]
        own[todo] = fresh
        todo = todo[~done]
        if not len(todo):
            return result
    raise AssertionError("unreachable: every scoreboard is settled after STUCK passes")


def _check_variant(players: int, target: int, dice: int) -> None:
    if players < 2:
        raise ValueError(f"players must be at least 2, got {players}")
    if target < 1:
        raise ValueError(f"target must be at least 1, got {target}")
    turn_model(dice)  # checks dice


def _positions(players: int, target: int, far: int) -> int:
    last = sum(int(far ** (players - p)) * p for p in range(1, players))
    return int(target**players * players + last)


def _solve(
    players: int, target: int, dice: int, progress: Progress | None, stats: SolveStats | None = None
) -> NPlayerTable:
    _check_variant(players, target, dice)
    stats = SolveStats() if stats is None else stats
    model = turn_model(dice)
    far = model.max_score + 1
    total = _positions(players, target, far)
    last = _last_tables(model, players, None, stats)
    done = total - target**players * players
    if progress is not None:
        progress(done, total)
    values = _solve_open(model, players, target, last, None, stats, progress, done, total)
    return NPlayerTable(target, dice, players, values, last)


def solve_nplayer(
    players: int = 3,
    target: int = 25,
    dice: int = 13,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
) -> NPlayerTable:
    """The exact ``players``-player tables: from the disk cache when present, else solved
    (calling ``progress(done, total)`` as positions are solved) and stored."""
    _check_variant(players, target, dice)
    key = _key(players, target, dice)

    def compute() -> dict[str, FloatArray]:
        return _solve(players, target, dice, progress).arrays()

    shapes = _shapes(players, target, dice)
    arrays = cached_arrays("nplayer", key, compute, cache_dir, use_cache=use_cache, shapes=shapes)
    if not _valid(arrays, shapes):  # never trust a file blindly: solve again
        arrays = compute()
    last = tuple(arrays[f"last{p}"] for p in range(1, players))
    return NPlayerTable(target, dice, players, arrays["values"], last)


def _shapes(players: int, target: int, dice: int) -> dict[str, tuple[int, ...]]:
    far = turn_model(dice).max_score + 1
    shapes = {"values": (target,) * players + (players, players)}
    for p in range(1, players):
        shapes[f"last{p}"] = (far,) * (players - p) + (p, players - p + 1)
    return shapes


def _valid(arrays: dict[str, FloatArray], shapes: dict[str, tuple[int, ...]]) -> bool:
    return all(
        name in arrays and arrays[name].shape == shape and bool(np.isfinite(arrays[name]).all())
        for name, shape in shapes.items()
    )


def nplayer_cached(
    players: int = 3,
    target: int = 25,
    dice: int = 13,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
) -> bool:
    """Whether the tables are on disk already (else the first use solves them: show a
    progress bar, passing ``progress`` to :func:`solve_nplayer`)."""
    path = table_path("nplayer", _key(players, target, dice), resolve_cache_dir(cache_dir))
    return path.exists()


def _key(players: int, target: int, dice: int) -> dict[str, int]:
    """The cache key (``cache.SOLVER_VERSION`` is added by the cache itself)."""
    return {"target": target, "dice": dice, "players": players, "nplayer": NPLAYER_VERSION}


@cache
def nplayer_table(players: int = 3, target: int = 25, dice: int = 13) -> NPlayerTable:
    """:func:`solve_nplayer` once per process (disk cache in the default place)."""
    return solve_nplayer(players, target, dice)


def exact_turn_utility(
    scores: Sequence[int], seat: int, triggered: bool, *, target: int = 25, dice: int = 13
) -> FloatArray:
    """The mover's utility of each final turn score ``0..max_score`` under exact play, for a
    game of ``len(scores)`` players (the tables of :func:`nplayer_table`)."""
    table = nplayer_table(len(scores), target, dice)
    return table.turn_utility(scores, seat, triggered=triggered)


# --- fixed strategies ----------------------------------------------------------------------


def evaluate_lineup(
    lineup: Sequence[Strategy],
    target: int = 25,
    dice: int = 13,
    *,
    exact: NPlayerTable | None = None,
) -> FloatArray:
    """Exact win probability of each seat from the opening (all totals 0) when seat ``i``
    plays the fixed strategy ``lineup[i]``: ``"exact"`` (turns solved for the utility of the
    exact tables, which assume everyone plays exactly), ``"approx"`` / ``"product"`` (the
    two-player approximation, combined as the minimum / the product) or ``"expected"``."""
    players = len(lineup)
    _check_variant(players, target, dice)
    model = turn_model(dice)
    table = exact if exact is not None else None
    if "exact" in lineup and table is None:
        table = nplayer_table(players, target, dice)
    decider = _decider(tuple(lineup), target, dice, table)
    stats = SolveStats()
    last = _last_tables(model, players, decider, stats)
    values = _solve_open(model, players, target, last, decider, stats)
    row: FloatArray = values[(0,) * players][0].copy()
    return row


def _decider(
    lineup: tuple[Strategy, ...], target: int, dice: int, table: NPlayerTable | None
) -> Decider:
    from marsdice.solve.multi import Combine, turn_utility_multi
    from marsdice.solve.winprob import winprob_table

    model = turn_model(dice)
    far = model.max_score + 1
    players = len(lineup)
    scores = np.arange(model.max_score + 1, dtype=np.float64)

    def decide(kind: str, seat: int, states: IntArray) -> FloatArray:
        strategy = lineup[seat]
        if strategy == "expected":
            return np.repeat(scores[:, None], len(states), axis=1)
        if strategy == "exact":
            assert table is not None
            if kind == "open":
                out = _open_outcomes(table.values, table.last, states, seat, target, far)
                own: FloatArray = out[:, :, seat]
                return own
            later = players - seat
            roles = _last_outcomes(
                table.last, seat, players, states[:, :later], states[:, later], far, dice
            )
            mover: FloatArray = roles[:, :, 1]
            return mover
        pair = winprob_table(target, dice)
        combine: Combine = "min" if strategy == "approx" else "product"
        columns = []
        for state in states:
            board, triggered = _representative(kind, seat, state, players, target, far)
            columns.append(turn_utility_multi(pair, board, seat, triggered, combine))
        return np.stack(columns, axis=1)

    return decide


def _representative(
    kind: str, seat: int, state: IntArray, players: int, target: int, far: int
) -> tuple[tuple[int, ...], bool]:
    """A scoreboard for a table state (last-round states: the leader at ``target + far``,
    other finished seats far behind)."""
    if kind == "open":
        return tuple(int(s) for s in state), False
    later = players - seat
    best = target + far
    k = int(state[later])
    finished = [best] * k + [0] * (seat - k)
    return (*finished, *(best - int(g) for g in state[:later])), True


def score_laws(
    table: NPlayerTable, positions: Sequence[tuple[tuple[int, ...], int, bool]]
) -> FloatArray:
    """``(positions, max_score + 1)``: the law of the mover's final turn score under exact
    play (ties broken as documented) at each ``(scores, seat, triggered)``."""
    model = turn_model(table.dice)
    utilities = np.stack(
        [
            table.turn_utility(scores, seat, triggered=triggered)
            for scores, seat, triggered in positions
        ],
        axis=1,
    )
    _, laws = turn_laws(model, utilities)
    return laws


def threshold_family(dice: int = 13) -> list[tuple[int, int, int, int]]:
    """Decide positions ``(n, m, d, e)`` used for stop-or-roll thresholds: one tank matched by
    one ray, two Earthling types taken, ``e`` Earthlings banked (``n = dice - 2 - e``)."""
    model = turn_model(dice)
    family = []
    for e in range(2, dice - 2):
        try:
            model.node_id(dice - 2 - e, 2, 0, e)
        except (KeyError, ValueError):
            continue
        family.append((dice - 2 - e, 2, 0, e))
    return family


def stop_threshold(utility: npt.ArrayLike, dice: int = 13) -> int | None:
    """Fewest Earthlings banked at which optimal play for ``utility`` stops in
    :func:`threshold_family` (None: it never stops there)."""
    from marsdice.solve.turn import solve_turn

    solution = solve_turn(utility, dice)
    model = solution.model
    for n, m, d, e in threshold_family(dice):
        if not solution.continues(model.node_id(n, m, d, e)):
            return e
    return None


def simulate_lineup(
    lineup: Sequence[Strategy],
    games: int,
    rng: np.random.Generator,
    *,
    target: int = 25,
    dice: int = 13,
    exact: NPlayerTable | None = None,
) -> FloatArray:
    """Wins of each seat (a shared roll-off win counts as a share) in ``games`` simulated
    games, seat ``i`` playing ``lineup[i]`` (see :func:`evaluate_lineup`). Turns are played
    die by die on the turn graph (:mod:`marsdice.solve.batch`), each turn by the policy solved
    for its mover's utility, so this checks the exact evaluation independently."""
    from marsdice.solve.batch import expected_chain, policy_tables, simulate_turns
    from marsdice.solve.multi import turn_utility_multi
    from marsdice.solve.turn import solve_turn as solve
    from marsdice.solve.winprob import winprob_table

    players = len(lineup)
    _check_variant(players, target, dice)
    table = exact
    if "exact" in lineup and table is None:
        table = nplayer_table(players, target, dice)
    scores = np.zeros((games, players), dtype=np.int64)
    triggered = np.zeros(games, dtype=bool)
    live = np.arange(games)
    while live.size:
        for seat in range(players):
            if not live.size:
                break
            strategy = lineup[seat]
            if strategy == "expected":
                turn = simulate_turns(expected_chain(dice), len(live), rng)
            else:
                keys = [(tuple(int(s) for s in scores[g]), bool(triggered[g])) for g in live]
                distinct = sorted(set(keys))
                where = {key: i for i, key in enumerate(distinct)}
                columns = np.array([where[key] for key in keys])
                if strategy == "exact":
                    assert table is not None
                    utilities = [table.turn_utility(b, seat, triggered=t) for b, t in distinct]
                else:
                    pair = winprob_table(target, dice)
                    combine = "min" if strategy == "approx" else "product"
                    utilities = [
                        turn_utility_multi(pair, b, seat, t, combine)  # type: ignore[arg-type]
                        for b, t in distinct
                    ]
                matrix = np.stack(utilities, axis=1)
                turn = np.empty(len(live), dtype=np.int64)
                for first in range(0, matrix.shape[1], 256):
                    tables = policy_tables(solve(matrix[:, first : first + 256], dice))
                    pick = np.flatnonzero((columns >= first) & (columns < first + 256))
                    turn[pick] = simulate_turns(tables, len(pick), rng, columns[pick] - first)
            scores[live, seat] += turn
            triggered[live] |= scores[live, seat] >= target
        live = live[~triggered[live]]
    best = scores.max(axis=1, keepdims=True)
    top = scores == best
    wins: FloatArray = (top / top.sum(axis=1, keepdims=True)).sum(axis=0)
    return wins
