"""Tables and their step log: create, join, leave, append a step, read the log back, export
the record. Generic over games: every rule comes from the game's own ``Game`` object.

This module writes and reads rows; it keeps no game in memory: a server rebuilds its own
game from :func:`read_log` and extends it with each step it stores (:func:`append_step`
writes the row and changes nothing it is given)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, Final, Literal, get_args

from sqlalchemy import Connection, Dialect, Integer, bindparam, func, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError

from marsdice.core.errors import MarsDiceError, VariantError
from marsdice.core.game import JSON
from marsdice.core.record import GameRecord
from marsdice.fair import FairRandom, commitment, fair_tags, new_server_seed
from marsdice.games import bot_spec, get_game
from marsdice.storage.db import Database
from marsdice.storage.models import Base, StepRow, TableRow, utcnow

#: the tables as SQLAlchemy Core sees them: the hot path writes and reads rows without the
#: ORM's unit of work and identity map (a step stored is one insert and one update)
TABLES: Final = Base.metadata.tables[TableRow.__tablename__]
STEPS: Final = Base.metadata.tables[StepRow.__tablename__]

OPEN: Final = "open"
RUNNING: Final = "running"
FINISHED: Final = "finished"
#: the longest display name a seat takes
MAX_NAME: Final = 40
#: a table's options and their defaults: ``hints`` shows everyone the advice for the player
#: to act; ``fool_check`` warns the mover (only) of a blunder before it is sent
DEFAULT_OPTIONS: Final[Mapping[str, bool]] = {
    "hints": False,
    "fool_check": True,
    "spectator_chat": True,
}


class StorageError(MarsDiceError):
    """A request the tables cannot honour; ``code`` names the kind for the protocol."""

    code = "conflict"


class NotFoundError(StorageError):
    code = "not_found"


class NotFinishedError(StorageError):
    """What exists only at the end of a game (the record, the replay) was asked for early."""

    code = "not_finished"


class BadTokenError(StorageError):
    """A token that holds no seat at the table (HTTP 403, not a conflict). The message keeps
    its ``bad_token:`` prefix: the protocol's clients read it."""

    code = "bad_token"


class StaleVersionError(StorageError):
    """Another step was stored first on this version: reload and try again."""

    code = "stale_version"


#: who sits at a seat: a person (who joins with a name and gets a token) or a named bot
SeatKind = Literal["human", "bot"]
SEAT_KINDS: Final[frozenset[str]] = frozenset(get_args(SeatKind))


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A seat asked for at creation: a human (joins later) or a named bot."""

    kind: SeatKind
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a table: a person's (once taken: their name, their token's hash, their
    fair-dice seed) or a named bot's. A person ``away`` has left a running game or lost
    their connection for too long: a bot plays the seat until they say hello again.

    The table row stores each seat as a JSON object; :meth:`from_row` and :meth:`to_row`
    convert at that edge, and write a row back exactly as it was read."""

    kind: SeatKind
    name: str | None = None
    bot: str | None = None
    token_hash: str | None = None
    seed: str | None = None
    away: bool = False
    #: the account a signed-in player joined with (None: a guest, or a bot's seat)
    user_id: int | None = None
    #: whether the stored object names ``away`` at all (a seat never marked has no key)
    away_stored: bool = field(default=False, repr=False, compare=False)

    @classmethod
    def for_person(cls) -> Seat:
        """An empty seat waiting for a person."""
        return cls("human")

    @classmethod
    def for_bot(cls, bot: str, name: str | None = None) -> Seat:
        """A bot's seat, named ``name`` (the bot's display name), else after the bot."""
        return cls("bot", name=name or bot, bot=bot)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Seat:
        kind = row.get("kind")
        if kind not in SEAT_KINDS:
            raise StorageError(f"a stored seat has the unknown kind {kind!r}")
        return cls(
            "bot" if kind == "bot" else "human",
            name=_text(row.get("name")),
            bot=_text(row.get("bot")),
            token_hash=_text(row.get("token_hash")),
            seed=_text(row.get("seed")),
            away=bool(row.get("away")),
            user_id=row["user_id"] if isinstance(row.get("user_id"), int) else None,
            away_stored="away" in row,
        )

    def to_row(self) -> dict[str, Any]:
        """The stored JSON object, keys in the order they have always been written."""
        row: dict[str, Any]
        if self.kind == "bot":
            row = {"kind": "bot", "bot": self.bot, "name": self.name}
        else:
            row = {
                "kind": "human",
                "name": self.name,
                "token_hash": self.token_hash,
                "seed": self.seed,
            }
        if self.away_stored or self.away:
            row["away"] = self.away
        if self.user_id is not None:
            row["user_id"] = self.user_id
        return row

    @property
    def taken(self) -> bool:
        """A bot's seat, or a person's seat someone has joined."""
        return self.kind == "bot" or self.token_hash is not None

    @property
    def vacant(self) -> bool:
        """A person's seat nobody has joined yet."""
        return self.kind == "human" and not self.token_hash

    @property
    def plays_itself(self) -> bool:
        """The server moves for this seat: a bot's, or a person's while they are away."""
        return self.kind == "bot" or self.away

    def taken_by(
        self, name: str, token_hash: str, seed: str | None, user_id: int | None = None
    ) -> Seat:
        return replace(self, name=name, token_hash=token_hash, seed=seed, user_id=user_id)

    def vacated(self) -> Seat:
        """Given back before the start: empty again."""
        return replace(self, name=None, token_hash=None, seed=None, user_id=None)

    def marked(self, *, away: bool) -> Seat:
        return replace(self, away=away, away_stored=True)

    def public(self, index: int) -> dict[str, JSON]:
        """What anyone may know of the seat: never its token's hash nor its seed."""
        return {
            "seat": index,
            "kind": self.kind,
            "bot": self.bot,
            "name": self.name,
            "taken": self.taken,
            "seeded": bool(self.seed),
            "away": self.away,
            "account": self.user_id is not None,
        }


