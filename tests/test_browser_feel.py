"""The table as players feel it (issue 21): real Chromium pages against a real server.

- axe-core finds no violation on the lobby, both games' tables, the rules and the end screen,
  in light and in dark mode;
- a whole game of each game is played by the keyboard alone, every button showing its key,
  the focus staying on the action area across the turns;
- a Russian keyboard layout presses the same buttons (``event.code``);
- on a 320 and a 375 px phone the player strip stays in sight above the actions, every
  action can be reached and nothing scrolls sideways;
- pacing: at a slow speed a bot's steps wait their turn and are each shown (none skipped),
  "Show all now" and "instant" show what waits at once; the last roll stays on screen.

Bots move at once on the test server (delay 0) and every page but the pacing test's is at the
"instant" speed, so nothing waits on a clock."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from browser_support import (
    assert_accessible,
    browser,
    create_table,
    new_page,
    server,
    table_state,
)
from serverproc import Server

__all__ = ["browser", "server"]  # the fixtures, imported for pytest

ENABLED = ".actions:not([hidden]) button.action:not([disabled])"
#: the page is at a decision of this seat, or the game is over
READY = (
    f"!!(document.querySelector({json.dumps(ENABLED)}) || document.querySelector('.end-headline'))"
)
#: the Russian (ЙЦУКЕН) letter on each Latin key of a US keyboard
RUSSIAN = dict(zip("qwertyuiopasdfghjklzxcvbnm", "йцукенгшщзфывапролдячсмить", strict=True))


def seated(browser: Any, server: Server, table_id: str, seat: int = 0, **kwargs: Any) -> Any:
    """A page holding the seat's token, as the lobby leaves it after joining."""
    joined = httpx.post(
        f"{server.base}/api/tables/{table_id}/join",
        json={"seat": seat, "name": "Ann"},
        timeout=10,
    )
    assert joined.status_code == 200, joined.text
    seats = {table_id: {"seat": seat, "token": joined.json()["token"], "at": 0}}
    page = new_page(browser, server, **kwargs)
    page.context.add_init_script(
        f"localStorage.setItem('marsdice.seats', {json.dumps(json.dumps(seats))})"
    )
    return page


def spectator_actors(server: Server, table_id: str) -> list[str]:
    """Who made each step so far (``actors`` of a spectator's whole state)."""
    with connect(server.ws(table_id)) as ws:
        ws.send(json.dumps({"type": "hello", "protocol": 3}))
        state: dict[str, Any] = json.loads(ws.recv(timeout=20))
    return list(state["actors"])


def version(page: Any) -> int:
    value = page.locator(".table-page").get_attribute("data-version")
    return int(value) if value not in (None, "") else -1


def wait_newer(page: Any, before: int) -> None:
    page.wait_for_function(
        "v => Number(document.querySelector('.table-page').dataset.version) > v", arg=before
    )


def buttons(page: Any) -> list[tuple[str, str | None, str]]:
    """The enabled actions now: (action, key, the key shown on the button)."""
    found = page.eval_on_selector_all(
        ENABLED,
        "bs => bs.map(b => [b.dataset.action, b.dataset.key || null,"
        " b.querySelector('kbd') ? b.querySelector('kbd').textContent : ''])",
    )
    return [(str(a), k, str(shown)) for a, k, shown in found]


def sent_actions(page: Any) -> list[str]:
    """Every action the page sends on its WebSocket, as it sends it (filled in place)."""
    sent: list[str] = []

    def frame(payload: Any) -> None:
        try:
            message = json.loads(payload)
        except (TypeError, ValueError):
            return
        if isinstance(message, dict) and message.get("type") == "action":
            sent.append(str(message["action"]))

    page.on("websocket", lambda ws: ws.on("framesent", frame))
    return sent


def focus_in_actions(page: Any) -> bool:
    return bool(page.evaluate("!!document.activeElement?.closest('.action-bar')"))


# --- accessibility -------------------------------------------------------------------------


def finished_table(server: Server) -> str:
    """A bots-only Martian Dice game played to its end."""
    seats = [{"kind": "bot", "bot": "cautious"}, {"kind": "bot", "bot": "random"}]
    table_id = str(create_table(server, "martian", {"target": 8}, seats)["id"])
    for _ in range(400):
        if table_state(server, table_id)["status"] == "finished":
            return table_id
        time.sleep(0.05)
    raise AssertionError("the bots' game did not finish")


