"""Advice for the player to act, from the game review's valuation of one position.

Every legal choice gets its values (the game's own figures: Martian Dice's expected turn
score and win probability, or solo expected turns; Mars Attacks' planner estimates of the
chances to capture and to be bombed), its loss against the best choice and a blunder flag
(the game's fool check, :meth:`marsdice.review.core.Valuator.blunders`: the review's
``blunder`` threshold for exact values, a calibrated rule for Mars Attacks' estimates,
``docs/review.md``). What each
connection is shown of it depends on the table's options (:func:`advice_for`).

The valuation runs in the server's solve pool (worker processes, :mod:`marsdice.web.workers`)
and is cached per (table, version); a first solve of a big variant may take long, so
:class:`Advisor` lets the caller wait a little and otherwise send the state without advice
and the advice when it is ready. When the pool refuses the work (its budgets are spent, or
the variant is over the operator's cap) the position has no advice, and :meth:`Advisor.missing`
says why.

A variant whose advice is a lookup in tables a process builds once (Martian Dice's two-player
games up to the rulebook's size and a little more: the registration's ``advice_tables``) is
valued in place instead, once this process has built them (in a thread of the advisor's own,
a few tenths of a second, at most :data:`IN_PLACE_VARIANTS` variants): a position's advice
then costs tens of microseconds, less than the trip to a worker and back, and comes with the
step that leads to it, under any load.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from marsdice.core.game import JSON, Game, GameState, Variant
from marsdice.games import load, provider, registration

if TYPE_CHECKING:
    from marsdice.web.workers import SolvePool

log: Final = logging.getLogger("marsdice.web")

#: how many positions' advice a process keeps
CACHE_SIZE: Final = 512
#: how many variants' tables a process builds for in-place advice (tens of MB each)
IN_PLACE_VARIANTS: Final = 2
#: the advice JSON: {"seat", "method", "estimate", "choices": [...]}
AdviceJSON = dict[str, Any]
#: why a position has no advice: the solve pool was full (``busy``), the variant is over the
#: server's cap (``too_big``), the valuation failed (``failed``)
Missing = Literal["busy", "too_big", "failed"]


@dataclass(frozen=True, slots=True)
class Advice:
    """One position's advice in full (values included): what :func:`advice_for` filters."""

    seat: int
    method: str
    estimate: bool
    #: per legal choice: action (notation), values (dict or None), loss, blunder
    choices: tuple[dict[str, Any], ...]
    #: :meth:`to_json`'s answers, worked out once each (every connection shown the advice)
    _shown: dict[bool, AdviceJSON] = field(
        default_factory=dict, compare=False, repr=False, hash=False
    )

    def to_json(self, *, values: bool) -> AdviceJSON:
        """The advice for a connection; without ``values`` only the blunder flags (the
        same object each time: read it, never change it)."""
        shown = self._shown.get(values)
        if shown is None:
            shown = self._shown[values] = self._json(values)
        return shown

    def _json(self, values: bool) -> AdviceJSON:
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
    flags = valuator.blunders(state, rated)
    choices = tuple(
        {
            "action": choice.move,
            "values": values.get(choice.move),
            "loss": choice.loss,
            "blunder": flag,
        }
        for choice, flag in zip(rated, flags, strict=True)
    )
    return Advice(state.current_player, valuator.method, valuator.estimate, choices)


def advice_tables(game: Game, variant: Variant) -> Callable[[], object] | None:
    """What builds the tables that make a variant's advice a lookup in this process (the
    game's registered ``advice_tables``), or None: its advice is always worked out in the
    solve pool."""
    entry = registration(game).advice_tables
    if entry is None:
        return None
    factory: Callable[[Variant], Callable[[], object] | None] = load(entry)
    return factory(variant)


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
    if advice is None or not sees(options, seat, advice.seat):
        return None
    return advice.to_json(values=bool(options.get("hints")))


def sees(options: Mapping[str, bool], seat: int | None, mover: int) -> bool:
    """Whether a connection (``seat``, None: watching) is shown advice for ``mover``'s
    decision: everyone with ``hints``, only the mover with ``fool_check``."""
    if options.get("hints"):
        return True
    return bool(options.get("fool_check")) and seat is not None and seat == mover


