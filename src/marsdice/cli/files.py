"""Output files that are never lost: checked before long work starts, written atomically,
and saved somewhere else (with the path said) if the place asked for fails at the end.

- :func:`check_output_path` before the work: an existing file (without ``overwrite``), a
  folder, a missing or unwritable folder raise :class:`OutputPathError` with one line.
- :func:`write_text_safely` / :func:`write_bytes_safely` after it: a temporary file in the
  same folder, then :func:`os.replace`, so a reader never sees half a file and an old file
  survives a failed write. If that fails, the data goes to a fallback file (the current
  folder, else the temporary folder, under a fresh name) and :class:`SavedElsewhere` says
  where; if even that fails, :class:`WriteFailed`. Both are :class:`WriteError`, whose
  ``exit_code`` is 1: the work ran, its result is not where it was asked for.

A path that exists and is not a regular file (``/dev/stdout``, a pipe) is written in place:
it cannot be replaced, and there is no old content to protect.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import ClassVar

from marsdice.core.errors import MarsDiceError


class OutputPathError(MarsDiceError):
    """An output path that cannot be used; nothing was done yet (exit code 2)."""

    exit_code: ClassVar[int] = 2


class WriteError(MarsDiceError):
    """Writing a result failed after the work was done (exit code 1)."""

    exit_code: ClassVar[int] = 1

    def __init__(self, message: str, *, target: Path, reason: str) -> None:
        super().__init__(message)
        self.target = target
        self.reason = reason


class SavedElsewhere(WriteError):
    """The data could not be written to ``target`` and was saved to ``saved_to`` instead."""

    def __init__(self, *, target: Path, reason: str, saved_to: Path) -> None:
        super().__init__(
            f"could not write {target} ({reason}); saved to {saved_to} instead",
            target=target,
            reason=reason,
        )
        self.saved_to = saved_to


class WriteFailed(WriteError):
    """Neither ``target`` nor any fallback file could be written."""

    def __init__(self, *, target: Path, reason: str, fallback_reason: str) -> None:
        super().__init__(
            f"could not write {target} ({reason}), nor a fallback file ({fallback_reason})",
            target=target,
            reason=reason,
        )
        self.fallback_reason = fallback_reason


def describe(error: OSError) -> str:
    """The reason of an OS error without its errno and file name: ``Permission denied``."""
    return error.strerror or str(error) or type(error).__name__


def check_output_path(path: Path, *, overwrite: bool) -> None:
    """Refuse, before any long work, a path that the result could not be written to."""
    try:
        if path.is_dir():
            raise OutputPathError(f"cannot write {path}: it is a folder; give a file name")
        if path.exists() and not _is_regular(path):
            if not os.access(path, os.W_OK):
                raise OutputPathError(f"cannot write {path}: not writable")
            return  # /dev/stdout, a pipe: written in place
        if path.exists() and not overwrite:
            raise OutputPathError(f"{path} already exists: choose another file or add --overwrite")
        folder = path.parent
        if not folder.exists():
            raise OutputPathError(f"cannot write {path}: folder {folder} does not exist")
        if not folder.is_dir():
            raise OutputPathError(f"cannot write {path}: {folder} is not a folder")
        _probe(folder)
    except OSError as error:
        raise OutputPathError(f"cannot write {path}: {describe(error)}") from None


def _probe(folder: Path) -> None:
    """Create and remove a file in ``folder``: the one sure test (as root, read-only mounts,
    /proc...)."""
    handle, name = tempfile.mkstemp(dir=folder, prefix=".marsdice-probe-")
    os.close(handle)
    os.unlink(name)


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return True


def write_text_safely(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; return ``path``. On failure the text is
    saved to a fallback file and :class:`SavedElsewhere` raised (or :class:`WriteFailed`)."""
    return write_bytes_safely(path, text.encode("utf-8"))


def write_bytes_safely(path: Path, data: bytes) -> Path:
    """:func:`write_text_safely` for bytes (a picture, say)."""
    try:
        write_atomically(path, data)
        return path
    except OSError as error:
        reason = describe(error)
    try:
        saved_to = _write_fallback(path, data)
    except OSError as error:
        raise WriteFailed(target=path, reason=reason, fallback_reason=describe(error)) from None
    raise SavedElsewhere(target=path, reason=reason, saved_to=saved_to)


def write_atomically(path: Path, data: bytes) -> None:
    """A temporary file next to ``path``, flushed to disk, then moved over it (OSError on
    failure, leaving any old file as it was and no temporary file behind)."""
    if path.exists() and not path.is_dir() and not _is_regular(path):
        with path.open("wb") as stream:
            stream.write(data)
        return
    if path.is_dir():
        raise IsADirectoryError(21, "it is a folder", str(path))
    folder = path.parent
    handle, name = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        _set_mode(name, like=path)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def _set_mode(name: str, *, like: Path | None) -> None:
    """Give the new file the permissions of the file it replaces, or the usual ones for a new
    file (``mkstemp`` makes it private)."""
    try:
        if like is None:
            raise FileNotFoundError
        mode = stat.S_IMODE(like.stat().st_mode)
    except OSError:
        umask = os.umask(0o22)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(name, mode)


def fallback_folders() -> list[Path]:
    """Where a result goes when its own path fails: the current folder, then the temporary
    folder."""
    return [Path.cwd(), Path(tempfile.gettempdir())]


def _write_fallback(path: Path, data: bytes) -> Path:
    """A new file with a fresh name (never replacing one) in the first fallback folder that
    takes it."""
    last: OSError = OSError("no fallback folder")
    stem = path.stem or "marsdice"
    for folder in fallback_folders():
        try:
            handle, name = tempfile.mkstemp(dir=folder, prefix=f"{stem}-saved-", suffix=path.suffix)
        except OSError as error:
            last = error
            continue
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            _set_mode(name, like=None)
        except OSError as error:
            last = error
            with contextlib.suppress(OSError):
                os.unlink(name)
            continue
        return Path(name)
    raise last
