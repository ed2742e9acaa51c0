"""Every input checked at the edge (docs/protocol.md, "Errors and limits"): table ids by
pattern before any database call, bodies over the limit refused before they are read, display
names and seeds checked and normalised, and every error, the framework's included, in the one
documented form. On SQLite and PostgreSQL (the ``db`` fixture) where storage is reached."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.testclient import TestClient
from starlette.types import Message
from starlette.websockets import WebSocketDisconnect

from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.web.app import create_app
from marsdice.web.deps import TABLE_ID_PATTERN, is_table_id
from marsdice.web.errors import BodyLimit
from marsdice.web.schemas import MAX_BODY_BYTES, MAX_NAME, NAME_PATTERN, SEED_PATTERN, JoinTable
from serverproc import Server

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
TWO_HUMANS = {"game": "martian", "seats": [{"kind": "human"}, {"kind": "human"}]}
#: ids no table can have: a NUL and other bytes, upper case, too long, too short
BAD_IDS = ["ab%00cd", "ab%07cd", "%FF%FE", "ab%0Acd", "ABCDEF012345", "0" * 13, "0" * 500, "a"]
#: every REST route that takes a table id, with a body that would otherwise be fine
ID_ROUTES = [
    ("GET", "/api/tables/{}", None),
    ("GET", "/api/tables/{}/record", None),
    ("GET", "/api/tables/{}/replay", None),
    ("GET", "/api/tables/{}/verify", None),
    ("GET", "/api/tables/{}/review", None),
    ("POST", "/api/tables/{}/join", {"seat": 0, "name": "Ann"}),
    ("POST", "/api/tables/{}/leave", {"token": "x"}),
    ("GET", "/api/tables/{}/chat", None),
    ("POST", "/api/tables/{}/chat", {"text": "hi", "token": "x"}),
    ("POST", "/api/tables/{}/rematch", {"token": "x"}),
]


def documented(response: Any, status: int, code: str) -> dict[str, Any]:
    """The response is an error of the documented form; its body."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body: dict[str, Any] = response.json()
    assert body["error"] == code, body
    assert set(body) <= {"error", "message", "field"} and body["message"]
    return body


# --- table ids --------------------------------------------------------------------------------


def test_every_id_made_fits_the_pattern() -> None:
    assert TABLE_ID_PATTERN == "^[0-9a-f]{12}$"
    assert all(is_table_id(tables.new_table_id()) for _ in range(2000))


@pytest.mark.parametrize("bad_id", BAD_IDS)
def test_a_bad_table_id_is_not_found_on_every_route(db: Database, bad_id: str) -> None:
    with TestClient(create_app(database=db), raise_server_exceptions=False) as client:
        for method, path, body in ID_ROUTES:
            response = client.request(method, path.format(bad_id), json=body)
            assert documented(response, 404, "not_found")["message"] == "no such table"
        with client.websocket_connect(f"/ws/tables/{bad_id}") as ws:
            assert json.loads(ws.receive_text())["code"] == "not_found"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
        assert closed.value.code == 4404


