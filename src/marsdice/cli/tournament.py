"""``marsdice tournament``: bots against each other over many seeded games.

Output files (``--json``, ``--csv``) are checked before the first game; the results are
written atomically once the games are done, or saved to a fallback file whose path is printed
(exit 1). Ctrl-C stops the series: the games finished so far are written, marked partial
(``"partial": true`` in JSON, a ``partial`` column in CSV, a note under the table), and the
exit code is 130.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from marsdice.cli.args import escape, int_range, print_error
from marsdice.cli.files import (
    OutputPathError,
    WriteError,
    check_output_path,
    write_text_safely,
)
from marsdice.cli.play import add_game_options, make_variant
from marsdice.games import game_names, get_game
from marsdice.tournament import TournamentResult, run_tournament

#: the most games one series may play
MAX_GAMES = 1_000_000
#: the most worker processes
MAX_JOBS = 64


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "bots", nargs="+", metavar="BOT", help="one bot per seat (repeat a name for self-play)"
    )
    parser.add_argument("--game", choices=game_names(), default="martian", help="which game")
    parser.add_argument(
        "-n", "--games", type=int_range(1, MAX_GAMES), default=1000, help="games to play"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole series")
    parser.add_argument(
        "-j", "--jobs", type=int_range(1, MAX_JOBS), default=1, help="worker processes"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write summary and games as JSON")
    parser.add_argument("--csv", type=Path, metavar="FILE", help="write one row per game as CSV")
    parser.add_argument(
        "--overwrite", action="store_true", help="let --json/--csv replace existing files"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_options(parser)


def check_outputs(args: argparse.Namespace) -> list[Path]:
    """The output paths, each usable, before any game is played (OutputPathError if not)."""
    paths: list[Path] = [path for path in (args.json, args.csv) if path is not None]
    if len(paths) == 2 and paths[0].resolve() == paths[1].resolve():
        raise OutputPathError(f"--json and --csv both name {paths[0]}: give two files")
    for path in paths:
        check_output_path(path, overwrite=args.overwrite)
    return paths


def run(args: argparse.Namespace) -> int:
    """Errors before the games are raised for :mod:`marsdice.cli.main` to report (exit 2)."""
    console = Console(highlight=False)
    errors = Console(stderr=True, highlight=False)
    game = get_game(args.game)
    check_outputs(args)
    variant = make_variant(args, game, len(args.bots))
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=errors,
        disable=args.quiet,
        transient=True,
    ) as progress:
        task = progress.add_task("games", total=args.games)
        result = run_tournament(
            game.name,
            args.bots,
            games=args.games,
            seed=args.seed,
            jobs=args.jobs,
            variant=variant,
            progress=lambda n: progress.advance(task, n),
        )
    finished = len(result.results)
    if result.partial and finished == 0:
        print_error("interrupted before any game finished: nothing to write", kind="stopped")
        return 130
    # files first: a closed stdout (a pipe into head) must not lose them
    failures = write_outputs(result, args.json, args.csv)
    console.print(standings_table(result, requested=args.games))
    console.print(f"Mean game length: {result.mean_rounds:.2f} rounds")
    if result.partial:
        console.print(
            f"[yellow]Partial: interrupted after {finished} of {args.games} games; "
            "the figures above cover those games only.[/]"
        )
    for failure in failures:
        print_error(str(failure))
    if failures:
        return failures[0].exit_code
    if result.partial:
        print_error(
            f"interrupted after {finished} of {args.games} games; results marked partial",
            kind="stopped",
        )
        return 130
    return 0


def write_outputs(
    result: TournamentResult, json_path: Path | None, csv_path: Path | None
) -> list[WriteError]:
    """Write each file asked for; a failure is kept (its data saved elsewhere) and the next
    file is still written."""
    failures: list[WriteError] = []
    for path, render in ((json_path, json_text), (csv_path, csv_text)):
        if path is None:
            continue
        try:
            write_text_safely(path, render(result))
        except WriteError as error:
            failures.append(error)
    return failures


def json_text(result: TournamentResult) -> str:
    data = result.to_dict()
    data["partial"] = result.partial
    data["games_finished"] = len(result.results)
    return json.dumps(data, indent=1) + "\n"


def csv_text(result: TournamentResult) -> str:
    """One row per game; the ``partial`` column is ``true`` on every row of a series that was
    interrupted."""
    seats = len(result.lineup)
    handle = io.StringIO()
    writer = csv.writer(handle, lineterminator="\n")
    header = ["game", "rounds"]
    for seat in range(1, seats + 1):
        header += [f"seat{seat}_bot", f"seat{seat}_score", f"seat{seat}_return"]
    writer.writerow([*header, "partial"])
    partial = "true" if result.partial else "false"
    for r in result.results:
        row: list[object] = [r.index, r.rounds]
        for seat in range(seats):
            row += [r.seats[seat], r.scores[seat], r.returns[seat]]
        writer.writerow([*row, partial])
    return handle.getvalue()


def standings_table(result: TournamentResult, *, requested: int | None = None) -> Table:
    """The standings; a partial series says how many of the ``requested`` games it holds."""
    finished = len(result.results)
    of = f" of {requested}" if requested is not None else ""
    count = f"{finished}{of} games (partial)" if result.partial else f"{finished} games"
    table = Table(
        title=f"{escape(get_game(result.game).title)}: {count}, seed {result.seed}",
        header_style="bold",
    )
    for column in ("Bot", "Seats played", "Wins", "Win rate", "95% CI", "Mean score"):
        table.add_column(column, justify="left" if column == "Bot" else "right")
    for s in sorted(result.standings, key=lambda s: -s.win_rate):
        table.add_row(
            escape(s.name),
            str(s.games),
            f"{s.wins:g}",
            f"{s.win_rate:.1%}",
            f"{s.ci_low:.1%} – {s.ci_high:.1%}",
            f"{s.mean_score:.2f}",
        )
    return table
