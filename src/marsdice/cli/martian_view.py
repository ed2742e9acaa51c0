"""How Martian Dice looks in the terminal: dice as coloured badges, the set-aside area with
tanks against rays, and the score table (the :class:`~marsdice.cli.view.GameView` of
:class:`~marsdice.martian.game.MartianDice`). Display only: every rule comes from the engine,
and every line about a step is drawn from the step's events."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from marsdice.cli.args import int_range
from marsdice.core.game import GameState, Step
from marsdice.core.text import acts, whose
from marsdice.martian import (
    FACES,
    MAX_DICE,
    MAX_TARGET,
    Face,
    Phase,
    RolloffMode,
    State,
    Take,
    TurnEnd,
    Variant,
)
from marsdice.martian.events import (
    Continued,
    LastRound,
    Rolled,
    RolloffBegun,
    RolloffRolled,
    Took,
    TurnScored,
)
from marsdice.martian.game import as_state, score_reason

if TYPE_CHECKING:
    from marsdice.cli import martian_view as _this
    from marsdice.cli.view import GameView

    _checked: GameView = _this

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
#: the person at the keyboard, in the default seating; verbs agree with it

RULES: Final = "\n".join(
    [
        "[bold]Martian Dice[/] — abduct Earthlings, but beat the tanks.",
        "",
        "• On your turn roll all {dice} dice. Tanks ([red3]▲[/]) are set aside at once.",
        "• Then take [bold]every[/] die of one face type from the roll: Death Rays (ϟ) as "
        "often as you like, but each Earthling type — humans (H), cows (C), chickens (K) — "
        "only once a turn.",
        "• Then stop, or roll the dice left again. The turn also ends when no face may be "
        "taken or no dice are left.",
        "• Score: one point per Earthling set aside, +3 with all three types — but nothing "
        "if the tanks outnumber your Death Rays.",
        "• Reaching {target} points ends the game once the round is complete: the players "
        "after you get a last turn. The highest total wins; a tie is settled by a Death Ray "
        "roll-off ({rolloff}).",
        "• Playing alone, reach the target in as few turns as you can.",
        "",
        "Type [bold]r h c k[/] to take rays, humans, cows or chickens, [bold]s[/] to stop, "
        "[bold]g[/] to roll again, [bold]?[/] for the moves open now, [bold]quit[/] to leave.",
    ]
)


# --- options -------------------------------------------------------------------------------


def add_arguments(group: argparse._ArgumentGroup) -> None:
    """The Martian Dice options; each defaults to None and the real default is in its help."""
    default = Variant()
    group.add_argument(
        "--target",
        type=int_range(1, MAX_TARGET),
        metavar="N",
        default=None,
        help=f"points that end the game, 1-{MAX_TARGET} (default {default.target})",
    )
    group.add_argument(
        "--dice",
        type=int_range(1, MAX_DICE),
        metavar="N",
        default=None,
        help=f"dice per turn, 1-{MAX_DICE} (default {default.dice})",
    )
    group.add_argument(
        "--rolloff-dice",
        type=int_range(1, MAX_DICE),
        metavar="N",
        default=None,
        help=f"dice in a tie roll-off, 1-{MAX_DICE} (default {default.rolloff_dice})",
    )
    group.add_argument(
        "--rolloff-mode",
        choices=[mode.value for mode in RolloffMode],
        default=None,
        metavar="MODE",
        help="repeat: the still-tied roll again; single: one roll-off, a tie in it shares the win "
        f"(default {default.rolloff_mode.value})",
    )


def make_variant(args: argparse.Namespace, players: int) -> Variant:
    """The variant from the options, defaults for those not given (VariantError if bad)."""
    default = Variant()

    def given(name: str, fallback: int) -> int:
        value: int | None = getattr(args, name, None)
        return fallback if value is None else value

    mode: str | None = getattr(args, "rolloff_mode", None)
    return Variant(
        players=players,
        target=given("target", default.target),
        dice=given("dice", default.dice),
        rolloff_dice=given("rolloff_dice", default.rolloff_dice),
        rolloff_mode=default.rolloff_mode if mode is None else RolloffMode(mode),
    )


# --- words ---------------------------------------------------------------------------------


def count(n: int, face: Face) -> str:
    """``1 tank``, ``2 tanks``."""
    return f"{n} {face.plural if n != 1 else face.plural[:-1]}"


def joined(names: Sequence[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cy``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def dice_text(counts: Sequence[int]) -> Text:
    """A roll or a set-aside area as badges, grouped by face."""
    text = Text()
    for face, n in zip(FACES, counts, strict=True):
        symbol, style = BADGES[face]
        for _ in range(n):
            text.append(f" {symbol} ", style=style)
        if n:
            text.append(" ")
    return text


def needs(state: State, seat: int, names: Sequence[str]) -> str | None:
    """In the last round, what a player still to play needs: ``7 to pass Ann (6 ties)``;
    None outside the last round or once the player is ahead."""
    if not state.end_triggered or state.phase not in (Phase.ROLL, Phase.CHOOSE, Phase.DECIDE):
        return None
    leader = max(range(state.players), key=lambda s: (state.scores[s], -s))
    gap = state.scores[leader] - state.scores[seat]
    if leader == seat or gap < 0:
        return None
    return f"{gap + 1} to pass {names[leader]} ({gap} ties)"


# --- the board -----------------------------------------------------------------------------


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
        table.add_row(
            marker, escape(name), str(state.scores[seat]), str(state.turns[seat]), style=style
        )
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


def render_board(console: Console, state: GameState, names: Sequence[str]) -> None:
    game = as_state(state)
    parts: list[Table | Text] = [score_table(game, names), Text(""), turn_panel(game)]
    if game.phase is Phase.CHOOSE and game.rolled is not None:
        rolled = Text("On the table  ")
        table_dice = (0, *game.rolled[1:])
        rolled.append_text(dice_text(table_dice))
        parts += [Text(""), rolled]
    parts += [Text(""), Text(commands_line(game), style="dim")]
    title = f"{escape(names[game.seat])} to play · target {game.variant.target}"
    if game.end_triggered:
        title += " · last round"
        need = needs(game, game.seat, names)
        if need:
            title += f": {escape(need)}"
    console.print(Panel(Group(*parts), title=title, title_align="left", expand=False))


# --- steps ---------------------------------------------------------------------------------


def render_step(console: Console, step: Step, names: Sequence[str]) -> None:
    """A line per thing that happened, from the step's events; a turn's end gets its score."""
    after = as_state(step.after)
    for event in after.events:
        match event:
            case Rolled(seat=seat, counts=counts, tanks=tanks, first=first):
                who = names[seat]
                if first:
                    heading = f"[bold]{escape(whose(who))}[/] turn"
                    need = needs(as_state(step.before), seat, names)
                    if need:
                        heading += f" · last round: {escape(need)}"
                    console.rule(heading)
                line = Text(f"{acts(who, 'roll')} {sum(counts)}: ")
                line.append_text(dice_text(counts))
                if tanks:
                    line.append(f"({count(tanks, Face.TANK)} set aside)", style="red3")
                console.print(line)
            case Took(seat=seat, face=face, count=n):
                console.print(Text(f"{acts(names[seat], 'take')} {count(n, face)}."))
            case Continued(seat=seat):
                console.print(Text(f"{acts(names[seat], 'roll')} again."))
            case TurnScored() as scored:
                render_score(console, scored, names)
            case LastRound() as last:
                render_last_round(console, last, after, names)
            case RolloffBegun(seats=seats, score=score, round=number):
                tied = joined([names[s] for s in seats])
                if number == 1:
                    message = f"Tie on {score} between {tied}: Death Ray roll-off!"
                    console.print(Text(message, style="bold yellow"))
                else:
                    console.print(Text(f"Still tied: {tied} roll again.", style="yellow"))
            case RolloffRolled(seat=seat, counts=counts, rays=rays):
                line = Text(f"Roll-off: {acts(names[seat], 'roll')} ")
                line.append_text(dice_text(counts))
                line.append(f"→ {count(rays, Face.RAY)}", style="bold")
                console.print(line)
            case _:
                pass  # a roll-off round decided, the game over: the next lines or the end screen


def render_score(console: Console, scored: TurnScored, names: Sequence[str]) -> None:
    who = names[scored.seat]
    if scored.reason is TurnEnd.STOPPED:
        console.print(Text(f"{acts(who, 'stop')}."))
    line = Text(
        f"{acts(who, 'score')} {scored.score}", style="bold green" if scored.score else "bold red"
    )
    line.append(f" ({score_reason(scored)}); total {scored.total}.", style="")
    console.print(line)


def render_last_round(
    console: Console, last: LastRound, state: State, names: Sequence[str]
) -> None:
    """Who reached the target, and what each player still to play needs."""
    score = f" with {last.score}" if last.score != last.target else ""
    console.print(
        Text(
            f"{acts(names[last.seat], 'reach')} the target of {last.target}{score}: "
            "the round is completed, then the game ends.",
            style="bold yellow",
        )
    )
    for seat in last.remaining:
        gap = last.score - state.scores[seat]
        console.print(
            Text(
                f"  {acts(names[seat], 'need')} {gap + 1} to pass {names[last.seat]} ({gap} ties).",
                style="yellow",
            )
        )


def render_final(console: Console, state: GameState, names: Sequence[str]) -> None:
    game = as_state(state)
    table = Table(title="Final scores", header_style="bold")
    table.add_column("Place", justify="right")
    table.add_column("Player")
    table.add_column("Total", justify="right")
    table.add_column("Turns", justify="right")
    places = game.placings()
    for seat in sorted(range(len(names)), key=lambda s: places[s]):
        table.add_row(
            str(places[seat]), escape(names[seat]), str(game.scores[seat]), str(game.turns[seat])
        )
    console.print(table)
    for number, rolloff in enumerate(game.rolloff_history, start=1):
        rolls = ", ".join(
            f"{names[s]} {count(r, Face.RAY)}"
            for s, r in zip(rolloff.seats, rolloff.rays, strict=True)
        )
        console.print(Text(f"Roll-off {number}: {rolls}"))
    if game.variant.solo:
        console.print(Text(f"Target reached in {game.turns[0]} turns.", style="bold green"))
        return
    winners = [names[seat] for seat in game.winners]
    if len(winners) > 1:
        console.print(Text(f"{joined(winners)} share the win!", style="bold green"))
    else:
        console.print(Text(f"{acts(winners[0], 'win')}!", style="bold green"))


# --- prompts -------------------------------------------------------------------------------


def takes(state: State) -> list[tuple[str, str]]:
    """Each face type that may be taken, with the letter a person types (k for chickens)."""
    return [(a.face.letter.lower(), a.text()) for a in state.legal_actions() if isinstance(a, Take)]


def commands_line(state: State) -> str:
    """The moves open right now, with their one-letter forms."""
    if state.phase is Phase.DECIDE:
        return f"s stop and score {state.turn_score} · g roll the {state.dice_left} dice left"
    options = " · ".join(f"{letter} {name}" for letter, name in takes(state))
    return f"take: {options} · ? help"


def help_text(state: GameState) -> str:
    game = as_state(state)
    if game.phase is Phase.DECIDE:
        return (
            "Type [bold]s[/] (stop and score) or [bold]g[/] (roll the dice left again); "
            "'rules' shows the rules, 'quit' leaves the game."
        )
    legal = ", ".join(f"[bold]{name}[/] ({letter})" for letter, name in takes(game))
    return f"Take one face type from the table: {legal}. 'rules' shows the rules, 'quit' leaves."


def rules_text() -> str:
    """A summary of the rules, with the default settings."""
    default = Variant()
    return RULES.format(
        dice=default.dice,
        target=default.target,
        rolloff=f"{default.rolloff_dice} dice, most Death Rays wins",
    )


def hint(state: GameState) -> str | None:
    """The solver's best move, then every move with its numbers labelled: the turn's expected
    points and the chance to win (exact for 2-4 players up to the rulebook's size; for larger
    games the approximation's rating, labelled as such; solo: the expected turns to reach the
    target). None when there is nothing to decide."""
    game = as_state(state)
    if game.phase not in (Phase.CHOOSE, Phase.DECIDE):
        return None
    from marsdice.solve.policy import ChoiceAnalysis, analyze, method_of

    rows = analyze(game)
    solo = game.variant.solo
    # the many-player approximation rates a move against the most dangerous opponent: not a
    # chance to win, and not called one
    value = "rating" if method_of(game.variant) == "approximation" else "chance to win"
    suffix = " (approximation)" if value == "rating" else ""

    def numbers(row: ChoiceAnalysis) -> str:
        if solo:
            return (
                f"expected points {row.expected_score:.2f}, "
                f"expected turns to finish {row.expected_turns or 0.0:.2f}"
            )
        return (
            f"expected points {row.expected_score:.2f}, "
            f"{value} {row.win_probability or 0.0:.1%}{suffix}"
        )

    if solo:
        best = min(rows, key=lambda r: r.expected_turns or 0.0)
    else:
        best = max(rows, key=lambda r: r.win_probability or 0.0)
    others = [f"{r.action.text()}: {numbers(r)}" for r in rows if r is not best]
    return " · ".join([f"best: {best.action.text()} — {numbers(best)}", *others])


#: this module as the registration's terminal view (:class:`marsdice.cli.view.GameView`)
VIEW: Final = sys.modules[__name__]
