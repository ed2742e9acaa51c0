"""Several server processes on one PostgreSQL database and one Redis (``docs/deploy.md``):
real processes on loopback ports, the machine's real PostgreSQL and Redis (a private
``redis-server`` for the restart test), no mocks. First, what a process does with the news
it reads from Redis (no Redis needed for that)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy
from websockets.sync.client import ClientConnection, connect

from marsdice.core.record import GameRecord
from marsdice.fair import verify_record
from marsdice.storage import chat, tables
from marsdice.storage.db import Database
from marsdice.web.client import PlayState, parse_messages
from marsdice.web.cluster import CATCH_UP_SWEEPS, NewsKind, RedisCluster
from marsdice.web.live import load_live
from marsdice.web.schemas import AdviceMessage, StateMessage, StepMessage, TableMessage
from serverproc import Server, free_port

TEST_REDIS_ENV = "MARSDICE_TEST_REDIS_URL"
CHANCE = -1


class Heard:
    """The hub's side of the news: what reached it."""

    def __init__(self) -> None:
        self.news: list[tuple[str, NewsKind, int | None]] = []

    async def on_news(self, table_id: str, kind: NewsKind, seat: int | None) -> None:
        self.news.append((table_id, kind, seat))

    def on_lease_lost(self, table_id: str) -> None:
        raise AssertionError("no lease here")

    async def on_sweep(self) -> None:
        raise AssertionError("no sweep here")


def test_news_of_an_unknown_kind_is_logged_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    async def running() -> list[str]:
        return []

    cluster = RedisCluster("redis://127.0.0.1:1/0", running=running)  # never connected
    heard = Heard()
    cluster._events = heard

    async def deliver(**news: Any) -> None:
        message = {"table": "t1", "seat": 1, "from": "another process", **news}
        await cluster._news({"type": "message", "data": json.dumps(message)})

    async def scenario() -> None:
        for kind in ("step", "bogus", 7, None, ["step"], "adopted", "table", "left"):
            await deliver(kind=kind)
        await cluster._news({"type": "message", "data": "{not json"})
        await deliver(kind="step", **{"from": cluster.process_id})  # its own: not news
        assert not cluster._sweep_now.is_set()
        await deliver(kind="released")  # a lease given back wakes the sweep, not the hub
        assert cluster._sweep_now.is_set()

    with caplog.at_level(logging.WARNING, logger="marsdice.web"):
        asyncio.run(scenario())
    assert heard.news == [("t1", "step", 1), ("t1", "table", 1), ("t1", "left", 1)]
    unknown = [r.getMessage() for r in caplog.records if "unknown kind" in r.getMessage()]
    assert len(unknown) == 5 and "'bogus'" in unknown[0] and "'adopted'" in unknown[4]
    assert any("malformed" in r.getMessage() for r in caplog.records)


def redis_unavailable() -> str | None:
    url = os.environ.get(TEST_REDIS_ENV, "").strip()
    if not url:
        return f"Redis tests skipped: {TEST_REDIS_ENV} is not set"
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=3).ping()
    except Exception as error:
        return f"Redis tests skipped: {TEST_REDIS_ENV} unreachable ({type(error).__name__})"
    return None


@pytest.fixture
def pg(tmp_path: Path) -> Iterator[Database]:
    from marsdice.storage.testing import postgres_unavailable, temporary_database

    if reason := postgres_unavailable():
        pytest.skip(reason)
    with temporary_database("postgresql", tmp_path) as db:
        yield db


@pytest.fixture
def redis_url() -> str:
    if reason := redis_unavailable():
        pytest.skip(reason)
    return os.environ[TEST_REDIS_ENV].strip()


