"""How the server processes of one database work together (``docs/deploy.md``).

The database orders the steps; what a process cannot see in it is pushed through Redis:

- **news**: a process that stored a step or changed a table publishes it on one channel; the
  others re-read the table from the database and send their clients every new step, in order.
- **leases**: the server-side work of a running table (dice, bots, thinking delays, absence
  timers) runs in exactly one process, the one holding the table's lease, a Redis key with
  an expiry that its holder renews. When the holder dies the key expires and another
  process's sweeper takes the table over; the ``(table, seq)`` constraint makes sure that a
  step is never stored twice even if two processes briefly both think they hold it.
- **presence**: which seats have a connection in some process, so that the lease holder
  knows when a person is away. Each table has a set of ``seat|process`` members, changed
  only when a seat's first connection arrives in a process or its last one leaves; each
  process proves it is alive with one entry in a sorted set scored by its expiry, renewed
  by one command per heartbeat whatever the number of seats. A seat counts as present
  while some live process has it; the seats of a process that died count as absent once
  its entry expires (and the next heartbeat of any process clears them).

:class:`LocalCluster` is the one-process case (no Redis): every lease is its own, presence is
its own connections, and there is no news to send.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, TypeGuard, get_args

if TYPE_CHECKING:
    from redis.asyncio import Redis

log: Final = logging.getLogger("marsdice.web")

#: the Redis URL that makes several processes share the database
REDIS_ENV: Final = "MARSDICE_REDIS_URL"

#: what a process tells the others: ``step`` (a step stored), ``table`` (seats changed),
#: ``left`` (the last connection of a seat here closed), ``released`` (a lease given back),
#: ``chat`` (a chat message stored)
Published = Literal["step", "table", "left", "released", "chat"]
PUBLISHED: Final[frozenset[str]] = frozenset(get_args(Published))
#: what the hub hears: another process's news (``released`` only wakes the sweep, it never
#: reaches the hub), or ``adopted``: this process took a table's lease over
NewsKind = Literal["step", "table", "left", "adopted", "chat"]


def _published(kind: object) -> TypeGuard[Published]:
    return isinstance(kind, str) and kind in PUBLISHED


class ClusterEvents(Protocol):
    """What the hub does when news arrives or a lease changes hands."""

    def on_news(self, table_id: str, kind: NewsKind, seat: int | None) -> Awaitable[None]: ...

    def on_lease_lost(self, table_id: str) -> None: ...

    def on_sweep(self) -> Awaitable[None]: ...


class Cluster:
    """The one-process case: every lease is ours, presence is our own connections."""

    distributed: bool = False

    def __init__(self) -> None:
        self.process_id = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.takeovers = 0
        self._events: ClusterEvents | None = None
        self._present: Callable[[str], set[int]] = lambda _table_id: set()

    async def start(self, events: ClusterEvents, present: Callable[[str], set[int]]) -> None:
        """``present(table_id)``: the seats connected to this process."""
        self._events = events
        self._present = present

    async def close(self) -> None:
        """Stop; hand every lease over."""

    async def publish(self, table_id: str, kind: Published, seat: int | None = None) -> None:
        """Tell the other processes (see :data:`Published`; ``seat`` for ``left``)."""

    async def acquire(self, table_id: str) -> bool:
        """Take (or keep) the table's lease; False when another process holds it."""
        return True

    def holds(self, table_id: str) -> bool:
        return True

    async def release(self, table_id: str) -> None:
        """Give the lease back (the game is over, or the process stops)."""

    def held(self) -> set[str]:
        return set()

    async def present_seats(self, table_id: str) -> set[int] | None:
        """The seats of ``table_id`` with a connection in some process (None: unknown just
        now, so nobody should be declared away)."""
        return self._present(table_id)

    async def seat_here(self, table_id: str, seat: int, here: bool) -> None:
        """A seat got its first connection here (``here``) or lost its last one."""

    async def ping(self) -> bool:
        """Whether the coordination service answers (always, without one)."""
        return True


LocalCluster = Cluster

