"""The OpenSpiel adapter: OpenSpiel's own random-simulation checks over both games and a spread
of variants, the game types, exact chance, the move cap, and OpenSpiel's MCTS playing."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

from marsdice.adapters.encoding import encoder
from marsdice.core.errors import IllegalActionError, VariantError
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
    # serialized and deserialized at every step, as OpenSpiel's own Python games are
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


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
    # the likeliest first (ties by index), so a sampler walking them stops early
    listed = state.chance_outcomes()
    assert listed == sorted(listed, key=lambda pair: (-exact[pair[0]], pair[0]))
    assert listed[0][1] > listed[-1][1]
    assert state.legal_actions() == sorted(exact)


@pytest.mark.parametrize("name", [MARTIAN, ATTACKS])
def test_the_lists_handed_out_are_the_callers_to_change(name: str) -> None:
    # OpenSpiel's own MCTS shuffles chance_outcomes() in place (its evaluator's prior at a
    # chance node is that list): the encoded lists are shared by every state of the variant,
    # so each call must hand out a list of its own, never the shared one
    game = pyspiel.load_game(name, {"players": 2})
    state = game.new_initial_state()
    if name == ATTACKS:  # past the deal, to a roll of the dice
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        state.apply_action(state.legal_actions()[0])
    twin = game.new_initial_state() if name == MARTIAN else state.clone()
    before = list(state.chance_outcomes())
    for listed in (state.chance_outcomes(), state.legal_actions(), state.legal_actions(-1)):
        random.Random(1).shuffle(listed)
        listed.clear()
    assert state.chance_outcomes() == before == twin.chance_outcomes()
    assert state.legal_actions() == [action for action, _ in sorted(before)]
    decision = game.new_initial_state()
    while decision.is_chance_node():
        decision.apply_action(decision.chance_outcomes()[-1][0])
    actions = decision.legal_actions()
    decision.legal_actions().clear()
    decision.legal_actions(decision.current_player()).clear()
    assert decision.legal_actions() == actions != []


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


def bot_plays_out(state: Any, bot: Any, rng: Any) -> int:
    """Play ``state`` to its end: ``bot`` at every decision (each checked legal), chance by
    its listed probabilities; how many decisions the bot made."""
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
    return decisions


@pytest.mark.parametrize(("name", "params"), [(MARTIAN, {"target": 6}), (ATTACKS, {})])
def test_openspiel_mcts_plays_our_games(name: str, params: dict[str, Any]) -> None:
    from open_spiel.python.algorithms import mcts

    np = pytest.importorskip("numpy")
    game = pyspiel.load_game(name, {"players": 2, **params})
    rng = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = mcts.MCTSBot(game, 2.0, 8, evaluator, random_state=rng, solve=False)
    state = game.new_initial_state()
    assert bot_plays_out(state, bot, rng) > 0
    assert sum(state.returns()) == pytest.approx(1.0)


@pytest.mark.parametrize(("name", "params"), [(MARTIAN, {"target": 6}), (ATTACKS, {})])
def test_openspiels_cpp_bots_play_our_games(name: str, params: dict[str, Any]) -> None:
    """C++ code driving a Python game: pyspiel's MCTSBot and uniform random bot through
    pyspiel.evaluate_bots (clones, chance lists and returns cross the trampoline)."""
    game = pyspiel.load_game(name, {"players": 2, **params})
    evaluator = pyspiel.RandomRolloutEvaluator(1, 5)
    mcts_bot = pyspiel.MCTSBot(game, evaluator, 2.0, 16, 1000, False, 5, False)
    returns = pyspiel.evaluate_bots(
        game.new_initial_state(), [mcts_bot, pyspiel.make_uniform_random_bot(1, 6)], 7
    )
    assert sum(returns) == pytest.approx(1.0)
    assert all(0.0 <= value <= 1.0 for value in returns)


def test_a_capped_solo_game_stays_within_the_declared_utilities() -> None:
    game = pyspiel.load_game(MARTIAN, {"players": 1, "dice": 1, "max_moves": 2})
    state = game.new_initial_state()
    tank = next(a for a, _ in state.chance_outcomes() if state.action_to_string(a) == "T")
    state.apply_action(tank)  # no choice: the turn scores 0
    state.apply_action(tank)  # and again: the cap, with a third turn begun
    assert state.is_terminal() and state.returns() == [-3.0]
    assert game.min_utility() <= -3.0 and game.max_utility() == -1.0


# --- the same games as before the adapter learnt games from their declarations (issue 17) ---

#: (game, parameters, seed) -> (rows, sha256 of every state's player, observation strings and
#: tensors, legal actions or chance outcomes with their strings, the move played, then the
#: returns), captured from the commit before issue 19 with ``str(state)`` and the game type
#: left out (issue 19 made ``str`` the whole position and added the information states, the
#: ``turn_counters`` parameter; everything else plays move for move as before)
TRAJECTORIES = [
    (
        MARTIAN,
        {"players": 2, "target": 6},
        1,
        (79, "97fbe51aa5eec6a018b53e6562c1e81cee322546537fb0f7cca8f9d07e9d47de"),
    ),
    (
        MARTIAN,
        {"players": 1, "dice": 4, "target": 4},
        2,
        (17, "a7f46fce76a176207b67f8d6293e27892e040fbf24c0044b82424c4b1e3f3b6c"),
    ),
    (
        MARTIAN,
        {"players": 3, "target": 3, "dice": 5, "rolloff_dice": 3},
        3,
        (49, "3b2b4b3a816355fd9d089defba0c585bdd0416f8812db1d37356890184d1d030"),
    ),
    (
        ATTACKS,
        {"players": 2},
        4,
        (39, "e3e0b0cd6d7715bc8f55a0f0944cef2cc9658f8c8e1fc1735d2875895a45c744"),
    ),
    (
        ATTACKS,
        {"players": 3, "difficulty": "hard"},
        5,
        (569, "d224793751850dcf2f1c8a6089325f4aff6c801b46780ec945ba8976b7acbee3"),
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
    log: list[Any] = []
    players = range(game.num_players())
    while not state.is_terminal():
        row: list[Any] = [state.current_player(), state.is_chance_node()]
        row += [state.observation_string(p) for p in players]
        row += [np.asarray(state.observation_tensor(p)).tolist() for p in players]
        if state.is_chance_node():
            outcomes = sorted(state.chance_outcomes())  # by index: the order is not the game
            actions, probs = zip(*outcomes, strict=True)
            action = rng.choices(actions, probs)[0]
            row += [outcomes, state.action_to_string(pyspiel.PlayerId.CHANCE, action)]
        else:
            legal = state.legal_actions()
            row += [legal, [state.action_to_string(state.current_player(), a) for a in legal]]
            action = rng.choice(legal)
        log.append([*row, action])
        state.apply_action(action)
    log.append([state.returns(), state.current_player()])
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
    assert martian[9:11] == [True, True] and attacks[9:11] == [True, True]
    assert martian[13] == [
        ("dice", "13"),
        ("max_moves", "0"),
        ("players", "2"),
        ("rolloff_dice", "6"),
        ("rolloff_mode", "repeat"),
        ("target", "25"),
        ("turn_counters", "True"),
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
        ("turn_counters", "True"),
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
    assert str(state) == "dealing: 1 of 8 cards dealt: seattle"
    assert state.observation_string(1) == "dealing: 1 of 8 cards dealt"
    for bad, message in [(first, "draw:seattle is already dealt"), (0, "H is not a card")]:
        with pytest.raises(ValueError, match=message):
            state.clone().apply_action(bad)
    assert str(state) == "dealing: 1 of 8 cards dealt: seattle"


def test_a_game_pickles_to_its_own_class() -> None:
    import pickle

    for name in (MARTIAN, ATTACKS):
        game = pyspiel.load_game(name, {"players": 3})
        again = pickle.loads(pickle.dumps(game))
        assert type(again) is type(game) and again.get_parameters() == game.get_parameters()


# --- issue 19: serialization, whole positions, information states ---------------------------


def _play(state: Any, rng: random.Random, moves: int) -> Any:
    """Up to ``moves`` seeded random moves (chance by its probabilities)."""
    for _ in range(moves):
        if state.is_terminal():
            break
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(("name", "params"), [(MARTIAN, {"players": 3}), (ATTACKS, {})])
def test_states_pickle_and_deserialize_to_the_same_game(name: str, params: dict[str, Any]) -> None:
    import pickle

    game = pyspiel.load_game(name, {"players": 2, **params})
    state = _play(game.new_initial_state(), random.Random(3), 40)
    text = pyspiel.serialize_game_and_state(game, state)
    for again in (pickle.loads(pickle.dumps(state)), pyspiel.deserialize_game_and_state(text)[1]):
        assert str(again) == str(state) and again.history() == state.history()
        for player in range(game.num_players()):
            assert again.observation_tensor(player) == state.observation_tensor(player)
            assert again.information_state_string(player) == (
                state.information_state_string(player)
            )
        # and both play on identically
        assert str(_play(again, random.Random(9), 30)) == str(
            _play(state.clone(), random.Random(9), 30)
        )
    unpickled = pickle.loads(pickle.dumps(game))
    assert str(unpickled.new_initial_state()) == str(game.new_initial_state())
    assert unpickled.max_moves == game.max_moves


def test_str_is_the_whole_position_at_every_step_of_a_turn() -> None:
    game = pyspiel.load_game(MARTIAN, {"players": 2, "target": 6})
    state = game.new_initial_state()
    seen = []
    for _ in range(4):
        seen.append(str(state))
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[100][0])
        else:
            state.apply_action(state.legal_actions()[0])
    assert len(set(seen)) == 4
    assert seen[0].startswith("P1 0, P2 0 | turns 0 0 | round 1 | roll: P1 rolls 13 dice")
    assert "choose: P1 picks from" in seen[1] and seen[1].endswith("move 1 of 7800")


def _engine_count(game: Any) -> int:
    """Distinct positions reachable within the cap, by a search over the engine's own states
    (their fields, without the last step's events), counted independently of ``str``."""
    from dataclasses import astuple, replace

    ours = get_game("martian")
    start = ours.start(game.variant, random.Random(0))
    seen = set()
    frontier = [(start, 0)]
    while frontier:
        state, moves = frontier.pop()
        key = (astuple(replace(state, events=(), last_turn=None, rolloff_history=())), moves)
        if key in seen:
            continue
        seen.add(key)
        if state.is_terminal or moves >= game.max_moves:
            continue
        nexts = state.chance_outcomes() if state.is_chance_node else state.legal_actions()
        for action in nexts:
            step = action[0] if isinstance(action, tuple) else action
            frontier.append((state.apply(step), moves + 1))
    return len(seen)


def test_get_all_states_finds_every_distinct_state_of_a_tiny_variant() -> None:
    from open_spiel.python.algorithms import get_all_states

    game = pyspiel.load_game(MARTIAN, {"players": 2, "target": 1, "dice": 1, "max_moves": 12})
    found = get_all_states.get_all_states(
        game, -1, True, True, to_string=str, stop_if_encountered=True
    )
    assert len(found) == _engine_count(game) == 490


def _deal(game: Any, order: list[int]) -> Any:
    state = game.new_initial_state()
    for index in order:
        state.apply_action(index)
    return state


def test_two_hidden_deals_with_one_history_give_one_information_state() -> None:
    game = pyspiel.load_game(ATTACKS, {"players": 2})
    ids = [action for action, _ in game.new_initial_state().chance_outcomes()]
    longest = 0
    for seed in range(4):
        # the same face-up cards, different face-down cards under stacks 1 and 2
        first = _deal(game, ids[:8])
        second = _deal(game, [ids[0], ids[9], ids[2], ids[10], *ids[4:8]])
        assert first.state.stacks != second.state.stacks and str(first) != str(second)
        rng = random.Random(seed)
        while not first.is_terminal():  # the same public moves in both worlds
            if first.is_chance_node():
                outcomes = dict(first.chance_outcomes())
                action = rng.choices(list(outcomes), list(outcomes.values()))[0]
            else:
                action = rng.choice(first.legal_actions())
            for state in (first, second):
                state.apply_action(action)
            seen = [(first.observation_string(s), second.observation_string(s)) for s in (0, 1)]
            if any(one != two for one, two in seen):
                # a face-down card came up: the worlds are told apart, and so are the states
                assert first.information_state_string(0) != second.information_state_string(0)
                break
            for seat in range(2):
                assert first.information_state_string(seat) == (
                    second.information_state_string(seat)
                )
                assert first.information_state_tensor(seat) == (
                    second.information_state_tensor(seat)
                )
            longest = max(longest, len(first.history()))
    assert longest > 20  # the deal (8 moves) and more than a round of play


def test_no_information_state_tensor_differs_when_only_a_face_down_card_does() -> None:
    game = pyspiel.load_game(ATTACKS, {"players": 3})
    ids = [action for action, _ in game.new_initial_state().chance_outcomes()]
    base = ids[:12]  # dealt stack by stack, three cards each: 0, 3, 6 and 9 are the tops
    for position in (1, 2, 4, 5, 7, 8, 10, 11):  # each face-down card, for an undealt one
        other = list(base)
        other[position] = ids[20]
        one, two = _deal(game, base), _deal(game, other)
        assert str(one) != str(two)
        for seat in range(3):
            assert one.information_state_tensor(seat) == two.information_state_tensor(seat)
            assert one.information_state_string(seat) == two.information_state_string(seat)
            assert one.observation_tensor(seat) == two.observation_tensor(seat)
    # a face-up card is seen: that changes the tensor
    other = list(base)
    other[3] = ids[20]
    assert _deal(game, base).information_state_tensor(0) != _deal(
        game, other
    ).information_state_tensor(0)


def test_resampling_keeps_what_the_player_saw() -> None:
    game = pyspiel.load_game(ATTACKS, {"players": 2})
    state = _play(game.new_initial_state(), random.Random(4), 24)
    assert not state.is_terminal()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    player = 0 if state.is_chance_node() else state.current_player()
    for _ in range(3):
        sample = state.resample_from_infostate(player, sampler)
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.information_state_tensor(player) == state.information_state_tensor(player)
        assert sample.legal_actions() == state.legal_actions()
        _play(sample, random.Random(1), 20)  # and it plays on


def test_ismcts_plays_whole_mars_attacks_games() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    np = pytest.importorskip("numpy")
    game = pyspiel.load_game(ATTACKS, {"players": 2})
    for seed in range(2):
        rng = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 8, random_state=rng)
        state = game.new_initial_state()
        decisions = bot_plays_out(state, bot, rng)
        assert decisions > 5 and sum(state.returns()) == pytest.approx(1.0)
        assert state.state.is_terminal  # a real end, not the cap


