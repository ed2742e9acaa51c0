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
from typing import Final

from marsdice.core.errors import VariantError
from marsdice.core.game import JSON, Game, GameState, Variant

#: the adapters' own setting, next to the game's variant parameters
MAX_MOVES: Final = "max_moves"


def split_params(game: Game, params: Mapping[str, JSON]) -> tuple[Variant, int]:
    """The variant the parameters describe and the move cap (``max_moves``: 0 or missing is
    the default). Errors are the game's :class:`VariantError`, naming the field."""
    rest = dict(params)
    cap = rest.pop(MAX_MOVES, 0)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise VariantError(f"{MAX_MOVES} must be a whole number, 0 for the default, got {cap!r}")
    variant = game.variant_from_params(rest)
    return variant, cap or game.max_game_length(variant)


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
