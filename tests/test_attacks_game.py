"""Mars Attacks as the layers above see it: records (card set pinned by a hash), player views
that hide the face-down cards, the redacted log, variant parameters, integer encodings."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import replace

import pytest

from marsdice.attacks import Draw, Phase, State, Variant, builtin_cards, new_game
from marsdice.attacks.game import GAME, LEGACY_BUILTIN_HASH, ROLL_OUTCOMES
from marsdice.core.errors import RecordError, VariantError
from marsdice.core.game import JSON, chance_agent, play_out
from marsdice.core.record import GameRecord


def random_game(variant: Variant, seed: int) -> tuple[State, list[State], list[str]]:
    game = play_out(
        GAME.start(variant, random.Random(seed)),
        [chance_agent(random.Random(seed + 1))] * variant.players,
        random.Random(seed),
    )
    states = [game.start]
    for action in game.actions:
        states.append(states[-1].apply(action))
    return game.start, states, list(game.moves)  # type: ignore[return-value]


def strings(value: JSON) -> list[str]:
    """Every string value in a JSON value (keys are the schema's names, never data)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    return []


def mentions(texts: list[str], name: str, slug: str) -> bool:
    pattern = re.compile(
        rf"(?<![a-z0-9_-])({re.escape(slug)}|{re.escape(name.lower())})(?![a-z0-9_-])"
    )
    return any(pattern.search(text.lower()) for text in texts)


# --- hidden information -----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_no_view_nor_redacted_log_shows_a_face_down_card_before_it_is_revealed(seed: int) -> None:
    """Over random games (Memphis reached in some), every seat's and a spectator's view, and
    the redacted log, mention only cards that have been face up (or are owned)."""
    variant = Variant(players=2 + seed % 5)
    _start, states, moves = random_game(variant, seed)
    seen: set[int] = set()
    log: dict[int | None, list[str]] = {}
    viewers: list[int | None] = [None, *range(variant.players)]
    for index, state in enumerate(states):
        seen |= {c for c in state.face_up if c is not None}
        seen |= {c for cards in state.owned for c in cards}
        hidden = [c for c in range(len(variant.cards)) if c not in seen]
        for viewer in viewers:
            view = GAME.observe(state, viewer)
            assert json.loads(json.dumps(view)) == view
            if index:
                log.setdefault(viewer, []).append(
                    GAME.redact(
                        states[index - 1], states[index - 1].parse_action(moves[index - 1]), viewer
                    )
                )
            texts = strings(view) + log.get(viewer, [])
            for card in hidden:
                c = variant.cards[card]
                assert not mentions(texts, c.name, c.slug), (c.name, viewer, index)
        board = GAME.observe(state, None)["board"]
        assert isinstance(board, dict) and board["box"] == len(state.box)
        assert [s["size"] for s in board["stacks"]] == [len(s) for s in state.stacks]  # type: ignore[index]


def test_a_memphis_draw_is_only_draw_in_a_redacted_log() -> None:
    state = new_game(Variant(players=2), [["memphis", "dallas"], ["miami"], ["phoenix"], []])
    state = state.apply(state.parse_action("@memphis"))
    state = state.apply(state.parse_action("HHHHHRRRRR"))
    placed = state.apply(state.parse_action("memphis:2"))
    assert placed.phase is Phase.MEMPHIS_DRAW
    draw = Draw("los-angeles")
    assert [GAME.redact(placed, draw, viewer) for viewer in (None, 0, 1)] == ["draw"] * 3
    after = placed.apply(draw)
    assert "los-angeles" not in json.dumps([GAME.observe(after, v) for v in (None, 0, 1)])
    assert next(e.to_json() for e in after.events) == {"type": "memphis-drawn", "stack": 2}
    opening = new_game(Variant(players=2), [["memphis", "dallas"], ["miami"], ["phoenix"], []])
    actions = []
    at = opening
    for move in ("@memphis", "HHHHHRRRRR", "memphis:2", "draw:los-angeles"):
        actions.append(at.parse_action(move))
        at = at.apply(actions[-1])
    assert at == after
    for viewer in (None, 0, 1):
        log = GAME.redacted_log(opening, actions, viewer)
        assert log == ["@memphis", "HHHHHRRRRR", "memphis:2", "draw"]


def test_views_list_legal_moves_only_for_the_seat_to_act() -> None:
    start = GAME.start(Variant(players=3), random.Random(2))
    assert GAME.observe(start, 0)["legal_actions"] == [a.text() for a in start.legal_actions()]
    assert GAME.observe(start, 1)["legal_actions"] == []
    assert GAME.observe(start, None)["legal_actions"] == []
    view = GAME.observe(start, 1)
    for key in ("game", "viewer", "players", "phase", "current_player", "scores", "turns"):
        assert key in view
    assert view["rounds"] == 1 and view["winners"] == [] and view["game"] == "attacks"


@pytest.mark.parametrize("seed", range(6))
def test_the_full_state_is_rebuilt_from_the_setup_tags_and_the_log(seed: int) -> None:
    variant = Variant(players=2 + seed % 4, reroll="subset" if seed % 2 else "all")  # type: ignore[arg-type]
    start, states, moves = random_game(variant, seed)
    names = [f"P{i}" for i in range(variant.players)]
    record = GameRecord(GAME.name, tuple(names), GAME.setup_tags(start), tuple(moves))
    assert GAME.opening(GameRecord.loads(record.dumps())) == start
    assert GAME.replay(record) == states
    text = GAME.dumps(GAME.make_record(names, start, moves))
    assert GAME.replay(GameRecord.loads(text))[-1] == states[-1]


# --- records pin their cards ------------------------------------------------------------------


def _record(cards_tag: str) -> GameRecord:
    start, _, moves = random_game(Variant(players=2), 1)
    tags = tuple((k, cards_tag if k == "Cards" else v) for k, v in GAME.setup_tags(start))
    return GameRecord("attacks", ("A", "B"), tags, tuple(moves))


def test_a_record_pins_the_builtin_set_by_its_hash() -> None:
    start = GAME.start(Variant(players=2), random.Random(1))
    assert dict(GAME.setup_tags(start))["Cards"] == "builtin:" + LEGACY_BUILTIN_HASH
    with pytest.raises(RecordError, match=r"built-in card set of hash 0123456789ab, this version"):
        GAME.replay(_record("builtin:0123456789ab"))
    # plain "builtin" (records before the hash) meant the set of that time: today's
    assert GAME.replay(_record("builtin"))[-1].is_terminal


def test_old_records_replay_under_the_seattle_and_denver_rules_of_their_time() -> None:
    start, _, _moves = random_game(Variant(players=2), 3)
    tags = tuple((k, v) for k, v in GAME.setup_tags(start) if k not in ("Seattle", "Denver"))
    opening = GAME.opening(GameRecord("attacks", ("A", "B"), tags, ()))
    assert (opening.variant.seattle.value, opening.variant.denver.value) == (
        "after-target",
        "target",
    )


def test_a_users_card_set_is_written_card_by_card() -> None:
    cards = tuple(replace(c, placeholder=()) for c in builtin_cards() if c.name != "Chicago")
    start, states, moves = random_game(Variant(players=3, cards=cards), 7)
    record = GAME.make_record(["A", "B", "C"], start, moves)
    assert record.tag("Cards") == "28" and (record.tag("Card1") or "").startswith("Seattle|city")
    assert GAME.replay(GameRecord.loads(record.dumps()))[-1] == states[-1]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("Stack1", "miami,gotham"), "bad deal in record: stack 1: no card called 'gotham'"),
        (("Difficulty", "brutal"), "bad variant in record: difficulty must be one of"),
        (("Denver", "sometimes"), "bad variant in record: denver must be one of"),
        (("EndStacks", "two"), "tag EndStacks must be a whole number"),
        (("Cards", "2"), r"\[Cards '2'\] but no \[Card1"),
    ],
)
def test_bad_records_are_refused_with_a_clear_message(
    change: tuple[str, str], message: str
) -> None:
    record = _record("builtin")
    tags = tuple((k, change[1] if k == change[0] else v) for k, v in record.tags)
    with pytest.raises(RecordError, match=message):
        GAME.replay(GameRecord(record.game, record.players, tags, record.moves))


