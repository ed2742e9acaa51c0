"""Location cards as data: the schema, the shipped placeholder set and a validating loader.

A card file is JSON: ``{"placeholder": true, "note": "...", "cards": [{...}, ...]}``; each
card has the fields of :data:`FIELDS`. Whatever is wrong with a file, the error names the card
and the field, so an owner typing in the printed values can fix it, and nothing starts.

>>> cards = builtin_cards()
>>> len(cards), cards[0].name, cards[0].slug, cards[0].ability
(29, 'Seattle', 'seattle', <Ability.SEATTLE: 'seattle'>)
>>> by_slug(cards)["los-angeles"].symbol
<Symbol.NUKE: 'nuke'>
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Final, TypeVar

from marsdice.core.errors import VariantError
from marsdice.core.game import JSON, JSONObject, whole_number

E = TypeVar("E", bound=StrEnum)


class CardError(VariantError):
    """A card or card file is invalid; the message names the card and the field."""


class Kind(StrEnum):
    CITY = "city"
    MONUMENT = "monument"


class Symbol(StrEnum):
    """What a card's track counts."""

    RAY = "ray"  # locked ray guns (most cities)
    HEAD = "head"  # Martian heads showing (monuments)
    NUKE = "nuke"  # locked nukes (Los Angeles)
    BUST = "bust"  # times bombed (Las Vegas)


class Ability(StrEnum):
    """The named abilities; red ones work face-up or on capture, green ones for their owner."""

    DETROIT = "detroit"
    LOS_ANGELES = "los-angeles"
    SAN_FRANCISCO = "san-francisco"
    INDIANAPOLIS = "indianapolis"
    OKLAHOMA_CITY = "oklahoma-city"
    LAS_VEGAS = "las-vegas"
    MEMPHIS = "memphis"
    NEW_YORK = "new-york"
    BOSTON = "boston"
    SEATTLE = "seattle"
    TORONTO = "toronto"
    DENVER = "denver"

    @property
    def green(self) -> bool:
        """Green abilities are lasting powers of the card's owner."""
        return self in _GREEN

    @property
    def colour(self) -> str:
        return "green" if self.green else "red"

    @property
    def summary(self) -> str:
        """One line for the board and the help text."""
        return _SUMMARIES[self]


_GREEN: Final = frozenset({Ability.BOSTON, Ability.SEATTLE, Ability.TORONTO, Ability.DENVER})
_SUMMARIES: Final = {
    Ability.DETROIT: "capture in one turn only; no tokens; failing counts as bombed",
    Ability.LOS_ANGELES: "counts nukes; you cannot be bombed while targeting it",
    Ability.SAN_FRANCISCO: "on capture: extra turn",
    Ability.INDIANAPOLIS: "on capture: extra turn",
    Ability.OKLAHOMA_CITY: "on capture: other face-up cards go under their stacks",
    Ability.LAS_VEGAS: "not a target; each bomb moves your token; 3rd bomb takes it",
    Ability.MEMPHIS: "on capture: a card from the box goes under a stack you choose",
    Ability.NEW_YORK: "your token here moves back one space at the start of your turn",
    Ability.BOSTON: "start of turn: move one of your tokens one space forward",
    Ability.SEATTLE: "before your first roll: set one die to any face",
    Ability.TORONTO: "once per turn: reroll any one die before the roll is judged",
    Ability.DENVER: "bombed on your first roll: you may start the turn again",
}

#: field -> what it holds, for messages
FIELDS: Final = {
    "name": "the card's name (unique, 1 to 40 printable characters, at least one letter or digit)",
    "kind": "city or monument",
    "symbol": "ray, head, nuke or bust: what the track counts",
    "requirement": f"a whole number {1}-{40}: the count needed to capture",
    "vp": f"a whole number {0}-{99}: victory points",
    "nukes": f"a whole number {0}-{2}: nuke symbols on the card",
    "ability": "null or one of " + ", ".join(a.value for a in Ability),
    "placeholder": "optional list of the fields whose values are placeholders",
}
REQUIRED: Final = ("name", "kind", "symbol", "requirement", "vp", "nukes")
MAX_REQUIREMENT: Final = 40
MAX_VP: Final = 99
MAX_NUKES: Final = 2
_FILE_KEYS: Final = frozenset({"format", "placeholder", "note", "cards"})
FORMAT: Final = "marsdice-attacks-cards"


