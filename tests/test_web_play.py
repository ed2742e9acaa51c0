"""The server in process (Starlette's TestClient, real WebSockets in memory), on SQLite and on
the real PostgreSQL: whole games, bots, spectators, reconnects, a restart, bad messages and
hidden information."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from starlette.testclient import TestClient

from marsdice.core.record import GameRecord
from marsdice.fair import verify_record
from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.web.app import create_app
from marsdice.web.live import load_live

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CHANCE = -1


@pytest.fixture
def client(db: Database) -> Iterator[TestClient]:
    with TestClient(create_app(database=db, bot_delay=0)) as test_client:
        yield test_client


class Conn:
    """One WebSocket at a table, keeping every text it received."""

    def __init__(self, stack: ExitStack, client: TestClient, table_id: str, token: str | None):
        self.ws = stack.enter_context(client.websocket_connect(f"/ws/tables/{table_id}"))
        self.texts: list[str] = []
        self.state: dict[str, Any] = {}
        self.send({"type": "hello", "token": token})
        first = self.receive()
        assert first["type"] == "state", first

    def send(self, message: object) -> None:
        self.ws.send_text(message if isinstance(message, str) else json.dumps(message))

    def receive(self) -> dict[str, Any]:
        text = self.ws.receive_text()
        self.texts.append(text)
        message: dict[str, Any] = json.loads(text)
        if message["type"] == "state":
            assert message["version"] >= self.state.get("version", 0)
            self.state = message
        return message

    def settle(self) -> dict[str, Any]:
        """Read until nobody is waiting for the server (a person to act, or the end)."""
        while not settled(self.state):
            message = self.receive()
            assert message["type"] == "state", message
        return self.state

    def ping(self) -> None:
        """Prove that nothing else was sent to this connection since its last message."""
        self.send({"type": "ping"})
        assert self.receive() == {"type": "pong"}


def settled(state: dict[str, Any]) -> bool:
    view = state.get("view")
    if view is None or view["current_player"] == CHANCE:
        return False
    seat = state["table"]["seats"][view["current_player"]]
    return bool(view["winners"]) or (seat["kind"] != "bot" and not seat["away"])


def create(client: TestClient, game: str, variant: dict[str, Any], seats: list[Any]) -> str:
    response = client.post("/api/tables", json={"game": game, "variant": variant, "seats": seats})
    assert response.status_code == 201, response.text
    table_id: str = response.json()["id"]
    return table_id


def join(client: TestClient, table_id: str, seat: int, name: str) -> str:
    response = client.post(
        f"/api/tables/{table_id}/join", json={"seat": seat, "name": name, "seed": f"{name}!"}
    )
    assert response.status_code == 200, response.text
    token: str = response.json()["token"]
    return token


HUMAN = {"kind": "human"}
VARIANTS = {"martian": {"target": 5}, "attacks": {}}


def two_humans(client: TestClient, game: str) -> tuple[str, list[str]]:
    table_id = create(client, game, VARIANTS[game], [HUMAN, HUMAN])
    return table_id, [join(client, table_id, seat, name) for seat, name in enumerate("AB")]


def play_until(
    players: list[Conn], watchers: list[Conn], chooser: random.Random, stop: int | None = None
) -> dict[str, Any]:
    """Random legal moves until the end (or version ``stop``); every connection follows."""
    while True:
        states = [conn.settle() for conn in (*players, *watchers)]
        assert len({state["version"] for state in states}) == 1, "everyone sees one version"
        state = states[0]
        if state["view"]["winners"] or (stop is not None and state["version"] >= stop):
            return state
        mover = players[state["view"]["current_player"]]
        legal = mover.state["view"]["legal_actions"]
        assert mover.state["your_turn"] and legal
        for other in players:
            if other is not mover:
                assert not other.state["your_turn"] and other.state["view"]["legal_actions"] == []
        version = state["version"]
        mover.send({"type": "action", "version": version, "action": chooser.choice(legal)})
        for conn in (*players, *watchers):  # (with the dice the server rolls right after it)
            assert conn.receive()["version"] > version


@pytest.mark.parametrize("game", ["martian", "attacks"])
def test_two_people_play_a_whole_game_and_a_spectator_follows(
    client: TestClient, db: Database, game: str
) -> None:
    table_id, tokens = two_humans(client, game)
    with ExitStack() as stack:
        players = [Conn(stack, client, table_id, token) for token in tokens]
        watcher = Conn(stack, client, table_id, None)
        assert watcher.state["seat"] is None
        final = play_until(players, [watcher], random.Random(5))
    assert final["table"]["status"] == "finished"
    assert final["table"]["server_seed"]
    live = load_live(db, table_id)
    assert live is not None and live.state.is_terminal and live.version == final["version"]
    assert len(watcher.texts) > final["version"] // 2  # the spectator saw the game go by
    assert {"human", "chance"} <= set(final["actors"])
    record = client.get(f"/api/tables/{table_id}/record")
    assert record.status_code == 200
    assert verify_record(GameRecord.loads(record.text)).fair
    for conn in (*players, watcher):
        for text in conn.texts:
            assert not any(token in text for token in tokens)
            if '"status":"finished"' not in text:
                assert live.table.server_seed.hex() not in text


def test_a_person_against_a_bot(client: TestClient, db: Database) -> None:
    table_id = create(client, "martian", {"target": 6}, [{"kind": "bot", "bot": "cautious"}, HUMAN])
    token = join(client, table_id, 1, "Ann")
    chooser = random.Random(2)
    with ExitStack() as stack:
        ann = Conn(stack, client, table_id, token)
        while True:
            state = ann.settle()
            if state["view"]["winners"]:
                break
            assert state["your_turn"], "the bot moves by itself"
            ann.send(
                {
                    "type": "action",
                    "version": state["version"],
                    "action": chooser.choice(state["view"]["legal_actions"]),
                }
            )
            ann.receive()
    live = load_live(db, table_id)
    assert live is not None and live.state.is_terminal
    assert "bot" in state["actors"] and "human" in state["actors"]
    assert all(seat == 0 for actor, seat in live.actors if actor == "bot")


def test_a_table_of_bots_plays_itself(client: TestClient, db: Database) -> None:
    bot = {"kind": "bot", "bot": "random"}
    table_id = create(client, "attacks", {}, [bot, bot])
    with ExitStack() as stack:
        watcher = Conn(stack, client, table_id, None)
        while not (watcher.state.get("view") or {}).get("winners"):
            watcher.receive()
    assert client.get(f"/api/tables/{table_id}").json()["status"] == "finished"


def test_reconnecting_with_the_token_gives_the_whole_state(client: TestClient) -> None:
    table_id = create(client, "martian", {"target": 25}, [HUMAN, HUMAN])  # no end by step 6
    tokens = [join(client, table_id, seat, name) for seat, name in enumerate("AB")]
    with ExitStack() as stack:
        players = [Conn(stack, client, table_id, token) for token in tokens]
        before = play_until(players, [], random.Random(1), stop=6)
    with ExitStack() as stack:
        spectator = Conn(stack, client, table_id, None)
        again = Conn(stack, client, table_id, tokens[before["view"]["current_player"]])
        state = again.state
        assert state["version"] == before["version"] and len(state["log"]) == state["version"]
        assert state["your_turn"] and state["view"]["legal_actions"]
        assert state["seat"] == before["view"]["current_player"]
        assert spectator.state["view"]["legal_actions"] == []
        assert spectator.state["log"] == state["log"]


def test_a_connection_to_a_game_in_hand_reads_no_table_row_and_a_wrong_token_is_refused(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the game runs its seats' tokens are fixed: a connection is checked against the
    game the process holds, not a fresh read of the row (the cost of every reconnect)."""
    table_id = create(client, "martian", {"target": 25}, [HUMAN, HUMAN])
    tokens = [join(client, table_id, seat, name) for seat, name in enumerate("AB")]
    with ExitStack() as stack:
        players = [Conn(stack, client, table_id, token) for token in tokens]
        play_until(players, [], random.Random(2), stop=4)
    reads: list[str] = []
    real = tables.get_table

    def counted(db: Database, wanted: str) -> tables.TableData:
        reads.append(wanted)
        return real(db, wanted)

    monkeypatch.setattr(tables, "get_table", counted)
    with ExitStack() as stack:
        again = Conn(stack, client, table_id, tokens[1])
        assert again.state["seat"] == 1
        assert reads == []
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": tokens[0] + "x"}))
            refused = json.loads(ws.receive_text())
        assert refused["type"] == "error" and refused["code"] == "bad_token"
    assert reads == []


