"""A person at the keyboard: the move prompt shared by ``marsdice play`` and the online client
(``marsdice connect``), so that neither imports the other for it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Final

from rich.console import Console
from rich.markup import escape

from marsdice.cli.view import GameView
from marsdice.core.errors import MarsDiceError
from marsdice.core.game import Action, GameState

QUIT_WORDS: Final = frozenset({"quit", "exit", "q"})
HELP_WORDS: Final = frozenset({"help", "h?", "commands"})
RULES_WORDS: Final = frozenset({"rules", "?"})
YES_WORDS: Final = frozenset({"y", "yes"})


class Abandoned(Exception):
    """The person at the keyboard left the game (quit, end of input or Ctrl-C)."""


class ActionPrompt:
    """Asks a person at the keyboard for a move in the game's notation, checked on ``state``:
    ``help``, ``rules`` / ``?``, and ``quit`` (confirmed; raises :class:`Abandoned`). Shared
    by ``marsdice play`` and the online client (``marsdice connect``)."""

    def __init__(
        self,
        view: GameView,
        console: Console,
        read_line: Callable[[str], str] | None = None,
        *,
        hints: bool = False,
    ) -> None:
        self.view = view
        self.console = console
        self.read_line = read_line or self.terminal(console)
        self.hints = hints

    @staticmethod
    def terminal(console: Console) -> Callable[[str], str]:
        """Read a line, first throwing away keys typed while the computer played."""

        def read(prompt: str) -> str:
            _discard_typeahead()
            return console.input(prompt)

        return read

    def ask(self, state: GameState, name: str, names: Sequence[str]) -> Action:
        """Show the board (``names``: every seat's) and a hint, then read until a legal move
        is typed."""
        self.view.render_board(self.console, state, names)
        if self.hints:
            hint = self.view.hint(state)
            if hint:
                self.console.print(f"[dim]hint: {escape(hint)}[/]")
        while True:
            text = self.read_line(f"[bold]{escape(name)}[/] > ").strip()
            word = text.lower()
            if word in QUIT_WORDS:
                if self.confirm_quit():
                    raise Abandoned
                continue
            if word in RULES_WORDS:  # "?": the rules, then what may be typed now
                self.console.print(self.view.rules_text())
                if word == "?":
                    self.console.print(self.view.help_text(state))
                continue
            if word in HELP_WORDS or not text:
                self.console.print(self.view.help_text(state))
                continue
            # a view may read the web page's keys too (Mars Attacks: g, a stack's number)
            shortcut: Callable[[GameState, str], str] | None = getattr(self.view, "shortcut", None)
            if shortcut is not None:
                text = shortcut(state, text)
            try:
                action = state.parse_action(text)
                state.apply(action)
            except MarsDiceError as error:
                self.console.print(f"[red]{escape(str(error))}[/]")
                continue
            return action

    def confirm_quit(self) -> bool:
        answer = self.read_line("Quit this game? (y/N) ").strip().lower()
        return answer in YES_WORDS


def _discard_typeahead() -> None:
    """Throw away input typed before the prompt (keys pressed during the computer's turn)."""
    if not sys.stdin.isatty():
        return
    try:
        import termios

        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except (ImportError, OSError, ValueError):  # not a POSIX terminal: nothing to flush
        pass
