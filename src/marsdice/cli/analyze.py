"""``marsdice analyze``: every choice in a Martian Dice position with its exact numbers.

Example: scores 10 and 18, player 1 to move, 2 tanks and 4 humans already set aside, then a
roll of 7 dice::

    marsdice analyze --scores 10,18 --aside TTHHHH --roll TRRCCCK
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table

from marsdice.core.errors import MarsDiceError
from marsdice.martian import Phase, Roll, State, Variant, position


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scores", default="0,0", help="totals of every player in seat order (default 0,0)"
    )
    parser.add_argument("--seat", type=int, default=1, help="the player to move, from 1")
    parser.add_argument(
        "--aside", default="", help="dice set aside this turn before the roll, e.g. TTHHHH"
    )
    parser.add_argument("--roll", help="the roll to choose from, tanks included, e.g. TRRCCCK")
    parser.add_argument(
        "--last-round",
        action="store_true",
        help="someone has reached the target: this is the last round",
    )
    parser.add_argument("--target", type=int, default=25)
    parser.add_argument("--dice", type=int, default=13)
    parser.add_argument(
        "--plot", type=Path, metavar="FILE", help="draw the strategy atlas to FILE (.png or .svg)"
    )


def parse_position(args: argparse.Namespace) -> State:
    """The position the options describe; a clear error for anything impossible."""
    try:
        scores = tuple(int(part) for part in args.scores.split(","))
    except ValueError:
        message = f"--scores takes whole numbers separated by commas, got {args.scores!r}"
        raise ValueError(message) from None
    variant = Variant(players=len(scores), target=args.target, dice=args.dice)
    aside = Roll.parse(args.aside).counts if args.aside else (0, 0, 0, 0, 0)
    rolled = Roll.parse(args.roll).counts if args.roll else None
    return position(
        variant,
        scores,
        seat=args.seat - 1,
        set_aside=aside,
        rolled=rolled,
        end_triggered=args.last_round,
    )


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    errors = Console(stderr=True, highlight=False)
    try:
        if args.plot is not None and args.plot.suffix.lower() not in (".png", ".svg"):
            raise ValueError(f"--plot writes .png or .svg files, got {args.plot.name!r}")
        if args.plot is not None and not args.plot.parent.is_dir():
            raise ValueError(f"cannot write {args.plot}: folder {args.plot.parent} does not exist")
        state = parse_position(args) if (args.roll or args.aside) else None
    except (ValueError, MarsDiceError) as error:
        errors.print(f"[red]error:[/] {error}")
        return 2
    if state is not None:
        console.print(analysis_table(state))
    if args.plot is not None:
        from marsdice.cli.atlas import draw_atlas

        try:
            draw_atlas(args.plot, target=args.target, dice=args.dice)
        except ImportError:
            errors.print("[red]error:[/] plots need matplotlib: pip install 'marsdice[plot]'")
            return 2
        console.print(f"Strategy atlas written to [bold]{args.plot}[/].")
    if state is None and args.plot is None:
        errors.print("[red]error:[/] give a position (--aside and/or --roll) or --plot FILE")
        return 2
    return 0


def analysis_table(state: State) -> Table:
    from marsdice.solve.policy import analyze

    rows = analyze(state)
    solo = state.variant.solo
    best_score = max(row.expected_score for row in rows)
    key = (lambda r: -(r.expected_turns or 0.0)) if solo else (lambda r: r.win_probability or 0.0)
    best_play = max(rows, key=key)
    what = "take a face type" if state.phase is Phase.CHOOSE else "stop or roll again"
    table = Table(
        title=f"Player {state.seat + 1} to {what} · scores {', '.join(map(str, state.scores))}"
        f" · turn worth {state.turn_score} now",
        header_style="bold",
    )
    table.add_column("Action")
    table.add_column("Expected turn score", justify="right")
    table.add_column("Expected turns to finish" if solo else "Win probability", justify="right")
    for row in rows:
        score = f"{row.expected_score:.4f}" + (" ★" if row.expected_score == best_score else "")
        if solo:
            assert row.expected_turns is not None
            value = f"{row.expected_turns:.4f}"
        else:
            assert row.win_probability is not None
            value = f"{row.win_probability:.2%}"
        style = "bold green" if row is best_play else ""
        table.add_row(
            row.action.text(), score, value + (" ★" if row is best_play else ""), style=style
        )
    return table
