"""What idle tables cost (not a test): one ``marsdice serve`` process with Redis on a fresh
PostgreSQL schema, ``--tables`` running tables of two human seats each (created and joined
over REST, the first roll made, then nobody acts), measured three ways:

1. server CPU per second over ``--seconds`` with nobody connected (the lease renewals and the
   sweep), then again with ``--connections`` WebSockets per table (1 or 2: the seats) open
   and silent (the presence heartbeat, the WebSocket keep-alive pings);
2. the server's RSS per running table, without and with its connections;
3. the sweep's database queries alone (the running tables' ids, their stored versions), timed
   in this process on the same database.

Run: .venv/bin/python bench/bench_idle.py [--tables 2000] [--connections 2] [--seconds 30]
     [--no-deflate] [--serve-arg ARG ...] [--json FILE]   (figures: docs/deploy.md#capacity)

The clients offer permessage-deflate (``--no-deflate``: they do not); what the server agrees
to is its ``--ws-deflate`` (``--serve-arg=--ws-deflate --serve-arg=context`` for the window
kept between messages, which costs about 20 KB a connection).

Redis is ``$MARSDICE_TEST_REDIS_URL`` (default ``redis://127.0.0.1:6379/0``), PostgreSQL
``$MARSDICE_TEST_DATABASE_URL`` as for ``bench_server.py``. The server runs with
``--absence-timeout 0`` so that the unconnected phase stays idle (no stand-in starts to play);
the presence heartbeat runs all the same. Exit codes: 0 done, 2 bad options or a server or
database that cannot be used, 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import httpx
from websockets.asyncio.client import ClientConnection, connect

from bench_server import (
    BenchError,
    Server,
    _proc_cpu,
    database,
    postgres_base_url,
    postgres_unreachable,
)

REDIS_ENV: Final = "MARSDICE_TEST_REDIS_URL"
DEFAULT_REDIS: Final = "redis://127.0.0.1:6379/0"
#: issue 18's targets for 2,000 idle tables
TARGET_CPU_MS_PER_S: Final = 30.0
TARGET_KB_PER_TABLE: Final = 60.0


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise BenchError(f"no RSS for process {pid}")


def redis_cpu() -> float | None:
    """CPU seconds of every ``redis-server`` of this machine (others' included)."""
    total, found = 0.0, False
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == "redis-server":
                total += _proc_cpu(int(entry.name)) or 0.0
                found = True
    return total if found else None


def cpu_per_second(server: Server, seconds: float, window: float = 5.0) -> dict[str, Any]:
    """The server's (and Redis's) CPU milliseconds per second over ``seconds`` of wall time,
    and the median of its ``window``-second parts (the noise of a shared machine)."""
    start_cpu, start_redis, start = server.cpu(), redis_cpu(), time.monotonic()
    windows: list[float] = []
    last = start_cpu
    while time.monotonic() - start < seconds:
        time.sleep(min(window, max(seconds - (time.monotonic() - start), 0.1)))
        now = server.cpu()
        windows.append(1000 * (now - last) / window)
        last = now
    wall = time.monotonic() - start
    end_cpu, end_redis = server.cpu(), redis_cpu()
    return {
        "server_ms_per_s": round(1000 * (end_cpu - start_cpu) / wall, 1),
        "server_ms_per_s_median_window": round(statistics.median(windows), 1),
        "redis_ms_per_s": None
        if start_redis is None or end_redis is None
        else round(1000 * (end_redis - start_redis) / wall, 1),
        "seconds": round(wall, 1),
    }


def settle(server: Server, quiet_ms: float, most: float = 120.0, window: float = 3.0) -> float:
    """Wait until the server's CPU per second no longer falls (the start-up's solves and
    writes are over) or is under ``quiet_ms``; returns the seconds waited."""
    start, last, before = time.monotonic(), server.cpu(), None
    while time.monotonic() - start < most:
        time.sleep(window)
        now = server.cpu()
        rate = 1000 * (now - last) / window
        last = now
        if rate < quiet_ms or (before is not None and rate >= 0.8 * before):
            break
        before = rate
    return round(time.monotonic() - start, 1)


async def create_tables(base: str, count: int, game: str) -> list[tuple[str, list[str]]]:
    """``count`` running tables of two joined human seats: (id, the seats' tokens)."""
    made: list[tuple[str, list[str]]] = []
    gate = asyncio.Semaphore(8)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:

        async def one(number: int) -> None:
            async with gate:
                body = {"game": game, "seats": [{"kind": "human"}] * 2}
                table = (await http.post("/api/tables", json=body)).raise_for_status().json()
                tokens = []
                for seat in range(2):
                    join = {"seat": seat, "name": f"idle{number}-{seat}"}
                    answer = await http.post(f"/api/tables/{table['id']}/join", json=join)
                    tokens.append(answer.raise_for_status().json()["token"])
                made.append((str(table["id"]), tokens))

        await asyncio.gather(*(one(number) for number in range(count)))
    return made


async def connect_all(
    base: str, made: Sequence[tuple[str, list[str]]], per_table: int, deflate: bool
) -> list[ClientConnection]:
    """Open ``per_table`` connections per table, each seated by its ``hello`` and answered
    with a ``state``; then they stay silent (no client pings)."""
    sockets: list[ClientConnection] = []
    gate = asyncio.Semaphore(32)
    ws_base = base.replace("http", "ws", 1)

    async def one(table_id: str, token: str) -> None:
        async with gate:
            ws = await connect(
                f"{ws_base}/ws/tables/{table_id}",
                compression="deflate" if deflate else None,
                ping_interval=None,
                max_size=2**22,
                open_timeout=60,
            )
            await ws.send(json.dumps({"type": "hello", "token": token}))
            json.loads(await asyncio.wait_for(ws.recv(), 60))
            sockets.append(ws)

    await asyncio.gather(
        *(one(table_id, tokens[seat]) for table_id, tokens in made for seat in range(per_table))
    )
    return sockets


async def drain(sockets: Sequence[ClientConnection]) -> None:
    """Read whatever comes (a ``state`` again, say), so that no buffer fills."""

    async def one(ws: ClientConnection) -> None:
        with contextlib.suppress(Exception):
            async for _message in ws:
                pass

    await asyncio.gather(*(one(ws) for ws in sockets))


def sweep_queries(url: str, repeat: int = 7) -> dict[str, float]:
    """Median milliseconds of the sweep's two database reads over every running table."""
    from marsdice.storage import tables
    from marsdice.storage.db import Database

    db = Database(url)
    try:
        ids: list[str] = []
        listing, versions = [], []
        for _ in range(repeat):
            start = time.perf_counter()
            ids = tables.running_ids(db)
            listing.append(1000 * (time.perf_counter() - start))
            start = time.perf_counter()
            tables.stored_versions(db, ids)
            versions.append(1000 * (time.perf_counter() - start))
    finally:
        db.dispose()
    return {
        "running_ids_ms": round(statistics.median(listing), 2),
        "stored_versions_ms": round(statistics.median(versions), 2),
        "tables": len(ids),
    }


def measure(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    with database("postgresql", folder) as url:
        extra = ["--redis-url", args.redis_url, "--absence-timeout", "0", *args.serve_arg]
        server = Server(url, folder, extra)
        try:
            server.wait_ready()
            pid = server.process.pid

            async def warm_up() -> None:  # what loads once (modules, a solve) is not per table
                sockets = await connect_all(
                    server.url, await create_tables(server.url, 1, args.game), 2, args.deflate
                )
                for ws in sockets:
                    await ws.close()

            asyncio.run(warm_up())
            settle(server, 20.0, 30.0)
            result: dict[str, Any] = {"tables": args.tables, "connections": args.connections}
            result["rss_kb_start"] = rss_kb(pid)
            result["no_tables"] = cpu_per_second(server, min(args.seconds, 10.0))
            made = asyncio.run(create_tables(server.url, args.tables, args.game))
            result["settle_tables_s"] = settle(server, 50.0)
            result["rss_kb_tables"] = rss_kb(pid)
            result["tables_no_connections"] = cpu_per_second(server, args.seconds)
            result["sweep_queries"] = sweep_queries(url)

            async def connected() -> None:
                sockets = await connect_all(server.url, made, args.connections, args.deflate)
                reader = asyncio.get_running_loop().create_task(drain(sockets))
                result["settle_connections_s"] = await asyncio.to_thread(settle, server, 50.0)
                result["rss_kb_connected"] = rss_kb(pid)
                result["tables_connected"] = await asyncio.to_thread(
                    cpu_per_second, server, args.seconds
                )
                for ws in sockets:
                    await ws.close()
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader

            asyncio.run(connected())
        finally:
            server.stop()
    n = args.tables
    result["kb_per_table_no_connections"] = round(
        (result["rss_kb_tables"] - result["rss_kb_start"]) / n, 1
    )
    result["kb_per_table_connected"] = round(
        (result["rss_kb_connected"] - result["rss_kb_start"]) / n, 1
    )
    result["kb_per_connection"] = round(
        (result["rss_kb_connected"] - result["rss_kb_tables"]) / (n * args.connections), 1
    )
    return result


def report(r: dict[str, Any]) -> str:
    def cpu(phase: dict[str, Any]) -> str:
        redis = phase["redis_ms_per_s"]
        return (
            f"{phase['server_ms_per_s']:.1f} ms/s (median second "
            f"{phase['server_ms_per_s_median_window']:.1f}; redis-server "
            f"{'-' if redis is None else f'{redis:.1f}'} ms/s)"
        )

    sweep = r["sweep_queries"]
    return "\n".join(
        [
            f"{r['tables']} idle running tables, {r['connections']} connection(s) each, "
            "one server process with Redis on PostgreSQL",
            f"  server CPU, no tables:              {cpu(r['no_tables'])}",
            f"  server CPU, tables, no connections: {cpu(r['tables_no_connections'])}",
            f"  server CPU, tables and connections: {cpu(r['tables_connected'])}"
            f"  (target < {TARGET_CPU_MS_PER_S:g} ms/s)",
            f"  sweep queries: running ids {sweep['running_ids_ms']:.2f} ms, stored versions "
            f"{sweep['stored_versions_ms']:.2f} ms ({sweep['tables']} tables)",
            f"  RSS per running table: {r['kb_per_table_no_connections']:.1f} KB without "
            f"connections, {r['kb_per_table_connected']:.1f} KB with "
            f"(target < {TARGET_KB_PER_TABLE:g} KB); {r['kb_per_connection']:.1f} KB per "
            "connection",
        ]
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench_idle.py", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--connections", type=int, choices=(1, 2), default=2)
    parser.add_argument("--seconds", type=float, default=30.0, help="each CPU measurement")
    parser.add_argument("--game", default="martian")
    parser.add_argument("--no-deflate", dest="deflate", action="store_false")
    parser.add_argument("--serve-arg", action="append", default=[], metavar="ARG")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0:
        parser.error("--tables and --seconds must be positive")
    args.redis_url = os.environ.get(REDIS_ENV, "").strip() or DEFAULT_REDIS
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if why := postgres_unreachable(postgres_base_url()):
            raise BenchError(why)
        with tempfile.TemporaryDirectory(prefix="marsdice-idle-") as folder:
            result = measure(args, Path(folder))
    except KeyboardInterrupt:
        print("marsdice: error: interrupted", file=sys.stderr)
        return 130
    except (BenchError, httpx.HTTPError, OSError) as error:
        print(f"marsdice: error: {error}".splitlines()[0], file=sys.stderr)
        return 2
    print(report(result))
    if args.json is not None:
        args.json.write_text(json.dumps({"benchmark": "idle", "result": result}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
