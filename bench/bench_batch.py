"""Batch simulation speed: turns per second of the expected-score policy and games per second,
against the object engine playing die by die (not a test).

Run: .venv/bin/python bench/bench_batch.py
"""

from __future__ import annotations

import random
import time

import numpy as np

from marsdice.bots.martian_solver import ExpectedScoreBot
from marsdice.martian import new_game
from marsdice.solve.batch import (
    expected_chain,
    expected_policy,
    simulate_games,
    simulate_turns,
    solo_policies,
    two_player_policies,
)


def engine_turns(seconds: float) -> float:
    """Turns per second with the object engine and the expected-score bot."""
    bot = ExpectedScoreBot()
    rng = random.Random(1)
    turns = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = new_game()
        while state.turns[0] == 0:
            if state.is_chance_node:
                state = state.apply(state.sample_chance(rng))
            else:
                state = state.apply(bot.choose(state))
        turns += 1
    return turns / (time.perf_counter() - start)


def rate(count: int, run: object) -> float:
    start = time.perf_counter()
    run()  # type: ignore[operator]
    return count / (time.perf_counter() - start)


def main() -> None:
    rng = np.random.default_rng(1)
    chain, tables = expected_chain(), expected_policy()
    two_player_policies()  # build the per-position policies once (tables from the disk cache)
    solo_policies()
    simulate_turns(chain, 10_000, rng)
    n = 4_000_000
    turns = rate(n, lambda: simulate_turns(chain, n, rng))
    general = rate(n, lambda: simulate_turns(tables, n, rng))
    engine = engine_turns(2.0)
    print(
        f"batch turns, expected-score policy: {turns:,.0f} turns/s ({n:,} turns; "
        f"{general:,.0f} turns/s through the general per-column tables); object engine with "
        f"the expected-score bot: {engine:,.0f} turns/s; {turns / engine:,.0f}x"
    )
    games = 200_000
    for lineup in [("expected", "expected"), ("winprob", "expected"), ("winprob", "winprob")]:
        speed = rate(games, lambda lineup=lineup: simulate_games(lineup, games, rng))
        print(f"batch 2-player games, {' vs '.join(lineup)}: {speed:,.0f} games/s")
    speed = rate(games, lambda: simulate_games(("winprob",), games, rng))
    print(f"batch solo games, fewest-turns policy: {speed:,.0f} games/s")
    games = 3_000
    speed = rate(games, lambda: simulate_games(("winprob", "expected", "expected"), games, rng))
    print(
        f"batch 3-player games, winprob (approximation, solved per scoreboard) vs 2 expected: "
        f"{speed:,.0f} games/s"
    )


if __name__ == "__main__":
    main()
