"""Tournaments: reproducible whatever the number of processes, seats rotate, clear errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from marsdice.cli.main import main
from marsdice.tournament import run_tournament, wilson_interval


def test_results_do_not_depend_on_jobs() -> None:
    one = run_tournament("martian", ["cautious", "random"], games=12, seed=5, jobs=1)
    two = run_tournament("martian", ["cautious", "random"], games=12, seed=5, jobs=2)
    assert one == two
    other = run_tournament("martian", ["cautious", "random"], games=12, seed=6, jobs=1)
    assert other.results != one.results


def test_seats_alternate_and_wins_add_up() -> None:
    result = run_tournament("martian", ["cautious", "random", "random"], games=9, seed=1)
    assert [r.seats[0] for r in result.results[:3]] == ["cautious", "random", "random"]
    assert sum(r.seats.count("cautious") for r in result.results) == 9
    by_name = {s.name: s for s in result.standings}
    assert by_name["random"].games == 18
    assert sum(s.wins for s in result.standings) == pytest.approx(9)
    assert all(s.ci_low <= s.win_rate <= s.ci_high for s in result.standings)


def test_cautious_beats_random() -> None:
    result = run_tournament("martian", ["cautious", "random"], games=60, seed=2)
    cautious = next(s for s in result.standings if s.name == "cautious")
    assert cautious.ci_low > 0.5


def test_wilson_interval_edges() -> None:
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    low, high = wilson_interval(5, 10)
    assert low < 0.5 < high


@pytest.mark.parametrize(
    ("lineup", "games", "message"),
    [
        (["cautious", "wizard"], 5, "unknown bot 'wizard'"),
        (["cautious"], 5, "at least two seats"),
        (["cautious", "random"], 0, "at least 1"),
    ],
)
def test_bad_tournaments_are_refused(lineup: list[str], games: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_tournament("martian", lineup, games=games)


def test_cli_writes_json_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json, out_csv = tmp_path / "t.json", tmp_path / "t.csv"
    args = ["tournament", "cautious", "random", "-n", "6", "--seed", "3", "--quiet"]
    assert main([*args, "--json", str(out_json), "--csv", str(out_csv)]) == 0
    assert "Win rate" in capsys.readouterr().out
    summary = json.loads(out_json.read_text())
    assert summary["games"] == 6
    assert len(summary["results"]) == 6
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 6
    assert {rows[0]["seat1_bot"], rows[1]["seat1_bot"]} == {"cautious", "random"}


def test_cli_error_is_clear(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "cautious", "nobody", "-n", "2", "--quiet"]) == 2
    assert "unknown bot 'nobody'" in capsys.readouterr().err


def test_mars_attacks_tournament_with_game_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tournament", "--game", "attacks", "planner", "random", "-n", "4", "--quiet"]
    assert main([*args, "--difficulty", "hard", "--end-stacks", "1"]) == 0
    assert "Mars Attacks" in capsys.readouterr().out
    bad = tmp_path / "cards.json"
    bad.write_text("{not json")
    assert main([*args, "--cards", str(bad)]) == 2
    assert "error" in capsys.readouterr().err


def test_martian_target_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "cautious", "random", "-n", "3", "--target", "5", "--quiet"]) == 0
    assert "Mean score" in capsys.readouterr().out


# --- nothing finished is lost ----------------------------------------------------------------


def test_output_paths_are_checked_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import marsdice.cli.tournament as command

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the games started")

    monkeypatch.setattr(command, "run_tournament", never)
    existing = tmp_path / "old.json"
    existing.write_text("precious")
    for bad, message in [
        (tmp_path, "is a folder"),
        (tmp_path / "missing" / "t.json", "does not exist"),
        (existing / "t.json", "is not a folder"),
        (existing, "add --overwrite"),
    ]:
        assert main(["tournament", "random", "random", "--json", str(bad)]) == 2
        assert message in capsys.readouterr().err
    assert existing.read_text() == "precious"


def test_overwrite_replaces_an_old_result(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    out.write_text("old")
    args = ["tournament", "random", "random", "-n", "2", "--quiet", "--csv", str(out)]
    assert main([*args, "--overwrite"]) == 0
    assert out.read_text().startswith("game,rounds,")


def test_a_failed_write_saves_the_results_elsewhere_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from marsdice.cli import files

    monkeypatch.chdir(tmp_path)
    real_replace = files.os.replace
    out_json, out_csv = tmp_path / "t.json", tmp_path / "t.csv"

    def refuse_json(src: str, dst: str) -> None:
        if str(dst).endswith(".json"):
            raise OSError(5, "Input/output error")
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", refuse_json)
    args = ["tournament", "cautious", "random", "-n", "4", "--quiet"]
    assert main([*args, "--json", str(out_json), "--csv", str(out_csv)]) == 1
    captured = capsys.readouterr()
    assert "Win rate" in captured.out
    assert f"could not write {out_json} (Input/output error); saved to" in captured.err
    saved = next(tmp_path.glob("t-saved-*.json"))
    assert json.loads(saved.read_text())["games"] == 4
    assert not out_json.exists()
    assert len(list(csv.DictReader(out_csv.open()))) == 4


def test_ctrl_c_keeps_the_finished_games_marked_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import marsdice.tournament as library

    real_play_one = library.play_one

    def interrupted_at_5(game: str, lineup: object, index: int, *args: object) -> object:
        if index == 5:
            raise KeyboardInterrupt
        return real_play_one(game, lineup, index, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(library, "play_one", interrupted_at_5)
    out_json, out_csv = tmp_path / "t.json", tmp_path / "t.csv"
    args = ["tournament", "cautious", "random", "-n", "50", "--quiet"]
    assert main([*args, "--json", str(out_json), "--csv", str(out_csv)]) == 130
    captured = capsys.readouterr()
    assert "5 of 50 games (partial)" in captured.out
    assert "Partial: interrupted after 5 of 50 games" in captured.out
    assert captured.err == (
        "marsdice: stopped: interrupted after 5 of 50 games; results marked partial\n"
    )
    summary = json.loads(out_json.read_text())
    assert summary["partial"] is True
    assert summary["games_finished"] == 5
    assert len(summary["results"]) == 5
    rows = list(csv.DictReader(out_csv.open()))
    assert [row["partial"] for row in rows] == ["true"] * 5


def test_ctrl_c_before_the_first_game_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import marsdice.tournament as library

    def interrupted(*args: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(library, "play_one", interrupted)
    out = tmp_path / "t.json"
    assert main(["tournament", "random", "random", "--quiet", "--json", str(out)]) == 130
    assert "before any game finished" in capsys.readouterr().err
    assert not out.exists()


def test_a_complete_series_is_not_partial(tmp_path: Path) -> None:
    out_json, out_csv = tmp_path / "t.json", tmp_path / "t.csv"
    args = ["tournament", "random", "random", "-n", "3", "--quiet"]
    assert main([*args, "--json", str(out_json), "--csv", str(out_csv)]) == 0
    assert json.loads(out_json.read_text())["partial"] is False
    assert {row["partial"] for row in csv.DictReader(out_csv.open())} == {"false"}
