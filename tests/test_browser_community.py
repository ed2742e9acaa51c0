"""Players who come back (issue 20), in Chromium against a real server: sign up, sign in, sign
out and the password; a rated game against a bot found on the player's page (its rating
charted) and on the leaderboard; the lobby's finished games; the table's chat (text only,
live, limited, closed to spectators at a players-only table), the Leave button, "Play again"
with two people and a bot; axe-core and a 375 px phone on the new pages."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from typing import Any

import httpx

from browser_support import (  # noqa: F401
    assert_accessible,
    browser,
    create_table,
    new_page,
    server,
    table_state,
)
from serverproc import Server

ENABLED = ".actions:not([hidden]) button.action:not([disabled])"
EARTHLINGS = ("humans", "cows", "chickens")
PASSWORD = "correct horse 7"
SCRIPT = "<script>alert(1)</script>"
#: the page shows a started game (its first state drawn)
STARTED = "() => Number(document.querySelector('.table-page')?.dataset.version ?? -1) > 0"


def sign_up(page: Any, name: str, password: str = PASSWORD) -> None:
    """The account page's sign-up form: signed in at once, then on the new player's page."""
    page.goto("/account")
    page.fill("#signup-form-name", name)
    page.fill("#signup-form-password", password)
    page.click("#signup-form button[type=submit]")
    page.wait_for_url(f"**/players/{name}")
    page.locator(".account-button .account-name").filter(has_text=name).wait_for()


def account(page: Any) -> dict[str, Any]:
    """What the server says of this page's session (its own same-origin fetch)."""
    answer: dict[str, Any] = page.evaluate("fetch('/api/account').then((r) => r.json())")
    return answer


def post_from(page: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A POST made by the page itself (its cookies, its origin): status and error code."""
    result: dict[str, Any] = page.evaluate(
        """async ([path, body]) => {
          const headers = {"content-type": "application/json"};
          const r = await fetch(path, {method: "POST", headers, body: JSON.stringify(body)});
          const data = await r.json().catch(() => null);
          return {status: r.status, error: data && data.error};
        }""",
        [path, body],
    )
    return result


def join_here(page: Any, table_id: str, seat: int, name: str) -> None:
    page.goto(f"/t/{table_id}?seat={seat + 1}")
    page.fill("#join-name", name)
    page.click(".join-form button[type=submit]")
    page.wait_for_selector(f'.table-page[data-seat="{seat}"]')


def choose(actions: list[str]) -> str:
    """A quick policy: stop when allowed, else take Earthlings, else what comes first."""
    if "stop" in actions:
        return "stop"
    earthlings = [action for action in actions if action in EARTHLINGS]
    return earthlings[0] if earthlings else actions[0]


def play_to_the_end(*pages: Any, limit: int = 400) -> None:
    """Each page clicks its moves (the policy above) until every page shows the end."""
    for _ in range(limit):
        if all(page.locator(".end-panel:not([hidden]) .end-headline").count() for page in pages):
            return
        moved = False
        for page in pages:
            buttons = page.locator(ENABLED)
            if not buttons.count():
                continue
            offered = [
                str(buttons.nth(i).get_attribute("data-action")) for i in range(buttons.count())
            ]
            before = page.locator(".table-page").get_attribute("data-version")
            try:
                page.locator(f'{ENABLED}[data-action="{choose(offered)}"]').click(timeout=2000)
            except Exception:  # (the buttons moved on: the next state came first)
                continue
            page.wait_for_function(
                "v => document.querySelector('.table-page').dataset.version !== v", arg=before
            )
            moved = True
        if not moved:
            pages[0].wait_for_timeout(100)
    raise AssertionError("the game did not end")


def results_stored(running: Server, name: str, table_id: str) -> None:
    """Wait until the server has stored the finished game's results (it does so as the game
    ends, next to telling the pages: a page asked at once may come first)."""
    deadline = time.monotonic() + 30
    while True:
        profile = httpx.get(f"{running.base}/api/players/{name}", timeout=10).json()
        if any(game["table"] == table_id for game in profile["history"]):
            return
        assert time.monotonic() < deadline, "the results were not stored"
        time.sleep(0.1)


def stand_in_moves(folder: Any, table_id: str) -> int:
    """The steps a stand-in made at the table, read from the server's SQLite file."""
    from browser_support import database_file

    with contextlib.closing(sqlite3.connect(database_file(folder))) as connection:
        (count,) = connection.execute(
            "select count(*) from md_steps where table_id = ? and actor = 'stand-in'",
            (table_id,),
        ).fetchone()
    return int(count)