@dataclass(frozen=True, slots=True)
class Card:
    """One location card. ``placeholder`` names fields whose values are not the printed ones.

    >>> Card("Miami", Kind.CITY, Symbol.RAY, 3, 1, 0).targetable
    True
    """

    name: str
    kind: Kind
    symbol: Symbol
    requirement: int
    vp: int
    nukes: int
    ability: Ability | None = None
    placeholder: tuple[str, ...] = ()

    @property
    def slug(self) -> str:
        """The card's name in action notation: lower case words joined by hyphens."""
        return slugify(self.name)

    @property
    def targetable(self) -> bool:
        """Las Vegas (the bust track) can never be declared a target."""
        return self.symbol is not Symbol.BUST

    @property
    def is_city(self) -> bool:
        return self.kind is Kind.CITY

    def to_dict(self) -> JSONObject:
        """The card in the file schema."""
        data: JSONObject = {
            "name": self.name,
            "kind": self.kind.value,
            "symbol": self.symbol.value,
            "requirement": self.requirement,
            "vp": self.vp,
            "nukes": self.nukes,
            "ability": self.ability.value if self.ability else None,
        }
        if self.placeholder:
            data["placeholder"] = list[JSON](self.placeholder)
        return data


@cache
def slugify(name: str) -> str:
    """Lower case, runs of other characters turned into single hyphens.

    >>> slugify("  Mount  Rushmore! "), slugify("St. Louis")
    ('mount-rushmore', 'st-louis')
    """
    return re.sub(r"[^a-z0-9]+", "-", name.strip().lower()).strip("-")


def card_from_dict(data: object, position: int) -> Card:
    """Validate one card of a file; ``position`` (1-based) names it until its name is known."""
    if not isinstance(data, Mapping):
        raise CardError(f"card {position}: must be an object with fields {', '.join(REQUIRED)}")
    raw_name = data.get("name")
    label = f"card {position}" + (f" ({raw_name!r})" if isinstance(raw_name, str) else "")

    def bad(field: str, why: str) -> CardError:
        return CardError(f"{label}: field {field!r} {why}")

    for key in data:
        if key not in FIELDS:
            raise bad(str(key), f"is not a card field (fields: {', '.join(FIELDS)})")
    for key in REQUIRED:
        if key not in data:
            raise bad(key, f"is missing: {FIELDS[key]}")
    name = data["name"]
    if (
        not isinstance(name, str)
        or not slugify(name)
        or name != name.strip()
        or len(name) > MAX_CARD_NAME
        or not name.isprintable()  # (a newline would break the game record's tags)
    ):
        raise bad("name", f"must be {FIELDS['name']}, got {name!r}")
    kind = _enum(Kind, data["kind"], bad, "kind")
    symbol = _enum(Symbol, data["symbol"], bad, "symbol")
    requirement = _whole(data["requirement"], 1, MAX_REQUIREMENT, bad, "requirement")
    vp = _whole(data["vp"], 0, MAX_VP, bad, "vp")
    nukes = _whole(data["nukes"], 0, MAX_NUKES, bad, "nukes")
    ability_value = data.get("ability")
    ability = None if ability_value is None else _enum(Ability, ability_value, bad, "ability")
    placeholder = data.get("placeholder", [])
    if not isinstance(placeholder, list) or any(
        not isinstance(item, str) or item not in (*REQUIRED, "ability") for item in placeholder
    ):
        raise bad("placeholder", f"must be a list of field names, got {placeholder!r}")
    card = Card(name, kind, symbol, requirement, vp, nukes, ability, tuple(placeholder))
    _check_consistency(card, bad)
    return card


#: the longest card name (a name is shown on the board and written in every record)
MAX_CARD_NAME: Final = 40
#: builds the error for a field of the card being read
Bad = Callable[[str, str], CardError]
#: Las Vegas goes to the first player bombed this many times (the rules fix it)
VEGAS_BOMBS: Final = 3
#: the dice a turn rolls: Detroit, taken within one turn, cannot need more
DICE_IN_A_TURN: Final = 10


