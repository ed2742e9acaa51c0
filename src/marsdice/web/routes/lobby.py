"""The REST lobby (``docs/protocol.md``): the games, the tables, seats taken and given back,
and a finished game's record, replay, fairness check and review. Errors are raised as
exceptions and answered by :mod:`marsdice.web.errors`."""

from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from marsdice.core.game import Game, JSONObject
from marsdice.games import all_games, registration
from marsdice.storage import results, tables
from marsdice.storage.db import Database
from marsdice.storage.tables import SeatSpec
from marsdice.web.deps import ClusterDep, DatabaseDep, HubDep, TableIdDep
from marsdice.web.errors import error_response, error_responses, plain_error_responses, rate_limited
from marsdice.web.limits import app_buckets
from marsdice.web.live import finished_live
from marsdice.web.pages import STATIC_PREFIX
from marsdice.web.routes.accounts import UserDep
from marsdice.web.schemas import (
    CreateTable,
    ErrorBody,
    JoinedTable,
    JoinTable,
    LeaveTable,
    TableOptions,
)
from marsdice.web.workers import SolveRefused, review

router: Final = APIRouter(prefix="/api")
#: the tables the lobby lists at most (the newest open and running ones)
LOBBY_TABLES: Final = 100
log: Final = logging.getLogger("marsdice.web")

#: the player count of the defaults a game offers a new table, when its range allows it
DEFAULT_PLAYERS: Final = 2


@router.get("/games")
async def list_games() -> dict[str, Any]:
    """Each game as a client needs it to offer a table: its bots, what kind of game it is,
    its defaults and their schemas, and its browser plugin."""
    return {"games": [game_entry(game) for game in all_games()]}


def game_entry(game: Game) -> JSONObject:
    """One game of ``/api/games``: everything a client shows is what the game declares."""
    entry = registration(game)
    players = min(max(DEFAULT_PLAYERS, game.min_players), game.max_players)
    return {
        "name": game.name,
        "title": game.title,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "bots": [bot.name for bot in entry.bots],
        "default_opponent": entry.default_opponent,
        "game_type": {
            "information": game.game_type.information.value,
            "hidden_setup": game.game_type.hidden_setup,
        },
        "defaults": {
            "variant": game.variant_to_params(game.default_variant(players)),
            "options": TableOptions().model_dump(),
        },
        "schema": {
            "variant": game.variant_schema(),
            "options": TableOptions.model_json_schema(),
        },
        "plugin": {
            "module": f"{STATIC_PREFIX}/{entry.plugin.module}",
            "namespace": entry.plugin.namespace,
        },
    }


@router.post("/tables", status_code=201, responses=error_responses(400, 413, 422, 429))
async def create_table(body: CreateTable, db: DatabaseDep, hub: HubDep, request: Request) -> Any:
    per_minute: int = request.app.state.tables_per_minute
    if per_minute > 0:
        makers = app_buckets(request.app.state, "table_makers", per_minute, 60.0 / per_minute)
        wait = makers.wait(_address(request) or "-")
        if wait:
            return rate_limited("too many new tables from your address: wait a moment", wait)
    seats = [SeatSpec(seat.kind, seat.bot) for seat in body.seats]
    table = await hub.database(
        tables.create_table, db, body.game, body.variant, seats, body.options.model_dump()
    )
    hub.created_by(table.id, _address(request))  # its solves count against this address
    if table.status == tables.RUNNING:
        hub.kick(table.id)
    return dict(table.public())


@router.get("/tables")
async def list_tables(db: DatabaseDep) -> dict[str, Any]:
    """The open and running tables, oldest first: the newest :data:`LOBBY_TABLES` of them
    (``more``: there are others), so that the lobby costs the same however many there are."""
    found = await asyncio.to_thread(tables.list_tables, db, limit=LOBBY_TABLES + 1)
    shown = found[-LOBBY_TABLES:]
    return {"tables": [table.public() for table in shown], "more": len(found) > LOBBY_TABLES}


@router.get("/tables/{table_id}", responses=error_responses(404, 422))
async def get_table(table_id: TableIdDep, db: DatabaseDep, hub: HubDep) -> dict[str, Any]:
    table = await hub.database(tables.get_table, db, table_id)
    return dict(table.public())


