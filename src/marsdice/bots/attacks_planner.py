"""A Mars Attacks player that plans each turn exactly with :mod:`marsdice.attacks.solver`.

Each decision builds the turn's :class:`~marsdice.attacks.solver.Problem` (what ending the turn
on each face-up card is worth) and follows the solver's best play. The values, in VP:

- capturing a card: its VP, plus :data:`EXTRA_TURN` for San Francisco and Indianapolis, plus
  a green card's :data:`GREEN` value scaled by the share of the game left, plus
  :data:`DENIAL` times the progress the other players lose from it, plus :data:`CARD`
  (cards break ties), less what the player's own token there was already worth;
- progress left on a card (a token at count ``c``): ``ALPHA * worth * p`` where ``worth`` is
  the card's capture value and ``p`` the best chance to capture it in one later turn from ``c``
  (:func:`~marsdice.attacks.solver.capture_probability`): a token is worth part of the turn it
  saves. New York's token counts one space lower (it slips back), Detroit takes none;
- a bombing: the step on Las Vegas's track, worth ``VEGAS * VP * step / requirement``, or the
  card itself on the last step;
- in the last round (the end is triggered: this turn is the player's last) progress is worth
  nothing and a capture is worth a lot only if it puts the player ahead of the current leader
  (:data:`ENDGAME`), so the planner plays to win rather than for points.

The planner reads only what players see: the face-up cards, tokens, owned cards and scores;
never the order of the face-down stacks.
"""

from __future__ import annotations

from typing import Final

from marsdice.attacks import actions as act
from marsdice.attacks.cards import Ability, Symbol
from marsdice.attacks.phases import Phase
from marsdice.attacks.solver import Goal, Problem, TurnSolver, capture_probability, solver_for
from marsdice.attacks.state import State, as_state
from marsdice.attacks.variant import BombedRule, RerollRule, SeattleRule
from marsdice.core.game import GameState

#: share of a card's worth that a token is worth, per unit of its capture chance (tuned in
#: seeded series against the heuristic bot: 0.3-0.5 play best, 0.6 and more overvalue progress)
ALPHA: Final = 0.45
#: an extra turn (San Francisco, Indianapolis), in VP: about what an average turn gains
EXTRA_TURN: Final = 1.5
#: green powers over a whole game, in VP (scaled by the share of the game left)
GREEN: Final = {
    Ability.SEATTLE: 1.2,
    Ability.TORONTO: 1.2,
    Ability.BOSTON: 0.8,
    Ability.DENVER: 0.6,
}
#: share of the other players' progress on a card that taking it from them is worth
DENIAL: Final = 0.3
#: a step on Las Vegas's track, as a share of its VP per step
VEGAS: Final = 0.5
#: a captured card's worth as a tie-breaker
CARD: Final = 0.05
#: a last-round capture that takes the lead
ENDGAME: Final = 10.0
#: the end-aware values the ``search`` bot plans with (``closing``; the planner's own are
#: without): a capture that would trigger the end (empty the last stack the end needs) ends
#: the player's game, so it counts as a loss (``-ENDGAME``) unless it puts the player ahead,
#: and it is worth this much more when it does (the game ends with the player ahead unless
#: one of the round's last turns overtakes)
CLOSING: Final = 5.0
#: an extra turn as the ``search`` bot's planner values it (``extra_turn``): twice the
#: planner's own. Screened against planners (``bench/bench_planner_constants.py``, seeds
#: 74-79, docs/research.md): the extra turn comes at once, a whole turn the others do not
#: get, and a San Francisco or Indianapolis that ends the game still gives it
SEARCH_EXTRA_TURN: Final = 3.0
#: the cards whose capture gives an extra turn (at once: even a capture that ends the game)
EXTRA_TURNS: Final = (Ability.SAN_FRANCISCO, Ability.INDIANAPOLIS)


