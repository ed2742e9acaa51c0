"""Shared helpers: scripted Martian Dice turns."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from marsdice.martian import STOP, Face, Roll, State, Take

if TYPE_CHECKING:
    from marsdice.storage.db import Database


def roll(state: State, faces: str) -> State:
    """Apply a scripted roll written as face letters."""
    return state.apply(Roll.parse(faces))


def take(state: State, face: Face) -> State:
    return state.apply(Take(face))


def scoring_turn(state: State, points: int) -> State:
    """A whole turn scoring ``points`` (1-12): humans taken, the rest rays, then stop."""
    dice = state.dice_left
    state = take(roll(state, "H" * points + "R" * (dice - points)), Face.HUMAN)
    return state.apply(STOP)


def bust_turn(state: State) -> State:
    """A whole turn of nothing but tanks: no choice, scores 0."""
    return roll(state, "T" * state.dice_left)


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich wraps at the terminal width; keep messages on one line for assertions."""
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture(scope="session", autouse=True)
def private_solver_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Solved tables go to a fresh directory: no test reads or writes the user's cache, and
    nothing depends on tables left by an earlier run (each test process solves them once)."""
    from marsdice.solve import nplayer, policy, solo, winprob
    from marsdice.solve.batch import two_player_policies
    from marsdice.solve.cache import CACHE_ENV

    old = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.mktemp("solver-cache"))
    for cached in (
        winprob.winprob_table,
        solo.solo_table,
        two_player_policies,
        policy.three_player_table,
        policy.exact_table,
        nplayer.nplayer_table,
    ):
        cached.cache_clear()
    policy._solutions.clear()
    yield
    if old is None:
        del os.environ[CACHE_ENV]
    else:
        os.environ[CACHE_ENV] = old


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A fresh database for a storage or server test: SQLite in a temporary folder, and the
    PostgreSQL of ``MARSDICE_TEST_DATABASE_URL`` in a schema of its own (skipped, saying
    why, when it is not set or not reachable)."""
    from marsdice.storage.testing import postgres_unavailable, temporary_database

    if request.param == "postgresql" and (reason := postgres_unavailable()):
        pytest.skip(reason)
    with temporary_database(request.param, tmp_path) as database:
        yield database


@pytest.fixture
def pages() -> Iterator[list[Any]]:
    """The browser tests' pages: each test appends the pages it opens; afterwards none may
    have had a script error, and every one is closed."""
    made: list[Any] = []
    yield made
    for page in made:
        assert not page.errors, page.errors
        page.context.close()
