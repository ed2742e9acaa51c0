"""The event-sourced tables on SQLite and on the real PostgreSQL: setup, seats, the step log,
two writers on one version, rebuilding, export as a fair record."""

from __future__ import annotations

import random
import threading

import pytest
from sqlalchemy import select, text

from marsdice.core.errors import VariantError
from marsdice.fair import verify_record
from marsdice.games import get_game
from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.storage.models import StepRow, TableRow
from marsdice.storage.tables import Live, SeatSpec, StaleVersionError, StorageError

HUMAN = SeatSpec("human")


def seated(db: Database, game: str, params: dict[str, object], humans: int = 2) -> str:
    table = tables.create_table(db, game, params, [HUMAN] * humans)  # type: ignore[arg-type]
    for seat in range(humans):
        tables.join(db, table.id, seat, f"P{seat}", f"seed {seat}")
    return table.id


def play_step(db: Database, live: Live, chooser: random.Random) -> None:
    state = live.state
    if state.is_chance_node:
        rng = live.rng()
        action = state.sample_chance(rng)
        counter = rng.counter
        actor, seat = "chance", None
    else:
        action = chooser.choice(list(state.legal_actions()))
        counter = live.counter
        actor, seat = "human", state.current_player
    tables.append_step(
        db, live, action, state.apply(action), actor=actor, seat=seat, counter=counter
    )


def test_migrations_run_twice_and_sqlite_uses_wal(db: Database) -> None:
    db.migrate()
    with db.engine.connect() as connection:
        revision = connection.execute(text("select version_num from alembic_version")).scalar()
        assert revision == "0002"
        if db.dialect == "sqlite":
            assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"


def test_tables_start_when_every_seat_is_taken_and_keep_only_token_hashes(db: Database) -> None:
    table = tables.create_table(db, "attacks", {}, [HUMAN, SeatSpec("bot", "random")])
    assert table.status == tables.OPEN and table.setup is None
    assert [t.id for t in tables.list_tables(db)] == [table.id]
    joined, token = tables.join(db, table.id, 0, "  Ann  ", "my seed")
    assert joined.status == tables.RUNNING and joined.names == ["Ann", "random"]
    assert joined.setup is not None and joined.seat_of(token) == 0
    assert joined.seat_of("not a token") is None
    with db.session() as session:
        row = session.get(TableRow, table.id)
        assert row is not None
        assert token not in str(row.seats)
        assert row.server_seed not in str(joined.public())
    with pytest.raises(StorageError, match="started"):
        tables.join(db, table.id, 0, "Bob")
    live = tables.load_live(db, table.id)
    assert live is not None and live.version == 0


def test_seats_can_be_left_before_the_start(db: Database) -> None:
    table = tables.create_table(db, "martian", {}, [HUMAN, HUMAN])
    _, token = tables.join(db, table.id, 1, "Bob")
    with pytest.raises(StorageError, match="taken"):
        tables.join(db, table.id, 1, "Cy")
    with pytest.raises(StorageError, match="bad_token"):
        tables.leave(db, table.id, "nope")
    left = tables.leave(db, table.id, token)
    assert left.seats[1]["token_hash"] is None
    tables.join(db, table.id, 1, "Cy")


@pytest.mark.parametrize(
    ("params", "seats", "field"),
    [
        ({"target": 0}, [HUMAN, HUMAN], "target"),
        ({"colour": "red"}, [HUMAN, HUMAN], "colour"),
        ({"players": 3}, [HUMAN, HUMAN], "seats"),
        ({}, [HUMAN, SeatSpec("bot")], "seats"),
    ],
)
def test_bad_settings_name_the_field(
    db: Database, params: dict[str, object], seats: list[SeatSpec], field: str
) -> None:
    with pytest.raises(VariantError, match=f"^{field}"):
        tables.create_table(db, "martian", params, seats)  # type: ignore[arg-type]
    assert tables.list_tables(db) == []


def test_unknown_game_or_bot(db: Database) -> None:
    with pytest.raises(ValueError, match="unknown game"):
        tables.create_table(db, "chess", {}, [HUMAN, HUMAN])
    with pytest.raises(ValueError, match="random"):
        tables.create_table(db, "martian", {}, [HUMAN, SeatSpec("bot", "nobody")])


@pytest.mark.parametrize("game", ["martian", "attacks"])
def test_a_game_rebuilds_from_its_log_and_exports_a_fair_record(db: Database, game: str) -> None:
    params: dict[str, object] = {"target": 8} if game == "martian" else {}
    table_id = seated(db, game, params)
    live = tables.load_live(db, table_id)
    assert live is not None
    chooser = random.Random(3)
    while not live.state.is_terminal:
        play_step(db, live, chooser)
        if live.version % 7 == 0:  # a restarted server rebuilds the same game mid-way
            again = tables.load_live(db, table_id)
            assert again is not None
            assert again.moves() == live.moves() and again.counter == live.counter
            assert again.state == live.state
            live = again
    assert tables.get_table(db, table_id).status == tables.FINISHED
    assert table_id not in [t.id for t in tables.list_tables(db)]
    text_ = tables.export_record(db, table_id)
    assert "ServerSeed" in text_ and "P0" in text_
    found_game, record = get_game(game), None
    from marsdice.core.record import GameRecord

    record = GameRecord.loads(text_)
    assert found_game.replay(record)[-1] == live.state
    verdict = verify_record(record)
    assert verdict.fair, verdict


def test_a_running_game_has_no_record_yet(db: Database) -> None:
    table_id = seated(db, "martian", {})
    with pytest.raises(StorageError, match="not finished"):
        tables.export_record(db, table_id)


def test_two_writers_on_one_version_exactly_one_wins(db: Database) -> None:
    table_id = seated(db, "martian", {})
    copies = [tables.load_live(db, table_id) for _ in range(2)]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def write(live: Live | None) -> None:
        assert live is not None
        rng = live.rng()
        action = live.state.sample_chance(rng)
        barrier.wait()
        try:
            tables.append_step(
                db,
                live,
                action,
                live.state.apply(action),
                actor="chance",
                seat=None,
                counter=rng.counter,
            )
            outcomes.append("won")
        except StaleVersionError:
            outcomes.append("stale")

    threads = [threading.Thread(target=write, args=(copy,)) for copy in copies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["stale", "won"]
    with db.session() as session:
        seqs = session.scalars(select(StepRow.seq).where(StepRow.table_id == table_id)).all()
    assert seqs == [0]
    assert tables.stored_version(db, table_id) == 1
