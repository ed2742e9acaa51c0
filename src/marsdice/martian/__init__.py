"""Martian Dice: the rules engine, its events and its :class:`~marsdice.core.game.Game`
object (standard library only).

>>> from marsdice.martian import GAME, new_game, Variant
>>> new_game(Variant(players=3)).scores, GAME.name
((0, 0, 0), 'martian')
"""

from marsdice.martian import events
from marsdice.martian.game import GAME, MartianDice
from marsdice.martian.rules import (
    BONUS,
    CONTINUE,
    DIE,
    EARTHLINGS,
    FACES,
    MAX_DICE,
    MAX_PLAYERS,
    MAX_TARGET,
    STOP,
    Action,
    Continue,
    Face,
    Phase,
    Roll,
    RolloffMode,
    RolloffRound,
    State,
    Stop,
    Take,
    TurnEnd,
    TurnResult,
    Variant,
    allowed_faces,
    new_game,
    parse_decision,
    position,
    score_turn,
)

__all__ = [
    "BONUS",
    "CONTINUE",
    "DIE",
    "EARTHLINGS",
    "FACES",
    "GAME",
    "MAX_DICE",
    "MAX_PLAYERS",
    "MAX_TARGET",
    "STOP",
    "Action",
    "Continue",
    "Face",
    "MartianDice",
    "Phase",
    "Roll",
    "RolloffMode",
    "RolloffRound",
    "State",
    "Stop",
    "Take",
    "TurnEnd",
    "TurnResult",
    "Variant",
    "allowed_faces",
    "events",
    "new_game",
    "parse_decision",
    "position",
    "score_turn",
]