class PlannerBot:
    """Exact turn planning against the documented values above."""

    name = "planner"

    def __init__(
        self,
        seed: int | None = None,
        endgame: bool = True,
        closing: float | None = None,
        extra_turn: float = EXTRA_TURN,
    ) -> None:
        del seed  # deterministic
        self.endgame = endgame
        #: the end-aware values (:data:`CLOSING`), or ``None``: the planner's own
        self.closing = closing
        #: what an extra turn (San Francisco, Indianapolis) is worth, in VP
        self.extra_turn = extra_turn

    def choose(self, state: GameState) -> act.Action:
        """The solver's best play for the seat to act (a Mars Attacks state only)."""
        s = as_state(state)
        phase = s.phase
        if phase is Phase.BOSTON:
            return self._boston(s)
        if phase is Phase.MEMPHIS:
            return self._memphis(s)
        values = self.values_for(s)
        solver = solver_for(values.problem)
        if phase is Phase.SEATTLE and s.target is None:  # before the target: the best face
            face = solver.best_opening_seattle()
            return act.PASS if face is None else act.SeattleSet(face)
        if phase is Phase.TARGET:
            return act.Target(s.slug(values.cards[solver.best_goal(s.set_face)]))
        goal = values.goals_index[_target(s)]
        if phase is Phase.SEATTLE:
            face = solver.best_seattle(goal)
            return act.PASS if face is None else act.SeattleSet(face)
        fallback = values.fallback()
        if phase is Phase.TORONTO:
            first = s.rolls == 1
            choice = solver.toronto_choice(s.dice, goal, fallback, first)
            return act.PASS if choice is None else act.TorontoReroll(choice)
        if phase is Phase.DENVER:
            again = solver.restart_value().value
            return act.RESTART if again > solver.bombed_value(fallback).value else act.PASS
        if phase is Phase.DECIDE:
            choice_ = solver.decide(s.dice, goal, fallback, values.toronto)
            if choice_ is None:
                return act.STOP
            count, other = choice_
            switch = None if other == goal else s.slug(values.cards[other])
            return s.normalize(act.Reroll(count, switch))
        raise ValueError(f"the planner has no move in phase {phase.value}")

    def _boston(self, state: State) -> act.Action:
        """Boston's step is free progress: take the step worth the most."""
        values = self.values_for(state)
        moves = [a for a in state.legal_actions() if isinstance(a, act.BostonMove)]
        if not moves:
            return act.PASS

        def gain(move: act.BostonMove) -> float:
            card = next(
                c for c in state.face_up if c is not None and state.card(c).slug == move.card
            )
            token = state.token(state.seat, card)
            worth = values.worth(card)
            need = state.card(card).requirement - token
            now = values.chance(card, need)
            step = values.chance(card, need - 1)
            return (
                values.progress(card, token + 1)
                - values.progress(card, token)
                + worth * (step - now) * (1 - ALPHA)
            )

        return max(moves, key=gain)

    def values_for(self, state: State) -> Values:
        """The turn's values as this planner sets them (the search ranks targets by them)."""
        return Values(state, endgame=self.endgame, closing=self.closing, extra_turn=self.extra_turn)

    @staticmethod
    def _memphis(state: State) -> act.Action:
        """Leading: make the game end sooner (the card under the longest stack); otherwise
        later (under the shortest)."""
        moves = [a for a in state.legal_actions() if isinstance(a, act.MemphisPlace)]
        scores = state.scores
        leading = scores[state.seat] >= max(scores)
        size = [len(state.stacks[a.stack - 1]) for a in moves]
        pick = size.index(max(size)) if leading else size.index(min(size))
        return moves[pick]


