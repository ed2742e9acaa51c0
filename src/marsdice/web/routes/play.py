"""The play WebSocket (``docs/protocol.md``): one connection per viewer, its origin checked,
its messages rate-limited, parsed and handed to the hub; every failure answered with an
``error`` message to that connection alone.

:func:`play_socket` is a plain ASGI application that ``create_app``'s application calls
before any middleware or router: a connection lives for hours, and each layer of the stack
(Starlette's and FastAPI's middleware, the router, the dependencies' exit stacks) would keep
a frame and its objects in the connection's task all that time, about 13 KB a connection
(``docs/deploy.md``, idle tables). None of those layers does anything for a WebSocket that
this route does not do itself (it answers every failure)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Sequence
from typing import Any, Final
from urllib.parse import urlsplit

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from starlette.routing import compile_path
from starlette.types import Receive, Scope, Send

from marsdice.storage import accounts
from marsdice.storage.db import Database
from marsdice.storage.tables import NotFoundError
from marsdice.web.deps import NO_SUCH_TABLE, PlayLimits, is_table_id
from marsdice.web.guard import SESSION_COOKIE
from marsdice.web.hub import Client, Hub, ProtocolError
from marsdice.web.schemas import (
    CLIENT_MESSAGE,
    MAX_MESSAGE_BYTES,
    ActionMessage,
    ErrorMessage,
    Hello,
    Pong,
    Sync,
)

log: Final = logging.getLogger("marsdice.web")
#: messages dropped for the rate limit in a row before the connection is closed (code 1008)
FLOOD_LIMIT: Final = 100

#: the play WebSocket's path, matched as Starlette's router would match it (the id is any
#: one segment; :func:`play` tells a table's from others)
PLAY_PATH: Final = compile_path("/ws/tables/{table_id}")[0]


def play_table(scope: Scope) -> str | None:
    """The table id of a play WebSocket's scope; None for any other scope."""
    if scope["type"] != "websocket":
        return None
    found = PLAY_PATH.match(_route_path(scope))
    return None if found is None else found.group("table_id")


