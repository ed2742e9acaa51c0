"""The game review (marsdice.review, marsdice review): losses, marks, accuracy, luck, JSON.

Small variants keep the solves to a fraction of a second: two players to 12 points with 7
dice, three to 8 with 5 (the exact 3-player tables), four to 8 with 5 (the approximation).
The known blunder is found and measured by an independent solver written here: plain value
iteration over the engine's own states, with no use of marsdice.solve.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from marsdice.attacks.phases import Phase as AttacksPhase
from marsdice.bots import make_bot
from marsdice.cli import main as cli_main
from marsdice.cli import review as cli_review
from marsdice.core import play_out
from marsdice.core.errors import RecordError
from marsdice.core.game import JSON, Action, Game, GameState
from marsdice.games import get_game
from marsdice.martian import Face, Roll, State, Take, Variant, new_game
from marsdice.review import (
    SCHEMA_ID,
    WIN_PROBABILITY,
    Review,
    load_schema,
    move_accuracy,
    review_game,
    review_record,
)
from marsdice.review.martian import MartianValuator

MARTIAN = get_game("martian")
ATTACKS = get_game("attacks")


def played(
    game: Game, params: Mapping[str, JSON], bots: list[str], seed: int
) -> tuple[GameState, tuple[Action, ...]]:
    """A seeded game between the named bots: its opening and every action."""
    variant = game.variant_from_params(params)
    rng = random.Random(seed)
    start = game.start(variant, rng)
    agents = [make_bot(game, name, seed=i).choose for i, name in enumerate(bots)]
    return start, play_out(start, agents, rng).actions


def record_text(game: Game, start: GameState, actions: tuple[Action, ...], names: list[str]) -> str:
    return game.dumps(game.make_record(names, start, [a.text() for a in actions]))


def validate(data: object) -> None:
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)


def telescoped(review: Review, seat: int) -> float:
    """The seat's value at the start, moved by every decision and roll since (two players:
    the opponent's losses and luck move it the other way)."""
    start = next(step.before for step in review.luck if step.seat == 0)
    own = {s.seat: s for s in review.summaries}
    value = start if seat == 0 else 1.0 - start
    for other, summary in own.items():
        sign = 1.0 if other == seat else -1.0
        value += sign * (summary.luck - summary.total_loss)
    return value


# --- Martian Dice, two players ----------------------------------------------------------------


def test_winprob_against_itself_loses_nothing() -> None:
    start, actions = played(MARTIAN, {"players": 2, "target": 12, "dice": 7}, ["winprob"] * 2, 11)
    review = review_game(MARTIAN, start, actions, ["Ann", "Bob"])
    assert review.method == "exact-2p"
    assert not review.estimate
    assert review.finished
    assert len(review.decisions) > 20
    for decision in review.decisions:
        assert decision.loss == 0.0, decision
        assert decision.mark in ("best", "forced")
        assert decision.best == decision.played
    for summary in review.summaries:
        assert summary.total_loss == 0.0
        assert summary.accuracy == 100.0
        assert summary.blunders == summary.mistakes == summary.inaccuracies == 0


def test_weaker_play_loses_and_every_figure_adds_up() -> None:
    """Each seat's result is its opening value plus its luck less its losses, less the
    opponent's luck plus the opponent's losses: values chain exactly from move to move."""
    start, actions = played(
        MARTIAN, {"players": 2, "target": 12, "dice": 7}, ["cautious", "winprob"], 5
    )
    review = review_game(MARTIAN, start, actions)
    final = start
    for action in actions:
        final = final.apply(action)
    assert review.summaries[0].total_loss > 0.05
    assert review.summaries[0].accuracy is not None and review.summaries[0].accuracy < 100.0
    assert review.summaries[1].total_loss == 0.0
    for seat in (0, 1):
        assert telescoped(review, seat) == pytest.approx(final.returns()[seat], abs=1e-9)
    for decision in review.decisions:
        assert decision.loss is not None
        expected = (
            move_accuracy(decision.loss, WIN_PROBABILITY) if decision.mark != "forced" else None
        )
        assert decision.accuracy == expected
        assert decision.mark == (
            "forced" if len(decision.choices) == 1 else WIN_PROBABILITY.mark(decision.loss)
        )


