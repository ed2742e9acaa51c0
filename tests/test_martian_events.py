"""Martian Dice events: what each step did, as typed values with JSON forms; rounds; actions of
another game refused."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from conftest import roll, scoring_turn, take
from marsdice.core import IllegalActionError
from marsdice.martian import CONTINUE, GAME, STOP, Face, TurnEnd, Variant, new_game
from marsdice.martian.events import (
    Continued,
    GameOver,
    LastRound,
    Rolled,
    RolloffBegun,
    RolloffDecided,
    RolloffRolled,
    Took,
    TurnScored,
)


def test_a_scripted_game_produces_its_events() -> None:
    state = new_game(Variant(players=2, target=4))
    assert state.events == ()
    state = roll(state, "TTHHHHRRCCCKK")
    assert state.events == (Rolled(0, (2, 2, 4, 3, 2), 2, first=True),)
    state = take(state, Face.HUMAN)
    assert state.events == (Took(0, Face.HUMAN, 4),)
    state = state.apply(CONTINUE)
    assert state.events == (Continued(0, 7),)
    state = roll(state, "TRRRCCK")
    assert state.events == (Rolled(0, (1, 3, 0, 2, 1), 1, first=False),)
    state = take(state, Face.RAY)
    assert state.events == (Took(0, Face.RAY, 3),)
    state = state.apply(STOP)
    assert state.events == (
        TurnScored(0, (3, 3, 4, 0, 0), 4, TurnEnd.STOPPED, 4, tanks_beat_rays=False, bonus=False),
        LastRound(0, 4, 4, remaining=(1,)),
    )
    state = roll(state, "T" * 13)
    assert state.events == (
        Rolled(1, (13, 0, 0, 0, 0), 13, first=True),
        TurnScored(1, (13, 0, 0, 0, 0), 0, TurnEnd.NO_CHOICE, 0, tanks_beat_rays=True, bonus=False),
        GameOver((0,), (4, 0)),
    )


def test_events_as_json() -> None:
    scored = TurnScored(0, (3, 3, 4, 0, 1), 5, TurnEnd.STOPPED, 5, False, False)
    assert scored.to_json() == {
        "type": "turn_scored",
        "seat": 0,
        "set_aside": [3, 3, 4, 0, 1],
        "score": 5,
        "reason": "stopped",
        "total": 5,
        "tanks_beat_rays": False,
        "bonus": False,
    }
    assert Took(1, Face.CHICKEN, 2).to_json() == {
        "type": "took",
        "seat": 1,
        "face": 4,
        "count": 2,
    }
    assert Rolled(0, (1, 0, 0, 0, 0), 1, True).to_json()["type"] == "rolled"
    assert RolloffDecided((0, 2), (3, 1), (0,)).to_json() == {
        "type": "rolloff_round",
        "seats": [0, 2],
        "rays": [3, 1],
        "best": [0],
    }
    assert GameOver((0, 1), (7, 7)).to_json() == {
        "type": "game_over",
        "winners": [0, 1],
        "scores": [7, 7],
    }


def test_the_bonus_and_a_turn_with_no_dice_left() -> None:
    state = take(roll(new_game(), "RRRRRRRRRRHCK"), Face.RAY).apply(CONTINUE)
    state = take(roll(state, "HCK"), Face.HUMAN).apply(CONTINUE)
    state = take(roll(state, "CK"), Face.COW).apply(CONTINUE)
    state = take(roll(state, "K"), Face.CHICKEN)
    assert state.events == (
        Took(0, Face.CHICKEN, 1),
        TurnScored(0, (0, 10, 1, 1, 1), 6, TurnEnd.NO_DICE, 6, tanks_beat_rays=False, bonus=True),
    )
    assert GAME.describe_step(state, state, ("Ann", "Bob")) == (
        "Ann scores 6 (no dice, +3 bonus), total 6"
    )


def test_no_bonus_when_the_tanks_win() -> None:
    state = take(roll(new_game(), "TTTTTHHHHHRRR"), Face.HUMAN).apply(CONTINUE)
    state = take(roll(state, "TCK"), Face.COW).apply(CONTINUE)
    state = take(roll(state, "K"), Face.CHICKEN)
    assert state.events[-1] == TurnScored(
        0, (6, 0, 5, 1, 1), 0, TurnEnd.NO_DICE, 0, tanks_beat_rays=True, bonus=False
    )
    assert GAME.describe_step(state, state, ("Ann", "Bob")) == (
        "Ann scores 0 (0 rays vs 6 tanks), total 0"
    )


def test_the_roll_off_events() -> None:
    state = scoring_turn(scoring_turn(new_game(Variant(players=2, target=5)), 6), 6)
    assert state.events[-1] == RolloffBegun((0, 1), 6, round=1)
    state = roll(state, "RRRTTH")
    assert state.events == (RolloffRolled(0, (2, 3, 1, 0, 0), 3),)
    state = roll(state, "RRRHHH")
    assert state.events == (
        RolloffRolled(1, (0, 3, 3, 0, 0), 3),
        RolloffDecided((0, 1), (3, 3), best=(0, 1)),
        RolloffBegun((0, 1), 6, round=2),
    )
    state = roll(roll(state, "RRHHHH"), "RHHHHH")
    assert state.events == (
        RolloffRolled(1, (0, 1, 5, 0, 0), 1),
        RolloffDecided((0, 1), (2, 1), best=(0,)),
        GameOver((0,), (6, 6)),
    )
    assert state.rounds == 1, "a roll-off starts no round"
    names = ("Ann", "Bob")
    assert GAME.describe_step(state, state, names) == "roll-off: Bob rolls 1 death rays"


def test_no_last_round_for_the_last_seat_or_solo() -> None:
    state = scoring_turn(new_game(Variant(players=2, target=5)), 2)
    state = scoring_turn(state, 6)
    assert not any(isinstance(e, LastRound) for e in state.events)
    assert isinstance(state.events[-1], GameOver)
    solo = scoring_turn(new_game(Variant(players=1, target=5)), 6)
    assert [type(e) for e in solo.events] == [TurnScored, GameOver]


def test_rounds_begun() -> None:
    state = new_game(Variant(players=3, target=5))
    assert state.rounds == 1 and state.players == 3
    state = scoring_turn(state, 1)
    assert state.rounds == 1
    state = scoring_turn(scoring_turn(state, 1), 1)
    assert state.rounds == 2 and state.turns == (1, 1, 1)
    state = scoring_turn(scoring_turn(scoring_turn(state, 6), 1), 1)
    assert state.is_terminal and state.rounds == 2


def test_every_step_of_a_random_game_says_what_it_did() -> None:
    import random

    rng = random.Random(4)
    state = new_game(Variant(players=3, target=10))
    while not state.is_terminal:
        action = (
            state.sample_chance(rng) if state.is_chance_node else rng.choice(state.legal_actions())
        )
        after = state.apply(action)
        assert after.events, f"no events after {action.text()}"
        json.dumps([e.to_json() for e in after.events])
        ended = any(isinstance(e, TurnScored | RolloffRolled) for e in after.events)
        assert (GAME.describe_step(state, after, ("A", "B", "C")) is not None) == ended
        state = after


@dataclass(frozen=True)
class Foreign:
    """An action of some other game."""

    def text(self) -> str:
        return "bomb"


def test_an_action_of_another_game_is_refused() -> None:
    state = new_game()
    with pytest.raises(IllegalActionError, match="'bomb': it is not a Martian Dice action"):
        state.apply(Foreign())