def test_no_bad_id_reaches_the_database(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pattern is checked first: storage is never asked about such an id."""
    with TestClient(create_app(database=db), raise_server_exceptions=False) as client:
        asked: list[str] = []
        real = tables.get_table

        def spying(database: Database, table_id: str) -> Any:
            asked.append(table_id)
            return real(database, table_id)

        monkeypatch.setattr(tables, "get_table", spying)
        documented(client.get("/api/tables/ab%00cd"), 404, "not_found")
        with client.websocket_connect("/ws/tables/ab%00cd") as ws:
            ws.receive_text()
        assert asked == []
        documented(client.get("/api/tables/0123456789ab"), 404, "not_found")
        assert asked == ["0123456789ab"]  # a well-formed id is looked up as before


def test_a_real_table_id_still_works(db: Database) -> None:
    with TestClient(create_app(database=db)) as client:
        table_id = client.post("/api/tables", json=TWO_HUMANS).json()["id"]
        assert client.get(f"/api/tables/{table_id}").json()["id"] == table_id
        joined = client.post(f"/api/tables/{table_id}/join", json={"seat": 0, "name": "Ann"})
        assert joined.status_code == 200


# --- bodies over the limit --------------------------------------------------------------------


def test_a_body_over_the_limit_is_refused(db: Database) -> None:
    with TestClient(create_app(database=db)) as client:
        for path in ("/api/tables", "/api/tables/0123456789ab/join"):
            big = b" " * (MAX_BODY_BYTES + 1)
            response = client.post(path, content=big, headers={"content-type": "application/json"})
            documented(response, 413, "too_large")

            def chunks() -> Any:
                yield b'{"game": "martian", "x": "'
                for _ in range(MAX_BODY_BYTES // 1024 + 1):
                    yield b"x" * 1024
                yield b'"}'

            documented(client.post(path, content=chunks()), 413, "too_large")
        at_limit = json.dumps(TWO_HUMANS).ljust(MAX_BODY_BYTES).encode()
        response = client.post(
            "/api/tables", content=at_limit, headers={"content-type": "application/json"}
        )
        assert response.status_code == 201, response.text


def run_limited(declared: int | None, chunks: int) -> tuple[list[Message], int]:
    """BodyLimit around an app that reads the whole body: what it sent, chunks pulled."""
    pulled = 0

    async def receive() -> Message:
        nonlocal pulled
        pulled += 1
        return {"type": "http.request", "body": b"x" * 1024, "more_body": pulled < chunks}

    async def reader(scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import Request
        from starlette.responses import Response

        await Request(scope, receive).body()
        await Response("read")(scope, receive, send)

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    headers = [(b"content-length", str(declared).encode())] if declared is not None else []
    scope = {"type": "http", "method": "POST", "path": "/", "headers": headers}
    asyncio.run(BodyLimit(reader, limit=10 * 1024)(scope, receive, send))
    return sent, pulled


def test_the_limit_stops_reading_a_chunked_body() -> None:
    sent, pulled = run_limited(None, chunks=10_000)
    assert sent[0]["status"] == 413 and pulled == 11  # the chunk that passed 10 KiB, no more
    assert json.loads(sent[1]["body"])["error"] == "too_large"
    sent, pulled = run_limited(16 << 20, chunks=10_000)
    assert sent[0]["status"] == 413 and pulled == 0  # a declared length: nothing read at all
    sent, pulled = run_limited(None, chunks=10)
    assert sent[0]["status"] == 200 and pulled == 10


def test_a_real_server_answers_a_large_declared_body_before_it_is_sent(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'big.db'}", tmp_path)
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(
                b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 16777216\r\n\r\n"
            )  # and not one byte of the 16 MiB
            received = b""
            while chunk := sock.recv(65536):  # the server closes the connection after it
                received += chunk
            answer = received.decode()
        assert answer.startswith("HTTP/1.1 413"), answer
        assert '"error":"too_large"' in answer
    finally:
        server.stop()


# --- names and seeds --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "A\x00nn",
        "Ann\x07",
        "\u202eevil",
        "x\u2066y",
        "tab\there",
        "\ue000",
        "\u0378",
        "   ",
        "",
        "x" * (MAX_NAME + 1),
        " " + "é" * (MAX_NAME + 1),
    ],
)
def test_bad_names_are_refused_with_a_field(db: Database, name: str) -> None:
    with TestClient(create_app(database=db)) as client:
        table_id = client.post("/api/tables", json=TWO_HUMANS).json()["id"]
        response = client.post(f"/api/tables/{table_id}/join", json={"seat": 0, "name": name})
        assert documented(response, 422, "bad_request")["field"] == "name"
        assert client.get(f"/api/tables/{table_id}").json()["seats"][0]["name"] is None


def test_a_lone_surrogate_is_refused(db: Database) -> None:
    with TestClient(create_app(database=db)) as client:
        table_id = client.post("/api/tables", json=TWO_HUMANS).json()["id"]
        body = b'{"seat": 0, "name": "a\\ud800"}'
        headers = {"content-type": "application/json"}
        response = client.post(f"/api/tables/{table_id}/join", content=body, headers=headers)
        assert documented(response, 422, "bad_request")["field"] == "name"


def test_names_are_normalised_and_stripped(db: Database) -> None:
    decomposed = "e\u0301" * MAX_NAME  # twice the limit in code points, the limit once NFC
    with TestClient(create_app(database=db)) as client:
        table_id = client.post("/api/tables", json=TWO_HUMANS).json()["id"]
        for seat, name in ((0, "  Zoë \u3000"), (1, f" {decomposed} ")):
            response = client.post(
                f"/api/tables/{table_id}/join", json={"seat": seat, "name": name}
            )
            assert response.status_code == 200, response.text
        names = [seat["name"] for seat in client.get(f"/api/tables/{table_id}").json()["seats"]]
        assert names == ["Zoë", "é" * MAX_NAME]
        assert names[1] == unicodedata.normalize("NFC", decomposed)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    st.text(max_size=45)
    | st.text(st.characters(codec="ascii"), max_size=45)
    | st.text(st.sampled_from(" \xa0\u2028\u3000\t\x07\u202e\u2067\ue000ae\u0301"), max_size=45)
)
def test_the_documented_name_pattern_is_the_rule(name: str) -> None:
    """What the OpenAPI document says of a name is what the server does, wherever a pattern
    can say it (assigned code points below the private-use planes 15 and 16, which NFC
    leaves as they are)."""
    assume(all(unicodedata.category(char) != "Cn" and char < "\U000f0000" for char in name))
    assume(unicodedata.normalize("NFC", name) == name)
    try:
        JoinTable(seat=0, name=name)
        accepted = True
    except ValueError:
        accepted = False
    assert (re.match(NAME_PATTERN, name) is not None) == accepted


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(st.characters(codec="ascii"), max_size=70) | st.text(max_size=5))
def test_the_documented_seed_pattern_is_the_rule(seed: str) -> None:
    try:
        JoinTable(seat=0, name="Ann", seed=seed)
        accepted = True
    except ValueError:
        accepted = False
    assert (re.match(SEED_PATTERN, seed) is not None) == accepted


@pytest.mark.parametrize("seed", ["a\x00b", "dé", "x" * 65, "  ", "tab\t"])
def test_bad_seeds_are_refused_with_a_field(db: Database, seed: str) -> None:
    with TestClient(create_app(database=db)) as client:
        table_id = client.post("/api/tables", json=TWO_HUMANS).json()["id"]
        join = {"seat": 0, "name": "Ann", "seed": seed}
        response = client.post(f"/api/tables/{table_id}/join", json=join)
        assert documented(response, 422, "bad_request")["field"] == "seed"


def test_a_seat_may_be_an_integral_float_as_json_allows() -> None:
    assert JoinTable.model_validate({"seat": 1.0, "name": "Ann"}).seat == 1
    with pytest.raises(ValueError, match="seat"):
        JoinTable.model_validate({"seat": 1.5, "name": "Ann"})
    with pytest.raises(ValueError, match="seat"):
        JoinTable.model_validate({"seat": True, "name": "Ann"})


# --- the framework's errors in the documented form --------------------------------------------


def test_framework_errors_take_the_documented_form(db: Database) -> None:
    with TestClient(create_app(database=db)) as client:
        json_type = {"content-type": "application/json"}
        bad_utf8 = client.post("/api/tables", content=b'{"game": "\xff"}', headers=json_type)
        assert "UTF-8" in documented(bad_utf8, 400, "bad_request")["message"]
        deep = client.post("/api/tables", content=b"[" * 50_000, headers=json_type)
        assert "deep" in documented(deep, 400, "bad_request")["message"]
        broken = documented(
            client.post("/api/tables", content=b"{", headers=json_type), 422, "bad_request"
        )
        assert "field" not in broken  # a character offset is no field
        documented(client.get("/api/nothing/here"), 404, "not_found")
        for method, path, allow in (
            ("PUT", "/api/tables", "GET, POST"),
            ("DELETE", "/api/tables/0123456789ab", "GET"),
            ("PATCH", "/api/tables/0123456789ab/join", "POST"),
            ("OPTIONS", "/api/tables/0123456789ab/leave", "POST"),
        ):
            response = client.request(method, path)
            documented(response, 405, "method_not_allowed")
            assert response.headers["allow"] == allow
        head = client.head("/healthz")  # FastAPI serves no HEAD: not advertised either
        assert (head.status_code, head.headers["allow"]) == (405, "GET")


# --- the OpenAPI document ---------------------------------------------------------------------


def test_openapi_declares_every_error_with_its_schema(db: Database) -> None:
    with TestClient(create_app(database=db)) as client:
        document = client.get("/openapi.json").json()
    error_ref = {"$ref": "#/components/schemas/ErrorBody"}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            statuses = set(operation["responses"])
            for status, response in operation["responses"].items():
                if status.startswith("4"):
                    assert response["content"] == {"application/json": {"schema": error_ref}}, (
                        method,
                        path,
                        status,
                    )
            if "{table_id}" in path:
                assert "404" in statuses, (method, path)
                (param,) = operation["parameters"]
                assert param["schema"]["pattern"] == TABLE_ID_PATTERN
            if "requestBody" in operation:
                assert {"413", "422"} <= statuses, (method, path)
    assert {"403", "409"} <= set(
        document["paths"]["/api/tables/{table_id}/leave"]["post"]["responses"]
    )
    metrics = document["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
    assert list(metrics) == [CONTENT_TYPE_LATEST]
    assert re.match(r"text/plain; version=\d", CONTENT_TYPE_LATEST)
