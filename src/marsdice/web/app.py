"""The FastAPI application (``docs/protocol.md``): :func:`create_app` builds the process's
objects (database, cluster, hub, metrics), its start and stop, and includes the routers of
:mod:`marsdice.web.routes` (lobby, play, ops) and the page; errors are answered by
:mod:`marsdice.web.errors`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Final

from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from marsdice.core.errors import MarsDiceError
from marsdice.storage import results, tables
from marsdice.storage.db import Database, ServerClaim
from marsdice.web import deps
from marsdice.web.cluster import Cluster, RedisCluster
from marsdice.web.errors import BodyLimit, install_error_handlers
from marsdice.web.guard import SameOrigin
from marsdice.web.hub import Hub
from marsdice.web.metrics import Metrics
from marsdice.web.pages import add_pages, announce_lobby
from marsdice.web.routes import accounts, community, lobby, ops, play
from marsdice.web.workers import SolvePool

log: Final = logging.getLogger("marsdice.web")


#: tables one client address may create a minute on average (as many at once): a visitor
#: cannot fill the lobby and the database without end (``marsdice serve --tables-per-minute``)
TABLES_PER_MINUTE: Final = 60


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
    solve_pool: SolvePool | None = None,
    tables_per_minute: int = TABLES_PER_MINUTE,
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
    printed on stdout once the server has started. ``solve_pool`` runs the solves (default:
    one sized by ``$MARSDICE_SOLVE_*``, :mod:`marsdice.web.workers`). One client address may create
    ``tables_per_minute`` tables a minute on average, as many at once (0: no limit)."""
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
        pool=solve_pool,  # (None: one of $MARSDICE_SOLVE_*, docs/server.md; closed by hub.close)
    )
    metrics.read(
        tables=lambda: tables.count_by_status(db),
        clients=hub.connections,
        cached=lambda: len(hub.cached_tables()),
        leases=lambda: len(cluster.held()),
        takeovers=lambda: cluster.takeovers,
        commits=lambda: (hub.commits.commits, hub.commits.writes),
    )

    def lifespan(_app: FastAPI) -> AbstractAsyncContextManager[None]:
        return _serving(db, cluster, hub, claim, redis_url, announce)

    app = _App(title="marsdice", lifespan=lifespan, docs_url=None, redoc_url=None)
    deps.install(
        app,
        db=db,
        hub=hub,
        cluster=cluster,
        metrics=metrics,
        allowed_origins=allowed_origins,
        rate=rate,
        burst=burst,
    )
    app.state.tables_per_minute = tables_per_minute
    install_error_handlers(app)
    app.add_middleware(BodyLimit)  # a body over schemas.MAX_BODY_BYTES is never read
    # (added last, so first to run: a cross-site request is refused before its body is read)
    app.add_middleware(SameOrigin, allowed_origins=allowed_origins)
    app.include_router(ops.router)
    app.include_router(lobby.router)
    app.include_router(accounts.router)
    app.include_router(community.router)
    add_pages(app)
    return app


class _App(FastAPI):
    """FastAPI with the play WebSocket served before the middleware and the router
    (:mod:`marsdice.web.routes.play`: what each layer would keep per connection)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        table_id = play.play_table(scope)
        if table_id is None:
            await super().__call__(scope, receive, send)
            return
        scope["app"] = self
        await play.play_socket(scope, receive, send, table_id)


@asynccontextmanager
async def _serving(
    db: Database,
    cluster: Cluster,
    hub: Hub,
    claim: ServerClaim | None,
    redis_url: str | None,
    announce: tuple[str, int] | None,
) -> AsyncIterator[None]:
    """The process's life: migrate, claim the database, join the cluster and resume the
    running tables; on the way out, stop them in the reverse order."""
    await asyncio.to_thread(db.migrate)
    held = claim if claim is not None else await asyncio.to_thread(claim_database, db, redis_url)
    try:
        if isinstance(cluster, RedisCluster):
            cluster.use_namespace(await asyncio.to_thread(db.namespace))
        await cluster.start(hub, hub.local_seats)
        await hub.pool.start()
        await hub.resume_all()
        recorded = await asyncio.to_thread(results.record_all, db)  # (a stop before a result)
        if recorded:
            log.info("stored the results of %d finished tables", recorded)
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
