"""Provably fair dice and deals (``marsdice.fair``, ``marsdice verify``): the derivation is
deterministic, exactly uniform, resumable and closed to every other use of the generator; the
worked example and the reference checker in ``docs/fairness.md`` agree with the code; fair games
of both games verify; an altered roll, an altered deal, a wrong commitment are caught and named;
a record that cannot be checked says so."""

from __future__ import annotations

import copy
import hashlib
import itertools
import pickle
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import chisquare

import marsdice.fair as fair
from marsdice.attacks.state import State as AttacksState
from marsdice.bots.registry import make_bot
from marsdice.cli.main import main
from marsdice.core.game import Game, chance_agent, play_out
from marsdice.core.record import GameRecord
from marsdice.fair import (
    FAIR_MESSAGE,
    FORBIDDEN,
    FairnessError,
    FairRandom,
    Verdict,
    commitment,
    fair_tags,
    new_server_seed,
    normalise_player_seed,
    parse_player_seeds,
    verify_record,
)
from marsdice.games import get_game, read_record

DOC = Path(__file__).resolve().parent.parent / "docs" / "fairness.md"
EXAMPLE_SEED = bytes(range(32))
EXAMPLE_PLAYERS = ("alice", "bob")
BOTS = {"martian": ("cautious", "random"), "attacks": ("heuristic", "random")}


def draws(rng: FairRandom, count: int, n: int = 6) -> list[int]:
    return [rng.randrange(n) for _ in range(count)]


def fair_game(
    name: str,
    *,
    server_seed: bytes | None = None,
    player_seeds: Sequence[str] = ("alice",),
    reveal: bool = True,
    bot_seed: int = 1,
) -> tuple[Game, GameRecord]:
    """A whole game of bots played with a FairRandom, recorded with the fairness tags (the
    server seed fixed per game unless given, so that every test's game is the same each run)."""
    game = get_game(name)
    seed = fixed_seed(name) if server_seed is None else server_seed
    rng = FairRandom(seed, player_seeds)
    start = game.start(game.default_variant(2), rng)
    bots = [make_bot(game, bot, seed=bot_seed + seat) for seat, bot in enumerate(BOTS[name])]
    played = play_out(start, [bot.choose for bot in bots], rng)
    assert played.final.is_terminal
    tags = fair_tags(seed, player_seeds, reveal=reveal)
    return game, game.make_record(["Ann", "Bob"], start, played.moves, tags)


def fixed_seed(label: str) -> bytes:
    """A fixed server seed for the tests (a fresh one could repeat a roll by chance)."""
    return hashlib.sha256(f"marsdice tests: {label}".encode()).digest()


def with_tag(record: GameRecord, key: str, value: str) -> GameRecord:
    tags = tuple((k, value if k == key else v) for k, v in record.tags)
    assert tags != record.tags, f"{key} not changed"
    return GameRecord(record.game, record.players, tags, record.moves)


def chance_moves(game: Game, record: GameRecord) -> list[int]:
    """The move numbers (1 = first) of the record's chance moves."""
    states = game.replay(record)
    return [i for i, state in enumerate(states[:-1], start=1) if state.is_chance_node]


def alter_roll(game: Game, record: GameRecord, number: int) -> GameRecord:
    """The record with chance move ``number`` replaced by another outcome legal there."""
    state = game.replay(record)[number - 1]
    assert state.is_chance_node
    moves = list(record.moves)
    other = next(a.text() for a, _ in state.chance_outcomes() if a.text() != moves[number - 1])
    moves[number - 1] = other
    return record.with_moves(moves)


# --- seeds and commitments --------------------------------------------------------------------


def test_server_seeds_are_32_fresh_bytes_and_the_commitment_is_their_sha256() -> None:
    seeds = {new_server_seed() for _ in range(50)}
    assert len(seeds) == 50
    assert all(isinstance(seed, bytes) and len(seed) == 32 for seed in seeds)
    assert commitment(bytes(32)) == (
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"  # sha256 of 32 zeros
    )
    with pytest.raises(FairnessError, match="32 bytes, got 31 bytes"):
        commitment(bytes(31))
    with pytest.raises(FairnessError, match="32 bytes"):
        FairRandom(b"short")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("alice", "alice"), ("  lucky 7\n", "lucky 7"), ("x" * 64, "x" * 64), ('a,"b"\\', 'a,"b"\\')],
)
def test_player_seeds_are_normalised(text: str, expected: str) -> None:
    assert normalise_player_seed(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "1 to 64 characters, got none"),
        ("   ", "got none"),
        ("x" * 65, "at most 64 characters, got 65"),
        ("café", "printable ASCII only"),
        ("tab\there", "printable ASCII only"),
        ("nul\x00", "printable ASCII only"),
    ],
)
def test_bad_player_seeds_are_refused_with_a_clear_message(text: str, message: str) -> None:
    with pytest.raises(FairnessError, match=message):
        normalise_player_seed(text)


