"""Mars Attacks as the CLI, tournaments and records see it: setup, records, replay, commentary.

This module is the game's entry in :mod:`marsdice.games` (see :class:`marsdice.games.GameModule`).
The shuffle is setup drawn from the caller's generator and kept in the record as ``Stack`` tags,
so a replay deals the same cards; Memphis's draws from the box are moves like the dice.

>>> from marsdice.attacks.rules import new_game, Variant
>>> stacks = [["Miami", "Dallas"], ["Phoenix"], ["San Jose"], ["Atlanta"]]
>>> state = new_game(Variant(players=2), stacks)
>>> moves = ["@miami", "HHHHHRRRRN", "@phoenix", "HHHHHHHHRN", "stop"]
>>> print(dumps(make_record(("Ann", "Bob"), state, moves)))  # doctest: +NORMALIZE_WHITESPACE
[Game "attacks"]
[Player1 "Ann"]
[Player2 "Bob"]
[Difficulty "easy"]
[Bombed "last-roll"]
[Reroll "all"]
[EndStacks "2"]
[Cards "builtin"]
[Stack1 "miami,dallas"]
[Stack2 "phoenix"]
[Stack3 "san-jose"]
[Stack4 "atlanta"]
[Result "Ann 1 (1 card), Bob 0 (0 cards): unfinished"]
<BLANKLINE>
@miami HHHHHRRRRN ; Ann captures Miami (4 ray guns, needs 3): +1 VP, total 1
@phoenix HHHHHHHHRN stop ; Bob stops on Phoenix: token at 1
<BLANKLINE>
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from marsdice.attacks.cards import Card, CardError, Symbol, builtin_cards, card_from_tag, card_tag
from marsdice.attacks.rules import (
    STACKS,
    BombedRule,
    Difficulty,
    Outcome,
    RerollRule,
    State,
    TurnResult,
    Variant,
    deal,
    new_game,
)
from marsdice.core.errors import RecordError, VariantError
from marsdice.core.record import GameRecord, commentary_lines, replay_moves

GAME: Final = "attacks"
TITLE: Final = "Mars Attacks: The Dice Game"
_SYMBOL_WORDS: Final = {
    Symbol.RAY: "ray guns",
    Symbol.HEAD: "heads",
    Symbol.NUKE: "nukes",
    Symbol.BUST: "bombs",
}


def default_variant(players: int) -> Variant:
    """The seed's rules for this many players (2-6)."""
    return Variant(players=players)


def start(variant: Variant, rng: random.Random) -> State:
    """The opening state, the four stacks dealt from a shuffle drawn from ``rng``."""
    return new_game(variant, deal(variant, rng))


def variant_tags(variant: Variant) -> tuple[tuple[str, str], ...]:
    """The settings as record tags; a user's card set is written out card by card."""
    tags = [
        ("Difficulty", variant.difficulty.value),
        ("Bombed", variant.bombed.value),
        ("Reroll", variant.reroll.value),
        ("EndStacks", str(variant.end_stacks)),
    ]
    if variant.cards == builtin_cards():
        tags.append(("Cards", "builtin"))
    else:
        tags.append(("Cards", str(len(variant.cards))))
        tags += [(f"Card{i}", card_tag(card)) for i, card in enumerate(variant.cards, start=1)]
    return tuple(tags)


def stack_tags(state: State) -> tuple[tuple[str, str], ...]:
    """The deal: each stack's cards, top first, by name in notation."""
    return tuple(
        (f"Stack{i}", ",".join(state.card(c).slug for c in stack))
        for i, stack in enumerate(state.stacks, start=1)
    )


def variant_from_record(record: GameRecord) -> Variant:
    """The variant a record was played under; missing tags take the defaults."""
    if record.game != GAME:
        raise RecordError(f"not a {TITLE} record: [Game {record.game!r}]")
    tags = record.tag_map
    try:
        return Variant(
            players=len(record.players),
            difficulty=Difficulty(tags.get("Difficulty", Difficulty.EASY.value)),
            bombed=BombedRule(tags.get("Bombed", BombedRule.LAST_ROLL.value)),
            reroll=RerollRule(tags.get("Reroll", RerollRule.ALL.value)),
            end_stacks=_int(tags.get("EndStacks", "2"), "EndStacks"),
            cards=_cards(tags),
        )
    except (VariantError, ValueError) as error:
        raise RecordError(f"bad variant in record: {error}") from error


def opening(record: GameRecord) -> State:
    """The dealt opening position of a record."""
    variant = variant_from_record(record)
    tags = record.tag_map
    stacks = []
    for i in range(1, STACKS + 1):
        value = tags.get(f"Stack{i}")
        if value is None:
            raise RecordError(f"the record has no [Stack{i} ...] tag with the deal")
        stacks.append([name for name in value.split(",") if name])
    try:
        return new_game(variant, stacks)
    except VariantError as error:
        raise RecordError(f"bad deal in record: {error}") from error