def two_seat_table(server: Server) -> str:  # noqa: F811
    """A Martian Dice table of two people's seats, long enough not to end under a test."""
    seats = [{"kind": "human"}, {"kind": "human"}]
    return str(create_table(server, "martian", {"target": 40}, seats)["id"])


def scroll_width(page: Any) -> tuple[int, int]:
    width = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    return int(width[0]), int(width[1])


def test_an_account_plays_a_rated_game_and_finds_it_on_its_page_and_the_leaderboard(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
) -> None:
    page = new_page(browser, server)
    pages.append(page)
    page.goto("/")
    assert page.locator("#account-area a.account-signin").inner_text() == "Sign in"
    sign_up(page, "ann_c")
    assert account(page)["user"]["name"] == "ann_c"
    assert "No finished game yet." in page.locator(".player-page").inner_text()
    # a name taken: said next to the field
    other = new_page(browser, server)
    pages.append(other)
    other.goto("/account")
    other.fill("#signup-form-name", "ANN_C")
    other.fill("#signup-form-password", PASSWORD)
    other.click("#signup-form button[type=submit]")
    other.locator("#signup-form-name-error").filter(has_text="That name is taken").wait_for()
    assert other.locator("#signup-form-name").get_attribute("aria-invalid") == "true"

    # the lobby's form, signed in: the rulebook's game (rated) against the cautious bot
    page.goto("/")
    page.select_option("#seat-kind-1", "cautious")
    page.uncheck("#opt-fool")
    page.fill("#create-name", "Someone else")
    page.click("#create-button")
    page.wait_for_url("**/t/*")
    table_id = page.url.rstrip("/").split("/")[-1]
    page.wait_for_selector('.table-page[data-seat="0"]')
    seat = table_state(server, table_id)["seats"][0]
    assert (seat["name"], seat["account"]) == ("ann_c", True)  # the account's name, not the form's
    play_to_the_end(page)
    assert table_state(server, table_id)["status"] == "finished"
    page.locator(".end-dialog[open] button[aria-label=Close]").click()
    results_stored(server, "ann_c", table_id)

    # the player's page: the game, its place, the rating and its chart, the links
    page.click(".account-button")
    page.click("#account-menu-list a[href='/players/ann_c']")
    item = page.locator(f".history-item[data-table='{table_id}']")
    item.wait_for()
    assert "rating" in item.inner_text()
    for href in (f"/t/{table_id}", f"/t/{table_id}/replay", f"/t/{table_id}/review"):
        assert item.locator(f"a[href='{href}']").count() == 1, href
    martian = page.locator(".player-game[data-game='martian']")
    assert martian.locator("[data-stat=played] dd").inner_text() == "1"
    assert martian.locator(".by-seats tr[data-seats='2'] td").first.inner_text() == "1"
    profile = httpx.get(f"{server.base}/api/players/ann_c", timeout=10).json()
    rating = profile["ratings"][0]["rating"]
    assert page.locator(".player-ratings .rating").first.inner_text() == f"{rating:,}"
    assert page.locator(".player-chart .rv-chart-svg circle").count() == 1
    page.locator(".rv-chart-table summary").click()
    assert page.locator(".rv-chart-table tbody tr").count() == 1
    assert_accessible(page, "player page")

    # the leaderboard: the account and the bot, the bot said to be one
    page.click("#nav-leaderboard")
    page.wait_for_url("**/leaderboard/martian")
    mine = page.locator(".leaderboard tr[data-name='ann_c']")
    mine.wait_for()
    assert mine.locator("a[href='/players/ann_c']").count() == 1
    assert mine.locator(".rating").inner_text() == f"{rating:,}"
    bot = page.locator(".leaderboard tr[data-kind='bot']").first
    assert "Cautious bot" in bot.inner_text() and "computer player" in bot.inner_text()
    assert_accessible(page, "leaderboard")

    # the lobby's finished games, by player: this game with its links
    page.goto("/")
    page.fill("#finished-player", "ann_c")
    page.click("#finished-show")
    found = page.locator(f".finished-item[data-table='{table_id}']")
    found.wait_for()
    assert found.locator("a[href='/players/ann_c']").count() == 1
    assert found.locator(f"a[href='/t/{table_id}#fair-title']").count() == 1
    assert found.locator(f"a[href='/api/tables/{table_id}/record']").count() == 1
    page.fill("#finished-player", "nobody_here")
    page.click("#finished-show")
    page.locator(".finished-list .error-box").filter(has_text="no player named").wait_for()
    page.select_option("#finished-game", "attacks")
    page.fill("#finished-player", "")
    page.click("#finished-show")
    page.locator(".finished-status").filter(has_text="No finished game").wait_for()

    # sign out from the header's menu (Escape closes it first), then sign in again
    page.click(".account-button")
    page.keyboard.press("Escape")
    assert page.locator("#account-menu-list").is_hidden()
    assert page.evaluate("document.activeElement.classList.contains('account-button')")
    page.click(".account-button")
    page.click(".account-signout")
    page.locator("#account-area a.account-signin").wait_for()
    assert account(page)["user"] is None
    page.click("#account-area a.account-signin")
    page.fill("#signin-form-name", "ann_c")
    page.fill("#signin-form-password", "wrong password")
    page.click("#signin-form button[type=submit]")
    page.locator("#signin-form .form-error").filter(has_text="wrong").wait_for()
    page.fill("#signin-form-password", PASSWORD)
    page.click("#signin-form button[type=submit]")
    page.wait_for_url("**/")  # back where "Sign in" was clicked
    page.locator(".account-button .account-name").filter(has_text="ann_c").wait_for()

    # the password: a wrong current one is refused next to it; then changed
    page.goto("/account")
    page.fill("#password-form-current", "not it at all")
    page.fill("#password-form-new", "another secret 8")
    page.click("#password-form button[type=submit]")
    page.locator("#password-form-current-error").filter(has_text="wrong").wait_for()
    page.fill("#password-form-current", PASSWORD)
    page.click("#password-form button[type=submit]")
    page.locator("#toast").filter(has_text="Password changed").wait_for()
    assert account(page)["user"]["name"] == "ann_c"
    assert httpx.post(
        f"{server.base}/api/account/signin",
        json={"name": "ann_c", "password": "another secret 8"},
        timeout=10,
    ).is_success


