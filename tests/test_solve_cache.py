"""The solver cache heals itself: every kind of damaged or mismatched file is a cache miss
(solved again, replaced atomically, one warning line), never a crash."""

from __future__ import annotations

import io
import json
import logging
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from marsdice.solve import cache
from marsdice.solve.cache import META, cached_arrays, checksum, table_path
from marsdice.solve.solo import solve_solo
from marsdice.solve.winprob import solve_winprob

KEY = {"target": 4, "dice": 3, "players": 2}
SHAPES = {"first": (4, 4), "last": (3,)}


def _good() -> dict[str, np.ndarray]:
    return {"first": np.arange(16.0).reshape(4, 4) / 16, "last": np.array([0.5, 0.25, 0.0])}


class Counter:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> dict[str, np.ndarray]:
        self.calls += 1
        return _good()


def _load(directory: Path, compute: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return cached_arrays("demo", KEY, compute, directory, shapes=SHAPES)


def _rewrite(path: Path, edit: Callable[[dict[str, np.ndarray], dict[str, object]], None]) -> None:
    """Rewrite a valid cache file with its arrays and description edited."""
    with np.load(path) as stored:
        arrays = {name: stored[name] for name in stored.files if name != META}
        meta = json.loads(bytes(stored[META]).decode())
    edit(arrays, meta)
    payload = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with path.open("wb") as out:
        np.savez(out, **{META: payload}, **arrays)  # type: ignore[arg-type]


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _flip_data(path: Path) -> None:  # data changed, description kept: the checksum fails
    _rewrite(path, lambda arrays, meta: arrays["first"].__setitem__((0, 0), 0.75))


def _wrong_shape(path: Path) -> None:  # consistent file (checksum updated), wrong shape
    def edit(arrays: dict[str, np.ndarray], meta: dict[str, object]) -> None:
        arrays["first"] = np.zeros((3, 3))
        meta["sha256"] = checksum(arrays)

    _rewrite(path, edit)


def _missing_array(path: Path) -> None:
    def edit(arrays: dict[str, np.ndarray], meta: dict[str, object]) -> None:
        del arrays["last"]
        meta["sha256"] = checksum(arrays)

    _rewrite(path, edit)


def _old_version(path: Path) -> None:
    _rewrite(path, lambda arrays, meta: meta.__setitem__("version", cache.SOLVER_VERSION - 1))


def _other_variant(path: Path) -> None:
    _rewrite(path, lambda arrays, meta: meta.__setitem__("key", {**KEY, "target": 5}))


def _not_finite(path: Path) -> None:
    def edit(arrays: dict[str, np.ndarray], meta: dict[str, object]) -> None:
        arrays["last"][1] = np.nan
        meta["sha256"] = checksum(arrays)

    _rewrite(path, edit)


def _no_description(path: Path) -> None:  # the format of solver version 1
    with path.open("wb") as out:
        np.savez(out, **_good())  # type: ignore[arg-type]


def _pickled(path: Path) -> None:  # an object array: never unpickled
    with path.open("wb") as out:
        meta = np.array([{"kind": "demo"}], dtype=object)
        np.savez(out, **{META: meta}, **_good())  # type: ignore[arg-type]


def _bad_zip_member(path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"{META}.npy", b"\x93NUMPY garbage")
    path.write_bytes(buffer.getvalue())


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


DAMAGE = {
    "empty": lambda path: path.write_bytes(b""),
    "garbage": lambda path: path.write_bytes(b"not a table at all"),
    "truncated": _truncate,
    "bad checksum": _flip_data,
    "wrong shape": _wrong_shape,
    "missing array": _missing_array,
    "older solver version": _old_version,
    "another variant": _other_variant,
    "not finite": _not_finite,
    "no description": _no_description,
    "pickled object": _pickled,
    "bad npy member": _bad_zip_member,
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_table_is_a_miss_solved_again_and_replaced(
    damage: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    compute = Counter()
    _load(tmp_path, compute)
    path = table_path("demo", KEY, tmp_path)
    assert path.is_file() and compute.calls == 1
    DAMAGE[damage](path)
    with caplog.at_level(logging.WARNING, logger="marsdice.solve.cache"):
        again = _load(tmp_path, compute)
    assert compute.calls == 2  # solved again
    for name, array in _good().items():
        np.testing.assert_array_equal(again[name], array)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    message = warnings[0].getMessage()
    assert str(path) in message and "solving the table again" in message
    assert "\n" not in message
    # replaced by a good file: the next run reads it without solving or warning
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="marsdice.solve.cache"):
        _load(tmp_path, compute)
    assert compute.calls == 2 and not caplog.records
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_a_folder_in_place_of_the_file(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    compute = Counter()
    path = table_path("demo", KEY, tmp_path)
    path.mkdir(parents=True)
    with caplog.at_level(logging.WARNING, logger="marsdice.solve.cache"):
        arrays = _load(tmp_path, compute)
    np.testing.assert_array_equal(arrays["first"], _good()["first"])
    assert compute.calls == 1
    assert caplog.records  # unreadable, and then it cannot be replaced: warned, not raised


def test_unwritable_cache_is_skipped_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    directory = blocker / "cache"
    monkeypatch.setattr(cache, "_unwritable", set())
    compute = Counter()
    with caplog.at_level(logging.WARNING, logger="marsdice.solve.cache"):
        for _ in range(3):
            arrays = _load(directory, compute)
    np.testing.assert_array_equal(arrays["last"], _good()["last"])
    assert compute.calls == 3
    assert len(caplog.records) == 1
    assert "cannot write" in caplog.records[0].getMessage()


def test_writes_are_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compute = Counter()
    _load(tmp_path, compute)
    path = table_path("demo", KEY, tmp_path)
    before = path.read_bytes()
    _flip_data(path)
    damaged = path.read_bytes()
    replaced: list[tuple[str, str]] = []

    def failing_replace(source: str, target: os.PathLike[str]) -> None:
        replaced.append((str(source), str(target)))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    monkeypatch.setattr(cache, "_unwritable", set())
    _load(tmp_path, compute)
    # the new table went to a temporary file in the same folder, renamed over the old one;
    # when the rename fails the old file is untouched and the temporary file removed
    assert replaced and Path(replaced[0][0]).parent == tmp_path
    assert replaced[0][1] == str(path)
    assert path.read_bytes() == damaged != before
    assert not list(tmp_path.glob(".*.tmp"))


def test_solver_tables_heal(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    table = solve_winprob(5, 4, cache_dir=tmp_path)
    solo = solve_solo(5, 4, cache_dir=tmp_path)
    for path in tmp_path.glob("*.npz"):
        _truncate(path)
    with caplog.at_level(logging.WARNING, logger="marsdice.solve.cache"):
        again = solve_winprob(5, 4, cache_dir=tmp_path)
        solo_again = solve_solo(5, 4, cache_dir=tmp_path)
    np.testing.assert_array_equal(again.first, table.first)
    np.testing.assert_array_equal(solo_again.turns, solo.turns)
    assert len(caplog.records) == 2
    # a table of the right kind stored under another variant's name is refused by its key
    other = table_path("winprob", {"target": 6, "dice": 4, "players": 2}, tmp_path)
    os.replace(table_path("winprob", {"target": 5, "dice": 4, "players": 2}, tmp_path), other)
    assert solve_winprob(6, 4, cache_dir=tmp_path).first.shape == (6, 6)
