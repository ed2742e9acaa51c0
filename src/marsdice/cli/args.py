"""Shared pieces of the command line: option types that refuse out-of-range numbers with a
clear message, the help formatter that shows defaults, and the one-line error printer.

The type functions raise :class:`argparse.ArgumentTypeError`, so argparse prints
``marsdice play: error: argument --delay: must be 0 or more, got -1`` and exits with 2.

>>> non_negative_float("0.5")
0.5
>>> non_negative_float("-1")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be 0 or more, got -1
>>> int_range(1, 10)("11")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be 1-10, got 11
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import TextIO

from rich.markup import escape

__all__ = [
    "DefaultsHelpFormatter",
    "escape",
    "int_range",
    "non_negative_float",
    "non_negative_int",
    "positive_int",
    "print_error",
]


def _number(text: str, kind: type[int] | type[float]) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    """A number ≥ 0 (seconds, say); ``inf`` and ``nan`` are refused."""
    value = float(_number(text, float))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def positive_float(text: str) -> float:
    """A number > 0 (a period in seconds); ``inf`` and ``nan`` are refused."""
    value = float(_number(text, float))
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """A whole number ≥ 0 (a seed, a score)."""
    value = int(_number(text, int))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def positive_int(text: str) -> int:
    """A whole number ≥ 1 (a count of games, of processes)."""
    value = int(_number(text, int))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {text}")
    return value


def int_range(low: int, high: int) -> Callable[[str], int]:
    """A type function for a whole number from ``low`` to ``high`` inclusive."""

    def parse(text: str) -> int:
        value = int(_number(text, int))
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low}-{high}, got {text}")
        return value

    parse.__name__ = f"int {low}-{high}"
    return parse


class DefaultsHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Adds ``(default: X)`` to an option's help, except where there is nothing to show (no
    default, a flag that is off) or the help already names its default."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            default is None
            or default is False
            or default == ""
            or default == argparse.SUPPRESS
            or "default" in text.lower()
            or isinstance(action, argparse._HelpAction | argparse._VersionAction)
            or not action.option_strings
        ):
            return action.help
        return super()._get_help_string(action)


def print_error(message: str, *, kind: str = "error", file: TextIO | None = None) -> None:
    """``marsdice: error: MESSAGE`` on one line of stderr, printed as it is (no markup, so
    ``[plot]`` or a record's ``[Game "..."]`` survive). ``kind`` replaces ``error``
    (``stopped``, ``note``)."""
    stream = file if file is not None else sys.stderr
    line = " ".join(message.split())
    stream.write(f"marsdice: {kind}: {line}\n")
    stream.flush()
