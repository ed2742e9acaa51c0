"""Each finished game's results, stored once: a row per seat (who sat there, place, score,
won) and, in a rated game, every rated seat's rating before and after, the ratings updated
in the same transaction (``docs/ratings.md``). A game is rated when it is the rulebook's
game for its seat count, every person at it is signed in, and at least one is.

:func:`record_results` is idempotent (the rows' key is the table and the seat): the server
calls it as a game ends and again at start-up for every finished table without results, so
that a process killed in between loses nothing."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import Connection, case, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from marsdice.core.game import GameState
from marsdice.games import get_game
from marsdice.ratings import INITIAL, Rating, rate
from marsdice.ratings.model import Z
from marsdice.storage.db import Database
from marsdice.storage.models import Base, RatingRow, ResultRow, ReviewRow, utcnow
from marsdice.storage.tables import (
    FINISHED,
    TABLES,
    Seat,
    StorageError,
    TableData,
    finished_log,
)

log: Final = logging.getLogger("marsdice.storage")
RESULTS: Final = Base.metadata.tables[ResultRow.__tablename__]
#: the actor of a step a stand-in bot made for an absent person (``web.hub``'s)
STAND_IN: Final = "stand-in"
RATINGS: Final = Base.metadata.tables[RatingRow.__tablename__]
REVIEWS: Final = Base.metadata.tables[ReviewRow.__tablename__]


def player_key(seat: Seat) -> str | None:
    """Whose result a seat's is: an account's, a bot's, or nobody's (a guest)."""
    if seat.user_id is not None:
        return f"user:{seat.user_id}"
    if seat.kind == "bot" and seat.bot:
        return f"bot:{seat.bot}"
    return None


def is_rated(table: TableData) -> bool:
    """The rulebook's game, two seats or more, every person signed in, at least one."""
    if not table.ratable:
        return False
    people = [seat for seat in table.seats if seat.kind == "human"]
    return bool(people) and all(seat.user_id is not None for seat in people)


def final_state(table: TableData, actions: Sequence[str]) -> GameState:
    """The finished game's last position, its record replayed (the engine checks it)."""
    game = get_game(table.game)
    return game.replay(table.opening_record(actions))[-1]


def record_results(
    db: Database,
    table_id: str,
    finished: tuple[TableData, GameState, frozenset[int]] | None = None,
) -> bool:
    """Store the finished table's results (and ratings) unless they are stored; whether
    this call stored them. ``finished``: the table as its last step left it, the game's
    last position and the seats a stand-in moved for, when the caller holds them (the
    server, as a game ends: nothing is read back or replayed); without it they are read
    and the record replayed. A transaction
    refused for another reason than these results being stored (a concurrent writer's key)
    is tried again."""
    for _attempt in range(5):
        if finished is None:
            table, log = finished_log(db, table_id, "its results")
            with db.reading() as connection:
                if _recorded(connection, table_id):
                    return False
            seats = stood_in((step.actor, step.seat) for step in log)
            finished = (table, final_state(table, [step.action for step in log]), seats)
        stored = _record(db, table_id, *finished)
        if stored is not None:
            return stored
    raise StorageError(f"table {table_id}: its results could not be stored")


def stood_in(actors: Iterable[tuple[str, int | None]]) -> frozenset[int]:
    """The seats a stand-in moved for, from each step's actor and seat."""
    return frozenset(seat for actor, seat in actors if actor == STAND_IN and seat is not None)


def rated_places(placings: Sequence[int], stood_in: frozenset[int]) -> tuple[int, ...]:
    """The places a rated game is rated by: a seat a stand-in bot moved for at any time is
    placed after every seat its own player played to the end (the stand-in's play is not
    its player's: leaving never earns a rating), those seats sharing the last place; the
    others keep their order.

    >>> rated_places((1, 2, 3), frozenset({0}))
    (3, 1, 2)
    """
    kept = sorted({place for seat, place in enumerate(placings) if seat not in stood_in})
    rank = {place: i + 1 for i, place in enumerate(kept)}
    last = len(kept) + 1
    return tuple(last if seat in stood_in else rank[place] for seat, place in enumerate(placings))


