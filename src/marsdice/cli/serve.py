"""``marsdice serve``: the online server (``docs/server.md``) on uvicorn.

The web stack (FastAPI, SQLAlchemy, Alembic, uvicorn) comes with the ``web`` extra and is
imported only when the command runs, so ``marsdice --help`` stays light.
"""

from __future__ import annotations

import argparse
import logging
from typing import Final

from marsdice.cli.args import int_range, non_negative_float
from marsdice.core.errors import MarsDiceError

LOG_LEVELS: Final = ("critical", "error", "warning", "info", "debug")
#: frames above this are refused by uvicorn itself; the protocol's own limit (4 KiB) answers
#: smaller oversized messages with an error
WS_MAX_BYTES: Final = 64 * 1024


class WebExtraMissing(MarsDiceError):
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
    parser.add_argument("--log-level", choices=LOG_LEVELS, default="info", help="log detail")
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
        "--stand-in",
        default=None,
        metavar="BOT",
        help="the bot that plays an absent person's seat (default: the game's default opponent)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web page origin (https://games.example) allowed to open WebSockets besides "
        "the server's own; repeat for more, * for any",
    )


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from marsdice.web.app import create_app
    except ImportError as error:
        raise WebExtraMissing(
            f"marsdice serve needs the web extra ({error.name} is missing): "
            "pip install 'marsdice[web]'"
        ) from None
    logging.basicConfig(
        level=args.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    app = create_app(args.database_url, bot_delay=args.bot_delay, allowed_origins=args.allow_origin)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws_max_size=WS_MAX_BYTES,
        server_header=False,
    )
    return 0
