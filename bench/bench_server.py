"""Load benchmark of the online server (not a test): real ``marsdice serve`` processes on
SQLite and PostgreSQL, many tables played at once by WebSocket clients that pick seeded
random legal actions, and the latency of every action (sent -> the state that includes it).

Run: .venv/bin/python bench/bench_server.py [--db sqlite|postgresql|both] [--tables 200]
     [--games-per-table 1] [--duration SECONDS] [--game martian|attacks|mix] [--target N]
     [--think SECONDS] [--client-procs K] [--processes N | --server URL ...]
     [--serve-arg ARG ...] [--json FILE]        (options and figures: docs/server.md#capacity)

Each table is created over REST with human seats only, every seat is joined, and one
WebSocket connection per seat plays it. A client acts only on a state that offers it legal
actions, on that state's ``version``; the latency of an action is the time from sending it
to receiving a ``state`` whose version is greater than the one acted on. The figures are
wall-clock on a shared machine: compare runs taken on the same machine, never across.

PostgreSQL is ``$MARSDICE_TEST_DATABASE_URL`` (default ``postgresql+psycopg://root@127.0.0.1:
5432/test``); the run uses a fresh schema of its own and drops it at the end. ``--server URL``
(repeatable) benchmarks servers started by someone else (tables are spread round-robin over
them); ``--processes N`` starts N server processes on one database, which is only correct for
N=1 until processes push steps to each other (the scale-out issue).

Exit codes: 0 done with no error, 1 the run saw protocol errors or unfinished games, 2 bad
options or a server that did not start, 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import math
import multiprocessing
import os
import random
import resource
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from marsdice.core.errors import MarsDiceError

DEFAULT_POSTGRES: Final = "postgresql+psycopg://root@127.0.0.1:5432/test"
POSTGRES_ENV: Final = "MARSDICE_TEST_DATABASE_URL"
GAMES: Final = ("martian", "attacks")
EXIT_OK: Final = 0
EXIT_ERRORS: Final = 1
EXIT_USAGE: Final = 2
EXIT_INTERRUPTED: Final = 130
_TICK: Final = os.sysconf("SC_CLK_TCK")


class BenchError(MarsDiceError):
    """A bad setting, or a server or database the benchmark cannot use: one line, exit 2."""

    exit_code = EXIT_USAGE


class _Abandon(Exception):
    """A table can go no further (a stall, a closed connection); counted under ``code``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class _Cut(_Abandon):
    """The run's deadline passed: the game under way is cut, which is not an error."""

    def __init__(self) -> None:
        super().__init__("cut")


