"""``marsdice play``: a game in the terminal for people and bots, either game.

The loop is the same for both games and is :func:`marsdice.core.game.play_steps`: chance nodes
are rolled with a seeded generator, bots choose through the bot protocol, people type moves in
the game's notation. Everything a game shows lives in its view module (see
:mod:`marsdice.cli.view`).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from rich.console import Console
from rich.markup import escape

from marsdice.bots import Bot, available_bots, make_bot
from marsdice.cli.args import non_negative_float, print_error
from marsdice.cli.files import check_output_path, write_text_safely
from marsdice.cli.prompt import Abandoned, ActionPrompt
from marsdice.cli.view import GameView, game_view
from marsdice.core.errors import MarsDiceError
from marsdice.core.game import Action, Agent, Game, GameState, Step, Variant, play_steps
from marsdice.games import all_games, game_names, get_game, registration


@dataclass(frozen=True)
class Seat:
    """Who sits at a place: a person (``bot is None``) or a bot."""

    name: str
    bot: Bot | None = None


def parse_seats(game: Game, specs: Sequence[str], seed: int | None) -> list[Seat]:
    """Read ``human[:NAME]`` or ``BOT[:NAME]`` specs; unnamed players get distinct names."""
    seats: list[Seat] = []
    bots = available_bots(game)
    for index, spec in enumerate(specs):
        kind, _, name = spec.partition(":")
        kind = kind.strip().lower()
        if kind == "human":
            seats.append(Seat(name.strip() or f"Player {index + 1}"))
        elif kind in bots:
            bot_seed = None if seed is None else seed * 1000 + index
            seats.append(Seat(name.strip() or f"{kind}-bot", make_bot(game, kind, bot_seed)))
        else:
            known = ", ".join(["human", *bots])
            raise ValueError(f"unknown player {spec!r}: use one of {known} (optionally :NAME)")
    if not game.min_players <= len(seats) <= game.max_players:
        raise ValueError(
            f"{game.title} takes {game.min_players}-{game.max_players} players, got {len(seats)}"
        )
    names = [seat.name for seat in seats]
    for index, seat in enumerate(seats):
        if names.count(seat.name) > 1:
            seats[index] = Seat(f"{seat.name} {index + 1}", seat.bot)
    return seats


#: the longest pause after a computer move (a bigger one is surely a typo)
MAX_DELAY: Final = 60.0


def delay_seconds(text: str) -> float:
    """An argparse type: seconds to pause, 0 to :data:`MAX_DELAY`."""
    value = non_negative_float(text)
    if value > MAX_DELAY:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_DELAY:g} seconds, got {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game", choices=game_names(), default="martian", help="which game (default: martian)"
    )
    parser.add_argument(
        "-p",
        "--player",
        action="append",
        metavar="SPEC",
        help="a seat, in turn order: 'human[:NAME]' or a bot name (e.g. 'cautious:Zax'); "
        "repeat for each player (default: you against the game's strongest bot)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        help="seed the dice (and bots) for a reproducible game (default: random)",
    )
    parser.add_argument("--save", type=Path, metavar="FILE", help="write the game record here")
    parser.add_argument(
        "--overwrite", action="store_true", help="let --save replace an existing file"
    )
    parser.add_argument(
        "--delay",
        type=delay_seconds,
        metavar="SECONDS",
        help="pause after a computer move (default: 0.6 on a terminal, else 0)",
    )
    parser.add_argument(
        "--hint", action="store_true", help="show the best move and its numbers before yours"
    )
    parser.add_argument("--list-bots", action="store_true", help="list the bots and exit")
    add_game_options(parser)
    add_online_options(parser)


def add_online_options(parser: argparse.ArgumentParser) -> None:
    """``--server URL --table ID``: the same as ``marsdice connect URL ID`` (one ``-p``
    spec names the bot that plays the seat; ``--seed`` is the fairness seed)."""
    from marsdice.cli.connect import add_seat_arguments

    group = parser.add_argument_group("online play (a table of marsdice serve)")
    group.add_argument("--server", metavar="URL", help="play at this server (with --table)")
    group.add_argument("--table", metavar="ID", help="the table's id at --server")
    add_seat_arguments(group)


def run_online(args: argparse.Namespace) -> int:
    """``play --server URL --table ID``: the online client of ``marsdice connect``."""
    from marsdice.cli.connect import Options, connect

    if args.server is None or args.table is None:
        raise ValueError("--server and --table go together (or use: marsdice connect URL ID)")
    bot: str | None = None
    specs = args.player or []
    if len(specs) > 1:
        raise ValueError("online, -p names one seat: 'human' or the bot that plays yours")
    if specs and specs[0].partition(":")[0].strip().lower() != "human":
        bot = specs[0].partition(":")[0].strip().lower()
    name = args.name or (specs[0].partition(":")[2].strip() if specs else None) or None
    options = Options(
        url=args.server,
        table=args.table,
        seat=None if args.seat is None else args.seat - 1,
        name=name,
        seed=None if args.seed is None else str(args.seed),
        token=args.token,
        bot=bot,
        watch=args.watch,
        hints=args.hint,
    )
    return connect(options).code


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """Each game's own settings, in a group per game (used by play and tournament alike). The
    parsed arguments remember which options belong to which game (``game_options``)."""
    owners: dict[str, tuple[str, ...]] = {}
    for game in all_games():
        group = parser.add_argument_group(f"{game.title} options (--game {game.name})")
        game_view(game).add_arguments(group)
        owners[game.name] = tuple(action.dest for action in group._group_actions)
    parser.set_defaults(game_options=owners)


def check_game_options(args: argparse.Namespace, game: Game) -> None:
    """Refuse an option of another game rather than ignore it."""
    owners: dict[str, tuple[str, ...]] = getattr(args, "game_options", {})
    for other, dests in owners.items():
        if other == game.name:
            continue
        for dest in dests:
            if getattr(args, dest, None) is not None:
                flag = "--" + dest.replace("_", "-")
                raise ValueError(
                    f"{flag} is a {get_game(other).title} option (--game {other}), "
                    f"not one of {game.title}"
                )


def make_variant(args: argparse.Namespace, game: Game, players: int) -> Variant:
    """The variant the options ask for; options of another game are refused."""
    check_game_options(args, game)
    return game_view(game).make_variant(args, players)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "server", None) is not None or getattr(args, "table", None) is not None:
        return run_online(args)
    for option in ("seat", "name", "token"):
        if getattr(args, option, None) is not None:
            raise ValueError(f"--{option} is for online play: give --server and --table too")
    if getattr(args, "watch", False):
        raise ValueError("--watch is for online play: give --server and --table too")
    console = Console(highlight=False)
    game = get_game(args.game)
    if args.list_bots:
        for name, description in available_bots(game).items():
            console.print(f"[bold]{name}[/]: {escape(description)}")
        return 0
    view = game_view(game)
    specs = args.player or ["human:You", f"{registration(game).default_opponent}:Computer"]
    seats = parse_seats(game, specs, args.seed)
    variant = make_variant(args, game, len(seats))
    if args.save is not None:
        check_output_path(args.save, overwrite=args.overwrite)
    delay = args.delay if args.delay is not None else (0.6 if console.is_terminal else 0.0)
    session = PlaySession(game, view, seats, console, delay=delay, hints=args.hint)
    finished = session.play(variant, random.Random(args.seed), save=args.save, seed=args.seed)
    if session.save_failed:
        return 1
    if not finished:
        saved = f"; record saved to {args.save}" if args.save is not None else ""
        if session.left:  # `quit`, confirmed: what the player asked for, not an interruption
            console.print(f"You left the game{saved}.")
            return 0
        print_error(f"game abandoned{saved}", kind="stopped")
        return 130
    return 0


class PlaySession:
    """Runs one game to the end (or until the player quits), then writes the record."""

    def __init__(
        self,
        game: Game,
        view: GameView,
        seats: Sequence[Seat],
        console: Console,
        *,
        delay: float = 0.0,
        hints: bool = False,
        read_line: Callable[[str], str] | None = None,
    ) -> None:
        self.game = game
        self.view = view
        self.seats = list(seats)
        self.names = [seat.name for seat in seats]
        self.console = console
        self.delay = delay
        self.hints = hints
        self.read_line = read_line or ActionPrompt.terminal(console)
        self.save_failed = False
        #: the game ended with the player's confirmed ``quit`` (not Ctrl-C or end of input)
        self.left = False

    def play(
        self,
        variant: Variant,
        rng: random.Random,
        *,
        save: Path | None = None,
        seed: int | None = None,
    ) -> bool:
        """Play to the end; ``False`` if the game was abandoned (the record is saved anyway)."""
        start = self.game.start(variant, rng)
        moves: list[str] = []
        finished = False
        agents: list[Agent] = [self._agent(seat) for seat in self.seats]
        try:
            final = start
            for step in play_steps(start, agents, rng):
                moves.append(step.action.text())
                self.view.render_step(self.console, step, self.names)
                if self._is_bot_move(step) and self.delay:
                    time.sleep(self.delay)
                final = step.after
            self.view.render_final(self.console, final, self.names)
            finished = True
        except Abandoned:
            self.left = True
        except (KeyboardInterrupt, EOFError):
            self.console.print("\n[yellow]Game abandoned.[/]")
        finally:
            if save is not None:
                self._save(save, start, moves, seed)
        return finished

    def _is_bot_move(self, step: Step) -> bool:
        seat = step.before.current_player
        return seat >= 0 and self.seats[seat].bot is not None

    def _agent(self, seat: Seat) -> Agent:
        bot = seat.bot
        if bot is None:
            return lambda state: self._ask(state, seat)

        def choose(state: GameState) -> Action:
            with self._thinking(seat.name):
                return bot.choose(state)

        return choose

    @contextlib.contextmanager
    def _thinking(self, name: str) -> Iterator[None]:
        """A "thinking…" line while a bot works (on a terminal only)."""
        if not self.console.is_terminal:
            yield
            return
        from marsdice.solve.progress import reporting

        message = f"{escape(name)} is thinking…"
        with self.console.status(message, spinner="dots") as status:

            def solving(what: str, done: int, total: int) -> None:
                share = f"{100 * done // max(total, 1)}%"
                status.update(f"{message} [dim](solving {escape(what)}: {share})[/]")

            with reporting(solving):  # one live display: the solve's progress in the status
                yield

    def _ask(self, state: GameState, seat: Seat) -> Action:
        prompt = ActionPrompt(self.view, self.console, self.read_line, hints=self.hints)
        return prompt.ask(state, seat.name, self.names)

    def _save(self, path: Path, start: GameState, moves: list[str], seed: int | None) -> None:
        tags = [("Date", time.strftime("%Y.%m.%d"))]
        if seed is not None:
            tags.append(("Seed", str(seed)))
        record = self.game.make_record(self.names, start, moves, tags)
        text = self.game.dumps(record)
        try:
            written = write_text_safely(path, text)
        except MarsDiceError as error:
            self.save_failed = True
            print_error(str(error))
            return
        self.console.print(f"Record saved to [bold]{escape(str(written))}[/].")
