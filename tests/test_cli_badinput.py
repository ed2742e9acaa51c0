"""The bad-input corpus: every subcommand against bad arguments and bad files ends with a
one-line message on stderr and the documented exit code, never a traceback.

Add a case to :data:`CORPUS` for every new way of breaking the command line. Exit codes
(docs/cli.md): 0 done, 1 result saved elsewhere / internal error, 2 bad arguments or input,
130 interrupted, 141 output pipe closed.

Files a case needs are made in a fresh folder; ``{tmp}`` in an argument is that folder.
Prompts read end-of-input (``input`` raises EOFError) and stdin is not a terminal.
"""

from __future__ import annotations

import builtins
import os
import random
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from marsdice.cli import analyze as analyze_cli
from marsdice.cli import main as main_module
from marsdice.cli.main import main
from marsdice.core.game import chance_agent, play_out
from marsdice.core.record import MAX_RECORD_BYTES, MAX_RECORD_MOVES
from marsdice.games import get_game

Content = bytes | Callable[[], bytes]


@cache
def martian_record(seed: int = 3, players: int = 2) -> str:
    """A whole Martian Dice game between random players, as a record's text."""
    game = get_game("martian")
    rng = random.Random(seed)
    start = game.start(game.default_variant(players), rng)
    playthrough = play_out(start, [chance_agent(rng)] * players, rng)
    names = [f"P{i}" for i in range(1, players + 1)]
    return game.dumps(game.make_record(names, start, playthrough.moves))


def record_bytes() -> bytes:
    return martian_record().encode()


def header_and_moves() -> tuple[str, list[str]]:
    head, _, body = martian_record().partition("\n\n")
    moves = [line.split(";")[0].strip() for line in body.splitlines()]
    return head, [move for line in moves for move in line.split()]


def with_moves(moves: list[str]) -> bytes:
    head, _ = header_and_moves()
    head = "\n".join(line for line in head.splitlines() if not line.startswith("[Result"))
    return (head + "\n\n" + " ".join(moves) + "\n").encode()


def truncated_moves() -> bytes:
    _, moves = header_and_moves()
    return with_moves(moves[:7])


def illegal_move() -> bytes:
    _, moves = header_and_moves()
    return with_moves([moves[0], "TTTTTTTTTTTTT", *moves[2:]])


def unknown_notation() -> bytes:
    _, moves = header_and_moves()
    return with_moves([moves[0], "xyzzy"])


def moves_after_the_end() -> bytes:
    _, moves = header_and_moves()
    return with_moves([*moves, moves[0]])


def too_many_moves() -> bytes:
    return with_moves(["stop"] * (MAX_RECORD_MOVES + 1))