# -- the load: one asyncio process of WebSocket clients -----------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """What one client process plays: the lanes (tables played one game after another)
    ``lane % procs == proc`` of ``lanes``."""

    urls: tuple[str, ...]
    lanes: int
    proc: int
    procs: int
    seats: int
    games: tuple[str, ...]
    target: int | None
    games_per_table: int | None  # None: as many as fit before the deadline
    deadline: float | None  # time.monotonic() when every client stops (games under way are cut)
    seed: int
    stall: float
    spread: str
    deflate: bool
    think: float  # mean seconds a client waits before each action (0: at once)
    protocol: int = 3  # the play protocol the clients speak (docs/protocol.md)
    #: ``time.perf_counter()`` after which an action's latency also counts as "steady"
    #: (``--warmup``: the start, when every table is set up at once, left out)
    steady_from: float | None = None


@dataclass(slots=True)
class Tally:
    """What a client process saw; merged over processes."""

    latencies: list[float] = field(default_factory=list)  # seconds
    steady: list[float] = field(default_factory=list)  # those sent after the warm-up
    games_started: int = 0
    games_finished: int = 0
    games_cut: int = 0  # under way at the deadline: not finished, not an error
    errors: Counter[str] = field(default_factory=Counter)
    cpu: float = 0.0  # seconds of CPU of the client process(es)
    # by window of versions (BYTE_WINDOWS): bytes received off the wire (WebSocket frames,
    # compressed), bytes of message text, versions a connection reached, actions sent
    wire: Counter[str] = field(default_factory=Counter)
    text: Counter[str] = field(default_factory=Counter)
    steps: Counter[str] = field(default_factory=Counter)
    acts: Counter[str] = field(default_factory=Counter)

    def merge(self, other: Tally) -> None:
        self.latencies.extend(other.latencies)
        self.steady.extend(other.steady)
        self.games_started += other.games_started
        self.games_finished += other.games_finished
        self.games_cut += other.games_cut
        self.errors.update(other.errors)
        self.cpu += other.cpu
        for mine, theirs in (
            (self.wire, other.wire),
            (self.text, other.text),
            (self.steps, other.steps),
            (self.acts, other.acts),
        ):
            mine.update(theirs)


#: the versions whose messages are weighed, by name: "step 10" is steps 1-20, "step 100" 91-110
#: (each connection's first message, hello's answer, is not weighed)
BYTE_WINDOWS: Final = {"10": range(1, 21), "100": range(91, 111)}


def _window(version: int) -> str | None:
    return next((name for name, span in BYTE_WINDOWS.items() if version in span), None)


class _CountingConnection(ClientConnection):
    """A client connection that counts the bytes it receives off the wire."""

    received = 0

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        super().data_received(data)


def _process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Clients:
    """The clients of one process: ``plan.lanes`` tables at once, each a sequence of games."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.tally = Tally()

    async def run(self) -> Tally:
        cpu = _process_cpu()
        # idle connections are dropped before uvicorn's own 5 s keep-alive closes them, so
        # that a request never goes out on a connection the server is closing
        limits = httpx.Limits(max_connections=100, keepalive_expiry=1.0)
        async with httpx.AsyncClient(timeout=self.plan.stall, limits=limits) as http:
            lanes = range(self.plan.proc, self.plan.lanes, self.plan.procs)
            await asyncio.gather(*(self.lane(http, lane) for lane in lanes))
        self.tally.cpu = _process_cpu() - cpu
        return self.tally

    def _server(self, lane: int, seat: int) -> str:
        urls = self.plan.urls
        if self.plan.spread == "seat":
            return urls[(lane * self.plan.seats + seat) % len(urls)]
        return urls[lane % len(urls)]

    async def lane(self, http: httpx.AsyncClient, lane: int) -> None:
        plan = self.plan
        number = 0
        while plan.games_per_table is None or number < plan.games_per_table:
            if self._past():
                return
            started: list[bool] = []  # the game sets it once every seat is joined
            try:
                await self.game(http, lane, number, started)
            except _Abandon as abandon:
                if isinstance(abandon, _Cut) or self._past():  # the run stopped under it
                    self.tally.games_cut += len(started)
                    return
                self.tally.errors[abandon.code] += 1
            except Exception as error:  # a bug in this client: counted, the other lanes go on
                self.tally.errors[f"client_{type(error).__name__}"] += 1
            number += 1

    def _past(self) -> bool:
        """The deadline passed. Checked by the clients themselves: cancelling them from
        outside could be lost in Python 3.11's ``asyncio.wait_for`` and let a game run on."""
        return self.plan.deadline is not None and time.monotonic() >= self.plan.deadline

    async def _post(
        self, http: httpx.AsyncClient, stage: str, url: str, body: dict[str, Any]
    ) -> Any:
        try:
            answer = await http.post(url, json=body)
        except httpx.HTTPError as error:
            raise _Abandon(f"{stage}_{type(error).__name__}") from None
        if answer.status_code >= 300:
            try:
                code = answer.json()["error"]
            except (ValueError, KeyError, TypeError):
                code = "unreadable"
            raise _Abandon(f"{stage}_{answer.status_code}_{code}")
        if self._past():
            raise _Cut
        return answer.json()

    async def game(
        self, http: httpx.AsyncClient, lane: int, number: int, started: list[bool]
    ) -> None:
        """Create a table, join every seat, play the game to its end over WebSockets."""
        plan = self.plan
        game = plan.games[lane % len(plan.games)]
        variant: dict[str, Any] = {}
        if game == "martian" and plan.target is not None:
            variant["target"] = plan.target
        body = {"game": game, "variant": variant, "seats": [{"kind": "human"}] * plan.seats}
        table = await self._post(http, "create", f"{self._server(lane, 0)}/api/tables", body)
        table_id = str(table["id"])
        tokens = []
        for seat in range(plan.seats):
            join = {"seat": seat, "name": f"bench{lane}-{seat}", "seed": f"{lane}.{number}"}
            url = f"{self._server(lane, seat)}/api/tables/{table_id}/join"
            tokens.append(str((await self._post(http, "join", url, join))["token"]))
        self.tally.games_started += 1
        started.append(True)
        finished: list[bool] = [False] * plan.seats
        try:
            async with asyncio.TaskGroup() as group:
                for seat, token in enumerate(tokens):
                    rng = random.Random(f"{plan.seed}/{lane}/{number}/{seat}")
                    ws_url = self._server(lane, seat).replace("http", "ws", 1)
                    ws_url = f"{ws_url}/ws/tables/{table_id}"
                    group.create_task(self.seat(ws_url, token, rng, finished, seat))
        except ExceptionGroup as group:  # the first seat that failed; the others were cancelled
            if any(isinstance(error, _Cut) for error in group.exceptions):
                raise _Cut from None
            first = group.exceptions[0]
            if isinstance(first, _Abandon):
                raise first from None
            raise _Abandon(f"client_{type(first).__name__}") from None
        if all(finished):
            self.tally.games_finished += 1

    async def seat(
        self, ws_url: str, token: str, rng: random.Random, finished: list[bool], seat: int
    ) -> None:
        """One seat's connection: act on every state that offers legal actions, time it."""
        compression = "deflate" if self.plan.deflate else None
        try:
            async with connect(
                ws_url,
                compression=compression,
                max_size=2**22,
                close_timeout=2,
                create_connection=_CountingConnection,
            ) as ws:
                hello: dict[str, Any] = {"type": "hello", "token": token}
                if self.plan.protocol != 1:
                    hello["protocol"] = self.plan.protocol
                await ws.send(json.dumps(hello))
                assert isinstance(ws, _CountingConnection)
                await self._play(ws, rng)
        except (OSError, WebSocketException, TimeoutError) as error:
            raise _Abandon(f"ws_{type(error).__name__}") from None
        finished[seat] = True

    async def _play(self, ws: _CountingConnection, rng: random.Random) -> None:
        latencies = self.tally.latencies
        steady_from = self.plan.steady_from
        errors = self.tally.errors
        tally = self.tally
        acted = -1  # the version this seat last acted on
        sent: float | None = None  # when that action went out (None: answered)
        retry: dict[str, Any] | None = None  # the state last acted on
        retries = 0
        wire = 0  # bytes off the wire so far
        reached = 0  # the newest version seen
        whole: dict[str, Any] | None = None  # protocol 2: the state its messages make
        while True:
            wait = self.plan.stall
            if self.plan.deadline is not None:
                wait = min(wait, self.plan.deadline - time.monotonic())
            try:
                raw = await asyncio.wait_for(ws.recv(), max(wait, 0.0))
            except TimeoutError:
                raise (_Cut() if self._past() else _Abandon("stalled")) from None
            now = time.perf_counter()
            if self._past():
                raise _Cut
            frame = json.loads(raw)
            # protocol 3: steps stored together come in one frame, read one by one
            parts = frame["steps"] if frame.get("type") == "steps" else [frame]
            at = parts[-1].get("version")
            window = _window(at) if isinstance(at, int) and wire else None
            if window is not None:  # (not hello's answer: the whole table, once)
                tally.wire[window] += ws.received - wire
                tally.text[window] += len(raw)
                tally.steps[window] += sum(1 for part in parts if part.get("version", 0) > reached)
            wire = ws.received
            if isinstance(at, int):
                reached = max(reached, at)
            for message in parts:
                if message["type"] in ("state", "step", "table", "advice"):
                    made = await self._whole(ws, whole, message)
                    if made is None:
                        continue
                    message = whole = made
                if message["type"] == "error":
                    errors[str(message["code"])] += 1
                    sent = None
                    if retry is None or message.get("version") not in (None, acted):
                        continue  # the game moved on: the next state tells us what to do
                    # nothing moved (rate_limited, say): act again on the same state, a few times
                    retries += 1
                    if retries > 3:
                        raise _Abandon("gave_up")
                    await asyncio.sleep(0.1)
                    acted = -1
                    message = retry
                if message["type"] != "state":
                    continue
                version = int(message["version"])
                if sent is not None and version > acted:
                    latencies.append(now - sent)
                    if steady_from is not None and sent >= steady_from:
                        tally.steady.append(now - sent)
                    sent = None
                if message["table"]["status"] == "finished":
                    return
                view = message["view"]
                if view is None or not view["legal_actions"] or version <= acted:
                    continue
                if self.plan.think > 0:  # a person's pace: not part of the latency
                    await asyncio.sleep(rng.expovariate(1 / self.plan.think))
                    if self._past():
                        raise _Cut
                action = rng.choice(view["legal_actions"])
                if message is not retry:
                    retry, retries = message, 0
                acted = version
                sent = time.perf_counter()
                if (window := _window(version + 1)) is not None:
                    tally.acts[window] += 1
                await ws.send(json.dumps({"type": "action", "version": version, "action": action}))

    async def _whole(
        self, ws: ClientConnection, whole: dict[str, Any] | None, message: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Protocol 2: the state after ``message`` (a whole ``state`` as it is; a ``step``
        patches the view; ``table`` replaces the table); None when it brings nothing new (a
        gap: a ``sync`` is asked for, and the answer fits)."""
        if message["type"] == "state":
            return message
        if whole is None or whole["view"] is None:
            return None
        version = message["version"]
        if message["type"] == "advice" or version < whole["version"]:
            return None
        if message["type"] == "table":
            return {**whole, "table": message["table"]} if version == whole["version"] else None
        if version == whole["version"]:
            return None
        if version > whole["version"] + 1:
            self.tally.errors["gap_synced"] += 1
            await ws.send(json.dumps({"type": "sync", "version": whole["version"]}))
            return None
        from marsdice.web.patch import apply  # (protocol 2 only: not in older trees)

        view = apply(whole["view"], message["patch"])
        view["events"] = message["events"]
        return {
            **whole,
            "version": version,
            "view": view,
            "your_turn": message["your_turn"],
            "table": message.get("table") or whole["table"],
        }


def play(plan: Plan) -> Tally:
    return asyncio.run(Clients(plan).run())


def _worker(plan: Plan, pipe: Connection) -> None:
    """A client process: plays its lanes and sends back its tally."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us
    pipe.send(play(plan))
    pipe.close()


def run_clients(plan: Plan) -> Tally:
    """Play ``plan`` in this process (``procs`` 1) or in ``procs`` forked processes."""
    if plan.procs == 1:
        return play(plan)
    context = multiprocessing.get_context("fork")
    workers: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
    try:
        for proc in range(plan.procs):
            receive, send = context.Pipe(duplex=False)
            part = dataclasses.replace(plan, proc=proc)
            worker = context.Process(target=_worker, args=(part, send), daemon=True)
            worker.start()
            send.close()
            workers.append((worker, receive))
        tally = Tally()
        for process, receive in workers:
            try:
                tally.merge(receive.recv())
            except EOFError:
                raise BenchError(f"client process {process.pid} died") from None
            process.join()
        return tally
    finally:
        for process, _ in workers:
            if process.is_alive():
                process.terminate()
                process.join(5)


# -- servers and databases -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """One ``marsdice serve`` subprocess on loopback, its output in a log file."""

    def __init__(self, database_url: str, folder: Path, extra: Sequence[str] = ()) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / f"server-{self.port}.log"
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "marsdice.cli.main", "serve", "--port", str(self.port),
                 "--database-url", database_url, "--bot-delay", "0", "--log-level", "warning",
                 "--tables-per-minute", "0",  # (one client address makes every table)
                 *extra],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C reaches the benchmark, which stops us
            )  # fmt: skip

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{self.url}/api/games", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None:
                raise BenchError(f"the server on port {self.port} did not start: {self._why()}")
            if time.monotonic() > deadline:
                raise BenchError(f"the server on port {self.port} did not answer in {timeout}s")
            time.sleep(0.05)

    def _why(self) -> str:
        lines = [line.strip() for line in self.log_path.read_text(errors="replace").splitlines()]
        for line in lines:
            if "error:" in line:
                return line.split("error:", 1)[1].strip()
        shown = [line for line in lines if line]
        return shown[-1] if shown else f"exit code {self.process.returncode}"

    def cpu(self) -> float:
        """The server's CPU with its living descendants' (the solve pool's worker
        processes) and those that ended."""
        total = _proc_cpu(self.process.pid, children=True) or 0.0
        return total + sum(_proc_cpu(pid) or 0.0 for pid in _descendants(self.process.pid))

    def stop(self) -> None:
        """Graceful stop (SIGINT, as Ctrl-C), SIGKILL after 10 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@contextlib.contextmanager
def servers(
    database_url: str, processes: int, folder: Path, extra: Sequence[str] = ()
) -> Iterator[list[Server]]:
    """``processes`` servers on one database, always stopped."""
    started: list[Server] = []
    try:
        for _ in range(processes):
            started.append(Server(database_url, folder, extra))
        for server in started:
            server.wait_ready()
        yield started
    finally:
        for server in started:
            server.stop()


FLOOR: Final = Path(__file__).resolve().with_name("floor_server.py")
#: server CPU per action at most this many times the floor's (issue 18's targets)
FLOOR_TARGETS: Final = {"sqlite": 3.0, "postgresql": 5.0}


class FloorServer(Server):
    """``bench/floor_server.py``: the least work an action needs, measured in the same run
    (same database kind, same tables and clients) as the reference for the server's CPU."""

    def __init__(self, database_url: str, folder: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / f"floor-{self.port}.log"
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(FLOOR), "--port", str(self.port),
                 "--database-url", database_url],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )  # fmt: skip


