"""Mars Attacks under random legal play and random settings (hypothesis), and records."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from marsdice.attacks import (
    TOKENS,
    BombedRule,
    Difficulty,
    Phase,
    RerollRule,
    State,
    Variant,
    builtin_cards,
)
from marsdice.attacks import record as attacks_record
from marsdice.core import RecordError
from marsdice.core.record import GameRecord
from marsdice.games import game_module, read_record

variants = st.builds(
    Variant,
    players=st.integers(2, 6),
    difficulty=st.sampled_from(list(Difficulty)),
    bombed=st.sampled_from(list(BombedRule)),
    reroll=st.sampled_from(list(RerollRule)),
    end_stacks=st.integers(1, 4),
)


def random_game(variant: Variant, seed: int) -> tuple[list[State], list[str]]:
    rng = random.Random(seed)
    state = attacks_record.start(variant, rng)
    states, moves = [state], []
    while not state.is_terminal:
        action = (
            state.sample_chance(rng) if state.is_chance_node else rng.choice(state.legal_actions())
        )
        state = state.apply(action)
        states.append(state)
        moves.append(action.text())
        assert len(moves) < 20_000, "the game should end"
    return states, moves


def check_invariants(state: State) -> None:
    everywhere = [c for stack in state.stacks for c in stack] + list(state.box)
    everywhere += [c for cards in state.owned for c in cards]
    assert sorted(everywhere) == list(range(len(state.variant.cards)))
    face_up = {c for c in state.face_up if c is not None}
    for seat, mine in enumerate(state.tokens):
        assert len(mine) <= TOKENS
        for card, value in mine:
            assert card in face_up, "tokens stand on face-up cards only"
            assert 1 <= value < state.card(card).requirement
        assert state.scores[seat] == sum(state.card(c).vp for c in state.owned[seat])
    if state.phase in (Phase.DECIDE, Phase.TORONTO):
        assert sum(state.dice) == 10
        assert state.target is not None and state.target in face_up


@settings(max_examples=40, deadline=None)
@given(variant=variants, seed=st.integers(0, 2**32))
def test_random_play_never_raises_and_keeps_the_invariants(variant: Variant, seed: int) -> None:
    states, moves = random_game(variant, seed)
    final = states[-1]
    assert final.is_terminal and final.winners
    assert final.empty_stacks >= variant.end_stacks or not final.targets()
    for before, after in itertools.pairwise(states):
        check_invariants(after)
        assert all(b <= a for b, a in zip(before.scores, after.scores, strict=True))
    assert all(s.parse_action(m) in s.legal_actions() for s, m in zip(states, moves, strict=False))


@settings(max_examples=15, deadline=None)
@given(variant=variants, seed=st.integers(0, 2**32))
def test_a_record_replays_to_the_same_game(variant: Variant, seed: int) -> None:
    states, moves = random_game(variant, seed)
    names = [f"P{i}" for i in range(variant.players)]
    record = attacks_record.make_record(names, states[0], moves, (("Seed", str(seed)),))
    text = attacks_record.dumps(record)
    module, back = read_record(text)
    assert module is game_module("attacks")
    assert back == record
    assert module.replay(back) == states


def test_a_record_with_a_users_card_set_carries_the_cards() -> None:
    # a user's file without placeholder flags (records do not carry them)
    cards = tuple(replace(c, placeholder=()) for c in builtin_cards() if c.name != "Chicago")
    variant = Variant(players=3, cards=cards)
    states, moves = random_game(variant, 7)
    record = attacks_record.make_record(["A", "B", "C"], states[0], moves)
    assert record.tag("Cards") == "28" and (record.tag("Card1") or "").startswith(
        "Seattle|city|ray"
    )
    assert attacks_record.replay(GameRecord.loads(record.dumps()))[-1] == states[-1]


def test_result_tag_and_commentary_describe_the_game() -> None:
    states, moves = random_game(Variant(players=2), 3)
    record = attacks_record.make_record(["Ann", "Bob"], states[0], moves)
    result = record.tag("Result") or ""
    assert result.startswith("Ann ") and ("Ann wins" in result or "Bob wins" in result)
    text = attacks_record.dumps(record)
    assert any(word in text for word in ("captures", "is bombed", "stops on"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("Stack1", "miami,gotham"), "bad deal in record: stack 1: no card called 'gotham'"),
        (("Difficulty", "brutal"), "bad variant in record"),
        (("EndStacks", "two"), "tag EndStacks must be a whole number"),
        (("Cards", "2"), r"\[Cards '2'\] but no \[Card1"),
    ],
)
def test_bad_records_are_refused_with_a_clear_message(
    change: tuple[str, str], message: str
) -> None:
    states, moves = random_game(Variant(players=2), 1)
    record = attacks_record.make_record(["A", "B"], states[0], moves)
    tags = tuple((k, change[1] if k == change[0] else v) for k, v in record.tags)
    with pytest.raises(RecordError, match=message):
        attacks_record.replay(GameRecord(record.game, record.players, tags, record.moves))


def test_a_move_that_does_not_replay_is_named() -> None:
    states, moves = random_game(Variant(players=2), 1)
    record = attacks_record.make_record(["A", "B"], states[0], moves)
    broken = record.with_moves([*moves[:1], "stop", *moves[2:]])
    with pytest.raises(RecordError, match=r"move 2 \('stop'\)"):
        attacks_record.replay(broken)
    with pytest.raises(RecordError, match="no \\[Stack2"):
        attacks_record.replay(GameRecord("attacks", ("A", "B"), (("Stack1", "miami"),), ()))
