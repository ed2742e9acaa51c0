"""Mars Attacks in the terminal: bots and a scripted person through ``marsdice play``, the
game options, a bad card file, and what the board and the final scoring show."""

from __future__ import annotations

import argparse
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from marsdice.attacks import Variant, builtin_cards, new_game
from marsdice.cli import attacks_view
from marsdice.cli.main import main
from marsdice.games import read_record


def test_bots_play_a_seeded_game_that_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "game.mdr"
    args = ["play", "--game", "attacks", "-p", "planner:Ann", "-p", "heuristic:Bob"]
    args += ["-p", "random:Cy", "--seed", "5", "--delay", "0", "--save", str(save)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Final scores" in out and "Ann's turn" in out and "attacks" in out
    module, record = read_record(save.read_text())
    assert module.name == "attacks" and record.players == ("Ann", "Bob", "Cy")
    final = module.replay(record)[-1]
    assert final.is_terminal
    again = tmp_path / "again.mdr"
    assert main([*args[:-1], str(again)]) == 0
    assert read_record(again.read_text())[1].moves == record.moves


def test_a_scripted_person_can_play_every_phase(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    slugs = [f"@{card.slug}" for card in builtin_cards()]
    cycle = ["zzz", "?", "reroll", "stop", "pass", "restart"]
    cycle += [f"memphis:{n}" for n in range(1, 5)] + slugs
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(cycle * 300) + "\n"))
    save = tmp_path / "human.mdr"
    args = ["play", "--game", "attacks", "-p", "human:Ann", "-p", "heuristic", "--seed", "3"]
    code = main([*args, "--delay", "0", "--hint", "--save", str(save)])
    out = capsys.readouterr().out
    assert code == 0, out[-2000:]
    assert "unknown command 'zzz'" in out  # re-prompted, not fatal
    assert "Nuke limit" in out and "Final scores" in out
    assert "planner suggests @" in out and "expected value" in out  # labelled numbers
    module, record = read_record(save.read_text())
    assert module.replay(record)[-1].is_terminal


def test_game_options_reach_the_variant_and_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "variant.mdr"
    args = ["play", "--game", "attacks", "-p", "heuristic", "-p", "heuristic", "--seed", "2"]
    args += ["--difficulty", "hard", "--bombed", "whole-turn", "--reroll", "subset"]
    args += ["--end-stacks", "1", "--delay", "0", "--save", str(save)]
    assert main(args) == 0
    _, record = read_record(save.read_text())
    tags = record.tag_map
    assert (tags["Difficulty"], tags["Bombed"], tags["Reroll"], tags["EndStacks"]) == (
        "hard",
        "whole-turn",
        "subset",
        "1",
    )
    capsys.readouterr()


