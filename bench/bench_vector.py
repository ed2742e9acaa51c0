"""Batched Martian Dice speed (not a test): agent steps per second of
:class:`marsdice.vector.martian.MartianVectorEnv` under a uniformly random policy, against
the scalar engine driven directly (the same random policy, dice from ``sample_chance``),
measured in the same run, with the ratio.

Run: .venv/bin/python bench/bench_vector.py [--games N] [--seconds S] [--players P]

An agent step is one player decision (a take, a stop or a roll-again) in one game; the
chance nodes (the dice, roll-offs) are resolved inside it in both engines. Times are CPU
seconds of this process (``time.process_time``), the best of ``--rounds`` rounds, so that
a busy shared machine slows both alike. The target of the research interfaces is 1,000,000
batched steps a second (``docs/research.md``).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from marsdice.martian import Variant, new_game
from marsdice.vector.martian import MartianVectorEnv, random_actions

TARGET = 1_000_000


def vector_rate(games: int, seconds: float, variant: Variant, seed: int) -> float:
    """Batched agent steps per CPU second (random legal actions drawn with numpy)."""
    env = MartianVectorEnv(games, variant, seed=seed)
    rng = np.random.default_rng(seed)
    _, mask = env.reset()
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(10):
            _, _, _, mask = env.step(random_actions(mask, rng))
        steps += 10 * games
    return steps / (time.process_time() - start)


def scalar_rate(seconds: float, variant: Variant, seed: int) -> float:
    """Scalar-engine agent steps per CPU second, the same random policy, one game at a time."""
    rng = random.Random(seed)
    state = new_game(variant)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(1000):
            if state.is_terminal:
                state = new_game(variant)
            if state.is_chance_node:
                state = state.apply(state.sample_chance(rng))
                continue
            state = state.apply(rng.choice(state.legal_actions()))
            steps += 1
    return steps / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=32_768, help="games stepped together")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (the best is kept)")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    variant = Variant(players=args.players)
    vector = max(
        vector_rate(args.games, args.seconds, variant, seed) for seed in range(args.rounds)
    )
    scalar = max(scalar_rate(args.seconds, variant, seed) for seed in range(args.rounds))
    verdict = "meets" if vector >= TARGET else "misses"
    print(
        f"batched Martian Dice, {args.games:,} games, {args.players} players, random policy: "
        f"{vector:,.0f} agent steps/s ({verdict} the {TARGET:,} target)"
    )
    print(f"scalar engine, same policy: {scalar:,.0f} agent steps/s")
    print(f"ratio batched/scalar: {vector / scalar:.1f}x")


if __name__ == "__main__":
    main()
