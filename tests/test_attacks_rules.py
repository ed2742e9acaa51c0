"""Scenario tests of the Mars Attacks rules with scripted dice.

The tests use their own card set (the shipped numbers are placeholders that owners may
replace), so each expected count below can be checked by hand against ``DECK``.
"""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from math import comb

import pytest

from marsdice.attacks import (
    Ability,
    BombedRule,
    Card,
    Difficulty,
    Draw,
    Kind,
    Outcome,
    Phase,
    Reroll,
    Roll,
    State,
    Symbol,
    Target,
    Variant,
    new_game,
)
from marsdice.attacks.events import (
    Bombed,
    BostonMoved,
    Captured,
    CardTurnedUp,
    DenverRestarted,
    EndTriggered,
    ExtraTurn,
    GameOver,
    NewYorkBack,
    Rerolling,
    Rolled,
    SeattleUsed,
    TargetDeclared,
    TokenPlaced,
    TokensHome,
    TurnBegan,
    TurnEnded,
    VegasBomb,
)
from marsdice.attacks.variant import DenverRule
from marsdice.core import CHANCE, TERMINAL
from marsdice.core.errors import ActionParseError, IllegalActionError, VariantError


def _card(name: str, requirement: int, vp: int, nukes: int, ability: str | None = None) -> Card:
    kind, symbol = Kind.CITY, Symbol.RAY
    if name in ("Mount Rushmore", "Golden Gate Bridge", "Hollywood Sign"):
        kind, symbol = Kind.MONUMENT, Symbol.HEAD
    elif name == "Los Angeles":
        symbol = Symbol.NUKE
    elif name == "Las Vegas":
        symbol = Symbol.BUST
    return Card(name, kind, symbol, requirement, vp, nukes, Ability(ability) if ability else None)


DECK = (
    _card("Seattle", 6, 2, 1, "seattle"),
    _card("Boston", 6, 2, 1, "boston"),
    _card("Toronto", 5, 2, 1, "toronto"),
    _card("Denver", 7, 3, 1, "denver"),
    _card("San Francisco", 8, 3, 1, "san-francisco"),
    _card("Indianapolis", 7, 3, 1, "indianapolis"),
    _card("Oklahoma City", 6, 2, 1, "oklahoma-city"),
    _card("Memphis", 5, 2, 1, "memphis"),
    _card("New York", 12, 5, 2, "new-york"),
    _card("Detroit", 6, 4, 1, "detroit"),
    _card("Los Angeles", 5, 4, 2, "los-angeles"),
    _card("Las Vegas", 3, 3, 1, "las-vegas"),
    _card("Miami", 3, 1, 0),
    _card("San Jose", 3, 1, 0),
    _card("Phoenix", 4, 2, 0),
    _card("Atlanta", 5, 2, 1),
    _card("Chicago", 10, 4, 2),
    _card("Mount Rushmore", 6, 6, 2),
    _card("Golden Gate Bridge", 3, 3, 0),
    _card("Hollywood Sign", 5, 5, 0),
)


def game(*stacks: str, players: int = 2, **settings: object) -> State:
    """A game with the given stacks, each written ``"Top,Next,..."`` ("" = empty)."""
    variant = Variant(players=players, cards=DECK, **settings)  # type: ignore[arg-type]
    return new_game(variant, [[n for n in s.split(",") if n] for s in stacks])


def play(state: State, *moves: str) -> State:
    """Apply moves typed in notation (dice as letters at chance nodes)."""
    for move in moves:
        state = state.apply(state.parse_action(move))
    return state


def idx(name: str) -> int:
    return [card.name for card in DECK].index(name)


def names(state: State, cards: tuple[int, ...] | tuple[int | None, ...]) -> list[str | None]:
    return [None if c is None else state.card(c).name for c in cards]


def tokens(state: State, seat: int) -> dict[str, int]:
    return {state.card(c).name: v for c, v in state.tokens[seat]}


def give(state: State, seat: int, *cards: str) -> State:
    """Hand a seat cards (with their green powers) as if captured earlier."""
    owned = list(state.owned)
    owned[seat] = (*owned[seat], *(idx(n) for n in cards))
    return replace(state, owned=tuple(owned))


def put(state: State, seat: int, **values: int) -> State:
    """Place a seat's tokens, by card name in notation with ``_`` for ``-``."""
    mine = dict(state.tokens[seat])
    for slug, value in values.items():
        mine[idx_slug(slug)] = value
    all_tokens = list(state.tokens)
    all_tokens[seat] = tuple(sorted(mine.items()))
    return replace(state, tokens=tuple(all_tokens))


def idx_slug(slug: str) -> int:
    return [card.slug for card in DECK].index(slug.replace("_", "-"))


def bomb_turn(state: State, target: str = "") -> State:
    """A whole turn bombed on the first roll: nothing changes but the seat."""
    assert state.phase is Phase.TARGET
    choice = target or next(
        state.card(c).slug for c in state.targets() if state.card(c).symbol is not Symbol.NUKE
    )
    return play(state, "@" + choice, "N" * 10)


# --- dice and chance ---------------------------------------------------------------------------


@pytest.mark.parametrize("dice", [1, 4, 9, 10])
def test_chance_lists_every_multiset_with_exact_probabilities(dice: int) -> None:
    state = play(game("Chicago", "Miami", "Phoenix", "Atlanta"), "@chicago")
    state = replace(state, to_roll=dice)
    outcomes = state.chance_outcomes()
    assert len(outcomes) == comb(dice + 2, 2)
    assert sum(p for _, p in outcomes) == 1
    all_heads = next(p for roll, p in outcomes if roll.text() == "H" * dice)
    assert all_heads == Fraction(1, 3**dice)
    assert state.current_player == CHANCE


