"""Decisions and analysis for engine states, derived on the fly from the solved tables.

At a decision the mover's *turn utility* (a value per final turn score) is read from the
tables, the turn is solved for it, and each legal action is valued by the row of the turn graph
it leads to. With two players every position's turn is solved once per process, in one batch
(:func:`two_player_turns`, a few tenths of a second), so a decision is a lookup -- when those
solutions fit in :data:`TWO_PLAYER_BUDGET` bytes (the default game takes 20 MB; 100 points with
20 dice would take 1 GB); otherwise, and with three or more players, the turn is solved when a
scoreboard is new (about 1.5 ms with 13 dice, 5 ms with 20) and memoised.

Modes:

- ``"expected"``: maximise the turn's expected score (utility = score);
- ``"winprob"``: maximise the chance of winning the game: exact for two players
  (:mod:`marsdice.solve.winprob`), for three and four up to the rulebook's size
  (:mod:`marsdice.solve.nplayer`, :func:`exact_players`), the approximation of
  :mod:`marsdice.solve.multi` for larger games and five or more, and for the solo challenge
  the least expected number of turns (:mod:`marsdice.solve.solo`). :func:`method_of` says
  which.

The analysis API (for ``marsdice analyze`` and the hint line):

- :func:`analyze` ``(state) -> list[ChoiceAnalysis]``: every legal action at a decision with
  its expected turn score (playing for score afterwards), win probability (playing to win
  afterwards; ``None`` solo) and, solo, the expected number of turns to finish;
- :func:`best_action` ``(state, mode) -> action``: what the solver bots play;
- :func:`turn_utility` ``(state, mode) -> array``: the utility the mover's turn is solved for.

>>> from marsdice.martian import Roll, Variant, new_game
>>> state = new_game(Variant(players=2)).apply(Roll.parse("TTHHHHRRCCCKK"))
>>> solution = expected_score_solution()
>>> [(action.text(), round(value, 3)) for action, value in action_values(state, solution)]
[('rays', 2.213), ('humans', 3.067), ('cows', 2.779), ('chickens', 2.418)]
>>> best_action(state, "expected")
Take(face=<Face.HUMAN: 2>)
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from typing import Final, Literal

import numpy as np

from marsdice.martian.rules import (
    CONTINUE,
    STOP,
    Continue,
    Face,
    Phase,
    State,
    Stop,
    Take,
    Variant,
    score_turn,
)
from marsdice.solve.ground import check_state
from marsdice.solve.model import FloatArray, TurnModel, node_of_counts, turn_model
from marsdice.solve.multi import Combine, turn_utility_multi
from marsdice.solve.nplayer import NPlayerTable, solve_nplayer
from marsdice.solve.progress import report
from marsdice.solve.solo import solo_table
from marsdice.solve.turn import TIE, TurnSolution, expected_score_solution, solve_turn
from marsdice.solve.winprob import all_position_utilities, position_columns, winprob_table

Mode = Literal["expected", "winprob"]
Decision = Take | Stop | Continue

#: Turn solutions kept per process (about 25 KB each).
CACHE_SIZE: Final = 2048
#: Columns solved together when all two-player positions are solved.
CHUNK: Final = 256
#: Largest size of :func:`two_player_turns` (bytes); bigger games solve turns as they come.
TWO_PLAYER_BUDGET: Final = 96 * 2**20

__all__ = [
    "ChoiceAnalysis",
    "Method",
    "Mode",
    "action_values",
    "analyze",
    "best_action",
    "exact_players",
    "exact_table",
    "method_of",
    "mover_solution",
    "position_method",
    "roll_value",
    "solution_for",
    "turn_utility",
    "two_player_turns",
    "two_player_turns_fit",
]


@dataclass(frozen=True, slots=True)
class ChoiceAnalysis:
    """One legal action at a decision and what it is worth.

    ``expected_score``: the turn's expected final score if this action is taken and the rest
    of the turn is played to maximise it. ``win_probability``: the chance to win the game if
    this action is taken and play goes on optimally (exact for 2 players, and for 3-4 within
    :func:`exact_players`; else the approximation, whose number is not a chance to win:
    :func:`method_of` says which; ``None`` in the solo challenge). ``expected_turns``: solo
    only, the expected number of turns to reach the target counting this one.
    """

    action: Decision
    expected_score: float
    win_probability: float | None
    expected_turns: float | None = None


def turn_utility(state: State, mode: Mode = "winprob", combine: Combine = "min") -> FloatArray:
    """The utility of each final score of the current turn for the player to move."""
    check_state(state, "turn_utility")
    variant = state.variant
    model = turn_model(variant.dice)
    if mode == "expected":
        return np.arange(model.max_score + 1, dtype=np.float64)
    if variant.solo:
        return solo_table(variant.target, variant.dice).after_turn(state.scores[0])
    if exact_players(variant.players, variant.target, variant.dice):
        exact = exact_table(variant.players, variant.target, variant.dice)
        try:
            return exact.turn_utility(state.scores, state.seat, triggered=state.end_triggered)
        except ValueError:  # an analysis position play cannot reach: the approximation
            pass
    table = winprob_table(variant.target, variant.dice)
    return turn_utility_multi(table, state.scores, state.seat, state.end_triggered, combine)


#: the largest game the exact 3- and 4-player tables are used for: the rulebook's (target 25,
#: 13 dice: a one-off solve of seconds for 3 players and a few minutes for 4 with the compiled
#: kernel, then read from the disk cache). The solve grows with the target to the power of the
#: players, so larger games, and five players or more, keep the two-player approximation.
EXACT_THREE_PLAYER_LIMIT: Final = (25, 13)
#: the numbers of players (beyond two) the exact tables are used for, up to that limit
EXACT_PLAYERS: Final = (3, 4)

#: how a number was computed: the exact tables for 2, 3 or 4 players, the approximation of
#: :mod:`marsdice.solve.multi`, or solo the fewest expected turns
Method = Literal["exact-2p", "exact-3p", "exact-4p", "approximation", "solo-expected-turns"]


def exact_players(players: int, target: int, dice: int) -> bool:
    """Whether a game of 3 or 4 players this size is played from the exact tables of
    :mod:`marsdice.solve.nplayer` (else the approximation of :mod:`marsdice.solve.multi`)."""
    max_target, max_dice = EXACT_THREE_PLAYER_LIMIT
    return players in EXACT_PLAYERS and target <= max_target and dice <= max_dice


def exact_three_players(target: int, dice: int) -> bool:
    """Whether a 3-player game this size is played from the exact tables."""
    return exact_players(3, target, dice)


def method_of(variant: Variant) -> Method:
    """Where the win probabilities (solo: expected turns) of a variant come from: the same
    choice :func:`turn_utility` makes (a position play cannot reach falls back to the
    approximation, see :func:`position_method`)."""
    if variant.solo:
        return "solo-expected-turns"
    if variant.players == 2:
        return "exact-2p"
    if exact_players(variant.players, variant.target, variant.dice):
        return "exact-3p" if variant.players == 3 else "exact-4p"
    return "approximation"


def position_method(state: State) -> Method:
    """:func:`method_of` for one position: an analysis position the exact tables do not hold
    (one play cannot reach) is valued by the approximation."""
    method = method_of(state.variant)
    if method in ("exact-3p", "exact-4p"):
        variant = state.variant
        exact = exact_table(variant.players, variant.target, variant.dice)
        try:
            exact.turn_utility(state.scores, state.seat, triggered=state.end_triggered)
        except ValueError:
            return "approximation"
    return method


@cache
def exact_table(players: int, target: int = 25, dice: int = 13) -> NPlayerTable:
    """The exact ``players``-player tables, once per process: from the disk cache, else solved
    with progress reported (see :mod:`marsdice.solve.progress`)."""
    what = f"exact {players}-player table, target {target}, {dice} dice"
    return solve_nplayer(
        players, target, dice, progress=lambda done, total: report(what, done, total)
    )


@cache
def three_player_table(target: int = 25, dice: int = 13) -> NPlayerTable:
    """The exact 3-player tables (:func:`exact_table` for three players)."""
    return exact_table(3, target, dice)


_solutions: OrderedDict[tuple[int, bytes], TurnSolution] = OrderedDict()


def solution_for(utility: FloatArray, dice: int = 13) -> TurnSolution:
    """The turn solved for a utility, memoised (least recently used first out)."""
    key = (dice, np.ascontiguousarray(utility, dtype=np.float64).tobytes())
    found = _solutions.get(key)
    if found is not None:
        _solutions.move_to_end(key)
        return found
    solution = solve_turn(utility, dice)
    _solutions[key] = solution
    if len(_solutions) > CACHE_SIZE:
        _solutions.popitem(last=False)
    return solution


def two_player_turns_fit(target: int = 25, dice: int = 13) -> bool:
    """Whether :func:`two_player_turns` stays within :data:`TWO_PLAYER_BUDGET`."""
    return two_player_turns_bytes(target, dice) <= TWO_PLAYER_BUDGET


def two_player_turns_bytes(target: int = 25, dice: int = 13) -> int:
    """The memory :func:`two_player_turns` takes (its values and choices)."""
    model = turn_model(dice)
    columns = 2 * target * target + model.max_score + 2
    return columns * (model.rows + model.node_count) * 8


@cache
def two_player_turns(target: int = 25, dice: int = 13) -> TurnSolution:
    """Every two-player position's turn solved at once (columns as in
    :func:`~marsdice.solve.winprob.position_columns`): about 20 MB, built once per process in
    a few tenths of a second, after which a two-player decision is a lookup."""
    utilities = all_position_utilities(winprob_table(target, dice))
    what = f"every two-player turn, target {target}, {dice} dice"
    total = utilities.shape[1]
    parts = []
    for start in range(0, total, CHUNK):
        report(what, start, total)
        parts.append(solve_turn(utilities[:, start : start + CHUNK], dice))
    report(what, total, total)
    values = np.hstack([part.values for part in parts])
    cont = np.hstack([part.cont for part in parts])
    return TurnSolution(parts[0].model, utilities, values, cont)


def _solution(state: State, mode: Mode, combine: Combine = "min") -> tuple[TurnSolution, int]:
    """The solved turn for the mover and the column to read."""
    variant = state.variant
    if mode == "expected":
        return expected_score_solution(variant.dice), 0
    if variant.players == 2 and two_player_turns_fit(variant.target, variant.dice):
        table = winprob_table(variant.target, variant.dice)
        seat = state.seat
        column = position_columns(
            table,
            seat,
            np.array(state.scores[seat]),
            np.array(state.scores[1 - seat]),
            np.array(state.end_triggered),
        )
        return two_player_turns(variant.target, variant.dice), int(column)
    return solution_for(turn_utility(state, mode, combine), variant.dice), 0


def mover_solution(
    state: State, mode: Mode = "winprob", combine: Combine = "min"
) -> tuple[TurnSolution, int]:
    """The solved turn of the player to move (or about to roll) and the column to read: the
    same solution :func:`best_action` and :func:`analyze` decide from (the game review values
    rolls with it)."""
    return _solution(state, mode, combine)


def roll_value(state: State, solution: TurnSolution, column: int = 0) -> float:
    """The value, under the solution's utility, of the roll about to be made in a Martian
    Dice ``roll`` phase (the mover's turn goes on with optimal play): the expectation over
    every roll of the value after it."""
    if state.phase is not Phase.ROLL:
        raise ValueError(f"no turn roll to value in phase {state.phase.value}")
    n, m, d, e = node_of_counts(state.set_aside, solution.model.dice)
    return _continue_value(solution.model, solution, column, n, m, d, e)


def action_values(
    state: State, solution: TurnSolution, column: int = 0
) -> list[tuple[Decision, float]]:
    """Each legal action at a decision with its value under the solution's utility (one
    column of it)."""
    model = solution.model
    n, m, d, e = node_of_counts(state.set_aside, model.dice)
    if state.phase is Phase.CHOOSE:
        rolled = state.rolled
        assert rolled is not None
        values: list[tuple[Decision, float]] = []
        for action in state.legal_actions():
            assert isinstance(action, Take)
            count = rolled[action.face]
            if action.face is Face.RAY:
                row = model.decide_row(n - count, m, d + count, e)
            else:
                row = model.decide_row(n - count, m + 1, d, e + count)
            values.append((action, solution.row_value(row, column)))
        return values
    if state.phase is Phase.DECIDE:
        stop = float(solution.utility[score_turn(state.set_aside), column])
        go = _continue_value(model, solution, column, n, m, d, e)
        return [(STOP, stop), (CONTINUE, go)]
    raise ValueError(f"no decision to make in phase {state.phase.value}")


def _continue_value(
    model: TurnModel, solution: TurnSolution, column: int, n: int, m: int, d: int, e: int
) -> float:
    if d < -n:  # tanks already won: the turn scores 0 whatever happens
        return float(solution.utility[0, column])
    return solution.continue_value(model.node_id(n, m, d, e), column)


def best_action(state: State, mode: Mode = "winprob", combine: Combine = "min") -> Decision:
    """The action optimal play takes (ties: the earlier legal action; stop over roll)."""
    check_state(state, "best_action")
    values = action_values(state, *_solution(state, mode, combine))
    if state.phase is Phase.DECIDE:
        (_, stop), (_, go) = values
        return CONTINUE if go > stop + TIE else STOP
    best, best_value = values[0]
    for action, value in values[1:]:
        if value > best_value + TIE:
            best, best_value = action, value
    return best


def analyze(state: State) -> list[ChoiceAnalysis]:
    """Every legal action at the current decision with its expected turn score and win
    probability (see :class:`ChoiceAnalysis`). The last position's analysis is kept: a
    position's advice reads it twice (its values, and the hints' figures)."""
    global _last_analysis
    known, rows = _last_analysis
    if known is not state:
        check_state(state, "analyze")
        rows = _analyze(state)
        _last_analysis = (state, rows)
    return list(rows)


#: the last position analysed and its analysis
_last_analysis: tuple[State | None, list[ChoiceAnalysis]] = (None, [])


def _analyze(state: State) -> list[ChoiceAnalysis]:
    scores = action_values(state, *_solution(state, "expected"))
    playing = action_values(state, *_solution(state, "winprob"))
    result = []
    for (action, score), (_, value) in zip(scores, playing, strict=True):
        if state.variant.solo:
            turns = 1.0 - value + state.turns[0]
            result.append(ChoiceAnalysis(action, score, None, turns))
        else:
            result.append(ChoiceAnalysis(action, score, value))
    return result