def test_another_browser_cannot_act_for_a_seat(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
) -> None:
    table_id = two_seat_table(server)
    ann, bob, eve = (new_page(browser, server) for _ in range(3))
    pages.extend([ann, bob, eve])
    join_here(ann, table_id, 0, "Ann")
    join_here(bob, table_id, 1, "Bob")
    ann.wait_for_selector(ENABLED)  # the game runs: seat 1 (Ann's) is to play
    eve.goto(f"/t/{table_id}")
    eve.wait_for_selector('.table-page[data-seat=""]')
    eve.wait_for_function(STARTED)
    # watching only: no move to make, no seat to leave, no chat without signing in
    assert eve.locator(ENABLED).count() == 0
    assert eve.locator(".seat-panel").is_hidden()
    assert eve.locator(".chat-form").is_hidden()
    assert "Sign in" in eve.locator(".chat-note").inner_text()
    # and the server takes nothing from it for Ann's seat
    forged = "x" * 32
    assert (
        post_from(eve, f"/api/tables/{table_id}/leave", {"token": forged})["error"] == "bad_token"
    )
    chat = post_from(eve, f"/api/tables/{table_id}/chat", {"text": "hi", "token": forged})
    assert chat["error"] == "bad_token"
    assert post_from(eve, f"/api/tables/{table_id}/chat", {"text": "hi"})["status"] == 401
    assert not table_state(server, table_id)["seats"][0]["away"]
    # another tab of Ann's own browser is Ann
    again = ann.context.new_page()
    again.goto(f"/t/{table_id}")
    again.wait_for_selector('.table-page[data-seat="0"]')
    again.close()


