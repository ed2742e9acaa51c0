"""OpenSpiel's MCTS plays Martian Dice through marsdice's OpenSpiel adapter, against one of our
bots (needs ``pip install 'marsdice[research]'``).

Run: python examples/openspiel_mcts.py [--opponent cautious] [--games 4] [--simulations 16]
     [--target 10] [--seed 1]
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import marsdice.adapters.openspiel  # noqa: F401  (registers python_marsdice_martian)
from marsdice.bots.registry import make_bot
from marsdice.games import get_game


def main() -> None:
    parser = argparse.ArgumentParser(description="OpenSpiel's MCTS against a marsdice bot")
    parser.add_argument("--opponent", default="cautious")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=16)
    parser.add_argument("--target", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    game = pyspiel.load_game("python_marsdice_martian", {"players": 2, "target": args.target})
    rng = np.random.RandomState(args.seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    searcher = mcts.MCTSBot(game, 2.0, args.simulations, evaluator, random_state=rng)
    opponent = make_bot("martian", args.opponent, seed=args.seed)
    martian = get_game("martian")
    wins = 0.0
    for number in range(args.games):
        mcts_seat = number % 2  # take turns going first
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():  # the dice: exact outcomes and probabilities
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probs)))
            elif state.current_player() == mcts_seat:
                state.apply_action(searcher.step(state))
            else:  # our bot reads the engine's state the adapter wraps
                action = opponent.choose(state.state)
                state.apply_action(martian.encode_action(state.state, action))
        result = state.returns()[mcts_seat]
        wins += result
        print(f"game {number + 1}: MCTS seat {mcts_seat + 1}, {state}, MCTS scores {result}")
    budget = f"MCTS ({args.simulations} simulations)"
    print(f"{budget} won {wins:g} of {args.games} against {args.opponent}")


if __name__ == "__main__":
    main()