def test_sampled_rolls_are_legal_and_reproducible() -> None:
    state = play(game("Chicago", "Miami", "Phoenix", "Atlanta"), "@chicago")
    first = state.sample_chance(random.Random(5))
    assert first == state.sample_chance(random.Random(5))
    assert first in state.legal_actions()


# --- the nuke limit ----------------------------------------------------------------------------


def test_nuke_limit_counts_face_up_cards_and_difficulty_not_an_empty_stack() -> None:
    state = game("Miami,Chicago", "Seattle", "Golden Gate Bridge", "")
    assert state.nuke_limit == 0 + 1 + 0 + 2
    assert (
        game("Miami,Chicago", "Seattle", "Golden Gate Bridge", "", difficulty="hard").nuke_limit
        == 2
    )
    state = play(state, "@miami", "HHHHHHHRRR")  # 3 ray guns take Miami, Chicago turns up
    assert names(state, state.face_up) == ["Chicago", "Seattle", "Golden Gate Bridge", None]
    assert state.nuke_limit == 2 + 1 + 0 + 2


def test_nukes_reaching_the_limit_bomb_one_below_does_not() -> None:
    state = game("Chicago", "Seattle", "Miami", "Phoenix")  # limit 2 + 1 + 2 = 5
    below = play(state, "@chicago", "NNNNRRRRRH")
    assert below.phase is Phase.DECIDE and below.nukes == 4
    at = play(state, "@chicago", "NNNNNRRRRR")
    assert at.seat == 1 and at.log[-1].outcome is Outcome.BOMBED


def test_capturing_the_last_card_of_a_stack_lowers_the_limit() -> None:
    state = game("Seattle", "Chicago", "Miami", "Phoenix")  # 1 + 2 + 0 + 0 + 2
    assert state.nuke_limit == 5
    state = play(state, "@seattle", "HHHHRRRRRR")
    assert state.face_up[0] is None and state.nuke_limit == 4


# --- bombed -------------------------------------------------------------------------------------


def test_bombed_by_default_only_the_last_roll_is_lost() -> None:
    state = game("Chicago", "Atlanta", "Phoenix", "Miami")  # limit 2 + 1 + 2 = 5
    state = play(state, "@chicago", "HHHHRRRNNN", "reroll", "HRNN")
    result = state.log[-1]
    assert result.outcome is Outcome.BOMBED and state.seat == 1
    assert tokens(state, 0) == {"Chicago": 3}  # the count before the last roll
    assert result.token == (idx("Chicago"), 3)


def test_bombed_under_the_whole_turn_switch_keeps_nothing() -> None:
    state = game("Chicago", "Atlanta", "Phoenix", "Miami", bombed="whole-turn")
    state = play(state, "@chicago", "HHHHRRRNNN", "reroll", "HRNN")
    assert state.log[-1].outcome is Outcome.BOMBED
    assert tokens(state, 0) == {}


def test_bombed_on_the_first_roll_keeps_nothing_under_either_rule() -> None:
    for rule in BombedRule:
        state = play(game("Chicago", "Atlanta", "Phoenix", "Miami", bombed=rule), "@chicago")
        state = play(state, "HHRRRNNNNN")
        assert tokens(state, 0) == {} and state.seat == 1


def test_bombed_after_a_switch_keeps_the_target_before_the_last_roll() -> None:
    state = game("Chicago", "Atlanta", "Phoenix", "Miami")
    state = play(state, "@chicago", "HHHHRRRNNN", "reroll@atlanta", "NNHR")
    assert tokens(state, 0) == {"Chicago": 3}


def test_a_bomb_beats_a_capture_on_the_same_roll() -> None:
    state = play(game("Miami", "Chicago", "Phoenix", "Atlanta"), "@miami")  # limit 5
    state = play(state, "RRRRRNNNNN")
    assert state.log[-1].outcome is Outcome.BOMBED and state.owned[0] == ()


# --- capture, tokens, stopping ------------------------------------------------------------------


def test_capture_counts_the_token_and_sends_every_token_home() -> None:
    state = game("Atlanta,Chicago", "Miami", "Phoenix", "San Jose")  # limit 1 + 2 = 3
    state = play(state, "@atlanta", "HHHHHHHRRR", "stop")
    state = play(state, "@atlanta", "HHHHHHHHRN", "stop")
    assert tokens(state, 0) == {"Atlanta": 3} and tokens(state, 1) == {"Atlanta": 1}
    state = play(state, "@atlanta", "HHHHHHHHRR")  # 3 + 2 ray guns >= 5
    assert names(state, state.owned[0]) == ["Atlanta"] and state.scores == (2, 0)
    assert tokens(state, 0) == {} and tokens(state, 1) == {}
    assert names(state, state.face_up)[0] == "Chicago"
    assert state.log[-1].outcome is Outcome.CAPTURED and state.log[-1].count == 5


def test_no_head_left_ends_the_attack_with_the_token_placed() -> None:
    state = play(game("Chicago", "Atlanta", "Miami", "Phoenix"), "@chicago", "HHHHRRRNNN")
    state = play(state, "reroll", "RRRN")  # 6 ray guns, 4 nukes, no head
    assert state.seat == 1 and tokens(state, 0) == {"Chicago": 6}