@contextlib.contextmanager
def floor_server(kind: str, folder: Path) -> Iterator[FloorServer]:
    """The floor on a fresh database of ``kind``, always stopped."""
    with database(kind, folder) as url:
        floor = FloorServer(url, folder)
        try:
            floor.wait_ready()
            yield floor
        finally:
            floor.stop()


def postgres_base_url() -> str:
    return os.environ.get(POSTGRES_ENV, "").strip() or DEFAULT_POSTGRES


def postgres_unreachable(url: str) -> str | None:
    """Why PostgreSQL at ``url`` cannot be used, or None."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    shown = url
    try:
        shown = make_url(url).render_as_string(hide_password=True)
        engine = create_engine(url, connect_args={"connect_timeout": 3})
        with engine.connect() as connection:
            connection.execute(text("select 1"))
        engine.dispose()
    except Exception as error:
        cause = getattr(error, "orig", None) or error
        reason = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
        return f"{shown} is unreachable: {reason}"
    return None


@contextlib.contextmanager
def database(kind: str, folder: Path) -> Iterator[str]:
    """A migrated, empty database for the servers: a SQLite file in ``folder``, or a fresh
    schema in PostgreSQL, dropped afterwards."""
    from sqlalchemy import create_engine, text

    from marsdice.storage.db import Database
    from marsdice.storage.testing import schema_url

    if kind == "sqlite":
        url = f"sqlite:///{folder / 'bench.sqlite3'}"
        db = Database(url)
        db.migrate()
        db.dispose()
        yield url
        return
    base = postgres_base_url()
    schema = f"md_bench_{secrets.token_hex(6)}"
    admin = create_engine(base)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        url = schema_url(base, schema)
        db = Database(url)
        db.migrate()  # once here: N server processes must not race to migrate
        db.dispose()
        yield url
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def stored(database_url: str) -> dict[str, Any]:
    """What the benchmark's own fresh database holds at the end: how many tables per status
    (open, running, finished) and how many steps by actor (``human`` steps are the actions)."""
    from sqlalchemy import func, select

    from marsdice.storage.db import Database
    from marsdice.storage.models import StepRow, TableRow

    db = Database(database_url)
    try:
        with db.session() as session:
            statuses = session.execute(
                select(TableRow.status, func.count()).group_by(TableRow.status)
            ).all()
            actors = session.execute(select(StepRow.actor, func.count()).group_by(StepRow.actor))
            steps = {str(actor): int(count) for actor, count in actors}
    finally:
        db.dispose()
    return {
        "tables": {str(status): int(count) for status, count in sorted(statuses)},
        "steps": dict(sorted(steps.items())),
    }


# -- CPU from /proc ---------------------------------------------------------------------------


def _proc_cpu(pid: int, *, children: bool = False) -> float | None:
    """User + system CPU seconds of one process (its threads included), and with
    ``children`` those of its children that ended (a PostgreSQL backend that closed)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    ticks = [int(value) for value in stat.rsplit(")", 1)[1].split()[11:15]]
    return sum(ticks if children else ticks[:2]) / _TICK


