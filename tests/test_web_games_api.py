"""``/api/games`` serves what each game declares (its kind, defaults, the schemas of its
variant and of the table options, its browser plugin), and each game's variant schema says
exactly what ``variant_from_params`` accepts: its defaults validate, one past each limit and
any value outside an enum is refused by both."""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from typing import Any, ClassVar, Final

import jsonschema
import pytest
from starlette.testclient import TestClient

from marsdice.attacks.game import MarsAttacks
from marsdice.attacks.variant import SWITCHES
from marsdice.core.errors import VariantError
from marsdice.core.game import JSON, Game
from marsdice.games import all_games, get_game, registration
from marsdice.martian.game import MartianDice
from marsdice.martian.rules import RolloffMode
from marsdice.web.app import create_app
from marsdice.web.routes.lobby import game_entry
from marsdice.web.schemas import TableOptions

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

GAMES = [game.name for game in all_games()]
KEYS = {
    "name",
    "title",
    "min_players",
    "max_players",
    "bots",
    "default_opponent",
    "game_type",
    "defaults",
    "schema",
    "plugin",
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path = tmp_path_factory.mktemp("games") / "games.db"
    with TestClient(create_app(f"sqlite:///{path}", bot_delay=0)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def served(client: TestClient) -> dict[str, dict[str, Any]]:
    response = client.get("/api/games")
    assert response.status_code == 200
    return {entry["name"]: entry for entry in response.json()["games"]}


def validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def refused_by_the_game(game: Game, params: dict[str, JSON]) -> bool:
    try:
        game.variant_from_params(params)
    except VariantError:
        return True
    return False


def outside(schema: dict[str, Any]) -> list[JSON]:
    """Values of one setting that its schema forbids: one past each limit, outside the enum,
    of another type."""
    found: list[JSON] = []
    if "minimum" in schema:
        found.append(schema["minimum"] - 1)
    if "maximum" in schema:
        found.append(schema["maximum"] + 1)
    for choice in schema.get("anyOf", [schema]):
        if "enum" in choice:
            found.append(f"not-{choice['enum'][0]}")
    found.append(True)  # a JSON boolean is no integer, no string, no card list
    if schema.get("type") == "integer":
        found.append(str(schema["default"]))
    if schema.get("type") == "string":
        found.append(1)
    return found


# --- /api/games -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_games_serve_what_each_game_declares(served: dict[str, dict[str, Any]], name: str) -> None:
    game, entry = get_game(name), served[name]
    assert set(entry) == KEYS
    assert (entry["title"], entry["min_players"], entry["max_players"]) == (
        game.title,
        game.min_players,
        game.max_players,
    )
    assert entry["bots"] == [bot.name for bot in registration(game).bots]
    assert entry["default_opponent"] == registration(game).default_opponent
    assert entry["default_opponent"] in entry["bots"]
    assert entry["game_type"] == {
        "information": "perfect" if game.game_type.perfect_information else "imperfect",
        "hidden_setup": game.game_type.hidden_setup,
    }
    assert entry["defaults"] == {
        "variant": game.variant_to_params(game.default_variant(2)),
        "options": {"hints": False, "fool_check": True, "spectator_chat": True},
    }
    assert entry["schema"] == {
        "variant": game.variant_schema(),
        "options": TableOptions.model_json_schema(),
    }
    plugin = registration(game).plugin
    assert entry["plugin"] == {"module": f"/static/{plugin.module}", "namespace": plugin.namespace}


def test_the_two_games_differ_in_kind(served: dict[str, dict[str, Any]]) -> None:
    kinds = {name: entry["game_type"] for name, entry in served.items()}
    assert kinds["martian"] == {"information": "perfect", "hidden_setup": False}
    assert kinds["attacks"] == {"information": "imperfect", "hidden_setup": True}


@pytest.mark.parametrize("name", GAMES)
def test_the_plugin_module_is_served_where_the_entry_says(
    client: TestClient, served: dict[str, dict[str, Any]], name: str
) -> None:
    response = client.get(served[name]["plugin"]["module"])
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")


@pytest.mark.parametrize("name", GAMES)
def test_a_table_opens_with_the_defaults_served(
    client: TestClient, served: dict[str, dict[str, Any]], name: str
) -> None:
    defaults = served[name]["defaults"]
    seats = [{"kind": "human"}] * defaults["variant"]["players"]
    response = client.post(
        "/api/tables",
        json={"game": name, "variant": defaults["variant"], "seats": seats, **defaults},
    )
    assert response.status_code == 201, response.text
    table = response.json()
    assert (table["variant"], table["options"]) == (defaults["variant"], defaults["options"])


class _ThreeOrMore(MarsAttacks):
    min_players: ClassVar[int] = 3


class _SoloOnly(MartianDice):
    max_players: ClassVar[int] = 1


@pytest.mark.parametrize(("game", "players"), [(_ThreeOrMore(), 3), (_SoloOnly(), 1)])
def test_the_defaults_take_two_players_clamped_to_the_range(game: Game, players: int) -> None:
    variant = game_entry(game)["defaults"]
    assert isinstance(variant, dict) and isinstance(variant["variant"], dict)
    assert variant["variant"]["players"] == players


# --- the variant schemas ----------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_the_defaults_validate_against_the_schemas(
    served: dict[str, dict[str, Any]], name: str
) -> None:
    entry = served[name]
    validator(entry["schema"]["variant"]).validate(entry["defaults"]["variant"])
    validator(entry["schema"]["options"]).validate(entry["defaults"]["options"])
    game = get_game(name)
    for players in range(game.min_players, game.max_players + 1):
        params = game.variant_to_params(game.default_variant(players))
        validator(game.variant_schema()).validate(params)


@pytest.mark.parametrize("name", GAMES)
def test_the_schema_describes_every_setting_and_its_default(name: str) -> None:
    game = get_game(name)
    schema = game.variant_schema()
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert (schema["type"], schema["additionalProperties"]) == ("object", False)
    missing_given = game.variant_to_params(game.variant_from_params({}))
    assert list(properties) == list(missing_given)
    for key, setting in properties.items():
        assert isinstance(setting, dict)
        if "default" in setting:  # what variant_from_params takes when the key is missing
            assert setting["default"] == missing_given[key], key
            assert setting["type"] in ("integer", "string")
        else:
            assert key == "cards" and missing_given[key] == "builtin"


@pytest.mark.parametrize("name", GAMES)
def test_the_limits_are_the_games_own(name: str) -> None:
    game = get_game(name)
    schema = game.variant_schema()
    check = validator(schema)
    properties = schema["properties"]
    assert isinstance(properties, dict)
    tried = 0
    for key, setting in properties.items():
        assert isinstance(setting, dict)
        for limit in ("minimum", "maximum"):
            if limit in setting:
                assert not refused_by_the_game(game, {key: setting[limit]}), (key, limit)
        for value in setting.get("enum", []):
            assert not refused_by_the_game(game, {key: value}), (key, value)
        for value in outside(setting):
            assert refused_by_the_game(game, {key: value}), (key, value)
            assert not check.is_valid({key: value}), (key, value)
            tried += 1
    assert tried >= 3 * len(properties)
    assert refused_by_the_game(game, {"speed": 2}) and not check.is_valid({"speed": 2})


#: every value each engine accepts for its named settings (its own enums)
ENGINE_CHOICES: Final[dict[str, dict[str, type[StrEnum]]]] = {
    "martian": {"rolloff_mode": RolloffMode},
    "attacks": dict(SWITCHES),
}


@pytest.mark.parametrize("name", GAMES)
def test_every_value_the_engine_accepts_is_in_the_enum(name: str) -> None:
    properties = get_game(name).variant_schema()["properties"]
    assert isinstance(properties, dict)
    enums = {key: setting["enum"] for key, setting in properties.items() if "enum" in setting}
    assert enums == {
        key: [member.value for member in enum] for key, enum in ENGINE_CHOICES[name].items()
    }


def test_mars_attacks_cards_are_builtin_or_a_card_list() -> None:
    game = get_game("attacks")
    check = validator(game.variant_schema())
    for accepted in ("builtin", _builtin_as_list()):
        assert not refused_by_the_game(game, {"cards": accepted})
        assert check.is_valid({"cards": accepted})
    for refused in ([], "custom", {"cards": []}, 3):
        assert refused_by_the_game(game, {"cards": refused}), refused
        assert not check.is_valid({"cards": refused}), refused


def _builtin_as_list() -> list[JSON]:
    from marsdice.attacks.cards import builtin_cards

    return [card.to_dict() for card in builtin_cards()]
