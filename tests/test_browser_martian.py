"""The browser client plays Martian Dice (issue 12): real Chromium pages against a real server.

Two pages play a whole game against each other (one in Polish); a reload resumes the seat;
a closed page hands the seat to a stand-in bot and the invite link takes it back; the keyboard
alone plays a turn; the fool check asks before a blunder and not before a good move; the
table fits a 375 px phone. Small targets and bots at delay 0 keep it quick."""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest

from browser_support import (
    browser,
    create_table,
    new_page,
    server,
    start_server,
    table_state,
    watch_errors,
)
from serverproc import Server

__all__ = ["browser", "server"]  # the fixtures, imported for pytest

EARTHLINGS = ("humans", "cows", "chickens")
ENABLED = ".actions:not([hidden]) button.action:not([disabled])"


def version(page: Any) -> int:
    value = page.locator(".table-page").get_attribute("data-version")
    return int(value) if value not in (None, "") else -1


def legal(page: Any) -> list[str]:
    """The actions the page offers now (enabled buttons)."""
    buttons = page.locator(ENABLED)
    return [str(buttons.nth(i).get_attribute("data-action")) for i in range(buttons.count())]


def turn_score(page: Any) -> int:
    return int(page.locator(".m-turn-score").inner_text())


def pick(actions: list[str], score: int, rng: random.Random) -> str:
    """A quick policy: stop with a point, roll otherwise; take an Earthling when one is there."""
    if "stop" in actions and score >= 1:
        return "stop"
    if "roll" in actions:
        return "roll"
    earthlings = [a for a in actions if a in EARTHLINGS]
    return rng.choice(earthlings) if earthlings else actions[0]


def click_action(page: Any, action: str) -> None:
    """Click an action (playing a fool-check warning through) and wait for the next state."""
    before = version(page)
    page.locator(f'{ENABLED}[data-action="{action}"]').click()
    dialog = page.locator("dialog.confirm-dialog[open]")
    if dialog.count():
        dialog.locator("[data-confirm=play]").click()
    wait_version(page, before)


def join(page: Any, table_id: str, seat: int, name: str) -> None:
    page.goto(f"/t/{table_id}?seat={seat + 1}")  # (the invite's seat, counted from 1)
    page.fill("#join-name", name)
    page.click(".join-form button[type=submit]")
    page.wait_for_selector(f'.table-page[data-seat="{seat}"]')


def wait_my_turn(page: Any) -> None:
    page.wait_for_selector(ENABLED)


def wait_version(page: Any, before: int) -> None:
    """Wait for a state newer than ``before``."""
    page.wait_for_function(
        "v => Number(document.querySelector('.table-page').dataset.version) > v", arg=before
    )


def scroll_width(page: Any) -> tuple[int, int]:
    width = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    return int(width[0]), int(width[1])


def seat_turns(page: Any, seat: int) -> int:
    """The turns column of a seat's row in the score table."""
    return int(page.locator(f".scores tbody tr:nth-child({seat + 1}) td").nth(1).inner_text())


def martian_table(server: Server, target: int, second: dict[str, Any], **options: bool) -> str:
    """A two-seat table (a person, then ``second``), made through the REST lobby."""
    seats = [{"kind": "human"}, second]
    return str(create_table(server, "martian", {"target": target}, seats, options)["id"])


def blunder(page: Any, action: str) -> bool:
    return bool(
        page.locator(f'{ENABLED}[data-action="{action}"]').get_attribute("data-blunder") == "true"
    )


