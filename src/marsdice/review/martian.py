"""Martian Dice values for the review, from the exact solvers.

Decisions are valued by :func:`marsdice.solve.policy.analyze` (what ``marsdice analyze``
prints): each legal move's win probability with optimal play afterwards (two players exact;
three and four players exact from the 3- and 4-player tables up to the rulebook's size, else
the approximation of :mod:`marsdice.solve.multi`, method ``approximation``), or solo the
expected number of turns to reach the target.

A turn roll is valued with the same solved turn the mover decides from: before the roll, the
value of rolling (:func:`marsdice.solve.policy.roll_value`, the expectation over every roll);
after it, the best move's value at the choice it leads to, or the utility of the turn's score
when the roll ended the turn. A roll-off roll is valued exactly: the roller's chance to win
the roll-off (a tie at the top later is worth ``1/k`` to each of the ``k`` tied players, in
both roll-off modes, by symmetry).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

from marsdice.core.game import JSON, Action, Game, GameState
from marsdice.martian.events import TurnScored
from marsdice.martian.game import as_state
from marsdice.martian.rules import Face, Phase, Roll, State, Variant
from marsdice.review.model import (
    SOLO_TURNS,
    WIN_PROBABILITY,
    Choice,
    Method,
    Thresholds,
    blunder_flags,
)
from marsdice.solve.policy import (
    action_values,
    analyze,
    method_of,
    mover_solution,
    roll_value,
    two_player_turns,
    two_player_turns_bytes,
)
from marsdice.solve.turn import expected_score_solution

_LETTERS: Final = "TRHCK"


def method_for(variant: Variant) -> Method:
    """How the review values this variant's decisions (the same tables the winprob bot
    plays from: :func:`marsdice.solve.policy.method_of`)."""
    return method_of(variant)


class MartianValuator:
    """Values of Martian Dice moves and rolls for one variant."""

    estimate = False

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.solo = variant.solo
        self.method: Method = method_for(variant)
        self.unit = "expected turns" if self.solo else "win probability"
        self.higher_is_better = not self.solo
        self.thresholds: Thresholds = SOLO_TURNS if self.solo else WIN_PROBABILITY

    def values(self, state: GameState) -> list[tuple[Action, float | None]]:
        """Each legal move with its value (win probability, or solo expected turns)."""
        out: list[tuple[Action, float | None]] = []
        for row in analyze(as_state(state)):
            value = row.expected_turns if self.solo else row.win_probability
            out.append((row.action, value))
        return out

    def chance(self, before: GameState, outcome: Action) -> tuple[int, float, float] | None:
        """``(seat, value before, value after)`` of a roll, for the seat whose dice they are."""
        state = as_state(before)
        assert isinstance(outcome, Roll)
        if state.phase is Phase.ROLLOFF:
            return state.roller, *_rolloff_values(state, outcome)
        solution, column = mover_solution(state)
        expected = roll_value(state, solution, column)
        after = state.apply(outcome)
        if after.phase is Phase.CHOOSE:
            got = max(value for _, value in action_values(after, solution, column))
        else:  # nothing to take: the roll ended the turn
            score = next(e.score for e in after.events if isinstance(e, TurnScored))
            got = float(solution.utility[score, column])
        if self.solo:  # the solver's solo value is minus the expected turns after this one
            base = state.turns[0] + 1
            return state.seat, base - expected, base - got
        return state.seat, expected, got

    def blunders(self, state: GameState, choices: Sequence[Choice]) -> tuple[bool, ...]:
        """The fool check: exact (or approximate) values, so the review's blunder mark."""
        del state
        return blunder_flags(self.thresholds, choices)

    def describe(self, state: GameState) -> str:
        """The position in one line: the scores, the dice set aside, the roll or the dice left."""
        s = as_state(state)
        where = "–".join(map(str, s.scores)) + (" · last round" if s.end_triggered else "")
        aside = _text(s.set_aside) or "nothing"
        if s.phase is Phase.CHOOSE:
            assert s.rolled is not None
            return f"{where} · aside {aside} · roll {_text(s.rolled)}"
        left = f"{s.dice_left} {'die' if s.dice_left == 1 else 'dice'} left"
        return f"{where} · aside {aside} ({s.turn_score} pt) · {left}"


def _text(counts: Sequence[int]) -> str:
    return "".join(letter * count for letter, count in zip(_LETTERS, counts, strict=True))


def _rolloff_values(state: State, outcome: Roll) -> tuple[float, float]:
    """The roller's chance to win the roll-off before and after their roll."""
    rays_of: dict[int, float] = {}
    for roll, p in state.chance_outcomes():
        rays_of[roll[Face.RAY]] = rays_of.get(roll[Face.RAY], 0.0) + float(p)
    # the other contenders: (their best rays, how many have it) -> probability
    others: dict[tuple[int, int], float] = {(-1, 0): 1.0}
    known = list(state.rolloff_rays)
    unknown = len(state.rolloff_seats) - len(known) - 1
    for rays in known:
        others = _add_rays(others, {rays: 1.0})
    for _ in range(unknown):
        others = _add_rays(others, rays_of)

    def chance(mine: int) -> float:
        total = 0.0
        for (best, count), p in others.items():
            if mine > best:
                total += p
            elif mine == best:
                total += p / (count + 1)
        return total

    before = math.fsum(p * chance(rays) for rays, p in rays_of.items())
    return before, chance(outcome[Face.RAY])


def _add_rays(
    others: dict[tuple[int, int], float], rays_of: dict[int, float]
) -> dict[tuple[int, int], float]:
    out: dict[tuple[int, int], float] = {}
    for (best, count), p in others.items():
        for rays, q in rays_of.items():
            key = (rays, 1) if rays > best else (best, count + (rays == best))
            out[key] = out.get(key, 0.0) + p * q
    return out


def valuator(game: Game, start: GameState) -> MartianValuator:
    """The registration's valuator provider: exact win probability (the 3+ player
    approximation, solo expected turns) for the start's variant."""
    del game
    return MartianValuator(as_state(start).variant)


#: the most memory a variant's tables may take to be built for in-place advice (the
#: rulebook's two-player game takes 20 MB)
IN_PLACE_BYTES: Final = 32 * 2**20


def advice_tables(variant: object) -> Callable[[], object] | None:
    """The registration's ``advice_tables``: for a two-player variant whose every turn,
    solved at once, fits in :data:`IN_PLACE_BYTES`, what builds those tables (after which
    a position's advice reads them: tens of microseconds); else None."""
    if not isinstance(variant, Variant):
        raise TypeError(f"not a Martian Dice variant: {variant!r}")
    target, dice = variant.target, variant.dice
    if variant.players != 2 or two_player_turns_bytes(target, dice) > IN_PLACE_BYTES:
        return None

    def build() -> object:
        expected_score_solution(dice)  # (the hints' expected turn scores)
        return two_player_turns(target, dice)

    return build


def advice_figures(state: GameState) -> dict[str, dict[str, JSON] | None]:
    """The registration's advice provider: each legal choice's figures for the hints panel
    (expected turn score, win probability, solo expected turns), by the choice's notation."""
    return {
        row.action.text(): {
            "expected_score": row.expected_score,
            "win_probability": row.win_probability,
            "expected_turns": row.expected_turns,
        }
        for row in analyze(as_state(state))
    }
