"""Databases for tests: a fresh SQLite file, or a fresh schema on the PostgreSQL server named
by ``$MARSDICE_TEST_DATABASE_URL`` (dropped afterwards), so that runs never collide."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Final

from sqlalchemy import create_engine, text

from marsdice.storage.db import Database

TEST_DATABASE_ENV: Final = "MARSDICE_TEST_DATABASE_URL"


@cache
def postgres_unavailable() -> str | None:
    """Why the PostgreSQL tests cannot run here, or None when they can."""
    url = os.environ.get(TEST_DATABASE_ENV, "").strip()
    if not url:
        return f"PostgreSQL tests skipped: {TEST_DATABASE_ENV} is not set"
    try:
        engine = create_engine(url, connect_args={"connect_timeout": 3})
        with engine.connect() as connection:
            connection.execute(text("select 1"))
        engine.dispose()
    except Exception as error:
        return f"PostgreSQL tests skipped: {TEST_DATABASE_ENV} unreachable ({type(error).__name__})"
    return None


def schema_url(url: str, schema: str) -> str:
    """``url`` with the search path set to ``schema`` (for a server in another process)."""
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options=-csearch_path%3D{schema}"


@contextmanager
def temporary_database(kind: str, folder: Path) -> Iterator[Database]:
    """A migrated, empty database: ``sqlite`` (a file in ``folder``) or ``postgresql``."""
    if kind == "sqlite":
        db = Database(f"sqlite:///{folder / 'marsdice-test.sqlite3'}")
        db.migrate()
        try:
            yield db
        finally:
            db.dispose()
        return
    url = os.environ[TEST_DATABASE_ENV]
    schema = f"md_test_{secrets.token_hex(6)}"
    admin = create_engine(url)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    db = Database(url, schema=schema)
    db.url = schema_url(url, schema)
    try:
        db.migrate()
        yield db
    finally:
        db.dispose()
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
