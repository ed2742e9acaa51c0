"""Fixed-size observation vectors built from the player views (:meth:`Game.observe`).

One encoder per game and variant: :func:`encoder` gives its ``labels`` (what each index
means, listed in ``docs/research.md``), the bounds of each entry (``high``; every entry is
at least 0) and :meth:`Encoder.encode`, which turns a view into floats. Everything comes
from the view, so nothing a seat may not see can leak into its vector: Mars Attacks' vector
knows the face-up cards and the stacks' sizes, never the face-down order.

Seats are *relative*: entry "seat +k" is the seat k places after the viewer (+0 is the
viewer itself), so one policy can play any seat. A spectator (``viewer=None``) sees seat 0
as +0. All values are counts or 0/1 flags; nothing is scaled. Standard library only.

>>> import random
>>> from marsdice.games import get_game
>>> game = get_game("martian")
>>> variant = game.variant_from_params({"players": 2})
>>> enc = encoder(game, variant, max_moves=100)
>>> enc.size, enc.labels[:3]
(30, ('score seat+0', 'score seat+1', 'turns seat+0'))
>>> state = game.start(variant, random.Random(0))
>>> enc.encode(game.observe(state, 1))[:8]
[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from marsdice.attacks.cards import MAX_REQUIREMENT, MAX_VP
from marsdice.attacks.variant import DICE, TOKENS
from marsdice.core.game import JSON, Game, JSONObject, Variant

MARTIAN_FACES: Final = ("tank", "ray", "human", "cow", "chicken")
MARTIAN_PHASES: Final = ("roll", "choose", "decide", "rolloff", "over")
ATTACKS_PHASES: Final = (
    "boston",
    "target",
    "seattle",
    "roll",
    "toronto",
    "toronto-roll",
    "denver",
    "decide",
    "memphis",
    "memphis-draw",
    "over",
)
ATTACKS_FACES: Final = ("H", "R", "N")
STACKS: Final = 4


@dataclass(frozen=True, slots=True)
class Encoder:
    """A game variant's observation vector: labels, upper bounds, and the encoding."""

    labels: tuple[str, ...]
    high: tuple[float, ...]
    fill: Callable[[JSONObject, int], list[float]]

    @property
    def size(self) -> int:
        return len(self.labels)

    def encode(self, view: JSONObject) -> list[float]:
        """The vector of a view (its ``viewer`` is seat +0)."""
        viewer = view["viewer"]
        values = self.fill(view, viewer if isinstance(viewer, int) else 0)
        assert len(values) == self.size, (len(values), self.size)
        return values


def encoder(game: Game, variant: Variant, max_moves: int) -> Encoder:
    """The encoder of a variant; ``max_moves`` bounds the counters (turns, rounds)."""
    if game.name == "martian":
        return _martian(game, variant, max_moves)
    if game.name == "attacks":
        return _attacks(game, variant, max_moves)
    raise ValueError(f"no observation encoding for game {game.name!r}")


class _Layout:
    """Collects labels and bounds in the order the values are written."""

    def __init__(self) -> None:
        self.labels: list[str] = []
        self.high: list[float] = []

    def add(self, label: str, high: float) -> None:
        self.labels.append(label)
        self.high.append(float(high))

    def seats(self, what: str, players: int, high: float) -> None:
        for k in range(players):
            self.add(f"{what} seat+{k}", high)

    def flags(self, what: str, names: Sequence[str]) -> None:
        for name in names:
            self.add(f"{what} {name}", 1)

    def done(self, fill: Callable[[JSONObject, int], list[float]]) -> Encoder:
        return Encoder(tuple(self.labels), tuple(self.high), fill)


def _ints(value: JSON) -> list[int]:
    assert isinstance(value, list)
    return [int(v) for v in value if isinstance(v, int)]


def _obj(value: JSON) -> JSONObject:
    assert isinstance(value, dict)
    return value