def test_stopping_with_no_progress_places_no_token() -> None:
    state = play(game("Chicago", "Atlanta", "Miami", "Phoenix"), "@chicago", "HHHHHHHHHN")
    state = play(state, "stop")
    assert tokens(state, 0) == {} and state.log[-1].outcome is Outcome.STOPPED


def test_a_player_never_holds_more_than_four_tokens() -> None:
    state = game("Chicago", "Atlanta", "Phoenix", "Hollywood Sign")
    for slug in ("chicago", "atlanta", "phoenix", "hollywood-sign"):
        state = play(state, "@" + slug, "HHHHHHHHRH" if slug != "hollywood-sign" else "HHRRRRRRRR")
        if state.phase is Phase.DECIDE:
            state = play(state, "stop")
        state = bomb_turn(state)
    assert len(state.tokens[0]) == 4
    # every face-up card holds one: the limit of four is reached, never passed
    assert {c for c, _ in state.tokens[0]} == {c for c in state.face_up if c is not None}


# --- monuments and the reroll rules -------------------------------------------------------------


def test_a_monument_attack_is_one_roll_and_heads_count() -> None:
    state = game("Mount Rushmore", "Miami", "Phoenix", "Atlanta")  # limit 2 + 1 + 2 = 5
    state = play(state, "@mount-rushmore", "HHHHRRRRRN")
    assert state.seat == 1 and tokens(state, 0) == {"Mount Rushmore": 4}
    state = bomb_turn(state, "miami")
    state = play(state, "@mount-rushmore", "HHRRRRRRRR")  # 4 + 2 heads
    assert names(state, state.owned[0]) == ["Mount Rushmore"]


def test_heads_are_never_rerolled_against_a_monument_nor_switched_to_one() -> None:
    state = play(game("Mount Rushmore", "Phoenix", "Miami", "Atlanta"), "@phoenix", "HHHHHHHHRN")
    assert Reroll(None, "mount-rushmore") not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="only switch to another face-up city"):
        state.apply(Reroll(None, "mount-rushmore"))


def test_switching_the_target_counts_all_locked_ray_guns_for_the_new_city() -> None:
    state = game("Chicago", "Phoenix", "Miami", "Atlanta")  # limit 2 + 1 + 2 = 5
    state = play(state, "@chicago", "HHHHHHRRRR")
    assert state.phase is Phase.DECIDE and state.count(idx("Phoenix")) == 4
    state = play(state, "reroll@phoenix", "HHHHHH")  # nothing new, 4 ray guns >= 4
    assert names(state, state.owned[0]) == ["Phoenix"]


def test_switch_targets_are_other_face_up_cities_only() -> None:
    state = game("Chicago", "Las Vegas", "Golden Gate Bridge", "Atlanta")
    state = play(state, "@chicago", "HHHHHHHRRR")
    assert {a.text() for a in state.legal_actions()} == {"reroll", "stop", "reroll@atlanta"}


def test_all_heads_are_rerolled_by_default_a_subset_under_the_switch() -> None:
    state = play(game("Chicago", "Phoenix", "Miami", "Atlanta"), "@chicago", "HHHHHRRRNN")
    assert [a.text() for a in state.legal_actions()] == [
        "reroll",
        "stop",
        "reroll@phoenix",
        "reroll@miami",
        "reroll@atlanta",
    ]
    with pytest.raises(IllegalActionError, match="every head showing is rerolled"):
        state.apply(Reroll(2))
    sub = play(game("Chicago", "Phoenix", "Miami", "Atlanta", reroll="subset"), "@chicago")
    sub = play(sub, "HHHHHRRRNN")
    assert {a.text() for a in sub.legal_actions() if "@" not in a.text()} == {
        "reroll",
        "reroll1",
        "reroll2",
        "reroll3",
        "reroll4",
        "stop",
    }
    sub = play(sub, "reroll2", "RR")
    assert sub.dice == (3, 5, 2) and sub.phase is Phase.DECIDE
    assert play(sub, "reroll3").to_roll == 3  # typing all of them means "reroll"
    assert sub.parse_action("reroll3") == Reroll()


# --- red cards ----------------------------------------------------------------------------------


def test_detroit_takes_no_token_and_failing_it_counts_as_bombed() -> None:
    state = game("Detroit", "Las Vegas", "Miami", "Phoenix")  # limit 1 + 1 + 2 = 4
    state = play(state, "@detroit", "HHHHHRRRRN", "stop")
    result = state.log[-1]
    assert result.outcome is Outcome.DETROIT and result.token is None
    assert tokens(state, 0) == {"Las Vegas": 1}
    state = play(state, "@detroit", "HHHHRRRRRR")  # 6 ray guns in one turn
    assert names(state, state.owned[1]) == ["Detroit"]


def test_failing_detroit_after_a_reroll_keeps_nothing_on_detroit() -> None:
    state = game("Detroit", "Chicago", "Miami", "Phoenix")  # limit 1 + 2 + 2 = 5
    state = play(state, "@detroit", "HHHHHHRRRN", "reroll", "HHHHRN", "stop")
    assert state.log[-1].outcome is Outcome.DETROIT and tokens(state, 0) == {}


