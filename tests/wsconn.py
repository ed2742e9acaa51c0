"""A protocol-1 WebSocket connection of a test to an in-process app (Starlette's TestClient):
``hello`` sent, each ``state`` kept as it comes. Test modules subclass it with their waits."""

from __future__ import annotations

import json
from contextlib import ExitStack
from typing import Any

from starlette.testclient import TestClient


class Conn:
    def __init__(self, stack: ExitStack, client: TestClient, table_id: str, token: str | None):
        self.ws = stack.enter_context(client.websocket_connect(f"/ws/tables/{table_id}"))
        self.ws.send_text(json.dumps({"type": "hello", "token": token}))
        self.state = self.receive()

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.receive_text())
        assert message["type"] == "state", message
        self.state = message
        return message
