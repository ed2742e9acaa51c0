"""Exact solvers for Martian Dice, built on numpy (the engines never import this package).

- :mod:`~marsdice.solve.model`: the turn as a compact graph (635 positions for 13 dice).
- :mod:`~marsdice.solve.turn`: the turn solver for any utility of the final score
  (:func:`solve_turn`), the expected-score policy and the exact law of its score.
- :mod:`~marsdice.solve.winprob`: exact two-player win probabilities (:func:`winprob_table`).
- :mod:`~marsdice.solve.multi`: the 3+ player approximation built on the two-player tables.
- :mod:`~marsdice.solve.solo`: the fewest expected turns to reach the target.
- :mod:`~marsdice.solve.policy`: decisions and analysis for engine states (:func:`analyze`).
- :mod:`~marsdice.solve.batch`: numpy batch simulation of turns and games.
- :mod:`~marsdice.solve.match`: exact head-to-head values of two fixed strategies.
- :mod:`~marsdice.solve.ground`: exact values of any position of a tiny variant
  (:func:`position_value`, :func:`game_value`): the ground truth to check against.
- :mod:`~marsdice.solve.cache`: solved tables on disk, keyed by variant, self-healing.
- :mod:`~marsdice.solve.fixed`: safeguarded Newton steps for the 0-score fixed points.
- :mod:`~marsdice.solve.progress`: progress of long solves through a callback.

See ``docs/strategy.md`` for the results.
"""

from marsdice.solve.batch import GameStats, expected_chain, simulate_games, simulate_turns
from marsdice.solve.ground import PositionValue, game_value, position_value
from marsdice.solve.match import match_win_probability
from marsdice.solve.policy import ChoiceAnalysis, action_values, analyze, best_action, turn_utility
from marsdice.solve.solo import SoloTable, solo_table, solve_solo
from marsdice.solve.turn import (
    TurnSolution,
    expected_score_solution,
    score_distribution,
    solve_turn,
)
from marsdice.solve.winprob import WinTable, solve_winprob, winprob_table

__all__ = [
    "ChoiceAnalysis",
    "GameStats",
    "PositionValue",
    "SoloTable",
    "TurnSolution",
    "WinTable",
    "action_values",
    "analyze",
    "best_action",
    "expected_chain",
    "expected_score_solution",
    "game_value",
    "match_win_probability",
    "position_value",
    "score_distribution",
    "simulate_games",
    "simulate_turns",
    "solo_table",
    "solve_solo",
    "solve_turn",
    "solve_winprob",
    "turn_utility",
    "winprob_table",
]
