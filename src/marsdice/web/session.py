"""One table as this process serves it: its game, its lock, its connections, its bots and
the tasks that work on it. The hub keeps one :class:`TableSession` per table it touches and
drops it in one step once nothing needs it (the database keeps the table)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from marsdice.bots import Bot
from marsdice.storage.tables import TableData
from marsdice.web.live import Live
from marsdice.web.patch import member_chunks, member_code, member_codes

#: sends one JSON text to one connection
Send = Callable[[str], Awaitable[None]]
#: the view's member that tells the last step's events: not part of the view's patch
EVENTS: Final = "events"


@dataclass(eq=False, slots=True)
class Client:
    """One WebSocket connection at a table: its seat (None: watching) and how to reach it."""

    table_id: str
    send: Send
    seat: int | None = None
    #: the seat's holder when the connection took it (the seat's token hash): a seat given
    #: back and taken by someone else is no longer this connection's
    holder: str | None = None
    greeted: bool = False
    #: the play messages it reads (``Hello.protocol``): 1 a full state each time, 2 steps,
    #: 3 steps with those stored together in one message
    protocol: int = 1
    #: whether it reads ``chat`` messages (``Hello.chat``)
    chat: bool = False
    #: whether it reads ``presence`` messages (``Hello.presence``)
    presence: bool = False
    #: protocol 2: the version its view is at (the last state or step sent; -1: none yet)
    version: int = -1
    #: protocol 2: the table and the advice (with the solve pool's notes) it was last sent:
    #: news only when they change
    table_sent: dict[str, Any] | None = None
    guidance_sent: dict[str, Any] | None = None


class Held:
    """``async with session.locked()``: the session's lock, the session counted as in use
    while the lock is awaited or held; yields the session. A class rather than a generator
    (every step takes the lock once or twice)."""

    __slots__ = ("session",)

    def __init__(self, session: TableSession) -> None:
        self.session = session

    async def __aenter__(self) -> TableSession:
        session = self.session
        session.lock_users += 1
        try:
            await session.lock.acquire()
        except BaseException:
            session.lock_users -= 1
            raise
        return session

    async def __aexit__(self, *_exc: object) -> None:
        self.session.lock.release()
        self.session.lock_users -= 1


@dataclass(eq=False, slots=True)
class TableSession:
    """Everything this process keeps of one table."""

    table_id: str
    #: the game, up to date with what this process has read or stored (None: not loaded,
    #: or not started)
    live: Live | None = None
    #: orders the table's steps inside this process
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: tasks holding or awaiting :attr:`lock`: the session is never dropped under them
    lock_users: int = 0
    clients: set[Client] = field(default_factory=set)
    #: the task doing the table's server-side steps (dice, bots)
    driver: asyncio.Task[None] | None = None
    #: asked to drive while the driver ran: it looks again before it stops
    pending: bool = False
    #: (seat, bot name) -> the bot playing it
    bots: dict[tuple[int, str], Bot] = field(default_factory=dict)
    #: seat -> the timer after which an absent person's seat goes to a bot
    timers: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    #: when each timed seat's stand-in takes over (Unix time), for the presence message
    deadlines: dict[int, float] = field(default_factory=dict)
    #: versions whose advice came too late for their state: sent again when it is ready
    advice_late: set[int] = field(default_factory=set)
    #: steps (indices into the log) a bot seat played with the game's fast bot, its own
    #: bot's solve not at hand in time (the ``state``'s ``fallback``)
    fallbacks: set[int] = field(default_factory=set)
    #: viewer (seat, None: spectators) -> its views of the last two versions built (a step's
    #: message needs the one before and the one after): each view built once
    views: dict[int | None, dict[int, dict[str, Any]]] = field(default_factory=dict)
    #: viewer -> version -> its view's members (events aside) as JSON, for the views kept in
    #: :attr:`views`: each member encoded once, compared as bytes by the next step's patch
    codes: dict[int | None, dict[int, dict[str, bytes]]] = field(default_factory=dict)
    #: (member, its encoding before, after) -> the patch of that member: viewers who see a
    #: member alike (the board of a game with nothing hidden) get it worked out once
    member_patches: dict[tuple[str, bytes, bytes], list[dict[str, Any]]] = field(
        default_factory=dict
    )
    #: version -> the spectators' patch to it, member by member (:func:`member_chunks`),
    #: which a seat's shares in a game of perfect information (the last two kept)
    chunks: dict[int, tuple[dict[str, tuple[bytes, int]], int]] = field(default_factory=dict)
    #: viewer -> the step log as it may see it, so far (steps never change once stored)
    logs: dict[int | None, list[str]] = field(default_factory=dict)
    #: each viewer's events of every step so far (a whole ``state``'s ``step_events``)
    events: dict[int | None, list[Any]] = field(default_factory=dict)
    #: the table row last described and its public form (a new row: described again)
    described: tuple[TableData, dict[str, Any]] | None = None
    #: the database may hold steps :attr:`live` lacks (another writer stored one first):
    #: the next :meth:`Hub.live` reads them
    behind: bool = False

    def locked(self) -> Held:
        """Hold the lock, counted while awaited or held (see :meth:`idle`)."""
        return Held(self)

    # -- connections --

    def greeted(self) -> list[Client]:
        return [client for client in self.clients if client.greeted]

    def local_seats(self) -> set[int]:
        """The seats with a greeted connection to this process."""
        return {c.seat for c in self.clients if c.greeted and c.seat is not None}

    def connected(self, seat: int) -> bool:
        return any(c.greeted and c.seat == seat for c in self.clients)

    # -- tasks --

    def driving(self) -> bool:
        return self.driver is not None and not self.driver.done()

    def timing(self, seat: int) -> bool:
        timer = self.timers.get(seat)
        return timer is not None and not timer.done()

    def idle(self) -> bool:
        """Nobody connected, no driver (but the one asking) nor timer at work, nobody at
        the lock: the session may go."""
        if self.clients or self.lock_users:
            return False
        if self.driving() and self.driver is not asyncio.current_task():
            return False
        return not any(not timer.done() for timer in self.timers.values())

    def cancel_timers(self) -> None:
        for timer in self.timers.values():
            timer.cancel()
        self.timers.clear()

    def stop_driver(self) -> asyncio.Task[None] | None:
        """Cancel the driver (never the task asking) and forget it; returns it, to await."""
        driver, self.driver = self.driver, None
        if driver is not None and driver is not asyncio.current_task():
            driver.cancel()
        return driver

    def close(self) -> asyncio.Task[None] | None:
        """Stop the session's tasks (the driver is returned, to await)."""
        self.cancel_timers()
        return self.stop_driver()

    # -- what is sent: built once per viewer, not per connection --

    def table_public(self, table: TableData) -> dict[str, Any]:
        """``table.public()``, worked out once per row read or written."""
        described = self.described
        if described is not None and described[0] is table:
            return described[1]
        if described is not None and table.public_as(described[0]):
            public = {**described[1], "updated_at": table.updated_at.isoformat()}
        else:
            public = dict(table.public())
        self.described = (table, public)
        return public

    def view(self, live: Live, viewer: int | None, version: int) -> dict[str, Any]:
        """``viewer``'s view at ``version`` (at most the live's): the last two built are kept
        per viewer, so a step builds each viewer's new view once and the one before is at
        hand for the patch (two steps sent together too)."""
        kept = self.views.setdefault(viewer, {})
        found = kept.get(version)
        if found is not None:
            return found
        state = live.state_before(version)
        if viewer is not None and live.game.game_type.perfect_information:
            found = dict(live.game.seat_view(self.view(live, None, version), state, viewer))
        else:
            found = dict(live.game.observe(state, viewer))
        if version >= live.version - 1:
            kept[version] = found
            codes = self.codes.setdefault(viewer, {})
            codes.pop(version, None)  # (a rebuilt live: the view may differ)
            for old in [v for v in kept if v < version - 1]:
                del kept[old]
                codes.pop(old, None)
        return found

    def view_codes(self, live: Live, viewer: int | None, version: int) -> dict[str, bytes]:
        """:meth:`view`'s members but the events, each encoded (:func:`member_codes`: what
        the patch compares and the whole view is joined from), kept with the view."""
        view = self.view(live, viewer, version)
        kept = self.codes.setdefault(viewer, {})
        found = kept.get(version)
        if found is None:
            if viewer is not None and live.game.game_type.perfect_information:
                # the members a seat's view shares with the spectators' are encoded once
                spectators = self.view(live, None, version)
                shared = self.view_codes(live, None, version)
                found = {
                    key: shared[key] if spectators.get(key) is value else member_code(key, value)
                    for key, value in view.items()
                    if key != EVENTS
                }
            else:
                found = member_codes(view, leave_out=EVENTS)
            if self.views[viewer].get(version) is view:
                kept[version] = found
        return found

    def step_views(
        self, live: Live, viewer: int | None, version: int
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, bytes], dict[str, bytes]]:
        """``viewer``'s views before and after the step to ``version``, and their members'
        encodings: what that step's patch is made from."""
        return (
            self.view(live, viewer, version - 1),
            self.view(live, viewer, version),
            self.view_codes(live, viewer, version - 1),
            self.view_codes(live, viewer, version),
        )

    def spectator_chunks(
        self, live: Live, version: int
    ) -> tuple[dict[str, tuple[bytes, int]], int]:
        """The spectators' patch from ``version - 1`` to ``version``, member by member
        (:func:`marsdice.web.patch.member_chunks`), and the length of their view at
        ``version`` encoded whole (events aside): worked out once per version."""
        found = self.chunks.get(version)
        if found is None:
            step = self.step_views(live, None, version)
            codes = step[3]
            chunks = member_chunks(*step, self.member_patches)
            found = chunks, sum(len(code) for code in codes.values()) + len(codes) + 1
            self.chunks[version] = found
            for old in [v for v in self.chunks if v < version - 1]:
                del self.chunks[old]
        return found

    def redacted_log(self, live: Live, viewer: int | None) -> list[str]:
        """The log as ``viewer`` may see it, up to the live's version: each step redacted
        once per viewer (a copy: the caller may keep it)."""
        kept = self.logs.setdefault(viewer, [])
        if len(kept) > live.version:  # (a rebuilt live can only be as long or longer)
            kept.clear()
        for index in range(len(kept), live.version):
            kept.append(live.game.redact(live.state_before(index), live.actions[index], viewer))
        return list(kept)

    def step_events(self, live: Live, viewer: int | None) -> list[Any]:
        """Every step's events as ``viewer`` may see them, up to the live's version: each
        step's worked out once per viewer (a whole ``state`` to a newcomer, or to a client
        that says hello again and again, costs no view of the history)."""
        kept = self.events.setdefault(viewer, [])
        if len(kept) > live.version:  # (a rebuilt live can only be as long or longer)
            kept.clear()
        for version in range(len(kept) + 1, live.version + 1):
            kept.append(self.view(live, viewer, version)["events"])
        return list(kept)

    def bot(self, seat: int, name: str, build: Callable[[], Bot]) -> Bot:
        """The bot ``name`` playing ``seat``, built on first use and kept with the table."""
        found = self.bots.get((seat, name))
        if found is None:
            found = self.bots[(seat, name)] = build()
        return found
