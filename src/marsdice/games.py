"""The games this package knows, each reached through one module of a common shape.

Everything above the engines (CLI, tournaments, server) goes through :func:`game_module`, so
adding a game means adding its module here, not editing every caller.

>>> game_module("martian").TITLE
'Martian Dice'
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from importlib import import_module
from typing import Any, Final, Protocol, cast

from marsdice.core.errors import RecordError
from marsdice.core.record import GameRecord

#: game name -> the module implementing :class:`GameModule` for it
GAMES: Final = {
    "martian": "marsdice.martian.record",
    "attacks": "marsdice.attacks.record",
}


class GameModule(Protocol):
    """What a game offers the layers above the engines."""

    GAME: str
    TITLE: str

    def default_variant(self, players: int) -> Any:
        """The standard rules for this many players."""
        ...

    def start(self, variant: Any, rng: random.Random) -> Any:
        """The opening state; hidden setup (a shuffled deck) is drawn from ``rng``."""
        ...

    def make_record(
        self,
        players: Sequence[str],
        start: Any,
        moves: Iterable[str],
        extra_tags: Sequence[tuple[str, str]] = (),
    ) -> GameRecord:
        """A record from the opening state and the moves' notation (Result tag filled in)."""
        ...

    def replay(self, record: GameRecord) -> list[Any]:
        """Every state of a recorded game; raises RecordError on a bad record."""
        ...

    def dumps(self, record: GameRecord) -> str:
        """The record's text with one line per turn and commentary."""
        ...

    def describe_step(self, before: Any, after: Any, names: Sequence[str]) -> str | None:
        """A line of commentary when a move ends a turn (or similar), else None."""
        ...

    def result_text(self, state: Any, names: Sequence[str]) -> str:
        """Final (or current) totals and the winner."""
        ...


def game_module(name: str) -> GameModule:
    """The module of a game by name; an unknown name gets a message listing the known ones."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}: choose one of {', '.join(sorted(GAMES))}")
    return cast(GameModule, import_module(GAMES[name]))


def read_record(text: str) -> tuple[GameModule, GameRecord]:
    """Parse a record of any known game."""
    record = GameRecord.loads(text)
    if record.game not in GAMES:
        raise RecordError(f"unknown game {record.game!r}: known games are {', '.join(GAMES)}")
    return game_module(record.game), record
