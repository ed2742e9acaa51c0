"""A client of the online server for bot authors and the terminal (``marsdice connect``).

:class:`TableClient` speaks the protocol of ``docs/protocol.md`` with typed messages (the
pydantic models of :mod:`marsdice.web.schemas`): the lobby over REST with httpx, play over a
WebSocket with the ``websockets`` library. It knows no rule of either game; the terminal
client rebuilds a game state from what it receives (:class:`LocalGame`).

Every failure a caller must tell apart is a :class:`ClientError` with the protocol's code
and the ``marsdice`` exit code it ends a command with.
"""

from __future__ import annotations

import collections
import contextlib
import json
import random
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Final, Self

import httpx
from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from marsdice.core.errors import MarsDiceError
from marsdice.core.game import JSON, Game, GameState, Step
from marsdice.web.patch import PatchError, apply
from marsdice.web.schemas import (
    ActionMessage,
    AdviceMessage,
    ErrorMessage,
    Hello,
    JoinedTable,
    JoinTable,
    Ping,
    Pong,
    StateMessage,
    StepMessage,
    Sync,
    TableMessage,
)

__all__ = [
    "ClientError",
    "ConnectionLost",
    "LocalGame",
    "PlayState",
    "ServerMessage",
    "SyncNeeded",
    "TableClient",
]

#: a server that does not answer in this many seconds is taken as unreachable
TIMEOUT: Final = 10.0
#: the play protocol this client speaks by default (``docs/protocol.md``)
PROTOCOL: Final = 3
#: the play protocols a client may ask for
PROTOCOLS: Final = (1, 2, 3)

#: what :meth:`TableClient.receive` returns: protocol 2's steps come as whole states
ServerMessage = StateMessage | ErrorMessage | Pong
#: any message the server sends
WireMessage = StateMessage | StepMessage | TableMessage | AdviceMessage | ErrorMessage | Pong


class ClientError(MarsDiceError):
    """A request the server refused (``code`` from the protocol) or could not be sent.

    ``exit_code`` is 2 (bad input: a wrong table, token or URL, an unreachable server), 1
    for a failure of this client (``rebuild``: no state fits what the server showed)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.exit_code = 1 if code == "rebuild" else 2


class ConnectionLost(ClientError):
    """The WebSocket closed or failed while playing: reconnecting may help."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.exit_code = 1


