"""Martian Dice rules: the rulebook's sample turn, scoring, the end of the game, roll-offs."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from conftest import bust_turn, roll, scoring_turn, take
from marsdice.core import CHANCE, TERMINAL, IllegalActionError, VariantError
from marsdice.martian import (
    CONTINUE,
    DIE,
    FACES,
    STOP,
    Face,
    Phase,
    Roll,
    RolloffMode,
    Take,
    TurnEnd,
    Variant,
    new_game,
    score_turn,
)


def test_rulebook_sample_turn_scores_5() -> None:
    state = new_game()
    state = roll(state, "TTHHHHRRCCCKK")
    assert state.set_aside[Face.TANK] == 2, "tanks are set aside automatically"
    state = take(state, Face.HUMAN).apply(CONTINUE)
    state = roll(state, "TRRCCCH")
    state = take(state, Face.RAY).apply(CONTINUE)
    state = roll(state, "HHHK")
    assert {a.text() for a in state.legal_actions()} == {"chickens"}, "humans taken already"
    state = take(state, Face.CHICKEN).apply(CONTINUE)
    state = roll(state, "RCH")
    state = take(state, Face.RAY)
    assert state.dice_left == 2
    assert state.turn_score == 5
    state = state.apply(STOP)
    assert state.scores == (5, 0)
    assert state.last_turn is not None
    assert state.last_turn.set_aside == (3, 3, 4, 0, 1)
    assert state.last_turn.reason is TurnEnd.STOPPED
    assert state.seat == 1


def test_more_tanks_than_rays_scores_zero() -> None:
    state = take(roll(new_game(), "TTTRRHHHHCCKK"), Face.HUMAN).apply(STOP)
    assert state.scores == (0, 0)
    assert score_turn((3, 2, 4, 2, 2)) == 0


def test_equal_tanks_and_rays_scores() -> None:
    assert score_turn((3, 3, 2, 0, 0)) == 2


def test_bonus_for_all_three_earthlings() -> None:
    state = take(roll(new_game(), "RRRRRRRRRRHCK"), Face.RAY).apply(CONTINUE)
    state = take(roll(state, "HCK"), Face.HUMAN).apply(CONTINUE)
    state = take(roll(state, "CK"), Face.COW).apply(CONTINUE)
    state = take(roll(state, "K"), Face.CHICKEN)
    assert state.last_turn is not None
    assert state.last_turn.score == 1 + 1 + 1 + 3
    assert state.last_turn.reason is TurnEnd.NO_DICE


def test_turn_that_cannot_choose_still_scores() -> None:
    state = take(roll(new_game(), "RRRRRRRRRRHHC"), Face.RAY).apply(CONTINUE)
    state = take(roll(state, "HHC"), Face.HUMAN).apply(CONTINUE)
    assert state.phase is Phase.ROLL
    state = roll(state, "H")  # only a human again: nothing may be taken
    assert state.last_turn is not None
    assert state.last_turn.reason is TurnEnd.NO_CHOICE
    assert state.scores == (2, 0)
    assert state.seat == 1


def test_turn_with_no_dice_left_goes_to_scoring() -> None:
    state = take(roll(new_game(), "HHHHHHHHHHHHH"), Face.HUMAN)
    assert state.last_turn is not None
    assert state.last_turn.reason is TurnEnd.NO_DICE
    assert state.scores == (13, 0)
    assert state.phase is Phase.ROLL and state.seat == 1


def test_rolling_only_tanks_ends_the_turn() -> None:
    state = bust_turn(new_game())
    assert state.scores == (0, 0) and state.seat == 1
    assert state.last_turn is not None and state.last_turn.reason is TurnEnd.NO_CHOICE


def test_end_triggered_later_players_still_play_first_does_not() -> None:
    state = new_game(Variant(players=3, target=5))
    state = scoring_turn(state, 6)
    assert state.end_triggered and not state.is_terminal and state.seat == 1
    state = scoring_turn(state, 2)
    assert state.seat == 2
    state = scoring_turn(state, 4)
    assert state.is_terminal and state.current_player == TERMINAL
    assert state.turns == (1, 1, 1)
    assert state.winners == (0,)
    assert state.returns() == (1.0, 0.0, 0.0)
    assert state.placings() == (1, 3, 2)


def test_later_player_overtakes() -> None:
    state = new_game(Variant(players=3, target=5))
    state = scoring_turn(state, 5)
    state = scoring_turn(state, 9)
    state = bust_turn(state)
    assert state.is_terminal
    assert state.winners == (1,)
    assert state.scores == (5, 9, 0)


def test_trigger_by_middle_player_completes_round_only() -> None:
    state = new_game(Variant(players=3, target=5))
    state = scoring_turn(state, 2)
    state = scoring_turn(state, 7)
    assert state.end_triggered and state.seat == 2
    state = scoring_turn(state, 3)
    assert state.is_terminal and state.turns == (1, 1, 1)


def test_rolloff_between_two_tied_players() -> None:
    state = new_game(Variant(players=2, target=5))
    state = scoring_turn(scoring_turn(state, 6), 6)
    assert state.phase is Phase.ROLLOFF and state.current_player == CHANCE
    assert state.rolloff_seats == (0, 1)
    assert state.roller == 0 and state.dice_to_roll == 6
    state = roll(state, "RRRTTH")
    assert state.roller == 1
    state = roll(state, "RRHHHH")
    assert state.is_terminal and state.winners == (0,)
    assert state.placings() == (1, 2)


def test_repeated_rolloff_among_the_still_tied_three() -> None:
    state = new_game(Variant(players=3, target=5))
    for _ in range(3):
        state = scoring_turn(state, 7)
    assert state.rolloff_seats == (0, 1, 2)
    state = roll(roll(roll(state, "RRRHHH"), "RRRCCC"), "RHHHHH")
    assert state.phase is Phase.ROLLOFF and state.rolloff_seats == (0, 1)
    assert state.rolloff_history[-1].rays == (3, 3, 1)
    state = roll(roll(state, "RHHHHH"), "RRHHHH")
    assert state.is_terminal and state.winners == (1,)
    assert state.placings() == (2, 1, 2)
    assert len(state.rolloff_history) == 2


def test_single_rolloff_may_share_the_win() -> None:
    state = new_game(Variant(players=2, target=5, rolloff_mode=RolloffMode.SINGLE))
    state = scoring_turn(scoring_turn(state, 5), 5)
    state = roll(roll(state, "RRHHHH"), "RRCCCC")
    assert state.is_terminal and state.winners == (0, 1)
    assert state.returns() == (0.5, 0.5)


def test_solo_challenge_counts_turns() -> None:
    state = new_game(Variant(players=1, target=10))
    state = scoring_turn(state, 6)
    state = bust_turn(state)
    assert not state.is_terminal and state.seat == 0
    state = scoring_turn(state, 4)
    assert state.is_terminal and state.turns == (3,)
    assert state.returns() == (-3.0,)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_chance_outcomes_match_brute_force(n: int) -> None:
    counts: Counter[tuple[int, ...]] = Counter()
    for faces in itertools.product(DIE, repeat=n):
        counts[tuple(faces.count(face) for face in FACES)] += 1
    expected = {c: Fraction(k, 6**n) for c, k in counts.items()}
    state = new_game(Variant(dice=n))
    listed = {r.counts: p for r, p in state.chance_outcomes()}
    assert listed == expected


@pytest.mark.parametrize("n", range(1, 14))
def test_chance_outcomes_sum_to_one(n: int) -> None:
    outcomes = new_game(Variant(dice=n)).chance_outcomes()
    assert sum(p for _, p in outcomes) == 1
    assert len({r.counts for r, _ in outcomes}) == len(outcomes)


def test_rolloff_outcomes_sum_to_one() -> None:
    state = scoring_turn(scoring_turn(new_game(Variant(target=3, rolloff_dice=4)), 3), 3)
    outcomes = state.chance_outcomes()
    assert all(r.dice == 4 for r, _ in outcomes)
    assert sum(p for _, p in outcomes) == 1


def test_illegal_take_raises_and_says_what_is_legal() -> None:
    state = take(roll(new_game(), "RRRRRRRRRRHHH"), Face.HUMAN).apply(CONTINUE)
    state = roll(state, "RRRRRRRHHC")
    before = state
    with pytest.raises(IllegalActionError, match="humans were already set aside") as info:
        state.apply(Take(Face.HUMAN))
    assert "legal: rays, cows" in str(info.value)
    assert state == before
    with pytest.raises(IllegalActionError, match="tanks are set aside automatically"):
        state.apply(Take(Face.TANK))
    with pytest.raises(IllegalActionError, match="no chickens were rolled"):
        state.apply(Take(Face.CHICKEN))
    with pytest.raises(IllegalActionError, match="not a move of the choose phase"):
        state.apply(STOP)


def test_illegal_roll_size_and_moves_after_the_end() -> None:
    state = new_game()
    with pytest.raises(IllegalActionError, match="exactly 13 dice"):
        state.apply(Roll.parse("TTR"))
    with pytest.raises(IllegalActionError, match="not a move of the roll phase"):
        state.apply(STOP)
    over = scoring_turn(scoring_turn(new_game(Variant(target=1)), 3), 1)
    with pytest.raises(IllegalActionError, match="game is over"):
        over.apply(STOP)
    assert over.legal_actions() == ()


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"players": 0}, "^players must be 1-10"),
        ({"players": 11}, "^players must be 1-10"),
        ({"target": 0}, "^target must be 1-100, got 0"),
        ({"target": 101}, "^target must be 1-100, got 101"),
        ({"dice": 0}, "^dice must be 1-20, got 0"),
        ({"dice": 21}, "^dice must be 1-20, got 21"),
        ({"rolloff_dice": 0}, "^rolloff_dice must be 1-20, got 0"),
        ({"rolloff_dice": 21}, "^rolloff_dice must be 1-20, got 21"),
        ({"target": "25"}, "^target must be a whole number, got '25'"),
        ({"dice": True}, "^dice must be a whole number, got True"),
        ({"rolloff_mode": "sudden"}, "^rolloff_mode must be one of repeat, single"),
    ],
)
def test_bad_variant_is_rejected(settings: dict[str, object], message: str) -> None:
    with pytest.raises(VariantError, match=message):
        Variant(**settings)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "settings",
    [
        {"players": 1},
        {"players": 10},
        {"target": 1},
        {"target": 100},
        {"dice": 1},
        {"dice": 20},
        {"rolloff_dice": 1},
        {"rolloff_dice": 20},
    ],
)
def test_the_ends_of_the_accepted_ranges(settings: dict[str, int]) -> None:
    variant = Variant(**settings)  # type: ignore[arg-type]
    assert all(getattr(variant, key) == value for key, value in settings.items())


def test_the_takes_offered_and_accepted_are_allowed_faces_for_every_roll() -> None:
    """The engine's quick table of takes (a mask of the four faces) and its check of a take
    agree with :func:`allowed_faces` for every roll of up to 6 dice after every set-aside
    of up to 4, and one set of faces is always the same tuple (adapters key on it)."""
    from marsdice.core.dice import compositions
    from marsdice.martian import allowed_faces, position

    seen: dict[tuple[Face, ...], tuple[Take, ...]] = {}
    for aside_dice in range(5):
        for aside in compositions(aside_dice, len(FACES)):
            if aside_dice and aside[Face.TANK] == aside_dice:
                continue  # only tanks set aside: no decision was ever made
            for rolled in itertools.chain.from_iterable(
                compositions(n, len(FACES)) for n in range(1, 7)
            ):
                allowed = allowed_faces(rolled, (aside[0] + rolled[0], *aside[1:]))
                if not allowed:
                    continue
                variant = Variant(dice=aside_dice + sum(rolled))
                state = position(variant, (0, 0), set_aside=aside, rolled=rolled)
                offered = state.legal_actions()
                assert [t.face for t in offered] == list(allowed)
                assert seen.setdefault(allowed, offered) is offered
                for face in FACES:
                    if face in allowed:
                        assert state.apply(Take(face)).events[0].face == face
                    else:
                        with pytest.raises(IllegalActionError):
                            state.apply(Take(face))
