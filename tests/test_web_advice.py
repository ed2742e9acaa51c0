"""Advice for the player to act: the values and blunder flags of one position (a known
Martian Dice blunder, the review's own losses), who sees what under the table's options, and
advice that comes late when its solve is slow, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from starlette.testclient import TestClient

import wsconn
from marsdice.core.game import Game, GameState
from marsdice.games import get_game
from marsdice.martian import Face, Roll, Take, Variant, new_game
from marsdice.review import SOLO_TURNS, WIN_PROBABILITY
from marsdice.review.core import review_game
from marsdice.storage.db import Database
from marsdice.web.advice import Advice, Advisor, advice_for, evaluate
from marsdice.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

MARTIAN = get_game("martian")
ATTACKS = get_game("attacks")
HUMAN = {"kind": "human"}
CHANCE = -1


# --- one position -----------------------------------------------------------------------------


def test_stopping_early_with_one_point_is_a_blunder_and_rolling_on_is_not() -> None:
    """Solo, first turn: one human taken, ten dice left. Stopping banks one point and spends
    a whole turn of the 8.9 a 25-point game takes; the solver's loss is far over the
    review's blunder threshold (0.4 turns)."""
    state = new_game(Variant(players=1, target=25))
    state = state.apply(Roll.parse("HRRTTCCCKKKKK")).apply(Take(Face.HUMAN))
    advice = evaluate(MARTIAN, state)
    assert advice.method == "solo-expected-turns" and not advice.estimate
    by_action = {choice["action"]: choice for choice in advice.choices}
    assert set(by_action) == {"stop", "roll"}
    stop, roll = by_action["stop"], by_action["roll"]
    assert stop["blunder"] and stop["loss"] >= SOLO_TURNS.blunder
    assert not roll["blunder"] and roll["loss"] == 0.0
    assert stop["values"]["win_probability"] is None
    turns = stop["values"]["expected_turns"] - roll["values"]["expected_turns"]
    assert turns == pytest.approx(stop["loss"])


def test_the_advice_agrees_with_the_review_of_the_same_decisions() -> None:
    """Every decision of a seeded two-player game: the advice's losses are the review's,
    and a choice is flagged exactly when its loss reaches the blunder threshold."""
    rng = random.Random(3)
    state: GameState = new_game(Variant(players=2, target=6))
    start, moves, advices = state, [], []
    while not state.is_terminal:
        if state.is_chance_node:
            action = state.sample_chance(rng)
        else:
            advices.append(evaluate(MARTIAN, state))
            action = rng.choice(state.legal_actions())
        moves.append(action)
        state = state.apply(action)
    review = review_game(MARTIAN, start, moves)
    assert len(review.decisions) == len(advices) > 5
    flagged = 0
    for decision, advice in zip(review.decisions, advices, strict=True):
        assert advice.method == "exact-2p" and advice.seat == decision.seat
        assert [c["action"] for c in advice.choices] == [c.move for c in decision.choices]
        for choice, reviewed in zip(advice.choices, decision.choices, strict=True):
            assert choice["loss"] == pytest.approx(reviewed.loss)
            assert choice["blunder"] == (reviewed.loss >= WIN_PROBABILITY.blunder)
            assert 0.0 <= choice["values"]["win_probability"] <= 1.0
            flagged += choice["blunder"]
    assert flagged > 0, "the seeded game offers no blunder: change the seed"


def test_mars_attacks_advice_is_the_planners_estimate() -> None:
    rng = random.Random(1)
    state = ATTACKS.start(ATTACKS.variant_from_params({"players": 2}), rng)
    while state.is_chance_node:
        state = state.apply(state.sample_chance(rng))
    advice = evaluate(ATTACKS, state)
    assert advice.method == "planner-estimate" and advice.estimate
    assert [c["action"] for c in advice.choices] == [a.text() for a in state.legal_actions()]
    valued = [c for c in advice.choices if c["values"] is not None]
    assert valued, "the first decision of a turn has estimates"
    for choice in valued:
        assert 0.0 <= choice["values"]["capture_probability"] <= 1.0
        assert 0.0 <= choice["values"]["bomb_probability"] <= 1.0
        assert choice["loss"] >= 0.0


def test_who_sees_what() -> None:
    advice = Advice(
        1,
        "exact-2p",
        False,
        ({"action": "stop", "values": {"x": 1.0}, "loss": 0.2, "blunder": True},),
    )
    full = advice_for(advice, {"hints": True, "fool_check": False}, None)
    assert full is not None and full["choices"][0]["values"] == {"x": 1.0}
    assert advice_for(advice, {"hints": True, "fool_check": True}, 0) == full
    flags = advice_for(advice, {"hints": False, "fool_check": True}, 1)
    assert flags is not None
    assert flags["choices"] == [{"action": "stop", "values": None, "loss": None, "blunder": True}]
    assert advice_for(advice, {"hints": False, "fool_check": True}, 0) is None
    assert advice_for(advice, {"hints": False, "fool_check": True}, None) is None
    assert advice_for(advice, {"hints": False, "fool_check": False}, 1) is None
    assert advice_for(None, {"hints": True, "fool_check": True}, 1) is None


