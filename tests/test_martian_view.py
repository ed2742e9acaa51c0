"""The Martian Dice terminal view: lines drawn from events, grammar for "You", the last-round
notice, labelled hints, the rules summary and the options."""

from __future__ import annotations

import argparse
import io
import itertools
from dataclasses import replace

import pytest
from rich.console import Console

from conftest import roll, scoring_turn, take
from marsdice.cli import martian_view as view
from marsdice.core.game import Step
from marsdice.martian import CONTINUE, STOP, Face, State, Variant, new_game, position
from marsdice.solve.policy import ChoiceAnalysis


def console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=200, color_system=None, highlight=False), out


def render_steps(states: list[State], names: tuple[str, ...]) -> str:
    term, out = console()
    for before, after in itertools.pairwise(states):
        view.render_step(term, Step(before, STOP, after), names)
    return out.getvalue()


def scripted_game() -> list[State]:
    states = [new_game(Variant(players=2, target=4))]
    for step in ("TTHHHHRRCCCKK", Face.HUMAN, CONTINUE, "TRRRCCK", Face.RAY, STOP, "T" * 13):
        state = states[-1]
        if isinstance(step, str):
            states.append(roll(state, step))
        elif isinstance(step, Face):
            states.append(take(state, step))
        else:
            states.append(state.apply(step))
    return states


def test_steps_read_right_for_you_and_for_others() -> None:
    states = scripted_game()
    mine = render_steps(states, ("You", "Zax"))
    assert "Your turn" in mine
    assert "You roll 13:" in mine and "(2 tanks set aside)" in mine
    assert "You take 4 humans." in mine and "You take 3 rays." in mine
    assert "You roll again." in mine and "You stop." in mine
    assert "You score 4 (stopped); total 4." in mine
    assert "You reach the target of 4: the round is completed" in mine
    assert "Zax's turn" in mine and "Zax rolls 13:" in mine
    assert "Zax scores 0 (0 rays vs 13 tanks); total 0." in mine
    for wrong in ("You rolls", "You takes", "You scores", "You stops", "You reaches"):
        assert wrong not in mine
    theirs = render_steps(states, ("Ann", "Zax"))
    assert "Ann's turn" in theirs and "Ann takes 4 humans." in theirs


def test_lines_come_from_the_events_alone() -> None:
    states = scripted_game()
    term, out = console()
    quiet = replace(states[2], events=())
    view.render_step(term, Step(states[1], STOP, quiet), ("Ann", "Bob"))
    assert out.getvalue() == ""


def test_the_last_round_says_what_each_player_needs() -> None:
    state = new_game(Variant(players=4, target=10))
    state = scoring_turn(scoring_turn(state, 3), 5)
    before = state
    state = scoring_turn(state, 11)
    names = ("Ann", "You", "Cy", "Dee")
    text = render_steps([before, state], names)
    assert "Cy reaches the target of 10 with 11" in text
    assert "Dee needs 12 to pass Cy (11 ties)." in text
    assert "Ann" not in text, "players who have had their last turn need nothing"
    term, out = console()
    view.render_board(term, state, names)
    assert "last round: 12 to pass Cy (11 ties)" in out.getvalue()
    first_roll = roll(state, "R" * 13)
    assert "Dee's turn · last round: 12 to pass Cy (11 ties)" in render_steps(
        [state, first_roll], names
    )


def test_the_end_screen() -> None:
    states = scripted_game()
    term, out = console()
    view.render_final(term, states[-1], ("You", "Zax"))
    assert "You win!" in out.getvalue() and "You wins" not in out.getvalue()
    term, out = console()
    view.render_final(term, states[-1], ("Ann", "Zax"))
    assert "Ann wins!" in out.getvalue()
    tied = scoring_turn(scoring_turn(new_game(Variant(target=5)), 5), 5)
    shared = roll(roll(tied, "RRHHHH"), "RRCCCC")
    assert shared.is_terminal is False
    shared = roll(roll(shared, "RRRHHH"), "RCCCCC")
    term, out = console()
    view.render_final(term, shared, ("You", "Zax"))
    assert "Roll-off 1: You 2 rays, Zax 2 rays" in out.getvalue()
    assert "Roll-off 2: You 3 rays, Zax 1 ray" in out.getvalue()
    assert "You win!" in out.getvalue()
    single = Variant(target=5, rolloff_mode="single")  # type: ignore[arg-type]
    over = roll(roll(scoring_turn(scoring_turn(new_game(single), 5), 5), "RHHHHH"), "RCCCCC")
    term, out = console()
    view.render_final(term, over, ("You", "Zax"))
    assert "You and Zax share the win!" in out.getvalue()


