"""``marsdice analyze``, analysis positions, the strategy atlas and the hint line."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from rich.console import Console

from marsdice.cli import analyze as analyze_cli
from marsdice.cli.main import main
from marsdice.cli.martian_view import hint
from marsdice.cli.play import PlaySession, Seat
from marsdice.cli.view import game_view
from marsdice.core import VariantError
from marsdice.games import get_game
from marsdice.martian import Phase, Variant, position


def test_position_builds_a_choice_after_the_turn_so_far() -> None:
    state = position(Variant(), (3, 4), seat=1, set_aside=(2, 0, 4, 0, 0), rolled=(1, 2, 1, 3, 0))
    assert state.phase is Phase.CHOOSE
    assert state.set_aside == (3, 0, 4, 0, 0)
    assert [a.text() for a in state.legal_actions()] == ["rays", "cows"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scores": (1,)}, "give 2 scores"),
        ({"seat": 2}, "seat must be 0-1"),
        ({"set_aside": (13, 0, 0, 0, 0)}, "leaves none"),
        ({"set_aside": (2, 0, 0, 0, 0)}, "other than tanks"),
        ({"set_aside": (0, 0, 3, 0, 0), "rolled": (1, 1, 1, 1, 1)}, "the 10 dice"),
        ({"set_aside": (0, 0, 3, 0, 0), "rolled": (4, 0, 6, 0, 0)}, "turn is already over"),
    ],
)
def test_impossible_positions_are_refused(kwargs: dict[str, object], message: str) -> None:
    settings: dict[str, object] = {"scores": (0, 0), **kwargs}
    scores = settings.pop("scores")
    with pytest.raises(VariantError, match=message):
        position(Variant(), scores, **settings)  # type: ignore[arg-type]


def test_analyze_prints_every_choice(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["analyze", "--scores", "10,18", "--aside", "TTHHHH", "--roll", "TRRCCCK"]
    assert main(args) == 0
    out = capsys.readouterr().out
    for action in ("rays", "cows", "chickens"):
        assert action in out
    assert "humans" not in out.split("Win probability")[1]
    assert "★" in out


def test_analyze_solo_reports_turns(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--scores", "20", "--aside", "RRHHH"]) == 0
    out = capsys.readouterr().out
    assert "Expected turns to finish" in out
    assert "stop" in out
    assert "roll" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scores", "a,b", "--roll", "T"], "whole numbers"),
        (["--aside", "XYZ"], "face letters"),
        (["--aside", "HH", "--roll", "HHH"], "the 11 dice"),
        ([], "give a position"),
        (["--plot", "atlas.gif"], ".png or .svg"),
    ],
)
def test_analyze_bad_input(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyze", *args]) == 2
    assert message in capsys.readouterr().err


def test_atlas_is_written(tmp_path: Path) -> None:
    out = tmp_path / "atlas.svg"
    assert main(["analyze", "--plot", str(out), "--target", "12"]) == 0
    assert out.read_text().lstrip().startswith("<?xml")
    assert "strategy atlas" in out.read_text()


def test_hint_names_the_best_move() -> None:
    state = position(Variant(), (0, 0), set_aside=(0, 0, 0, 0, 0), rolled=(4, 4, 3, 1, 1))
    line = hint(state)
    assert line is not None
    assert line.startswith("best: rays")
    assert "expected points" in line
    assert "chance to win" in line


def test_play_with_hints_shows_them() -> None:
    lines = iter(["r", "h", "c", "k", "s"] * 4)

    def read_line(prompt: str) -> str:
        line = next(lines, None)
        if line is None:
            raise EOFError
        return line

    output = io.StringIO()
    game = get_game("martian")
    session = PlaySession(
        game,
        game_view(game),
        [Seat("Ann"), Seat("Bea")],
        Console(file=output, width=200),
        hints=True,
        read_line=read_line,
    )
    assert session.play(Variant(target=6), random.Random(5)) is False
    assert "best: " in output.getvalue()


# --- finished games, seats from 1, the atlas's file ------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scores", "25,3"], "the game is over: player 1 has 25"),
        (["--scores", "3,40", "--seat", "1"], "the game is over: player 2 has 40"),
        (["--scores", "30"], "the game is over: player 1 has 30"),
        (["--scores", "30,3", "--seat", "2"], "add --last-round"),
        (["--scores", "3,4", "--seat", "2", "--last-round"], "nobody has reached the target"),
        (["--scores", "30,3", "--last-round"], "does not sit before player 1"),
        (["--scores", "12", "--last-round"], "needs 2 or more players"),
        (["--scores", "1,2", "--seat", "3"], "--seat must be 1-2"),
        (["--scores", "1,2,3", "--seat", "4"], "--seat must be 1-3"),
    ],
)
def test_positions_that_cannot_be_played_are_refused(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyze", "--aside", "HH", *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_a_last_round_position_is_analysed(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--scores", "27,20", "--seat", "2", "--last-round", "--aside", "RRHHH"]
    assert main(["analyze", *args]) == 0
    assert "Player 2" in capsys.readouterr().out


def test_the_plot_hint_keeps_its_brackets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import marsdice.cli.atlas as atlas

    def no_matplotlib(*args: object, **kwargs: object) -> None:
        raise ModuleNotFoundError("No module named 'matplotlib'")

    monkeypatch.setattr(atlas, "draw_atlas", no_matplotlib)
    assert main(["analyze", "--plot", str(tmp_path / "a.png"), "--target", "6"]) == 2
    assert "pip install 'marsdice[plot]'" in capsys.readouterr().err
    assert not (tmp_path / "a.png").exists()


def test_an_atlas_that_cannot_be_written_is_saved_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from marsdice.cli import analyze as analyze_cli
    from marsdice.cli import files

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(analyze_cli, "draw_atlas_bytes", lambda *args: b"<svg/>")

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", refuse)
    out = tmp_path / "atlas.svg"
    assert main(["analyze", "--plot", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"could not write {out} (No space left on device); saved to" in err
    saved = [p for p in tmp_path.iterdir() if p.name.startswith("atlas-saved-")]
    assert [p.read_bytes() for p in saved] == [b"<svg/>"]


# --- --json, start-of-turn positions, the method ---------------------------------------------


def _analysis(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    import json

    import jsonschema

    from marsdice.cli.analyze import load_schema

    assert main(["analyze", "--json", *args]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize(
    ("args", "phase", "method"),
    [
        (["--scores", "10,18", "--aside", "TTHHHH", "--roll", "TRRCCCK"], "choose", "exact-2p"),
        (["--scores", "5,6", "--seat", "2", "--aside", "RRH"], "decide", "exact-2p"),
        (["--scores", "0,0"], "start", "exact-2p"),
        (["--scores", "20"], "start", "solo-expected-turns"),
        (["--scores", "12", "--aside", "RRHHH"], "decide", "solo-expected-turns"),
        (["--scores", "1,2,3", "--target", "6", "--dice", "6"], "start", "exact-3p"),
        (["--scores", "1,2,3,4,5", "--target", "8", "--aside", "RRC"], "decide", "approximation"),
    ],
)
def test_json_follows_the_shipped_schema_and_names_the_method(
    args: list[str], phase: str, method: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _analysis(args, capsys)
    position = data["position"]
    assert isinstance(position, dict)
    assert position["phase"] == phase
    assert data["method"] == method
    assert data["method_text"] in analyze_cli.METHODS.values()
    choices = data["choices"]
    assert isinstance(choices, list)
    assert sum(1 for c in choices if c["best"]) == 1
    assert data["best"] == next(c["action"] for c in choices if c["best"])


def test_json_numbers_are_the_tables_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    from marsdice.solve import analyze as solve_analyze

    args = ["--scores", "10,18", "--aside", "TTHHHH", "--roll", "TRRCCCK"]
    data = _analysis(args, capsys)
    state = position(Variant(), (10, 18), set_aside=(2, 0, 4, 0, 0), rolled=(1, 2, 0, 3, 1))
    want = {row.action.text(): row for row in solve_analyze(state)}
    choices = data["choices"]
    assert isinstance(choices, list)
    assert [c["action"] for c in choices] == list(want)
    for choice in choices:
        row = want[choice["action"]]
        assert choice["expected_score"] == pytest.approx(row.expected_score, abs=1e-12)
        assert choice["win_probability"] == pytest.approx(row.win_probability, abs=1e-12)


def test_a_start_of_turn_is_worth_the_ground_truth(capsys: pytest.CaptureFixture[str]) -> None:
    """``--scores`` alone: the value of the turn about to be rolled, which for a small game
    is the exact game value of :func:`marsdice.solve.game_value` (another solver)."""
    from marsdice.solve import game_value

    data = _analysis(["--scores", "0,0", "--target", "6", "--dice", "6"], capsys)
    choices = data["choices"]
    assert isinstance(choices, list)
    (roll,) = choices
    assert roll["action"] == "roll"
    truth = game_value(Variant(players=2, target=6, dice=6)).values[0]
    assert roll["win_probability"] == pytest.approx(truth, abs=1e-9)
    solo = _analysis(["--scores", "0", "--target", "6", "--dice", "6"], capsys)
    solo_choices = solo["choices"]
    assert isinstance(solo_choices, list)
    solo_truth = -game_value(Variant(players=1, target=6, dice=6)).values[0]
    assert solo_choices[0]["expected_turns"] == pytest.approx(solo_truth, abs=1e-9)


def test_a_start_of_turn_is_shown_with_the_method(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--scores", "0,0"]) == 0
    out = capsys.readouterr().out
    assert "to roll (the start of a turn)" in out
    assert "48.41%" in out  # the first seat's chance in the rulebook game
    assert "Method: win probabilities: exact: the two-player win-probability table" in out


def test_the_schema_refuses_a_wrong_document(capsys: pytest.CaptureFixture[str]) -> None:
    import jsonschema

    from marsdice.cli.analyze import load_schema

    data = _analysis(["--scores", "0,0"], capsys)
    data["method"] = "a guess"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, load_schema(), cls=jsonschema.Draft202012Validator)


def test_the_schema_is_package_data() -> None:
    from importlib import resources

    assert resources.files("marsdice.cli").joinpath("analyze.schema.json").is_file()


def test_a_start_of_turn_after_the_target_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--scores", "25,3"]) == 2
    assert "the game is over" in capsys.readouterr().err
