"""The database: an engine for SQLite (the embedded default, WAL mode) or PostgreSQL, brought
to the newest schema by Alembic."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

#: the database URL when none is given (``postgresql+psycopg://user@host/db``, ``sqlite:///…``)
DATABASE_ENV: Final = "MARSDICE_DATABASE_URL"
_MIGRATIONS: Final = Path(__file__).with_name("migrations")


def default_database_url() -> str:
    """``$MARSDICE_DATABASE_URL``, else a SQLite file in the user data directory."""
    url = os.environ.get(DATABASE_ENV, "").strip()
    if url:
        return url
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("marsdice", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'marsdice.sqlite3'}"


def make_engine(url: str, *, schema: str | None = None) -> Engine:
    """An engine for ``url``; ``schema`` (PostgreSQL only) sets the search path, so that test
    runs can each use a schema of their own."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            if ":memory:" not in url and url.rstrip("/") != "sqlite:":
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    connect_args: dict[str, Any] = {}
    if schema is not None:
        connect_args["options"] = f"-csearch_path={schema}"
    return create_engine(url, pool_pre_ping=True, connect_args=connect_args)


class Database:
    """An engine and its session factory."""

    def __init__(self, url: str | None = None, *, schema: str | None = None) -> None:
        self.url = url or default_database_url()
        self.engine = make_engine(self.url, schema=schema)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def session(self) -> Session:
        return self.sessions()

    def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision (idempotent)."""
        config = Config()
        config.set_main_option("script_location", str(_MIGRATIONS))
        with self.engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def dispose(self) -> None:
        self.engine.dispose()

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name