@router.post("/tables/{table_id}/join", responses=error_responses(400, 404, 409, 413, 422))
async def join_table(
    table_id: TableIdDep,
    body: JoinTable,
    db: DatabaseDep,
    hub: HubDep,
    cluster: ClusterDep,
    user: UserDep,
) -> JoinedTable:
    """Take a seat; a signed-in player sits under their account's name, the seat bound to
    the account (its results and rating are the account's)."""
    table, token = await hub.database(
        tables.join,
        db,
        table_id,
        body.seat,
        body.name if user is None else user.name,
        body.seed,
        None if user is None else user.id,
    )
    await hub.refresh(table_id)
    if table.status == tables.RUNNING and await cluster.acquire(table_id):
        await hub.started(table)
        hub.kick(table_id)
        await hub.watch(table)
    return JoinedTable(table=dict(table.public()), seat=body.seat, token=token)


@router.post("/tables/{table_id}/leave", responses=error_responses(400, 403, 404, 409, 413, 422))
async def leave_table(
    table_id: TableIdDep, body: LeaveTable, db: DatabaseDep, hub: HubDep
) -> dict[str, Any]:
    table = await hub.database(tables.leave, db, table_id, body.token)
    await hub.refresh(table_id)
    if table.status == tables.RUNNING:
        hub.kick(table_id)
    return dict(table.public())


_FINISHED_ONLY: Final = error_responses(404, 409, 422)


@router.get(
    "/tables/{table_id}/record",
    response_class=PlainTextResponse,
    responses=plain_error_responses(404, 409, 422),
)
async def table_record(table_id: TableIdDep, db: DatabaseDep) -> str:
    return await asyncio.to_thread(tables.export_record, db, table_id)


@router.get("/tables/{table_id}/replay", responses=_FINISHED_ONLY)
async def table_replay(table_id: TableIdDep, db: DatabaseDep) -> dict[str, Any]:
    """Every step of a finished game with the view after it (for the replay page)."""
    return dict(await asyncio.to_thread(tables.replay, db, table_id))


@router.get("/tables/{table_id}/verify", responses=_FINISHED_ONLY)
async def table_verify(table_id: TableIdDep, db: DatabaseDep) -> dict[str, Any]:
    """The fair-dice check of the finished game's record, as ``marsdice verify``."""
    return await asyncio.to_thread(_verify, db, table_id)


_SOLVE_BUSY: Final[dict[int | str, dict[str, Any]]] = {
    503: {
        "model": ErrorBody,
        "description": "busy: the server's solves are queued full (try again after "
        "Retry-After seconds); a variant over the server's cap is a 409 too_big",
    }
}


@router.get("/tables/{table_id}/review", responses={**_FINISHED_ONLY, **_SOLVE_BUSY})
async def table_review(table_id: TableIdDep, db: DatabaseDep, hub: HubDep, request: Request) -> Any:
    """The finished game's review (``docs/review.md``), worked out once in the server's
    solve pool (``docs/server.md``; it may solve tables on first use) and then kept: a
    finished game never changes, so every later request is read back."""
    stored = await asyncio.to_thread(results.stored_review, db, table_id)
    if stored is not None:
        return Response(stored, media_type="application/json")
    live = await asyncio.to_thread(finished_live, db, table_id)
    review_json: dict[str, Any] | None = None
    for attempt in range(2):  # a worker that dies under it: once more, on a new worker
        try:
            hub.pool.check_cap(live.game, live.table.variant)
            future = hub.pool.submit(
                review,
                live.game.name,
                live.start,
                live.moves(),
                live.table.names,
                table=table_id,
                client=_address(request),
            )
        except SolveRefused as refused:
            if refused.reason == "too_big":
                return error_response(409, "too_big", f"no review: {refused}")
            return error_response(
                503, "busy", f"no review now: {refused}", headers={"Retry-After": "10"}
            )
        try:
            review_json = await future
            break
        except BrokenProcessPool:
            log.warning("table %s: the review's worker died (attempt %d)", table_id, attempt + 1)
    if review_json is None:
        return error_response(
            503, "busy", "no review now: its solve failed; try again", headers={"Retry-After": "10"}
        )
    accuracies = [summary.get("accuracy") for summary in review_json.get("summaries", [])]
    await asyncio.to_thread(results.store_review, db, table_id, json.dumps(review_json), accuracies)
    return review_json


def _address(request: Request) -> str | None:
    """The client's address (behind a proxy: what uvicorn's ``--forwarded-allow-ips``
    trusts), whose solve budget its requests count against."""
    return request.client.host if request.client is not None else None


def _verify(db: Database, table_id: str) -> dict[str, Any]:
    """Verify the record exactly as exported (a round trip through its text)."""
    from marsdice.fair import verify_record
    from marsdice.games import read_record

    _game, record = read_record(tables.export_record(db, table_id))
    verdict = verify_record(record)
    return {"fair": verdict.fair, "message": verdict.message}
