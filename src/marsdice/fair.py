"""Provably fair dice and deals: every random value of a game derived from a committed seed.

When a table is created the server draws a secret seed (:func:`new_server_seed`) and publishes
its SHA-256 :func:`commitment`; each player may add a seed of their own
(:func:`normalise_player_seed`) before the game starts. The game is then played with one
:class:`FairRandom`: the deal (Mars Attacks' shuffle), then every die of every roll and every
draw from the box, in the order the engines ask for them, each one an HMAC-SHA256 of the
player seeds and a counter under the server seed. When the game ends the seed is revealed in
the record (:func:`fair_tags`), and :func:`verify_record` (``marsdice verify RECORD``)
recomputes the deal and every roll. ``docs/fairness.md`` writes the derivation out byte by
byte, with a worked example.

>>> seed = bytes(range(32))
>>> commitment(seed)
'630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
>>> rng = FairRandom(seed, ["alice", "bob"])
>>> [rng.randrange(6) for _ in range(10)]
[5, 0, 1, 3, 3, 1, 3, 4, 2, 1]
>>> rng.counter
10
>>> FairRandom(seed, ["alice", "bob"], counter=8).randrange(6)
2
>>> rng.random()
Traceback (most recent call last):
...
marsdice.fair.FairnessError: FairRandom.random() is not available: use randrange(n) or shuffle(x)

Standard library only.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import random
import secrets
from collections.abc import Callable, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, Final, NoReturn, Self

from marsdice.core.errors import MarsDiceError
from marsdice.core.record import GameRecord

#: the value of the ``Fairness`` tag: the derivation this module implements
METHOD: Final = "hmac-sha256-v1"
#: how many bytes the server seed has
SEED_BYTES: Final = 32
#: the longest player seed, in characters
MAX_PLAYER_SEED: Final = 64
#: the largest ``n`` accepted by :meth:`FairRandom.randrange` (the games need less than 100)
MAX_RANGE: Final = 2**32
#: the first bytes of every HMAC message (the method's name, then a zero byte)
DOMAIN: Final = b"marsdice/" + METHOD.encode("ascii") + b"\x00"

#: record tags
TAG_METHOD: Final = "Fairness"
TAG_COMMITMENT: Final = "ServerCommitment"
TAG_SEED: Final = "ServerSeed"
TAG_PLAYER_SEEDS: Final = "PlayerSeeds"

_HASH_BITS: Final = 256
_MAX_COUNTER: Final = 2**64 - 1
_MAX_ATTEMPT: Final = 2**32 - 1


class FairnessError(MarsDiceError, ValueError):
    """A bad seed, a bad fairness tag, or a use of :class:`FairRandom` outside the
    derivation."""


# --- seeds ------------------------------------------------------------------------------------


#: the bytes of :func:`message` after its players' part: the counter (8) and the attempt (4)
_COUNTER_AND_ATTEMPT: Final = 12


def new_server_seed() -> bytes:
    """A fresh secret server seed: 32 bytes from :mod:`secrets`."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(server_seed: bytes) -> str:
    """The published commitment to a server seed: SHA-256 of its bytes, lowercase hex."""
    _check_server_seed(server_seed)
    return hashlib.sha256(server_seed).hexdigest()


def normalise_player_seed(text: str) -> str:
    """A player's seed as it enters the derivation: surrounding whitespace removed, then 1 to
    64 printable ASCII characters (space to ``~``); anything else raises
    :class:`FairnessError`.

    >>> normalise_player_seed("  lucky 7 ")
    'lucky 7'
    >>> normalise_player_seed("dé")
    Traceback (most recent call last):
    ...
    marsdice.fair.FairnessError: a player seed holds printable ASCII only (space to ~), got 'é'
    """
    if not isinstance(text, str):
        raise FairnessError(f"a player seed is text, got {type(text).__name__}")
    seed = text.strip()
    if not seed:
        raise FairnessError("a player seed needs 1 to 64 characters, got none")
    if len(seed) > MAX_PLAYER_SEED:
        raise FairnessError(
            f"a player seed has at most {MAX_PLAYER_SEED} characters, got {len(seed)}"
        )
    bad = next((ch for ch in seed if not " " <= ch <= "~"), None)
    if bad is not None:
        raise FairnessError(f"a player seed holds printable ASCII only (space to ~), got {bad!r}")
    return seed


def _check_server_seed(server_seed: bytes) -> None:
    if not isinstance(server_seed, bytes) or len(server_seed) != SEED_BYTES:
        got = (
            f"{len(server_seed)} bytes"
            if isinstance(server_seed, bytes)
            else type(server_seed).__name__
        )
        raise FairnessError(f"a server seed is {SEED_BYTES} bytes, got {got}")