def test_axe_finds_no_violation_on_the_players_pages(
    pages: list[Any], browser: Any, server: Server
) -> None:
    page = new_page(browser, server)
    pages.append(page)
    page.goto("/")
    page.wait_for_selector("#create-button")
    assert_accessible(page, "lobby")
    for game, bot in (("martian", "cautious"), ("attacks", "heuristic")):
        seats = [{"kind": "human"}, {"kind": "bot", "bot": bot}]
        table_id = create_table(server, game, {}, seats, {"hints": True, "fool_check": True})["id"]
        page.goto(f"/t/{table_id}")
        page.fill("#join-name", "Ann")
        page.click(".join-form button[type=submit]")
        page.wait_for_selector(ENABLED)
        page.wait_for_selector(".actions[data-advice]")  # the hints drawn too
        assert_accessible(page, f"{game} table")
        page.keyboard.press("?")
        page.wait_for_selector("dialog.rules-dialog[open] .rules-body")
        assert_accessible(page, f"{game} rules")
        page.keyboard.press("Escape")
    page.goto(f"/t/{finished_table(server)}")
    page.wait_for_selector(".end-headline")
    assert_accessible(page, "end screen")


# --- keys ----------------------------------------------------------------------------------


def play_by_keyboard(page: Any, choose: Any, limit: int = 400) -> int:
    """Play the page's seat to the game's end with key presses only; returns the decisions.
    At every decision each button shows its key and the focus is on the action area."""
    for decisions in range(limit):
        page.wait_for_function(f"() => {READY}")
        if page.locator(".end-headline").count():
            return decisions
        offered = buttons(page)
        assert all(key and shown == key.upper() for _, key, shown in offered), offered
        assert len({key for _, key, _ in offered}) == len(offered), offered  # no key twice
        assert focus_in_actions(page), page.evaluate("document.activeElement.outerHTML")
        before = version(page)
        page.keyboard.press(choose(offered))
        wait_newer(page, before)
    raise AssertionError(f"no end after {limit} decisions")


def tab_into_actions(page: Any) -> None:
    """Reach the action buttons with Tab, as a keyboard user does once."""
    for _ in range(60):
        if page.evaluate("!!document.activeElement?.closest('.actions')"):
            return
        page.keyboard.press("Tab")
    raise AssertionError("Tab never reached the actions")


def test_a_whole_martian_dice_game_by_keyboard(
    pages: list[Any], browser: Any, server: Server
) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "cautious"}]
    options = {"fool_check": False}
    table_id = str(create_table(server, "martian", {"target": 8}, seats, options)["id"])
    page = seated(browser, server, table_id)
    pages.append(page)
    page.goto(f"/t/{table_id}")
    page.wait_for_selector(ENABLED)
    tab_into_actions(page)
    took = []

    def choose(offered: list[tuple[str, str | None, str]]) -> str:
        keys = {action: key for action, key, _ in offered}
        assert keys.get("roll") in (None, "g") and keys.get("stop") in (None, "s")  # one scheme
        if "stop" in keys and int(page.inner_text(".m-turn-score")) >= 1:
            return "s"
        takes = [a for a in ("humans", "cows", "chickens", "rays") if a in keys]
        if takes:
            took.append(takes[0])
            return str(keys[takes[0]])
        return str(offered[0][1])

    assert play_by_keyboard(page, choose) >= 2
    assert took  # (and after a take the roll stays in words, checked in the pacing test)
    assert table_state(server, table_id)["status"] == "finished"


def test_a_whole_mars_attacks_game_by_keyboard(
    pages: list[Any], browser: Any, server: Server
) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "heuristic"}]
    table_id = str(create_table(server, "attacks", {}, seats, {"fool_check": False})["id"])
    page = seated(browser, server, table_id)
    pages.append(page)
    page.goto(f"/t/{table_id}")
    page.wait_for_selector(ENABLED)
    tab_into_actions(page)
    rng = random.Random(21)

    def choose(offered: list[tuple[str, str | None, str]]) -> str:
        keys = {action: str(key) for action, key, _ in offered}
        assert keys.get("reroll") in (None, "g") and keys.get("stop") in (None, "s")
        for action, key in keys.items():  # a card is attacked with its stack's number
            if action.startswith("@"):
                assert key.isdigit(), keys
        if "stop" in keys and rng.random() < 0.5:
            return "s"
        return rng.choice(sorted(keys.values()))

    assert play_by_keyboard(page, choose, limit=600) >= 3
    assert table_state(server, table_id)["status"] == "finished"
    # the help under the buttons speaks of what they show: a key each, letters and digits
    assert "letter on each button" not in page.content()


