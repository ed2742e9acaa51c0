"""The server's guards: origins, rate limits, internal errors kept from clients, the bots'
thinking delay (SQLite only: no storage here beyond what test_web_play covers on both)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.storage.testing import temporary_database
from marsdice.web.app import create_app
from marsdice.web.hub import Hub
from marsdice.web.live import load_live
from marsdice.web.routes.play import FLOOD_LIMIT

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
HUMAN = {"kind": "human"}


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    with temporary_database("sqlite", tmp_path) as database:
        yield database


def seated_table(client: TestClient) -> tuple[str, str]:
    created = client.post(
        "/api/tables",
        json={"game": "martian", "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]},
    ).json()
    token = client.post(
        f"/api/tables/{created['id']}/join", json={"seat": 0, "name": "Ann"}
    ).json()["token"]
    return created["id"], token


def test_websockets_from_foreign_origins_are_refused(db: Database) -> None:
    with TestClient(create_app(database=db, allowed_origins=["https://ok.example"])) as client:
        table_id, _ = seated_table(client)
        path = f"/ws/tables/{table_id}"
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(path, headers={"origin": "https://evil.example"}) as ws,
        ):
            ws.receive_text()
        assert refused.value.code == 4403
        for origin in ("https://ok.example", "http://testserver", None):
            headers = {"origin": origin} if origin else {}
            with client.websocket_connect(path, headers=headers) as ws:
                ws.send_text('{"type": "ping"}')
                assert json.loads(ws.receive_text()) == {"type": "pong"}


def test_a_flood_is_rate_limited(db: Database) -> None:
    with TestClient(create_app(database=db, rate=1, burst=5)) as client:
        table_id, _ = seated_table(client)
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            for _ in range(8):
                ws.send_text('{"type": "ping"}')
            replies = [json.loads(ws.receive_text()) for _ in range(8)]
        assert replies[:5] == [{"type": "pong"}] * 5
        assert [r["code"] for r in replies[5:]] == ["rate_limited"] * 3


def test_a_client_that_never_slows_down_is_disconnected(db: Database) -> None:
    from starlette.websockets import WebSocketDisconnect

    with TestClient(create_app(database=db, rate=0.001, burst=1)) as client:
        table_id, _ = seated_table(client)
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            for _ in range(FLOOD_LIMIT + 2):
                ws.send_text('{"type": "ping"}')
            replies = [json.loads(ws.receive_text()) for _ in range(FLOOD_LIMIT + 1)]
            assert [r.get("code") for r in replies[1:]] == ["rate_limited"] * FLOOD_LIMIT
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
            assert closed.value.code == 1008


def test_accepted_actions_are_never_rate_limited(db: Database) -> None:
    with TestClient(create_app(database=db, bot_delay=0, rate=0.001, burst=2)) as client:
        table_id = client.post(
            "/api/tables",
            json={"game": "martian", "variant": {"players": 1, "target": 25}, "seats": [HUMAN]},
        ).json()["id"]
        token = client.post(
            f"/api/tables/{table_id}/join", json={"seat": 0, "name": "Solo"}
        ).json()["token"]
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            state = json.loads(ws.receive_text())
            actions = 0
            while actions < 12 and not state["view"]["winners"]:
                if state["your_turn"]:
                    move = state["view"]["legal_actions"][0]
                    ws.send_text(
                        json.dumps({"type": "action", "version": state["version"], "action": move})
                    )
                    actions += 1
                state = json.loads(ws.receive_text())
                assert state["type"] == "state", state
        assert actions >= 3


def until_closed(ws: Any) -> list[str]:
    texts: list[str] = []
    try:
        while True:
            texts.append(ws.receive_text())
    except WebSocketDisconnect:
        return texts


def test_an_internal_error_reaches_the_log_not_the_client(
    db: Database, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(*_args: Any) -> None:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(Hub, "act", broken)
    with TestClient(create_app(database=db, bot_delay=0)) as client:
        table_id, token = seated_table(client)
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            state = json.loads(ws.receive_text())
            ws.send_text(json.dumps({"type": "action", "version": 0, "action": "stop"}))
            texts = until_closed(ws)
    assert json.loads(texts[-1]) == {
        "type": "error",
        "code": "internal",
        "message": "internal error",
        "version": None,
    }
    assert not any("secret detail" in text for text in texts)
    assert "secret detail" in caplog.text
    assert token not in caplog.text
    assert state["type"] == "state"


def test_bots_think_for_the_configured_delay(db: Database) -> None:
    bot = {"kind": "bot", "bot": "random"}
    with TestClient(create_app(database=db, bot_delay=0.02)) as client:
        started = time.monotonic()
        table_id = client.post(
            "/api/tables", json={"game": "martian", "variant": {"target": 3}, "seats": [bot, bot]}
        ).json()["id"]
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            ws.send_text('{"type": "hello"}')
            state = json.loads(ws.receive_text())
            while state["table"]["status"] != "finished":
                state = json.loads(ws.receive_text())
        elapsed = time.monotonic() - started
    live = load_live(db, table_id)
    assert live is not None
    bot_moves = sum(1 for actor, _ in live.actors if actor == "bot")
    assert bot_moves >= 2 and elapsed >= 0.02 * bot_moves


# --- every REST error in the documented form ----------------------------------------------------


def test_starlettes_own_errors_come_in_the_documented_form(db: Database) -> None:
    with TestClient(create_app(database=db)) as client:
        missing = client.get("/api/nothing-here")
        wrong_method = client.delete("/api/tables")
        no_file = client.get("/static/js/nothing-here.js")
    assert (missing.status_code, missing.json()) == (
        404,
        {"error": "not_found", "message": "Not Found"},
    )
    # every method of the path, not only those of the first route Starlette tried
    assert wrong_method.status_code == 405 and wrong_method.headers["allow"] == "GET, POST"
    assert wrong_method.json() == {"error": "method_not_allowed", "message": "Method Not Allowed"}
    assert no_file.json()["error"] == "not_found"


def test_a_bad_token_is_refused_by_its_type_not_its_message(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: Any) -> None:
        raise tables.BadTokenError("no seat for that token")

    with TestClient(create_app(database=db)) as client:
        table_id, _ = seated_table(client)
        monkeypatch.setattr(tables, "leave", refuse)
        response = client.post(f"/api/tables/{table_id}/leave", json={"token": "x"})
    assert (response.status_code, response.json()) == (
        403,
        {"error": "bad_token", "message": "no seat for that token"},
    )


def test_the_openapi_document_names_the_error_body(db: Database) -> None:
    with TestClient(create_app(database=db)) as client:
        document = client.get("/openapi.json").json()
    leave = document["paths"]["/api/tables/{table_id}/leave"]["post"]["responses"]
    assert set(leave) == {"200", "400", "403", "404", "409", "413", "422"}
    for status in ("400", "403", "404", "409", "413", "422"):
        schema = leave[status]["content"]["application/json"]["schema"]
        assert schema == {"$ref": "#/components/schemas/ErrorBody"}
    assert "HTTPValidationError" not in document["components"]["schemas"]
    assert document["components"]["schemas"]["ErrorBody"]["required"] == ["error", "message"]
