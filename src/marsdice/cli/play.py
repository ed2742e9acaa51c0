"""``marsdice play``: a game in the terminal for people and bots, either game.

The loop is the same for both games: chance nodes are rolled with a seeded generator, bots
choose through the bot protocol, people type moves in the game's notation. Everything a game
shows lives in its view module (:mod:`marsdice.cli.martian_view`, ...).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any, Final, Protocol, cast

from rich.console import Console

from marsdice.bots import Bot, available_bots, make_bot
from marsdice.core.errors import MarsDiceError
from marsdice.games import GAMES, GameModule, game_module

#: game -> its terminal view module
VIEWS: Final = {
    "martian": "marsdice.cli.martian_view",
    "attacks": "marsdice.cli.attacks_view",
}
QUIT_WORDS: Final = frozenset({"quit", "exit", "q"})
HELP_WORDS: Final = frozenset({"help", "?"})


class GameView(Protocol):
    """What a game's terminal view offers the loop."""

    DEFAULT_OPPONENT: str

    def add_arguments(self, group: argparse._ArgumentGroup) -> None: ...

    def make_variant(self, args: argparse.Namespace, players: int) -> Any: ...

    def render_board(self, console: Console, state: Any, names: Sequence[str]) -> None: ...

    def render_step(
        self, console: Console, before: Any, action: Any, after: Any, names: Sequence[str]
    ) -> None: ...

    def render_final(self, console: Console, state: Any, names: Sequence[str]) -> None: ...

    def help_text(self, state: Any) -> str: ...

    def hint(self, state: Any) -> str | None: ...


def game_view(game: str) -> GameView:
    return cast(GameView, import_module(VIEWS[game]))


@dataclass(frozen=True)
class Seat:
    """Who sits at a place: a person (``bot is None``) or a bot."""

    name: str
    bot: Bot | None = None


def parse_seats(game: str, specs: Sequence[str], seed: int | None) -> list[Seat]:
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
    names = [seat.name for seat in seats]
    for index, seat in enumerate(seats):
        if names.count(seat.name) > 1:
            seats[index] = Seat(f"{seat.name} {index + 1}", seat.bot)
    return seats


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=sorted(GAMES), default="martian", help="which game")
    parser.add_argument(
        "-p",
        "--player",
        action="append",
        metavar="SPEC",
        help="a seat, in turn order: 'human[:NAME]' or a bot name (e.g. 'cautious:Zax'); "
        "repeat for each player. Default: you against the computer.",
    )
    parser.add_argument("--seed", type=int, help="seed the dice (and bots) for a reproducible game")
    parser.add_argument("--save", type=Path, metavar="FILE", help="write the game record here")
    parser.add_argument(
        "--overwrite", action="store_true", help="let --save replace an existing file"
    )
    parser.add_argument(
        "--delay", type=float, help="seconds to pause after a computer move (default 0.6 on a TTY)"
    )
    parser.add_argument(
        "--hint", action="store_true", help="show the best move and its numbers before yours"
    )
    parser.add_argument("--list-bots", action="store_true", help="list the bots and exit")
    add_game_options(parser)


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """Each game's own settings, in a group per game (used by play and tournament alike)."""
    for game in sorted(VIEWS):
        title = game_module(game).TITLE
        game_view(game).add_arguments(parser.add_argument_group(f"{title} options (--game {game})"))


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    game: str = args.game
    if args.list_bots:
        for name, description in available_bots(game).items():
            console.print(f"[bold]{name}[/]: {description}")
        return 0
    try:
        view = game_view(game)
        module = game_module(game)
        specs = args.player or ["human:You", f"{view.DEFAULT_OPPONENT}:Computer"]
        seats = parse_seats(game, specs, args.seed)
        variant = view.make_variant(args, len(seats))
        if args.save is not None:
            check_save_path(args.save, overwrite=args.overwrite)
    except (ValueError, ImportError, OSError) as error:
        Console(stderr=True, highlight=False).print(f"[red]error:[/] {error}")
        return 2
    delay = args.delay if args.delay is not None else (0.6 if console.is_terminal else 0.0)
    session = PlaySession(module, view, seats, console, delay=delay, hints=args.hint)
    finished = session.play(variant, random.Random(args.seed), save=args.save, seed=args.seed)
    return 0 if finished else 130