# Lua, so that a lease is renewed or given back only by its holder
_RENEW: Final = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE: Final = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""
# every lease of KEYS held by ARGV[1] renewed for ARGV[2] ms, in one command: 1 or 0 each
_RENEW_ALL: Final = """
local renewed = {}
for i, key in ipairs(KEYS) do
  renewed[i] = 0
  if redis.call('get', key) == ARGV[1] then
    renewed[i] = redis.call('pexpire', key, ARGV[2])
  end
end
return renewed
"""
# the heartbeat: this process (ARGV[1]) alive until ARGV[2]; answers whether its entry was
# missing (Redis restarted empty, or it was cleared as dead: say its seats again) and a few
# processes whose entry expired before ARGV[3] (to clear)
_HEARTBEAT: Final = """
local added = redis.call('zadd', KEYS[1], ARGV[2], ARGV[1])
local dead = redis.call('zrangebyscore', KEYS[1], '-inf', '(' .. ARGV[3], 'LIMIT', 0, 8)
return {added, dead}
"""
# clear the seats of process ARGV[1] (its index KEYS[2] of 'seat|table' entries) from the
# tables' sets (ARGV[3] .. table), unless it came back to life (alive past ARGV[2])
_CLEAR: Final = """
local expiry = redis.call('zscore', KEYS[1], ARGV[1])
if expiry and tonumber(expiry) >= tonumber(ARGV[2]) then
  return 0
end
for _, entry in ipairs(redis.call('smembers', KEYS[2])) do
  local sep = string.find(entry, '|', 1, true)
  local seat, table_id = string.sub(entry, 1, sep - 1), string.sub(entry, sep + 1)
  redis.call('srem', ARGV[3] .. table_id, seat .. '|' .. ARGV[1])
end
redis.call('del', KEYS[2])
redis.call('zrem', KEYS[1], ARGV[1])
return 1
"""
# the seats of a table (KEYS[1], 'seat|process' members) whose process is alive (its score
# in KEYS[2] past ARGV[1])
_PRESENT: Final = """
local seats = {}
for _, member in ipairs(redis.call('smembers', KEYS[1])) do
  local sep = string.find(member, '|', 1, true)
  local expiry = redis.call('zscore', KEYS[2], string.sub(member, sep + 1))
  if expiry and tonumber(expiry) > tonumber(ARGV[1]) then
    seats[#seats + 1] = string.sub(member, 1, sep - 1)
  end
end
return seats
"""
#: with the news channel up, the sweep compares the served tables' versions with the
#: database once in this many sweeps (every sweep while it is down)
CATCH_UP_SWEEPS: Final = 5

#: leases renewed by one command at most (a long command holds Redis up)
_RENEW_BATCH: Final = 500


