"""Mars Attacks in a real browser (Debian's Chromium through Playwright) against a real server:
one person plays a whole game against two bots by clicking the action buttons; the review page
and the replay viewer of that game show every decision and every step (counted against the
API's JSON); a bad card file is refused next to the upload field.

Screenshots (desktop and 375 px) go to ``$MARSDICE_SCREENSHOTS`` when it is set."""

from __future__ import annotations

import functools
import json
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

# browser_support imports ``tests.serverproc``: the repository's root must be importable
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import browser_support
from browser_support import create_table, new_page
from serverproc import Server

#: the shared fixtures (a Chromium and a server per module)
browser = browser_support.browser
server = browser_support.server

SHOTS = os.environ.get("MARSDICE_SCREENSHOTS")
#: clicks a person may need for a whole game (3 seats, the end after one empty stack)
MAX_CLICKS = 400
#: the bots' turns between two of the person's (a loaded machine can be slow)
BOT_WAIT_MS = 60_000
ENABLED = "button[data-action]:not([disabled])"
#: dice on the board, none animating / some rolling in with the board's animation
#: records the animation of every die drawn from now on (a turn may end, and the bots play,
#: between two animation frames: the dice of one roll need not be on screen when polled)
WATCH_DICE = """() => {
  window.__dice = [];
  const seen = (node) => {
    if (!(node instanceof Element)) return;
    const query = '.atk-dice .die';
    const dice = node.matches(query) ? [node] : [...node.querySelectorAll(query)];
    // (a die replaced within the same moment is never on screen: its style is no one's)
    for (const die of dice.filter((d) => d.isConnected)) {
      window.__dice.push(getComputedStyle(die).animationName);
    }
  };
  new MutationObserver((changes) => {
    for (const change of changes) change.addedNodes.forEach(seen);
  }).observe(document.body, { subtree: true, childList: true });
}"""
STILL = "() => window.__dice.length > 0 && window.__dice.every((name) => name === 'none')"
#: some die drawn since WATCH_DICE rolled in with the board's animation
ROLLED = "() => window.__dice.includes('atk-roll')"
ACTED = (
    "() => document.querySelector('.end-panel:not([hidden])') !== null"
    " || document.querySelector('button[data-action]:not([disabled])') !== null"
)


def shoot(page: Any, name: str) -> None:
    """A full-page screenshot for the docs and for looking at (only with MARSDICE_SCREENSHOTS)."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def seated_page(browser: Any, server: Server, table_id: str, seat: int, **kwargs: Any) -> Any:
    """A page holding the seat's token in localStorage, as the lobby leaves it after joining."""
    joined = httpx.post(
        f"{server.base}/api/tables/{table_id}/join", json={"seat": seat, "name": "Ann"}, timeout=10
    )
    assert joined.status_code == 200, joined.text
    token = joined.json()["token"]
    page = new_page(browser, server, **kwargs)
    seats = {table_id: {"seat": seat, "token": token, "at": 0}}
    page.context.add_init_script(
        f"localStorage.setItem('marsdice.seats', {json.dumps(json.dumps(seats))})"
    )
    return page


def choose(page: Any, rng: random.Random) -> str:
    """A sensible legal move from the buttons: attack, reroll while two nukes short of the
    limit, else stop; abilities at random."""
    actions: list[str] = page.eval_on_selector_all(ENABLED, "bs => bs.map(b => b.dataset.action)")
    meter = page.query_selector(".atk-dice .nuke-meter")
    assert meter is not None, "the board shows the nukes against the limit"
    nukes = int(meter.get_attribute("aria-valuenow") or 0)
    limit = int(meter.get_attribute("aria-valuemax") or 0)
    targets = [a for a in actions if a.startswith("@")]
    if targets:
        return rng.choice(targets)
    if "reroll" in actions and limit - nukes > 2:
        return "reroll"
    if "stop" in actions:
        return "stop"
    return rng.choice(actions)