@functools.lru_cache(maxsize=256)
def _ratable(game_name: str, players: int, variant: str) -> bool:
    """:attr:`TableData.ratable` of a game, seat count and variant (its JSON text)."""
    game = get_game(game_name)
    if players < max(2, game.min_players):
        return False
    rulebook = game.variant_to_params(game.default_variant(players))
    return bool(dict(rulebook) == json.loads(variant))


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True, slots=True)
class TableData:
    """A table row as plain values (the server seed is secret until the end)."""

    id: str
    game: str
    variant: dict[str, Any]
    seats: tuple[Seat, ...]
    commitment: str
    server_seed: bytes
    player_seeds: list[str]
    setup: list[list[str]] | None
    start_counter: int
    status: str
    created_at: datetime
    updated_at: datetime
    options: dict[str, bool] = field(default_factory=lambda: dict(DEFAULT_OPTIONS))
    #: how many steps are stored (the version the next step is played on)
    version: int = 0
    #: the finished table this one plays again, and the table that plays this one again
    rematch_of: str | None = None
    rematch: str | None = None

    @classmethod
    def of(cls, row: Any) -> TableData:
        """From a table row: a :class:`TableRow`, or a Core row of ``md_tables`` (the same
        attributes)."""
        return cls(
            id=row.id,
            game=row.game,
            variant=dict(row.variant),
            seats=tuple(Seat.from_row(seat) for seat in row.seats),
            commitment=row.commitment,
            server_seed=bytes.fromhex(row.server_seed),
            player_seeds=list(row.player_seeds),
            setup=None if row.setup is None else [list(pair) for pair in row.setup],
            start_counter=row.start_counter,
            status=row.status,
            created_at=_utc(row.created_at),
            updated_at=_utc(row.updated_at),
            options=table_options(row.options),
            version=row.version,
            rematch_of=getattr(row, "rematch_of", None),
            rematch=getattr(row, "rematch", None),
        )

    @property
    def ratable(self) -> bool:
        """Whether a game here can be rated: the rulebook's game for its seat count (two
        seats or more). It is, once every person seated is signed in (``docs/accounts.md``)."""
        return _ratable(self.game, len(self.seats), json.dumps(self.variant, sort_keys=True))

    @property
    def names(self) -> list[str]:
        """Each seat's name for records and views (``Seat N`` while a seat is empty)."""
        return [seat.name or f"Seat {i + 1}" for i, seat in enumerate(self.seats)]

    def seat_of(self, token: str | None) -> int | None:
        """The seat whose token this is, or None (compared in constant time)."""
        if not token:
            return None
        digest = token_hash(token)
        found = None
        for i, seat in enumerate(self.seats):
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                found = i
        return found

    def opening_record(self, moves: Sequence[str] = ()) -> GameRecord:
        """The game as a record from its stored deal (the table must have started)."""
        if self.setup is None:
            raise StorageError(f"table {self.id} has not started")
        tags = tuple((key, value) for key, value in self.setup)
        return GameRecord(self.game, tuple(self.names), tags, tuple(moves))

    def public(self) -> dict[str, JSON]:
        """What anyone may know about the table: never a token or a seed before its time."""
        seats: list[JSON] = [seat.public(i) for i, seat in enumerate(self.seats)]
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
        out["ratable"] = self.ratable
        if self.rematch_of is not None:
            out["rematch_of"] = self.rematch_of
        if self.rematch is not None:
            out["rematch"] = self.rematch
        if self.status == FINISHED:
            out["server_seed"] = self.server_seed.hex()
            out["player_seeds"] = list[JSON](self.player_seeds)
        return out

    def public_as(self, other: TableData) -> bool:
        """Whether :meth:`public` of ``other`` (the row before a step: a new time, the
        same seats) is this row's but for ``updated_at``, told without building either."""
        return (
            self.id == other.id
            and self.status == other.status
            and self.status != FINISHED
            and self.seats == other.seats
            and self.variant == other.variant
            and self.options == other.options
            and self.game == other.game
            and self.commitment == other.commitment
            and self.created_at == other.created_at
        )


@dataclass(frozen=True, slots=True)
class StoredStep:
    """One row of the step log: ``seq`` is the version it was played on, ``action`` the
    game's full notation (nothing redacted), ``rng_counter`` the fair generator's counter
    after it."""

    seq: int
    action: str
    actor: str
    seat: int | None
    rng_counter: int


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
    row = _new_table_row(game_name, params, seats, options)
    with db.writing() as connection:
        connection.execute(insert(TABLES), row)
    return TableData.of(SimpleNamespace(**row))