def _record(
    db: Database, table_id: str, table: TableData, state: GameState, stood_in: frozenset[int]
) -> bool | None:
    """True: stored; False: stored already; None: refused by a concurrent writer."""
    if not state.is_terminal or table.status != FINISHED:
        raise StorageError(f"table {table_id} has not finished: its results come at the end")
    placings = state.placings()
    scores = state.scores
    winners = set(state.winners)
    rated = is_rated(table)
    players = [player_key(seat) for seat in table.seats]
    now = utcnow()
    rows = [
        {
            "table_id": table_id,
            "seat": i,
            "game": table.game,
            "player": players[i],
            "name": table.names[i],
            "seats": len(table.seats),
            "placing": placings[i],
            "score": float(scores[i]),
            "won": i in winners,
            "rated": rated,
            "mu_before": None,
            "sigma_before": None,
            "mu_after": None,
            "sigma_after": None,
            "finished_at": table.updated_at,
        }
        for i in range(len(table.seats))
    ]
    try:
        with db.writing() as connection:
            if rated:
                names = {key: table.names[i] for i, key in enumerate(players) if key}
                before = _ratings(connection, table.game, names, now)
                old = [before[key] if key else INITIAL for key in players]
                new = rate(old, rated_places(placings, stood_in))
                for row, was, now_is in zip(rows, old, new, strict=True):
                    row.update(
                        mu_before=was.mu,
                        sigma_before=was.sigma,
                        mu_after=now_is.mu,
                        sigma_after=now_is.sigma,
                    )
                for key, rating in _per_player(players, new).items():
                    _store_rating(connection, table.game, key, names[key], rating, now)
            connection.execute(insert(RESULTS), rows)
    except IntegrityError:  # another writer was first (these results, or a new rating)
        with db.reading() as connection:
            return False if _recorded(connection, table_id) else None
    return True


def _per_player(players: Sequence[str | None], new: Sequence[Rating]) -> dict[str, Rating]:
    """Each player's new rating: a bot seated more than once in a game (two ``cautious``
    seats) gets the mean of its seats' updates, the game counted once."""
    seats: dict[str, list[Rating]] = {}
    for key, rating in zip(players, new, strict=True):
        if key is not None:
            seats.setdefault(key, []).append(rating)
    return {
        key: Rating(
            sum(r.mu for r in ratings) / len(ratings), sum(r.sigma for r in ratings) / len(ratings)
        )
        for key, ratings in seats.items()
    }


def _recorded(connection: Connection, table_id: str) -> bool:
    found = connection.scalar(select(RESULTS.c.seat).where(RESULTS.c.table_id == table_id))
    return found is not None


def _ratings(
    connection: Connection, game: str, names: Mapping[str, str], now: datetime
) -> dict[str, Rating]:
    """The players' ratings, locked until the transaction ends (on PostgreSQL; SQLite's
    writer holds the whole file): a player without one is given the initial rating first,
    by an insert that another transaction's own cannot make fail (``ON CONFLICT DO
    NOTHING``), so that two games ending at once both rate a new player, one after the
    other."""
    insert_new = (postgresql_insert if connection.dialect.name == "postgresql" else sqlite_insert)(
        RATINGS
    ).on_conflict_do_nothing(index_elements=["game", "player"])
    connection.execute(
        insert_new,
        [
            {"game": game, "player": key, "name": name, "mu": INITIAL.mu,
             "sigma": INITIAL.sigma, "games": 0, "updated_at": now}
            for key, name in names.items()
        ],
    )  # fmt: skip
    query = select(RATINGS).where(RATINGS.c.game == game, RATINGS.c.player.in_(list(names)))
    if connection.dialect.name == "postgresql":
        query = query.with_for_update()
    return {row.player: Rating(row.mu, row.sigma) for row in connection.execute(query)}


def _store_rating(
    connection: Connection, game: str, key: str, name: str, rating: Rating, now: datetime
) -> None:
    connection.execute(
        update(RATINGS)
        .where(RATINGS.c.game == game, RATINGS.c.player == key)
        .values(
            name=name,
            mu=rating.mu,
            sigma=rating.sigma,
            updated_at=now,
            games=RATINGS.c.games + 1,
        )
    )


