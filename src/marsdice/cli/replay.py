"""``marsdice replay FILE``: print a recorded game turn by turn, as it was played.

The record is read in bounded memory (files over the record size limit are refused, see
:mod:`marsdice.core.record`), checked move by move before anything is shown (a bad move is
named, with nothing printed), then shown from the start: the result comes at the end, never
before. ``--step`` waits for Enter after each turn (``q`` stops); it needs a terminal on
standard input and is refused otherwise.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from rich.console import Console

from marsdice.cli.args import escape, print_error
from marsdice.cli.view import game_view
from marsdice.core.errors import MarsDiceError, RecordError
from marsdice.core.game import Game, GameState, Step
from marsdice.core.record import GameRecord, read_record_file
from marsdice.games import read_record

#: tags not shown in the header: the result is shown at the end
HIDDEN_TAGS = frozenset({"Result"})
#: typed at a ``--step`` prompt to stop
QUIT_WORDS = frozenset({"q", "quit", "exit"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="a game record written by 'marsdice play --save'")
    parser.add_argument(
        "--step",
        action="store_true",
        help="pause after each turn: Enter shows the next, q stops (needs a terminal)",
    )


def read_line(prompt: str) -> str:
    """One line typed at a ``--step`` prompt (tests replace this)."""
    return input(prompt)


def stdin_is_terminal() -> bool:
    """Whether ``--step`` can prompt (tests replace this)."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


def load(path: Path) -> tuple[Game, GameRecord, GameState]:
    """The game, the record and its final state; every move is checked, keeping one state
    at a time. RecordError names the file and what is wrong."""
    try:
        game, record = read_record(read_record_file(path))
        final = game.opening(record)
        for step in steps(game, record):
            final = step.after
    except RecordError as error:
        raise RecordError(f"cannot replay {path}: {error}") from None
    return game, record, final


def steps(game: Game, record: GameRecord) -> Iterator[Step]:
    """The record's steps one at a time (bounded memory: no list of states)."""
    state = game.opening(record)
    for index, move in enumerate(record.moves, start=1):
        if state.is_terminal:
            raise RecordError(f"move {index} ({move!r}): the game was already over")
        try:
            action = state.parse_action(move)
            after = state.apply(action)
        except MarsDiceError as error:
            raise RecordError(f"move {index} ({move!r}): {error}") from None
        yield Step(state, action, after)
        state = after


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    if args.step and not stdin_is_terminal():
        raise MarsDiceError(
            "--step waits for Enter after each turn and needs a terminal on standard input; "
            "leave out --step to print the whole game"
        )
    game, record, final = load(path)
    view = game_view(game)
    console = Console(highlight=False)
    names: Sequence[str] = record.players
    shown = [escape(name) for name in names]
    console.print(f"[bold]{escape(game.title)}[/]: {', '.join(shown)}")
    for key, value in record.tags:
        if key not in HIDDEN_TAGS:
            console.print(f"[dim]{escape(key)}: {escape(value)}[/]")
    for count, step in enumerate(steps(game, record), start=1):
        view.render_step(console, step, shown)
        turn_over = game.describe_step(step.before, step.after, names) is not None
        if args.step and turn_over and not step.after.is_terminal and not _next(count, record):
            print_error(f"replay stopped after move {count} of {len(record.moves)}", kind="note")
            return 0
    if final.is_terminal:
        view.render_final(console, final, shown)
    else:
        result = escape(game.result_text(final, names))
        console.print(f"[yellow]The record stops before the end: {result}[/]")
    return 0


def _next(count: int, record: GameRecord) -> bool:
    """Wait for Enter; False if the person stops (``q``, or end of input)."""
    try:
        answer = read_line(f"move {count}/{len(record.moves)} · Enter: next turn, q: quit > ")
    except EOFError:
        return False
    return answer.strip().lower() not in QUIT_WORDS