def test_a_move_that_does_not_replay_is_named() -> None:
    record = _record("builtin")
    broken = record.with_moves([*record.moves[:1], "stop", *record.moves[2:]])
    with pytest.raises(RecordError, match=r"move 2 \('stop'\)"):
        GAME.replay(broken)
    with pytest.raises(RecordError, match="no \\[Stack2"):
        GAME.replay(GameRecord("attacks", ("A", "B"), (("Stack1", "miami"),), ()))


def test_commentary_and_result_say_how_the_game_went() -> None:
    start, _states, moves = random_game(Variant(players=2), 3)
    record = GAME.make_record(["Ann", "You"], start, moves)
    result = record.tag("Result") or ""
    assert result.startswith("Ann ") and ("Ann wins" in result or "You win" in result)
    text = GAME.dumps(record)
    assert any(w in text for w in ("captures", "is bombed", "stops on", "You capture", "You stop"))
    assert "You captures" not in text and "You stops" not in text and "You is" not in text


# --- settings ---------------------------------------------------------------------------------


def test_variant_params_round_trip() -> None:
    cards = tuple(replace(c, placeholder=()) for c in builtin_cards()[:20])
    for variant in (
        Variant(players=2),
        Variant(
            players=5,
            difficulty="hard",
            bombed="whole-turn",
            reroll="subset",
            end_stacks=1,
            seattle="after-target",
            denver="target",
        ),  # type: ignore[arg-type]
        Variant(players=4, cards=cards),
    ):
        params = GAME.variant_to_params(variant)
        assert json.loads(json.dumps(params)) == params
        assert GAME.variant_from_params(params) == variant
    assert GAME.variant_from_params({}) == GAME.default_variant(3)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"players": 7}, "players"),
        ({"players": True}, "players"),
        ({"players": "3"}, "players"),
        ({"end_stacks": 0}, "end_stacks"),
        ({"difficulty": "brutal"}, "difficulty"),
        ({"bombed": 1}, "bombed"),
        ({"reroll": None}, "reroll"),
        ({"seattle": "never"}, "seattle"),
        ({"denver": "twice"}, "denver"),
        ({"cards": "mine"}, "cards"),
        ({"cards": [{"name": "X"}]}, "cards"),
        ({"players": 6, "cards": [c.to_dict() for c in builtin_cards()[:20]]}, "cards"),
        ({"speed": 3}, "speed"),
    ],
)
def test_bad_params_name_the_field_first(params: dict[str, JSON], field: str) -> None:
    with pytest.raises(VariantError) as error:
        GAME.variant_from_params(params)
    assert str(error.value).startswith(field), str(error.value)


