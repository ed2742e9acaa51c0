"""How Martian Dice looks in the terminal: dice as coloured badges, the set-aside area with
tanks against rays, and the score table. Display only: every rule comes from the engine."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Final

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from marsdice.martian import (
    FACES,
    Continue,
    Face,
    Phase,
    Roll,
    RolloffMode,
    State,
    Stop,
    Take,
    Variant,
)
from marsdice.martian.record import why

DEFAULT_OPPONENT: Final = "winprob"

#: symbol and style per face: shape and colour both tell the faces apart
BADGES: Final = {
    Face.TANK: ("▲", "bold white on red3"),
    Face.RAY: ("ϟ", "bold black on green3"),
    Face.HUMAN: ("H", "bold black on gold1"),
    Face.COW: ("C", "bold black on grey85"),
    Face.CHICKEN: ("K", "bold white on dark_orange3"),
}
NAMES: Final = {
    Face.TANK: "Tank",
    Face.RAY: "Death Ray",
    Face.HUMAN: "Human",
    Face.COW: "Cow",
    Face.CHICKEN: "Chicken",
}


def add_arguments(group: argparse._ArgumentGroup) -> None:
    default = Variant()
    group.add_argument("--target", type=int, default=default.target, help="points to end the game")
    group.add_argument("--dice", type=int, default=default.dice, help="dice per turn")
    group.add_argument(
        "--rolloff-dice", type=int, default=default.rolloff_dice, help="dice in a tie roll-off"
    )
    group.add_argument(
        "--rolloff-mode",
        choices=[mode.value for mode in RolloffMode],
        default=default.rolloff_mode.value,
        help="repeat: the still-tied roll again; single: one roll-off, ties share the win",
    )


def make_variant(args: argparse.Namespace, players: int) -> Variant:
    return Variant(
        players=players,
        target=args.target,
        dice=args.dice,
        rolloff_dice=args.rolloff_dice,
        rolloff_mode=RolloffMode(args.rolloff_mode),
    )


def acts(name: str, verb: str) -> str:
    """``Zax rolls`` but ``You roll``."""
    return f"{name} {verb[:-1] if name == 'You' else verb}"


def count(n: int, face: Face) -> str:
    """``1 tank``, ``2 tanks``."""
    return f"{n} {face.plural if n != 1 else face.plural[:-1]}"


def dice_text(counts: Sequence[int]) -> Text:
    """A roll or a set-aside area as badges, grouped by face."""
    text = Text()
    for face, count in zip(FACES, counts, strict=True):
        symbol, style = BADGES[face]
        for _ in range(count):
            text.append(f" {symbol} ", style=style)
        if count:
            text.append(" ")
    return text


def score_table(state: State, names: Sequence[str]) -> Table:
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("")
    table.add_column("Player")
    table.add_column("Total", justify="right")
    table.add_column("Turns", justify="right")
    playing = None if state.phase in (Phase.ROLLOFF, Phase.OVER) else state.seat
    for seat, name in enumerate(names):
        marker = "▶" if seat == playing else ""
        style = "bold" if seat == playing else ""
        table.add_row(marker, name, str(state.scores[seat]), str(state.turns[seat]), style=style)
    return table


def turn_panel(state: State) -> Text:
    """The set-aside area: tanks against rays, the Earthlings, and what the turn is worth."""
    aside = state.set_aside
    tanks, rays = aside[Face.TANK], aside[Face.RAY]
    text = Text()
    text.append("Tanks ", style="red3")
    text.append(f"{tanks:>2} ", style="bold red3")
    text.append("▮" * tanks, style="red3")
    text.append("   vs   ")
    text.append("Rays ", style="green3")
    text.append(f"{rays:>2} ", style="bold green3")
    text.append("▮" * rays, style="green3")
    text.append("\nAbducted  ")
    for face in (Face.HUMAN, Face.COW, Face.CHICKEN):
        symbol, style = BADGES[face]
        text.append(f" {symbol} ", style=style)
        text.append(f" {NAMES[face]}s {aside[face] or '–'}   ")
    worth = state.turn_score
    status = "tanks lead: worth 0 now" if tanks > rays else f"worth {worth} now"
    text.append(f"\nDice left {state.dice_left}   ·   turn {status}", style="bold")
    return text


def render_board(console: Console, state: State, names: Sequence[str]) -> None:
    parts: list[Table | Text] = [score_table(state, names), Text(""), turn_panel(state)]
    if state.phase is Phase.CHOOSE and state.rolled is not None:
        rolled = Text("On the table  ")
        table_dice = (0, *state.rolled[1:])
        rolled.append_text(dice_text(table_dice))
        parts += [Text(""), rolled]
    parts += [Text(""), Text(commands_line(state), style="dim")]
    title = f"{names[state.seat]} to play · target {state.variant.target}"
    if state.end_triggered:
        title += " · last round"
    console.print(Panel(Group(*parts), title=title, title_align="left", expand=False))


def render_step(
    console: Console, before: State, action: object, after: State, names: Sequence[str]
) -> None:
    """One line per move, telling what happened; a turn's end gets its score."""
    who = names[before.roller]
    if before.phase is Phase.ROLLOFF and isinstance(action, Roll):
        line = Text(f"Roll-off: {acts(who, 'rolls')} ")
        line.append_text(dice_text(action.counts))
        line.append(f"→ {count(action[Face.RAY], Face.RAY)}", style="bold")
        console.print(line)
    elif isinstance(action, Roll):
        if before.set_aside == (0, 0, 0, 0, 0):
            console.rule("[bold]Your[/] turn" if who == "You" else f"[bold]{who}[/]'s turn")
        line = Text(f"{acts(who, 'rolls')} {action.dice}: ")
        line.append_text(dice_text(action.counts))
        if action[Face.TANK]:
            line.append(f"({count(action[Face.TANK], Face.TANK)} set aside)", style="red3")
        console.print(line)
    elif isinstance(action, Take):
        taken = before.rolled[action.face] if before.rolled else 0
        console.print(f"{acts(who, 'takes')} {count(taken, action.face)}.")
    elif isinstance(action, Continue):
        console.print(f"{acts(who, 'rolls')} again.")
    elif isinstance(action, Stop):
        console.print(f"{acts(who, 'stops')}.")
    if after.turns != before.turns and after.last_turn is not None:
        turn = after.last_turn
        reason = why(turn.set_aside, turn.reason.value)
        style = "bold green" if turn.score else "bold red"
        console.print(
            f"[{style}]{acts(names[turn.seat], 'scores')} {turn.score}[/] ({reason}); "
            f"total {after.scores[turn.seat]}."
        )
        if after.end_triggered and not before.end_triggered:
            console.print(
                f"[bold yellow]{names[turn.seat]} reached {after.variant.target}: "
                "the round is completed, then the game ends.[/]"
            )
    if after.phase is Phase.ROLLOFF and before.phase is not Phase.ROLLOFF:
        tied = " and ".join(names[s] for s in after.rolloff_seats)
        console.print(f"[bold yellow]Tie between {tied}: Death Ray roll-off![/]")
    elif before.phase is Phase.ROLLOFF and after.phase is Phase.ROLLOFF and not after.rolloff_rays:
        tied = " and ".join(names[s] for s in after.rolloff_seats)
        console.print(f"[yellow]Still tied: {tied} roll again.[/]")


