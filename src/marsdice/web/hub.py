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
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, TypeVar

from marsdice.bots import Bot
from marsdice.bots.registry import make_bot
from marsdice.core.errors import ActionParseError, IllegalActionError
from marsdice.core.game import Action, GameState
from marsdice.games import bot_spec, registration
from marsdice.storage import chat, results, tables
from marsdice.storage.commits import StepCommits
from marsdice.storage.db import Database
from marsdice.storage.tables import StaleVersionError, TableData
from marsdice.web import messages
from marsdice.web.advice import Advice, Advisor, advice_for, sees
from marsdice.web.cluster import Cluster, NewsKind
from marsdice.web.live import Live, load_live
from marsdice.web.metrics import Metrics
from marsdice.web.schemas import StateMessage
from marsdice.web.session import Client, Held, Send, TableSession
from marsdice.web.workers import SolvePool, SolveRefused, decide

__all__ = ["Client", "Hub", "ProtocolError", "Send"]

log: Final = logging.getLogger("marsdice.web")
#: the ``state`` fields of :meth:`Hub.state_notes`, left out when at their default
STATE_NOTES: Final = frozenset({"advice_pending", "advice_missing", "fallback"})
_T = TypeVar("_T")
#: how many tables' creators the hub remembers (for the solve pool's per-client budget)
CREATORS_KEPT: Final = 10_000


#: steps stored and sent together at most (a move and the dice that follow it)
MAX_STEPS_TOGETHER: Final = 4


@dataclass(frozen=True, slots=True)
class Planned:
    """A step worked out and not yet stored: ``action`` led to ``after``; ``counter`` is the
    fair generator's after it."""

    action: Action
    after: GameState
    actor: str
    seat: int | None
    counter: int


async def _send_each(clients: list[Client], texts: list[str]) -> None:
    """Each text to each client, in order; a client whose socket is closing under us is
    passed over (its handler detaches it)."""
    for client in clients:
        for text in texts:
            try:
                await client.send(text)
            except Exception:
                break


def _stood_in(live: Live, seat: int) -> dict[str, int] | None:
    """The moves a stand-in made for ``seat`` since its player's last own move (None: none)."""
    moves = 0
    for actor, at in reversed(live.actors):
        if at != seat:
            continue
        if actor != results.STAND_IN:
            break
        moves += 1
    return {"seat": seat, "moves": moves} if moves else None


def _bot_seed(server_seed: bytes, seat: int) -> int:
    """A seat's bot's seed, from the table's secret server seed."""
    digest = hashlib.sha256(server_seed + bytes([seat])).digest()
    return int.from_bytes(digest[:8], "big")