def _value(values: dict[str, float], state: Any) -> float:
    """A state's value from value_iteration's table (which keeps decisions only: a chance
    node is the expectation over its outcomes)."""
    if state.is_chance_node():
        return sum(p * _value(values, state.child(a)) for a, p in state.chance_outcomes())
    return values[str(state)]


#: (parameters, the cap) -> the exact value by marsdice.solve; the cap is far enough for its
#: truncation to stay below 1e-6 (each move count is part of str, so the capped game's
#: states are a finite graph without cycles)
TINY = [
    ({"players": 2, "target": 1, "dice": 1, "rolloff_dice": 1, "rolloff_mode": "single"}, 40),
    ({"players": 2, "target": 1, "dice": 1, "rolloff_dice": 2, "rolloff_mode": "single"}, 40),
    ({"players": 1, "target": 1, "dice": 1}, 40),
]


@pytest.mark.parametrize(("params", "cap"), TINY)
def test_openspiel_value_iteration_equals_our_solver(params: dict[str, Any], cap: int) -> None:
    import sys
    import types

    from marsdice.solve import solve_solo, solve_winprob

    if "cvxpy" not in sys.modules:  # value_iteration imports its LP solver (for simultaneous
        try:  # moves, which our games have none of); cvxpy is not ours to need
            import cvxpy  # noqa: F401
        except ImportError:
            stub = types.ModuleType("cvxpy")
            stub.ECOS = "ECOS"  # type: ignore[attr-defined]
            sys.modules["cvxpy"] = stub
    from open_spiel.python.algorithms import value_iteration

    inner = ",".join(f"{key}={value}" for key, value in {**params, "max_moves": cap}.items())
    if params["players"] == 2:  # constant-sum 1: zerosum() makes it +1/2 and -1/2
        game = pyspiel.load_game(f"zerosum(game={MARTIAN}({inner},turn_counters=False))")
        exact = solve_winprob(target=1, dice=1, use_cache=False).win_probability(0, 0, seat=0)
        offset = 0.5
    else:  # solo: minus the turns
        game = pyspiel.load_game(f"{MARTIAN}({inner})")
        exact = -solve_solo(target=1, dice=1).expected_turns(0)
        offset = 0.0
    values = value_iteration.value_iteration(game, -1, 1e-12, cyclic_game=True)
    assert _value(values, game.new_initial_state()) + offset == pytest.approx(exact, abs=1e-6)


