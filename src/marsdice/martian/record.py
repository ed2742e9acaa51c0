"""Martian Dice as the CLI, tournaments and records see it: setup, records, replay, commentary.

This module is the game's entry in :mod:`marsdice.games` (see :class:`marsdice.games.GameModule`).

>>> from marsdice.martian.rules import new_game, Variant
>>> state = new_game(Variant(players=2, target=4))
>>> moves = ["TTHHHHRRCCCKK", "humans", "roll", "TRRRCCK", "rays", "stop", "TTTTTTTTTTTTT"]
>>> record = make_record(("Ann", "Bob"), state, moves)
>>> print(dumps(record))  # doctest: +NORMALIZE_WHITESPACE
[Game "martian"]
[Player1 "Ann"]
[Player2 "Bob"]
[Target "4"]
[Dice "13"]
[RolloffDice "6"]
[RolloffMode "repeat"]
[Result "Ann 4, Bob 0: Ann wins"]
<BLANKLINE>
TTHHHHRRCCCKK humans roll TRRRCCK rays stop ; Ann scores 4 (stopped), total 4
TTTTTTTTTTTTT ; Bob scores 0 (0 rays vs 13 tanks), total 0
<BLANKLINE>
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from marsdice.core.errors import RecordError, VariantError
from marsdice.core.record import GameRecord, commentary_lines, replay_moves
from marsdice.martian.rules import EARTHLINGS, Face, Phase, RolloffMode, State, Variant, new_game

GAME: Final = "martian"
TITLE: Final = "Martian Dice"
_VARIANT_TAGS: Final = ("Target", "Dice", "RolloffDice", "RolloffMode")


def default_variant(players: int) -> Variant:
    """The rulebook game for this many players."""
    return Variant(players=players)


def start(variant: Variant, rng: random.Random) -> State:
    """The opening state; Martian Dice has no hidden setup, so ``rng`` is unused."""
    del rng
    return new_game(variant)


def variant_tags(variant: Variant) -> tuple[tuple[str, str], ...]:
    return (
        ("Target", str(variant.target)),
        ("Dice", str(variant.dice)),
        ("RolloffDice", str(variant.rolloff_dice)),
        ("RolloffMode", variant.rolloff_mode.value),
    )


def variant_from_record(record: GameRecord) -> Variant:
    """The variant a record was played under; missing tags take the defaults."""
    if record.game != GAME:
        raise RecordError(f"not a {TITLE} record: [Game {record.game!r}]")
    tags = record.tag_map
    default = Variant()
    try:
        return Variant(
            players=len(record.players),
            target=_int(tags, "Target", default.target),
            dice=_int(tags, "Dice", default.dice),
            rolloff_dice=_int(tags, "RolloffDice", default.rolloff_dice),
            rolloff_mode=RolloffMode(tags.get("RolloffMode", default.rolloff_mode.value)),
        )
    except (VariantError, ValueError) as error:
        raise RecordError(f"bad variant in record: {error}") from error


def replay(record: GameRecord) -> list[State]:
    """Every state of the recorded game, from the opening to the last move."""
    return replay_moves(new_game(variant_from_record(record)), record.moves)


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
    base = GameRecord(GAME, tuple(players), variant_tags(variant), tuple(moves))
    final = replay(base)[-1]
    tags = (*base.tags, *extra_tags, ("Result", result_text(final, players)))
    return GameRecord(GAME, base.players, tags, base.moves)


def dumps(record: GameRecord) -> str:
    """The record's text, one turn (or roll-off roll) per line with a comment saying how it went."""
    return record.dumps(commentary_lines(replay(record), record.players, describe_step))


def describe_step(before: State, after: State, names: Sequence[str]) -> str | None:
    """A line of commentary when a move finished a turn or a roll-off roll, else ``None``."""
    if before.phase is Phase.ROLLOFF:
        rays = after.rolloff_rays[-1] if after.rolloff_rays else after.rolloff_history[-1].rays[-1]
        return f"roll-off: {names[before.roller]} rolls {rays} death rays"
    if after.turns != before.turns and after.last_turn is not None:
        turn = after.last_turn
        return (
            f"{names[turn.seat]} scores {turn.score} ({why(turn.set_aside, turn.reason.value)}), "
            f"total {after.scores[turn.seat]}"
        )
    return None


def why(set_aside: tuple[int, ...], reason: str) -> str:
    """A short reason for a turn's score."""
    tanks, rays = set_aside[Face.TANK], set_aside[Face.RAY]
    if tanks > rays:
        return f"{rays} rays vs {tanks} tanks"
    if all(set_aside[face] for face in EARTHLINGS):
        return f"{reason}, +3 bonus"
    return reason


def result_text(state: State, names: Sequence[str]) -> str:
    """The Result tag: totals, then the winner(s) or what is pending."""
    totals = ", ".join(f"{n} {s}" for n, s in zip(names, state.scores, strict=True))
    if state.phase is Phase.OVER:
        if state.variant.solo:
            return f"{totals}: reached in {state.turns[0]} turns"
        winners = " and ".join(names[seat] for seat in state.winners)
        return f"{totals}: {winners} {'win' if len(state.winners) > 1 else 'wins'}"
    if state.phase is Phase.ROLLOFF:
        return f"{totals}: roll-off pending"
    return f"{totals}: unfinished"


def _int(tags: Mapping[str, str], key: str, default: int) -> int:
    value = tags.get(key)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise RecordError(f"tag {key} must be a whole number, got {value!r}") from None
