"""The solve pool: the server's expensive work (advice and the fool check, the decisions of
bots that solve, the review of a finished game) in a few worker processes of its own.

Why processes: a first solve of a big variant takes seconds to minutes of pure computation.
In a thread it holds the interpreter's lock and fills the thread pool the database calls
use, and every other table, connection and ``/healthz`` waits behind it. In a worker process
it only delays the one table that asked for it.

The pool keeps its own queue and admits a job only within its budgets (``docs/server.md``):
at most :attr:`PoolLimits.queue` jobs wait for a worker, at most :attr:`PoolLimits.per_table`
of them for one table, at most :attr:`PoolLimits.per_client` jobs (waiting or running) for
one client address; beyond that :meth:`SolvePool.submit` raises :class:`SolveRefused` and
nothing is queued. A variant whose solve is bigger than :attr:`PoolLimits.max_solve` (the
game's registered ``solve_size``) is never sent at all.

A job crosses to a worker as plain values: the game's name, a bot's name and seed, a state
(states pickle). Workers build what they need, and share the solved tables through the disk
cache (:mod:`marsdice.solve.cache`), so a table solved by one is read by the others.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import faulthandler
import functools
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

from marsdice.core.game import Game, GameState
from marsdice.games import load, registration

if TYPE_CHECKING:
    from marsdice.web.advice import Advice

log: Final = logging.getLogger("marsdice.web")

T = TypeVar("T")

#: the environment variables of the pool's settings (``marsdice serve`` options override them)
WORKERS_ENV: Final = "MARSDICE_SOLVE_WORKERS"
QUEUE_ENV: Final = "MARSDICE_SOLVE_QUEUE"
PER_CLIENT_ENV: Final = "MARSDICE_SOLVE_PER_CLIENT"
MAX_SOLVE_ENV: Final = "MARSDICE_MAX_SOLVE"
#: how much lower a worker's scheduling priority is than the server's (``nice``)
WORKER_NICE: Final = 10
#: modules a new worker finds already imported (forkserver): it starts in milliseconds
PRELOAD: Final = (
    "marsdice.web.workers",
    "marsdice.web.advice",
    "marsdice.review.core",
    "marsdice.solve.policy",
    "marsdice.bots.registry",
)

#: why a job was not run: the queue is full, the table or the client already has its share,
#: the variant is over the operator's cap, the pool is closed
Refusal = Literal["busy", "table_busy", "client_busy", "too_big", "closed"]


class SolveRefused(Exception):
    """The pool did not take the job (nothing was queued)."""

    def __init__(self, reason: Refusal, message: str) -> None:
        super().__init__(message)
        self.reason: Refusal = reason


def default_workers() -> int:
    """Half the machine's cores (at least one), so that solves never take the cores the
    server itself needs."""
    return max(1, (os.cpu_count() or 2) // 2)


@dataclass(frozen=True, slots=True)
class PoolLimits:
    """The pool's size and budgets (``docs/server.md``)."""

    #: worker processes (solves running at once)
    workers: int
    #: jobs waiting for a worker, at most (beyond: refused)
    queue: int = 8
    #: jobs of one table waiting for a worker, at most
    per_table: int = 1
    #: jobs of one client address waiting or running, at most
    per_client: int = 2
    #: the largest ``solve_size`` of a variant the pool solves (None: no cap)
    max_solve: int | None = None

    def __post_init__(self) -> None:
        for name in ("workers", "queue", "per_table", "per_client"):
            if getattr(self, name) < 1:
                raise ValueError(f"the solve pool's {name} must be at least 1")
        if self.max_solve is not None and self.max_solve < 1:
            raise ValueError("the largest solve must be at least 1 (or no cap)")

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> PoolLimits:
        """The defaults, changed by ``MARSDICE_SOLVE_*`` and ``MARSDICE_MAX_SOLVE`` (0 or
        empty: no cap); a value that is not a whole number is a ``ValueError`` naming it."""
        env = os.environ if environ is None else environ
        limits = cls(default_workers())
        changes: dict[str, Any] = {}
        for name, field in (
            (WORKERS_ENV, "workers"),
            (QUEUE_ENV, "queue"),
            (PER_CLIENT_ENV, "per_client"),
            (MAX_SOLVE_ENV, "max_solve"),
        ):
            text = env.get(name, "").strip()
            if not text:
                continue
            try:
                value = int(text)
            except ValueError:
                raise ValueError(f"{name} must be a whole number, not {text!r}") from None
            changes[field] = None if field == "max_solve" and value == 0 else value
        return replace(limits, **changes) if changes else limits