def test_two_pages_play_a_whole_game_one_in_polish(
    browser: Any, server: Server, tmp_path: Path
) -> None:
    ann = new_page(browser, server, lang="en")
    bart = new_page(browser, server, lang="pl")
    try:
        # Ann makes the table in the lobby: two people, target 4, no fool check
        ann.goto("/")
        ann.fill("#opt-target", "4")
        ann.select_option("#seat-kind-1", "human")
        ann.uncheck("#opt-fool")
        ann.fill("#create-name", "Ann")
        ann.click("#create-button")
        ann.wait_for_url("**/t/*")
        invite = ann.locator(".invite-link").first.input_value()
        assert invite.endswith("?seat=2")  # "Seat 2", as `marsdice connect --seat 2`
        # Bartek follows the invite link in Polish
        bart.goto(invite)
        assert bart.locator(".join-panel h2").inner_text() == "Zajmij miejsce"
        bart.fill("#join-name", "Bartek")
        bart.fill("#join-seed", "szczęśliwa siódemka")
        bart.click(".join-form button[type=submit]")
        # the server takes printable ASCII only: the page says so in Polish before asking it
        assert "tylko litery łacińskie" in bart.locator(".join-form .field-error").inner_text()
        bart.fill("#join-seed", "szczesliwa 7")
        bart.click(".join-form button[type=submit]")
        bart.wait_for_selector('.table-page[data-seat="1"]')
        ann.wait_for_selector(".chip.status-chip[data-status=running]")

        rng = random.Random(12)
        seen_polish_turn = seen_english_turn = False
        rounds = 0  # (a bound on the moves, not on the clock: a loaded machine is slow)
        while not ann.locator(".end-panel:not([hidden])").count():
            rounds += 1
            assert rounds < 3000, "the game did not end"
            for page in (ann, bart):
                actions = legal(page)
                if not actions:
                    continue
                banner = page.locator(".turn-banner .turn-now").inner_text()
                if page is bart:
                    seen_polish_turn |= "Twoja tura" in banner
                    labels = page.locator(ENABLED).all_inner_texts()
                    assert all(("Weź" in t) or ("Rzuć" in t) or ("Stop" in t) for t in labels), (
                        labels
                    )
                else:
                    seen_english_turn |= "Your turn" in banner
                click_action(page, pick(actions, turn_score(page), rng))
            time.sleep(0.02)
        assert seen_polish_turn and seen_english_turn

        for page, title, words in (
            (ann, "Game over", "Download the record"),
            (bart, "Koniec gry", "Pobierz zapis"),
        ):
            page.wait_for_selector(".end-panel:not([hidden])")
            # the end screen opens by itself and Escape closes it
            dialog = page.locator("dialog.end-dialog")
            assert dialog.get_attribute("open") is not None
            assert dialog.locator("h2").inner_text() == title
            page.keyboard.press("Escape")
            page.wait_for_selector("dialog.end-dialog:not([open])", state="attached")
            panel = page.locator(".end-panel")
            assert panel.locator(".ranking li").count() == 2
            assert words in panel.inner_text()
            table_id = page.url.split("/t/")[1].split("?")[0]
            assert (
                panel.locator("a[href$='/review']").get_attribute("href") == f"/t/{table_id}/review"
            )
            assert panel.locator("a[href$='/replay']").count() == 1
            # the fairness panel: the seed revealed and the server's check passed
            page.wait_for_selector(".fair-panel .verify.ok")
            assert "marsdice verify" in page.locator(".fair-panel").inner_text()
        table = table_state(server, ann.url.split("/t/")[1].split("?")[0])
        assert table["status"] == "finished"
        assert [s["seeded"] for s in table["seats"]] == [False, True]
        ann.screenshot(path=str(tmp_path / "end-desktop.png"), full_page=True)
        assert not ann.errors and not bart.errors, (ann.errors, bart.errors)
    finally:
        ann.context.close()
        bart.context.close()


def test_reload_mid_game_resumes_the_seat(pages: list[Any], browser: Any, server: Server) -> None:
    table_id = martian_table(
        server, 8, {"kind": "bot", "bot": "cautious"}, hints=False, fool_check=False
    )
    page = new_page(browser, server, reduced_motion=False)
    pages.append(page)
    join(page, table_id, 0, "Ann")
    wait_my_turn(page)
    # the dice of a fresh roll tumble (a CSS animation), unless the person asks for less motion
    assert page.locator(".m-roll .md-die.rolling").count() > 0
    # a spectator sees the same table and no move to make
    watcher = new_page(browser, server)
    pages.append(watcher)
    watcher.goto(f"/t/{table_id}")
    watcher.wait_for_selector(".m-roll .md-die")
    assert watcher.locator(".m-roll .md-die.rolling").count() == 0  # reduced motion
    assert watcher.locator(".actions").is_hidden()
    assert "watching" in watcher.locator(".actions-help").inner_text()
    click_action(page, legal(page)[0])
    logged = page.locator(".log li").count()
    assert logged >= 2
    page.reload()
    page.wait_for_selector('.table-page[data-seat="0"]')
    page.wait_for_selector(".scores tr.me")
    assert page.locator(".join-panel").is_hidden()
    # the log is kept across the reload and the game goes on from the same seat
    assert page.locator(".log li").count() >= logged
    # the language switches in place (the same connection) and is remembered
    page.select_option("#lang-select", "ru")
    page.wait_for_selector(".scores-panel h2:text('Игроки')")
    page.reload()
    page.wait_for_selector(".scores-panel h2:text('Игроки')")
    assert page.evaluate("document.documentElement.lang") == "ru"
    wait_my_turn(page)
    click_action(page, legal(page)[0])


