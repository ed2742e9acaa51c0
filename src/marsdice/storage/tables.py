"""Tables and their step log: create, join, leave, append a step, rebuild the game, export
the record. Generic over games: every rule comes from the game's own ``Game`` object."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from marsdice.bots.registry import bot_spec
from marsdice.core.errors import MarsDiceError, VariantError
from marsdice.core.game import JSON, Action, Game, GameState
from marsdice.core.record import GameRecord
from marsdice.fair import FairRandom, commitment, fair_tags, new_server_seed
from marsdice.games import get_game
from marsdice.storage.db import Database
from marsdice.storage.models import StepRow, TableRow, utcnow

OPEN: Final = "open"
RUNNING: Final = "running"
FINISHED: Final = "finished"
#: the longest display name a seat takes
MAX_NAME: Final = 40
#: a table's options and their defaults: ``hints`` shows everyone the advice for the player
#: to act; ``fool_check`` warns the mover (only) of a blunder before it is sent
DEFAULT_OPTIONS: Final[Mapping[str, bool]] = {"hints": False, "fool_check": True}


class StorageError(MarsDiceError):
    """A request the tables cannot honour; ``code`` names the kind for the protocol."""

    code = "conflict"


class NotFoundError(StorageError):
    code = "not_found"


class NotFinishedError(StorageError):
    """What exists only at the end of a game (the record, the replay) was asked for early."""

    code = "not_finished"


class StaleVersionError(StorageError):
    """Another step was stored first on this version: reload and try again."""

    code = "stale_version"


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A seat asked for at creation: a human (joins later) or a named bot."""

    kind: Literal["human", "bot"]
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class TableData:
    """A table row as plain values (the server seed is secret until the end)."""

    id: str
    game: str
    variant: dict[str, Any]
    seats: list[dict[str, Any]]
    commitment: str
    server_seed: bytes
    player_seeds: list[str]
    setup: list[list[str]] | None
    start_counter: int
    status: str
    created_at: datetime
    updated_at: datetime
    options: dict[str, bool] = field(default_factory=lambda: dict(DEFAULT_OPTIONS))

    @classmethod
    def of(cls, row: TableRow) -> TableData:
        return cls(
            id=row.id,
            game=row.game,
            variant=dict(row.variant),
            seats=[dict(seat) for seat in row.seats],
            commitment=row.commitment,
            server_seed=bytes.fromhex(row.server_seed),
            player_seeds=list(row.player_seeds),
            setup=None if row.setup is None else [list(pair) for pair in row.setup],
            start_counter=row.start_counter,
            status=row.status,
            created_at=_utc(row.created_at),
            updated_at=_utc(row.updated_at),
            options=table_options(row.options),
        )

    @property
    def names(self) -> list[str]:
        """Each seat's name for records and views (``Seat N`` while a seat is empty)."""
        return [seat.get("name") or f"Seat {i + 1}" for i, seat in enumerate(self.seats)]

    def seat_of(self, token: str | None) -> int | None:
        """The seat whose token this is, or None (compared in constant time)."""
        if not token:
            return None
        digest = token_hash(token)
        found = None
        for i, seat in enumerate(self.seats):
            stored = seat.get("token_hash")
            if isinstance(stored, str) and hmac.compare_digest(stored, digest):
                found = i
        return found

    def public(self) -> dict[str, JSON]:
        """What anyone may know about the table: never a token or a seed before its time."""
        seats: list[JSON] = [
            {
                "seat": i,
                "kind": seat["kind"],
                "bot": seat.get("bot"),
                "name": seat.get("name"),
                "taken": seat["kind"] == "bot" or seat.get("token_hash") is not None,
                "seeded": bool(seat.get("seed")),
                "away": bool(seat.get("away")),
            }
            for i, seat in enumerate(self.seats)
        ]
        out: dict[str, JSON] = {
            "id": self.id,
            "game": self.game,
            "variant": self.variant,
            "status": self.status,
            "seats": seats,
            "options": dict[str, JSON](self.options),
            "commitment": self.commitment,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }
        if self.status == FINISHED:
            out["server_seed"] = self.server_seed.hex()
            out["player_seeds"] = list[JSON](self.player_seeds)
        return out


