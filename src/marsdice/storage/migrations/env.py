"""Alembic environment: run on the connection ``Database.migrate`` hands over."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from marsdice.storage.models import Base


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = context.config.attributes.get("connection")
    if isinstance(connection, Connection):
        _run(connection)
        return
    url = context.config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database: set sqlalchemy.url or pass a connection")
    engine = create_engine(url)
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()


def _in_a_migration() -> bool:
    """False when imported outside a migration run (pytest's doctest collection)."""
    try:
        context.config  # noqa: B018
    except AttributeError:
        return False
    return True


if _in_a_migration():
    run_migrations_online()
