"""The single-agent Gymnasium environment: Gymnasium's own check_env on both games and a spread
of options, the mask, the bots at the other seats, rewards, truncation, illegal actions."""

from __future__ import annotations

from typing import Any

import pytest

from marsdice.core.errors import VariantError

gymnasium: Any = pytest.importorskip("gymnasium", reason="the research extra is not installed")
np: Any = pytest.importorskip("numpy")
from gymnasium.utils.env_checker import check_env  # noqa: E402

import marsdice.adapters.gymnasium  # noqa: E402  (registers the ids)

CASES = [
    ("marsdice/Martian-v0", {"opponent": "cautious", "target": 8}),
    ("marsdice/Martian-v0", {"players": 1, "target": 5}),
    ("marsdice/Martian-v0", {"opponent": "random", "players": 3, "seat": 2, "dice": 8}),
    ("marsdice/Martian-v0", {"opponent": "random", "max_moves": 5}),
    ("marsdice/Attacks-v0", {"opponent": "random", "players": 3, "seat": 1}),
    ("marsdice/Attacks-v0", {"opponent": "heuristic", "players": 2, "difficulty": "hard"}),
]


@pytest.mark.parametrize(("env_id", "options"), CASES)
def test_gymnasium_check_env(env_id: str, options: dict[str, Any]) -> None:
    check_env(gymnasium.make(env_id, **options).unwrapped, skip_render_check=True)


def episode(env: Any, seed: int) -> tuple[float, bool, bool, int]:
    """One episode of random legal actions: total reward, terminated, truncated, steps."""
    observation, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps = 0.0, 0
    while True:
        assert observation["action_mask"].tolist() == info["action_mask"].tolist()
        assert env.observation_space.contains(observation)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(action)
        total += reward
        steps += 1
        if terminated or truncated:
            return total, terminated, truncated, steps


@pytest.mark.parametrize("env_id", ["marsdice/Martian-v0", "marsdice/Attacks-v0"])
def test_episodes_end_with_our_return_against_a_bot(env_id: str) -> None:
    options = {"target": 8} if "Martian" in env_id else {"players": 2}
    env = gymnasium.make(env_id, opponent="random", **options)
    results = [episode(env, seed) for seed in range(6)]
    assert all(terminated and not truncated for _, terminated, truncated, _ in results)
    assert {total for total, *_ in results} <= {0.0, 0.5, 1.0}
    assert episode(env, 3) == results[3]  # seeded: dice, deal and bots


def test_solo_reward_is_minus_the_turns() -> None:
    env = gymnasium.make("marsdice/Martian-v0", players=1, target=6)
    total, terminated, _, _ = episode(env, 1)
    assert terminated and total == -env.unwrapped.state.turns[0] and total <= -1


def test_truncation_at_the_cap_and_illegal_actions() -> None:
    env = gymnasium.make("marsdice/Martian-v0", opponent="random", max_moves=4)
    total, terminated, truncated, _ = episode(env, 2)
    assert truncated and not terminated and total == 0.0
    _, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"]


def test_bad_options_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        gymnasium.make("marsdice/Martian-v0", opponent="nobody")
    with pytest.raises(VariantError, match="seat"):
        gymnasium.make("marsdice/Attacks-v0", players=2, seat=2)
    with pytest.raises(VariantError, match="target"):
        gymnasium.make("marsdice/Martian-v0", target=0)


@pytest.mark.parametrize("game", ["Martian", "Attacks"])
def test_an_unknown_setting_is_refused_naming_every_setting_the_table_takes(game: str) -> None:
    with pytest.raises(VariantError) as refused:
        gymnasium.make(f"marsdice/{game}-v0", colour="red")
    assert refused.value.setting == "colour"
    named = str(refused.value).split(": use ")[1].split(", ")
    assert {"players", "max_moves", "turn_counters"} <= set(named)


def test_one_id_per_registered_game_and_the_default_game() -> None:
    from marsdice.games import game_names

    ids = sorted(key for key in gymnasium.registry if key.startswith("marsdice/"))
    assert ids == ["marsdice/Attacks-v0", "marsdice/Martian-v0"]
    assert {gymnasium.registry[key].kwargs["game"] for key in ids} == set(game_names())
    assert marsdice.adapters.gymnasium.MarsDiceEnv().game.name == game_names()[0]