class Cluster:
    """N server processes on one database and one Redis."""

    def __init__(
        self, stack: ExitStack, db: Database, redis: str, tmp_path: Path, n: int, *options: str
    ) -> None:
        self.db = db
        self.servers = [
            Server(
                db.url,
                tmp_path,
                "--redis-url",
                redis,
                "--lease-seconds",
                "1.5",
                "--log-level",
                "info",
                *options,
            )
            for _ in range(n)
        ]
        for server in self.servers:
            stack.callback(server.kill)

    def create(self, game: str, variant: dict[str, Any], seats: list[dict[str, Any]]) -> str:
        response = httpx.post(
            f"{self.servers[0].base}/api/tables",
            json={"game": game, "variant": variant, "seats": seats},
        )
        assert response.status_code == 201, response.text
        table_id: str = response.json()["id"]
        return table_id

    def join(self, table_id: str, seat: int, server: int) -> str:
        response = httpx.post(
            f"{self.servers[server].base}/api/tables/{table_id}/join",
            json={"seat": seat, "name": f"P{seat}"},
        )
        assert response.status_code == 200, response.text
        token: str = response.json()["token"]
        return token


class Player:
    """One WebSocket speaking protocol 3: records every version its messages make, to check
    that none is missed (a gap in the steps raises :class:`SyncNeeded` here)."""

    def __init__(self, url: str, token: str | None) -> None:
        self.token = token
        self.ws: ClientConnection = connect(url)
        self.versions: list[int] = []
        self.state: dict[str, Any] = {}
        self.errors: list[dict[str, Any]] = []
        self.play = PlayState()
        self.ws.send(json.dumps({"type": "hello", "token": token, "protocol": 3}))
        self.receive()

    def receive(self, timeout: float = 30) -> dict[str, Any]:
        text = self.ws.recv(timeout=timeout)
        message: dict[str, Any] = json.loads(text)
        if message["type"] == "error":
            self.errors.append(message)
            return message
        for part in parse_messages(text):
            if not isinstance(part, StateMessage | StepMessage | TableMessage | AdviceMessage):
                continue
            made = self.play.apply(part)  # (a step missed: SyncNeeded)
            if made is None:
                continue
            assert made.version >= self.state.get("version", 0), "versions only go up"
            if made.version not in self.versions:
                self.versions.append(made.version)
            self.state = made.model_dump()
        return message

    def settle(self, after: int = -1) -> dict[str, Any]:
        """Read until a version past ``after`` where nobody waits for the server."""
        while (
            self.state["version"] <= after
            or self.state["view"] is None
            or (self.state["view"]["current_player"] == CHANCE)
            or (not self.state["view"]["winners"] and not self._person_to_act())
        ):
            self.receive()
        return self.state

    def _person_to_act(self) -> bool:
        view = self.state["view"]
        seat = self.state["table"]["seats"][view["current_player"]]
        return bool(seat["kind"] == "human" and not seat["away"])

    def act(self, action: str) -> None:
        version = self.state["version"]
        self.ws.send(json.dumps({"type": "action", "version": version, "action": action}))

    def close(self) -> None:
        self.ws.close()


def play_out(players: list[Player], watchers: list[Player], seed: int) -> dict[str, Any]:
    """Random legal moves by whichever seat is to act, until the end; everyone follows."""
    chooser = random.Random(seed)
    version = -1
    while True:
        states = [p.settle(version) for p in (*players, *watchers)]
        top = max(state["version"] for state in states)
        states = [p.settle(top - 1) for p in (*players, *watchers)]
        assert len({state["version"] for state in states}) == 1, "everyone sees one version"
        state = states[0]
        if state["view"]["winners"]:
            return state
        mover = players[state["view"]["current_player"]]
        mover.act(chooser.choice(mover.state["view"]["legal_actions"]))
        version = state["version"]


def assert_saw_every_step(player: Player, final: int) -> None:
    first = player.versions[0]
    assert player.versions == list(range(first, final + 1)), player.versions


def test_players_on_three_processes_play_whole_games(
    pg: Database, redis_url: str, tmp_path: Path
) -> None:
    with ExitStack() as stack:
        cluster = Cluster(stack, pg, redis_url, tmp_path, 3)
        human, planner = {"kind": "human"}, {"kind": "bot", "bot": "planner"}
        games = [
            ("martian", {"target": 8}, [human] * 3),
            ("attacks", {}, [human, human, planner]),
        ]
        for number, (game, variant, seats) in enumerate(games):
            table_id = cluster.create(game, variant, seats)
            humans = [s for s, seat in enumerate(seats) if seat["kind"] == "human"]
            tokens = {seat: cluster.join(table_id, seat, seat % 3) for seat in humans}
            players = {
                seat: Player(cluster.servers[seat % 3].ws(table_id), tokens[seat])
                for seat in humans
            }
            watcher = Player(cluster.servers[2].ws(table_id), None)
            seated = [players.get(s) or watcher for s in range(len(seats))]
            final = play_out(seated, [watcher], seed=number)
            for player in [*players.values(), watcher]:
                assert_saw_every_step(player, final["version"])
                assert not player.errors, player.errors
                player.close()
            live = load_live(pg, table_id)
            assert live is not None and live.state.is_terminal
            assert live.version == final["version"]
            record = httpx.get(f"{cluster.servers[1].base}/api/tables/{table_id}/record").text
            assert verify_record(GameRecord.loads(record)).fair


