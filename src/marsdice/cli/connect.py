"""``marsdice connect``: take a seat at a table of an online server, or watch one.

A person plays through the same terminal views and prompt as ``marsdice play``; ``--bot``
lets a registered bot play the seat from this terminal. The client rebuilds a real game
state from what the server sends (:func:`marsdice.web.client.rebuild_state`), so views and
bots work unchanged; every action carries the state version it was chosen on.

The seat's token is the secret that holds the seat: it is kept in a file only its owner
can read (``~/.local/share/marsdice/seats/``, or ``$MARSDICE_DATA_DIR/seats``) keyed by
server and table, so the same command, run again, takes the seat back. It is never printed.

Module-level imports stay light (the parser is built for every command): httpx, websockets
and rich are imported when the command runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from marsdice.cli.args import escape, int_range
from marsdice.cli.prompt import Abandoned
from marsdice.core.errors import MarsDiceError
from marsdice.core.game import JSON, GameState, Step

if TYPE_CHECKING:
    from rich.console import Console

    from marsdice.web.client import ServerMessage
    from marsdice.web.schemas import StateMessage

#: illegal moves in a row from a bot before the client gives up (its state must be wrong)
MAX_REFUSED: Final = 3
#: errors after which the client reads the table again and asks anew
RE_READ: Final = frozenset({"stale_version", "not_your_turn", "finished", "away", "not_started"})

#: where seat tokens are kept (default: the user data directory)
DATA_ENV: Final = "MARSDICE_DATA_DIR"
#: reconnection attempts after a dropped connection, and the first pause (doubled each time)
RETRIES: Final = 4
BACKOFF: Final = 0.5
EXIT_OK: Final = 0
#: `quit` (confirmed): the person chose to leave, the seat stays theirs
EXIT_LEFT: Final = 0
#: Ctrl-C or the end of input
EXIT_INTERRUPTED: Final = 130
#: how long an interrupted session may take to end its task before the goodbye
LEAVE_SECONDS: Final = 2.0


def _over(message: StateMessage) -> bool:
    view = message.view
    return view is not None and int(view["current_player"]) == -2


def _to_act(message: StateMessage) -> bool:
    return bool(message.your_turn and message.view and message.view.get("legal_actions"))


class LeftTable(Exception):
    """The person left with ``quit``: the seat stays theirs."""


@dataclass(frozen=True)
class Options:
    """What the command line asks for."""

    url: str
    table: str
    seat: int | None = None
    name: str | None = None
    seed: str | None = None
    token: str | None = None
    bot: str | None = None
    watch: bool = False
    hints: bool = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument("table", metavar="TABLE_ID", help="the table's id (see the lobby)")
    add_seat_arguments(parser)
    parser.add_argument(
        "--seed", metavar="TEXT", help="your contribution to the dice when joining (fairness)"
    )
    parser.add_argument(
        "--bot", metavar="NAME", help="let this bot of the table's game play your seat"
    )
    parser.add_argument(
        "--hint", action="store_true", help="show the best move and its numbers before yours"
    )


def add_seat_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The seat options shared with ``marsdice play --server``."""
    parser.add_argument(
        "--seat", type=int_range(1, 100), metavar="N", help="join (or take back) seat N (1-...)"
    )
    parser.add_argument("--name", metavar="NAME", help="your name at the table (default: You)")
    parser.add_argument(
        "--token", metavar="TOKEN", help="the seat's token from an earlier join (kept secret)"
    )
    parser.add_argument("--watch", action="store_true", help="only watch the table")


def run(args: argparse.Namespace) -> int:
    options = Options(
        url=args.url,
        table=args.table,
        seat=None if args.seat is None else args.seat - 1,
        name=args.name,
        seed=args.seed,
        token=args.token,
        bot=args.bot,
        watch=args.watch,
        hints=args.hint,
    )
    return connect(options).code


@dataclass(frozen=True)
class Outcome:
    """How a session ended: the exit code and the last local state (None before a start)."""

    code: int
    state: GameState | None