def _stop_if_cancelled() -> None:
    """Raise :class:`asyncio.CancelledError` when this task was asked to stop: a client
    library may turn a cancel that lands mid-command into another error (a closed
    connection), which a loop's ``except Exception`` would log and carry on from, leaving a
    stopped process beating and renewing (the task's pending cancel requests tell)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class RedisCluster(Cluster):
    """Several processes over one PostgreSQL database and one Redis (see the module)."""

    distributed = True

    def __init__(
        self,
        url: str,
        *,
        lease_seconds: float = 5.0,
        sweep_seconds: float = 1.0,
        running: Callable[[], Awaitable[list[str]]],
    ) -> None:
        super().__init__()
        self.url = url
        self.use_namespace("")
        self.lease_ms = int(lease_seconds * 1000)
        self.sweep_seconds = sweep_seconds
        self._running = running
        self._held: set[str] = set()
        self._here: set[tuple[str, int]] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._redis: Redis | None = None
        self._sweep_now = asyncio.Event()
        self._news_healthy = False  # subscribed to the news channel

    def use_namespace(self, namespace: str) -> None:
        """Key the shared names by the database (:meth:`Database.namespace`), so that two
        deployments on one Redis never mix; call before :meth:`start`."""
        self.prefix = f"marsdice:{namespace}"
        self.channel = f"{self.prefix}:news"

    @property
    def redis(self) -> Redis:
        assert self._redis is not None, "the cluster has not started"
        return self._redis

    async def start(self, events: ClusterEvents, present: Callable[[str], set[int]]) -> None:
        from redis.asyncio import Redis

        await super().start(events, present)
        self._redis = Redis.from_url(self.url, socket_timeout=5, socket_connect_timeout=5)
        await self.redis.ping()
        await self._beat()  # alive before the first seat is said
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen(), name="cluster-listen"),
            loop.create_task(self._renew(), name="cluster-renew"),
            loop.create_task(self._heartbeat(), name="cluster-heartbeat"),
            loop.create_task(self._sweep(), name="cluster-sweep"),
        ]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self._tasks:  # bounded: a task that swallows its cancel must not hold the stop up
            await asyncio.wait(self._tasks, timeout=2)
        self._tasks = []
        if self._redis is None:
            return
        with contextlib.suppress(Exception):  # hand the leases over at once
            for table_id in list(self._held):
                await self.release(table_id)
            await self.redis.zrem(self._alive_key, self.process_id)
            await self._clear(self.process_id)
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    # -- news --

    async def publish(self, table_id: str, kind: Published, seat: int | None = None) -> None:
        message = json.dumps(
            {"table": table_id, "kind": kind, "seat": seat, "from": self.process_id}
        )
        try:
            await self.redis.publish(self.channel, message)
        except Exception as error:  # the others catch up by their sweep
            log.warning("could not publish to Redis: %s", type(error).__name__)

    async def _listen(self) -> None:
        """Read the news channel; after a lost connection, start again and re-read every
        table this process serves, since news may have been missed meanwhile."""
        pause = 0.1
        while True:
            _stop_if_cancelled()  # (a cancel swallowed whole, too)
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                self._news_healthy = True
                pause = 0.1
                self._sweep_now.set()  # news may have been missed before this subscription
                async for message in pubsub.listen():
                    await self._news(message)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                _stop_if_cancelled()
                self._news_healthy = False
                log.warning(
                    "Redis news channel lost (%s); reconnecting",
                    type(error).__name__,
                    extra={"event": "redis-lost"},
                )
                await asyncio.sleep(pause)
                pause = min(pause * 2, 2.0)
            finally:
                with contextlib.suppress(Exception):  # (bounded: even while cancelled)
                    await asyncio.wait_for(pubsub.aclose(), 2)  # type: ignore[no-untyped-call,unused-ignore]

    async def _news(self, message: dict[str, Any]) -> None:
        if message.get("type") != "message" or self._events is None:
            return
        try:
            news = json.loads(message["data"])
            table_id, kind, seat = str(news["table"]), news["kind"], news.get("seat")
        except (ValueError, KeyError, TypeError):
            log.warning("ignored a malformed news message")
            return
        if not _published(kind):
            log.warning("ignored a news message of unknown kind %r", kind)
            return
        if news.get("from") == self.process_id:
            return
        if kind == "released":
            self._sweep_now.set()
            return
        try:
            await self._events.on_news(table_id, kind, seat if isinstance(seat, int) else None)
        except Exception:
            log.exception("table %s: news could not be handled", table_id)

    # -- leases --

    def _lease_key(self, table_id: str) -> str:
        return f"{self.prefix}:lease:{table_id}"

    async def acquire(self, table_id: str) -> bool:
        key = self._lease_key(table_id)
        try:
            if await self.redis.set(key, self.process_id, nx=True, px=self.lease_ms):
                self._held.add(table_id)
                return True
            if await self.redis.eval(_RENEW, 1, key, self.process_id, self.lease_ms):
                self._held.add(table_id)
                return True
        except Exception as error:
            log.warning("table %s: lease check failed (%s)", table_id, type(error).__name__)
            return table_id in self._held  # keep going on what we hold; the database guards
        self._held.discard(table_id)
        return False

    def holds(self, table_id: str) -> bool:
        return table_id in self._held

    def held(self) -> set[str]:
        return set(self._held)

    async def release(self, table_id: str) -> None:
        if table_id not in self._held:
            return
        self._held.discard(table_id)
        try:
            await self.redis.eval(_RELEASE, 1, self._lease_key(table_id), self.process_id)
            await self.publish(table_id, "released")
        except Exception as error:
            log.warning("table %s: lease release failed (%s)", table_id, type(error).__name__)

    async def _renew(self) -> None:
        """Renew every lease held, three times per lease period; a lease found lost (it
        expired, or Redis restarted empty) stops this process's work on that table."""
        while True:
            _stop_if_cancelled()  # (a cancel swallowed whole, too)
            await asyncio.sleep(self.lease_ms / 3000)
            held = list(self._held)
            if not held:
                continue
            try:
                results = await self._renew_all(held)
            except Exception as error:
                _stop_if_cancelled()
                log.warning("could not renew leases (%s)", type(error).__name__)
                continue
            for table_id, renewed in zip(held, results, strict=True):
                if not renewed and table_id in self._held:
                    self._held.discard(table_id)
                    log.warning(
                        "table %s: lease lost",
                        table_id,
                        extra={"event": "lease-lost", "table": table_id},
                    )
                    if self._events is not None:
                        self._events.on_lease_lost(table_id)

    async def _renew_all(self, held: list[str]) -> list[int]:
        """Renew ``held`` in one command per :data:`_RENEW_BATCH` leases (one round trip):
        1 for each lease still ours, 0 for one lost."""
        pipe = self.redis.pipeline(transaction=False)
        for start in range(0, len(held), _RENEW_BATCH):
            keys = [self._lease_key(table_id) for table_id in held[start : start + _RENEW_BATCH]]
            pipe.eval(_RENEW_ALL, len(keys), *keys, self.process_id, self.lease_ms)
        return [int(renewed) for batch in await pipe.execute() for renewed in batch]

    async def _sweep(self) -> None:
        """Take over running tables whose lease nobody holds (its holder died or handed it
        over), and let the hub re-read the tables it serves."""
        since_catch_up = 0
        while True:
            _stop_if_cancelled()  # (a cancel swallowed whole, too)
            woken = False
            with contextlib.suppress(TimeoutError):
                woken = await asyncio.wait_for(self._sweep_now.wait(), self.sweep_seconds)
            self._sweep_now.clear()
            since_catch_up += 1
            # the catch-up is the net under the news: every sweep while the channel is down
            # or just back, else every CATCH_UP_SWEEPS (a subscribed channel misses nothing)
            catch_up = woken or not self._news_healthy or since_catch_up >= CATCH_UP_SWEEPS
            if catch_up:
                since_catch_up = 0
            hub = self._events.on_sweep if self._events is not None and catch_up else None
            for step in (self._take_over, hub):
                if step is None:
                    continue
                try:
                    await step()
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # Redis or the database away: next time
                    _stop_if_cancelled()
                    log.warning("sweep failed (%s)", type(error).__name__)

    async def _take_over(self) -> None:
        free = [t for t in await self._running() if t not in self._held]
        if not free:
            return
        holders = await self.redis.mget([self._lease_key(t) for t in free])
        for table_id, holder in zip(free, holders, strict=True):
            if holder is not None:
                continue
            if await self.acquire(table_id):
                self.takeovers += 1
                log.info(
                    "table %s: lease taken over",
                    table_id,
                    extra={"event": "lease-taken", "table": table_id},
                )
                if self._events is not None:
                    await self._events.on_news(table_id, "adopted", None)

    # -- presence --

    def _presence_key(self, table_id: str) -> str:
        """The table's set of ``seat|process`` members."""
        return f"{self.prefix}:present:{table_id}"

    @property
    def _alive_key(self) -> str:
        """The processes alive, scored by when they stop counting as such."""
        return f"{self.prefix}:alive"

    def _index_key(self, process_id: str) -> str:
        """The ``seat|table`` entries a process has said, to clear them when it dies."""
        return f"{self.prefix}:seats:{process_id}"

    async def present_seats(self, table_id: str) -> set[int] | None:
        seats = set(self._present(table_id))
        try:
            now = int(time.time() * 1000)
            found = await self.redis.eval(
                _PRESENT, 2, self._presence_key(table_id), self._alive_key, now
            )
        except Exception as error:
            log.warning("presence check failed (%s)", type(error).__name__)
            return None
        seats.update(int(seat) for seat in found)
        return seats

    async def seat_here(self, table_id: str, seat: int, here: bool) -> None:
        try:
            if here:
                self._here.add((table_id, seat))
                await self._say([(table_id, seat)])
            else:
                self._here.discard((table_id, seat))
                pipe = self.redis.pipeline(transaction=False)
                pipe.srem(self._presence_key(table_id), f"{seat}|{self.process_id}")
                pipe.srem(self._index_key(self.process_id), f"{seat}|{table_id}")
                await pipe.execute()
                await self.publish(table_id, "left", seat)
        except Exception as error:
            log.warning("presence update failed (%s)", type(error).__name__)

    async def _say(self, seats: list[tuple[str, int]]) -> None:
        """Add ``seats`` to their tables' sets and to this process's index."""
        pipe = self.redis.pipeline(transaction=False)
        for table_id, seat in seats:
            pipe.sadd(self._presence_key(table_id), f"{seat}|{self.process_id}")
        pipe.sadd(self._index_key(self.process_id), *(f"{s}|{t}" for t, s in seats))
        await pipe.execute()

    async def _beat(self) -> None:
        """Say this process is alive for a lease period (one command); if Redis had lost its
        entry, say its seats again; clear the seats of processes found dead."""
        now = int(time.time() * 1000)
        added, dead = await self.redis.eval(
            _HEARTBEAT, 1, self._alive_key, self.process_id, now + self.lease_ms, now
        )
        if added and self._here:
            await self._say(sorted(self._here))
        for process in dead:
            await self._clear(process.decode() if isinstance(process, bytes) else str(process))

    async def _clear(self, process_id: str) -> None:
        now = int(time.time() * 1000)
        cleared = await self.redis.eval(
            _CLEAR, 2, self._alive_key, self._index_key(process_id), process_id, now,
            f"{self.prefix}:present:",
        )  # fmt: skip
        if cleared and process_id != self.process_id:
            log.info("presence of process %s cleared: it stopped answering", process_id)

    async def _heartbeat(self) -> None:
        """Keep this process counted alive, three times per lease period."""
        while True:
            _stop_if_cancelled()  # (a cancel swallowed whole, too)
            await asyncio.sleep(self.lease_ms / 3000)
            try:
                await self._beat()
            except Exception as error:
                _stop_if_cancelled()
                log.warning("presence heartbeat failed (%s)", type(error).__name__)

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except Exception:
            return False
