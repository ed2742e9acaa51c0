"""Accounts, ratings, chat and rematch through the server (Starlette's TestClient, real
WebSockets in memory; SQLite and PostgreSQL): cookies and their flags, session fixation,
cross-site requests, user enumeration, sign-in limits, passwords kept out of logs and
answers, a rated game seen on the profile and the leaderboard, chat live to the table and
muted for spectators, rematch and leave."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from starlette.testclient import TestClient

from marsdice.storage import accounts, results, tables
from marsdice.storage.db import Database
from marsdice.web.app import create_app
from marsdice.web.guard import SESSION_COOKIE, same_site

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PASSWORD = "correct horse battery"
BOT = {"kind": "bot", "bot": "cautious"}
HUMAN = {"kind": "human"}
EVIL = {"Origin": "https://evil.example"}


@pytest.fixture
def app(db: Database) -> Any:
    return create_app(database=db, bot_delay=0, absence_timeout=None, stand_in="random")


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def sign_up(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, Any]:
    response = client.post("/api/account/signup", json={"name": name, "password": password})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["error"] == code and set(body) <= {"error", "message", "field"}, body
    return body


def wait_for(check: Any, what: str, tries: int = 1000) -> None:
    """Poll ``check`` while the server works in its own thread (a bound, not a timing)."""
    for _ in range(tries):
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"never happened: {what}")


def test_sign_up_in_and_out_with_a_safe_cookie(client: TestClient) -> None:
    made = client.post("/api/account/signup", json={"name": "Ada", "password": PASSWORD})
    assert made.status_code == 201 and made.json()["user"]["name"] == "Ada"
    cookie = made.headers["set-cookie"]
    assert f"{SESSION_COOKIE}=" in cookie and "HttpOnly" in cookie
    assert "SameSite=lax" in cookie and "Path=/" in cookie and "Secure" not in cookie
    assert client.get("/api/account").json()["user"]["name"] == "Ada"
    out = client.post("/api/account/signout")
    assert out.status_code == 204 and client.get("/api/account").json()["user"] is None
    back = client.post("/api/account/signin", json={"name": "ada", "password": PASSWORD})
    assert back.status_code == 200 and back.json()["user"]["name"] == "Ada"


def test_over_tls_the_cookie_is_secure(app: Any) -> None:
    with TestClient(app, base_url="https://testserver") as secure:
        made = secure.post("/api/account/signup", json={"name": "Ada", "password": PASSWORD})
        assert "Secure" in made.headers["set-cookie"]


def plant(client: TestClient, session_id: str) -> None:
    """The browser's cookie is now ``session_id`` (as another site's script could set it)."""
    domains = {cookie.domain for cookie in client.cookies.jar} or {"testserver.local"}
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, session_id, domain=domains.pop())


def test_a_session_id_set_before_sign_in_is_not_the_one_after(client: TestClient) -> None:
    sign_up(client, "Ada")
    before = client.cookies[SESSION_COOKIE]
    plant(client, before)
    again = client.post("/api/account/signin", json={"name": "Ada", "password": PASSWORD})
    after = client.cookies[SESSION_COOKIE]
    assert again.status_code == 200 and after != before
    plant(client, before)  # the old id signs nobody in any more
    assert client.get("/api/account").json()["user"] is None
    planted = "attacker-chosen-session-id"
    plant(client, planted)
    assert client.get("/api/account").json()["user"] is None
    client.post("/api/account/signin", json={"name": "Ada", "password": PASSWORD})
    assert client.cookies[SESSION_COOKIE] != planted


def test_cross_site_posts_are_refused_and_change_nothing(client: TestClient, db: Database) -> None:
    for path, body in [
        ("/api/account/signup", {"name": "Eve", "password": PASSWORD}),
        ("/api/account/signin", {"name": "Eve", "password": PASSWORD}),
    ]:
        error(client.post(path, json=body, headers=EVIL), 403, "cross_site")
        error(client.post(path, json=body, headers={"Sec-Fetch-Site": "cross-site"}), 403,
              "cross_site")  # fmt: skip
    assert accounts.list_users(db) == []
    sign_up(client, "Ada")
    table_id = client.post("/api/tables", json={"game": "martian", "seats": [HUMAN, BOT]}).json()
    join = {"seat": 0, "name": "Ada"}
    error(client.post(f"/api/tables/{table_id['id']}/join", json=join, headers=EVIL), 403,
          "cross_site")  # fmt: skip
    error(client.post("/api/account/signout", headers=EVIL), 403, "cross_site")
    error(client.post("/api/account/password", json={"current": PASSWORD, "new": "x" * 12},
                      headers=EVIL), 403, "cross_site")  # fmt: skip
    assert tables.get_table(db, table_id["id"]).seats[0].vacant
    assert client.get("/api/account").json()["user"]["name"] == "Ada"
    # the page's own requests, and clients that are not browsers, pass
    own = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    joined = client.post(f"/api/tables/{table_id['id']}/join", json=join, headers=own)
    assert joined.status_code == 200 and joined.json()["table"]["seats"][0]["account"]


def test_the_origin_rule() -> None:
    assert same_site(None, None, "a.example", ())  # not a browser
    assert same_site("https://a.example", None, "a.example", ())
    assert not same_site("https://b.example", None, "a.example", ())
    assert same_site("https://b.example", None, "a.example", ("https://b.example",))
    assert not same_site("null", None, "a.example", ())
    assert not same_site(None, "cross-site", "a.example", ())
    assert not same_site(None, "same-site", "a.example", ())


def test_sign_in_and_sign_up_answers_tell_no_name_apart(client: TestClient) -> None:
    sign_up(client, "Ada")
    client.post("/api/account/signout")
    wrong = client.post("/api/account/signin", json={"name": "Ada", "password": "not it at all"})
    nobody = client.post("/api/account/signin", json={"name": "Zed", "password": "not it at all"})
    assert wrong.status_code == nobody.status_code == 401
    assert wrong.json() == nobody.json()
    taken = client.post("/api/account/signup", json={"name": "ADA", "password": PASSWORD})
    alike = client.post("/api/account/signup", json={"name": "Ada", "password": PASSWORD})
    assert taken.status_code == alike.status_code == 409
    assert taken.json()["error"] == alike.json()["error"] == "name_unavailable"


def test_sign_in_is_limited_after_repeated_failures(client: TestClient) -> None:
    sign_up(client, "Ada")
    client.post("/api/account/signout")
    for _ in range(accounts.FAILURES_PER_NAME):
        error(client.post("/api/account/signin", json={"name": "Ada", "password": "guess1234"}),
              401, "bad_credentials")  # fmt: skip
    limited = client.post("/api/account/signin", json={"name": "Ada", "password": PASSWORD})
    error(limited, 429, "too_many_attempts")
    assert int(limited.headers["Retry-After"]) > 0


def test_a_password_is_never_in_a_log_or_an_answer(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "Sekrit-passphrase-42"
    caplog.set_level(logging.DEBUG)
    answers = [
        client.post("/api/account/signup", json={"name": "Ada", "password": secret}),
        client.post("/api/account/signin", json={"name": "Ada", "password": secret}),
        client.post("/api/account/signin", json={"name": "Ada", "password": secret + "x"}),
        client.post("/api/account/password", json={"current": secret, "new": secret + "!"}),
        client.post("/api/account/signup", json={"name": "Bo", "password": secret}),
        client.get("/api/players/Ada"),
    ]
    for answer in answers:
        assert secret not in answer.text and secret not in json.dumps(dict(answer.headers))
    assert secret not in caplog.text


def test_bad_names_and_passwords_are_refused_saying_which(client: TestClient) -> None:
    body = error(client.post("/api/account/signup", json={"name": "pаypal", "password": PASSWORD}),
                 422, "bad_name")  # fmt: skip
    assert body["field"] == "name" and "script" in body["message"]
    error(client.post("/api/account/signup", json={"name": "Adalovelace",
                      "password": "adalovelace"}), 422, "bad_password")  # fmt: skip
    error(client.post("/api/account/signup", json={"name": "Ada\u202e", "password": PASSWORD}),
          422, "bad_name")  # fmt: skip


def test_sign_up_closed_by_the_operator(client: TestClient, db: Database) -> None:
    accounts.set_setting(db, "signup", False)
    assert client.get("/api/account").json()["signup"] is False
    error(client.post("/api/account/signup", json={"name": "Ada", "password": PASSWORD}), 403,
          "signup_closed")  # fmt: skip
    assert accounts.list_users(db) == []


def test_a_rated_game_shows_on_the_profile_and_the_leaderboard(
    client: TestClient, db: Database
) -> None:
    """Ada joins the rulebook's game against a bot, then leaves it: a stand-in finishes it
    for her, and the result is hers."""
    sign_up(client, "Ada")
    table_id = client.post("/api/tables", json={"game": "martian", "seats": [HUMAN, BOT]}).json()[
        "id"
    ]
    joined = client.post(f"/api/tables/{table_id}/join", json={"seat": 0, "name": "ignored"})
    assert joined.json()["table"]["seats"][0]["name"] == "Ada"
    token = joined.json()["token"]
    assert client.post(f"/api/tables/{table_id}/leave", json={"token": token}).status_code == 200
    wait_for(lambda: tables.get_table(db, table_id).status == "finished", "the game ended",
             tries=3000)  # fmt: skip
    wait_for(lambda: results.unrecorded_tables(db) == [], "the results stored")
    profile = client.get("/api/players/ada").json()
    assert profile["player"]["name"] == "Ada"
    assert profile["summary"]["martian"]["played"] == 1
    assert profile["ratings"][0]["games"] == 1 and profile["history"][0]["rated"]
    assert profile["ratings"][0]["game"] == "martian" and "rank" not in profile["ratings"][0]
    assert profile["history"][0]["table"] == table_id
    board = client.get("/api/leaderboard/martian").json()["standings"]
    assert {row["kind"] for row in board} == {"account", "bot"}
    assert [row["rank"] for row in board] == [1, 2]
    finished = client.get("/api/finished", params={"player": "Ada"}).json()["games"]
    assert [game["table"] for game in finished] == [table_id] and finished[0]["rated"]
    # the review is worked out once, kept, and gives the profile its accuracy
    assert profile["summary"]["martian"]["accuracy"] is None
    first = client.get(f"/api/tables/{table_id}/review")
    assert first.status_code == 200 and results.stored_review(db, table_id) is not None
    again = client.get(f"/api/tables/{table_id}/review")
    assert again.json() == first.json()
    reviewed = client.get("/api/players/Ada").json()
    accuracy = first.json()["summaries"][0]["accuracy"]
    assert reviewed["history"][0]["accuracy"] == accuracy
    assert reviewed["summary"]["martian"]["accuracy"] == accuracy
    assert reviewed["summary"]["martian"]["reviewed"] == 1
    error(client.get("/api/players/Nobody"), 404, "not_found")
    error(client.get("/api/leaderboard/chess"), 404, "not_found")


class Chat:
    """A WebSocket at a table that reads chat."""

    def __init__(self, stack: ExitStack, client: TestClient, table_id: str, token: str | None):
        self.ws = stack.enter_context(client.websocket_connect(f"/ws/tables/{table_id}"))
        self.ws.send_text(json.dumps({"type": "hello", "token": token, "chat": True}))
        assert json.loads(self.ws.receive_text())["type"] == "state"

    def next_chat(self) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(self.ws.receive_text())
            if message["type"] == "chat":
                return message["message"]


def test_chat_reaches_the_table_live_and_spectators_can_be_muted(
    client: TestClient, app: Any
) -> None:
    seats = {"game": "martian", "seats": [HUMAN, HUMAN], "options": {"spectator_chat": False}}
    table_id = client.post("/api/tables", json=seats).json()["id"]
    tokens = [
        client.post(f"/api/tables/{table_id}/join", json={"seat": i, "name": n}).json()["token"]
        for i, n in enumerate(["Ann", "Bob"])
    ]
    with ExitStack() as stack:
        bob = Chat(stack, client, table_id, tokens[1])
        watcher = Chat(stack, client, table_id, None)
        script = {"text": "<script>alert(1)</script>", "token": tokens[0]}
        sent = client.post(f"/api/tables/{table_id}/chat", json=script)
        assert sent.status_code == 201
        for conn in (bob, watcher):
            message = conn.next_chat()
            assert message["text"] == "<script>alert(1)</script>" and message["author"] == "Ann"
            assert message["seat"] == 0
    error(client.post(f"/api/tables/{table_id}/chat", json={"text": "hi"}), 401,
          "bad_credentials")  # fmt: skip
    sign_up(client, "Spec")
    error(client.post(f"/api/tables/{table_id}/chat", json={"text": "hi"}), 403, "muted")
    error(client.post(f"/api/tables/{table_id}/chat", json={"text": "x", "token": "nope"}), 403,
          "bad_token")  # fmt: skip
    error(client.post(f"/api/tables/{table_id}/chat", json={"text": "x" * 301,
                      "token": tokens[0]}), 422, "bad_request")  # fmt: skip
    bell = error(client.post(f"/api/tables/{table_id}/chat", json={"text": "a\x07b",
                             "token": tokens[0]}), 422, "bad_request")  # fmt: skip
    assert bell["field"] == "text" and "U+0007" in bell["message"]
    codes = [
        client.post(
            f"/api/tables/{table_id}/chat", json={"text": f"m{i}", "token": tokens[1]}
        ).status_code
        for i in range(8)
    ]
    assert codes[:5] == [201] * 5 and codes[-1] == 429
    listed = client.get(f"/api/tables/{table_id}/chat").json()["messages"]
    assert [m["text"] for m in listed] == ["<script>alert(1)</script>", "m0", "m1", "m2", "m3",
                                           "m4"]  # fmt: skip


def test_rematch_seats_those_who_accept_and_starts_when_all_have(
    client: TestClient, db: Database
) -> None:
    seats = {"game": "martian", "variant": {"target": 5}, "seats": [HUMAN, BOT, HUMAN]}
    table_id = client.post("/api/tables", json=seats).json()["id"]
    error(client.post(f"/api/tables/{table_id}/rematch", json={"token": "x"}), 409, "not_finished")
    tokens = [
        client.post(f"/api/tables/{table_id}/join", json={"seat": i, "name": n}).json()["token"]
        for i, n in [(0, "Ann"), (2, "Cy")]
    ]
    for token in tokens:
        client.post(f"/api/tables/{table_id}/leave", json={"token": token})
    wait_for(lambda: tables.get_table(db, table_id).status == "finished", "the game ended",
             tries=3000)  # fmt: skip
    error(client.post(f"/api/tables/{table_id}/rematch", json={"token": "nope"}), 403,
          "bad_token")  # fmt: skip
    first = client.post(f"/api/tables/{table_id}/rematch", json={"token": tokens[1]})
    assert first.status_code == 200, first.text
    new = first.json()["table"]
    assert new["rematch_of"] == table_id and new["status"] == "open" and first.json()["seat"] == 2
    assert [s["kind"] for s in new["seats"]] == ["human", "bot", "human"]
    assert new["seats"][1]["taken"] and new["variant"]["target"] == 5
    assert client.get(f"/api/tables/{table_id}").json()["rematch"] == new["id"]
    second = client.post(f"/api/tables/{table_id}/rematch", json={"token": tokens[0]})
    assert second.json()["table"]["id"] == new["id"] and second.json()["seat"] == 0
    assert second.json()["table"]["status"] == "running"
    names = [s["name"] for s in second.json()["table"]["seats"]]
    assert names[0] == "Ann" and names[2] == "Cy"
    again = client.post(f"/api/tables/{table_id}/rematch", json={"token": tokens[0]})
    error(again, 409, "conflict")  # the seat is taken: once is enough


class Watcher:
    """A WebSocket at a table that reads presence messages."""

    def __init__(self, stack: ExitStack, client: TestClient, table_id: str, token: str | None):
        self.ws = stack.enter_context(client.websocket_connect(f"/ws/tables/{table_id}"))
        self.ws.send_text(json.dumps({"type": "hello", "token": token, "presence": True}))
        self.presence(lambda _m: True, until_state=True)  # greeted: later news is its own

    def presence(self, check: Any, until_state: bool = False) -> dict[str, Any]:
        """The next presence message that ``check`` accepts (the others are skipped), or
        with ``until_state`` the next state."""
        while True:
            message: dict[str, Any] = json.loads(self.ws.receive_text())
            if until_state and message["type"] == "state":
                return message
            if not until_state and message["type"] == "presence" and check(message):
                return message


def seat_of(message: dict[str, Any], seat: int) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in message["seats"] if s["seat"] == seat)
    return found


def test_presence_shows_who_is_here_the_stand_in_s_time_and_what_it_did(db: Database) -> None:
    app = create_app(database=db, bot_delay=0, absence_timeout=0.3, stand_in="random")
    with TestClient(app) as client:
        seats = {"game": "martian", "variant": {"target": 8}, "seats": [HUMAN, HUMAN]}
        table_id = client.post("/api/tables", json=seats).json()["id"]
        tokens = [
            client.post(f"/api/tables/{table_id}/join", json={"seat": i, "name": n}).json()["token"]
            for i, n in enumerate(["Ann", "Bob"])
        ]
        with ExitStack() as outer:
            bob = Watcher(outer, client, table_id, tokens[1])
            with ExitStack() as inner:
                Watcher(inner, client, table_id, tokens[0])
                here = bob.presence(lambda m: seat_of(m, 0)["connected"])
                assert seat_of(here, 1)["connected"] and seat_of(here, 0)["stand_in_at"] is None
            gone = bob.presence(lambda m: not seat_of(m, 0)["connected"])
            due = seat_of(gone, 0)["stand_in_at"]
            assert due is not None and not seat_of(gone, 0)["away"]
            away = bob.presence(lambda m: seat_of(m, 0)["away"])
            assert seat_of(away, 0)["stand_in_at"] is None
            wait_for(
                lambda: any(actor == "stand-in" for actor, _ in load(db, table_id).actors),
                "the stand-in moved for Ann",
            )
            with ExitStack() as back:
                ann = Watcher(back, client, table_id, tokens[0])
                note = ann.presence(lambda m: "returned" in m)
                stood = sum(1 for a, s in load(db, table_id).actors if a == "stand-in" and s == 0)
                assert note["returned"]["seat"] == 0 and 1 <= note["returned"]["moves"] <= stood
                bob.presence(lambda m: not seat_of(m, 0)["away"] and seat_of(m, 0)["connected"])


def load(db: Database, table_id: str) -> Any:
    from marsdice.web.live import load_live

    live = load_live(db, table_id)
    assert live is not None
    return live


def test_a_signed_in_player_s_seat_follows_the_account_not_another_browser(
    app: Any, db: Database
) -> None:
    with TestClient(app) as ada:
        other = TestClient(app)  # another browser (its own cookies), the same server
        sign_up(ada, "Ada")
        table_id = ada.post("/api/tables", json={"game": "martian", "seats": [HUMAN, HUMAN]})
        table_id = table_id.json()["id"]
        ada.post(f"/api/tables/{table_id}/join", json={"seat": 1, "name": "Ada"})
        with ada.websocket_connect(f"/ws/tables/{table_id}") as socket:
            socket.send_text(json.dumps({"type": "hello"}))  # no token: the account's seat
            assert json.loads(socket.receive_text())["seat"] == 1
        with other.websocket_connect(f"/ws/tables/{table_id}") as socket:
            socket.send_text(json.dumps({"type": "hello"}))  # another browser: a spectator
            assert json.loads(socket.receive_text())["seat"] is None


def test_requests_that_hash_a_password_are_bounded_per_address(
    app: Any, client: TestClient, db: Database
) -> None:
    """A hash costs CPU by design: one address may not make the server hash without end."""
    from marsdice.web.limits import Buckets

    app.state.hashers = Buckets(3, 60.0)
    made = [
        client.post("/api/account/signup", json={"name": f"Racer{i}", "password": PASSWORD})
        for i in range(4)
    ]  # (a sign-up hashes once: the new password; it signs in without checking it again)
    assert [answer.status_code for answer in made] == [201, 201, 201, 429]  # refused first
    limited = error(made[3], 429, "too_many_attempts")
    assert "address" in limited["message"] and int(made[3].headers["Retry-After"]) > 0
    assert [user.name for user in accounts.list_users(db)] == ["Racer0", "Racer1", "Racer2"]