@dataclass(slots=True)
class Live:
    """A started table's game rebuilt from its setup and step log."""

    table: TableData
    game: Game
    start: GameState
    actions: list[Action] = field(default_factory=list)
    states: list[GameState] = field(default_factory=list)
    actors: list[tuple[str, int | None]] = field(default_factory=list)
    counter: int = 0

    @property
    def version(self) -> int:
        """Steps stored so far; a client's action must carry this number."""
        return len(self.actions)

    @property
    def state(self) -> GameState:
        return self.states[-1] if self.states else self.start

    def rng(self) -> FairRandom:
        """The fair generator, resumed where the last step left it."""
        return FairRandom(self.table.server_seed, self.table.player_seeds, self.counter)

    def state_before(self, index: int) -> GameState:
        return self.start if index == 0 else self.states[index - 1]

    def redacted_log(self, viewer: int | None) -> list[str]:
        return [
            self.game.redact(self.state_before(i), action, viewer)
            for i, action in enumerate(self.actions)
        ]

    def moves(self) -> list[str]:
        return [action.text() for action in self.actions]


def _utc(moment: datetime) -> datetime:
    """SQLite gives back naive datetimes: they were stored in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_table_id() -> str:
    return secrets.token_hex(6)


# --- creation and seats -------------------------------------------------------------------


def table_options(stored: Mapping[str, Any] | None) -> dict[str, bool]:
    """The options as stored, the defaults filling what is missing (an older row)."""
    options = dict(DEFAULT_OPTIONS)
    for key, value in (stored or {}).items():
        if key in options:
            options[key] = bool(value)
    return options


def create_table(
    db: Database,
    game_name: str,
    params: Mapping[str, JSON],
    seats: Sequence[SeatSpec],
    options: Mapping[str, bool] | None = None,
) -> TableData:
    """A new table; ValueError (VariantError: the field first) for bad settings, seats or
    options. A table of bots only starts at once."""
    unknown = sorted(set(options or {}) - set(DEFAULT_OPTIONS))
    if unknown:
        raise VariantError(
            f"options: unknown option {unknown[0]!r}; options: {', '.join(DEFAULT_OPTIONS)}"
        )
    game = get_game(game_name)
    params = dict(params)
    if "players" not in params:
        params["players"] = len(seats)
    variant = game.variant_from_params(params)
    if variant.players != len(seats):
        raise VariantError(f"seats: {len(seats)} seats for a {variant.players}-player game")
    seat_rows: list[dict[str, Any]] = []
    for spec in seats:
        if spec.kind == "bot":
            if not spec.bot:
                raise VariantError("seats: a bot seat needs the bot's name")
            bot_spec(game, spec.bot)  # ValueError listing the known bots
            seat_rows.append({"kind": "bot", "bot": spec.bot, "name": spec.bot})
        else:
            seat_rows.append({"kind": "human", "name": None, "token_hash": None, "seed": None})
    seed = new_server_seed()
    now = utcnow()
    row = TableRow(
        id=new_table_id(),
        game=game.name,
        variant=dict(game.variant_to_params(variant)),
        seats=seat_rows,
        options=table_options(options),
        server_seed=seed.hex(),
        commitment=commitment(seed),
        player_seeds=[],
        setup=None,
        start_counter=0,
        status=OPEN,
        created_at=now,
        updated_at=now,
    )
    with db.session() as session, session.begin():
        if all(seat["kind"] == "bot" for seat in seat_rows):
            _start(row)
        session.add(row)
    return TableData.of(row)


def get_table(db: Database, table_id: str) -> TableData:
    with db.session() as session:
        row = session.get(TableRow, table_id)
        if row is None:
            raise NotFoundError(f"no table {table_id!r}")
        return TableData.of(row)


def list_tables(db: Database, statuses: Sequence[str] = (OPEN, RUNNING)) -> list[TableData]:
    with db.session() as session:
        rows = session.scalars(
            select(TableRow).where(TableRow.status.in_(statuses)).order_by(TableRow.created_at)
        )
        return [TableData.of(row) for row in rows]


def join(
    db: Database, table_id: str, seat: int, name: str, player_seed: str | None = None
) -> tuple[TableData, str]:
    """Take an empty human seat: returns the table and the seat's secret token (stored only
    as its hash). The game starts when the last human seat is taken."""
    from marsdice.fair import normalise_player_seed

    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME:
        raise VariantError(f"name: give 1 to {MAX_NAME} characters")
    seed = normalise_player_seed(player_seed) if player_seed else None
    token = secrets.token_urlsafe(24)
    with db.session() as session, session.begin():
        row = _locked(session, table_id)
        if row.status != OPEN:
            raise StorageError(f"table {table_id} has started: its seats are taken")
        if not 0 <= seat < len(row.seats):
            raise VariantError(f"seat: choose 0 to {len(row.seats) - 1}")
        seats = [dict(s) for s in row.seats]
        if seats[seat]["kind"] != "human" or seats[seat].get("token_hash"):
            raise StorageError(f"seat {seat} is taken")
        seats[seat].update(name=name, token_hash=token_hash(token), seed=seed)
        row.seats = seats
        row.updated_at = utcnow()
        if all(s["kind"] == "bot" or s.get("token_hash") for s in seats):
            _start(row)
        data = TableData.of(row)
    return data, token


def leave(db: Database, table_id: str, token: str) -> TableData:
    """Give a seat back before the game starts; in a running game the seat is marked away (a
    bot plays it) until its owner says hello again with the token."""
    with db.session() as session, session.begin():
        row = _locked(session, table_id)
        data = TableData.of(row)
        seat = data.seat_of(token)
        if seat is None:
            raise StorageError("bad_token: that token holds no seat at this table")
        if row.status == FINISHED:
            raise StorageError(f"table {table_id} has finished")
        seats = [dict(s) for s in row.seats]
        if row.status == OPEN:
            seats[seat].update(name=None, token_hash=None, seed=None)
        else:
            seats[seat]["away"] = True
        row.seats = seats
        row.updated_at = utcnow()
        return TableData.of(row)


def set_away(db: Database, table_id: str, seat: int, away: bool) -> TableData:
    """Mark a human seat away (a bot plays it) or back."""
    with db.session() as session, session.begin():
        row = _locked(session, table_id)
        seats = [dict(s) for s in row.seats]
        seats[seat]["away"] = away
        row.seats = seats
        row.updated_at = utcnow()
        return TableData.of(row)


def _locked(session: Any, table_id: str) -> TableRow:
    row = session.scalars(
        select(TableRow).where(TableRow.id == table_id).with_for_update()
    ).one_or_none()
    if row is None:
        raise NotFoundError(f"no table {table_id!r}")
    assert isinstance(row, TableRow)
    return row


def _start(row: TableRow) -> None:
    """Deal: the opening state from the fair generator; its setup tags are stored."""
    game = get_game(row.game)
    variant = game.variant_from_params(row.variant)
    player_seeds = [str(seat["seed"]) for seat in row.seats if seat.get("seed")]
    rng = FairRandom(bytes.fromhex(row.server_seed), player_seeds, 0)
    start = game.start(variant, rng)
    row.player_seeds = player_seeds
    row.setup = [[key, value] for key, value in game.setup_tags(start)]
    row.start_counter = rng.counter
    row.status = FINISHED if start.is_terminal else RUNNING


# --- the step log -------------------------------------------------------------------------


def load_live(db: Database, table_id: str) -> Live | None:
    """The table's game rebuilt from its setup and every stored step (None before the start).
    The engine checks every step again on the way."""
    with db.session() as session:
        row = session.get(TableRow, table_id)
        if row is None:
            raise NotFoundError(f"no table {table_id!r}")
        table = TableData.of(row)
        steps = [
            StoredStep(r.seq, r.action, r.actor, r.seat, r.rng_counter)
            for r in session.scalars(
                select(StepRow).where(StepRow.table_id == table_id).order_by(StepRow.seq)
            )
        ]
    if table.setup is None:
        return None
    game = get_game(table.game)
    opening = GameRecord(game.name, tuple(table.names), tuple((k, v) for k, v in table.setup))
    live = Live(table, game, game.opening(opening), counter=table.start_counter)
    for step in steps:
        extend_live(
            live, StoredStep(step.seq, step.action, step.actor, step.seat, step.rng_counter)
        )
    return live


@dataclass(frozen=True, slots=True)
class StoredStep:
    """One row of the step log, as :func:`steps_after` gives it."""

    seq: int
    action: str
    actor: str
    seat: int | None
    rng_counter: int


def steps_after(db: Database, table_id: str, version: int) -> tuple[TableData, list[StoredStep]]:
    """The table row and the steps from ``version`` on, so that a cached game can catch up
    with steps another process stored without replaying the whole log."""
    with db.session() as session:
        row = session.get(TableRow, table_id)
        if row is None:
            raise NotFoundError(f"no table {table_id!r}")
        rows = session.scalars(
            select(StepRow)
            .where(StepRow.table_id == table_id, StepRow.seq >= version)
            .order_by(StepRow.seq)
        )
        steps = [StoredStep(r.seq, r.action, r.actor, r.seat, r.rng_counter) for r in rows]
        return TableData.of(row), steps


def extend_live(live: Live, step: StoredStep) -> None:
    """Apply one stored step to ``live`` (the engine checks it again)."""
    if step.seq != live.version:
        raise StorageError(f"table {live.table.id}: step {live.version} is missing from the log")
    action = live.state.parse_action(step.action)
    live.states.append(live.state.apply(action))
    live.actions.append(action)
    live.actors.append((step.actor, step.seat))
    live.counter = step.rng_counter


def running_ids(db: Database) -> list[str]:
    """Every running table's id (a cheap query for the lease sweeper)."""
    with db.session() as session:
        return list(session.scalars(select(TableRow.id).where(TableRow.status == RUNNING)))