def replay(record: GameRecord) -> list[State]:
    """Every state of the recorded game, from the opening to the last move."""
    return replay_moves(opening(record), record.moves)


def make_record(
    players: Sequence[str],
    start: State,
    moves: Iterable[str],
    extra_tags: Sequence[tuple[str, str]] = (),
) -> GameRecord:
    """A record of a game so far from its opening state; the Result tag comes from a replay."""
    variant = start.variant
    if len(players) != variant.players:
        raise RecordError(f"{variant.players} players in the variant but {len(players)} names")
    tags = (*variant_tags(variant), *stack_tags(start))
    base = GameRecord(GAME, tuple(players), tags, tuple(moves))
    final = replay(base)[-1]
    return GameRecord(
        GAME,
        base.players,
        (*tags, *extra_tags, ("Result", result_text(final, players))),
        base.moves,
    )


def dumps(record: GameRecord) -> str:
    """The record's text, one turn per line with a comment saying how it went."""
    return record.dumps(commentary_lines(replay(record), record.players, describe_step))


def describe_step(before: State, after: State, names: Sequence[str]) -> str | None:
    """A line of commentary when a move finished one or more turns, else ``None``."""
    finished = after.log[len(before.log) :]
    if not finished:
        return None
    return "; ".join(describe_turn(after, result, names) for result in finished)


def describe_turn(state: State, result: TurnResult, names: Sequence[str]) -> str:
    """One finished turn in words (``state`` is any later state, for card names and totals)."""
    who = names[result.seat]
    if result.outcome is Outcome.PASSED or result.target is None:
        return f"{who} has nothing to target"
    card = state.card(result.target)
    what = f"{result.count} {_SYMBOL_WORDS[card.symbol]}"
    if result.outcome is Outcome.CAPTURED:
        total = sum(state.card(c).vp for c in _owned_until(state, result))
        text = (
            f"{who} captures {card.name} ({what}, needs {card.requirement}): "
            f"+{card.vp} VP, total {total}"
        )
    elif result.outcome is Outcome.BOMBED:
        text = (
            f"{who} is bombed attacking {card.name} ({result.dice[2]} nukes, limit {result.limit})"
        )
    elif result.outcome is Outcome.DETROIT:
        text = f"{who} fails to take {card.name} in one turn ({what}): counts as bombed"
    elif result.token is not None:
        text = f"{who} stops on {card.name}: token at {result.token[1]}"
    else:
        text = f"{who} stops on {card.name} ({what}): nothing recorded"
    if result.token is not None and result.outcome is not Outcome.STOPPED:
        where, value = result.token
        text += f"; keeps progress: token on {state.card(where).name} at {value}"
    return "; ".join((text, *result.notes))


def _owned_until(state: State, result: TurnResult) -> Iterable[int]:
    """The cards the seat held right after the turn (later captures excluded)."""
    later = {
        card
        for other in state.log
        if other.seat == result.seat and other.turn > result.turn
        for card in other.captured
    }
    return (c for c in state.owned[result.seat] if c not in later)


def result_text(state: State, names: Sequence[str]) -> str:
    """The Result tag: totals with card counts, then the winner(s) and the tie-breaker used."""
    scores = state.scores
    totals = ", ".join(
        f"{name} {score} ({len(cards)} card{'' if len(cards) == 1 else 's'})"
        for name, score, cards in zip(names, scores, state.owned, strict=True)
    )
    if not state.is_terminal:
        return f"{totals}: unfinished"
    winners = " and ".join(names[seat] for seat in state.winners)
    verb = "win" if len(state.winners) > 1 else "wins"
    return f"{totals}: {winners} {verb}{_tie_break(state)}"


def _tie_break(state: State) -> str:
    best = max(state.scores)
    tied = [seat for seat, score in enumerate(state.scores) if score == best]
    if len(tied) < 2 or len(state.winners) > 1:
        return " (tied)" if len(state.winners) > 1 else ""
    most = max(len(state.owned[seat]) for seat in tied)
    if sum(1 for seat in tied if len(state.owned[seat]) == most) == 1:
        return " on cards"
    return " (reached the score first)"


def _cards(tags: Mapping[str, str]) -> tuple[Card, ...]:
    value = tags.get("Cards", "builtin")
    if value == "builtin":
        return builtin_cards()
    count = _int(value, "Cards")
    cards = []
    for i in range(1, count + 1):
        text = tags.get(f"Card{i}")
        if text is None:
            raise RecordError(f"[Cards {value!r}] but no [Card{i} ...] tag")
        try:
            cards.append(card_from_tag(text, i))
        except CardError as error:
            raise RecordError(f"tag Card{i}: {error}") from error
    return tuple(cards)


def _int(value: str, key: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise RecordError(f"tag {key} must be a whole number, got {value!r}") from None