class TableClient:
    """One seat (or a spectator) at one table of a server.

    Use as ``async with TableClient(url, table_id) as client:``; then :meth:`join` for a new
    seat's token, :meth:`hello` to open the play connection (returns the first ``state``),
    :meth:`act` to play on a version, and :meth:`receive` for each next message.
    """

    def __init__(
        self, base_url: str, table_id: str, *, timeout: float = TIMEOUT, protocol: int = PROTOCOL
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.table_id = table_id
        self.timeout = timeout
        #: the play protocol asked for in ``hello``: 3 or 2 (steps, applied here) or 1
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol: {protocol!r} is not one of {PROTOCOLS}")
        self.protocol = protocol
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout)
        self._ws: ClientConnection | None = None
        self._token: str | None = None
        #: protocol 3: the rest of a ``steps`` message, read one step at a time
        self._queued: collections.deque[WireMessage] = collections.deque()
        #: protocol 2: the table as the messages so far make it
        self.play = PlayState()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self.disconnect()
        await self._http.aclose()

    # -- the lobby --

    async def table(self) -> dict[str, Any]:
        """The table as the lobby shows it (``GET /api/tables/{id}``)."""
        return await self._request("GET", f"/api/tables/{self.table_id}")

    async def join(self, seat: int, name: str, seed: str | None = None) -> JoinedTable:
        """Take ``seat`` (``POST .../join``); the answer carries the seat's secret token."""
        body = JoinTable(seat=seat, name=name, seed=seed).model_dump(exclude_none=True)
        data = await self._request("POST", f"/api/tables/{self.table_id}/join", body)
        return JoinedTable.model_validate(data)

    async def _request(
        self, method: str, path: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        try:
            response = await self._http.request(method, path, json=body)
        except httpx.InvalidURL as error:
            raise ClientError("bad_url", f"not a server URL: {self.base_url} ({error})") from None
        except httpx.HTTPError as error:
            reason = str(error) or type(error).__name__
            raise ClientError(
                "unreachable", f"cannot reach the server at {self.base_url}: {reason}"
            ) from None
        try:
            data = response.json()
        except ValueError:
            data = None
        if response.status_code >= 400 or not isinstance(data, dict):
            if isinstance(data, dict) and "error" in data:
                raise ClientError(str(data["error"]), str(data.get("message", "")))
            raise ClientError(
                "bad_response",
                f"{self.base_url} answered {response.status_code}: is it a marsdice server?",
            )
        return data

    # -- play --

    @property
    def ws_url(self) -> str:
        scheme, _, rest = self.base_url.partition("://")
        ws = {"http": "ws", "https": "wss"}.get(scheme, scheme)
        return f"{ws}://{rest}/ws/tables/{self.table_id}"

    async def hello(self, token: str | None = None) -> StateMessage:
        """Open the play connection (again) and say who you are: a seat's token, or None
        to watch. Returns the first ``state``; ClientError ``bad_token``/``not_found``."""
        await self.disconnect()
        try:
            self._ws = await connect(
                self.ws_url, open_timeout=self.timeout, max_size=2**22, compression=None
            )
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as error:
            reason = str(error) or type(error).__name__
            raise ConnectionLost(
                "unreachable", f"cannot reach the server at {self.base_url}: {reason}"
            ) from None
        self._token = token
        await self._say_hello()
        while True:
            message = await self.receive()
            if isinstance(message, StateMessage):
                return message
            if isinstance(message, ErrorMessage):
                raise ClientError(message.code, message.message)

    async def act(self, version: int, action: str) -> None:
        """Send ``action`` (the game's notation) made on state ``version``."""
        message = ActionMessage(type="action", version=version, action=action)
        await self._send(message.model_dump_json())

    async def ping(self) -> None:
        await self._send(Ping(type="ping").model_dump_json())

    async def _say_hello(self) -> None:
        self.play = PlayState()
        hello = Hello.model_validate(
            {"type": "hello", "token": self._token, "protocol": self.protocol}
        )
        await self._send(
            hello.model_dump_json(exclude={"protocol"} if self.protocol == 1 else None)
        )

    async def receive(self) -> ServerMessage:
        """The next message from the server (ConnectionLost when the socket closes): with
        protocol 2 each step, table or advice news comes as the whole new ``state``; a gap
        is healed here (``sync``) before anything is returned."""
        while True:
            message = await self._receive_one()
            now = self.play.state
            if (
                isinstance(message, Pong)
                and message.version is not None
                and now is not None
                and message.version > now.version
            ):  # the last step was lost (nothing came after it), or a sync's answer was
                self.play.syncing = now.version
                await self._send(Sync(type="sync", version=now.version).model_dump_json())
            if not isinstance(message, StateMessage | StepMessage | TableMessage | AdviceMessage):
                return message
            try:
                state = self.play.apply(message)
            except SyncNeeded as gap:
                await self._send(Sync(type="sync", version=gap.version).model_dump_json())
                continue
            except PatchError:  # the view here diverged: start again from a whole state
                await self._say_hello()
                continue
            if state is not None:
                return state

    async def _receive_one(self) -> WireMessage:
        if self._queued:
            return self._queued.popleft()
        if self._ws is None:
            raise ConnectionLost("closed", "not connected: call hello() first")
        try:
            text = await self._ws.recv()
        except ConnectionClosed as closed:
            raise ConnectionLost("closed", f"the connection closed ({closed.rcvd})") from None
        except OSError as error:
            raise ConnectionLost("closed", f"the connection failed: {error}") from None
        first, *rest = parse_messages(text)
        self._queued.extend(rest)
        return first

    async def disconnect(self) -> None:
        """Close the play connection (the seat stays yours)."""
        self._queued.clear()
        if self._ws is not None:
            ws, self._ws = self._ws, None
            with contextlib.suppress(OSError, ConnectionClosed):  # already gone
                await ws.close()

    async def _send(self, text: str) -> None:
        if self._ws is None:
            raise ConnectionLost("closed", "not connected: call hello() first")
        try:
            await self._ws.send(text)
        except (ConnectionClosed, OSError) as error:
            raise ConnectionLost("closed", f"the connection closed: {error}") from None


def parse_messages(text: str | bytes) -> list[WireMessage]:
    """One frame's messages as their models, in order: protocol 3's ``steps`` holds several
    ``step`` messages, any other frame one message; ClientError ``bad_response`` for
    anything else."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict) and data.get("type") == "steps":
        steps = data.get("steps")
        if isinstance(steps, list) and steps:
            parsed = [_parse(step) for step in steps]
            if all(isinstance(step, StepMessage) for step in parsed):
                return parsed
        raise ClientError("bad_response", "the server sent a message this client cannot read")
    return [_parse(data)]


def parse_message(text: str | bytes) -> WireMessage:
    """One server message as its model; ClientError ``bad_response`` for anything else."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    return _parse(data)


def _parse(data: Any) -> WireMessage:
    try:
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "state":
            return StateMessage.model_validate(data)
        if kind == "step":
            return StepMessage.model_validate(data)
        if kind == "table":
            return TableMessage.model_validate(data)
        if kind == "advice":
            return AdviceMessage.model_validate(data)
        if kind == "error":
            return ErrorMessage.model_validate(data)
        if kind == "pong":
            return Pong.model_validate(data)
    except (ValueError, ValidationError):
        pass
    raise ClientError("bad_response", "the server sent a message this client cannot read")


def _guidance(message: StepMessage | AdviceMessage) -> dict[str, Any]:
    return {
        "advice": message.advice,
        "advice_pending": message.advice_pending,
        "advice_missing": message.advice_missing,
        "fallback": message.fallback,
    }


class SyncNeeded(Exception):
    """A message skipped a version: ask for the steps since ``version`` (a ``sync``)."""

    def __init__(self, version: int) -> None:
        super().__init__(f"a gap after version {version}")
        self.version = version


class PlayState:
    """Protocol 2's messages applied in order to the last whole ``state``: each ``step``
    patches the view and extends the log, ``table`` and ``advice`` replace theirs; a
    message for an older version is ignored, one past the next raises
    :class:`SyncNeeded` (ignored after that until the answer fits), a patch that does not
    fit raises :class:`~marsdice.web.patch.PatchError` (say ``hello`` again)."""

    def __init__(self) -> None:
        self.state: StateMessage | None = None
        #: a sync was asked for after this version and is not answered yet
        self.syncing: int | None = None

    def apply(
        self, message: StateMessage | StepMessage | TableMessage | AdviceMessage
    ) -> StateMessage | None:
        """The state after ``message`` (None: nothing new)."""
        now = self.state
        if isinstance(message, StateMessage):
            if now is not None and message.version < now.version:
                return None
            self.state, self.syncing = message, None
            return message
        if now is None:
            raise PatchError("a play message before any state")
        expected = now.version + 1 if isinstance(message, StepMessage) else now.version
        if message.version < expected:
            return None  # already applied (or news of a version since passed)
        if message.version > expected:
            if self.syncing == now.version:
                return None  # asked already; steps in flight before the answer
            self.syncing = now.version
            raise SyncNeeded(now.version)
        self.syncing = None
        if isinstance(message, TableMessage):
            self.state = now.model_copy(update={"table": message.table})
        elif isinstance(message, AdviceMessage):
            self.state = now.model_copy(update=_guidance(message))
        else:
            if now.view is None:
                raise PatchError("a step before the view it patches")
            view = apply(now.view, message.patch)
            view["events"] = message.events
            self.state = now.model_copy(
                update={
                    "version": message.version,
                    "view": view,
                    "log": [*now.log, message.step],
                    "actors": [*now.actors, message.actor],
                    "step_events": [*(now.step_events or []), message.events],
                    "your_turn": message.your_turn,
                    "table": now.table if message.table is None else message.table,
                    **_guidance(message),
                }
            )
        return self.state


# --- a local copy of the game ------------------------------------------------------------


class LocalGame:
    """A real game state kept in step with the server's ``state`` messages, so that the
    terminal views and the bots work on it unchanged.

    A perfect-information game's state is the public log replayed. A game with hidden
    information (its :class:`~marsdice.core.game.GameType` says so) is rebuilt with
    :meth:`Game.resample`: exact in everything the seat sees, the hidden part a seeded
    sample; what it saw at every version (:meth:`Game.memo`) makes that search direct."""

    def __init__(
        self, game: Game, table: Mapping[str, Any], seat: int | None, seed: str | None = None
    ) -> None:
        self.game = game
        self.variant = game.variant_from_params(table["variant"])
        self.seat = seat
        self.rng = random.Random(seed)
        self.hidden = not game.game_type.perfect_information
        self.log: list[str] = []
        self.state: GameState = game.start(self.variant, random.Random(0))
        #: what :meth:`Game.resample` may narrow its search with, by version
        self.memos: dict[int, JSON] = {}

    def reset(self) -> None:
        """Forget the local state: the next update rebuilds it from the whole log."""
        self.log = []

    def update(self, message: StateMessage) -> list[Step]:
        """Bring the state to ``message``'s; the steps that are new since the last update
        (none when the log had to be rebuilt from the start)."""
        if message.view is None:
            return []
        if self.hidden:
            self.memos[message.version] = self.game.memo(message.view)
        log = list(message.log)
        steps: list[Step] = []
        if log[: len(self.log)] == self.log and self.log:
            state = self.state
            for text in log[len(self.log) :]:
                action = self.game.parse_public(state, text)
                after = state.apply(action)
                steps.append(Step(state, action, after))
                state = after
        else:
            state = self.game.start(self.variant, random.Random(0))
            if not self.hidden:
                for text in log:
                    state = state.apply(state.parse_action(text))
        if self.hidden and _plain(self.game.observe(state, self.seat)) != _plain(message.view):
            state = self._resample(log, message.view)
            if steps:
                steps[-1] = Step(steps[-1].before, steps[-1].action, state)
        self.log = log
        self.state = state
        return steps

    def _resample(self, log: list[str], view: dict[str, Any]) -> GameState:
        try:
            return self.game.resample(self.variant, log, view, self.rng, earlier=self.memos)
        except MarsDiceError as error:
            raise ClientError(
                "rebuild",
                f"cannot rebuild this {self.game.title} table from what this seat sees "
                f"({error}); run the command again to retry",
            ) from None


def _plain(value: object) -> Any:
    """JSON's own form (tuples become lists), as a view arrives over the wire."""
    return json.loads(json.dumps(value))
