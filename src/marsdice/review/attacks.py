"""Mars Attacks values for the review: the planner bot's estimates.

The planner (:mod:`marsdice.bots.attacks_planner`) values the ends of a turn (a capture, the
progress left on a card, a bombing) in a victory-point-like unit and plans the turn exactly
against those values with :mod:`marsdice.attacks.solver`. The review reads, for every legal
move of a decision, the solver's value of that move with the planner's play afterwards: the
same numbers the planner chooses from. They are **estimates**: the values of the turn's ends
are the planner's documented rules of thumb, not a solved game, so a loss here means "worse
than the planner's plan by its own measure".

Boston's step and Memphis's stack are chosen by rules of thumb outside the turn solver: those
decisions are ``unrated``. Memphis's draw has no luck figure.

The solver answers publicly only for the best move at a reroll point; the other moves'
values are read from its memoised recursion the way :meth:`TurnSolver._cluster` builds them
(checked against the public answers in ``tests/test_review.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

from marsdice.attacks import actions as act
from marsdice.attacks.cards import Symbol
from marsdice.attacks.phases import Phase
from marsdice.attacks.solver import Estimate, TurnSolver, solver_for
from marsdice.attacks.state import State, as_state
from marsdice.bots.attacks_planner import Values
from marsdice.core.game import JSON, Action, Game, GameState
from marsdice.review.model import PLANNER_VP, Choice, Method, Thresholds

#: the fool check's share: a move is a blunder when it throws away at least this share of
#: what the turn is worth at best (by the planner's estimate) ...
FOOL_SHARE: Final = 0.75
#: ... and at least this much in planner VP (the review's ``mistake`` threshold)
FOOL_MINIMUM: Final = PLANNER_VP.mistake

Dice = tuple[int, int, int]
#: the solver's figures of a line of play: value, P(capture), P(bombed), expected progress
Vec = tuple[float, float, float, float]


class AttacksValuator:
    """The planner's estimates of Mars Attacks moves and rolls."""

    estimate = True
    method: Method = "planner-estimate"
    unit = "planner VP (estimate)"
    higher_is_better = True
    thresholds: Thresholds = PLANNER_VP

    def values(self, state: GameState) -> list[tuple[Action, float | None]]:
        """Each legal move with the planner's value of the turn after it (``None``: the
        planner has no estimate for this kind of decision)."""
        return [
            (action, None if found is None else found.value) for action, found in estimates(state)
        ]

    def chance(self, before: GameState, outcome: Action) -> tuple[int, float, float] | None:
        """``(seat, value before, value after)`` of a roll under the planner's play."""
        s = as_state(before)
        if s.phase is Phase.MEMPHIS_DRAW or s.target is None:
            return None
        assert isinstance(outcome, act.Roll)
        values = Values(s)
        solver = solver_for(values.problem)
        goal = values.goals_index[s.target]
        fallback = values.fallback()
        fixed = [0, 0, 0]
        if s.phase is Phase.ROLL and s.set_face is not None:
            fixed[s.set_face] += 1
        base = (s.heads + fixed[0], s.rays + fixed[1], s.nukes + fixed[2])
        if s.phase is Phase.TORONTO_ROLL:
            first = s.rolls == 1

            def after(h: int, r: int, n: int) -> float:
                return solver._judge(h, r, n, goal, fallback, False, first)[0]
        else:
            first = s.rolls == 0

            def after(h: int, r: int, n: int) -> float:
                return solver._post_node(h, r, n, goal, fallback, values.toronto, first)[0]

        def worth(roll: act.Roll) -> float:
            a, b, c = roll.counts
            return after(base[0] + a, base[1] + b, base[2] + c)

        expected = math.fsum(float(p) * worth(as_roll(o)) for o, p in s.chance_outcomes())
        return s.seat, expected, worth(outcome)

    def blunders(self, state: GameState, choices: Sequence[Choice]) -> tuple[bool, ...]:
        """The fool check, calibrated on the estimates (docs/review.md, "The fool check").

        Within a turn (stop or reroll, Toronto, Seattle, Denver) the choices share one plan,
        so the review's ``blunder`` loss flags a move, as does throwing away
        :data:`FOOL_SHARE` of the turn's best value. A target choice weighs cards against
        each other by the planner's rules of thumb (a card's VP, a green power's worth, the
        value of a token): ordinary targets differ by up to 65% of the best one's value
        (measured over 220 seeded openings), so only a target that throws away
        :data:`FOOL_SHARE` of it is flagged (in the last round: the one card that could
        give the lead).
        """
        rated = [choice.value for choice in choices if choice.value is not None]
        if len(rated) < 2:
            return tuple(False for _ in choices)
        best = max(rated)
        target = as_state(state).phase is Phase.TARGET

        def flagged(loss: float | None) -> bool:
            if loss is None or loss < FOOL_MINIMUM:
                return False
            if best > 0 and loss >= FOOL_SHARE * best:
                return True
            return not target and loss >= self.thresholds.blunder

        return tuple(flagged(choice.loss) for choice in choices)

    def describe(self, state: GameState) -> str:
        """The position in words: the VP, the target and what it still needs, the dice, the
        decision (card names as printed, no notation or letter codes)."""
        s = as_state(state)
        where = "VP " + "–".join(map(str, s.scores)) + (" · last round" if s.end_triggered else "")
        doing = PHASE_WORDS.get(s.phase, s.phase.value)
        if s.target is None:
            return f"{where} · {doing}"
        card = s.card(s.target)
        need = card.requirement - s.token(s.seat, s.target)
        h, r, n = s.dice
        dice = ", ".join(
            _counted(count, face) for count, face in ((h, "head"), (r, "ray gun"), (n, "nuke"))
        )
        wants = _counted(need, SYMBOL_WORDS.get(card.symbol, card.symbol.value))
        return (
            f"{where} · {card.name} (needs {wants} more) · {dice}, "
            f"nuke limit {s.nuke_limit} · {doing}"
        )