def test_the_chat_shows_text_only_live_and_says_its_limits(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
) -> None:
    table_id = two_seat_table(server)
    ann, bob, watcher = (new_page(browser, server) for _ in range(3))
    pages.extend([ann, bob, watcher])
    dialogs: list[str] = []
    for page in (ann, bob, watcher):
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    join_here(ann, table_id, 0, "Ann")
    join_here(bob, table_id, 1, "Bob")
    watcher.goto(f"/t/{table_id}")
    for page in (ann, bob, watcher):
        page.wait_for_function(STARTED)
    assert ann.locator("#chat-count").inner_text() == "0 of 300 characters"
    assert ann.locator("#chat-input").get_attribute("maxlength") == "300"
    ann.fill("#chat-input", SCRIPT)
    assert ann.locator("#chat-count").inner_text() == f"{len(SCRIPT)} of 300 characters"
    ann.press("#chat-input", "Enter")
    # live on the other pages, as text: no element made of it, nothing run
    for page in (bob, watcher, ann):
        line = page.locator(".chat-list .chat-text").filter(has_text=SCRIPT)
        line.wait_for()
        assert page.locator(".chat-list script").count() == 0
        assert "&lt;script&gt;" in page.locator(".chat-list").inner_html()
    assert not dialogs
    assert ann.locator("#chat-input").input_value() == ""
    assert "Ann" in bob.locator(".chat-message").first.inner_text()
    # a control character: the server refuses it, the page says why
    bob.locator("#chat-input").evaluate("(input) => (input.value = 'bell\\u0007')")
    bob.click(".chat-send")
    bob.wait_for_function("() => document.querySelector('#chat-error').textContent !== ''")
    assert "without control characters" in bob.locator("#chat-error").inner_text()
    assert bob.locator("#chat-input").get_attribute("aria-invalid") == "true"
    # too many at once: the wait is said
    for n in range(12):
        bob.fill("#chat-input", f"message {n}")
        bob.click(".chat-send")
        bob.wait_for_function(
            "() => document.querySelector('#chat-input').value === ''"
            " || document.querySelector('#chat-error').textContent !== ''"
        )
        if "Too many messages" in bob.locator("#chat-error").inner_text():
            break
    else:
        raise AssertionError("the chat never said to wait")
    assert "second" in bob.locator("#chat-error").inner_text()
    # a page opened later reads the history
    late = new_page(browser, server)
    pages.append(late)
    late.goto(f"/t/{table_id}")
    late.locator(".chat-list .chat-text").filter(has_text=SCRIPT).wait_for()
    assert_accessible(late, "table with chat")


def test_a_players_only_chat_keeps_spectators_quiet(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
) -> None:
    host, guest = new_page(browser, server), new_page(browser, server)
    pages.extend([host, guest])
    sign_up(host, "host_c")
    sign_up(guest, "guest_c")
    # the lobby's form: spectators' chat off
    host.goto("/")
    assert host.locator("#opt-spectator-chat").is_checked()  # the server's default
    host.select_option("#seat-kind-1", "human")
    host.uncheck("#opt-spectator-chat")
    host.fill("#create-name", "Host")
    host.click("#create-button")
    host.wait_for_url("**/t/*")
    table_id = host.url.rstrip("/").split("/")[-1]
    assert table_state(server, table_id)["options"]["spectator_chat"] is False
    host.fill("#chat-input", "only players here")
    host.click(".chat-send")
    host.locator(".chat-list .chat-text").filter(has_text="only players here").wait_for()
    # a signed-in spectator reads it, is told why it cannot write, and the server agrees
    guest.goto(f"/t/{table_id}")
    guest.locator(".chat-list .chat-text").filter(has_text="only players here").wait_for()
    assert guest.locator(".chat-form").is_hidden()
    assert "for its players" in guest.locator(".chat-note").inner_text()
    assert post_from(guest, f"/api/tables/{table_id}/chat", {"text": "hello"}) == {
        "status": 403,
        "error": "muted",
    }


