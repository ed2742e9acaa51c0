"""Group commit of a server's step writes: the steps that its tables store while one commit
is made go together in the next one.

A step's write is a few rows; its commit (SQLite: the write lock, the write-ahead log's
pages; PostgreSQL: a round trip and a flush of the server's log) costs several times as
much. So the server's event loop hands every write to one :class:`StepCommits`, which
stores what has come in one transaction: on SQLite in place, once the loop has run what
was ready (each table's steps one write, its table's lock held meanwhile, so two writes of
one table are never together); on PostgreSQL through psycopg's asyncio connections, one
statement for all the writes, at most :data:`IN_FLIGHT` transactions on their way, the
writes that come while they are making the next. A write is acknowledged (its future done)
only once its transaction is committed; a write refused (another writer stored that step
first) refuses no other (:func:`marsdice.storage.tables.store_writes`). At a person's pace
a transaction holds one write, as before; under load, many (``writes / commits``, the
``marsdice_step_writes`` and ``marsdice_step_commits`` metrics).

The event loop never waits for a thread here: on PostgreSQL a thread per write cost a hop
each way and, under load, the interpreter's lock handed back and forth with the event loop
(every deflate and socket write let a writer thread in for up to the switch interval).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Any, Final

from marsdice.storage import tables
from marsdice.storage.db import PING_AFTER_IDLE, Database
from marsdice.storage.tables import StepWrite, TableData, WriteResult

#: a write waiting for its commit, and the future its writer awaits
_Waiting = tuple[StepWrite, "asyncio.Future[TableData]"]
#: seconds a new PostgreSQL connection may take to open
CONNECT_TIMEOUT: Final = 10
#: PostgreSQL: transactions on their way at once, each on a connection of its own (the
#: writes that come while they all are make the next ones)
IN_FLIGHT: Final = 4


class StepCommits:
    """The step writes of one event loop, committed in groups (see the module)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._waiting: list[_Waiting] = []
        #: SQLite: a commit of the writes waiting is due when the loop has run what is ready
        self._due = False
        #: PostgreSQL: the tasks committing the writes waiting, each one transaction after
        #: another on a connection of its own (at most :data:`IN_FLIGHT`)
        self._committers: set[asyncio.Task[None]] = set()
        #: the tasks between two transactions, about to take what is waiting
        self._ready = 0
        #: PostgreSQL connections not in use, and when each was last used
        self._connections: list[tuple[Any, float]] = []
        #: transactions committed and writes they stored (their ratio: writes per commit)
        self.commits = 0
        self.writes = 0

    async def append(self, write: StepWrite) -> TableData:
        """Store ``write`` (one table's steps) with whatever else is due; its table row after
        it once committed. Raises what :func:`marsdice.storage.tables.append_steps` raises.
        Cancelled before its commit, the write is left out; cancelled while its commit is
        under way, it may be stored (the caller reads the log back to know)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[TableData] = loop.create_future()
        self._waiting.append((write, future))
        if self.db.local:
            if not self._due:
                self._due = True
                loop.call_soon(self._commit_here)
        elif not self._ready and len(self._committers) < IN_FLIGHT:
            committer = loop.create_task(self._commit_all(), name="step-commits")
            self._committers.add(committer)
            committer.add_done_callback(self._committers.discard)
            self._ready += 1
        return await future

    # -- SQLite: in place, once the loop has run what was ready --

    def _commit_here(self) -> None:
        self._due = False
        waiting = self._take()
        if not waiting:
            return
        try:
            results = tables.store_writes(self.db, [write for write, _ in waiting])
        except Exception as error:  # (a disk that failed, say: every writer hears of it)
            results = [error] * len(waiting)
        self._settle(waiting, results)

    # -- PostgreSQL: asyncio, at most IN_FLIGHT transactions on their way --

    async def _commit_all(self) -> None:
        connection = None
        try:
            while True:
                waiting = self._take()
                self._ready -= 1
                if not waiting:
                    return
                writes = [write for write, _ in waiting]
                for attempt in range(2):
                    try:
                        if connection is None:
                            connection = await self._ready_connection()
                        results = await tables.store_writes_async(self.db, connection, writes)
                        break
                    except asyncio.CancelledError:  # (the loop is closing): nobody waits on
                        for _write, future in waiting:
                            future.cancel()
                        connection = None  # (mid-statement: never used again)
                        raise
                    except Exception as error:
                        broken = connection is not None and (connection.broken or connection.closed)
                        await _close(connection)
                        connection = None
                        results = [tables.driver_error(error, _psycopg())] * len(waiting)
                        if not (broken and attempt == 0):
                            break
                        # a connection the server cut (a restart, a backend ended): the idle
                        # ones are likely cut too, so once more on a new one; a write its
                        # transaction did store is refused as stale there, and its writer
                        # reads the log back
                        idle, self._connections = self._connections, []
                        for old, _used_at in idle:
                            await _close(old)
                self._settle(waiting, results)
                self._ready += 1
        finally:
            if connection is not None:
                self._connections.append((connection, time.monotonic()))

    async def _ready_connection(self) -> Any:
        """A connection: the last one used of those not in use (asked first when it sat idle:
        the server may have cut it, a restart or a proxy's timeout), else a new one."""
        import psycopg

        while self._connections:
            connection, used_at = self._connections.pop()
            if connection.closed or connection.broken:
                continue
            if time.monotonic() - used_at >= PING_AFTER_IDLE:
                try:
                    await connection.execute("select 1")
                except psycopg.Error:
                    await _close(connection)
                    continue
            return connection
        return await psycopg.AsyncConnection.connect(
            autocommit=True, connect_timeout=CONNECT_TIMEOUT, **self.db.driver_arguments()
        )

    # -- both --

    def _take(self) -> list[_Waiting]:
        """The writes waiting, but those whose writer gave up before their commit."""
        waiting, self._waiting = self._waiting, []
        return [(write, future) for write, future in waiting if not future.done()]

    def _settle(self, waiting: Sequence[_Waiting], results: Sequence[WriteResult]) -> None:
        self.commits += 1
        self.writes += len(waiting)
        for (_write, future), result in zip(waiting, results, strict=True):
            if future.done():  # (its writer gave up meanwhile)
                continue
            if isinstance(result, Exception):
                future.set_exception(result)
            else:
                future.set_result(result)

    async def close(self) -> None:
        """Let the writes under way finish, then close the connections."""
        for committer in list(self._committers):
            with contextlib.suppress(Exception):
                await committer
        if self._due:
            self._commit_here()
        connections, self._connections = self._connections, []
        for connection, _ in connections:
            await _close(connection)


async def _close(connection: Any) -> None:
    if connection is not None:
        with contextlib.suppress(Exception):
            await connection.close()


def _psycopg() -> Any:
    """The PostgreSQL driver (imported only where it is used: SQLite servers never load it)."""
    import psycopg

    return psycopg
