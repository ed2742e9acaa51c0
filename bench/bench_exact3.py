"""Exact three-player play (not a test): solve time and memory, win probability per seat,
exact evaluations and seeded simulations of mixed lineups, and the leader's stop-or-roll
threshold with a third player (a PNG under docs/).

Run: .venv/bin/python bench/bench_exact3.py [evaluate|simulate|plot|scale|all]
     [games per seat for simulate, default 6000]
     .venv/bin/python bench/bench_exact3.py solve [players, default 3] [target, default 25]
     [--no-reference]

``solve`` measures solves from scratch (no table cache), each in a fresh process: the
compiled kernel with an empty numba cache (cold: the JIT compile counts in the wall time),
again with that cache filled (warm), and the numpy reference in the same run (skip it with
``--no-reference``: 21 minutes of CPU for 4 players). Times are wall and CPU (all threads);
on a shared machine the CPU time is the steadier figure. The other commands read the tables
from the disk cache (``MARSDICE_CACHE_DIR`` or the user cache), solving them once if needed.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from math import sqrt
from pathlib import Path
from typing import Any

import numpy as np

from marsdice.solve.nplayer import (
    NPlayerTable,
    SolveStats,
    Strategy,
    _solve,
    evaluate_lineup,
    nplayer_table,
    simulate_lineup,
    stop_threshold,
    threshold_family,
)

DOCS = Path(__file__).resolve().parent.parent / "docs"


def solve(players: int = 3, target: int = 25, reference: bool = True) -> None:
    """A solve from scratch (no table cache) in fresh processes: the compiled kernel with an
    empty numba cache (cold: the JIT compile counts), again with that cache filled (warm),
    and the numpy reference, each with the process's wall time and CPU time (all threads,
    from the interpreter's start) and its peak resident size."""
    with tempfile.TemporaryDirectory() as jit_cache:
        runs = [("numba, cold JIT", "numba", jit_cache), ("numba, warm JIT", "numba", jit_cache)]
        if reference:
            runs.append(("numpy reference", "numpy", jit_cache))
        results = {}
        for label, kernel, cache in runs:
            result = _child(players, target, kernel, cache)
            results[label] = result
            print(
                f"{players} players, target {target}, 13 dice, {label}: "
                f"{result['wall']:.1f} s wall, {result['cpu']:.1f} s CPU, peak resident "
                f"{result['peak']:.0f} MB (the solve call: {result['solve_wall']:.1f} s wall); "
                f"{result['law']} law sweeps and {result['check']} checks for "
                f"{players * target**players} open positions; {result['cycles']} scoreboards "
                f"left in a best-response cycle (largest gain {result['gain']:.1e})",
                flush=True,
            )
        print(
            "win probability per seat from the opening:",
            ", ".join(f"{p:.10f}" for p in results["numba, cold JIT"]["seats"]),
        )
        if reference:
            fast, slow = results["numba, cold JIT"], results["numpy reference"]
            print(
                f"numpy / numba (cold): {slow['wall'] / fast['wall']:.1f}x wall, "
                f"{slow['cpu'] / fast['cpu']:.1f}x CPU; largest difference of the seat values "
                f"{max(abs(a - b) for a, b in zip(fast['seats'], slow['seats'], strict=True)):.1e}"
            )


