"""The turn sweep compiled with numba: the hot loop of the exact n-player solver.

:func:`marsdice.solve.nplayer.turn_laws` (a backward optimal sweep recording every choice,
then a forward sweep of probability mass along the choices) and the value-only check of
:func:`marsdice.solve.turn.solve_turn` run here on blocks of utility columns, the blocks in
parallel across the machine's cores (threads: the compiled block releases the GIL; the
columns are independent, so the result does not depend on the number of threads). The numpy
code stays the reference and the fallback: :func:`compiled` says whether this kernel is used
(``MARSDICE_SOLVE_KERNEL=numpy`` forces numpy, ``numba`` the kernel; without it the kernel
when numba is installed).

Same arithmetic, same tie rule: the mover stops unless rolling on beats stopping by more
than ``TIE``; at a choice of dice it takes the first option within ``TIE`` of the best in
the turn graph's order (Death Rays, then the untaken Earthling types by decreasing count).
Only the order of the sums differs (a loop instead of a BLAS product): values agree with
numpy to about 1e-16 (the tests ask for 1e-12).

The turn graph is flattened once per number of dice (:func:`flat_model`) into plain arrays
the compiled loop reads: per choose group the compact option tables of
:class:`~marsdice.solve.model.ChooseGroup` (an option's row depends on one count only), per
roll group the tank rows and the stop rows.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, Final

import numba
import numpy as np
import numpy.typing as npt

from marsdice.solve.model import FloatArray, IntArray, turn_model
from marsdice.solve.turn import TIE

#: Environment variable choosing the sweep: ``numba`` (the default when installed) or ``numpy``.
KERNEL_ENV: Final = "MARSDICE_SOLVE_KERNEL"

Int32Array = npt.NDArray[np.int32]


@dataclass(frozen=True, slots=True)
class FlatModel:
    """The turn graph of :class:`~marsdice.solve.model.TurnModel` as flat arrays (the order of
    the fields is the order of the compiled kernel's arguments)."""

    size: int  # decide nodes; choose rows are size + node
    terminal: int
    scores: int
    rows: int
    start: int
    dice: int
    # choose groups, in sweep order (by n, then m); stage n owns groups stage[n]..stage[n + 1]
    stage: IntArray  # (dice + 2,)
    g_n: IntArray
    g_nodes: IntArray  # offset into nodes
    g_count: IntArray
    g_comps: IntArray  # offset into probabilities / ray_index
    g_ncomp: IntArray
    g_untaken: IntArray
    g_type_index: IntArray  # offset into type_index (untaken x compositions)
    g_ray_rows: IntArray  # offset into ray_rows ((n + 2) x nodes)
    g_type_rows: IntArray  # offset into type_rows ((n + 1) x nodes)
    g_choice: IntArray  # offset into the choice buffer (nodes x compositions)
    nodes: IntArray
    probabilities: FloatArray
    ray_index: IntArray
    type_index: IntArray
    ray_rows: IntArray
    type_rows: IntArray
    # roll groups by n
    r_nodes: IntArray  # (dice + 2,): offsets into roll_nodes / stop_rows
    roll_nodes: IntArray
    stop_rows: IntArray
    r_tank_rows: IntArray  # (dice + 1,): offset into tank_rows (nodes x (n + 1))
    tank_rows: IntArray
    r_tank_p: IntArray  # (dice + 1,): offset into tank_p (n + 1)
    tank_p: FloatArray
    choices: int


@cache
def flat_model(dice: int) -> FlatModel:
    """The turn graph for ``dice`` dice as the kernel's flat arrays (built once per process)."""
    model = turn_model(dice)
    groups = [group for n in range(1, dice + 1) for group in model.choose_groups[n]]
    stage = np.zeros(dice + 2, np.int64)
    for n in range(1, dice + 1):
        stage[n + 1] = stage[n] + len(model.choose_groups[n])
    stage[1] = 0

    def offsets(sizes: list[int]) -> IntArray:
        return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)

    def ints(parts: list[IntArray]) -> IntArray:
        return np.concatenate([np.ravel(p) for p in parts]).astype(np.int64)

    def floats(parts: list[FloatArray]) -> FloatArray:
        return np.concatenate([np.ravel(p) for p in parts]).astype(np.float64)

    rolls = [model.roll_groups[n] for n in range(1, dice + 1)]
    r_nodes = np.zeros(dice + 2, np.int64)
    r_nodes[2:] = np.cumsum([len(r.nodes) for r in rolls])
    r_tank_rows = np.zeros(dice + 1, np.int64)
    r_tank_rows[1:] = offsets([r.tank_rows.size for r in rolls])
    r_tank_p = np.zeros(dice + 1, np.int64)
    r_tank_p[1:] = offsets([len(r.tank_probabilities) for r in rolls])
    return FlatModel(
        size=model.node_count,
        terminal=model.terminal,
        scores=model.max_score + 1,
        rows=model.rows,
        start=model.start,
        dice=dice,
        stage=stage,
        g_n=np.array([g.n for g in groups], np.int64),
        g_nodes=offsets([len(g.nodes) for g in groups]),
        g_count=np.array([len(g.nodes) for g in groups], np.int64),
        g_comps=offsets([len(g.probabilities) for g in groups]),
        g_ncomp=np.array([len(g.probabilities) for g in groups], np.int64),
        g_untaken=np.array([len(g.type_index) for g in groups], np.int64),
        g_type_index=offsets([g.type_index.size for g in groups]),
        g_ray_rows=offsets([g.ray_rows.size for g in groups]),
        g_type_rows=offsets([g.type_rows.size for g in groups]),
        g_choice=offsets([len(g.nodes) * len(g.probabilities) for g in groups]),
        nodes=ints([g.nodes for g in groups]),
        probabilities=floats([g.probabilities for g in groups]),
        ray_index=ints([g.ray_index for g in groups]),
        type_index=ints([g.type_index for g in groups]),
        ray_rows=ints([g.ray_rows for g in groups]),
        type_rows=ints([g.type_rows for g in groups]),
        r_nodes=r_nodes,
        roll_nodes=ints([r.nodes for r in rolls]),
        stop_rows=ints([r.stop_rows for r in rolls]),
        r_tank_rows=r_tank_rows,
        tank_rows=ints([r.tank_rows for r in rolls]),
        r_tank_p=r_tank_p,
        tank_p=floats([r.tank_probabilities for r in rolls]),
        choices=sum(len(g.nodes) * len(g.probabilities) for g in groups),
    )