class Values:
    """The turn's problem for the seat to play, from what the players can see."""

    def __init__(
        self,
        state: State,
        endgame: bool = True,
        closing: float | None = None,
        extra_turn: float = EXTRA_TURN,
    ) -> None:
        self.state = state
        #: the end-aware values (:data:`CLOSING`), or ``None``: the planner's own
        self.closing = closing
        #: what an extra turn is worth, in VP (:data:`EXTRA_TURN`)
        self.extra_turn = extra_turn
        self.seat = state.seat
        self.final = state.end_triggered
        self.endgame = endgame and self.final
        variant = state.variant
        dealt = 4 * variant.players
        left = sum(len(stack) for stack in state.stacks)
        self.future = 0.0 if self.final else min(1.0, left / dealt)
        self.cards = state.targets()
        self.goals_index = {card: i for i, card in enumerate(self.cards)}
        seat = self.seat
        self.toronto = state.owns(seat, Ability.TORONTO) and not state.toronto_used
        goals = tuple(self._goal(card) for card in self.cards)
        self.problem = Problem(
            goals=goals,
            limit=state.nuke_limit,
            last_roll=variant.bombed is BombedRule.LAST_ROLL,
            subset=variant.reroll is RerollRule.SUBSET,
            bomb=self._bomb(),
            toronto=self.toronto,
            seattle=state.owns(seat, Ability.SEATTLE),
            denver=state.owns(seat, Ability.DENVER) and not state.denver_used,
            seattle_first=variant.seattle is SeattleRule.START,
        )

    # -- the values --

    def chance(self, card: int, need: int) -> float:
        """The best chance to capture ``card`` in one plain turn needing ``need`` more."""
        c = self.state.card(card)
        variant = self.state.variant
        return capture_probability(
            c.symbol,
            max(0, need),
            self.state.nuke_limit,
            variant.bombed is BombedRule.LAST_ROLL,
            variant.reroll is RerollRule.SUBSET,
        )

    def worth(self, card: int) -> float:
        """What capturing ``card`` is worth before denial and the player's own token."""
        state = self.state
        c = state.card(card)
        if self.endgame:
            return ENDGAME if self._takes_lead(c.vp) else CARD + 0.01 * c.vp
        value = c.vp + CARD
        if c.ability in EXTRA_TURNS:
            value += self.extra_turn
        elif c.ability in GREEN:
            value += GREEN[c.ability] * self.future
        return value

    def progress(self, card: int, count: int, seat: int | None = None) -> float:
        """What a token at ``count`` on ``card`` is worth to ``seat``."""
        state = self.state
        c = state.card(card)
        if count <= 0 or self.final or c.ability is Ability.DETROIT:
            return 0.0
        if c.symbol is Symbol.BUST:
            return VEGAS * c.vp * count / c.requirement
        if c.ability is Ability.NEW_YORK:
            count -= 1
            if count <= 0:
                return 0.0
        return ALPHA * self.worth(card) * self.chance(card, c.requirement - count)

    def _goal(self, card: int) -> Goal:
        state = self.state
        c = state.card(card)
        token = state.token(self.seat, card)
        need = c.requirement - token
        own = self.progress(card, token)
        denial = (
            0.0
            if self.endgame
            else DENIAL
            * sum(
                self.progress(card, state.token(other, card), other)
                for other in range(state.variant.players)
                if other != self.seat
            )
        )
        capture = self.worth(card) + denial - own
        if self._ends_game(card) and not self.endgame:
            capture -= GREEN.get(c.ability, 0.0) * self.future if c.ability else 0.0
            if self.closing is not None and c.ability not in EXTRA_TURNS:
                # the last capture of the game: the player takes no other turn
                lead = self._takes_lead(c.vp)
                capture = capture + self.closing if lead else -ENDGAME
        can_place = token > 0 or state.free_tokens(self.seat) > 0
        place = tuple(
            self.progress(card, token + d) - own if d and can_place else 0.0 for d in range(need)
        )
        return Goal(
            card=card,
            symbol=c.symbol,
            need=need,
            city=c.is_city,
            capture=capture,
            place=place,
            detroit=c.ability is Ability.DETROIT,
        )

    def _bomb(self) -> float:
        """A bombing's step on Las Vegas's track."""
        state = self.state
        vegas = state.face_up_with(Ability.LAS_VEGAS)
        if vegas is None:
            return 0.0
        steps = state.token(self.seat, vegas)
        if steps == 0 and not state.free_tokens(self.seat):
            return 0.0
        if steps + 1 >= state.card(vegas).requirement:
            return self.worth(vegas) - self.progress(vegas, steps)
        return self.progress(vegas, steps + 1) - self.progress(vegas, steps)

    def fallback(self) -> tuple[float, int]:
        """What the progress kept by a bombing (the count before the last roll) is worth."""
        state = self.state
        if state.fallback is None:
            return (0.0, 0)
        card, count = state.fallback
        if state.card(card).ability is Ability.DETROIT:
            return (0.0, 0)
        token = state.token(self.seat, card)
        if count <= token:
            return (0.0, 0)
        return (self.progress(card, count) - self.progress(card, token), count - token)

    def _takes_lead(self, vp: int) -> bool:
        """Whether ``vp`` more puts the player ahead of everyone as things stand."""
        state = self.state
        mine = (state.scores[self.seat] + vp, len(state.owned[self.seat]) + 1)
        return all(
            mine > (state.scores[other], len(state.owned[other]))
            for other in range(state.variant.players)
            if other != self.seat
        )

    def _ends_game(self, card: int) -> bool:
        """Whether taking ``card`` empties a stack that triggers the end."""
        state = self.state
        where = state.face_up.index(card)
        emptied = len(state.stacks[where]) == 1
        return emptied and state.empty_stacks + 1 >= state.variant.end_stacks


def estimates(state: GameState) -> dict[int, tuple[float, float, float, float]]:
    """Per face-up target card: (value, P(capture), P(bombed), expected progress) of declaring
    it now under the planner's values (Seattle's die as set, or set at best after the
    declaration), for displays and tests."""
    s = as_state(state)
    values = Values(s)
    solver: TurnSolver = solver_for(values.problem)
    out = {}
    for i, card in enumerate(values.cards):
        e = solver.target_value(i, s.set_face)
        out[card] = (e.value, e.capture, e.bombed, e.progress)
    return out


def _target(state: State) -> int:
    assert state.target is not None
    return state.target
