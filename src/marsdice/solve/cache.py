"""Solved tables kept on disk between runs, in the user cache directory.

Why: a full win-probability solve takes seconds, a bot's decision must take milliseconds.
Tables are ``.npz`` files named by kind and a hash of the variant key (target, dice, the
solver's version), so a change of rules or solver never reads a stale table. The directory is
``platformdirs.user_cache_dir("marsdice")``, overridden by the ``MARSDICE_CACHE_DIR``
environment variable or an explicit argument.

A cache must never be the reason a run fails. Each file carries its own description (kind,
key, solver version, the names and shapes of its arrays) and a SHA-256 checksum of the data;
a file that cannot be read, is empty or truncated, fails the checksum, or describes another
table (or has the wrong shapes, or values that are not finite) is a cache miss: the table is
solved again and the file replaced atomically (a temporary file, then :func:`os.replace`),
with one warning line on the ``marsdice.solve.cache`` logger (printed on stderr when logging
is not configured). A cache that cannot be written is skipped, with one warning per folder.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     calls = []
...     def compute():
...         calls.append(1)
...         return {"x": np.arange(3.0)}
...     first = cached_arrays("demo", {"target": 25}, compute, tmp)
...     again = cached_arrays("demo", {"target": 25}, compute, tmp)
...     len(calls), again["x"].tolist()
(1, [0.0, 1.0, 2.0])
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

#: Bump when a solver's output changes meaning, so old cached tables are ignored.
SOLVER_VERSION: Final = 2
CACHE_ENV: Final = "MARSDICE_CACHE_DIR"
#: The array in each file that describes it (JSON bytes).
META: Final = "__meta__"

Arrays = dict[str, npt.NDArray[np.float64]]
Shapes = Mapping[str, tuple[int, ...]]

log = logging.getLogger(__name__)
_unwritable: set[Path] = set()


def cache_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """Where tables go: the argument, else ``$MARSDICE_CACHE_DIR``, else the user cache dir."""
    if override is not None:
        return Path(override)
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("marsdice", appauthor=False))


def table_path(kind: str, key: Mapping[str, object], directory: Path) -> Path:
    """File of one table: kind plus a short hash of the key (and the solver version)."""
    text = json.dumps({"kind": kind, "version": SOLVER_VERSION, **key}, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return directory / f"{kind}-{digest}.npz"


def cached_arrays(
    kind: str,
    key: Mapping[str, object],
    compute: Callable[[], Arrays],
    directory: str | os.PathLike[str] | None = None,
    *,
    use_cache: bool = True,
    shapes: Shapes | None = None,
) -> Arrays:
    """Load a table from the cache, or compute and store it. ``shapes`` (name -> shape) are
    the arrays a valid table has; anything else in the file is a miss."""
    if not use_cache:
        return compute()
    path = table_path(kind, key, cache_dir(directory))
    arrays, problem = _load(path, _describe(kind, key), shapes)
    if arrays is not None:
        return arrays
    if problem is not None:
        log.warning("solver cache: %s %s; solving the table again", path, problem)
    arrays = compute()
    _store(path, _describe(kind, key), arrays)
    return arrays


def _describe(kind: str, key: Mapping[str, object]) -> dict[str, object]:
    # through JSON, so that it compares equal to what a file holds
    described: dict[str, object] = json.loads(
        json.dumps({"kind": kind, "version": SOLVER_VERSION, "key": dict(key)}, sort_keys=True)
    )
    return described


def checksum(arrays: Mapping[str, npt.NDArray[np.float64]]) -> str:
    """SHA-256 of the arrays' names, shapes, types and bytes."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def _load(
    path: Path, described: Mapping[str, object], shapes: Shapes | None
) -> tuple[Arrays | None, str | None]:
    """The arrays, or ``None`` and what is wrong with the file (``None`` too if it is absent)."""
    if not path.exists():
        return None, None
    try:
        with np.load(path, allow_pickle=False) as stored:
            meta = json.loads(bytes(stored[META]).decode())
            arrays = {name: stored[name] for name in stored.files if name != META}
    except Exception as error:  # any way of failing to read is a miss, never a crash
        reason = str(error).splitlines()[0] if str(error) else ""
        return None, f"is unreadable ({type(error).__name__}{': ' if reason else ''}{reason})"
    if not isinstance(meta, dict):
        return None, "has no description"
    if {k: meta.get(k) for k in described} != dict(described):
        return None, "holds another table (kind, variant or solver version differ)"
    if meta.get("sha256") != checksum(arrays):
        return None, "fails its checksum (damaged)"
    for name, array in arrays.items():
        if array.dtype != np.float64 or not np.isfinite(array).all():
            return None, f"has bad values in {name!r}"
    if shapes is not None:
        found = {name: array.shape for name, array in arrays.items()}
        if found != {name: tuple(shape) for name, shape in shapes.items()}:
            return None, f"has the wrong arrays or shapes {found}"
    return arrays, None


def _store(path: Path, described: Mapping[str, object], arrays: Arrays) -> None:
    """Write atomically (a temporary file renamed); a cache that cannot be written is skipped
    with one warning per folder."""
    meta = {**described, "sha256": checksum(arrays)}
    payload = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            np.savez(out, **{META: payload}, **arrays)  # type: ignore[arg-type]
        os.replace(temporary, path)
    except OSError as error:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        if path.parent not in _unwritable:
            _unwritable.add(path.parent)
            reason = error.strerror or type(error).__name__
            log.warning(
                "solver cache: cannot write %s (%s); tables are solved again each run",
                path.parent,
                reason,
            )