def render_final(console: Console, state: State, names: Sequence[str]) -> None:
    table = Table(title="Final scores", header_style="bold")
    table.add_column("Place", justify="right")
    table.add_column("Player")
    table.add_column("Total", justify="right")
    table.add_column("Turns", justify="right")
    order = sorted(range(len(names)), key=lambda seat: state.placings()[seat])
    for seat in order:
        table.add_row(
            str(state.placings()[seat]),
            names[seat],
            str(state.scores[seat]),
            str(state.turns[seat]),
        )
    console.print(table)
    if state.variant.solo:
        console.print(f"[bold green]Target reached in {state.turns[0]} turns.[/]")
        return
    winners = " and ".join(names[seat] for seat in state.winners)
    verb = "share the win" if len(state.winners) > 1 else "wins"
    console.print(f"[bold green]{winners} {verb}![/]")


def takes(state: State) -> list[tuple[str, str]]:
    """Each face type that may be taken, with the letter a person types (k for chickens)."""
    return [(a.face.letter.lower(), a.text()) for a in state.legal_actions() if isinstance(a, Take)]


def commands_line(state: State) -> str:
    """The moves open right now, with their one-letter forms."""
    if state.phase is Phase.DECIDE:
        return f"s stop and score {state.turn_score} · g roll the {state.dice_left} dice left"
    options = " · ".join(f"{letter} {name}" for letter, name in takes(state))
    return f"take: {options} · ? help"


def help_text(state: State) -> str:
    if state.phase is Phase.DECIDE:
        return "Type [bold]s[/] (stop and score) or [bold]g[/] (roll the dice left again)."
    legal = ", ".join(f"[bold]{name}[/] ({letter})" for letter, name in takes(state))
    return f"Take one face type from the table: {legal}. 'quit' leaves the game."


def hint(state: State) -> str | None:
    """The solver's best move and every move's numbers: win chance (solo: expected turns to
    finish) and the turn's expected score."""
    from marsdice.solve.policy import analyze

    rows = analyze(state)
    if state.variant.solo:
        best = min(rows, key=lambda r: r.expected_turns or 0.0)
        parts = [f"{r.action.text()} {r.expected_turns:.2f} turns" for r in rows]
    else:
        best = max(rows, key=lambda r: r.win_probability or 0.0)
        parts = [f"{r.action.text()} {r.win_probability:.1%}" for r in rows]
    scores = " · ".join(f"{r.action.text()} {r.expected_score:.2f}" for r in rows)
    return f"best {best.action.text()} — {' · '.join(parts)} (expected turn score: {scores})"
