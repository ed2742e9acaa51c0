"""``marsdice serve``: the online server (``docs/server.md``) on uvicorn.

The web stack (FastAPI, SQLAlchemy, Alembic, uvicorn) comes with the ``web`` extra and is
imported only when the command runs, so ``marsdice --help`` stays light.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import gc
import os
import signal
import sys
from typing import TYPE_CHECKING, Any, Final

from marsdice.cli.args import int_range, non_negative_float, positive_float
from marsdice.core.errors import MarsDiceError

#: ``--ws-deflate``'s choices, the default first (as ``marsdice.web.transport.DEFLATE_MODES``,
#: which imports the web extra)
DEFLATE_MODES: Final = ("message", "context", "off")

if TYPE_CHECKING:
    from marsdice.storage.db import Database
    from marsdice.web.workers import SolvePool

LOG_LEVELS: Final = ("critical", "error", "warning", "info", "debug")
#: frames above this are refused by uvicorn itself; the protocol's own limit (4 KiB) answers
#: smaller oversized messages with an error
WS_MAX_BYTES: Final = 64 * 1024
#: seconds between the server's WebSocket pings: under the 60 s a proxy commonly lets a
#: silent connection live (nginx's ``proxy_read_timeout``), and each ping costs the server a
#: little CPU per connection (``docs/deploy.md``, idle tables)
WS_PING_SECONDS: Final = 50.0
#: the collector's thresholds (generation 0, 1, 2) while serving (see :func:`tune_collector`)
GC_THRESHOLDS: Final = (20_000, 20, 100)


class WebExtraMissing(MarsDiceError):
    exit_code = 2


class ServerStartFailed(MarsDiceError):
    """uvicorn could not start: the port is taken or the address is not this machine's."""

    exit_code = 2


class BadStandIn(MarsDiceError):
    exit_code = 2


class RedisUnavailable(MarsDiceError):
    """The Redis URL is malformed, or Redis does not answer."""

    exit_code = 2


class BadSolveSetting(MarsDiceError):
    """A ``MARSDICE_SOLVE_*`` or ``MARSDICE_MAX_SOLVE`` value that is not a number."""

    exit_code = 2


