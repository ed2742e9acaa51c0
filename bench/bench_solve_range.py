"""Solve times over the whole accepted range (target 1-100, dice 1-20), the worst case first
(not a test; the convergence sweep in CI is tests/test_solve_range.py).

For each (target, dice) of the grid: the two-player win-probability table (what 2 players and
the 3+ player approximation need) and the solo table, solved from scratch (no disk cache),
with the Bellman residual of each and the number of sweeps of the turn graph (one per chunk of
columns). Then one turn solve
per dice count: what a 3+ player decision costs when its scoreboard is new.

Run: .venv/bin/python bench/bench_solve_range.py            (about 3 minutes)
     .venv/bin/python bench/bench_solve_range.py --quick    (small grid, seconds)
     .venv/bin/python bench/bench_solve_range.py --all-dice (every dice count at target 100)
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from marsdice.martian.rules import MAX_DICE, MAX_TARGET
from marsdice.solve import solo, turn, winprob
from marsdice.solve.model import FloatArray, TurnModel, turn_model


class CountingSolves:
    """Counts the turn-graph sweeps (one per chunk of columns) and their columns."""

    def __init__(self) -> None:
        self.calls = 0
        self.columns = 0
        self.original = turn._sweep

    def __enter__(self) -> CountingSolves:
        def counted(model: TurnModel, table: FloatArray) -> tuple[FloatArray, FloatArray]:
            self.calls += 1
            self.columns += table.shape[1]
            return self.original(model, table)

        turn._sweep = counted
        return self

    def __exit__(self, *exc: object) -> None:
        turn._sweep = self.original


def measure(kind: str, target: int, dice: int) -> tuple[float, float, float, int, int]:
    """Wall-clock and CPU seconds (CPU time is what the solve costs on a machine shared with
    other work), the Bellman residual, batched turn solves and their columns."""
    with CountingSolves() as counts:
        start, cpu = time.perf_counter(), time.process_time()
        if kind == "2 players":
            table = winprob.solve_winprob(target, dice, use_cache=False)
        else:
            alone = solo.solve_solo(target, dice, use_cache=False)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    if kind == "2 players":
        residual = winprob.bellman_residual(table)
    else:
        residual = solo.bellman_residual(alone)
    return seconds, cpu, residual, counts.calls, counts.columns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small grid (seconds)")
    parser.add_argument("--all-dice", action="store_true", help="every dice count, target 100")
    parser.add_argument("--only", metavar="TARGET,DICE", help="one variant, e.g. 100,20")
    args = parser.parse_args()
    if args.only:
        target, dice = (int(part) for part in args.only.split(","))
        targets, dice_counts = [target], [dice]
    elif args.quick:
        targets, dice_counts = [1, 25, 60], [1, 2, 13]
    elif args.all_dice:
        targets, dice_counts = [MAX_TARGET], list(range(1, MAX_DICE + 1))
    else:
        targets, dice_counts = [1, 25, MAX_TARGET], [1, 2, 3, 5, 8, 13, 16, MAX_DICE]
    grid = sorted(((t, d) for t in targets for d in dice_counts), key=lambda td: -td[0] * td[1])
    print(
        f"{'table':10} {'target':>6} {'dice':>4} {'seconds':>8} {'cpu s':>8} {'residual':>9}"
        f" {'sweeps':>7}"
    )
    worst: dict[str, tuple[float, float, int, int]] = {}
    largest_residual = 0.0
    for target, dice in grid:
        for kind in ("2 players", "solo"):
            seconds, cpu, residual, calls, columns = measure(kind, target, dice)
            largest_residual = max(largest_residual, residual)
            positions = target * target if kind == "2 players" else target
            print(
                f"{kind:10} {target:6} {dice:4} {seconds:8.2f} {cpu:8.2f} {residual:9.1e} {calls:7}"
                f"  ({columns / positions:.1f} turn columns per position)",
                flush=True,
            )
            if seconds > worst.get(kind, (0.0, 0.0, 0, 0))[0]:
                worst[kind] = (seconds, cpu, target, dice)
    print()
    for kind, (seconds, cpu, target, dice) in worst.items():
        print(
            f"worst case, {kind}: {seconds:.2f} s ({cpu:.2f} s of CPU; target {target},"
            f" {dice} dice)"
        )
    print(f"largest Bellman residual: {largest_residual:.1e}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {peak:.0f} MB")
    print()
    print("one turn solve (a 3+ player decision on a new scoreboard), best of 20:")
    for dice in (1, 13, MAX_DICE):
        utility = np.linspace(0.0, 1.0, turn_model(dice).max_score + 1)
        best = min(_timed(lambda u=utility, d=dice: turn.solve_turn(u, d)) for _ in range(20))
        print(f"  {dice:2} dice: {best * 1e3:.2f} ms")


def _timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
