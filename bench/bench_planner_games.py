"""Seeded Mars Attacks games between planners (or one ``search`` among them): CPU seconds a
game and a digest of every decision and final score (not a test).

The digest is the check for a change meant to make the planner faster without changing its
play: the same arguments before and after must print the same digest. For a before/after
figure, time this script against a checkout of the earlier commit, e.g.
``farm-bench --vs 'env PYTHONPATH=/path/to/old/src .venv/bin/python bench/bench_planner_games.py'
-- .venv/bin/python bench/bench_planner_games.py``.

Run: .venv/bin/python bench/bench_planner_games.py [--games 20] [--seed 4] [--players 3]
[--rule default|subset] (2-6 players) [--search]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time

from marsdice.attacks import RerollRule, Variant
from marsdice.attacks.game import GAME
from marsdice.attacks.state import as_state
from marsdice.bots.attacks_planner import PlannerBot
from marsdice.bots.attacks_search import SearchBot
from marsdice.bots.base import Bot
from marsdice.core.game import play_steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--players", type=int, default=3, choices=range(2, 7))
    parser.add_argument("--rule", choices=("default", "subset"), default="default")
    parser.add_argument("--search", action="store_true", help="the first seat plays search")
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")
    reroll = RerollRule.SUBSET if args.rule == "subset" else RerollRule.ALL
    variant = Variant(players=args.players, reroll=reroll)
    digest = hashlib.sha256()
    start = time.process_time()
    for index in range(args.games):
        rng = random.Random(args.seed * 1000 + index)
        bots: list[Bot] = [PlannerBot() for _ in range(args.players)]
        if args.search:
            bots[0] = SearchBot(seed=index)
        state = GAME.start(variant, rng)
        for step in play_steps(state, [bot.choose for bot in bots], rng):
            if not step.before.is_chance_node:
                digest.update(repr(step.action).encode())
            state = step.after
        digest.update(repr(as_state(state).scores).encode())
    seconds = time.process_time() - start
    print(
        f"{args.games} games ({args.players} players, {args.rule} rerolls"
        f"{', search in seat 1' if args.search else ''}): {seconds / args.games:.3f} CPU s a game;"
        f" digest {digest.hexdigest()[:16]}"
    )


if __name__ == "__main__":
    main()
