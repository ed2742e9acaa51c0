"""What one simulation of OpenSpiel's MCTS costs on Martian Dice through the adapter: CPU
milliseconds per simulation, the figure behind ``bench/bench_openspiel_mcts.py``'s times.

The bot is the one that benchmark plays (``MCTSBot``, ``RandomRolloutEvaluator`` with one
random rollout per leaf, UCT constant 2); it is asked for a move at the decisions of seeded
random games until ``--moves`` moves have been timed, for each budget. A simulation is one
descent of the tree plus one random rollout to the end of the game, so its cost is mostly
that rollout: it grows with the target. Not a test.

Run: nice -n 10 .venv/bin/python bench/bench_mcts_cost.py [--moves 40] [--target 10]
     [--simulations 4 16] [--seed 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import marsdice.adapters.openspiel  # noqa: F401  (registers the games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--target", type=int, default=10)
    parser.add_argument("--simulations", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = pyspiel.load_game("python_marsdice_martian", {"players": 2, "target": args.target})
    print(f"Martian Dice, 2 players, target {args.target}, {args.moves} moves timed per budget")
    for simulations in args.simulations:
        rng = np.random.RandomState(args.seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        bot = mcts.MCTSBot(game, 2.0, simulations, evaluator, random_state=rng, solve=False)
        timed = 0
        seconds = 0.0
        state = game.new_initial_state()
        while timed < args.moves:
            if state.is_terminal():
                state = game.new_initial_state()
            elif state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probs)))
            else:
                start = time.process_time()
                bot.step(state)
                seconds += time.process_time() - start
                timed += 1
                state.apply_action(int(rng.choice(state.legal_actions())))
        per = 1000 * seconds / (timed * simulations)
        print(
            f"{simulations} simulations: {1000 * seconds / timed:.0f} ms CPU per move, "
            f"{per:.1f} ms per simulation",
            flush=True,
        )


if __name__ == "__main__":
    main()