def _new_table_row(
    game_name: str,
    params: Mapping[str, JSON],
    seats: Sequence[SeatSpec],
    options: Mapping[str, bool] | None,
) -> dict[str, Any]:
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
    made: list[Seat] = []
    for spec in seats:
        if spec.kind == "bot":
            if not spec.bot:
                raise VariantError("seats: a bot seat needs the bot's name")
            # an unknown bot is refused, naming the known ones; records and reviews name
            # the player as a person reads it ("Expert bot", not "winprob")
            made.append(Seat.for_bot(spec.bot, bot_spec(game, spec.bot).display_name))
        else:
            made.append(Seat.for_person())
    seed = new_server_seed()
    now = utcnow()
    row: dict[str, Any] = {
        "id": new_table_id(),
        "game": game.name,
        "variant": dict(game.variant_to_params(variant)),
        "seats": [seat.to_row() for seat in made],
        "options": table_options(options),
        "server_seed": seed.hex(),
        "commitment": commitment(seed),
        "player_seeds": [],
        "setup": None,
        "start_counter": 0,
        "status": OPEN,
        "created_at": now,
        "updated_at": now,
        "version": 0,
        "rematch_of": None,
        "rematch": None,
    }
    if all(seat.kind == "bot" for seat in made):
        row.update(_started(row["game"], row["variant"], row["server_seed"], made))
    return row


def rematch_table(db: Database, table_id: str, seats: Sequence[SeatSpec]) -> TableData:
    """The finished table's rematch: made by the first caller (the same game, settings,
    options and seats, the bots seated), the same table for every caller after."""
    with db.writing() as connection:
        row = _table_row(connection, table_id, lock=True)
        if row.status != FINISHED:
            raise NotFinishedError(f"table {table_id} has not finished: a rematch comes at the end")
        if row.rematch is not None:
            return TableData.of(_table_row(connection, row.rematch))
        new = _new_table_row(row.game, row.variant, seats, row.options)
        new["rematch_of"] = table_id
        connection.execute(insert(TABLES), new)
        connection.execute(update(TABLES).where(TABLES.c.id == table_id).values(rematch=new["id"]))
    return TableData.of(SimpleNamespace(**new))


def get_table(db: Database, table_id: str) -> TableData:
    with db.reading() as connection:
        return TableData.of(_table_row(connection, table_id))


def list_tables(
    db: Database, statuses: Sequence[str] = (OPEN, RUNNING), *, limit: int | None = None
) -> list[TableData]:
    """The tables of ``statuses``, oldest first (with ``limit``: the newest ``limit``)."""
    query = select(TABLES).where(TABLES.c.status.in_(statuses))
    with db.reading() as connection:
        if limit is None:
            rows = list(connection.execute(query.order_by(TABLES.c.created_at, TABLES.c.id)))
        else:
            newest = query.order_by(TABLES.c.created_at.desc(), TABLES.c.id.desc()).limit(limit)
            rows = list(reversed(list(connection.execute(newest))))
        return [TableData.of(row) for row in rows]


def _table_row(connection: Connection, table_id: str, *, lock: bool = False) -> Any:
    """The table's row (locked until the transaction ends, on PostgreSQL, with ``lock``; on
    SQLite the writer's ``BEGIN IMMEDIATE`` holds the whole file)."""
    query = select(TABLES).where(TABLES.c.id == table_id)
    row = connection.execute(query.with_for_update() if lock else query).one_or_none()
    if row is None:
        raise NotFoundError(f"no table {table_id!r}")
    return row


def join(
    db: Database,
    table_id: str,
    seat: int,
    name: str,
    player_seed: str | None = None,
    user_id: int | None = None,
) -> tuple[TableData, str]:
    """Take an empty human seat: returns the table and the seat's secret token (stored only
    as its hash). The game starts when the last human seat is taken. A signed-in player's
    seat is bound to their account (``user_id``), which holds one seat of a table at most."""
    from marsdice.fair import normalise_player_seed

    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME:
        raise VariantError(f"name: give 1 to {MAX_NAME} characters")
    seed = normalise_player_seed(player_seed) if player_seed else None
    token = secrets.token_urlsafe(24)
    with db.writing() as connection:
        row = _table_row(connection, table_id, lock=True)
        if row.status != OPEN:
            raise StorageError(f"table {table_id} has started: its seats are taken")
        if not 0 <= seat < len(row.seats):
            raise VariantError(f"seat: choose 0 to {len(row.seats) - 1}")
        seats = _seats(row)
        if not seats[seat].vacant:
            raise StorageError(f"seat {seat} is taken")
        if user_id is not None and any(s.user_id == user_id for s in seats):
            raise StorageError("you hold a seat at this table already")
        seats[seat] = seats[seat].taken_by(name, token_hash(token), seed, user_id)
        changes = _seat_changes(seats)
        if all(s.taken for s in seats):
            changes.update(_started(row.game, row.variant, row.server_seed, seats))
        data = _store(connection, row, changes)
    return data, token


def leave(db: Database, table_id: str, token: str) -> TableData:
    """Give a seat back before the game starts; in a running game the seat is marked away (a
    bot plays it) until its owner says hello again with the token."""
    with db.writing() as connection:
        row = _table_row(connection, table_id, lock=True)
        data = TableData.of(row)
        seat = data.seat_of(token)
        if seat is None:
            raise BadTokenError("bad_token: that token holds no seat at this table")
        if row.status == FINISHED:
            raise StorageError(f"table {table_id} has finished")
        seats = list(data.seats)
        if row.status == OPEN:
            seats[seat] = seats[seat].vacated()
        else:
            seats[seat] = seats[seat].marked(away=True)
        return _store(connection, row, _seat_changes(seats))


