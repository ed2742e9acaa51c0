"""Words a player reads: every event type of both games rendered by the page's own plugins
and translations, in English, Polish and Russian, at counts 0, 1, 2, 5 and 21, with no raw
code, placeholder or internal name left; the plural forms each language needs; the turn
recap; the review's and replay's words (display names, the result, moves in words).

The events are built from the engines' own event classes (every ``Event`` subclass of
``marsdice.attacks.events`` and ``marsdice.martian.events``), so a new event type is rendered
here without being listed."""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import re
import typing
from enum import Enum
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import marsdice.attacks.events as attacks_events
import marsdice.martian.events as martian_events
from browser_support import browser, new_page, server  # noqa: F401
from marsdice.attacks.cards import builtin_cards
from marsdice.attacks.phases import Outcome
from marsdice.core.game import Event
from serverproc import Server

STATIC = Path(__file__).resolve().parents[1] / "src" / "marsdice" / "web" / "static"
LANGS = ("en", "pl", "ru")
COUNTS = (0, 1, 2, 5, 21)
NAMES = ["Ann", "Bob", "Cleo"]
#: what no line a person reads may hold: a placeholder left, a translation key, a JS gap,
#: a card's notation, a move's notation, the dice as letters, a bot's notation
SLUGS = sorted({card.slug for card in builtin_cards() if "-" in card.slug})
BAD = [
    (re.compile(r"\{\w+\}"), "a placeholder left"),
    (re.compile(r"\b(?:attacks|martian|review):|\bevent\.|\bev\.|\bact\.|\bface\."), "a key"),
    (re.compile(r"\bundefined\b|\bNaN\b|\bnull\b|\[object"), "a gap"),
    (re.compile("|".join(map(re.escape, SLUGS))), "a card's notation"),
    (re.compile(r"@[a-z]"), "a move's notation"),
    (re.compile(r"\b[HRN]{3,}\b|\b[TRHCK]{4,}\b"), "dice as letters"),
    (
        re.compile(r"\b(?:winprob|planner|cautious|heuristic|expected|random)\b(?! bot)"),
        "a bot's notation",
    ),
]
#: English nouns that must agree with their number ("1 heads", "2 head")
NOUNS = {
    "head": "heads", "ray gun": "ray guns", "nuke": "nukes", "die": "dice", "point": "points",
    "death ray": "death rays", "tank": "tanks", "human": "humans", "cow": "cows",
    "chicken": "chickens", "turn": "turns", "card": "cards", "token": "tokens",
}  # fmt: skip


def _value(name: str, kind: Any, count: int) -> list[Any]:
    """The values a field takes in the samples (several for a flag or an enumeration)."""
    fixed: dict[str, list[Any]] = {
        "seat": [1],
        "stack": [1 + count % 4],
        "card": ["washington-monument"],
        "cards": [("las-vegas", "new-york")],
        "ability": ["seattle"],
        "switch": ["", "san-antonio"],
        "faces": ["H" * count + "R" + "N" * (count % 3)],
        "set": [""],
        "outcome": [o.value for o in Outcome],
        "winners": [(0,), (0, 1)],
        "seats": [(0, 1)],
        "remaining": [(), (1, 2)],
        "best": [(0,), (0, 1)],
        "scores": [(count, 3)],
        "counts": [(count, count, 2, 0, 1)],
        "set_aside": [(1, count, count, 1, 1)],
    }
    if name in fixed:
        return fixed[name]
    if name == "rays" and kind is not int:
        return [(count, 1)]
    if kind is bool:
        return [False, True]
    if isinstance(kind, type) and issubclass(kind, Enum):
        return list(kind)
    if name == "face" and kind is str:
        return ["H", "R", "N"]
    if kind is int:
        return [count]
    raise AssertionError(f"no sample for the field {name}: {kind}")


def event_classes(module: ModuleType) -> list[type[Event]]:
    return [
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, Event) and cls is not Event and cls.__module__ == module.__name__
    ]


def samples(module: ModuleType) -> list[dict[str, Any]]:
    """Every event type of the module at every count, each flag and enumeration both ways."""
    out: list[dict[str, Any]] = []
    for cls in event_classes(module):
        hints = typing.get_type_hints(cls)
        fields = dataclasses.fields(cls)
        for count in COUNTS:
            options = [_value(f.name, hints[f.name], count) for f in fields]
            for combo in itertools.product(*options):
                event = cls(**{f.name: v for f, v in zip(fields, combo, strict=True)})
                out.append(event.to_json() | {"_count": count})
    return out


def test_the_samples_cover_every_event_type() -> None:
    for module, least in ((attacks_events, 25), (martian_events, 9)):
        kinds = {cls.kind for cls in event_classes(module)}
        assert len(kinds) >= least
        assert {e["type"] for e in samples(module)} == kinds


