"""Exact three-player play (not a test): solve time and memory, win probability per seat,
exact evaluations and seeded simulations of mixed lineups, and the leader's stop-or-roll
threshold with a third player (a PNG under docs/).

Run: .venv/bin/python bench/bench_exact3.py [solve|evaluate|simulate|plot|scale|all]
     [games per seat for simulate, default 6000]

``solve`` measures a solve from scratch (no cache) in this process: run it alone for a clean
maximum resident size. The other commands read the tables from the disk cache
(``MARSDICE_CACHE_DIR`` or the user cache), solving them once if needed.
"""

from __future__ import annotations

import resource
import sys
import time
from math import sqrt
from pathlib import Path

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


def solve() -> None:
    stats = SolveStats()
    start, cpu = time.perf_counter(), time.process_time()
    table = _solve(3, 25, 13, None, stats)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"3 players, target 25, 13 dice: {wall:.1f} s wall, {cpu:.1f} s CPU, peak resident "
        f"{peak:.0f} MB; {stats.law_positions} law sweeps and {stats.check_positions} checks "
        f"for {3 * 25**3} open positions; {stats.cycles} scoreboards left in a best-response "
        f"cycle (largest gain {stats.worst_gain:.1e})"
    )
    seats(table)


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
    per_seat = int(sys.argv[2]) if len(sys.argv) > 2 else 6000
    if command in ("solve", "all"):
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