def set_away(db: Database, table_id: str, seat: int, away: bool) -> TableData:
    """Mark a human seat away (a bot plays it) or back."""
    with db.writing() as connection:
        row = _table_row(connection, table_id, lock=True)
        seats = _seats(row)
        seats[seat] = seats[seat].marked(away=away)
        return _store(connection, row, _seat_changes(seats))


def _seats(row: Any) -> list[Seat]:
    return [Seat.from_row(seat) for seat in row.seats]


def _seat_changes(seats: Sequence[Seat]) -> dict[str, Any]:
    return {"seats": [seat.to_row() for seat in seats], "updated_at": utcnow()}


def _store(connection: Connection, row: Any, changes: Mapping[str, Any]) -> TableData:
    """Write ``changes`` to the table ``row`` (read in this transaction, under its lock) and
    give back the table as it is after: the row read, the changes applied, nothing re-read."""
    connection.execute(update(TABLES).where(TABLES.c.id == row.id).values(**changes))
    return TableData.of(SimpleNamespace(**{**row._mapping, **changes}))


def _started(
    game_name: str, params: Any, server_seed: str, seats: Sequence[Seat]
) -> dict[str, Any]:
    """Deal: the opening state from the fair generator; the columns that store it (its setup
    tags, the players' seeds, the generator's counter and the status)."""
    game = get_game(game_name)
    variant = game.variant_from_params(params)
    player_seeds = [seat.seed for seat in seats if seat.seed]
    rng = FairRandom(bytes.fromhex(server_seed), player_seeds, 0)
    start = game.start(variant, rng)
    return {
        "player_seeds": player_seeds,
        "setup": [[key, value] for key, value in game.setup_tags(start)],
        "start_counter": rng.counter,
        "status": FINISHED if start.is_terminal else RUNNING,
    }


# --- the step log -------------------------------------------------------------------------


def steps_after(db: Database, table_id: str, version: int) -> tuple[TableData, list[StoredStep]]:
    """The table row and the steps from ``version`` on, so that a cached game can catch up
    with steps another process stored without replaying the whole log. A gap in the log
    raises :class:`StorageError`."""
    with db.reading() as connection:
        table = TableData.of(_table_row(connection, table_id))
        rows = connection.execute(_STEPS_FROM, {"p_table": table_id, "p_version": version}).all()
    steps = [StoredStep(*row) for row in rows]
    for expected, step in enumerate(steps, start=version):
        if step.seq != expected:
            raise StorageError(f"table {table_id}: step {expected} is missing from the log")
    return table, steps


def read_log(db: Database, table_id: str) -> tuple[TableData, list[StoredStep]]:
    """The table row and its whole step log, in order."""
    return steps_after(db, table_id, 0)


_STEPS_FROM: Final = (
    select(STEPS.c.seq, STEPS.c.action, STEPS.c.actor, STEPS.c.seat, STEPS.c.rng_counter)
    .where(STEPS.c.table_id == bindparam("p_table"), STEPS.c.seq >= bindparam("p_version"))
    .order_by(STEPS.c.seq)
)
_INSERT_STEP: Final = insert(STEPS)
#: the table after its new steps: ``p_steps`` more stored, touched now (and finished, with
#: the last step)
_ADVANCE: Final = (
    update(TABLES)
    .where(TABLES.c.id == bindparam("p_table"))
    .values(
        version=TABLES.c.version + bindparam("p_steps", type_=Integer),
        updated_at=bindparam("p_now"),
    )
)
_FINISH: Final = _ADVANCE.values(status=FINISHED)
#: what the update gives back: the whole row, or (for a caller holding the table) only what
#: anyone but the step's writer may have changed since the start (the seats) and the version
_RETURNING: Final = {
    (finishes, whole): (_FINISH if finishes else _ADVANCE).returning(
        *([TABLES] if whole else [TABLES.c.version, TABLES.c.status, TABLES.c.seats])
    )
    for finishes in (False, True)
    for whole in (False, True)
}


def append_step(
    db: Database,
    table_id: str,
    step: StoredStep,
    *,
    finishes: bool,
    table: TableData | None = None,
) -> TableData:
    """Store ``step`` (played on version ``step.seq``) in one transaction, the table
    finishing with it when ``finishes``; returns the table row as it is after. Another step
    stored first on that version raises :class:`StaleVersionError` and stores nothing (the
    ``(table_id, seq)`` unique key refuses the second row).

    One insert and one update (the version, the time, the status), nothing read back: the
    update returns the row (``RETURNING``); a caller that gives the ``table`` it holds (read
    at any time since the start: nothing else of a started table changes) gets it back with
    only the seats, status and version returned (no decoding of the rest), through the
    driver itself (:class:`_StepWriter`: the server's hot path). Only the database changes:
    the caller extends its own game with the step."""
    if table is not None:
        return append_steps(db, table_id, [step], finishes=finishes, table=table)
    now = utcnow()
    try:
        with db.writing() as connection:
            connection.execute(_INSERT_STEP, {**_step_row(table_id, step), "created_at": now})
            returning = _RETURNING[finishes, True]
            row = connection.execute(
                returning, {"p_table": table_id, "p_now": now, "p_steps": 1}
            ).one_or_none()
            if row is None:
                raise NotFoundError(f"no table {table_id!r}")
    except IntegrityError as error:
        raise _stale(table_id, step) from error
    return TableData.of(row)


