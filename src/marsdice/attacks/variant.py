"""Mars Attacks settings: the dice, the difficulty card and every rules switch.

The defaults follow the seed (the Russian rulebook); each switch keeps the other reading of a
rule the sources leave open. See ``docs/rules-attacks.md``.

>>> Variant(players=7)
Traceback (most recent call last):
...
marsdice.core.errors.VariantError: players must be 2-6, got 7
>>> Variant(players=2, seattle="after-target").seattle
<SeattleRule.AFTER_TARGET: 'after-target'>
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Final

from marsdice.attacks.cards import Card, builtin_cards, validate_cards
from marsdice.core.dice import face_weights
from marsdice.core.errors import VariantError


class Face(IntEnum):
    """The three face kinds; each shows on two of a die's six sides."""

    HEAD = 0
    RAY = 1
    NUKE = 2

    @property
    def letter(self) -> str:
        return FACE_LETTERS[self]

    @property
    def word(self) -> str:
        return ("head", "ray gun", "nuke")[self]


#: the faces' letters in notation, in face order
FACE_LETTERS: Final = "HRN"
FACES: Final = tuple(Face)
DIE: Final = (Face.HEAD, Face.HEAD, Face.RAY, Face.RAY, Face.NUKE, Face.NUKE)
FACE_PROBABILITIES: Final = face_weights(DIE, len(FACES))
DICE: Final = 10
STACKS: Final = 4
TOKENS: Final = 4
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6


class Difficulty(StrEnum):
    """The two sides of the difficulty card."""

    EASY = "easy"
    HARD = "hard"

    @property
    def nukes(self) -> int:
        return 2 if self is Difficulty.EASY else 1


class BombedRule(StrEnum):
    """What is kept when a player is bombed."""

    LAST_ROLL = "last-roll"  # the seed: only the last roll is lost (default)
    WHOLE_TURN = "whole-turn"  # nothing from the turn counts


class RerollRule(StrEnum):
    """Which heads a reroll takes."""

    ALL = "all"  # every head showing (default)
    SUBSET = "subset"  # any number of the heads showing


class SeattleRule(StrEnum):
    """When Seattle's owner sets a die."""

    START = "start"  # the seed: at the start of the turn, before the target is declared
    AFTER_TARGET = "after-target"  # once the target is declared, just before the first roll


class DenverRule(StrEnum):
    """Where Denver's restart goes back to."""

    TURN = "turn"  # the seed: the whole turn again, start-of-turn abilities included
    TARGET = "target"  # back to the declaration of the target (Seattle offered again)


@dataclass(frozen=True, slots=True)
class Variant:
    """Game settings; the defaults follow the seed. A bad value raises
    :class:`~marsdice.core.errors.VariantError` whose message starts with the field's name."""

    players: int = 3
    difficulty: Difficulty = Difficulty.EASY
    bombed: BombedRule = BombedRule.LAST_ROLL
    reroll: RerollRule = RerollRule.ALL
    end_stacks: int = 2
    seattle: SeattleRule = SeattleRule.START
    denver: DenverRule = DenverRule.TURN
    cards: tuple[Card, ...] = field(default_factory=builtin_cards)

    def __post_init__(self) -> None:
        for name, low, high in (
            ("players", MIN_PLAYERS, MAX_PLAYERS),
            ("end_stacks", 1, STACKS),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise VariantError(f"{name} must be {low}-{high}, got {value!r}")
        for name, enum in SWITCHES.items():
            value = getattr(self, name)
            try:
                object.__setattr__(self, name, enum(value))
            except ValueError:
                allowed = ", ".join(m.value for m in enum)
                raise VariantError(f"{name} must be one of {allowed}, got {value!r}") from None
        try:
            object.__setattr__(self, "cards", validate_cards(tuple(self.cards)))
        except VariantError as error:
            raise VariantError(f"cards: {error}") from None
        needed = STACKS * self.players
        if len(self.cards) < needed:
            raise VariantError(
                f"cards: {self.players} players need {needed} cards ({STACKS} stacks of "
                f"{self.players}), the card set has {len(self.cards)}"
            )

    @classmethod
    def from_values(
        cls,
        players: int = 3,
        end_stacks: int = 2,
        cards: tuple[Card, ...] | None = None,
        switches: Mapping[str, str] | None = None,
    ) -> Variant:
        """A variant with the switches given as plain strings (missing ones: the defaults).

        >>> Variant.from_values(4, switches={"reroll": "subset"}).reroll
        <RerollRule.SUBSET: 'subset'>
        >>> Variant.from_values(switches={"speed": "fast"})
        Traceback (most recent call last):
        ...
        marsdice.core.errors.VariantError: speed is not a switch (switches: difficulty, ...)
        """
        given = dict(switches or {})
        for name, value in given.items():
            if name not in SWITCHES:
                raise VariantError(f"{name} is not a switch (switches: {', '.join(SWITCHES)})")
            allowed = [m.value for m in SWITCHES[name]]
            if value not in allowed:
                raise VariantError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
        return cls(
            players=players,
            difficulty=Difficulty(given.get("difficulty", Difficulty.EASY)),
            bombed=BombedRule(given.get("bombed", BombedRule.LAST_ROLL)),
            reroll=RerollRule(given.get("reroll", RerollRule.ALL)),
            end_stacks=end_stacks,
            seattle=SeattleRule(given.get("seattle", SeattleRule.START)),
            denver=DenverRule(given.get("denver", DenverRule.TURN)),
            cards=builtin_cards() if cards is None else cards,
        )


#: the switches: field name -> its values (the default first)
SWITCHES: Final[dict[str, type[StrEnum]]] = {
    "difficulty": Difficulty,
    "bombed": BombedRule,
    "reroll": RerollRule,
    "seattle": SeattleRule,
    "denver": DenverRule,
}