def test_los_angeles_counts_nukes_and_its_attacker_cannot_be_bombed() -> None:
    state = game("Los Angeles", "Miami", "Phoenix", "Atlanta", difficulty=Difficulty.HARD)
    assert state.nuke_limit == 2 + 1 + 1
    state = play(state, "@los-angeles", "HHHHRRNNNN")  # 4 nukes >= limit, not bombed
    assert state.phase is Phase.DECIDE and state.count(idx("Los Angeles")) == 4
    state = play(state, "reroll", "HHHN")
    assert names(state, state.owned[0]) == ["Los Angeles"]


def test_switching_to_los_angeles_protects_the_next_roll() -> None:
    state = game("Chicago", "Los Angeles", "Phoenix", "Miami")  # limit 2 + 2 + 2 = 6
    state = play(state, "@chicago", "HHHHHRNNNN", "reroll@los-angeles", "HHHNN")
    assert names(state, state.owned[0]) == ["Los Angeles"]  # 6 nukes: a capture, not a bomb


@pytest.mark.parametrize("city", ["San Francisco", "Indianapolis"])
def test_an_extra_turn_follows_the_capture_with_green_powers(city: str) -> None:
    state = give(game(city, "Miami", "Phoenix", "Chicago"), 0, "Seattle")
    slug = city.lower().replace(" ", "-")
    state = play(state, "@" + slug, "HHRRRRRRRR")
    assert state.seat == 0 and state.turn == 2
    assert state.phase is Phase.SEATTLE  # the green card works in the extra turn, at its start
    assert state.log[-1].outcome is Outcome.CAPTURED
    assert ExtraTurn(0, slug) in state.log[-1].events
    assert TurnBegan(0, 2, extra=True) in state.events
    state = play(state, "pass", "@chicago", "N" * 10)
    assert state.seat == 1
    assert state.turns == (2, 0) and state.rounds == 1  # an extra turn starts no round
    state = bomb_turn(state, "chicago")
    assert state.rounds == 2 and state.turns == (2, 1)


def test_oklahoma_city_sends_the_other_face_up_cards_under_their_stacks() -> None:
    state = game(
        "Oklahoma City,Chicago", "Miami,Phoenix", "Atlanta", "Golden Gate Bridge,Hollywood Sign"
    )
    state = put(state, 1, miami=2, atlanta=1)
    state = play(state, "@oklahoma-city", "HHHHRRRRRR")
    assert names(state, state.face_up) == ["Chicago", "Phoenix", "Atlanta", "Hollywood Sign"]
    assert names(state, state.stacks[1]) == ["Phoenix", "Miami"]
    assert tokens(state, 1) == {}  # the single card of stack 3 went under and came back up


def test_las_vegas_cannot_be_targeted_and_the_third_bomb_takes_it() -> None:
    state = game("Las Vegas", "Miami", "Phoenix", "Golden Gate Bridge")  # limit 1 + 2 = 3
    assert "@las-vegas" not in [a.text() for a in state.legal_actions()]
    with pytest.raises(IllegalActionError, match="Las Vegas can never be a target"):
        state.apply(Target("las-vegas"))
    state = play(state, "@miami", "NNNHHHHHHH")
    state = play(state, "@phoenix", "NNNHHHHHHH")
    assert tokens(state, 0) == {"Las Vegas": 1} and tokens(state, 1) == {"Las Vegas": 1}
    state = play(state, "@miami", "NNNHHHHHHH", "@phoenix", "HHHHHHHHRN", "stop")
    assert tokens(state, 0) == {"Las Vegas": 2}
    state = play(state, "@miami", "NNNHHHHHHH")
    assert names(state, state.owned[0]) == ["Las Vegas"] and state.scores == (3, 0)
    assert tokens(state, 1) == {"Phoenix": 1}  # the other Las Vegas token went home
    assert state.stacks[0] == () and state.log[-1].captured == (idx("Las Vegas"),)


def test_memphis_brings_a_random_box_card_under_a_chosen_stack() -> None:
    state = game("Memphis,Chicago", "Miami", "Phoenix", "")
    state = play(state, "@memphis", "HHHHHRRRRR")
    assert state.phase is Phase.MEMPHIS and state.seat == 0
    assert [a.text() for a in state.legal_actions()] == ["memphis:1", "memphis:2", "memphis:3"]
    with pytest.raises(IllegalActionError):
        play(state, "memphis:4")  # an empty stack is finished
    state = play(state, "memphis:2")
    assert state.current_player == CHANCE
    outcomes = state.chance_outcomes()
    assert len(outcomes) == len(DECK) - 4 and sum(p for _, p in outcomes) == 1
    assert {p for _, p in outcomes} == {Fraction(1, 16)}
    with pytest.raises(IllegalActionError, match="not in the box"):
        state.apply(Draw("miami"))
    state = play(state, "draw:los-angeles")
    assert names(state, state.stacks[1]) == ["Miami", "Los Angeles"]
    assert idx("Los Angeles") not in state.box and state.seat == 1


def test_memphis_with_an_empty_box_does_nothing() -> None:
    variant = Variant(players=2, cards=DECK[7:15])  # Memphis .. Phoenix: all dealt
    state = new_game(variant, [["memphis", "miami"], ["phoenix"], ["san-jose"], ["new-york"]])
    assert len(state.box) == 3
    state = replace(state, box=())
    state = play(state, "@memphis", "HHHHHRRRRR")
    assert state.seat == 1 and state.phase is Phase.TARGET


