"""The OpenSpiel adapter: OpenSpiel's own random-simulation checks over both games and a spread
of variants, the game types, exact chance, the move cap, and OpenSpiel's MCTS playing."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

from marsdice.adapters.encoding import encoder
from marsdice.core.errors import VariantError
from marsdice.games import get_game

pyspiel: Any = pytest.importorskip("pyspiel", reason="the research extra is not installed")
adapter: Any = pytest.importorskip("marsdice.adapters.openspiel")

MARTIAN = "python_marsdice_martian"
ATTACKS = "python_marsdice_attacks"

VARIANTS = [
    (MARTIAN, {"players": 1, "target": 5, "dice": 6}),
    (MARTIAN, {"players": 1, "dice": 2, "max_moves": 2}),  # capped solo: utility bounds
    (MARTIAN, {"players": 2, "target": 4, "dice": 5, "rolloff_dice": 3}),
    (MARTIAN, {"players": 3, "target": 3, "dice": 4, "rolloff_mode": "single"}),
    (MARTIAN, {"players": 4, "target": 3, "dice": 4, "rolloff_dice": 2}),
    (MARTIAN, {"players": 2, "target": 8, "max_moves": 30}),
    (ATTACKS, {"players": 2}),
    (ATTACKS, {"players": 3, "difficulty": "hard", "reroll": "subset", "end_stacks": 1}),
    (
        ATTACKS,
        {"players": 4, "bombed": "whole-turn", "seattle": "after-target", "denver": "target"},
    ),
]


@pytest.mark.parametrize(("name", "params"), VARIANTS)
def test_openspiel_random_simulation_checks(name: str, params: dict[str, Any]) -> None:
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_game_types_are_truthful() -> None:
    info = pyspiel.GameType.Information
    utility = pyspiel.GameType.Utility
    martian = pyspiel.load_game(MARTIAN, {"players": 2})
    attacks = pyspiel.load_game(ATTACKS, {"players": 3})
    solo = pyspiel.load_game(MARTIAN, {"players": 1})
    assert martian.get_type().information == info.PERFECT_INFORMATION
    assert attacks.get_type().information == info.IMPERFECT_INFORMATION
    for game in (martian, attacks):
        kind = game.get_type()
        assert kind.utility == utility.CONSTANT_SUM and game.utility_sum() == 1.0
        assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert solo.get_type().utility == utility.GENERAL_SUM and solo.max_utility() == -1.0
    ours = get_game("attacks")
    variant = ours.variant_from_params({"players": 3})
    assert attacks.num_distinct_actions() == ours.num_actions(variant)
    assert attacks.max_chance_outcomes() == ours.num_chance_outcomes(variant)
    assert attacks.num_players() == 3


def test_parameters_map_to_variants_and_bad_ones_are_refused() -> None:
    game = pyspiel.load_game(f"{MARTIAN}(players=3,target=9,rolloff_mode=single)")
    assert game.variant == get_game("martian").variant_from_params(
        {"players": 3, "target": 9, "rolloff_mode": "single"}
    )
    assert game.max_moves == 100 * 3 * 3 * 13
    attacks = pyspiel.load_game(ATTACKS, {"players": 2, "reroll": "subset"})
    assert attacks.variant.reroll.value == "subset"
    with pytest.raises(VariantError, match="players"):
        pyspiel.load_game(MARTIAN, {"players": 11})
    with pytest.raises(pyspiel.SpielError, match="colour"):
        pyspiel.load_game(MARTIAN, {"colour": 1})


def test_chance_outcomes_are_the_engines_exact_lists() -> None:
    game = pyspiel.load_game(MARTIAN, {"players": 2, "dice": 3})
    state = game.new_initial_state()
    ours = get_game("martian")
    exact = {ours.encode_chance(state.state, roll): p for roll, p in state.state.chance_outcomes()}
    assert dict(state.chance_outcomes()) == {k: float(p) for k, p in exact.items()}
    assert sum(exact.values()) == Fraction(1)
    assert [a for a, _ in state.chance_outcomes()] == sorted(exact)


def test_mars_attacks_deal_is_explicit_chance_and_hidden() -> None:
    game = pyspiel.load_game(ATTACKS, {"players": 2})
    cards = len(game.variant.cards)
    first = game.new_initial_state()
    ids = [action for action, _ in first.chance_outcomes()]
    for dealt, action in enumerate(ids[:8]):
        assert first.is_chance_node()
        outcomes = first.chance_outcomes()
        assert len(outcomes) == cards - dealt
        assert all(p == pytest.approx(1 / (cards - dealt)) for _, p in outcomes)
        first.apply_action(action)
    assert first.state is not None and not first.is_chance_node()
    assert [len(stack) for stack in first.state.stacks] == [2, 2, 2, 2]
    # the same face-up cards, the face-down ones of stacks 1 and 2 swapped
    second = game.new_initial_state()
    for action in (ids[0], ids[3], ids[2], ids[1], *ids[4:8]):
        second.apply_action(action)
    assert first.state.stacks != second.state.stacks
    for seat in range(2):
        assert first.observation_tensor(seat) == second.observation_tensor(seat)
        assert first.observation_string(seat) == second.observation_string(seat)


def test_observation_tensor_is_the_encoded_view() -> None:
    game = pyspiel.load_game(MARTIAN, {"players": 3, "target": 6})
    state = game.new_initial_state()
    rng = random.Random(5)
    ours = get_game("martian")
    enc = encoder(ours, game.variant, game.max_moves)
    while not state.is_terminal():
        for seat in range(3):
            expected = enc.encode(ours.observe(state.state, seat))
            assert state.observation_tensor(seat) == pytest.approx(expected)
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert sum(state.returns()) == pytest.approx(1.0)


def test_the_move_cap_ends_a_game_with_the_leaders_sharing() -> None:
    game = pyspiel.load_game(MARTIAN, {"players": 2, "max_moves": 7})
    state = game.new_initial_state()
    rng = random.Random(1)
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[-1][0])  # thirteen chickens, say
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        moves += 1
    assert moves == 7 and not state.state.is_terminal
    scores = state.state.scores
    best = max(scores)
    leaders = [seat for seat, score in enumerate(scores) if score == best]
    assert state.returns() == [1 / len(leaders) if s in leaders else 0.0 for s in range(2)]


@pytest.mark.parametrize(("name", "params"), [(MARTIAN, {"target": 6}), (ATTACKS, {})])
def test_openspiel_mcts_plays_our_games(name: str, params: dict[str, Any]) -> None:
    from open_spiel.python.algorithms import mcts

    np = pytest.importorskip("numpy")
    game = pyspiel.load_game(name, {"players": 2, **params})
    rng = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = mcts.MCTSBot(game, 2.0, 8, evaluator, random_state=rng, solve=False)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
    assert decisions > 0
    assert sum(state.returns()) == pytest.approx(1.0)


def test_a_capped_solo_game_stays_within_the_declared_utilities() -> None:
    game = pyspiel.load_game(MARTIAN, {"players": 1, "dice": 1, "max_moves": 2})
    state = game.new_initial_state()
    tank = next(a for a, _ in state.chance_outcomes() if state.action_to_string(a) == "T")
    state.apply_action(tank)  # no choice: the turn scores 0
    state.apply_action(tank)  # and again: the cap, with a third turn begun
    assert state.is_terminal() and state.returns() == [-3.0]
    assert game.min_utility() <= -3.0 and game.max_utility() == -1.0


# --- the same games as before the adapter learnt games from their declarations (issue 17) ---

#: (game, parameters, seed) -> (rows, sha256 of every state's text, player, observation
#: strings and tensors, legal actions or chance outcomes with their strings, the move played,
#: then the returns), captured from the commit before issue 17 and recaptured once the views
#: gained last_round, reached_target and dice.warning (the same games: the digests with those
#: keys left out of the observation strings equal the first capture)
TRAJECTORIES = [
    (
        MARTIAN,
        {"players": 2, "target": 6},
        1,
        (80, "2f8673eac27a5d9f99db8557fa7c672f37fedfcf9dba0b67d0af4af6bfab168a"),
    ),
    (
        MARTIAN,
        {"players": 1, "dice": 4, "target": 4},
        2,
        (18, "efe806edd8b960f6cc974cd5dcb926984b401ddc6f3c3af87f2f7f2176856ee1"),
    ),
    (
        MARTIAN,
        {"players": 3, "target": 3, "dice": 5, "rolloff_dice": 3},
        3,
        (50, "17250953571340eec0582795ba7bd8f8d0df65844d8685ded291c488dc7596ce"),
    ),
    (
        ATTACKS,
        {"players": 2},
        4,
        (40, "55bc0ffce105155eac227fa99b816af0893006bd57c724c1a6f26dfa871c33cb"),
    ),
    (
        ATTACKS,
        {"players": 3, "difficulty": "hard"},
        5,
        (570, "0ce8df6cf668674582cc6f6734afe4ebf20b7882a1f89b23fceb53d6e2a1b60e"),
    ),
]


def _type_and_info(game: Any) -> list[Any]:
    kind = game.get_type()
    return [
        kind.short_name,
        kind.long_name,
        str(kind.dynamics),
        str(kind.chance_mode),
        str(kind.information),
        str(kind.utility),
        str(kind.reward_model),
        kind.max_num_players,
        kind.min_num_players,
        kind.provides_information_state_string,
        kind.provides_information_state_tensor,
        kind.provides_observation_string,
        kind.provides_observation_tensor,
        sorted((key, str(value)) for key, value in kind.parameter_specification.items()),
        game.num_distinct_actions(),
        game.max_chance_outcomes(),
        game.num_players(),
        game.min_utility(),
        game.max_utility(),
        game.max_game_length(),
        str(game.get_parameters()),
    ]


def _trajectory(name: str, params: dict[str, Any], seed: int) -> tuple[int, str]:
    import hashlib
    import json

    import numpy as np

    game = pyspiel.load_game(name, params)
    rng = random.Random(seed)
    state = game.new_initial_state()
    log: list[Any] = [_type_and_info(game)]
    players = range(game.num_players())
    while not state.is_terminal():
        row: list[Any] = [str(state), state.current_player(), state.is_chance_node()]
        row += [state.observation_string(p) for p in players]
        row += [np.asarray(state.observation_tensor(p)).tolist() for p in players]
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            actions, probs = zip(*outcomes, strict=True)
            action = rng.choices(actions, probs)[0]
            row += [outcomes, state.action_to_string(pyspiel.PlayerId.CHANCE, action)]
        else:
            legal = state.legal_actions()
            row += [legal, [state.action_to_string(state.current_player(), a) for a in legal]]
            action = rng.choice(legal)
        log.append([*row, action])
        state.apply_action(action)
    log.append([str(state), state.returns(), state.current_player()])
    return len(log), hashlib.sha256(json.dumps(log).encode()).hexdigest()


@pytest.mark.parametrize(("name", "params", "seed", "expected"), TRAJECTORIES)
def test_a_seeded_game_is_move_for_move_as_before(
    name: str, params: dict[str, Any], seed: int, expected: tuple[int, str]
) -> None:
    assert _trajectory(name, params, seed) == expected


def test_the_default_game_types_and_parameters_are_as_before() -> None:
    martian = _type_and_info(pyspiel.load_game(MARTIAN))
    attacks = _type_and_info(pyspiel.load_game(ATTACKS))
    assert martian[3:7] == [
        "ChanceMode.EXPLICIT_STOCHASTIC",
        "Information.PERFECT_INFORMATION",
        "Utility.CONSTANT_SUM",
        "RewardModel.TERMINAL",
    ]
    assert attacks[4] == "Information.IMPERFECT_INFORMATION"
    assert martian[13] == [
        ("dice", "13"),
        ("max_moves", "0"),
        ("players", "2"),
        ("rolloff_dice", "6"),
        ("rolloff_mode", "repeat"),
        ("target", "25"),
    ]
    assert attacks[13] == [
        ("bombed", "last-roll"),
        ("denver", "turn"),
        ("difficulty", "easy"),
        ("end_stacks", "2"),
        ("max_moves", "0"),
        ("players", "2"),
        ("reroll", "all"),
        ("seattle", "start"),
    ]
    assert martian[14:20] == [6, 8567, 2, 0.0, 1.0, 7800]
    assert attacks[14:20] == [371, 314, 2, 0.0, 1.0, 6000]
    assert attacks[1] == "Python Mars Attacks: The Dice Game (marsdice)"


def test_every_registered_game_is_registered_with_openspiel() -> None:
    from marsdice.games import game_names

    ours = {f"python_marsdice_{name}" for name in game_names()}
    theirs = {kind.short_name for kind in pyspiel.registered_games()}
    assert ours == {MARTIAN, ATTACKS} and ours <= theirs
    assert set(adapter.GAME_CLASSES) == ours


def test_the_deal_reads_as_before_and_refuses_a_bad_card() -> None:
    game = pyspiel.load_game(ATTACKS, {"players": 2})
    state = game.new_initial_state()
    first = state.chance_outcomes()[0][0]
    assert str(state) == "dealing: 0 of 8 cards dealt"
    assert state.observation_string(0) == "dealing: 0 of 8 cards dealt"
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, first) == "deal:seattle"
    assert state.legal_actions() == list(range(285, 314))
    state.apply_action(first)
    assert str(state) == "dealing: 1 of 8 cards dealt"
    for bad, message in [(first, "draw:seattle is already dealt"), (0, "H is not a card")]:
        with pytest.raises(ValueError, match=message):
            state.clone().apply_action(bad)
    assert str(state) == "dealing: 1 of 8 cards dealt"


def test_a_game_pickles_to_its_own_class() -> None:
    import pickle

    for name in (MARTIAN, ATTACKS):
        game = pyspiel.load_game(name, {"players": 3})
        again = pickle.loads(pickle.dumps(game))
        assert type(again) is type(game) and again.get_parameters() == game.get_parameters()
