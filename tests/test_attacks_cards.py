"""The card set as data: the shipped placeholder file and the validation of a user's file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from marsdice.attacks import Variant
from marsdice.attacks.cards import (
    Ability,
    CardError,
    Kind,
    Symbol,
    builtin_cards,
    builtin_is_placeholder,
    card_from_tag,
    card_tag,
    dumps_cards,
    load_cards,
    loads_cards,
)
from marsdice.core.errors import VariantError


def test_builtin_set_has_29_cards_every_ability_once_and_is_flagged_placeholder() -> None:
    cards = builtin_cards()
    assert len(cards) == 29
    assert builtin_is_placeholder()
    assert sorted(c.ability for c in cards if c.ability) == sorted(Ability)
    assert all({"requirement", "vp", "nukes"} & set(c.placeholder) for c in cards)
    assert sum(1 for c in cards if c.kind is Kind.MONUMENT) == 7
    assert all(c.symbol is Symbol.HEAD for c in cards if c.kind is Kind.MONUMENT)


def test_dumped_cards_load_back_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "cards.json"
    path.write_text(dumps_cards(builtin_cards(), placeholder=True, note="copy"), encoding="utf-8")
    assert load_cards(path) == builtin_cards()


def test_a_bare_list_of_cards_is_accepted() -> None:
    text = json.dumps([c.to_dict() for c in builtin_cards()[:3]])
    assert [c.name for c in loads_cards(text)] == ["Seattle", "Boston", "Toronto"]


def test_card_tags_round_trip_every_card() -> None:
    for i, card in enumerate(builtin_cards(), start=1):
        back = card_from_tag(card_tag(card), i)
        assert (back.name, back.requirement, back.vp, back.nukes, back.ability) == (
            card.name,
            card.requirement,
            card.vp,
            card.nukes,
            card.ability,
        )


def _file(card: int = 1, **changes: object) -> str:
    """The built-in set as a file, with card ``card`` (0-based; Boston) changed; ``None``
    removes a field."""
    cards = [dict(c.to_dict()) for c in builtin_cards()]
    for key, value in changes.items():
        if value is None:
            del cards[card][key]
        else:
            cards[card][key] = value
    return json.dumps({"cards": cards})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_file(power="x"), "card 2 ('Boston'): field 'power' is not a card field"),
        (_file(kind="castle"), "card 2 ('Boston'): field 'kind' must be one of city, monument"),
        (_file(vp=-1), "card 2 ('Boston'): field 'vp' must be a whole number 0-99, got -1"),
        (_file(vp=True), "card 2 ('Boston'): field 'vp' must be a whole number"),
        (_file(nukes=3), "card 2 ('Boston'): field 'nukes' must be a whole number 0-2"),
        (_file(requirement=0), "card 2 ('Boston'): field 'requirement' must be a whole number"),
        (_file(requirement=None), "card 2 ('Boston'): field 'requirement' is missing"),
        (_file(name="Seattle"), "card 2 ('Seattle'): field 'name' duplicates card 1 ('Seattle')"),
        (_file(name="SEATTLE!"), "field 'name' duplicates card 1 ('Seattle') once written as"),
        (_file(name=" "), "card 2 (' '): field 'name' must be the card's name"),
        (_file(ability="seattle"), "card 2 ('Boston'): field 'ability' 'seattle' is already on"),
        (_file(ability="flying"), "card 2 ('Boston'): field 'ability' must be one of"),
        (_file(symbol="head"), "card 2 ('Boston'): field 'symbol' head belongs to monuments"),
        (_file(symbol="nuke"), "field 'symbol' nuke goes with ability los-angeles"),
        (_file(kind="monument", symbol="head"), "card 2 ('Boston'): field 'kind' of a card with"),
        (_file(11, requirement=2), "card 12 ('Las Vegas'): field 'requirement' of the las-vegas"),
        (_file(9, requirement=11), "card 10 ('Detroit'): field 'requirement' of the detroit"),
        (_file(11, kind="monument"), "card 12 ('Las Vegas'): field 'kind'"),
        (_file(10, kind="monument"), "card 11 ('Los Angeles'): field 'kind'"),
        (_file(22, kind="city"), "card 23 ('Washington Monument'): field 'symbol' head belongs"),
        (_file(placeholder=["colour"]), "card 2 ('Boston'): field 'placeholder' must be a list"),
        ('{"cards": [], "deck": 1}', "unknown top-level field 'deck'"),
        ('{"format": "other", "cards": []}', "field 'format' must be"),
        ('{"cards": []}', "the card set is empty"),
        ('{"cards": [1]}', "card 1: must be an object"),
        ('{"cards": [', "not valid JSON at line 1"),
    ],
)
def test_a_bad_card_file_is_rejected_naming_the_card_and_field(text: str, message: str) -> None:
    with pytest.raises(CardError) as error:
        loads_cards(text)
    assert message in str(error.value)


def test_a_bad_card_file_on_disk_is_rejected_and_nothing_starts(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(_file(vp="two"), encoding="utf-8")
    with pytest.raises(VariantError, match=r"card 2 \('Boston'\): field 'vp'"):
        Variant(cards=load_cards(path))
    with pytest.raises(CardError, match="cannot read card file"):
        load_cards(tmp_path / "missing.json")


def test_a_card_set_too_small_for_the_players_is_refused() -> None:
    cards = builtin_cards()[:12]
    assert len(Variant(players=3, cards=cards).cards) == 12
    with pytest.raises(VariantError, match="4 players need 16 cards"):
        Variant(players=4, cards=cards)


def test_the_rules_fix_what_a_named_ability_card_is_whatever_the_file_says() -> None:
    """Las Vegas is taken by the third bomb, not by a requirement; named cities are cities.
    A set built in code is checked the same way as a file."""
    from dataclasses import replace

    cards = list(builtin_cards())
    vegas = next(i for i, c in enumerate(cards) if c.ability is Ability.LAS_VEGAS)
    cards[vegas] = replace(cards[vegas], requirement=2)
    with pytest.raises(VariantError, match=r"cards: card 12 \('Las Vegas'\): field 'requirement'"):
        Variant(cards=tuple(cards))
    boston = next(i for i, c in enumerate(cards) if c.ability is Ability.BOSTON)
    cards = list(builtin_cards())
    cards[boston] = replace(cards[boston], kind=Kind.MONUMENT, symbol=Symbol.HEAD)
    with pytest.raises(VariantError, match="must be city: the rules make boston a city"):
        Variant(cards=tuple(cards))


def test_the_card_hash_follows_every_rules_field_and_ignores_placeholder_flags() -> None:
    from dataclasses import replace

    from marsdice.attacks.cards import cards_hash

    cards = builtin_cards()
    assert cards_hash(cards) == cards_hash(tuple(replace(c, placeholder=()) for c in cards))
    changed = (replace(cards[0], vp=cards[0].vp + 1), *cards[1:])
    assert cards_hash(changed) != cards_hash(cards)
