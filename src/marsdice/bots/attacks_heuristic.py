"""A Mars Attacks player of rules of thumb, no look-ahead: a fair opponent for people.

Target: the face-up card with the most VP times a rough chance to take it this turn (the
binomial chance that the dice, all pushed to the end, show enough of its symbol; halved when
the nuke limit is tight). Rerolling: keep going while the nukes are at least three short of
the limit (two with few heads left). Switch to another city when the ray guns already locked
would take it. Abilities: Seattle sets the (coming) target's symbol, Toronto rerolls a nuke
that bombs (or a die that leaves a monument one short), Denver always restarts, Boston steps
the token on the richest card, Memphis picks the first stack.
"""

from __future__ import annotations

from math import comb

from marsdice.attacks import actions as act
from marsdice.attacks.cards import Symbol
from marsdice.attacks.phases import Phase
from marsdice.attacks.state import State, as_state
from marsdice.attacks.variant import Face
from marsdice.core.game import GameState

_FACE_OF = {Symbol.RAY: Face.RAY, Symbol.HEAD: Face.HEAD, Symbol.NUKE: Face.NUKE}


class HeuristicBot:
    """Rules of thumb (see the module)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        del seed  # deterministic

    def choose(self, state: GameState) -> act.Action:
        """A move by the rules of thumb (a Mars Attacks state only)."""
        s = as_state(state)
        legal = s.legal_actions()
        phase = s.phase
        if phase is Phase.TARGET:
            return act.Target(s.slug(self._best_target(s)))
        if phase is Phase.BOSTON:
            moves = [a for a in legal if isinstance(a, act.BostonMove)]
            slugs = {s.slug(c): c for c in s.face_up if c is not None}
            return max(moves, key=lambda a: s.card(slugs[a.card]).vp, default=act.PASS)
        if phase is Phase.SEATTLE:
            target = self._best_target(s) if s.target is None else s.target
            return act.SeattleSet(_FACE_OF[s.card(target).symbol])
        if phase is Phase.TORONTO:
            return self._toronto(s)
        if phase is Phase.DENVER:
            return act.RESTART
        if phase is Phase.DECIDE:
            return self._decide(s)
        return legal[0]

    def _best_target(self, state: State) -> int:
        return max(state.targets(), key=lambda card: self._appeal(state, card))

    @staticmethod
    def _appeal(state: State, card: int) -> float:
        c = state.card(card)
        need = c.requirement - state.token(state.seat, card)
        p = 1 / 3 if c.symbol is Symbol.HEAD else 1 / 2
        chance = sum(comb(10, k) * p**k * (1 - p) ** (10 - k) for k in range(need, 11))
        if c.symbol is Symbol.RAY and state.nuke_limit < 6:
            chance /= 2
        return c.vp * chance + 0.1 * state.token(state.seat, card)

    @staticmethod
    def _toronto(state: State) -> act.Action:
        assert state.target is not None
        c = state.card(state.target)
        if c.symbol is not Symbol.NUKE and state.nukes >= state.nuke_limit:
            return act.TorontoReroll(Face.NUKE)
        if c.symbol is Symbol.HEAD and state.count(state.target) == c.requirement - 1:
            face = Face.NUKE if state.nukes else Face.RAY
            if state.dice[face]:
                return act.TorontoReroll(face)
        return act.PASS

    @staticmethod
    def _decide(state: State) -> act.Action:
        assert state.target is not None
        # a city the locked ray guns already take: switch to it and roll once more
        ready = [
            c
            for c in state.switch_targets()
            if state.card(c).symbol is Symbol.RAY and state.count(c) >= state.card(c).requirement
        ]
        margin = state.nuke_limit - state.nukes
        if state.card(state.target).symbol is Symbol.NUKE:
            margin = 99
        safe = margin >= 3 or (margin >= 2 and state.heads <= 3)
        if ready and margin >= 2:
            best = max(ready, key=lambda c: state.card(c).vp)
            return act.Reroll(None, state.slug(best))
        return act.Reroll() if safe else act.STOP
