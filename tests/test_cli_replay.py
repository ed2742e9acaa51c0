"""``marsdice replay``: the game from the start with the result last, a step-through mode,
byte-order marks, and records refused above the size limits."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from marsdice.cli import replay
from marsdice.cli.main import main
from marsdice.core.errors import RecordError
from marsdice.core.game import chance_agent, play_out
from marsdice.core.record import MAX_RECORD_BYTES, GameRecord, read_record_file
from marsdice.games import get_game


def record_text(game_name: str = "martian", seed: int = 5, moves: int | None = None) -> str:
    game = get_game(game_name)
    rng = random.Random(seed)
    start = game.start(game.default_variant(2), rng)
    played = play_out(start, [chance_agent(rng)] * 2, rng).moves
    kept = played if moves is None else played[:moves]
    return game.dumps(game.make_record(["Ann", "Bob"], start, kept))


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    path = tmp_path / "game.mdr"
    path.write_text(record_text())
    return path


def test_the_result_comes_after_the_game(
    game_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(game_file)]) == 0
    out = capsys.readouterr().out
    result = GameRecord.loads(game_file.read_text()).tag("Result")
    assert result is not None
    assert "Result" not in out
    assert "wins" in out
    first_turn = out.index("Ann's turn")
    assert "wins" not in out[:first_turn]
    assert out.rindex("wins") > out.rindex("turn ──")


@pytest.mark.parametrize("game_name", ["martian", "attacks"])
def test_both_games_replay(
    game_name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.mdr"
    path.write_text(record_text(game_name, seed=2))
    assert main(["replay", str(path)]) == 0
    assert get_game(game_name).title in capsys.readouterr().out


def test_a_byte_order_mark_is_accepted(
    game_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bom = tmp_path / "bom.mdr"
    bom.write_bytes(b"\xef\xbb\xbf" + game_file.read_bytes())
    assert main(["replay", str(bom)]) == 0
    with_bom = capsys.readouterr().out
    assert main(["replay", str(game_file)]) == 0
    assert capsys.readouterr().out == with_bom.replace(str(bom), str(game_file))
    assert GameRecord.loads("\ufeff" + game_file.read_text()).game == "martian"


def test_an_unfinished_record_says_so_at_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "short.mdr"
    path.write_text(record_text(moves=9))
    assert main(["replay", str(path)]) == 0
    assert "The record stops before the end" in capsys.readouterr().out.splitlines()[-1]


def test_a_bad_move_is_named_before_anything_is_shown(
    game_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = GameRecord.loads(game_file.read_text())
    moves = list(record.moves)
    moves[3] = "xyzzy"
    game_file.write_text(record.with_moves(moves).dumps())
    assert main(["replay", str(game_file)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"marsdice: error: cannot replay {game_file}: move 4 ('xyzzy')")


def test_files_over_the_limit_are_refused_without_reading_them_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.mdr"
    path.write_bytes(b"x" * (MAX_RECORD_BYTES + 1))
    with pytest.raises(RecordError, match="larger than 1,000,000 bytes"):
        read_record_file(path)
    path.write_bytes(b"x" * MAX_RECORD_BYTES)
    assert len(read_record_file(path)) == MAX_RECORD_BYTES


def test_replay_keeps_one_state_at_a_time(game_file: Path) -> None:
    game, record, final = replay.load(game_file)
    assert final.is_terminal
    steps = replay.steps(game, record)
    assert isinstance(steps, Iterator)
    assert sum(1 for _ in steps) == len(record.moves)


# --- --step ----------------------------------------------------------------------------------


def answers(monkeypatch: pytest.MonkeyPatch, *typed: str) -> list[str]:
    """Type these lines at the --step prompts (then end-of-input); returns the prompts."""
    prompts: list[str] = []
    queue = list(typed)

    def read_line(prompt: str) -> str:
        prompts.append(prompt)
        if not queue:
            raise EOFError
        return queue.pop(0)

    monkeypatch.setattr(replay, "stdin_is_terminal", lambda: True)
    monkeypatch.setattr(replay, "read_line", read_line)
    return prompts


def test_step_waits_after_each_turn_and_q_stops(
    game_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    prompts = answers(monkeypatch, "", "q")
    assert main(["replay", "--step", str(game_file)]) == 0
    out, err = capsys.readouterr()
    assert len(prompts) == 2
    assert out.count("turn ──") == 2
    assert "wins" not in out
    assert err.startswith("marsdice: note: replay stopped after move")


def test_step_with_enter_throughout_shows_the_whole_game(
    game_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(game_file)]) == 0
    whole = capsys.readouterr().out
    prompts = answers(monkeypatch, *[""] * 1000)
    assert main(["replay", "--step", str(game_file)]) == 0
    assert capsys.readouterr().out == whole
    game, record, _ = replay.load(game_file)
    names = record.players
    turns = [
        step
        for step in replay.steps(game, record)
        if game.describe_step(step.before, step.after, names) and not step.after.is_terminal
    ]
    assert len(prompts) == len(turns) > 10


def test_step_stops_at_end_of_input(
    game_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers(monkeypatch)
    assert main(["replay", "--step", str(game_file)]) == 0
    assert capsys.readouterr().out.count("turn ──") == 1


def test_step_needs_a_terminal(game_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--step", str(game_file)]) == 2
    assert "needs a terminal" in capsys.readouterr().err


def test_ctrl_c_at_a_step_prompt_is_130(
    game_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(replay, "stdin_is_terminal", lambda: True)
    monkeypatch.setattr(replay, "read_line", interrupt)
    assert main(["replay", "--step", str(game_file)]) == 130
    assert capsys.readouterr().err == "marsdice: stopped: interrupted\n"
