"""The games this package knows, each registered here once with everything the layers above
load for it.

A game is one engine package (its :class:`~marsdice.core.game.Game` object) plus one
:class:`Registration` in :data:`REGISTERED`: its bots, terminal view, valuator (the game
review's method), advice (the hints' figures), research encoder and browser plugin, each a
lazy ``"module:attribute"`` entry imported only when that layer asks for it (listing bots
never loads numpy, the server never imports the terminal views). The engines name none of
these; no layer above asks which game it has: it asks the registration or the game's
:class:`~marsdice.core.game.GameType`.

>>> get_game("martian").title
'Martian Dice'
>>> sorted(game_names())
['attacks', 'martian']
>>> registration("attacks").default_opponent
'planner'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import import_module
from typing import Any, Final, Literal, get_args

from marsdice.core.errors import RecordError
from marsdice.core.game import Game
from marsdice.core.record import GameRecord


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot a game offers, by name; ``factory`` is ``"module:callable"`` (called with
    ``seed=``), imported only when the bot is built."""

    name: str
    description: str
    factory: str
    #: its decisions may solve tables (seconds to minutes for a big variant): the server
    #: asks its solve pool for them, never its own threads (``docs/server.md``)
    solves: bool = False
    #: the name a person reads where the bot plays (a server's records, reviews): the
    #: browser shows its own translation of it (``bot.NAME`` in the translation files)
    title: str = ""

    @property
    def display_name(self) -> str:
        """``title``, or ``"NAME bot"`` for a bot that has none."""
        return self.title or f"{self.name.capitalize()} bot"


@dataclass(frozen=True, slots=True)
class BrowserPlugin:
    """A game's part of the browser client: its ES module under ``web/static/`` (named
    exports: ``renderOptions``, ``renderBoard``, ``describeEvent``, ``actionLabel``,
    ``describeChoice``, ``tieBreakLines``, see ``docs/browser.md``) and its translation
    namespace."""

    module: str
    namespace: str


@dataclass(frozen=True, slots=True)
class Registration:
    """One game and its providers. Each provider is ``"module:attribute"``:

    - ``view``: the terminal view (a :class:`marsdice.cli.view.GameView`);
    - ``valuator``: ``factory(game, start) -> Valuator`` (:mod:`marsdice.review.core`);
    - ``advice``: ``figures(state) -> {notation: figures or None}`` for the hints panel;
    - ``encoder``: ``factory(variant, max_moves) -> Encoder``
      (:mod:`marsdice.core.encoding`).
    """

    game: str
    bots: tuple[BotSpec, ...]
    #: the bot ``marsdice play`` and an absent player's stand-in use by default
    default_opponent: str
    view: str
    valuator: str
    advice: str
    encoder: str
    plugin: BrowserPlugin
    #: a bot that never solves: the server plays it, move by move, in place of a seat's
    #: solving bot when the solve pool cannot decide in time (``docs/server.md``)
    fast_bot: str
    #: ``"module:size"``: ``size(variant) -> int``, how big the tables the game's solvers
    #: build for a variant are (the server's ``--max-solve`` caps it); None: every variant's
    #: solves are small
    solve_size: str | None = None
    #: ``"module:class"``: the batched numpy environment (N games stepped at once,
    #: ``docs/research.md``), built as ``cls(n, variant, seed=...)``; None: the game has none
    vector: str | None = None
    #: ``"module:factory"``: ``factory(variant) -> build | None``, for a variant whose advice
    #: is a lookup in tables a process builds once (a few tenths of a second, tens of MB),
    #: the function that builds them: the server then values its positions in place instead
    #: of in the solve pool (``docs/server.md``); None: every variant's advice is the pool's
    advice_tables: str | None = None


def _random_bot() -> BotSpec:
    return BotSpec(
        "random", "uniformly random legal moves", "marsdice.bots.base:RandomBot", title="Random bot"
    )


