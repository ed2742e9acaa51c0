"""Where the ``search`` seat's games are decided, in ``planner planner search`` games seeded
as ``marsdice tournament`` seeds them: at the capture that triggers the end, who made it and
whether the search seat was then ahead, level or behind, against how each game ended for
that seat (a win, a shared win, a loss). Not a test.

Run: .venv/bin/python bench/bench_search_anatomy.py [--games 300] [--seed 94]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from typing import Any

from bench_search_screen import LINEUP  # the tournament's seating (run from bench/)
from marsdice.attacks.game import GAME
from marsdice.attacks.state import as_state
from marsdice.attacks.variant import Variant
from marsdice.bots.attacks_planner import PlannerBot
from marsdice.bots.attacks_search import SearchBot
from marsdice.core.game import Step, play_out


def anatomy(index: int, seed: int) -> tuple[str, str, str]:
    """Game ``index``: (who triggered the end, the search seat's standing then, its result)."""
    shift = index % len(LINEUP)
    seats = LINEUP[shift:] + LINEUP[:shift]
    rng = random.Random(f"{seed}:{index}")
    bots: list[Any] = []
    for name in seats:
        bot_seed = rng.randrange(2**32)
        bots.append(SearchBot(seed=bot_seed) if name == "search" else PlannerBot(seed=bot_seed))
    where = seats.index("search")
    found: dict[str, str] = {}

    def on_step(step: Step) -> None:
        after = as_state(step.after)
        if "by" in found or not after.end_triggered:
            return
        found["by"] = "search" if as_state(step.before).seat == where else "a planner"
        mine = after.scores[where]
        best = max(v for seat, v in enumerate(after.scores) if seat != where)
        found["then"] = "ahead" if mine > best else "level" if mine == best else "behind"

    start = GAME.start(Variant(players=3), rng)
    final = play_out(start, [bot.choose for bot in bots], rng, on_step=on_step).final
    share = final.returns()[where]
    result = "win" if share >= 1 else "shared" if share > 0 else "loss"
    return found.get("by", "nobody"), found.get("then", "-"), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=94)
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")
    tally = Counter(anatomy(index, args.seed) for index in range(args.games))
    print(f"seed {args.seed}, {args.games} games")
    print("| end triggered by | search seat then | result | games |")
    print("|---|---|---|---:|")
    for (by, then, result), count in sorted(tally.items(), key=lambda item: -item[1]):
        print(f"| {by} | {then} | {result} | {count} |")


if __name__ == "__main__":
    main()