# --- encodings --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_encodings_round_trip_over_random_games(seed: int) -> None:
    variant = Variant(players=2 + seed % 5, reroll="subset" if seed % 2 else "all")  # type: ignore[arg-type]
    _, states, moves = random_game(variant, seed)
    size = GAME.num_actions(variant)
    chance_size = GAME.num_chance_outcomes(variant)
    assert chance_size == ROLL_OUTCOMES + len(variant.cards) == 285 + 29
    for state, move in zip(states, moves, strict=False):
        action = state.parse_action(move)
        if state.is_chance_node:
            codes = [GAME.encode_chance(state, a) for a, _ in state.chance_outcomes()]
            assert len(set(codes)) == len(codes) and all(0 <= c < chance_size for c in codes)
            assert GAME.decode_chance(state, GAME.encode_chance(state, action)) == action
            assert all(
                GAME.decode_chance(state, c) == a
                for c, (a, _) in zip(codes, state.chance_outcomes(), strict=True)
            )
        else:
            mask = GAME.legal_mask(state)
            legal = {GAME.encode_action(state, a) for a in state.legal_actions()}
            assert {i for i, on in enumerate(mask) if on} == legal and len(mask) == size
            assert len(legal) == len(state.legal_actions())
            assert GAME.decode_action(state, GAME.encode_action(state, action)) == action


def test_every_action_index_decodes_and_encodes_back() -> None:
    state = GAME.start(Variant(players=2), random.Random(0))
    for index in range(GAME.num_actions(state.variant)):
        assert GAME.encode_action(state, GAME.decode_action(state, index)) == index
    for index in range(GAME.num_chance_outcomes(state.variant)):
        assert GAME.encode_chance(state, GAME.decode_chance(state, index)) == index
    for bad in (-1, GAME.num_actions(state.variant)):
        with pytest.raises(ValueError, match="out of range"):
            GAME.decode_action(state, bad)


# --- chance -----------------------------------------------------------------------------------


def test_memphis_draws_are_uniform_over_the_box() -> None:
    """A chi-square test of sampled draws against the exact (uniform) chance outcomes: a
    sampler that always takes the first card, or favours some, fails it. 16 cards, 4,800
    draws; the 0.1% critical value for 15 degrees of freedom is 37.70."""
    cards = builtin_cards()[:20]
    state = new_game(
        Variant(players=2, cards=cards), [["memphis", "dallas"], ["phoenix"], ["san-jose"], []]
    )
    for move in ("@memphis", "RRRRRRRRRR", "memphis:1"):
        state = state.apply(state.parse_action(move))
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 16 and sum(outcomes.values()) == 1
    rng = random.Random(2024)
    n = 4800
    counts = Counter(state.sample_chance(rng) for _ in range(n))
    assert set(counts) <= set(outcomes)
    chi2 = sum((counts[a] - n * float(p)) ** 2 / (n * float(p)) for a, p in outcomes.items())
    assert chi2 < 37.70, chi2