# --- issue 19, item 4: speed (the caches must not change what a state says) -----------------


def _replayed(game: Any, state: Any) -> Any:
    """The same position reached afresh, move by move from the opening."""
    again = game.new_initial_state()
    for action in state.history():
        again.apply_action(action)
    return again


def test_clones_that_part_ways_keep_their_own_information_states() -> None:
    game = pyspiel.load_game(ATTACKS, {"players": 2})
    trunk = _play(game.new_initial_state(), random.Random(4), 30)
    branches = [_play(trunk.clone(), random.Random(seed), 25) for seed in (5, 6)]
    _play(trunk, random.Random(7), 10)  # the trunk grows on after its clones did
    assert len({tuple(state.history()) for state in (trunk, *branches)}) == 3
    for state in (trunk, *branches):
        fresh = _replayed(game, state)
        for player in range(2):
            assert state.information_state_string(player) == (
                fresh.information_state_string(player)
            )
            assert state.information_state_tensor(player) == (
                fresh.information_state_tensor(player)
            )


@pytest.mark.parametrize(
    ("name", "params"),
    [(MARTIAN, {"players": 3, "target": 8}), (ATTACKS, {"players": 2}), (ATTACKS, {"players": 4})],
)
def test_the_kept_encodings_are_the_games_own(name: str, params: dict[str, Any]) -> None:
    """Every listed move is the game's encoding of the engine's, however often the engine
    handed the same tuple out, in whichever game of the same variant."""
    game = pyspiel.load_game(name, params)
    ours = get_game(name.removeprefix("python_marsdice_"))
    rng = random.Random(11)
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            engine = state.state
            if engine is None:  # the hidden deal
                expected = [
                    (game.setup_index(o), float(p))
                    for o, p in ours.setup_outcomes(game.variant, state.dealt)
                ]
                assert sorted(state.chance_outcomes()) == sorted(expected)
            elif state.is_chance_node():
                listed = state.chance_outcomes()
                expected = [
                    (ours.encode_chance(engine, o), float(p)) for o, p in engine.chance_outcomes()
                ]
                assert sorted(listed) == sorted(expected)
                assert [p for _, p in listed] == sorted((p for _, p in listed), reverse=True)
                assert state.legal_actions() == sorted(a for a, _ in expected)
            else:
                expected_legal = sorted(
                    ours.encode_action(engine, a) for a in engine.legal_actions()
                )
                assert state.legal_actions() == expected_legal
            legal = state.legal_actions()
            action = rng.choice(legal)
            if engine is not None and not state.is_chance_node():
                move = ours.decode_action(engine, action)
                after = engine.apply(move)
                state.apply_action(action)
                assert state.state == after
            else:
                state.apply_action(action)


