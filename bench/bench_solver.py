"""Solver speed: the expected-score table, the full two-player win-probability solve, the solo
table, and the solver bots' decision time once tables exist (not a test).

Run: .venv/bin/python bench/bench_solver.py
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import cache

import numpy as np

from marsdice.bots import make_bot
from marsdice.core.dice import dice_outcomes
from marsdice.martian import Variant, new_game
from marsdice.martian.rules import FACE_PROBABILITIES, allowed_faces, score_turn
from marsdice.solve.model import turn_model
from marsdice.solve.solo import solve_solo
from marsdice.solve.turn import solve_turn
from marsdice.solve.winprob import bellman_residual, solve_winprob


def best_of(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def naive_expected_score() -> float:
    """A straightforward memoised pure-Python solver over (tanks, rays, humans, cows,
    chickens) set aside, the way one would first write it."""
    outcomes = {
        n: [(c, float(p)) for c, p in dice_outcomes(n, FACE_PROBABILITIES)] for n in range(14)
    }

    @cache
    def decide(aside: tuple[int, ...]) -> float:
        banked = score_turn(aside)
        return banked if sum(aside) == 13 else max(banked, roll(aside))

    @cache
    def roll(aside: tuple[int, ...]) -> float:
        total = 0.0
        for counts, p in outcomes[13 - sum(aside)]:
            after = (aside[0] + counts[0], *aside[1:])
            faces = allowed_faces(counts, after)
            if not faces:
                total += p * score_turn(after)
                continue
            total += p * max(
                decide(tuple(a + (counts[i] if i == f else 0) for i, a in enumerate(after)))
                for f in faces
            )
        return total

    return roll((0, 0, 0, 0, 0))


def main() -> None:
    start = time.perf_counter()
    model = turn_model.__wrapped__(13)  # a fresh build, bypassing the process cache
    build = time.perf_counter() - start
    turn_model(13)
    scores = np.arange(17, dtype=np.float64)
    solve = best_of(lambda: solve_turn(scores), 20)
    value = solve_turn(scores).turn_value()
    start = time.perf_counter()
    naive = naive_expected_score()
    naive_time = time.perf_counter() - start
    print(
        f"expected-score table: {1000 * (build + solve):.1f} ms from scratch "
        f"(graph {1000 * build:.1f} ms, {model.node_count} nodes, + solve {1000 * solve:.2f} ms); "
        f"value {value:.10f}"
    )
    print(
        f"memoised pure-Python solver: {naive_time:.2f} s (value {naive:.10f}); "
        f"{naive_time / (build + solve):,.0f}x slower from scratch, "
        f"{naive_time / solve:,.0f}x slower than a solve"
    )

    start = time.perf_counter()
    table = solve_winprob(use_cache=False)
    wp_time = time.perf_counter() - start
    print(
        f"full 2-player win-probability solve: {wp_time:.2f} s; first seat wins "
        f"{table.first[0, 0]:.10f} from 0-0; Bellman residual {bellman_residual(table):.1e}"
    )
    start = time.perf_counter()
    solo = solve_solo(use_cache=False)
    print(
        f"solo table: {time.perf_counter() - start:.2f} s; "
        f"expected turns to 25: {solo.expected_turns(0):.6f}"
    )

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        solve_winprob(cache_dir=tmp)
        stored = time.perf_counter() - start
        start = time.perf_counter()
        solve_winprob(cache_dir=tmp)
        loaded = time.perf_counter() - start
    print(f"table cache: solve+store {stored:.2f} s, load {1000 * loaded:.1f} ms")

    # load the tables (disk cache) and build the turn graph once, as a running program has
    for players in (2, 3):
        opening = new_game(Variant(players=players))
        opening = opening.apply(opening.sample_chance(random.Random(0)))
        for name in ("expected", "winprob"):
            if not opening.is_chance_node:
                make_bot("martian", name).choose(opening)
    decisions: dict[tuple[str, int], list[float]] = {}
    for players in (2, 3):
        for seed in range(150):
            rng = random.Random(seed)
            names = ["winprob", "expected", "winprob"][:players]
            bots = [make_bot("martian", name) for name in names]
            state = new_game(Variant(players=players))
            while not state.is_terminal:
                if state.is_chance_node:
                    state = state.apply(state.sample_chance(rng))
                    continue
                bot = bots[state.current_player]
                begin = time.perf_counter()
                action = bot.choose(state)
                elapsed = time.perf_counter() - begin
                decisions.setdefault((bot.name, players), []).append(elapsed)
                state = state.apply(action)
    for (name, players), times in sorted(decisions.items()):
        times.sort()
        print(
            f"{name} bot decision, {players} players (tables on hand): median "
            f"{1e3 * statistics.median(times):.3f} ms, 99th percentile "
            f"{1e3 * times[int(0.99 * len(times))]:.3f} ms, max {1e3 * times[-1]:.2f} ms "
            f"over {len(times)} decisions"
        )


if __name__ == "__main__":
    main()
