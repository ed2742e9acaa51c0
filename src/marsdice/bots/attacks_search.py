"""A Mars Attacks player that searches: determinized Monte Carlo over the planner's targets.

The planner (:mod:`marsdice.bots.attacks_planner`) plays each turn exactly, but against
hand-set values for what a turn's end is worth; the value that decides a game is the chance
to win it. At the one decision that shapes a turn, the declaration of a target, this bot
measures that chance:

1. **Candidates**: the face-up targets, ranked by the planner's turn solver (its exact
   value of declaring each); the best :attr:`SearchBot.candidates` of them are searched.
2. **Determinizations**: each of :attr:`SearchBot.rollouts` samples draws the face-down cards
   (the stacks below their tops and the box) from what the seat sees: the cards not shown
   face up nor owned, shuffled into the hidden places (:func:`sample_hidden`). The sample is
   built from the player view alone, so the bot cannot see the real order of the stacks
   (it knows a little less than a seat with a memory could: where Oklahoma City sent cards).
3. **Rollouts**: in each sample, every candidate is declared and the turn played out by the
   planner (its exact turn play for that target), then the rest of the game by the fast
   rule-of-thumb bot for every seat. All candidates of one sample share the dice (common
   random numbers), so their difference is measured with much less noise than their values.
4. **Choice**: the candidate with the highest mean result (a win counts 1, shared wins a
   share, plus :attr:`SearchBot.lead` for each VP of final lead so that near-ties are
   broken towards the better position); the planner's own choice wins ties and keeps its
   place unless another candidate beats it by :attr:`SearchBot.margin`.

Every other decision is the planner's (the turn solver is exact for a given target). The
planner it searches over, and plays its own turns with, has **end-aware values**
(:data:`~marsdice.bots.attacks_planner.CLOSING`): a capture that would trigger the end of
the game is the player's last, so it counts as a loss unless it puts the player ahead, and
is worth more when it does. The planner's own values (``closing=None``) miss this: in 150
seeded three-planner games it declared such a card 187 times while the capture would still
leave it behind, and the players who did went on to win 2 of those games. It also values
an extra turn (San Francisco, Indianapolis) at
:data:`~marsdice.bots.attacks_planner.SEARCH_EXTRA_TURN` VP, twice the planner's: the turn
comes at once, and a capture that ends the game still gives it. The bot is deterministic for
a seed: the samples and dice come from its own generator.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Final

from marsdice.attacks import actions as act
from marsdice.attacks.game import GAME
from marsdice.attacks.phases import Phase
from marsdice.attacks.solver import solver_for
from marsdice.attacks.state import State, as_state
from marsdice.bots.attacks_heuristic import HeuristicBot
from marsdice.bots.attacks_planner import CLOSING, SEARCH_EXTRA_TURN, PlannerBot
from marsdice.core.game import GameState

#: determinized samples per target decision (each plays every candidate once)
ROLLOUTS: Final = 32
#: search only when the end is at most this many captures away (or triggered): there the
#: planner's VP values miss most (ending the game while ahead, not while behind) and the
#: rollouts are short; earlier the planner's target stands
HORIZON: Final = 3
#: targets searched (the planner's best ones)
CANDIDATES: Final = 3
#: how much better (in mean result) another target must do to replace the planner's
MARGIN: Final = 0.02
#: weight of the final VP lead in a rollout's result (a win is 1)
LEAD: Final = 0.01
#: a rollout longer than this many steps is cut short (a guard; games take about 70)
MAX_STEPS: Final = 2_000


class SearchBot:
    """Determinized Monte Carlo search over the planner's best targets (see the module)."""

    name = "search"

    def __init__(
        self,
        seed: int | None = None,
        *,
        rollouts: int = ROLLOUTS,
        candidates: int = CANDIDATES,
        margin: float = MARGIN,
        horizon: int = HORIZON,
        closing: float | None = CLOSING,
        extra_turn: float = SEARCH_EXTRA_TURN,
        lead: float = LEAD,
    ) -> None:
        if rollouts < 1 or candidates < 1:
            raise ValueError("the search needs at least one rollout and one candidate")
        self.rng = random.Random(seed)
        self.rollouts = rollouts
        self.candidates = candidates
        self.margin = margin
        self.horizon = horizon
        self.lead = lead
        self.planner = PlannerBot(closing=closing, extra_turn=extra_turn)
        self.fast = HeuristicBot()

    def choose(self, state: GameState) -> act.Action:
        """The searched target at a declaration, else the planner's move."""
        s = as_state(state)
        if s.phase is Phase.TARGET and len(s.targets()) > 1 and captures_to_end(s) <= self.horizon:
            return self._search(s)
        return self.planner.choose(s)

    # -- the search --

    def _ranked(self, state: State) -> list[int]:
        """The face-up targets, best first under the planner's exact turn values."""
        values = self.planner.values_for(state)
        solver = solver_for(values.problem)
        order = sorted(
            range(len(values.cards)),
            key=lambda g: -solver.target_value(g, state.set_face).value,
        )
        return [values.cards[g] for g in order]

    def _search(self, state: State) -> act.Action:
        ranked = self._ranked(state)[: self.candidates]
        if len(ranked) == 1:
            return act.Target(state.slug(ranked[0]))
        seat = state.seat
        totals = [0.0] * len(ranked)
        for _ in range(self.rollouts):
            sample = sample_hidden(state, self.rng)
            dice = self.rng.randrange(2**32)
            for i, card in enumerate(ranked):
                start = sample.apply(act.Target(sample.slug(card)))
                totals[i] += self._rollout(start, seat, random.Random(dice))
        means = [total / self.rollouts for total in totals]
        best = max(range(len(ranked)), key=lambda i: means[i])
        if means[best] < means[0] + self.margin:
            best = 0
        return act.Target(state.slug(ranked[best]))

    def _rollout(self, state: State, seat: int, rng: random.Random) -> float:
        """Play the rest of this turn with the planner, then the game with the fast bot; the
        seat's result (its share of the win, plus a little for its final VP lead)."""
        turn = state.turn
        steps = 0
        while not state.is_terminal and steps < MAX_STEPS:
            steps += 1
            if state.is_chance_node:
                state = state.apply(state.sample_chance(rng))
            elif state.turn == turn and state.seat == seat:
                state = state.apply(self.planner.choose(state))
            else:
                state = state.apply(self.fast.choose(state))
        scores = state.scores
        lead = scores[seat] - max(v for i, v in enumerate(scores) if i != seat)
        won = state.returns()[seat] if state.is_terminal else 0.0
        return won + self.lead * lead


