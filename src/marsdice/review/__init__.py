"""Game review: what every decision of a finished (or unfinished) game cost, and the luck.

For every decision of every player: the position, the move played, the best move, each legal
move's value and the played move's loss against the best, marked ``best``, ``good``,
``inaccuracy``, ``mistake`` or ``blunder`` by documented thresholds (``forced`` when there
was one legal move, ``unrated`` when no value exists); per player an accuracy figure and the
luck of their dice. Martian Dice is valued by the exact solvers (the ``method`` says which:
``exact-2p``, ``exact-3p``, ``approximation``, ``solo-expected-turns``), Mars Attacks by the
planner bot's estimates (``planner-estimate``). See ``docs/review.md``.

Example (the solvers' tables come from the disk cache, or are solved on first use)::

    from marsdice.review import review_record
    review = review_record(open("game.mdr", encoding="utf-8").read())
    review.method, review.summaries[0].accuracy, review.to_json()["decisions"][0]["mark"]

Importing this package loads no solver; :func:`review_game` imports the game's own.
"""

from __future__ import annotations

import json
from importlib import resources

from marsdice.core.game import JSONObject
from marsdice.review.core import review_game, review_record
from marsdice.review.model import (
    MARKS,
    METHODS,
    PLANNER_VP,
    SCHEMA_ID,
    SOLO_TURNS,
    WIN_PROBABILITY,
    ZERO_LOSS,
    Choice,
    Decision,
    LuckStep,
    Mark,
    Method,
    PlayerSummary,
    Review,
    Thresholds,
    move_accuracy,
)

#: the JSON Schema of :meth:`Review.to_json`, shipped as package data
SCHEMA_FILE = "review.schema.json"


def load_schema() -> JSONObject:
    """The review's JSON Schema (draft 2020-12), read from the installed package."""
    text = resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema = json.loads(text)
    assert isinstance(schema, dict)
    return schema


__all__ = [
    "MARKS",
    "METHODS",
    "PLANNER_VP",
    "SCHEMA_FILE",
    "SCHEMA_ID",
    "SOLO_TURNS",
    "WIN_PROBABILITY",
    "ZERO_LOSS",
    "Choice",
    "Decision",
    "LuckStep",
    "Mark",
    "Method",
    "PlayerSummary",
    "Review",
    "Thresholds",
    "load_schema",
    "move_accuracy",
    "review_game",
    "review_record",
]
