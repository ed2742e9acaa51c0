"""Research interfaces: every registered game as an OpenSpiel game, a PettingZoo AEC
environment and a single-agent Gymnasium environment (see ``docs/research.md``).

Each interface is a submodule (:mod:`marsdice.adapters.openspiel`,
:mod:`marsdice.adapters.pettingzoo`, :mod:`marsdice.adapters.gymnasium`) that needs the
optional ``research`` extra. Importing this package imports none of them, so ``import
marsdice`` and the CLI never pay for OpenSpiel, PettingZoo, Gymnasium or numpy; the shared,
dependency-free pieces are :mod:`marsdice.adapters.encoding` (a game's observation vector,
from its registration's encoder) and :mod:`marsdice.adapters.common` (the move cap).

The adapters know no game by name: they reach games through :mod:`marsdice.games` (the
registration and its providers) and what each game declares
(:class:`~marsdice.core.game.GameType`, :meth:`~marsdice.core.game.Game.max_game_length`,
:meth:`~marsdice.core.game.Game.setup_outcomes`).
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from marsdice.core.errors import MarsDiceError

#: what to tell a user who lacks the extra
INSTALL_HINT = "pip install 'marsdice[research]'"


class ResearchExtraMissing(MarsDiceError, ImportError):
    """A research interface was used without its optional dependencies installed."""

    exit_code = 2


def require(module: str) -> ModuleType:
    """Import one of the extra's modules, or raise a one-line error saying how to get it.

    >>> require("no_such_research_module")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    marsdice.adapters.ResearchExtraMissing: no_such_research_module is not installed: ...
    """
    try:
        return import_module(module)
    except ImportError as error:
        raise ResearchExtraMissing(
            f"{module} is not installed: the research interfaces need {INSTALL_HINT}"
        ) from error


#: the interfaces, each a submodule needing the extra
INTERFACES = ("openspiel", "pettingzoo", "gymnasium")


def __getattr__(name: str) -> ModuleType:
    """``marsdice.adapters.gymnasium`` and the others load on first use."""
    if name in INTERFACES:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
