"""Where the ``search`` seat's games are decided, in ``planner planner search`` games seeded
as ``marsdice tournament`` seeds them: at the capture that triggers the end, who made it and
whether the search seat was then ahead, level or behind, against how each game ended for
that seat (a win, a shared win, a loss). Not a test.

Run: .venv/bin/python bench/bench_search_anatomy.py [--games 300] [--seed 94]
"""

from __future__ import annotations

import argparse
from collections import Counter

from bench_search_screen import search_seat, seated_game  # the tournament's games (run from bench/)
from marsdice.attacks.state import as_state
from marsdice.bots.attacks_search import SearchBot
from marsdice.core.game import Step


def anatomy(index: int, seed: int) -> tuple[str, str, str]:
    """Game ``index``: (who triggered the end, the search seat's standing then, its result)."""
    where = search_seat(index)
    found: dict[str, str] = {}

    def on_step(step: Step) -> None:
        after = as_state(step.after)
        if "by" in found or not after.end_triggered:
            return
        found["by"] = "search" if as_state(step.before).seat == where else "a planner"
        mine = after.scores[where]
        best = max(v for seat, v in enumerate(after.scores) if seat != where)
        found["then"] = "ahead" if mine > best else "level" if mine == best else "behind"

    final, _ = seated_game(index, seed, lambda bot_seed: SearchBot(seed=bot_seed), on_step)
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
