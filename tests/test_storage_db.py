"""The engine's connections: a pooled PostgreSQL connection cut while it sat idle is
replaced before it is used (no error reaches the caller); only an idle one is pinged."""

from __future__ import annotations

import math
import os

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from marsdice.storage import db as db_module
from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.storage.tables import SeatSpec
from marsdice.storage.testing import TEST_DATABASE_ENV


def cut_pooled_connection(db: Database) -> None:
    """End the pool's one connection on the server's side, as a restart would."""
    with db.engine.connect() as connection:
        pid = connection.scalar(text("select pg_backend_pid()"))
    admin = create_engine(os.environ[TEST_DATABASE_ENV])
    with admin.begin() as connection:
        assert connection.scalar(text("select pg_terminate_backend(:pid)"), {"pid": pid})
    admin.dispose()


@pytest.fixture
def postgres(db: Database) -> Database:
    if db.dialect != "postgresql":
        pytest.skip("a PostgreSQL connection's life")
    return db


def test_an_idle_connection_cut_by_the_server_is_replaced(
    postgres: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tables.create_table(postgres, "martian", {}, [SeatSpec("human")] * 2)
    cut_pooled_connection(postgres)
    monkeypatch.setattr(db_module, "PING_AFTER_IDLE", 0.0)  # (it has been idle long enough)
    assert tables.get_table(postgres, table.id).id == table.id


def test_without_the_ping_the_first_call_after_a_cut_fails_and_the_next_works(
    postgres: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the ping saves (a connection in use a moment ago is not pinged: a cut then costs
    one call, after which the pool starts afresh)."""
    table = tables.create_table(postgres, "martian", {}, [SeatSpec("human")] * 2)
    cut_pooled_connection(postgres)
    monkeypatch.setattr(db_module, "PING_AFTER_IDLE", math.inf)
    with pytest.raises(OperationalError):
        tables.get_table(postgres, table.id)
    assert tables.get_table(postgres, table.id).id == table.id
