"""The page shows what the server declares, and derives no rule (issue 17), in a real Chromium
against a real server:

- a Mars Attacks game that ends level on VP, where the engine's places (VP, then cards, then
  who reached the score first) are not "winners first, then by score": the end screen shows
  exactly the places ``placings()`` gives for the game's record, each equal place once;
- the lobby's form is the game's schema and defaults from ``/api/games``;
- each game's plugin, loaded from the module ``/api/games`` names, exports the functions of
  the plugin contract (``docs/browser.md``);
- whose turn, who is next, the places and the tie-breaks are the view's keys: a view changed on
  its way to the page (a routed WebSocket) changes what the page shows.

The game is scripted through the public API: its three seats are people whose moves this test
sends over WebSockets. The server's dice are its fair generator's (``marsdice.fair``), whose
secret seed the test reads from the server's database; with it the test picks the players'
seeds and moves whose game ends with such a tie, before the table starts."""

from __future__ import annotations

import json
import random
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from browser_support import browser, create_table, database_file, new_page, start_server
from serverproc import Server, receive, settle

__all__ = ["browser"]  # the fixture, imported for pytest

NAMES = ("Ann", "Bob", "Cy")
#: the players' seeds tried for a game that ends with the tie wanted (about 1 game in 8 does)
SEARCH = 400
#: what the plugin contract asks of every game's module (docs/browser.md)
CONTRACT = (
    "renderOptions",
    "renderBoard",
    "describeEvent",
    "actionLabel",
    "describeChoice",
    "tieBreakLines",
)
OPTIONAL = ("lastRoundNotice", "scoreNote")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    """A server whose database this module reads (the fair generator's seed); no stand-in
    takes a seat while the test plays."""
    folder = tmp_path_factory.mktemp("declared")
    running = start_server(folder, "--absence-timeout", "0")
    try:
        yield running, database_file(folder)
    finally:
        running.stop()


def winners_then_score(scores: list[int], winners: list[int]) -> list[int]:
    """The places the page used to make up itself: winners first, then by score, equal
    (winner, score) sharing a place. Only to choose a game where it is wrong."""
    order = sorted(range(len(scores)), key=lambda seat: (seat not in winners, -scores[seat], seat))
    places = [0] * len(scores)
    previous = None
    for index, seat in enumerate(order):
        key = (seat in winners, scores[seat])
        if key != previous:
            place = index + 1
        previous = key
        places[seat] = place
    return places


