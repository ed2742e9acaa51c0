"""Bots by name, per game. Factories import their modules lazily so that listing bots, or
using a simple one, never loads numpy or solver tables."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Final

from marsdice.bots.base import Bot, RandomBot

Factory = Callable[[int | None], Bot]


def _lazy(module: str, cls: str) -> Factory:
    def build(seed: int | None) -> Bot:
        factory: Callable[..., Bot] = getattr(import_module(module), cls)
        return factory(seed=seed)

    return build


#: game -> bot name -> (one-line description, factory taking a seed)
BOTS: Final[dict[str, dict[str, tuple[str, Factory]]]] = {
    "martian": {
        "random": ("uniformly random legal moves", RandomBot),
        "cautious": (
            "heuristic: guards against tanks, banks points early",
            _lazy("marsdice.bots.martian_heuristic", "CautiousBot"),
        ),
        "expected": (
            "solver: the highest expected score each turn (3.11 points a turn)",
            _lazy("marsdice.bots.martian_solver", "ExpectedScoreBot"),
        ),
        "winprob": (
            "solver: the highest chance to win (exact for 2 players, approximate for 3+, "
            "fewest turns solo)",
            _lazy("marsdice.bots.martian_solver", "WinProbabilityBot"),
        ),
    },
    "attacks": {
        "random": ("uniformly random legal moves", RandomBot),
        "heuristic": (
            "rules of thumb: rich likely targets, stops three nukes short of the limit",
            _lazy("marsdice.bots.attacks_heuristic", "HeuristicBot"),
        ),
        "planner": (
            "exact turn solver: maximises expected VP, values progress left on cards",
            _lazy("marsdice.bots.attacks_planner", "PlannerBot"),
        ),
    },
}


def available_bots(game: str) -> dict[str, str]:
    """Bot names for a game, with a line saying how each plays."""
    return {name: description for name, (description, _) in _game_bots(game).items()}


def make_bot(game: str, name: str, seed: int | None = None) -> Bot:
    """Build a bot by name; an unknown name gets a message listing the known ones."""
    bots = _game_bots(game)
    if name not in bots:
        known = ", ".join(sorted(bots))
        raise ValueError(f"unknown bot {name!r} for {game}: choose one of {known}")
    return bots[name][1](seed)


def _game_bots(game: str) -> dict[str, tuple[str, Factory]]:
    if game not in BOTS:
        raise ValueError(f"unknown game {game!r}: choose one of {', '.join(sorted(BOTS))}")
    return BOTS[game]