def _check_player_seeds(player_seeds: Sequence[str]) -> tuple[str, ...]:
    if isinstance(player_seeds, str):
        raise FairnessError("player seeds are a list of strings, not one string")
    seeds = tuple(player_seeds)
    for number, seed in enumerate(seeds, start=1):
        try:
            ok = normalise_player_seed(seed) == seed
        except FairnessError as error:
            raise FairnessError(f"player seed {number}: {error}") from None
        if not ok:
            raise FairnessError(
                f"player seed {number} ({seed!r}) is not normalised: "
                "pass it through normalise_player_seed first"
            )
    return seeds


# --- the derivation ---------------------------------------------------------------------------


def message(player_seeds: Sequence[str], counter: int, attempt: int) -> bytes:
    """The HMAC message for one draw: the domain, the number of player seeds (4 bytes), each
    seed's length (4 bytes) and ASCII bytes, the counter (8 bytes), the attempt (4 bytes);
    every number unsigned big-endian.

    >>> message(["ab"], 1, 0).hex()
    '6d617273646963652f686d61632d7368613235362d76310000000001000000026162000000000000000100000000'
    """
    if not 0 <= counter <= _MAX_COUNTER:
        raise FairnessError(f"the counter is 0 to 2**64 - 1, got {counter}")
    if not 0 <= attempt <= _MAX_ATTEMPT:
        raise FairnessError(f"the attempt is 0 to 2**32 - 1, got {attempt}")
    parts = [DOMAIN, len(player_seeds).to_bytes(4, "big")]
    for seed in player_seeds:
        data = seed.encode("ascii")
        parts += [len(data).to_bytes(4, "big"), data]
    parts += [counter.to_bytes(8, "big"), attempt.to_bytes(4, "big")]
    return b"".join(parts)


def block(server_seed: bytes, player_seeds: Sequence[str], counter: int, attempt: int) -> int:
    """HMAC-SHA256 (key: the server seed) of :func:`message`, read as an unsigned big-endian
    256-bit integer."""
    if not 0 <= counter <= _MAX_COUNTER:
        raise FairnessError(f"the counter is 0 to 2**64 - 1, got {counter}")
    if not 0 <= attempt <= _MAX_ATTEMPT:
        raise FairnessError(f"the attempt is 0 to 2**32 - 1, got {attempt}")
    digest = _keyed(server_seed, tuple(player_seeds)).copy()
    digest.update(counter.to_bytes(8, "big") + attempt.to_bytes(4, "big"))
    return int.from_bytes(digest.digest(), "big")


@functools.lru_cache(maxsize=1024)
def _keyed(server_seed: bytes, player_seeds: tuple[str, ...]) -> hmac.HMAC:
    """The HMAC keyed with the server seed that has read :func:`message`'s part before the
    counter (the same for every draw of a game): a draw copies it and adds the rest, which
    costs a third less than keying a new one."""
    head = message(player_seeds, 0, 0)[:-_COUNTER_AND_ATTEMPT]
    return hmac.new(server_seed, head, hashlib.sha256)