@pytest.mark.parametrize("name", [MARTIAN, ATTACKS])
def test_a_clone_and_its_original_part_ways_and_a_refused_move_changes_nothing(
    name: str,
) -> None:
    """A state's position is one object changed in place at each move, so a clone must get
    its own (sharing only the engine state and what was worked out from it), and a move the
    engine refuses must leave it as it was (the move count too)."""
    game = pyspiel.load_game(name, {"players": 2})
    state = _play(game.new_initial_state(), random.Random(3), 12)
    while state.is_chance_node():  # a decision, so that a chance index is refused
        state.apply_action(state.chance_outcomes()[0][0])
    before, moves, legal = str(state), state.move_number(), state.legal_actions()
    clone = state.clone()
    clone.apply_action(legal[-1])
    assert str(state) == before and state.legal_actions() == legal
    assert clone.move_number() == moves + 1 and str(clone) != before
    refused = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    with pytest.raises(IllegalActionError):
        state.apply_action(refused)
    assert str(state) == before and state.moves == moves
    state.apply_action(legal[0])
    assert state.moves == moves + 1 and state.history() == [*clone.history()[:-1], legal[0]]


def test_a_game_that_never_asks_keeps_no_old_states() -> None:
    """The trail keeps each step's action; the states around it are replayed when a line is
    first asked for (a random game that never asks keeps only its current state alive)."""
    game = pyspiel.load_game(ATTACKS, {"players": 2})
    state = _play(game.new_initial_state(), random.Random(8), 40)
    trail = state.trail
    assert trail is not None and len(trail.steps) > 20
    assert all(step.before is None and step.after is None for step in trail.steps)
    assert trail.now is state.state
    text = state.information_state_string(1)
    assert all(step.after is not None for step in trail.steps)
    assert trail.steps[-1].after == state.state
    assert text == _replayed(game, state).information_state_string(1)
