"""The review's typed results, the marks' thresholds and the accuracy and luck arithmetic.

Standard library only: the valuation lives in :mod:`marsdice.review.martian` (the exact
solvers) and :mod:`marsdice.review.attacks` (the planner's estimates); this module turns
their numbers into marks, per-player figures and JSON. See ``docs/review.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from marsdice.core.game import JSONObject, to_json

#: the ``method`` of a review: how its values were computed
Method = Literal[
    "exact-2p", "exact-3p", "exact-4p", "approximation", "solo-expected-turns", "planner-estimate"
]
METHODS: Final[tuple[Method, ...]] = (
    "exact-2p",
    "exact-3p",
    "exact-4p",
    "approximation",
    "solo-expected-turns",
    "planner-estimate",
)
#: the mark of one decision, best first
Mark = Literal["best", "good", "inaccuracy", "mistake", "blunder", "forced", "unrated"]
MARKS: Final[tuple[Mark, ...]] = (
    "best",
    "good",
    "inaccuracy",
    "mistake",
    "blunder",
    "forced",
    "unrated",
)

#: a loss at most this is no loss: the solvers break exact ties with a margin of 1e-12 and
#: the tables are floating point (a played move within it is marked ``best``)
ZERO_LOSS: Final = 1e-9

#: Lichess's move accuracy from the drop in win percentage ``d`` (0-100):
#: ``103.1668 * exp(-0.04354 * d) - 3.1669``, clamped to 0-100
LICHESS_A: Final = 103.1668100711649
LICHESS_K: Final = 0.04354415386753951
LICHESS_C: Final = 3.166924740191411


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Losses (in the review's unit) from which a decision is an inaccuracy, a mistake, a
    blunder; ``accuracy_scale`` is the loss that counts as one percentage point of win
    probability in the accuracy formula (see :func:`move_accuracy`)."""

    inaccuracy: float
    mistake: float
    blunder: float
    accuracy_scale: float

    def mark(self, loss: float) -> Mark:
        if loss >= self.blunder:
            return "blunder"
        if loss >= self.mistake:
            return "mistake"
        if loss >= self.inaccuracy:
            return "inaccuracy"
        return "best" if loss <= ZERO_LOSS else "good"


#: win probability lost (0-1): 2, 5 and 10 percentage points (docs/review.md says why)
WIN_PROBABILITY: Final = Thresholds(0.02, 0.05, 0.10, 0.01)
#: expected turns lost in the solo challenge (a 25-point game takes 8.6 turns at best)
SOLO_TURNS: Final = Thresholds(0.05, 0.15, 0.40, 0.04)
#: the planner's values, in its victory-point-like unit (estimates)
PLANNER_VP: Final = Thresholds(0.10, 0.30, 0.75, 0.075)


def blunder_flags(thresholds: Thresholds, choices: Sequence[Choice]) -> tuple[bool, ...]:
    """The fool check's flags by the review's ``blunder`` threshold alone (exact values):
    a move is flagged when its loss reaches it and it was not the only move."""
    rated = sum(choice.loss is not None for choice in choices)
    return tuple(
        choice.loss is not None and rated > 1 and choice.loss >= thresholds.blunder
        for choice in choices
    )


def move_accuracy(loss: float, thresholds: Thresholds) -> float:
    """One decision's accuracy in percent: Lichess's formula applied to the loss expressed
    in percentage points of win probability (other units through ``accuracy_scale``).

    >>> [round(move_accuracy(loss, WIN_PROBABILITY), 1) for loss in (0.0, 0.02, 0.10)]
    [100.0, 91.4, 63.6]
    """
    if loss <= ZERO_LOSS:
        return 100.0
    points = loss / thresholds.accuracy_scale
    value = LICHESS_A * math.exp(-LICHESS_K * points) - LICHESS_C
    return min(100.0, max(0.0, value))


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal move at a decision: its value (``None``: not estimated) and its loss
    against the best move."""

    move: str
    value: float | None
    loss: float | None


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of one player.

    ``index``: the move's number in the record (1 = the first move, chance outcomes
    counted); ``turn``: the player's own turn number (1 = their first); ``round``: the
    game's round. ``value`` and ``best_value`` are in the review's ``unit``; ``loss`` is
    how much worse the played move is than the best (0 for the best, ``None`` when the move
    could not be valued).
    """

    index: int
    seat: int
    player: str
    turn: int
    round: int
    position: str
    played: str
    best: str | None
    value: float | None
    best_value: float | None
    loss: float | None
    mark: Mark
    accuracy: float | None
    choices: tuple[Choice, ...]


