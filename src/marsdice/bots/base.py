"""The bot protocol and the one bot every game shares: uniformly random legal play."""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Bot(Protocol):
    """A player the computer runs. ``choose`` sees the whole state and returns a legal action."""

    name: str

    def choose(self, state: Any) -> Any: ...


class RandomBot:
    """Picks uniformly among the legal actions: a baseline, and a fuzzer for the engines."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: Any) -> Any:
        return self.rng.choice(list(state.legal_actions()))