#: Most utility columns swept together in one block: the inner loops run over these lanes
#: (SIMD: a loop this long is vectorised, one of 8 was not), and each index of the turn graph
#: is read once per block.
LANES: Final = 128


def _block(
    u: FloatArray,
    record: bool,
    decide: FloatArray,
    mass: FloatArray,
    choice: npt.NDArray[np.int16],
    go: npt.NDArray[np.bool_],
    law: FloatArray,
    size: int,
    terminal: int,
    scores: int,
    rows: int,
    start: int,
    dice: int,
    stage: IntArray,
    g_n: IntArray,
    g_nodes: IntArray,
    g_count: IntArray,
    g_comps: IntArray,
    g_ncomp: IntArray,
    g_untaken: IntArray,
    g_type_index: IntArray,
    g_ray_rows: IntArray,
    g_type_rows: IntArray,
    g_choice: IntArray,
    nodes: IntArray,
    probabilities: FloatArray,
    ray_index: IntArray,
    type_index: IntArray,
    ray_rows: IntArray,
    type_rows: IntArray,
    r_nodes: IntArray,
    roll_nodes: IntArray,
    stop_rows: IntArray,
    r_tank_rows: IntArray,
    tank_rows: IntArray,
    r_tank_p: IntArray,
    tank_p: FloatArray,
    choices: int,
    value: FloatArray,
) -> None:
    """One turn for ``LANES`` utility columns ``u`` ``(scores, LANES)``: the value of the whole
    turn (into ``value``) and, with ``record``, the law of its final score (into ``law``,
    ``(scores, LANES)``). Mirrors ``nplayer._laws_chunk``; arrays are ``(row, lane)``."""
    sentinel = terminal + scores
    lanes = u.shape[1]
    for s in range(scores):
        for w in range(lanes):
            decide[terminal + s, w] = u[s, w]
    for w in range(lanes):
        decide[sentinel, w] = -np.inf
    ray_value = np.empty((dice + 2, lanes))
    type_value = np.empty((dice + 1, lanes))
    best = np.empty(lanes)
    acc = np.empty(lanes)
    pick = np.empty(lanes, np.int64)
    for n in range(1, dice + 1):
        for g in range(stage[n], stage[n + 1]):
            count, ncomp, untaken = g_count[g], g_ncomp[g], g_untaken[g]
            c0, ti0, rr0, tr0 = g_comps[g], g_type_index[g], g_ray_rows[g], g_type_rows[g]
            ch0 = g_choice[g]
            for i in range(count):
                for r in range(n + 2):
                    row = ray_rows[rr0 + r * count + i]
                    for w in range(lanes):
                        ray_value[r, w] = decide[row, w]
                for c in range(n + 1):
                    row = type_rows[tr0 + c * count + i]
                    for w in range(lanes):
                        type_value[c, w] = decide[row, w]
                for w in range(lanes):
                    acc[w] = 0.0
                for c in range(ncomp):
                    ri = ray_index[c0 + c]
                    for w in range(lanes):
                        best[w] = ray_value[ri, w]
                    for k in range(untaken):
                        ti = type_index[ti0 + k * ncomp + c]
                        for w in range(lanes):
                            best[w] = max(best[w], type_value[ti, w])
                    if record:
                        # the row of the first option within TIE of the best: scan from the
                        # last option, branch-free
                        for w in range(lanes):
                            pick[w] = sentinel
                        for k in range(untaken - 1, -1, -1):
                            ti = type_index[ti0 + k * ncomp + c]
                            row = type_rows[tr0 + ti * count + i]
                            for w in range(lanes):
                                keep = type_value[ti, w] < best[w] - TIE
                                pick[w] = row + keep * (pick[w] - row)
                        row = ray_rows[rr0 + ri * count + i]
                        ch = ch0 + i * ncomp + c
                        for w in range(lanes):
                            keep = ray_value[ri, w] < best[w] - TIE
                            choice[ch, w] = row + keep * (pick[w] - row)
                    p = probabilities[c0 + c]
                    for w in range(lanes):
                        acc[w] += p * best[w]
                row = size + nodes[g_nodes[g] + i]
                for w in range(lanes):
                    decide[row, w] = acc[w]
        t0, p0 = r_tank_rows[n], r_tank_p[n]
        for j in range(r_nodes[n], r_nodes[n + 1]):
            node = roll_nodes[j]
            base = t0 + (j - r_nodes[n]) * (n + 1)
            for w in range(lanes):
                acc[w] = 0.0
            for t in range(n + 1):
                row = tank_rows[base + t]
                p = tank_p[p0 + t]
                for w in range(lanes):
                    acc[w] += p * decide[row, w]
            stop_row = stop_rows[j]
            if n == dice and node == start:
                for w in range(lanes):
                    value[w] = acc[w]
            for w in range(lanes):
                rolls = acc[w] > decide[stop_row, w] + TIE
                go[node, w] = rolls
                decide[node, w] = acc[w] if rolls else decide[stop_row, w]
    if not record:
        return
    for r in range(rows):
        for w in range(lanes):
            mass[r, w] = 0.0
    for n in range(dice, 0, -1):
        t0, p0 = r_tank_rows[n], r_tank_p[n]
        for j in range(r_nodes[n], r_nodes[n + 1]):
            node = roll_nodes[j]
            stop_row = stop_rows[j]
            first = n == dice and node == start
            for w in range(lanes):
                arriving = mass[node, w]
                rolling = arriving if go[node, w] else 0.0
                mass[stop_row, w] += arriving - rolling
                acc[w] = rolling + 1.0 if first else rolling  # the compulsory first roll
            base = t0 + (j - r_nodes[n]) * (n + 1)
            for t in range(n + 1):
                row = tank_rows[base + t]
                p = tank_p[p0 + t]
                for w in range(lanes):
                    mass[row, w] += acc[w] * p
        for g in range(stage[n], stage[n + 1]):
            count, ncomp, c0, ch0 = g_count[g], g_ncomp[g], g_comps[g], g_choice[g]
            for i in range(count):
                here = size + nodes[g_nodes[g] + i]
                reached = False
                for w in range(lanes):
                    reached |= mass[here, w] != 0.0
                if not reached:
                    continue
                ch = ch0 + i * ncomp
                for w in range(lanes):
                    acc[w] = mass[here, w]
                for c in range(ncomp):
                    p = probabilities[c0 + c]
                    for w in range(lanes):
                        mass[choice[ch + c, w], w] += acc[w] * p
    for s in range(scores):
        for w in range(lanes):
            law[s, w] = mass[terminal + s, w]