#: what the player decides in each phase, in the review's words
PHASE_WORDS: Final = {
    Phase.TARGET: "choosing a target",
    Phase.DECIDE: "reroll or stop",
    Phase.SEATTLE: "Seattle's die",
    Phase.TORONTO: "Toronto's reroll",
    Phase.DENVER: "Denver's restart",
    Phase.BOSTON: "Boston's step",
    Phase.MEMPHIS: "Memphis's stack",
}
#: what a card counts, in words
SYMBOL_WORDS: Final = {
    Symbol.RAY: "ray gun",
    Symbol.HEAD: "head",
    Symbol.NUKE: "nuke",
    Symbol.BUST: "bombing",
}


def _counted(count: int, noun: str) -> str:
    """``1 head``, ``3 heads``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def estimates(state: GameState) -> list[tuple[Action, Estimate | None]]:
    """Each legal move with the planner's estimate of the turn after it: its value (what
    the review rates), the chances of a capture and of being bombed, the expected progress
    (``None``: no estimate for this kind of decision, Boston's step and Memphis's stack)."""
    s = as_state(state)
    legal = s.legal_actions()
    if s.phase in (Phase.BOSTON, Phase.MEMPHIS):
        return [(action, None) for action in legal]
    values = Values(s)
    solver = solver_for(values.problem)
    vector = _chooser(s, values, solver)
    out: list[tuple[Action, Estimate | None]] = []
    for action in legal:
        found = vector(action)
        out.append((action, None if found is None else Estimate.of(found)))
    return out


def _vec(estimate: Estimate) -> Vec:
    return (estimate.value, estimate.capture, estimate.bombed, estimate.progress)


def as_roll(outcome: object) -> act.Roll:
    assert isinstance(outcome, act.Roll)
    return outcome


def _chooser(s: State, values: Values, solver: TurnSolver) -> Callable[[Action], Vec | None]:
    """The function giving each legal move's figures in this decision (the value first)."""
    phase = s.phase
    fallback = values.fallback()
    goals = range(len(values.cards))

    def card_goal(slug: str) -> int:
        return next(g for g, card in enumerate(values.cards) if s.slug(card) == slug)

    if phase is Phase.TARGET:

        def target(action: Action) -> Vec | None:
            assert isinstance(action, act.Target)
            return _vec(solver.target_value(card_goal(action.card), s.set_face))

        return target
    if phase is Phase.SEATTLE:

        def seattle(action: Action) -> Vec | None:
            face = action.face if isinstance(action, act.SeattleSet) else None
            if s.target is None:  # before the declaration: the best target with that die
                return max((_vec(solver.first_roll(g, face)) for g in goals), key=_value)
            return _vec(solver.first_roll(values.goals_index[s.target], face))

        return seattle
    if phase is Phase.DENVER:

        def denver(action: Action) -> Vec | None:
            if action == act.RESTART:
                return _vec(solver.restart_value())
            return _vec(solver.bombed_value(fallback))

        return denver
    assert s.target is not None
    goal = values.goals_index[s.target]
    h, r, n = s.dice
    if phase is Phase.TORONTO:
        first = s.rolls == 1

        def toronto(action: Action) -> Vec | None:
            if isinstance(action, act.TorontoReroll):
                return solver._toronto(h, r, n, action.face, goal, fallback, first)
            return solver._judge(h, r, n, goal, fallback, True, first)

        return toronto
    assert phase is Phase.DECIDE
    return _decide_values(s, values, solver, goal, card_goal)


