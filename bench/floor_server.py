"""The floor of ``bench/bench_server.py``: a server that does only the work every action
needs (parse the JSON action, one insert in the same kind of database, a ~1 KB JSON reply to
each connection of the table) and speaks just enough of the protocol (``docs/protocol.md``:
create, join, ``hello``, ``action``, ``state``) for the benchmark's clients to play it.

Its "game" has no rules: the seats act in turn, each offered three legal actions, and a game
ends after ``10 * variant.target`` actions (default target 10: about as long as Martian Dice
to 10 with random moves). Run: python bench/floor_server.py --port N --database-url URL
(``sqlite:///FILE`` or ``postgresql+psycopg://...``, the benchmark's URL schemes).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sqlite3
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

LEGAL = ["rays", "humans", "chickens"]
PADDING = "x" * 700  # the rest of a ~1 KB state (a view's board and log)
INSERT = "INSERT INTO floor_steps (table_id, seq, action) VALUES (?, ?, ?)"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS floor_steps (table_id TEXT NOT NULL, seq INTEGER NOT NULL,"
    " action TEXT NOT NULL, PRIMARY KEY (table_id, seq))"
)


@dataclass(slots=True)
class Table:
    id: str
    seats: int
    length: int
    tokens: dict[str, int] = field(default_factory=dict)
    sockets: dict[WebSocket, int] = field(default_factory=dict)
    version: int = 0

    def state(self, seat: int) -> str:
        status = "finished" if self.version >= self.length else "running"
        to_act = self.version % self.seats if status == "running" else -2
        view = {"current_player": to_act, "scores": [self.version // 7, self.version // 5],
                "legal_actions": LEGAL if seat == to_act else [], "board": PADDING}  # fmt: skip
        table = {"id": self.id, "status": status, "seats": [{"seat": s} for s in range(self.seats)]}
        return json.dumps(
            {"type": "state", "table": table, "seat": seat, "version": self.version, "view": view}
        )


def connect(url: str) -> Any:
    """One autocommitted connection: every insert is its own transaction, as a step is."""
    db: Any
    if url.startswith("sqlite:///"):
        db = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    else:
        import psycopg

        db = psycopg.connect(url.replace("+psycopg", "", 1), autocommit=True)
    db.execute(SCHEMA)
    return db


def create_app(url: str) -> Starlette:
    db, tables = connect(url), dict[str, Table]()
    insert = INSERT if url.startswith("sqlite") else INSERT.replace("?", "%s")

    async def games(_request: Request) -> JSONResponse:
        return JSONResponse({"games": []})

    async def create(request: Request) -> JSONResponse:
        body = await request.json()
        table = Table(
            secrets.token_hex(6), len(body["seats"]), 10 * body["variant"].get("target", 10)
        )
        tables[table.id] = table
        return JSONResponse({"id": table.id, "status": "open"}, status_code=201)

    async def join(request: Request) -> JSONResponse:
        table, body = tables[request.path_params["id"]], await request.json()
        token = secrets.token_urlsafe(16)
        table.tokens[token] = int(body["seat"])
        return JSONResponse({"seat": body["seat"], "token": token})

    async def play(ws: WebSocket) -> None:
        table = tables[ws.path_params["id"]]
        await ws.accept()
        try:
            while True:
                message = json.loads(await ws.receive_text())
                if message["type"] == "hello":
                    table.sockets[ws] = table.tokens[message["token"]]
                    await ws.send_text(table.state(table.sockets[ws]))
                elif message["type"] == "action":
                    seat = table.sockets[ws]
                    if message["version"] != table.version or seat != table.version % table.seats:
                        error = {"type": "error", "code": "stale_version", "version": table.version}
                        await ws.send_text(json.dumps(error))
                        continue
                    db.execute(insert, (table.id, table.version + 1, str(message["action"])))
                    table.version += 1
                    for other, other_seat in list(table.sockets.items()):
                        await other.send_text(table.state(other_seat))
        except WebSocketDisconnect:
            table.sockets.pop(ws, None)
            if not table.sockets and table.version >= table.length:
                tables.pop(table.id, None)

    return Starlette(routes=[
        Route("/api/games", games),
        Route("/api/tables", create, methods=["POST"]),
        Route("/api/tables/{id}/join", join, methods=["POST"]),
        WebSocketRoute("/ws/tables/{id}", play),
    ])  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database-url", required=True)
    args = parser.parse_args()
    uvicorn.run(create_app(args.database_url), host="127.0.0.1", port=args.port,
                log_level="warning", ws_max_size=64 * 1024, server_header=False)  # fmt: skip
