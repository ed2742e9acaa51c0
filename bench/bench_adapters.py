"""Moves per second of a uniformly random game, side by side in one run: each engine driven
directly, the same game through the OpenSpiel adapter, and OpenSpiel's C++ ``pig`` (not a
test; the figures in ``docs/research.md`` come from it).

Every driver plays whole games with one seeded ``random.Random``: a uniformly random legal
move at a decision. At a chance node the engine samples its own dice
(``GameState.sample_chance``); the OpenSpiel games (ours and ``pig``) are driven the way
generic OpenSpiel code drives any game: ``chance_outcomes()`` and one uniform draw walked
along the cumulative probabilities. A move is a decision or a chance outcome. The ratios
printed are engine/adapter (target: at most 1.5) and pig/adapter (target: at most 10).

Run: .venv/bin/python bench/bench_adapters.py [--moves 100000] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import pyspiel

import marsdice.adapters.openspiel  # noqa: F401  (registers the games)
from marsdice.games import get_game


def openspiel_moves(game: Any, moves: int, seed: int) -> float:
    """Moves per second of random games through OpenSpiel's API."""
    rng = random.Random(seed)
    done = 0
    start = time.perf_counter()
    while done < moves:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                draw = rng.random()
                total = 0.0
                outcomes = state.chance_outcomes()
                action = outcomes[-1][0]
                for outcome, probability in outcomes:
                    total += probability
                    if draw < total:
                        action = outcome
                        break
                state.apply_action(action)
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            done += 1
    return done / (time.perf_counter() - start)


def engine_moves(name: str, params: dict[str, Any], moves: int, seed: int) -> float:
    """Moves per second of random games driven on the engine's own states."""
    game = get_game(name)
    variant = game.variant_from_params(params)
    rng = random.Random(seed)
    done = 0
    start = time.perf_counter()
    while done < moves:
        state = game.start(variant, rng)
        while not state.is_terminal:
            if state.is_chance_node:
                state = state.apply(state.sample_chance(rng))
            else:
                state = state.apply(rng.choice(state.legal_actions()))
            done += 1
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    pig = pyspiel.load_game("pig", {"players": 2, "winscore": 100})
    pig_rate = openspiel_moves(pig, args.moves * 5, args.seed)
    print(f"OpenSpiel C++ pig (2 players, to 100): {pig_rate:,.0f} moves/s")
    print("| game | engine moves/s | adapter moves/s | engine/adapter | pig/adapter |")
    print("|---|---:|---:|---:|---:|")
    for name, params in (("martian", {"players": 2}), ("attacks", {"players": 2})):
        game = get_game(name)
        loaded = pyspiel.load_game(f"python_marsdice_{name}", params)
        openspiel_moves(loaded, 2_000, args.seed)  # warm the encoded chance lists
        engine = engine_moves(name, params, args.moves, args.seed)
        adapter = openspiel_moves(loaded, args.moves, args.seed)
        print(
            f"| {game.title}, 2 players | {engine:,.0f} | {adapter:,.0f} | "
            f"{engine / adapter:.2f} | {pig_rate / adapter:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
