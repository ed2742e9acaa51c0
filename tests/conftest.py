"""Shared helpers: scripted Martian Dice turns."""

from __future__ import annotations

import pytest

from marsdice.martian import STOP, Face, Roll, State, Take


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
