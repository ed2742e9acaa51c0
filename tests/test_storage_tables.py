"""The event-sourced tables on SQLite and on the real PostgreSQL: setup, seats, the step log,
two writers on one version, reading the log back, export as a fair record."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import threading
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import select, text

from marsdice.core.errors import VariantError
from marsdice.core.game import GameState
from marsdice.fair import FairRandom, verify_record
from marsdice.games import get_game
from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.storage.models import StepRow, TableRow
from marsdice.storage.tables import (
    BadTokenError,
    Seat,
    SeatSpec,
    StaleVersionError,
    StorageError,
    StoredStep,
    TableData,
)

HUMAN = SeatSpec("human")


def seated(db: Database, game: str, params: dict[str, object], humans: int = 2) -> str:
    table = tables.create_table(db, game, params, [HUMAN] * humans)  # type: ignore[arg-type]
    for seat in range(humans):
        tables.join(db, table.id, seat, f"P{seat}", f"seed {seat}")
    return table.id


@dataclass
class Writer:
    """A writer of one table's log that keeps its own game, as a server does: the state after
    the steps it has stored and the fair generator's counter."""

    table: TableData
    state: GameState
    counter: int
    moves: list[str] = field(default_factory=list)

    @classmethod
    def reading(cls, db: Database, table_id: str) -> Writer:
        """The game as the stored log has it (the game replays its own record)."""
        table, log = tables.read_log(db, table_id)
        game = get_game(table.game)
        moves = [step.action for step in log]
        state = game.replay(table.opening_record(moves))[-1]
        counter = log[-1].rng_counter if log else table.start_counter
        return cls(table, state, counter, moves)

    def rng(self) -> FairRandom:
        return FairRandom(self.table.server_seed, self.table.player_seeds, self.counter)

    def next_step(self, chooser: random.Random) -> tuple[StoredStep, GameState]:
        state = self.state
        if state.is_chance_node:
            rng = self.rng()
            action = state.sample_chance(rng)
            step = StoredStep(len(self.moves), action.text(), "chance", None, rng.counter)
        else:
            action = chooser.choice(list(state.legal_actions()))
            step = StoredStep(
                len(self.moves), action.text(), "human", state.current_player, self.counter
            )
        return step, state.apply(action)

    def store(self, db: Database, step: StoredStep, after: GameState) -> None:
        self.table = tables.append_step(db, self.table.id, step, finishes=after.is_terminal)
        self.state, self.counter = after, step.rng_counter
        self.moves.append(step.action)


def play_step(db: Database, writer: Writer, chooser: random.Random) -> None:
    writer.store(db, *writer.next_step(chooser))


def test_migrations_run_twice_and_sqlite_uses_wal(db: Database) -> None:
    db.migrate()
    with db.engine.connect() as connection:
        revision = connection.execute(text("select version_num from alembic_version")).scalar()
        assert revision == "0004"
        if db.dialect == "sqlite":
            assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"


def test_tables_start_when_every_seat_is_taken_and_keep_only_token_hashes(db: Database) -> None:
    table = tables.create_table(db, "attacks", {}, [HUMAN, SeatSpec("bot", "random")])
    assert table.status == tables.OPEN and table.setup is None
    assert [t.id for t in tables.list_tables(db)] == [table.id]
    joined, token = tables.join(db, table.id, 0, "  Ann  ", "my seed")
    assert joined.status == tables.RUNNING and joined.names == ["Ann", "Random bot"]
    assert joined.setup is not None and joined.seat_of(token) == 0
    assert joined.seat_of("not a token") is None
    with db.session() as session:
        row = session.get(TableRow, table.id)
        assert row is not None
        assert token not in str(row.seats)
        assert row.server_seed not in str(joined.public())
    with pytest.raises(StorageError, match="started"):
        tables.join(db, table.id, 0, "Bob")
    assert tables.read_log(db, table.id) == (tables.get_table(db, table.id), [])