def after(valuator: MartianValuator, state: GameState, outcome: Action) -> float:
    found = valuator.chance(state, outcome)
    assert found is not None
    return found[2]


def test_luck_is_zero_on_average_at_every_roll() -> None:
    """Before a roll is the probability-weighted mean of after it, over every outcome."""
    start, actions = played(MARTIAN, {"players": 2, "target": 12, "dice": 7}, ["cautious"] * 2, 3)
    valuator = MartianValuator(Variant(players=2, target=12, dice=7))
    state = start
    checked = 0
    for action in actions[:40]:
        if state.is_chance_node:
            found = valuator.chance(state, action)
            assert found is not None
            mean = sum(float(p) * after(valuator, state, o) for o, p in state.chance_outcomes())
            assert mean == pytest.approx(found[1], abs=1e-12)
            checked += 1
        state = state.apply(action)
    assert checked >= 10


def test_roll_off_luck_is_the_chance_to_win_the_roll_off() -> None:
    """A tie at the target: the first roller has exactly 1/2 before rolling; after both
    rolls the second roller's value is 1, 1/2 (tied again) or 0."""
    state = new_game(Variant(players=2, target=1, dice=3, rolloff_dice=2))
    moves: list[str] = []
    for _ in range(2):
        for move in ("HRR", "humans", "stop"):
            moves.append(move)
            state = state.apply(state.parse_action(move))
    assert state.is_chance_node and state.rolloff_seats == (0, 1)
    moves += ["RH", "TT"]
    review = review_game(MARTIAN, new_game(state.variant), moves)
    first, second = review.luck[-2:]
    assert (first.seat, second.seat) == (0, 1)
    # P(rays) = 1/3 per die: Binomial(2, 1/3) for each roller
    assert first.before == pytest.approx(0.5, abs=1e-12)
    p = [4 / 9, 4 / 9, 1 / 9]  # 0, 1, 2 rays
    assert first.after == pytest.approx(p[0] + p[1] / 2, abs=1e-12)  # one ray
    assert second.before == pytest.approx(p[2] + p[1] / 2, abs=1e-12)
    assert second.after == 0.0
    assert review.finished and review.result.endswith("Player1 wins")


# --- the known blunder, measured independently ------------------------------------------------


def _canonical(state: State) -> State:
    """The state without history: turns, events and past results do not change the rules."""
    zeros = (0,) * state.players
    return replace(state, turns=zeros, events=(), last_turn=None, rolloff_history=())


def independent_values(variant: Variant) -> dict[State, float]:
    """P(seat 1 wins) from every reachable state, by Gauss-Seidel value iteration over the
    engine's states (seat 1 maximises it, seat 2 minimises it; a roll is its mean)."""
    start = _canonical(new_game(variant))
    edges: dict[State, tuple[str, list[tuple[float, State]]]] = {}
    todo = [start]
    while todo:
        state = todo.pop()
        if state in edges:
            continue
        if state.is_terminal:
            edges[state] = ("end", [])
            continue
        if state.is_chance_node:
            kind = "mean"
            pairs = [(float(p), _canonical(state.apply(o))) for o, p in state.chance_outcomes()]
        else:
            kind = "max" if state.current_player == 0 else "min"
            pairs = [(1.0, _canonical(state.apply(a))) for a in state.legal_actions()]
        edges[state] = (kind, pairs)
        todo.extend(after for _, after in pairs if after not in edges)
    value = {s: (s.returns()[0] if s.is_terminal else 0.5) for s in edges}
    for _ in range(2000):
        change = 0.0
        for state, (kind, pairs) in edges.items():
            if kind == "end":
                continue
            if kind == "mean":
                new = sum(p * value[after] for p, after in pairs)
            elif kind == "max":
                new = max(value[after] for _, after in pairs)
            else:
                new = min(value[after] for _, after in pairs)
            change = max(change, abs(new - value[state]))
            value[state] = new
        if change < 1e-14:
            break
    return value