def connect(
    options: Options,
    *,
    console: Console | None = None,
    read_line: Callable[[str], str] | None = None,
) -> Outcome:
    """Play or watch to the end (code 0), until the person leaves with ``quit`` (0) or is
    interrupted (Ctrl-C, the end of input: 130). ConnectError carries the one-line failures
    with their exit codes."""
    from rich.console import Console

    from marsdice.web.client import ClientError

    console = console or Console(highlight=False)
    table_client = _Session(options, console, read_line)
    loop = asyncio.new_event_loop()  # not asyncio.run: its SIGINT handler holds back Ctrl-C
    main = loop.create_task(table_client.run())
    try:
        code = loop.run_until_complete(main)
    except ClientError as error:
        raise ConnectError(str(error), error.exit_code) from None
    except LeftTable:
        table_client.say_goodbye()
        code = EXIT_LEFT
    except (KeyboardInterrupt, EOFError):
        # Ctrl-C while waiting for the server leaves the session's task suspended: it ends
        # here, before the connection closes, so no "reconnecting" follows the goodbye
        table_client.leaving = True
        main.cancel()
        with contextlib.suppress(BaseException):  # (bounded: the goodbye comes regardless)
            loop.run_until_complete(asyncio.wait([main], timeout=LEAVE_SECONDS))
        table_client.say_goodbye()
        code = EXIT_INTERRUPTED
    finally:
        table_client.keep_memos()
        loop.run_until_complete(table_client.close())
        loop.close()
    return Outcome(code, table_client.final_state())


class ConnectError(MarsDiceError):
    """One line for the user, with the exit code to end with."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


# --- tokens --------------------------------------------------------------------------------


def seats_dir() -> Path:
    base = os.environ.get(DATA_ENV, "").strip()
    if not base:
        from platformdirs import user_data_dir

        base = user_data_dir("marsdice", appauthor=False)
    return Path(base) / "seats"


def token_file(url: str, table: str) -> Path:
    """The file of one table's seat at one server (names are a hash: no URL in a path)."""
    key = hashlib.sha256(f"{url.rstrip('/')}\n{table}".encode()).hexdigest()[:32]
    return seats_dir() / f"{key}.json"