@pytest.fixture(scope="module")
def finished_game(browser: Any, server: Server) -> Iterator[dict[str, Any]]:
    """One person (seat 0) plays a whole Mars Attacks game against two bots in the page."""
    table = create_table(
        server,
        "attacks",
        {"end_stacks": 1},
        [{"kind": "human"}, {"kind": "bot", "bot": "planner"}, {"kind": "bot", "bot": "heuristic"}],
        {"hints": False, "fool_check": False},
    )
    page = seated_page(browser, server, table["id"], 0)
    page.goto(f"/t/{table['id']}")
    page.wait_for_selector(".atk-board .atk-stack")
    rng = random.Random(12)
    played: list[str] = []
    labels: dict[str, str] = {}
    for _ in range(MAX_CLICKS):
        page.wait_for_function(ACTED, timeout=BOT_WAIT_MS)
        if page.query_selector(".end-panel:not([hidden])"):
            break
        action = choose(page, rng)
        button = page.locator(f'button[data-action="{action}"]')
        labels[action] = button.inner_text()
        if action == "reroll" and "reroll" not in played:
            shoot(page, "attacks-desktop")  # the dice on the table, mid-attack
        button.click()
        played.append(action)
    else:
        pytest.fail(f"no end after {MAX_CLICKS} clicks")
    page.wait_for_selector(".end-panel:not([hidden])")
    assert not page.errors, page.errors
    yield {"table": table, "page": page, "played": played, "labels": labels}
    page.context.close()


def test_a_person_plays_a_whole_game_against_two_bots(
    finished_game: dict[str, Any], server: Server
) -> None:
    table_id = finished_game["table"]["id"]
    final = httpx.get(f"{server.base}/api/tables/{table_id}", timeout=10).json()
    assert final["status"] == "finished"
    played = finished_game["played"]
    # the server's dice decide how long it lasts: a short game may never offer a reroll or a
    # stop to the person, so only a declared target is certain
    assert any(a.startswith("@") for a in played), played
    # the buttons carry readable labels, not the notation
    labels = finished_game["labels"]
    target = next(a for a in played if a.startswith("@"))
    assert labels[target].startswith("Attack "), labels
    page = finished_game["page"]
    # the end screen and the final board: every seat's points as the server counts them
    replay = httpx.get(f"{server.base}/api/tables/{table_id}/replay", timeout=30).json()
    scores = replay["steps"][-1]["view"]["scores"]
    shown = page.eval_on_selector_all(".atk-player .atk-vp", "els => els.map(e => e.textContent)")
    assert shown == [f"{score} VP" for score in scores]


def test_review_shows_every_decision(
    browser: Any, server: Server, finished_game: dict[str, Any]
) -> None:
    table_id = finished_game["table"]["id"]
    review = httpx.get(f"{server.base}/api/tables/{table_id}/review", timeout=60).json()
    page = new_page(browser, server)
    page.goto(f"/t/{table_id}/review")
    # the page asks for the review again (worked out anew in the solve pool, as long as the
    # call above was allowed to take on a crowded machine)
    page.wait_for_selector(".rv-decision", timeout=60_000)
    assert page.locator(".rv-decision").count() == len(review["decisions"]) > 0
    assert page.locator(".rv-summary").count() == len(review["summaries"]) == 3
    # the planner's values are labelled as estimates; each mark is a symbol and a word
    assert "estimates" in page.inner_text(".rv-method").lower()
    marks = page.eval_on_selector_all(".rv-decision", "els => els.map(e => e.dataset.mark)")
    assert marks == [d["mark"] for d in review["decisions"]]
    for decision, badge in zip(
        review["decisions"], page.locator(".rv-mark").all_inner_texts(), strict=True
    ):
        assert decision["mark"].replace("unrated", "not rated") in badge.lower()
    # the filter: only the errors
    errors = [d for d in review["decisions"] if d["mark"] in ("inaccuracy", "mistake", "blunder")]
    page.check("#rv-filter-errors")
    assert page.locator(".rv-decision").count() == len(errors)
    shoot(page, "review-desktop")
    page.set_viewport_size({"width": 375, "height": 800})
    page.uncheck("#rv-filter-errors")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    shoot(page, "review-phone")
    # each decision links to the replay at the position it was made in
    replay = httpx.get(f"{server.base}/api/tables/{table_id}/replay", timeout=30).json()
    for decision in review["decisions"]:
        assert replay["steps"][decision["index"] - 1]["action"] == decision["played"]
    last = review["decisions"][-1]
    page.click(f'a.rv-index:text-is("#{last["index"]}")')
    page.wait_for_selector(".rp-page")
    assert page.get_attribute(".rp-page", "data-position") == str(last["index"] - 1)
    assert not page.errors, page.errors
    page.context.close()