def test_play_again_with_two_people_and_a_bot(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "cautious"}]
    table_id = str(
        create_table(server, "martian", {"target": 3}, seats, {"fool_check": False})["id"]
    )
    ann, bob = new_page(browser, server), new_page(browser, server)
    pages.extend([ann, bob])
    join_here(ann, table_id, 0, "Ann")
    join_here(bob, table_id, 1, "Bob")
    play_to_the_end(ann, bob)
    for page in (ann, bob):  # the end dialog opened: its "Play again" too
        page.locator(".end-dialog[open] .rematch-button").wait_for()
        page.locator(".end-dialog[open] button[aria-label=Close]").click()
    ann.locator(".end-panel .rematch-button").click()
    ann.wait_for_url(lambda url: "/t/" in url and table_id not in url)
    new_id = ann.url.rstrip("/").split("/")[-1]
    assert new_id != table_id
    ann.wait_for_selector('.table-page[data-seat="0"]')
    # Bob's page shows the offer, with who is waiting, and takes it
    offer = bob.locator(".end-panel .rematch-offer")
    offer.filter(has_text="Ann").wait_for()
    assert offer.get_attribute("data-rematch") == new_id
    bob.locator(".end-panel .rematch-button").click()
    bob.wait_for_url(f"**/t/{new_id}")
    bob.wait_for_selector('.table-page[data-seat="1"]')
    new = table_state(server, new_id)
    assert new["rematch_of"] == table_id and new["status"] == "running"
    assert [seat["name"] for seat in new["seats"][:2]] == ["Ann", "Bob"]
    assert new["seats"][2]["kind"] == "bot" and new["seats"][2]["taken"]
    saved = json.loads(bob.evaluate("localStorage.getItem('marsdice.seats')"))
    assert saved[new_id]["seat"] == 1 and saved[new_id]["token"]
    # a reload keeps the seat (the token is stored as a join's)
    bob.reload()
    bob.wait_for_selector('.table-page[data-seat="1"]')


def test_leave_gives_the_seat_back_or_lets_a_bot_play_it(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
) -> None:
    table_id = two_seat_table(server)
    ann, bob = new_page(browser, server), new_page(browser, server)
    pages.extend([ann, bob])
    # before the start: the seat is given back
    join_here(ann, table_id, 0, "Ann")
    ann.click("#seat-leave")
    ann.wait_for_selector('.table-page[data-seat=""]')
    ann.locator(".join-form").wait_for()
    assert not table_state(server, table_id)["seats"][0]["taken"]
    # running: asked first, then away (a bot plays), and taken back
    join_here(ann, table_id, 0, "Ann")
    join_here(bob, table_id, 1, "Bob")
    ann.locator("#seat-leave").filter(has_text="Leave the game").click()
    ann.locator(".leave-dialog[open] [data-confirm=leave]").click()
    ann.locator("#seat-back").wait_for()
    assert table_state(server, table_id)["seats"][0]["away"]
    ann.reload()  # a reload does not take it back by itself
    ann.locator("#seat-back").wait_for()
    assert ann.locator(".table-page").get_attribute("data-seat") == ""
    assert table_state(server, table_id)["seats"][0]["away"]
    ann.click("#seat-back")
    ann.wait_for_selector('.table-page[data-seat="0"]')
    ann.locator("#seat-leave").wait_for()
    assert not table_state(server, table_id)["seats"][0]["away"]


def test_the_new_pages_on_a_phone(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
) -> None:
    page = new_page(browser, server, width=375, height=740)
    pages.append(page)
    page.goto("/account")
    page.locator("#signup-form").wait_for()
    assert scroll_width(page) == (375, 375)
    assert_accessible(page, "account page, phone")
    sign_up(page, "phone_c")
    # a finished game to list: the bots play it
    seats = [{"kind": "bot", "bot": "cautious"}, {"kind": "bot", "bot": "random"}]
    create_table(server, "martian", {"target": 5}, seats)
    for path, ready in (
        ("/players/phone_c", ".player-page"),
        ("/leaderboard/martian", ".leaderboard-page"),
        ("/", ".finished-list"),
        ("/account", "#password-form"),
    ):
        page.goto(path)
        page.locator(ready).wait_for()
        page.wait_for_load_state("networkidle")
        assert scroll_width(page) == (375, 375), path
        assert_accessible(page, f"{path}, phone")
    page.click(".account-button")  # the open menu too
    assert page.locator("#account-menu-list").is_visible()
    assert scroll_width(page) == (375, 375)
    assert_accessible(page, "account menu, phone")
    # the keyboard opens it and reaches its entries
    page.keyboard.press("Escape")
    assert page.locator("#account-menu-list").is_hidden()
    page.focus(".account-button")
    page.keyboard.press("Enter")
    assert page.locator("#account-menu-list").is_visible()
    page.keyboard.press("Tab")
    focused = page.evaluate(
        "[document.activeElement.closest('#account-menu-list') !== null,"
        " document.activeElement.getAttribute('href')]"
    )
    assert focused == [True, "/players/phone_c"]


