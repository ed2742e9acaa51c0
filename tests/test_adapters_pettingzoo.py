"""The PettingZoo AEC environments: PettingZoo's own api_test and seed_test over both games and
a spread of variants, masks, rewards, the move cap and illegal actions."""

from __future__ import annotations

from typing import Any

import pytest

from marsdice.core.errors import IllegalActionError, VariantError
from marsdice.games import get_game

pytest.importorskip("pettingzoo", reason="the research extra is not installed")
np: Any = pytest.importorskip("numpy")
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from marsdice.adapters.pettingzoo import env, raw_env  # noqa: E402

VARIANTS = [
    ("martian", {"players": 1, "target": 5}),
    ("martian", {"players": 2, "target": 6}),
    ("martian", {"players": 3, "target": 4, "dice": 6, "rolloff_mode": "single"}),
    ("martian", {"players": 2, "max_moves": 20}),
    ("attacks", {"players": 2}),
    ("attacks", {"players": 4, "difficulty": "hard", "reroll": "subset"}),
]


# a Dict observation (vector and action mask) is PettingZoo's own pattern for masked games
# (its classic environments draw the same two notes from api_test)
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.parametrize(("game", "params"), VARIANTS)
def test_pettingzoo_api_and_seed_tests(game: str, params: dict[str, Any]) -> None:
    api_test(env(game=game, **params), num_cycles=300)
    seed_test(lambda: env(game=game, **params), num_cycles=100)


def play(table: Any, seed: int) -> tuple[dict[str, float], int]:
    """A game with uniformly random legal actions; cumulative rewards and decisions."""
    table.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards = dict.fromkeys(table.possible_agents, 0.0)
    decisions = 0
    for agent in table.agent_iter():
        observation, reward, terminated, truncated, _ = table.last()
        rewards[agent] += reward
        if terminated or truncated:
            table.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        table.step(int(rng.choice(legal)))
        decisions += 1
    return rewards, decisions


@pytest.mark.parametrize(("game", "players"), [("martian", 3), ("attacks", 3)])
def test_games_end_with_the_engines_returns(game: str, players: int) -> None:
    params = {"players": players, "target": 8} if game == "martian" else {"players": players}
    for seed in range(3):
        rewards, decisions = play(env(game=game, **params), seed)
        assert decisions > 0
        assert sum(rewards.values()) == pytest.approx(1.0)
        assert all(value in (0.0, 1.0) or 0 < value < 1 for value in rewards.values())


def test_only_the_agent_to_act_gets_a_mask_and_it_is_the_games() -> None:
    table = raw_env(game="martian", players=2, target=10)
    table.reset(seed=4)
    ours = get_game("martian")
    acting = table.agent_selection
    other = next(agent for agent in table.agents if agent != acting)
    mask = table.observe(acting)["action_mask"]
    assert mask.dtype == np.int8
    assert mask.tolist() == [int(flag) for flag in ours.legal_mask(table.position)]
    assert mask.any() and not table.observe(other)["action_mask"].any()


def test_the_same_seed_plays_the_same_game() -> None:
    first = play(env(game="attacks", players=2), 11)
    second = play(env(game="attacks", players=2), 11)
    assert first == second


def test_the_move_cap_truncates_without_reward() -> None:
    table = raw_env(game="martian", players=2, max_moves=6)
    table.reset(seed=2)
    while not any(table.truncations.values()):
        mask = table.observe(table.agent_selection)["action_mask"]
        table.step(int(np.flatnonzero(mask)[0]))
        assert not any(table.terminations.values())
    assert all(table.truncations.values()) and table.moves >= 6
    assert set(table._cumulative_rewards.values()) == {0.0}


def test_illegal_actions_raise_raw_and_end_the_game_wrapped() -> None:
    table = raw_env(game="martian", players=2)
    table.reset(seed=3)
    mask = table.observe(table.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match="legal"):
        table.step(illegal)
    wrapped = env(game="martian", players=2)
    wrapped.reset(seed=3)
    agent = wrapped.agent_selection
    wrapped.step(illegal)  # PettingZoo logs "Illegal move made"
    assert wrapped.terminations[agent] and wrapped._cumulative_rewards[agent] == -1


def _digest(game: str, seed: int, **params: Any) -> tuple[int, str]:
    """Every agent's observation, mask, reward, flags and info of a seeded random game."""
    import hashlib
    import json

    table = env(game=game, **params)
    table.reset(seed=seed)
    rng = np.random.default_rng(seed)
    log: list[Any] = []
    for agent in table.agent_iter():
        observation, reward, terminated, truncated, info = table.last()
        vector, mask = observation["observation"].tolist(), observation["action_mask"].tolist()
        log.append([agent, vector, mask, reward, terminated, truncated, sorted(info.items())])
        if terminated or truncated:
            table.step(None)
            continue
        table.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return len(log), hashlib.sha256(json.dumps(log).encode()).hexdigest()