def test_closed_page_hands_the_seat_to_a_bot_and_the_invite_link_takes_it_back(
    browser: Any, tmp_path: Path
) -> None:
    quick = start_server(tmp_path, "--absence-timeout", "1")
    try:
        table_id = martian_table(quick, 10, {"kind": "human"}, hints=False, fool_check=False)
        ann = new_page(browser, quick)
        bob = new_page(browser, quick)
        join(ann, table_id, 0, "Ann")
        join(bob, table_id, 1, "Bob")
        ann.wait_for_selector(".chip.status-chip[data-status=running]")
        # Bob closes his page: after a second a stand-in bot plays his seat
        bob.close()
        ann.wait_for_selector(".scores tbody tr:nth-child(2) .mark.away", timeout=10_000)
        wait_my_turn(ann)
        click_action(ann, "rays" if "rays" in legal(ann) else legal(ann)[0])
        while "stop" not in legal(ann):
            wait_my_turn(ann)
            click_action(ann, legal(ann)[0])
        turns_before = seat_turns(ann, 1)
        click_action(ann, "stop")
        # the stand-in plays Bob's turn and it is Ann's turn again
        ann.wait_for_function(
            "n => Number(document.querySelector("
            "'.scores tbody tr:nth-child(2) td:nth-of-type(2)').textContent) > n",
            arg=turns_before,
        )
        wait_my_turn(ann)
        # Bob opens the invite link again (same browser profile: his seat's token): his seat is back
        back = watch_errors(bob.context.new_page())
        back.goto(f"{quick.base}/t/{table_id}?seat=2")
        back.wait_for_selector('.table-page[data-seat="1"]')
        back.wait_for_selector(".scores tr.me")
        assert back.locator(".join-panel").is_hidden()
        ann.wait_for_selector(
            ".scores tbody tr:nth-child(2) .mark.away", state="detached", timeout=10_000
        )
        assert not ann.errors and not back.errors
        ann.context.close()
        bob.context.close()
    finally:
        quick.stop()


def test_keyboard_alone_plays_a_turn(pages: list[Any], browser: Any, server: Server) -> None:
    table_id = martian_table(
        server, 8, {"kind": "bot", "bot": "random"}, hints=False, fool_check=False
    )
    page = new_page(browser, server)
    pages.append(page)
    page.goto(f"/t/{table_id}?seat=1")
    page.wait_for_selector("#join-name")
    # the first Tab reaches the skip link; it jumps to the content without reloading the view
    page.evaluate("document.querySelector('.table-page').dataset.mark = 'same view'")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    assert page.locator(".table-page").get_attribute("data-mark") == "same view"
    # into the name field by Tab alone, then Enter submits the join form
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "join-name":
            break
    assert page.evaluate("document.activeElement.id") == "join-name"
    page.keyboard.type("Kay")
    page.keyboard.press("Enter")
    page.wait_for_selector('.table-page[data-seat="0"]')
    wait_my_turn(page)
    # screen readers hear it (the polite live region)
    page.wait_for_function("document.getElementById('live').textContent.includes('Your turn')")
    # the rules open with ? and close with Escape
    page.keyboard.press("?")
    page.wait_for_selector("dialog.rules-dialog[open]")
    assert "Death Ray" in page.locator("dialog.rules-dialog").inner_text()
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog.rules-dialog:not([open])", state="attached")
    # Tab reaches the action buttons and Enter plays one; the focus stays on the buttons
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.action"):
            break
    before = version(page)
    page.keyboard.press("Enter")
    wait_version(page, before)
    # the shortcuts shown on the buttons play the rest of the turn
    start = seat_turns(page, 0)
    while seat_turns(page, 0) == start:
        wait_my_turn(page)
        if seat_turns(page, 0) != start:
            break
        button = page.locator(ENABLED).first
        key = button.get_attribute("data-key")
        assert key and button.locator("kbd").inner_text() == key.upper()
        before = version(page)
        page.keyboard.press(key)
        wait_version(page, before)
    assert seat_turns(page, 0) == start + 1


