"""The fool check on Mars Attacks' estimates: calibrated so that the planner's own moves and
ordinary openings are never flagged, while real blunders always are (docs/review.md, "The
fool check"). The 200-game measurement is ``bench/bench_fool_check.py``; a smaller seeded
series runs here."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

import pytest

from marsdice.attacks import Phase, State, Target, Variant, new_game
from marsdice.attacks.cards import builtin_cards
from marsdice.bots.attacks_planner import PlannerBot
from marsdice.core.game import GameState
from marsdice.games import get_game
from marsdice.review.core import position_choices, valuator_for
from marsdice.web.advice import evaluate

ATTACKS = get_game("attacks")
CARD = {card.slug: i for i, card in enumerate(builtin_cards())}
STACKS = [["dallas"], ["san-jose"], ["golden-gate-bridge"], ["space-needle"]]


def flags(state: GameState) -> dict[str, bool]:
    """The fool check's flag of every legal move, by notation."""
    valuator = valuator_for(ATTACKS, state)
    choices = position_choices(valuator, state)
    return {c.move: f for c, f in zip(choices, valuator.blunders(state, choices), strict=True)}


@dataclass
class Series:
    """What the fool check did over seeded planner-vs-planner games."""

    decisions: int = 0  # the planner's decisions with more than one legal move
    fired: list[str] = field(default_factory=list)  # the planner's moves it flagged
    openings: int = 0  # opening target choices (each seat's first), every target checked
    opening_fired: list[str] = field(default_factory=list)


def planner_series(games: int, first_seed: int = 0) -> Series:
    """``games`` seeded games of 2, 3 and 4 planners in turn; at each decision the fool check
    is asked about the planner's move, and at each seat's first target choice about every
    target on offer."""
    out = Series()
    for seed in range(first_seed, first_seed + games):
        players = 2 + seed % 3
        rng = random.Random(seed)
        state = ATTACKS.start(ATTACKS.variant_from_params({"players": players}), rng)
        bot = PlannerBot()
        opened: set[int] = set()
        while not state.is_terminal:
            if state.is_chance_node:
                outcomes = state.chance_outcomes()
                pick = rng.choices([o for o, _ in outcomes], [float(p) for _, p in outcomes])[0]
                state = state.apply(pick)
                continue
            move = state.parse_action(bot.choose(state).text()).text()
            found = flags(state)
            if len(found) > 1:
                out.decisions += 1
                if found[move]:
                    out.fired.append(f"seed {seed}: {move}")
                s = state
                assert isinstance(s, State)
                if s.phase is Phase.TARGET and s.seat not in opened:
                    opened.add(s.seat)
                    out.openings += 1
                    out.opening_fired += [f"seed {seed}: {m}" for m, f in found.items() if f]
            state = state.apply(state.parse_action(move))
    return out


def test_the_planner_and_ordinary_openings_are_not_flagged() -> None:
    """24 seeded games (2-4 players): under 1% of the planner's decisions flagged (measured:
    none), and no target of any seat's first target choice (the issue's table flagged 3 of
    4 opening targets)."""
    series = planner_series(24)
    assert series.decisions > 500, series.decisions
    assert len(series.fired) < 0.01 * series.decisions, series.fired
    assert series.openings >= 70
    assert series.opening_fired == []


def _decide(roll: str, variant: Variant | None = None, target: str = "dallas") -> State:
    state = new_game(variant or Variant(players=2), STACKS).apply(Target(target))
    return state.apply(state.parse_action(roll))


def stop_with_nothing() -> tuple[State, str]:
    """Nine heads and a nuke on Dallas (needs 8 ray guns): stopping keeps nothing, while
    rerolling the heads can hardly be bombed."""
    return _decide("HHHHHHHHHN"), "stop"


def denver_declined() -> tuple[State, str]:
    """Owning Denver, bombed on the first roll: declining the free restart."""
    state = replace(new_game(Variant(players=2), STACKS), owned=((CARD["denver"],), ()))
    state = state.apply(Target("dallas"))
    return state.apply(state.parse_action("HHRNNNNNNN")), "pass"


def last_round_no_lead(move: str) -> tuple[State, str]:
    """The last round, 1 VP behind: only a capture of Golden Gate Bridge or Space Needle
    (3 VP) can win; San José (1 VP) and Dallas cannot."""
    state = new_game(Variant(players=2), STACKS)
    return replace(state, end_triggered=True, owned=((), (CARD["miami"],))), move


def stop_when_rerolling_is_free() -> tuple[State, str]:
    """Whole-turn bombing rule, 7 ray guns of Dallas's 8, 2 nukes of a limit of 5, one head:
    rerolling the head cannot be bombed and captures a third of the time; stopping gives up
    the capture."""
    state = _decide("HHHHHRRRRN", Variant(players=2, bombed="whole-turn"))  # type: ignore[arg-type]
    return replace(state, heads=1, rays=7, nukes=2), "stop"


BLUNDERS = {
    "stop with nothing": stop_with_nothing,
    "decline Denver's restart": denver_declined,
    "last round: a target that cannot win": lambda: last_round_no_lead("@san-jose"),
    "last round: the big card that cannot win": lambda: last_round_no_lead("@dallas"),
    "stop when rerolling is free": stop_when_rerolling_is_free,
}


@pytest.mark.parametrize("name", BLUNDERS)
def test_real_blunders_are_flagged(name: str) -> None:
    state, blunder = BLUNDERS[name]()
    found = flags(state)
    assert found[blunder], (name, found)
    # ... and the planner's own choice there is not
    assert not found[PlannerBot().choose(state).text()]


def test_the_advice_carries_the_fool_checks_flags() -> None:
    state, blunder = stop_with_nothing()
    advice = evaluate(ATTACKS, state)
    by_move = {choice["action"]: choice["blunder"] for choice in advice.choices}
    assert by_move[blunder] and advice.method == "planner-estimate" and advice.estimate
    assert sum(by_move.values()) == 1, by_move


def test_a_small_loss_is_never_flagged_even_when_the_turn_is_worth_little() -> None:
    """A share of almost nothing is not a blunder: below the review's mistake threshold
    (0.3 planner VP) no move is flagged."""
    valuator = valuator_for(ATTACKS, stop_with_nothing()[0])
    from marsdice.review.model import Choice

    state = stop_with_nothing()[0]
    cheap = [Choice("reroll", 0.2, 0.0), Choice("stop", 0.0, 0.2)]
    assert valuator.blunders(state, cheap) == (False, False)
    dear = [Choice("reroll", 0.4, 0.0), Choice("stop", 0.0, 0.4)]
    assert valuator.blunders(state, dear) == (False, True)
