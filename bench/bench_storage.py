"""The storage hot path against its floor (not a test): ``tables.append_step`` (one step of a
game stored, as the server stores each action) against a bare SQLAlchemy Core insert of the
same row in a transaction of its own, on SQLite and PostgreSQL in the same run; then the
sweep's ``stored_versions`` over many tables with long logs.

Both sides are timed in this process's CPU time (what the server spends per step; the
database server's work is the same on both sides) in alternating rounds, on a shared and
noisy machine: the medians are printed with their ratio.

Run: .venv/bin/python bench/bench_storage.py [--steps 2000] [--rounds 5] [--postgres URL]
(PostgreSQL: ``--postgres`` or ``$MARSDICE_TEST_DATABASE_URL``, skipped when neither is set)
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, insert, update

from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.storage.models import Base, utcnow
from marsdice.storage.tables import SeatSpec, StoredStep
from marsdice.storage.testing import TEST_DATABASE_ENV, postgres_unavailable, temporary_database

HUMAN = SeatSpec("human")
TABLES = Base.metadata.tables["md_tables"]
STEPS = Base.metadata.tables["md_steps"]


def running_table(db: Database) -> str:
    """A started two-player table (steps can be stored on it)."""
    table = tables.create_table(db, "martian", {}, [HUMAN, HUMAN])
    for seat in range(2):
        tables.join(db, table.id, seat, f"P{seat}")
    return table.id


def floor_engine(db: Database) -> Engine:
    """A plain engine on the same database, none of the storage's own settings but SQLite's
    ``synchronous=NORMAL`` (the floor is the same before and after a change of them)."""
    engine = create_engine(db.url)
    if db.dialect == "sqlite":

        @event.listens_for(engine, "connect")
        def _normal(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.execute("PRAGMA synchronous=NORMAL")

    return engine


def per_call(calls: int, call: Callable[[int], None], start: int) -> float:
    """CPU milliseconds of this process per call of ``call(seq)`` for ``calls`` consecutive
    seqs from ``start`` (the database server's own work, and waiting for it, not counted:
    what the server process spends per step)."""
    began = time.process_time()
    for seq in range(start, start + calls):
        call(seq)
    return (time.process_time() - began) * 1000 / calls


def bench_append(db: Database, steps: int, rounds: int) -> tuple[float, float, float | None]:
    """Median ms per ``append_step``, per bare insert, and per ``append_step`` given the
    table the caller holds (None where it takes none: the code before revision 0003)."""
    stored_on, inserted_on, held_on = running_table(db), running_table(db), running_table(db)
    held = [tables.get_table(db, held_on)]
    floor_on = floor_engine(db)

    def append(seq: int) -> None:
        step = StoredStep(seq, "R:HHTTRRRRRRRRR", "human", seq % 2, seq)
        tables.append_step(db, stored_on, step, finishes=False)

    def append_held(seq: int) -> None:
        step = StoredStep(seq, "R:HHTTRRRRRRRRR", "human", seq % 2, seq)
        held[0] = tables.append_step(db, held_on, step, finishes=False, table=held[0])

    def bare(seq: int) -> None:
        row = {
            "table_id": inserted_on,
            "seq": seq,
            "action": "R:HHTTRRRRRRRRR",
            "actor": "human",
            "seat": seq % 2,
            "rng_counter": seq,
            "created_at": utcnow(),
        }
        with floor_on.begin() as connection:
            connection.execute(insert(STEPS), row)

    takes_table = "table" in inspect.signature(tables.append_step).parameters
    per_round = max(1, steps // rounds)
    append(0)  # warm up: statement caches, the pool's first connection
    bare(0)
    if takes_table:
        append_held(0)
    appended, floor, with_table = [], [], []
    for index in range(rounds):
        start = 1 + index * per_round
        appended.append(per_call(per_round, append, start))
        floor.append(per_call(per_round, bare, start))
        if takes_table:
            with_table.append(per_call(per_round, append_held, start))
    floor_on.dispose()
    held_median = statistics.median(with_table) if with_table else None
    return statistics.median(appended), statistics.median(floor), held_median


def bench_sweep(db: Database, table_count: int, steps: int, repeats: int = 7) -> float:
    """Median ms of one ``stored_versions`` over ``table_count`` running tables with
    ``steps`` steps each (rows written in bulk; the version column too, where there is one)."""
    ids = [running_table(db) for _ in range(table_count)]
    now = utcnow()
    with db.engine.begin() as connection:
        for table_id in ids:
            rows = [
                {
                    "table_id": table_id,
                    "seq": seq,
                    "action": "R:HHTTRRRRRRRRR",
                    "actor": "human",
                    "seat": seq % 2,
                    "rng_counter": seq,
                    "created_at": now,
                }
                for seq in range(steps)
            ]
            connection.execute(insert(STEPS), rows)
        if "version" in TABLES.c:  # (the schema before revision 0003 has none)
            connection.execute(update(TABLES).values(version=steps))
    assert set(tables.stored_versions(db, ids).values()) == {steps}
    timings = []
    for _ in range(repeats):  # (wall time: here the database server does the work)
        began = time.perf_counter()
        tables.stored_versions(db, ids)
        timings.append((time.perf_counter() - began) * 1000)
    return statistics.median(timings)


def report(kind: str, db: Database, args: argparse.Namespace) -> None:
    appended, floor, held = bench_append(db, args.steps, args.rounds)
    print(
        f"{kind:10} append_step {appended:.3f} ms CPU/call, bare Core insert {floor:.3f} ms: "
        f"{appended / floor:.2f}x the floor ({args.steps} steps, median of {args.rounds} rounds)"
    )
    if held is not None:
        print(
            f"{kind:10} append_step given the table held {held:.3f} ms CPU/call: "
            f"{held / floor:.2f}x the floor"
        )
    sweep = bench_sweep(db, args.sweep_tables, args.sweep_steps)
    print(
        f"{kind:10} stored_versions over {args.sweep_tables} tables x {args.sweep_steps} "
        f"steps: {sweep:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="steps stored per side")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per side")
    parser.add_argument("--sweep-tables", type=int, default=200)
    parser.add_argument("--sweep-steps", type=int, default=150)
    parser.add_argument("--postgres", help=f"a PostgreSQL URL (default: ${TEST_DATABASE_ENV})")
    args = parser.parse_args()
    if args.postgres:
        os.environ[TEST_DATABASE_ENV] = args.postgres
        postgres_unavailable.cache_clear()
    with tempfile.TemporaryDirectory() as folder:
        with temporary_database("sqlite", Path(folder)) as db:
            report("SQLite", db, args)
        reason = postgres_unavailable()
        if reason:
            print(reason)
            return
        with temporary_database("postgresql", Path(folder)) as db:
            report("PostgreSQL", db, args)


if __name__ == "__main__":
    main()