def test_fool_check_asks_before_a_blunder_stop_and_not_before_a_good_move(
    pages: list[Any], browser: Any, server: Server
) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = new_page(browser, server)
    pages.append(page)
    rng = random.Random(3)
    found = False
    for _ in range(4):  # a game may end before such a position comes up: then another table
        table_id = martian_table(
            server, 6, {"kind": "bot", "bot": "cautious"}, hints=False, fool_check=True
        )
        join(page, table_id, 0, "Ann")
        while not found:
            page.wait_for_selector(f"{ENABLED}, .end-panel:not([hidden])")
            if page.locator(".end-panel:not([hidden])").count():
                break
            # the blunder flags may follow the state: wait a little for this move's advice
            # (a move without advice, the server's solver being slow, is played on)
            with contextlib.suppress(PlaywrightTimeout):
                page.wait_for_selector(".actions[data-advice]", timeout=3000)
            actions = legal(page)
            blunders = {a for a in actions if blunder(page, a)}
            if "stop" in blunders and set(actions) - blunders:
                found = True
                break
            # play on without blunders, rolling while it is good
            good = [a for a in actions if a not in blunders]
            click_action(page, "roll" if "roll" in good else rng.choice(good))
        if found:
            break
        page.keyboard.press("Escape")  # the end dialog
    assert found, "no position where stopping is a blunder came up in four games"
    before = version(page)
    page.locator(f'{ENABLED}[data-action="stop"]').click()
    dialog = page.locator("dialog.confirm-dialog[open]")
    dialog.wait_for()
    assert "blunder" in dialog.inner_text()
    # the safe choice has the focus; Escape (or "Choose again") sends nothing
    assert page.evaluate("document.activeElement.dataset.confirm") == "back"
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog.confirm-dialog:not([open])", state="attached")
    time.sleep(0.3)
    assert version(page) == before
    assert "stop" in legal(page)
    # a good move goes straight through
    fine = next(a for a in legal(page) if not blunder(page, a))
    page.locator(f'{ENABLED}[data-action="{fine}"]').click()
    assert not page.locator("dialog.confirm-dialog[open]").count()
    wait_version(page, before)


def test_a_375px_phone_shows_the_actions_without_horizontal_scrolling(
    pages: list[Any], browser: Any, server: Server, tmp_path: Path
) -> None:
    table_id = martian_table(
        server, 8, {"kind": "bot", "bot": "cautious"}, hints=True, fool_check=True
    )
    page = new_page(browser, server, width=375, height=812)
    pages.append(page)
    join(page, table_id, 0, "Ann with a rather long name")
    wait_my_turn(page)
    # on a phone the hints are folded at first: one tap opens them
    page.wait_for_selector(".fold-hints:not([hidden]) > summary")
    assert not page.locator(".hints-panel").is_visible()
    page.click(".fold-hints > summary")
    page.wait_for_selector(".hints-panel:not([hidden])")
    width = scroll_width(page)
    assert width[0] <= width[1] == 375, width
    buttons = page.locator(ENABLED)
    assert buttons.count() >= 1
    for i in range(buttons.count()):
        box = buttons.nth(i).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, box
        assert box["height"] >= 40  # a finger's size
    page.screenshot(path=str(tmp_path / "table-375.png"), full_page=True)
    # and so does the lobby
    page.goto("/")
    page.wait_for_selector("#create-button")
    width = scroll_width(page)
    assert width[0] <= width[1], width