def test_a_tables_advice_is_worked_out_one_position_at_a_time() -> None:
    """While one position's solve runs, the table's next positions wait for it (a first
    three-player solve takes a minute: it must not be started once per position)."""
    lock = threading.Lock()
    running: dict[str, int] = {}
    most: dict[str, int] = {}
    gate = threading.Event()

    def counting(game: Game, state: GameState) -> Advice:
        table = "t1" if state is first else "t2"
        with lock:
            running[table] = running.get(table, 0) + 1
            most[table] = max(most.get(table, 0), running[table])
        gate.wait(10)
        with lock:
            running[table] -= 1
        return Advice(state.current_player, "exact-2p", False, ())

    first = new_game(Variant(players=2, target=6)).apply(Roll.parse("HRRTTCCCKKKKK"))
    other = first.apply(Take(Face.HUMAN))

    async def scenario() -> list[Advice | None]:
        advisor = Advisor(counting)
        tasks = [advisor.start("t1", version, MARTIAN, first) for version in range(3)]
        tasks.append(advisor.start("t2", 0, MARTIAN, other))
        assert advisor.start("t1", 1, MARTIAN, first) is tasks[1]  # one task per position
        await asyncio.sleep(0.05)
        gate.set()
        results = await asyncio.gather(*tasks)
        assert all(advisor.known("t1", version) for version in range(3))
        return list(results)

    results = asyncio.run(scenario())
    assert all(result is not None for result in results)
    assert most == {"t1": 1, "t2": 1}


def test_a_small_variant_is_valued_in_place_once_its_tables_are_built() -> None:
    """The rulebook's two-player game: the first position asks for the variant's tables
    (built in a thread of the advisor's own, once) and goes to the pool meanwhile; once
    they are built each position's advice is worked out in place (nothing sent to the
    pool), equal to what the pool's worker gives. A three-player or a big variant is never
    built here, and no more than ``in_place`` variants are."""
    rng = random.Random(3)
    variant = Variant(players=2)
    positions = []
    state: GameState = new_game(variant)
    while len(positions) < 30 and not state.is_terminal:
        if state.is_chance_node:
            state = state.apply(state.sample_chance(rng))
        else:
            positions.append(state)
            state = state.apply(rng.choice(state.legal_actions()))

    class Pool:
        """What the advisor asks of the solve pool, counted (the work done in a thread)."""

        def __init__(self) -> None:
            self.jobs = 0

        def over_cap(self, game: Game, params: Any) -> bool:
            return False

        def check_cap(self, game: Game, params: Any) -> None:
            return None

        async def submit(self, call: Any, *args: Any, table: str, client: str) -> Any:
            self.jobs += 1
            return await asyncio.to_thread(call, *args)

    async def scenario() -> None:
        pool = Pool()
        advisor = Advisor(pool=pool)  # type: ignore[arg-type]
        params = MARTIAN.variant_to_params(variant)
        assert not advisor.in_place("t", 0, MARTIAN, positions[0], params)  # building
        await advisor.start("t", 0, MARTIAN, positions[0])
        assert pool.jobs == 1
        for _ in range(2000):  # (a bound, not a timing)
            if advisor.in_place("t", 1, MARTIAN, positions[1], params):
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the tables were never built")
        for version, position in enumerate(positions[2:], start=2):
            assert advisor.in_place("t", version, MARTIAN, position, params)
            assert advisor.cached("t", version) == evaluate(MARTIAN, position)
        assert pool.jobs == 1
        # never here: three players, a variant too big, a third variant
        for other in ({"players": 3}, {"players": 2, "target": 90, "dice": 20}):
            bigger = MARTIAN.variant_from_params(other)
            opening = MARTIAN.start(bigger, random.Random(1))
            assert not advisor.in_place("u", 0, MARTIAN, opening, other)
            assert advisor._tables[(MARTIAN.name, json.dumps(other, sort_keys=True))] is False
        second, third = {"players": 2, "target": 20}, {"players": 2, "target": 21}
        for extra in (second, third):
            advisor.in_place("v", 0, MARTIAN, positions[0], extra)
        assert advisor._tables[(MARTIAN.name, json.dumps(third, sort_keys=True))] is False
        await advisor.close()

    asyncio.run(scenario())


# --- through the server -----------------------------------------------------------------------


@pytest.fixture
def client(db: Database) -> Iterator[TestClient]:
    with TestClient(create_app(database=db, bot_delay=0)) as test_client:
        yield test_client


class Conn(wsconn.Conn):
    def until_a_person_acts(self) -> dict[str, Any]:
        while self.state["view"] is None or self.state["view"]["current_player"] == CHANCE:
            self.receive()
        return self.state


