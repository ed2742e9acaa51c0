"""The terminal game end to end: bots only, a scripted human, abandoning, replay."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from rich.console import Console

from marsdice.cli.main import main
from marsdice.cli.martian_view import commands_line
from marsdice.cli.play import PlaySession, Seat
from marsdice.cli.view import game_view
from marsdice.games import get_game, read_record
from marsdice.martian import Variant, position


def test_bots_play_a_seeded_game_and_save_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "game.mdr"
    args = ["play", "-p", "random", "-p", "cautious:Zax", "--seed", "7", "--save", str(save)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Final scores" in out and "Zax" in out
    module, record = read_record(save.read_text())
    final = module.replay(record)[-1]
    assert final.is_terminal and max(final.scores) >= 25
    assert record.tag("Seed") == "7"
    # the same seed plays the same game
    again = tmp_path / "again.mdr"
    assert main([*args[:-1], str(again)]) == 0
    assert read_record(again.read_text())[1].moves == record.moves
    # and replay prints it turn by turn with the same result
    capsys.readouterr()
    assert main(["replay", str(save)]) == 0
    replayed = capsys.readouterr().out
    assert "Zax's turn" in replayed and "Final scores" in replayed


def test_scripted_human_with_an_invalid_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Cycling through every command always finds a legal one; the rest are re-prompted.
    script = "zzz\nhelp\nr\nh\nc\nk\ns\n" * 400
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    save = tmp_path / "human.mdr"
    code = main(
        [
            "play",
            "-p",
            "human:Ann",
            "-p",
            "cautious",
            "--seed",
            "3",
            "--target",
            "10",
            "--save",
            str(save),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "unknown command 'zzz'" in out
    assert "Take one face type" in out or "Type s (stop" in out
    assert "Final scores" in out
    module, record = read_record(save.read_text())
    assert record.players == ("Ann", "cautious-bot")
    assert module.replay(record)[-1].is_terminal


def test_end_of_input_abandons_cleanly_and_keeps_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("zzz\n"))
    save = tmp_path / "partial.mdr"
    code = main(["play", "-p", "human", "-p", "random", "--seed", "1", "--save", str(save)])
    assert code == 130
    assert "Game abandoned" in capsys.readouterr().out
    module, record = read_record(save.read_text())
    assert record.moves and not module.replay(record)[-1].is_terminal
    assert "unfinished" in (record.tag("Result") or "")


def test_ctrl_c_mid_game_is_clean(tmp_path: Path) -> None:
    calls = []

    def interrupt(prompt: str) -> str:
        calls.append(prompt)
        raise KeyboardInterrupt

    console = Console(file=io.StringIO(), width=100)
    session = PlaySession(
        get_game("martian"),
        game_view(get_game("martian")),
        [Seat("Ann")],
        console,
        read_line=interrupt,
    )
    save = tmp_path / "solo.mdr"
    assert session.play(Variant(players=1), random.Random(2), save=save) is False
    assert calls and save.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "-p", "wizard"], "unknown player 'wizard'"),
        (["play", "--target", "0"], "argument --target: must be 1-100, got 0"),
        (["play", *["-p", "random"] * 11], "Martian Dice takes 1-10 players, got 11"),
    ],
)
def test_bad_options_get_a_clear_error(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_save_never_overwrites_by_accident(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "old.mdr"
    existing.write_text("precious")
    assert main(["play", "-p", "random", "-p", "random", "--save", str(existing)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert existing.read_text() == "precious"
    args = ["play", "-p", "random", "-p", "random", "--seed", "1", "--save", str(existing)]
    assert main([*args, "--overwrite"]) == 0
    assert existing.read_text().startswith('[Game "martian"]')
    missing = tmp_path / "no-such-dir" / "g.mdr"
    assert main(["play", "-p", "random", "-p", "random", "--save", str(missing)]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_replay_of_a_missing_or_bad_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(tmp_path / "nope.mdr")]) == 2
    bad = tmp_path / "bad.mdr"
    bad.write_text('[Game "martian"]\n[Player1 "A"]\n[Player2 "B"]\n\nstop\n')
    assert main(["replay", str(bad)]) == 2
    out = capsys.readouterr().err
    assert "cannot replay" in out and "move 1 ('stop')" in out


def test_list_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--list-bots"]) == 0
    assert "cautious" in capsys.readouterr().out


def test_command_line_shows_the_letters_people_type() -> None:
    state = position(Variant(), (0, 0), set_aside=(0, 0, 0, 0, 0), rolled=(1, 3, 3, 3, 3))
    line = commands_line(state)
    assert line == "take: r rays · h humans · c cows · k chickens · ? help"
    for letter, name in (("r", "rays"), ("h", "humans"), ("c", "cows"), ("k", "chickens")):
        assert state.parse_action(letter).text() == name
    decide = position(Variant(), (0, 0), set_aside=(1, 2, 3, 0, 0))
    assert commands_line(decide) == "s stop and score 3 · g roll the 7 dice left"


def test_quit_asks_first_and_rules_are_one_word_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # "quit" then "n" goes on playing; "rules" shows the summary; "quit" + "y" leaves.
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\nn\nrules\nquit\ny\n"))
    save = tmp_path / "left.mdr"
    code = main(["play", "-p", "human:Ann", "-p", "random", "--seed", "4", "--save", str(save)])
    out = capsys.readouterr().out
    assert code == 0  # a confirmed quit is the player's choice, not an interruption (130)
    assert out.count("Quit this game?") == 2
    assert "Death Ray" in out  # from the rules summary
    assert f"You left the game; record saved to {save}." in " ".join(out.split())
    assert save.exists()


def test_options_of_the_other_game_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--game", "attacks", "--target", "30"]) == 2
    assert "--target is a Martian Dice option" in capsys.readouterr().err
    assert main(["play", "-p", "random", "-p", "random", "--difficulty", "hard"]) == 2
    assert "--difficulty is a Mars Attacks" in capsys.readouterr().err


def test_negative_delay_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--delay", "-1"]) == 2
    assert "must be 0 or more" in capsys.readouterr().err
    assert main(["play", "--delay", "61"]) == 2
    assert "must be at most 60 seconds" in capsys.readouterr().err


def test_same_seed_same_game_for_both_games(tmp_path: Path) -> None:
    for game, bots in (("martian", ["cautious", "expected"]), ("attacks", ["heuristic", "random"])):
        texts = []
        for name in ("a.mdr", "b.mdr"):
            save = tmp_path / f"{game}-{name}"
            argv = ["play", "--game", game, "--seed", "9", "--delay", "0", "--save", str(save)]
            for bot in bots:
                argv += ["-p", bot]
            assert main(argv) == 0
            texts.append(read_record(save.read_text())[1].moves)
        assert texts[0] == texts[1]


def test_building_the_command_line_loads_no_solver() -> None:
    """The parser imports every subcommand; none may pull numpy or matplotlib in at import."""
    import subprocess
    import sys

    code = (
        "import sys; from marsdice.cli.main import build_parser; build_parser(); "
        "print(sorted(m for m in ('numpy', 'matplotlib', 'marsdice.solve') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_keys_typed_during_the_computers_turn_are_discarded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What was typed before the prompt (on a real terminal) never becomes the next move."""
    import os
    import pty
    import select

    from marsdice.cli.prompt import _discard_typeahead

    master, slave = pty.openpty()
    with os.fdopen(slave, "r", closefd=True) as terminal:
        monkeypatch.setattr("sys.stdin", terminal)
        os.write(master, b"s\n")
        assert select.select([slave], [], [], 1.0)[0], "the typed line is waiting"
        _discard_typeahead()
        assert not select.select([slave], [], [], 0.1)[0], "nothing left to read"
    os.close(master)
