"""What a game's terminal view offers the generic loop (:mod:`marsdice.cli.play`).

Each game's registration (:mod:`marsdice.games`) names its view module's ``VIEW`` (the module
itself); the module has these functions at top level. Views draw from the engine's state and
structured events and hold no rule of their own.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Protocol, cast

from rich.console import Console

from marsdice.core.game import Game, GameState, Step, Variant
from marsdice.games import provider


class GameView(Protocol):
    """The functions of a view module."""

    def add_arguments(self, group: argparse._ArgumentGroup) -> None:
        """The game's own command-line options. Every option defaults to ``None`` (the real
        default is named in its help and applied by :meth:`make_variant`), so that the loop can
        refuse an option given for the other game."""
        ...

    def make_variant(self, args: argparse.Namespace, players: int) -> Variant:
        """The variant from the parsed options (VariantError / ValueError on a bad value)."""
        ...

    def render_board(self, console: Console, state: GameState, names: Sequence[str]) -> None:
        """The whole table, before a person's decision."""
        ...

    def render_step(self, console: Console, step: Step, names: Sequence[str]) -> None:
        """A line or two about a step, rendered from ``step.after.events``."""
        ...

    def render_final(self, console: Console, state: GameState, names: Sequence[str]) -> None:
        """The end screen: ranking, totals, roll-off or tie-breaks."""
        ...

    def help_text(self, state: GameState) -> str:
        """The commands a person may type now."""
        ...

    def rules_text(self) -> str:
        """A rules summary (Mars Attacks: with a legend of the symbols and the nuke limit)."""
        ...

    def hint(self, state: GameState) -> str | None:
        """The best move with its labelled numbers (expected points, chance to win), or None."""
        ...


def game_view(game: Game) -> GameView:
    """The view the game's registration names (imported on first use)."""
    return cast(GameView, provider(game, "view"))