def _route_path(scope: Scope) -> str:
    """The path the router matches: the scope's path below its ``root_path`` (ASGI: the
    prefix a proxy mounts the application under), as Starlette's router reads it."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root) and (path == root or path[len(root)] == "/"):
        return path[len(root) :]
    return path


async def play_socket(scope: Scope, receive: Receive, send: Send, table_id: str) -> None:
    """The play WebSocket as an ASGI application (``scope["app"]`` is the application,
    whose ``state`` holds the process's objects: ``deps.install``)."""
    state = scope["app"].state
    await play(WebSocket(scope, receive, send), table_id, state.db, state.hub, state.play_limits)


async def play(
    websocket: WebSocket, table_id: str, db: Database, hub: Hub, limits: PlayLimits
) -> None:
    origin = websocket.headers.get("origin")
    if not _origin_allowed(origin, websocket.headers.get("host"), limits.allowed_origins):
        log.warning("refused a WebSocket from origin %r", origin)
        await websocket.close(code=4403)
        return
    await websocket.accept()
    # a signed-in browser's seat is its account's: hello without a token takes it
    session_id = websocket.cookies.get(SESSION_COOKIE)
    # nothing reads the handshake's headers past the origin check: emptied rather than kept
    # for the connection's life (about a kilobyte; Starlette's ``headers`` is this list too)
    if isinstance(headers := websocket.scope.get("headers"), list):
        headers.clear()
    try:
        if not is_table_id(table_id):  # checked before any database call (docs/protocol.md)
            raise NotFoundError(NO_SUCH_TABLE)
        await hub.seated_table(table_id)
    except NotFoundError as error:
        await websocket.send_text(
            ErrorMessage(code="not_found", message=str(error)).model_dump_json()
        )
        await websocket.close(code=4404)
        return
    client = Client(table_id, websocket.send_text)
    bucket = _Bucket(limits.rate, limits.burst)
    refused = 0  # messages dropped in a row
    hub.attach(client)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            try:
                if not bucket.take():
                    refused += 1
                    if refused > FLOOD_LIMIT:  # a client that never slows down
                        log.warning(
                            "table %s: a flooding connection was closed",
                            table_id,
                            extra={"event": "flood", "table": table_id},
                        )
                        await websocket.close(code=1008)
                        return
                    raise ProtocolError("rate_limited", "too many messages: slow down")
                refused = 0
                if await _handle(db, hub, client, message, session_id):
                    bucket.refund()
            except ProtocolError as error:
                await websocket.send_text(
                    ErrorMessage(
                        code=error.code, message=error.message, version=error.version
                    ).model_dump_json()
                )
    except WebSocketDisconnect:
        return
    except Exception:  # logged here; the client learns nothing of it
        log.exception("table %s: a connection failed", table_id)
        with contextlib.suppress(Exception):
            await websocket.send_text(
                ErrorMessage(code="internal", message="internal error").model_dump_json()
            )
            await websocket.close(code=1011)
    finally:
        await hub.detach(client)


def _origin_allowed(origin: str | None, host: str | None, allowed: Sequence[str]) -> bool:
    if origin is None or "*" in allowed or origin in allowed:
        return True
    return host is not None and urlsplit(origin).netloc == host


class _Bucket:
    """A token bucket: ``rate`` a second, at most ``burst`` saved up."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def refund(self) -> None:
        self.tokens = min(self.burst, self.tokens + 1)


async def _handle(
    db: Database, hub: Hub, client: Client, message: Any, session_id: str | None = None
) -> bool:
    """Answer one client message; True when it was an action the game accepted."""
    text = message.get("text")
    if text is None:
        raise ProtocolError("bad_message", "send JSON text frames, not binary ones")
    if len(text.encode()) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise ProtocolError("bad_json", "the message is not valid JSON") from None
    try:
        parsed = CLIENT_MESSAGE.validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        raise ProtocolError("bad_message", f"{where}: {first['msg']}") from None
    if isinstance(parsed, Hello):
        await _hello(db, hub, client, parsed, session_id)
    elif isinstance(parsed, ActionMessage):
        if not client.greeted:
            raise ProtocolError("no_hello", "say hello first")
        if client.seat is None:
            raise ProtocolError("not_seated", "spectators cannot act: join a seat")
        await hub.act(client.table_id, client.seat, parsed.version, parsed.action)
        return True
    elif isinstance(parsed, Sync):
        if not client.greeted:
            raise ProtocolError("no_hello", "say hello first")
        await hub.sync(client, parsed.version)
    else:
        # protocol 2: the version the connection was last sent, so that a client that lost
        # the last step (nothing came after it) sees the gap
        pong = Pong(version=client.version) if client.protocol >= 2 else Pong()
        await client.send(pong.model_dump_json(exclude_none=True))
    return False


async def _hello(
    db: Database, hub: Hub, client: Client, hello: Hello, session_id: str | None = None
) -> None:
    """Seat the connection: by the token, or (none given) by the account the browser is
    signed in to, if it holds a seat here; else it watches."""
    seat: int | None = None
    if hello.token is not None:
        table = await hub.seated_table(client.table_id)
        seat = table.seat_of(hello.token)
        if seat is None:
            raise ProtocolError("bad_token", "that token holds no seat at this table")
    elif session_id:
        user = await asyncio.to_thread(accounts.session_user, db, session_id)
        if user is not None:
            table = await hub.seated_table(client.table_id)
            seat = next((i for i, s in enumerate(table.seats) if s.user_id == user.id), None)
    client.chat = False
    if hello.chat:
        await hub.reads_chat(client)
    client.presence = hello.presence
    await hub.greet(client, seat, hello.protocol)