def test_fair_random_takes_only_normalised_player_seeds() -> None:
    with pytest.raises(FairnessError, match="player seed 2"):
        FairRandom(EXAMPLE_SEED, ["alice", " bob "])
    with pytest.raises(FairnessError, match="not one string"):
        FairRandom(EXAMPLE_SEED, "alice")
    with pytest.raises(FairnessError, match="counter"):
        FairRandom(EXAMPLE_SEED, [], counter=-1)


def test_fairness_error_is_a_marsdice_error() -> None:
    from marsdice.core.errors import MarsDiceError

    assert issubclass(FairnessError, MarsDiceError)


# --- the derivation ---------------------------------------------------------------------------


def test_the_same_inputs_give_the_same_values_and_any_change_gives_others() -> None:
    first = draws(FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS), 200)
    assert first == draws(FairRandom(EXAMPLE_SEED, list(EXAMPLE_PLAYERS)), 200)
    others = [
        FairRandom(bytes(32), EXAMPLE_PLAYERS),  # another server seed
        FairRandom(EXAMPLE_SEED, ("bob", "alice")),  # the order of the player seeds counts
        FairRandom(EXAMPLE_SEED, ("alice",)),
        FairRandom(EXAMPLE_SEED, ()),
        FairRandom(EXAMPLE_SEED, ("alicebob",)),  # seeds are length-prefixed, not joined
        FairRandom(EXAMPLE_SEED, ("alice", "bob"), counter=1),
    ]
    for rng in others:
        assert draws(rng, 200) != first


def test_each_draw_uses_one_counter_and_a_shuffle_one_per_item_but_the_first() -> None:
    rng = FairRandom(EXAMPLE_SEED)
    assert rng.counter == 0
    rng.randrange(6)
    rng.randrange(1)
    assert rng.counter == 2
    items = list(range(40))
    rng.shuffle(items)
    assert rng.counter == 2 + 39
    assert sorted(items) == list(range(40))
    rng.shuffle([])
    rng.shuffle(["one"])
    assert rng.counter == 41


def test_a_generator_resumes_exactly_from_its_counter() -> None:
    # a deal, then dice, then draws from a box of 13, as one operation list
    operations = [0, *[6] * 50, *[13] * 50]

    def run(rng: FairRandom, part: list[int]) -> list[object]:
        out: list[object] = []
        for n in part:
            if n == 0:
                cards = list(range(30))
                rng.shuffle(cards)
                out.append(cards)
            else:
                out.append(rng.randrange(n))
        return out

    whole = run(FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS), operations)
    for stop in (0, 1, 2, 30, 51, 77, len(operations)):
        first = FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS)
        before = run(first, operations[:stop])
        resumed = FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS, counter=first.counter)
        assert before + run(resumed, operations[stop:]) == whole
    assert FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS, counter=29).counter == 29


def test_copies_and_pickles_keep_the_seeds_and_the_counter_and_repr_hides_the_seed() -> None:
    rng = FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS, counter=7)
    for twin in (copy.copy(rng), copy.deepcopy(rng), pickle.loads(pickle.dumps(rng))):
        assert isinstance(twin, FairRandom)
        assert twin.counter == 7
        assert draws(twin, 20) == draws(FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS, counter=7), 20)
    assert rng.counter == 7
    assert EXAMPLE_SEED.hex() not in repr(rng)
    assert "counter=7" in repr(rng)


def test_the_rejection_rule_retries_the_same_counter_with_the_next_attempt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[int, int]] = []

    def block(seed: bytes, players: Sequence[str], counter: int, attempt: int) -> int:
        calls.append((counter, attempt))
        if attempt < 2:
            return 2**256 - 1  # at or above the largest multiple of 6: rejected
        return 6 * 1000 + 4

    monkeypatch.setattr(fair, "_block", block)
    rng = FairRandom(EXAMPLE_SEED, counter=5)
    assert rng.randrange(6) == 4
    assert calls == [(5, 0), (5, 1), (5, 2)]
    assert rng.counter == 6