def test_new_york_moves_your_token_back_each_turn_then_removes_it() -> None:
    state = game("New York", "Miami", "Phoenix", "Atlanta")  # limit 2 + 1 + 2 = 5
    state = play(state, "@new-york", "HHHHHHHRRN", "stop")
    state = bomb_turn(state, "atlanta")
    assert tokens(state, 0) == {"New York": 1}
    assert NewYorkBack(0, "new-york", 1) in state.events
    state = bomb_turn(bomb_turn(state, "atlanta"), "atlanta")
    assert tokens(state, 0) == {} and NewYorkBack(0, "new-york", 0) in state.events


# --- green cards --------------------------------------------------------------------------------


def test_boston_moves_one_own_token_forward_at_the_start_of_the_turn() -> None:
    state = give(game("Atlanta", "Miami", "Phoenix", "Chicago"), 0, "Boston")
    state = put(state, 0, atlanta=3, miami=2)
    state = put(state, 1, phoenix=1)
    state = bomb_turn(bomb_turn(state, "chicago"), "chicago")
    assert state.phase is Phase.BOSTON and state.seat == 0
    # Miami needs 3: a token on 2 may not be pushed onto the capture space
    assert [a.text() for a in state.legal_actions()] == ["boston@atlanta", "pass"]
    state = play(state, "boston@atlanta")
    assert tokens(state, 0) == {"Atlanta": 4, "Miami": 2} and state.phase is Phase.TARGET
    assert state.events == (BostonMoved(0, "atlanta", 4),)


def test_boston_is_offered_only_with_a_token_to_move_and_may_be_declined() -> None:
    state = give(game("Atlanta", "Miami", "Phoenix", "Chicago"), 0, "Boston")
    state = bomb_turn(bomb_turn(state))
    assert state.phase is Phase.TARGET
    state = bomb_turn(bomb_turn(put(state, 0, chicago=4), "chicago"), "chicago")
    assert play(state, "pass").phase is Phase.TARGET and tokens(state, 0) == {"Chicago": 4}


def test_seattle_after_the_target_under_the_switch_sets_one_die_and_rolls_nine() -> None:
    state = game("Chicago", "Miami", "Phoenix", "Atlanta", seattle="after-target")
    state = play(give(state, 0, "Seattle"), "@chicago")
    assert state.phase is Phase.SEATTLE
    assert [a.text() for a in state.legal_actions()] == [
        "seattle:H",
        "seattle:R",
        "seattle:N",
        "pass",
    ]
    state = play(state, "seattle:R")
    assert state.to_roll == 9 and len(state.chance_outcomes()) == comb(11, 2)
    with pytest.raises(IllegalActionError, match="exactly 9 dice"):
        play(state, "HHHHRRRRNN")
    state = play(state, "HHHHRRRRN")
    assert state.dice == (4, 5, 1) and state.phase is Phase.DECIDE
    state = play(state, "stop")
    assert play(state, "@chicago").phase is Phase.ROLL  # not for the other player


def test_seattle_sets_its_die_at_the_start_of_the_turn_before_the_target() -> None:
    """The seed: green cards act at the start of the turn, before the target is declared."""
    state = game("Chicago", "Miami", "Mount Rushmore", "Atlanta")
    state = bomb_turn(bomb_turn(give(state, 0, "Seattle"), "chicago"), "chicago")
    assert state.phase is Phase.SEATTLE and state.target is None and state.seat == 0
    state = play(state, "seattle:H")
    assert state.phase is Phase.TARGET and state.events == (SeattleUsed(0, "H"),)
    state = play(state, "@mount-rushmore")
    assert state.phase is Phase.ROLL and state.to_roll == 9
    state = play(state, "HHHHHRRRR")  # 5 heads + the set one: 6 take Mount Rushmore
    assert names(state, state.owned[0]) == ["Seattle", "Mount Rushmore"]
    assert Rolled(0, "HHHHHRRRR", "H", False, 6, 4, 0) in state.log[-1].events
    passed = play(bomb_turn(state, "chicago"), "pass")
    assert passed.phase is Phase.TARGET and passed.set_face is None
    assert play(passed, "@chicago").to_roll == 10


def test_toronto_rerolls_one_die_before_the_roll_is_judged_once_per_turn() -> None:
    state = give(game("Chicago", "Miami", "Phoenix", "Atlanta"), 0, "Toronto")  # limit 5
    state = play(state, "@chicago", "HHRRRNNNNN")
    assert state.phase is Phase.TORONTO  # five nukes, but not judged yet
    assert [a.text() for a in state.legal_actions()] == [
        "toronto:H",
        "toronto:R",
        "toronto:N",
        "pass",
    ]
    state = play(state, "toronto:N")
    assert state.to_roll == 1 and len(state.chance_outcomes()) == 3
    state = play(state, "R")
    assert state.phase is Phase.DECIDE and state.dice == (2, 4, 4)
    state = play(state, "reroll", "HR")
    assert state.phase is Phase.DECIDE  # no second Toronto this turn
    bombed = play(give(game("Chicago", "Miami", "Phoenix", "Atlanta"), 0, "Toronto"), "@chicago")
    bombed = play(bombed, "HHRRRNNNNN", "pass")
    assert bombed.seat == 1 and bombed.log[-1].outcome is Outcome.BOMBED


def test_toronto_passed_on_one_roll_is_offered_on_the_next() -> None:
    state = give(game("Chicago", "Miami", "Phoenix", "Atlanta"), 0, "Toronto")
    state = play(state, "@chicago", "HHHHHRRRNN", "pass", "reroll", "HHHRN")
    assert state.phase is Phase.TORONTO