class Advisor:
    """Computes advice in the solve pool, one computation per (table, version), and keeps
    the last :data:`CACHE_SIZE` results. A table's computations run one after the other:
    while a first solve takes a minute (three players), the next positions wait for it
    instead of each starting the same solve in a worker of its own.

    Without a pool (or with an ``evaluate_`` of its own, as tests give) the valuation runs
    in threads of the advisor's own, never in the thread pool the database calls use."""

    def __init__(
        self,
        evaluate_: Callable[[Game, GameState], Advice] = evaluate,
        pool: SolvePool | None = None,
        *,
        in_place: int = IN_PLACE_VARIANTS,
    ) -> None:
        self._evaluate = evaluate_
        self._pool = pool if evaluate_ is evaluate else None
        self._threads: ThreadPoolExecutor | None = None
        #: how many variants may be valued in place (none with an ``evaluate_`` of a test's)
        self._in_place = in_place if evaluate_ is evaluate else 0
        #: (game, variant) -> its tables for in-place advice: built (True), being built (a
        #: future), or not built in this process (False)
        self._tables: dict[tuple[str, str], bool | asyncio.Future[object]] = {}
        self._done: OrderedDict[tuple[str, int], Advice | Missing] = OrderedDict()
        self._running: dict[tuple[str, int], asyncio.Task[Advice | None]] = {}
        #: each table's latest computation (the next one waits for it)
        self._last: dict[str, asyncio.Task[Advice | None]] = {}

    def cached(self, table_id: str, version: int) -> Advice | None:
        found = self._done.get((table_id, version))
        return found if isinstance(found, Advice) else None

    def known(self, table_id: str, version: int) -> bool:
        return (table_id, version) in self._done

    def pending(self, table_id: str, version: int) -> bool:
        """Whether this position's advice is being worked out (it follows when ready)."""
        return (table_id, version) in self._running

    def missing(self, table_id: str, version: int) -> Missing | None:
        """Why this position has no advice (None: it has, or it is still to come)."""
        found = self._done.get((table_id, version))
        return None if found is None or isinstance(found, Advice) else found

    def in_place(
        self,
        table_id: str,
        version: int,
        game: Game,
        state: GameState,
        params: Mapping[str, Any],
    ) -> bool:
        """Work out this position's advice here and now when its variant's tables are
        built in this process (True: it is cached); the first time a variant that can be
        valued in place is asked for, start building them (False meanwhile: the pool's
        turn)."""
        if not self._in_place:
            return False
        key = (game.name, json.dumps(params, sort_keys=True))
        tables = self._tables.get(key)
        if tables is True:
            try:
                result: Advice | Missing = evaluate(game, state)
            except Exception:  # no advice is better than a broken table
                log.exception("table %s: no advice for version %d", table_id, version)
                result = "failed"
            self._keep((table_id, version), result)
            return True
        if tables is None:
            self._build(key, game, params)
        return False

    def _build(self, key: tuple[str, str], game: Game, params: Mapping[str, Any]) -> None:
        """Start building a variant's tables for in-place advice, if the game values it from
        tables of its own, it is within the pool's cap and this process builds few enough."""
        self._tables[key] = False
        if sum(1 for tables in self._tables.values() if tables is not False) >= self._in_place:
            return
        if self._pool is not None and self._pool.over_cap(game, params):
            return
        build = advice_tables(game, game.variant_from_params(params))
        if build is None:
            return
        if self._threads is None:
            self._threads = ThreadPoolExecutor(4, thread_name_prefix="advice")
        future = asyncio.get_running_loop().run_in_executor(self._threads, build)
        self._tables[key] = future

        def built(done: asyncio.Future[object]) -> None:
            failed = done.cancelled() or done.exception() is not None
            if failed and not done.cancelled():
                log.error("%s: the advice tables could not be built", game.title)
            self._tables[key] = not failed

        future.add_done_callback(built)

    def start(
        self,
        table_id: str,
        version: int,
        game: Game,
        state: GameState,
        *,
        params: Mapping[str, Any] | None = None,
        client: str | None = None,
    ) -> asyncio.Task[Any]:
        """The computation of this position's advice (started now, or the one running);
        ``params`` (the table's variant) is checked against the pool's cap, ``client`` is
        whose budget the solve counts against."""
        key = (table_id, version)
        task = self._running.get(key)
        if task is None:
            task = asyncio.get_running_loop().create_task(
                self._compute(key, game, state, self._last.get(table_id), params, client),
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
        params: Mapping[str, Any] | None,
        client: str | None,
    ) -> Advice | None:
        from marsdice.web.workers import SolveRefused

        result: Advice | Missing
        try:
            if before is not None and not before.done():
                await asyncio.wait({before})
            result = await self._valuation(key[0], game, state, params, client)
        except SolveRefused as refused:
            result = "too_big" if refused.reason == "too_big" else "busy"
        except Exception:  # no advice is better than a broken table
            log.exception("table %s: no advice for version %d", *key)
            result = "failed"
        finally:
            self._running.pop(key, None)
            if self._last.get(key[0]) is asyncio.current_task():
                del self._last[key[0]]
        self._keep(key, result)
        return result if isinstance(result, Advice) else None

    def _keep(self, key: tuple[str, int], result: Advice | Missing) -> None:
        self._done[key] = result
        self._done.move_to_end(key)
        while len(self._done) > CACHE_SIZE:
            self._done.popitem(last=False)

    async def _valuation(
        self,
        table_id: str,
        game: Game,
        state: GameState,
        params: Mapping[str, Any] | None,
        client: str | None,
    ) -> Advice:
        if self._pool is not None:
            from marsdice.web.workers import advise

            if params is not None:
                self._pool.check_cap(game, params)
            return await self._pool.submit(
                advise, game.name, state, table=table_id, client=client or table_id
            )
        if self._threads is None:
            self._threads = ThreadPoolExecutor(4, thread_name_prefix="advice")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._threads, self._evaluate, game, state)

    async def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        self._running.clear()
        self._last.clear()
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)
            self._threads = None
