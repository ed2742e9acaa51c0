"""Tables in play: apply a seat's action, roll the dice and move the bots server-side, store
every step before anyone hears of it, and send each connection its own view.

One asyncio lock per table orders the steps inside a process; the database's unique
``(table, seq)`` orders them between processes (the loser gets ``stale_version``). The
:class:`~marsdice.web.cluster.Cluster` tells the other processes of each step and decides
which one process does a table's server-side work (``docs/deploy.md``)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from marsdice.bots import Bot
from marsdice.bots.registry import make_bot
from marsdice.core.errors import ActionParseError, IllegalActionError
from marsdice.games import registration
from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.storage.tables import Live, StaleVersionError, TableData
from marsdice.web.advice import Advice, Advisor, advice_for
from marsdice.web.cluster import Cluster
from marsdice.web.metrics import Metrics
from marsdice.web.schemas import StateMessage

log: Final = logging.getLogger("marsdice.web")

#: sends one JSON text to one connection
Send = Callable[[str], Awaitable[None]]


class ProtocolError(Exception):
    """An error for the one client that caused it; nothing was changed."""

    def __init__(self, code: str, message: str, version: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.version = version


@dataclass(eq=False, slots=True)
class Client:
    """One WebSocket connection at a table: its seat (None: watching) and how to reach it."""

    table_id: str
    send: Send
    seat: int | None = None
    greeted: bool = False


class Hub:
    """Every table this process serves: cached games, connections, bot drivers."""

    def __init__(
        self,
        db: Database,
        *,
        bot_delay: float = 0.5,
        absence_timeout: float | None = 60.0,
        stand_in: str | None = None,
        cluster: Cluster | None = None,
        metrics: Metrics | None = None,
        advisor: Advisor | None = None,
        advice_wait: float = 3.0,
    ) -> None:
        self.db = db
        #: advice for the player to act (the table's hints and fool-check options)
        self.advisor = advisor if advisor is not None else Advisor()
        #: seconds a state waits for its advice before it is sent without (the advice
        #: follows in a second state message of the same version when it is ready)
        self.advice_wait = advice_wait
        self._advice_late: set[tuple[str, int]] = set()
        self._background: set[asyncio.Task[None]] = set()
        self.cluster = cluster if cluster is not None else Cluster()
        self.metrics = metrics if metrics is not None else Metrics()
        self.bot_delay = bot_delay
        #: seconds a seated person may be disconnected before a bot plays for them (None: never)
        self.absence_timeout = absence_timeout
        #: the bot that plays an absent person's seat (None: the game's default opponent)
        self.stand_in = stand_in
        self._timers: dict[tuple[str, int], asyncio.Task[None]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._lock_users: Counter[str] = Counter()
        self._live: dict[str, Live] = {}
        self._clients: dict[str, set[Client]] = {}
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._pending: set[str] = set()
        #: table -> (seat, bot name) -> its bot, so a table's bots go with it in one step
        self._bots: dict[str, dict[tuple[int, str], Bot]] = {}
        #: the stored version each table had when this process last looked (for the sweep)
        self._seen: dict[str, int] = {}

    @contextlib.asynccontextmanager
    async def lock(self, table_id: str) -> AsyncIterator[None]:
        """The table's lock, counted while anyone holds or awaits it, so that
        :meth:`_release` never drops a lock in use."""
        lock = self._locks.setdefault(table_id, asyncio.Lock())
        self._lock_users[table_id] += 1
        try:
            async with lock:
                yield
        finally:
            self._lock_users[table_id] -= 1
            if not self._lock_users[table_id]:
                del self._lock_users[table_id]

    # -- state --

    async def live(self, table_id: str) -> Live | None:
        """The table's game, up to date with the database: the cached one extended by the
        steps another process stored meanwhile (each sent to this process's clients, in
        order, so that nobody misses one), or rebuilt from the log. Call under the lock."""
        cached = self._live.get(table_id)
        if cached is None:
            live = await asyncio.to_thread(tables.load_live, self.db, table_id)
            if live is not None:
                self._live[table_id] = live
                self._seen[table_id] = live.version
            return live
        table, steps = await asyncio.to_thread(
            tables.steps_after, self.db, table_id, cached.version
        )
        cached.table = table
        for step in steps:
            tables.extend_live(cached, step)
            await self._send_all(table, cached)
        self._seen[table_id] = cached.version
        return cached

    def forget(self, table_id: str) -> None:
        self._live.pop(table_id, None)

    # -- connections --

    def attach(self, client: Client) -> None:
        self._clients.setdefault(client.table_id, set()).add(client)

    async def detach(self, client: Client) -> None:
        clients = self._clients.get(client.table_id)
        if clients is not None:
            clients.discard(client)
            if not clients:
                del self._clients[client.table_id]
        if client.greeted and client.seat is not None:
            await self._seat_left(client.table_id, client.seat)
        self._release(client.table_id)

    async def _seat_left(self, table_id: str, seat: int) -> None:
        """A connection left ``seat``: if it was the seat's last one here, the others learn
        it and the table's lease holder starts the absence timer."""
        if self._connected(table_id, seat):
            return
        await self.cluster.seat_here(table_id, seat, False)
        self._watch_seat(table_id, seat)

    def local_seats(self, table_id: str) -> set[int]:
        """The seats of ``table_id`` with a greeted connection to this process."""
        return {c.seat for c in self._clients.get(table_id, ()) if c.greeted and c.seat is not None}

    def connections(self) -> int:
        return sum(len(clients) for clients in self._clients.values())

    def _release(self, table_id: str) -> None:
        """Free what this process keeps of a table nobody is connected to and no driver or
        timer works on: its cached game, lock and bots (the database still has it all, and
        :meth:`live` rebuilds it on demand), so that memory follows the active tables only."""
        if self._clients.get(table_id):
            return
        driver = self._drivers.get(table_id)
        if driver is not None and not driver.done() and driver is not asyncio.current_task():
            return
        if any(key[0] == table_id and not t.done() for key, t in self._timers.items()):
            return
        if self._lock_users[table_id]:
            return
        self._live.pop(table_id, None)
        self._locks.pop(table_id, None)
        self._drivers.pop(table_id, None)
        self._pending.discard(table_id)
        if not self.cluster.distributed:
            self._seen.pop(table_id, None)  # (a lease holder keeps it: its sweep compares)
        self._bots.pop(table_id, None)
        for timer_key in [k for k in self._timers if k[0] == table_id]:
            del self._timers[timer_key]

    def cached_tables(self) -> set[str]:
        """The tables this process holds anything of (for tests and metrics)."""
        held = set(self._live) | set(self._locks) | set(self._clients)
        held |= set(self._bots) | {key[0] for key in self._timers}
        return held | {t for t, task in self._drivers.items() if not task.done()}

    def _connected(self, table_id: str, seat: int) -> bool:
        return any(c.greeted and c.seat == seat for c in self._clients.get(table_id, ()))

    # -- absent players --

    async def watch(self, table: TableData) -> None:
        """Start the absence timer of every person seated at a running table who is not
        connected (after the start of a game, a restart, a lease taken over)."""
        if table.status != tables.RUNNING or not self.cluster.holds(table.id):
            return
        present = await self.cluster.present_seats(table.id)
        if present is None:
            return
        for seat, info in enumerate(table.seats):
            human = info["kind"] == "human" and not info.get("away")
            if human and seat not in present:
                self._watch_seat(table.id, seat)

    def _watch_seat(self, table_id: str, seat: int) -> None:
        """Only the table's lease holder times absences."""
        if self.absence_timeout is None or not self.cluster.holds(table_id):
            return
        timer = self._timers.get((table_id, seat))
        if timer is not None and not timer.done():
            return
        self._timers[(table_id, seat)] = asyncio.get_running_loop().create_task(
            self._absence(table_id, seat), name=f"absence-{table_id}-{seat}"
        )

    async def _absence(self, table_id: str, seat: int) -> None:
        assert self.absence_timeout is not None
        await asyncio.sleep(self.absence_timeout)
        present = await self.cluster.present_seats(table_id)
        if present is not None and seat not in present:
            log.info(
                "table %s: seat %d is away, a bot plays it",
                table_id,
                seat,
                extra={"event": "away", "table": table_id, "seat": seat},
            )
            await self.set_away(table_id, seat, True)

    async def set_away(self, table_id: str, seat: int, away: bool) -> None:
        """Mark a person's seat away (a bot plays it) or back, and tell the table."""
        async with self.lock(table_id):
            table = await self._table(table_id)
            info = table.seats[seat]
            if table.status != tables.RUNNING or info["kind"] != "human":
                return
            if bool(info.get("away")) == away:
                return
            table = await asyncio.to_thread(tables.set_away, self.db, table_id, seat, away)
            await self._refreshed(table)
        await self.cluster.publish(table_id, "table")
        if away:
            self.kick(table_id)

    async def refresh(self, table_id: str, *, publish: bool = True) -> None:
        """The table row changed (a seat taken, left or back): tell everyone, here and (with
        ``publish``) in the other processes."""
        async with self.lock(table_id):
            await self._refreshed(await self._table(table_id))
        if publish:
            await self.cluster.publish(table_id, "table")

    async def _refreshed(self, table: TableData) -> None:
        live = await self.live(table.id)
        if live is not None:
            live.table = table
        await self._send_all(table, live)

    async def greet(self, client: Client, seat: int | None) -> None:
        """Seat the connection and send it the table; under the lock, so that every later
        broadcast reaches it and the versions it sees only go up."""
        async with self.lock(client.table_id):
            live = await self.live(client.table_id)
            table = live.table if live is not None else await self._table(client.table_id)
            left = client.seat if client.greeted else None
            first_here = seat is not None and seat not in self.local_seats(client.table_id)
            client.seat = seat
            client.greeted = True
            advice = await self._advice(table, live)
            await client.send(self._message(table, live, seat, advice))
        if left is not None and left != seat:
            await self._seat_left(client.table_id, left)  # switched seats: the old one is free
        if seat is not None and first_here:
            await self.cluster.seat_here(client.table_id, seat, True)
        if seat is not None:
            timer = self._timers.pop((client.table_id, seat), None)
            if timer is not None:
                timer.cancel()
            if table.seats[seat].get("away"):
                log.info(
                    "table %s: seat %d is back",
                    client.table_id,
                    seat,
                    extra={"event": "back", "table": client.table_id, "seat": seat},
                )
                await self.set_away(client.table_id, seat, False)

    async def _table(self, table_id: str) -> TableData:
        return await asyncio.to_thread(tables.get_table, self.db, table_id)

    def _message(
        self, table: TableData, live: Live | None, seat: int | None, advice: Advice | None = None
    ) -> str:
        view: dict[str, Any] | None = None
        log_: list[str] = []
        actors: list[str] = []
        version = 0
        your_turn = False
        if live is not None:
            view = dict(live.game.observe(live.state, seat))
            log_ = live.redacted_log(seat)
            actors = [actor for actor, _ in live.actors]
            version = live.version
            your_turn = seat is not None and live.state.current_player == seat
        return StateMessage(
            table=dict(table.public()),
            seat=seat,
            version=version,
            view=view,
            log=log_,
            actors=actors,
            your_turn=your_turn,
            advice=advice_for(advice, table.options, seat),
        ).model_dump_json()

    # -- advice --

    def _advice_wanted(self, table: TableData, live: Live) -> bool:
        """Advice is worked out for a person to act (not a bot, nor a stand-in) when someone
        connected here may see it: everyone with hints, else the mover with the fool check."""
        state = live.state
        if state.is_terminal or state.is_chance_node:
            return False
        seat = state.current_player
        info = table.seats[seat]
        if info["kind"] != "human" or info.get("away"):
            return False
        if table.options.get("hints"):
            return any(c.greeted for c in self._clients.get(table.id, ()))
        return bool(table.options.get("fool_check")) and self._connected(table.id, seat)

    async def _advice(self, table: TableData, live: Live | None) -> Advice | None:
        """The advice at the table's current version: cached, or worked out in a thread,
        waited for :attr:`advice_wait` seconds at most (later, it is sent when ready)."""
        if live is None or not self._advice_wanted(table, live):
            return None
        version = live.version
        if self.advisor.known(table.id, version):
            return self.advisor.cached(table.id, version)
        task = self.advisor.start(table.id, version, live.game, live.state)
        done, _ = await asyncio.wait({task}, timeout=self.advice_wait)
        if task in done:
            return self.advisor.cached(table.id, version)
        key = (table.id, version)
        if key not in self._advice_late:
            self._advice_late.add(key)
            task.add_done_callback(lambda _task: self._advice_ready(key))
        return None

    def _advice_ready(self, key: tuple[str, int]) -> None:
        """Late advice: send the state again (same version) if the table is still there."""

        async def resend() -> None:
            table_id, version = key
            self._advice_late.discard(key)
            async with self.lock(table_id):
                live = self._live.get(table_id)
                if live is not None and live.version == version:
                    await self._send_all(live.table, live)

        task = asyncio.get_running_loop().create_task(resend(), name=f"advice-ready-{key[0]}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _send_all(self, table: TableData, live: Live | None) -> None:
        """Send under the table's lock, so every client sees the versions in order."""
        clients = [c for c in self._clients.get(table.id, ()) if c.greeted]
        advice = await self._advice(table, live) if clients else None
        texts: dict[int | None, str] = {}
        for client in clients:
            if client.seat not in texts:
                texts[client.seat] = self._message(table, live, client.seat, advice)
            try:
                await client.send(texts[client.seat])
            except Exception:  # a socket closing under us: its handler detaches it
                log.debug("table %s: a send failed", table.id)

    # -- play --

    async def act(self, table_id: str, seat: int, version: int, text: str) -> None:
        """A seat's action on ``version``: parsed and applied by the engine, stored, then
        sent to everyone; any failure raises :class:`ProtocolError` and changes nothing."""
        began = time.perf_counter()
        async with self.lock(table_id):
            live = await self.live(table_id)
            if live is None:
                raise ProtocolError("not_started", "the game has not started: seats are open")
            if live.state.is_terminal:
                raise ProtocolError("finished", "the game is over", live.version)
            if version != live.version:
                raise ProtocolError(
                    "stale_version",
                    f"your action was made on version {version}; the game is at {live.version}",
                    live.version,
                )
            if live.state.current_player != seat:
                raise ProtocolError("not_your_turn", "it is not your turn", live.version)
            if live.table.seats[seat].get("away"):
                raise ProtocolError(
                    "away", "you left this seat: say hello again to take it back", live.version
                )
            try:
                action = live.state.parse_action(text)
                after = live.state.apply(action)
            except (ActionParseError, IllegalActionError, ValueError) as error:
                raise ProtocolError("illegal_action", str(error), live.version) from None
            await self._store(live, action, after, actor="human", seat=seat, counter=None)
            await self._send_all(live.table, live)
        self.metrics.action_seconds.observe(time.perf_counter() - began)
        self.kick(table_id)

    async def _store(
        self,
        live: Live,
        action: Any,
        after: Any,
        *,
        actor: str,
        seat: int | None,
        counter: int | None,
    ) -> None:
        try:
            await asyncio.to_thread(
                tables.append_step,
                self.db,
                live,
                action,
                after,
                actor=actor,
                seat=seat,
                counter=live.counter if counter is None else counter,
            )
        except StaleVersionError as error:  # the cache stays right: live() catches it up
            raise ProtocolError("stale_version", str(error)) from None
        self._seen[live.table.id] = live.version
        self.metrics.steps.labels(actor=actor).inc()
        await self.cluster.publish(live.table.id, "step")
        log.info(
            "table %s: step %d by %s",
            live.table.id,
            live.version - 1,
            actor,
            extra={
                "event": "step",
                "table": live.table.id,
                "seq": live.version - 1,
                "actor": actor,
                "seat": seat,
            },
        )

    def kick(self, table_id: str) -> None:
        """Make sure the table's driver runs (dice, bots); at most one per table."""
        task = self._drivers.get(table_id)
        if task is not None and not task.done():
            self._pending.add(table_id)
            return
        self._drivers[table_id] = asyncio.get_running_loop().create_task(
            self._drive(table_id), name=f"drive-{table_id}"
        )

    async def _drive(self, table_id: str) -> None:
        """Server-side steps while the rules call for them, by the table's lease holder
        only; the lease is given back at the end of the game."""
        try:
            while True:
                if not await self.cluster.acquire(table_id):
                    break  # another process does this table's work
                try:
                    worked = await self._auto_step(table_id)
                except ProtocolError:  # another writer stored this step first: look again
                    worked = True
                if worked is None:  # the end: nothing more to do here
                    await self.cluster.release(table_id)
                    self._seen.pop(table_id, None)
                    break
                if worked:
                    continue
                if table_id in self._pending:
                    self._pending.discard(table_id)
                    continue
                break
        except Exception:
            log.exception(
                "table %s: the driver stopped",
                table_id,
                extra={"event": "driver-failed", "table": table_id},
            )
        self._release(table_id)

    async def _auto_step(self, table_id: str) -> bool | None:
        """One server-side step if the rules call for it: a roll (or a draw) at a chance
        node, a bot's move at its turn. False when a person is to act (or the game has not
        started), None when the game is over."""
        async with self.lock(table_id):
            live = await self.live(table_id)
            if live is None:
                return False
            if live.state.is_terminal:
                return None
            state = live.state
            if state.is_chance_node:
                rng = live.rng()
                action = state.sample_chance(rng)
                after = state.apply(action)
                await self._store(
                    live, action, after, actor="chance", seat=None, counter=rng.counter
                )
                await self._send_all(live.table, live)
                return True
            seat = state.current_player
            if not self._plays_itself(live, seat):
                return False
            version = live.version
        if self.bot_delay > 0:
            await asyncio.sleep(self.bot_delay)
        async with self.lock(table_id):
            live = await self.live(table_id)
            if live is None or live.version != version or not self._plays_itself(live, seat):
                return True  # someone moved or came back meanwhile: look again
            bot = self._bot(live, seat)
            action = await asyncio.to_thread(bot.choose, live.state)
            after = live.state.apply(action)
            actor = "bot" if live.table.seats[seat]["kind"] == "bot" else "stand-in"
            await self._store(live, action, after, actor=actor, seat=seat, counter=None)
            await self._send_all(live.table, live)
        return True

    @staticmethod
    def _plays_itself(live: Live, seat: int) -> bool:
        """A bot's seat, or a person's seat while they are away."""
        info = live.table.seats[seat]
        return info["kind"] == "bot" or bool(info.get("away"))

    def _bot(self, live: Live, seat: int) -> Bot:
        info = live.table.seats[seat]
        if info["kind"] == "bot":
            name = str(info["bot"])
        elif self.stand_in is not None and any(
            b.name == self.stand_in for b in registration(live.game).bots
        ):
            name = self.stand_in
        else:
            name = registration(live.game).default_opponent
        bots = self._bots.setdefault(live.table.id, {})
        bot = bots.get((seat, name))
        if bot is None:
            digest = hashlib.sha256(live.table.server_seed + bytes([seat])).digest()
            bot = make_bot(live.game, name, seed=int.from_bytes(digest[:8], "big"))
            bots[(seat, name)] = bot
        return bot

    async def resume_all(self) -> None:
        """After a start: drive every running table (dice due, bots to move) whose lease is
        free, and time its absences."""
        running = await asyncio.to_thread(tables.list_tables, self.db, (tables.RUNNING,))
        for table in running:
            if await self.cluster.acquire(table.id):
                self.kick(table.id)
                await self.watch(table)

    # -- news from the other processes (ClusterEvents) --

    async def on_news(self, table_id: str, kind: str, seat: int | None) -> None:
        """Another process stored a step (``step``), changed the table (``table``), lost a
        seat's last connection (``left``), or this one took the lease over (``adopted``)."""
        if kind == "left":
            if seat is not None and self.cluster.holds(table_id):
                present = await self.cluster.present_seats(table_id)
                if present is not None and seat not in present:
                    self._watch_seat(table_id, seat)
            return
        if table_id in self._clients:
            if kind == "step":
                async with self.lock(table_id):
                    await self.live(table_id)  # sends each new step
            else:
                await self.refresh(table_id, publish=False)
        if self.cluster.holds(table_id):
            self.kick(table_id)
            if kind != "step":
                await self.watch(await self._table(table_id))

    def on_lease_lost(self, table_id: str) -> None:
        """Another process has the table now: stop its work here."""
        if table_id not in self._clients:
            self._seen.pop(table_id, None)
        driver = self._drivers.pop(table_id, None)
        if driver is not None:
            driver.cancel()
        for key in [key for key in self._timers if key[0] == table_id]:
            self._timers.pop(key).cancel()

    async def on_sweep(self) -> None:
        """The safety net under the news: every table this process serves or holds is
        compared with the database, and whatever moved without news (a message lost while
        Redis was away) is caught up and driven."""
        ids = set(self._clients) | self.cluster.held()
        if not ids:
            return
        stored = await asyncio.to_thread(tables.stored_versions, self.db, sorted(ids))
        for table_id in ids:
            if stored.get(table_id, 0) != self._seen.get(table_id, -1):
                await self.on_news(table_id, "step", None)

    async def close(self) -> None:
        await self.advisor.close()
        for background in self._background:
            background.cancel()
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for task in self._drivers.values():
            task.cancel()
        for task in self._drivers.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._drivers.clear()
