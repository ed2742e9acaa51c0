"""Bots by name, per game, as each game's registration (:mod:`marsdice.games`) lists them.
Factories are imported only when a bot is built, so listing bots, or using a simple one,
never loads numpy or solver tables."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from marsdice.bots.base import Bot
from marsdice.core.game import Game
from marsdice.games import BotSpec, registration


def available_bots(game: str | Game) -> dict[str, str]:
    """Bot names for a game, in its listed order, with a line saying how each plays."""
    return {spec.name: spec.description for spec in registration(game).bots}


def bot_spec(game: str | Game, name: str) -> BotSpec:
    """A bot's registration; an unknown name gets a message listing the known ones."""
    found = registration(game)
    for spec in found.bots:
        if spec.name == name:
            return spec
    known = ", ".join(spec.name for spec in found.bots)
    game_name = game.name if isinstance(game, Game) else game
    raise ValueError(f"unknown bot {name!r} for {game_name}: choose one of {known}")


def make_bot(game: str | Game, name: str, seed: int | None = None) -> Bot:
    """Build a bot by name, seeded (``None``: from the system's entropy)."""
    spec = bot_spec(game, name)
    module, _, attribute = spec.factory.partition(":")
    factory: Callable[..., object] = getattr(import_module(module), attribute)
    bot = factory(seed=seed)
    if not isinstance(bot, Bot):
        raise TypeError(f"{spec.factory} did not build a bot")
    return bot
