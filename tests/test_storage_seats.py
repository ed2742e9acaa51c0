"""Seats under races, on SQLite (a file, real threads, each with its own pooled connection,
as the server's thread pool does it) and on PostgreSQL: joining, leaving and ``away`` are
serialised writes, so that every seat has exactly one winner, every token handed out
works, and the game starts exactly once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.storage.tables import SeatSpec, StorageError, TableData

HUMAN = SeatSpec("human")
RACERS = 40

Joined = tuple[TableData, str]


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` in threads released at once; each result, or the StorageError raised."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = calls[index]()
        except StorageError as error:
            results[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def joiner(db: Database, table_id: str, seat: int, index: int) -> Callable[[], Joined]:
    return lambda: tables.join(db, table_id, seat, f"racer {index}", f"seed {index}")


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The server seed of each deal drawn (a game's start), across threads."""
    drawn: list[str] = []
    real = tables._started
    lock = threading.Lock()

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        with lock:
            drawn.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(tables, "_started", counted)
    return drawn


def winners(results: list[Any]) -> list[Joined]:
    return [result for result in results if isinstance(result, tuple)]


def refused_as_taken(results: list[Any]) -> None:
    """Every loser is told, in the protocol's terms: 409 ``conflict``, the seat taken or the
    game started (docs/protocol.md)."""
    for result in results:
        if not isinstance(result, tuple):
            assert isinstance(result, StorageError) and result.code == "conflict", result
            assert "is taken" in str(result) or "has started" in str(result), result


@pytest.mark.parametrize("last", [False, True], ids=["one-of-three", "the-last"])
def test_forty_joins_of_one_seat_have_one_winner(
    db: Database, starts: list[str], last: bool
) -> None:
    """The contested seat is the last empty one (its winner starts the game) or not."""
    table = tables.create_table(db, "martian", {}, [HUMAN] * 3)
    if last:
        tables.join(db, table.id, 1, "Ann")
        tables.join(db, table.id, 2, "Bob")
    results = race([joiner(db, table.id, 0, i) for i in range(RACERS)])
    won = winners(results)
    assert len(won) == 1, [str(result) for result in results]
    refused_as_taken(results)
    answer, token = won[0]
    stored = tables.get_table(db, table.id)
    assert stored.seat_of(token) == 0 and answer.seat_of(token) == 0
    assert stored.seats[0] == answer.seats[0]
    if last:
        assert answer.status == stored.status == tables.RUNNING
        assert stored.setup is not None and stored.setup == answer.setup
        assert starts == [table.server_seed.hex()]
    else:
        assert stored.status == tables.OPEN and stored.seats[1].vacant
        assert starts == []


def test_forty_joins_of_the_last_two_seats_start_the_game_once(
    db: Database, starts: list[str]
) -> None:
    table = tables.create_table(db, "martian", {}, [HUMAN] * 3)
    tables.join(db, table.id, 0, "Ann", "ann's seed")
    results = race([joiner(db, table.id, 1 + i % 2, i) for i in range(RACERS)])
    won = winners(results)
    refused_as_taken(results)
    stored = tables.get_table(db, table.id)
    seats_won = sorted(seat for answer, token in won if (seat := stored.seat_of(token)) is not None)
    assert seats_won == [1, 2], [str(result) for result in results]  # every token works
    assert len(won) == 2
    assert stored.status == tables.RUNNING and stored.setup is not None
    started = [answer for answer, _token in won if answer.status == tables.RUNNING]
    assert len(started) == 1 and started[0].setup == stored.setup
    assert started[0].player_seeds == stored.player_seeds and len(stored.player_seeds) == 3
    assert starts == [table.server_seed.hex()]


def test_a_leave_racing_joins_loses_no_seat(db: Database, starts: list[str]) -> None:
    """Ann leaves while 39 others race for the two other seats: whatever the order, the
    table ends as one order of them would leave it."""
    table = tables.create_table(db, "martian", {}, [HUMAN] * 3)
    _, ann = tables.join(db, table.id, 0, "Ann")
    calls: list[Callable[[], Any]] = [lambda: tables.leave(db, table.id, ann)]
    calls += [joiner(db, table.id, 1 + i % 2, i) for i in range(RACERS - 1)]
    results = race(calls)
    assert isinstance(results[0], TableData), results[0]
    won = winners(results[1:])
    refused_as_taken(results[1:])
    stored = tables.get_table(db, table.id)
    held = [stored.seat_of(token) for _answer, token in won]
    assert sorted(seat if seat is not None else -1 for seat in held) == [1, 2], held
    started = [answer for answer, _token in won if answer.status == tables.RUNNING]
    if stored.status == tables.RUNNING:  # Ann left after both joins: she is away
        assert stored.seats[0].away and stored.seat_of(ann) == 0
        assert len(started) == 1 and starts == [table.server_seed.hex()]
    else:  # she left first, or between the joins: her seat is free again
        assert stored.status == tables.OPEN
        assert stored.seats[0].vacant and stored.seat_of(ann) is None
        assert started == [] and starts == []


def test_leaves_and_aways_at_once_are_all_kept(db: Database) -> None:
    """Ten people at a running table go away at once (half leave, half are marked away by
    the server, four times each): every seat ends away and every token still holds it."""
    table = tables.create_table(db, "martian", {"players": 10}, [HUMAN] * 10)
    people = [tables.join(db, table.id, seat, f"P{seat}")[1] for seat in range(10)]
    assert tables.get_table(db, table.id).status == tables.RUNNING

    def away(seat: int) -> Callable[[], TableData]:
        if seat < 5:
            return lambda: tables.leave(db, table.id, people[seat])
        return lambda: tables.set_away(db, table.id, seat, True)

    results = race([away(i % 10) for i in range(RACERS)])
    assert all(isinstance(result, TableData) for result in results), results
    stored = tables.get_table(db, table.id)
    assert [seat.away for seat in stored.seats] == [True] * 10
    assert [stored.seat_of(token) for token in people] == list(range(10))


def test_readers_are_not_held_up_by_a_writer(db: Database) -> None:
    """A write transaction serialises writers only: the lobby still reads meanwhile."""
    table = tables.create_table(db, "martian", {}, [HUMAN] * 2)
    with db.writing() as connection:
        connection.execute(tables.TABLES.update().values(status=tables.OPEN))
        assert tables.get_table(db, table.id).id == table.id
        assert [t.id for t in tables.list_tables(db)] == [table.id]
