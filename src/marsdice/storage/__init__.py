"""Persistence for online tables: SQLAlchemy 2 models, Alembic migrations and the
event-sourced step log, written and read back (``docs/server.md``). No game is kept in
memory here: a server rebuilds its own from the log and extends it with each step it stores.

The database, not process memory, is the authority for a game: a table row holds the setup
(game, variant, seats, the fair-dice seeds, the deal) and each step is one numbered row,
``(table_id, seq)`` unique, so that two writers can never both append the same step.
"""

from marsdice.storage.db import DATABASE_ENV, Database, default_database_url
from marsdice.storage.tables import (
    BadTokenError,
    NotFoundError,
    Seat,
    SeatSpec,
    StaleVersionError,
    StorageError,
    StoredStep,
    TableData,
)

__all__ = [
    "DATABASE_ENV",
    "BadTokenError",
    "Database",
    "NotFoundError",
    "Seat",
    "SeatSpec",
    "StaleVersionError",
    "StorageError",
    "StoredStep",
    "TableData",
    "default_database_url",
]