def draw(server_seed: bytes, player_seeds: Sequence[str], counter: int, n: int) -> int:
    """The value in ``[0, n)`` for draw number ``counter``: the first attempt 0, 1, 2... whose
    block is below the largest multiple of ``n`` that fits in 256 bits, reduced modulo ``n``
    (rejection sampling, so every value is exactly equally likely)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_RANGE:
        raise FairnessError(f"randrange(n) needs a whole number n from 1 to 2**32, got {n!r}")
    limit = 2**_HASH_BITS - 2**_HASH_BITS % n
    attempt = 0
    while True:
        value = _block(server_seed, player_seeds, counter, attempt)
        if value < limit:
            return value % n
        attempt += 1


#: the function :func:`draw` calls (tests replace it to force a rejection)
_block: Callable[[bytes, Sequence[str], int, int], int] = block


class FairRandom(random.Random):
    """A generator whose every value is derived from a server seed, the players' seeds and a
    counter (see ``docs/fairness.md``). Only ``randrange(n)`` and ``shuffle(x)`` work: those
    are all the engines call. Every other method of :class:`random.Random` raises
    :class:`FairnessError`, so no value can come from anywhere else.

    ``counter`` is the number of draws made so far; ``FairRandom(seed, players, counter=k)``
    continues exactly where a generator that made ``k`` draws stopped (persist the counter,
    not the object). Copying or pickling keeps the seeds and the counter.
    """

    def __new__(
        cls, server_seed: bytes, player_seeds: Sequence[str] = (), counter: int = 0
    ) -> Self:
        del server_seed, player_seeds, counter
        return super().__new__(cls)

    def __init__(
        self, server_seed: bytes, player_seeds: Sequence[str] = (), counter: int = 0
    ) -> None:
        # random.Random.__init__ would seed the Mersenne Twister: it is never used here
        _check_server_seed(server_seed)
        if isinstance(counter, bool) or not isinstance(counter, int):
            raise FairnessError(f"the counter is a whole number, got {counter!r}")
        if not 0 <= counter <= _MAX_COUNTER:
            raise FairnessError(f"the counter is 0 to 2**64 - 1, got {counter}")
        self._server_seed = server_seed
        self._player_seeds = _check_player_seeds(player_seeds)
        self._counter = counter

    @property
    def counter(self) -> int:
        """How many draws have been made: the counter of the next one."""
        return self._counter

    @property
    def player_seeds(self) -> tuple[str, ...]:
        return self._player_seeds

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        """A value in ``[0, n)`` for ``randrange(n)``, exactly uniform; advances the counter
        by one. Only the one-argument form exists."""
        if stop is not None or step != 1:
            raise FairnessError("FairRandom.randrange takes one argument: randrange(n)")
        value = draw(self._server_seed, self._player_seeds, self._counter, start)
        self._counter += 1
        return value

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Fisher-Yates in place: for ``i`` from ``len(x) - 1`` down to 1, swap ``x[i]`` with
        ``x[randrange(i + 1)]`` (``len(x) - 1`` draws)."""
        for i in range(len(x) - 1, 0, -1):
            j = self.randrange(i + 1)
            x[i], x[j] = x[j], x[i]

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._server_seed, self._player_seeds, self._counter))

    def __repr__(self) -> str:
        # never shows the server seed
        return f"FairRandom(<server seed>, {list(self._player_seeds)!r}, counter={self._counter})"


def _forbidden(name: str) -> Callable[..., NoReturn]:
    def method(self: FairRandom, *args: object, **kwargs: object) -> NoReturn:
        del self, args, kwargs
        raise FairnessError(f"FairRandom.{name}() is not available: use randrange(n) or shuffle(x)")

    method.__name__ = name
    method.__qualname__ = f"FairRandom.{name}"
    return method


#: every method of random.Random except the two the derivation defines (read from the running
#: Python, so a method added by a later version is closed too)
FORBIDDEN: Final = tuple(
    sorted(
        name
        for name in dir(random.Random)
        if not name.startswith("__")
        and name not in ("randrange", "shuffle")
        and callable(getattr(random.Random, name))
    )
)
for _name in FORBIDDEN:
    setattr(FairRandom, _name, _forbidden(_name))
del _name


# --- records ----------------------------------------------------------------------------------


def player_seeds_text(player_seeds: Sequence[str]) -> str:
    """The ``PlayerSeeds`` tag value: a compact JSON list of strings, in derivation order.

    >>> player_seeds_text(["alice", 'say "hi"'])
    '["alice","say \\\\"hi\\\\""]'
    """
    return json.dumps(list(_check_player_seeds(player_seeds)), separators=(",", ":"))


def parse_player_seeds(text: str) -> tuple[str, ...]:
    """Read a ``PlayerSeeds`` tag value (a JSON list of normalised seeds)."""
    try:
        value = json.loads(text)
    except ValueError:
        raise FairnessError(
            f'{TAG_PLAYER_SEEDS} is a JSON list of strings like ["alice","bob"], got {text!r}'
        ) from None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise FairnessError(
            f'{TAG_PLAYER_SEEDS} is a JSON list of strings like ["alice","bob"], got {text!r}'
        )
    return _check_player_seeds(value)


