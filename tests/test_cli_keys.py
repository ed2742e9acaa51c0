"""The terminal's keys and leaving (issue 21): the web page's shortcuts typed at the terminal
(Mars Attacks: ``g`` rolls again, a stack's number attacks its card), and ``marsdice connect``
against a real server: ``quit`` is exit 0, Ctrl-C while waiting for the server says goodbye
once (no "reconnecting" after it) and exits 130, and the opening roll is told."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from marsdice.cli import attacks_view
from marsdice.games import get_game
from serverproc import Server


def attacks_target_state() -> Any:
    game = get_game("attacks")
    state = game.start(game.variant_from_params({"players": 2}), random.Random(1))
    rng = random.Random(2)
    while state.is_chance_node:
        state = state.apply(state.sample_chance(rng))
    return state


def test_mars_attacks_reads_the_web_keys_at_the_terminal() -> None:
    state = attacks_target_state()
    assert state.phase.value == "target"
    first = state.stacks[0][0]
    assert attacks_view.shortcut(state, "1") == "@" + state.card(first).slug
    assert state.parse_action(attacks_view.shortcut(state, "1")) in state.legal_actions()
    assert attacks_view.shortcut(state, "G") == "r"
    assert attacks_view.shortcut(state, "9") == "9"  # (no stack 9)
    assert attacks_view.shortcut(state, "@dallas") == "@dallas"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("keys")
    running = Server(f"sqlite:///{folder / 'keys.sqlite3'}", folder, "--absence-timeout", "0")
    try:
        yield running
    finally:
        running.stop()


def new_table(server: Server, game: str, seats: list[dict[str, str]]) -> str:
    body = {"game": game, "variant": {}, "seats": seats}
    response = httpx.post(f"{server.base}/api/tables", json=body, timeout=10)
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def connect(server: Server, table: str, *options: str, tmp_path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "marsdice.cli.main", "connect", server.base, table, *options],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "MARSDICE_DATA_DIR": str(tmp_path), "COLUMNS": "100"},
    )


def test_quit_is_exit_0_and_the_opening_roll_is_told(server: Server, tmp_path: Path) -> None:
    table = new_table(server, "martian", [{"kind": "human"}, {"kind": "bot", "bot": "cautious"}])
    process = connect(server, table, "--seat", "1", "--name", "Ann", tmp_path=tmp_path)
    out, _ = process.communicate("quit\ny\n", timeout=60)
    assert process.returncode == 0, out
    assert "Ann rolls" in out, out  # the roll made as Ann took the last seat
    assert "You left the table" in out and "reconnecting" not in out


def test_ctrl_c_while_waiting_says_goodbye_once(server: Server, tmp_path: Path) -> None:
    # a table still waiting for its second person: the client waits on the server
    table = new_table(server, "martian", [{"kind": "human"}, {"kind": "human"}])
    process = connect(server, table, "--seat", "1", "--name", "Ann", tmp_path=tmp_path)
    assert process.stdout is not None
    seen = ""
    while "waiting for seat" not in seen:
        line = process.stdout.readline()
        assert line, seen
        seen += line
    process.send_signal(signal.SIGINT)
    rest, _ = process.communicate(timeout=60)
    out = seen + rest
    assert process.returncode == 130, out
    assert "You left the table" in out
    assert "reconnecting" not in out.split("You left the table")[-1], out