def martian_events() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Every kind of event from real engine states: a seeded 3-player game, then a 2-player
    tie settled by a roll-off (the views during and after it)."""
    from marsdice.martian.game import GAME
    from marsdice.martian.rules import Roll, Variant, new_game, parse_decision

    rng = random.Random(5)
    events: list[dict[str, Any]] = []
    state = new_game(Variant(players=3, target=8))
    while not state.is_terminal:
        if state.is_chance_node:
            faces = "".join(rng.choice("TRRHCK") for _ in range(state.dice_to_roll))
            state = state.apply(Roll.parse(faces))
        else:
            state = state.apply(rng.choice(state.legal_actions()))
        events.extend(event.to_json() for event in state.events)
    tie = new_game(Variant(players=2, target=1))
    last_round: dict[str, Any] = {}
    for step in ["RRRRHHHCCCKKK", "humans", "stop", "RRRRHHHCCCKKK", "humans", "stop", "RRTHCK"]:
        tie = tie.apply(Roll.parse(step) if step.isupper() else parse_decision(step))
        events.extend(event.to_json() for event in tie.events)
        if tie.end_triggered and not last_round:  # Ann reached the target, Bob's turn to come
            last_round = GAME.observe(tie, 1)
    during = GAME.observe(tie, None)
    tie = tie.apply(Roll.parse("RTTHCK"))
    events.extend(event.to_json() for event in tie.events)
    over = GAME.observe(tie, None)
    return events, during, over, last_round


RENDER = """async ({events, during, over, lastRound, lang}) => {
  const i18n = await import("/static/js/i18n.js");
  const plugin = await import("/static/js/games/martian.js");
  await i18n.setLanguage(lang);
  await i18n.load("martian");
  const ctx = {t: i18n.t, i18n, lang, names: ["Ann", "Bob", "Cy"], seat: 0};
  const box = document.createElement("div");
  document.body.append(box);
  plugin.renderBoard(box, during, ctx);
  const labels = [...box.querySelectorAll("[role=img]")].map((d) => d.getAttribute("aria-label"));
  const duringText = box.innerText;
  plugin.renderBoard(box, over, ctx);
  return {
    lines: events.map((event) => plugin.describeEvent(event, ctx)),
    labels, during: duringText, over: box.innerText,
    breaks: over.tie_breaks.flatMap((tie) => plugin.tieBreakLines(tie, over, ctx)),
    notice: plugin.lastRoundNotice(lastRound, ctx), quiet: plugin.lastRoundNotice(during, ctx),
  };
}"""


@pytest.mark.parametrize(
    ("lang", "ray", "tie_break"),
    [("en", "death ray", "Roll-off 1"), ("pl", "promień śmierci", "Dogrywka 1"),
     ("ru", "луч смерти", "Перебрасывание 1")],
)  # fmt: skip
def test_every_event_and_the_roll_off_read_in_each_language(
    pages: list[Any], browser: Any, server: Server, lang: str, ray: str, tie_break: str
) -> None:
    events, during, over, last_round = martian_events()
    assert {e["type"] for e in events} >= {
        "rolled", "took", "continued", "turn_scored", "last_round", "rolloff_begun",
        "rolloff_roll", "rolloff_round", "game_over",
    }  # fmt: skip
    page = new_page(browser, server, lang=lang)
    pages.append(page)
    page.goto("/")
    page.wait_for_selector("#create-button")
    out = page.evaluate(
        RENDER,
        {"events": events, "during": during, "over": over, "lastRound": last_round, "lang": lang},
    )
    # the last round's notice names who reached the target and who still plays
    assert out["notice"] and "Ann" in out["notice"] and "Bob" in out["notice"], out["notice"]
    assert out["quiet"] is None  # none during the roll-off
    for line in out["lines"]:
        assert line and "martian:" not in line and "{" not in line, line
        assert "Ann" in line or "Bob" in line or "Cy" in line, line
    # the roll-off: the dice shown, labelled for screen readers, the tie-break on the end board
    assert ray in out["labels"]
    assert (during["turn_seat"], during["next_seat"]) == (1, None)  # Bob rolls the last roll
    assert [tie["by"] for tie in over["tie_breaks"]] == ["rolloff"]
    assert out["breaks"] == [out["breaks"][0]] and tie_break in out["breaks"][0]
    assert tie_break in out["over"] and "Ann" in out["over"]


STATIC = Path(__file__).resolve().parents[1] / "src" / "marsdice" / "web" / "static"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def texts(lang: str, ns: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((STATIC / "i18n" / lang / f"{ns}.json").read_text())
    return loaded


def forms(value: Any) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


@pytest.mark.parametrize("ns", ["common", "martian"])
@pytest.mark.parametrize("lang", ["pl", "ru"])
def test_translations_have_every_key_with_the_same_placeholders(ns: str, lang: str) -> None:
    english, other = texts("en", ns), texts(lang, ns)
    assert set(other) == set(english), set(other) ^ set(english)
    for key, value in english.items():
        wanted = {name for form in forms(value) for name in PLACEHOLDER.findall(form)}
        for form in forms(other[key]):
            assert set(PLACEHOLDER.findall(form)) <= wanted, (lang, key, form)
        if isinstance(value, dict):  # a plural: Polish and Russian have three forms
            assert {"one", "few", "many"} <= set(other[key]), (lang, key)


def test_every_literal_key_in_the_page_has_an_english_text() -> None:
    used = set()
    # the review's and the replay's pages (and their shared loader) prefix their own namespace
    scripts = ["app.js", "lobby.js", "table.js", "variant.js", "games/martian.js"]
    scripts += [str(path.relative_to(STATIC / "js")) for path in (STATIC / "js/table").glob("*.js")]
    for name in scripts:
        used |= set(re.findall(r"\bt\(\s*\"([\w.:-]+)\"", (STATIC / "js" / name).read_text()))
    assert len(used) > 50
    english = {"common": texts("en", "common"), "martian": texts("en", "martian")}
    for key in used:
        ns, _, name = key.rpartition(":")
        assert name in english[ns or "common"], key
    for element in re.findall(r'data-i18n="([\w.]+)"', (STATIC / "index.html").read_text()):
        assert element in english["common"], element