def test_a_retry_hashes_the_message_with_the_next_attempt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import hashlib
    import hmac

    real = fair.block
    n = 2**32 - 1  # 2**256 % n == 1: the block 2**256 - 1 is rejected

    def block(seed: bytes, players: Sequence[str], counter: int, attempt: int) -> int:
        return 2**256 - 1 if attempt == 0 else real(seed, players, counter, attempt)

    monkeypatch.setattr(fair, "_block", block)
    head = b"marsdice/hmac-sha256-v1\x00" + (2).to_bytes(4, "big")
    head += (5).to_bytes(4, "big") + b"alice" + (3).to_bytes(4, "big") + b"bob"
    message = head + (9).to_bytes(8, "big") + (1).to_bytes(4, "big")
    digest = hmac.new(EXAMPLE_SEED, message, hashlib.sha256).digest()
    expected = int.from_bytes(digest, "big") % n
    assert FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS, counter=9).randrange(n) == expected


def test_the_largest_accepted_block_is_just_below_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limit = 2**256 - 2**256 % 7
    blocks = iter([limit, limit - 1])
    monkeypatch.setattr(fair, "_block", lambda *_: next(blocks))
    assert FairRandom(EXAMPLE_SEED).randrange(7) == (limit - 1) % 7


def test_values_are_uniform_for_6_and_7() -> None:
    rng = FairRandom(bytes([7] * 32), ["uniform"])
    for n in (6, 7):
        count = 3000 * n
        observed = Counter(rng.randrange(n) for _ in range(count))
        assert set(observed) == set(range(n))
        assert chisquare([observed[v] for v in range(n)]).pvalue > 0.001


def test_shuffles_of_four_items_give_all_24_orders_equally() -> None:
    rng = FairRandom(bytes([9] * 32), ["shuffle"])
    observed: Counter[tuple[int, ...]] = Counter()
    for _ in range(24 * 400):
        items = [0, 1, 2, 3]
        rng.shuffle(items)
        observed[tuple(items)] += 1
    orders = list(itertools.permutations(range(4)))
    assert set(observed) == set(orders)
    assert chisquare([observed[order] for order in orders]).pvalue > 0.001


def test_shuffle_is_fisher_yates_from_the_last_index_down() -> None:
    rng = FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS, counter=100)
    items = list("abcdefg")
    rng.shuffle(items)
    by_hand = list("abcdefg")
    check = FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS, counter=100)
    for i in range(6, 0, -1):
        j = check.randrange(i + 1)
        by_hand[i], by_hand[j] = by_hand[j], by_hand[i]
    assert items == by_hand


# --- nothing escapes the derivation -----------------------------------------------------------


def test_every_other_random_method_raises() -> None:
    rng = FairRandom(EXAMPLE_SEED)
    named = {
        "random",
        "getrandbits",
        "choice",
        "choices",
        "sample",
        "seed",
        "randint",
        "uniform",
        "gauss",
        "randbytes",
        "getstate",
        "setstate",
        "_randbelow",
    }
    assert named <= set(FORBIDDEN)
    public = {n for n in dir(random.Random) if not n.startswith("_") and n != "VERSION"}
    assert public - set(FORBIDDEN) == {"randrange", "shuffle"}
    for name in FORBIDDEN:
        method: Callable[..., Any] = getattr(rng, name)
        with pytest.raises(FairnessError, match=f"FairRandom.{name}.. is not available"):
            method(1)
        with pytest.raises(FairnessError):
            method()
    assert rng.counter == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda rng: rng.randrange(0), "from 1 to 2..32, got 0"),
        (lambda rng: rng.randrange(-3), "got -3"),
        (lambda rng: rng.randrange(2**32 + 1), "from 1 to 2..32"),
        (lambda rng: rng.randrange(6.0), "got 6.0"),
        (lambda rng: rng.randrange(True), "got True"),
        (lambda rng: rng.randrange(1, 7), "one argument"),
        (lambda rng: rng.randrange(0, 6, 2), "one argument"),
    ],
)
def test_randrange_takes_only_one_whole_number(
    call: Callable[[FairRandom], object], message: str
) -> None:
    rng = FairRandom(EXAMPLE_SEED)
    with pytest.raises(FairnessError, match=message):
        call(rng)
    assert rng.counter == 0


