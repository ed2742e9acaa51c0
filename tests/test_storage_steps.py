"""The step log's hot path on SQLite and PostgreSQL: a step is one insert and one update in
one transaction, nothing read back; the tables' version column counts the stored steps (the
sweep reads it, not the log), tables stored before it are counted by the migration, and a
second writer on one version still changes nothing."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy import event, func, select

from marsdice.storage import db as db_module
from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.storage.models import StepRow
from marsdice.storage.tables import SeatSpec, StaleVersionError, StoredStep

HUMAN = SeatSpec("human")


def running(db: Database) -> str:
    table = tables.create_table(db, "martian", {}, [HUMAN, HUMAN])
    for seat in range(2):
        tables.join(db, table.id, seat, f"P{seat}")
    return table.id


def step(seq: int) -> StoredStep:
    return StoredStep(seq, "R:HHTTRRRRRRRRR", "human", seq % 2, 10 + seq)


@contextmanager
def statements(db: Database) -> Iterator[list[str]]:
    """The SQL statements the driver ran meanwhile (verbs and tables, in order), seen on
    the driver's own connections, since the hot path runs them there without SQLAlchemy's
    execution: SQLite's trace callback, a recording cursor on PostgreSQL."""
    sent: list[str] = []

    def record(statement: Any) -> None:
        text = statement.decode() if isinstance(statement, bytes) else str(statement)
        sent.append(" ".join(text.split()))

    class Recording(psycopg.Cursor):  # type: ignore[type-arg]
        def execute(self, query: Any, *args: Any, **kwargs: Any) -> Any:
            record(query)
            return super().execute(query, *args, **kwargs)

    def trace(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if isinstance(dbapi_connection, sqlite3.Connection):
            dbapi_connection.set_trace_callback(record)
        else:
            dbapi_connection.cursor_factory = Recording

    def untrace(dbapi_connection: Any, _record: Any) -> None:
        if isinstance(dbapi_connection, sqlite3.Connection):
            dbapi_connection.set_trace_callback(None)
        else:
            dbapi_connection.cursor_factory = psycopg.Cursor

    db.engine.dispose()  # every connection from now on is checked out (and traced) anew
    event.listen(db.engine, "checkout", trace)
    event.listen(db.engine, "checkin", untrace)
    try:
        yield sent
    finally:
        event.remove(db.engine, "checkout", trace)
        event.remove(db.engine, "checkin", untrace)


@pytest.mark.parametrize("held", [False, True], ids=["returned", "held"])
def test_a_step_is_one_insert_and_one_update_and_nothing_read_back(
    db: Database, held: bool
) -> None:
    table_id = running(db)
    table = tables.get_table(db, table_id) if held else None
    with statements(db) as sent:
        after = tables.append_step(db, table_id, step(0), finishes=False, table=table)
    queries = [s for s in sent if s.split()[0] in ("SELECT", "INSERT", "UPDATE", "WITH")]
    if held and db.dialect == "postgresql":  # one statement: the insert inside the update's WITH
        assert len(queries) == 1, sent
        assert queries[0].startswith("WITH new_steps AS (INSERT INTO md_steps")
        assert ") UPDATE md_tables" in queries[0] and "SELECT" not in queries[0]
    else:
        assert [s.split()[0] for s in queries] == ["INSERT", "UPDATE"], sent
        assert queries[0].startswith("INSERT INTO md_steps")
        assert queries[1].startswith("UPDATE md_tables")
    assert after == tables.get_table(db, table_id)
    assert after.version == 1


def test_a_move_and_its_dice_are_one_transaction_and_all_or_nothing(db: Database) -> None:
    """``append_steps``: two steps are two inserts and one update (PostgreSQL: one
    statement), the version goes up by two, and a clash on either step stores neither."""
    table_id = running(db)
    table = tables.get_table(db, table_id)
    with statements(db) as sent:
        after = tables.append_steps(db, table_id, [step(0), step(1)], finishes=False, table=table)
    queries = [s for s in sent if s.split()[0] in ("SELECT", "INSERT", "UPDATE", "WITH")]
    if db.dialect == "postgresql":
        assert len(queries) == 1 and queries[0].startswith("WITH new_steps AS (INSERT"), sent
        assert queries[0].count("%(seq_") == 2  # both rows in the one insert
    else:
        assert [s.split()[0] for s in queries] == ["INSERT", "INSERT", "UPDATE"], sent
        assert sum(s == "COMMIT" for s in sent) == 1, sent
    assert after == tables.get_table(db, table_id) and after.version == 2
    # step 2 is new, step 1 is stored: neither goes in, nothing changes
    with pytest.raises(StaleVersionError, match="step 1 of table"):
        tables.append_steps(db, table_id, [step(1), step(2)], finishes=True, table=after)
    assert tables.get_table(db, table_id) == after
    assert tables.read_log(db, table_id)[1] == [step(0), step(1)]
    last = tables.append_steps(db, table_id, [step(2), step(3)], finishes=True, table=after)
    assert last.version == 4 and last.status == tables.FINISHED
    for wrong in ([], [step(4), step(6)]):
        with pytest.raises(ValueError, match="consecutive"):
            tables.append_steps(db, table_id, wrong, finishes=False, table=last)
    assert tables.get_table(db, table_id) == last


def test_the_version_counts_the_stored_steps_and_a_stale_writer_changes_nothing(
    db: Database,
) -> None:
    table_id, other = running(db), running(db)
    for seq in range(5):
        tables.append_step(db, table_id, step(seq), finishes=False)
    before = tables.get_table(db, table_id)
    assert before.version == 5 == tables.stored_version(db, table_id)
    with pytest.raises(StaleVersionError, match="step 3 of table"):
        tables.append_step(db, table_id, step(3), finishes=True, table=before)
    assert tables.get_table(db, table_id) == before  # not finished, not touched, no count
    assert tables.read_log(db, table_id)[1] == [step(seq) for seq in range(5)]
    assert tables.stored_versions(db, [table_id, other, "nosuchtable"]) == {
        table_id: 5,
        other: 0,
    }
    assert tables.stored_version(db, "nosuchtable") == 0


def test_the_table_given_back_is_the_row_as_stored_even_after_another_writer(
    db: Database,
) -> None:
    """A caller's table read before another process marked a seat away: the seats come back
    with the step, as the row has them."""
    table_id = running(db)
    held = tables.get_table(db, table_id)
    tables.set_away(db, table_id, 1, True)  # another process
    after = tables.append_step(db, table_id, step(0), finishes=False, table=held)
    assert after.seats[1].away and after == tables.get_table(db, table_id)
    last = tables.append_step(db, table_id, step(1), finishes=True, table=after)
    assert last.status == tables.FINISHED and last == tables.get_table(db, table_id)
    assert last.updated_at >= after.updated_at >= held.updated_at


def test_the_sweep_reads_one_number_per_table_not_the_log(db: Database) -> None:
    ids = [running(db) for _ in range(3)]
    for seq in range(4):
        tables.append_step(db, ids[0], step(seq), finishes=False)
    with statements(db) as sent:
        assert tables.stored_versions(db, ids) == {ids[0]: 4, ids[1]: 0, ids[2]: 0}
    queries = [s for s in sent if s.split()[0] == "SELECT"]
    assert len(queries) == 1 and "md_steps" not in queries[0] and "count" not in queries[0].lower()


def migrations() -> Config:
    config = Config()
    config.set_main_option("script_location", str(db_module._MIGRATIONS))
    return config


def test_revision_0003_counts_the_steps_of_the_tables_already_stored(db: Database) -> None:
    config = migrations()
    counted, empty = running(db), running(db)
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0002")
    old_steps = sa.table(
        "md_steps",
        *(sa.column(name) for name in ("table_id", "seq", "action", "actor", "seat")),
        sa.column("rng_counter"),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )
    now = datetime.now(UTC)
    with db.engine.begin() as connection:
        columns = [column["name"] for column in sa.inspect(connection).get_columns("md_tables")]
        assert "version" not in columns
        rows = [dict(asdict(step(seq)), table_id=counted, created_at=now) for seq in range(7)]
        connection.execute(old_steps.insert(), rows)
    db.migrate()
    assert tables.get_table(db, counted).version == 7
    assert tables.get_table(db, empty).version == 0
    after = tables.append_step(db, counted, step(7), finishes=False)
    assert after.version == 8
    with db.engine.connect() as connection:
        count = connection.scalar(
            select(func.count()).select_from(StepRow).where(StepRow.table_id == counted)
        )
    assert count == 8


def test_a_row_tells_when_its_public_form_changed_only_in_its_time(db: Database) -> None:
    """``public_as``, the session's shortcut: true after a plain step (the public form is
    the same but for ``updated_at``), false once a seat or the status changed."""
    table_id = running(db)
    before = tables.get_table(db, table_id)
    after = tables.append_steps(db, table_id, [step(0), step(1)], finishes=False, table=before)
    assert after.public_as(before)
    assert {**before.public(), "updated_at": None} == {**after.public(), "updated_at": None}
    tables.set_away(db, table_id, 1, True)
    away = tables.get_table(db, table_id)
    assert not away.public_as(after) and away.public() != {**after.public(), "updated_at": None}
    last = tables.append_steps(db, table_id, [step(2)], finishes=True, table=away)
    assert not last.public_as(away) and "server_seed" in last.public()
