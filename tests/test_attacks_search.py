"""The ``search`` bot: it never reads the face-down cards, it is deterministic for a seed,
it plays whole legal games, and its search does change decisions."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

import pytest

from marsdice.attacks import Phase, State, Variant, new_game
from marsdice.attacks import actions as act
from marsdice.attacks.game import GAME
from marsdice.attacks.state import as_state
from marsdice.bots import make_bot
from marsdice.bots.attacks_planner import (
    CLOSING,
    ENDGAME,
    EXTRA_TURN,
    EXTRA_TURNS,
    SEARCH_EXTRA_TURN,
    PlannerBot,
    Values,
)
from marsdice.bots.attacks_search import SearchBot, captures_to_end, sample_hidden
from marsdice.core.game import play_out
from marsdice.games import bot_spec


def reshuffled(state: State, rng: random.Random) -> State:
    """``state`` with its face-down cards (below the tops, and the box) in another order:
    everything a player sees is the same."""
    hidden = [c for stack in state.stacks for c in stack[1:]] + list(state.box)
    rng.shuffle(hidden)
    stacks = []
    at = 0
    for stack in state.stacks:
        if not stack:
            stacks.append(())
            continue
        stacks.append((stack[0], *hidden[at : at + len(stack) - 1]))
        at += len(stack) - 1
    other = replace(state, stacks=tuple(stacks), box=tuple(hidden[at:]))
    assert GAME.observe(other, state.seat) == GAME.observe(state, state.seat)
    return other


def planner_decisions(seed: int, players: int = 3) -> Iterator[tuple[State, act.Action]]:
    """Every decision of a seeded game of planners, with the planner's move."""
    rng = random.Random(seed)
    state = GAME.start(Variant(players=players), rng)
    planner = PlannerBot()
    while not state.is_terminal:
        if state.is_chance_node:
            state = state.apply(state.sample_chance(rng))
            continue
        move = planner.choose(state)
        yield state, move
        state = state.apply(move)


def near_the_end(seed: int, players: int = 3) -> State:
    """A target decision with the end at most a few captures away, from planner play."""
    for state, _ in planner_decisions(seed, players):
        if state.phase is Phase.TARGET and captures_to_end(state) <= 2 and len(state.targets()) > 1:
            return state
    pytest.skip("this game ended before a searched decision")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_states_differing_only_in_face_down_cards_get_the_same_decision(seed: int) -> None:
    state = near_the_end(seed)
    other = reshuffled(state, random.Random(seed + 100))
    assert other.stacks != state.stacks or other.box != state.box
    first = SearchBot(seed=7, rollouts=8).choose(state)
    second = SearchBot(seed=7, rollouts=8).choose(other)
    assert first == second


def test_the_samples_do_not_depend_on_the_face_down_order() -> None:
    state = near_the_end(4)
    other = reshuffled(state, random.Random(5))
    one = sample_hidden(state, random.Random(3))
    two = sample_hidden(other, random.Random(3))
    assert one.stacks == two.stacks and one.box == two.box
    # a sample keeps everything public and deals the hidden cards anew
    assert GAME.observe(one, state.seat) == GAME.observe(state, state.seat)
    assert sorted(c for s in one.stacks for c in s) + sorted(one.box) != []
    assert sorted([*(c for s in one.stacks for c in s), *one.box]) == sorted(
        [*(c for s in state.stacks for c in s), *state.box]
    )


def test_samples_differ_between_draws() -> None:
    state = near_the_end(6)
    rng = random.Random(0)
    draws = {(sample_hidden(state, rng).stacks, sample_hidden(state, rng).box) for _ in range(5)}
    assert len(draws) > 1


def test_the_same_seed_gives_the_same_game_and_the_bot_plays_legally() -> None:
    def game(seed: int) -> tuple[int, ...]:
        rng = random.Random(seed)
        bots = [PlannerBot(), PlannerBot(), SearchBot(seed=seed, rollouts=4)]
        start = GAME.start(Variant(players=3), rng)
        final = play_out(start, [bot.choose for bot in bots], rng).final  # checks legality
        assert final.is_terminal
        return final.scores

    assert game(11) == game(11)


def test_the_search_changes_some_decisions_the_planner_would_make() -> None:
    """Near the end the rollouts overrule the planner's VP values at least sometimes (else
    the search would be a costly copy of the planner)."""
    differ = 0
    for seed in range(1, 9):
        try:
            state = near_the_end(seed)
        except pytest.skip.Exception:
            continue
        if SearchBot(seed=seed).choose(state) != PlannerBot().choose(state):
            differ += 1
    assert differ > 0


def test_far_from_the_end_the_planner_decides() -> None:
    state = new_game(Variant(players=3))
    assert captures_to_end(state) > 3
    assert SearchBot(seed=1).choose(state) == PlannerBot().choose(state)


def test_captures_to_end_counts_the_smallest_stacks() -> None:
    state = new_game(Variant(players=2))
    assert captures_to_end(state) == 4  # two stacks of two cards
    emptied = replace(state, stacks=((), *state.stacks[1:]))
    assert captures_to_end(emptied) == 2
    assert captures_to_end(replace(state, end_triggered=True)) == 0