def test_denver_restarts_a_turn_bombed_on_its_first_roll_once() -> None:
    state = give(game("Chicago", "Miami", "Phoenix", "Atlanta"), 0, "Denver")  # limit 5
    state = play(state, "@chicago", "HHHHHNNNNN")
    assert state.phase is Phase.DENVER
    assert [a.text() for a in state.legal_actions()] == ["restart", "pass"]
    state = play(state, "restart")
    assert state.phase is Phase.TARGET and state.seat == 0 and state.dice == (0, 0, 0)
    state = play(state, "@miami", "HHHHHNNNNN")
    assert state.seat == 1  # Denver was used this turn
    assert DenverRestarted(0, whole_turn=True) in state.log[-1].events


def test_denver_does_not_help_after_the_first_roll_and_may_be_declined() -> None:
    state = give(game("Chicago", "Miami", "Phoenix", "Atlanta"), 0, "Denver", "Las Vegas")
    later = play(state, "@chicago", "HHHHHRNNNN", "reroll", "HHHHN")
    assert later.seat == 1 and later.log[-1].outcome is Outcome.BOMBED
    declined = play(state, "@chicago", "HHHHHNNNNN", "pass")
    assert declined.seat == 1 and declined.log[-1].outcome is Outcome.BOMBED


# --- the end and the tie-breakers ---------------------------------------------------------------


def test_the_game_ends_when_two_stacks_are_empty_and_the_round_is_completed() -> None:
    state = game("Miami", "Phoenix", "Atlanta,San Jose", "Chicago,Hollywood Sign", players=3)
    state = play(state, "@miami", "HHHHHHHRRR")
    assert not state.end_triggered
    state = play(state, "@phoenix", "HHHHHHRRRR")
    assert state.end_triggered and not state.is_terminal and state.seat == 2
    state = bomb_turn(state, "chicago")
    assert state.is_terminal and state.current_player == TERMINAL
    assert state.turns == (1, 1, 1) and state.winners == (1,)
    assert state.returns() == (0.0, 1.0, 0.0) and state.placings() == (2, 1, 3)


def test_one_empty_stack_ends_the_game_under_the_switch() -> None:
    stacks = ("Miami", "Phoenix", "Atlanta,San Jose", "Chicago,Hollywood Sign")
    state = play(game(*stacks, players=3, end_stacks=1), "@miami", "HHHHHHHRRR")
    assert state.end_triggered and state.seat == 1
    state = bomb_turn(bomb_turn(state, "chicago"), "chicago")
    assert state.is_terminal and state.winners == (0,)


def test_a_trigger_in_the_last_seat_ends_the_game_after_its_extra_turn() -> None:
    state = game("Miami", "San Francisco", "Atlanta,San Jose", "Chicago", players=2)
    state = play(state, "@miami", "HHHHHHHRRR")
    state = play(state, "@san-francisco", "HHRRRRRRRR")
    assert state.end_triggered and state.seat == 1 and not state.is_terminal
    state = bomb_turn(state, "chicago")
    assert state.is_terminal and state.turns == (1, 2)


def test_nothing_left_to_target_passes_and_ends_the_round() -> None:
    state = game("Las Vegas", "Miami", "", "", players=3, end_stacks=4)
    state = play(state, "@miami", "HHHHHHHRRR")
    assert state.is_terminal
    assert [r.outcome for r in state.log] == [Outcome.CAPTURED, Outcome.PASSED, Outcome.PASSED]


def test_tie_on_points_goes_to_more_cards() -> None:
    stacks = ("Phoenix", "Miami", "San Jose", "Chicago")
    state = game(*stacks, end_stacks=3)
    state = play(state, "@phoenix", "HHHHHHRRRR")  # seat 0: 2 VP, 1 card
    state = play(state, "@miami", "HHHHHHHRRR")  # seat 1: 1 VP
    state = bomb_turn(state, "chicago")
    state = play(state, "@san-jose", "HHHHHHHRRR")  # seat 1: 2 VP, 2 cards; 3 stacks empty
    assert state.is_terminal and state.scores == (2, 2)
    assert state.winners == (1,) and state.placings() == (2, 1)


@pytest.mark.parametrize("first", [0, 1])
def test_tie_on_points_and_cards_goes_to_who_reached_the_score_first(first: int) -> None:
    state = game("Phoenix", "Atlanta", "Chicago", "Golden Gate Bridge")
    if first == 1:
        state = bomb_turn(state, "chicago")
    state = play(state, "@phoenix", "HHHHHHRRRR")
    state = play(state, "@atlanta", "HHHHHRRRRR")
    if first == 0:
        assert state.is_terminal  # the second stack emptied in the last seat's turn
    else:
        state = bomb_turn(state, "chicago")
    assert state.is_terminal and state.scores == (2, 2)
    assert [len(cards) for cards in state.owned] == [1, 1]
    assert state.winners == (first,)


def test_equal_in_everything_is_a_shared_win() -> None:
    state = game("Chicago", "Miami", "", "Phoenix", end_stacks=2)
    state = play(state, "@miami", "HHHHHHHRRR")  # seat 0 takes a 1-VP card
    state = replace(state, owned=((), ()), reached=(0, 0))  # as if nobody scored
    state = bomb_turn(state, "chicago")
    assert state.is_terminal and state.winners == (0, 1) and state.returns() == (0.5, 0.5)


# --- errors -------------------------------------------------------------------------------------