def unrecorded_tables(db: Database, limit: int = 1000) -> list[str]:
    """Finished tables whose results are not stored (a process stopped in between, or a
    table finished before revision 0004)."""
    with db.reading() as connection:
        query = (
            select(TABLES.c.id)
            .outerjoin(RESULTS, RESULTS.c.table_id == TABLES.c.id)
            .where(TABLES.c.status == FINISHED, RESULTS.c.table_id.is_(None))
            .order_by(TABLES.c.updated_at)
            .limit(limit)
        )
        return list(connection.scalars(query))


def record_all(db: Database) -> int:
    """Store every finished table's missing results; how many tables were recorded. A
    table whose results cannot be stored (its log does not replay) is logged and passed
    over: it never keeps the server from starting."""
    done = 0
    failed: set[str] = set()
    while True:
        found = unrecorded_tables(db, limit=1000 + len(failed))
        ids = [table_id for table_id in found if table_id not in failed]
        if not ids:
            return done
        for table_id in ids:
            try:
                done += record_results(db, table_id)
            except Exception as error:  # (the game's own checks: one bad table, not all)
                log.error("table %s: its results cannot be stored: %s", table_id, error)
                failed.add(table_id)


# --- reviews ----------------------------------------------------------------------------------


def stored_review(db: Database, table_id: str) -> str | None:
    """The finished game's review JSON, if it has been worked out."""
    with db.reading() as connection:
        found = connection.scalar(select(REVIEWS.c.review).where(REVIEWS.c.table_id == table_id))
    return None if found is None else str(found)


def store_review(
    db: Database, table_id: str, review: str, accuracies: Sequence[float | None]
) -> None:
    """Keep the review (a second writer's is the same: the first stays) and each seat's
    accuracy with the game's results."""
    try:
        with db.writing() as connection:
            connection.execute(
                insert(REVIEWS), {"table_id": table_id, "review": review, "created_at": utcnow()}
            )
            for seat, accuracy in enumerate(accuracies):
                connection.execute(
                    update(RESULTS)
                    .where(RESULTS.c.table_id == table_id, RESULTS.c.seat == seat)
                    .values(accuracy=accuracy)
                )
    except IntegrityError:
        pass  # reviewed meanwhile: the same review


# --- reading: profiles, history, leaderboards ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    player: str
    name: str
    rating: Rating
    games: int
    game: str


def leaderboard(db: Database, game: str, limit: int = 100) -> list[Standing]:
    """The game's ``limit`` best rated players, best first: by the conservative estimate
    (what the shown rating rounds), then by name. Ranked and cut by the database, so that
    a page of the leaderboard costs the page, not every player ever rated."""
    ordinal = RATINGS.c.mu - Z * RATINGS.c.sigma
    with db.reading() as connection:
        rows = connection.execute(
            select(RATINGS)
            .where(RATINGS.c.game == game)
            .order_by(ordinal.desc(), RATINGS.c.name, RATINGS.c.player)
            .limit(max(0, limit))
        )
        return [Standing(r.player, r.name, Rating(r.mu, r.sigma), r.games, r.game) for r in rows]


def ratings_of(db: Database, player: str) -> list[Standing]:
    with db.reading() as connection:
        rows = connection.execute(
            select(RATINGS).where(RATINGS.c.player == player).order_by(RATINGS.c.game)
        )
        return [Standing(r.player, r.name, Rating(r.mu, r.sigma), r.games, r.game) for r in rows]


