"""The protocol both games follow, dice maths and game records (standard library only)."""

from marsdice.core.dice import dice_outcomes, roll_dice
from marsdice.core.errors import (
    ActionParseError,
    IllegalActionError,
    MarsDiceError,
    RecordError,
    VariantError,
)
from marsdice.core.game import CHANCE, TERMINAL, Action, GameState

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Action",
    "ActionParseError",
    "GameState",
    "IllegalActionError",
    "MarsDiceError",
    "RecordError",
    "VariantError",
    "dice_outcomes",
    "roll_dice",
]
