"""``marsdice analyze``: every choice in a Martian Dice position with its exact numbers.

Example: scores 10 and 18, player 1 to move, 2 tanks and 4 humans already set aside, then a
roll of 7 dice::

    marsdice analyze --scores 10,18 --aside TTHHHH --roll TRRCCCK

With ``--scores`` alone the position is the start of a turn (the dice about to be rolled):
its value is shown. The table's caption says which method gave the numbers (exact tables or
the approximation); ``--json`` prints the same as JSON, in the layout of the shipped schema
``marsdice/cli/analyze.schema.json`` (:func:`load_schema`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.table import Table

from marsdice.cli.args import escape, non_negative_int, positive_int
from marsdice.cli.files import OutputPathError, check_output_path, write_bytes_safely
from marsdice.core.errors import MarsDiceError, VariantError
from marsdice.martian import Phase, Roll, State, Variant, new_game, position

#: what ``pip`` needs for ``--plot`` (printed without markup: rich would eat ``[plot]``)
PLOT_HINT = "plots need matplotlib: pip install 'marsdice[plot]'"
#: the JSON Schema of ``--json``, shipped next to this module
SCHEMA_FILE: Final = "analyze.schema.json"
SCHEMA_ID: Final = "https://marsdice.invalid/schemas/analyze-1.json"
#: the methods of :func:`marsdice.solve.policy.position_method`, as printed
METHODS: Final = {
    "solo-expected-turns": "exact: the solo table (fewest expected turns)",
    "exact-2p": "exact: the two-player win-probability table",
    "exact-3p": "exact: the three-player win-probability table",
    "exact-4p": "exact: the four-player win-probability table",
    "approximation": "approximate: the two-player tables combined (not a true win chance)",
}
EXPECTED_METHOD: Final = "exact: the expected-score turn solver"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scores",
        help="totals of every player in seat order (one = solo; default 0,0); alone: the "
        "start of that player's turn",
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
        "--json",
        action="store_true",
        help="print the analysis as JSON (the layout of marsdice/cli/analyze.schema.json)",
    )
    parser.add_argument(
        "--plot",
        type=Path,
        metavar="FILE",
        help="draw the strategy atlas to FILE (.png or .svg; an existing file is replaced)",
    )


def parse_scores(text: str | None) -> tuple[int, ...]:
    if text is None:
        return (0, 0)
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
    if not args.aside and rolled is None:  # the start of a turn: the dice about to be rolled
        start = new_game(variant)
        return replace(start, scores=scores, seat=args.seat - 1, end_triggered=args.last_round)
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
    given = args.roll or args.aside or args.scores is not None
    state = parse_position(args) if given else None
    if state is None and plot is None:
        raise VariantError("give a position (--scores, --aside and/or --roll) or --plot FILE")
    if state is not None:
        if args.json:
            sys.stdout.write(json.dumps(analysis_json(state), indent=1) + "\n")
        else:
            console.print(analysis_table(state))
            console.print(method_line(state), soft_wrap=True)
    if plot is not None:
        write_bytes_safely(plot, draw_atlas_bytes(plot.suffix.lower(), args.target, args.dice))
        if not args.json:
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


def load_schema() -> dict[str, Any]:
    """The JSON Schema of ``--json`` (draft 2020-12), read from the installed package."""
    text = resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema = json.loads(text)
    assert isinstance(schema, dict)
    return schema


def method(state: State) -> str:
    """Which solver gives the position's win probability (or, solo, expected turns): the
    code of :func:`marsdice.solve.policy.position_method` (the choice the analysis makes)."""
    from marsdice.solve.policy import position_method

    return str(position_method(state))


def _rows(state: State) -> list[dict[str, Any]]:
    """One row per choice (a start of turn: one row, the roll), its numbers and whether it is
    the best play (the highest win probability; solo, the fewest expected turns)."""
    from marsdice.solve.policy import analyze, mover_solution, roll_value

    solo = state.variant.solo
    if state.phase is Phase.ROLL:
        expected, column = mover_solution(state, "expected")
        playing, where = mover_solution(state, "winprob")
        value = roll_value(state, playing, where)
        row: dict[str, Any] = {
            "action": "roll",
            "expected_score": roll_value(state, expected, column),
            "win_probability": None if solo else value,
            "expected_turns": 1.0 - value + state.turns[0] if solo else None,
        }
        rows = [row]
    else:
        rows = [
            {
                "action": choice.action.text(),
                "expected_score": choice.expected_score,
                "win_probability": choice.win_probability,
                "expected_turns": choice.expected_turns,
            }
            for choice in analyze(state)
        ]
    if solo:
        best = min(rows, key=lambda r: r["expected_turns"])
    else:
        best = max(rows, key=lambda r: r["win_probability"])
    top_score = max(r["expected_score"] for r in rows)
    for row in rows:
        row["best"] = row is best
        row["best_score"] = row["expected_score"] == top_score
    return rows


def _phase(state: State) -> str:
    return "start" if state.phase is Phase.ROLL else state.phase.value


def analysis_json(state: State) -> dict[str, Any]:
    """The analysis as plain JSON values (the layout of :data:`SCHEMA_FILE`)."""
    rows = _rows(state)
    variant = state.variant
    rolled = None if state.rolled is None else Roll(state.rolled).text()
    return {
        "schema": SCHEMA_ID,
        "variant": {"players": variant.players, "target": variant.target, "dice": variant.dice},
        "position": {
            "scores": list(state.scores),
            "seat": state.seat + 1,
            "phase": _phase(state),
            "aside": Roll(state.set_aside).text(),
            "roll": rolled,
            "last_round": state.end_triggered,
            "turn_score": state.turn_score,
        },
        "method": method(state),
        "method_text": METHODS[method(state)],
        "score_method": EXPECTED_METHOD,
        "best": next(row["action"] for row in rows if row["best"]),
        "choices": rows,
    }


def method_line(state: State) -> str:
    """The line under the table that says where its numbers come from."""
    figure = "expected turns" if state.variant.solo else "win probabilities"
    return f"Method: {figure}: {METHODS[method(state)]}; expected scores: {EXPECTED_METHOD}."


def analysis_table(state: State) -> Table:
    rows = _rows(state)
    solo = state.variant.solo
    what = {
        Phase.CHOOSE: "take a face type",
        Phase.DECIDE: "stop or roll again",
        Phase.ROLL: "roll (the start of a turn)",
    }[state.phase]
    table = Table(
        title=f"Player {state.seat + 1} to {what} · scores {', '.join(map(str, state.scores))}"
        f" · turn worth {state.turn_score} now",
        header_style="bold",
    )
    table.add_column("Action")
    table.add_column("Expected turn score", justify="right")
    table.add_column("Expected turns to finish" if solo else "Win probability", justify="right")
    for row in rows:
        score = f"{row['expected_score']:.4f}" + (" ★" if row["best_score"] else "")
        value = (f"{row['expected_turns']:.4f}" if solo else f"{row['win_probability']:.2%}") + (
            " ★" if row["best"] else ""
        )
        style = "bold green" if row["best"] else ""
        table.add_row(row["action"], score, value, style=style)
    return table
