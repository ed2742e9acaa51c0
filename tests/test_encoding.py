"""The observation encoders, now each game's own provider: every label, bound and value along
seeded games is what the adapters' encoder gave before the move (digests captured from the
commit before issue 17), and the adapters' ``encoder`` is the registration's."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from marsdice.adapters.encoding import encoder
from marsdice.attacks.cards import builtin_cards
from marsdice.core.encoding import Encoder
from marsdice.core.game import chance_agent, play_out
from marsdice.games import all_games, get_game, load, registration

#: (game, variant parameters, seed) -> (states played, vector size, sha256 of the labels, the
#: bounds and every view's vector: spectator then each seat, at every state of the game). The
#: seeds cover roll-offs (Martian Dice) and every Mars Attacks phase; "first12" is a custom
#: card set of the first twelve built-in cards.
EXPECTED: list[tuple[str, dict[str, Any], int, tuple[int, int, str]]] = [
    (
        "martian",
        {"players": 1, "target": 6},
        1,
        (164, 25, "bfda14426c78a4cf66cfd382470fdd2ba6ca0d02584611c630c45e40e5b2af13"),
    ),
    (
        "martian",
        {"players": 2},
        2,
        (295, 30, "6d0c925ffecd2c2f794617d717acb65c1bc8b734f6726b4ff96549c3a7f733d7"),
    ),
    (
        "martian",
        {"players": 3, "target": 5, "dice": 7, "rolloff_dice": 4},
        3,
        (61, 35, "d58ac717a6f8a456e1759d3d214573eeb2ce07b8ed08d6cc17a2932304110211"),
    ),
    (
        "martian",
        {"players": 3, "target": 3, "dice": 5, "rolloff_dice": 3},
        34,
        (87, 35, "3da8e6b7f2b8518514c127937c64ee6faafd86deeac43c19c4cd69c1bb691e56"),
    ),
    (
        "martian",
        {"players": 4, "target": 3, "rolloff_mode": "single"},
        13,
        (31, 40, "b24bd9efcb71e8a84388c72866224921386bccf2b36c0caa6819952742bcdbfb"),
    ),
    (
        "attacks",
        {"players": 2},
        0,
        (66, 308, "412b897445250e57a8aec07050b0359cadfdc9c5db916e0d4d6077ee3a6b23a9"),
    ),
    (
        "attacks",
        {"players": 2},
        3,
        (49, 308, "adf49fac10124a749901aa50790cd603184863a5d9428b1c1f07bb3f5177cefe"),
    ),
    (
        "attacks",
        {"players": 2},
        7,
        (37, 308, "d658a98c328fec3f481d8ce065b3b3e31affd4ac9f2f84f4eccb1908111ac7c0"),
    ),
    (
        "attacks",
        {"players": 2},
        9,
        (54, 308, "60fc2a040502fee482248dedb39dbbbddafeb4fb2ef0036aa8178721afc4d819"),
    ),
    (
        "attacks",
        {"players": 3, "difficulty": "hard", "reroll": "subset"},
        2,
        (103, 372, "7d4f5a7e69ebdd6cd9468ee2b5b04eb65914406727d91bf2c7ed8163b1a93e05"),
    ),
    (
        "attacks",
        {"players": 2, "cards": "first12"},
        1,
        (78, 155, "513a20d6c03c64f7b9713cf06ac82bdb1d3557e2d260894c8252eb2f07a13c23"),
    ),
]


def digest(name: str, params: dict[str, Any], seed: int) -> tuple[int, int, str]:
    """Plays a seeded random game and hashes the encoder's labels, bounds and every view."""
    game = get_game(name)
    if params.get("cards") == "first12":
        params = {**params, "cards": [card.to_dict() for card in builtin_cards()[:12]]}
    variant = game.variant_from_params(params)
    enc = encoder(game, variant, 500)
    rng = random.Random(seed)
    start = game.start(variant, rng)
    played = play_out(start, [chance_agent(rng)] * variant.players, rng)
    states = [start]
    for action in played.actions:
        states.append(states[-1].apply(action))
    viewers = [None, *range(variant.players)]
    vectors = [enc.encode(game.observe(state, viewer)) for state in states for viewer in viewers]
    blob = json.dumps([enc.labels, enc.high, vectors]).encode()
    return len(states), enc.size, hashlib.sha256(blob).hexdigest()


@pytest.mark.parametrize(("name", "params", "seed", "expected"), EXPECTED)
def test_every_label_bound_and_value_is_as_before(
    name: str, params: dict[str, Any], seed: int, expected: tuple[int, int, str]
) -> None:
    assert digest(name, params, seed) == expected


def test_the_adapters_encoder_is_the_games_registered_provider() -> None:
    for game in all_games():
        factory = load(registration(game).encoder)
        variant = game.default_variant(2)
        ours, theirs = factory(variant, 50), encoder(game, variant, 50)
        assert isinstance(ours, Encoder)
        assert (ours.labels, ours.high) == (theirs.labels, theirs.high)
        view = game.observe(game.start(variant, random.Random(1)), 0)
        assert ours.encode(view) == theirs.encode(view)
        assert len(ours.high) == ours.size and min(ours.high) >= 0


def test_an_encoder_refuses_another_games_variant() -> None:
    martian, attacks = get_game("martian"), get_game("attacks")
    with pytest.raises(TypeError, match="not a Martian Dice variant"):
        load(registration(martian).encoder)(attacks.default_variant(2), 10)
    with pytest.raises(TypeError, match="not a Mars Attacks variant"):
        load(registration(attacks).encoder)(martian.default_variant(2), 10)