def test_conflicting_actions_on_two_processes_store_exactly_one(
    pg: Database, redis_url: str, tmp_path: Path
) -> None:
    with ExitStack() as stack:
        cluster = Cluster(stack, pg, redis_url, tmp_path, 2)
        table_id = cluster.create("martian", {"target": 50}, [{"kind": "human"}] * 2)
        tokens = [cluster.join(table_id, seat, 0) for seat in range(2)]
        # each seat is connected twice, once to each process
        conns = [[Player(s.ws(table_id), token) for s in cluster.servers] for token in tokens]
        rounds = 0
        while rounds < 25:
            for pair in conns:
                for player in pair:
                    player.settle()
            top = max(p.state["version"] for pair in conns for p in pair)
            for pair in conns:
                for player in pair:
                    player.settle(top - 1)
            state = conns[0][0].state
            assert not state["view"]["winners"], "the game should outlast the test"
            pair = conns[state["view"]["current_player"]]
            legal = pair[0].state["view"]["legal_actions"]
            if len(legal) < 2:
                pair[0].act(legal[0])
                pair[0].settle(state["version"])  # (act once: wait for its state)
                continue
            version = state["version"]
            start = threading.Barrier(2)

            def send(player: Player, action: str, start: threading.Barrier = start) -> None:
                start.wait()
                player.act(action)

            threads = [
                threading.Thread(target=send, args=(player, action))
                for player, action in zip(pair, legal[:2], strict=False)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            for player in pair:
                player.settle(version)
            for _ in range(100):  # the refusal may come after the new state
                if any(p.errors for p in pair):
                    break
                for player in pair:
                    with contextlib.suppress(TimeoutError):
                        player.receive(timeout=0.05)
            live = load_live(pg, table_id)
            assert live is not None
            stored = live.actions[version].text()
            refused = [e for p in pair for e in p.errors if e["code"] == "stale_version"]
            assert stored in legal[:2] and len(refused) == 1, (stored, refused)
            for player in pair:
                player.errors.clear()
            rounds += 1
        for pair in conns:
            for player in pair:
                player.close()


def lease_holder(redis_url: str, table_id: str, cluster: Cluster) -> int:
    """Which of the cluster's servers holds the table's lease (by its process id)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    for _ in range(200):
        for key in client.scan_iter(match=f"marsdice:*:lease:{table_id}"):
            holder = client.get(key)
            if holder is not None:
                pid = int(holder.decode().split(":")[1])
                for index, server in enumerate(cluster.servers):
                    if server.process.pid == pid:
                        return index
        time.sleep(0.05)
    raise AssertionError("nobody holds the lease")


def finished(pg: Database, table_id: str) -> bool:
    return tables.get_table(pg, table_id).status == tables.FINISHED


def wait_until(check: Any, what: str, tries: int = 600) -> None:
    for _ in range(tries):
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_the_lease_holder_dies_and_another_process_finishes_the_game(
    pg: Database, redis_url: str, tmp_path: Path, how: signal.Signals
) -> None:
    with ExitStack() as stack:
        # SIGTERM hands the lease over at once (so a lease of a minute changes nothing);
        # SIGKILL leaves it to expire (1.5 s)
        lease = "60" if how == signal.SIGTERM else "1.5"
        cluster = Cluster(
            stack, pg, redis_url, tmp_path, 2, "--bot-delay", "0.05", "--lease-seconds", lease
        )
        bots = [{"kind": "bot", "bot": "cautious"}, {"kind": "bot", "bot": "expected"}]
        table_id = cluster.create("martian", {"target": 20}, bots)
        holder = lease_holder(redis_url, table_id, cluster)
        other = 1 - holder
        watchers = [Player(server.ws(table_id), None) for server in cluster.servers]
        while watchers[holder].state["version"] < 6:
            watchers[holder].receive()
        before = watchers[holder].state["version"]
        assert not finished(pg, table_id)
        cluster.servers[holder].stop(how)
        # a process stopping gracefully goes on with its work until uvicorn has closed its
        # connections: a short game may end there, with nothing left to hand over
        ended_by_holder = finished(pg, table_id)
        # the killed process's watcher reconnects to the other one and resumes
        moved = Player(cluster.servers[other].ws(table_id), None)
        assert moved.state["version"] >= before
        while not moved.state["view"]["winners"]:
            moved.receive()
        assert finished(pg, table_id)
        while not watchers[other].state["view"]["winners"]:
            watchers[other].receive()
        assert_saw_every_step(watchers[other], moved.state["version"])
        live = load_live(pg, table_id)  # replays every stored step: none missing
        assert live is not None and live.version == moved.state["version"]
        record = httpx.get(f"{cluster.servers[other].base}/api/tables/{table_id}/record").text
        assert verify_record(GameRecord.loads(record)).fair  # no roll drawn twice
        takeovers = httpx.get(f"{cluster.servers[other].base}/metrics").text
        assert ended_by_holder or "marsdice_lease_takeovers_total 1.0" in takeovers
        for watcher in (*watchers, moved):
            watcher.close()


class PrivateRedis:
    """A redis-server of the test's own, to stop and start again."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed: the Redis restart test needs its own")
        self.binary = binary
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--bind", "127.0.0.1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        import redis

        client = redis.Redis.from_url(self.url)
        wait_until(lambda: _pings(client), "redis-server starts")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None


def _pings(client: Any) -> bool:
    try:
        return bool(client.ping())
    except Exception:
        return False


def test_a_redis_restart_loses_no_action(pg: Database, tmp_path: Path) -> None:
    from marsdice.storage.testing import postgres_unavailable

    if reason := postgres_unavailable():
        pytest.skip(reason)
    redis = PrivateRedis()
    with ExitStack() as stack:
        stack.callback(redis.stop)
        cluster = Cluster(stack, pg, redis.url, tmp_path, 2)
        table_id = cluster.create("martian", {"target": 12}, [{"kind": "human"}] * 2)
        tokens = [cluster.join(table_id, seat, seat) for seat in range(2)]
        players = [Player(cluster.servers[s].ws(table_id), tokens[s]) for s in range(2)]
        chooser = random.Random(3)
        acted: list[tuple[int, str]] = []
        step = 0
        while True:
            states = [p.settle() for p in players]
            top = max(state["version"] for state in states)
            states = [p.settle(top - 1) for p in players]
            state = states[0]
            if state["view"]["winners"]:
                break
            if step == 4:
                redis.stop()  # the news stops: the sweep re-reads the database meanwhile
            if step == 6:  # a load balancer would take the processes out meanwhile
                health = httpx.get(f"{cluster.servers[0].base}/healthz")
                assert health.status_code == 503 and health.json()["redis"] is False
            if step == 10:
                redis.start()
            mover = players[state["view"]["current_player"]]
            action = chooser.choice(mover.state["view"]["legal_actions"])
            acted.append((state["version"], action))
            mover.act(action)
            for player in players:
                player.settle(state["version"])
            step += 1
        assert step > 10, "the game should outlast the restart"
        live = load_live(pg, table_id)
        assert live is not None and live.state.is_terminal
        for version, action in acted:  # every acknowledged action is in the log
            assert live.actions[version].text() == action
        for player in players:
            assert not player.errors, player.errors
            player.close()


def test_without_redis_a_second_process_is_refused(
    pg: Database, redis_url: str, tmp_path: Path
) -> None:
    with ExitStack() as stack:
        alone = Server(pg.url, tmp_path)
        stack.callback(alone.kill)
        second = Server(pg.url, tmp_path, wait=False)
        assert second.process.wait(30) == 2
        assert "another marsdice server is using this database" in second.log_path.read_text()
        with_redis = Server(pg.url, tmp_path, "--redis-url", redis_url, wait=False)
        with_redis.process.wait(30)
        assert with_redis.process.returncode == 2
        assert "without Redis is using this database" in with_redis.log_path.read_text()


def test_redis_with_sqlite_is_refused(tmp_path: Path, redis_url: str) -> None:
    server = Server(f"sqlite:///{tmp_path / 'one.sqlite3'}", tmp_path, "--redis-url", redis_url,
                    wait=False)  # fmt: skip
    server.process.wait(30)
    assert server.process.returncode == 2
    assert "several server processes need PostgreSQL" in server.log_path.read_text()


def steps_by(server: Server) -> float:
    text = httpx.get(f"{server.base}/metrics").text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("marsdice_steps_total{")
    )


