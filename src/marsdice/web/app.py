"""The FastAPI application: the REST lobby and the play WebSocket (``docs/protocol.md``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Final
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import ValidationError

from marsdice.core.errors import MarsDiceError, VariantError
from marsdice.games import all_games, registration
from marsdice.storage import tables
from marsdice.storage.db import Database, ServerClaim
from marsdice.storage.tables import NotFoundError, SeatSpec, StorageError
from marsdice.web.cluster import Cluster, RedisCluster
from marsdice.web.hub import Client, Hub, ProtocolError
from marsdice.web.metrics import Metrics
from marsdice.web.pages import add_pages, announce_lobby
from marsdice.web.schemas import (
    CLIENT_MESSAGE,
    MAX_MESSAGE_BYTES,
    ActionMessage,
    CreateTable,
    ErrorMessage,
    Hello,
    JoinedTable,
    JoinTable,
    LeaveTable,
    Pong,
)

log: Final = logging.getLogger("marsdice.web")
#: messages dropped for the rate limit in a row before the connection is closed (code 1008)
FLOOD_LIMIT: Final = 100
_FIELD: Final = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)")


def _error(status: int, code: str, message: str, field: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"error": code, "message": message}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status)


def create_app(
    database_url: str | None = None,
    *,
    database: Database | None = None,
    bot_delay: float = 0.5,
    absence_timeout: float | None = 60.0,
    stand_in: str | None = None,
    allowed_origins: Sequence[str] = (),
    rate: float = 20.0,
    burst: int = 40,
    redis_url: str | None = None,
    lease_seconds: float = 5.0,
    sweep_seconds: float = 1.0,
    claim: ServerClaim | None = None,
    announce: tuple[str, int] | None = None,
) -> FastAPI:
    """The server on ``database_url`` (default: ``$MARSDICE_DATABASE_URL`` or the SQLite
    file in the user data directory), its schema migrated at start-up.

    A WebSocket is accepted from a client that sends no ``Origin`` (not a browser), from the
    server's own origin, or from one of ``allowed_origins`` (``*``: any). Each connection
    may send ``rate`` messages a second on average, ``burst`` at once; more are answered
    ``rate_limited`` and dropped. An action the game accepts costs nothing (play is paced by
    the game itself), so a fast bot is never held back.

    With ``redis_url`` the process is one of several serving the same PostgreSQL database
    (``docs/deploy.md``); without it, it must be the database's only server. ``claim`` is
    that check already made (:func:`claim_database`); without one it is made at start-up.
    With ``announce`` (the host and port it listens on) the lobby's address is logged and
    printed on stdout once the server has started."""
    db = database if database is not None else Database(database_url)
    metrics = Metrics()
    cluster: Cluster = (
        RedisCluster(
            redis_url,
            lease_seconds=lease_seconds,
            sweep_seconds=sweep_seconds,
            running=lambda: asyncio.to_thread(tables.running_ids, db),
        )
        if redis_url
        else Cluster()
    )
    hub = Hub(
        db,
        bot_delay=bot_delay,
        absence_timeout=absence_timeout,
        stand_in=stand_in,
        cluster=cluster,
        metrics=metrics,
    )
    metrics.read(
        tables=lambda: tables.count_by_status(db),
        clients=hub.connections,
        cached=lambda: len(hub.cached_tables()),
        leases=lambda: len(cluster.held()),
        takeovers=lambda: cluster.takeovers,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(db.migrate)
        held = (
            claim if claim is not None else await asyncio.to_thread(claim_database, db, redis_url)
        )
        try:
            if isinstance(cluster, RedisCluster):
                cluster.use_namespace(await asyncio.to_thread(db.namespace))
            await cluster.start(hub, hub.local_seats)
            await hub.resume_all()
            log.info(
                "serving tables from a %s database%s",
                db.dialect,
                " with Redis" if cluster.distributed else "",
                extra={"event": "start", "server": cluster.process_id},
            )
            if announce is not None:
                announce_lobby(*announce)
            yield
        finally:
            await hub.close()
            await cluster.close()
            held.release()

    app = FastAPI(title="marsdice", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.hub = hub
    app.state.db = db

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {}
        where = [str(part) for part in first.get("loc", ()) if part != "body"]
        return _error(
            422,
            "bad_request",
            f"{'.'.join(where) or 'body'}: {first.get('msg', 'invalid')}",
            ".".join(where) or None,
        )

    @app.exception_handler(VariantError)
    async def _variant(_request: Request, error: VariantError) -> JSONResponse:
        found = _FIELD.match(str(error))
        return _error(422, "bad_variant", str(error), found.group(1) if found else None)

    @app.exception_handler(NotFoundError)
    async def _missing(_request: Request, error: NotFoundError) -> JSONResponse:
        return _error(404, "not_found", str(error))

    @app.exception_handler(StorageError)
    async def _conflict(_request: Request, error: StorageError) -> JSONResponse:
        code = "bad_token" if str(error).startswith("bad_token") else error.code
        return _error(409 if code != "bad_token" else 403, code, str(error))

    @app.exception_handler(ValueError)
    async def _bad_value(_request: Request, error: ValueError) -> JSONResponse:
        return _error(400, "bad_request", str(error))

    @app.exception_handler(Exception)
    async def _internal(_request: Request, error: Exception) -> JSONResponse:
        log.error("internal error: %s", type(error).__name__)
        return _error(500, "internal", "internal error")

    @app.get("/healthz")
    async def health() -> JSONResponse:
        """For a load balancer: 200 when this process can reach its database (and Redis),
        503 otherwise."""
        database_ok = await asyncio.to_thread(db.answers)
        redis_ok = await cluster.ping() if cluster.distributed else None
        ok = database_ok and redis_ok is not False
        body = {
            "status": "ok" if ok else "unavailable",
            "database": database_ok,
            "redis": redis_ok,
            "process": cluster.process_id,
        }
        return JSONResponse(body, status_code=200 if ok else 503)

    @app.get("/metrics")
    async def prometheus_metrics() -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        body = await asyncio.to_thread(generate_latest, metrics.registry)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    @app.get("/api/games")
    async def list_games() -> dict[str, Any]:
        return {
            "games": [
                {
                    "name": game.name,
                    "title": game.title,
                    "min_players": game.min_players,
                    "max_players": game.max_players,
                    "bots": [bot.name for bot in registration(game).bots],
                }
                for game in all_games()
            ]
        }

    @app.post("/api/tables", status_code=201)
    async def create_table(body: CreateTable) -> dict[str, Any]:
        seats = [SeatSpec(seat.kind, seat.bot) for seat in body.seats]
        table = await asyncio.to_thread(
            tables.create_table, db, body.game, body.variant, seats, body.options.model_dump()
        )
        if table.status == tables.RUNNING:
            hub.kick(table.id)
        return dict(table.public())

    @app.get("/api/tables")
    async def list_tables() -> dict[str, Any]:
        found = await asyncio.to_thread(tables.list_tables, db)
        return {"tables": [table.public() for table in found]}

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str) -> dict[str, Any]:
        table = await asyncio.to_thread(tables.get_table, db, table_id)
        return dict(table.public())

    @app.post("/api/tables/{table_id}/join")
    async def join_table(table_id: str, body: JoinTable) -> JoinedTable:
        table, token = await asyncio.to_thread(
            tables.join, db, table_id, body.seat, body.name, body.seed
        )
        await hub.refresh(table_id)
        if table.status == tables.RUNNING and await cluster.acquire(table_id):
            hub.kick(table_id)
            await hub.watch(table)
        return JoinedTable(table=dict(table.public()), seat=body.seat, token=token)

    @app.post("/api/tables/{table_id}/leave")
    async def leave_table(table_id: str, body: LeaveTable) -> dict[str, Any]:
        table = await asyncio.to_thread(tables.leave, db, table_id, body.token)
        await hub.refresh(table_id)
        if table.status == tables.RUNNING:
            hub.kick(table_id)
        return dict(table.public())

    @app.get("/api/tables/{table_id}/record", response_class=PlainTextResponse)
    async def table_record(table_id: str) -> str:
        return await asyncio.to_thread(tables.export_record, db, table_id)

    @app.get("/api/tables/{table_id}/replay")
    async def table_replay(table_id: str) -> dict[str, Any]:
        """Every step of a finished game with the view after it (for the replay page)."""
        return dict(await asyncio.to_thread(tables.replay, db, table_id))

    @app.get("/api/tables/{table_id}/verify")
    async def table_verify(table_id: str) -> dict[str, Any]:
        """The fair-dice check of the finished game's record, as ``marsdice verify``."""
        return await asyncio.to_thread(_verify, db, table_id)

    @app.get("/api/tables/{table_id}/review")
    async def table_review(table_id: str) -> dict[str, Any]:
        """The finished game's review (``docs/review.md``; may solve tables on first use)."""
        return await asyncio.to_thread(_review, db, table_id)

    add_pages(app)

    @app.websocket("/ws/tables/{table_id}")
    async def play(websocket: WebSocket, table_id: str) -> None:
        origin = websocket.headers.get("origin")
        if not _origin_allowed(origin, websocket.headers.get("host"), allowed_origins):
            log.warning("refused a WebSocket from origin %r", origin)
            await websocket.close(code=4403)
            return
        await websocket.accept()
        try:
            await asyncio.to_thread(tables.get_table, db, table_id)
        except NotFoundError as error:
            await websocket.send_text(
                ErrorMessage(code="not_found", message=str(error)).model_dump_json()
            )
            await websocket.close(code=4404)
            return
        client = Client(table_id, websocket.send_text)
        bucket = _Bucket(rate, burst)
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
                    if await _handle(hub, client, message):
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

    return app


