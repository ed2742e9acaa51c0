"""Martian Dice: the rules engine (standard library only).

>>> from marsdice.martian import new_game, Variant
>>> new_game(Variant(players=3)).scores
(0, 0, 0)
"""

from marsdice.martian.rules import (
    BONUS,
    CONTINUE,
    DIE,
    EARTHLINGS,
    FACES,
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
    "STOP",
    "Action",
    "Continue",
    "Face",
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
    "new_game",
    "parse_decision",
    "position",
    "score_turn",
]
