"""Real ``marsdice serve`` processes on loopback for the tests, and small WebSocket helpers."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """``marsdice serve`` in a subprocess; its output goes to a log file in ``tmp_path``."""

    def __init__(self, url: str, tmp_path: Path, *options: str, wait: bool = True) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.log_path = tmp_path / f"server-{self.port}.log"
        self.log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "marsdice.cli.main", "serve", "--port", str(self.port),
             "--database-url", url, "--bot-delay", "0", "--log-level", "warning", *options],
            stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, "MARSDICE_DEBUG": "1"},
        )  # fmt: skip
        if wait:
            self.wait_ready()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{self.base}/api/games", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"the server did not start:\n{self.log_path.read_text()}")
            time.sleep(0.05)

    def ws(self, table_id: str) -> str:
        return f"{self.ws_base}/ws/tables/{table_id}"

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def stop(self, how: signal.Signals = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(how)
        code = self.process.wait(30)
        self.log.close()
        return code


def receive(ws: Any) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(ws.recv(timeout=20))
    assert message["type"] != "error", message
    return message


def settle(ws: Any, state: dict[str, Any], after: int = -1) -> dict[str, Any]:
    """Read until a version past ``after`` where a person is to act (or the end)."""
    while (
        state.get("type") != "state"
        or state["version"] <= after
        or state["view"] is None
        or state["view"]["current_player"] == -1
    ):
        state = receive(ws)
    return state


def play(ws_url: str, tokens: list[str], stop: int | None) -> int:
    """Both seats over real WebSockets, one connection each, random legal moves,
    until version ``stop`` (or the end): returns the last version acknowledged."""
    with connect(ws_url) as first, connect(ws_url) as second:
        conns = [first, second]
        states = []
        for conn, token in zip(conns, tokens, strict=True):
            conn.send(json.dumps({"type": "hello", "token": token}))
            states.append(settle(conn, receive(conn)))
        while True:
            version = max(state["version"] for state in states)
            states = [settle(c, s, version - 1) for c, s in zip(conns, states, strict=True)]
            assert len({state["version"] for state in states}) == 1
            view = states[0]["view"]
            if view["winners"] or (stop is not None and version >= stop):
                return version
            mover = view["current_player"]
            action = random.Random(version).choice(states[mover]["view"]["legal_actions"])
            conns[mover].send(json.dumps({"type": "action", "version": version, "action": action}))
            states = [settle(c, s, version) for c, s in zip(conns, states, strict=True)]