def fair_tags(
    server_seed: bytes, player_seeds: Sequence[str], *, reveal: bool
) -> tuple[tuple[str, str], ...]:
    """The tags a fair game's record carries: the method, the commitment, the player seeds
    and, with ``reveal`` (only once the game has ended), the server seed in hex.

    >>> for key, value in fair_tags(bytes(32), ["alice"], reveal=False):
    ...     print(key, value)
    Fairness hmac-sha256-v1
    ServerCommitment 66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925
    PlayerSeeds ["alice"]
    """
    tags = [
        (TAG_METHOD, METHOD),
        (TAG_COMMITMENT, commitment(server_seed)),
        (TAG_PLAYER_SEEDS, player_seeds_text(player_seeds)),
    ]
    if reveal:
        tags.append((TAG_SEED, server_seed.hex()))
    return tuple(tags)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What :func:`verify_record` found.

    ``fair``: the revealed seed matches the commitment and every deal and roll matches it.
    ``first_mismatch``: the move number (1 = the first move) of the first roll or draw that
    does not match, 0 if the deal does not; None otherwise. ``checked``: False when the
    record could not be checked at all (no fairness tags, seed not revealed, a bad record):
    the message then starts with ``cannot verify:``.
    """

    fair: bool
    message: str
    first_mismatch: int | None = None
    checked: bool = True


FAIR_MESSAGE: Final = "fair: every roll and the deal match the committed seed"


def _cannot(reason: str) -> Verdict:
    return Verdict(False, f"cannot verify: {reason}", None, checked=False)


def _read_tags(record: GameRecord) -> tuple[bytes, tuple[str, ...]] | Verdict:
    """The revealed seed and the player seeds, or the verdict saying why there are none."""
    tags = record.tag_map
    method = tags.get(TAG_METHOD)
    if method is None:
        return _cannot(
            f"the record has no [{TAG_METHOD} ...] tag: it was not played with provably fair dice"
        )
    if method != METHOD:
        return _cannot(f"unknown fairness method {method!r} (this version checks {METHOD!r})")
    promised = tags.get(TAG_COMMITMENT)
    if promised is None:
        return _cannot(f"the record has no [{TAG_COMMITMENT} ...] tag")
    revealed = tags.get(TAG_SEED)
    if revealed is None:
        return _cannot(
            f"the record has no [{TAG_SEED} ...] tag: the server reveals its seed "
            "only when the game has ended"
        )
    seeds_text = tags.get(TAG_PLAYER_SEEDS, "[]")
    try:
        seed = bytes.fromhex(revealed)
        _check_server_seed(seed)
    except (ValueError, FairnessError):
        return _cannot(f"{TAG_SEED} must be {SEED_BYTES * 2} hex digits, got {revealed!r}")
    try:
        player_seeds = parse_player_seeds(seeds_text)
    except FairnessError as error:
        return _cannot(str(error))
    if commitment(seed) != promised.strip().lower():
        return Verdict(
            False,
            f"unfair: the revealed server seed does not match the commitment: SHA-256 of "
            f"{TAG_SEED} is {commitment(seed)}, the record's {TAG_COMMITMENT} is {promised}",
            None,
        )
    return seed, player_seeds


def verify_record(record: GameRecord) -> Verdict:
    """Check a finished fair game: the revealed seed against the commitment, the deal
    against the one the seed gives, then every chance move (each roll, each draw) against
    the one the seed gives at that point, in order. Names the first that differs."""
    read = _read_tags(record)
    if isinstance(read, Verdict):
        return read
    server_seed, player_seeds = read
    from marsdice.games import get_game  # the registry imports the engines: only when used

    try:
        game = get_game(record.game)
    except ValueError as error:
        return _cannot(str(error))
    rng = FairRandom(server_seed, player_seeds)
    try:
        opening = game.opening(record)
        recorded_setup = game.setup_tags(opening)
        dealt = game.start(game.variant_of(opening), rng)
    except (MarsDiceError, ValueError) as error:
        return _cannot(f"the record's setup is not readable: {error}")
    expected_setup = game.setup_tags(dealt)
    if recorded_setup != expected_setup:
        return Verdict(False, _deal_mismatch(recorded_setup, expected_setup), 0)
    deal_draws = rng.counter
    state = opening
    rolls = 0
    for number, move in enumerate(record.moves, start=1):
        if state.is_terminal:
            return _cannot(f"move {number} ({move!r}): the game was already over")
        try:  # the engine checks the move first: an illegal record cannot be verified
            action = state.parse_action(move)
            after = state.apply(action)
        except MarsDiceError as error:
            return _cannot(f"move {number} ({move!r}): {error}")
        if state.is_chance_node:
            fair_action = state.sample_chance(rng)
            if fair_action.text() != action.text():
                return Verdict(
                    False,
                    f"unfair: move {number} does not match the committed seed: the record "
                    f"has {action.text()!r} where the seed gives {fair_action.text()!r}",
                    number,
                )
            rolls += 1
        state = after
    message = FAIR_MESSAGE
    if deal_draws == 0:  # no hidden setup (Martian Dice)
        message = "fair: every roll matches the committed seed"
    detail = f"{rolls} chance moves, {rng.counter} values drawn"
    if not state.is_terminal:
        detail += "; the record stops before the end of the game"
    return Verdict(True, f"{message} ({detail})", None)


def _deal_mismatch(recorded: Sequence[tuple[str, str]], expected: Sequence[tuple[str, str]]) -> str:
    have, want = dict(recorded), dict(expected)
    for key in [*want, *(k for k in have if k not in want)]:
        if have.get(key) != want.get(key):
            return (
                f"unfair: the deal does not match the committed seed: {key} is "
                f"{have.get(key)!r} in the record where the seed deals {want.get(key)!r}"
            )
    return "unfair: the deal does not match the committed seed"  # pragma: no cover