def test_the_bot_is_registered_for_the_server_terminal_and_review() -> None:
    spec = bot_spec("attacks", "search")
    assert spec.solves  # the server asks its solve pool, never its own threads
    bot = make_bot("attacks", "search", seed=1)
    assert isinstance(bot, SearchBot)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        SearchBot(rollouts=0)


def ending_declarations(seeds: range) -> list[tuple[State, str, bool]]:
    """Target decisions of planner games where the planner declares a card whose capture
    would trigger the end: (state, the card's slug, whether the capture puts it ahead)."""
    found = []
    for seed in seeds:
        for state, move in planner_decisions(seed):
            if state.phase is Phase.TARGET and not state.end_triggered:
                values = Values(state)
                card = next(c for c in state.targets() if state.slug(c) == move.card)
                extra = state.card(card).ability in EXTRA_TURNS
                if values._ends_game(card) and not extra:
                    found.append((state, move.card, values._takes_lead(state.card(card).vp)))
    return found


def test_the_search_never_ends_the_game_behind_and_values_ending_it_ahead() -> None:
    """The end-aware values: a capture that triggers the end while the player stays behind
    loses (the player takes no other turn), so the search's planner aims elsewhere when it
    can; one that puts the player ahead is worth CLOSING more."""
    found = ending_declarations(range(1, 13))
    behind = [(s, slug) for s, slug, lead in found if not lead]
    ahead = [(s, slug) for s, slug, lead in found if lead]
    assert len(behind) >= 5 and len(ahead) >= 5
    aware = PlannerBot(closing=CLOSING)
    elsewhere = 0
    for state, slug in behind:
        card = next(c for c in state.targets() if state.slug(c) == slug)
        goal = Values(state, closing=CLOSING).problem.goals[state.targets().index(card)]
        assert goal.capture == -ENDGAME
        others = [c for c in state.targets() if c != card]
        choice = aware.choose(state)
        assert choice == SearchBot(seed=1, closing=CLOSING, horizon=-1).choose(state)
        if others:
            elsewhere += choice != act.Target(slug)
    assert elsewhere >= len(behind) // 2
    for state, slug in ahead:
        card = next(c for c in state.targets() if state.slug(c) == slug)
        index = state.targets().index(card)
        plain = Values(state).problem.goals[index].capture
        aware_goal = Values(state, closing=CLOSING).problem.goals[index]
        assert aware_goal.capture == pytest.approx(plain + CLOSING)
        # the planner's choice or another capture that ends the game ahead, valued as much more
        choice = aware.choose(state)
        chosen = next(c for c in state.targets() if act.Target(state.slug(c)) == choice)
        values = Values(state)
        assert values._ends_game(chosen) and values._takes_lead(state.card(chosen).vp)
    # the planner's own values are unchanged: the search's are an option of the planner
    state, slug = behind[0]
    assert PlannerBot().choose(state) == act.Target(slug)


def extra_turn_declarations(seeds: range) -> list[State]:
    """Target declarations with San Francisco or Indianapolis face up (planner play)."""
    found = []
    for seed in seeds:
        for state, _ in planner_decisions(seed):
            if state.phase is Phase.TARGET and not state.end_triggered:
                abilities = {state.card(c).ability for c in state.targets()}
                if abilities & set(EXTRA_TURNS):
                    found.append(state)
    return found


def test_the_search_values_an_extra_turn_at_twice_the_planners_value() -> None:
    """San Francisco's and Indianapolis's extra turn is worth SEARCH_EXTRA_TURN VP to the
    search's planner, EXTRA_TURN to the planner's own; nothing else changes, and the higher
    value changes some declarations."""
    found = extra_turn_declarations(range(1, 9))
    assert len(found) >= 10
    search = SearchBot(seed=1, horizon=-1)
    assert search.planner.extra_turn == SEARCH_EXTRA_TURN > EXTRA_TURN
    assert PlannerBot().extra_turn == EXTRA_TURN
    changed = 0
    for state in found:
        plain = Values(state, closing=CLOSING)
        valued = search.planner.values_for(state)
        pairs = zip(plain.problem.goals, valued.problem.goals, strict=True)
        for card, (a, b) in zip(state.targets(), pairs, strict=True):
            if state.card(card).ability in EXTRA_TURNS:
                step = SEARCH_EXTRA_TURN - EXTRA_TURN
                assert valued.worth(card) == pytest.approx(plain.worth(card) + step)
                assert b.capture > a.capture
            else:
                assert b == a
        changed += search.choose(state) != PlannerBot(closing=CLOSING).choose(state)
    assert changed >= 1


@pytest.mark.parametrize("weight", [0.0, 0.01, 0.5])
def test_a_rollout_scores_the_win_plus_the_lead_weight_times_the_final_lead(weight: float) -> None:
    rng = random.Random(5)
    final = as_state(
        play_out(GAME.start(Variant(players=3), rng), [PlannerBot().choose] * 3, rng).final
    )
    for seat in range(3):
        lead = final.scores[seat] - max(v for i, v in enumerate(final.scores) if i != seat)
        result = SearchBot(lead=weight)._rollout(final, seat, random.Random(1))
        assert result == pytest.approx(final.returns()[seat] + weight * lead)