def _descendants(root: int) -> list[int]:
    """The living processes below ``root`` (from each process's parent in /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(parent, []).append(int(entry.name))
    found: list[int] = []
    todo = [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _postgres_cpu() -> float | None:
    """CPU seconds of every ``postgres`` process on this machine (other users' included),
    with the backends that ended since they started (counted in their parent's)."""
    total = 0.0
    found = False
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != "postgres":
                continue
        except OSError:
            continue
        cpu = _proc_cpu(int(entry.name), children=True)
        if cpu is not None:
            total += cpu
            found = True
    return total if found else None


def _machine_busy() -> float | None:
    """CPU seconds all cores spent busy since boot (``/proc/stat``)."""
    try:
        first = Path("/proc/stat").read_text().splitlines()[0].split()
    except OSError:
        return None
    ticks = [int(value) for value in first[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return (sum(ticks[:8]) - idle) / _TICK


def _delta(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else round(after - before, 2)


# -- one run and the report -------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of sorted ``values``."""
    if not values:
        return math.nan
    return values[min(len(values) - 1, max(0, math.ceil(q * len(values)) - 1))]


def measure(
    label: str,
    urls: Sequence[str],
    server_list: Sequence[Server],
    args: argparse.Namespace,
    database_url: str | None,
) -> dict[str, Any]:
    """Play the load against ``urls`` and gather the figures."""
    plan = Plan(
        urls=tuple(urls),
        lanes=args.tables,
        proc=0,
        procs=args.client_procs,
        seats=args.seats,
        games=GAMES if args.game == "mix" else (args.game,),
        target=args.target,
        games_per_table=args.games_per_table or (1 if args.duration is None else None),
        deadline=None if args.duration is None else time.monotonic() + args.duration,
        seed=args.seed,
        stall=args.stall_timeout,
        spread=args.spread,
        deflate=not args.no_deflate,
        think=args.think,
        protocol=args.protocol,
        steady_from=None if args.warmup is None else time.perf_counter() + args.warmup,
    )
    load = os.getloadavg()[0]
    server_cpu = [server.cpu() for server in server_list]
    postgres, machine = _postgres_cpu(), _machine_busy()
    start = time.perf_counter()
    tally = run_clients(plan)
    elapsed = wall = time.perf_counter() - start
    if args.duration is not None:  # no action is counted after the deadline (closing is not)
        wall = min(wall, args.duration)
    server_cpu = [
        server.cpu() - before for server, before in zip(server_list, server_cpu, strict=True)
    ]
    latencies = sorted(tally.latencies)
    ms = [
        round(1000 * percentile(latencies, q), 2) if latencies else None  # JSON has no NaN
        for q in (0.5, 0.9, 0.99, 1.0)
    ]
    result: dict[str, Any] = {
        "database": label,
        "servers": len(urls),
        "tables": args.tables,
        "games_started": tally.games_started,
        "games_finished": tally.games_finished,
        "games_cut": tally.games_cut,
        "actions": len(latencies),
        "wall_s": round(wall, 2),
        "elapsed_s": round(elapsed, 2),  # wall_s and the clients' closing: the CPU's time base
        "actions_per_s": round(len(latencies) / wall, 1) if wall > 0 else 0.0,
        "latency_ms": dict(zip(("p50", "p90", "p99", "max"), ms, strict=True)),
        "steady_latency_ms": _latency_ms(tally.steady) if args.warmup is not None else None,
        "steady_actions": len(tally.steady) if args.warmup is not None else None,
        "errors": dict(sorted(tally.errors.items())),
        "stored": None,
        "loadavg_1min_before": round(load, 2),
        "cpu_s": {
            "servers": round(sum(server_cpu), 2) if server_list else None,
            "clients": round(tally.cpu, 2),
            "postgres_all": _delta(postgres, _postgres_cpu()) if label == "postgresql" else None,
            "machine_busy": _delta(machine, _machine_busy()),
            "machine_cores": os.cpu_count(),
        },
    }
    result["protocol"] = args.protocol
    result["bytes"] = {
        name: {
            "wire_per_action": _per(tally.wire[name], tally.acts[name]),
            "text_per_action": _per(tally.text[name], tally.acts[name]),
            "wire_per_step": _per(tally.wire[name], tally.steps[name]),
            "text_per_step": _per(tally.text[name], tally.steps[name]),
            "actions": tally.acts[name],
        }
        for name in BYTE_WINDOWS
    }
    if database_url is not None:
        result["stored"] = stored(database_url)
    return result


def _per(total: int, count: int) -> int | None:
    return round(total / count) if count else None


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _latency_ms(values: Sequence[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    return {
        name: round(1000 * percentile(ordered, q), 2) if ordered else None
        for name, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0))
    }


def report(results: Sequence[dict[str, Any]]) -> str:
    """The figures as a small table, then where the CPU went."""
    head = (
        f"{'database':<11}{'servers':>8}{'tables':>7}{'games':>7}{'cut':>5}{'actions':>9}"
        f"{'wall s':>8}{'act/s':>8}{'p50 ms':>8}{'p90 ms':>8}{'p99 ms':>8}{'max ms':>9}  errors"
    )
    lines = [head]
    for r in results:
        lat = r["latency_ms"]
        errors = ", ".join(f"{code} {n}" for code, n in r["errors"].items()) or "none"
        lines.append(
            f"{r['database']:<11}{r['servers']:>8}{r['tables']:>7}{r['games_finished']:>7}{r['games_cut']:>5}"
            f"{r['actions']:>9}{r['wall_s']:>8.1f}{r['actions_per_s']:>8.0f}{_ms(lat['p50']):>8}"
            f"{_ms(lat['p90']):>8}{_ms(lat['p99']):>8}{_ms(lat['max']):>9}  {errors}"
        )
    lines.append("")
    lines.append("CPU over the run, in cores busy (CPU seconds / wall seconds):")
    for r in results:
        cpu, wall = r["cpu_s"], r["elapsed_s"] or 1.0
        parts = [f"{name} {cpu[key] / wall:.2f}" for key, name in
                 (("servers", "server processes"), ("clients", "client processes"),
                  ("postgres_all", "postgres (all of it)"), ("machine_busy", "whole machine"))
                 if cpu.get(key) is not None]  # fmt: skip
        lines.append(
            f"  {r['database']}: {', '.join(parts)} (of {cpu['machine_cores']} cores; "
            f"load average {r['loadavg_1min_before']} before the run)"
        )
    lines.extend(_against_floor(results))
    lines.extend(_bytes(results))
    return "\n".join(lines)


def _bytes(results: Sequence[dict[str, Any]]) -> list[str]:
    """Bytes the clients received per action (all of a table's connections) and per step and
    connection, around step 10 and step 100, on the wire and as message text."""
    lines = []
    for r in results:
        weighed = r.get("bytes")
        if not weighed:
            continue
        near, far = weighed["10"], weighed["100"]
        line = (
            f"{r['database']}: bytes per action (protocol {r['protocol']}) at step 10: "
            f"{near['wire_per_action']} on the wire, {near['text_per_action']} of text; "
            f"at step 100: {far['wire_per_action']} on the wire, {far['text_per_action']} of text"
        )
        if near["wire_per_action"] and far["wire_per_action"]:
            line += f" (step 100 / step 10: {far['wire_per_action'] / near['wire_per_action']:.2f})"
        lines += ["", line, f"  per step and connection: 10 {near['wire_per_step']} wire "
                  f"{near['text_per_step']} text; 100 {far['wire_per_step']} wire "
                  f"{far['text_per_step']} text; actions weighed {near['actions']} / "
                  f"{far['actions']}"]  # fmt: skip
    return lines


def cpu_per_action_ms(result: dict[str, Any]) -> float | None:
    """Milliseconds of server CPU per action timed (a person's move; the rolls and bots'
    steps it brings are part of its cost)."""
    cpu = result["cpu_s"]["servers"]
    return None if cpu is None or not result["actions"] else 1000 * cpu / result["actions"]


def _against_floor(results: Sequence[dict[str, Any]]) -> list[str]:
    """Each database's server CPU per action and latency next to the floor's."""
    lines = []
    for r in results:
        floor = r.get("floor")
        ours, base = cpu_per_action_ms(r), floor and cpu_per_action_ms(floor)
        if floor is None or ours is None or not base:
            continue
        lat, floor_lat = r["latency_ms"], floor["latency_ms"]
        target = FLOOR_TARGETS.get(r["database"])
        lines += [
            "",
            f"{r['database']}: server CPU per action: {ours:.2f} ms (floor {base:.2f} ms, "
            f"ratio {ours / base:.1f}×{'' if target is None else f'; target ≤ {target:g}×'})",
            f"{r['database']}: latency p50 {_ms(lat['p50'])} ms, p99 {_ms(lat['p99'])} ms "
            f"(floor p50 {_ms(floor_lat['p50'])} ms, p99 {_ms(floor_lat['p99'])} ms; "
            f"{floor['actions']} floor actions, errors {floor['errors'] or 'none'})",
        ]
        steady, floor_steady = r.get("steady_latency_ms"), floor.get("steady_latency_ms")
        if steady is not None and floor_steady is not None:
            lines.append(
                f"{r['database']}: after the warm-up ({r['steady_actions']} actions): p50 "
                f"{_ms(steady['p50'])} ms, p99 {_ms(steady['p99'])} ms (floor p50 "
                f"{_ms(floor_steady['p50'])} ms, p99 {_ms(floor_steady['p99'])} ms; "
                f"{floor['steady_actions']} floor actions)"
            )
    return lines


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench_server.py",
        description="Load benchmark of marsdice serve: many tables at once, action latency.",
    )
    parser.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="URL",
        help="benchmark a running server (http://HOST:PORT) instead of starting one; repeat "
        "for several (tables are spread round-robin); --db is then ignored",
    )
    parser.add_argument(
        "--processes",
        type=_positive,
        default=1,
        help="server processes started on one database (N>1 needs the scale-out issue: "
        "processes do not push steps to each other yet)",
    )
    parser.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="one more argument for every server started (e.g. --serve-arg=--redis-url=URL "
        "once the scale-out issue adds it); repeat for more",
    )
    parser.add_argument("--tables", type=_positive, default=200, help="tables played at once")
    parser.add_argument(
        "--games-per-table",
        type=_positive,
        default=None,
        help="games each table plays one after another, a fresh table over REST each time "
        "(default 1, or as many as fit with --duration)",
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop every client after this long; games under way are cut (counted, not "
        "errors), so actions/s is the steady rate",
    )
    parser.add_argument("--game", choices=(*GAMES, "mix"), default="martian")
    parser.add_argument(
        "--target",
        type=_positive,
        default=10,
        help="Martian Dice target score (default 10: about 100 actions a game with random "
        "moves, 2.5 times fewer than the game's own 25, so 200 tables take about a minute)",
    )
    parser.add_argument("--seats", type=_positive, default=2, help="human seats per table")
    parser.add_argument(
        "--client-procs", type=_positive, default=1, help="client processes (forked)"
    )
    parser.add_argument(
        "--spread",
        choices=("table", "seat"),
        default="table",
        help="with several servers: a table's seats on one server, or round-robin by seat "
        "(needs processes that push steps to each other)",
    )
    parser.add_argument("--no-deflate", action="store_true", help="no WebSocket compression")
    parser.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2, 3),
        default=3,
        help="the play protocol the clients speak: 3 (step messages, a move and the dice "
        "after it in one; the default), 2 (one message per step) or 1 (a whole state after "
        "every step: what a server before protocol 2 speaks)",
    )
    parser.add_argument(
        "--no-floor",
        action="store_true",
        help="do not run bench/floor_server.py after each database (the reference for the "
        "server CPU per action)",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="mean time a client waits before each action (exponential), as a person would; "
        "default 0: at once, the most load the tables can make",
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=None,
        metavar="SECONDS",
        help="also report the latency of the actions sent after this many seconds (the start, "
        "when every table is created, joined and greeted at once, left out), the floor's "
        "alike; the whole run's figures stay the ones the targets read",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the clients' choices")
    parser.add_argument(
        "--stall-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="a table with no message for this long is abandoned (counted as 'stalled')",
    )
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="figures as JSON")
    args = parser.parse_args(argv)
    if args.seats > 10 or (args.game != "martian" and args.seats > 6):
        parser.error("--seats: at most 10 for Martian Dice, 6 for Mars Attacks")
    if args.game != "martian" and args.seats < 2:
        parser.error("--seats: Mars Attacks needs at least 2")
    if args.duration is not None and args.duration <= 0:
        parser.error("--duration must be positive")
    if args.json is not None and not args.json.parent.is_dir():
        parser.error(f"--json: no folder {str(args.json.parent)!r}")
    if args.think < 0:
        parser.error("--think must not be negative")
    if args.warmup is not None and args.warmup < 0:
        parser.error("--warmup must not be negative")
    if args.stall_timeout <= 0:
        parser.error("--stall-timeout must be positive")
    return args


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every run the options ask for; skipped databases are reported, not run."""
    results: list[dict[str, Any]] = []
    if args.server:
        urls = [url.rstrip("/") for url in args.server]
        for url in urls:
            try:
                httpx.get(f"{url}/api/games", timeout=5).raise_for_status()
            except httpx.HTTPError as error:
                raise BenchError(f"no marsdice server at {url}: {error}") from None
        results.append(measure("external", urls, [], args, None))
        return results
    kinds = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    for kind in kinds:
        if kind == "postgresql" and (why := postgres_unreachable(postgres_base_url())):
            print(f"skipping PostgreSQL: {why}", file=sys.stderr)
            continue
        with (
            tempfile.TemporaryDirectory(prefix="marsdice-bench-") as folder,
            database(kind, Path(folder)) as url,
            servers(url, args.processes, Path(folder), args.serve_arg) as started,
        ):
            urls = [server.url for server in started]
            results.append(measure(kind, urls, started, args, url))
        if not args.no_floor:  # the reference, right after, with the same load
            with (
                tempfile.TemporaryDirectory(prefix="marsdice-floor-") as folder,
                floor_server(kind, Path(folder)) as floor,
            ):
                results[-1]["floor"] = measure(kind, [floor.url], [floor], args, None)
    if not results:
        raise BenchError("no database could be used")
    return results


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as stop:  # argparse: --help or a usage error, already printed
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    try:
        results = run(args)
        print(report(results))
        if args.json is not None:
            payload = {"benchmark": "server", "argv": list(sys.argv[1:] if argv is None else argv),
                       "results": results}  # fmt: skip
            args.json.write_text(json.dumps(payload, indent=2) + "\n")
    except KeyboardInterrupt:
        print("marsdice: error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BenchError as error:
        print(f"marsdice: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:  # the --json file, a server binary
        where = f": {error.filename}" if error.filename else ""
        print(f"marsdice: error: {error.strerror or error}{where}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # a database that refuses a schema, a bug: still one line
        print(f"marsdice: error: {type(error).__name__}: {error}".splitlines()[0], file=sys.stderr)
        return EXIT_ERRORS
    clean = all(
        not r["errors"] and r["games_finished"] + r["games_cut"] == r["games_started"]
        for r in results
    )
    return EXIT_OK if clean else EXIT_ERRORS


def _terminate(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM: stop the servers on the way out, as for Ctrl-C


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started in background
    signal.signal(signal.SIGTERM, _terminate)
    sys.exit(main())