def test_seeded_games_are_as_before() -> None:
    """Digests captured from the commit before issue 17."""
    assert _digest("martian", 1, players=3, target=8) == (
        38,
        "f2872b776c5fd887980aa715e90adc59d6817adec8f777f96aede80fb239ccb7",
    )
    assert _digest("attacks", 2, players=3) == (
        58,
        "cd82f79b00ebacb5e753fcadaf54f8d9ba97f72169b291d4f932641b85919619",
    )
    assert _digest("martian", 3, players=2, max_moves=20) == (
        15,
        "c19a6f9b208fc3b147cf5552c114d369f049c9c8c324741fd73a10030ef66655",
    )


def test_the_default_game_is_the_first_registered() -> None:
    from marsdice.games import game_names

    assert raw_env().game.name == game_names()[0]
    assert env(players=2).unwrapped.game.name == game_names()[0]


def test_state_is_the_whole_position_as_a_vector() -> None:
    table = raw_env(game="attacks", players=3)
    table.reset(seed=5)
    vector = table.state()
    assert vector.dtype == np.float32 and table.state_space.contains(vector)
    view = get_game("attacks").observe(table.position, None)
    assert vector.tolist() == pytest.approx(table.encoder.encode(view))


def test_an_unknown_setting_is_refused_naming_the_adapters_own_settings_too() -> None:
    with pytest.raises(VariantError, match=r"max_moves, turn_counters$"):
        raw_env(game="attacks", players=2, speed=2)


def test_render_mode_is_checked_and_render_shows_the_position() -> None:
    with pytest.raises(VariantError, match="render_mode must be one of ansi, human or None"):
        raw_env(game="martian", render_mode="rgb_array")
    table = raw_env(game="martian", players=2, render_mode="ansi")
    table.reset(seed=1)
    assert table.render() == get_game("martian").position_text(table.position, None)
    assert "choose: P1 picks from" in table.render()
    assert raw_env(game="martian").render() is None


def test_turn_counters_can_be_left_out() -> None:
    table = raw_env(game="martian", players=2, turn_counters=False)
    table.reset(seed=1)
    full = raw_env(game="martian", players=2)
    assert table.observation_space("player_0")["observation"].shape == (28,)
    assert not any(label.startswith("turns") for label in table.encoder.labels)
    assert full.encoder.size == table.encoder.size + 2


def test_an_environment_pickles_mid_game_and_plays_on_the_same() -> None:
    import pickle

    table = raw_env(game="attacks", players=2)
    table.reset(seed=8)
    for _ in range(5):
        mask = table.observe(table.agent_selection)["action_mask"]
        table.step(int(np.flatnonzero(mask)[0]))
    again = pickle.loads(pickle.dumps(table))
    for one in (table, again):
        for _ in range(5):
            mask = one.observe(one.agent_selection)["action_mask"]
            one.step(int(np.flatnonzero(mask)[-1]))
    assert again.position == table.position
    assert again.observe("player_1")["observation"].tolist() == (
        table.observe("player_1")["observation"].tolist()
    )


@pytest.mark.parametrize("game", ["martian", "attacks"])
def test_pettingzoos_render_test_passes_and_human_prints_every_step(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    render_test(lambda render_mode=None: env(game=game, render_mode=render_mode))
    table = env(game=game, players=2, render_mode="human")
    capsys.readouterr()
    table.reset(seed=4)
    for _ in range(3):
        observation, *_ = table.last()
        table.step(int(np.flatnonzero(observation["action_mask"])[0]))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and lines[-1] == table.unwrapped.game.position_text(
        table.unwrapped.position, None
    )
    assert table.render() is None


def test_a_numpy_seed_is_a_seed_and_a_bad_one_is_refused_changing_nothing() -> None:
    numpy_seeded = raw_env(game="attacks", players=2)
    int_seeded = raw_env(game="attacks", players=2)
    numpy_seeded.reset(seed=np.int64(9))
    int_seeded.reset(seed=9)
    assert numpy_seeded.position == int_seeded.position
    before, stream = numpy_seeded.position, numpy_seeded.rng.getstate()
    for seed in (-1, 1.5, "x", True, [1, 2]):
        with pytest.raises(ValueError, match="a seed is a whole number of 0 or more"):
            numpy_seeded.reset(seed=seed)
        assert numpy_seeded.position is before and numpy_seeded.rng.getstate() == stream


def test_an_unknown_agent_is_refused_by_name() -> None:
    table = raw_env(game="martian", players=2)
    table.reset(seed=0)
    for ask in (table.observe, table.observation_space, table.action_space):
        with pytest.raises(ValueError, match="unknown agent 'player_9': the agents are player_0"):
            ask("player_9")