# --- the documentation ------------------------------------------------------------------------


def test_the_worked_example_in_the_docs_is_what_the_code_gives() -> None:
    import hashlib
    import hmac

    doc = " ".join(DOC.read_text().split())
    assert f"`{EXAMPLE_SEED.hex()}`" in doc
    assert f"`{commitment(EXAMPLE_SEED)}`" in doc
    message = fair.message(EXAMPLE_PLAYERS, 0, 0)
    assert len(message) == 56
    block = re.search(r"```\n(6d6172.*?)```", DOC.read_text(), flags=re.DOTALL)
    assert block is not None
    shown = "".join(line.split("   ")[0].replace(" ", "") for line in block[1].splitlines())
    assert shown == message.hex()
    digest = hmac.new(EXAMPLE_SEED, message, hashlib.sha256).hexdigest()
    assert f"`{digest}`" in doc
    value = int(digest, 16)
    assert f"`V = {value}`" in doc
    assert int("f" * 63 + "c", 16) == 2**256 - 2**256 % 6
    assert value % 6 == 5
    assert "`V mod 6 = 5`" in doc
    rng = FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS)
    assert f"give `{draws(rng, 10)}`" in doc
    items = list("ABCDE")
    rows = []
    for i in range(4, 0, -1):
        counter = rng.counter
        j = rng.randrange(i + 1)
        items[i], items[j] = items[j], items[i]
        rows.append(f"| {counter} | {i} | {i + 1} | {j} | {' '.join(items)} |")
    for row in rows:
        assert row in doc
    assert f"The result is `{' '.join(items)}`, and the next draw has counter {rng.counter}" in doc
    martian = get_game("martian")
    state = martian.start(martian.default_variant(2), FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS))
    first_roll = state.sample_chance(FairRandom(EXAMPLE_SEED, EXAMPLE_PLAYERS)).text()
    assert f"first move is `{first_roll}`" in doc


def test_the_reference_checker_in_the_docs_agrees_with_fair_random() -> None:
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    assert len(code) == 1
    namespace: dict[str, Any] = {}
    exec(code[0], namespace)
    fair_draw = namespace["fair_draw"]
    fair_shuffle = namespace["fair_shuffle"]
    for players in ([], ["alice"], ["alice", "bob", 'x,"y"']):
        rng = FairRandom(EXAMPLE_SEED, players)
        for counter in range(300):
            n = 1 + counter % 60
            assert fair_draw(EXAMPLE_SEED, players, counter, n) == rng.randrange(n)
        items = list(range(40))
        expected, after = fair_shuffle(EXAMPLE_SEED, players, rng.counter, items)
        rng.shuffle(items)
        assert (items, rng.counter) == (expected, after)


def test_the_docs_name_the_tags_and_exit_codes() -> None:
    doc = DOC.read_text()
    for key, _ in fair_tags(EXAMPLE_SEED, EXAMPLE_PLAYERS, reveal=True):
        assert f"[{key} " in doc
    assert '[PlayerSeeds "[\\"alice\\",\\"bob\\"]"]' in doc
    assert FAIR_MESSAGE in doc
    for code in ("| 0 |", "| 1 |", "| 2 |"):
        assert code in doc


# --- record tags ------------------------------------------------------------------------------


def test_fair_tags_reveal_the_seed_only_when_asked() -> None:
    hidden = dict(fair_tags(EXAMPLE_SEED, ["alice", "bob"], reveal=False))
    assert hidden == {
        "Fairness": "hmac-sha256-v1",
        "ServerCommitment": commitment(EXAMPLE_SEED),
        "PlayerSeeds": '["alice","bob"]',
    }
    shown = dict(fair_tags(EXAMPLE_SEED, ["alice", "bob"], reveal=True))
    assert shown == {**hidden, "ServerSeed": EXAMPLE_SEED.hex()}
    assert dict(fair_tags(EXAMPLE_SEED, [], reveal=False))["PlayerSeeds"] == "[]"


@pytest.mark.parametrize("seeds", [[], ["alice"], ['comma,and "quotes" \\ too', "b"]])
def test_player_seeds_survive_a_record_round_trip(seeds: list[str]) -> None:
    record = GameRecord("martian", ("A", "B"), fair_tags(EXAMPLE_SEED, seeds, reveal=True))
    back = GameRecord.loads(record.dumps())
    text = back.tag("PlayerSeeds")
    assert text is not None
    assert parse_player_seeds(text) == tuple(seeds)