def test_a_known_blunder_is_marked_with_its_exact_loss() -> None:
    """Both players follow the independent solver's best move, except once: the first
    decision where another move loses at least 10 points of win probability is played
    wrong. The review marks that decision, and only it, a blunder, with the same loss."""
    variant = Variant(players=2, target=4, dice=3, rolloff_dice=2)
    value = independent_values(variant)

    def worth(state: State, seat: int) -> float:
        v = value[_canonical(state)]
        return v if seat == 0 else 1.0 - v

    rng = random.Random(2)
    state = new_game(variant)
    moves: list[str] = []
    blunder: tuple[int, float] | None = None
    while not state.is_terminal:
        if state.is_chance_node:
            action: object = state.sample_chance(rng)
        else:
            seat = state.current_player
            options = sorted(state.legal_actions(), key=lambda a: -worth(state.apply(a), seat))
            action = options[0]
            loss = worth(state.apply(options[0]), seat) - worth(state.apply(options[-1]), seat)
            if blunder is None and loss >= 0.10:
                action = options[-1]
                blunder = (len(moves) + 1, loss)
        moves.append(action.text())  # type: ignore[attr-defined]
        state = state.apply(action)  # type: ignore[arg-type]
    assert blunder is not None, "the seeded game offers no blunder: change the seed"
    index, loss = blunder
    text = MARTIAN.dumps(MARTIAN.make_record(["Ann", "Bob"], new_game(variant), moves))
    review = review_record(text)
    marked = [d for d in review.decisions if d.mark == "blunder"]
    assert [d.index for d in marked] == [index]
    assert marked[0].loss == pytest.approx(loss, abs=1e-9)
    assert marked[0].best != marked[0].played
    others = [d for d in review.decisions if d.index != index]
    assert all(d.mark in ("best", "forced") for d in others)
    seat = marked[0].seat
    assert review.summaries[seat].blunders == 1
    assert review.summaries[1 - seat].blunders == 0


# --- other player counts and the solo challenge -----------------------------------------------


def test_solo_review_counts_expected_turns() -> None:
    start, actions = played(MARTIAN, {"players": 1, "target": 10, "dice": 7}, ["expected"], 4)
    review = review_game(MARTIAN, start, actions)
    assert review.method == "solo-expected-turns"
    assert review.unit == "expected turns" and not review.higher_is_better
    final = start
    for action in actions:
        final = final.apply(action)
    # turns taken = expected turns at the start + turns lost to decisions - turns saved by luck
    summary = review.summaries[0]
    opening = review.luck[0].before
    assert final.turns[0] == pytest.approx(opening + summary.total_loss - summary.luck, abs=1e-9)
    for decision in review.decisions:
        values = [c.value for c in decision.choices if c.value is not None]
        assert decision.best_value == min(values)
    start, actions = played(MARTIAN, {"players": 1, "target": 10, "dice": 7}, ["winprob"], 4)
    assert all(d.loss == 0.0 for d in review_game(MARTIAN, start, actions).decisions)


@pytest.mark.parametrize(
    ("players", "method"), [(3, "exact-3p"), (4, "exact-4p"), (5, "approximation")]
)
def test_more_players_say_their_method(players: int, method: str) -> None:
    params = {"players": players, "target": 8, "dice": 5}
    start, actions = played(MARTIAN, params, ["winprob"] * players, 6)
    review = review_game(MARTIAN, start, actions)
    assert review.method == method
    assert all(d.loss == 0.0 for d in review.decisions)
    assert {d.seat for d in review.decisions} == set(range(players))
    start, actions = played(MARTIAN, params, ["cautious"] * players, 6)
    lossy = review_game(MARTIAN, start, actions)
    assert sum(s.total_loss for s in lossy.summaries) > 0
    validate(json.loads(json.dumps(lossy.to_json())))


# --- Mars Attacks: the planner's estimates ----------------------------------------------------


