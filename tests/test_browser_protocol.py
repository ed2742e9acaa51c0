"""The page speaks protocol 3 (``docs/protocol.md``) in a real Chromium against a real server:
a spectator's page opened mid-game tells the whole game in its log (every step's events since
the start, from hello's ``step_events``), then follows each ``step`` message (and each step of
a ``steps`` message); a view patched
on the page equals the server's; the page never asks for more than one whole state."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from browser_support import browser, create_table, new_page, start_server
from serverproc import Server, play

__all__ = ["browser"]  # the fixture, imported for pytest


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("protocol"), "--absence-timeout", "0")
    try:
        yield running
    finally:
        running.stop()


def join(server: Server, table_id: str, seat: int) -> str:
    body = {"seat": seat, "name": "AB"[seat]}
    response = httpx.post(f"{server.base}/api/tables/{table_id}/join", json=body, timeout=10)
    assert response.status_code == 200, response.text
    return str(response.json()["token"])


def spectator_state(server: Server, table_id: str) -> dict[str, Any]:
    """The whole state a spectator gets now (protocol 2's, with every step's events)."""
    with connect(server.ws(table_id)) as ws:
        ws.send(json.dumps({"type": "hello", "protocol": 2}))
        state: dict[str, Any] = json.loads(ws.recv(timeout=20))
    assert state["type"] == "state"
    return state


def test_a_page_arriving_mid_game_shows_the_whole_log_and_follows(
    server: Server, browser: Any
) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}]
    table = create_table(server, "martian", {"target": 30}, seats, {"fool_check": False})
    tokens = [join(server, table["id"], seat) for seat in (0, 1)]
    version = play(server.ws(table["id"]), tokens, stop=12)
    page = new_page(browser, server)
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: frames.append(frame)))
    page.goto(f"/t/{table['id']}")
    page.wait_for_selector(f'.table-page[data-version="{version}"]')
    history = spectator_state(server, table["id"])
    events = sum(len(step) for step in history["step_events"])
    assert events >= version, "every step says what it did"
    page.wait_for_function(f"document.querySelectorAll('.log li').length === {events}")
    # the first turn's roll is there, though the page came long after it
    first = history["step_events"][0][0]
    assert first["type"] == "rolled" and first["first"]
    assert page.locator(".log li.turn-start").count() >= 2
    # the game goes on: the page follows step by step, its view patched to the server's
    later = play(server.ws(table["id"]), tokens, stop=version + 6)
    page.wait_for_selector(f'.table-page[data-version="{later}"]')
    now = spectator_state(server, table["id"])
    more = sum(len(step) for step in now["step_events"])
    page.wait_for_function(f"document.querySelectorAll('.log li').length === {more}")
    scores = page.locator(".scores-panel").inner_text()
    for score in now["view"]["scores"]:
        assert str(score) in scores
    parsed = [json.loads(frame) for frame in frames if isinstance(frame, str)]
    kinds = [message["type"] for message in parsed]
    stepped = sum(len(m["steps"]) if m["type"] == "steps" else m["type"] == "step" for m in parsed)
    assert kinds.count("state") == 1 and stepped == later - version
    assert "steps" in kinds, "protocol 3: a move and the dice after it come in one frame"
    assert page.errors == []