def check_save_path(path: Path, *, overwrite: bool) -> None:
    """Fail before the game starts rather than lose a record (or an old one) at its end."""
    if path.exists() and not overwrite:
        raise ValueError(f"{path} already exists: choose another file or add --overwrite")
    if not path.parent.is_dir():
        raise ValueError(f"cannot save to {path}: folder {path.parent} does not exist")


class PlaySession:
    """Runs one game to the end (or until the player quits), then writes the record."""

    def __init__(
        self,
        module: GameModule,
        view: GameView,
        seats: Sequence[Seat],
        console: Console,
        *,
        delay: float = 0.0,
        hints: bool = False,
        read_line: Callable[[str], str] | None = None,
    ) -> None:
        self.module = module
        self.view = view
        self.seats = list(seats)
        self.names = [seat.name for seat in seats]
        self.console = console
        self.delay = delay
        self.hints = hints
        self.read_line = read_line or (lambda prompt: console.input(prompt))

    def play(
        self, variant: Any, rng: random.Random, *, save: Path | None = None, seed: int | None = None
    ) -> bool:
        """Play to the end; ``False`` if the game was abandoned (record still saved)."""
        state = start = self.module.start(variant, rng)
        moves: list[str] = []
        finished = False
        try:
            while not state.is_terminal:
                action, after = self._next_move(state, rng)
                moves.append(action.text())
                self.view.render_step(self.console, state, action, after, self.names)
                if self._is_bot_move(state) and self.delay:
                    time.sleep(self.delay)
                state = after
            self.view.render_final(self.console, state, self.names)
            finished = True
        except (KeyboardInterrupt, EOFError):
            self.console.print("\n[yellow]Game abandoned.[/]")
        finally:
            if save is not None:
                self._save(save, start, moves, seed)
        return finished

    def _is_bot_move(self, state: Any) -> bool:
        return not state.is_chance_node and self.seats[state.current_player].bot is not None

    def _next_move(self, state: Any, rng: random.Random) -> tuple[Any, Any]:
        """The next action and the state after it (a person's move is applied once, when
        it is checked)."""
        if state.is_chance_node:
            action = state.sample_chance(rng)
        else:
            seat = self.seats[state.current_player]
            if seat.bot is None:
                return self._ask(state, seat)
            action = seat.bot.choose(state)
        return action, state.apply(action)

    def _ask(self, state: Any, seat: Seat) -> tuple[Any, Any]:
        self.view.render_board(self.console, state, self.names)
        if self.hints:
            hint = self.view.hint(state)
            if hint:
                self.console.print(f"[dim]hint: {hint}[/]")
        while True:
            text = self.read_line(f"[bold]{seat.name}[/] > ").strip()
            word = text.lower()
            if word in QUIT_WORDS:
                raise KeyboardInterrupt
            if word in HELP_WORDS or not text:
                self.console.print(self.view.help_text(state))
                continue
            try:
                action = state.parse_action(text)
                return action, state.apply(action)
            except MarsDiceError as error:
                self.console.print(f"[red]{error}[/]")

    def _save(self, path: Path, start: Any, moves: list[str], seed: int | None) -> None:
        tags = [("Date", time.strftime("%Y.%m.%d"))]
        if seed is not None:
            tags.append(("Seed", str(seed)))
        record = self.module.make_record(self.names, start, moves, tags)
        try:
            path.write_text(self.module.dumps(record), encoding="utf-8")
        except OSError as error:
            self.console.print(f"[red]could not save the record to {path}: {error}[/]")
            return
        self.console.print(f"Record saved to [bold]{path}[/].")
