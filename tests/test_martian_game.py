"""The MartianDice Game object: settings as JSON, records' opening, player views, integer
encodings, bots; properties over generated positions (not only seeded games)."""

from __future__ import annotations

import json
import random
from collections import Counter
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from conftest import roll, scoring_turn
from marsdice.bots.martian_heuristic import CautiousBot
from marsdice.core import RecordError, VariantError
from marsdice.core.game import JSON, Game, GameState
from marsdice.core.record import GameRecord
from marsdice.games import registration
from marsdice.martian import (
    CONTINUE,
    GAME,
    MAX_DICE,
    STOP,
    Face,
    MartianDice,
    Phase,
    Roll,
    RolloffMode,
    State,
    Take,
    Variant,
    new_game,
    position,
)


def test_the_game_object() -> None:
    assert isinstance(GAME, Game) and isinstance(GAME, MartianDice)
    assert (GAME.name, GAME.title, GAME.min_players, GAME.max_players) == (
        "martian",
        "Martian Dice",
        1,
        10,
    )
    entry = registration(GAME)
    assert [spec.name for spec in entry.bots] == ["winprob", "expected", "cautious", "random"]
    assert entry.default_opponent == "winprob"
    assert entry.view == "marsdice.cli.martian_view:VIEW"
    assert GAME.default_variant(3) == Variant(players=3)


@pytest.mark.parametrize(
    "variant",
    [
        Variant(),
        Variant(players=1, target=1, dice=1, rolloff_dice=1),
        Variant(players=10, target=100, dice=20, rolloff_dice=20, rolloff_mode=RolloffMode.SINGLE),
    ],
)
def test_variant_params_round_trip_through_json(variant: Variant) -> None:
    params = GAME.variant_to_params(variant)
    assert set(params) == {"players", "target", "dice", "rolloff_dice", "rolloff_mode"}
    assert GAME.variant_from_params(json.loads(json.dumps(params))) == variant