def test_a_users_card_file_is_played_and_a_bad_one_stops_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cards = [card.to_dict() for card in builtin_cards()]
    for card in cards:
        card.pop("placeholder", None)
    good = tmp_path / "cards.json"
    good.write_text(json.dumps({"cards": cards}), encoding="utf-8")
    args = ["play", "--game", "attacks", "-p", "random", "-p", "random", "--seed", "1"]
    save = tmp_path / "custom.mdr"
    assert main([*args, "--delay", "0", "--cards", str(good), "--save", str(save)]) == 0
    assert "placeholder numbers" not in capsys.readouterr().out
    assert read_record(save.read_text())[1].tag("Cards") == "29"
    cards[4]["requirement"] = "eight"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"cards": cards}), encoding="utf-8")
    assert main([*args, "--cards", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "card 5 ('San Francisco'): field 'requirement'" in err
    assert main([*args, "--cards", str(tmp_path / "missing.json")]) == 2
    assert "cannot read card file" in capsys.readouterr().err


def test_make_variant_reads_the_options_and_applies_the_defaults() -> None:
    args = argparse.Namespace(
        cards=None, difficulty="hard", bombed=None, reroll=None, end_stacks=None, seattle=None
    )
    variant = attacks_view.make_variant(args, 4)
    assert variant == Variant(players=4, difficulty="hard")  # type: ignore[arg-type]
    parser = argparse.ArgumentParser()
    attacks_view.add_arguments(parser.add_argument_group("attacks"))
    parsed = parser.parse_args([])
    assert all(value is None for value in vars(parsed).values())
    assert attacks_view.make_variant(parsed, 3) == Variant(players=3)
    helps = parser.format_help()
    assert "(default easy)" in helps and "(default start)" in helps and "default 2" in helps


def test_steps_are_drawn_from_events_with_you_grammar() -> None:
    from marsdice.core.game import Step

    state = new_game(Variant(players=2), [["miami", "dallas"], ["phoenix"], ["san-jose"], []])
    lines = []
    for move in ("@miami", "HHHHHRRRRN"):
        after = state.apply(state.parse_action(move))
        console = Console(file=io.StringIO(), width=160, color_system=None)
        attacks_view.render_step(
            console, Step(state, state.parse_action(move), after), ["You", "Bob"]
        )
        lines.append(console.file.getvalue())  # type: ignore[attr-defined]
        state = after
    assert "You attack Miami (needs 3 ray guns)" in lines[0]
    assert "You roll 10" in lines[1] and "You capture Miami (4 ray guns, needs 3)" in lines[1]
    assert "Bob's turn" in lines[1]
    assert "captures" not in "".join(lines)


def test_rules_text_explains_the_symbols_and_the_nuke_limit() -> None:
    text = attacks_view.rules_text()
    for word in ("☻", "ϟ", "☢", "nuke limit", "difficulty card", "Las Vegas", "Denver"):
        assert word.lower() in text.lower()


def _render(state: object, names: list[str], final: bool = False) -> str:
    console = Console(file=io.StringIO(), width=160, color_system=None)
    if final:
        attacks_view.render_final(console, state, names)  # type: ignore[arg-type]
    else:
        attacks_view.render_board(console, state, names)  # type: ignore[arg-type]
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(out, str)
    return out


def test_the_board_shows_cards_tracks_tokens_limit_dice_and_owned_cards() -> None:
    state = new_game(Variant(players=2), [["dallas"], ["phoenix"], [], ["los-angeles"]])
    toronto = [c.name for c in state.variant.cards].index("Toronto")
    state = replace(state, owned=((toronto,), ()))
    state = state.apply(state.parse_action("@dallas"))
    state = state.apply(state.parse_action("HHHRRRRNNN"))  # Toronto's owner: before judging
    state = state.apply(state.parse_action("pass"))
    state = replace(state, tokens=((), ((state.face_up[1] or 0, 2),)))
    out = _render(state, ["Ann", "Bob"])
    assert "Dallas" in out and "◀ target" in out and "empty" in out
    assert "Nuke limit 5" in out and "(3 on the face-up cards + 2 easy)" in out
    assert "Bob 2" in out  # Bob's token on Phoenix
    assert "Nukes 3 of 5" in out and "count 4 of 8 ray guns" in out
    assert "Toronto" in out and "reroll@phoenix" in out
    assert "counts nukes" in out  # Los Angeles's ability


def test_the_final_scoring_names_the_tie_breaker() -> None:
    state = new_game(Variant(players=2), [["phoenix"], ["miami"], ["san-jose"], ["dallas"]])
    state = state.apply(state.parse_action("@phoenix"))
    state = state.apply(state.parse_action("HHHHHHRRRR"))  # Ann: 2 VP, 1 card
    state = state.apply(state.parse_action("@miami"))
    state = state.apply(state.parse_action("HHHHHHHRRR"))  # Bob: 1 VP; two stacks empty
    assert state.is_terminal
    out = _render(state, ["Ann", "Bob"], final=True)
    assert "Final scores" in out and "Ann wins on cards!" not in out and "Ann wins!" in out