_compiled_block = numba.njit(cache=True, nogil=True)(_block)
#: Fewest columns swept in parallel: for fewer, handing blocks to other threads costs more
#: than it saves, and they run on the calling thread.
PARALLEL: Final = 64


@cache
def _pool() -> ThreadPoolExecutor:
    """Threads for the blocks of one call: the compiled block releases the GIL (``nogil``), so
    they run on all the cores this process may use."""
    return ThreadPoolExecutor(max_workers=threads(), thread_name_prefix="marsdice-sweep")


def threads() -> int:
    """The cores this process may use (the blocks of a sweep are spread over them)."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def _run(table: FloatArray, record: bool, values: FloatArray, laws: FloatArray, dice: int) -> None:
    """Sweep every block of ``table`` ``(blocks, scores, lanes)``: the blocks are independent,
    so how they are spread over threads does not change a result."""
    blocks, _, lanes = table.shape
    workers = min(threads(), blocks) if blocks * lanes >= PARALLEL else 1

    def work(first: int) -> None:
        flat, arguments = flat_model(dice), _arguments(dice)
        decide = np.empty((flat.rows, lanes))
        mass = np.empty((flat.rows, lanes))
        choice = np.empty((max(flat.choices, 1) if record else 1, lanes), np.int16)
        go = np.empty((flat.size, lanes), np.bool_)
        for b in range(first, blocks, workers):
            law, value = laws[b], values[b]
            _compiled_block(table[b], record, decide, mass, choice, go, law, *arguments, value)  # type: ignore[call-arg]

    if workers == 1:
        work(0)
        return
    for done in [_pool().submit(work, w) for w in range(workers)]:
        done.result()


@cache
def _arguments(dice: int) -> tuple[Any, ...]:
    """The flat model's fields as the kernel's arguments (no copies)."""
    flat = flat_model(dice)
    return tuple(getattr(flat, field.name) for field in fields(flat))


def _blocks(utilities: FloatArray) -> FloatArray:
    """``(scores, positions)`` as ``(blocks, scores, lanes)``, padded with the last column:
    blocks of up to ``LANES`` columns, at least one per thread."""
    scores, positions = utilities.shape
    workers = threads() if positions >= PARALLEL else 1
    lanes = int(np.clip(-(-positions // workers), 8, LANES))
    lanes = -(-lanes // 8) * 8
    blocks = max(1, -(-positions // lanes))
    padded = np.empty((scores, blocks * lanes))
    padded[:, :positions] = utilities
    padded[:, positions:] = utilities[:, -1:] if positions else 0.0
    return np.ascontiguousarray(padded.reshape(scores, blocks, lanes).transpose(1, 0, 2))


def compiled() -> bool:
    """Whether the solver sweeps with this kernel (see the module docstring)."""
    choice = os.environ.get(KERNEL_ENV, "numba").strip().lower()
    if choice not in ("numba", "numpy"):
        raise ValueError(f"{KERNEL_ENV} must be 'numba' or 'numpy', got {choice!r}")
    return choice == "numba"


def turn_laws(dice: int, utilities: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(values (positions,), laws (positions, scores))`` of optimal play for each column of
    ``utilities`` ``(scores, positions)``: what ``nplayer.turn_laws`` computes."""
    positions = utilities.shape[1]
    table = _blocks(np.asarray(utilities, dtype=np.float64))
    values = np.empty(table.shape[::2])
    laws = np.empty_like(table)
    _run(table, True, values, laws, dice)
    law: FloatArray = laws.transpose(0, 2, 1).reshape(-1, table.shape[1])[:positions]
    return values.ravel()[:positions], law


def turn_values(dice: int, utilities: FloatArray) -> FloatArray:
    """The value of a whole turn (first roll compulsory) for each column of ``utilities``:
    ``solve_turn(utilities, dice).cont[model.start]`` without the tables."""
    positions = utilities.shape[1]
    table = _blocks(np.asarray(utilities, dtype=np.float64))
    values = np.empty(table.shape[::2])
    laws = np.empty((table.shape[0], 0, table.shape[2]))
    _run(table, False, values, laws, dice)
    result: FloatArray = values.ravel()[:positions]
    return result