def test_seats_can_be_left_before_the_start(db: Database) -> None:
    table = tables.create_table(db, "martian", {}, [HUMAN, HUMAN])
    _, token = tables.join(db, table.id, 1, "Bob")
    with pytest.raises(StorageError, match="taken"):
        tables.join(db, table.id, 1, "Cy")
    with pytest.raises(BadTokenError, match=r"^bad_token: that token holds no seat at this table$"):
        tables.leave(db, table.id, "nope")
    left = tables.leave(db, table.id, token)
    assert left.seats[1].token_hash is None and left.seats[1].vacant
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
    writer = Writer.reading(db, table_id)
    chooser = random.Random(3)
    while not writer.state.is_terminal:
        play_step(db, writer, chooser)
        if len(writer.moves) % 7 == 0:  # a restarted server reads the same game mid-way
            again = Writer.reading(db, table_id)
            assert again.moves == writer.moves and again.counter == writer.counter
            assert again.state == writer.state
            assert again.table == writer.table
            writer = again
    assert tables.get_table(db, table_id).status == tables.FINISHED
    assert writer.table.status == tables.FINISHED  # (append_step's answer says so too)
    assert table_id not in [t.id for t in tables.list_tables(db)]
    text_ = tables.export_record(db, table_id)
    assert "ServerSeed" in text_ and "P0" in text_
    found_game, record = get_game(game), None
    from marsdice.core.record import GameRecord

    record = GameRecord.loads(text_)
    assert record.moves == tuple(writer.moves)
    assert found_game.replay(record)[-1] == writer.state
    verdict = verify_record(record)
    assert verdict.fair, verdict
    replayed: dict[str, Any] = json.loads(json.dumps(tables.replay(db, table_id)))
    steps = replayed["steps"]
    assert [step["action"] for step in steps] == writer.moves
    assert [step["version"] for step in steps] == list(range(1, len(writer.moves) + 1))
    assert steps[-1]["view"] == json.loads(json.dumps(found_game.observe(writer.state, None)))


def test_a_running_game_has_no_record_yet(db: Database) -> None:
    table_id = seated(db, "martian", {})
    with pytest.raises(StorageError, match="not finished: its record comes at the end"):
        tables.export_record(db, table_id)
    with pytest.raises(StorageError, match="not finished: this comes at the end"):
        tables.replay(db, table_id)


