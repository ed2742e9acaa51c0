"""Bots by name, per game, as each game's registration (:mod:`marsdice.games`) lists them.
Factories are imported only when a bot is built, so listing bots, or using a simple one,
never loads numpy or solver tables."""

from __future__ import annotations

from collections.abc import Callable

from marsdice.bots.base import Bot
from marsdice.core.game import Game
from marsdice.games import bot_spec, load, registration

__all__ = ["available_bots", "bot_spec", "make_bot"]


def available_bots(game: str | Game) -> dict[str, str]:
    """Bot names for a game, in its listed order, with a line saying how each plays."""
    return {spec.name: spec.description for spec in registration(game).bots}


def make_bot(game: str | Game, name: str, seed: int | None = None) -> Bot:
    """Build a bot by name, seeded (``None``: from the system's entropy)."""
    spec = bot_spec(game, name)
    factory: Callable[..., object] = load(spec.factory)
    bot = factory(seed=seed)
    if not isinstance(bot, Bot):
        raise TypeError(f"{spec.factory} did not build a bot")
    return bot