def test_mars_attacks_review_gives_the_planners_estimates() -> None:
    from marsdice.attacks.solver import solver_for
    from marsdice.bots.attacks_planner import Values
    from marsdice.review.attacks import AttacksValuator

    start, actions = played(ATTACKS, {"players": 3}, ["heuristic", "planner", "random"], 1)
    review = review_game(ATTACKS, start, actions)
    assert review.method == "planner-estimate"
    assert review.estimate and "estimate" in review.unit
    planner = [d for d in review.decisions if d.seat == 1]
    assert planner and all(d.mark in ("best", "forced", "unrated") for d in planner)
    assert review.summaries[0].total_loss > 0 or review.summaries[2].total_loss > 0
    # at every reroll point the best listed value is the planner's own decision value
    state = start
    checked = 0
    for action in actions:
        if state.current_player >= 0 and state.phase is AttacksPhase.DECIDE:  # type: ignore[attr-defined]
            values = Values(state)  # type: ignore[arg-type]
            solver = solver_for(values.problem)
            goal = values.goals_index[state.target]  # type: ignore[attr-defined]
            best = solver.decide_value(state.dice, goal, values.fallback(), values.toronto)  # type: ignore[attr-defined]
            listed = [v for _, v in AttacksValuator().values(state) if v is not None]
            assert max(listed) == pytest.approx(best.value, abs=1e-9)
            checked += 1
        state = state.apply(action)
    assert checked > 0
    validate(json.loads(json.dumps(review.to_json())))


# --- the command ------------------------------------------------------------------------------


def error_lines(err: str) -> list[str]:
    """Stderr's lines with text (a progress bar, shown while a slow solve runs, leaves an
    empty line behind when stderr is not a terminal)."""
    return [line for line in err.splitlines() if line.strip()]


def command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="marsdice review")
    cli_review.add_arguments(parser)
    return cli_review.run(parser.parse_args(argv))


@pytest.fixture
def two_player_record(tmp_path: Path) -> Path:
    start, actions = played(
        MARTIAN, {"players": 2, "target": 12, "dice": 7}, ["cautious", "winprob"], 5
    )
    path = tmp_path / "game.mdr"
    path.write_text(record_text(MARTIAN, start, actions, ["Ann", "Bob"]), encoding="utf-8")
    return path


