"""Group commit of the server's step writes, on SQLite and PostgreSQL: the writes of many
tables made at once are one transaction, each acknowledged only once committed; one write
refused (another writer stored its step first, or its table is gone) refuses no other; a
write given up before its commit is never stored; PostgreSQL's asyncio connection, cut while
idle, is replaced before it is used."""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Callable, Coroutine
from typing import Any

import psycopg
import pytest
from sqlalchemy import create_engine, text

from marsdice.storage import commits as commits_module
from marsdice.storage import tables
from marsdice.storage.commits import StepCommits
from marsdice.storage.db import Database
from marsdice.storage.tables import (
    NotFoundError,
    SeatSpec,
    StaleVersionError,
    StepWrite,
    StoredStep,
    TableData,
)
from marsdice.storage.testing import TEST_DATABASE_ENV

HUMAN = SeatSpec("human")


def running(db: Database) -> TableData:
    table = tables.create_table(db, "martian", {}, [HUMAN, HUMAN])
    for seat in range(2):
        tables.join(db, table.id, seat, f"P{seat}")
    return tables.get_table(db, table.id)


def step(seq: int) -> StoredStep:
    return StoredStep(seq, "R:HHTTRRRRRRRRR", "human", seq % 2, 10 + seq)


def write(table: TableData, *seqs: int, finishes: bool = False) -> StepWrite:
    return StepWrite(table.id, tuple(step(seq) for seq in seqs), finishes, table)


def run(scenario: Callable[[StepCommits], Coroutine[Any, Any, None]], db: Database) -> None:
    async def main() -> None:
        commits = StepCommits(db)
        try:
            await scenario(commits)
        finally:
            await commits.close()

    asyncio.run(main())


def test_the_writes_made_at_once_are_one_commit_and_each_gets_its_own_row(db: Database) -> None:
    held = [running(db) for _ in range(6)]

    async def scenario(commits: StepCommits) -> None:
        # each table's first write (a move and its dice on the first two), all at once
        writes = [write(table, 0, 1) if i < 2 else write(table, 0) for i, table in enumerate(held)]
        after = await asyncio.gather(*(commits.append(w) for w in writes))
        assert (commits.commits, commits.writes) == (1, 6)
        for table, w, row in zip(held, writes, after, strict=True):
            assert row.version == len(w.steps) and row == tables.get_table(db, table.id)
        if db.dialect == "postgresql":  # one transaction wrote every row
            with db.engine.connect() as connection:
                made_by = connection.scalars(text("select distinct xmin::text from md_steps"))
                assert len(list(made_by)) == 1
        # the next ones, two of them finishing their games
        more = [write(row, row.version, finishes=i < 2) for i, row in enumerate(after)]
        last = await asyncio.gather(*(commits.append(w) for w in more))
        assert (commits.commits, commits.writes) == (2, 12)
        assert [row.status for row in last] == [tables.FINISHED] * 2 + [tables.RUNNING] * 4
        for table, row in zip(held, last, strict=True):
            assert row == tables.get_table(db, table.id)
            assert tables.read_log(db, table.id)[1] == [step(seq) for seq in range(row.version)]

    run(scenario, db)


def test_a_write_refused_refuses_no_other(db: Database) -> None:
    held = [running(db) for _ in range(4)]
    tables.append_step(db, held[1].id, step(0), finishes=False)  # another writer was first
    gone = StepWrite("nosuchtable", (step(0),), False, held[3])

    async def scenario(commits: StepCommits) -> None:
        outcomes = await asyncio.gather(
            *(commits.append(write(table, 0)) for table in held[:3]),
            commits.append(gone),
            return_exceptions=True,
        )
        assert isinstance(outcomes[1], StaleVersionError)
        assert "step 0 of table" in str(outcomes[1])
        assert isinstance(outcomes[3], NotFoundError)
        for i in (0, 2):
            row = outcomes[i]
            assert isinstance(row, TableData) and row.version == 1
            assert row == tables.get_table(db, held[i].id)
        assert tables.read_log(db, held[1].id)[1] == [step(0)]  # the other writer's, alone
        assert tables.get_table(db, held[1].id).version == 1

    run(scenario, db)


def test_a_write_given_up_before_its_commit_is_never_stored(db: Database) -> None:
    kept, given_up = running(db), running(db)

    async def scenario(commits: StepCommits) -> None:
        stored = asyncio.ensure_future(commits.append(write(kept, 0)))
        cancelled = asyncio.ensure_future(commits.append(write(given_up, 0)))
        await asyncio.sleep(0)  # both are waiting for the commit
        cancelled.cancel()
        assert (await stored).version == 1
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        assert commits.writes == 1

    run(scenario, db)
    assert tables.get_table(db, given_up.id).version == 0
    assert tables.read_log(db, given_up.id)[1] == []


def test_a_postgresql_connection_cut_in_use_costs_no_write(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection the server cut that was in use a moment ago (not pinged first): the
    writes that find it broken are stored once more on a new connection, none refused."""
    if db.dialect != "postgresql":
        pytest.skip("PostgreSQL's asyncio connection")
    monkeypatch.setattr(commits_module, "PING_AFTER_IDLE", math.inf)
    held = [running(db) for _ in range(3)]

    async def scenario(commits: StepCommits) -> None:
        rows = await asyncio.gather(*(commits.append(write(table, 0)) for table in held))
        # two connections left idle, both cut (as a restart cuts them all)
        another = await psycopg.AsyncConnection.connect(autocommit=True, **db.driver_arguments())
        commits._connections.append((another, time.monotonic()))
        cut = [connection for connection, _used_at in commits._connections]
        assert len(cut) == 2
        for connection in cut:
            terminate(connection.info.backend_pid)
        rows = await asyncio.gather(*(commits.append(write(row, 1)) for row in rows))
        assert [row.version for row in rows] == [2, 2, 2]
        assert all(connection.closed for connection in cut)

    run(scenario, db)
    for table in held:
        assert tables.read_log(db, table.id)[1] == [step(0), step(1)]


def terminate(pid: int) -> None:
    """End a PostgreSQL backend from the server's side, as a restart would."""
    admin = create_engine(os.environ[TEST_DATABASE_ENV])
    with admin.begin() as sql:
        assert sql.scalar(text("select pg_terminate_backend(:pid)"), {"pid": pid})
    admin.dispose()


def test_a_postgresql_connection_cut_while_idle_is_replaced_before_it_is_used(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    if db.dialect != "postgresql":
        pytest.skip("PostgreSQL's asyncio connection")
    table = running(db)

    async def scenario(commits: StepCommits) -> None:
        row = await commits.append(write(table, 0))
        [(connection, _used_at)] = commits._connections  # (the one in use, now idle)
        assert connection.info.backend_pid
        terminate(connection.info.backend_pid)
        monkeypatch.setattr(commits_module, "PING_AFTER_IDLE", 0.0)  # (idle long enough)
        row = await commits.append(write(row, 1))
        assert row.version == 2 and connection.closed
        assert [c for c, _ in commits._connections] != [connection]

    run(scenario, db)
    assert tables.read_log(db, table.id)[1] == [step(0), step(1)]