@dataclass(frozen=True, slots=True)
class LuckStep:
    """One chance step (a roll, a draw): the value for ``seat`` before it (the expectation
    over every outcome) and after the outcome that came; ``luck = after - before`` in the
    review's unit, positive when the dice helped (solo: turns saved)."""

    index: int
    seat: int
    player: str
    outcome: str
    before: float
    after: float
    luck: float


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One player's figures over the game."""

    seat: int
    player: str
    decisions: int
    forced: int
    rated: int
    best: int
    inaccuracies: int
    mistakes: int
    blunders: int
    total_loss: float
    mean_loss: float | None
    accuracy: float | None
    luck: float
    rolls: int


@dataclass(frozen=True, slots=True)
class Review:
    """A whole game reviewed: every decision and chance step, and each player's figures.

    ``method`` says how values were computed (see :data:`METHODS`); ``estimate`` is true
    when they are a bot's estimates rather than exact; ``unit`` names the unit of every
    value, loss and luck figure; ``higher_is_better`` is false for expected turns.
    """

    game: str
    title: str
    variant: JSONObject
    players: tuple[str, ...]
    result: str
    finished: bool
    method: Method
    estimate: bool
    unit: str
    higher_is_better: bool
    thresholds: Thresholds
    decisions: tuple[Decision, ...]
    luck: tuple[LuckStep, ...]
    summaries: tuple[PlayerSummary, ...]
    #: each seat's score where the record ends, and the winning seats (empty before the end):
    #: pages word the result in their own language and names from these
    scores: tuple[float, ...] = ()
    winners: tuple[int, ...] = ()

    def to_json(self) -> JSONObject:
        """Plain JSON values (the layout ``review.schema.json`` describes)."""
        out = to_json(self)
        assert isinstance(out, dict)
        out["schema"] = SCHEMA_ID
        return out


#: the ``$id`` of the shipped schema, also written in every review's JSON
SCHEMA_ID: Final = "https://marsdice.invalid/schemas/review-1.json"


def summarize(
    players: tuple[str, ...], decisions: tuple[Decision, ...], luck: tuple[LuckStep, ...]
) -> tuple[PlayerSummary, ...]:
    """Per-player counts, losses, accuracy (the mean of the rated decisions' accuracies;
    ``None`` with no rated decision) and luck (the sum of their chance steps' luck)."""
    out = []
    for seat, name in enumerate(players):
        mine = [d for d in decisions if d.seat == seat]
        rated = [d for d in mine if d.loss is not None and d.mark not in ("forced", "unrated")]
        losses = [d.loss for d in rated if d.loss is not None]
        scores = [d.accuracy for d in rated if d.accuracy is not None]
        rolls = [step for step in luck if step.seat == seat]
        out.append(
            PlayerSummary(
                seat=seat,
                player=name,
                decisions=len(mine),
                forced=sum(1 for d in mine if d.mark == "forced"),
                rated=len(rated),
                best=sum(1 for d in rated if d.mark == "best"),
                inaccuracies=sum(1 for d in rated if d.mark == "inaccuracy"),
                mistakes=sum(1 for d in rated if d.mark == "mistake"),
                blunders=sum(1 for d in rated if d.mark == "blunder"),
                total_loss=math.fsum(losses),
                mean_loss=math.fsum(losses) / len(losses) if losses else None,
                accuracy=math.fsum(scores) / len(scores) if scores else None,
                luck=math.fsum(step.luck for step in rolls),
                rolls=len(rolls),
            )
        )
    return tuple(out)