def _child(players: int, target: int, kernel: str, jit_cache: str) -> dict[str, Any]:
    """One solve in a fresh process; wall and CPU (every thread) of the whole process, from
    its start (interpreter, imports, JIT compile or cache load, solve)."""
    env = os.environ | {"MARSDICE_SOLVE_KERNEL": kernel, "NUMBA_CACHE_DIR": jit_cache}
    command = [sys.executable, __file__, "_solve_once", str(players), str(target)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall"] = wall
    result["cpu"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return result


def _solve_once(players: int, target: int) -> None:
    """In a fresh process: the solve (with the JIT compile or cache load), timed."""
    stats = SolveStats()
    begun = time.perf_counter()
    table = _solve(players, target, 13, None, stats)
    result = {
        "solve_wall": time.perf_counter() - begun,
        "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "law": stats.law_positions,
        "check": stats.check_positions,
        "cycles": stats.cycles,
        "gain": stats.worst_gain,
        "seats": [float(p) for p in table.win_probabilities((0,) * players, 0)],
    }
    print(json.dumps(result))


def seats(table: NPlayerTable) -> None:
    opening = table.win_probabilities((0,) * table.players, 0)
    print("win probability per seat from 0-0-0:", ", ".join(f"{p:.10f}" for p in opening))


def lineup_with(strategy: Strategy, others: Strategy, seat: int) -> list[Strategy]:
    lineup: list[Strategy] = [others] * 3
    lineup[seat] = strategy
    return lineup


def evaluate() -> None:
    table = nplayer_table(3)
    seats(table)
    for others in ("expected", "approx"):
        base = evaluate_lineup([others] * 3, exact=table)
        print(f"all {others}: " + ", ".join(f"{p:.6f}" for p in base))
        for strategy in ("exact", "approx", "product"):
            if strategy == others:
                continue
            start = time.perf_counter()
            rates = [
                evaluate_lineup(lineup_with(strategy, others, seat), exact=table)[seat]
                for seat in range(3)
            ]
            print(
                f"{strategy} vs 2 {others}: seats "
                + ", ".join(f"{p:.6f}" for p in rates)
                + f"; mean {np.mean(rates):.6f} (the seat's {others} value: "
                + f"{np.mean(base):.6f}; {time.perf_counter() - start:.0f} s)"
            )


def simulate(per_seat: int) -> None:
    table = nplayer_table(3)
    rng = np.random.default_rng(2026)
    for strategy, others in (
        ("exact", "expected"),
        ("approx", "expected"),
        ("exact", "approx"),
    ):
        start = time.perf_counter()
        wins = 0.0
        for seat in range(3):
            lineup = lineup_with(strategy, others, seat)  # type: ignore[arg-type]
            wins += float(simulate_lineup(lineup, per_seat, rng, exact=table)[seat])
        games = 3 * per_seat
        rate = wins / games
        error = sqrt(rate * (1 - rate) / games)
        print(
            f"{strategy} vs 2 {others}, {games} games (seed 2026): {rate:.4f} +- {error:.4f} "
            f"(95% interval {rate - 1.96 * error:.4f}-{rate + 1.96 * error:.4f}; "
            f"{time.perf_counter() - start:.0f} s)"
        )


def plot() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from marsdice.solve.winprob import winprob_table

    table, pair = nplayer_table(3), winprob_table()
    family = threshold_family()
    never = family[-1][3] + 1
    fig, ax = plt.subplots(figsize=(8.5, 5))
    configurations = [(10, 5), (15, 10), (18, 16), (20, 15), (22, 18)]
    colours = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    for i, ((lead, second), colour) in enumerate(zip(configurations, colours, strict=True)):
        offset = 0.07 * (i - 2)  # keeps equal steps apart
        thirds = np.arange(lead + 1)  # the third player up to a tie with the leader
        two = stop_threshold(pair.after_turn(lead, second, 0))
        three = [stop_threshold(table.turn_utility((lead, second, int(c)), 0)) for c in thirds]
        ys = np.array([never if t is None else t for t in three]) + offset
        ax.step(thirds, ys, where="mid", color=colour, label=f"leader {lead}, second {second}")
        ax.plot([-3], [(never if two is None else two) + offset], "o", color=colour, mfc="none")
        print(f"leader {lead}, second {second}: two players {two}; third at 0..{lead}: {three}")
    expected = stop_threshold(np.arange(17.0))
    ax.axhline(expected or never, color="grey", linestyle="--", linewidth=1)
    ax.text(22.5, (expected or never) + 0.12, "expected-score bot", color="grey", ha="right")
    ax.set_xticks([-3, 0, 5, 10, 15, 20, 22])
    ax.set_xticklabels(["2 players", "0", "5", "10", "15", "20", "22"])
    ax.axvline(-1.5, color="black", linewidth=0.5)
    ax.set_xlabel("third player's total (seat 3, moves last in the round)")
    ax.set_ylabel("Earthlings banked at which the leader stops")
    ax.set_title(
        "Leader's stop-or-roll threshold (seat 1, to move; 1 tank vs 1 ray, 2 types taken)\n"
        "circles: the same two players alone; lines: with a third player (exact 3-player play)"
    )
    ax.set_yticks(range(3, never + 1))
    ax.set_yticklabels([*map(str, range(3, never)), "never"])
    ax.set_ylim(3.5, never + 0.5)
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out = DOCS / "img" / "strategy-3p-threshold.png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def scale(players: int = 4, targets: tuple[int, ...] = (8, 10, 12)) -> None:
    """Work of smaller 4-player solves, to extrapolate the default game."""
    for target in targets:
        stats = SolveStats()
        start = time.process_time()
        _solve(players, target, 13, None, stats)
        cpu = time.process_time() - start
        open_positions = players * target**players
        print(
            f"{players} players, target {target}: {cpu:.1f} s CPU, {open_positions} open "
            f"positions, {stats.law_positions / open_positions:.2f} law sweeps and "
            f"{stats.check_positions / open_positions:.2f} checks per position, "
            f"{cpu / open_positions * 1e3:.2f} ms per position"
        )


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else "all"
    if command == "_solve_once":
        _solve_once(int(sys.argv[2]), int(sys.argv[3]))
        return
    if command == "solve":
        rest = [a for a in sys.argv[2:] if not a.startswith("--")]
        players = int(rest[0]) if rest else 3
        target = int(rest[1]) if len(rest) > 1 else 25
        solve(players, target, reference="--no-reference" not in sys.argv)
        return
    per_seat = int(sys.argv[2]) if len(sys.argv) > 2 else 6000
    if command == "all":
        solve()
    if command in ("evaluate", "all"):
        evaluate()
    if command in ("simulate", "all"):
        simulate(per_seat)
    if command in ("plot", "all"):
        plot()
    if command == "scale":
        scale()


if __name__ == "__main__":
    main()
