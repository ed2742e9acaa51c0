"""How Mars Attacks looks in the terminal: the face-up cards with their tracks, tokens, nukes
and abilities, the nuke limit, the dice, each player's cards, and the final scoring.

Display only: every rule comes from the engine. The view never shows a face-down card (the
stacks' order, the card Memphis brings out of the box).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from marsdice.attacks import (
    HELP,
    Ability,
    BombedRule,
    BostonMove,
    Card,
    Difficulty,
    Draw,
    Face,
    Kind,
    MemphisPlace,
    Pass,
    Phase,
    Reroll,
    RerollRule,
    Restart,
    Roll,
    SeattleSet,
    State,
    Stop,
    Symbol,
    Target,
    TorontoReroll,
    Variant,
    builtin_cards,
    load_cards,
)
from marsdice.attacks.record import describe_turn, result_text

DEFAULT_OPPONENT: Final = "planner"

#: symbol and style per face: shape and colour both tell the faces apart
BADGES: Final = {
    Face.HEAD: ("☻", "bold black on green3"),
    Face.RAY: ("ϟ", "bold black on gold1"),
    Face.NUKE: ("☢", "bold white on red3"),
}
SYMBOL_WORDS: Final = {
    Symbol.RAY: "ray guns",
    Symbol.HEAD: "heads",
    Symbol.NUKE: "nukes",
    Symbol.BUST: "bombs",
}
SYMBOL_MARKS: Final = {Symbol.RAY: "ϟ", Symbol.HEAD: "☻", Symbol.NUKE: "☢", Symbol.BUST: "✸"}
#: one colour per seat for tokens and names
SEAT_STYLES: Final = ("cyan", "magenta", "yellow", "bright_blue", "bright_green", "orange3")
_PASSED: Final = {
    Phase.BOSTON: "does not use Boston",
    Phase.SEATTLE: "does not use Seattle",
    Phase.TORONTO: "keeps the dice (no Toronto reroll)",
    Phase.DENVER: "accepts the bomb (no Denver restart)",
}


# --- options -------------------------------------------------------------------------------------


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--cards",
        type=Path,
        metavar="FILE",
        help="a card file (JSON, the schema of docs/rules-attacks.md) instead of the shipped "
        "set, whose numbers are placeholders",
    )
    group.add_argument(
        "--difficulty",
        choices=[d.value for d in Difficulty],
        default=Difficulty.EASY.value,
        help="difficulty card: easy adds 2 nukes to the limit, hard 1",
    )
    group.add_argument(
        "--bombed",
        choices=[b.value for b in BombedRule],
        default=BombedRule.LAST_ROLL.value,
        help="what a bomb loses: the last roll (the rulebook) or the whole turn",
    )
    group.add_argument(
        "--reroll",
        choices=[r.value for r in RerollRule],
        default=RerollRule.ALL.value,
        help="reroll all heads showing, or any number of them",
    )
    group.add_argument(
        "--end-stacks",
        type=int,
        default=2,
        metavar="N",
        help="empty stacks that start the last round (rulebook 2, some reviews 1)",
    )


def make_variant(args: argparse.Namespace, players: int) -> Variant:
    """The variant from the parsed options; a bad card file raises before anything starts."""
    path: Path | None = getattr(args, "cards", None)
    cards = builtin_cards() if path is None else load_cards(path)
    return Variant(
        players=players,
        difficulty=Difficulty(getattr(args, "difficulty", Difficulty.EASY.value)),
        bombed=BombedRule(getattr(args, "bombed", BombedRule.LAST_ROLL.value)),
        reroll=RerollRule(getattr(args, "reroll", RerollRule.ALL.value)),
        end_stacks=getattr(args, "end_stacks", 2),
        cards=cards,
    )


# --- pieces --------------------------------------------------------------------------------------


def acts(name: str, verb: str) -> str:
    """``Zax rolls`` but ``You roll``."""
    return f"{name} {verb[:-1] if name == 'You' else verb}"


def seat_name(names: Sequence[str], seat: int) -> Text:
    return Text(names[seat], style=f"bold {SEAT_STYLES[seat % len(SEAT_STYLES)]}")


def dice_text(counts: Sequence[int]) -> Text:
    """Dice as badges grouped by face: heads, ray guns, nukes."""
    text = Text()
    for face, n in zip(Face, counts, strict=True):
        symbol, style = BADGES[face]
        for _ in range(n):
            text.append(f" {symbol} ", style=style)
        if n:
            text.append(" ")
    return text


def nukes_text(n: int) -> Text:
    return Text("☢" * n if n else "–", style="red3" if n else "dim")


def ability_text(card: Card) -> Text:
    if card.ability is None:
        return Text("")
    style = "green3" if card.ability.green else "red3"
    text = Text("● ", style=style)
    text.append(card.ability.summary, style=style)
    return text


def card_name(card: Card) -> Text:
    text = Text(card.name, style="bold")
    if card.kind is Kind.MONUMENT:
        text.append(" (monument)", style="dim")
    if card.placeholder:
        text.append("*", style="dim")
    return text


def track_text(state: State, card: int, names: Sequence[str]) -> Text:
    """The track: its requirement and symbol, each player's token on it."""
    c = state.card(card)
    text = Text(f"{c.requirement} {SYMBOL_MARKS[c.symbol]}")
    for seat in range(len(names)):
        value = state.token(seat, card)
        if value:
            text.append("  ")
            text.append(f"{names[seat]} {value}", style=SEAT_STYLES[seat % len(SEAT_STYLES)])
    return text