def _decide_values(
    s: State, values: Values, solver: TurnSolver, goal: int, card_goal: Callable[[str], int]
) -> Callable[[Action], Vec | None]:
    """Stop, or reroll ``k`` heads against a target: each option's value as the solver's
    reroll point computes it (the chance ``3**-k`` of all heads again brings the same dice
    back, worth the best play at that point)."""
    h, r, n = s.dice
    toronto = values.toronto
    fallback = values.fallback()
    current = solver.goals[goal]
    nodes = solver._cluster(h, r, n, toronto)
    if current.detroit:
        snapshot: tuple[float, int] = (0.0, 0)
        stop = solver._bombed(fallback)
    else:
        held = _count(current.symbol, (h, r, n))
        snapshot = (current.place[held], held)
        stop = solver._stop(h, r, n, goal, fallback)

    def decide(action: Action) -> Vec | None:
        if action == act.STOP:
            return stop
        assert isinstance(action, act.Reroll)
        k = h if action.count is None else action.count
        other = goal if action.switch is None else card_goal(action.switch)
        back = solver._back(h, r, n, other, snapshot, toronto)
        rest = solver._reroll_rest(h, r, n, k, other, snapshot, toronto)
        again: Vec
        if other in nodes:
            loop = nodes[other].best
            again = loop if back is None or back[0] < loop[0] else back
        else:
            assert back is not None
            again = back
        p = 3.0**-k
        return (
            rest[0] + p * again[0],
            rest[1] + p * again[1],
            rest[2] + p * again[2],
            rest[3] + p * again[3],
        )

    return decide


def _value(vec: Vec) -> float:
    return vec[0]


def _count(symbol: Symbol, dice: Dice) -> int:
    """The dice counted for a card of ``symbol`` (heads, rays or nukes; none for a bust)."""
    h, r, n = dice
    return {Symbol.RAY: r, Symbol.NUKE: n, Symbol.HEAD: h}.get(symbol, 0)


def valuator(game: Game, start: GameState) -> AttacksValuator:
    """The registration's valuator provider: the planner's estimates."""
    del game, start
    return AttacksValuator()


def advice_figures(state: GameState) -> dict[str, dict[str, JSON] | None]:
    """The registration's advice provider: the planner's estimates of each legal choice
    (value, chances to capture and to be bombed, expected progress), by notation."""
    return {
        action.text(): None
        if found is None
        else {
            "value": found.value,
            "capture_probability": found.capture,
            "bomb_probability": found.bombed,
            "expected_progress": found.progress,
        }
        for action, found in estimates(state)
    }
