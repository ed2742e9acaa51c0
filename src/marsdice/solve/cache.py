"""Solved tables kept on disk between runs, in the user cache directory.

Why: a full win-probability solve takes seconds, a bot's decision must take milliseconds.
Tables are ``.npz`` files named by kind and a hash of the variant key (target, dice, the
solver's version), so a change of rules or solver never reads a stale table. The directory is
``platformdirs.user_cache_dir("marsdice")``, overridden by the ``MARSDICE_CACHE_DIR``
environment variable or an explicit argument. A cache that cannot be written is skipped.

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

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

#: Bump when a solver's output changes meaning, so old cached tables are ignored.
SOLVER_VERSION: Final = 1
CACHE_ENV: Final = "MARSDICE_CACHE_DIR"

Arrays = dict[str, npt.NDArray[np.float64]]


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
) -> Arrays:
    """Load a table from the cache, or compute and store it."""
    if not use_cache:
        return compute()
    path = table_path(kind, key, cache_dir(directory))
    try:
        with np.load(path) as stored:
            return {name: stored[name] for name in stored.files}
    except (OSError, ValueError, KeyError):
        pass
    arrays = compute()
    _store(path, arrays)
    return arrays


def _store(path: Path, arrays: Arrays) -> None:
    """Write atomically (a temporary file renamed), ignoring a read-only cache."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            np.savez(out, **arrays)  # type: ignore[arg-type]
        os.replace(temporary, path)
    except OSError:
        return
