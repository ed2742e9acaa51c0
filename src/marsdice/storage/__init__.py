"""Persistence for online tables: SQLAlchemy 2 models, Alembic migrations, the event-sourced
step log and the rebuild of a table's game from it (``docs/server.md``).

The database, not process memory, is the authority for a game: a table row holds the setup
(game, variant, seats, the fair-dice seeds, the deal) and each step is one numbered row,
``(table_id, seq)`` unique, so that two writers can never both append the same step.
"""

from marsdice.storage.db import DATABASE_ENV, Database, default_database_url
from marsdice.storage.tables import (
    Live,
    NotFoundError,
    SeatSpec,
    StaleVersionError,
    StorageError,
    TableData,
)

__all__ = [
    "DATABASE_ENV",
    "Database",
    "Live",
    "NotFoundError",
    "SeatSpec",
    "StaleVersionError",
    "StorageError",
    "TableData",
    "default_database_url",
]