class ClaimRefused(MarsDiceError):
    """Another server process uses the database in a way this one cannot share."""

    exit_code = 2


def claim_database(db: Database, redis_url: str | None) -> ServerClaim:
    """Make sure this process may serve ``db``: alone without Redis; with Redis, beside other
    processes that use Redis too (and only on PostgreSQL)."""
    if redis_url and db.dialect != "postgresql":
        raise ClaimRefused(
            f"several server processes need PostgreSQL, not {db.dialect}: "
            "set MARSDICE_DATABASE_URL to a postgresql+psycopg:// URL, or run one process "
            "without MARSDICE_REDIS_URL"
        )
    claim = db.claim(shared=bool(redis_url))
    if claim is None:
        if redis_url:
            raise ClaimRefused(
                "a marsdice server without Redis is using this database; stop it, or start "
                "it with MARSDICE_REDIS_URL too"
            )
        raise ClaimRefused(
            "another marsdice server is using this database; to run several processes on "
            "one database, give each MARSDICE_REDIS_URL (docs/deploy.md)"
        )
    return claim


def _verify(db: Database, table_id: str) -> dict[str, Any]:
    """Verify the record exactly as exported (a round trip through its text)."""
    from marsdice.fair import verify_record
    from marsdice.games import read_record

    _game, record = read_record(tables.export_record(db, table_id))
    verdict = verify_record(record)
    return {"fair": verdict.fair, "message": verdict.message}


def _review(db: Database, table_id: str) -> dict[str, Any]:
    from marsdice.review import review_game

    live = tables.finished_live(db, table_id)
    review = review_game(live.game, live.start, live.moves(), live.table.names)
    return dict(review.to_json())


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


async def _handle(hub: Hub, client: Client, message: Any) -> bool:
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
        await _hello(hub, client, parsed)
    elif isinstance(parsed, ActionMessage):
        if not client.greeted:
            raise ProtocolError("no_hello", "say hello first")
        if client.seat is None:
            raise ProtocolError("not_seated", "spectators cannot act: join a seat")
        await hub.act(client.table_id, client.seat, parsed.version, parsed.action)
        return True
    else:
        await client.send(Pong().model_dump_json())
    return False


async def _hello(hub: Hub, client: Client, hello: Hello) -> None:
    seat: int | None = None
    if hello.token is not None:
        table = await asyncio.to_thread(tables.get_table, hub.db, client.table_id)
        seat = table.seat_of(hello.token)
        if seat is None:
            raise ProtocolError("bad_token", "that token holds no seat at this table")
    await hub.greet(client, seat)