def test_illegal_actions_raise_and_name_the_legal_ones() -> None:
    state = game("Chicago", "Miami", "Phoenix", "Atlanta")
    with pytest.raises(IllegalActionError, match=r"legal: @chicago, @miami, @phoenix, @atlanta"):
        play(state, "@seattle")
    with pytest.raises(IllegalActionError, match="not a move of the target phase"):
        play(state, "stop")
    rolling = play(state, "@chicago")
    with pytest.raises(IllegalActionError, match="exactly 10 dice"):
        play(rolling, "HHH")
    for malformed in ((10, 0), (11, -1, 0), (5, 5, 0, 0)):
        with pytest.raises(IllegalActionError, match="exactly 10 dice"):
            rolling.apply(Roll(malformed))
    with pytest.raises(IllegalActionError, match="nothing random happens"):
        state.sample_chance(random.Random(1))
    assert state == game("Chicago", "Miami", "Phoenix", "Atlanta")
    over = play(game("Miami", "", "", "Phoenix"), "@miami", "HHHHHHHRRR", "@phoenix", "N" * 10)
    assert over.is_terminal
    with pytest.raises(IllegalActionError, match="the game is over"):
        over.apply(Target("phoenix"))


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("@Chicago", "@chicago"),
        ("target chi", "@chicago"),
        ("t los angeles", "@los-angeles"),
        ("r", "reroll"),
        ("reroll @ atlanta", "reroll@atlanta"),
        ("roll 2 to atlanta", "reroll2@atlanta"),
        ("S", "stop"),
        ("skip", "pass"),
        ("Boston Atlanta", "boston@atlanta"),
        ("seattle ray", "seattle:R"),
        ("toronto:n", "toronto:N"),
        ("denver", "restart"),
        ("stack 3", "memphis:3"),
    ],
)
def test_typed_decisions_read_as_canonical_notation(text: str, canonical: str) -> None:
    state = game("Chicago", "Miami", "Phoenix", "Atlanta")
    assert state.parse_action(text).text() == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fly", "unknown command"),
        ("@nowhere", "no card called 'nowhere'"),
        ("@san", "fits several cards"),
        ("seattle:Q", "a face is H"),
        ("reroll0", "reroll at least one head"),
    ],
)
def test_unreadable_decisions_get_a_clear_message(text: str, message: str) -> None:
    with pytest.raises(ActionParseError, match=message):
        game("Chicago", "Miami", "Phoenix", "Atlanta").parse_action(text)


def test_bad_settings_and_deals_are_refused() -> None:
    with pytest.raises(VariantError, match="players must be 2-6"):
        Variant(players=1)
    with pytest.raises(VariantError, match="end_stacks must be 1-4"):
        Variant(end_stacks=0)
    with pytest.raises(VariantError, match="bombed must be one of"):
        Variant(bombed="sometimes")  # type: ignore[arg-type]
    with pytest.raises(VariantError, match="cards dealt twice: Miami"):
        game("Miami", "Miami", "", "")
    with pytest.raises(VariantError, match="no card called 'Gotham'"):
        game("Gotham", "", "", "")
    with pytest.raises(VariantError, match="there are 4 stacks"):
        new_game(Variant(cards=DECK), [["miami"]])


# --- rule fixes (checked against the seed) ------------------------------------------------------


def test_boston_never_moves_a_token_on_las_vegas() -> None:
    """The seed gives Las Vegas to whoever is bombed three times first: Boston's step must
    not bring it within two bombs."""
    state = bomb_turn(game("Las Vegas", "Miami", "Chicago", "Atlanta"), "chicago")
    state = give(put(state, 0, chicago=2), 0, "Boston")
    state = bomb_turn(state, "chicago")
    assert tokens(state, 0) == {"Las Vegas": 1, "Chicago": 2} and state.phase is Phase.BOSTON
    assert [a.text() for a in state.legal_actions()] == ["boston@chicago", "pass"]
    with pytest.raises(IllegalActionError, match="never on Las Vegas"):
        play(state, "boston@las-vegas")
    state = bomb_turn(bomb_turn(play(state, "pass"), "chicago"), "chicago")
    assert tokens(state, 0) == {"Las Vegas": 2, "Chicago": 2}  # the second bomb
    state = bomb_turn(play(state, "pass"), "chicago")
    assert names(state, state.owned[0]) == ["Boston", "Las Vegas"]  # the third


def test_green_cards_act_before_new_york() -> None:
    """The seed's start of a turn: green cards first, then New York. A token on New York at 1
    may be pushed by Boston (to 2), then slips back to 1 instead of being removed first."""
    state = give(game("New York", "Miami", "Chicago", "Atlanta"), 0, "Boston")
    state = bomb_turn(bomb_turn(put(state, 0, new_york=1), "chicago"), "chicago")
    assert state.phase is Phase.BOSTON and tokens(state, 0) == {"New York": 1}
    state = play(state, "boston@new-york")
    assert tokens(state, 0) == {"New York": 1} and state.phase is Phase.TARGET
    assert state.events == (BostonMoved(0, "new-york", 2), NewYorkBack(0, "new-york", 1))