@pytest.mark.parametrize("text", ["alice", '{"a": 1}', "[1]", '[" padded "]', '[""]'])
def test_bad_player_seeds_tags_are_refused(text: str) -> None:
    with pytest.raises(FairnessError):
        parse_player_seeds(text)


# --- whole games ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["martian", "attacks"])
def test_fair_games_of_both_games_verify(name: str) -> None:
    game, record = fair_game(name)
    verdict = verify_record(record)
    assert verdict == Verdict(True, verdict.message, None, checked=True)
    assert verdict.message.startswith("fair: every roll")
    if name == "attacks":
        assert verdict.message.startswith(FAIR_MESSAGE)
    _, back = read_record(game.dumps(record))
    assert verify_record(back) == verdict


def test_the_deal_is_drawn_first_and_each_die_is_one_draw() -> None:
    seed = new_server_seed()
    game = get_game("attacks")
    rng = FairRandom(seed, ["alice"])
    start = game.start(game.default_variant(3), rng)
    assert isinstance(start, AttacksState)
    assert rng.counter == len(start.variant.cards) - 1
    martian = get_game("martian")
    rng = FairRandom(seed)
    state = martian.start(martian.default_variant(2), rng)
    assert rng.counter == 0
    state.sample_chance(rng)
    assert rng.counter == 13


@pytest.mark.parametrize("name", ["martian", "attacks"])
def test_bots_with_a_fair_generator_play_both_games_to_the_end(name: str) -> None:
    game = get_game(name)
    rng = FairRandom(new_server_seed(), ["alice", "bob", "carol"])
    start = game.start(game.default_variant(3), rng)
    decisions = random.Random(1)
    played = play_out(start, [chance_agent(decisions)] * 3, rng)
    assert played.final.is_terminal
    assert rng.counter > 0


@pytest.mark.parametrize("name", ["martian", "attacks"])
def test_one_altered_roll_is_rejected_naming_its_move(name: str) -> None:
    game, record = fair_game(name)
    chances = chance_moves(game, record)
    assert len(chances) >= 6
    for number in (chances[0], chances[5], chances[-1]):
        altered = alter_roll(game, record, number)
        verdict = verify_record(altered)
        assert not verdict.fair
        assert verdict.checked
        assert verdict.first_mismatch == number
        assert f"move {number} does not match" in verdict.message
        assert repr(altered.moves[number - 1]) in verdict.message
        assert repr(record.moves[number - 1]) in verdict.message


def test_a_roll_written_in_another_letter_order_still_matches() -> None:
    game, record = fair_game("martian")
    number = chance_moves(game, record)[0]
    moves = list(record.moves)
    moves[number - 1] = moves[number - 1][::-1].lower()
    assert verify_record(record.with_moves(moves)).fair


def test_an_altered_deal_is_rejected() -> None:
    _, record = fair_game("attacks")
    stack = record.tag("Stack2")
    assert stack is not None
    first, second, *rest = stack.split(",")
    swapped = with_tag(record, "Stack2", ",".join([second, first, *rest]))
    verdict = verify_record(swapped)
    assert (verdict.fair, verdict.checked, verdict.first_mismatch) == (False, True, 0)
    assert "the deal does not match" in verdict.message
    assert "Stack2" in verdict.message


def test_a_wrong_commitment_is_rejected() -> None:
    _, record = fair_game("attacks")
    wrong = with_tag(record, "ServerCommitment", commitment(new_server_seed()))
    verdict = verify_record(wrong)
    assert (verdict.fair, verdict.checked, verdict.first_mismatch) == (False, True, None)
    assert "does not match the commitment" in verdict.message


def test_another_revealed_seed_is_rejected_even_with_its_own_commitment() -> None:
    game, record = fair_game("martian")
    other = fixed_seed("another")
    swapped = with_tag(
        with_tag(record, "ServerSeed", other.hex()), "ServerCommitment", commitment(other)
    )
    verdict = verify_record(swapped)
    assert not verdict.fair
    # (these two seeds roll differently at once; two seeds may share a roll by chance)
    assert verdict.first_mismatch == chance_moves(game, record)[0]