def _num(value: JSON) -> float:
    if value is None:
        return 0.0
    assert isinstance(value, int | float), value
    return float(value)


def _relative(values: Sequence[float], viewer: int) -> list[float]:
    """Per-seat values reordered so the viewer comes first."""
    n = len(values)
    return [float(values[(viewer + k) % n]) for k in range(n)]


def _one_hot(index: int | None, size: int) -> list[float]:
    out = [0.0] * size
    if index is not None and 0 <= index < size:
        out[index] = 1.0
    return out


def _seat_one_hot(seat: int | None, viewer: int, players: int) -> list[float]:
    return _one_hot(None if seat is None or seat < 0 else (seat - viewer) % players, players)


# --- Martian Dice ------------------------------------------------------------------------------


def _martian(game: Game, variant: Variant, max_moves: int) -> Encoder:
    params = game.variant_to_params(variant)
    players, target, dice = (int(_num(params[k])) for k in ("players", "target", "dice"))
    rolloff_dice = int(_num(params["rolloff_dice"]))
    most = max(dice, rolloff_dice)
    layout = _Layout()
    layout.seats("score", players, target + dice + 2)
    layout.seats("turns", players, max_moves)
    layout.seats("to play", players, 1)
    layout.flags("phase", MARTIAN_PHASES)
    for face in MARTIAN_FACES:
        layout.add(f"set aside {face}", dice)
    for face in MARTIAN_FACES:
        layout.add(f"rolled {face}", most)
    layout.add("dice left", dice)
    layout.add("turn score", dice + 3)
    layout.add("end triggered", 1)
    layout.seats("roll-off contender", players, 1)
    layout.seats("roll-off rays", players, rolloff_dice)
    layout.add("target", target)
    layout.add("dice", dice)

    def fill(view: JSONObject, viewer: int) -> list[float]:
        board = _obj(view["board"])
        rolloff = _obj(board["rolloff"])
        out = _relative(_ints(view["scores"]), viewer)
        out += _relative(_ints(view["turns"]), viewer)
        phase = str(view["phase"])
        roller = rolloff["roller"] if phase == "rolloff" else board["seat"]
        out += _seat_one_hot(roller if isinstance(roller, int) else None, viewer, players)
        out += _one_hot(MARTIAN_PHASES.index(phase), len(MARTIAN_PHASES))
        out += [float(v) for v in _ints(board["set_aside"])]
        rolled = board["rolled"]
        out += [float(v) for v in _ints(rolled)] if rolled is not None else [0.0] * 5
        out += [_num(board["dice_left"]), _num(board["turn_score"])]
        out.append(1.0 if board["end_triggered"] else 0.0)
        contenders = [0.0] * players
        rays = [0.0] * players
        seats = _ints(rolloff["seats"])
        for seat, count in zip(seats, _ints(rolloff["rays"]), strict=False):
            rays[seat] = float(count)
        for seat in seats:
            contenders[seat] = 1.0
        out += _relative(contenders, viewer) + _relative(rays, viewer)
        out += [float(target), float(dice)]
        return out

    return layout.done(fill)


# --- Mars Attacks ------------------------------------------------------------------------------