def append_steps(
    db: Database,
    table_id: str,
    steps: Sequence[StoredStep],
    *,
    finishes: bool,
    table: TableData,
) -> TableData:
    """Store consecutive ``steps`` (the first played on version ``steps[0].seq``) in one
    transaction, as :func:`append_step` stores one: an action and the dice the server rolls
    right after it cost one commit (one round trip on PostgreSQL), not two. All or nothing:
    a step another writer stored first refuses them all (:class:`StaleVersionError`)."""
    write = StepWrite(table_id, tuple(steps), finishes, table)
    result = store_writes(db, [write])[0]
    if isinstance(result, Exception):
        raise result
    return result


@dataclass(frozen=True, slots=True)
class StepWrite:
    """One table's consecutive steps to store together (:func:`append_steps`), ``table``
    the row its writer holds (only the seats, status and version come back)."""

    table_id: str
    steps: tuple[StoredStep, ...]
    finishes: bool
    table: TableData

    def __post_init__(self) -> None:
        steps = self.steps
        if not steps or any(s.seq != steps[0].seq + i for i, s in enumerate(steps)):
            raise ValueError("append_steps: give consecutive steps, at least one")


#: what storing a write gave: the table row after it, or why it was not stored
WriteResult = TableData | Exception


def store_writes(db: Database, writes: Sequence[StepWrite]) -> list[WriteResult]:
    """Store several tables' writes (one each at most) in one transaction: on SQLite one
    ``BEGIN IMMEDIATE`` and one commit for them all (a group commit: the commit, not the rows,
    is most of what a write costs). Each write's result in order: its table after it, or
    the error that refused it (:class:`StaleVersionError`, :class:`NotFoundError`, a
    :class:`sqlalchemy.exc.DBAPIError`); a write refused refuses nothing else (the others
    are stored again one transaction each). PostgreSQL's writes here go one statement
    each (:func:`store_writes_async` groups them)."""
    now = utcnow()
    writer = _step_writer(db.engine.dialect)
    try:
        with db.kept_connection() as raw:
            if writer.sqlite and len(writes) > 1:
                try:
                    return writer.store_together(raw, writes, now)
                except Exception:
                    pass  # one of them refused: each on its own, to tell which
            results = [writer.store_alone(raw, write, now) for write in writes]
            if any(isinstance(r, Exception) and not isinstance(r, StorageError) for r in results):
                raise _GiveBack(results)  # (a connection that failed is not kept)
            return results
    except _GiveBack as given_back:
        return given_back.results


class _GiveBack(Exception):
    """A write failed in the database itself: the kept connection goes back to the pool."""

    def __init__(self, results: list[WriteResult]) -> None:
        super().__init__("a write failed")
        self.results = results


async def store_writes_async(
    db: Database, connection: Any, writes: Sequence[StepWrite]
) -> list[WriteResult]:
    """:func:`store_writes` on PostgreSQL through psycopg's asyncio ``connection`` (in
    autocommit mode: the event loop waits for no thread): one statement, one transaction
    (several writes as arrays), each write stored alone when one is refused. A connection
    that breaks raises (the driver's error, or SQLAlchemy's for a write it failed)."""
    now = utcnow()
    writer = _step_writer(db.engine.dialect)
    if len(writes) > 1:
        try:
            return await writer.store_together_async(connection, writes, now)
        except writer.dbapi.Error:
            if connection.broken or connection.closed:
                raise
    results = [await writer.store_alone_async(connection, write, now) for write in writes]
    failed = [r for r in results if isinstance(r, Exception)]
    if failed and (connection.broken or connection.closed):
        raise failed[0]  # (the connection is replaced: the caller hears of it)
    return results


_STEP_COLUMNS: Final = ("table_id", "seq", "action", "actor", "seat", "rng_counter", "created_at")


def _step_row(table_id: str, step: StoredStep) -> dict[str, Any]:
    """A step's row but its time (``created_at``, the same for every step of a write)."""
    return {
        "table_id": table_id,
        "seq": step.seq,
        "action": step.action,
        "actor": step.actor,
        "seat": step.seat,
        "rng_counter": step.rng_counter,
    }


def _stale(table_id: str, step: StoredStep) -> StaleVersionError:
    return StaleVersionError(f"step {step.seq} of table {table_id} was stored by another writer")


