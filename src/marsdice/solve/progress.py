"""Progress of long solves, through a callback the caller installs (nothing is shown otherwise).

Solving a table can take from milliseconds (the default game: about a second, once; then it is
read from the disk cache) to a minute (100 points with 20 dice). The solvers call
:func:`report` as they go; by default that does nothing (tests, libraries, bots in worker
processes). A front end installs a callback for a block of code::

    with reporting(callback):        # callback(what, done, total)
        table = winprob_table(60, 18)

or uses the ready-made one, a rich progress bar on stderr that appears only once a solve has
run for half a second and disappears when it ends::

    with stderr_progress():
        ...

``what`` names the table ("win-probability table, target 60, 18 dice"); ``done`` counts up
to ``total`` (positions solved); the last call of a solve has ``done == total``. A callback
may raise (``KeyboardInterrupt``) to abandon the solve; nothing is cached then.

>>> seen = []
>>> with reporting(lambda what, done, total: seen.append((done, total))):
...     report("demo", 1, 2)
>>> report("demo", 2, 2)  # outside the block: nobody listens
>>> seen
[(1, 2)]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final

#: ``callback(what, done, total)``
ProgressCallback = Callable[[str, int, int], None]

#: A solve shorter than this shows nothing.
DELAY: Final = 0.5

_listener: ContextVar[ProgressCallback | None] = ContextVar("marsdice_progress", default=None)


@contextmanager
def reporting(callback: ProgressCallback | None) -> Iterator[None]:
    """Send the progress of every solve in this block to ``callback`` (``None``: silence)."""
    token = _listener.set(callback)
    try:
        yield
    finally:
        _listener.reset(token)


def report(what: str, done: int, total: int) -> None:
    """Tell the installed callback, if any, how far a solve has got."""
    callback = _listener.get()
    if callback is not None:
        callback(what, done, total)


@contextmanager
def stderr_progress(delay: float = DELAY) -> Iterator[ProgressCallback]:
    """Install (and yield) a callback that draws a rich progress bar on stderr for any solve
    still running after ``delay`` seconds; the bar is removed when the solve ends."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    bars = Progress(
        TextColumn("[bold]solving[/] {task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    started: dict[str, float] = {}
    tasks: dict[str, Any] = {}

    def callback(what: str, done: int, total: int) -> None:
        now = time.monotonic()
        first = started.setdefault(what, now)
        if done >= total:
            started.pop(what, None)
            task = tasks.pop(what, None)
            if task is not None:
                bars.remove_task(task)
                if not tasks:
                    bars.stop()
            return
        if what not in tasks:
            if now - first < delay:
                return
            if not tasks:
                bars.start()
            tasks[what] = bars.add_task(what, total=total)
        bars.update(tasks[what], completed=done, total=total)

    try:
        with reporting(callback):
            yield callback
    finally:
        if tasks:
            bars.stop()
        sys.stderr.flush()