def test_command_prints_a_table_per_player(
    two_player_record: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert command([str(two_player_record)]) == 0
    out = capsys.readouterr().out
    assert "Method exact-2p" in out
    assert "Ann: decisions that lost something" in out
    assert "Bob: no decision lost anything" in out
    assert "Summary" in out and "100.0%" in out


def test_command_json_validates_against_the_shipped_schema(
    two_player_record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "review.json"
    assert command([str(two_player_record), "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    validate(data)
    assert data["method"] == "exact-2p" and data["players"] == ["Ann", "Bob"]
    capsys.readouterr()
    assert command([str(two_player_record), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == data
    # the schema does check: a wrong mark is refused
    data["decisions"][0]["mark"] = "brilliant"
    with pytest.raises(jsonschema.ValidationError):
        validate(data)


def test_command_json_for_mars_attacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start, actions = played(ATTACKS, {"players": 2}, ["heuristic", "planner"], 2)
    path = tmp_path / "attacks.mdr"
    path.write_text(record_text(ATTACKS, start, actions, ["Ann", "Bob"]), encoding="utf-8")
    assert command([str(path)]) == 0
    assert "ESTIMATES" in capsys.readouterr().out
    assert command([str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    validate(data)
    assert data["method"] == "planner-estimate" and data["estimate"] is True


def test_schema_is_package_data() -> None:
    from importlib import resources

    assert resources.files("marsdice.review").joinpath("review.schema.json").is_file()
    assert load_schema()["$id"] == SCHEMA_ID


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[Game "martian"]\n[Player1 "A"]\n[Player2 "B"]\n[Target "5"]\n[Dice "3"]\n\n'
            "TTT humans",
            "move 2 ('humans')",
        ),
        ('[Game "chess"]\n[Player1 "A"]\n\ne4', "unknown game 'chess'"),
        ("not a record at all", "cannot review"),
    ],
)
def test_bad_record_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    text: str,
    message: str,
) -> None:
    path = tmp_path / "bad.mdr"
    path.write_text(text, encoding="utf-8")
    assert cli_main.main(["review", str(path)]) == 2
    lines = error_lines(capsys.readouterr().err)
    assert len(lines) == 1
    assert lines[0].startswith("marsdice: error: cannot review") and message in lines[0]


def test_missing_file_and_taken_output_are_refused_before_work(
    two_player_record: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli_main.main(["review", str(tmp_path / "missing.mdr")]) == 2
    lines = error_lines(capsys.readouterr().err)
    assert len(lines) == 1 and "No such file" in lines[0]
    taken = tmp_path / "taken.json"
    taken.write_text("keep", encoding="utf-8")
    assert cli_main.main(["review", str(two_player_record), "--json", str(taken)]) == 2
    lines = error_lines(capsys.readouterr().err)
    assert len(lines) == 1 and "already exists" in lines[0]
    assert taken.read_text(encoding="utf-8") == "keep"


def test_review_record_names_a_bad_move() -> None:
    with pytest.raises(RecordError, match="move 1"):
        review_record('[Game "martian"]\n[Player1 "A"]\n[Player2 "B"]\n\nhumans')


def test_building_the_review_command_loads_no_solver() -> None:
    code = (
        "import sys, argparse; import marsdice.review; from marsdice.cli import review; "
        "review.add_arguments(argparse.ArgumentParser()); "
        "print(sorted(m for m in ('numpy', 'marsdice.solve', 'marsdice.attacks.solver') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_scripted_choice_values_match_the_analysis() -> None:
    """The review's values are analyze's: one decision checked by hand."""
    from marsdice.solve.policy import analyze

    state = new_game(Variant(players=2, target=12, dice=7)).apply(Roll.parse("TRRHHCK"))
    review = review_game(MARTIAN, new_game(state.variant), ["TRRHHCK", "humans"])
    decision = review.decisions[0]
    rows: dict[str, float] = {}
    for row in analyze(state):
        assert row.win_probability is not None
        rows[row.action.text()] = row.win_probability
    assert {c.move: c.value for c in decision.choices} == rows
    assert decision.played == Take(Face.HUMAN).text()
    best = max(rows.values())
    assert decision.loss == (
        0.0 if rows["humans"] >= best - 1e-9 else pytest.approx(best - rows["humans"])
    )


def test_a_move_built_another_way_is_the_same_move() -> None:
    """Rerolling every head, written with its count, is the engine's one reroll move: the
    review reads moves back in context and marks it exactly as the canonical form."""
    from marsdice.attacks.actions import Reroll

    start, actions = played(ATTACKS, {"players": 2}, ["planner", "planner"], 3)
    state = start
    rewritten: list[Action] = []
    changed = 0
    for action in actions:
        if isinstance(action, Reroll) and action.count is None:
            rewritten.append(Reroll(state.heads, action.switch))  # type: ignore[attr-defined]
            changed += 1
        else:
            rewritten.append(action)
        state = state.apply(action)
    assert changed > 0
    assert review_game(ATTACKS, start, rewritten) == review_game(ATTACKS, start, actions)


def test_the_review_gives_the_final_scores_and_winners_for_pages_to_word() -> None:
    """Pages word the result in their language and names from ``scores`` and ``winners``
    (the record's result line names bots by their notation)."""
    start, actions = played(MARTIAN, {"players": 2, "target": 8}, ["winprob", "cautious"], 4)
    review = review_game(MARTIAN, start, actions, ["winprob", "cautious"])
    data = review.to_json()
    validate(data)
    final = start
    for action in actions:
        final = final.apply(action)
    assert data["scores"] == list(final.scores) and data["winners"] == list(final.winners)
    assert data["winners"] and max(data["scores"]) >= 8
    unfinished = review_game(MARTIAN, start, actions[:5]).to_json()
    validate(unfinished)
    assert unfinished["winners"] == [] and unfinished["finished"] is False
