"""Moves per second of a uniformly random game, side by side in one run: each engine driven
directly, the same game through the OpenSpiel adapter, and OpenSpiel's C++ ``pig`` (not a
test; the figures in ``docs/research.md`` come from it).

Every driver plays whole games with one seeded ``random.Random``: a uniformly random legal
move at a decision. At a chance node the engine samples its own dice
(``GameState.sample_chance``); the OpenSpiel games (ours and ``pig``) are driven the way
generic OpenSpiel code drives any game: ``chance_outcomes()`` and one uniform draw walked
along the cumulative probabilities. A move is a decision or a chance outcome. The ratios
printed are engine/adapter (target: at most 1.5) and pig/adapter (target: at most 10), in
moves a second as the targets are set, and engine/adapter per game: the time of a game
through the adapter over that of a game on the engine. They differ for Mars Attacks, whose
hidden deal is 8 chance moves of OpenSpiel's game (counted as moves of the adapter) but part
of the engine's ``start`` (no move), so a game through the adapter has some 56 moves against
49 on the engine and the ratio in moves a second flatters the adapter.

On a shared machine the load changes while the drivers run one after the other, so they
take turns: ``--rounds`` rounds, each playing ``--moves / --rounds`` moves with every
driver (pig five times as many), the games of round k seeded ``seed + k``. Two figures per
driver, and a ratio from each:

- *all rounds*: every move it made over the time of every round (the headline: costs that
  come now and then, a full garbage collection or a cache refilled, count as they come);
- *best round*: its fastest round, the one least disturbed by the rest of the machine. With
  short rounds it leaves out just those occasional costs, and more so for a driver that
  has more of them, so it flatters the adapter; with few long rounds it is at the mercy
  of the machine's worst moments.

The adapters' encoded chance lists are built before (a few games of another seed), not
timed. ``--cpu`` times CPU seconds of this process (``time.process_time``) instead of
wall-clock seconds: on a crowded machine, the time the drivers waited for a core is left
out.

Run: .venv/bin/python bench/bench_adapters.py [--moves 100000] [--rounds 20] [--seed 1] [--cpu]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any, Final

import pyspiel

import marsdice.adapters.openspiel  # noqa: F401  (registers the games)
from marsdice.games import get_game

#: the clock the drivers read (``--cpu``: CPU seconds)
clock: Callable[[], float] = time.perf_counter
#: OpenSpiel's C++ reference game and its parameters
PIG: Final = ("pig", {"players": 2, "winscore": 100})
#: pig's moves per move of the other drivers (its moves are cheap)
PIG_SHARE: Final = 5
#: our games as the drivers play them: name and parameters
GAMES: Final = (("martian", {"players": 2}), ("attacks", {"players": 2}))
#: moves played before the timing (of another seed) to build the adapters' encoded lists
WARM_UP: Final = 2_000


def openspiel_moves(game: Any, moves: int, seed: int) -> tuple[int, float, int]:
    """Random games through OpenSpiel's API, at least ``moves`` moves (whole games): the
    moves made, the seconds they took and the games played."""
    rng = random.Random(seed)
    done = games = 0
    start = clock()
    while done < moves:
        games += 1
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
    return done, clock() - start, games


def engine_moves(
    name: str, params: dict[str, Any], moves: int, seed: int
) -> tuple[int, float, int]:
    """Random games driven on the engine's own states: as :func:`openspiel_moves`."""
    game = get_game(name)
    variant = game.variant_from_params(params)
    rng = random.Random(seed)
    done = games = 0
    start = clock()
    while done < moves:
        games += 1
        state = game.start(variant, rng)
        while not state.is_terminal:
            if state.is_chance_node:
                state = state.apply(state.sample_chance(rng))
            else:
                state = state.apply(rng.choice(state.legal_actions()))
            done += 1
    return done, clock() - start, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cpu", action="store_true", help="time CPU seconds, not wall-clock")
    args = parser.parse_args()
    global clock
    clock = time.process_time if args.cpu else time.perf_counter
    rounds = max(1, args.rounds)
    share = max(1, args.moves // rounds)
    pig = pyspiel.load_game(*PIG)
    games = GAMES
    loaded = {name: pyspiel.load_game(f"python_marsdice_{name}", p) for name, p in games}
    for game in loaded.values():
        openspiel_moves(game, WARM_UP, args.seed - 1)  # build the encoded chance lists
    best: dict[str, float] = {}  # each driver's best round: moves a second
    best_games: dict[str, float] = {}  # and games a second
    made: dict[str, tuple[int, float, int]] = {}  # over all rounds: moves, seconds, games
    for k in range(rounds):
        seed = args.seed + k
        runs = {"pig": openspiel_moves(pig, share * PIG_SHARE, seed)}
        for name, params in games:
            runs[f"{name} engine"] = engine_moves(name, params, share, seed)
            runs[f"{name} adapter"] = openspiel_moves(loaded[name], share, seed)
        for key, (moves, elapsed, played) in runs.items():
            best[key] = max(best.get(key, 0.0), moves / elapsed)
            best_games[key] = max(best_games.get(key, 0.0), played / elapsed)
            total_moves, total_seconds, total_games = made.get(key, (0, 0.0, 0))
            made[key] = (total_moves + moves, total_seconds + elapsed, total_games + played)
    overall = {key: moves / elapsed for key, (moves, elapsed, _) in made.items()}
    overall_games = {key: played / elapsed for key, (_, elapsed, played) in made.items()}
    clock_name = "CPU seconds" if args.cpu else "wall-clock seconds"
    pig_moves = share * PIG_SHARE
    print(f"{rounds} rounds of {share:,} moves each per driver, pig {pig_moves:,}; {clock_name}")
    for label, rate, game_rate in (
        ("all rounds", overall, overall_games),
        ("best round", best, best_games),
    ):
        pig_rate = rate["pig"]
        print(f"\n{label}: OpenSpiel C++ pig (2 players, to 100) {pig_rate:,.0f} moves/s")
        print(
            "| game | engine moves/s | adapter moves/s | engine/adapter | pig/adapter "
            "| engine/adapter per game |"
        )
        print("|---|---:|---:|---:|---:|---:|")
        for name, _ in games:
            engine, adapter = rate[f"{name} engine"], rate[f"{name} adapter"]
            per_game = game_rate[f"{name} engine"] / game_rate[f"{name} adapter"]
            print(
                f"| {get_game(name).title}, 2 players | {engine:,.0f} | {adapter:,.0f} | "
                f"{engine / adapter:.2f} | {pig_rate / adapter:.1f} | {per_game:.2f} |",
                flush=True,
            )
    print("\ntargets: engine/adapter at most 1.5, pig/adapter at most 10 (all rounds)")


if __name__ == "__main__":
    main()