def test_two_writers_on_one_version_exactly_one_wins(db: Database) -> None:
    table_id = seated(db, "martian", {})
    copies = [Writer.reading(db, table_id) for _ in range(2)]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def write(writer: Writer) -> None:
        step, after = writer.next_step(random.Random(0))
        barrier.wait()
        try:
            writer.store(db, step, after)
            outcomes.append("won")
        except StaleVersionError:
            outcomes.append("stale")

    threads = [threading.Thread(target=write, args=(copy_,)) for copy_ in copies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["stale", "won"]
    with db.session() as session:
        seqs = session.scalars(select(StepRow.seq).where(StepRow.table_id == table_id)).all()
    assert seqs == [0]
    assert tables.stored_version(db, table_id) == 1


def test_append_step_writes_the_row_and_changes_nothing_it_is_given(db: Database) -> None:
    table_id = seated(db, "martian", {})
    writer = Writer.reading(db, table_id)
    step, _after = writer.next_step(random.Random(1))
    held = tables.get_table(db, table_id)
    given = (copy.deepcopy(held), copy.deepcopy(step))
    stored = tables.append_step(db, table_id, step, finishes=True)
    assert (held, step) == given  # the caller's table and step are as they were
    assert held.status == tables.RUNNING and stored.status == tables.FINISHED
    assert stored.updated_at >= held.updated_at
    assert tables.read_log(db, table_id) == (stored, [step])  # the row exactly as given
    with pytest.raises(
        StaleVersionError, match=r"^step 0 of table \w+ was stored by another writer$"
    ):
        tables.append_step(db, table_id, step, finishes=False)
    assert tables.read_log(db, table_id) == (stored, [step])


def test_a_gap_in_the_log_is_refused_on_reading(db: Database) -> None:
    table_id = seated(db, "martian", {})
    step, _after = Writer.reading(db, table_id).next_step(random.Random(1))
    later = dataclasses.replace(step, seq=1)  # step 0 never stored
    tables.append_step(db, table_id, later, finishes=False)
    with pytest.raises(StorageError, match="step 0 is missing from the log"):
        tables.read_log(db, table_id)
    assert tables.steps_after(db, table_id, 1)[1] == [later]


#: every shape a seat's JSON object has in the database, as the code before the Seat type
#: wrote them (and rows already stored hold them)
STORED_SEATS: list[dict[str, Any]] = [
    {"kind": "human", "name": None, "token_hash": None, "seed": None},
    {"kind": "human", "name": "Ann", "token_hash": "ab" * 32, "seed": "ann!"},
    {"kind": "human", "name": "Ann", "token_hash": "ab" * 32, "seed": None, "away": True},
    {"kind": "human", "name": "Ann", "token_hash": "ab" * 32, "seed": None, "away": False},
    {"kind": "human", "name": None, "token_hash": None, "seed": None, "away": False},
    {"kind": "bot", "bot": "random", "name": "random"},
    # revision 0004: a signed-in player's seat names the account
    {"kind": "human", "name": "Ann", "token_hash": "ab" * 32, "seed": None, "user_id": 7},
]


def public_before(index: int, seat: dict[str, Any]) -> dict[str, Any]:
    """A seat's public JSON as ``TableData.public`` wrote it from the stored dict."""
    return {
        "seat": index,
        "kind": seat["kind"],
        "bot": seat.get("bot"),
        "name": seat.get("name"),
        "taken": seat["kind"] == "bot" or seat.get("token_hash") is not None,
        "seeded": bool(seat.get("seed")),
        "away": bool(seat.get("away")),
        "account": seat.get("user_id") is not None,
    }


@pytest.mark.parametrize("row", STORED_SEATS)
def test_a_seat_reads_and_writes_its_stored_json_byte_for_byte(row: dict[str, Any]) -> None:
    seat = Seat.from_row(row)
    assert json.dumps(seat.to_row()) == json.dumps(row)
    assert json.dumps(seat.public(2)) == json.dumps(public_before(2, row))
    assert seat.plays_itself == (row["kind"] == "bot" or bool(row.get("away")))


def test_seats_written_by_the_tables_keep_the_stored_format(db: Database) -> None:
    table = tables.create_table(db, "martian", {}, [HUMAN, SeatSpec("bot", "random")])
    _, token = tables.join(db, table.id, 0, "Ann", "ann seed")
    tables.leave(db, table.id, token)  # running: away
    tables.set_away(db, table.id, 0, False)
    with db.session() as session:
        row = session.get(TableRow, table.id)
        assert row is not None
        stored = json.dumps(row.seats)
    digest = tables.token_hash(token)
    seed = tables.get_table(db, table.id).seats[0].seed
    assert stored == json.dumps(
        [
            {"kind": "human", "name": "Ann", "token_hash": digest, "seed": seed, "away": False},
            {"kind": "bot", "bot": "random", "name": "Random bot"},
        ]
    )


def test_a_seat_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(StorageError, match="unknown kind 'alien'"):
        Seat.from_row({"kind": "alien", "name": None})


def test_a_bot_seat_is_named_as_a_person_reads_it(db: Database) -> None:
    """Records and reviews name a bot's seat by its display name, never its notation."""
    table = tables.create_table(db, "martian", {}, [SeatSpec("human"), SeatSpec("bot", "winprob")])
    assert table.seats[1].bot == "winprob" and table.seats[1].name == "Expert bot"
    assert table.names[1] == "Expert bot"