class _StepWriter:
    """:func:`append_step`'s two statements, compiled once per dialect by SQLAlchemy from
    the same Core statements, and run on the driver's connection: SQLAlchemy's execution of
    a compiled statement (cache key, parameters, result metadata, events) costs several times
    what the database does for one row. The columns' own types convert the values both ways
    (the time as SQLAlchemy stores it, the seats' JSON), so the rows are the ones the Core
    path writes; driver errors come out as SQLAlchemy's (:class:`sqlalchemy.exc.DBAPIError`)."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.sqlite = dialect.name == "sqlite"
        self.dbapi = dialect.loaded_dbapi
        self.insert = _Compiled(_INSERT_STEP.inline(), dialect, _STEP_COLUMNS)
        self.advance = {
            finishes: _Compiled(_RETURNING[finishes, False], dialect) for finishes in (False, True)
        }
        #: PostgreSQL, (finishes, how many steps) -> the insert and the update in one
        #: statement (the insert as a data-modifying ``WITH``), run on its own as one
        #: transaction: one round trip instead of four (begin, insert, update, commit); the
        #: insert failing fails the statement, so nothing changes
        self._together: dict[tuple[bool, int], _Compiled] = {}
        seats_type = TABLES.c.seats.type.dialect_impl(dialect)
        processor = seats_type.result_processor(dialect, None)
        self.seats: Callable[[Any], Any] = processor if processor is not None else _as_is

    def together(self, finishes: bool, count: int) -> _Compiled:
        compiled = self._together.get((finishes, count))
        if compiled is None:
            rows: list[dict[str, Any]] = [
                {key: bindparam(f"{key}_{i}") for key in _STEP_COLUMNS} for i in range(count)
            ]
            new_steps = insert(STEPS).values(rows)
            statement = _RETURNING[finishes, False].add_cte(new_steps.cte("new_steps"))
            compiled = self._together[finishes, count] = _Compiled(statement, self.dialect)
        return compiled

    # -- SQLite: the rows, then each table's update, in one serialised transaction --

    def _rows(self, writes: Sequence[StepWrite], now: datetime) -> list[Any]:
        created = {"created_at": self.insert.convert("created_at", now)}
        params = self.insert.params
        return [params(_step_row(w.table_id, s), created) for w in writes for s in w.steps]

    def _advance(self, write: StepWrite, now: datetime) -> tuple[str, Any]:
        advance = self.advance[write.finishes]
        values = {"p_table": write.table_id, "p_now": now, "p_steps": len(write.steps)}
        return advance.sql, advance.params(values)

    def store_together(self, raw: Any, writes: Sequence[StepWrite], now: datetime) -> list[Any]:
        """SQLite: every write in one transaction (raises, storing none, if one fails)."""
        cursor = raw.cursor()
        try:
            cursor.execute("BEGIN IMMEDIATE")  # the write lock first
            cursor.executemany(self.insert.sql, self._rows(writes, now))
            rows: dict[str, Any] = {}
            stamp = self.insert.convert("created_at", now)  # (the tables' clock alike)
            for start in range(0, len(writes), _SQLITE_BATCH):
                part = writes[start : start + _SQLITE_BATCH]
                params: list[Any] = [stamp]
                for write in part:
                    params += (write.table_id, len(write.steps), write.finishes)
                cursor.execute(_sqlite_batch_sql(len(part)), params)
                rows.update((row[0], row[1:]) for row in cursor.fetchall())
            results = self._each_after(writes, rows, now)
            raw.commit()
            return results
        except BaseException:
            with contextlib.suppress(Exception):
                raw.rollback()
            raise
        finally:
            cursor.close()

    def store_alone(self, raw: Any, write: StepWrite, now: datetime) -> WriteResult:
        """One write in a transaction of its own: its table after it, or what refused it."""
        cursor = raw.cursor()
        statement: str = ""
        params: Any = ()
        try:
            if self.sqlite:
                statement = "BEGIN IMMEDIATE"  # the write lock first
                cursor.execute(statement)
                rows = self._rows([write], now)
                statement = self.insert.sql
                if len(rows) == 1:
                    params = rows[0]
                    cursor.execute(statement, params)
                else:
                    params = rows
                    cursor.executemany(statement, params)
                statement, params = self._advance(write, now)
                cursor.execute(statement, params)
            else:
                statement, params = self._statement(write, now)
                raw.dbapi_connection.autocommit = True
                try:
                    cursor.execute(statement, params)
                finally:
                    raw.dbapi_connection.autocommit = False
            row = cursor.fetchone()
            if row is None:
                raise NotFoundError(f"no table {write.table_id!r}")
            if self.sqlite:
                raw.commit()
            return self._after(write, row, now)
        except BaseException as error:
            with contextlib.suppress(Exception):
                raw.rollback()
            if not isinstance(error, Exception):
                raise
            return self._refused(write, error, statement, params)
        finally:
            cursor.close()

    # -- PostgreSQL: the insert and the update as one statement --

    def _statement(self, write: StepWrite, now: datetime) -> tuple[str, Any]:
        together = self.together(write.finishes, len(write.steps))
        values: dict[str, Any] = {
            "p_table": write.table_id,
            "p_now": now,
            "p_steps": len(write.steps),
        }
        for i, s in enumerate(write.steps):
            for key, value in _step_row(write.table_id, s).items():
                values[f"{key}_{i}"] = value
            values[f"created_at_{i}"] = now
        return together.sql, together.params(values)

    async def store_together_async(
        self, connection: Any, writes: Sequence[StepWrite], now: datetime
    ) -> list[Any]:
        """PostgreSQL: every write in one statement (one round trip, one transaction; raises,
        storing none, if one fails): the rows and the tables' counts as arrays, so that the
        statement's text, prepared once, is the same for any number of writes."""
        steps = [(w.table_id, s) for w in writes for s in w.steps]
        cursor = await connection.execute(
            _BATCH_SQL,
            {
                "now": now,
                "s_table": [table_id for table_id, _ in steps],
                "s_seq": [s.seq for _, s in steps],
                "s_action": [s.action for _, s in steps],
                "s_actor": [s.actor for _, s in steps],
                "s_seat": [s.seat for _, s in steps],
                "s_counter": [s.rng_counter for _, s in steps],
                "t_id": [w.table_id for w in writes],
                "t_steps": [len(w.steps) for w in writes],
                "t_finishes": [w.finishes for w in writes],
            },
        )
        rows = {row[0]: row[1:] for row in await cursor.fetchall()}
        return self._each_after(writes, rows, now)

    async def store_alone_async(
        self, connection: Any, write: StepWrite, now: datetime
    ) -> WriteResult:
        statement, params = self._statement(write, now)
        try:
            cursor = await connection.execute(statement, params)
            row = await cursor.fetchone()
            if row is None:
                raise NotFoundError(f"no table {write.table_id!r}")
        except Exception as error:
            return self._refused(write, error, statement, params)
        return self._after(write, row, now)

    # -- both --

    def _each_after(
        self, writes: Sequence[StepWrite], rows: Mapping[str, Any], now: datetime
    ) -> list[Any]:
        """Each write's table after it, from the rows returned by table id (a table without
        one does not exist: raises, so that the transaction stores nothing)."""
        results = []
        for write in writes:
            row = rows.get(write.table_id)
            if row is None:
                raise NotFoundError(f"no table {write.table_id!r}")
            results.append(self._after(write, row, now))
        return results

    def _after(self, write: StepWrite, row: Any, now: datetime) -> TableData:
        version, status, seats = row
        return replace(
            write.table,
            seats=self.seats_of(seats),
            status=str(status),
            updated_at=now,
            version=int(version),
        )

    def _refused(
        self, write: StepWrite, error: Exception, statement: str, params: Any
    ) -> Exception:
        """What a caller is told of a write the database refused."""
        if isinstance(error, self.dbapi.IntegrityError):
            refused: StorageError = (
                NotFoundError(f"no table {write.table_id!r}")
                if _no_such_row(error)
                else _stale(write.table_id, write.steps[0])
            )
            refused.__cause__ = error
            return refused
        return driver_error(error, self.dbapi, statement, params)

    def seats_of(self, stored: Any) -> tuple[Seat, ...]:
        """The seats from the column as the driver gives it: text (SQLite) read once per
        distinct text (a table's seats change a few times in a game, its steps thousands)."""
        if isinstance(stored, str):
            return _seats_of_text(self.seats, stored)
        return tuple(Seat.from_row(seat) for seat in self.seats(stored))