def solve_size(game: Game, params: Mapping[str, Any]) -> int | None:
    """The size of the solves a table of ``game`` with these variant parameters asks for,
    as the game's registration measures it (None: the game's solves are all small)."""
    entry = registration(game).solve_size
    if entry is None:
        return None
    size: Callable[[object], int] = load(entry)
    return size(game.variant_from_params(params))


@dataclass(eq=False, slots=True)
class _Job:
    call: Callable[..., Any]
    args: tuple[Any, ...]
    table: str | None
    client: str | None
    future: asyncio.Future[Any]
    started: bool = False


class SolvePool:
    """A bounded pool of worker processes with its own bounded queue (see the module)."""

    def __init__(
        self,
        limits: PoolLimits | None = None,
        *,
        executor: Callable[[int], Executor] | None = None,
        hold: str | None = None,
    ) -> None:
        """``executor`` builds an executor for a number of workers to run the jobs instead
        (tests run them in threads; default: :class:`_Processes`, worker processes started
        by a forkserver, else spawned); with ``hold`` (a file's path) every job waits until
        that file exists (a test hook: a solve as slow as the test wants)."""
        self.limits = limits if limits is not None else PoolLimits.from_environment()
        self._make_executor = executor
        self._executor: Executor | _Processes | None = None
        self._hold = hold
        self._waiting: collections.deque[_Job] = collections.deque()
        self._running = 0
        self._active: set[_Job] = set()
        self._per_table: collections.Counter[str] = collections.Counter()
        self._per_client: collections.Counter[str] = collections.Counter()
        self._closed = False
        #: jobs refused, by reason; the most jobs ever waiting at once
        self.refused: collections.Counter[str] = collections.Counter()
        self.most_waiting = 0

    # -- what is going on --

    def waiting(self) -> int:
        return len(self._waiting)

    def running(self) -> int:
        return self._running

    def waiting_for(self, table: str) -> int:
        return self._per_table[table]

    def has_free_worker(self) -> bool:
        """Whether a job submitted now starts at once (nothing waits, a worker is free)."""
        return not self._waiting and self._running < self.limits.workers

    async def start(self) -> None:
        """Start the forkserver (it imports the solvers: a second) and the workers now, not
        at the first solve, which the first player's advice waits for."""
        if self._make_executor is not None or self._closed:
            return
        await asyncio.to_thread(_start_forkserver)
        if self._executor is None:
            self._executor = _Processes(self.limits.workers)
        processes = self._executor
        assert isinstance(processes, _Processes)
        await asyncio.to_thread(processes.fill)
        await asyncio.gather(*(processes.submit(_ready) for _ in range(self.limits.workers)))

    def over_cap(self, game: Game, params: Mapping[str, Any]) -> bool:
        """Whether a table of this variant asks for more than the operator's cap."""
        cap = self.limits.max_solve
        if cap is None:
            return False
        size = solve_size(game, params)
        return size is not None and size > cap

    def check_cap(self, game: Game, params: Mapping[str, Any]) -> None:
        if self.over_cap(game, params):
            raise SolveRefused(
                "too_big",
                f"this variant's solve (size {solve_size(game, params)}) is over the "
                f"server's cap of {self.limits.max_solve}",
            )

    # -- jobs --

    def submit(
        self, call: Callable[..., T], *args: Any, table: str | None, client: str | None
    ) -> asyncio.Future[T]:
        """Queue ``call(*args)`` for a worker (``call`` and its arguments must pickle), or
        raise :class:`SolveRefused` when a budget is spent. Cancelling the future drops a
        job still waiting; a running one finishes (its tables go to the disk cache)."""
        reason = self._refusal(table, client)
        if reason is not None:
            self.refused[reason[0]] += 1
            log.info(
                "solve refused: %s",
                reason[1],
                extra={"event": "solve-refused", "table": table, "reason": reason[0]},
            )
            raise SolveRefused(*reason)
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        job = _Job(call, args, table, client, future)
        if table is not None:
            self._per_table[table] += 1
        if client is not None:
            self._per_client[client] += 1
        self._waiting.append(job)
        self.most_waiting = max(self.most_waiting, len(self._waiting))
        future.add_done_callback(lambda _f: self._dropped(job))
        self._dispatch()
        return future

    def _refusal(self, table: str | None, client: str | None) -> tuple[Refusal, str] | None:
        limits = self.limits
        if self._closed:
            return "closed", "the server is stopping"
        if client is not None and self._per_client[client] >= limits.per_client:
            return "client_busy", f"{limits.per_client} solves of this client are under way"
        if table is not None and self._per_table[table] >= limits.per_table:
            return "table_busy", f"{limits.per_table} solve(s) of this table are waiting"
        if self._running >= limits.workers and len(self._waiting) >= limits.queue:
            return "busy", f"the solve queue is full ({limits.queue} waiting)"
        return None

    def _dispatch(self) -> None:
        """Hand waiting jobs to free workers, oldest first."""
        while self._waiting and self._running < self.limits.workers:
            job = self._waiting.popleft()
            if job.table is not None:
                self._per_table[job.table] -= 1
            if job.future.done():  # cancelled while waiting
                self._forget_client(job)
                continue
            job.started = True
            self._running += 1
            self._active.add(job)
            try:
                done = self._submit(_run, self._hold, job.call, *job.args)
            except (BrokenProcessPool, RuntimeError) as error:  # a worker died: a new pool
                self._broken()
                self._finished(job, error)
                continue
            done.add_done_callback(functools.partial(self._ran, job))

    def _submit(self, call: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        if self._executor is None:
            self._executor = (
                _Processes(self.limits.workers)
                if self._make_executor is None
                else self._make_executor(self.limits.workers)
            )
        if isinstance(self._executor, _Processes):
            return self._executor.submit(call, *args)
        return asyncio.wrap_future(self._executor.submit(call, *args))

    def _ran(self, job: _Job, done: asyncio.Future[Any]) -> None:
        if self._closed:  # stopped under it: the job's future is cancelled already
            done.cancelled() or done.exception()  # (retrieved: nothing to report)
            return
        if done.cancelled():
            self._finished(job, asyncio.CancelledError())
            return
        error = done.exception()
        if isinstance(error, BrokenProcessPool):
            log.error("a solve worker died: starting new ones")
            self._broken()
        self._finished(job, error, done)

    def _finished(
        self, job: _Job, error: BaseException | None, done: asyncio.Future[Any] | None = None
    ) -> None:
        self._running -= 1
        self._active.discard(job)
        self._forget_client(job)
        if not job.future.done():
            if error is not None:
                job.future.set_exception(error)
            elif done is not None:
                job.future.set_result(done.result())
        self._dispatch()

    def _dropped(self, job: _Job) -> None:
        """A job's future is done: if it was cancelled while waiting, free its place now."""
        if job.started or not job.future.cancelled():
            return
        try:
            self._waiting.remove(job)
        except ValueError:
            return
        if job.table is not None:
            self._per_table[job.table] -= 1
        self._forget_client(job)

    def _forget_client(self, job: _Job) -> None:
        if job.client is not None:
            self._per_client[job.client] -= 1
            if self._per_client[job.client] <= 0:
                del self._per_client[job.client]
            job.client = None  # counted off once

    def _broken(self) -> None:
        """A worker died: an executor is broken for good (a new one next time); of the
        pool's own processes only the dead one went, and it is replaced at the next job."""
        if isinstance(self._executor, _Processes):
            return
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    async def close(self) -> None:
        """Refuse new jobs, drop the waiting ones and stop the workers (a solve under way is
        abandoned: what it had solved is lost, nothing else)."""
        self._closed = True
        while self._waiting:
            self._waiting.popleft().future.cancel()
        for job in self._active:
            job.future.cancel()
        self._active.clear()
        self._per_table.clear()
        executor, self._executor = self._executor, None
        if executor is None:
            return
        if isinstance(executor, _Processes):
            await executor.close()
            return
        processes = list(getattr(executor, "_processes", {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        await asyncio.to_thread(executor.shutdown, wait=True)


def _start_forkserver() -> None:
    """Start the workers' forkserver now (blocking: run in a thread), with :func:`_context`'s
    preload."""
    if _context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def _context() -> BaseContext:
    """Worker processes from a forkserver that has the solvers imported (else spawned:
    never forked from the server, whose threads and sockets a fork would copy)."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        forkserver = multiprocessing.get_context("forkserver")
        forkserver.set_forkserver_preload(list(PRELOAD))
        return forkserver
    return multiprocessing.get_context("spawn")


@dataclass(eq=False, slots=True)
class _Worker:
    """One worker process and this end of its pipe."""

    process: BaseProcess
    connection: Connection
    #: the event loop that reads its answers (set at its first job)
    loop: asyncio.AbstractEventLoop | None = None


class _Processes:
    """The pool's worker processes, each with a pipe that the event loop reads: one job at
    a time each, no thread in this process. (An executor of processes keeps a manager thread
    and a feeder thread here, and their hand-offs of the interpreter's lock cost this process
    about 0.3 ms of CPU a job, more than a position's advice takes in the worker.)

    A worker that dies fails its job with :class:`BrokenProcessPool` and is replaced at the
    next job; the others go on. A worker whose server died reads the end of its pipe and
    exits, so no worker outlives its server for long."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._context = _context()
        self._idle: list[_Worker] = []
        self._busy: dict[_Worker, asyncio.Future[Any]] = {}
        self._queued: collections.deque[tuple[tuple[Any, ...], asyncio.Future[Any]]] = (
            collections.deque()
        )

    def _count(self) -> int:
        return len(self._idle) + len(self._busy)

    def _spawn(self) -> _Worker:
        mine, theirs = self._context.Pipe()
        process = self._context.Process(  # type: ignore[attr-defined]
            target=_serve, args=(theirs,), name="marsdice-solve", daemon=True
        )
        process.start()
        theirs.close()
        return _Worker(process, mine)

    def fill(self) -> None:
        """Start the workers not yet running (blocking: a thread's work at start-up)."""
        while self._count() < self.size:
            self._idle.append(self._spawn())

    def submit(self, call: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        """``call(*args)`` in a worker; its result or its exception in the future."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self._idle:
            self._start(self._idle.pop(), (call, args), future)
        elif self._count() < self.size:
            self._start(self._spawn(), (call, args), future)
        else:
            self._queued.append(((call, args), future))
        return future

    def _start(self, worker: _Worker, job: tuple[Any, ...], future: asyncio.Future[Any]) -> None:
        loop = asyncio.get_running_loop()
        if worker.loop is not loop:
            if worker.loop is not None and not worker.loop.is_closed():
                worker.loop.remove_reader(worker.connection.fileno())
            loop.add_reader(worker.connection.fileno(), self._answered, worker)
            worker.loop = loop
        try:
            worker.connection.send(job)  # (pickled whole before anything is written)
        except (OSError, EOFError):
            self._lost(worker)
            future.set_exception(BrokenProcessPool("a solve worker died"))
            return
        except Exception as error:  # the job does not pickle: the worker never saw it
            self._idle.append(worker)
            future.set_exception(error)
            return
        self._busy[worker] = future

    def _answered(self, worker: _Worker) -> None:
        """The worker's pipe can be read: its answer, or its end (it died)."""
        future = self._busy.pop(worker, None)
        try:
            # an answer larger than the pipe holds arrives in pieces: read it whole, whatever
            # the event loop made of the pipe (uvloop's readers may leave it non-blocking,
            # and a piece not there yet would read as the worker's end)
            os.set_blocking(worker.connection.fileno(), True)
            ok, value = worker.connection.recv()
        except (EOFError, OSError) as error:
            alive = worker.process.is_alive()
            self._lost(worker)
            # (its exit code says how: negative, the signal that ended it)
            log.error(
                "a solve worker ended %s (exit code %s; %r)",
                "in the middle of a job" if future is not None else "while idle",
                "none yet" if alive else worker.process.exitcode,
                error,
            )
            if future is not None and not future.done():
                future.set_exception(BrokenProcessPool("a solve worker died"))
            return
        except Exception as error:  # an answer that does not unpickle here
            ok, value = False, RuntimeError(f"the solve's answer could not be read: {error!r}")
        if future is not None and not future.done():
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)
        if future is None:  # (nothing was asked: not a worker to trust)
            self._lost(worker)
            return
        if self._queued:
            job, queued = self._queued.popleft()
            self._start(worker, job, queued)
        else:
            self._idle.append(worker)

    def _forget(self, worker: _Worker) -> None:
        if worker.loop is not None and not worker.loop.is_closed():
            worker.loop.remove_reader(worker.connection.fileno())
        worker.connection.close()
        with contextlib.suppress(ValueError):
            self._idle.remove(worker)
        self._busy.pop(worker, None)

    def _lost(self, worker: _Worker) -> None:
        self._forget(worker)
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join(0)

    async def close(self) -> None:
        """Stop every worker: the idle ones read the end of their pipes; a solve under way
        is abandoned (terminated)."""
        workers = [*self._idle, *self._busy]
        for future in self._busy.values():
            future.cancel()
        for _job, future in self._queued:
            future.cancel()
        self._queued.clear()
        for worker in workers:
            self._forget(worker)
            if worker.process.is_alive():
                worker.process.terminate()
        await asyncio.to_thread(_reap, [worker.process for worker in workers])


def _reap(processes: list[BaseProcess]) -> None:
    for process in processes:
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join(1)


# --- in a worker ------------------------------------------------------------------------------


def _worker_init() -> None:
    """A worker yields the processor to the server: a solve may take a core for minutes,
    a request must not wait for it."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WORKER_NICE)
    # a worker that crashes (a signal, not an exception) says where, on the server's log
    faulthandler.enable()
    # Ctrl-C at the server's terminal reaches its whole process group: the server stops
    # its workers itself (the pipe's end, or terminate), a worker never dies of it mid-job
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _serve(connection: Connection) -> None:
    """A worker's life: run the jobs read from the pipe, one at a time, and answer each
    with ``(True, result)`` or ``(False, exception)``; the pipe's end (the server stopped or
    died) ends it."""
    _worker_init()
    while True:
        try:
            call, args = connection.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        try:
            answer: tuple[bool, Any] = (True, call(*args))
        except Exception as error:
            answer = (False, error)
        try:
            connection.send(answer)
        except (EOFError, OSError):
            return
        except Exception as error:  # a result or an exception that does not pickle
            connection.send((False, RuntimeError(f"the solve's answer does not pickle: {error!r}")))


def _ready() -> None:
    """Nothing: a worker that ran it has started."""


def _run(hold: str | None, call: Callable[..., T], *args: Any) -> T:
    while hold is not None and not os.path.exists(hold):
        time.sleep(0.01)
    return call(*args)


def decide(game_name: str, bot_name: str, seed: int, state: GameState) -> str:
    """A solving bot's move at ``state``, in notation: the bot is built here from its name
    and seed (the solving bots keep no state between decisions, so it is the move the
    server's own instance would make)."""
    from marsdice.bots.registry import make_bot
    from marsdice.games import get_game

    return make_bot(get_game(game_name), bot_name, seed=seed).choose(state).text()


def advise(game_name: str, state: GameState) -> Advice:
    """The advice at ``state`` (:func:`marsdice.web.advice.evaluate`)."""
    from marsdice.games import get_game
    from marsdice.web.advice import evaluate

    return evaluate(get_game(game_name), state)


def review(
    game_name: str, start: GameState, moves: list[str], names: list[str] | None
) -> dict[str, Any]:
    """A finished game's review as JSON, from its start and its moves in notation."""
    from marsdice.games import get_game
    from marsdice.review import review_game

    return dict(review_game(get_game(game_name), start, moves, names).to_json())
