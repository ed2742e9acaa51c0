"""The server load benchmark (``bench/bench_server.py``) at a tiny load: it starts a real
server, plays every table to its end and reports figures that agree with the database.
Times are never asserted: only structure and counts."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from marsdice.storage.testing import postgres_unavailable

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_server.py"
TABLES = 3


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_server", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_tiny_load_finishes_every_table(
    bench: ModuleType, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if kind == "postgresql" and (reason := postgres_unavailable()):
        pytest.skip(reason)
    out = tmp_path / "figures.json"
    argv = ["--db", kind, "--tables", str(TABLES), "--games-per-table", "1", "--target", "5"]
    argv += ["--json", str(out)]
    assert bench.main(argv) == 0
    printed = capsys.readouterr()
    assert "Traceback" not in printed.err
    assert printed.out.splitlines()[0].split()[:3] == ["database", "servers", "tables"]
    (result,) = json.loads(out.read_text())["results"]
    assert result["database"] == kind and result["servers"] == 1
    assert result["tables"] == TABLES
    assert result["games_started"] == result["games_finished"] == TABLES
    assert result["games_cut"] == 0
    assert result["errors"] == {}
    assert result["actions"] > 0
    # every table finished in the database, and every action the clients timed is a step a
    # person made there (none lost, none counted twice)
    assert result["stored"]["tables"] == {"finished": TABLES}
    assert result["stored"]["steps"]["human"] == result["actions"]
    assert set(result["stored"]["steps"]) <= {"human", "chance"}
    latency = result["latency_ms"]
    assert list(latency) == ["p50", "p90", "p99", "max"]
    assert 0 <= latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["max"]
    assert set(result["cpu_s"]) >= {"servers", "clients", "machine_busy", "machine_cores"}
    assert result["cpu_s"]["servers"] is not None


def test_a_server_that_cannot_start_is_one_line_and_exit_2(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    @contextlib.contextmanager
    def unusable(_kind: str, _folder: Path) -> Iterator[str]:
        yield "sqlite:////nonexistent-folder/bench.sqlite3"

    monkeypatch.setattr(bench, "database", unusable)
    assert bench.main(["--db", "sqlite", "--tables", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1
    assert err.startswith("marsdice: error: the server on port ")
    assert "unable to open database file" in err


def test_bad_options_exit_2(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--tables", "0"]) == 2
    assert "--tables" in capsys.readouterr().err
    assert bench.main(["--game", "attacks", "--seats", "1"]) == 2


def test_percentiles_are_nearest_rank(bench: ModuleType) -> None:
    values = [float(v) for v in range(1, 101)]
    assert [bench.percentile(values, q) for q in (0.5, 0.9, 0.99, 1.0)] == [50, 90, 99, 100]
    assert bench.percentile([7.0], 0.5) == 7.0


def test_a_deadline_cuts_the_games_under_way_without_errors(
    bench: ModuleType, tmp_path: Path
) -> None:
    out = tmp_path / "figures.json"
    # games to 100 points (about 1,000 actions, each costing the server over a millisecond of
    # CPU) cannot end in the half second the run lasts; on a busy machine a table may even be
    # cut before its seats are joined (not started then)
    argv = ["--db", "sqlite", "--tables", "2", "--duration", "0.5", "--target", "100"]
    assert bench.main([*argv, "--json", str(out)]) == 0
    (result,) = json.loads(out.read_text())["results"]
    assert result["errors"] == {}
    assert result["games_finished"] == 0
    assert result["games_cut"] == result["games_started"] <= 2
    stored = result["stored"]
    assert stored["tables"].get("running", 0) == result["games_cut"]
    assert stored["tables"].get("finished", 0) == 0
    # an action sent just before the deadline may be stored but is not timed
    human = stored["steps"].get("human", 0)
    assert result["actions"] <= human <= result["actions"] + result["games_cut"]
    if result["actions"] == 0:
        assert set(result["latency_ms"].values()) == {None}