def load_token(url: str, table: str) -> tuple[int, str] | None:
    """The seat and token stored for this table, if any."""
    try:
        data = json.loads(token_file(url, table).read_text())
        return int(data["seat"]), str(data["token"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load_memos(url: str, table: str) -> dict[int, JSON]:
    """What this seat saw at each version in earlier sessions (:meth:`Game.memo`: with
    hidden information it makes rebuilding the state direct, see ``LocalGame``); files of
    earlier releases kept it as ``tops``, in the same form."""
    try:
        data = json.loads(token_file(url, table).read_text())
        stored = data.get("memos", data.get("tops", {}))
        return {int(v): memo for v, memo in stored.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def save_token(
    url: str,
    table: str,
    seat: int,
    token: str,
    memos: Mapping[int, JSON] | None = None,
) -> None:
    """Write the token readable by its owner only (mode 0600, folder 0700), with the
    public memos seen so far (``memos``, :meth:`Game.memo`)."""
    path = token_file(url, table)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    data: dict[str, Any] = {"server": url.rstrip("/"), "table": table, "seat": seat}
    data["token"] = token
    if memos:
        data["memos"] = {str(v): memo for v, memo in memos.items()}
    text = json.dumps(data)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)
    os.chmod(path, 0o600)


def forget_token(url: str, table: str) -> None:
    with contextlib.suppress(OSError):
        token_file(url, table).unlink()


# --- the session ---------------------------------------------------------------------------


class _Session:
    """One terminal at one table: seat, connection, local state, the play loop."""

    def __init__(
        self, options: Options, console: Console, read_line: Callable[[str], str] | None
    ) -> None:
        from marsdice.web.client import TableClient

        self.options = options
        self.console = console
        self.read_line = read_line
        self.client = TableClient(options.url, options.table)
        self.token: str | None = None
        self.seat: int | None = None
        self.seated_play = False
        self.backoff = BACKOFF
        self._names: list[str] = []
        self._started = False
        #: the person is leaving: a connection that closes now is not lost
        self.leaving = False

    async def close(self) -> None:
        await self.client.close()

    def keep_memos(self) -> None:
        """Store what the seat saw (:meth:`Game.memo`) beside the seat's stored token."""
        local = getattr(self, "local", None)
        stored = load_token(self.options.url, self.options.table)
        if local is None or not local.memos or stored is None or stored[1] != self.token:
            return
        with contextlib.suppress(OSError):
            save_token(self.options.url, self.options.table, stored[0], stored[1], local.memos)

    def final_state(self) -> GameState | None:
        local = getattr(self, "local", None)
        return None if local is None else local.state

    def say_goodbye(self) -> None:
        if self.seated_play:
            self.console.print(
                "\n[yellow]You left the table.[/] The seat stays yours: after the server's "
                "absence timeout a stand-in bot plays it. Run the same command to come back."
            )
        else:
            self.console.print("\n[yellow]Stopped watching.[/]")

    async def run(self) -> int:
        from marsdice.cli.prompt import ActionPrompt
        from marsdice.cli.view import game_view
        from marsdice.games import get_game
        from marsdice.web.client import ClientError, ConnectionLost, LocalGame

        table = await self.client.table()
        self.game = game = get_game(str(table["game"]))
        self.view = game_view(game)
        self.bot = self._bot(game)
        await self._take_seat(table)
        try:
            message = await self.client.hello(self.token)
        except ConnectionLost as error:
            raise ClientError("unreachable", str(error)) from None
        except ClientError as error:
            if error.code == "bad_token" and self.options.token is None:
                forget_token(self.options.url, self.options.table)
                raise ClientError(
                    "bad_token", "the stored token no longer holds a seat at this table"
                ) from None
            raise
        self.seat = message.seat
        self.seated_play = message.seat is not None
        self.local = LocalGame(game, message.table, message.seat, seed=self.options.seed)
        if self.seated_play:
            self.local.memos.update(load_memos(self.options.url, self.options.table))
        self.prompt = ActionPrompt(
            self.view, self.console, self.read_line, hints=self.options.hints
        )
        return await self._play(message)

    # -- the loop --

    async def _play(self, message: StateMessage) -> int:
        """React to each message: show the steps, act when it is this seat's turn (on the
        version shown), until the end."""
        from marsdice.web.client import ClientError
        from marsdice.web.schemas import ErrorMessage, StateMessage

        self._absorb(message, first=True)
        acted_on: int | None = None
        refused = 0
        while True:
            if _over(message):
                self.view.render_final(self.console, self.local.state, self.names)
                return EXIT_OK
            if _to_act(message) and acted_on != message.version:
                text = await self._choose()
                acted_on = message.version
                if not await self._send(message.version, text):
                    message = await self._reconnect()
                    self._absorb(message)
                    acted_on = None
                    continue
            incoming = await self._receive()
            if isinstance(incoming, StateMessage):
                if incoming.version >= message.version:
                    message = incoming
                    self._absorb(message)
            elif isinstance(incoming, ErrorMessage):
                code = incoming.code
                if code == "illegal_action":
                    self.console.print(f"[red]{escape(incoming.message)}[/]")
                    acted_on = None
                    refused += 1
                    if self.bot is not None and refused >= MAX_REFUSED:
                        raise ConnectError(
                            f"the server refused the bot's moves: {incoming.message}", 1
                        )
                    self.local.reset()  # rebuild from the log before asking again
                    message = await self._hello()
                    self._absorb(message)
                elif code in RE_READ:
                    self.console.print(f"[dim]{escape(incoming.message)}: looking again[/]")
                    message = await self._hello()
                    self._absorb(message)
                    acted_on = None
                elif code == "rate_limited":
                    await asyncio.sleep(1.0)
                    acted_on = None
                elif code == "internal":
                    message = await self._reconnect()
                    self._absorb(message)
                    acted_on = None
                elif code in ("bad_token", "not_found"):
                    raise ClientError(code, incoming.message)
                else:
                    raise ConnectError(f"the server refused a message: {incoming.message}", 1)

    @property
    def names(self) -> list[str]:
        return self._names

    def _absorb(self, message: StateMessage, *, first: bool = False) -> None:
        """Update the local game and show what happened since the last message."""
        seats = message.table.get("seats", [])
        self._names = [
            str(s.get("name") or s.get("bot") or f"Seat {i + 1}") for i, s in enumerate(seats)
        ]
        started = message.view is not None
        if first or started != self._started:
            self._header(message)
        self._started = started
        steps = self.local.update(message)
        if first and started and not steps:
            steps = self._opening(message)
        for step in steps:
            self.view.render_step(self.console, step, self.names)
        if first and started and self.seat is None:
            self.view.render_board(self.console, self.local.state, self.names)

    def _opening(self, message: StateMessage) -> list[Step]:
        """A table found with the dice just rolled (the opening roll, made as the last seat
        joined): that roll, rebuilt from the public log so it is told as it is in ``play``.
        Nothing for a game with hidden information (its log cannot be replayed here) or when
        the last step was a decision."""
        log, actors = list(message.log), list(message.actors)
        if not log or not actors or actors[-1] != "chance":
            return []
        if not self.game.game_type.perfect_information:
            return []
        state = self.game.start(self.local.variant, random.Random(0))
        for text in log[:-1]:
            state = state.apply(state.parse_action(text))
        action = state.parse_action(log[-1])
        return [Step(state, action, state.apply(action))]

    def _header(self, message: StateMessage) -> None:
        title = self.game.title
        who = "watching" if self.seat is None else f"seat {self.seat + 1}"
        if message.view is None:
            open_seats = [
                str(s["seat"] + 1) for s in message.table.get("seats", []) if not s.get("taken")
            ]
            self.console.print(
                f"{title} at table {escape(self.options.table)} ({who}): waiting for "
                f"seat{'s' if len(open_seats) != 1 else ''} {', '.join(open_seats)}"
            )
        else:
            players = ", ".join(escape(name) for name in self.names)
            self.console.print(f"{title} at table {escape(self.options.table)} ({who}): {players}")

    async def _choose(self) -> str:
        state = self.local.state
        if self.bot is not None:
            bot = self.bot
            action = await asyncio.to_thread(bot.choose, state)
            return str(action.text())
        assert self.seat is not None
        try:
            action = self.prompt.ask(state, self.names[self.seat], self.names)
        except Abandoned:
            raise LeftTable from None
        return str(action.text())

    async def _send(self, version: int, text: str) -> bool:
        from marsdice.web.client import ConnectionLost

        try:
            await self.client.act(version, text)
        except ConnectionLost:
            return False
        return True

    async def _receive(self) -> ServerMessage:
        from marsdice.web.client import ConnectionLost

        try:
            return await self.client.receive()
        except ConnectionLost:
            return await self._reconnect()

    async def _hello(self) -> StateMessage:
        from marsdice.web.client import ConnectionLost

        try:
            return await self.client.hello(self.token)
        except ConnectionLost:
            return await self._reconnect()

    async def _reconnect(self) -> StateMessage:
        """Say hello again with the token, a few times with growing pauses."""
        from marsdice.web.client import ConnectionLost

        pause = self.backoff
        for attempt in range(1, RETRIES + 1):
            if self.leaving:
                raise asyncio.CancelledError
            self.console.print(f"[yellow]Connection lost: reconnecting ({attempt}/{RETRIES})…[/]")
            await asyncio.sleep(pause)
            pause *= 2
            try:
                return await self.client.hello(self.token)
            except ConnectionLost:
                continue
        kept = (
            "; your seat is kept: run the same command to come back"
            if self.seat is not None
            else ""
        )
        raise ConnectionLost("closed", f"lost the connection to {self.options.url}{kept}")

    def _bot(self, game: Any) -> Any:
        name = self.options.bot
        if name is None:
            return None
        from marsdice.bots import available_bots, make_bot

        if name not in available_bots(game):
            known = ", ".join(available_bots(game))
            raise ConnectError(f"no bot {name!r} for {game.title}: choose one of {known}", 2)
        if self.options.watch or (self.options.seat is None and self.options.token is None):
            raise ConnectError("--bot needs a seat: give --seat N (or --token)", 2)
        seed = self.options.seed
        number = None if seed is None else int(hashlib.sha256(seed.encode()).hexdigest()[:12], 16)
        return make_bot(game, name, number)

    async def _take_seat(self, table: dict[str, Any]) -> None:
        options = self.options
        if options.watch:
            return
        if options.token is not None:
            self.token = options.token
            return
        if options.seat is None:
            return
        stored = load_token(options.url, options.table)
        if stored is not None and stored[0] == options.seat:
            self.token = stored[1]
            self.console.print(f"Taking back seat {options.seat + 1}.")
            return
        seats = table.get("seats", [])
        if not 0 <= options.seat < len(seats):
            raise ConnectError(
                f"table {options.table} has seats 1-{len(seats)}, not {options.seat + 1}", 2
            )
        name = options.name or options.bot or "You"
        joined = await self.client.join(options.seat, name, options.seed)
        save_token(options.url, options.table, joined.seat, joined.token)
        self.token = joined.token
        self.console.print(f"Joined table {options.table} in seat {options.seat + 1}.")
