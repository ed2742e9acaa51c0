"""Martian Dice as every layer above the engine sees it (:class:`marsdice.core.game.Game`):
settings as plain values, the opening, records and their commentary, player views, integer
encodings, and the names of its bots and terminal view.

>>> from marsdice.martian.rules import new_game, Variant
>>> state = new_game(Variant(players=2, target=4))
>>> moves = ["TTHHHHRRCCCKK", "humans", "roll", "TRRRCCK", "rays", "stop", "TTTTTTTTTTTTT"]
>>> record = GAME.make_record(("Ann", "Bob"), state, moves)
>>> print(GAME.dumps(record))  # doctest: +NORMALIZE_WHITESPACE
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
>>> GAME.replay(record)[-1].winners
(0,)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import cache
from math import comb
from typing import ClassVar, Final

from marsdice.core.dice import Counts, compositions
from marsdice.core.errors import IllegalActionError, RecordError, VariantError
from marsdice.core.game import (
    JSON,
    ChanceMode,
    Game,
    GameState,
    GameType,
    Information,
    JSONObject,
    Utility,
    viewer_seat,
    whole_number,
)
from marsdice.core.game import Action as GameAction
from marsdice.core.game import Variant as GameVariant
from marsdice.core.record import GameRecord
from marsdice.martian.events import RolloffRolled, TurnScored
from marsdice.martian.rules import (
    CONTINUE,
    FACES,
    MAX_DICE,
    MAX_PLAYERS,
    MAX_TARGET,
    STOP,
    Continue,
    Face,
    Phase,
    Roll,
    RolloffMode,
    State,
    Stop,
    Take,
    Variant,
    new_game,
)

#: record tags holding the variant (the player count is the number of Player tags)
VARIANT_TAGS: Final = ("Target", "Dice", "RolloffDice", "RolloffMode")
#: the settings' names, as :meth:`MartianDice.variant_to_params` writes them
PARAMS: Final = ("players", "target", "dice", "rolloff_dice", "rolloff_mode")
#: the fixed player-action space: its index is the encoding
ACTIONS: Final[tuple[Take | Stop | Continue, ...]] = (
    Take(Face.RAY),
    Take(Face.HUMAN),
    Take(Face.COW),
    Take(Face.CHICKEN),
    STOP,
    CONTINUE,
)

#: Martian Dice hides nothing; chance is the dice, rolled at explicit chance nodes
GAME_TYPE: Final = GameType(
    information=Information.PERFECT,
    chance=ChanceMode.EXPLICIT,
    utility=Utility.SHARED_WIN,
    hidden_setup=False,
)


class MartianDice(Game):
    """Martian Dice: 1-10 players (1 = the solo challenge), no hidden information."""

    name: ClassVar[str] = "martian"
    title: ClassVar[str] = "Martian Dice"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = MAX_PLAYERS
    game_type: ClassVar[GameType] = GAME_TYPE

    # -- variants --

    def default_variant(self, players: int) -> Variant:
        """The rulebook game for this many players."""
        return Variant(players=players)

    def variant_to_params(self, variant: GameVariant) -> JSONObject:
        """The settings as JSON-ready values.

        >>> GAME.variant_to_params(Variant(players=3))
        {'players': 3, 'target': 25, 'dice': 13, 'rolloff_dice': 6, 'rolloff_mode': 'repeat'}
        """
        v = as_variant(variant)
        return {
            "players": v.players,
            "target": v.target,
            "dice": v.dice,
            "rolloff_dice": v.rolloff_dice,
            "rolloff_mode": v.rolloff_mode.value,
        }

    def variant_from_params(self, params: Mapping[str, JSON]) -> Variant:
        """Settings from plain values; missing ones take the defaults.

        >>> GAME.variant_from_params({"players": 3, "target": 30}).target
        30
        >>> GAME.variant_from_params({"dice": "13"})
        Traceback (most recent call last):
        ...
        marsdice.core.errors.VariantError: dice must be a whole number, got '13'
        """
        for key in params:
            if key not in PARAMS:
                raise VariantError(
                    f"{key} is not a {self.title} setting: use {', '.join(PARAMS)}", key
                )
        default = Variant()
        return Variant(
            players=_int_param(params, "players", default.players),
            target=_int_param(params, "target", default.target),
            dice=_int_param(params, "dice", default.dice),
            rolloff_dice=_int_param(params, "rolloff_dice", default.rolloff_dice),
            rolloff_mode=_mode_param(params, default.rolloff_mode),
        )

    def variant_schema(self) -> JSONObject:
        """Every setting with its rulebook default and the limits :class:`Variant` checks.

        >>> GAME.variant_schema()["properties"]["target"]
        {'type': 'integer', 'default': 25, 'minimum': 1, 'maximum': 100}
        """
        default = Variant()

        def whole(value: int, top: int) -> JSONObject:
            return {"type": "integer", "default": value, "minimum": 1, "maximum": top}

        modes: list[JSON] = [mode.value for mode in RolloffMode]
        return {
            "type": "object",
            "properties": {
                "players": whole(default.players, MAX_PLAYERS),
                "target": whole(default.target, MAX_TARGET),
                "dice": whole(default.dice, MAX_DICE),
                "rolloff_dice": whole(default.rolloff_dice, MAX_DICE),
                "rolloff_mode": {
                    "type": "string",
                    "default": default.rolloff_mode.value,
                    "enum": modes,
                },
            },
            "additionalProperties": False,
        }

    # -- play --

    def start(self, variant: GameVariant, rng: random.Random) -> State:
        """The opening state; Martian Dice has no hidden setup, so ``rng`` is unused."""
        del rng
        return new_game(as_variant(variant))

    def setup_tags(self, start: GameState) -> tuple[tuple[str, str], ...]:
        variant = as_state(start).variant
        return (
            ("Target", str(variant.target)),
            ("Dice", str(variant.dice)),
            ("RolloffDice", str(variant.rolloff_dice)),
            ("RolloffMode", variant.rolloff_mode.value),
        )

    def opening(self, record: GameRecord) -> State:
        """The opening of a recorded game; missing variant tags take the defaults."""
        if record.game != self.name:
            raise RecordError(f"not a {self.title} record: [Game {record.game!r}]")
        tags = record.tag_map
        default = Variant()
        try:
            variant = Variant(
                players=len(record.players),
                target=_int_tag(tags, "Target", default.target),
                dice=_int_tag(tags, "Dice", default.dice),
                rolloff_dice=_int_tag(tags, "RolloffDice", default.rolloff_dice),
                rolloff_mode=RolloffMode(tags.get("RolloffMode", default.rolloff_mode.value)),
            )
        except (VariantError, ValueError) as error:
            raise RecordError(f"bad variant in record: {error}") from error
        return new_game(variant)

    def describe_step(
        self, before: GameState, after: GameState, names: Sequence[str]
    ) -> str | None:
        """A line of commentary when a step finished a turn or a roll-off roll, else None."""
        del before
        for event in as_state(after).events:
            if isinstance(event, RolloffRolled):
                return f"roll-off: {names[event.seat]} rolls {event.rays} death rays"
            if isinstance(event, TurnScored):
                return (
                    f"{names[event.seat]} scores {event.score} ({score_reason(event)}), "
                    f"total {event.total}"
                )
        return None

    def result_text(self, state: GameState, names: Sequence[str]) -> str:
        """The Result tag: totals, then the winner(s) or what is pending."""
        game = as_state(state)
        totals = ", ".join(f"{n} {s}" for n, s in zip(names, game.scores, strict=True))
        if game.phase is Phase.OVER:
            if game.variant.solo:
                return f"{totals}: reached in {game.turns[0]} turns"
            winners = " and ".join(names[seat] for seat in game.winners)
            return f"{totals}: {winners} {'win' if len(game.winners) > 1 else 'wins'}"
        if game.phase is Phase.ROLLOFF:
            return f"{totals}: roll-off pending"
        return f"{totals}: unfinished"

    # -- views --

    def view_text(self, view: JSONObject, *, counters: bool = True) -> str:
        """The position a view shows, one line (:func:`marsdice.martian.encoding.view_text`)."""
        from marsdice.martian.encoding import view_text

        return view_text(view, counters=counters)

    def observe(self, state: GameState, viewer: int | None) -> JSONObject:
        """Everything on the table (Martian Dice hides nothing); ``legal_actions`` only for
        the viewer to act.

        >>> view = GAME.observe(new_game(), None)
        >>> view["phase"], view["current_player"], view["board"]["dice_left"]
        ('roll', -1, 13)
        """
        game = as_state(state)
        viewer = viewer_seat(viewer, game.players)
        variant = game.variant
        aside = game.set_aside
        playing = game.phase in (Phase.ROLL, Phase.CHOOSE, Phase.DECIDE)
        board: JSONObject = {
            "faces": [face.plural for face in FACES],
            "seat": game.seat if playing else None,
            "target": variant.target,
            "dice": variant.dice,
            "rolled": list(game.rolled) if game.rolled is not None else None,
            "set_aside": list(aside),
            "tanks": aside[Face.TANK],
            "rays": aside[Face.RAY],
            "dice_left": game.dice_left if playing else 0,
            "turn_score": game.turn_score,
            "end_triggered": game.end_triggered,
            "reached_target": [
                seat for seat, score in enumerate(game.scores) if score >= variant.target
            ],
            "rolloff": {
                "seats": list(game.rolloff_seats),
                "rays": list(game.rolloff_rays),
                "roller": game.roller if game.phase is Phase.ROLLOFF else None,
                "dice": variant.rolloff_dice,
                "mode": variant.rolloff_mode.value,
                "history": [
                    {"seats": list(r.seats), "rays": list(r.rays)} for r in game.rolloff_history
                ],
            },
        }
        view = self.common_view(game, viewer)
        view["variant"] = self.variant_to_params(variant)
        view["phase"] = game.phase.value
        view["board"] = board
        return view

    def turn_seat(self, state: GameState) -> int | None:
        """The seat playing its turn (also while its dice roll), or rolling in a roll-off."""
        game = as_state(state)
        if game.phase is Phase.OVER:
            return None
        if game.phase is Phase.ROLLOFF:
            return game.roller
        return game.seat

    def next_seat(self, state: GameState) -> int | None:
        """The seat after this turn: none when the last round or a roll-off ends with it, or
        solo (always the same player)."""
        game = as_state(state)
        seat = self.turn_seat(game)
        if seat is None:
            return None
        if game.phase is Phase.ROLLOFF:
            waiting = game.rolloff_seats[len(game.rolloff_rays) + 1 :]
            return waiting[0] if waiting else None
        if game.players == 1:
            return None
        following = (seat + 1) % game.players
        return None if game.end_triggered and following == 0 else following

    def last_round(self, state: GameState) -> tuple[int, ...] | None:
        """Once a total reached the target: the seats from the one playing to the last (the
        round ends there); none left when the first seat is to play. Not in a roll-off."""
        game = as_state(state)
        if not game.end_triggered or game.phase in (Phase.OVER, Phase.ROLLOFF):
            return None
        return () if game.seat == 0 else tuple(range(game.seat, game.players))

    def tie_rule(self, state: GameState, seats: Sequence[int]) -> str:
        """Equal totals at the top are separated by the roll-off."""
        del state, seats
        return "rolloff"

    def turn_moves(self, variant: GameVariant) -> int:
        """At most one roll per die, each followed by a take and a stop-or-roll."""
        return 3 * as_variant(variant).dice

    # -- integer encodings --

    def num_actions(self, variant: GameVariant) -> int:
        """Six: take rays, humans, cows, chickens; stop; roll."""
        del variant
        return len(ACTIONS)

    def encode_action(self, state: GameState, action: GameAction) -> int:
        del state
        for index, known in enumerate(ACTIONS):
            if type(action) is type(known) and action == known:
                return index
        raise ValueError(f"{action.text()!r} is not a {self.title} player action")

    def decode_action(self, state: GameState, index: int) -> Take | Stop | Continue:
        del state
        if not 0 <= index < len(ACTIONS):
            raise ValueError(f"action index must be 0-{len(ACTIONS) - 1}, got {index}")
        return ACTIONS[index]

    def num_chance_outcomes(self, variant: GameVariant) -> int:
        """Every roll of n dice, for each n from 1 to the most dice ever rolled, n by n (each
        n's rolls in the order :meth:`State.chance_outcomes` lists them).

        >>> GAME.num_chance_outcomes(Variant(dice=2, rolloff_dice=1))
        20
        """
        return _offset(_most_dice(as_variant(variant)) + 1)

    def encode_chance(self, state: GameState, outcome: GameAction) -> int:
        most = _most_dice(as_state(state).variant)
        if not isinstance(outcome, Roll):
            raise IllegalActionError(f"{outcome.text()!r} is not a roll of {self.title} dice")
        n = outcome.dice
        if len(outcome.counts) != len(FACES) or min(outcome.counts) < 0 or not 1 <= n <= most:
            raise IllegalActionError(f"{outcome.text()!r} is not a roll of 1-{most} dice")
        return _offset(n) + _ranks(n)[outcome.counts]

    def decode_chance(self, state: GameState, index: int) -> Roll:
        most = _most_dice(as_state(state).variant)
        if not 0 <= index < _offset(most + 1):
            raise ValueError(f"chance index must be 0-{_offset(most + 1) - 1}, got {index}")
        n = 1
        while _offset(n + 1) <= index:
            n += 1
        return Roll(_rolls(n)[index - _offset(n)])

    def variant_of(self, state: GameState) -> Variant:
        return as_state(state).variant


GAME: Final = MartianDice()


def as_state(state: GameState) -> State:
    """A Martian Dice state, or TypeError for another game's."""
    if not isinstance(state, State):
        raise TypeError(f"not a Martian Dice state: {type(state).__name__}")
    return state


def as_variant(variant: GameVariant) -> Variant:
    """Martian Dice settings, or TypeError for another game's."""
    if not isinstance(variant, Variant):
        raise TypeError(f"not a Martian Dice variant: {type(variant).__name__}")
    return variant


def score_reason(event: TurnScored) -> str:
    """Why a turn scored what it did, for commentary: ``2 rays vs 3 tanks``,
    ``stopped, +3 bonus``, ``no choice``."""
    tanks, rays = event.set_aside[Face.TANK], event.set_aside[Face.RAY]
    if event.tanks_beat_rays:
        return f"{rays} rays vs {tanks} tanks"
    if event.bonus:
        return f"{event.reason.value}, +3 bonus"
    return event.reason.value


def _int_param(params: Mapping[str, JSON], key: str, default: int) -> int:
    value = params.get(key, default)
    whole = whole_number(value)
    if whole is None:
        raise VariantError(f"{key} must be a whole number, got {value!r}")
    return whole


def _mode_param(params: Mapping[str, JSON], default: RolloffMode) -> RolloffMode:
    value = params.get("rolloff_mode", default.value)
    try:
        if isinstance(value, str):
            return RolloffMode(value)
    except ValueError:
        pass
    modes = ", ".join(m.value for m in RolloffMode)
    raise VariantError(f"rolloff_mode must be one of {modes}, got {value!r}")


def _int_tag(tags: Mapping[str, str], key: str, default: int) -> int:
    value = tags.get(key)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise RecordError(f"tag {key} must be a whole number, got {value!r}") from None


def _most_dice(variant: Variant) -> int:
    return max(variant.dice, variant.rolloff_dice)


def _offset(n: int) -> int:
    """Index of the first roll of ``n`` dice: the rolls of 1..n-1 dice come before it."""
    return comb(n + len(FACES) - 1, len(FACES)) - 1


@cache
def _rolls(n: int) -> tuple[Counts, ...]:
    return tuple(compositions(n, len(FACES)))


@cache
def _ranks(n: int) -> dict[Counts, int]:
    return {counts: index for index, counts in enumerate(_rolls(n))}