def scripted_game(server_seed: bytes, params: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Players' seeds and the players' moves (random legal ones) of a game on this server seed
    that ends level on VP with places ``placings()`` gives and "winners, then score" does not:
    the same generator as the server's, the deal and every roll drawn in the same order."""
    from marsdice.attacks.game import GAME
    from marsdice.fair import FairRandom, normalise_player_seed

    variant = GAME.variant_from_params(params)
    for attempt in range(SEARCH):
        seeds = [normalise_player_seed(f"tie {attempt} {name}") for name in NAMES]
        fair = FairRandom(server_seed, seeds)
        choose = random.Random(attempt)
        state = GAME.start(variant, fair)
        moves = []
        while not state.is_terminal:
            if state.is_chance_node:
                state = state.apply(state.sample_chance(fair))
            else:
                action = choose.choice(list(state.legal_actions()))
                moves.append(action.text())
                state = state.apply(action)
        places = list(state.placings())
        decided = [tie.by for tie in GAME.tie_breaks(state)]
        wrong = winners_then_score(list(state.scores), list(state.winners)) != places
        if wrong and {"cards", "reached_first"} & set(decided):
            return seeds, moves
    raise AssertionError(f"no game of {SEARCH} ended with such a tie")


def play_through_the_api(server: Server, table_id: str, seeds: list[str], moves: list[str]) -> None:
    """Take the three seats with these seeds and send the moves, each from its seat's socket."""
    tokens = []
    for seat, (name, seed) in enumerate(zip(NAMES, seeds, strict=True)):
        joined = httpx.post(
            f"{server.base}/api/tables/{table_id}/join",
            json={"seat": seat, "name": name, "seed": seed},
            timeout=10,
        )
        assert joined.status_code == 200, joined.text
        tokens.append(joined.json()["token"])
    url = f"{server.ws_base}/ws/tables/{table_id}"
    with connect(url) as ann, connect(url) as bob, connect(url) as cy:
        sockets = [ann, bob, cy]
        states = []
        for socket, token in zip(sockets, tokens, strict=True):
            socket.send(json.dumps({"type": "hello", "token": token}))
            states.append(settle(socket, receive(socket)))
        for move in moves:
            version = max(state["version"] for state in states)
            states = [
                settle(s, state, version - 1) for s, state in zip(sockets, states, strict=True)
            ]
            view = states[0]["view"]
            seat = view["current_player"]
            assert move in states[seat]["view"]["legal_actions"], (move, view)
            sockets[seat].send(json.dumps({"type": "action", "version": version, "action": move}))
            states = [settle(s, state, version) for s, state in zip(sockets, states, strict=True)]
        assert all(state["view"]["phase"] == "over" for state in states)


@pytest.fixture(scope="module")
def tied_game(server: tuple[Server, Path]) -> dict[str, Any]:
    """A finished three-player Mars Attacks table whose end is such a tie."""
    running, database = server
    table = create_table(
        running, "attacks", {"end_stacks": 1}, [{"kind": "human"}] * 3, {"hints": False}
    )
    with closing(sqlite3.connect(database)) as db:
        row = db.execute("SELECT server_seed FROM md_tables WHERE id = ?", (table["id"],))
        (seed,) = row.fetchone()
    seeds, moves = scripted_game(bytes.fromhex(seed), table["variant"])
    play_through_the_api(running, table["id"], seeds, moves)
    return table


def test_the_end_screen_shows_the_engines_places_for_a_tie_on_vp(
    browser: Any, server: tuple[Server, Path], tied_game: dict[str, Any]
) -> None:
    from marsdice.attacks.game import GAME
    from marsdice.core.record import GameRecord

    running, _ = server
    table_id = tied_game["id"]
    record = httpx.get(f"{running.base}/api/tables/{table_id}/record", timeout=30)
    assert record.status_code == 200, record.text
    final = GAME.replay(GameRecord.loads(record.text))[-1]
    places = final.placings()
    ties = GAME.tie_breaks(final)
    # the game this test is about: "winners first, then by score" would place it otherwise
    assert winners_then_score(list(final.scores), list(final.winners)) != list(places)
    assert {"cards", "reached_first"} & {tie.by for tie in ties}

    page = new_page(browser, running, width=1366)
    page.goto(f"/t/{table_id}")
    page.wait_for_selector(".end-panel:not([hidden]) .ranking li")
    rows = page.eval_on_selector_all(
        ".end-panel .ranking li",
        "items => items.map(li => [li.querySelector('.place').textContent,"
        " li.querySelector('.who').textContent.replace(/^★ /, '')])",
    )
    wanted = sorted(range(len(places)), key=lambda seat: (places[seat], seat))
    assert rows == [[f"{places[seat]}.", NAMES[seat]] for seat in wanted]
    # how each tie was broken, in words, names the seats level on VP
    lines = page.locator(".end-panel .tiebreaks li").all_inner_texts()
    for tie in ties:
        if tie.by in ("cards", "reached_first"):
            line = next(text for text in lines if f"{tie.score} VP" in text)
            assert all(NAMES[seat] in line for seat in tie.seats), (line, tie)
    assert not page.errors, page.errors
    page.context.close()


def declared_otherwise(answer: dict[str, Any]) -> dict[str, Any]:
    """``/api/games`` with other defaults, limits and choices than the engines' own, so that
    a form showing them can only have read them there."""
    games = {game["name"]: game for game in answer["games"]}
    martian, attacks = games["martian"], games["attacks"]
    martian["defaults"]["variant"].update(target=17, rolloff_mode="single")
    martian["schema"]["variant"]["properties"]["dice"].update(minimum=3, maximum=15)
    martian["schema"]["variant"]["properties"]["rolloff_mode"]["enum"] = ["single", "repeat"]
    for game in (martian, attacks):
        game["defaults"]["options"] = {"hints": True, "fool_check": False}
    attacks["defaults"]["variant"]["end_stacks"] = 3
    attacks["schema"]["variant"]["properties"]["end_stacks"]["maximum"] = 3
    attacks["default_opponent"] = "heuristic"
    return answer


def test_the_lobby_form_is_the_games_schema_and_defaults(
    browser: Any, server: tuple[Server, Path]
) -> None:
    running, _ = server
    page = new_page(browser, running)
    served: list[dict[str, Any]] = []

    def serve(route: Any) -> None:
        served.append(declared_otherwise(route.fetch().json()))
        route.fulfill(json=served[-1])

    page.route("**/api/games", serve)
    page.goto("/")
    page.wait_for_selector("#opt-target")
    offered = {game["name"]: game for game in served[0]["games"]}
    # Martian Dice: number fields with the schema's limits and the defaults, the choices in order
    martian = offered["martian"]
    for name, prop in martian["schema"]["variant"]["properties"].items():
        if prop["type"] != "integer" or name == "players":
            continue
        field = page.locator(f"#opt-{name}")
        assert field.input_value() == str(martian["defaults"]["variant"][name]), name
        assert field.get_attribute("min") == str(prop["minimum"]), name
        assert field.get_attribute("max") == str(prop["maximum"]), name
    assert page.locator("#opt-target").input_value() == "17"
    choices = page.eval_on_selector_all("#opt-rolloff_mode option", "os => os.map(o => o.value)")
    assert choices == ["single", "repeat"]
    # out of the declared range: refused next to the field, in the declared limits' words
    page.fill("#opt-dice", "16")
    page.fill("#create-name", "Ann")
    page.click("#create-button")
    assert page.locator('[data-error-for="dice"]').inner_text() == "A whole number from 3 to 15."
    # the table's options: the declared defaults
    assert page.is_checked("#opt-hints") and not page.is_checked("#opt-fool")
    # Mars Attacks: a choice per switch, the default first and chosen
    attacks = offered["attacks"]
    page.select_option("#create-game", "attacks")
    page.wait_for_selector("#atk-opt-difficulty")
    for name, prop in attacks["schema"]["variant"]["properties"].items():
        if name in ("players", "cards"):
            continue
        default = attacks["defaults"]["variant"][name]
        values = prop.get("enum") or list(range(prop["minimum"], prop["maximum"] + 1))
        shown = page.eval_on_selector_all(f"#atk-opt-{name} option", "os => os.map(o => o.value)")
        assert shown == [str(default)] + [str(v) for v in values if v != default], name
        assert page.locator(f"#atk-opt-{name}").input_value() == str(default), name
    assert page.eval_on_selector_all(
        "#atk-opt-end_stacks option", "os => os.map(o => o.value)"
    ) == ["3", "1", "2"]
    # a new bot seat is the game's default opponent
    assert page.locator("#seat-kind-1").input_value() == "heuristic"
    assert not page.errors, page.errors
    page.context.close()


PLUGIN = """async ([module, names]) => {
  const plugin = await import(module);
  const types = Object.fromEntries(names.map((name) => [name, typeof plugin[name]]));
  return { types, default: typeof plugin.default };
}"""


def test_each_plugin_is_loaded_from_its_declared_module_with_the_contracts_exports(
    browser: Any, server: tuple[Server, Path]
) -> None:
    running, _ = server
    page = new_page(browser, running)
    page.goto("/")
    page.wait_for_selector("#create-button")
    offered = httpx.get(f"{running.base}/api/games", timeout=10).json()["games"]
    for game in offered:
        module, namespace = game["plugin"]["module"], game["plugin"]["namespace"]
        found = page.evaluate(PLUGIN, [module, [*CONTRACT, *OPTIONAL]])
        assert all(found["types"][name] == "function" for name in CONTRACT), (module, found)
        assert all(found["types"][name] in ("function", "undefined") for name in OPTIONAL)
        assert found["default"] == "undefined", module  # named exports only
        texts = httpx.get(f"{running.base}/static/i18n/en/{namespace}.json", timeout=10)
        assert texts.status_code == 200 and texts.json(), namespace
    page.context.close()


def test_the_page_loads_the_module_and_texts_the_server_names(
    browser: Any, server: tuple[Server, Path]
) -> None:
    """Another module URL and namespace in /api/games: the page asks for those, not for a file
    named after the game."""
    running, _ = server
    page = new_page(browser, running)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))

    def declare_elsewhere(route: Any) -> None:
        answer = route.fetch().json()
        for game in answer["games"]:
            game["plugin"]["module"] += "?declared=yes"
            game["plugin"]["namespace"] = "common"  # any namespace the server has
        route.fulfill(json=answer)

    page.route("**/api/games", declare_elsewhere)
    page.goto("/")
    page.select_option("#create-game", "attacks")
    page.wait_for_selector("#atk-opt-difficulty")
    # (the page's own files come under its version's address, /static/v/{version}/: the
    # declared module too, so that it shares the page's modules)
    paths = [
        re.sub(r"^/static/v/[0-9a-f]+/", "/static/", url.split(running.base, 1)[-1])
        for url in requested
    ]
    assert "/static/js/games/attacks.js?declared=yes" in paths
    assert "/static/js/games/attacks.js" not in paths
    assert "/static/i18n/en/attacks.json" not in paths
    assert not page.errors, page.errors
    page.context.close()