#: SQLite: the tables of at most this many writes advanced by one statement
_SQLITE_BATCH: Final = 500


@functools.lru_cache(maxsize=64)
def _sqlite_batch_sql(writes: int) -> str:
    """SQLite: the tables of ``writes`` writes advanced at once (their ids, counts and
    whether they finish as rows of ``VALUES``, after the time), returning each table's row."""
    rows = ", ".join(f"(?{3 * i + 2}, ?{3 * i + 3}, ?{3 * i + 4})" for i in range(writes))
    return (
        f"WITH v(id, steps, finishes) AS (VALUES {rows}) "
        f"UPDATE {TABLES.name} SET version = {TABLES.name}.version + v.steps, updated_at = ?1, "
        f"status = CASE WHEN v.finishes THEN '{FINISHED}' ELSE {TABLES.name}.status END "
        f"FROM v WHERE {TABLES.name}.id = v.id "
        f"RETURNING {TABLES.name}.id, {TABLES.name}.version, {TABLES.name}.status, "
        f"{TABLES.name}.seats"
    )


#: PostgreSQL: several tables' steps and the tables' counts in one statement (the insert as
#: a data-modifying ``WITH``; ``unnest`` makes rows of the arrays)
_BATCH_SQL: Final = f"""\
WITH new_steps AS (
  INSERT INTO {STEPS.name} (table_id, seq, action, actor, seat, rng_counter, created_at)
  SELECT s.table_id, s.seq, s.action, s.actor, s.seat, s.rng_counter, %(now)s
  FROM unnest(%(s_table)s::text[], %(s_seq)s::integer[], %(s_action)s::text[],
              %(s_actor)s::text[], %(s_seat)s::integer[], %(s_counter)s::integer[])
       AS s(table_id, seq, action, actor, seat, rng_counter)
)
UPDATE {TABLES.name} AS t
SET version = t.version + v.steps, updated_at = %(now)s,
    status = CASE WHEN v.finishes THEN '{FINISHED}' ELSE t.status END
FROM unnest(%(t_id)s::text[], %(t_steps)s::integer[], %(t_finishes)s::boolean[])
     AS v(id, steps, finishes)
WHERE t.id = v.id
RETURNING t.id, t.version, t.status, t.seats"""


def driver_error(
    error: Exception, dbapi: Any, statement: str | None = None, params: Any = None
) -> Exception:
    """An error of the driver ``dbapi`` (its module) as SQLAlchemy's, what storage raises
    everywhere; any other error as it is."""
    if isinstance(error, dbapi.Error):
        wrapped: Exception = DBAPIError.instance(statement, params, error, dbapi.Error)
        wrapped.__cause__ = error
        return wrapped
    return error


def _no_such_row(error: Exception) -> bool:
    """Whether the database refused a row for naming a row that is not there (a step of a
    table that does not exist), not for a row already stored."""
    if getattr(error, "sqlstate", None) == "23503":  # PostgreSQL's foreign_key_violation
        return True
    return "FOREIGN KEY constraint failed" in str(error)  # SQLite's


