"""Mars Attacks actions and their notation: chance outcomes (a roll, Memphis's draw) and every
decision, each a small frozen value with one canonical ``text()``, and the reader of what
people type (short forms, unique starts of card names).

>>> parse_decision("r 3 @ san fran").text(), parse_decision("Seattle R").text()
('reroll3@san-francisco', 'seattle:R')
>>> Roll.parse("nrhh"), Roll((2, 1, 1)).text()
(Roll(counts=(2, 1, 1)), 'HHRN')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

from marsdice.attacks.cards import Card, builtin_cards, slugify
from marsdice.attacks.variant import FACE_LETTERS, Face
from marsdice.core.dice import Counts, parse_roll, roll_text
from marsdice.core.errors import ActionParseError

# --- chance outcomes -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Roll:
    """A chance outcome: how many of the rolled dice show a head, a ray gun, a nuke."""

    counts: Counts

    def text(self) -> str:
        """Face letters, heads first: ``HHRRRN`` (a malformed roll shows what it can)."""
        return roll_text(self.counts, FACE_LETTERS)

    @property
    def dice(self) -> int:
        return sum(self.counts)

    @classmethod
    def parse(cls, text: str) -> Roll:
        """Read the letters H, R, N in any order."""
        return cls(parse_roll(text, FACE_LETTERS, "HHRRN"))


@dataclass(frozen=True, slots=True)
class Draw:
    """A chance outcome: the card Memphis brings out of the box (it goes face down: players
    see this move only as ``draw``)."""

    card: str

    def text(self) -> str:
        return f"draw:{self.card}"


#: how a Memphis draw shows in a log redacted for players
HIDDEN_DRAW: Final = "draw"


# --- decisions ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Word:
    """A decision that is one word."""

    WORD: ClassVar[str] = ""

    def text(self) -> str:
        return self.WORD


@dataclass(frozen=True, slots=True)
class Stop(_Word):
    """End the attack; the token goes on the target's track."""

    WORD: ClassVar[str] = "stop"


@dataclass(frozen=True, slots=True)
class Pass(_Word):
    """Decline the optional ability on offer (Boston, Seattle, Toronto, Denver)."""

    WORD: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Restart(_Word):
    """Denver: ignore the bombing first roll and start again."""

    WORD: ClassVar[str] = "restart"


@dataclass(frozen=True, slots=True)
class _OnCard:
    """A decision naming a card (in notation)."""

    PREFIX: ClassVar[str] = ""
    card: str

    def text(self) -> str:
        return f"{self.PREFIX}{self.card}"


@dataclass(frozen=True, slots=True)
class Target(_OnCard):
    """Declare the turn's target."""

    PREFIX: ClassVar[str] = "@"


@dataclass(frozen=True, slots=True)
class BostonMove(_OnCard):
    """Boston: move your token on this card one space forward."""

    PREFIX: ClassVar[str] = "boston@"


@dataclass(frozen=True, slots=True)
class _OnFace:
    """A decision naming a face."""

    PREFIX: ClassVar[str] = ""
    face: Face

    def text(self) -> str:
        return f"{self.PREFIX}{self.face.letter}"


@dataclass(frozen=True, slots=True)
class SeattleSet(_OnFace):
    """Seattle: set one die to this face; the other nine are rolled."""

    PREFIX: ClassVar[str] = "seattle:"


@dataclass(frozen=True, slots=True)
class TorontoReroll(_OnFace):
    """Toronto: reroll one die now showing this face."""

    PREFIX: ClassVar[str] = "toronto:"


@dataclass(frozen=True, slots=True)
class Reroll:
    """Reroll the heads showing (``count`` of them, ``None`` = all), switching to the city
    ``switch`` first if given. The engine reads ``count`` equal to the heads showing as
    ``None`` (:meth:`marsdice.attacks.state.State.normalize`): one move, one value."""

    count: int | None = None
    switch: str | None = None

    def text(self) -> str:
        number = "" if self.count is None else str(self.count)
        return f"reroll{number}" + (f"@{self.switch}" if self.switch else "")


@dataclass(frozen=True, slots=True)
class MemphisPlace:
    """Memphis: the card from the box goes under stack ``stack`` (numbered from 1)."""

    stack: int

    def text(self) -> str:
        return f"memphis:{self.stack}"


STOP: Final = Stop()
PASS: Final = Pass()
RESTART: Final = Restart()
Decision = Target | Reroll | Stop | Pass | Restart | BostonMove | SeattleSet | TorontoReroll
Action = Roll | Draw | Decision | MemphisPlace
#: every action class, for telling this game's actions from another game's
ACTION_TYPES: Final = (
    Roll,
    Draw,
    Target,
    Reroll,
    Stop,
    Pass,
    Restart,
    BostonMove,
    SeattleSet,
    TorontoReroll,
    MemphisPlace,
)