def seated_game(client: TestClient, options: dict[str, bool]) -> tuple[str, list[str]]:
    body = {
        "game": "martian",
        "variant": {"target": 5},
        "seats": [HUMAN, HUMAN],
        "options": options,
    }
    table_id = client.post("/api/tables", json=body).json()["id"]
    tokens = []
    for seat, name in enumerate("AB"):
        response = client.post(f"/api/tables/{table_id}/join", json={"seat": seat, "name": name})
        tokens.append(response.json()["token"])
    return table_id, tokens


def connect_all(
    stack: ExitStack, client: TestClient, table_id: str, tokens: list[str]
) -> list[Conn]:
    """Both players and a spectator, each at the first decision."""
    conns = [Conn(stack, client, table_id, token) for token in (*tokens, None)]
    for conn in conns:
        conn.until_a_person_acts()
    assert len({conn.state["version"] for conn in conns}) == 1
    return conns


def test_with_hints_everyone_gets_the_values(client: TestClient) -> None:
    table_id, tokens = seated_game(client, {"hints": True, "fool_check": False})
    with ExitStack() as stack:
        conns = connect_all(stack, client, table_id, tokens)
        mover = conns[0].state["view"]["current_player"]
        legal = conns[mover].state["view"]["legal_actions"]
        for conn in conns:
            advice = conn.state["advice"]
            assert advice is not None and advice["seat"] == mover
            assert advice["method"] == "exact-2p" and advice["estimate"] is False
            assert [choice["action"] for choice in advice["choices"]] == legal
            for choice in advice["choices"]:
                assert set(choice["values"]) == {
                    "expected_score",
                    "win_probability",
                    "expected_turns",
                }
                assert choice["loss"] >= 0.0
        assert min(choice["loss"] for choice in conns[2].state["advice"]["choices"]) == 0.0


def test_without_hints_only_the_mover_gets_the_blunder_flags(client: TestClient) -> None:
    table_id, tokens = seated_game(client, {})
    with ExitStack() as stack:
        conns = connect_all(stack, client, table_id, tokens)
        mover = conns[0].state["view"]["current_player"]
        advice = conns[mover].state["advice"]
        assert advice is not None and advice["seat"] == mover
        assert advice["choices"] and all(
            choice["values"] is None and choice["loss"] is None and choice["blunder"] in (0, 1)
            for choice in advice["choices"]
        )
        assert conns[1 - mover].state["advice"] is None
        assert conns[2].state["advice"] is None  # the spectator
        # the move is played: the advice follows the next decision
        version = conns[mover].state["version"]
        action = conns[mover].state["view"]["legal_actions"][0]
        conns[mover].ws.send_text(
            json.dumps({"type": "action", "version": version, "action": action})
        )
        for conn in conns:
            assert conn.receive()["version"] == version + 1
            conn.until_a_person_acts()
        now = conns[0].state["view"]["current_player"]
        assert conns[now].state["advice"]["seat"] == now
        assert conns[1 - now].state["advice"] is None


def test_no_options_no_advice(client: TestClient) -> None:
    table_id, tokens = seated_game(client, {"hints": False, "fool_check": False})
    with ExitStack() as stack:
        conns = connect_all(stack, client, table_id, tokens)
        assert [conn.state["advice"] for conn in conns] == [None, None, None]


def test_slow_advice_comes_after_the_state(db: Database) -> None:
    """A solve that takes long does not hold the state back: it is sent without advice,
    then again (same version) with it."""
    release = threading.Event()

    def slow(game: Game, state: GameState) -> Advice:
        release.wait(10)
        return evaluate(game, state)

    app = create_app(database=db, bot_delay=0)
    app.state.hub.advisor = Advisor(slow)
    app.state.hub.advice_wait = 0.05
    with TestClient(app) as client, ExitStack() as stack:
        table_id, tokens = seated_game(client, {"hints": True})
        conns = connect_all(stack, client, table_id, tokens)
        assert all(conn.state["advice"] is None for conn in conns)
        version = conns[0].state["version"]
        release.set()
        hub = app.state.hub
        for _ in range(1000):  # the solve is done (in its thread)...
            if hub.advisor.known(table_id, version):
                break
            time.sleep(0.01)
        for conn in conns:  # ...and the state comes again, with the advice
            again = advice_after_pings(conn)
            assert again["version"] == version and again["advice"] is not None


def advice_after_pings(conn: Conn) -> dict[str, Any]:
    """Ping until a state with advice has come (fails, rather than hangs, when none does)."""
    for _ in range(20):
        conn.ws.send_text(json.dumps({"type": "ping"}))
        while True:
            message: dict[str, Any] = json.loads(conn.ws.receive_text())
            if message["type"] == "pong":
                break
            assert message["type"] == "state", message
            if message["advice"] is not None:
                return message
    raise AssertionError("the late advice never came")