def test_one_process_does_a_tables_server_side_work(
    pg: Database, redis_url: str, tmp_path: Path
) -> None:
    with ExitStack() as stack:
        cluster = Cluster(stack, pg, redis_url, tmp_path, 2)
        bots = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "cautious"}]
        table_id = cluster.create("martian", {"target": 15}, bots)
        watchers = [Player(server.ws(table_id), None) for server in cluster.servers]
        for watcher in watchers:
            while not watcher.state["view"]["winners"]:
                watcher.receive()
        final = watchers[0].state["version"]
        for watcher in watchers:
            assert_saw_every_step(watcher, final)
            watcher.close()
        counts = sorted(steps_by(server) for server in cluster.servers)
        assert counts == [0, final], "every roll and bot move by the lease holder alone"


# -- presence and lease renewal, one process object per "process", on a real Redis ----------


class Quiet:
    """A hub that hears nothing of interest (the presence tests have no tables)."""

    async def on_news(self, table_id: str, kind: NewsKind, seat: int | None) -> None:
        pass

    def on_lease_lost(self, table_id: str) -> None:
        pass

    async def on_sweep(self) -> None:
        pass


async def _no_tables() -> list[str]:
    return []


async def started(url: str, namespace: str, lease: float = 0.6) -> RedisCluster:
    cluster = RedisCluster(url, lease_seconds=lease, running=_no_tables)
    cluster.use_namespace(namespace)
    await cluster.start(Quiet(), lambda _table_id: set())
    return cluster


