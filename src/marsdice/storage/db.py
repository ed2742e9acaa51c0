"""The database: an engine for SQLite (the embedded default, WAL mode) or PostgreSQL, brought
to the newest schema by Alembic."""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker

if TYPE_CHECKING:
    from filelock import FileLock

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


class ServerClaim:
    """Who serves a database: a PostgreSQL advisory lock on a connection of its own (shared by
    processes that coordinate through Redis, exclusive for a process on its own), or a lock
    file beside a SQLite file. The operating system or PostgreSQL frees it when the process
    dies, so a crash never leaves a stale claim."""

    def __init__(self, db: Database, *, shared: bool) -> None:
        self.db = db
        self.shared = shared
        self._connection: Connection | None = None
        self._file: FileLock | None = None

    def take(self) -> bool:
        if self.db.dialect == "postgresql":
            connection = self.db.engine.connect()
            function = "pg_try_advisory_lock_shared" if self.shared else "pg_try_advisory_lock"
            key = "hashtext('marsdice-server:' || current_schema())"
            taken = bool(connection.scalar(text(f"select {function}({key})")))
            connection.commit()
            if not taken:
                connection.close()
                return False
            self._connection = connection
            return True
        database = self.db.engine.url.database
        if self.db.dialect != "sqlite" or not database or database == ":memory:":
            return True  # nothing another process could share
        from filelock import FileLock, Timeout

        lock = FileLock(f"{database}.server-lock")
        try:
            lock.acquire(timeout=0)
        except Timeout:
            return False
        self._file = lock
        return True

    def release(self) -> None:
        if self._connection is not None:
            # the pool would keep the session (and the lock) alive: unlock, then drop it
            with contextlib.suppress(Exception):
                self._connection.execute(text("select pg_advisory_unlock_all()"))
                self._connection.commit()
            self._connection.invalidate()
            self._connection.close()
            self._connection = None
        if self._file is not None:
            self._file.release()
            self._file = None


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

    def answers(self) -> bool:
        """Whether the database takes a query now (the health check)."""
        try:
            with self.engine.connect() as connection:
                connection.execute(text("select 1"))
        except Exception:
            return False
        return True

    def namespace(self) -> str:
        """A short name for this database (server, database, schema), the same in every
        process that uses it: the prefix of the Redis keys the processes share."""
        where = self.engine.url.set(password=None).render_as_string(hide_password=True)
        if self.dialect == "postgresql":
            with self.engine.connect() as connection:
                where += "/" + str(connection.scalar(text("select current_schema()")))
        return hashlib.sha256(where.encode()).hexdigest()[:12]

    def claim(self, *, shared: bool) -> ServerClaim | None:
        """Mark this database as served by this process: alone (``shared=False``: no other
        process may serve it) or among others that share it through Redis. None when the
        claim conflicts with a running server's."""
        claim = ServerClaim(self, shared=shared)
        return claim if claim.take() else None

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name
