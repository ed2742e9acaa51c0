"""``marsdice serve``: its options, and the real server in a subprocess on loopback, killed
with SIGKILL in the middle of a game and restarted: every acknowledged step is still there
and the game goes on (SQLite and PostgreSQL)."""

from __future__ import annotations

import argparse
import gc
import json
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from marsdice.cli import serve
from marsdice.cli.main import main
from marsdice.storage.db import Database
from marsdice.web.live import load_live
from marsdice.web.transport import (
    MESSAGE_WINDOW_BITS,
    WINDOW_BITS,
    LeanProtocol,
    protocol_class,
)
from serverproc import Server, play, receive


def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "0"]) == 2
    assert "--port" in capsys.readouterr().err
    assert main(["serve", "--log-level", "loud"]) == 2


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("postgresql+psycopg://nobody:secret@127.0.0.1:1/x", "Connection refused"),
        ("sqlite:////nonexistent-folder/x.db", "unable to open database file"),
        ("bogus://", "Can't load plugin"),
        ("not a url", "Could not parse"),
    ],
)
def test_an_unusable_database_is_one_line_before_the_server_starts(
    url: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--database-url", url, "--port", "8799"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "cannot use the database" in err and reason in err
    assert "secret" not in err  # a password in the URL is never printed


def test_a_taken_port_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        url = f"sqlite:///{tmp_path / 'taken.db'}"
        argv = ["serve", "--database-url", url, "--port", str(port), "--log-level", "critical"]
        code = main(argv)
    assert code == 2
    assert f"could not start on 127.0.0.1:{port}" in capsys.readouterr().err


def test_serve_hands_the_app_to_uvicorn(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import uvicorn

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: seen.update(app=app, **options))
    args = argparse.Namespace(
        host="127.0.0.1",
        port=8123,
        database_url=f"sqlite:///{tmp_path / 'x.sqlite3'}",
        log_level="warning",
        bot_delay=0.0,
        allow_origin=[],
        absence_timeout=0.0,
        stand_in="random",
        log_format="json",
        redis_url=None,
        lease_seconds=5.0,
        solve_workers=None,
        solve_queue=None,
        solve_per_client=None,
        max_solve=None,
        tables_per_minute=None,
        ws_ping=30.0,
        ws_deflate="message",
    )
    thresholds = gc.get_threshold()
    try:
        assert serve.run(args) == 0
        assert gc.get_threshold() == serve.GC_THRESHOLDS  # (tuned while serving)
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
    hub = seen["app"].state.hub
    assert (hub.absence_timeout, hub.stand_in) == (None, "random")  # 0: never
    assert (seen["host"], seen["port"], seen["log_level"]) == ("127.0.0.1", 8123, "warning")
    assert seen["ws_max_size"] == serve.WS_MAX_BYTES
    assert seen["ws"] is LeanProtocol and seen["ws_per_message_deflate"]
    assert (seen["ws_ping_interval"], seen["ws_ping_timeout"]) == (30.0, 20.0)
    args.ws_ping = 0.0  # no pings
    assert serve.run(args) == 0 and seen["ws_ping_interval"] is None
    args.ws_deflate = "off"
    assert serve.run(args) == 0 and not seen["ws_per_message_deflate"]
    assert seen["ws"] is protocol_class("off") and seen["ws"].deflate == "off"
    assert seen["app"].state.db.url.endswith("x.sqlite3")


def two_seat_table(server: Server) -> str:
    """A new Martian Dice table to 4 with two open human seats; its id."""
    created = httpx.post(
        f"{server.base}/api/tables",
        json={"game": "martian", "variant": {"target": 4}, "seats": [{"kind": "human"}] * 2},
    ).json()
    return str(created["id"])


def test_a_killed_server_loses_no_acknowledged_step(db: Database, tmp_path: Path) -> None:
    server = Server(db.url, tmp_path)
    try:
        table_id = two_seat_table(server)
        tokens = [
            httpx.post(
                f"{server.base}/api/tables/{table_id}/join", json={"seat": s, "name": f"P{s}"}
            ).json()["token"]
            for s in range(2)
        ]
        ws_url = f"ws://127.0.0.1:{server.port}/ws/tables/{table_id}"
        acknowledged = play(ws_url, tokens, stop=8)
    finally:
        server.kill()
    live = load_live(db, table_id)
    assert live is not None and live.version >= acknowledged
    server = Server(db.url, tmp_path)
    try:
        ws_url = f"ws://127.0.0.1:{server.port}/ws/tables/{table_id}"
        with connect(ws_url) as ws:
            ws.send(json.dumps({"type": "hello", "token": None}))
            state = receive(ws)
            assert state["version"] >= live.version
            assert state["log"][: live.version] == live.redacted_log(None)
        assert play(ws_url, tokens, stop=None) > acknowledged
        record = httpx.get(f"{server.base}/api/tables/{table_id}/record")
        assert record.status_code == 200 and "ServerSeed" in record.text
    finally:
        server.kill()


def test_json_logs_carry_the_facts_and_never_a_token(db: Database, tmp_path: Path) -> None:
    server = Server(db.url, tmp_path, "--log-level", "info", "--log-format", "json")
    try:
        created = httpx.post(
            f"{server.base}/api/tables",
            json={"game": "martian", "variant": {"target": 3}, "seats": [{"kind": "human"}] * 2},
        ).json()
        table_id = created["id"]
        tokens = [
            httpx.post(
                f"{server.base}/api/tables/{table_id}/join", json={"seat": s, "name": f"P{s}"}
            ).json()["token"]
            for s in range(2)
        ]
        play(f"ws://127.0.0.1:{server.port}/ws/tables/{table_id}", tokens, stop=None)
    finally:
        server.kill()
    text = server.log_path.read_text()
    plain = [line for line in text.splitlines() if line and not line.startswith("{")]
    assert plain == [f"marsdice: lobby at http://127.0.0.1:{server.port}/"]  # on stdout
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    steps = [line for line in lines if line.get("event") == "step"]
    assert [line["seq"] for line in steps] == list(range(len(steps))) and len(steps) > 3
    assert {line["table"] for line in steps} == {table_id}
    assert {line["actor"] for line in steps} == {"human", "chance"}
    assert any(line["logger"] == "uvicorn.access" for line in lines)  # uvicorn's lines too
    assert all(token not in text for token in tokens)


def test_an_unknown_stand_in_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--stand-in", "nobody"]) == 2
    assert "--stand-in: unknown bot 'nobody'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("url", "reason"),
    [("redis://127.0.0.1:1/0", "Connection refused"), ("nonsense://x", "scheme")],
)
def test_an_unusable_redis_is_one_line_before_the_server_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str, reason: str
) -> None:
    database = f"sqlite:///{tmp_path / 'r.sqlite3'}"
    assert main(["serve", "--database-url", database, "--redis-url", url]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot use Redis at" in err and reason in err, err


@pytest.mark.parametrize(
    ("options", "agreed"),
    [
        (
            (),
            [
                "permessage-deflate",
                "server_no_context_takeover",
                "client_no_context_takeover",
                f"server_max_window_bits={MESSAGE_WINDOW_BITS}",
                f"client_max_window_bits={WINDOW_BITS}",
            ],
        ),
        (
            ("--ws-deflate", "context"),
            [
                "permessage-deflate",
                f"server_max_window_bits={WINDOW_BITS}",
                f"client_max_window_bits={WINDOW_BITS}",
            ],
        ),
        (("--ws-deflate", "off"), []),
    ],
)
def test_websockets_compress_as_asked(
    db: Database, tmp_path: Path, options: tuple[str, ...], agreed: list[str]
) -> None:
    """permessage-deflate is negotiated per message by default (nothing kept between
    messages, so an idle connection holds no compressor), with a 1 KiB window kept both ways
    on request, or not at all; play works in each."""
    server = Server(db.url, tmp_path, *options)
    try:
        with connect(server.ws(two_seat_table(server))) as ws:
            header = ws.response.headers.get("Sec-WebSocket-Extensions", "") if ws.response else ""
            ws.send(json.dumps({"type": "hello", "token": None, "protocol": 3}))
            assert receive(ws)["type"] == "state"
            ws.send(json.dumps({"type": "ping"}))
            assert receive(ws)["type"] == "pong"  # a second message each way
    finally:
        server.kill()
    parameters = [part.strip() for part in header.split(";")] if header else []
    assert parameters == agreed