def test_roll_off_lines() -> None:
    tied = scoring_turn(scoring_turn(new_game(Variant(target=5)), 5), 5)
    first = roll(tied, "RRHHHH")
    again = roll(first, "RRCCCC")
    text = render_steps([scoring_turn(new_game(Variant(target=5)), 5), tied], ("You", "Zax"))
    assert "Tie on 5 between You and Zax: Death Ray roll-off!" in text
    text = render_steps([tied, first, again], ("You", "Zax"))
    assert "Roll-off: You roll" in text and "→ 2 rays" in text
    assert "Still tied: You and Zax roll again." in text


def test_options_default_to_none_and_the_help_names_the_defaults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser()
    view.add_arguments(parser.add_argument_group("Martian Dice"))
    args = parser.parse_args([])
    assert (args.target, args.dice, args.rolloff_dice, args.rolloff_mode) == (None,) * 4
    assert view.make_variant(args, 3) == Variant(players=3)
    helptext = parser.format_help()
    for shown in ("(default 25)", "(default 13)", "(default 6)", "(default repeat)", "1-100"):
        assert shown in " ".join(helptext.split())
    args = parser.parse_args(["--target", "40", "--dice", "20", "--rolloff-mode", "single"])
    assert view.make_variant(args, 2) == Variant(
        target=40,
        dice=20,
        rolloff_mode="single",  # type: ignore[arg-type]
    )
    for option, value in (("--target", "101"), ("--dice", "0"), ("--rolloff-dice", "21")):
        with pytest.raises(SystemExit):
            parser.parse_args([option, value])
    assert "argument --target: must be 1-100, got 101" in capsys.readouterr().err
    args.target = 101  # a caller building the namespace itself still gets the engine's check
    with pytest.raises(ValueError, match=r"^target must be 1-100, got 101"):
        view.make_variant(args, 2)


def test_rules_and_help() -> None:
    rules = view.rules_text()
    assert "tanks outnumber" in rules and "+3" in rules and "roll-off" in rules
    choose = roll(new_game(), "TTHHHHRRCCCKK")
    assert "Take one face type" in view.help_text(choose)
    assert "Type [bold]s[/]" in view.help_text(take(choose, Face.HUMAN))


def test_the_hint_is_labelled(monkeypatch: pytest.MonkeyPatch) -> None:
    state = take(roll(new_game(), "TTHHHHRRCCCKK"), Face.HUMAN)
    rows = [
        ChoiceAnalysis(STOP, 4.0, 0.52),
        ChoiceAnalysis(CONTINUE, 4.2, 0.61),
    ]
    monkeypatch.setattr("marsdice.solve.policy.analyze", lambda state: rows)
    assert view.hint(state) == (
        "best: roll — expected points 4.20, chance to win 61.0% · "
        "stop: expected points 4.00, chance to win 52.0%"
    )
    assert view.hint(new_game()) is None, "nothing to decide at a roll"


def test_the_real_hint_names_the_best_move() -> None:
    state = position(Variant(), (0, 0), set_aside=(0, 0, 0, 0, 0), rolled=(4, 4, 3, 1, 1))
    line = view.hint(state)
    assert line is not None and line.startswith("best: rays — expected points ")
    assert "chance to win" in line
    solo = position(Variant(players=1), (0,), set_aside=(0, 0, 0, 0, 0), rolled=(4, 4, 3, 1, 1))
    solo_line = view.hint(solo)
    assert solo_line is not None and "expected turns to finish" in solo_line