def test_the_join_that_starts_a_game_gives_the_hub_the_game_without_reading_it_back(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last join wrote the deal: the game the hub holds is made from that row, and it
    is the game the log makes."""
    app = create_app(database=db, bot_delay=0)
    reads: list[str] = []
    real = tables.read_log

    def counted(db: Database, wanted: str) -> Any:
        reads.append(wanted)
        return real(db, wanted)

    with TestClient(app) as client:
        table_id = create(client, "attacks", {}, [HUMAN, HUMAN])
        join(client, table_id, 0, "A")
        monkeypatch.setattr(tables, "read_log", counted)
        join(client, table_id, 1, "B")
        held = app.state.hub._sessions[table_id].live
        assert held is not None and reads == []
        monkeypatch.undo()
        stored = load_live(db, table_id)
        assert stored is not None
        assert held.start == stored.start and held.counter == stored.counter
        assert held.table.setup == stored.table.setup and held.version == 0


def test_a_restarted_server_restores_the_table_and_the_game_goes_on(db: Database) -> None:
    chooser = random.Random(4)
    with TestClient(create_app(database=db, bot_delay=0)) as first:
        table_id, tokens = two_humans(first, "attacks")
        with ExitStack() as stack:
            players = [Conn(stack, first, table_id, token) for token in tokens]
            before = play_until(players, [], chooser, stop=10)
    with TestClient(create_app(database=db, bot_delay=0)) as second:
        listed = second.get("/api/tables").json()["tables"]
        assert [t["id"] for t in listed] == [table_id]
        with ExitStack() as stack:
            players = [Conn(stack, second, table_id, token) for token in tokens]
            assert players[0].state["view"] == {**before["view"], "viewer": 0} or (
                players[0].state["log"] == before["log"]
            )
            assert players[0].state["version"] == before["version"]
            final = play_until(players, [], chooser)
    assert final["table"]["status"] == "finished"


BAD_MESSAGES: list[tuple[str, str]] = [
    ("not json", "bad_json"),
    ("[1, 2", "bad_json"),
    ("[]", "bad_message"),
    ('"action"', "bad_message"),
    ("{}", "bad_message"),
    ('{"type": "shout"}', "bad_message"),
    ('{"type": "action", "version": "0", "action": "stop"}', "bad_message"),
    ('{"type": "action", "version": true, "action": "stop"}', "bad_message"),
    ('{"type": "action", "version": -1, "action": "stop"}', "bad_message"),
    ('{"type": "action", "version": 1}', "bad_message"),
    ('{"type": "action", "version": 1, "action": ""}', "bad_message"),
    ('{"type": "action", "version": 1, "action": "stop", "extra": 1}', "bad_message"),
    ('{"type": "action", "version": 1, "action": ["stop"]}', "bad_message"),
    ('{"type": "action", "version": 1, "action": "x"}', "illegal_action"),
    ('{"type": "action", "version": 1, "action": "' + "x" * 5000 + '"}', "too_large"),
    ("[" * 5000, "too_large"),
    ('{"type": "hello", "token": "not-a-token"}', "bad_token"),
]


def test_bad_messages_get_an_error_to_the_sender_and_change_nothing(
    client: TestClient, db: Database
) -> None:
    table_id, tokens = two_humans(client, "martian")
    with ExitStack() as stack:
        ann, bob = (Conn(stack, client, table_id, token) for token in tokens)
        watcher = Conn(stack, client, table_id, None)
        state = ann.settle()
        bob.settle()
        watcher.settle()
        version = state["version"]
        mover, other = (ann, bob) if state["your_turn"] else (bob, ann)
        legal = mover.state["view"]["legal_actions"][0]
        corpus = [
            (text.replace('"version": 1', f'"version": {version}'), code)
            for text, code in BAD_MESSAGES
        ]
        corpus += [
            (json.dumps({"type": "action", "version": version - 1, "action": legal}), "stale"),
            (json.dumps({"type": "action", "version": version + 1, "action": legal}), "stale"),
            (json.dumps({"type": "action", "version": version, "action": "dance"}), "illegal"),
            (json.dumps({"type": "action", "version": version, "action": "TTTTTTTTTTTTT"}), "il"),
        ]
        for text, code in corpus:
            mover.send(text)
            reply = mover.receive()
            assert reply["type"] == "error", (text, reply)
            assert reply["code"].startswith(code), (text, reply)
            assert "Traceback" not in reply["message"]
        other.send({"type": "action", "version": version, "action": legal})
        assert other.receive()["code"] == "not_your_turn"
        watcher.send({"type": "action", "version": version, "action": legal})
        assert watcher.receive()["code"] == "not_seated"
        mover.ws.send_bytes(b"\x00")
        assert mover.receive()["code"] == "bad_message"
        assert tables.stored_version(db, table_id) == version
        for conn in (ann, bob, watcher):
            conn.ping()  # nobody heard of any of it
        mover.send({"type": "action", "version": version, "action": legal})
        assert mover.receive()["version"] == version + 1
    assert tables.stored_version(db, table_id) >= version + 1


def test_the_lobby_answers_with_json_errors(client: TestClient) -> None:
    def post(path: str, body: object) -> tuple[int, dict[str, Any]]:
        response = client.post(path, json=body)
        return response.status_code, response.json()

    status, body = post(
        "/api/tables", {"game": "martian", "variant": {"target": 0}, "seats": [HUMAN] * 2}
    )
    assert (status, body["error"], body["field"]) == (422, "bad_variant", "target")
    status, body = post("/api/tables", {"game": "chess", "seats": [HUMAN] * 2})
    assert (status, body["error"]) == (400, "bad_request")
    status, body = post("/api/tables", {"game": "martian", "seats": [{"kind": "alien"}]})
    assert (status, body["error"]) == (422, "bad_request")
    status, body = post("/api/tables", {"game": "martian", "seats": [HUMAN], "x": 1})
    assert status == 422
    assert client.get("/api/tables/nope").status_code == 404
    table_id = create(client, "martian", {}, [HUMAN, HUMAN])
    token = join(client, table_id, 0, "Ann")
    status, body = post(f"/api/tables/{table_id}/join", {"seat": 0, "name": "Bob"})
    assert (status, body["error"]) == (409, "conflict")
    status, body = post(f"/api/tables/{table_id}/join", {"seat": 5, "name": "Bob"})
    assert (status, body["field"]) == (422, "seat")
    assert client.get(f"/api/tables/{table_id}/record").status_code == 409
    status, body = post(f"/api/tables/{table_id}/leave", {"token": "nope"})
    assert (status, body["error"]) == (403, "bad_token")
    status, body = post(f"/api/tables/{table_id}/leave", {"token": token})
    assert status == 200 and not body["seats"][0]["taken"]
    listed = client.get("/api/tables").json()["tables"]
    assert [t["id"] for t in listed] == [table_id]
    assert "token" not in json.dumps(listed) and "server_seed" not in json.dumps(listed)
    with client.websocket_connect("/ws/tables/nope") as ws:
        assert json.loads(ws.receive_text())["code"] == "not_found"


def string_values(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from string_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from string_values(item)


def test_no_message_shows_a_face_down_card_before_the_end(client: TestClient, db: Database) -> None:
    table_id, tokens = two_humans(client, "attacks")
    with ExitStack() as stack:
        players = [Conn(stack, client, table_id, token) for token in tokens]
        watcher = Conn(stack, client, table_id, None)
        play_until(players, [watcher], random.Random(8))
    live = load_live(db, table_id)
    assert live is not None
    states: list[Any] = [live.start, *live.states]
    # a card once face up is known to all, even after Oklahoma City sends it under its stack
    seen: list[set[str]] = []
    for state in states:
        tops = {state.slug(stack_[0]) for stack_ in state.stacks if stack_}
        seen.append(tops | (seen[-1] if seen else set()))
    checked = 0
    for conn in (*players, watcher):
        for text in conn.texts:
            message = json.loads(text)
            if message["type"] != "state" or message["view"]["winners"]:
                continue
            version = message["version"]
            state = states[version]
            hidden = {state.slug(card) for stack_ in state.stacks for card in stack_[1:]}
            hidden |= {state.slug(card) for card in state.box}
            hidden -= seen[version]
            del message["table"]["variant"]  # the rules switches are named after cities
            public = " ".join(string_values(message))  # keys name fields ("toronto": false)
            for slug in hidden:
                found = re.search(rf"(?<![a-z_-]){re.escape(slug)}(?![a-z_-])", public)
                assert not found, (slug, version, public[found.start() - 100 : found.end() + 50])
            checked += 1
    # not a vacuous check: every connection saw states of the game before its end (the
    # game's length follows the server's random seed: a short one sends about 30)
    assert checked >= 12


def test_an_absent_player_is_played_by_a_bot_and_takes_the_seat_back(db: Database) -> None:
    app = create_app(database=db, bot_delay=0, absence_timeout=0.05, stand_in="random")
    with TestClient(app) as client:
        table_id, tokens = two_humans(client, "martian")
        with ExitStack() as stack:
            ann = Conn(stack, client, table_id, tokens[0])
            # Bob never comes: after the timeout a bot plays his turns, Ann plays hers
            chooser = random.Random(6)
            while "stand-in" not in ann.state["actors"] and not ann.state["view"]["winners"]:
                state = ann.receive()
                if state.get("your_turn"):
                    legal = state["view"]["legal_actions"]
                    ann.send(
                        {
                            "type": "action",
                            "version": state["version"],
                            "action": chooser.choice(legal),
                        }
                    )
            assert ann.state["table"]["seats"][1]["away"]
            live = load_live(db, table_id)
            assert live is not None
            assert {seat for actor, seat in live.actors if actor == "stand-in"} == {1}
            if ann.state["view"]["winners"]:
                return
            bob = Conn(stack, client, table_id, tokens[1])  # back: the seat is his again
            for conn in (ann, bob):
                while conn.state["table"]["seats"][1]["away"]:
                    if conn.state["table"]["status"] == "finished":
                        return  # the stand-in's next move ended the game before Bob was back
                    conn.receive()
            live = load_live(db, table_id)
            assert live is not None
            version = live.version
            stand_ins = sum(1 for actor, _ in live.actors if actor == "stand-in")
            final = play_until([ann, bob], [], chooser)
            live = load_live(db, table_id)
            assert live is not None and final["version"] > version
            assert sum(1 for actor, _ in live.actors if actor == "stand-in") == stand_ins


def test_leaving_a_running_game_hands_the_seat_to_a_bot(client: TestClient, db: Database) -> None:
    table_id, tokens = two_humans(client, "martian")
    left = client.post(f"/api/tables/{table_id}/leave", json={"token": tokens[1]})
    assert left.status_code == 200 and left.json()["seats"][1]["away"]
    with ExitStack() as stack:
        ann = Conn(stack, client, table_id, tokens[0])
        chooser = random.Random(9)
        while not ann.state["view"]["winners"]:
            state = ann.receive() if not ann.state["your_turn"] else ann.state
            if state.get("your_turn"):
                legal = state["view"]["legal_actions"]
                ann.send(
                    {"type": "action", "version": state["version"], "action": chooser.choice(legal)}
                )
                ann.receive()
    live = load_live(db, table_id)
    assert live is not None and live.state.is_terminal
    assert {seat for actor, seat in live.actors if actor == "stand-in"} == {1}


def wait_for(check: Any, what: str, tries: int = 400) -> None:
    """Poll ``check`` while the server works in its own thread (a bound, not a timing)."""
    for _ in range(tries):
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"never happened: {what}")


def test_a_finished_table_leaves_nothing_in_the_process(db: Database) -> None:
    app = create_app(database=db, bot_delay=0, absence_timeout=None)
    hub = app.state.hub
    with TestClient(app) as client:
        bots = [{"kind": "bot", "bot": "cautious"}, {"kind": "bot", "bot": "random"}]
        table_id = create(client, "martian", {"target": 5}, bots)
        status = lambda: client.get(f"/api/tables/{table_id}").json()["status"]  # noqa: E731
        wait_for(lambda: status() == "finished", "the bots finish")
        wait_for(lambda: table_id not in hub.cached_tables(), "the table is released")
        # a viewer brings it back from the database, and leaving releases it again
        with ExitStack() as stack:
            watcher = Conn(stack, client, table_id, None)
            assert watcher.state["view"]["winners"]
            assert table_id in hub.cached_tables()
        wait_for(lambda: table_id not in hub.cached_tables(), "released after the last viewer")


def test_a_player_who_switches_to_watching_leaves_the_seat_to_a_stand_in(db: Database) -> None:
    app = create_app(database=db, bot_delay=0, absence_timeout=0.05, stand_in="random")
    with TestClient(app) as client:
        table_id, tokens = two_humans(client, "martian")
        with ExitStack() as stack:
            ann = Conn(stack, client, table_id, tokens[0])
            bob = Conn(stack, client, table_id, tokens[1])
            assert ann.state["your_turn"] and not bob.state["table"]["seats"][0]["away"]
            ann.send({"type": "hello", "token": None})  # the same connection, now a spectator
            seats = lambda: client.get(f"/api/tables/{table_id}").json()["seats"]  # noqa: E731
            wait_for(lambda: seats()[0]["away"], "the left seat goes to a stand-in")
            assert not seats()[1]["away"]  # Bob is still connected: his seat stays his
