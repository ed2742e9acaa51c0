"""The bot protocol and the one bot every game shares: uniformly random legal play."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from marsdice.core.game import Action, GameState


@runtime_checkable
class Bot(Protocol):
    """A player the computer runs. ``choose`` is called only at the bot's own decisions and
    returns a legal action. A bot built for one game narrows the state to that game's type
    (a state of another game is a ``TypeError``)."""

    name: str

    def choose(self, state: GameState) -> Action: ...


class RandomBot:
    """Picks uniformly among the legal actions: a baseline, and a fuzzer for the engines."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState) -> Action:
        return self.rng.choice(list(state.legal_actions()))