def stored_versions(db: Database, table_ids: Sequence[str]) -> dict[str, int]:
    """How many steps each of ``table_ids`` has stored (tables without steps are left out)."""
    if not table_ids:
        return {}
    with db.session() as session:
        rows = session.execute(
            select(StepRow.table_id, func.count())
            .where(StepRow.table_id.in_(list(table_ids)))
            .group_by(StepRow.table_id)
        )
        return {table_id: int(count) for table_id, count in rows}


def count_by_status(db: Database) -> dict[str, int]:
    """How many tables are open, running and finished (for the metrics)."""
    with db.session() as session:
        rows = session.execute(select(TableRow.status, func.count()).group_by(TableRow.status))
        counts = dict.fromkeys((OPEN, RUNNING, FINISHED), 0)
        counts.update({str(status): int(count) for status, count in rows})
        return counts


def stored_version(db: Database, table_id: str) -> int:
    with db.session() as session:
        count = session.scalar(select(func.count()).where(StepRow.table_id == table_id))
        return int(count or 0)


def append_step(
    db: Database,
    live: Live,
    action: Action,
    after: GameState,
    *,
    actor: str,
    seat: int | None,
    counter: int,
) -> None:
    """Store one step played on ``live.version`` in one transaction (the table finishes with
    the game), then extend ``live``. Another step stored first on that version raises
    :class:`StaleVersionError` and stores nothing."""
    seq = live.version
    try:
        with db.session() as session, session.begin():
            session.add(
                StepRow(
                    table_id=live.table.id,
                    seq=seq,
                    action=action.text(),
                    actor=actor,
                    seat=seat,
                    rng_counter=counter,
                    created_at=utcnow(),
                )
            )
            session.flush()
            row = session.get(TableRow, live.table.id)
            if row is None:
                raise NotFoundError(f"no table {live.table.id!r}")
            row.updated_at = utcnow()
            if after.is_terminal:
                row.status = FINISHED
            table = TableData.of(row)
    except IntegrityError as error:
        raise StaleVersionError(
            f"step {seq} of table {live.table.id} was stored by another writer"
        ) from error
    live.table = table
    live.actions.append(action)
    live.states.append(after)
    live.actors.append((actor, seat))
    live.counter = counter


