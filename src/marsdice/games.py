"""The games this package knows: each is one :class:`~marsdice.core.game.Game` object,
registered here once. Its bots and terminal view are named by the object itself, so adding a
game means writing its package and adding one line to :data:`REGISTERED`.

>>> get_game("martian").title
'Martian Dice'
>>> sorted(game_names())
['attacks', 'martian']
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import Final

from marsdice.core.errors import RecordError
from marsdice.core.game import Game
from marsdice.core.record import GameRecord

#: each game's object as ``"module:attribute"`` (the engines are standard library only, so
#: importing them is cheap; the indirection keeps this module free of import cycles)
REGISTERED: Final = (
    "marsdice.martian.game:GAME",
    "marsdice.attacks.game:GAME",
)


@cache
def _registry() -> dict[str, Game]:
    games: dict[str, Game] = {}
    for path in REGISTERED:
        module, _, attribute = path.partition(":")
        game = getattr(import_module(module), attribute)
        if not isinstance(game, Game):
            raise TypeError(f"{path} is not a Game")
        games[game.name] = game
    return games


def game_names() -> tuple[str, ...]:
    """The registered games' names, in registration order."""
    return tuple(_registry())


def all_games() -> tuple[Game, ...]:
    return tuple(_registry().values())


def get_game(name: str) -> Game:
    """A game by name; an unknown name gets a message listing the known ones."""
    games = _registry()
    if name not in games:
        raise ValueError(f"unknown game {name!r}: choose one of {', '.join(sorted(games))}")
    return games[name]


def read_record(text: str) -> tuple[Game, GameRecord]:
    """Parse a record of any known game."""
    record = GameRecord.loads(text)
    games = _registry()
    if record.game not in games:
        raise RecordError(f"unknown game {record.game!r}: known games are {', '.join(games)}")
    return games[record.game], record