#: what may be typed in each phase (by phase name)
HELP: Final = {
    "boston": "boston@CARD moves your token there one space forward; pass",
    "target": "@CARD declares the target (a unique start of the name is enough)",
    "seattle": "seattle:H, seattle:R or seattle:N sets one die; pass",
    "toronto": "toronto:H, toronto:R or toronto:N rerolls one such die; pass",
    "denver": "restart starts again; pass accepts the bomb",
    "decide": "reroll (rerollK for K heads) or reroll@CITY to switch target; stop",
    "memphis": "memphis:N puts the box card under stack N",
}


# --- reading what people type ----------------------------------------------------------------

_FACE_WORDS: Final = {
    **dict.fromkeys(("h", "head", "heads", "martian", "martians"), Face.HEAD),
    **dict.fromkeys(("r", "ray", "rays", "raygun", "rayguns", "ray-gun", "gun"), Face.RAY),
    **dict.fromkeys(("n", "nuke", "nukes", "bomb"), Face.NUKE),
}


def resolve_card(text: str, cards: Sequence[Card], preferred: Sequence[Card] = ()) -> str:
    """A card's name in notation from what a person typed: the exact name, or a start of it
    that fits one card (the ``preferred`` ones, say face-up, first).

    >>> cards = builtin_cards()
    >>> resolve_card("Los Angeles", cards), resolve_card("okla", cards)
    ('los-angeles', 'oklahoma-city')
    >>> resolve_card("san j", cards)
    'san-jose'
    >>> resolve_card("sa", cards)
    Traceback (most recent call last):
    ...
    marsdice.core.errors.ActionParseError: 'sa' fits several cards: san-francisco, san-antonio, ...
    """
    slug = slugify(text)
    if not slug:
        raise ActionParseError("name a card")
    slugs = [card.slug for card in cards]
    if slug in slugs:
        return slug
    for pool in ([card.slug for card in preferred], slugs):
        fits = [s for s in pool if s.startswith(slug)]
        if len(fits) == 1:
            return fits[0]
        if len(fits) > 1 and pool is slugs:
            raise ActionParseError(f"{text.strip()!r} fits several cards: {', '.join(fits)}")
    raise ActionParseError(f"no card called {text.strip()!r}")


def parse_decision(
    text: str, cards: Sequence[Card] | None = None, preferred: Sequence[Card] = ()
) -> Decision | MemphisPlace:
    """Read a player's decision, with short forms for typing (see :data:`HELP`)."""
    cards = builtin_cards() if cards is None else cards
    raw = " ".join(text.strip().lower().split())

    def card(name: str) -> str:
        return resolve_card(name, cards, preferred)

    def face(word: str) -> Face:
        if word not in _FACE_WORDS:
            raise ActionParseError(f"a face is H (head), R (ray gun) or N (nuke), got {word!r}")
        return _FACE_WORDS[word]

    if raw in ("s", "stop"):
        return STOP
    if raw in ("p", "pass", "no", "skip", "accept", "keep"):
        return PASS
    if raw in ("restart", "denver"):
        return RESTART
    for prefix in ("@", "target ", "attack ", "t "):
        if raw.startswith(prefix):
            return Target(card(raw[len(prefix) :]))
    for word in ("reroll", "roll", "r"):
        if raw == word or (raw.startswith(word) and raw[len(word)] in " @0123456789"):
            return _parse_reroll(raw[len(word) :], card)
    head, _, rest = raw.replace(":", " ").replace("@", " ").partition(" ")
    rest = rest.strip()
    if head == "boston" and rest:
        return BostonMove(card(rest))
    if head in ("seattle", "set") and rest:
        return SeattleSet(face(rest))
    if head == "toronto" and rest:
        return TorontoReroll(face(rest))
    if head in ("memphis", "stack") and rest.isdigit():
        return MemphisPlace(int(rest))
    raise ActionParseError(
        f"unknown command {text.strip()!r}: use @CARD, reroll, stop, pass, boston@CARD, "
        "seattle:H/R/N, toronto:H/R/N, restart or memphis:N"
    )


def _parse_reroll(rest: str, card: Callable[[str], str]) -> Reroll:
    rest = rest.strip()
    number, _, switch = rest.partition("@")
    number = number.strip()
    if not switch and " " in number:
        number, _, switch = number.partition(" ")
    if number and not number.isdigit():
        number, switch = "", rest
    count = int(number) if number else None
    if count == 0:
        raise ActionParseError("reroll at least one head")
    name = switch.strip().removeprefix("to ").strip()
    return Reroll(count, card(name) if name else None)