def tampered(page: Any, change: Any) -> None:
    """Pass the table's WebSocket through ``change(view)`` on its way to the page, so that
    what the page shows can only come from the view's keys, not from rules of its own."""

    def route(socket: Any) -> None:
        upstream = socket.connect_to_server()

        def to_page(text: str | bytes) -> None:
            message = json.loads(text)
            if message.get("type") == "state" and message.get("view"):
                change(message["view"])
            socket.send(json.dumps(message))

        upstream.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/tables/"), route)


def test_whose_turn_and_who_is_next_are_the_views(
    browser: Any, server: tuple[Server, Path]
) -> None:
    running, _ = server
    table = create_table(
        running, "martian", {"target": 8}, [{"kind": "human"}, {"kind": "bot", "bot": "cautious"}]
    )

    def change(view: dict[str, Any]) -> None:
        if view["turn_seat"] == 0:  # Ann's turn: the view says the bot's, and nobody next
            view["turn_seat"], view["next_seat"] = 1, None

    page = new_page(browser, running)
    tampered(page, change)
    page.goto(f"/t/{table['id']}?seat=1")
    page.fill("#join-name", "Ann")
    page.click(".join-form button[type=submit]")
    page.wait_for_selector(".actions:not([hidden]) button.action:not([disabled])")
    assert page.inner_text(".turn-banner .turn-now") == "▶ Cautious bot's turn"
    assert page.locator(".turn-banner .turn-next").count() == 0
    assert page.locator(".scores tbody tr.current .player-name").inner_text() == "Cautious bot"
    assert not page.errors, page.errors
    page.context.close()


def test_the_places_and_tie_breaks_are_the_views(
    browser: Any, server: tuple[Server, Path], tied_game: dict[str, Any]
) -> None:
    """Other places than the engine's in the view: the end screen shows those (it sorts by
    nothing of its own), and no tie-break the view does not name."""
    running, _ = server

    def change(view: dict[str, Any]) -> None:
        if view["placings"]:
            view["placings"], view["tie_breaks"] = [3, 1, 1], []

    page = new_page(browser, running)
    tampered(page, change)
    page.goto(f"/t/{tied_game['id']}")
    page.wait_for_selector(".end-panel:not([hidden]) .ranking li")
    places = page.eval_on_selector_all(
        ".end-panel .ranking li",
        "items => items.map(li => [li.querySelector('.place').textContent, li.dataset.seat])",
    )
    assert places == [["1.", "1"], ["1.", "2"], ["3.", "0"]]
    assert page.locator(".end-panel .tiebreaks").count() == 0
    assert not page.errors, page.errors
    page.context.close()
