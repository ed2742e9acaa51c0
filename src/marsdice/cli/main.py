"""The ``marsdice`` command: one subcommand per module, each with ``add_parser`` and ``run``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import Final

from marsdice import __version__

#: subcommand -> module (imported only when that subcommand runs, to keep start-up fast)
COMMANDS: Final = {
    "play": "marsdice.cli.play",
    "replay": "marsdice.cli.replay",
    "tournament": "marsdice.cli.tournament",
    "analyze": "marsdice.cli.analyze",
}

_HELP: Final = {
    "play": "play a game in the terminal, against people or the computer",
    "replay": "print a recorded game turn by turn",
    "tournament": "play bots against each other over many seeded games",
    "analyze": "Martian Dice: every choice in a position with its expected score and win chance",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="marsdice",
        description="Martian Dice and Mars Attacks: The Dice Game, with exact solvers and bots.",
    )
    parser.add_argument("--version", action="version", version=f"marsdice {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        sub = commands.add_parser(name, help=_HELP.get(name), description=_HELP.get(name))
        import_module(module).add_arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    code: int = import_module(COMMANDS[args.command]).run(args)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
