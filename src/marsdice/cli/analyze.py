"""``marsdice analyze``: every choice in a Martian Dice position with its exact numbers.

Example: scores 10 and 18, player 1 to move, 2 tanks and 4 humans already set aside, then a
roll of 7 dice::

    marsdice analyze --scores 10,18 --aside TTHHHH --roll TRRCCCK
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from marsdice.cli.args import escape, non_negative_int, positive_int
from marsdice.cli.files import OutputPathError, check_output_path, write_bytes_safely
from marsdice.core.errors import MarsDiceError, VariantError
from marsdice.martian import Phase, Roll, State, Variant, position

#: what ``pip`` needs for ``--plot`` (printed without markup: rich would eat ``[plot]``)
PLOT_HINT = "plots need matplotlib: pip install 'marsdice[plot]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scores", default="0,0", help="totals of every player in seat order (one = solo)"
    )
    parser.add_argument(
        "--seat", type=positive_int, default=1, help="the player to move, counted from 1"
    )
    parser.add_argument(
        "--aside", default="", help="dice set aside this turn before the roll, e.g. TTHHHH"
    )
    parser.add_argument("--roll", help="the roll to choose from, tanks included, e.g. TRRCCCK")
    parser.add_argument(
        "--last-round",
        action="store_true",
        help="someone earlier in this round has reached the target: this is the last round",
    )
    parser.add_argument("--target", type=positive_int, default=25, help="points to end the game")
    parser.add_argument("--dice", type=positive_int, default=13, help="dice per turn")
    parser.add_argument(
        "--plot",
        type=Path,
        metavar="FILE",
        help="draw the strategy atlas to FILE (.png or .svg; an existing file is replaced)",
    )


def parse_scores(text: str) -> tuple[int, ...]:
    try:
        scores = tuple(non_negative_int(part) for part in text.split(","))
    except argparse.ArgumentTypeError:
        message = f"--scores takes whole numbers of 0 or more separated by commas, got {text!r}"
        raise VariantError(message) from None
    return scores


def check_not_over(scores: tuple[int, ...], seat: int, target: int, last_round: bool) -> None:
    """Refuse a position that cannot be reached in play because the game is over (or the
    ``--last-round`` flag does not fit the scores). ``seat`` counts from 0.

    Without ``--last-round`` no score may be at or past the target (reaching it ends the game
    solo, and starts the last round otherwise). In a last round, somebody has reached the
    target, and every such player sits before the one to move (a round runs in seat order
    and ends after the last seat), so the mover is still below it.
    """
    reached = [i for i, score in enumerate(scores) if score >= target]
    if last_round:
        if len(scores) == 1:
            raise VariantError("--last-round needs 2 or more players (a solo game has no round)")
        if not reached:
            raise VariantError(f"--last-round: nobody has reached the target {target} yet")
        late = [i for i in reached if i >= seat]
        if late:
            raise VariantError(
                f"--last-round: player {late[0] + 1} has {scores[late[0]]}, at or past the "
                f"target {target}, but does not sit before player {seat + 1}, who is to move: "
                "the game would already be over"
            )
        return
    if reached:
        who = reached[0]
        hint = (
            ""
            if len(scores) == 1 or who >= seat
            else " (if they reached it earlier in this round, add --last-round)"
        )
        raise VariantError(
            f"the game is over: player {who + 1} has {scores[who]}, at or past the target "
            f"{target}{hint}"
        )


def parse_position(args: argparse.Namespace) -> State:
    """The position the options describe; a clear error for anything impossible."""
    scores = parse_scores(args.scores)
    variant = Variant(players=len(scores), target=args.target, dice=args.dice)
    if not 1 <= args.seat <= len(scores):
        raise VariantError(
            f"--seat must be 1-{len(scores)} (one seat per score in --scores), got {args.seat}"
        )
    check_not_over(scores, args.seat - 1, args.target, args.last_round)
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
    """Errors are raised for :func:`marsdice.cli.main.main` to report (one line, exit 2);
    Ctrl-C while a table is solved ends there too (exit 130)."""
    console = Console(highlight=False)
    plot: Path | None = args.plot
    if plot is not None:
        check_output_path(plot, overwrite=True)
        if plot.suffix.lower() not in (".png", ".svg"):
            raise OutputPathError(f"--plot writes .png or .svg files, got {plot.name!r}")
        Variant(players=2, target=args.target, dice=args.dice)  # the atlas's ranges
    state = parse_position(args) if (args.roll or args.aside) else None
    if state is None and plot is None:
        raise VariantError("give a position (--aside and/or --roll) or --plot FILE")
    if state is not None:
        console.print(analysis_table(state))
    if plot is not None:
        write_bytes_safely(plot, draw_atlas_bytes(plot.suffix.lower(), args.target, args.dice))
        console.print(f"Strategy atlas written to [bold]{escape(str(plot))}[/].")
    return 0


def draw_atlas_bytes(suffix: str, target: int, dice: int) -> bytes:
    """The atlas drawn into a private temporary folder and read back, so that the file
    asked for is written atomically (or saved elsewhere) like every other result."""
    try:
        from marsdice.cli.atlas import draw_atlas
    except ImportError as error:
        raise MarsDiceError(PLOT_HINT) from error
    with tempfile.TemporaryDirectory(prefix="marsdice-atlas-") as folder:
        drawn = Path(folder) / f"atlas{suffix}"
        try:
            draw_atlas(drawn, target=target, dice=dice)
        except ImportError as error:
            raise MarsDiceError(PLOT_HINT) from error
        return drawn.read_bytes()


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
