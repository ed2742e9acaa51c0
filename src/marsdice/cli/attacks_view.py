"""How Mars Attacks looks in the terminal: the face-up cards with their tracks, tokens, nukes
and abilities, the nuke limit, the dice, each player's cards, and the final scoring (the
:class:`~marsdice.cli.view.GameView` of :class:`~marsdice.attacks.game.MarsAttacks`).

Display only: every rule comes from the engine, and every line about a step is drawn from the
step's events. The view never shows a face-down card (the stacks' order, the card Memphis
brings out of the box).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from marsdice.attacks import (
    HELP,
    Ability,
    Card,
    Face,
    Kind,
    Outcome,
    Phase,
    State,
    Symbol,
    as_state,
    builtin_cards,
    load_cards,
)
from marsdice.attacks import events as ev
from marsdice.attacks.game import SYMBOL_WORDS, describe_turn, tie_break
from marsdice.attacks.variant import STACKS, SWITCHES, Variant
from marsdice.cli.args import int_range
from marsdice.core.game import GameState, Step
from marsdice.core.text import acts, whose

if TYPE_CHECKING:
    from marsdice.cli import attacks_view as _this
    from marsdice.cli.view import GameView

    _checked: GameView = _this

#: symbol and style per face: shape and colour both tell the faces apart
BADGES: Final = {
    Face.HEAD: ("☻", "bold black on green3"),
    Face.RAY: ("ϟ", "bold black on gold1"),
    Face.NUKE: ("☢", "bold white on red3"),
}
SYMBOL_MARKS: Final = {Symbol.RAY: "ϟ", Symbol.HEAD: "☻", Symbol.NUKE: "☢", Symbol.BUST: "✸"}
#: one colour per seat for tokens and names
SEAT_STYLES: Final = ("cyan", "magenta", "yellow", "bright_blue", "bright_green", "orange3")
_DECLINED: Final = {
    "boston": "do not use Boston",
    "seattle": "do not use Seattle",
    "denver": "accept the bomb (no Denver restart)",
}
#: what each switch means, for the option help
SWITCH_HELP: Final = {
    "difficulty": "difficulty card: easy adds 2 nukes to the limit, hard 1",
    "bombed": "what a bomb loses: the last roll (the rulebook) or the whole turn",
    "reroll": "reroll all heads showing, or any number of them",
    "seattle": "when Seattle's owner sets a die: at the start of the turn (the rulebook) or "
    "after declaring the target",
    "denver": "Denver restarts the whole turn (the rulebook) or goes back to the target",
}

RULES: Final = "\n".join(
    [
        "[bold]Mars Attacks: The Dice Game[/] — capture cities and monuments, most VP wins.",
        "",
        "[bold]Symbols[/]  ☻ Martian head   ϟ ray gun   ☢ nuke   ✸ a bomb (Las Vegas's track)   "
        "[green3]●[/] green card (a lasting power of its owner)   [red3]●[/] red card "
        "(works face-up or on capture)   * placeholder numbers",
        "",
        "[bold]The nuke limit[/] is the nuke symbols (☢) on every face-up card plus the "
        "difficulty card's (easy 2, hard 1). When the nukes you have locked this turn reach "
        "the limit you are [bold]bombed[/]: the turn ends and the last roll is lost. The limit "
        "changes when the face-up cards change.",
        "",
        "• Start of your turn: your green cards (Boston, Seattle), then New York.",
        "• Declare a target: any face-up card but Las Vegas. Your token on it counts.",
        "• Roll the 10 dice. Ray guns and nukes lock; heads stay showing.",
        "• Captured when your count reaches the card's number: ray guns for a city (nukes for "
        "Los Angeles), heads showing for a monument. The card's VP are yours; the turn ends.",
        "• Otherwise, against a city with heads showing, stop or reroll the heads — and you "
        "may switch to another face-up city. A monument gets one roll.",
        "• Stopping puts your token on the track at your count (4 tokens each).",
        "• When 2 stacks are empty the round is completed, then the game ends. Ties: more "
        "cards, then who reached the score first.",
        "",
        "Type [bold]@CARD[/] (or its stack's number, 1-4) to attack, [bold]g[/] or "
        "[bold]r[/] to reroll, [bold]s[/] to stop, "
        "[bold]pass[/] to skip an ability, [bold]?[/] for the moves open now, "
        "[bold]quit[/] to leave.",
    ]
)


# --- options -------------------------------------------------------------------------------------


def add_arguments(group: argparse._ArgumentGroup) -> None:
    """The Mars Attacks options; each defaults to None and the real default is in its help."""
    default = Variant(players=2)
    group.add_argument(
        "--cards",
        type=Path,
        metavar="FILE",
        default=None,
        help="a card file (JSON, the schema of docs/rules-attacks.md) instead of the shipped "
        "set, whose numbers are placeholders (default: the shipped set)",
    )
    for name, enum in SWITCHES.items():
        group.add_argument(
            f"--{name}",
            choices=[member.value for member in enum],
            default=None,
            help=f"{SWITCH_HELP[name]} (default {getattr(default, name).value})",
        )
    group.add_argument(
        "--end-stacks",
        type=int_range(1, STACKS),
        default=None,
        metavar="N",
        help="empty stacks that start the last round, 1-4 (rulebook 2, some reviews 1; "
        f"default {default.end_stacks})",
    )


def make_variant(args: argparse.Namespace, players: int) -> Variant:
    """The variant from the options, defaults for those not given; a bad card file raises
    before anything starts."""
    path: Path | None = getattr(args, "cards", None)
    switches = {
        name: value for name in SWITCHES if (value := getattr(args, name, None)) is not None
    }
    end_stacks: int | None = getattr(args, "end_stacks", None)
    return Variant.from_values(
        players,
        Variant().end_stacks if end_stacks is None else end_stacks,
        builtin_cards() if path is None else load_cards(path),
        switches,
    )


# --- pieces --------------------------------------------------------------------------------------


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


def letters_text(letters: str) -> Text:
    """Dice written as face letters (an event's ``faces``) as badges."""
    return dice_text(tuple(letters.count(face.letter) for face in Face))


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
    """The four stacks: each face-up card with everything printed on it and the tokens; a
    stack shows only its size below the top card."""
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
    difficulty = state.variant.difficulty
    on_cards = state.nuke_limit - difficulty.nukes
    text = Text("Nuke limit ", style="bold")
    text.append(str(state.nuke_limit), style="bold red3")
    text.append(
        f"  ({on_cards} on the face-up cards + {difficulty.nukes} {difficulty.value}): "
        "that many locked nukes bomb you",
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


def needs(state: State, seat: int, names: Sequence[str]) -> str | None:
    """In the last round, what a player still to play needs to lead: ``4 VP to pass Ann``;
    None outside the last round or when the player leads already."""
    if not state.end_triggered or state.is_terminal:
        return None
    others = [s for s in range(state.players) if s != seat]
    leader = max(others, key=lambda s: (state.ranking_key(s), -s))
    if state.ranking_key(seat) > state.ranking_key(leader):
        return None
    gap = state.scores[leader] - state.scores[seat]
    return f"{gap + 1} VP to pass {names[leader]}" + (f" ({gap} to tie on points)" if gap else "")


# --- the view's interface ------------------------------------------------------------------------


def render_board(console: Console, state: GameState, names: Sequence[str]) -> None:
    game = as_state(state)
    parts: list[Table | Text] = [cards_table(game, names), Text(""), limit_text(game)]
    dice = dice_panel(game)
    if dice is not None:
        parts += [dice]
    parts += [Text(""), players_table(game, names)]
    if any(c.placeholder for c in game.variant.cards):
        parts += [Text("* placeholder numbers: load the printed ones with --cards", style="dim")]
    parts += [Text(""), Text(commands_line(game), style="dim")]
    # the rules count rounds (every seat's turn once); the engine's turn number counts every
    # turn of the game, which "turn 7" in round 3 would misread
    title = f"{escape(names[game.seat])} to play · round {game.rounds}"
    if game.end_triggered:
        title += " · last round"
        need = needs(game, game.seat, names)
        if need:
            title += f": {escape(need)}"
    console.print(Panel(Group(*parts), title=title, title_align="left", expand=False))


def render_step(console: Console, step: Step, names: Sequence[str]) -> None:
    """A line per thing that happened, from the step's events; a turn's end gets its outcome."""
    after = as_state(step.after)
    cards = {card.slug: card for card in after.variant.cards}
    finished = iter(after.log[len(as_state(step.before).log) :])
    last_round = False
    for event in after.events:
        match event:
            case ev.TurnBegan(seat=seat, extra=extra):
                heading = f"[bold]{escape(whose(names[seat]))}[/] {'extra ' if extra else ''}turn"
                console.rule(heading)
            case ev.TargetDeclared(seat=seat, card=slug, token=token):
                c = cards[slug]
                text = f"{acts(names[seat], 'attack')} {c.name} (needs {c.requirement} "
                text += SYMBOL_WORDS[c.symbol] + (f", token on {token})" if token else ")")
                console.print(Text(text))
            case ev.Rolled(faces=faces, toronto=True):
                console.print(Text("Toronto's die shows ").append_text(letters_text(faces)))
            case ev.Rolled(seat=seat, faces=faces, set=seattle):
                line = Text(f"{acts(names[seat], 'roll')} {len(faces)}: ")
                if seattle:
                    line.append_text(letters_text(seattle)).append("+ ")
                console.print(line.append_text(letters_text(faces)))
            case ev.Rerolling(seat=seat, count=count, switch=switch):
                text = f"{acts(names[seat], 'reroll')} {count} head{'s' if count != 1 else ''}"
                if switch:
                    text += f", now attacking {cards[switch].name}"
                console.print(Text(text + "."))
            case ev.AbilityDeclined(seat=seat, ability=ability) if ability in _DECLINED:
                console.print(Text(f"{acts(names[seat], _DECLINED[ability])}.", style="dim"))
            case ev.SeattleUsed(seat=seat, face=letter):
                word = Face(_FACE_INDEX[letter]).word
                console.print(Text(f"{acts(names[seat], 'use')} Seattle: one die set to {word}."))
            case ev.TorontoUsed(seat=seat, face=letter):
                word = Face(_FACE_INDEX[letter]).word
                console.print(Text(f"{acts(names[seat], 'use')} Toronto: rerolls a {word}."))
            case ev.DenverRestarted(seat=seat, whole_turn=whole):
                again = "the whole turn starts again" if whole else "back to the target"
                console.print(Text(f"{acts(names[seat], 'use')} Denver: {again}."))
            case ev.BostonMoved(seat=seat, card=slug, value=value):
                console.print(
                    Text(
                        f"{acts(names[seat], 'use')} Boston: the token on {cards[slug].name} "
                        f"steps forward to {value}."
                    )
                )
            case ev.NewYorkBack(card=slug, value=value):
                name = cards[slug].name
                text = f"{name}: token back to {value}" if value else f"{name}: token removed"
                console.print(Text(text, style="italic"))
            case ev.MemphisPlaced(seat=seat, stack=stack):
                console.print(
                    Text(f"{acts(names[seat], 'choose')} stack {stack} for the card from the box.")
                )
            case ev.MemphisDrawn(stack=stack):
                console.print(Text(f"A card from the box goes face down under stack {stack}."))
            case ev.TurnEnded(outcome=outcome):
                result = next(finished, None)
                if result is not None:
                    style = _OUTCOME_STYLES.get(Outcome(outcome), "bold")
                    console.print(Text(describe_turn(after, result.events, names), style=style))
            case ev.EndTriggered():
                last_round = True
            case _:
                pass  # captures, bombs, tokens: in the turn's closing line
    if last_round:
        render_last_round(console, step, names)


_OUTCOME_STYLES: Final = {
    Outcome.CAPTURED: "bold green",
    Outcome.BOMBED: "bold red",
    Outcome.DETROIT: "bold red",
}
_FACE_INDEX: Final = {face.letter: face.value for face in Face}


def render_last_round(console: Console, step: Step, names: Sequence[str]) -> None:
    """The end is triggered: who still plays, and what each needs to take the lead."""
    before, after = as_state(step.before), as_state(step.after)
    console.print(
        Text(
            "Last round: the round is completed, then the game ends.",
            style="bold yellow",
        )
    )
    seats = range(before.seat + 1, after.players)
    if after.seat == before.seat and not after.is_terminal:
        seats = range(before.seat, after.players)
    for seat in seats:
        need = needs(after, seat, names)
        if need:
            console.print(Text(f"  {acts(names[seat], 'need')} {need}.", style="yellow"))


def render_final(console: Console, state: GameState, names: Sequence[str]) -> None:
    game = as_state(state)
    table = Table(title="Final scores", header_style="bold")
    table.add_column("Place", justify="right")
    table.add_column("Player")
    table.add_column("VP", justify="right")
    table.add_column("Cards", justify="right")
    table.add_column("Score reached", justify="right")
    table.add_column("Captured")
    placings = game.placings()
    for seat in sorted(range(len(names)), key=lambda s: placings[s]):
        reached = f"turn {game.reached[seat]}" if game.reached[seat] else "–"
        table.add_row(
            str(placings[seat]),
            seat_name(names, seat),
            str(game.scores[seat]),
            str(len(game.owned[seat])),
            reached,
            ", ".join(game.card(c).name for c in game.owned[seat]) or "–",
        )
    console.print(table)
    winners = [names[seat] for seat in game.winners]
    if len(winners) > 1:
        line = f"{', '.join(winners[:-1])} and {winners[-1]} share the win!"
    else:
        line = f"{acts(winners[0], 'win')}{tie_break(game)}!"
    console.print(Text(line, style="bold green"))


def commands_line(state: State) -> str:
    legal = state.legal_actions()
    shown = " · ".join(a.text() for a in legal[:8])
    more = " …" if len(legal) > 8 else ""
    return f"{HELP.get(state.phase, '')}\nnow: {shown}{more} · ? help · rules · quit"


def shortcut(state: GameState, text: str) -> str:
    """The keys of the web page typed here too (one scheme, docs/browser.md): ``g`` rolls
    again (as ``r`` does) and, when a card is to be chosen, a stack's number attacks its top
    card. Anything else is passed on as typed."""
    game = as_state(state)
    word = text.strip().lower()
    if word == "g":
        return "r"
    if word.isdigit() and game.phase is Phase.TARGET:
        number = int(word)
        if 1 <= number <= len(game.stacks) and game.stacks[number - 1]:
            return "@" + game.card(game.stacks[number - 1][0]).slug
    return text


def help_text(state: GameState) -> str:
    game = as_state(state)
    legal = ", ".join(f"[bold]{a.text()}[/]" for a in game.legal_actions())
    return (
        f"{HELP.get(game.phase, '')}.\nLegal now: {legal}.\n"
        "A unique start of a card's name is enough (@dal for Dallas); 'rules' shows the "
        "rules, 'quit' leaves the game."
    )


def rules_text() -> str:
    """A rules summary with a legend of the symbols, the nuke limit and the abilities."""
    abilities = "\n".join(
        f"  [{'green3' if a.green else 'red3'}]●[/] {a.value}: {a.summary}" for a in Ability
    )
    return f"{RULES}\n\n[bold]Abilities[/]\n{abilities}"


def hint(state: GameState) -> str | None:
    """The planner's move with its labelled numbers: at the target choice each card's
    expected value (in VP, progress and denial included), chance to capture, chance to be
    bombed and expected progress under its best play."""
    from marsdice.bots.attacks_planner import PlannerBot, estimates

    game = as_state(state)
    move = PlannerBot().choose(game).text()
    if game.phase is not Phase.TARGET:
        return f"planner suggests {move}"
    rows = sorted(estimates(game).items(), key=lambda item: -item[1][0])
    parts = [
        f"@{game.slug(card)}: expected value {value:.2f} VP, capture {cap:.0%}, "
        f"bombed {bomb:.0%}, progress {progress:.1f}"
        for card, (value, cap, bomb, progress) in rows[:4]
    ]
    return f"planner suggests {move} — per target, under its best play: " + " · ".join(parts)


#: this module as the registration's terminal view (:class:`marsdice.cli.view.GameView`)
VIEW: Final = sys.modules[__name__]