def finished_live(db: Database, table_id: str) -> Live:
    """A finished table's whole game; :class:`NotFinishedError` before its end."""
    live = load_live(db, table_id)
    if live is None or live.table.status != FINISHED:
        raise NotFinishedError(f"table {table_id} has not finished: this comes at the end")
    return live


def replay(db: Database, table_id: str) -> dict[str, JSON]:
    """A finished game step by step for a replay viewer: the opening view and, per step,
    who made it, the action in full notation (nothing is hidden any more) and the view
    after it. Views are a spectator's (``observe(state, None)``); a step's ``version`` is
    the state's version after it, as a state message gives it."""
    live = finished_live(db, table_id)
    steps: list[JSON] = [
        {
            "version": i + 1,
            "actor": actor,
            "seat": seat,
            "action": action.text(),
            "view": live.game.observe(state, None),
        }
        for i, (action, state, (actor, seat)) in enumerate(
            zip(live.actions, live.states, live.actors, strict=True)
        )
    ]
    return {"start": live.game.observe(live.start, None), "steps": steps}


def export_record(db: Database, table_id: str) -> str:
    """A finished game as a record in the usual format, with the fair-dice tags and the
    server seed revealed."""
    try:
        live = finished_live(db, table_id)
    except NotFinishedError:
        raise NotFinishedError(
            f"table {table_id} has not finished: its record comes at the end"
        ) from None
    table = live.table
    tags = fair_tags(table.server_seed, table.player_seeds, reveal=True)
    record = live.game.make_record(table.names, live.start, live.moves(), tuple(tags))
    return live.game.dumps(record)
