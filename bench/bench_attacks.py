"""Mars Attacks speed: engine moves per second under random play, and how long the planner
takes per decision (mean, 90th and 99th percentile, worst) under the default and the subset
reroll rules (not a test).

Run: .venv/bin/python bench/bench_attacks.py
"""

from __future__ import annotations

import random
import statistics
import time

from marsdice.attacks import RerollRule, Variant
from marsdice.attacks.game import GAME
from marsdice.attacks.solver import solver_for
from marsdice.bots.attacks_planner import PlannerBot
from marsdice.core.game import chance_agent, play_out


def engine_moves(seconds: float) -> float:
    """Moves (chance and decisions) per second, random legal play, 4 players."""
    rng = random.Random(1)
    moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = GAME.start(Variant(players=4), rng)
        moves += len(play_out(state, [chance_agent(rng)] * 4, rng).actions)
    return moves / (time.perf_counter() - start)


def planner_times(variant: Variant, games: int) -> list[float]:
    """Seconds per planner decision over some self-play games (solver cache cleared first)."""
    solver_for.cache_clear()
    times: list[float] = []
    bot = PlannerBot()

    def timed(state: object) -> object:
        begin = time.perf_counter()
        action = bot.choose(state)  # type: ignore[arg-type]
        times.append(time.perf_counter() - begin)
        return action

    for seed in range(games):
        rng = random.Random(seed)
        play_out(GAME.start(variant, rng), [timed] * variant.players, rng)  # type: ignore[list-item]
    return sorted(times)


def main() -> None:
    print(f"engine, random play: {engine_moves(3.0):,.0f} moves/s")
    for rule in RerollRule:
        times = planner_times(Variant(players=3, reroll=rule), games=10)
        ms = [1000 * t for t in times]
        print(
            f"planner, reroll={rule.value}: {len(ms)} decisions, mean {statistics.mean(ms):.1f} ms,"
            f" p90 {ms[int(0.9 * len(ms))]:.1f} ms, p99 {ms[int(0.99 * len(ms))]:.1f} ms,"
            f" max {ms[-1]:.1f} ms"
        )


if __name__ == "__main__":
    main()
