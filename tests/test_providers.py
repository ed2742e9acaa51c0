"""Every provider of every registered game, loaded and used the way its layer uses it.

A game is one package plus one registration (``marsdice.games``); the layers above load its
providers by name. This suite loads each one for each game and checks it does its job: the
bots finish a game, the terminal view renders every step of a seeded game, the valuator
reviews a record, the advice advises a position, the encoder encodes every view within its
bounds, and the browser plugin file exists and exports what ``docs/browser.md`` documents.
"""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest
from rich.console import Console

from marsdice.bots import make_bot
from marsdice.cli.view import game_view
from marsdice.core.game import JSON, Game, GameState, Playthrough, Step, play_out
from marsdice.games import PROVIDERS, REGISTERED, all_games, provider, registration
from marsdice.review import review_game

STATIC = Path(__file__).resolve().parent.parent / "src" / "marsdice" / "web" / "static"

#: a small, quick variant of each game for the providers to work on
QUICK: dict[str, dict[str, JSON]] = {
    "martian": {"players": 2, "target": 8, "dice": 8, "rolloff_dice": 3},
    "attacks": {"players": 2, "end_stacks": 3},
}
DOCS = Path(__file__).resolve().parent.parent / "docs"


def documented_exports() -> list[str]:
    """The plugin functions ``docs/browser.md`` marks **required**, from its table."""
    text = (DOCS / "browser.md").read_text(encoding="utf-8")
    return re.findall(r"^\| `(\w+)\([^`]*\)` \| \*\*required\.\*\*", text, re.M)


def quick(game: Game) -> dict[str, JSON]:
    return QUICK[game.name]


def seeded_game(game: Game, bots: list[str], seed: int) -> Playthrough:
    variant = game.variant_from_params(quick(game))
    rng = random.Random(seed)
    agents = [make_bot(game, name, seed=seed + i).choose for i, name in enumerate(bots)]
    return play_out(game.start(variant, rng), agents, rng, max_steps=20_000)


GAMES = all_games()


def test_every_game_has_a_quick_variant() -> None:
    assert {game.name for game in GAMES} == set(QUICK)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_provider_loads(game: Game) -> None:
    for kind in PROVIDERS:
        assert provider(game, kind) is not None
    entry = registration(game)
    assert entry.default_opponent in {bot.name for bot in entry.bots}


@pytest.mark.parametrize(
    ("game", "bot"),
    [(game, bot.name) for game in GAMES for bot in registration(game).bots],
    ids=lambda item: item if isinstance(item, str) else item.name,
)
def test_every_bot_finishes_a_game(game: Game, bot: str) -> None:
    played = seeded_game(game, [bot, "random"], seed=3)
    assert played.final.is_terminal


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_terminal_view_renders_every_step(game: Game) -> None:
    view = game_view(game)
    played = seeded_game(game, ["random", "random"], seed=5)
    names = ["Ann", "Bob"]
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None)
    state: GameState = played.start
    for action in played.actions:
        after = state.apply(action)
        if not state.is_chance_node:
            view.render_board(console, state, names)
            assert view.help_text(state)
        view.render_step(console, Step(state, action, after), names)
        state = after
    view.render_final(console, state, names)
    assert view.rules_text()
    text = out.getvalue()
    assert "Ann" in text and "Bob" in text
    assert "Traceback" not in text


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_valuator_reviews_a_record(game: Game) -> None:
    played = seeded_game(game, ["random", "random"], seed=7)
    record = game.make_record(["Ann", "Bob"], played.start, played.moves)
    start = game.opening(record)
    review = review_game(game, start, record.moves, record.players)
    data = review.to_json()
    assert json.loads(json.dumps(data)) == data
    decisions = sum(1 for state in game.replay(record)[:-1] if not state.is_chance_node)
    assert decisions > 0
    assert len(review.decisions) == decisions


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_advice_advises_a_position(game: Game) -> None:
    figures_of = provider(game, "advice")
    played = seeded_game(game, ["random", "random"], seed=9)
    state = played.start
    advised = 0
    for action in played.actions:
        if not state.is_chance_node and advised < 3:
            figures = figures_of(state)
            assert set(figures) == {a.text() for a in state.legal_actions()}
            assert json.loads(json.dumps(figures)) == figures
            assert any(value is not None for value in figures.values())
            advised += 1
        state = state.apply(action)
    assert advised == 3


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_encoder_encodes_every_view_within_bounds(game: Game) -> None:
    played = seeded_game(game, ["random", "random"], seed=13)
    variant = game.variant_of(played.start)
    encoder = provider(game, "encoder")(variant, 1_000)
    assert len(encoder.labels) == len(encoder.high) == encoder.size > 0
    assert len(set(encoder.labels)) == encoder.size
    state = played.start
    for action in (*played.actions, None):
        for viewer in (None, *range(variant.players)):
            view = game.observe(state, viewer)
            values = encoder.encode(view)
            assert len(values) == encoder.size
            assert all(0 <= v <= high for v, high in zip(values, encoder.high, strict=True))
            assert encoder.encode(json.loads(json.dumps(view))) == values  # as sent on a wire
        if action is not None:
            state = state.apply(action)


def _exports(source: str) -> set[str]:
    """The names an ES module exports (named exports and a default object's keys)."""
    names = set(re.findall(r"^export (?:async )?(?:function|const|let|class) (\w+)", source, re.M))
    for block in re.findall(r"^export \{([^}]*)\}", source, re.M):
        names |= {part.split(" as ")[-1].strip() for part in block.split(",") if part.strip()}
    return names


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_browser_plugin_exists_and_exports_the_contract(game: Game) -> None:
    plugin = registration(game).plugin
    path = STATIC / plugin.module
    assert path.is_file(), path
    exports = _exports(path.read_text(encoding="utf-8"))
    required = documented_exports()
    assert len(required) >= 6, required
    missing = [name for name in required if name not in exports]
    assert not missing, f"{plugin.module} does not export {missing}"
    assert plugin.namespace == game.name or plugin.namespace


def test_the_plugin_namespace_has_translations() -> None:
    """Each plugin's translation namespace is a catalogue in every language the page offers."""
    languages = sorted(path for path in (STATIC / "i18n").iterdir() if path.is_dir())
    assert len(languages) >= 3
    for game in GAMES:
        namespace = registration(game).plugin.namespace
        for language in languages:
            catalogue = language / f"{namespace}.json"
            assert catalogue.is_file(), f"no {catalogue}"
            assert json.loads(catalogue.read_text(encoding="utf-8")), f"{catalogue} is empty"


def test_every_bot_has_the_display_name_the_browser_shows() -> None:
    """A bot's ``title`` (what records and reviews call the player) is the English page's
    own name for it, so that a person reads one name for one bot everywhere."""
    import json
    from pathlib import Path

    english = json.loads(
        (
            Path(__file__).resolve().parent.parent / "src/marsdice/web/static/i18n/en/common.json"
        ).read_text(encoding="utf-8")
    )
    for registered in REGISTERED:
        for bot in registered.bots:
            assert bot.title, bot.name
            assert english.get(f"bot.{bot.name}") == bot.display_name, bot.name