def _digest(env_id: str, seed: int, **options: Any) -> tuple[int, str]:
    """Every observation, mask, score line, rendering and reward of a seeded episode."""
    import hashlib
    import json

    env = gymnasium.make(env_id, **options)
    observation, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    log: list[Any] = []
    while True:
        vector, mask = observation["observation"].tolist(), observation["action_mask"].tolist()
        table = env.unwrapped  # the score line render() gave before issue 19
        names = [
            "you" if s == table.seat else f"{table.opponent}{s}"
            for s in range(table.variant.players)
        ]
        log.append([vector, mask, info["scores"], table.game.result_text(table.state, names)])
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(action)
        log.append([reward, terminated, truncated])
        if terminated or truncated:
            return len(log), hashlib.sha256(json.dumps(log).encode()).hexdigest()


def test_seeded_episodes_are_as_before() -> None:
    """Digests captured from the commit before issue 17."""
    assert _digest("marsdice/Martian-v0", 3, opponent="random", target=8) == (
        98,
        "a33fd44e2c4b5f252a8e2702a5eaaed30c432fb5e9c7d1a7f495cfaa0e60252a",
    )
    assert _digest("marsdice/Attacks-v0", 4, opponent="random", players=3, seat=1) == (
        10,
        "04f6219e2da70bc9f744ad0b0e41b8d4b8974495739a414b0a1c2990ca93535b",
    )
    assert _digest("marsdice/Martian-v0", 5, opponent="random", max_moves=9) == (
        12,
        "ea46f671b16bc45a5bd44234208c8fbf1d9f3ed431d474a1ca6ab9b80329cdbb",
    )


def test_an_environment_pickles_and_runs_in_spawn_workers() -> None:
    import pickle

    env = gymnasium.make("marsdice/Attacks-v0", opponent="random", players=2)
    env.reset(seed=2)
    again = pickle.loads(pickle.dumps(env.unwrapped))
    assert again.state == env.unwrapped.state
    vec = gymnasium.make_vec(
        "marsdice/Martian-v0",
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"context": "spawn"},
        opponent="random",
        target=6,
    )
    try:
        observations, infos = vec.reset(seed=4)
        assert observations["observation"].shape == (2, 30)
        for _ in range(30):
            # after an episode ends the next step resets (any action): its mask is empty
            legal = [np.flatnonzero(m) for m in infos["action_mask"]]
            actions = np.array([int(found[0]) if len(found) else 0 for found in legal])
            observations, _, _, _, infos = vec.step(actions)
            assert vec.single_observation_space["observation"].contains(
                observations["observation"][0]
            )
    finally:
        vec.close()


@pytest.mark.filterwarnings("ignore:.*render_mode=.rgb_array. that is not in the possible")
def test_render_mode_is_checked_and_turn_counters_can_go() -> None:
    with pytest.raises(VariantError, match="render_mode"):
        gymnasium.make("marsdice/Martian-v0", render_mode="rgb_array")
    env = gymnasium.make("marsdice/Martian-v0", render_mode="ansi", turn_counters=False)
    env.reset(seed=1)
    text = env.render()
    assert text.startswith("P1 0, P2 0 | choose: P1 picks from") and "turns" not in text
    assert env.observation_space["observation"].shape == (28,)


def test_human_render_mode_prints_the_position_at_reset_and_every_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = gymnasium.make("marsdice/Martian-v0", opponent="random", render_mode="human")
    check_env(env.unwrapped)  # Gymnasium's own checker, render included
    capsys.readouterr()
    _, info = env.reset(seed=2)
    shown = capsys.readouterr().out.splitlines()
    assert shown == [env.unwrapped.game.position_text(env.unwrapped.state, 0)]
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert len(capsys.readouterr().out.splitlines()) == 1
    assert env.render() is None
    assert capsys.readouterr().out.startswith("P1 ")


def test_a_numpy_seat_is_that_seat_and_other_seats_or_rewards_are_refused() -> None:
    """Once a defect: seat=np.int64(1) or 1.0 played seat 1 but observed as a spectator (the
    encoder did not take it for a seat), and seat=True was seat 1."""
    seen = []
    for seat in (1, np.int64(1)):
        env = gymnasium.make("marsdice/Martian-v0", opponent="random", seat=seat)
        observation, info = env.reset(seed=0)
        observation, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        seen.append(observation["observation"].tolist())
        assert env.unwrapped.seat == 1 and type(env.unwrapped.seat) is int
    assert seen[0] == seen[1]
    for seat in (True, 1.0, "1", None):
        with pytest.raises(VariantError, match="seat must be a whole number 0-1"):
            gymnasium.make("marsdice/Martian-v0", seat=seat)
    for reward in ("x", None, float("nan"), float("inf"), True):
        with pytest.raises(VariantError, match="illegal_reward must be a"):
            gymnasium.make("marsdice/Martian-v0", illegal_reward=reward)