def test_missing_params_take_the_defaults() -> None:
    assert GAME.variant_from_params({}) == Variant()
    assert GAME.variant_from_params({"players": 4}) == Variant(players=4)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"players": 0}, "players"),
        ({"players": 11}, "players"),
        ({"players": "2"}, "players"),
        ({"target": 0}, "target"),
        ({"target": 101}, "target"),
        ({"target": 2.5}, "target"),
        ({"target": None}, "target"),
        ({"dice": 21}, "dice"),
        ({"dice": True}, "dice"),
        ({"rolloff_dice": 0}, "rolloff_dice"),
        ({"rolloff_dice": 21}, "rolloff_dice"),
        ({"rolloff_mode": "sudden"}, "rolloff_mode"),
        ({"rolloff_mode": 1}, "rolloff_mode"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_params_name_the_field(params: dict[str, JSON], field: str) -> None:
    with pytest.raises(VariantError) as info:
        GAME.variant_from_params(params)
    assert str(info.value).startswith(f"{field} ")


def test_setup_tags_and_opening() -> None:
    start = new_game(Variant(players=3, target=30, dice=10, rolloff_dice=4))
    tags = GAME.setup_tags(start)
    assert [key for key, _ in tags] == ["Target", "Dice", "RolloffDice", "RolloffMode"]
    record = GameRecord("martian", ("A", "B", "C"), tags)
    assert GAME.opening(record) == start
    bare = GameRecord("martian", ("A",))
    assert GAME.opening(bare) == new_game(Variant(players=1))
    with pytest.raises(RecordError, match="bad variant in record: target must be 1-100"):
        GAME.opening(GameRecord("martian", ("A", "B"), (("Target", "500"),)))
    with pytest.raises(RecordError, match="not a Martian Dice record"):
        GAME.opening(GameRecord("attacks", ("A", "B")))


def test_result_text() -> None:
    names = ("Ann", "Bob")
    state = new_game(Variant(target=5))
    assert GAME.result_text(state, names) == "Ann 0, Bob 0: unfinished"
    tied = scoring_turn(scoring_turn(state, 5), 5)
    assert GAME.result_text(tied, names) == "Ann 5, Bob 5: roll-off pending"
    over = roll(roll(tied, "RRRHHH"), "RRRHHH")
    assert GAME.result_text(over, names) == "Ann 5, Bob 5: roll-off pending"
    over = roll(roll(over, "RHHHHH"), "RRHHHH")
    assert GAME.result_text(over, names) == "Ann 5, Bob 5: Bob wins"


# --- views ---------------------------------------------------------------------------------


def test_everyone_sees_the_same_table_and_only_the_mover_gets_actions() -> None:
    state = roll(new_game(Variant(players=3)), "TTHHHHRRCCCKK")
    views = {viewer: GAME.observe(state, viewer) for viewer in (None, 0, 1, 2)}
    for viewer, view in views.items():
        assert {"board", "events", "legal_actions", "rounds", "scores"} <= set(view)
        assert view["viewer"] == viewer and view["game"] == "martian"
        json.dumps(view)
    assert views[0]["legal_actions"] == ["rays", "humans", "cows", "chickens"]
    assert views[None]["legal_actions"] == views[1]["legal_actions"] == []

    def without_viewer(view: dict[str, JSON]) -> dict[str, JSON]:
        return {k: v for k, v in view.items() if k not in ("viewer", "legal_actions")}

    assert without_viewer(views[None]) == without_viewer(views[0]) == without_viewer(views[2])
    board = views[None]["board"]
    assert isinstance(board, dict)
    assert board["rolled"] == [2, 2, 4, 3, 2]
    assert board["set_aside"] == [2, 0, 0, 0, 0]
    assert (board["tanks"], board["rays"], board["turn_score"]) == (2, 0, 0)
    assert (board["target"], board["dice_left"], board["end_triggered"]) == (25, 11, False)
    assert views[None]["events"] == [
        {"type": "rolled", "seat": 0, "counts": [2, 2, 4, 3, 2], "tanks": 2, "first": True}
    ]
    assert (views[None]["phase"], views[None]["rounds"]) == ("choose", 1)


def test_chance_nodes_offer_no_actions_and_viewers_are_checked() -> None:
    state = scoring_turn(scoring_turn(new_game(Variant(target=3)), 3), 3)
    view = GAME.observe(state, 0)
    assert view["legal_actions"] == [] and view["current_player"] == -1
    rolloff = view["board"]
    assert isinstance(rolloff, dict) and rolloff["rolloff"] == {
        "seats": [0, 1],
        "rays": [],
        "roller": 0,
        "dice": 6,
        "mode": "repeat",
        "history": [],
    }
    with pytest.raises(ValueError, match="viewer must be a seat 0-1"):
        GAME.observe(state, 2)


# --- encodings -----------------------------------------------------------------------------


def test_the_action_space() -> None:
    state = new_game()
    assert GAME.num_actions(Variant()) == 6
    decoded = [GAME.decode_action(state, i) for i in range(6)]
    assert [a.text() for a in decoded] == ["rays", "humans", "cows", "chickens", "stop", "roll"]
    assert [GAME.encode_action(state, a) for a in decoded] == list(range(6))
    for bad in (-1, 6):
        with pytest.raises(ValueError, match="action index must be 0-5"):
            GAME.decode_action(state, bad)
    with pytest.raises(ValueError, match="not a Martian Dice player action"):
        GAME.encode_action(state, Take(Face.TANK))
    with pytest.raises(ValueError, match="not a Martian Dice player action"):
        GAME.encode_action(state, Roll((1, 0, 0, 0, 0)))
    choose = roll(new_game(), "TTHHHHRRCCCKK")
    assert GAME.legal_mask(choose) == (True, True, True, True, False, False)
    decide = choose.apply(Take(Face.COW))
    assert GAME.legal_mask(decide) == (False,) * 4 + (True, True)
    assert GAME.legal_mask(new_game()) == (False,) * 6


@pytest.mark.parametrize(
    "variant",
    [Variant(dice=1, rolloff_dice=1), Variant(dice=3, rolloff_dice=6), Variant(dice=MAX_DICE)],
)
def test_every_chance_outcome_round_trips(variant: Variant) -> None:
    state = new_game(variant)
    most = max(variant.dice, variant.rolloff_dice)
    size = GAME.num_chance_outcomes(variant)
    assert size == sum(comb(n + 4, 4) for n in range(1, most + 1))
    rolls = [GAME.decode_chance(state, i) for i in range(size)]
    assert len(set(rolls)) == size
    assert all(GAME.encode_chance(state, r) == i for i, r in enumerate(rolls))
    with pytest.raises(ValueError, match="chance index"):
        GAME.decode_chance(state, size)
    # each roll of n dice in the order chance_outcomes lists them, n by n
    listed = [r for r, _ in state.chance_outcomes()]
    first = GAME.encode_chance(state, listed[0])
    assert [GAME.encode_chance(state, r) for r in listed] == list(range(first, first + len(listed)))
    with pytest.raises(ValueError, match=f"not a roll of 1-{most} dice"):
        GAME.encode_chance(state, Roll((most + 1, 0, 0, 0, 0)))


# --- bots ----------------------------------------------------------------------------------


class OtherGameState:
    """Stands for a state of another game."""


def test_bots_refuse_another_games_state() -> None:
    with pytest.raises(TypeError, match="not a Martian Dice state"):
        CautiousBot().choose(OtherGameState())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a Martian Dice state"):
        GAME.observe(OtherGameState(), None)  # type: ignore[arg-type]


# --- the sampler ---------------------------------------------------------------------------


@pytest.mark.parametrize("dice", [1, 2, 3])
def test_the_sampler_follows_the_chance_outcomes(dice: int) -> None:
    """Chi-square of 6,000 seeded rolls against the exact distribution: a die missing a face
    (never a chicken, say) or a biased die fails it."""
    state = new_game(Variant(dice=dice))
    outcomes = state.chance_outcomes()
    rng = random.Random(dice)
    samples = 6000
    seen = Counter(state.sample_chance(rng) for _ in range(samples))
    assert set(seen) <= {r for r, _ in outcomes}
    observed = [seen[r] for r, _ in outcomes]
    expected = [float(p) * samples for _, p in outcomes]
    assert chisquare(observed, expected).pvalue > 0.001


# --- properties over generated positions ---------------------------------------------------


@st.composite
def positions(draw: st.DrawFn) -> State:
    """A decision anywhere in a game: any variant, scoreboard, seat, dice set aside and roll."""
    players = draw(st.integers(1, 6))
    target = draw(st.integers(1, 100))
    dice = draw(st.integers(1, MAX_DICE))
    variant = Variant(
        players=players,
        target=target,
        dice=dice,
        rolloff_dice=draw(st.integers(1, MAX_DICE)),
        rolloff_mode=draw(st.sampled_from(list(RolloffMode))),
    )
    scores = tuple(draw(st.lists(st.integers(0, target - 1), min_size=players, max_size=players)))
    seat = draw(st.integers(0, players - 1))
    aside = draw(st.integers(0, dice - 1))
    cuts = sorted(draw(st.lists(st.integers(0, aside), min_size=4, max_size=4)))
    set_aside = tuple(b - a for a, b in zip([0, *cuts], [*cuts, aside], strict=True))
    left = dice - aside
    rolled = None
    if draw(st.booleans()):
        cuts = sorted(draw(st.lists(st.integers(0, left), min_size=4, max_size=4)))
        rolled = tuple(b - a for a, b in zip([0, *cuts], [*cuts, left], strict=True))
    try:
        return position(
            variant,
            scores,
            seat=seat,
            set_aside=set_aside,
            rolled=rolled,
            end_triggered=players > 1 and draw(st.booleans()),
        )
    except VariantError:
        # cannot arise in play (no roll after tanks alone; a roll with nothing to take)
        from hypothesis import reject

        reject()


def check_encodings(state: GameState, rng: random.Random) -> None:
    """Legal actions and chance outcomes encode and decode back (a sample of a big roll's)."""
    if state.is_chance_node:
        outcomes = [outcome for outcome, _ in state.chance_outcomes()]
        for outcome in outcomes if len(outcomes) <= 100 else rng.sample(outcomes, 100):
            index = GAME.encode_chance(state, outcome)
            assert GAME.decode_chance(state, index) == outcome
    elif not state.is_terminal:
        mask = GAME.legal_mask(state)
        assert sum(mask) == len(state.legal_actions())
        for action in state.legal_actions():
            index = GAME.encode_action(state, action)
            assert mask[index] and GAME.decode_action(state, index) == action


@settings(max_examples=150, deadline=None)
@given(state=positions(), seed=st.integers(0, 2**32))
def test_generated_positions_keep_the_contract(state: State, seed: int) -> None:
    rng = random.Random(seed)
    assert state.phase in (Phase.CHOOSE, Phase.DECIDE)
    for action in state.legal_actions():
        assert state.parse_action(action.text()) == action
        after = state.apply(action)
        assert after.events
        assert all(a >= b for a, b in zip(after.scores, state.scores, strict=True))
        json.dumps(GAME.observe(after, None))
    check_encodings(state, rng)
    # and play on at random (to the end of the game, or 150 steps), keeping the contract
    for _ in range(150):
        if state.is_terminal:
            assert state.winners and state.placings().count(1) == len(state.winners)
            assert state.variant.solo or sum(state.returns()) == pytest.approx(1.0)
            break
        check_encodings(state, rng)
        if state.is_chance_node:
            action = state.sample_chance(rng)
            assert any(action == r for r, _ in state.chance_outcomes())
        else:
            action = rng.choice(state.legal_actions())
        state = state.apply(action)
        assert GAME.observe(state, None)["events"] == [e.to_json() for e in state.events]


def test_stop_and_roll_apply_at_a_decision() -> None:
    state = position(Variant(), (3, 4), set_aside=(1, 2, 3, 0, 0))
    assert state.apply(STOP).scores == (6, 4)
    assert state.apply(CONTINUE).dice_to_roll == 7