def test_replay_steps_through_every_move(
    browser: Any, server: Server, finished_game: dict[str, Any]
) -> None:
    table_id = finished_game["table"]["id"]
    replay = httpx.get(f"{server.base}/api/tables/{table_id}/replay", timeout=30).json()
    steps = len(replay["steps"])
    page = new_page(browser, server)
    page.goto(f"/t/{table_id}/replay")
    page.wait_for_selector(".rp-page .atk-board")
    assert page.locator(".rp-move").count() == steps > 0

    def position() -> int:
        return int(page.get_attribute(".rp-page", "data-position") or -1)

    assert position() == 0
    page.click(".rp-next")
    page.click(".rp-next")
    assert position() == 2
    page.click(".rp-prev")
    assert position() == 1
    page.keyboard.press("ArrowRight")
    assert position() == 2
    page.keyboard.press("End")
    assert position() == steps
    # the last view is the server's: the board shows its scores
    scores = replay["steps"][-1]["view"]["scores"]
    shown = page.eval_on_selector_all(".atk-player .atk-vp", "els => els.map(e => e.textContent)")
    assert shown == [f"{score} VP" for score in scores]
    page.keyboard.press("Home")
    assert position() == 0
    # every step can be reached from the list, and each shows its events
    middle = steps // 2
    page.click(f'.rp-move button[data-step="{middle}"]')
    assert position() == middle
    assert page.get_attribute(f'.rp-move button[data-step="{middle}"]', "aria-current") == "step"
    page.fill("#rp-slider", str(steps - 1))
    assert position() == steps - 1
    events = replay["steps"][steps - 2]["view"]["events"]
    assert page.locator(".rp-events li").count() == len(events)
    shoot(page, "replay-desktop")
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    shoot(page, "replay-phone")
    assert not page.errors, page.errors
    page.context.close()


def test_phone_layout_shows_the_actions(browser: Any, server: Server) -> None:
    table = create_table(
        server,
        "attacks",
        {},
        [
            {"kind": "human"},
            {"kind": "bot", "bot": "heuristic"},
            {"kind": "bot", "bot": "heuristic"},
        ],
        {"hints": True, "fool_check": False},
    )
    page = seated_page(browser, server, table["id"], 0, width=375, height=800)
    page.goto(f"/t/{table['id']}")
    page.wait_for_selector(ENABLED)
    targets = page.locator(ENABLED)
    faces = page.locator(".atk-card").count()
    vegas = page.locator('.atk-card[data-card="las-vegas"]').count()
    assert targets.count() == faces - vegas >= 3  # every face-up card but Las Vegas
    for box in (targets.nth(i).bounding_box() for i in range(targets.count())):
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # the hints (on at this table, folded on a phone): the planner's capture and bomb
    # chances, labelled estimates
    page.click(".fold-hints:not([hidden]) > summary")
    hint = page.locator("text=/capture \\d+%, bombed \\d+%.*planner's estimates/").first
    hint.wait_for()
    # a keyboard shortcut: the first card's stack number
    first = page.locator(ENABLED).first
    action, key = first.get_attribute("data-action"), first.get_attribute("data-key")
    assert action is not None and action.startswith("@") and key is not None and key.isdigit()
    name = page.inner_text(f'.atk-card[data-card="{action[1:]}"] .card-name')
    page.evaluate(WATCH_DICE)
    page.keyboard.press(key)
    page.locator(".ev-target-declared", has_text=f"Ann attacks {name}.").first.wait_for(
        state="attached"
    )
    page.click(".fold-log > summary")  # (the log is folded on a phone)
    page.locator(".ev-target-declared", has_text=f"Ann attacks {name}.").first.wait_for()
    # reduced motion: no die animates
    page.wait_for_function(STILL)
    shoot(page, "attacks-phone")
    assert not page.errors, page.errors
    page.context.close()


def test_dice_roll_visibly(browser: Any, server: Server) -> None:
    """Without reduced motion the dice of a new roll animate in (CSS ``atk-roll``)."""
    table = create_table(
        server,
        "attacks",
        {},
        [{"kind": "human"}, {"kind": "bot", "bot": "heuristic"}],
        {"hints": False, "fool_check": False},
    )
    page = seated_page(browser, server, table["id"], 0, reduced_motion=False)
    page.goto(f"/t/{table['id']}")
    page.wait_for_selector(".atk-board .atk-stack")
    # recorded as drawn: the roll may end the turn and the bot's turn replace its dice
    # before a poll would see them
    page.evaluate(WATCH_DICE)
    page.locator(ENABLED).first.click()
    page.wait_for_function(ROLLED)
    assert not page.errors, page.errors
    page.context.close()


