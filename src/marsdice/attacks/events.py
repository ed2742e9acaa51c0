"""What happens in a Mars Attacks step, as small typed values (no English).

Each is a frozen :class:`~marsdice.core.game.Event` with a ``kind``; cards are named by their
notation (``los-angeles``), seats count from 0, faces are letters (``H``, ``R``, ``N``). Views,
record commentary and clients render their own text from them. Nothing here names a face-down
card: a Memphis draw is only :class:`MemphisDrawn` with its stack.

>>> Captured(seat=0, card="miami", count=4, requirement=3, vp=1, total=1).to_json()
{'type': 'captured', 'seat': 0, 'card': 'miami', 'count': 4, 'requirement': 3, 'vp': 1, 'total': 1}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from marsdice.core.game import Event


@dataclass(frozen=True, slots=True)
class TurnBegan(Event):
    """A turn begins (``extra``: an extra turn from San Francisco or Indianapolis)."""

    kind: ClassVar[str] = "turn-began"
    seat: int
    turn: int
    extra: bool


@dataclass(frozen=True, slots=True)
class TurnPassed(Event):
    """Nothing can be targeted: the turn is passed (and the end is triggered)."""

    kind: ClassVar[str] = "turn-passed"
    seat: int


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    """A turn is over; ``outcome`` is a :class:`~marsdice.attacks.state.Outcome` value."""

    kind: ClassVar[str] = "turn-ended"
    seat: int
    outcome: str


@dataclass(frozen=True, slots=True)
class TargetDeclared(Event):
    """The seat attacks ``card``; ``token``: its token there already."""

    kind: ClassVar[str] = "target-declared"
    seat: int
    card: str
    token: int


@dataclass(frozen=True, slots=True)
class Rolled(Event):
    """Dice rolled: ``faces`` what they show (letters); ``set`` Seattle's die ("" if none);
    ``toronto`` whether this was Toronto's one die. ``heads`` showing, ``rays`` and ``nukes``
    locked: the turn's dice after the roll."""

    kind: ClassVar[str] = "rolled"
    seat: int
    faces: str
    set: str
    toronto: bool
    heads: int
    rays: int
    nukes: int


@dataclass(frozen=True, slots=True)
class Rerolling(Event):
    """The seat rerolls ``count`` heads, switching the target to ``switch`` ("" if not)."""

    kind: ClassVar[str] = "rerolling"
    seat: int
    count: int
    switch: str


@dataclass(frozen=True, slots=True)
class Stopped(Event):
    """The attack on ``card`` ends without a capture at ``count`` (stopped, or no head left)."""

    kind: ClassVar[str] = "stopped"
    seat: int
    card: str
    count: int


@dataclass(frozen=True, slots=True)
class Bombed(Event):
    """Bombed attacking ``card`` (``nukes`` of ``limit``); ``detroit``: a turn that ended on
    Detroit without taking it (counts as bombed)."""

    kind: ClassVar[str] = "bombed"
    seat: int
    card: str
    nukes: int
    limit: int
    detroit: bool
    count: int


@dataclass(frozen=True, slots=True)
class Captured(Event):
    """The seat takes ``card`` with ``count`` (it needed ``requirement``): +``vp``, ``total``."""

    kind: ClassVar[str] = "captured"
    seat: int
    card: str
    count: int
    requirement: int
    vp: int
    total: int


@dataclass(frozen=True, slots=True)
class TokenPlaced(Event):
    """The seat's token on ``card`` now stands at ``value`` (placed, or moved up to it);
    ``kept``: the progress kept by a bombing (the count before the last roll)."""

    kind: ClassVar[str] = "token-placed"
    seat: int
    card: str
    value: int
    kept: bool


@dataclass(frozen=True, slots=True)
class TokenLost(Event):
    """Progress to ``value`` on ``card`` is lost: no free token to record it."""

    kind: ClassVar[str] = "token-lost"
    seat: int
    card: str
    value: int


@dataclass(frozen=True, slots=True)
class TokensHome(Event):
    """The tokens on ``card`` go back to their owners (``seats``): captured or cycled."""

    kind: ClassVar[str] = "tokens-home"
    card: str
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardTurnedUp(Event):
    """Stack ``stack`` (from 1) turns up ``card``; ``card`` is "" when the stack is empty."""

    kind: ClassVar[str] = "card-turned-up"
    stack: int
    card: str


@dataclass(frozen=True, slots=True)
class BostonMoved(Event):
    """Boston: the seat's token on ``card`` steps forward to ``value``."""

    kind: ClassVar[str] = "boston-moved"
    seat: int
    card: str
    value: int


@dataclass(frozen=True, slots=True)
class SeattleUsed(Event):
    """Seattle: one die set to ``face``."""

    kind: ClassVar[str] = "seattle-used"
    seat: int
    face: str


@dataclass(frozen=True, slots=True)
class TorontoUsed(Event):
    """Toronto: one die showing ``face`` is rerolled."""

    kind: ClassVar[str] = "toronto-used"
    seat: int
    face: str


@dataclass(frozen=True, slots=True)
class AbilityDeclined(Event):
    """The seat passes on an optional ability (``boston``, ``seattle``, ``toronto``, ``denver``:
    the ability's name)."""

    kind: ClassVar[str] = "ability-declined"
    seat: int
    ability: str


@dataclass(frozen=True, slots=True)
class DenverRestarted(Event):
    """Denver: the bombing first roll is ignored; ``whole_turn``: from the start of the turn
    (else from the declaration of the target)."""

    kind: ClassVar[str] = "denver-restarted"
    seat: int
    whole_turn: bool


@dataclass(frozen=True, slots=True)
class NewYorkBack(Event):
    """New York: the seat's token there moves back to ``value`` (0: removed)."""

    kind: ClassVar[str] = "new-york-back"
    seat: int
    card: str
    value: int


@dataclass(frozen=True, slots=True)
class ExtraTurn(Event):
    """San Francisco or Indianapolis (``card``): the seat plays an extra turn next."""

    kind: ClassVar[str] = "extra-turn"
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class OklahomaCycled(Event):
    """Oklahoma City: the face-up ``cards`` of the other stacks go under their stacks."""

    kind: ClassVar[str] = "oklahoma-cycled"
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MemphisPlaced(Event):
    """Memphis: the seat chooses stack ``stack`` (from 1) for the card from the box."""

    kind: ClassVar[str] = "memphis-placed"
    seat: int
    stack: int


@dataclass(frozen=True, slots=True)
class MemphisDrawn(Event):
    """Memphis: a card from the box goes face down under stack ``stack`` (which card is
    hidden from everyone)."""

    kind: ClassVar[str] = "memphis-drawn"
    stack: int


@dataclass(frozen=True, slots=True)
class VegasBomb(Event):
    """Las Vegas counts a bomb: the seat's token there moves to ``value`` (the card is taken
    at its requirement: a :class:`Captured` follows)."""

    kind: ClassVar[str] = "vegas-bomb"
    seat: int
    card: str
    value: int


@dataclass(frozen=True, slots=True)
class VegasNoToken(Event):
    """Las Vegas cannot count the bomb: the seat has no free token."""

    kind: ClassVar[str] = "vegas-no-token"
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class EndTriggered(Event):
    """The end is triggered (``empty`` stacks, or nothing to target): the round is completed."""

    kind: ClassVar[str] = "end-triggered"
    empty: int


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game is over: ``winners`` and the final ``scores``."""

    kind: ClassVar[str] = "game-over"
    winners: tuple[int, ...]
    scores: tuple[int, ...]