def captures_to_end(state: State) -> int:
    """The fewest captures that trigger the end, from the stacks' sizes (0 once triggered)."""
    if state.end_triggered:
        return 0
    sizes = sorted(len(stack) for stack in state.stacks if stack)
    short = state.variant.end_stacks - state.empty_stacks
    return sum(sizes[: max(0, short)])


def sample_hidden(state: State, rng: random.Random) -> State:
    """``state`` with its face-down cards drawn afresh from what the seat to play sees.

    The player view (:meth:`~marsdice.attacks.game.MarsAttacks.observe`) shows each stack's
    face-up card and size, the box's size and every captured card; the hidden cards are the
    rest of the set, and a sample deals them, shuffled, into the hidden places. Nothing of
    ``state.stacks`` below their tops nor of ``state.box`` is read.
    """
    board: Any = GAME.observe(state, state.seat)["board"]  # JSON: read as the view has it
    index = {card.slug: i for i, card in enumerate(state.variant.cards)}
    shown: set[int] = set()
    tops: list[int | None] = []
    sizes: list[int] = []
    for stack in board["stacks"]:
        card = stack["card"]
        top = None if card is None else index[card["slug"]]
        tops.append(top)
        sizes.append(int(stack["size"]))
        if top is not None:
            shown.add(top)
    for cards in board["owned"]:
        shown.update(index[card["slug"]] for card in cards)
    hidden = [c for c in range(len(state.variant.cards)) if c not in shown]
    places = sum(max(0, size - 1) for size in sizes) + int(board["box"])
    if len(hidden) != places:
        raise ValueError(f"{len(hidden)} unseen cards for {places} hidden places")
    rng.shuffle(hidden)
    stacks: list[tuple[int, ...]] = []
    at = 0
    for top, size in zip(tops, sizes, strict=True):
        if top is None:
            stacks.append(())
            continue
        stacks.append((top, *hidden[at : at + size - 1]))
        at += size - 1
    return replace(state, stacks=tuple(stacks), box=tuple(hidden[at:]))