def huge_record() -> bytes:
    text = record_bytes()
    filler = b"; " + b"x" * 98 + b"\n"
    return text + filler * (MAX_RECORD_BYTES // len(filler) + 1)


def bad_tag(line: bytes) -> Callable[[], bytes]:
    def make() -> bytes:
        head, _, body = record_bytes().partition(b"\n\n")
        lines = head.splitlines()
        key = line.split()[0]
        lines = [old for old in lines if old.split()[0] != key] + [line]
        return b"\n".join(lines) + b"\n\n" + body

    return make


@dataclass(frozen=True)
class Case:
    """One bad command line: ``argv`` after ``marsdice``, the exit code, a piece of the one
    stderr line, the files it needs, and why it may still fail (an xfail reason)."""

    name: str
    argv: tuple[str, ...]
    code: int = 2
    message: str = ""
    files: tuple[tuple[str, Content], ...] = ()
    pending: str | None = None


def case(
    name: str,
    *argv: str,
    code: int = 2,
    message: str = "",
    files: dict[str, Content] | None = None,
    pending: str | None = None,
) -> Case:
    return Case(name, argv, code, message, tuple((files or {}).items()), pending)


GOOD = {"game.mdr": record_bytes}
JUNK = bytes(range(256)) * 8

CORPUS: list[Case] = [
    # --- the command itself
    case("no-command", message=""),
    case("unknown-command", "fly", message="invalid choice"),
    case("unknown-option", "--colour", message="unrecognized arguments"),
    case("version", "--version", code=0),
    # --- play: options
    case("play-unknown-option", "play", "--speed", "3", message="unrecognized arguments"),
    case("play-negative-delay", "play", "--delay", "-1", message="--delay"),
    case("play-delay-not-a-number", "play", "--delay", "soon", message="--delay"),
    case("play-delay-nan", "play", "--delay", "nan", message="--delay"),
    case("play-seed-not-a-number", "play", "--seed", "abc", message="--seed"),
    case("play-unknown-game", "play", "--game", "chess", message="invalid choice"),
    case("play-unknown-player", "play", "-p", "human", "-p", "wizard", message="wizard"),
    case("play-players-11", "play", *["-p", "random"] * 11, message="players"),
    case(
        "play-target-0", "play", "-p", "random", "-p", "random", "--target", "0", message="target"
    ),
    case(
        "play-target-1000",
        "play",
        *("-p", "random", "-p", "random", "--target", "1000"),
        message="target",
    ),
    case("play-dice-0", "play", "-p", "random", "-p", "random", "--dice", "0", message="dice"),
    case("play-dice-50", "play", "-p", "random", "-p", "random", "--dice", "50", message="dice"),
    case("play-target-word", "play", "--target", "lots", message="--target"),
    case("play-rolloff-dice-0", "play", "-p", "random", "-p", "random", "--rolloff-dice", "0"),
    case("play-rolloff-mode", "play", "--rolloff-mode", "coin", message="invalid choice"),
    case(
        "play-attacks-with-martian-option",
        "play",
        *("--game", "attacks", "-p", "random", "-p", "random", "--target", "30"),
        message="--target",
    ),
    case(
        "play-martian-with-attacks-option",
        "play",
        *("-p", "random", "-p", "random", "--difficulty", "hard"),
        message="--difficulty",
    ),
    case(
        "play-attacks-missing-cards",
        "play",
        *("--game", "attacks", "-p", "random", "-p", "random", "--cards", "{tmp}/none.json"),
        message="none.json",
    ),
    case(
        "play-attacks-cards-folder",
        "play",
        *("--game", "attacks", "-p", "random", "-p", "random", "--cards", "{tmp}"),
    ),
    case(
        "play-attacks-cards-junk",
        "play",
        *("--game", "attacks", "-p", "random", "-p", "random", "--cards", "{tmp}/junk.json"),
        files={"junk.json": JUNK},
    ),
    case(
        "play-attacks-cards-empty",
        "play",
        *("--game", "attacks", "-p", "random", "-p", "random", "--cards", "{tmp}/empty.json"),
        files={"empty.json": b""},
    ),
    case(
        "play-attacks-cards-not-an-object",
        "play",
        *("--game", "attacks", "-p", "random", "-p", "random", "--cards", "{tmp}/list.json"),
        files={"list.json": b"[1, 2, 3]"},
    ),
    # --- play: where the record goes
    case(
        "play-save-existing",
        "play",
        *("-p", "random", "-p", "random", "--save", "{tmp}/game.mdr"),
        message="already exists",
        files=GOOD,
    ),
    case(
        "play-save-missing-folder",
        "play",
        *("-p", "random", "-p", "random", "--save", "{tmp}/no/game.mdr"),
        message="does not exist",
    ),
    case(
        "play-save-folder",
        "play",
        *("-p", "random", "-p", "random", "--save", "{tmp}"),
        message="folder",
    ),
    case(
        "play-save-under-a-file",
        "play",
        *("-p", "random", "-p", "random", "--save", "{tmp}/game.mdr/x.mdr"),
        files=GOOD,
    ),
    case(
        "play-save-proc",
        "play",
        *("-p", "random", "-p", "random", "--save", "/proc/marsdice.mdr"),
        message="/proc/marsdice.mdr",
    ),
    # --- play: a person at a prompt that reads end-of-input
    case(
        "play-end-of-input-at-the-prompt",
        "play",
        *("-p", "human:Ann", "-p", "human:Bob", "--seed", "1"),
        code=130,
        message="game abandoned",
    ),
    # --- replay
    case("replay-no-file", "replay", message="file"),
    case("replay-missing", "replay", "{tmp}/none.mdr", message="none.mdr"),
    case("replay-folder", "replay", "{tmp}", message="directory"),
    case("replay-empty", "replay", "{tmp}/e.mdr", message="Game", files={"e.mdr": b""}),
    case("replay-junk", "replay", "{tmp}/j.mdr", message="not a text", files={"j.mdr": JUNK}),
    case(
        "replay-nul-bytes",
        "replay",
        "{tmp}/n.mdr",
        message="NUL",
        files={"n.mdr": b'[Game "martian"]\x00\x00'},
    ),
    case(
        "replay-latin-1",
        "replay",
        "{tmp}/l.mdr",
        message="not a text",
        files={"l.mdr": b'[Game "martian"]\n[Player1 "Ren\xe9"]\n'},
    ),
    case(
        "replay-bom-only", "replay", "{tmp}/b.mdr", message="Game", files={"b.mdr": b"\xef\xbb\xbf"}
    ),
    case("replay-dev-zero", "replay", "/dev/zero", message="larger than"),
    case(
        "replay-huge", "replay", "{tmp}/h.mdr", message="larger than", files={"h.mdr": huge_record}
    ),
    case(
        "replay-too-many-moves",
        "replay",
        "{tmp}/m.mdr",
        message="more than the limit",
        files={"m.mdr": too_many_moves},
    ),
    case(
        "replay-truncated-tag",
        "replay",
        "{tmp}/t.mdr",
        message="line 1",
        files={"t.mdr": b'[Game "mart'},
    ),
    case(
        "replay-no-players",
        "replay",
        "{tmp}/p.mdr",
        message="no players",
        files={"p.mdr": b'[Game "martian"]\n\n'},
    ),
    case(
        "replay-unknown-game",
        "replay",
        "{tmp}/g.mdr",
        message="unknown game",
        files={"g.mdr": b'[Game "chess"]\n[Player1 "A"]\n\ne4\n'},
    ),
    case(
        "replay-duplicate-tag",
        "replay",
        "{tmp}/d.mdr",
        message="twice",
        files={"d.mdr": b'[Game "martian"]\n[Game "martian"]\n'},
    ),
    case(
        "replay-bad-target-tag",
        "replay",
        "{tmp}/v.mdr",
        message="arget",
        files={"v.mdr": bad_tag(b'[Target "lots"]')},
    ),
    case(
        "replay-target-out-of-range",
        "replay",
        "{tmp}/v.mdr",
        message="arget",
        files={"v.mdr": bad_tag(b'[Target "0"]')},
    ),
    case(
        "replay-illegal-move",
        "replay",
        "{tmp}/i.mdr",
        message="move 2",
        files={"i.mdr": illegal_move},
    ),
    case(
        "replay-unreadable-move",
        "replay",
        "{tmp}/u.mdr",
        message="move 2 ('xyzzy')",
        files={"u.mdr": unknown_notation},
    ),
    case(
        "replay-moves-after-the-end",
        "replay",
        "{tmp}/a.mdr",
        message="already over",
        files={"a.mdr": moves_after_the_end},
    ),
    case(
        "replay-step-without-a-terminal",
        "replay",
        "--step",
        "{tmp}/game.mdr",
        message="terminal",
        files=GOOD,
    ),
    # records that are fine, however they look
    case("replay-good", "replay", "{tmp}/game.mdr", code=0, files=GOOD),
    case(
        "replay-bom",
        "replay",
        "{tmp}/bom.mdr",
        code=0,
        files={"bom.mdr": lambda: b"\xef\xbb\xbf" + record_bytes()},
    ),
    case(
        "replay-crlf",
        "replay",
        "{tmp}/crlf.mdr",
        code=0,
        files={"crlf.mdr": lambda: record_bytes().replace(b"\n", b"\r\n")},
    ),
    case(
        "replay-stops-before-the-end",
        "replay",
        "{tmp}/short.mdr",
        code=0,
        files={"short.mdr": truncated_moves},
    ),
    case(
        "replay-markup-in-names",
        "replay",
        "{tmp}/names.mdr",
        code=0,
        files={
            "names.mdr": lambda: (
                record_bytes().replace(b'"P1"', b'"[/bold]"').replace(b'"P2"', b'"[red]x"')
            )
        },
    ),
    # --- tournament
    case("tournament-no-bots", "tournament", message="BOT"),
    case("tournament-one-bot", "tournament", "random", "--quiet", message="two seats"),
    case("tournament-unknown-bot", "tournament", "random", "wizard", message="wizard"),
    case("tournament-games-0", "tournament", "random", "random", "-n", "0", message="-n/--games"),
    case("tournament-games-negative", "tournament", "random", "random", "-n", "-5"),
    case("tournament-games-huge", "tournament", "random", "random", "-n", "10000000000000"),
    case("tournament-games-word", "tournament", "random", "random", "-n", "many"),
    case("tournament-jobs-0", "tournament", "random", "random", "-j", "0", message="--jobs"),
    case("tournament-jobs-1000", "tournament", "random", "random", "-j", "1000"),
    case("tournament-eleven-seats", "tournament", *["random"] * 11, message="players"),
    case("tournament-target-0", "tournament", "random", "random", "--target", "0"),
    case("tournament-dice-50", "tournament", "random", "random", "--dice", "50", message="dice"),
    case(
        "tournament-attacks-with-martian-option",
        "tournament",
        *("--game", "attacks", "random", "random", "--target", "30"),
        message="--target",
    ),
    case(
        "tournament-martian-with-attacks-option",
        "tournament",
        *("random", "random", "--end-stacks", "1"),
        message="--end-stacks",
    ),
    case(
        "tournament-bad-cards",
        "tournament",
        *("--game", "attacks", "random", "random", "--cards", "{tmp}/junk.json"),
        files={"junk.json": JUNK},
    ),
    case(
        "tournament-json-folder",
        "tournament",
        *("random", "random", "--json", "{tmp}"),
        message="folder",
    ),
    case(
        "tournament-json-missing-folder",
        "tournament",
        *("random", "random", "--json", "{tmp}/no/t.json"),
        message="does not exist",
    ),
    case(
        "tournament-csv-under-a-file",
        "tournament",
        *("random", "random", "--csv", "{tmp}/game.mdr/t.csv"),
        files=GOOD,
    ),
    case(
        "tournament-csv-proc",
        "tournament",
        *("random", "random", "--csv", "/proc/t.csv"),
        message="/proc/t.csv",
    ),
    case(
        "tournament-json-existing",
        "tournament",
        *("random", "random", "--json", "{tmp}/game.mdr"),
        message="--overwrite",
        files=GOOD,
    ),
    case(
        "tournament-json-and-csv-the-same",
        "tournament",
        *("random", "random", "--json", "{tmp}/t", "--csv", "{tmp}/t"),
        message="two files",
    ),
    # --- analyze
    case("analyze-nothing-to-do", "analyze", message="give a position"),
    case("analyze-scores-junk", "analyze", "--scores", "a,b", "--roll", "T", message="--scores"),
    case("analyze-scores-negative", "analyze", "--scores", "-3,2", "--aside", "HH"),
    case("analyze-scores-empty", "analyze", "--scores", "", "--aside", "HH"),
    case("analyze-aside-junk", "analyze", "--aside", "XYZ", message="face letters"),
    case(
        "analyze-roll-wrong-count", "analyze", "--aside", "HH", "--roll", "HHH", message="11 dice"
    ),
    case("analyze-seat-0", "analyze", "--seat", "0", "--aside", "HH", message="--seat"),
    case("analyze-seat-3", "analyze", "--seat", "3", "--aside", "HH", message="--seat must be 1-2"),
    case(
        "analyze-finished-game",
        "analyze",
        *("--scores", "40,3", "--aside", "HH"),
        message="the game is over",
    ),
    case(
        "analyze-finished-solo",
        "analyze",
        *("--scores", "25", "--aside", "HH"),
        message="the game is over",
    ),
    case(
        "analyze-last-round-nobody-there",
        "analyze",
        *("--scores", "3,4", "--seat", "2", "--aside", "HH", "--last-round"),
        message="nobody has reached",
    ),
    case(
        "analyze-last-round-mover-past-target",
        "analyze",
        *("--scores", "3,30", "--seat", "2", "--aside", "HH", "--last-round"),
        message="already be over",
    ),
    case("analyze-target-0", "analyze", "--target", "0", "--aside", "HH", message="--target"),
    case("analyze-target-1000", "analyze", "--target", "1000", "--aside", "HH", message="target"),
    case("analyze-dice-0", "analyze", "--dice", "0", "--aside", "HH", message="--dice"),
    case("analyze-dice-50", "analyze", "--dice", "50", "--aside", "HH", message="dice"),
    case("analyze-plot-gif", "analyze", "--plot", "{tmp}/atlas.gif", message=".png or .svg"),
    case("analyze-plot-folder", "analyze", "--plot", "{tmp}", message="folder"),
    case("analyze-plot-proc", "analyze", "--plot", "/proc/atlas.png", message="/proc/atlas.png"),
    case(
        "analyze-plot-missing-folder",
        "analyze",
        *("--plot", "{tmp}/no/atlas.png"),
        message="does not exist",
    ),
    case(
        "analyze-plot-dice-50", "analyze", "--plot", "{tmp}/a.png", "--dice", "50", message="dice"
    ),
]


def _params() -> list[object]:
    out: list[object] = []
    for item in CORPUS:
        marks = [pytest.mark.xfail(reason=item.pending, strict=False)] if item.pending else []
        out.append(pytest.param(item, id=item.name, marks=marks))
    return out


@pytest.fixture
def no_prompts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every prompt meets end-of-input, as with ``marsdice play < /dev/null``."""

    def closed(prompt: object = "") -> str:
        raise EOFError

    monkeypatch.setattr(builtins, "input", closed)


def run_case(item: Case, tmp: Path) -> list[str]:
    for name, content in item.files:
        data = content() if callable(content) else content
        (tmp / name).write_bytes(data)
    return [arg.format(tmp=tmp) for arg in item.argv]


@pytest.mark.usefixtures("no_prompts")
@pytest.mark.parametrize("item", _params())
def test_bad_input_ends_in_one_line_and_the_documented_code(
    item: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = run_case(item, tmp_path)
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert "internal error" not in err
    assert code == item.code, err
    if code != 0:
        lines = err.strip().splitlines()
        assert lines, "no message on stderr"
        assert lines[-1].startswith("marsdice"), lines[-1]
        assert item.message in lines[-1]
    else:
        assert "error" not in err


def test_the_corpus_names_are_unique() -> None:
    names = [item.name for item in CORPUS]
    assert len(names) == len(set(names))


# --- Ctrl-C, broken pipes, internal errors --------------------------------------------------


def test_ctrl_c_in_analyze_is_one_line_and_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(analyze_cli, "analysis_table", interrupted)
    assert main(["analyze", "--aside", "HH"]) == 130
    assert capsys.readouterr().err == "marsdice: stopped: interrupted\n"


def test_a_bug_is_one_line_asking_for_a_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object) -> object:
        raise ZeroDivisionError("division by zero")

    monkeypatch.delenv(main_module.DEBUG_ENV, raising=False)
    monkeypatch.setattr(analyze_cli, "analysis_table", broken)
    assert main(["analyze", "--aside", "HH"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "internal error: ZeroDivisionError: division by zero; please report it" in err
    assert "MARSDICE_DEBUG=1" in err


def test_debug_shows_the_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object) -> object:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setenv(main_module.DEBUG_ENV, "1")
    monkeypatch.setattr(analyze_cli, "analysis_table", broken)
    assert main(["analyze", "--aside", "HH"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_out_of_memory_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def huge(*args: object) -> object:
        raise MemoryError

    monkeypatch.setattr(analyze_cli, "analysis_table", huge)
    assert main(["analyze", "--aside", "HH"]) == 1
    assert capsys.readouterr().err.startswith("marsdice: error: out of memory")


def test_broken_pipe_is_silent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def closed(*args: object) -> object:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(analyze_cli, "analysis_table", closed)
    assert main(["analyze", "--aside", "HH"]) == 141
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", ["play", "replay", "tournament", "analyze"])
def test_help_shows_defaults(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "exit codes" in out
    if command != "replay":
        assert "(default: " in out


# --- the real command in a process -----------------------------------------------------------


def run_command(
    args: list[str], tmp: Path, *, close_stdout: bool = False
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOME": str(tmp),
        "MARSDICE_CACHE_DIR": str(tmp / "cache"),
        "COLUMNS": "200",
    }
    env.pop(main_module.DEBUG_ENV, None)
    command = [sys.executable, "-m", "marsdice.cli.main", *args]
    if not close_stdout:
        return subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=tmp,
    )
    assert process.stdout is not None
    process.stdout.close()  # the reader is gone before the first line
    _, err = process.communicate()
    return subprocess.CompletedProcess(command, process.returncode, "", err)


SUBPROCESS_CASES = [
    "replay-missing",
    "replay-junk",
    "replay-dev-zero",
    "analyze-finished-game",
    "tournament-json-folder",
    "play-negative-delay",
]


@pytest.mark.parametrize("name", SUBPROCESS_CASES)
def test_the_console_command_agrees(name: str, tmp_path: Path) -> None:
    item = next(item for item in CORPUS if item.name == name)
    result = run_command(run_case(item, tmp_path), tmp_path)
    assert "Traceback" not in result.stdout + result.stderr
    assert result.returncode == item.code, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("marsdice")
    assert item.message in lines[-1]


def test_output_into_a_closed_pipe_is_silent(tmp_path: Path) -> None:
    (tmp_path / "game.mdr").write_bytes(record_bytes())
    result = run_command(["replay", "game.mdr"], tmp_path, close_stdout=True)
    assert result.returncode == 141, result.stderr
    assert result.stderr == ""