RENDER = """async ({lang, events, names}) => {
  const i18n = await import("/static/js/i18n.js");
  await i18n.setLanguage(lang);
  await i18n.load("martian", "attacks", "review");
  const out = {};
  for (const game of ["martian", "attacks"]) {
    const plugin = await import(`/static/js/games/${game}.js`);
    const ctx = {t: i18n.t, i18n, lang, names, seat: 0};
    out[game] = events[game].map((event) => {
      const line = plugin.describeEvent(event, ctx);
      const dice = plugin.eventDice ? plugin.eventDice(event, ctx) : null;
      return {type: event.type, count: event._count, line,
              dice: dice ? dice.querySelectorAll("svg").length : 0};
    });
    if (game === "martian") {
      const values = {win_probability: 0.436, expected_score: 4.2};
      const choice = {action: "rays", values, loss: 0, blunder: false};
      out.hints = ["exact-2p", "exact-4p", "approximation"].map(
        (method) => plugin.describeChoice(choice, {...ctx, method}));
    }
    if (plugin.recap) {
      out[game + "_recaps"] = events[game + "_turns"].map((turn) => plugin.recap(turn, ctx));
    }
  }
  return out;
}"""


def turns() -> list[list[dict[str, Any]]]:
    """Whole Mars Attacks turns, as the engine's events, for the recap."""
    A = attacks_events
    began = A.TurnBegan(seat=1, turn=7, extra=False).to_json()
    target = A.TargetDeclared(seat=1, card="dallas", token=0).to_json()
    roll = A.Rolled(seat=1, faces="HRRRRRNN", set="", toronto=False, heads=1, rays=5, nukes=2)
    out = []
    for count in COUNTS:
        placed = A.TokenPlaced(seat=1, card="dallas", value=count, kept=False).to_json()
        out.append(
            [
                began,
                target,
                roll.to_json(),
                placed,
                A.TurnEnded(seat=1, outcome="stopped").to_json(),
            ]
        )
    bombed = A.Bombed(seat=1, card="dallas", nukes=5, limit=5, detroit=False, count=3).to_json()
    out.append([began, target, roll.to_json(), bombed, A.TurnEnded(1, "bombed").to_json()])
    took = A.Captured(seat=1, card="dallas", count=8, requirement=8, vp=3, total=5).to_json()
    out.append([began, target, roll.to_json(), took, A.TurnEnded(1, "captured").to_json()])
    return out


def problems(line: str, lang: str) -> list[str]:
    found = [why for pattern, why in BAD if pattern.search(line)]
    if not line.strip():
        found.append("empty")
    if lang == "en":
        for one, many in NOUNS.items():
            if re.search(rf"(?<![\d.,])1 {many}\b(?! up)", line):
                found.append(f"1 {many}")
            if re.search(rf"\b(?:0|[2-9]|\d\d+) {one}\b(?! gun)", line):
                found.append(f"n {one}")
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_every_event_reads_as_words_in_each_language(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
    lang: str,
) -> None:
    events: dict[str, list[Any]] = {
        "martian": samples(martian_events),
        "attacks": samples(attacks_events),
        "attacks_turns": turns(),
        "martian_turns": [],
    }
    page = new_page(browser, server, lang=lang)
    pages.append(page)
    page.goto("/")
    page.wait_for_selector("#create-button")
    out = page.evaluate(RENDER, {"lang": lang, "events": events, "names": NAMES})
    bad = []
    for game in ("martian", "attacks"):
        assert len(out[game]) == len(events[game])
        for item in out[game]:
            for why in problems(item["line"], lang):
                bad.append(f"{game} {item['type']} at {item['count']}: {why}: {item['line']}")
            if item["type"] in ("rolled", "rolloff_roll"):
                assert item["dice"] > 0, item  # the log draws the dice
    assert not bad, "\n".join(bad[:40])
    # a hint says what its value is: a chance to win when exact, a rating when approximate
    exact, four, approximate = out["hints"]
    words = {"en": ("chance to win", "rating"), "pl": ("szansa", "ocena"), "ru": ("шанс", "оценка")}
    win, rating = words[lang]
    assert win in exact and win in four and rating not in exact, out["hints"]
    assert rating in approximate and win not in approximate, out["hints"]
    recaps = out["attacks_recaps"]
    assert all(recaps), recaps
    for line in recaps:
        assert "Bob" in line and "Dallas" in line and not problems(line, lang), line
    assert "5" in recaps[0] and "2" in recaps[0]  # 5 ray guns, 2 nukes locked


def _texts(lang: str, ns: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((STATIC / "i18n" / lang / f"{ns}.json").read_text())
    return loaded


#: Intl.PluralRules' categories for whole and decimal numbers, per language (CLDR)
CATEGORIES = {"en": {"one", "other"}, "pl": {"one", "few", "many", "other"}}
CATEGORIES["ru"] = CATEGORIES["pl"]
#: a count followed by a word: the word's form depends on the count
COUNTED = re.compile(r"\{count\}\s+(?!of\b|z\b|из\b)\w")


@pytest.mark.parametrize("ns", ["common", "martian", "attacks", "review"])
@pytest.mark.parametrize("lang", LANGS)
def test_plurals_have_every_form_the_language_needs(lang: str, ns: str) -> None:
    """A plural has exactly the language's forms (Polish and Russian: one, few, many and
    other, the form of fractions), and a count before a word is always a plural."""
    for key, value in _texts(lang, ns).items():
        if isinstance(value, dict):
            assert set(value) == CATEGORIES[lang], (lang, ns, key, sorted(value))
        elif key not in ("count", "dice_count"):  # "{count} {face}": the face is a plural
            assert not COUNTED.search(value), (lang, ns, key, value)
