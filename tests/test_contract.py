"""The game contract, checked the same way over every registered game and a spread of variants.

Whatever a game's rules, the layers above (tournaments, the terminal game, the server, the
research adapters) rely on these facts: every legal action applies; notation round-trips;
chance is exact (probabilities sum to exactly 1) and the sampler follows it (chi-square);
records round-trip; returns agree with the ranking; views are JSON-ready and offer actions only
to the seat to act; integer encodings round-trip.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from marsdice.core.errors import IllegalActionError, VariantError
from marsdice.core.game import (
    CAP_ROUNDS,
    JSON,
    Action,
    ChanceMode,
    Game,
    GameState,
    Information,
    Utility,
    chance_agent,
    play_out,
    play_steps,
)
from marsdice.games import all_games, get_game, read_record

#: a spread of variants per game, as the JSON parameters a server or a client would send
VARIANTS: dict[str, list[dict[str, JSON]]] = {
    "martian": [
        {"players": 2},
        {"players": 1},
        {"players": 3, "target": 10, "dice": 4},
        {"players": 2, "target": 5, "dice": 1, "rolloff_dice": 2, "rolloff_mode": "single"},
        {"players": 4, "target": 8, "dice": 20, "rolloff_dice": 1},
    ],
    "attacks": [
        {"players": 2},
        {"players": 3},
        {"players": 4, "difficulty": "hard"},
        {"players": 6, "reroll": "subset", "bombed": "whole-turn", "end_stacks": 1},
    ],
}
CASES = [(name, params) for name, spread in VARIANTS.items() for params in spread]
IDS = [f"{name}-{i}" for name, spread in VARIANTS.items() for i in range(len(spread))]
VIEW_KEYS = {
    "game",
    "viewer",
    "players",
    "phase",
    "current_player",
    "scores",
    "turns",
    "rounds",
    "winners",
    "placings",
    "tie_breaks",
    "turn_seat",
    "next_seat",
    "last_round",
    "events",
    "legal_actions",
    "board",
}


def test_every_registered_game_has_cases() -> None:
    assert {game.name for game in all_games()} == set(VARIANTS)


def random_game(game: Game, params: Mapping[str, JSON], seed: int) -> list[GameState]:
    """Every state of one game of uniformly random legal play."""
    rng = random.Random(seed)
    variant = game.variant_from_params(params)
    start = game.start(variant, rng)
    agents = [chance_agent(rng)] * variant.players
    states = [start]
    for step in play_steps(start, agents, rng, max_steps=50_000):
        states.append(step.after)
    assert states[-1].is_terminal, "a random game did not end within 50,000 steps"
    return states


def check_state(game: Game, state: GameState) -> None:
    """Everything the contract says of one position."""
    if state.is_terminal:
        assert list(state.legal_actions()) == []
        assert state.current_player < 0
        return
    if state.is_chance_node:
        outcomes = state.chance_outcomes()
        assert sum((p for _, p in outcomes), Fraction(0)) == 1
        assert all(p > 0 for _, p in outcomes)
        texts = [outcome.text() for outcome, _ in outcomes]
        assert len(set(texts)) == len(texts), "chance outcomes must be distinct"
        for outcome, _ in outcomes:
            assert state.parse_action(outcome.text()) == outcome
            index = game.encode_chance(state, outcome)
            assert 0 <= index < game.num_chance_outcomes(game.variant_of(state))
            assert game.decode_chance(state, index) == outcome
        assert not any(game.legal_mask(state))
        return
    legal = list(state.legal_actions())
    assert legal, "a decision node must offer an action"
    assert 0 <= state.current_player < state.players
    mask = game.legal_mask(state)
    assert len(mask) == game.num_actions(game.variant_of(state))
    assert sum(mask) == len(set(legal))
    for action in legal:
        assert state.parse_action(action.text()) == action
        state.apply(action)  # raises if not
        index = game.encode_action(state, action)
        assert mask[index]
        assert game.decode_action(state, index) == action


def check_views(game: Game, state: GameState) -> None:
    for viewer in (None, *range(state.players)):
        view = game.observe(state, viewer)
        assert set(view) >= VIEW_KEYS, f"missing {VIEW_KEYS - set(view)}"
        assert json.loads(json.dumps(view)) == view, "a view must be plain JSON"
        assert view["viewer"] == viewer
        to_act = viewer is not None and viewer == state.current_player
        offered = view["legal_actions"]
        expected = [a.text() for a in state.legal_actions()] if to_act else []
        assert offered == expected
        # the facts a client shows come from the game, never derived by the client
        placings = list(state.placings()) if state.is_terminal else None
        assert view["placings"] == placings
        assert view["turn_seat"] == game.turn_seat(state)
        assert view["next_seat"] == game.next_seat(state)
        last = game.last_round(state)
        assert view["last_round"] == (None if last is None else list(last))
        if last:
            assert last[0] == game.turn_seat(state) and list(last) == sorted(last)
        check_tie_breaks(state, view["tie_breaks"])
        if viewer is not None:  # what a server builds a seat's view from: the same view
            assert game.seat_view(game.observe(state, None), state, viewer) == view
    for event in state.events:
        encoded = event.to_json()
        assert encoded["type"] == event.kind
        assert json.loads(json.dumps(encoded)) == encoded


def check_tie_breaks(state: GameState, ties: JSON) -> None:
    """Each group level on points at the end is listed once, in place order, with its rule."""
    assert isinstance(ties, list)
    if not state.is_terminal:
        assert ties == []
        return
    places = state.placings()
    groups = Counter(state.scores)
    assert sorted(tie["score"] for tie in ties) == sorted(s for s, n in groups.items() if n > 1)
    for tie in ties:
        seats = tie["seats"]
        assert sorted(seats) == [i for i, s in enumerate(state.scores) if s == tie["score"]]
        assert tie["places"] == [places[seat] for seat in seats] == sorted(tie["places"])
        shared = len(set(tie["places"])) == 1
        assert (tie["by"] == "shared") == shared
        assert tie["by"] in {"shared", "rolloff", "cards", "reached_first"}


def check_end(state: GameState) -> None:
    returns = state.returns()
    assert len(returns) == state.players
    placings = state.placings()
    assert state.winners
    assert {seat for seat, place in enumerate(placings) if place == 1} == set(state.winners)
    if state.players == 1:
        assert returns == (-float(state.turns[0]),)
        return
    assert sum(returns) == pytest.approx(1.0)
    for seat, value in enumerate(returns):
        assert (value > 0) == (seat in state.winners)
    for a in range(state.players):
        for b in range(state.players):
            if placings[a] < placings[b]:
                assert returns[a] >= returns[b]
    assert state.rounds >= 1
    assert sum(state.turns) >= state.rounds


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_random_games_keep_the_contract(name: str, params: dict[str, JSON]) -> None:
    game = get_game(name)
    for seed in range(3):
        states = random_game(game, params, seed)
        for state in states:
            check_state(game, state)
        for state in states[:: max(1, len(states) // 25)]:
            check_views(game, state)
        check_end(states[-1])
        assert states[0].rounds == 1


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_records_round_trip_and_rebuild_the_game(name: str, params: dict[str, JSON]) -> None:
    game = get_game(name)
    rng = random.Random(11)
    variant = game.variant_from_params(params)
    start = game.start(variant, rng)
    played = play_out(start, [chance_agent(rng)] * variant.players, rng)
    names = [f"P{i + 1}" for i in range(variant.players)]
    record = game.make_record(names, start, played.moves, [("Seed", "11")])
    read, parsed = read_record(game.dumps(record))
    assert read is game
    assert parsed == record
    states = game.replay(parsed)
    assert states[0] == start
    assert states[-1] == played.final
    assert game.variant_of(states[-1]) == variant


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_variant_parameters_round_trip_as_json(name: str, params: dict[str, JSON]) -> None:
    game = get_game(name)
    variant = game.variant_from_params(params)
    plain = game.variant_to_params(variant)
    assert json.loads(json.dumps(plain)) == plain
    assert game.variant_from_params(plain) == variant
    for key, value in params.items():
        assert plain[key] == value


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_bad_variant_parameters_name_the_field(game: Game) -> None:
    bad: list[tuple[str, dict[str, JSON]]] = [
        ("players", {"players": game.max_players + 1}),
        ("players", {"players": game.min_players - 1}),
        ("players", {"players": "two"}),
        ("colour", {"players": game.min_players, "colour": "red"}),
    ]
    for field, params in bad:
        with pytest.raises(VariantError, match=f"^{field}"):
            game.variant_from_params(params)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_foreign_and_illegal_actions_change_nothing(game: Game) -> None:
    rng = random.Random(3)
    state = game.start(game.default_variant(game.min_players + 1), rng)
    while state.is_chance_node:
        state = state.apply(state.sample_chance(rng))

    class Foreign:
        def text(self) -> str:
            return "foreign"

    before = state
    with pytest.raises(IllegalActionError):
        state.apply(Foreign())
    assert state == before


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_a_viewer_is_a_seat_number_exactly(game: Game) -> None:
    """Once a defect: a numpy integer or a float viewer passed the range check and went into
    the view as it was (not JSON), and the encoders took it for a spectator."""
    np = pytest.importorskip("numpy")
    rng = random.Random(4)
    state = game.start(game.default_variant(game.min_players + 1), rng)
    while state.is_chance_node:
        state = state.apply(state.sample_chance(rng))
    view = game.observe(state, np.int64(1))
    assert view == game.observe(state, 1) and type(view["viewer"]) is int
    json.dumps(view)
    for viewer in (1.0, True, "1", -1, game.min_players + 1):
        with pytest.raises(ValueError, match="viewer must be a seat"):
            game.observe(state, viewer)  # type: ignore[arg-type]


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_decoding_out_of_range_is_refused(game: Game) -> None:
    rng = random.Random(4)
    state = game.start(game.default_variant(game.min_players + 1), rng)
    variant = game.variant_of(state)
    with pytest.raises(ValueError, match=r"\w"):
        game.decode_action(state, game.num_actions(variant))
    with pytest.raises(ValueError, match=r"\w"):
        game.decode_action(state, -1)


# --- chance: exact lists, and samplers that follow them -----------------------------------

Sampler = Callable[[GameState, random.Random], Action]
SAMPLES = 3000
#: significance of each chi-square test; the samples are seeded, so a pass is reproducible
ALPHA = 1e-6


def chance_nodes(game: Game, params: Mapping[str, JSON], games: int) -> Iterator[GameState]:
    """One chance node per kind (outcome type and count), from seeded random games."""
    seen: set[tuple[str, int]] = set()
    for seed in range(games):
        for state in random_game(game, params, 100 + seed):
            if state.is_chance_node:
                outcomes = state.chance_outcomes()
                key = (type(outcomes[0][0]).__name__, len(outcomes))
                if key not in seen:
                    seen.add(key)
                    yield state


def follows_chance(state: GameState, sampler: Sampler, seed: int) -> float:
    """The p-value of a chi-square test of ``sampler`` against ``chance_outcomes``: outcomes
    expected fewer than 5 times are pooled into one bin, as the test requires."""
    rng = random.Random(seed)
    outcomes = state.chance_outcomes()
    counts = Counter(sampler(state, rng).text() for _ in range(SAMPLES))
    known = {outcome.text() for outcome, _ in outcomes}
    assert set(counts) <= known, f"sampled outcomes not listed: {set(counts) - known}"
    observed: list[float] = []
    expected: list[float] = []
    pooled_seen = pooled_expected = 0.0
    for outcome, probability in outcomes:
        mean = float(probability) * SAMPLES
        if mean < 5:
            pooled_seen += counts[outcome.text()]
            pooled_expected += mean
        else:
            observed.append(counts[outcome.text()])
            expected.append(mean)
    if pooled_expected > 0:
        observed.append(pooled_seen)
        expected.append(pooled_expected)
    if len(observed) < 2:
        return 1.0
    return float(chisquare(observed, expected).pvalue)


def engine_sampler(state: GameState, rng: random.Random) -> Action:
    return state.sample_chance(rng)


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_samplers_follow_the_exact_chance_lists(name: str, params: dict[str, JSON]) -> None:
    """Power: the mutations below (a die missing a face, a draw that always takes the first
    card) are rejected at the same size and significance, in ``test_the_chi_square_*``."""
    game = get_game(name)
    tested = 0
    for index, state in enumerate(chance_nodes(game, params, games=6)):
        p_value = follows_chance(state, engine_sampler, seed=index)
        assert p_value > ALPHA, f"sampler disagrees with chance_outcomes at {state!r}"
        tested += 1
    assert tested >= 2


def never_the_last_kind(state: GameState, rng: random.Random) -> Action:
    """A mutated sampler: rolls until no die shows the last listed face kind, i.e. a die
    that lacks one face (Martian Dice: never a chicken)."""
    for _ in range(10_000):
        outcome = state.sample_chance(rng)
        last = state.chance_outcomes()[-1][0].text()[-1]
        if last not in outcome.text():
            return outcome
    return outcome


def always_the_first(state: GameState, rng: random.Random) -> Action:
    """A mutated sampler: a biased draw that always takes the first listed outcome."""
    del rng
    return state.chance_outcomes()[0][0]


def test_the_chi_square_rejects_a_die_missing_a_face() -> None:
    game = get_game("martian")
    nodes = list(chance_nodes(game, {"players": 2}, games=2))
    many_dice = max(nodes, key=lambda s: len(s.chance_outcomes()))
    assert follows_chance(many_dice, engine_sampler, seed=1) > ALPHA
    assert follows_chance(many_dice, never_the_last_kind, seed=1) < ALPHA


def test_the_chi_square_rejects_a_biased_draw() -> None:
    game = get_game("attacks")
    draws = [
        state
        for state in chance_nodes(game, {"players": 3}, games=60)
        if state.chance_outcomes()[0][0].text().startswith("draw")
    ]
    assert draws, "no Memphis draw reached in 60 random games"
    for state in draws:
        assert follows_chance(state, engine_sampler, seed=2) > ALPHA
        assert follows_chance(state, always_the_first, seed=2) < ALPHA


# --- properties over generated variants ----------------------------------------------------

martian_params = st.fixed_dictionaries(
    {
        "players": st.integers(1, 10),
        "target": st.integers(1, 100),
        "dice": st.integers(1, 20),
        "rolloff_dice": st.integers(1, 20),
        "rolloff_mode": st.sampled_from(["repeat", "single"]),
    }
)
attacks_params = st.fixed_dictionaries(
    {
        "players": st.integers(2, 6),
        "difficulty": st.sampled_from(["easy", "hard"]),
        "bombed": st.sampled_from(["last-roll", "whole-turn"]),
        "reroll": st.sampled_from(["all", "subset"]),
        "end_stacks": st.integers(1, 4),
    }
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.one_of(
        st.tuples(st.just("martian"), martian_params),
        st.tuples(st.just("attacks"), attacks_params),
    ),
    seed=st.integers(0, 2**32 - 1),
)
def test_generated_variants_play_to_a_consistent_end(
    case: tuple[str, dict[str, JSON]], seed: int
) -> None:
    name, params = case
    game = get_game(name)
    states = random_game(game, params, seed)
    for state in states[:: max(1, len(states) // 40)]:
        check_state(game, state)
    check_end(states[-1])
    variant = game.variant_from_params(params)
    assert game.variant_from_params(game.variant_to_params(variant)) == variant


# --- what a game declares ----------------------------------------------------------------------


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_the_declaration_is_complete(game: Game) -> None:
    kind = game.game_type
    assert kind.information in Information
    assert kind.chance is ChanceMode.EXPLICIT
    assert kind.utility is Utility.SHARED_WIN
    variant = game.default_variant(max(2, game.min_players))
    assert game.max_game_length(variant) == CAP_ROUNDS * variant.players * game.turn_moves(variant)
    assert game.turn_moves(variant) > 0
    # a hidden setup is dealt as chance moves that rebuild an opening of the same game
    dealt: list[Action] = []
    rng = random.Random(4)
    while outcomes := game.setup_outcomes(variant, dealt):
        assert kind.hidden_setup
        assert sum((p for _, p in outcomes), Fraction(0)) == 1
        dealt.append(rng.choice([outcome for outcome, _ in outcomes]))
    start = game.start_from_setup(variant, dealt)
    assert game.variant_of(start) == variant
    assert bool(dealt) == kind.hidden_setup
    assert game.opening(game.make_record(["A", "B"][: variant.players], start, [])) == start


@pytest.mark.parametrize(("name", "params"), CASES[::2], ids=IDS[::2])
def test_resample_fits_what_the_viewer_saw(name: str, params: dict[str, JSON]) -> None:
    """A resampled state shows each viewer exactly its view; without hidden information it
    is the state itself."""
    game = get_game(name)
    rng = random.Random(11)
    variant = game.variant_from_params(params)
    start = game.start(variant, rng)
    steps = list(play_steps(start, [chance_agent(rng)] * variant.players, rng))
    moves = [step.action for step in steps]
    states = [start, *(step.after for step in steps)]
    for index in (len(moves) // 3, len(moves)):
        for viewer in (None, *range(variant.players)):
            log = game.redacted_log(start, moves[:index], viewer)
            view = game.observe(states[index], viewer)
            memos = {k: game.memo(game.observe(states[k], viewer)) for k in range(index + 1)}
            found = game.resample(variant, log, view, random.Random(index), earlier=memos)
            assert _plain(game.observe(found, viewer)) == _plain(view)
            if game.game_type.perfect_information:
                assert found == states[index]


def _plain(value: object) -> object:
    return json.loads(json.dumps(value))
