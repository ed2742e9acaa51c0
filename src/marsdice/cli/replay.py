"""``marsdice replay FILE``: print a recorded game turn by turn, as it was played."""

from __future__ import annotations

import argparse
from itertools import pairwise
from pathlib import Path

from rich.console import Console

from marsdice.cli.play import game_view
from marsdice.core.errors import MarsDiceError
from marsdice.games import read_record


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="a game record written by 'marsdice play --save'")


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    try:
        module, record = read_record(args.file.read_text(encoding="utf-8"))
        states = module.replay(record)
        view = game_view(module.GAME)
    except (OSError, UnicodeDecodeError, MarsDiceError) as error:
        Console(stderr=True, highlight=False).print(
            f"[red]error:[/] cannot replay {args.file}: {error}"
        )
        return 2
    names = record.players
    console.print(f"[bold]{module.TITLE}[/]: {', '.join(names)}")
    for key, value in record.tags:
        console.print(f"[dim]{key}: {value}[/]")
    actions = [state.parse_action(move) for state, move in zip(states, record.moves, strict=False)]
    for (before, after), action in zip(pairwise(states), actions, strict=True):
        view.render_step(console, before, action, after, names)
    final = states[-1]
    if final.is_terminal:
        view.render_final(console, final, names)
    else:
        console.print(
            f"[yellow]The record stops before the end: {module.result_text(final, names)}[/]"
        )
    return 0
