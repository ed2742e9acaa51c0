"""What each WebSocket connection keeps: ``marsdice.web.transport``'s small inbox and flag
(for uvicorn's asyncio.Queue and asyncio.Event), and the play socket served before the
middleware and the router (``routes/play.py``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect
from uvicorn.config import Config
from uvicorn.server import ServerState

from marsdice.storage.testing import temporary_database
from marsdice.web.app import create_app
from marsdice.web.routes.play import play_table
from marsdice.web.transport import (
    DEFLATE_MODES,
    Deflate,
    LeanProtocol,
    _Flag,
    _Inbox,
    protocol_class,
)


def test_the_inbox_hands_out_in_order_and_wakes_a_waiting_getter() -> None:
    async def scenario() -> list[Any]:
        inbox = _Inbox()
        assert inbox.empty()
        waiting = asyncio.ensure_future(inbox.get())
        await asyncio.sleep(0)
        assert not waiting.done()
        inbox.put_nowait({"type": "websocket.connect"})
        inbox.put_nowait({"type": "websocket.receive", "text": "a"})
        got: list[Any] = [await waiting, await inbox.get()]
        assert inbox.empty() and inbox._waiters is None  # nothing kept once nobody waits
        return got

    assert asyncio.run(scenario()) == [
        {"type": "websocket.connect"},
        {"type": "websocket.receive", "text": "a"},
    ]


def test_a_cancelled_getter_leaves_nothing_behind_and_loses_nothing() -> None:
    async def scenario() -> None:
        inbox = _Inbox()
        first = asyncio.ensure_future(inbox.get())
        second = asyncio.ensure_future(inbox.get())
        await asyncio.sleep(0)
        first.cancel()
        await asyncio.sleep(0)
        inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
        assert await asyncio.wait_for(second, 1) == {"type": "websocket.disconnect", "code": 1000}
        assert first.cancelled() and inbox._waiters is None

    asyncio.run(scenario())


def test_two_getters_each_get_one_message() -> None:
    async def scenario() -> list[str]:
        inbox = _Inbox()
        getters = [asyncio.ensure_future(inbox.get()) for _ in range(2)]
        await asyncio.sleep(0)
        inbox.put_nowait({"type": "websocket.receive", "text": "1"})
        inbox.put_nowait({"type": "websocket.receive", "text": "2"})
        done: list[Any] = await asyncio.wait_for(asyncio.gather(*getters), 1)
        return sorted(message["text"] for message in done)

    assert asyncio.run(scenario()) == ["1", "2"]


def test_the_flag_starts_set_and_a_clear_holds_writers_until_set() -> None:
    async def scenario() -> None:
        flag = _Flag()
        assert flag.is_set()
        await asyncio.wait_for(flag.wait(), 1)  # set: no wait
        flag.clear()
        writers = [asyncio.ensure_future(flag.wait()) for _ in range(2)]
        await asyncio.sleep(0)
        assert not any(writer.done() for writer in writers)
        flag.set()
        await asyncio.wait_for(asyncio.gather(*writers), 1)
        assert flag._waiters is None

    asyncio.run(scenario())


@pytest.mark.parametrize("mode", DEFLATE_MODES)
def test_one_protocol_class_per_mode(mode: Deflate) -> None:
    made = protocol_class(mode)
    assert issubclass(made, LeanProtocol) and made.deflate == mode
    assert protocol_class(mode) is made


def test_the_play_socket_is_served_before_the_middleware(tmp_path: Path) -> None:
    """No middleware frame stays in a play connection's task; every other scope still
    goes through the stack (an unrouted WebSocket is refused there, as before)."""
    seen: list[tuple[str, str]] = []

    class Watch:
        def __init__(self, app: ASGIApp) -> None:
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            seen.append((scope["type"], scope.get("path", "")))
            await self.app(scope, receive, send)

    with temporary_database("sqlite", tmp_path) as db:
        app = create_app(database=db, bot_delay=0)
        app.add_middleware(Watch)
        with TestClient(app) as client:
            body = {"game": "martian", "seats": [{"kind": "human"}] * 2}
            table = client.post("/api/tables", json=body).json()["id"]
            with client.websocket_connect(f"/ws/tables/{table}") as ws:
                ws.send_json({"type": "hello", "token": None, "protocol": 3})
                assert ws.receive_json()["type"] == "state"
            with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws/elsewhere"):
                pass
    assert ("http", "/api/tables") in seen
    assert ("websocket", "/ws/elsewhere") in seen
    assert not any(path.startswith("/ws/tables/") for _kind, path in seen)


class _Wire(asyncio.Transport):
    """A transport that keeps what the protocol writes."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.closed = False

    def write(self, data: Any) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 5000)}.get(name)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


HANDSHAKE = (
    b"GET /ws/tables/0123456789ab HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
    b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    b"Sec-WebSocket-Version: 13\r\n"
    b"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
)


def test_the_handshake_is_let_go_once_the_connection_is_accepted() -> None:
    """uvicorn's request and response go, and the request websockets' parser keeps has no
    headers left; the answer names the per-message compression and play goes on."""

    async def scenario() -> tuple[Any, _Wire, Any]:
        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            assert (await receive())["type"] == "websocket.connect"
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": "hello " * 50})
            await receive()

        config = Config(app=app, ws=protocol_class("message"), lifespan="off")
        config.load()
        make: Any = config.ws_protocol_class
        protocol: Any = make(config=config, server_state=ServerState(), app_state={})
        wire = _Wire()
        protocol.connection_made(wire)
        protocol.data_received(HANDSHAKE)
        request = protocol.request
        for _ in range(5):
            await asyncio.sleep(0)
        left = (hasattr(protocol, "request"), hasattr(protocol, "response"))
        protocol.connection_lost(None)
        await asyncio.sleep(0)
        return left, wire, request

    left, wire, request = asyncio.run(scenario())
    assert left == (False, False)
    assert len(request.headers) == 0
    answer, _, frame = b"".join(wire.written).partition(b"\r\n\r\n")
    assert b"101 Switching Protocols" in answer
    assert b"server_no_context_takeover; client_no_context_takeover" in answer
    assert frame[0] == 0xC1 and frame[1] < 126  # a final text frame, compressed (RSV1)


def test_only_a_play_socket_path_goes_straight_to_play() -> None:
    """The play socket is matched as the router matches it, below a proxy's ``root_path``;
    any other scope goes through the whole stack."""
    ws = {"type": "websocket", "path": "/ws/tables/ab12cd34ef56", "root_path": ""}
    assert play_table(ws) == "ab12cd34ef56"
    assert play_table({**ws, "path": "/app/ws/tables/x", "root_path": "/app"}) == "x"
    assert play_table({**ws, "path": "/apple/ws/tables/x", "root_path": "/app"}) is None
    assert play_table({**ws, "path": "/ws/tables/x/y"}) is None
    assert play_table({**ws, "path": "/ws/tables/"}) is None
    assert play_table({**ws, "type": "http"}) is None