def test_a_bad_card_file_is_shown_next_to_the_field(
    browser: Any, server: Server, tmp_path: Path
) -> None:
    page = new_page(browser, server)
    page.goto("/")
    page.select_option("#create-game", "attacks")
    page.wait_for_selector("#atk-opt-cards")
    page.fill("#create-name", "Ann")
    # not JSON at all: refused in the page
    garbage = tmp_path / "cards.txt"
    garbage.write_text("this is not json", encoding="utf-8")
    page.set_input_files("#atk-opt-cards", str(garbage))
    error = page.locator('[data-error-for="cards"]')
    error.wait_for()
    page.wait_for_function(
        "() => document.querySelector('[data-error-for=\"cards\"]').textContent !== ''"
    )
    assert "Not a JSON file" in error.inner_text()
    # JSON whose card the server's validator refuses: the 422 lands next to the field
    cards = json.loads(
        (Path(__file__).parents[1] / "src/marsdice/attacks/cards.json").read_text(encoding="utf-8")
    )
    cards["cards"][2]["vp"] = -4
    bad = tmp_path / "cards.json"
    bad.write_text(json.dumps(cards), encoding="utf-8")
    page.set_input_files("#atk-opt-cards", str(bad))
    page.wait_for_function(
        "() => document.querySelector('[data-error-for=\"cards\"]').textContent === ''"
    )
    page.click("#create-button")
    page.wait_for_function(
        "() => document.querySelector('[data-error-for=\"cards\"]').textContent !== ''"
    )
    text = error.inner_text()
    assert "vp" in text and "Toronto" in text, text
    shoot(page, "lobby-attacks-card-error")
    assert page.url.rstrip("/").endswith(server.base.split("//")[1]) or "/t/" not in page.url
    assert not page.errors, page.errors
    page.context.close()


# --- the texts: no browser needed -----------------------------------------------------------------

STATIC = Path(__file__).resolve().parents[1] / "src/marsdice/web/static"
LANGUAGES = ("en", "pl", "ru")


def texts(lang: str, namespace: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (STATIC / "i18n" / lang / f"{namespace}.json").read_text(encoding="utf-8")
    )
    return loaded


@pytest.mark.parametrize("namespace", ["attacks", "review"])
def test_every_language_has_every_text(namespace: str) -> None:
    english = texts("en", namespace)
    for lang in LANGUAGES[1:]:
        other = texts(lang, namespace)
        assert sorted(other) == sorted(english), lang
        for key, value in other.items():
            # plural forms: the same placeholders as English, the language's own categories
            forms = value.values() if isinstance(value, dict) else [value]
            wanted = english[key].values() if isinstance(english[key], dict) else [english[key]]
            holes = {h for text in wanted for h in _holes(text)}
            for text in forms:
                assert _holes(text) <= holes | {"count", "n"}, (lang, key, text)


def _holes(text: str) -> set[str]:
    import re

    return set(re.findall(r"\{(\w+)\}", text))


def test_the_plugin_has_a_text_for_every_event_ability_and_setting() -> None:
    """Every event kind, ability, card kind and symbol, phase, turn outcome and switch value the
    engine has: a change there without a text here fails."""
    import re
    from dataclasses import fields

    from marsdice.attacks import events
    from marsdice.attacks.cards import Ability, Kind, Symbol
    from marsdice.attacks.phases import CHANCE_PHASES, Outcome, Phase
    from marsdice.attacks.variant import SWITCHES
    from marsdice.core.game import Event

    english = texts("en", "attacks")
    kinds = {
        cls.kind
        for cls in vars(events).values()
        if isinstance(cls, type) and issubclass(cls, Event) and cls is not Event and fields(cls)
    }
    assert len(kinds) > 20
    wanted = {f"event.{kind}" for kind in kinds}
    wanted |= {f"ability.{a.value}.{part}" for a in Ability for part in ("colour", "text")}
    wanted |= {f"kind.{k.value}" for k in Kind} | {f"symbol.{s.value}" for s in Symbol}
    wanted |= {f"outcome.{o.value}" for o in Outcome}
    wanted |= {f"phase.{p.value}" for p in Phase if p not in CHANCE_PHASES and p is not Phase.OVER}
    wanted |= {f"option.{name}.{m.value}" for name, enum in SWITCHES.items() for m in enum}
    wanted |= {f"difficulty.{m.value}" for m in SWITCHES["difficulty"]}
    script = (STATIC / "js/games/attacks.js").read_text(encoding="utf-8")
    wanted |= set(re.findall(r'tr\(t, "([^"]+)"', script))
    wanted |= set(re.findall(r'"(event\.[a-z-]+)"', script))
    assert sorted(wanted - set(english)) == []


def test_the_lobby_offers_every_setting_the_server_declares(server: Server) -> None:
    """The lobby's form is the schema of /api/games: every setting (but the player count and
    the card file) has a label and a text for each of its choices."""
    games = httpx.get(f"{server.base}/api/games", timeout=10).json()["games"]
    properties = next(g for g in games if g["name"] == "attacks")["schema"]["variant"]["properties"]
    english = texts("en", "attacks")
    wanted = set()
    for name, prop in properties.items():
        if name in ("players", "cards"):
            continue
        values = prop.get("enum") or range(prop["minimum"], prop["maximum"] + 1)
        wanted |= {f"option.{name}"} | {f"option.{name}.{value}" for value in values}
    assert len(wanted) > 12
    assert sorted(wanted - set(english)) == []


