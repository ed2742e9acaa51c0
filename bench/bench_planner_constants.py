"""Paired screens of the planner's constants in the ``search`` seat of Mars Attacks games
(``planner planner search``, three players, seats rotating, every game seeded as ``marsdice
tournament`` seeds it): the search seat is played by the planner with the search's end-aware
values and extra-turn value and nothing searched (``SearchBot(horizon=-1)``'s play), once as
shipped (``base``) and once per setting with module constants of
``marsdice.bots.attacks_planner`` changed for that seat alone (a private copy of the module;
the other seats keep the shipped planner). ``EXTRA_TURN=x`` sets the seat's extra-turn value; a
constant that is a table (``GREEN``) is scaled by the number given. Prints each setting's win
rate in the search seat and its paired difference to ``base`` over the same games (mean and 95%
normal interval). Not a test.

Run: nice -n 10 .venv/bin/python bench/bench_planner_constants.py --seed 74 --games 400 \\
     ALPHA=0.3 DENIAL=0.6 EXTRA_TURN=1.5 GREEN=2
"""

from __future__ import annotations

import argparse
import importlib.util
import math
from collections.abc import Callable
from typing import Any

import marsdice.bots.attacks_planner as shipped
from bench_search_screen import seat_game  # the same seeded games (run from bench/)
from marsdice.bots.attacks_planner import CLOSING
from marsdice.tournament import Z95


def planner_with(constants: dict[str, Any]) -> Callable[[int], Any]:
    """A maker of planners (the search's values) from a private copy of the planner's module
    with ``constants`` set."""
    spec = importlib.util.spec_from_file_location("planner_copy", shipped.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, value in constants.items():
        if not hasattr(module, name):
            raise SystemExit(f"the planner has no constant {name}")
        old = getattr(module, name)
        if isinstance(old, dict):
            value = {key: item * value for key, item in old.items()}
        setattr(module, name, value)
    extra = constants.get("EXTRA_TURN", shipped.SEARCH_EXTRA_TURN)
    return lambda bot_seed: module.PlannerBot(closing=CLOSING, extra_turn=extra)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=74)
    parser.add_argument(
        "setting",
        nargs="*",
        default=["EXTRA_TURN=1.5"],
        help="NAME=value, a constant of the planner (default: EXTRA_TURN=1.5)",
    )
    args = parser.parse_args()
    settings: list[tuple[str, dict[str, Any]]] = [("base", {})]
    for word in args.setting:
        name, _, text = word.partition("=")
        try:
            settings.append((word, {name: float(text)}))
        except ValueError:
            parser.error(f"{word!r}: a setting is NAME=number")
    makers = [planner_with(constants) for _, constants in settings]
    results: list[list[float]] = [[] for _ in settings]
    for index in range(args.games):
        for k, make in enumerate(makers):
            results[k].append(seat_game(index, args.seed, make))
    games = args.games
    print(f"seed {args.seed}, {games} games")
    for (name, _), result in zip(settings, results, strict=True):
        diffs = [a - b for a, b in zip(result, results[0], strict=True)]
        mean = sum(diffs) / games
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(1, games - 1))
        print(
            f"{name}: win rate {sum(result) / games:.3f}, paired "
            f"{mean:+.3f} ± {Z95 * sd / math.sqrt(games):.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