async def died(cluster: RedisCluster) -> None:
    """Stop a process's tasks without its goodbye, as SIGKILL would."""
    for task in cluster._tasks:
        task.cancel()
    if cluster._tasks:  # bounded, as close() is: a stop must not wait for ever on a socket
        await asyncio.wait(cluster._tasks, timeout=5)
    await asyncio.wait_for(cluster.redis.aclose(), 5)


def test_presence_is_seen_from_every_process_and_ends_with_its_process(redis_url: str) -> None:
    namespace = f"test-{random.getrandbits(48):x}"

    async def scenario() -> None:
        # a beats every 20 s: what it reads of b is b's own heartbeats, or their absence
        a, b = await started(redis_url, namespace, 60), await started(redis_url, namespace)
        try:
            await a.seat_here("t1", 0, True)
            await b.seat_here("t1", 1, True)
            await b.seat_here("t2", 0, True)
            assert await a.present_seats("t1") == {0, 1}
            assert await b.present_seats("t2") == {0}
            await a.seat_here("t1", 0, False)
            assert await b.present_seats("t1") == {1}
            await asyncio.sleep(1.0)  # past a lease: heartbeats keep both alive
            assert await a.present_seats("t1") == {1}
            await died(b)
            await asyncio.sleep(1.0)  # b's entry expired: its seats are absent at once
            assert await a.present_seats("t1") == set()
            assert await a.present_seats("t2") == set()
            assert await a.redis.scard(a._presence_key("t2")) == 1
            await a._beat()  # and the next heartbeat of any process clears them
            assert not await a.redis.exists(b._index_key(b.process_id))
            assert await a.redis.scard(a._presence_key("t2")) == 0
        finally:
            await a.close()

    asyncio.run(scenario())


