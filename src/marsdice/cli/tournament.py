"""``marsdice tournament``: bots against each other over many seeded games."""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from marsdice.cli.play import add_game_options, game_view
from marsdice.core.errors import MarsDiceError
from marsdice.games import GAMES, game_module
from marsdice.tournament import TournamentResult, run_tournament


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "bots", nargs="+", metavar="BOT", help="one bot per seat (repeat a name for self-play)"
    )
    parser.add_argument("--game", choices=sorted(GAMES), default="martian")
    parser.add_argument("-n", "--games", type=int, default=1000, help="games to play")
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole series")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write summary and games as JSON")
    parser.add_argument("--csv", type=Path, metavar="FILE", help="write one row per game as CSV")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_options(parser)


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    errors = Console(stderr=True, highlight=False)
    try:
        for path in (args.json, args.csv):
            if path is not None and not path.parent.is_dir():
                raise ValueError(f"cannot write {path}: folder {path.parent} does not exist")
        variant = game_view(args.game).make_variant(args, len(args.bots))
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=errors,
            disable=args.quiet,
        ) as progress:
            task = progress.add_task("games", total=args.games)
            result = run_tournament(
                args.game,
                args.bots,
                games=args.games,
                seed=args.seed,
                jobs=args.jobs,
                variant=variant,
                progress=lambda n: progress.advance(task, n),
            )
    except (ValueError, TypeError, OSError, MarsDiceError) as error:
        errors.print(f"[red]error:[/] {error}")
        return 2
    console.print(standings_table(result))
    console.print(f"Mean game length: {result.mean_rounds:.2f} rounds")
    if args.json:
        args.json.write_text(json.dumps(result.to_dict(), indent=1), encoding="utf-8")
    if args.csv:
        write_csv(result, args.csv)
    return 0


def standings_table(result: TournamentResult) -> Table:
    table = Table(
        title=f"{game_module(result.game).TITLE}: {result.games} games, seed {result.seed}",
        header_style="bold",
    )
    for column in ("Bot", "Seats played", "Wins", "Win rate", "95% CI", "Mean score"):
        table.add_column(column, justify="left" if column == "Bot" else "right")
    for s in sorted(result.standings, key=lambda s: -s.win_rate):
        table.add_row(
            s.name,
            str(s.games),
            f"{s.wins:g}",
            f"{s.win_rate:.1%}",
            f"{s.ci_low:.1%} – {s.ci_high:.1%}",
            f"{s.mean_score:.2f}",
        )
    return table


def write_csv(result: TournamentResult, path: Path) -> None:
    seats = len(result.lineup)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        header = ["game", "rounds"]
        for seat in range(1, seats + 1):
            header += [f"seat{seat}_bot", f"seat{seat}_score", f"seat{seat}_return"]
        writer.writerow(header)
        for r in result.results:
            row: list[object] = [r.index, r.rounds]
            for seat in range(seats):
                row += [r.seats[seat], r.scores[seat], r.returns[seat]]
            writer.writerow(row)
