"""Published baselines: every pair of a game's bots, two players, through
:func:`marsdice.tournament.run_tournament` (seats rotating, each game seeded from the series
seed and its index), as the markdown rows of ``docs/research.md``'s "Baselines" section.

Not a test. The same figures come from ``marsdice tournament --game GAME -n GAMES --seed SEED
A B`` for each pair; this script only runs the pairs in a row and prints one table.

Run: nice -n 10 .venv/bin/python bench/bench_baselines.py --game martian --games 20000
     [--bots winprob expected cautious random] [--seed 1]
     [--pair-games search,random=300 ...]   (fewer games for a costly pair)
"""

from __future__ import annotations

import argparse
import itertools
import time

from marsdice.bots.registry import available_bots
from marsdice.tournament import run_tournament


def pair_games(specs: list[str]) -> dict[frozenset[str], int]:
    """``A,B=N`` options: the pair's game count."""
    found: dict[frozenset[str], int] = {}
    for spec in specs:
        names, _, count = spec.partition("=")
        found[frozenset(names.split(","))] = int(count)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["martian", "attacks"], default="martian")
    parser.add_argument("--games", type=int, default=1000, help="games per pair")
    parser.add_argument("--bots", nargs="+", help="default: every bot of the game, listed order")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pair-games", nargs="*", default=[], metavar="A,B=N")
    args = parser.parse_args()
    bots = args.bots or list(available_bots(args.game))
    counts = pair_games(args.pair_games)
    print(f"{args.game}, 2 players, seed {args.seed}")
    print("| First bot | Second bot | Games | First bot's win rate | 95% interval | CPU s |")
    print("|---|---|---:|---:|---|---:|")
    for first, second in itertools.combinations(bots, 2):
        games = counts.get(frozenset((first, second)), args.games)
        start = time.process_time()
        result = run_tournament(args.game, [first, second], games=games, seed=args.seed)
        seconds = time.process_time() - start
        standing = result.standings[0]
        print(
            f"| `{first}` | `{second}` | {result.games:,} | {standing.win_rate:.1%} | "
            f"{standing.ci_low:.1%}-{standing.ci_high:.1%} | {seconds:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