def _check_consistency(card: Card, bad: Bad) -> None:
    """The fields that the rules tie together, and what the rules fix for an ability card."""
    if card.ability is not None and card.kind is not Kind.CITY:
        raise bad(
            "kind",
            f"of a card with ability {card.ability.value} must be city: the rules make "
            f"{card.ability.value} a city",
        )
    if card.ability is Ability.DETROIT and card.requirement > DICE_IN_A_TURN:
        raise bad(
            "requirement",
            f"of the detroit card must be 1-{DICE_IN_A_TURN}: it is taken within one turn of "
            f"{DICE_IN_A_TURN} dice, got {card.requirement}",
        )
    if card.ability is Ability.LAS_VEGAS and card.requirement != VEGAS_BOMBS:
        raise bad(
            "requirement",
            f"of the las-vegas card must be {VEGAS_BOMBS}: the rules give it to the first "
            f"player bombed {VEGAS_BOMBS} times, got {card.requirement}",
        )
    if card.kind is Kind.MONUMENT and card.symbol is not Symbol.HEAD:
        raise bad("symbol", f"of a monument must be head, got {card.symbol.value}")
    if card.kind is Kind.CITY and card.symbol is Symbol.HEAD:
        raise bad("symbol", "head belongs to monuments (heads are rerolled against cities)")
    if (card.symbol is Symbol.NUKE) != (card.ability is Ability.LOS_ANGELES):
        raise bad("symbol", "nuke goes with ability los-angeles and only with it")
    if (card.symbol is Symbol.BUST) != (card.ability is Ability.LAS_VEGAS):
        raise bad("symbol", "bust goes with ability las-vegas and only with it")


def validate_cards(cards: Sequence[Card]) -> tuple[Card, ...]:
    """Checks across cards: names (and their notation) unique, each ability at most once."""
    if not cards:
        raise CardError("the card set is empty")
    seen: dict[str, int] = {}
    abilities: dict[Ability, int] = {}
    for position, card in enumerate(cards, start=1):
        label = f"card {position} ({card.name!r})"

        def bad(field: str, why: str, label: str = label) -> CardError:
            return CardError(f"{label}: field {field!r} {why}")

        _check_consistency(card, bad)
        if card.slug in seen:
            other = cards[seen[card.slug] - 1].name
            raise CardError(
                f"{label}: field 'name' duplicates card {seen[card.slug]} ({other!r})"
                + (f" once written as {card.slug!r}" if other != card.name else "")
            )
        seen[card.slug] = position
        if card.ability is not None:
            if card.ability in abilities:
                raise CardError(
                    f"{label}: field 'ability' {card.ability.value!r} is already on card "
                    f"{abilities[card.ability]} ({cards[abilities[card.ability] - 1].name!r})"
                )
            abilities[card.ability] = position
    return tuple(cards)


def parse_cards(data: object) -> tuple[Card, ...]:
    """Validate a decoded card file (an object with ``cards``, or a bare list of cards)."""
    if isinstance(data, Mapping):
        for key in data:
            if key not in _FILE_KEYS:
                raise CardError(
                    f"card file: unknown top-level field {key!r} "
                    f"(fields: {', '.join(sorted(_FILE_KEYS))})"
                )
        fmt = data.get("format", FORMAT)
        if fmt != FORMAT:
            raise CardError(f"card file: field 'format' must be {FORMAT!r}, got {fmt!r}")
        if "cards" not in data:
            raise CardError("card file: field 'cards' is missing: a list of cards")
        data = data["cards"]
    if not isinstance(data, list):
        raise CardError("card file: 'cards' must be a list of card objects")
    return validate_cards([card_from_dict(item, i) for i, item in enumerate(data, start=1)])


#: the largest card file read (the built-in set is about 4 kB)
MAX_CARD_FILE_BYTES: Final = 1_000_000


