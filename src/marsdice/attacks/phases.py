"""The phases of a Mars Attacks turn and the ways a turn ends."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Phase(StrEnum):
    BOSTON = "boston"  # Boston's owner may move a token one space forward
    TARGET = "target"  # declare the target
    SEATTLE = "seattle"  # Seattle's owner may set one die before the first roll
    ROLL = "roll"  # chance: dice are rolled
    TORONTO = "toronto"  # Toronto's owner may reroll one die before the roll is judged
    TORONTO_ROLL = "toronto-roll"  # chance: that one die
    DENVER = "denver"  # Denver's owner, bombed on the first roll, may start again
    DECIDE = "decide"  # stop, or reroll heads (maybe switching the target)
    MEMPHIS = "memphis"  # Memphis's captor chooses a stack for the card from the box
    MEMPHIS_DRAW = "memphis-draw"  # chance: which card comes out of the box
    OVER = "over"


CHANCE_PHASES: Final = frozenset({Phase.ROLL, Phase.TORONTO_ROLL, Phase.MEMPHIS_DRAW})


class Outcome(StrEnum):
    """How a turn ended."""

    CAPTURED = "captured"
    BOMBED = "bombed"
    DETROIT = "failed Detroit"  # counts as bombed
    STOPPED = "stopped"
    PASSED = "passed"  # nothing could be targeted
