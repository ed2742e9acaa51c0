"""Output files: checked before the work, written atomically, never lost (a fallback file).

Tests run as root, where permissions do not stop a write: failures come from paths under a
file, /proc, /dev/full and patched system calls instead.
"""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

import pytest

from marsdice.cli import files
from marsdice.cli.args import (
    DefaultsHelpFormatter,
    int_range,
    non_negative_float,
    non_negative_int,
    positive_int,
    print_error,
)
from marsdice.cli.files import (
    OutputPathError,
    SavedElsewhere,
    WriteFailed,
    check_output_path,
    write_bytes_safely,
    write_text_safely,
)

PROC = Path("/proc")


@pytest.fixture
def full(tmp_path: Path) -> Path:
    """A private copy of /dev/full (every write: "No space left on device"), so that a bug
    replacing the device with a file could never touch the real one."""
    device = tmp_path / "full"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        handle = os.open(device, os.O_WRONLY)
    except (PermissionError, AttributeError):
        pytest.skip("cannot make a device node here")
    try:
        with pytest.raises(OSError, match="No space left"):
            os.write(handle, b"x")
    finally:
        os.close(handle)
    return device


@pytest.fixture(autouse=True)
def fallback_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fallback files land in a private folder, never in the real current directory."""
    folder = tmp_path / "fallback"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


# --- check_output_path -----------------------------------------------------------------------


def test_a_new_file_in_a_writable_folder_is_fine(tmp_path: Path) -> None:
    check_output_path(tmp_path / "out.json", overwrite=False)
    assert list(tmp_path.iterdir()) == [tmp_path / "fallback"]  # the probe left nothing


def test_an_existing_file_needs_overwrite(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    old.write_text("precious")
    with pytest.raises(OutputPathError, match=r"already exists.*--overwrite"):
        check_output_path(old, overwrite=False)
    check_output_path(old, overwrite=True)
    assert old.read_text() == "precious"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: tmp, "it is a folder"),
        (lambda tmp: tmp / "missing" / "out.json", "folder .* does not exist"),
        (lambda tmp: tmp / "file.txt" / "out.json", "is not a folder"),
        (lambda tmp: PROC / "marsdice-out.json", "cannot write /proc/marsdice-out.json"),
    ],
)
def test_unusable_paths_are_refused_in_one_line(tmp_path: Path, make: object, message: str) -> None:
    (tmp_path / "file.txt").write_text("x")
    assert callable(make)
    path = make(tmp_path)
    with pytest.raises(OutputPathError, match=message) as caught:
        check_output_path(path, overwrite=True)
    assert "\n" not in str(caught.value)
    assert "Errno" not in str(caught.value)


def test_a_device_is_written_in_place_without_overwrite() -> None:
    check_output_path(Path("/dev/null"), overwrite=False)


# --- write_text_safely -----------------------------------------------------------------------


def test_write_is_complete_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    assert write_text_safely(out, "a,b\n1,2\n") == out
    assert out.read_text() == "a,b\n1,2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fallback", "out.csv"]
    assert stat.S_IMODE(out.stat().st_mode) & 0o044 == 0o044  # readable as usual, not 0600


def test_replacing_keeps_the_old_permissions(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    out.write_text("old")
    out.chmod(0o640)
    write_text_safely(out, "new")
    assert out.read_text() == "new"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_a_failed_replace_keeps_the_old_file_and_saves_the_data_elsewhere(
    tmp_path: Path, fallback_here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.json"
    out.write_text("old results")

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", refuse)
    with pytest.raises(SavedElsewhere) as caught:
        write_text_safely(out, "new results")
    error = caught.value
    assert out.read_text() == "old results"
    assert error.saved_to.parent == fallback_here
    assert error.saved_to.suffix == ".json"
    assert error.saved_to.read_text() == "new results"
    assert str(error) == (
        f"could not write {out} (No space left on device); saved to {error.saved_to} instead"
    )
    assert error.exit_code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fallback", "out.json"]


@pytest.mark.parametrize("where", ["device-full", "proc", "under-a-file"])
def test_real_write_failures_fall_back(fallback_here: Path, full: Path, where: str) -> None:
    target = {
        "device-full": full,
        "proc": PROC / "marsdice-out.json",
        "under-a-file": Path("/dev/null/x.json"),
    }[where]
    with pytest.raises(SavedElsewhere) as caught:
        write_text_safely(target, "data")
    assert full.is_char_device()
    assert caught.value.saved_to.parent == fallback_here
    assert caught.value.saved_to.read_text() == "data"


def test_fallback_goes_to_the_temp_folder_when_the_current_one_fails(
    tmp_path: Path, full: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spare = tmp_path / "spare"
    spare.mkdir()
    monkeypatch.setattr(files, "fallback_folders", lambda: [PROC, spare])
    with pytest.raises(SavedElsewhere) as caught:
        write_bytes_safely(full, b"\x89PNG")
    assert caught.value.saved_to.parent == spare
    assert caught.value.saved_to.read_bytes() == b"\x89PNG"


def test_nothing_writable_at_all_is_one_clear_error(
    full: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "fallback_folders", lambda: [PROC, Path("/dev/null")])
    with pytest.raises(
        WriteFailed, match=r"could not write .*full \(No space .*\), nor a fallback"
    ):
        write_text_safely(full, "data")
    assert full.is_char_device()


def test_fallback_never_replaces_an_existing_file(fallback_here: Path, full: Path) -> None:
    (fallback_here / "out.txt").write_text("mine")
    names = set()
    for _ in range(3):
        with pytest.raises(SavedElsewhere) as caught:
            write_text_safely(full, "data")
        names.add(caught.value.saved_to)
    assert len(names) == 3
    assert (fallback_here / "out.txt").read_text() == "mine"


# --- option types, help, error line ----------------------------------------------------------


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (non_negative_float, "-1", "must be 0 or more"),
        (non_negative_float, "nan", "finite"),
        (non_negative_float, "inf", "finite"),
        (non_negative_float, "soon", "must be a number"),
        (non_negative_int, "-3", "must be 0 or more"),
        (positive_int, "0", "must be 1 or more"),
        (positive_int, "1.5", "whole number"),
        (int_range(1, 10), "11", "must be 1-10"),
        (int_range(1, 10), "0", "must be 1-10"),
    ],
)
def test_option_types_refuse_out_of_range(parse: object, text: str, message: str) -> None:
    assert callable(parse)
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        parse(text)


def test_option_types_accept_the_range() -> None:
    assert non_negative_float("0") == 0.0
    assert non_negative_int("0") == 0
    assert positive_int("7") == 7
    assert int_range(1, 10)("10") == 10


def test_help_shows_defaults_only_where_there_is_one() -> None:
    parser = argparse.ArgumentParser(formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games to play")
    parser.add_argument("--seed", type=int, help="seed")
    parser.add_argument("--quiet", action="store_true", help="no progress")
    parser.add_argument("--delay", default=0.6, help="pause (default: 0.6 on a terminal)")
    text = " ".join(parser.format_help().split())
    assert "games to play (default: 1000)" in text
    assert "seed (default" not in text
    assert "no progress (default" not in text
    assert "(default: 0.6 on a terminal) (default" not in text


def test_error_line_is_one_line_and_keeps_brackets(capsys: pytest.CaptureFixture[str]) -> None:
    print_error("plots need matplotlib: pip install 'marsdice[plot]'\nsecond line")
    err = capsys.readouterr().err
    assert (
        err == "marsdice: error: plots need matplotlib: pip install 'marsdice[plot]' second line\n"
    )


def test_no_probe_or_temporary_file_is_left_on_failure(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "x.json"
    os.mkfifo(folder / "pipe")  # a non-regular neighbour does not confuse the check
    check_output_path(target, overwrite=False)
    write_text_safely(target, "{}")
    assert sorted(p.name for p in folder.iterdir()) == ["pipe", "x.json"]