def test_the_new_pages_read_in_polish_and_russian(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
) -> None:
    made = httpx.post(
        f"{server.base}/api/account/signup",
        json={"name": "lang_c", "password": PASSWORD},
        timeout=10,
    )
    assert made.status_code == 201, made.text
    keys = ("account.", "player.", "board.", "finished.", "chat.", "seat.", "rematch.", "{")
    for lang, heading in (("pl", "Gracz lang_c"), ("ru", "Игрок lang_c")):
        page = new_page(browser, server, lang=lang)
        pages.append(page)
        for path, ready in (
            ("/players/lang_c", ".player-page"),
            ("/leaderboard/martian", ".leaderboard-page"),
            ("/account", "#signup-form"),
            ("/", ".finished-status:not(:empty)"),
        ):
            page.goto(path)
            page.locator(ready).wait_for()
            text = page.locator("body").inner_text()
            assert not [key for key in keys if key in text], (lang, path, text[:400])
        page.goto("/players/lang_c")
        assert page.locator("h1").inner_text() == heading


def test_presence_shows_at_once_who_left_the_countdown_and_what_the_stand_in_did(
    pages: list[Any],
    browser: Any,  # noqa: F811
    tmp_path: Any,
) -> None:
    """Bob's page closes: Ann's page says within 2 s that he is offline, with the countdown
    to his stand-in; then that a bot plays for him. Back, Bob's page says what it did."""
    from browser_support import start_server

    running = start_server(tmp_path, "--absence-timeout", "4", "--stand-in", "random")
    try:
        seats = [{"kind": "human"}, {"kind": "human"}]
        options = {"fool_check": False}  # (no question before a move: Ann's clicks play)
        table_id = str(create_table(running, "martian", {"target": 40}, seats, options)["id"])
        ann, bob = new_page(browser, running), new_page(browser, running)
        pages.extend([ann])
        join_here(ann, table_id, 0, "Ann")
        join_here(bob, table_id, 1, "Bob")
        ann.wait_for_function(STARTED)
        seats_saved = bob.evaluate("localStorage.getItem('marsdice.seats')")
        bob.context.close()  # (its page gone: the connection with it)
        offline = ann.locator(".scores tr.seat-c1 .mark.offline")
        offline.wait_for(timeout=2000)
        assert "bot plays in" in offline.inner_text()
        ann.locator(".scores tr.seat-c1 .mark.away").wait_for(timeout=15000)
        assert offline.count() == 0
        # Ann moves until the stand-in has moved for Bob at least once
        deadline = time.monotonic() + 60
        while not stand_in_moves(tmp_path, table_id):
            buttons = ann.locator(ENABLED)
            if buttons.count():
                offered = [
                    str(buttons.nth(i).get_attribute("data-action")) for i in range(buttons.count())
                ]
                with contextlib.suppress(Exception):
                    ann.locator(f'{ENABLED}[data-action="{choose(offered)}"]').click(timeout=2000)
            ann.wait_for_timeout(200)
            assert time.monotonic() < deadline, "the stand-in never moved"
        back = new_page(browser, running)
        pages.append(back)
        back.goto("/")
        back.evaluate("value => localStorage.setItem('marsdice.seats', value)", seats_saved)
        back.goto(f"/t/{table_id}")
        note = back.locator(".returned-note")
        note.wait_for(timeout=5000)
        assert "while you were away a bot made" in note.inner_text()
        assert str(stand_in_moves(tmp_path, table_id)) in note.inner_text()
        ann.locator(".scores tr.seat-c1 .mark.away").wait_for(state="detached", timeout=5000)
        assert_accessible(back, "a table page with the note of a return")
    finally:
        running.stop()


def test_the_lobby_says_which_open_tables_count_for_the_ratings(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
) -> None:
    people = [{"kind": "human"}, {"kind": "human"}]
    rulebook = create_table(server, "martian", {}, people)
    assert rulebook["ratable"] is True
    other = create_table(server, "martian", {"target": 40}, people)
    assert other["ratable"] is False
    page = new_page(browser, server)
    pages.append(page)
    page.goto("/")
    chip = page.locator(f".table-item[data-table='{rulebook['id']}'] .rating-chip")
    chip.wait_for()
    assert chip.inner_text() == "rated if everyone signs in"
    assert "every person at the table is signed in" in (chip.get_attribute("title") or "")
    page.locator(f".table-item[data-table='{other['id']}']").wait_for()
    assert page.locator(f".table-item[data-table='{other['id']}'] .rating-chip").count() == 0