TIE_BREAKS = """async ([tie, cards]) => {
  const plugin = await import("/static/js/games/attacks.js");
  const t = (key, params) => key.split(":")[1] + (params.n !== undefined ? ":" + params.n : "");
  const owned = cards.map((n) => Array.from({ length: n }, () => ({ slug: "x", name: "X" })));
  const view = { players: cards.length, phase: "over", board: { owned } };
  return plugin.tieBreakLines(tie, view, { t, names: ["Ann", "Bob", "Cy"] });
}"""


def tie(seats: list[int], places: list[int], by: str) -> dict[str, Any]:
    return {"score": 5, "seats": seats, "places": places, "by": by}


@pytest.mark.parametrize(
    ("group", "cards", "lines"),
    [
        (tie([0, 1], [1, 2], "cards"), [2, 1, 0], ["tie.vp"]),  # more cards win
        (tie([1, 0], [1, 2], "reached_first"), [1, 1, 0], ["tie.vp", "tie.reached_first"]),
        (tie([0, 1, 2], [1, 1, 1], "shared"), [1, 1, 1], ["tie.vp", "tie.shared"]),  # shared win
        (tie([2, 1], [2, 3], "cards"), [3, 0, 1], ["tie.vp_place"]),  # a lower place
        (tie([1, 2], [2, 2], "shared"), [3, 0, 0], ["tie.vp_place", "tie.shared_place:2"]),
    ],
)
def test_end_screen_explains_the_tie_break(
    browser: Any, server: Server, group: dict[str, Any], cards: list[int], lines: list[str]
) -> None:
    """Each tie-break of the view in words: the rule the engine names (``by``), never one of
    the page's own."""
    page = new_page(browser, server)
    page.goto("/static/i18n/en/attacks.json")  # any page of the server: the module's origin
    assert page.evaluate(TIE_BREAKS, [group, cards]) == lines
    page.context.close()


DESCRIBE = """async ([lang, events, actions]) => {
  const plugin = await import("/static/js/games/attacks.js");
  const dict = await (await fetch(`/static/i18n/${lang}/attacks.json`)).json();
  const t = (key, params = {}) => {
    let value = dict[key.split(":")[1]];
    if (value === undefined) return `MISSING ${key}`;
    if (typeof value === "object") {
      value = value[new Intl.PluralRules(lang).select(Number(params.count ?? 0))] ?? value.other;
    }
    const fill = (whole, name) => (name in params ? String(params[name]) : whole);
    return String(value).replace(/\\{(\\w+)\\}/g, fill);
  };
  const ctx = { t, names: ["Ann", "Bob", "Cy"], seat: 0 };
  return [
    ...events.map((event) => plugin.describeEvent(event, ctx)),
    ...actions.map((action) => plugin.actionLabel(action, null, ctx).label),
  ];
}"""


@functools.cache
def engine_trace() -> tuple[list[dict[str, Any]], list[str]]:
    """Every event and every legal action of a few seeded random games (one of each kind)."""
    from marsdice.attacks.game import GAME

    events: dict[str, dict[str, Any]] = {}
    actions: set[str] = set()
    for seed in range(6):
        rng = random.Random(seed)
        state = GAME.start(GAME.variant_from_params({"players": 3, "reroll": "subset"}), rng)
        while not state.is_terminal:
            legal = state.legal_actions()
            if state.current_player >= 0:
                actions.update(action.text() for action in legal)
            state = state.apply(rng.choice(legal))
            observed: dict[str, Any] = dict(GAME.observe(state, None))
            for event in observed["events"]:
                events.setdefault(f"{event['type']}{event.get('extra', '')}", event)
    return list(events.values()), sorted(actions)


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_every_event_and_action_reads_in_each_language(
    browser: Any, server: Server, lang: str
) -> None:
    events, actions = engine_trace()
    assert len({e["type"] for e in events}) >= 15 and len(actions) > 20
    page = new_page(browser, server, lang=lang)
    page.goto("/static/i18n/en/attacks.json")
    lines = page.evaluate(DESCRIBE, [lang, events, actions])
    assert len(lines) == len(events) + len(actions)
    for line, what in zip(lines, [*events, *actions], strict=True):
        assert line and "MISSING" not in line and "{" not in line and "undefined" not in line, (
            what,
            line,
        )
    page.context.close()