def summary(db: Database, player: str) -> dict[str, Any]:
    """A player's games per game and seat count: played, won, average score."""
    with db.reading() as connection:
        rows = connection.execute(
            select(
                RESULTS.c.game,
                RESULTS.c.seats,
                func.count(),
                func.sum(case((RESULTS.c.won, 1), else_=0)),
                func.avg(RESULTS.c.score),
                func.avg(RESULTS.c.accuracy),
                func.count(RESULTS.c.accuracy),
            )
            .where(RESULTS.c.player == player)
            .group_by(RESULTS.c.game, RESULTS.c.seats)
            .order_by(RESULTS.c.game, RESULTS.c.seats)
        )
        out: dict[str, Any] = {}
        for game, seats, played, won, average, accuracy, reviewed in rows:
            entry = out.setdefault(
                game,
                {"played": 0, "won": 0, "score_total": 0.0, "by_seats": {}, "acc": 0.0, "n": 0},
            )
            entry["acc"] += float(accuracy or 0) * reviewed
            entry["n"] += reviewed
            entry["played"] += played
            entry["won"] += int(won or 0)
            entry["score_total"] += float(average or 0) * played
            entry["by_seats"][str(seats)] = {
                "played": played,
                "won": int(won or 0),
                "win_rate": int(won or 0) / played,
            }
    for entry in out.values():
        entry["win_rate"] = entry["won"] / entry["played"]
        entry["average_score"] = entry.pop("score_total") / entry["played"]
        reviewed = entry.pop("n")
        total = entry.pop("acc")
        #: the mean accuracy over the games that were reviewed (null: none yet)
        entry["accuracy"] = total / reviewed if reviewed else None
        entry["reviewed"] = reviewed
    return out


def history(
    db: Database, player: str, game: str | None = None, limit: int = 50, before: str | None = None
) -> list[dict[str, Any]]:
    """A player's finished games, the latest first, each with the rating it left."""
    with db.reading() as connection:
        query = select(RESULTS).where(RESULTS.c.player == player)
        if game is not None:
            query = query.where(RESULTS.c.game == game)
        rows = list(connection.execute(query.order_by(RESULTS.c.finished_at.desc()).limit(limit)))
        ids = [row.table_id for row in rows]
        everyone = connection.execute(
            select(RESULTS.c.table_id, RESULTS.c.seat, RESULTS.c.name, RESULTS.c.placing)
            .where(RESULTS.c.table_id.in_(ids))
            .order_by(RESULTS.c.table_id, RESULTS.c.seat)
        )
        seated: dict[str, list[dict[str, Any]]] = {}
        for table_id, seat, name, placing in everyone:
            seated.setdefault(table_id, []).append({"seat": seat, "name": name, "placing": placing})
    return [
        {
            "table": row.table_id,
            "game": row.game,
            "seat": row.seat,
            "seats": row.seats,
            "placing": row.placing,
            "score": row.score,
            "won": row.won,
            "rated": row.rated,
            "accuracy": row.accuracy,
            "rating": None if row.mu_after is None else Rating(row.mu_after, row.sigma_after).shown,
            "rating_before": None
            if row.mu_before is None
            else Rating(row.mu_before, row.sigma_before).shown,
            "finished_at": _utc(row.finished_at).isoformat(),
            "players": seated.get(row.table_id, []),
        }
        for row in rows
    ]


def finished_tables(
    db: Database, game: str | None = None, player: str | None = None, limit: int = 50
) -> list[dict[str, Any]]:
    """The latest finished games (of a game, of a player), each seat's name and place."""
    with db.reading() as connection:
        query = select(RESULTS.c.table_id, func.max(RESULTS.c.finished_at).label("at")).group_by(
            RESULTS.c.table_id
        )
        if game is not None:
            query = query.where(RESULTS.c.game == game)
        if player is not None:
            query = query.where(
                RESULTS.c.table_id.in_(select(RESULTS.c.table_id).where(RESULTS.c.player == player))
            )
        latest = list(
            connection.execute(query.order_by(func.max(RESULTS.c.finished_at).desc()).limit(limit))
        )
        ids = [row.table_id for row in latest]
        rows = connection.execute(
            select(RESULTS).where(RESULTS.c.table_id.in_(ids)).order_by(RESULTS.c.seat)
        )
        by_table: dict[str, list[Any]] = {}
        for row in rows:
            by_table.setdefault(row.table_id, []).append(row)
    out = []
    for entry in latest:
        seats = by_table.get(entry.table_id, [])
        if not seats:
            continue
        out.append(
            {
                "table": entry.table_id,
                "game": seats[0].game,
                "rated": seats[0].rated,
                "finished_at": _utc(entry.at).isoformat(),
                "players": [
                    {
                        "seat": s.seat,
                        "name": s.name,
                        "placing": s.placing,
                        "score": s.score,
                        "won": s.won,
                        "account": bool(s.player and s.player.startswith("user:")),
                    }
                    for s in seats
                ],
            }
        )
    return out


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