def press_on_layout(page: Any, key: str, code: str) -> None:
    """A real key press (the browser's input pipeline) of the key at US position ``code``
    typing ``key``, as a Russian layout sends it."""
    cdp = page.context.new_cdp_session(page)
    base = {"key": key, "code": code, "text": key, "unmodifiedText": key}
    cdp.send("Input.dispatchKeyEvent", {"type": "keyDown", **base})
    cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code})
    cdp.detach()


def test_a_russian_keyboard_layout_presses_the_same_buttons(
    pages: list[Any], browser: Any, server: Server
) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "cautious"}]
    # no fool check: a key must send its move, not ask first when the move is a blunder
    table_id = str(
        create_table(server, "martian", {"target": 8}, seats, {"fool_check": False})["id"]
    )
    page = seated(browser, server, table_id, lang="ru")
    pages.append(page)
    sent = sent_actions(page)
    page.goto(f"/t/{table_id}")
    page.wait_for_selector(ENABLED)
    wanted, key, _ = buttons(page)[-1]
    assert key is not None and key in RUSSIAN
    # the button's Cyrillic letter alone (no key position) presses nothing; the same letter
    # with the key's position presses it
    before = version(page)
    press_on_layout(page, RUSSIAN[key], "")
    press_on_layout(page, RUSSIAN[key], f"Key{key.upper()}")
    wait_newer(page, before)
    assert sent == [wanted], sent
    # and the rules open on "?" (Shift with the key a US keyboard has "/" on)
    cdp = page.context.new_cdp_session(page)
    cdp.send(
        "Input.dispatchKeyEvent",
        {"type": "keyDown", "key": ",", "code": "Slash", "modifiers": 8, "text": ","},
    )
    cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": ",", "code": "Slash"})
    page.wait_for_selector("dialog.rules-dialog[open]")


# --- the phone -----------------------------------------------------------------------------


@pytest.mark.parametrize("width", [320, 375])
def test_the_phone_keeps_the_players_in_sight_and_every_action_in_reach(
    pages: list[Any], browser: Any, server: Server, width: int
) -> None:
    seats = [
        {"kind": "human"},
        {"kind": "bot", "bot": "heuristic"},
        {"kind": "bot", "bot": "heuristic"},
    ]
    table_id = str(create_table(server, "attacks", {}, seats, {"hints": True})["id"])
    page = seated(browser, server, table_id, width=width, height=640)
    pages.append(page)
    page.goto(f"/t/{table_id}")
    page.wait_for_selector(ENABLED)
    strip = page.locator(".player-strip")
    assert strip.is_visible()
    seats_shown = page.locator(".strip-seat")
    assert seats_shown.count() == 3
    assert page.locator(".strip-seat.current .strip-name").inner_text() == "Ann"
    assert [s.strip() for s in page.locator(".strip-score").all_inner_texts()] == ["0", "0", "0"]
    strip_box, actions_box = strip.bounding_box(), page.locator(".actions").bounding_box()
    assert strip_box and actions_box and strip_box["y"] < actions_box["y"]  # above the actions
    # scrolled to the bottom, the strip is still at the top of the screen
    page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
    page.wait_for_function("() => scrollY > 0")
    box = strip.bounding_box()
    assert box is not None and -1 <= box["y"] <= 1, box
    for i in range(page.locator(ENABLED).count()):
        button = page.locator(ENABLED).nth(i)
        button.scroll_into_view_if_needed()
        button.click(trial=True)  # visible, enabled, not covered by the strip
        box = button.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width
    # the hints and the log are folded at first and open with a tap
    assert not page.locator(".log-panel").is_visible()
    page.click(".fold-log > summary")
    assert page.locator(".log-panel").is_visible()
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width


# --- pacing --------------------------------------------------------------------------------

#: every version the page shows, in order (an observer on the page's data-version)
RECORD_VERSIONS = """
window.__shown = [];
new MutationObserver(() => {
  const page = document.querySelector('.table-page');
  if (!page) return;
  const v = Number(page.dataset.version);
  if (window.__shown[window.__shown.length - 1] !== v) window.__shown.push(v);
}).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-version']});
"""


