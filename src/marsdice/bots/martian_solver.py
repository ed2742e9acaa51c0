"""Martian Dice bots that play from the exact solvers (:mod:`marsdice.solve`).

- :class:`ExpectedScoreBot` ("expected"): each turn, the policy with the highest expected
  score (3.1103817468 points a turn); it ignores the scoreboard.
- :class:`WinProbabilityBot` ("winprob"): the policy with the highest chance of winning the
  game -- exact with two players, and with three or four up to the rulebook's size
  (:func:`marsdice.solve.policy.exact_players`: the tables of :mod:`marsdice.solve.nplayer`);
  the documented approximation of :mod:`marsdice.solve.multi` for larger 3- and 4-player games
  and five or more players; the fewest expected turns solo.

Both decide from tables solved once and cached on disk; a decision then takes a few
milliseconds (a turn solve for the current scoreboard, memoised for the rest of the turn).

>>> from marsdice.martian import Roll, new_game
>>> state = new_game().apply(Roll.parse("TTHHHHRRCCCKK"))
>>> ExpectedScoreBot().choose(state).text()
'humans'
"""

from __future__ import annotations

from marsdice.core.game import GameState
from marsdice.martian.game import as_state
from marsdice.martian.rules import Variant
from marsdice.solve.multi import Combine
from marsdice.solve.policy import Decision, best_action, exact_players


class ExpectedScoreBot:
    """Maximises each turn's expected score."""

    name = "expected"

    def __init__(self, seed: int | None = None) -> None:
        del seed  # deterministic

    def choose(self, state: GameState) -> Decision:
        """The solver's move (TypeError for another game's state)."""
        return best_action(as_state(state), "expected")


class WinProbabilityBot:
    """Maximises the chance of winning (see the module docstring for 3+ players and solo)."""

    name = "winprob"

    def __init__(self, seed: int | None = None, combine: Combine = "min") -> None:
        del seed  # deterministic
        self.combine: Combine = combine

    def choose(self, state: GameState) -> Decision:
        """The solver's move (TypeError for another game's state)."""
        return best_action(as_state(state), "winprob", self.combine)


def solve_size(variant: object) -> int:
    """How big the tables the win-probability solvers build for a variant are: scoreboard
    positions (the target to the power of the players the exact tables cover: 1 solo, 2,
    3 or 4 within the exact limit, else the two-player tables the approximation reads) times
    the dice; the server's ``--max-solve`` caps it (rulebook 2 players: 25² x 13 = 8,125;
    3 players: 203,125; 4 players: 5,078,125)."""
    if not isinstance(variant, Variant):
        raise TypeError(f"not a Martian Dice variant: {variant!r}")
    if variant.solo:
        positions = variant.target
    elif exact_players(variant.players, variant.target, variant.dice):
        positions = variant.target**variant.players
    else:
        positions = variant.target**2
    return positions * variant.dice
