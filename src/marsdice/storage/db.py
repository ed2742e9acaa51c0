"""The database: an engine for SQLite (the embedded default, WAL mode) or PostgreSQL, brought
to the newest schema by Alembic."""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session, sessionmaker

if TYPE_CHECKING:
    from filelock import FileLock

#: the database URL when none is given (``postgresql+psycopg://user@host/db``, ``sqlite:///…``)
DATABASE_ENV: Final = "MARSDICE_DATABASE_URL"
_MIGRATIONS: Final = Path(__file__).with_name("migrations")
#: seconds a pooled PostgreSQL connection may sit unused before it is pinged on checkout
PING_AFTER_IDLE: Final = 2.0
_RETURNED_AT: Final = "marsdice_returned_at"
#: the execution option that marks a connection's transaction as a writer's (``BEGIN
#: IMMEDIATE`` on SQLite)
WRITE_OPTION: Final = "marsdice_write"


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
            # pysqlite's own transaction handling off (it would BEGIN only before the first
            # write, after the reads, so that two read-modify-writes interleave): the
            # "begin" listener below emits BEGIN itself (SQLAlchemy's documented recipe)
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            if ":memory:" not in url and url.rstrip("/") != "sqlite:":
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(connection: Connection) -> None:
            # a writer takes the write lock first (waiting its turn, up to the busy timeout),
            # so that what it read is still true when it writes; readers share the file
            # (on the driver's connection: a statement through SQLAlchemy costs more)
            writes = connection.get_execution_options().get(WRITE_OPTION, False)
            driver = connection.connection.dbapi_connection
            assert driver is not None
            driver.execute("BEGIN IMMEDIATE" if writes else "BEGIN")

        return engine
    engine = create_engine(url, connect_args=_server_connect_args(schema))

    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_connection: Any, record: Any) -> None:
        record.info[_RETURNED_AT] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        # a connection idle for a while may have been cut (a database restarted, a proxy's
        # timeout): ask it first, and let the pool replace it if it does not answer; one in
        # use a moment ago is not asked (a ping on every checkout is a round trip and a third
        # of the CPU of storing a step)
        if time.monotonic() - record.info.get(_RETURNED_AT, math.inf) < PING_AFTER_IDLE:
            return
        try:
            cursor = dbapi_connection.cursor()
            cursor.execute("select 1")
            cursor.close()
            dbapi_connection.rollback()
        except Exception as error:
            raise DisconnectionError("the database connection was cut") from error

    return engine


def _server_connect_args(schema: str | None) -> dict[str, Any]:
    """The driver's arguments beside the URL's (PostgreSQL): the schema's search path."""
    return {} if schema is None else {"options": f"-csearch_path={schema}"}


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
        self.schema = schema
        self.engine = make_engine(self.url, schema=schema)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._kept: Any = None
        self._kept_lock = threading.Lock()

    def session(self) -> Session:
        return self.sessions()

    @contextlib.contextmanager
    def writing(self) -> Iterator[Connection]:
        """A write transaction, committed at the end (rolled back on an error): serialised
        with every other writer on SQLite (``BEGIN IMMEDIATE``); on PostgreSQL an ordinary
        transaction whose writer locks the rows it reads (``SELECT … FOR UPDATE``)."""
        with self.engine.connect() as connection:
            connection.execution_options(**{WRITE_OPTION: True})
            with connection.begin():
                yield connection

    def reading(self) -> Connection:
        """A connection for reads (one snapshot until it is closed)."""
        return self.engine.connect()

    def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision (idempotent)."""
        config = Config()
        config.set_main_option("script_location", str(_MIGRATIONS))
        with self.engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    @contextlib.contextmanager
    def kept_connection(self) -> Iterator[Any]:
        """A pool connection (SQLAlchemy's wrapper of the driver's) for the steps' writes,
        kept checked out on SQLite: the pool's checkout and return cost more than storing a
        step in a local file. One caller at a time uses it; another, meanwhile, and every
        caller on PostgreSQL (where the pool's check of an idle connection finds one the
        server cut) gets one from the pool. The caller leaves no transaction open; a call
        that fails gives the kept connection back to the pool."""
        if not self.local or not self._kept_lock.acquire(blocking=False):
            raw = self.engine.raw_connection()
            try:
                yield raw
            finally:
                raw.close()
            return
        try:
            if self._kept is None:
                self._kept = self.engine.raw_connection()
            yield self._kept
        except BaseException:
            self._give_back()
            raise
        finally:
            self._kept_lock.release()

    def _give_back(self) -> None:
        kept, self._kept = self._kept, None
        if kept is not None:
            with contextlib.suppress(Exception):
                kept.close()

    def dispose(self) -> None:
        with self._kept_lock:
            self._give_back()
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

    def driver_arguments(self) -> dict[str, Any]:
        """What the driver's own ``connect`` takes to reach this database as the engine does
        (PostgreSQL: the same server, schema and type adapters), for a connection made
        outside the engine's pool (:mod:`marsdice.storage.commits`' asyncio one)."""
        args, kwargs = self.engine.dialect.create_connect_args(self.engine.url)
        if args:
            raise RuntimeError(f"the {self.dialect} driver's connect arguments are not named")
        return {**kwargs, **_server_connect_args(self.schema)}

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @property
    def local(self) -> bool:
        """Whether the database is a file of this machine (SQLite), which a call reaches in
        microseconds, rather than a server over the network."""
        return self.dialect == "sqlite"