def test_presence_lost_by_redis_is_said_again_at_the_next_heartbeat(redis_url: str) -> None:
    namespace = f"test-{random.getrandbits(48):x}"

    async def scenario() -> None:
        a, b = await started(redis_url, namespace), await started(redis_url, namespace)
        try:
            await a.seat_here("t1", 1, True)
            # what a Redis restarted empty has: none of the namespace's keys
            await a.redis.delete(a._alive_key, a._presence_key("t1"), a._index_key(a.process_id))
            assert await b.present_seats("t1") == set()
            await asyncio.sleep(0.5)  # a heartbeat (a third of the lease) later
            assert await b.present_seats("t1") == {1}
        finally:
            await a.close()
            await b.close()
        from redis.asyncio import Redis

        probe = Redis.from_url(redis_url)
        try:  # a graceful stop leaves nothing behind
            keys = (a._presence_key("t1"), a._index_key(a.process_id), b._index_key(b.process_id))
            assert not await probe.exists(*keys)
            assert await probe.zscore(a._alive_key, a.process_id) is None
        finally:
            await probe.aclose()

    asyncio.run(scenario())


def test_heartbeat_and_lease_renewal_cost_the_same_whatever_the_seats() -> None:
    redis = PrivateRedis()
    try:

        async def scenario() -> None:
            # an hour's lease: no background beat or renewal lands inside a count
            cluster = await started(redis.url, "cost", lease=3600)
            try:

                async def calls() -> Counter[str]:
                    stats = await cluster.redis.info("commandstats")
                    return Counter({name: int(stat["calls"]) for name, stat in stats.items()})

                async def commands(action: Any) -> int:
                    """Commands the client sent (those a script runs inside Redis are not
                    round trips: a renewal still reads and extends every lease)."""
                    before = await calls()
                    await action()
                    sent = await calls() - before
                    sent -= Counter({"cmdstat_get": sent["cmdstat_get"],
                                     "cmdstat_pexpire": sent["cmdstat_pexpire"]})  # fmt: skip
                    return sent.total()

                async def fewest(action: Any) -> int:
                    """The server's counts are global: the least of three tries is the
                    action's own (a background command of the cluster's only adds)."""
                    return min([await commands(action) for _ in range(3)])

                await cluster.seat_here("t0", 0, True)
                beat_one = await fewest(cluster._beat)
                for number in range(1, 300):
                    await cluster.seat_here(f"t{number}", number % 2, True)
                assert await fewest(cluster._beat) == beat_one
                assert await cluster.acquire("t0")
                renew_one = await fewest(lambda: cluster._renew_all(["t0"]))
                held = [f"t{number}" for number in range(1200)]
                for table_id in held[1:]:
                    assert await cluster.acquire(table_id)
                assert await cluster._renew_all(held) == [1] * len(held)
                assert await fewest(lambda: cluster._renew_all(held)) <= renew_one + 2
                await cluster.redis.delete(cluster._lease_key("t5"))
                assert (await cluster._renew_all(held))[5] == 0  # a lost lease is told apart
            finally:
                await cluster.close()

        asyncio.run(scenario())
    finally:
        redis.stop()


def test_the_sweep_catches_up_every_time_only_while_the_news_channel_is_down(
    redis_url: str,
) -> None:
    class Counted(Quiet):
        catch_ups = 0

        async def on_sweep(self) -> None:
            self.catch_ups += 1

    async def scenario() -> list[tuple[int, int]]:
        cluster = RedisCluster(redis_url, sweep_seconds=0.02, running=_no_tables)
        cluster.use_namespace(f"test-{random.getrandbits(48):x}")
        hub, sweeps = Counted(), [0]

        async def take_over() -> None:  # runs at every sweep
            sweeps[0] += 1

        cluster._take_over = take_over  # type: ignore[method-assign]
        await cluster.start(hub, lambda _table_id: set())
        counts = []
        try:
            while not cluster._news_healthy:
                await asyncio.sleep(0.01)
            for healthy in (True, False):
                cluster._news_healthy = healthy  # False: as after a lost channel
                await asyncio.sleep(0.1)
                hub.catch_ups, sweeps[0] = 0, 0
                while sweeps[0] < 40:
                    await asyncio.sleep(0.02)
                counts.append((hub.catch_ups, sweeps[0]))
        finally:
            await cluster.close()
        return counts

    (up, up_sweeps), (down, down_sweeps) = asyncio.run(scenario())
    assert up_sweeps // CATCH_UP_SWEEPS - 1 <= up <= up_sweeps // CATCH_UP_SWEEPS + 1
    assert down >= down_sweeps - 1