def _as_is(value: Any) -> Any:
    return value


@functools.lru_cache(maxsize=4096)
def _seats_of_text(read: Callable[[Any], Any], text: str) -> tuple[Seat, ...]:
    """The seats stored as ``text`` (``read``: the column type's reader); the seats are
    immutable values, shared by every table row read with the same text."""
    return tuple(Seat.from_row(seat) for seat in read(text))


class _Compiled:
    """One Core statement as the driver takes it: its SQL text and how to turn named values
    into the driver's parameters (positional or named, each converted by its bind's type,
    the statement's own literals filled in)."""

    def __init__(
        self, statement: Any, dialect: Dialect, column_keys: Sequence[str] | None = None
    ) -> None:
        compiled = statement.compile(dialect=dialect, column_keys=column_keys)
        self.sql: str = compiled.string
        self.positional = bool(compiled.positional)
        types = {name: bind.type for bind, name in compiled.bind_names.items()}
        self.keys: list[str] = list(compiled.positiontup or []) if self.positional else list(types)
        self.literals = {key: value for key, value in compiled.params.items() if value is not None}
        self.processors: dict[str, Any] = {}
        for key in self.keys:
            processor = types[key].dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                self.processors[key] = processor

    def params(self, values: Mapping[str, Any], converted: Mapping[str, Any] = {}) -> Any:
        """The driver's parameters for ``values``; ``converted``: values already in the
        driver's form (one time shared by every row of a write, converted once)."""
        merged = {**self.literals, **values}
        out = {
            key: converted[key]
            if key in converted
            else self.processors[key](merged[key])
            if key in self.processors
            else merged[key]
            for key in self.keys
        }
        if self.positional:
            return tuple(out[key] for key in self.keys)
        return out

    def convert(self, key: str, value: Any) -> Any:
        """``value`` in the driver's form for the parameter ``key``."""
        processor = self.processors.get(key)
        return value if processor is None else processor(value)


@functools.lru_cache(maxsize=8)
def _step_writer(dialect: Dialect) -> _StepWriter:
    return _StepWriter(dialect)


def running_ids(db: Database) -> list[str]:
    """Every running table's id (a cheap query for the lease sweeper)."""
    with db.reading() as connection:
        return list(connection.scalars(select(TABLES.c.id).where(TABLES.c.status == RUNNING)))


def stored_versions(db: Database, table_ids: Sequence[str]) -> dict[str, int]:
    """How many steps each of ``table_ids`` has stored, read from the tables' version column
    (one number per table, whatever the length of its log); a table that does not exist is
    left out."""
    if not table_ids:
        return {}
    with db.reading() as connection:
        rows = connection.execute(
            select(TABLES.c.id, TABLES.c.version).where(TABLES.c.id.in_(list(table_ids)))
        )
        return {table_id: int(version) for table_id, version in rows}


def count_by_status(db: Database) -> dict[str, int]:
    """How many tables are open, running and finished (for the metrics)."""
    with db.reading() as connection:
        rows = connection.execute(select(TABLES.c.status, func.count()).group_by(TABLES.c.status))
        counts = dict.fromkeys((OPEN, RUNNING, FINISHED), 0)
        counts.update({str(status): int(count) for status, count in rows})
        return counts


def stored_version(db: Database, table_id: str) -> int:
    """How many steps the table has stored (0 for a table that does not exist)."""
    with db.reading() as connection:
        version = connection.scalar(select(TABLES.c.version).where(TABLES.c.id == table_id))
        return int(version or 0)


# --- a finished game ----------------------------------------------------------------------


def finished_log(
    db: Database, table_id: str, what: str = "this"
) -> tuple[TableData, list[StoredStep]]:
    """A finished table's row and whole log; :class:`NotFinishedError` (saying ``what``
    comes at the end) before its end."""
    table, steps = read_log(db, table_id)
    if table.setup is None or table.status != FINISHED:
        raise NotFinishedError(f"table {table_id} has not finished: {what} comes at the end")
    return table, steps


def replay(db: Database, table_id: str) -> dict[str, JSON]:
    """A finished game step by step for a replay viewer: the opening view and, per step,
    who made it, the action in full notation (nothing is hidden any more) and the view
    after it. Views are a spectator's (``observe(state, None)``); a step's ``version`` is
    the state's version after it, as a state message gives it. The game replays its own
    record: the engine checks every stored step again."""
    table, log = finished_log(db, table_id)
    game = get_game(table.game)
    states = game.replay(table.opening_record([step.action for step in log]))
    steps: list[JSON] = [
        {
            "version": step.seq + 1,
            "actor": step.actor,
            "seat": step.seat,
            "action": step.action,
            "view": game.observe(after, None),
        }
        for step, after in zip(log, states[1:], strict=True)
    ]
    return {"start": game.observe(states[0], None), "steps": steps}


def export_record(db: Database, table_id: str) -> str:
    """A finished game as a record in the usual format, with the fair-dice tags and the
    server seed revealed."""
    table, log = finished_log(db, table_id, "its record")
    game = get_game(table.game)
    start = game.opening(table.opening_record())
    tags = fair_tags(table.server_seed, table.player_seeds, reveal=True)
    record = game.make_record(table.names, start, [step.action for step in log], tuple(tags))
    return game.dumps(record)