def cards_table(state: State, names: Sequence[str]) -> Table:
    """The four stacks: each face-up card with everything printed on it and the tokens."""
    table = Table(box=None, pad_edge=False, header_style="bold", title_justify="left")
    table.add_column("Stack", justify="right")
    table.add_column("Card")
    table.add_column("VP", justify="right")
    table.add_column("Nukes")
    table.add_column("Track: needs · tokens")
    table.add_column("Ability")
    for number, stack in enumerate(state.stacks, start=1):
        if not stack:
            table.add_row(f"{number} (0)", Text("empty", style="dim"), "", "", "", "")
            continue
        card = stack[0]
        c = state.card(card)
        name = card_name(c)
        if card == state.target and state.phase not in (Phase.TARGET, Phase.BOSTON):
            name.append("  ◀ target", style="bold reverse")
        table.add_row(
            f"{number} ({len(stack)})",
            name,
            str(c.vp),
            nukes_text(c.nukes),
            track_text(state, card, names),
            ability_text(c),
        )
    return table


def limit_text(state: State) -> Text:
    on_cards = state.nuke_limit - state.variant.difficulty.nukes
    text = Text("Nuke limit ", style="bold")
    text.append(str(state.nuke_limit), style="bold red3")
    text.append(
        f"  ({on_cards} on the face-up cards + {state.variant.difficulty.nukes} "
        f"{state.variant.difficulty.value})",
        style="dim",
    )
    return text


def dice_panel(state: State) -> Text | None:
    """This turn's dice and the count on the target, once there are dice on the table."""
    if state.target is None or (state.rolls == 0 and state.phase is not Phase.TORONTO):
        return None
    target = state.card(state.target)
    text = Text("Showing ")
    text.append_text(dice_text((state.heads, 0, 0)) if state.heads else Text("–  "))
    text.append("  Locked ")
    locked = dice_text((0, state.rays, state.nukes))
    text.append_text(locked if state.rays or state.nukes else Text("–"))
    text.append("\n")
    text.append(f"Nukes {state.nukes} of {state.nuke_limit}", style="bold red3")
    if target.symbol is Symbol.NUKE:
        text.append(" (Los Angeles: no bomb)", style="dim")
    text.append("   ·   ")
    text.append(
        f"{target.name}: count {state.count(state.target)} of {target.requirement} "
        f"{SYMBOL_WORDS[target.symbol]}",
        style="bold",
    )
    return text


def players_table(state: State, names: Sequence[str]) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("")
    table.add_column("Player")
    table.add_column("VP", justify="right")
    table.add_column("Cards")
    table.add_column("Free tokens", justify="right")
    playing = None if state.is_terminal else state.seat
    for seat in range(len(names)):
        owned = Text()
        for i, card in enumerate(state.owned[seat]):
            c = state.card(card)
            if i:
                owned.append(", ")
            green = c.ability is not None and c.ability.green
            owned.append(c.name, style="bold green3" if green else "")
        table.add_row(
            "▶" if seat == playing else "",
            seat_name(names, seat),
            str(state.scores[seat]),
            owned if state.owned[seat] else Text("–", style="dim"),
            str(state.free_tokens(seat)),
        )
    return table


# --- the view's interface ---------------------------------------------------------------------


def render_board(console: Console, state: State, names: Sequence[str]) -> None:
    parts: list[Table | Text] = [cards_table(state, names), Text(""), limit_text(state)]
    dice = dice_panel(state)
    if dice is not None:
        parts += [dice]
    parts += [Text(""), players_table(state, names)]
    if state.events:
        parts += [Text(""), Text(" · ".join(state.events), style="italic")]
    if any(c.placeholder for c in state.variant.cards):
        parts += [Text("* placeholder numbers: load the printed ones with --cards", style="dim")]
    parts += [Text(""), Text(commands_line(state), style="dim")]
    title = f"{names[state.seat]} to play · turn {state.turn}"
    if state.end_triggered:
        title += " · last round"
    console.print(Panel(Group(*parts), title=title, title_align="left", expand=False))


def render_step(
    console: Console, before: State, action: object, after: State, names: Sequence[str]
) -> None:
    """One line per move; the end of a turn gets its outcome."""
    who = names[before.seat]
    if turn_starts(before) and not isinstance(action, (Roll, Draw)):
        title = "[bold]Your[/] turn" if who == "You" else f"[bold]{who}[/]'s turn"
        console.rule(title)
        for event in before.events:
            console.print(f"[italic]{event}[/]")
    line = step_line(before, action, who)
    if line is not None:
        console.print(line)
    finished = after.log[len(before.log) :]
    for result in finished:
        text = describe_turn(after, result, names)
        style = "bold green" if result.captured else "bold red" if "bomb" in text else "bold"
        console.print(f"[{style}]{text}[/]")


