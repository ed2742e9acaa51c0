"""Reference-engine speed (not a test): full games per second with the object engine, then
random-play moves per CPU-second of both engines, this tree against a git revision measured
in the same run.

Run: .venv/bin/python bench/bench_engine.py [--against REV] [--rounds N]

The comparison makes a temporary ``git worktree`` of ``REV`` (default: ``HEAD`` when the
engines have uncommitted changes, else ``HEAD~1``), then plays the same seeded random games
in fresh subprocesses with ``PYTHONPATH`` pointing at each tree in turn (the order swapped
every round, so drift on a shared machine hits both), and prints the median over the rounds
of moves per CPU-second (``time.process_time``, the play loop only) and the ratio new/old.
Both trees must play the very same games; the bench says so if they do not.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from marsdice.bots import make_bot
from marsdice.core.game import play_out
from marsdice.martian import Variant, new_game

ROOT = Path(__file__).resolve().parent.parent
#: the engines' sources: uncommitted changes here make ``HEAD`` the default reference
ENGINES = ("src/marsdice/martian", "src/marsdice/attacks", "src/marsdice/core")
#: seeded random games per engine and round (Martian Dice random games are long)
GAMES = {"martian": 300, "attacks": 150}


def play(seed: int) -> int:
    rng = random.Random(seed)
    bots = [make_bot("martian", "cautious"), make_bot("martian", "cautious")]
    final = play_out(new_game(Variant(players=2)), [bot.choose for bot in bots], rng).final
    return sum(final.turns)


def reference() -> None:
    """What this bench has always printed: cautious bots on this tree, wall-clock."""
    games = 300
    start = time.perf_counter()
    turns = sum(play(seed) for seed in range(games))
    elapsed = time.perf_counter() - start
    print(
        f"reference engine, cautious vs cautious: {games / elapsed:,.0f} games/s, "
        f"{turns / elapsed:,.0f} turns/s ({games} games, {turns} turns, {elapsed:.2f} s)"
    )


# --- the random-play workload, run in a subprocess on one tree ----------------------------


def random_play(game: str, games: int) -> dict[str, Any]:
    """Seeded uniformly random games from the opening (dice and deals from the same
    generator): the moves, their CPU time, and each game's length and returns (to check that
    both trees play the same games). Only engine calls every tree has are used."""
    import marsdice
    from marsdice import attacks, martian

    moves = 0
    cpu = 0.0
    results: list[list[Any]] = []
    for seed in range(games):
        rng = random.Random(seed)
        if game == "martian":
            state: Any = martian.new_game(martian.Variant(players=2))
        else:
            variant = attacks.Variant(players=2 + seed % 3)
            state = attacks.new_game(variant, attacks.deal(variant, rng))
        played = 0
        start = time.process_time()
        while not state.is_terminal:
            if state.is_chance_node:
                action = state.sample_chance(rng)
            else:
                action = rng.choice(state.legal_actions())
            state = state.apply(action)
            played += 1
        cpu += time.process_time() - start
        moves += played
        results.append([played, list(state.returns())])
    return {"moves": moves, "cpu": cpu, "results": results, "package": marsdice.__file__}


def worker(game: str, games: int) -> None:
    print(json.dumps(random_play(game, games)))


# --- the comparison -----------------------------------------------------------------------


def git(*args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True, timeout=120
    )
    return done.stdout.strip()


def default_revision() -> str:
    """``HEAD`` when the engines have uncommitted changes (this tree is the change), else
    the commit before ``HEAD`` (the last commit is the change)."""
    changed = git("status", "--porcelain", "--", *ENGINES)
    return "HEAD" if changed else "HEAD~1"


def measure(tree: Path, game: str, games: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTHONHASHSEED": "0"}
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", game, str(games)]
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(done.stdout)
    if not Path(result["package"]).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"the worker imported {result['package']}, not the tree {tree}")
    return result


def compare(revision: str, rounds: int) -> None:
    commit = git("rev-parse", "--short", revision)
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as scratch:
        old_tree = Path(scratch) / "old"
        git("worktree", "add", "--detach", str(old_tree), revision)
        try:
            trees = {"old": old_tree, "new": ROOT}
            print(
                f"\nrandom play, moves per CPU-second, median of {rounds} rounds: "
                f"old = {revision} ({commit}), new = this tree"
            )
            print(f"{'game':<10} {'old':>12} {'new':>12} {'new/old':>8}  (moves per round)")
            for game, games in GAMES.items():
                rates: dict[str, list[float]] = {"old": [], "new": []}
                seen: dict[str, Any] = {}
                for number in range(rounds):
                    order = ("old", "new") if number % 2 == 0 else ("new", "old")
                    for which in order:
                        result = measure(trees[which], game, games)
                        rates[which].append(result["moves"] / result["cpu"])
                        seen[which] = result["results"]
                old = statistics.median(rates["old"])
                new = statistics.median(rates["new"])
                moves = sum(played for played, _ in seen["new"])
                print(f"{game:<10} {old:>12,.0f} {new:>12,.0f} {new / old:>7.2f}x  ({moves:,})")
                if seen["old"] != seen["new"]:
                    print(f"  warning: the two trees played different {game} games")
        finally:
            git("worktree", "remove", "--force", str(old_tree))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", metavar="REV", help="git revision to compare with")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per game (median)")
    parser.add_argument("--no-compare", action="store_true", help="only the reference line")
    parser.add_argument("--worker", nargs=2, metavar=("GAME", "GAMES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]))
        return
    reference()
    if not args.no_compare:
        compare(args.against or default_revision(), max(1, args.rounds))


if __name__ == "__main__":
    main()