def test_other_player_seeds_are_rejected() -> None:
    _, record = fair_game("attacks", player_seeds=["alice"])
    verdict = verify_record(with_tag(record, "PlayerSeeds", '["mallory"]'))
    assert not verdict.fair
    assert verdict.first_mismatch == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: GameRecord(r.game, r.players, (), r.moves), "no [Fairness ...] tag"),
        (lambda r: with_tag(r, "Fairness", "md5-v0"), "unknown fairness method 'md5-v0'"),
        (lambda r: with_tag(r, "ServerSeed", "abc"), "ServerSeed must be 64 hex digits"),
        (lambda r: with_tag(r, "PlayerSeeds", "alice"), "PlayerSeeds is a JSON list"),
        (lambda r: r.with_moves([*r.moves, "TTTTT"]), "the game was already over"),
        (lambda r: r.with_moves(["nonsense", *r.moves[1:]]), "move 1 ('nonsense')"),
        (lambda r: r.with_moves([r.moves[0][1:], *r.moves[1:]]), "exactly 13 dice"),
        (lambda r: with_tag(r, "Target", "0"), "setup is not readable"),
    ],
)
def test_records_that_cannot_be_checked_say_so(
    change: Callable[[GameRecord], GameRecord], message: str
) -> None:
    _, record = fair_game("martian")
    verdict = verify_record(change(record))
    assert (verdict.fair, verdict.checked, verdict.first_mismatch) == (False, False, None)
    assert verdict.message.startswith("cannot verify: ")
    assert message in verdict.message


def test_a_record_without_the_revealed_seed_cannot_be_verified() -> None:
    _, record = fair_game("attacks", reveal=False)
    verdict = verify_record(record)
    assert not verdict.checked
    assert "no [ServerSeed ...] tag" in verdict.message
    assert "only when the game has ended" in verdict.message


def test_an_unfinished_record_is_checked_as_far_as_it_goes() -> None:
    _, record = fair_game("attacks")
    verdict = verify_record(record.with_moves(record.moves[:10]))
    assert verdict.fair
    assert "stops before the end" in verdict.message


# --- marsdice verify --------------------------------------------------------------------------


def write(tmp_path: Path, game: Game, record: GameRecord, name: str = "game.mdr") -> str:
    path = tmp_path / name
    path.write_text(record.dumps())  # no commentary: an altered record may not replay
    return str(path)


@pytest.mark.parametrize("name", ["martian", "attacks"])
def test_verify_accepts_a_fair_record(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game, record = fair_game(name)
    assert main(["verify", write(tmp_path, game, record)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("fair: every roll")
    if name == "attacks":
        assert out.startswith(FAIR_MESSAGE)
    assert err == ""


def test_verify_rejects_an_altered_roll_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game, record = fair_game("martian")
    number = chance_moves(game, record)[3]
    path = write(tmp_path, game, alter_roll(game, record, number))
    assert main(["verify", path]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"unfair: move {number} does not match the committed seed")


def test_verify_rejects_an_altered_deal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game, record = fair_game("attacks")
    cards = (record.tag("Stack1") or "").split(",")
    cards[0], cards[-1] = cards[-1], cards[0]
    path = write(tmp_path, game, with_tag(record, "Stack1", ",".join(cards)))
    assert main(["verify", path]) == 1
    assert "unfair: the deal does not match the committed seed: Stack1" in capsys.readouterr().out


def test_verify_rejects_a_wrong_commitment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game, record = fair_game("martian")
    path = write(tmp_path, game, with_tag(record, "ServerCommitment", "0" * 64))
    assert main(["verify", path]) == 1
    assert "does not match the commitment" in capsys.readouterr().out


def test_verify_cannot_check_a_record_without_tags_or_a_bad_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game, record = fair_game("martian")
    plain = GameRecord(record.game, record.players, (), record.moves)
    assert main(["verify", write(tmp_path, game, plain)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("marsdice: error: ")
    assert "cannot verify: the record has no [Fairness ...] tag" in err
    _, hidden = fair_game("martian", reveal=False)
    assert main(["verify", write(tmp_path, game, hidden)]) == 2
    assert "no [ServerSeed ...] tag" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "missing.mdr")]) == 2
    assert "No such file" in capsys.readouterr().err
    garbage = tmp_path / "garbage.mdr"
    garbage.write_text("[Game]\n")
    assert main(["verify", str(garbage)]) == 2
    assert "cannot verify" in capsys.readouterr().err