def load_cards(path: str | Path) -> tuple[Card, ...]:
    """Read and validate a user's card file; raises :class:`CardError` saying what is wrong.
    Reads at most :data:`MAX_CARD_FILE_BYTES` (so ``/dev/zero`` is refused at once)."""
    try:
        with Path(path).open("rb") as stream:
            data = stream.read(MAX_CARD_FILE_BYTES + 1)
    except OSError as error:
        raise CardError(f"cannot read card file {str(path)!r}: {error.strerror}") from None
    if len(data) > MAX_CARD_FILE_BYTES:
        raise CardError(
            f"card file {str(path)!r} is larger than {MAX_CARD_FILE_BYTES:,} bytes, the limit"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CardError(f"card file {str(path)!r} is not UTF-8 text") from None
    return loads_cards(text, source=str(path))


def loads_cards(text: str, source: str = "card file") -> tuple[Card, ...]:
    """Validate card-file text.

    >>> loads_cards('{"cards": [{"name": "X", "kind": "city", "symbol": "ray", '
    ...             '"requirement": 4, "vp": "two", "nukes": 1}]}')
    Traceback (most recent call last):
    ...
    marsdice.attacks.cards.CardError: card 1 ('X'): field 'vp' must be a whole number 0-99, ...
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CardError(
            f"{source}: not valid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    return parse_cards(data)


def dumps_cards(cards: Sequence[Card], placeholder: bool = False, note: str = "") -> str:
    """A card file for these cards (the loader reads it back unchanged)."""
    data: JSONObject = {"format": FORMAT, "placeholder": placeholder}
    if note:
        data["note"] = note
    data["cards"] = [card.to_dict() for card in cards]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@cache
def builtin_cards() -> tuple[Card, ...]:
    """The 29 cards shipped with the package: names from the rules, numbers placeholders."""
    text = resources.files("marsdice.attacks").joinpath("cards.json").read_text(encoding="utf-8")
    return loads_cards(text, source="built-in cards.json")


def builtin_is_placeholder() -> bool:
    """Whether the shipped file is flagged as placeholder values (it is, until someone
    enters the printed numbers)."""
    text = resources.files("marsdice.attacks").joinpath("cards.json").read_text(encoding="utf-8")
    return bool(json.loads(text).get("placeholder", False))


def cards_hash(cards: Sequence[Card]) -> str:
    """A short content hash of a card set: the first 12 hex digits of the SHA-256 of its
    canonical JSON (every rules field, in order; placeholder flags left out).

    >>> full, fewer = cards_hash(builtin_cards()), cards_hash(builtin_cards()[:28])
    >>> len(full), full == fewer
    (12, False)
    """
    data = []
    for card in cards:
        fields = card.to_dict()
        fields.pop("placeholder", None)
        data.append(fields)
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def by_slug(cards: Sequence[Card]) -> dict[str, Card]:
    return {card.slug: card for card in cards}


def card_tag(card: Card) -> str:
    """A card in one record tag: ``name|kind|symbol|requirement|vp|nukes|ability``.

    >>> card_tag(builtin_cards()[10])
    'Los Angeles|city|nuke|5|4|2|los-angeles'
    >>> card_from_tag('Los Angeles|city|nuke|5|4|2|los-angeles').requirement
    5
    """
    ability = card.ability.value if card.ability else "-"
    numbers = (str(card.requirement), str(card.vp), str(card.nukes))
    return "|".join((card.name, card.kind, card.symbol, *numbers, ability))


def card_from_tag(text: str, position: int = 1) -> Card:
    """Read :func:`card_tag` back (placeholder flags are not recorded)."""
    parts = text.split("|")
    if len(parts) != 7:
        raise CardError(
            f"card {position}: write name|kind|symbol|requirement|vp|nukes|ability, got {text!r}"
        )
    name, kind, symbol, requirement, vp, nukes, ability = parts
    data: dict[str, object] = {
        "name": name,
        "kind": kind,
        "symbol": symbol,
        "requirement": _maybe_int(requirement),
        "vp": _maybe_int(vp),
        "nukes": _maybe_int(nukes),
        "ability": None if ability == "-" else ability,
    }
    return card_from_dict(data, position)


def _maybe_int(text: str) -> int | str:
    return int(text) if re.fullmatch(r"-?[0-9]+", text) else text


def _enum(enum: type[E], value: object, bad: Bad, field: str) -> E:
    try:
        if not isinstance(value, str):
            raise ValueError(value)
        return enum(value)
    except ValueError:
        allowed = ", ".join(member.value for member in enum)
        raise bad(field, f"must be one of {allowed}, got {value!r}") from None


def _whole(value: object, low: int, high: int, bad: Bad, field: str) -> int:
    number = whole_number(value)
    if number is None or not low <= number <= high:
        raise bad(field, f"must be a whole number {low}-{high}, got {value!r}")
    return number