class ProtocolError(Exception):
    """An error for the one client that caused it; nothing was changed."""

    def __init__(self, code: str, message: str, version: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.version = version


def _remember_sent(seen: dict[int, None], ids: list[int]) -> None:
    """Add ``ids`` to a table's sent chat ids, keeping the latest :data:`CHAT_REMEMBERED`."""
    for message_id in ids:
        seen[message_id] = None
    while len(seen) > CHAT_REMEMBERED:
        del seen[next(iter(seen))]


#: chat ids remembered per table: more than the latest messages a news read holds
CHAT_REMEMBERED: Final = 2 * chat.SHOWN


class Hub:
    """Every table this process serves, one :class:`TableSession` each."""

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
        pool: SolvePool | None = None,
        bot_wait: float = 5.0,
    ) -> None:
        self.db = db
        #: the steps this process stores, committed in groups (one transaction for the
        #: tables that store a step while the last commit is made)
        self.commits = StepCommits(db)
        #: the worker processes that solve (advice, solving bots, reviews): the hub's own
        self.pool = pool if pool is not None else SolvePool()
        #: seconds a solving bot's move may take in the pool (waiting included) before the
        #: game's fast bot plays this move instead
        self.bot_wait = bot_wait
        #: table -> the address that created it (whose solve budget its work counts against)
        self._creators: OrderedDict[str, str] = OrderedDict()
        #: advice for the player to act (the table's hints and fool-check options)
        self.advisor = advisor if advisor is not None else Advisor(pool=self.pool)
        #: seconds a state waits for its advice before it is sent without (the advice
        #: follows in a second state message of the same version when it is ready)
        self.advice_wait = advice_wait
        self._background: set[asyncio.Task[None]] = set()
        self.cluster = cluster if cluster is not None else Cluster()
        self.metrics = metrics if metrics is not None else Metrics()
        self.bot_delay = bot_delay
        #: seconds a seated person may be disconnected before a bot plays for them (None: never)
        self.absence_timeout = absence_timeout
        #: the bot that plays an absent person's seat (None: the game's default opponent)
        self.stand_in = stand_in
        self._sessions: dict[str, TableSession] = {}
        #: with Redis, the stored version each table had when this process last looked, for
        #: the sweep; a lease holder keeps it after the table's session is gone (the sweep
        #: compares every table it holds) until the game ends or the lease is lost
        self._seen: dict[str, int] = {}
        #: the ids of the chat messages each table's connections here were sent (the latest
        #: ones, oldest first), for the tables whose connections read chat
        self._chat_seen: dict[str, dict[int, None]] = {}

    def _session(self, table_id: str) -> TableSession:
        """The table's session, made on first use."""
        session = self._sessions.get(table_id)
        if session is None:
            session = self._sessions[table_id] = TableSession(table_id)
        return session

    def _clients_at(self, table_id: str) -> set[Client]:
        session = self._sessions.get(table_id)
        return session.clients if session is not None else set()

    def lock(self, table_id: str) -> Held:
        """The table's lock, counted while anyone holds or awaits it, so that
        :meth:`_release` never drops a session in use; yields the session."""
        return self._session(table_id).locked()

    def _saw(self, table_id: str, version: int) -> None:
        if self.cluster.distributed:  # (only the sweep reads it)
            self._seen[table_id] = version

    # -- state --

    async def live(self, table_id: str, *, catch_up: bool = True) -> Live | None:
        """The table's game, up to date with the database: the cached one extended by the
        steps another process stored meanwhile (each sent to this process's clients, in
        order, so that nobody misses one), or rebuilt from the log. Call under the lock.

        The play path passes ``catch_up=False``: it reads nothing when the game is cached and
        nothing says it is behind. Only this process stores steps for the tables it plays
        unless another process's news (or the sweep) says otherwise, and a step stored by
        another writer first makes the store refuse ours (the log's unique key), which marks
        the game behind (:attr:`TableSession.behind`) and catches it up. A process on its
        own (no Redis: it holds the database's claim alone) is the only one that stores
        steps, so it reads nothing for a cached game on any path."""
        session = self._session(table_id)
        cached = session.live
        if cached is None:
            live = await self.database(load_live, self.db, table_id)
            if live is not None:
                session.live = live
                self._saw(table_id, live.version)
            return live
        if not ((catch_up and self.cluster.distributed) or session.behind):
            return cached
        session.behind = False
        table, steps = await self.database(tables.steps_after, self.db, table_id, cached.version)
        cached.table = table
        for step in steps:
            cached.extend(step)
            await self._send_all(session, table, cached)
        self._saw(table_id, cached.version)
        return cached

    def forget(self, table_id: str) -> None:
        session = self._sessions.get(table_id)
        if session is not None:
            session.live = None

    # -- connections --

    def attach(self, client: Client) -> None:
        self._session(client.table_id).clients.add(client)

    async def detach(self, client: Client) -> None:
        self._clients_at(client.table_id).discard(client)
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
        self._presence_soon(table_id)

    def local_seats(self, table_id: str) -> set[int]:
        """The seats of ``table_id`` with a greeted connection to this process."""
        session = self._sessions.get(table_id)
        return session.local_seats() if session is not None else set()

    def connections(self) -> int:
        return sum(len(session.clients) for session in self._sessions.values())

    def _release(self, table_id: str) -> None:
        """Drop the session of a table nobody is connected to and no driver or timer works
        on: its cached game, lock and bots (the database still has it all, and :meth:`live`
        rebuilds it on demand), so that memory follows the active tables only."""
        session = self._sessions.get(table_id)
        if session is None or not session.idle():
            return
        del self._sessions[table_id]
        self._chat_seen.pop(table_id, None)
        session.close()

    def cached_tables(self) -> set[str]:
        """The tables this process holds anything of (for tests and metrics)."""
        return set(self._sessions)

    def _connected(self, table_id: str, seat: int) -> bool:
        session = self._sessions.get(table_id)
        return session is not None and session.connected(seat)

    # -- absent players --

    async def started(self, table: TableData) -> None:
        """A join that started the game (this process holds its lease): the game is its
        deal and no step yet, made from the row the join wrote, not read back."""
        if table.status != tables.RUNNING or table.version != 0:
            return
        async with self.lock(table.id) as session:
            if session.live is None:
                live = Live.rebuild(table, ())
                if live is not None:
                    session.live = live
                    self._saw(table.id, live.version)

    async def watch(self, table: TableData) -> None:
        """Start the absence timer of every person seated at a running table who is not
        connected (after the start of a game, a restart, a lease taken over)."""
        if table.status != tables.RUNNING or not self.cluster.holds(table.id):
            return
        present = await self.cluster.present_seats(table.id)
        if present is None:
            return
        for seat, info in enumerate(table.seats):
            if info.kind == "human" and not info.away and seat not in present:
                self._watch_seat(table.id, seat)

    def _watch_seat(self, table_id: str, seat: int) -> None:
        """Only the table's lease holder times absences."""
        if self.absence_timeout is None or not self.cluster.holds(table_id):
            return
        session = self._session(table_id)
        if session.timing(seat):
            return
        session.timers[seat] = asyncio.get_running_loop().create_task(
            self._absence(table_id, seat), name=f"absence-{table_id}-{seat}"
        )
        session.deadlines[seat] = time.time() + self.absence_timeout
        self._presence_soon(table_id)

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
        async with self.lock(table_id) as session:
            table = await self._table(table_id)
            info = table.seats[seat]
            if table.status != tables.RUNNING or info.kind != "human":
                return
            if info.away == away:
                return
            table = await self.database(tables.set_away, self.db, table_id, seat, away)
            await self._refreshed(session, table)
        await self.cluster.publish(table_id, "table")
        self._presence_soon(table_id)
        if away:
            self.kick(table_id)

    async def refresh(self, table_id: str, *, publish: bool = True) -> None:
        """The table row changed (a seat taken, left or back): tell everyone, here and (with
        ``publish``) in the other processes. A table this process holds nothing of (no
        connection, no game: a table being set up) has nobody here to tell: nothing read."""
        if table_id in self._sessions:
            async with self.lock(table_id) as session:
                await self._refreshed(session, await self._table(table_id))
        if publish:
            await self.cluster.publish(table_id, "table")

    async def _refreshed(self, session: TableSession, table: TableData) -> None:
        live = await self.live(table.id)
        if live is not None:
            live.table = table
        unseated = set()
        for client in session.clients:  # a seat given back: its old connections watch now
            seat = client.seat
            if seat is not None and (
                seat >= len(table.seats) or table.seats[seat].token_hash != client.holder
            ):
                client.seat = client.holder = None
                client.version = -1  # (a whole state, as a spectator's)
                unseated.add(seat)
        await self._send_all(session, table, live)
        for seat in sorted(unseated):
            await self._seat_left(table.id, seat)

    async def greet(self, client: Client, seat: int | None, protocol: int = 1) -> None:
        """Seat the connection and send it the table; under the lock, so that every later
        broadcast reaches it and the versions it sees only go up."""
        async with self.lock(client.table_id) as session:
            live = await self.live(client.table_id)
            table = live.table if live is not None else await self._table(client.table_id)
            left = client.seat if client.greeted else None
            first_here = seat is not None and seat not in session.local_seats()
            client.seat = seat
            client.holder = None if seat is None else table.seats[seat].token_hash
            client.greeted = True
            client.protocol = protocol
            if seat is not None:  # here: its absence timer stops in the same step (a
                # presence message never shows the seat here and on its way to a stand-in)
                timer = session.timers.pop(seat, None)
                session.deadlines.pop(seat, None)
                if timer is not None:
                    timer.cancel()
            advice = await self._advice(session, table, live)
            await self._send_state(session, client, table, live, advice)
        if left is not None and left != seat:
            await self._seat_left(client.table_id, left)  # switched seats: the old one is free
        if seat is not None and first_here:
            await self.cluster.seat_here(client.table_id, seat, True)
            self._presence_soon(client.table_id)
        if seat is not None:
            if client.presence and live is not None and table.seats[seat].kind == "human":
                await self._send_presence(client.table_id, [client], _stood_in(live, seat))
            if table.seats[seat].away:
                log.info(
                    "table %s: seat %d is back",
                    client.table_id,
                    seat,
                    extra={"event": "back", "table": client.table_id, "seat": seat},
                )
                await self.set_away(client.table_id, seat, False)

    async def _table(self, table_id: str) -> TableData:
        return await self.database(tables.get_table, self.db, table_id)

    async def seated_table(self, table_id: str) -> TableData:
        """The table a new connection is checked against (that it exists, which seat its
        token or account holds): the game in hand's when this process has one, as its
        seats' tokens and accounts no longer change once the game runs; else read (raises
        :class:`NotFoundError`). Spares every connection to a game under way a read."""
        session = self._sessions.get(table_id)
        live = session.live if session is not None else None
        return live.table if live is not None else await self._table(table_id)

    async def database(self, call: Callable[..., _T], *args: Any) -> _T:
        """A storage call of one table's rows from the event loop (the hub's, and the
        lobby's one-table routes): in place on SQLite (a local file: a step's
        write takes tens of microseconds, less than a hop to a thread and back, and every
        writer takes the file's lock in turn anyway), in a thread on PostgreSQL (a round
        trip over the network, during which the loop serves others)."""
        if self.db.local:
            return call(*args)
        return await asyncio.to_thread(call, *args)

    async def sync(self, client: Client, version: int) -> None:
        """Protocol 2: the client holds ``version`` and saw a gap: the steps since, or the
        whole state (see :func:`marsdice.web.messages.updates`)."""
        async with self.lock(client.table_id) as session:
            live = await self.live(client.table_id)
            table = live.table if live is not None else await self._table(client.table_id)
            advice = await self._advice(session, table, live)
            behind = live.version - version if live is not None else 0
            if client.protocol == 1 or not 0 < behind <= messages.MAX_STEPS_BEHIND:
                await self._send_state(session, client, table, live, advice)
                return
            client.version = version  # what it holds, by its word: the steps since follow
            seen = self._guidance(table, live, client.seat, advice)
            texts = messages.updates(session, client, table, live, seen)
            await self._send_texts(client, texts, table)
            messages.mark_sent(session, client, table, live, seen)

    async def _send_state(
        self,
        session: TableSession,
        client: Client,
        table: TableData,
        live: Live | None,
        advice: Advice | None,
    ) -> None:
        """The whole table, in the connection's protocol."""
        if client.protocol == 1:
            await client.send(self._message(table, live, client.seat, advice, session=session))
            return
        seen = self._guidance(table, live, client.seat, advice)
        text = messages.full_state(session, client.seat, table, live, seen)
        await self._send_texts(client, [text], table)
        messages.mark_sent(session, client, table, live, seen)

    def _message(
        self,
        table: TableData,
        live: Live | None,
        seat: int | None,
        advice: Advice | None = None,
        *,
        session: TableSession | None = None,
    ) -> str:
        """Protocol 1's ``state``, byte for byte as it always was."""
        view: dict[str, Any] | None = None
        log_: list[str] = []
        actors: list[str] = []
        version = 0
        your_turn = False
        if live is not None:
            if session is not None:
                view = session.view(live, seat, live.version)
                log_ = session.redacted_log(live, seat)
            else:
                view = dict(live.game.observe(live.state, seat))
                log_ = live.redacted_log(seat)
            actors = [actor for actor, _ in live.actors]
            version = live.version
            your_turn = seat is not None and live.state.current_player == seat
        public = session.table_public(table) if session is not None else dict(table.public())
        notes = self.state_notes(table, live, seat)
        return StateMessage(
            table=public,
            seat=seat,
            version=version,
            view=view,
            log=log_,
            actors=actors,
            your_turn=your_turn,
            advice=advice_for(advice, table.options, seat),
            **notes,
        ).model_dump_json(exclude={"step_events", *(STATE_NOTES - notes.keys())})

    def state_notes(self, table: TableData, live: Live | None, seat: int | None) -> dict[str, Any]:
        """The ``state`` fields that say what the solve pool did for this connection, only
        those that are not at their default (absent: no advice pending or missing, no
        fallback move), so that a table the pool serves in time sends what it always did."""
        notes: dict[str, Any] = {}
        if live is None:
            return notes
        session = self._sessions.get(table.id)
        if session is not None and session.fallbacks:
            notes["fallback"] = sorted(session.fallbacks)
        state = live.state
        if state.is_terminal or state.is_chance_node:
            return notes
        if not sees(table.options, seat, state.current_player):
            return notes
        if self.advisor.pending(table.id, live.version):
            notes["advice_pending"] = True
        elif (missing := self.advisor.missing(table.id, live.version)) is not None:
            notes["advice_missing"] = missing
        return notes

    # -- advice --

    def _advice_wanted(self, session: TableSession, table: TableData, live: Live) -> bool:
        """Advice is worked out for a person to act (not a bot, nor a stand-in) when someone
        connected here may see it: everyone with hints, else the mover with the fool check."""
        state = live.state
        if state.is_terminal or state.is_chance_node:
            return False
        seat = state.current_player
        if table.seats[seat].plays_itself:
            return False
        if table.options.get("hints"):
            return bool(session.greeted())
        return bool(table.options.get("fool_check")) and session.connected(seat)

    async def _advice(
        self, session: TableSession, table: TableData, live: Live | None
    ) -> Advice | None:
        """The advice at the table's current version: cached, or worked out in the solve
        pool, waited for :attr:`advice_wait` seconds at most when a worker is free, not at
        all when the solve must queue (later, it is sent when ready)."""
        if live is None or not self._advice_wanted(session, table, live):
            return None
        version = live.version
        if self.advisor.known(table.id, version) or self.advisor.in_place(
            table.id, version, live.game, live.state, table.variant
        ):
            return self.advisor.cached(table.id, version)
        wait = self.advice_wait if self.pool.has_free_worker() else 0.0
        task = self.advisor.start(
            table.id,
            version,
            live.game,
            live.state,
            params=table.variant,
            client=self.creator(table.id),
        )
        done, _ = await asyncio.wait({task}, timeout=wait)
        if task in done:
            return self.advisor.cached(table.id, version)
        if version not in session.advice_late:
            session.advice_late.add(version)
            task.add_done_callback(lambda _task: self._advice_ready(session, version))
        return None

    def _advice_ready(self, session: TableSession, version: int) -> None:
        """Late advice: send the state again (same version) if the table is still there."""

        async def resend() -> None:
            session.advice_late.discard(version)
            if self._sessions.get(session.table_id) is not session:
                return  # released meanwhile (a new session waits for its own advice)
            async with self.lock(session.table_id):
                live = session.live
                if live is not None and live.version == version:
                    await self._send_all(session, live.table, live)

        name = f"advice-ready-{session.table_id}"
        task = asyncio.get_running_loop().create_task(resend(), name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _send_all(self, session: TableSession, table: TableData, live: Live | None) -> None:
        """Send under the table's lock, so every client sees the versions in order. Each
        message is built and encoded once per viewer (a seat, the spectators) and protocol:
        protocol 1 gets the whole state, protocol 2 the steps it has not seen, or the news
        of the table or the advice (:func:`marsdice.web.messages.updates`)."""
        clients = session.greeted()
        advice = await self._advice(session, table, live) if clients else None
        texts: dict[int | None, str] = {}
        built: dict[tuple[object, ...], list[str]] = {}
        guidance: dict[int | None, dict[str, Any]] = {}
        for client in clients:
            if client.protocol == 1:
                if client.seat not in texts:
                    texts[client.seat] = self._message(
                        table, live, client.seat, advice, session=session
                    )
                await self._send_texts(client, [texts[client.seat]], table)
                continue
            if client.seat not in guidance:
                guidance[client.seat] = self._guidance(table, live, client.seat, advice)
            seen = guidance[client.seat]
            key = messages.updates_key(session, client, table, live, seen)
            if key not in built:
                built[key] = messages.updates(session, client, table, live, seen)
            await self._send_texts(client, built[key], table)
            messages.mark_sent(session, client, table, live, seen)  # (a pong says it after)

    def _guidance(
        self, table: TableData, live: Live | None, seat: int | None, advice: Advice | None
    ) -> dict[str, Any]:
        """Protocol 2: the advice ``seat`` may see and the solve pool's notes for it (the
        fields a ``state``, ``step`` or ``advice`` message carries alike)."""
        return {
            "advice": advice_for(advice, table.options, seat),
            **self.state_notes(table, live, seat),
        }

    async def _send_texts(self, client: Client, texts: list[str], table: TableData) -> None:
        for text in texts:
            try:
                await client.send(text)
            except Exception:  # a socket closing under us: its handler detaches it
                log.debug("table %s: a send failed", table.id)
                return

    # -- play --

    async def act(self, table_id: str, seat: int, version: int, text: str) -> None:
        """A seat's action on ``version``: parsed and applied by the engine, stored, then
        sent to everyone; any failure raises :class:`ProtocolError` and changes nothing."""
        began = time.perf_counter()
        async with self.lock(table_id) as session:
            live = await self.live(table_id, catch_up=False)
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
            if live.table.seats[seat].away:
                raise ProtocolError(
                    "away", "you left this seat: say hello again to take it back", live.version
                )
            try:
                action = live.state.parse_action(text)
                after = live.state.apply(action)
            except (ActionParseError, IllegalActionError, ValueError) as error:
                raise ProtocolError("illegal_action", str(error), live.version) from None
            planned = self._with_rolls(live, [Planned(action, after, "human", seat, live.counter)])
            await self._store(live, planned)
            await self._send_all(session, live.table, live)
            work_left = self._server_moves(live)
        self.metrics.action_seconds.observe(time.perf_counter() - began)
        if work_left:
            self.kick(table_id)

    def _with_rolls(self, live: Live, planned: list[Planned]) -> list[Planned]:
        """``planned`` and the dice (or draws) the server makes right after it, when this
        process does the table's server-side work: stored in one transaction and sent in
        one message (protocol 3), instead of a second step through the driver. The fair
        generator makes the same roll wherever and whenever it is drawn."""
        state = planned[-1].after
        if not (state.is_chance_node and self.cluster.holds(live.table.id)):
            return planned
        rng = live.rng(planned[-1].counter)
        while state.is_chance_node and len(planned) < MAX_STEPS_TOGETHER:
            roll = state.sample_chance(rng)
            state = state.apply(roll)
            planned.append(Planned(roll, state, "chance", None, rng.counter))
        return planned

    @staticmethod
    def _server_moves(live: Live) -> bool:
        """Whether the table's driver has work: dice to roll, a bot (or a stand-in) to
        move, or the end (the driver gives the lease back)."""
        state = live.state
        if state.is_terminal or state.is_chance_node:
            return True
        return live.table.seats[state.current_player].plays_itself

    async def _store(self, live: Live, planned: list[Planned]) -> None:
        """Store the planned steps (one transaction), then (only once they are stored) add
        them to ``live``."""
        first = live.version
        steps = [
            tables.StoredStep(first + i, p.action.text(), p.actor, p.seat, p.counter)
            for i, p in enumerate(planned)
        ]
        # (the table it holds: only the seats, status and version come back)
        write = tables.StepWrite(
            live.table.id, tuple(steps), planned[-1].after.is_terminal, live.table
        )
        try:
            table = await self.commits.append(write)
        except StaleVersionError as error:  # another writer was first: catch up, then say so
            self._session(live.table.id).behind = True
            await self.live(live.table.id)
            raise ProtocolError("stale_version", str(error), live.version) from None
        except asyncio.CancelledError:  # its commit may have been under way: read it back
            self._session(live.table.id).behind = True
            raise
        for step, p in zip(steps, planned, strict=True):
            live.played(step, p.action, p.after, table)
            self.metrics.step_stored(p.actor)
            log.info(
                "table %s: step %d by %s",
                live.table.id,
                step.seq,
                p.actor,
                extra={
                    "event": "step",
                    "table": live.table.id,
                    "seq": step.seq,
                    "actor": p.actor,
                    "seat": p.seat,
                },
            )
        self._saw(live.table.id, live.version)
        if planned[-1].after.is_terminal:
            await self._finished(live)
        await self.cluster.publish(live.table.id, "step")

    async def _finished(self, live: Live) -> None:
        """The game is over: its results (and ratings) stored from the game in hand before
        anyone is told, so that a page that sees the end finds them; a stop before they
        are is made good at the next start (``results.record_all``)."""
        table_id = live.table.id
        try:
            stood_in = results.stood_in(live.actors)
            await asyncio.to_thread(
                results.record_results, self.db, table_id, (live.table, live.state, stood_in)
            )
        except Exception:
            log.exception("table %s: its results could not be stored", table_id)

    # -- presence --

    def _presence_soon(self, table_id: str) -> None:
        """Tell the table's connections who is here now, in the background (the callers
        hold the table's lock or are on a connection's way out)."""
        if not any(client.presence for client in self._clients_at(table_id)):
            return

        async def send() -> None:
            try:
                await self._send_presence(table_id)
            except Exception:
                log.exception("table %s: presence could not be sent", table_id)

        task = asyncio.get_running_loop().create_task(send())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _send_presence(
        self,
        table_id: str,
        to: list[Client] | None = None,
        returned: dict[str, int] | None = None,
    ) -> None:
        """``presence``: each person's seat, connected or not, away (a bot plays it) or not,
        and when a stand-in takes it over; ``returned`` (to a player back at their seat):
        how many moves the stand-in made for them."""
        readers = to if to is not None else [c for c in self._clients_at(table_id) if c.presence]
        if not readers:
            return
        table = await self._table(table_id)
        present = await self.cluster.present_seats(table_id)
        here = present if present is not None else self.local_seats(table_id)
        session = self._sessions.get(table_id)
        deadlines = session.deadlines if session is not None else {}
        seats = []
        for i, seat in enumerate(table.seats):
            if seat.kind != "human":
                continue
            due = deadlines.get(i) if session is not None and session.timing(i) else None
            seats.append(
                {
                    "seat": i,
                    "connected": i in here,
                    "away": seat.away,
                    "stand_in_at": None
                    if due is None
                    else datetime.fromtimestamp(due, UTC).isoformat(),
                }
            )
        message: dict[str, Any] = {"type": "presence", "seats": seats}
        if returned is not None:
            message["returned"] = returned
        await _send_each(readers, [json.dumps(message)])

    # -- chat --

    async def chat_posted(self, table_id: str, message: chat.Message) -> None:
        """A message stored: to this process's connections that read chat, and news to the
        others."""
        seen = self._chat_seen.get(table_id)
        if seen is not None:
            _remember_sent(seen, [message.id])
        await self._send_chat(table_id, [message])
        await self.cluster.publish(table_id, "chat")

    async def _send_chat(self, table_id: str, messages: list[chat.Message]) -> None:
        readers = [client for client in self._clients_at(table_id) if client.chat]
        if not readers or not messages:
            return
        texts = [json.dumps({"type": "chat", "message": message.public()}) for message in messages]
        await _send_each(readers, texts)

    async def reads_chat(self, client: Client) -> None:
        """A connection that reads chat: from here on, every message of its table reaches
        it. News from another process names no message: what is new is what the table's
        latest messages hold that this process has not sent (not what lies past the
        highest id sent: ids are drawn before their messages commit, so one process's
        message may commit after a higher id of another's)."""
        client.chat = True
        if client.table_id not in self._chat_seen:
            known = await asyncio.to_thread(chat.messages, self.db, client.table_id)
            seen = self._chat_seen.setdefault(client.table_id, {})
            _remember_sent(seen, [message.id for message in known])

    async def _chat_news(self, table_id: str) -> None:
        if table_id not in self._chat_seen:
            return  # no connection here reads chat
        latest = await asyncio.to_thread(chat.messages, self.db, table_id)
        seen = self._chat_seen.get(table_id)
        if seen is None:
            return  # (released meanwhile)
        new = [message for message in latest if message.id not in seen]
        if new:
            _remember_sent(seen, [message.id for message in new])
            await self._send_chat(table_id, new)

    def kick(self, table_id: str) -> None:
        """Make sure the table's driver runs (dice, bots); at most one per table."""
        session = self._session(table_id)
        if session.driving():
            session.pending = True
            return
        session.driver = asyncio.get_running_loop().create_task(
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
                session = self._sessions.get(table_id)
                if session is not None and session.pending:
                    session.pending = False
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
        async with self.lock(table_id) as session:
            live = await self.live(table_id, catch_up=False)
            if live is None:
                return False
            if live.state.is_terminal:
                return None
            state = live.state
            if state.is_chance_node:
                rng = live.rng()
                action = state.sample_chance(rng)
                after = state.apply(action)
                roll = Planned(action, after, "chance", None, rng.counter)
                await self._store(live, self._with_rolls(live, [roll]))
                await self._send_all(session, live.table, live)
                return True
            seat = state.current_player
            if not live.table.seats[seat].plays_itself:
                return False
            version = live.version
        if self.bot_delay > 0:
            await asyncio.sleep(self.bot_delay)
        async with self.lock(table_id) as session:
            live = await self.live(table_id, catch_up=False)
            if live is None or live.version != version or not live.table.seats[seat].plays_itself:
                return True  # someone moved or came back meanwhile: look again
            action, fallback = await self._decide(session, live, seat)
            after = live.state.apply(action)
            actor = "bot" if live.table.seats[seat].kind == "bot" else results.STAND_IN
            if fallback:
                session.fallbacks.add(version)
            move = Planned(action, after, actor, seat, live.counter)
            await self._store(live, self._with_rolls(live, [move]))
            await self._send_all(session, live.table, live)
        return True

    async def _decide(self, session: TableSession, live: Live, seat: int) -> tuple[Action, bool]:
        """The seat's bot's move, and whether the game's fast bot made it instead: a bot that
        solves decides in the solve pool within :attr:`bot_wait` seconds; when the pool
        refuses (budgets, the operator's cap) or the time runs out, the fast bot moves (a
        bot that never solves decides in this process, in microseconds, in a thread as it
        always did)."""
        name = self._bot_name(live, seat)
        if not bot_spec(live.game, name).solves:
            return await asyncio.to_thread(self._bot(session, live, seat).choose, live.state), False
        text = await self._solved_move(live, name, seat)
        if text is not None:
            return live.state.parse_action(text), False
        fast = self._seat_bot(session, live, seat, registration(live.game).fast_bot)
        return await asyncio.to_thread(fast.choose, live.state), True

    async def _solved_move(self, live: Live, name: str, seat: int) -> str | None:
        """A solving bot's move from the pool, in notation (None: not in time, or refused)."""
        table = live.table
        try:
            self.pool.check_cap(live.game, table.variant)
            future = self.pool.submit(
                decide,
                live.game.name,
                name,
                _bot_seed(table.server_seed, seat),
                live.state,
                table=table.id,
                client=self.creator(table.id),
            )
        except SolveRefused as refused:
            self._fell_back(table.id, seat, refused.reason)
            return None
        try:
            done, _ = await asyncio.wait({future}, timeout=self.bot_wait)
            if future not in done:
                self._fell_back(table.id, seat, "late")
                return None
            return future.result()
        except Exception:
            log.exception("table %s: the solve pool failed a bot's move", table.id)
            return None
        finally:
            future.cancel()  # a move still queued is dropped; one being solved goes on

    def _fell_back(self, table_id: str, seat: int, why: str) -> None:
        log.info(
            "table %s: seat %d's bot falls back to the fast bot (%s)",
            table_id,
            seat,
            why,
            extra={"event": "bot-fallback", "table": table_id, "seat": seat, "reason": why},
        )

    def _bot(self, session: TableSession, live: Live, seat: int) -> Bot:
        """The seat's own bot, or for a person away the stand-in (the game's default
        opponent unless the server names one the game has); seeded by the table."""
        return self._seat_bot(session, live, seat, self._bot_name(live, seat))

    def _bot_name(self, live: Live, seat: int) -> str:
        """The name of the bot playing ``seat`` (see :meth:`_bot`)."""
        info = live.table.seats[seat]
        if info.kind == "bot":
            assert info.bot is not None, "a bot seat names its bot"
            name = info.bot
        elif self.stand_in is not None and any(
            b.name == self.stand_in for b in registration(live.game).bots
        ):
            name = self.stand_in
        else:
            name = registration(live.game).default_opponent
        return name

    def _seat_bot(self, session: TableSession, live: Live, seat: int, name: str) -> Bot:
        """The bot ``name`` playing ``seat``, seeded by the table, kept with the session."""
        game, seed = live.game, _bot_seed(live.table.server_seed, seat)
        return session.bot(seat, name, lambda: make_bot(game, name, seed=seed))

    # -- who asked --

    def created_by(self, table_id: str, address: str | None) -> None:
        """Remember who created a table: its solves count against that address's budget
        (kept for the last :data:`CREATORS_KEPT` tables; after a restart, and in another
        process, a table counts as its own client)."""
        if address is None:
            return
        self._creators[table_id] = address
        self._creators.move_to_end(table_id)
        while len(self._creators) > CREATORS_KEPT:
            self._creators.popitem(last=False)

    def creator(self, table_id: str) -> str:
        """Whose solve budget the table's work counts against (see :meth:`created_by`)."""
        return self._creators.get(table_id, f"table:{table_id}")

    async def resume_all(self) -> None:
        """After a start: drive every running table (dice due, bots to move) whose lease is
        free, and time its absences."""
        running = await asyncio.to_thread(tables.list_tables, self.db, (tables.RUNNING,))
        for table in running:
            if await self.cluster.acquire(table.id):
                self.kick(table.id)
                await self.watch(table)

    # -- news from the other processes (ClusterEvents) --

    async def on_news(self, table_id: str, kind: NewsKind, seat: int | None) -> None:
        """Another process stored a step (``step``), changed the table (``table``), lost a
        seat's last connection (``left``), or this one took the lease over (``adopted``)."""
        if kind == "chat":
            if self._clients_at(table_id):
                await self._chat_news(table_id)
            return
        if kind in ("left", "table"):
            self._presence_soon(table_id)
        if kind == "left":
            if seat is not None and self.cluster.holds(table_id):
                present = await self.cluster.present_seats(table_id)
                if present is not None and seat not in present:
                    self._watch_seat(table_id, seat)
            return
        if self._clients_at(table_id):
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
        if not self._clients_at(table_id):
            self._seen.pop(table_id, None)
        session = self._sessions.get(table_id)
        if session is not None:
            session.close()

    async def on_sweep(self) -> None:
        """The safety net under the news: every table this process serves or holds is
        compared with the database, and whatever moved without news (a message lost while
        Redis was away) is caught up and driven."""
        served = {table_id for table_id, s in self._sessions.items() if s.clients}
        ids = served | self.cluster.held()
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
        drivers = [session.close() for session in self._sessions.values()]
        for task in drivers:
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        await self.pool.close()
        await self.commits.close()
