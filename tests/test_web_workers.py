"""The solve pool (``docs/server.md``): expensive work runs in worker processes within its
budgets, a solving bot's move made there is the one the bot makes here, and a server whose
pool is held by 20 heavy tables still answers ``/healthz``, the lobby and a light table's
game, while the heavy tables play on with their fast bots and say so, on SQLite and
PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import wsconn
from marsdice.bots.registry import make_bot
from marsdice.core.game import GameState
from marsdice.games import all_games, bot_spec, get_game, registration
from marsdice.review import review_game
from marsdice.storage.db import Database
from marsdice.web.app import create_app
from marsdice.web.workers import (
    PoolLimits,
    SolvePool,
    SolveRefused,
    _Processes,
    decide,
    solve_size,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

MARTIAN = get_game("martian")
HUMAN = {"kind": "human"}


def bot(name: str) -> dict[str, str]:
    return {"kind": "bot", "bot": name}


# --- the pool's budgets -----------------------------------------------------------------------


def threads(workers: int) -> ThreadPoolExecutor:
    """Jobs in threads, so that a test can hold them with an event (the budgets are the
    pool's, whatever runs the jobs)."""
    return ThreadPoolExecutor(workers)


def test_the_pool_refuses_work_beyond_its_budgets_and_queues_nothing_it_refuses() -> None:
    gate = threading.Event()

    def held(value: int) -> int:
        gate.wait(10)
        return value

    async def scenario() -> None:
        pool = SolvePool(
            PoolLimits(workers=1, queue=2, per_table=1, per_client=2), executor=threads
        )
        running = pool.submit(held, 1, table="a", client="x")
        waiting = pool.submit(held, 2, table="b", client="x")
        await asyncio.sleep(0)
        assert (pool.running(), pool.waiting()) == (1, 1)
        refusals = []
        for table, client in (("c", "x"), ("b", "y")):  # the client's share, the table's
            with pytest.raises(SolveRefused) as refused:
                pool.submit(held, 0, table=table, client=client)
            refusals.append(refused.value.reason)
        assert refusals == ["client_busy", "table_busy"]
        third = pool.submit(held, 3, table="c", client="y")
        with pytest.raises(SolveRefused) as full:
            pool.submit(held, 0, table="d", client="z")
        assert full.value.reason == "busy" and pool.waiting() == 2
        third.cancel()  # a cancelled job gives its place back at once
        await asyncio.sleep(0)
        fourth = pool.submit(held, 4, table="d", client="z")
        gate.set()
        assert list(await asyncio.gather(running, waiting, fourth)) == [1, 2, 4]
        assert pool.most_waiting == 2 and pool.waiting() == pool.running() == 0
        assert dict(pool.refused) == {"client_busy": 1, "table_busy": 1, "busy": 1}
        again = pool.submit(held, 5, table="c", client="x")  # every budget is free again
        assert await again == 5
        await pool.close()
        with pytest.raises(SolveRefused) as closed:
            pool.submit(held, 6, table=None, client=None)
        assert closed.value.reason == "closed"

    asyncio.run(scenario())


def test_the_settings_come_from_the_environment_and_bad_ones_are_named() -> None:
    limits = PoolLimits.from_environment(
        {"MARSDICE_SOLVE_WORKERS": "3", "MARSDICE_SOLVE_QUEUE": " 5 ", "MARSDICE_MAX_SOLVE": "0"}
    )
    assert (limits.workers, limits.queue, limits.max_solve) == (3, 5, None)
    assert PoolLimits.from_environment({"MARSDICE_MAX_SOLVE": "9000"}).max_solve == 9000
    assert PoolLimits.from_environment({}).workers == max(1, (os.cpu_count() or 2) // 2)
    with pytest.raises(ValueError, match="MARSDICE_SOLVE_WORKERS must be a whole number"):
        PoolLimits.from_environment({"MARSDICE_SOLVE_WORKERS": "many"})
    with pytest.raises(ValueError, match="workers must be at least 1"):
        PoolLimits.from_environment({"MARSDICE_SOLVE_WORKERS": "0"})


def test_the_cap_measures_the_solve_each_game_declares() -> None:
    assert solve_size(MARTIAN, {"players": 2, "target": 25, "dice": 13}) == 25 * 25 * 13
    assert solve_size(MARTIAN, {"players": 1, "target": 25}) == 25 * 13
    assert solve_size(MARTIAN, {"players": 3}) == 25**3 * 13
    pool = SolvePool(PoolLimits(workers=1, max_solve=10_000))
    assert not pool.over_cap(MARTIAN, {"target": 25})
    assert pool.over_cap(MARTIAN, {"target": 100, "dice": 20})
    for game in all_games():  # every game has a fast bot that never solves
        entry = registration(game)
        assert not bot_spec(game, entry.fast_bot).solves
        if entry.solve_size is None:
            assert not pool.over_cap(game, {})


def test_a_bots_move_from_a_worker_process_is_the_move_it_makes_here() -> None:
    """The solving bots, built in the worker from their name and seed, choose what the
    server's own instance chooses, at every decision of seeded games."""
    cases = [("martian", {"players": 2, "target": 10}, "winprob"), ("attacks", {}, "planner")]

    async def scenario() -> list[tuple[str, str]]:
        pool = SolvePool(PoolLimits(workers=1, queue=200))
        pairs = []
        try:
            for game_name, params, name in cases:
                game = get_game(game_name)
                rng = random.Random(7)
                state: GameState = game.start(game.variant_from_params(params), rng)
                here = make_bot(game, name, seed=11)
                for _ in range(40):
                    if state.is_terminal:
                        break
                    if state.is_chance_node:
                        state = state.apply(state.sample_chance(rng))
                        continue
                    there = await pool.submit(
                        decide, game_name, name, 11, state, table="t", client=None
                    )
                    mine = here.choose(state)
                    pairs.append((there, mine.text()))
                    state = state.apply(mine)
            pid = await pool.submit(os.getpid, table=None, client=None)
            assert pid != os.getpid(), "the job ran in this process"
        finally:
            await pool.close()
        return pairs

    pairs = asyncio.run(scenario())
    assert len(pairs) > 20
    assert all(there == here for there, here in pairs)


def test_a_worker_that_dies_fails_its_job_and_is_replaced() -> None:
    """A worker killed in the middle of a job fails that job (BrokenProcessPool), not the
    other worker, and a new worker takes its place when a job needs it."""

    async def scenario() -> None:
        pool = SolvePool(PoolLimits(workers=2, queue=4))
        try:
            await pool.start()
            first = {await pool.submit(os.getpid, table=None, client=None) for _ in range(4)}
            slow = pool.submit(time.sleep, 60, table=None, client=None)
            processes = pool._executor
            assert isinstance(processes, _Processes)
            (victim,) = [worker.process.pid for worker in processes._busy]
            assert victim in first and len(worker_pids(pool)) == 2
            assert victim is not None
            os.kill(victim, signal.SIGKILL)
            with pytest.raises(BrokenProcessPool):
                await asyncio.wait_for(slow, 10)
            # two at once: the one worker left takes one, a new worker the other
            both = [pool.submit(os.getpid, table=None, client=None) for _ in range(2)]
            pids = set(await asyncio.gather(*both))
            assert len(pids) == 2
            assert victim not in pids and len(worker_pids(pool)) == 2
            assert pool.running() == 0 and pool.waiting() == 0
        finally:
            await pool.close()

    asyncio.run(scenario())


def worker_pids(pool: SolvePool) -> list[int]:
    processes = pool._executor
    assert isinstance(processes, _Processes)
    return [w.process.pid for w in [*processes._idle, *processes._busy] if w.process.pid]


def test_workers_end_when_their_server_is_killed(tmp_path: Path) -> None:
    """A server killed outright (SIGKILL: nothing of it runs after) leaves no solve worker
    behind: each reads the end of its pipe and exits."""
    script = tmp_path / "server.py"
    script.write_text(
        "import asyncio, os, sys, time\n"
        "from marsdice.web.workers import PoolLimits, SolvePool, _Processes\n"
        "async def main():\n"
        "    pool = SolvePool(PoolLimits(workers=2))\n"
        "    await pool.start()\n"
        "    await pool.submit(os.getpid, table=None, client=None)\n"
        "    procs = pool._executor\n"
        "    print(*[w.process.pid for w in procs._idle], flush=True)\n"
        "    time.sleep(60)\n"
        "if __name__ == '__main__':\n"
        "    asyncio.run(main())\n"
    )
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        pids = [int(pid) for pid in server.stdout.readline().split()]
        assert len(pids) == 2 and all(alive(pid) for pid in pids)
    finally:
        server.kill()
        server.wait()
    for _ in range(500):  # a bound, not a timing
        if not any(alive(pid) for pid in pids):
            break
        time.sleep(0.02)
    assert not any(alive(pid) for pid in pids), "a worker outlived its server"


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie waiting for its parent has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in {"Z", "X"}


# --- through the server -----------------------------------------------------------------------


@pytest.fixture
def hold(tmp_path: Path) -> Path:
    """Solves wait until this file exists (the pool's test hook)."""
    return tmp_path / "release-the-solves"


def heavy_app(db: Database, hold: Path, **limits: Any) -> Any:
    pool = SolvePool(PoolLimits(workers=1, **limits), hold=str(hold))
    app = create_app(database=db, bot_delay=0.2, absence_timeout=None, solve_pool=pool)
    return app


class Conn(wsconn.Conn):
    def until(self, check: Any, limit: int = 2000) -> dict[str, Any]:
        while not check(self.state):
            limit -= 1
            assert limit > 0, "never happened"
            assert self.state["table"]["status"] != "finished", "never happened in the game"
            self.receive()
        return self.state

    def my_turn(self) -> dict[str, Any]:
        return self.until(lambda s: s["your_turn"] or (s["table"]["status"] == "finished"))


def create(
    client: TestClient, seats: list[dict[str, str]], variant: dict[str, Any], **options: bool
) -> str:
    body = {"game": "martian", "variant": variant, "seats": seats, "options": options}
    response = client.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    table_id: str = response.json()["id"]
    return table_id


def join(client: TestClient, table_id: str, seat: int) -> str:
    response = client.post(f"/api/tables/{table_id}/join", json={"seat": seat, "name": f"P{seat}"})
    assert response.status_code == 200, response.text
    token: str = response.json()["token"]
    return token


HEAVY = {"players": 2, "target": 90, "dice": 20}


def test_twenty_heavy_tables_leave_the_server_answering(db: Database, hold: Path) -> None:
    """The pool is held (its one worker busy, its queue full): 20 heavy tables are created
    at once, bots' and people's with the fool check. ``/healthz``, the lobby and a light
    table's whole game answer meanwhile; the heavy bots play their fast bot and the states
    say so; a heavy table's person is told the advice is pending or missing; the queue never
    passes its bound and the refusals are counted. Released, the pool catches up."""
    app = heavy_app(db, hold, queue=3, per_client=100)
    app.state.hub.advice_wait = 0.05
    pool: SolvePool = app.state.hub.pool
    with TestClient(app) as client, ExitStack() as stack:
        people = []
        for _ in range(6):  # the first one's advice takes the worker
            table_id = create(client, [HUMAN, bot("winprob")], HEAVY, fool_check=True)
            people.append(Conn(stack, client, table_id, join(client, table_id, 0)))
        bots_only = [create(client, [bot("winprob"), bot("winprob")], HEAVY) for _ in range(14)]
        assert pool.running() == 1, "the first solve holds the only worker"

        light_id = create(client, [HUMAN, bot("cautious")], {"target": 5}, fool_check=False)
        light = Conn(stack, client, light_id, join(client, light_id, 0))
        chooser = random.Random(2)
        while light.my_turn()["table"]["status"] != "finished":
            assert client.get("/healthz").json()["status"] == "ok"
            assert len(client.get("/api/tables").json()["tables"]) == 21
            state = light.state
            action = chooser.choice(state["view"]["legal_actions"])
            move = {"type": "action", "version": state["version"], "action": action}
            light.ws.send_text(json.dumps(move))
            light.receive()
        assert client.get(f"/api/tables/{light_id}").json()["status"] == "finished"
        assert "fallback" not in light.state and "advice_missing" not in light.state

        # the heavy tables' solves are still held: nothing of theirs was solved
        assert pool.running() == 1 and pool.waiting() <= 3 and pool.most_waiting <= 3
        assert pool.refused["busy"] > 0
        watcher = Conn(stack, client, bots_only[-1], None)
        watched = watcher.until(lambda s: len(s.get("fallback", [])) >= 2)
        assert all(watched["actors"][step] == "bot" for step in watched["fallback"])
        for person in people:  # the mover is told why there is no advice yet
            state = person.my_turn()
            assert state["advice"] is None
            assert state.get("advice_pending") or state.get("advice_missing") == "busy"
        first = people[0]
        assert first.state.get("advice_pending"), "the first advice is under way"

        hold.touch()  # the solves go on: the advice comes in a state of the same version
        version = first.state["version"]
        advised = first.until(lambda s: s["advice"] is not None or s["version"] > version)
        assert advised["version"] == version and "advice_pending" not in advised
        assert advised["advice"]["choices"]


def test_a_table_over_the_cap_plays_without_solves_and_says_why(db: Database, hold: Path) -> None:
    hold.touch()
    app = heavy_app(db, hold, max_solve=10_000)
    pool: SolvePool = app.state.hub.pool
    with TestClient(app) as client, ExitStack() as stack:
        table_id = create(client, [HUMAN, bot("winprob")], HEAVY, fool_check=True)
        person = Conn(stack, client, table_id, join(client, table_id, 0))
        state = person.my_turn()
        assert state["advice"] is None and state["advice_missing"] == "too_big"
        chooser = random.Random(5)
        while not state.get("fallback"):  # the person plays on until the bot has moved
            move = chooser.choice(state["view"]["legal_actions"])
            person.ws.send_text(
                json.dumps({"type": "action", "version": state["version"], "action": move})
            )
            person.receive()
            state = person.my_turn()
            assert state["table"]["status"] != "finished"
        assert pool.running() == pool.waiting() == 0 and not pool.most_waiting
        small = create(client, [HUMAN, bot("winprob")], {"target": 5}, fool_check=True)
        mover = Conn(stack, client, small, join(client, small, 0))
        assert mover.my_turn()["advice"] is not None  # a small table still gets its advice


def test_a_review_runs_in_the_pool_and_is_refused_over_the_cap(db: Database, hold: Path) -> None:
    hold.touch()
    app = heavy_app(db, hold)
    with TestClient(app) as client:
        table_id, other = (
            create(client, [bot("cautious"), bot("cautious")], {"target": 5}) for _ in range(2)
        )
        with ExitStack() as stack:
            for finished in (table_id, other):
                Conn(stack, client, finished, None).until(
                    lambda s: s["table"]["status"] == "finished"
                )
        answer = client.get(f"/api/tables/{table_id}/review")
        assert answer.status_code == 200, answer.text
        assert answer.json()["decisions"]
        app.state.hub.pool.limits = PoolLimits(workers=1, max_solve=1)
        refused = client.get(f"/api/tables/{other}/review")
        assert refused.status_code == 409 and refused.json()["error"] == "too_big"
        assert "over the server's cap" in refused.json()["message"]
        # a review worked out before is kept: read back, no solve (whatever the cap now)
        kept = client.get(f"/api/tables/{table_id}/review")
        assert kept.status_code == 200 and kept.json() == answer.json()


def test_the_review_from_the_pool_is_the_review_made_here(db: Database, hold: Path) -> None:
    hold.touch()
    app = heavy_app(db, hold)
    with TestClient(app) as client:
        table_id = create(client, [bot("cautious"), bot("random")], {"target": 6})
        with ExitStack() as stack:
            Conn(stack, client, table_id, None).until(lambda s: s["table"]["status"] == "finished")
        answer = client.get(f"/api/tables/{table_id}/review").json()
    from marsdice.web.live import finished_live

    live = finished_live(db, table_id)
    here = review_game(live.game, live.start, live.moves(), live.table.names).to_json()
    assert answer == json.loads(json.dumps(here))


def test_serve_options_set_the_pool_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from marsdice.cli import serve

    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    monkeypatch.setenv("MARSDICE_SOLVE_QUEUE", "5")
    monkeypatch.setenv("MARSDICE_MAX_SOLVE", "9000")
    limits = serve.solve_pool(parser.parse_args(["--solve-workers", "3"])).limits
    assert (limits.workers, limits.queue, limits.max_solve) == (3, 5, 9000)
    limits = serve.solve_pool(parser.parse_args(["--max-solve", "0"])).limits
    assert limits.max_solve is None  # 0: no cap, over the environment's
    monkeypatch.setenv("MARSDICE_SOLVE_PER_CLIENT", "lots")
    with pytest.raises(serve.BadSolveSetting, match="MARSDICE_SOLVE_PER_CLIENT"):
        serve.solve_pool(parser.parse_args([]))
    with pytest.raises(SystemExit):
        parser.parse_args(["--solve-workers", "0"])


def test_a_review_whose_worker_dies_is_worked_out_again_on_a_new_one(
    db: Database, hold: Path
) -> None:
    """A worker that dies under a review (killed here) costs the review nothing but time:
    it runs once more, on a new worker, and is answered."""
    import threading

    hold.touch()
    app = heavy_app(db, hold)
    with TestClient(app) as client:
        table_id = create(client, [bot("cautious"), bot("cautious")], {"target": 5})
        with ExitStack() as stack:
            Conn(stack, client, table_id, None).until(lambda s: s["table"]["status"] == "finished")
        hold.unlink()  # the review's first run waits in its worker
        answers: list[Any] = []
        asking = threading.Thread(
            target=lambda: answers.append(client.get(f"/api/tables/{table_id}/review"))
        )
        asking.start()
        processes = app.state.hub.pool._executor
        for _ in range(500):  # a bound, not a timing
            if processes._busy:
                break
            time.sleep(0.02)
        (victim,) = [worker.process.pid for worker in processes._busy]
        os.kill(victim, signal.SIGKILL)
        hold.touch()
        asking.join(60)
        assert answers and answers[0].status_code == 200, answers
        assert answers[0].json()["decisions"]
        assert victim not in worker_pids(app.state.hub.pool)


def big_answer(size: int) -> bytes:
    return b"x" * size


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_an_answer_larger_than_the_pipe_comes_whole_on_every_event_loop(loop: str) -> None:
    """An answer arrives in pieces when it is larger than the pipe holds; uvloop (the
    server's loop) makes the pipe non-blocking: the answer must still be read whole, not
    taken for a dead worker."""

    async def scenario() -> None:
        pool = SolvePool(PoolLimits(workers=1, queue=4))
        try:
            await pool.start()
            processes = pool._executor
            assert isinstance(processes, _Processes)
            for worker in processes._idle:  # (what an event loop's reader may leave it)
                os.set_blocking(worker.connection.fileno(), False)
            for size in (10, 300_000, 5_000_000):
                answer = await pool.submit(big_answer, size, table=None, client=None)
                assert answer == b"x" * size
        finally:
            await pool.close()

    if loop == "uvloop":
        uvloop = pytest.importorskip("uvloop")
        uvloop.run(scenario())
    else:
        asyncio.run(scenario())