def test_denver_restarts_the_whole_turn_green_cards_and_new_york_included() -> None:
    """«начать ВЕСЬ ход заново»: under the default rule the start of the turn comes again."""
    start = bomb_turn(game("New York", "Chicago", "Miami", "Atlanta"), "chicago")
    start = give(put(start, 0, new_york=3, atlanta=1), 0, "Denver", "Boston")
    start = bomb_turn(start, "chicago")
    state = play(start, "boston@atlanta")
    assert tokens(state, 0) == {"New York": 2, "Atlanta": 2}
    state = play(state, "@chicago", "HHHNNNNNNN", "restart")  # limit 2 + 2 + 1 + 2 = 7
    assert state.phase is Phase.BOSTON and state.seat == 0 and state.denver_used
    assert state.events[0] == DenverRestarted(0, whole_turn=True)
    state = play(state, "boston@atlanta")
    assert tokens(state, 0) == {"New York": 1, "Atlanta": 3}  # both acted again
    # the switch: back to the declaration of the target, the start of the turn not repeated
    other = replace(start, variant=replace(start.variant, denver=DenverRule.TARGET))
    other = play(other, "boston@atlanta", "@chicago", "HHHNNNNNNN", "restart")
    assert other.phase is Phase.TARGET and tokens(other, 0) == {"New York": 2, "Atlanta": 2}
    assert other.events == (DenverRestarted(0, whole_turn=False),)


def test_a_reroll_of_every_head_is_one_value_however_it_is_written() -> None:
    state = play(game("Chicago", "Phoenix", "Miami", "Atlanta"), "@chicago", "HHHHHRRRNN")
    assert state.normalize(Reroll(5)) == Reroll() and state.parse_action("reroll5") == Reroll()
    assert state.normalize(Reroll(5, "miami")) == Reroll(None, "miami")
    assert state.apply(Reroll(5)) == state.apply(Reroll())  # the 'all' rule accepts it too
    assert Reroll(5) not in state.legal_actions()
    sub = play(game("Chicago", "Phoenix", "Miami", "Atlanta", reroll="subset"), "@chicago")
    sub = play(sub, "HHHHHRRRNN")
    assert sub.apply(Reroll(5)) == sub.apply(Reroll()) != sub.apply(Reroll(4))
    assert sum(1 for a in sub.legal_actions() if a in (Reroll(), Reroll(5))) == 1


def test_an_action_of_another_game_is_illegal() -> None:
    from marsdice.martian.rules import Stop as MartianStop

    state = game("Chicago", "Phoenix", "Miami", "Atlanta")
    with pytest.raises(IllegalActionError, match="not a Mars Attacks action"):
        state.apply(MartianStop())


# --- events ---------------------------------------------------------------------------------------


def test_a_scripted_turn_produces_its_events_and_their_json() -> None:
    state = game("Atlanta,Chicago", "Miami", "Phoenix", "Las Vegas")  # limit 1 + 1 + 2 = 4
    state = put(state, 1, atlanta=2)
    state = play(state, "@atlanta")
    assert state.events == (TargetDeclared(0, "atlanta", 0),)
    state = play(state, "HHHHHRRRNN")
    assert state.events == (Rolled(0, "HHHHHRRRNN", "", False, 5, 3, 2),)
    state = play(state, "reroll@miami")
    assert state.events == (Rerolling(0, 5, "miami"),)
    state = play(state, "HHNRR")  # 5 ray guns: Miami (3) is taken
    assert [e.kind for e in state.events] == [
        "rolled",
        "captured",
        "card-turned-up",
        "turn-ended",
        "turn-began",
    ]
    assert state.events[1] == Captured(0, "miami", 5, 3, 1, 1)
    assert state.events[2] == CardTurnedUp(2, "")
    assert state.events[1].to_json() == {
        "type": "captured",
        "seat": 0,
        "card": "miami",
        "count": 5,
        "requirement": 3,
        "vp": 1,
        "total": 1,
    }
    state = play(state, "@atlanta", "HHHHRRRRRN")  # seat 1: its token 2 + 5 ray guns
    assert state.events[1:4] == (
        Captured(1, "atlanta", 7, 5, 2, 2),
        TokensHome("atlanta", (1,)),
        CardTurnedUp(1, "chicago"),
    )
    # seat 0: bombed after a reroll keeps the count before it, then Las Vegas counts the bomb
    state = play(state, "@chicago", "HHHHRRRNNN", "reroll", "HHNN")
    assert state.events[:4] == (
        Rolled(0, "HHNN", "", False, 2, 3, 5),
        Bombed(0, "chicago", 5, 5, False, 3),
        TokenPlaced(0, "chicago", 3, kept=True),
        VegasBomb(0, "las-vegas", 1),
    )
    assert state.events[4] == TurnEnded(0, "bombed")


def test_game_over_and_the_end_trigger_are_events() -> None:
    state = game("Miami", "Phoenix", "Atlanta,San Jose", "Chicago,Hollywood Sign", players=3)
    state = play(state, "@miami", "HHHHHHHRRR", "@phoenix", "HHHHHHRRRR")
    assert EndTriggered(2) in state.events
    state = bomb_turn(state, "chicago")
    assert state.events[-1] == GameOver((1,), (1, 2, 0))


def test_a_step_copies_the_state_and_leaves_the_original_alone() -> None:
    """The engine's quick copy (a plain twin of the state's slots, made a State) gives an
    equal State of the very class, whose later changes (a step's draft) stay its own."""
    from marsdice.attacks.state import _SETTERS, State, _copy

    state = new_game(Variant(players=2), [["Boston"], ["Dallas"], ["Toronto"], ["Denver"]])
    copy = _copy(state)
    assert type(copy) is State and copy == state and copy is not state
    assert repr(copy) == repr(state)
    _SETTERS["heads"](copy, 7)
    assert copy.heads == 7 and state.heads == 0
    with pytest.raises(AttributeError):
        copy.heads = 3  # type: ignore[misc]