class DatabaseUnavailable(MarsDiceError):
    """The database URL is malformed, or the database cannot be reached or migrated."""

    exit_code = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int_range(1, 65535), default=8000, help="TCP port")
    parser.add_argument(
        "--database-url",
        metavar="URL",
        default=None,
        help="SQLAlchemy URL (sqlite:///FILE or postgresql+psycopg://USER@HOST/DB); default "
        "$MARSDICE_DATABASE_URL, else a SQLite file in the user data directory",
    )
    parser.add_argument(
        "--redis-url",
        metavar="URL",
        default=None,
        help="Redis (redis://HOST:6379/0) shared by several server processes on one PostgreSQL "
        "database (docs/deploy.md); default $MARSDICE_REDIS_URL, else this process serves "
        "the database alone",
    )
    parser.add_argument(
        "--lease-seconds",
        type=positive_float,
        default=5.0,
        metavar="SECONDS",
        help="with Redis: how long a table's server-side work stays with a process that "
        "stopped answering before another one takes it over",
    )
    parser.add_argument("--log-level", choices=LOG_LEVELS, default="info", help="log detail")
    parser.add_argument(
        "--log-format",
        choices=("text", "json"),
        default="text",
        help="one line per event: text for a person, json (one object per line, with fields "
        "such as table, seq and actor) for a log pipeline",
    )
    parser.add_argument(
        "--bot-delay",
        type=non_negative_float,
        default=0.5,
        metavar="SECONDS",
        help="how long a bot at a table 'thinks' before each move",
    )
    parser.add_argument(
        "--absence-timeout",
        type=non_negative_float,
        default=60.0,
        metavar="SECONDS",
        help="how long a seated person may be disconnected before a bot plays for them "
        "(they take the seat back by reconnecting); 0: never",
    )
    parser.add_argument(
        "--ws-ping",
        type=non_negative_float,
        default=WS_PING_SECONDS,
        metavar="SECONDS",
        help="seconds between the server's keep-alive pings on each WebSocket (a connection "
        "that does not answer within 20 s is closed); 0: no pings",
    )
    parser.add_argument(
        "--ws-deflate",
        choices=DEFLATE_MODES,
        default=DEFLATE_MODES[0],
        help="WebSocket compression (permessage-deflate, when the client offers it): message "
        "compresses each message on its own and keeps nothing between messages (the "
        "default), context keeps a 1 KiB window between them (fewer bytes on the wire, about "
        "20 KB more memory per connection), off sends messages as they are",
    )
    parser.add_argument(
        "--stand-in",
        default=None,
        metavar="BOT",
        help="the bot that plays an absent person's seat, in every game that has it (else, and "
        "by default, the game's default opponent)",
    )
    solves = parser.add_argument_group(
        "solve pool",
        "worker processes for the expensive work: advice and the fool check, solving bots, "
        "reviews (docs/server.md); each default is its environment variable, else the one named",
    )
    solves.add_argument(
        "--solve-workers",
        type=int_range(1, 256),
        default=None,
        metavar="N",
        help="worker processes (solves at once); default $MARSDICE_SOLVE_WORKERS, else half "
        "the cores (at least 1)",
    )
    solves.add_argument(
        "--solve-queue",
        type=int_range(1, 100_000),
        default=None,
        metavar="N",
        help="solves waiting for a worker, at most: beyond, they are refused (bots play their "
        "game's fast bot, advice is missing); default $MARSDICE_SOLVE_QUEUE, else 8",
    )
    solves.add_argument(
        "--solve-per-client",
        type=int_range(1, 100_000),
        default=None,
        metavar="N",
        help="solves of the tables one client address created (and its reviews), waiting or "
        "running, at most; default $MARSDICE_SOLVE_PER_CLIENT, else 2",
    )
    solves.add_argument(
        "--max-solve",
        type=int_range(0, 10**15),
        default=None,
        metavar="SIZE",
        help="the largest solve a table may ask for, in the game's own measure (Martian Dice: "
        "target^players x dice, 8125 for the rulebook's two players); a table over it plays "
        "without advice and its bots play the fast bot; default $MARSDICE_MAX_SOLVE, else "
        "0: no cap",
    )
    parser.add_argument(
        "--tables-per-minute",
        type=int_range(0, 1_000_000),
        default=None,
        metavar="N",
        help="tables one client address may create a minute on average, as many at once "
        "(more: 429 rate_limited); 0: no limit; default 60",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web page origin (https://games.example) allowed to open WebSockets besides "
        "the server's own; repeat for more, * for any",
    )


def tune_collector() -> None:
    """Python's cyclic garbage collector for a long-running server: what is loaded at the
    start is frozen (never scanned again), and the young generation is collected after
    :data:`GC_THRESHOLDS` allocations instead of 700. A game's objects are freed by their
    reference counts; at CPython's default a server with a thousand running tables spent a
    tenth of its CPU in the collector and paused up to 0.2 s in a full collection (at these
    thresholds: about a third of that CPU, pauses under 0.1 s; docs/server.md#capacity)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from marsdice.web.app import claim_database, create_app
        from marsdice.web.cluster import REDIS_ENV
        from marsdice.web.transport import protocol_class
    except ImportError as error:
        raise WebExtraMissing(
            f"marsdice serve needs the web extra ({error.name} is missing): "
            "pip install 'marsdice[web]'"
        ) from None
    from marsdice.web.logs import configure_logging

    check_stand_in(args.stand_in)
    if hasattr(signal, "SIGUSR1"):  # `kill -USR1 PID`: every thread's stack to stderr
        with contextlib.suppress(ValueError, OSError, AttributeError):  # no real stderr
            if sys.__stderr__ is not None:
                faulthandler.register(signal.SIGUSR1, file=sys.__stderr__, all_threads=True)
    configure_logging(args.log_level, args.log_format)
    database = open_database(args.database_url)
    redis_url = args.redis_url or os.environ.get(REDIS_ENV, "").strip() or None
    if redis_url is not None:
        check_redis(redis_url)
    pool = solve_pool(args)
    claim = claim_database(database, redis_url)
    app = create_app(
        database=database,
        claim=claim,
        redis_url=redis_url,
        lease_seconds=args.lease_seconds,
        bot_delay=args.bot_delay,
        absence_timeout=args.absence_timeout or None,
        stand_in=args.stand_in,
        allowed_origins=args.allow_origin,
        announce=(args.host, args.port),
        solve_pool=pool,
        **({} if args.tables_per_minute is None else {"tables_per_minute": args.tables_per_minute}),
    )
    tune_collector()
    try:
        uvicorn.run(
            app,
            ws=protocol_class(args.ws_deflate),
            ws_per_message_deflate=args.ws_deflate != "off",
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            log_config=None,  # configured above, without closing others' handlers
            ws_max_size=WS_MAX_BYTES,
            ws_ping_interval=args.ws_ping or None,
            ws_ping_timeout=20.0,
            server_header=False,
            timeout_graceful_shutdown=10,
        )
    except SystemExit as stop:  # uvicorn's start-up failure (the port taken, a bad address)
        if stop.code not in (0, None):
            raise ServerStartFailed(
                f"the server could not start on {args.host}:{args.port} (see above)"
            ) from None
    finally:
        claim.release()
    return 0


def solve_pool(args: argparse.Namespace) -> SolvePool:
    """The solve pool the options (over the environment) ask for; nothing starts yet."""
    from dataclasses import replace

    from marsdice.web.workers import PoolLimits, SolvePool

    try:
        limits = PoolLimits.from_environment()
    except ValueError as error:
        raise BadSolveSetting(str(error)) from None
    changes: dict[str, Any] = {}
    for option, field in (
        ("solve_workers", "workers"),
        ("solve_queue", "queue"),
        ("solve_per_client", "per_client"),
    ):
        if getattr(args, option) is not None:
            changes[field] = getattr(args, option)
    if args.max_solve is not None:
        changes["max_solve"] = args.max_solve or None
    try:
        return SolvePool(replace(limits, **changes))
    except ValueError as error:
        raise BadSolveSetting(str(error)) from None


def check_stand_in(name: str | None) -> None:
    """A stand-in must be a bot of some game (games without it use their default opponent)."""
    if name is None:
        return
    from marsdice.games import REGISTERED

    known = sorted({bot.name for entry in REGISTERED for bot in entry.bots})
    if name not in known:
        raise BadStandIn(f"--stand-in: unknown bot {name!r}; bots: {', '.join(known)}")


def check_redis(url: str) -> None:
    """Ping Redis before the server starts, so that a bad URL or a Redis that is down ends in
    one line (not a traceback from the server's start-up)."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        client.ping()
        client.close()
    except (redis.RedisError, OSError, ValueError) as error:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise RedisUnavailable(f"cannot use Redis at {url}: {reason}") from None


def open_database(url: str | None) -> Database:
    """Open and migrate the database before the server starts, so that a bad URL or a
    database that is down ends in one line (not a traceback from the server's start-up)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from marsdice.storage.db import Database

    shown = url or "the default SQLite file"
    try:
        if url is not None:
            shown = make_url(url).render_as_string(hide_password=True)
        database = Database(url)
        database.migrate()
    except (SQLAlchemyError, OSError, ValueError) as error:
        cause = getattr(error, "orig", None) or error
        reason = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
        raise DatabaseUnavailable(f"cannot use the database {shown}: {reason}") from None
    return database
