"""At the table (``docs/protocol.md``, "Chat and rematch"): the table's chat, written by a
seat (its token) or a signed-in spectator (unless the table keeps its chat to players),
length- and rate-limited, sent to every connection that reads chat; and the rematch, a new
table with the same game, settings and seats, where each player who asks is seated again
(bots are seated from the start)."""

from __future__ import annotations

import asyncio
from typing import Any, Final

from fastapi import APIRouter, Request

from marsdice.storage import chat, tables
from marsdice.storage.accounts import BadCredentials, User
from marsdice.storage.tables import BadTokenError, NotFinishedError, SeatSpec, TableData
from marsdice.web.deps import ClusterDep, DatabaseDep, HubDep, TableIdDep
from marsdice.web.errors import error_response, error_responses, rate_limited
from marsdice.web.limits import app_buckets
from marsdice.web.routes.accounts import UserDep
from marsdice.web.schemas import ChatIn, JoinedTable, Rematch

router: Final = APIRouter(prefix="/api")

#: messages one writer may send to one table: this many...
CHAT_BURST: Final = 5
#: ...then one every this many seconds
CHAT_EVERY: Final = 2.0


def _speaker(table: TableData, token: str | None, user: User | None) -> tuple[str, int | None]:
    """Who writes: the token's seat, the account's seat, or the account as a spectator."""
    if token is not None:
        seat = table.seat_of(token)
        if seat is None:
            raise BadTokenError("bad_token: that token holds no seat at this table")
        return table.names[seat], seat
    if user is None:
        raise BadCredentials("sign in, or take a seat, to write in the chat")
    for i, seat_at in enumerate(table.seats):
        if seat_at.user_id == user.id:
            return table.names[i], i
    return user.name, None


@router.get("/tables/{table_id}/chat", responses=error_responses(404, 422))
async def read_chat(table_id: TableIdDep, db: DatabaseDep) -> dict[str, Any]:
    """The table's latest messages, oldest first (then live, as ``chat`` messages, to a
    connection whose hello asked for them)."""
    await asyncio.to_thread(tables.get_table, db, table_id)
    found = await asyncio.to_thread(chat.messages, db, table_id)
    return {"messages": [message.public() for message in found]}


@router.post(
    "/tables/{table_id}/chat",
    status_code=201,
    responses=error_responses(400, 401, 403, 404, 413, 422, 429),
)
async def write_chat(
    table_id: TableIdDep,
    body: ChatIn,
    db: DatabaseDep,
    hub: HubDep,
    user: UserDep,
    request: Request,
) -> Any:
    table = await asyncio.to_thread(tables.get_table, db, table_id)
    author, seat = _speaker(table, body.token, user)
    if seat is None and not table.options.get("spectator_chat", True):
        return error_response(403, "muted", "this table's chat is for its players")
    who = f"seat:{seat}" if seat is not None else f"user:{user.id if user else '-'}"
    writers = app_buckets(request.app.state, "chat_writers", CHAT_BURST, CHAT_EVERY)
    wait = writers.wait((table_id, who))
    if wait:
        return rate_limited("too many messages: wait a moment", wait)
    message = await asyncio.to_thread(
        chat.post, db, table_id, author, body.text, seat, None if user is None else user.id
    )
    await hub.chat_posted(table_id, message)
    return message.public()


@router.post(
    "/tables/{table_id}/rematch",
    responses=error_responses(400, 401, 403, 404, 409, 413, 422),
)
async def rematch(
    table_id: TableIdDep,
    body: Rematch,
    db: DatabaseDep,
    hub: HubDep,
    cluster: ClusterDep,
    user: UserDep,
    request: Request,
) -> JoinedTable:
    """Play again: the finished table's rematch (made by the first who asks, the same for
    everyone after), and this player seated in it at the seat they had."""
    old = await asyncio.to_thread(tables.get_table, db, table_id)
    if old.status != tables.FINISHED:
        raise NotFinishedError(f"table {table_id} has not finished: a rematch comes at the end")
    if body.token is not None:
        seat = old.seat_of(body.token)
        if seat is None:
            raise BadTokenError("bad_token: that token holds no seat at this table")
    else:
        if user is None:
            raise BadCredentials("sign in, or give your seat's token, to play again")
        seat = next((i for i, s in enumerate(old.seats) if s.user_id == user.id), None)
        if seat is None:
            raise BadTokenError("bad_token: you held no seat at this table")
    specs = [SeatSpec(s.kind, s.bot) for s in old.seats]
    new = await asyncio.to_thread(tables.rematch_table, db, table_id, specs)
    name = user.name if user is not None and old.seats[seat].user_id == user.id else None
    joined, token = await asyncio.to_thread(
        tables.join,
        db,
        new.id,
        seat,
        name or body.name or old.names[seat],
        None,
        None if user is None or name is None else user.id,
    )
    hub.created_by(new.id, request.client.host if request.client is not None else None)
    await hub.refresh(table_id)
    if joined.status == tables.RUNNING and await cluster.acquire(new.id):
        await hub.started(joined)
        hub.kick(new.id)
        await hub.watch(joined)
    return JoinedTable(table=dict(joined.public()), seat=seat, token=token)