def step_line(before: State, action: object, who: str) -> Text | str | None:
    """What one move did, in words."""
    match action:
        case Target():
            card = _card_by_slug(before, action.card)
            c = before.card(card)
            token = before.token(before.seat, card)
            text = f"{acts(who, 'attacks')} {c.name} (needs {c.requirement} "
            text += f"{SYMBOL_WORDS[c.symbol]}" + (f", token on {token})" if token else ")")
            return text
        case Roll() if before.phase is Phase.TORONTO_ROLL:
            line = Text("Toronto's die shows ")
            line.append_text(dice_text(action.counts))
            return line
        case Roll():
            line = Text(f"{acts(who, 'rolls')} {action.dice}: ")
            if before.set_face is not None:
                line.append_text(dice_text(tuple(int(f == before.set_face) for f in Face)))
                line.append("+ ")
            line.append_text(dice_text(action.counts))
            return line
        case Reroll():
            count = before.heads if action.count is None else action.count
            text = f"{acts(who, 'rerolls')} {count} head{'s' if count != 1 else ''}"
            if action.switch:
                text += f", now attacking {before.card(_card_by_slug(before, action.switch)).name}"
            return text + "."
        case Stop():
            return f"{acts(who, 'stops')}."
        case Pass() if before.phase is Phase.TORONTO:
            return None  # keeping the dice is the usual case: no line
        case Pass():
            return Text(f"{who} {_PASSED.get(before.phase, 'passes')}.", style="dim")
        case Restart():
            return f"{acts(who, 'uses')} Denver: the turn starts again."
        case SeattleSet():
            return f"{acts(who, 'uses')} Seattle: one die set to {action.face.word}."
        case TorontoReroll():
            return f"{acts(who, 'uses')} Toronto: rerolls a {action.face.word}."
        case BostonMove():
            c = before.card(_card_by_slug(before, action.card))
            return f"{acts(who, 'uses')} Boston: the token on {c.name} steps forward."
        case MemphisPlace():
            return f"{who} chooses stack {action.stack} for the card from the box."
        case Draw():
            return "A card from the box goes face down under the stack."
    return None


def turn_starts(state: State) -> bool:
    """Whether ``state`` is the first decision of a turn (not a Denver restart)."""
    if state.phase is Phase.BOSTON:
        return True
    restarted = any(e.startswith(("Denver", "Boston")) for e in state.events)
    return state.phase is Phase.TARGET and not restarted


def render_final(console: Console, state: State, names: Sequence[str]) -> None:
    table = Table(title="Final scores", header_style="bold")
    table.add_column("Place", justify="right")
    table.add_column("Player")
    table.add_column("VP", justify="right")
    table.add_column("Cards", justify="right")
    table.add_column("Score reached", justify="right")
    table.add_column("Captured")
    placings = state.placings()
    for seat in sorted(range(len(names)), key=lambda s: placings[s]):
        reached = f"turn {state.reached[seat]}" if state.reached[seat] else "–"
        table.add_row(
            str(placings[seat]),
            seat_name(names, seat),
            str(state.scores[seat]),
            str(len(state.owned[seat])),
            reached,
            ", ".join(state.card(c).name for c in state.owned[seat]) or "–",
        )
    console.print(table)
    console.print(f"[bold green]{result_text(state, names)}[/]")


def commands_line(state: State) -> str:
    legal = " · ".join(a.text() for a in state.legal_actions()[:8])
    more = " …" if len(state.legal_actions()) > 8 else ""
    return f"{HELP.get(state.phase, '')}\nnow: {legal}{more} · ? help · quit"


def help_text(state: State) -> str:
    phase_help = HELP.get(state.phase, "")
    legal = ", ".join(f"[bold]{a.text()}[/]" for a in state.legal_actions())
    return (
        f"{phase_help}.\nLegal now: {legal}.\n"
        "A unique start of a card's name is enough (@dal for Dallas); 'quit' leaves the game."
    )


def hint(state: State) -> str | None:
    """The planner's move, and at the target choice each card's chances under its play."""
    from marsdice.bots.attacks_planner import PlannerBot, estimates

    move = PlannerBot().choose(state).text()
    if state.phase is not Phase.TARGET:
        return f"planner: {move}"
    rows = sorted(estimates(state).items(), key=lambda item: -item[1][0])
    parts = [
        f"@{state.card(card).slug}: capture {cap:.0%}, bombed {bomb:.0%}, progress {progress:.1f}"
        for card, (_, cap, bomb, progress) in rows[:4]
    ]
    return f"planner: {move} — declaring (best play, switches included) " + " · ".join(parts)


def _card_by_slug(state: State, slug: str) -> int:
    return next(i for i, c in enumerate(state.variant.cards) if c.slug == slug)


__all__ = [
    "DEFAULT_OPPONENT",
    "Ability",
    "add_arguments",
    "help_text",
    "hint",
    "make_variant",
    "render_board",
    "render_final",
    "render_step",
]
