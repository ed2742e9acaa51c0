"""One table's session in the hub, on SQLite and on the real PostgreSQL: everything of a table
goes with its session, a step reaches the in-memory game only once it is stored, and the game
rebuilt from the log is the one extended step by step."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.storage.tables import SeatSpec
from marsdice.web.hub import Client, Hub, Planned, ProtocolError
from marsdice.web.live import Live, load_live

HUMAN = SeatSpec("human")


def started(db: Database, seats: list[SeatSpec], params: dict[str, object]) -> str:
    table = tables.create_table(db, "martian", params, seats)  # type: ignore[arg-type]
    for seat, spec in enumerate(seats):
        if spec.kind == "human":
            tables.join(db, table.id, seat, f"P{seat}", f"seed {seat}")
    return table.id


async def until(check: Callable[[], bool], what: str) -> None:
    """Let the hub's tasks run until ``check`` holds (a bound, not a timing)."""
    for _ in range(2000):
        if check():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"never happened: {what}")


def run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(scenario())


def test_releasing_a_table_leaves_nothing_of_it_in_the_hub(db: Database) -> None:
    # to 25 no single turn can end the game (13 dice and the bonus make at most 16), so the
    # game is still on once the bot has moved, whatever the table's secret seed rolls
    table_id = started(db, [HUMAN, SeatSpec("bot", "random")], {"target": 25})
    sent: list[str] = []

    async def send(text: str) -> None:
        sent.append(text)

    async def scenario() -> None:
        hub = Hub(db, bot_delay=0, absence_timeout=0.05, stand_in="cautious")
        client = Client(table_id, send)
        hub.attach(client)
        await hub.greet(client, 0)
        session = hub._sessions[table_id]
        chooser = random.Random(4)
        hub.kick(table_id)
        # the person plays until the bot has moved at least once
        while not session.bots:
            await until(lambda: not session.driving(), "the driver rests")
            live = session.live
            assert live is not None and not live.state.is_terminal
            move = chooser.choice(list(live.state.legal_actions())).text()
            await hub.act(table_id, 0, live.version, move)
        await until(lambda: not session.driving(), "the driver rests")
        assert session.live is not None and not session.live.state.is_terminal
        await hub.detach(client)  # the person's absence timer starts: the table stays
        assert hub._sessions.get(table_id) is session and session.timing(0)
        # a stand-in takes the seat, the bots finish the game, and the table goes
        await until(lambda: table_id not in hub._sessions, "the table is released")
        assert tables.get_table(db, table_id).status == tables.FINISHED
        assert {name for _seat, name in session.bots} == {"random", "cautious"}
        assert hub.cached_tables() == set() and hub.connections() == 0
        assert hub._sessions == {} and hub._seen == {}  # nothing else is kept per table
        assert session.driver is None and session.timers == {} and session.lock_users == 0
        await hub.close()

    run(scenario)
    assert sent, "the person was sent the table"


def test_a_table_with_work_left_keeps_its_session(db: Database) -> None:
    table_id = started(db, [HUMAN, HUMAN], {})

    async def quiet(_text: str) -> None:
        return None

    async def scenario() -> None:
        hub = Hub(db, bot_delay=0, absence_timeout=60)
        await hub.watch(tables.get_table(db, table_id))  # nobody here: both seats timed
        session = hub._sessions[table_id]
        assert session.timing(0) and session.timing(1)
        watcher = Client(table_id, quiet)
        hub.attach(watcher)
        await hub.greet(watcher, None)
        await hub.detach(watcher)
        assert hub.cached_tables() == {table_id}  # the timers still run
        await hub.close()
        assert session.timers == {}

    run(scenario)


def test_a_step_the_database_refuses_is_never_played_and_the_game_catches_up(
    db: Database,
) -> None:
    """Stored before anyone hears of it: a step another writer stored first on the same
    version is refused, and the hub's game takes the stored step instead (read back at once,
    since the play path reads nothing otherwise), never its own."""
    table_id = started(db, [HUMAN, HUMAN], {})

    async def scenario() -> None:
        hub = Hub(db, bot_delay=0, absence_timeout=None)
        async with hub.lock(table_id):
            live = await hub.live(table_id)
            assert live is not None and live.state.is_chance_node and live.version == 0
            other = load_live(db, table_id)  # another process, on the same version
            assert other is not None
            other_rng = other.rng()
            first = other.state.sample_chance(other_rng)
            step = other.next_step(first, actor="chance", seat=None, counter=other_rng.counter)
            tables.append_step(db, table_id, step, finishes=False)
            assert await hub.live(table_id, catch_up=False) is live  # nothing read
            assert live.version == 0
            rng = live.rng()
            action = live.state.sample_chance(random.Random(9))
            start = live.state
            with pytest.raises(ProtocolError) as refused:
                await hub._store(
                    live, [Planned(action, start.apply(action), "chance", None, rng.counter)]
                )
            assert refused.value.code == "stale_version"
            assert refused.value.version == 1
            assert live.moves() == [step.action]  # the other writer's step, not ours
            assert live.state == start.apply(first) and live.counter == other_rng.counter
        await hub.close()

    run(scenario)


def test_the_game_rebuilt_from_the_log_is_the_one_extended_step_by_step(db: Database) -> None:
    table_id = started(db, [HUMAN, HUMAN], {"target": 8})
    live = load_live(db, table_id)
    assert live is not None and live.version == 0
    chooser = random.Random(3)
    while not live.state.is_terminal:
        state = live.state
        if state.is_chance_node:
            rng = live.rng()
            action = state.sample_chance(rng)
            step = live.next_step(action, actor="chance", seat=None, counter=rng.counter)
        else:
            action = chooser.choice(list(state.legal_actions()))
            step = live.next_step(
                action, actor="human", seat=state.current_player, counter=live.counter
            )
        after = state.apply(action)
        stored = tables.append_step(db, table_id, step, finishes=after.is_terminal)
        assert live.version == step.seq  # storing did not touch the game
        live.played(step, action, after, stored)
        if live.version % 7 == 0:  # a restarted server rebuilds the same game mid-way
            again = load_live(db, table_id)
            assert again is not None
            assert again.moves() == live.moves() and again.counter == live.counter
            assert again.state == live.state and again.actors == live.actors
            assert again.table == live.table
            live = again
    assert live.table.status == tables.FINISHED
    assert Live.rebuild(*tables.read_log(db, table_id)) == live
