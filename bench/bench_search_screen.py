"""Paired screens of ``search`` settings in Mars Attacks: ``planner planner search``, three
players, seats rotating, every game seeded exactly as ``marsdice tournament`` seeds it (so the
default settings replay that command's games), each setting on the same games.

Prints per setting the search seat's win rate with its 95% Wilson interval, the difference to
a planner seat (``(3w - 1) / 2``, the seats' wins adding up to 1 a game), the paired
difference to the first setting (mean and 95% normal interval over the same games), and the
CPU time of the search bot's decisions (mean over every decision, mean and max over the
searched ones). Without ``--setting``: the plain planner in the search's seat (``horizon=-1
closing=None extra_turn=EXTRA_TURN``), then the shipped ``search``. Not a test.

Run: nice -n 10 .venv/bin/python bench/bench_search_screen.py --games 300 --seed 31 \\
     --setting base --setting wide candidates=4
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from marsdice.attacks.game import GAME
from marsdice.attacks.phases import Phase
from marsdice.attacks.state import as_state
from marsdice.attacks.variant import Variant
from marsdice.bots.attacks_planner import EXTRA_TURN, PlannerBot
from marsdice.bots.attacks_search import SearchBot, captures_to_end
from marsdice.core.game import GameState, Step, play_out
from marsdice.tournament import Z95, wilson_interval

LINEUP = ("planner", "planner", "search")


@dataclass
class Timed:
    """A search bot whose decisions are timed in CPU seconds, each with whether it searched
    (a declaration with a choice, the end at most the bot's horizon away)."""

    bot: SearchBot
    times: list[tuple[float, bool]] = field(default_factory=list)

    def choose(self, state: GameState) -> Any:
        s = as_state(state)
        near = captures_to_end(s) <= self.bot.horizon
        searched = s.phase is Phase.TARGET and len(s.targets()) > 1 and near
        start = time.process_time()
        move = self.bot.choose(state)
        self.times.append((time.process_time() - start, searched))
        return move


def _lineup(index: int) -> tuple[str, ...]:
    """The seats of game ``index``: the tournament rotates the lineup from game to game."""
    shift = index % len(LINEUP)
    return LINEUP[shift:] + LINEUP[:shift]


def search_seat(index: int) -> int:
    """The search's seat in game ``index``."""
    return _lineup(index).index("search")


def seat_game(index: int, seed: int, make: Callable[[int], Any]) -> float:
    """Game ``index`` as the tournament plays it, with ``make(bot_seed)`` in the search's seat
    and planners in the others; that seat's return."""
    final, where = seated_game(index, seed, make)
    return float(final.returns()[where])


def seated_game(
    index: int,
    seed: int,
    make: Callable[[int], Any],
    on_step: Callable[[Step], None] | None = None,
) -> tuple[GameState, int]:
    """Game ``index`` as the tournament plays it (see :func:`seat_game`), each step passed to
    ``on_step``: the final state and the search's seat."""
    seats = _lineup(index)
    rng = random.Random(f"{seed}:{index}")
    bots: list[Any] = []
    where = -1
    for i, name in enumerate(seats):
        bot_seed = rng.randrange(2**32)
        if name == "search":
            bots.append(make(bot_seed))
            where = i
        else:
            bots.append(PlannerBot(seed=bot_seed))
    start = GAME.start(Variant(players=3), rng)
    return play_out(start, [bot.choose for bot in bots], rng, on_step=on_step).final, where


def play(index: int, seed: int, settings: dict[str, Any], times: list[tuple[float, bool]]) -> float:
    """Game ``index`` with ``SearchBot(**settings)`` in the search's seat, its decisions timed
    into ``times``; the seat's return."""
    timed: list[Timed] = []

    def make(bot_seed: int) -> Timed:
        timed.append(Timed(SearchBot(seed=bot_seed, **settings)))
        return timed[0]

    result = seat_game(index, seed, make)
    times += timed[0].times
    return result


def parse(words: list[str]) -> tuple[str, dict[str, Any]]:
    """``NAME key=value ...``: a setting's name and SearchBot keyword arguments."""
    settings: dict[str, Any] = {}
    for word in words[1:]:
        key, _, text = word.partition("=")
        settings[key] = eval(text, {})  # numbers and booleans from the command line
    return words[0], settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--first", type=int, default=0, help="index of the first game")
    parser.add_argument("--setting", nargs="+", action="append")
    args = parser.parse_args()
    if not args.setting:  # the shipped search against the plain planner in its seat
        plain = ["planner", "horizon=-1", "closing=None", f"extra_turn={EXTRA_TURN}"]
        args.setting = [plain, ["search"]]
    names: list[str] = []
    configs: list[dict[str, Any]] = []
    results: list[list[float]] = []
    times: list[list[tuple[float, bool]]] = []
    for words in args.setting:
        try:  # a setting's values and names are checked before any game
            name, settings = parse(words)
            SearchBot(**settings)
        except (SyntaxError, NameError, TypeError, ValueError) as error:
            parser.error(f"setting {' '.join(words)!r}: {error}")
        names.append(name)
        configs.append(settings)
        results.append([])
        times.append([])
    indices = range(args.first, args.first + args.games)
    for index in indices:
        for k, settings in enumerate(configs):
            results[k].append(play(index, args.seed, settings, times[k]))
        if (index - args.first + 1) % 50 == 0:
            line = ", ".join(
                f"{n} {sum(r) / len(r):.3f}" for n, r in zip(names, results, strict=True)
            )
            print(f"after {index - args.first + 1} games: {line}", flush=True)
    games = len(indices)
    print(f"seed {args.seed}, games {args.first}-{args.first + games - 1} ({games})")
    print("| setting | search win rate | 95% | vs a planner seat | paired vs first | CPU ms |")
    for k, name in enumerate(names):
        won = sum(results[k])
        w = won / games
        low, high = wilson_interval(won, games)
        diffs = [a - b for a, b in zip(results[k], results[0], strict=True)]
        mean = sum(diffs) / games
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(1, games - 1))
        half = Z95 * sd / math.sqrt(games)
        every = [t for t, _ in times[k]]
        searched = [t for t, was in times[k] if was] or [0.0]
        cpu = (
            f"all {1000 * sum(every) / len(every):.1f}, searched "
            f"{1000 * sum(searched) / len(searched):.0f} (max {1000 * max(searched):.0f}, "
            f"n {len(searched)})"
        )
        print(
            f"| {name} | {w:.1%} | {low:.1%}-{high:.1%} | {(3 * w - 1) / 2:+.1%} "
            f"({(3 * low - 1) / 2:+.1%} to {(3 * high - 1) / 2:+.1%}) | "
            f"{mean:+.3f} ± {half:.3f} | {cpu} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
