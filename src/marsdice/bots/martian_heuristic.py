"""A cautious Martian Dice player people can beat: it fights tanks first and banks early."""

from __future__ import annotations

from marsdice.core.game import GameState
from marsdice.martian import CONTINUE, STOP, Continue, Face, Phase, State, Stop, Take
from marsdice.martian.game import as_state


class CautiousBot:
    """Rules of thumb, no look-ahead.

    Choosing: take Death Rays when tanks outnumber rays (or would, counting rays on the
    table); otherwise take the biggest new Earthling group, rays if nothing else.
    Deciding: keep rolling while the turn is worth nothing; otherwise stop once the lead of
    rays over tanks is thin, few dice remain, or the turn is worth 8 or more.
    """

    name = "cautious"

    def __init__(self, seed: int | None = None) -> None:
        del seed  # deterministic

    def choose(self, state: GameState) -> Take | Stop | Continue:
        """A decision for a Martian Dice state (TypeError for another game's)."""
        return self._choose(as_state(state))

    def _choose(self, state: State) -> Take | Stop | Continue:
        legal = state.legal_actions()
        if state.phase is Phase.DECIDE:
            return STOP if self._should_stop(state) else CONTINUE
        assert state.rolled is not None
        takes = [a for a in legal if isinstance(a, Take)]
        tanks, rays = state.set_aside[Face.TANK], state.set_aside[Face.RAY]
        ray_take = next((a for a in takes if a.face is Face.RAY), None)
        if ray_take is not None and tanks >= rays:
            return ray_take
        earthlings = [a for a in takes if a.face is not Face.RAY]
        if earthlings:
            rolled = state.rolled
            return max(earthlings, key=lambda a: (rolled[a.face], -a.face))
        return takes[0]

    @staticmethod
    def _should_stop(state: State) -> bool:
        if state.turn_score == 0:
            return False
        margin = state.set_aside[Face.RAY] - state.set_aside[Face.TANK]
        return margin < 2 or state.dice_left < 4 or state.turn_score >= 8
