"""What a Martian Dice step did, as small typed values (see :class:`marsdice.core.game.Event`).

Every :meth:`State.apply <marsdice.martian.rules.State.apply>` sets ``events`` on the state it
returns, in order: a turn's roll, a take, a roll again; then, when the step ends a turn, the
score, the last round beginning, a roll-off beginning or the end of the game. Views and record
commentary render text from these; nothing parses text back.

Dice counts are tuples in face order (tank, ray, human, cow, chicken); a face is a
:class:`~marsdice.martian.rules.Face` (its index in that order, in JSON).

>>> TurnScored(0, (3, 3, 4, 0, 1), 5, TurnEnd.STOPPED, 5, False, False).to_json()["reason"]
'stopped'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import ClassVar

from marsdice.core.dice import Counts
from marsdice.core.game import Event


class Face(IntEnum):
    """The five face kinds; a die shows Death Ray on two of its six sides."""

    TANK = 0
    RAY = 1
    HUMAN = 2
    COW = 3
    CHICKEN = 4

    @property
    def letter(self) -> str:
        return "TRHCK"[self]

    @property
    def plural(self) -> str:
        return ("tanks", "rays", "humans", "cows", "chickens")[self]


class TurnEnd(StrEnum):
    """Why a turn went to scoring."""

    STOPPED = "stopped"
    NO_CHOICE = "no choice"  # nothing could be taken from the roll
    NO_DICE = "no dice"  # every die was set aside


@dataclass(frozen=True, slots=True)
class Rolled(Event):
    """A turn's dice were rolled: ``counts`` is the whole roll; its ``tanks`` were set aside.
    ``first``: the turn's first roll (every die), so the turn begins with it."""

    kind: ClassVar[str] = "rolled"
    seat: int
    counts: Counts
    tanks: int
    first: bool


@dataclass(frozen=True, slots=True)
class Took(Event):
    """The player set aside every die of one face type from the roll."""

    kind: ClassVar[str] = "took"
    seat: int
    face: Face
    count: int


@dataclass(frozen=True, slots=True)
class Continued(Event):
    """The player chose to roll the ``dice`` left again."""

    kind: ClassVar[str] = "continued"
    seat: int
    dice: int


@dataclass(frozen=True, slots=True)
class TurnScored(Event):
    """A turn ended and was scored: the dice set aside, the points, why it ended and the
    player's new total. ``tanks_beat_rays``: more tanks than rays, so it scored 0;
    ``bonus``: all three Earthlings were abducted (+3), and the rays held."""

    kind: ClassVar[str] = "turn_scored"
    seat: int
    set_aside: Counts
    score: int
    reason: TurnEnd
    total: int
    tanks_beat_rays: bool
    bonus: bool


@dataclass(frozen=True, slots=True)
class LastRound(Event):
    """``seat`` reached the target with ``score``: the ``remaining`` seats play their last
    turn, then the game ends."""

    kind: ClassVar[str] = "last_round"
    seat: int
    score: int
    target: int
    remaining: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RolloffBegun(Event):
    """A Death Ray roll-off round begins between ``seats``, tied on ``score`` (round 1 after
    the last turn; later rounds among those still tied)."""

    kind: ClassVar[str] = "rolloff_begun"
    seats: tuple[int, ...]
    score: int
    round: int


@dataclass(frozen=True, slots=True)
class RolloffRolled(Event):
    """A contender's roll-off roll: the faces shown and the Death Rays among them."""

    kind: ClassVar[str] = "rolloff_roll"
    seat: int
    counts: Counts
    rays: int


@dataclass(frozen=True, slots=True)
class RolloffDecided(Event):
    """Everyone in a roll-off round has rolled: the rays per contender and the seats with the
    most (one seat, or a tie that rolls again or, in single mode, shares the win)."""

    kind: ClassVar[str] = "rolloff_round"
    seats: tuple[int, ...]
    rays: tuple[int, ...]
    best: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game ended: its winners (several share a win) and the final totals."""

    kind: ClassVar[str] = "game_over"
    winners: tuple[int, ...]
    scores: tuple[int, ...]


__all__ = [
    "Continued",
    "Face",
    "GameOver",
    "LastRound",
    "Rolled",
    "RolloffBegun",
    "RolloffDecided",
    "RolloffRolled",
    "Took",
    "TurnEnd",
    "TurnScored",
]