def test_a_chat_message_written_on_one_process_reaches_the_others(
    pg: Database, redis_url: str, tmp_path: Path
) -> None:
    """Chat news travels over Redis: each process sends its own connections what another
    stored, once, in order."""
    with ExitStack() as stack:
        cluster = Cluster(stack, pg, redis_url, tmp_path, 2)
        table_id = cluster.create("martian", {}, [{"kind": "human"}, {"kind": "human"}])
        tokens = [cluster.join(table_id, seat, seat) for seat in (0, 1)]
        readers = []
        for server in cluster.servers:
            ws = connect(server.ws(table_id))
            stack.callback(ws.close)
            ws.send(json.dumps({"type": "hello", "token": None, "chat": True}))
            assert json.loads(ws.recv(timeout=30))["type"] == "state"
            readers.append(ws)
        with pg.writing() as connection:  # an id drawn now, its message committed late
            late_id = connection.scalar(sqlalchemy.text("select nextval('md_chat_id_seq')"))
        for i in range(3):  # (two at once from the first process: news may name either)
            writer = cluster.servers[0 if i < 2 else 1]
            sent = httpx.post(
                f"{writer.base}/api/tables/{table_id}/chat",
                json={"text": f"hello {i}", "token": tokens[0 if i < 2 else 1]},
            )
            assert sent.status_code == 201, sent.text
        for ws in readers:
            texts = []
            while len(texts) < 3:
                message = json.loads(ws.recv(timeout=30))
                if message["type"] == "chat":
                    texts.append(message["message"]["text"])
            assert texts == ["hello 0", "hello 1", "hello 2"]
        # the late message commits below the ids already sent; the next news brings it too
        with pg.writing() as connection:
            connection.execute(
                sqlalchemy.insert(chat.CHAT).values(
                    id=late_id,
                    table_id=table_id,
                    author="late",
                    seat=0,
                    text="late",
                    removed=False,
                    created_at=datetime.now(UTC),
                )
            )
        sent = httpx.post(
            f"{cluster.servers[1].base}/api/tables/{table_id}/chat",
            json={"text": "after", "token": tokens[1]},
        )
        assert sent.status_code == 201, sent.text
        texts = []
        while "after" not in texts:
            message = json.loads(readers[0].recv(timeout=30))
            if message["type"] == "chat":
                texts.append(message["message"]["text"])
        assert sorted(texts) == ["after", "late"]


@pytest.mark.parametrize("loop_name", ["_heartbeat", "_renew"])
def test_a_cancel_a_client_library_turns_into_another_error_still_stops_the_loop(
    loop_name: str,
) -> None:
    """Once a defect: a stopped process's heartbeat could go on beating (the presence test
    failed under load, a killed process's seats still present): a cancel landing mid-command
    can come out of the client as a connection error, which the loop logged and carried on
    from. Each loop stops when its task has a cancel pending, whatever error it sees."""

    async def scenario() -> None:
        cluster = RedisCluster("redis://unused", lease_seconds=0.03, running=_no_tables)
        entered = asyncio.Event()
        swallow = [True]  # the client's fault, until the test is over

        calls = [0]

        async def command(*_args: object) -> list[int]:
            calls[0] += 1
            if calls[0] == 1:  # a timeout of its own is an error like another: the loop goes on
                async with asyncio.timeout(0.001):
                    await asyncio.sleep(1)
            entered.set()
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                if swallow[0]:
                    raise ConnectionError("Connection closed by server.") from None
                raise
            return [1]

        cluster._beat = command  # type: ignore[method-assign]
        cluster._renew_all = command  # type: ignore[method-assign]
        cluster._held.add("t1")
        task = asyncio.get_running_loop().create_task(getattr(cluster, loop_name)())
        await asyncio.wait_for(entered.wait(), 5)
        assert calls[0] == 2 and not task.done()
        task.cancel()
        await asyncio.wait([task], timeout=5)
        stopped = task.done() and task.cancelled()
        swallow[0] = False  # (a loop still running is stopped, so that the test ends)
        task.cancel()
        await asyncio.wait([task], timeout=5)
        assert stopped

    asyncio.run(scenario())