def test_a_bots_steps_are_shown_one_at_a_time_at_the_persons_speed(
    pages: list[Any], browser: Any, server: Server
) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "cautious"}]
    # no fool check: a key must send its move, not ask first when the move is a blunder
    table_id = str(
        create_table(server, "martian", {"target": 40}, seats, {"fool_check": False})["id"]
    )
    page = seated(browser, server, table_id, speed="slow")
    pages.append(page)
    page.context.add_init_script(RECORD_VERSIONS)
    page.goto(f"/t/{table_id}")
    page.wait_for_selector(ENABLED)
    assert page.input_value("#speed-select") == "slow"
    tab_into_actions(page)
    # my own move is shown at once, whatever the speed; after a take the roll it took from
    # is gone from the board but stays in words under it
    take = next(key for action, key, _ in buttons(page) if action != "roll" and key)
    before = version(page)
    page.keyboard.press(take)
    wait_newer(page, before)
    assert page.locator(".last-roll").is_visible()
    assert page.inner_text(".last-roll").strip()
    # end the turn: the bot's whole turn is played on the server at once, and waits here
    ended = version(page)
    end_turn(page)
    assert page.locator(".skip-button").is_visible()
    assert not page.locator(ENABLED).count()  # (the bot's steps come first)
    # while the other seat plays, the focus waits on the action bar (not the page's body)
    assert focus_in_actions(page), page.evaluate("document.activeElement.outerHTML")
    # a faster speed, chosen now, drains the queue one step at a time
    page.select_option("#speed-select", "fast")
    page.wait_for_function(f"() => {READY} && {QUEUED} === 0")
    # every step that is not mine has its own moment on screen (a move of mine and the dice
    # rolled after it come in one message: my move shows at once, the roll right after it)
    shown = page.evaluate(f"window.__shown.filter((v) => v > {ended})")
    actors = spectator_actors(server, table_id)
    others = [v for v in range(ended + 1, shown[-1] + 1) if actors[v - 1] != "human"]
    assert len(shown) >= 4 and shown == sorted(shown), shown
    assert set(others) <= set(shown), (others, shown)
    assert [a for a in actors[ended : shown[-1]] if a == "bot"], "the bot's steps were seen"
    # "Show all now" shows what waits at once
    page.select_option("#speed-select", "slow")
    take = next(key for action, key, _ in buttons(page) if action != "roll" and key)
    before = version(page)
    page.keyboard.press(take)
    wait_newer(page, before)
    end_turn(page)
    page.click(".skip-button")
    page.wait_for_function(f"() => {QUEUED} === 0")
    assert not page.locator(".skip-button").is_visible()
    # "instant" is kept for every table, and nothing waits any more
    page.select_option("#speed-select", "instant")
    assert page.evaluate("localStorage.getItem('marsdice.speed')") == "instant"
    page.reload()
    page.wait_for_selector(".table-page[data-version]")
    assert page.input_value("#speed-select") == "instant"


QUEUED = "Number(document.querySelector('.table-page').dataset.queued)"


def end_turn(page: Any) -> None:
    """Stop (or go on until a stop is offered) until the other seat's steps wait to be shown."""
    while True:
        page.wait_for_function(f"() => {READY} || {QUEUED} > 0")
        if page.get_attribute(".table-page", "data-queued") not in ("0", None):
            return
        offered = {action: key for action, key, _ in buttons(page)}
        before = version(page)
        page.keyboard.press(offered.get("stop") or next(iter(offered.values())) or "")
        wait_newer(page, before)


# --- the lobby -----------------------------------------------------------------------------


def test_the_lobby_shows_every_form_error_at_once(
    pages: list[Any], browser: Any, server: Server
) -> None:
    page = new_page(browser, server)
    pages.append(page)
    page.goto("/")
    page.wait_for_selector("#create-button")
    page.fill("#opt-target", "0")
    page.fill("#opt-dice", "999")
    page.fill("#create-name", "")
    page.fill("#create-seed", "zła ziarno")  # not printable ASCII
    page.click("#create-button")
    for field in ("target", "dice", "name", "seed"):
        spot = page.locator(f'[data-error-for="{field}"]')
        assert spot.inner_text().strip(), field
        assert page.locator(f'[data-field="{field}"] input').get_attribute("aria-invalid") == "true"
    assert page.evaluate("document.activeElement.id") == "opt-target"  # the first of them
    assert page.url.endswith("/")  # nothing was made
