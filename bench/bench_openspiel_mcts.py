"""OpenSpiel's MCTS (through :mod:`marsdice.adapters.openspiel`) against our Martian Dice bots,
two players: win rates with 95% Wilson intervals (not a test; the table in
``docs/research.md`` comes from it).

MCTS is OpenSpiel's own ``MCTSBot`` with its ``RandomRolloutEvaluator`` (one random rollout
per leaf, UCT constant 2). Random rollouts of Martian Dice are long (about 400 moves in the
rulebook game), so the default is a short game (target 10) and small budgets. Seats
alternate; every game's chance is drawn from one seeded generator.

Run: .venv/bin/python bench/bench_openspiel_mcts.py [--games 100] [--target 10]
     [--simulations 4 16] [--bots random cautious winprob] [--seed 1]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import marsdice.adapters.openspiel  # noqa: F401  (registers the games)
from marsdice.bots.registry import make_bot
from marsdice.games import get_game
from marsdice.tournament import wilson_interval


def play(game: Any, mcts_bot: Any, ours: Any, mcts_seat: int, rng: Any) -> float:
    """One game; MCTS's return (1 win, 0 loss, a share if a roll-off is shared)."""
    martian = get_game("martian")
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        elif state.current_player() == mcts_seat:
            state.apply_action(mcts_bot.step(state))
        else:
            action = ours.choose(state.state)
            state.apply_action(martian.encode_action(state.state, action))
    return float(state.returns()[mcts_seat])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--target", type=int, default=10)
    parser.add_argument("--simulations", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--bots", nargs="+", default=["random", "cautious", "winprob"])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = pyspiel.load_game("python_marsdice_martian", {"players": 2, "target": args.target})
    print(
        f"Martian Dice, 2 players, target {args.target}, "
        f"{args.games} games per row, seed {args.seed}"
    )
    print("| MCTS simulations | opponent | MCTS win rate | 95% interval | seconds |")
    print("|---:|---|---:|---|---:|")
    for simulations in args.simulations:
        for name in args.bots:
            rng = np.random.RandomState(args.seed)
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
            bot = mcts.MCTSBot(game, 2.0, simulations, evaluator, random_state=rng, solve=False)
            ours = make_bot("martian", name, seed=args.seed)
            start = time.perf_counter()
            won = sum(play(game, bot, ours, g % 2, rng) for g in range(args.games))
            low, high = wilson_interval(won, args.games)
            seconds = time.perf_counter() - start
            print(
                f"| {simulations} | {name} | {won / args.games:.2f} | "
                f"{low:.2f}-{high:.2f} | {seconds:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
