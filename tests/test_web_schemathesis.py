"""A standard OpenAPI fuzzer against a real ``marsdice serve`` process: schemathesis with
every check (status codes, content types, schemas, ``Allow``, valid data accepted and invalid
data refused), bounded (deterministic, a fixed number of examples per operation) so that it
takes seconds. Any failure it reports fails the test, with its report."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from marsdice.storage.db import Database
from serverproc import Server

pytest.importorskip("schemathesis")

#: examples per operation and phase: enough to reach every route's refusals, a few seconds
EXAMPLES = 10
#: what the schema cannot say: the game decides the seat count its players need, its own bots
#: (each game has its own list) and its variant's settings, so a schema-valid new table may
#: be refused with 400 (an unknown bot for that game) or 422 (``bad_variant``)
CONFIG = """
# (an entry's filters are alternatives: this one is every POST; the refusals above, plus a
# sign-in, password change, chat message or rematch without the right credentials (401,
# 403: a seat's token or an account), a rematch before the end (409), and a sign-in or a
# chat writer limited (429))
[[operations]]
include-method = "POST"
checks.positive_data_acceptance.expected-statuses = [
    "2xx", "400", "401", "403", "404", "409", "422", "429",
]
"""


def test_schemathesis_finds_nothing(db: Database, tmp_path: Path) -> None:
    """On both databases: what reaches storage differs (PostgreSQL refuses a NUL byte)."""
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    server = Server(db.url, tmp_path)
    try:
        run = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run",
             f"{server.base}/openapi.json", "--checks", "all", "--max-examples", str(EXAMPLES),
             "--generation-deterministic", "--no-shrink", "--workers", "1", "--no-color",
             "--request-timeout", "10", "--report-dir", str(tmp_path)],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )  # fmt: skip
    finally:
        server.kill()  # no graceful stop to test here: it would wait for running solves
    report = run.stdout + run.stderr
    assert run.returncode == 0, report
    assert " failure" not in report.splitlines()[-1], report
    selected = re.search(r"Selected: (\d+)/(\d+)", report)
    assert selected is not None and selected[1] == selected[2], report
    assert f"Tested: {selected[1]}\n" in report, report  # every operation was reached
    assert "Traceback" not in server.log_path.read_text()
