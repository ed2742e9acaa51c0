"""``marsdice review RECORD``: what each decision of a recorded game cost, and the luck.

Prints, per player, the decisions that lost something against the best move (``--all``: every
decision) with their marks, then a summary table: decisions, marks, loss, accuracy and luck.
``--json`` writes the review as JSON (the layout of ``marsdice/review/review.schema.json``):
to standard output with no file (and nothing else printed), or to FILE, checked before the
review starts and written atomically (``--overwrite`` replaces an existing file). See
``docs/review.md``.

Module-level imports stay light (no numpy, no solver): the review imports its game's solver
when it runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final

from rich import box
from rich.console import Console
from rich.table import Table

from marsdice.cli.args import escape
from marsdice.cli.files import check_output_path, write_text_safely
from marsdice.core.errors import RecordError
from marsdice.core.record import read_record_file

if TYPE_CHECKING:
    from marsdice.review import Decision, Review

#: ``--json`` with no file: the JSON goes to standard output
STDOUT: Final = "-"

_MARK_STYLE: Final = {
    "best": "green",
    "good": "green",
    "inaccuracy": "yellow",
    "mistake": "dark_orange",
    "blunder": "bold red",
    "forced": "dim",
    "unrated": "dim",
}
_METHOD_TEXT: Final = {
    "exact-2p": "exact two-player win probabilities",
    "exact-3p": "exact three-player win probabilities",
    "exact-4p": "exact four-player win probabilities",
    "approximation": (
        "approximate win probabilities (the multi-player approximation: the most dangerous "
        "opponent, from the two-player tables)"
    ),
    "solo-expected-turns": "exact expected turns to reach the target (fewer is better)",
    "planner-estimate": (
        "ESTIMATES: the planner bot's values in its victory-point unit, not exact win chances"
    ),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="a game record (marsdice play --save)")
    parser.add_argument(
        "--json",
        nargs="?",
        const=STDOUT,
        metavar="FILE",
        help="write the review as JSON to FILE, or to standard output with no FILE (or -)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="let --json replace an existing file"
    )
    parser.add_argument(
        "--all", action="store_true", help="list every decision, not only those that lost"
    )


def load_review(path: Path) -> Review:
    """The review of the record in ``path``; RecordError names the file and what is wrong
    (OS errors such as a missing file pass through as one-line errors of the CLI)."""
    from marsdice.review import review_record

    text = read_record_file(path)
    try:
        return review_record(text)
    except RecordError as error:
        raise RecordError(f"cannot review {path}: {error}") from None


def run(args: argparse.Namespace) -> int:
    """Errors are raised for :func:`marsdice.cli.main.main` to report (one line, exit 2)."""
    path: Path = args.file
    target: str | None = args.json
    if target is not None and target != STDOUT:
        check_output_path(Path(target), overwrite=args.overwrite)
    review = load_review(path)
    if target == STDOUT:
        sys.stdout.write(json_text(review))
        return 0
    if target is not None:  # the file first: a closed stdout must not lose it
        write_text_safely(Path(target), json_text(review))
    console = Console(highlight=False)
    print_review(console, review, show_all=args.all)
    if target is not None:
        console.print(f"Review written to [bold]{escape(target)}[/].")
    return 0


def json_text(review: Review) -> str:
    return json.dumps(review.to_json(), indent=1, ensure_ascii=False) + "\n"


def print_review(console: Console, review: Review, *, show_all: bool = False) -> None:
    """The header, each player's decisions table, then the summary table."""
    console.print(
        f"[bold]{escape(review.title)} review[/]: {escape(', '.join(review.players))} · "
        f"{escape(review.result)}"
    )
    style = "bold yellow" if review.estimate else "dim"
    console.print(f"[{style}]Method {review.method}: {_METHOD_TEXT[review.method]}.[/]")
    t = review.thresholds
    console.print(
        f"[dim]Marks by {_loss_name(review)}: inaccuracy ≥ {_amount(review, t.inaccuracy)}, "
        f"mistake ≥ {_amount(review, t.mistake)}, blunder ≥ {_amount(review, t.blunder)}; "
        "in the summary ?! ? ?? count them.[/]"
    )
    for seat, name in enumerate(review.players):
        shown = [
            d
            for d in review.decisions
            if d.seat == seat and (show_all or d.mark not in ("best", "forced"))
        ]
        console.print(_decisions_table(review, name, shown, show_all))
    console.print(_summary_table(review))


def _decisions_table(
    review: Review, name: str, decisions: list[Decision], show_all: bool
) -> Table | str:
    if not decisions:
        return f"[green]{escape(name)}: no decision lost anything.[/]"
    what = "every decision" if show_all else "decisions that lost something"
    table = Table(
        title=f"{escape(name)}: {what}",
        header_style="bold",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("#", justify="right")
    table.add_column("Position", ratio=1)
    table.add_column(f"Played → best ({_value_name(review)})", ratio=1)
    table.add_column("Loss", justify="right", no_wrap=True)
    table.add_column("Mark", no_wrap=True)
    for d in decisions:
        played = f"{escape(d.played)} {_value(review, d.value)}"
        if d.best is not None and d.loss:
            played += f" → {escape(d.best)} {_value(review, d.best_value)}"
        table.add_row(
            str(d.index),
            escape(d.position),
            played,
            "–" if d.loss is None else _amount(review, d.loss),
            f"[{_MARK_STYLE[d.mark]}]{d.mark}[/]",
        )
    return table


def _summary_table(review: Review) -> Table:
    table = Table(title="Summary", header_style="bold", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("Player", ratio=1, min_width=8)
    for heading in ("Moves", "Forced", "Best", "?!", "?", "??"):
        table.add_column(heading, justify="right")
    table.add_column("Loss", justify="right", no_wrap=True)
    table.add_column("Acc.", justify="right", no_wrap=True)
    table.add_column("Luck", justify="right", no_wrap=True)
    for s in review.summaries:
        table.add_row(
            escape(s.player),
            str(s.decisions),
            str(s.forced),
            str(s.best),
            str(s.inaccuracies),
            str(s.mistakes),
            str(s.blunders),
            _amount(review, s.total_loss),
            "–" if s.accuracy is None else f"{s.accuracy:.1f}%",
            _signed(review, s.luck),
        )
    return table


def _loss_name(review: Review) -> str:
    if review.unit == "win probability":
        return "win probability lost in percentage points (pp)"
    if review.unit == "expected turns":
        return "expected turns lost"
    return "planner value lost (estimate)"


def _value_name(review: Review) -> str:
    if review.unit == "win probability":
        return "win %"
    if review.unit == "expected turns":
        return "expected turns"
    return "estimate"


def _value(review: Review, value: float | None) -> str:
    if value is None:
        return "–"
    if review.unit == "win probability":
        return f"{value:.1%}"
    return f"{value:.2f}"


def _amount(review: Review, amount: float) -> str:
    """A loss: percentage points of win probability, else the unit's number."""
    if review.unit == "win probability":
        return f"{amount * 100:.1f} pp"
    return f"{amount:.2f}"


def _signed(review: Review, amount: float) -> str:
    if review.unit == "win probability":
        return f"{amount * 100:+.1f} pp"
    return f"{amount:+.2f}"
