"""What an operator looks at: the health check and the Prometheus metrics (one process)."""

from __future__ import annotations

import time

import pytest
from starlette.testclient import TestClient

from marsdice.storage.db import Database
from marsdice.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_health_says_ok_without_redis(db: Database) -> None:
    with TestClient(create_app(database=db)) as client:
        response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["database"] is True and body["redis"] is None
    assert body["process"]


def test_metrics_count_steps_tables_and_latency(db: Database) -> None:
    with TestClient(create_app(database=db, bot_delay=0)) as client:
        bots = [{"kind": "bot", "bot": "cautious"}, {"kind": "bot", "bot": "random"}]
        created = client.post(
            "/api/tables", json={"game": "martian", "variant": {"target": 5}, "seats": bots}
        ).json()
        for _ in range(500):
            if client.get(f"/api/tables/{created['id']}").json()["status"] == "finished":
                break
            time.sleep(0.02)
        client.post("/api/tables", json={"game": "martian", "seats": [{"kind": "human"}] * 2})
        text = client.get("/metrics").text
    lines = dict(
        line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#")
    )
    assert float(lines['marsdice_tables{status="finished"}']) == 1
    assert float(lines['marsdice_tables{status="open"}']) == 1
    assert float(lines['marsdice_steps_total{actor="bot"}']) >= 2
    assert float(lines['marsdice_steps_total{actor="chance"}']) >= 1
    assert "marsdice_action_seconds_bucket" in text  # the histogram is exported
    assert float(lines["marsdice_lease_takeovers_total"]) == 0
    # the steps stored in writes (a move and its dice: one), the writes in commits
    steps = sum(float(v) for k, v in lines.items() if k.startswith("marsdice_steps_total{"))
    writes, commits = lines["marsdice_step_writes_total"], lines["marsdice_step_commits_total"]
    assert 1 <= float(commits) <= float(writes) <= steps
    assert float(lines["marsdice_connections"]) == 0