def _attacks(game: Game, variant: Variant, max_moves: int) -> Encoder:
    params = game.variant_to_params(variant)
    players = int(_num(params["players"]))
    cards = getattr(variant, "cards", ())
    slugs = tuple(str(card.slug) for card in cards)
    total_vp = sum(int(card.vp) for card in cards) or MAX_VP
    layout = _Layout()
    layout.seats("score", players, total_vp)
    layout.seats("cards owned", players, len(slugs))
    layout.seats("free tokens", players, TOKENS)
    layout.seats("turns", players, max_moves)
    layout.seats("reached score on turn", players, max_moves)
    layout.seats("to play", players, 1)
    layout.add("extra turn", 1)
    layout.add("end triggered", 1)
    layout.flags("phase", ATTACKS_PHASES)
    layout.add("hard difficulty", 1)
    layout.add("nuke limit", DICE)
    for stack in range(1, STACKS + 1):
        layout.add(f"stack {stack} size", len(slugs))
    layout.add("box size", len(slugs))
    for slug in slugs:
        for stack in range(1, STACKS + 1):
            layout.add(f"{slug}: face up on stack {stack}", 1)
        layout.seats(f"{slug}: owned by", players, 1)
        layout.seats(f"{slug}: token of", players, MAX_REQUIREMENT)
        layout.add(f"{slug}: target", 1)
    layout.add("target count", DICE + MAX_REQUIREMENT)
    for key in ("heads", "rays", "nukes"):
        layout.add(f"dice {key}", DICE)
    layout.add("rolls this turn", max_moves)
    layout.add("dice to roll", DICE)
    layout.flags("die set by Seattle", ATTACKS_FACES)
    layout.add("Toronto used", 1)
    layout.add("Denver used", 1)
    layout.flags("Memphis stack", [str(s) for s in range(1, STACKS + 1)])
    index = {slug: i for i, slug in enumerate(slugs)}

    def fill(view: JSONObject, viewer: int) -> list[float]:
        board = _obj(view["board"])
        owned = [[str(_obj(c)["slug"]) for c in seat] for seat in _lists(board["owned"])]
        out = _relative(_ints(view["scores"]), viewer)
        out += _relative([len(seat) for seat in owned], viewer)
        out += _relative(_ints(board["free_tokens"]), viewer)
        out += _relative(_ints(view["turns"]), viewer)
        out += _relative(_ints(board["reached"]), viewer)
        seat = board["seat"]
        current = view["current_player"]
        to_play = current if isinstance(current, int) and current >= 0 else seat
        out += _seat_one_hot(to_play if isinstance(to_play, int) else None, viewer, players)
        out += [1.0 if board["extra_turn"] else 0.0, 1.0 if board["end_triggered"] else 0.0]
        out += _one_hot(ATTACKS_PHASES.index(str(view["phase"])), len(ATTACKS_PHASES))
        out += [1.0 if board["difficulty"] == "hard" else 0.0, _num(board["nuke_limit"])]
        stacks = [_obj(s) for s in _items(board["stacks"])]
        out += [_num(s["size"]) for s in stacks]
        out.append(_num(board["box"]))
        per_card = [[0.0] * (STACKS + 2 * players + 1) for _ in slugs]
        for number, stack in enumerate(stacks):
            if stack["card"] is not None:
                per_card[index[str(_obj(stack["card"])["slug"])]][number] = 1.0
        for holder, mine in enumerate(owned):
            for slug in mine:
                per_card[index[slug]][STACKS + (holder - viewer) % players] = 1.0
        for holder, tokens in enumerate(_lists(board["tokens"])):
            for token in tokens:
                where = _obj(token)
                spot = STACKS + players + (holder - viewer) % players
                per_card[index[str(where["card"])]][spot] = _num(where["value"])
        target = board["target"]
        if isinstance(target, str):
            per_card[index[target]][-1] = 1.0
        for row in per_card:
            out += row
        dice = _obj(board["dice"])
        out.append(_num(board["count"]))
        out += [_num(dice[key]) for key in ("heads", "rays", "nukes", "rolls", "to_roll")]
        face = dice["set"]
        out += _one_hot(ATTACKS_FACES.index(face) if isinstance(face, str) else None, 3)
        out += [1.0 if board["toronto_used"] else 0.0, 1.0 if board["denver_used"] else 0.0]
        memphis = board["memphis_stack"]
        out += _one_hot(int(memphis) - 1 if isinstance(memphis, int) else None, STACKS)
        return out

    return layout.done(fill)


def _items(value: JSON) -> list[JSON]:
    assert isinstance(value, list)
    return value


def _lists(value: JSON) -> list[list[JSON]]:
    assert isinstance(value, list)
    return [item if isinstance(item, list) else [] for item in value]
