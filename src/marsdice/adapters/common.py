"""What the three research interfaces share besides the observation vectors: the variant
parameters with the adapters' one extra setting, and the move cap.

Neither game has a length limit: a Martian Dice player who never banks, or a Mars Attacks
table where nobody captures, plays forever, while OpenSpiel needs a finite
``max_game_length`` and reinforcement-learning loops need episodes that end. So every
adapter counts moves (player decisions and chance outcomes alike) and stops a game at
``max_moves``: OpenSpiel ends it there (the leaders by score share the win, solo: minus the
turns begun), PettingZoo and Gymnasium *truncate* it (``truncated``, no reward). The default
cap is the game's own bound, :meth:`~marsdice.core.game.Game.max_game_length`: a hundred
rounds' worth of its longest turns, far beyond any game sensible players (or random ones)
play. Standard library only.

>>> from marsdice.games import get_game
>>> variant, cap = split_params(get_game("martian"), {"players": 2, "target": 10, "max_moves": 0})
>>> variant.target, cap
(10, 7800)
>>> split_params(get_game("attacks"), {"players": 2})[1]
6000
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from marsdice.core.errors import VariantError
from marsdice.core.game import JSON, Action, Game, GameState, Variant, index_value

#: the adapters' own settings, next to the game's variant parameters
MAX_MOVES: Final = "max_moves"
#: whether observation vectors keep the turn counters (the default; ``False`` leaves them
#: out, so that a vector does not grow with the game's length)
TURN_COUNTERS: Final = "turn_counters"


@dataclass(frozen=True, slots=True)
class Settings:
    """A table's variant and the adapters' own settings."""

    variant: Variant
    max_moves: int
    turn_counters: bool = True


def settings(game: Game, params: Mapping[str, JSON]) -> Settings:
    """The variant the parameters describe, the move cap (``max_moves``: 0 or missing is
    the default) and ``turn_counters`` (default true). Errors are the game's
    :class:`VariantError`, naming the field.

    >>> from marsdice.games import get_game
    >>> settings(get_game("martian"), {"turn_counters": False}).turn_counters
    False
    >>> settings(get_game("martian"), {"turn_counters": "no"})
    Traceback (most recent call last):
    ...
    marsdice.core.errors.VariantError: turn_counters must be true or false, got 'no'
    >>> try:
    ...     settings(get_game("martian"), {"colour": "red"})
    ... except VariantError as error:
    ...     print(error.setting, "|", str(error).split(": use ")[1])
    colour | players, target, dice, rolloff_dice, rolloff_mode, max_moves, turn_counters
    """
    rest = dict(params)
    known = (*game.variant_to_params(game.variant_from_params({})), MAX_MOVES, TURN_COUNTERS)
    for key in rest:
        if key not in known:  # the game's settings and the adapters' own, all named
            raise VariantError(f"{key} is not a {game.title} setting: use {', '.join(known)}", key)
    cap = rest.pop(MAX_MOVES, 0)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise VariantError(f"{MAX_MOVES} must be a whole number, 0 for the default, got {cap!r}")
    counters = rest.pop(TURN_COUNTERS, True)
    if not isinstance(counters, bool):
        raise VariantError(f"{TURN_COUNTERS} must be true or false, got {counters!r}")
    variant = game.variant_from_params(rest)
    if cap:
        before = moves_before_a_decision(game, variant)
        if cap <= before:
            raise VariantError(
                f"{MAX_MOVES} must leave room for a decision: more than {before} (the moves "
                f"of the deal and the first roll), got {cap}"
            )
    return Settings(variant, cap or game.max_game_length(variant), counters)


def moves_before_a_decision(game: Game, variant: Variant) -> int:
    """The moves before a player first decides: the hidden setup's deal (as long whatever
    comes out) and the chance outcomes after it, each the likeliest one. A move cap
    at or below it would end every game (or some) before anybody plays.

    >>> from marsdice.games import get_game
    >>> moves_before_a_decision(get_game("martian"), get_game("martian").default_variant(2))
    1
    """
    moves = 0
    if game.game_type.hidden_setup:
        dealt: list[Action] = []
        while outcomes := game.setup_outcomes(variant, dealt):
            dealt.append(outcomes[0][0])
        moves = len(dealt)
        state = game.start_from_setup(variant, dealt)
    else:
        state = game.start(variant, random.Random(0))
    while state.is_chance_node and moves < 1_000:
        likeliest = max(state.chance_outcomes(), key=lambda outcome: outcome[1])
        state = state.apply(likeliest[0])
        moves += 1
    return moves


def action_index(action: object) -> int:
    """An action given to an environment as the index it is: a Python or numpy integer (a
    float, a string or a bool is refused: ``1.5`` is no action, and truncating it would
    play another).

    >>> action_index(3), action_index(True)
    Traceback (most recent call last):
    ...
    ValueError: an action is an integer index, got True (bool)
    """
    index = index_value(action)
    if index is None:
        raise ValueError(f"an action is an integer index, got {action!r} ({type(action).__name__})")
    return index


def seed_value(seed: object) -> int:
    """A seed given to ``reset`` as the whole number it is: a Python or numpy integer of 0 or
    more, as Gymnasium's seeding has it (a float, a string or a bool is refused).

    >>> seed_value(7)
    7
    >>> seed_value(-1)
    Traceback (most recent call last):
    ...
    ValueError: a seed is a whole number of 0 or more, got -1 (int)
    """
    whole = index_value(seed)
    if whole is None or whole < 0:
        raise ValueError(
            f"a seed is a whole number of 0 or more, got {seed!r} ({type(seed).__name__})"
        )
    return whole


def split_params(game: Game, params: Mapping[str, JSON]) -> tuple[Variant, int]:
    """The variant and the move cap of :func:`settings`."""
    found = settings(game, params)
    return found.variant, found.max_moves


def capped_returns(state: GameState) -> tuple[float, ...]:
    """Returns of a game stopped at the cap: the seats with the highest score share 1 (so
    the sum stays 1, as in a finished game); solo, minus the turns begun."""
    if state.players == 1:
        return (-float(state.rounds),)
    best = max(state.scores)
    leaders = [seat for seat, score in enumerate(state.scores) if score == best]
    return tuple(1.0 / len(leaders) if seat in leaders else 0.0 for seat in range(state.players))


def play_chance(
    state: GameState, rng: random.Random, moves: int, max_moves: int
) -> tuple[GameState, int]:
    """Roll (or draw) with ``rng`` until a player decides, the game ends or the cap is
    reached; the new state and move count. PettingZoo and Gymnasium hide chance this way."""
    while state.is_chance_node and moves < max_moves:
        state = state.apply(state.sample_chance(rng))
        moves += 1
    return state, moves