#: every game, once
REGISTERED: Final = (
    Registration(
        game="marsdice.martian.game:GAME",
        bots=(
            BotSpec(
                "winprob",
                "solver: the highest chance to win (exact for 2-4 players, approximate "
                "for 5+, fewest turns solo)",
                "marsdice.bots.martian_solver:WinProbabilityBot",
                title="Expert bot",
                solves=True,
            ),
            BotSpec(
                "expected",
                "solver: the highest expected score each turn (3.11 points a turn)",
                "marsdice.bots.martian_solver:ExpectedScoreBot",
                title="Strong bot",
                solves=True,
            ),
            BotSpec(
                "cautious",
                "heuristic: guards against tanks, banks points early",
                "marsdice.bots.martian_heuristic:CautiousBot",
                title="Cautious bot",
            ),
            _random_bot(),
        ),
        default_opponent="winprob",
        view="marsdice.cli.martian_view:VIEW",
        valuator="marsdice.review.martian:valuator",
        advice="marsdice.review.martian:advice_figures",
        encoder="marsdice.martian.encoding:encoder",
        plugin=BrowserPlugin("js/games/martian.js", "martian"),
        fast_bot="cautious",
        solve_size="marsdice.bots.martian_solver:solve_size",
        vector="marsdice.vector.martian:MartianVectorEnv",
        advice_tables="marsdice.review.martian:advice_tables",
    ),
    Registration(
        game="marsdice.attacks.game:GAME",
        bots=(
            BotSpec(
                "planner",
                "exact turn solver: maximises expected VP, values progress left on cards",
                "marsdice.bots.attacks_planner:PlannerBot",
                title="Planner bot",
                solves=True,
            ),
            BotSpec(
                "search",
                "determinized search: the planner's best targets, each played out over "
                "sampled face-down cards, the likeliest win chosen; avoids ending the game "
                "behind",
                "marsdice.bots.attacks_search:SearchBot",
                title="Search bot",
                solves=True,
            ),
            BotSpec(
                "heuristic",
                "rules of thumb: rich likely targets, stops three nukes short of the limit",
                "marsdice.bots.attacks_heuristic:HeuristicBot",
                title="Heuristic bot",
            ),
            _random_bot(),
        ),
        default_opponent="planner",
        view="marsdice.cli.attacks_view:VIEW",
        valuator="marsdice.review.attacks:valuator",
        advice="marsdice.review.attacks:advice_figures",
        encoder="marsdice.attacks.encoding:encoder",
        plugin=BrowserPlugin("js/games/attacks.js", "attacks"),
        fast_bot="heuristic",
    ),
)

#: the provider fields of a :class:`Registration` that :func:`provider` loads
ProviderKind = Literal["view", "valuator", "advice", "encoder"]
PROVIDERS: Final[tuple[ProviderKind, ...]] = get_args(ProviderKind)


def load(entry: str) -> Any:
    """The object a ``"module:attribute"`` entry names, imported now."""
    module, sep, attribute = entry.partition(":")
    if not sep or not attribute:
        raise ValueError(f"{entry!r} is not 'module:attribute'")
    return getattr(import_module(module), attribute)


@cache
def _registry() -> dict[str, tuple[Game, Registration]]:
    games: dict[str, tuple[Game, Registration]] = {}
    for entry in REGISTERED:
        game = load(entry.game)
        if not isinstance(game, Game):
            raise TypeError(f"{entry.game} is not a Game")
        games[game.name] = (game, entry)
    return games


def game_names() -> tuple[str, ...]:
    """The registered games' names, in registration order."""
    return tuple(_registry())


def all_games() -> tuple[Game, ...]:
    return tuple(game for game, _ in _registry().values())


def get_game(name: str) -> Game:
    """A game by name; an unknown name gets a message listing the known ones."""
    games = _registry()
    if name not in games:
        raise ValueError(f"unknown game {name!r}: choose one of {', '.join(sorted(games))}")
    return games[name][0]


def registration(game: str | Game) -> Registration:
    """A game's registration (its providers), by name or object."""
    name = game.name if isinstance(game, Game) else game
    get_game(name)  # the message for an unknown name
    return _registry()[name][1]


def provider(game: str | Game, kind: ProviderKind) -> Any:
    """One of a game's providers (``"view"``, ``"valuator"``, ``"advice"``,
    ``"encoder"``), imported now."""
    if kind not in PROVIDERS:
        raise ValueError(f"unknown provider {kind!r}: one of {', '.join(PROVIDERS)}")
    return _loaded(getattr(registration(game), kind))


@lru_cache(maxsize=64)
def _loaded(entry: str) -> Any:
    """:func:`load`, once per entry (a provider is asked for at every position advised)."""
    return load(entry)


def bot_spec(game: str | Game, name: str) -> BotSpec:
    """A bot a game's registration offers, by name (nothing is imported); an unknown name
    gets a message listing the known ones."""
    offered = registration(game).bots
    for spec in offered:
        if spec.name == name:
            return spec
    known = ", ".join(spec.name for spec in offered)
    game_name = game.name if isinstance(game, Game) else game
    raise ValueError(f"unknown bot {name!r} for {game_name}: choose one of {known}")


def read_record(text: str) -> tuple[Game, GameRecord]:
    """Parse a record of any known game."""
    record = GameRecord.loads(text)
    games = _registry()
    if record.game not in games:
        raise RecordError(f"unknown game {record.game!r}: known games are {', '.join(games)}")
    return games[record.game][0], record
