"""The shape every game state follows: explicit chance, legal actions, returns."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Protocol, Self, TypeVar

#: ``current_player`` at a chance node: the dice, not a player, act next.
CHANCE = -1
#: ``current_player`` once the game is over.
TERMINAL = -2


class Action(Protocol):
    """A small immutable value with a canonical text form shared by records, CLI and web."""

    def text(self) -> str:
        """The canonical notation, readable back by the state's ``parse_action``."""
        ...


ActionT = TypeVar("ActionT", bound=Action)


class GameState(Protocol[ActionT]):
    """One immutable position of a game; ``apply`` returns a new state."""

    @property
    def current_player(self) -> int:
        """The seat to act, or :data:`CHANCE`, or :data:`TERMINAL`."""
        ...

    @property
    def is_terminal(self) -> bool: ...

    @property
    def is_chance_node(self) -> bool: ...

    def legal_actions(self) -> Sequence[ActionT]: ...

    def chance_outcomes(self) -> Sequence[tuple[ActionT, Fraction]]: ...

    def sample_chance(self, rng: random.Random) -> ActionT: ...

    def apply(self, action: ActionT) -> Self: ...

    def parse_action(self, text: str) -> ActionT: ...

    def returns(self) -> tuple[float, ...]: ...
