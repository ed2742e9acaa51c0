"""Advice for the player to act, from the game review's valuation of one position.

Every legal choice gets its values (the game's own figures: Martian Dice's expected turn
score and win probability, or solo expected turns; Mars Attacks' planner estimates of the
chances to capture and to be bombed), its loss against the best choice and a blunder flag
(the loss reaches the review's ``blunder`` threshold, ``docs/review.md``). What each
connection is shown of it depends on the table's options (:func:`advice_for`).

The valuation runs in a worker thread and is cached per (table, version); a first solve of a
big variant may take long, so :class:`Advisor` lets the caller wait a little and otherwise
send the state without advice and the advice when it is ready.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from marsdice.core.game import JSON, Game, GameState
from marsdice.games import provider

log: Final = logging.getLogger("marsdice.web")

#: how many positions' advice a process keeps
CACHE_SIZE: Final = 512
#: the advice JSON: {"seat", "method", "estimate", "choices": [...]}
AdviceJSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Advice:
    """One position's advice in full (values included): what :func:`advice_for` filters."""

    seat: int
    method: str
    estimate: bool
    #: per legal choice: action (notation), values (dict or None), loss, blunder
    choices: tuple[dict[str, Any], ...]

    def to_json(self, *, values: bool) -> AdviceJSON:
        """The advice for a connection; without ``values`` only the blunder flags."""
        choices = [
            {
                "action": choice["action"],
                "values": choice["values"] if values else None,
                "loss": choice["loss"] if values else None,
                "blunder": choice["blunder"],
            }
            for choice in self.choices
        ]
        return {
            "seat": self.seat,
            "method": self.method,
            "estimate": self.estimate,
            "choices": choices,
        }


def evaluate(game: Game, state: GameState) -> Advice:
    """The advice at ``state`` (a decision, not a chance node): slow on the first position
    of a variant whose tables are not solved yet, so call it in a thread."""
    from marsdice.review.core import position_choices, valuator_for

    valuator = valuator_for(game, state)
    rated = position_choices(valuator, state)
    values = _values(game, state)
    blunder = valuator.thresholds.blunder
    choices = tuple(
        {
            "action": choice.move,
            "values": values.get(choice.move),
            "loss": choice.loss,
            "blunder": choice.loss is not None and len(rated) > 1 and choice.loss >= blunder,
        }
        for choice in rated
    )
    return Advice(state.current_player, valuator.method, valuator.estimate, choices)


def _values(game: Game, state: GameState) -> dict[str, dict[str, JSON] | None]:
    """Each legal choice's figures for the hints panel, by the choice's notation (the
    game's registered advice provider)."""
    figures: dict[str, dict[str, JSON] | None] = provider(game, "advice")(state)
    return figures


def advice_for(
    advice: Advice | None, options: dict[str, bool], seat: int | None
) -> AdviceJSON | None:
    """What one connection (``seat``, None: watching) is shown: with ``hints`` everyone gets
    the values; else with ``fool_check`` only the mover gets the blunder flags; else none."""
    if advice is None:
        return None
    if options.get("hints"):
        return advice.to_json(values=True)
    if options.get("fool_check") and seat is not None and seat == advice.seat:
        return advice.to_json(values=False)
    return None


class Advisor:
    """Computes advice in worker threads, one computation per (table, version), and keeps
    the last :data:`CACHE_SIZE` results. A table's computations run one after the other:
    while a first solve takes a minute (three players), the next positions wait for it
    instead of each starting the same solve in a thread of its own."""

    def __init__(self, evaluate_: Callable[[Game, GameState], Advice] = evaluate) -> None:
        self._evaluate = evaluate_
        self._done: OrderedDict[tuple[str, int], Advice | None] = OrderedDict()
        self._running: dict[tuple[str, int], asyncio.Task[Advice | None]] = {}
        #: each table's latest computation (the next one waits for it)
        self._last: dict[str, asyncio.Task[Advice | None]] = {}

    def cached(self, table_id: str, version: int) -> Advice | None:
        return self._done.get((table_id, version))

    def known(self, table_id: str, version: int) -> bool:
        return (table_id, version) in self._done

    def start(self, table_id: str, version: int, game: Game, state: GameState) -> asyncio.Task[Any]:
        """The computation of this position's advice (started now, or the one running)."""
        key = (table_id, version)
        task = self._running.get(key)
        if task is None:
            task = asyncio.get_running_loop().create_task(
                self._compute(key, game, state, self._last.get(table_id)),
                name=f"advice-{table_id}-{version}",
            )
            self._running[key] = task
            self._last[table_id] = task
        return task

    async def _compute(
        self,
        key: tuple[str, int],
        game: Game,
        state: GameState,
        before: asyncio.Task[Advice | None] | None,
    ) -> Advice | None:
        try:
            if before is not None and not before.done():
                await asyncio.wait({before})
            advice: Advice | None = await asyncio.to_thread(self._evaluate, game, state)
        except Exception:  # no advice is better than a broken table
            log.exception("table %s: no advice for version %d", *key)
            advice = None
        finally:
            self._running.pop(key, None)
            if self._last.get(key[0]) is asyncio.current_task():
                del self._last[key[0]]
        self._done[key] = advice
        self._done.move_to_end(key)
        while len(self._done) > CACHE_SIZE:
            self._done.popitem(last=False)
        return advice

    async def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        self._running.clear()
        self._last.clear()
