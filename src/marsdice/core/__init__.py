"""The protocol both games follow, dice maths and game records (standard library only)."""

from marsdice.core.dice import dice_outcomes, roll_dice
from marsdice.core.errors import (
    ActionParseError,
    IllegalActionError,
    MarsDiceError,
    RecordError,
    VariantError,
)
from marsdice.core.game import (
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    Agent,
    Event,
    Game,
    GameState,
    Playthrough,
    Step,
    Variant,
    play_out,
    play_steps,
)

__all__ = [
    "CHANCE",
    "JSON",
    "TERMINAL",
    "Action",
    "ActionParseError",
    "Agent",
    "Event",
    "Game",
    "GameState",
    "IllegalActionError",
    "MarsDiceError",
    "Playthrough",
    "RecordError",
    "Step",
    "Variant",
    "VariantError",
    "dice_outcomes",
    "play_out",
    "play_steps",
    "roll_dice",
]
