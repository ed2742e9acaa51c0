"""Martian Dice's observation vector for the research interfaces (its registration's
``encoder``; the table of indices is in ``docs/research.md``).

>>> import random
>>> from marsdice.martian.game import GAME
>>> from marsdice.martian.rules import Variant
>>> enc = encoder(Variant(players=2), max_moves=100)
>>> enc.size, enc.labels[:3]
(30, ('score seat+0', 'score seat+1', 'turns seat+0'))
>>> enc.encode(GAME.observe(GAME.start(Variant(players=2), random.Random(0)), 1))[:8]
[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import Final

from marsdice.core.encoding import (
    Encoder,
    Layout,
    ints,
    num,
    obj,
    one_hot,
    relative,
    seat_one_hot,
)
from marsdice.core.game import JSON, JSONObject
from marsdice.core.game import Variant as GameVariant
from marsdice.martian.game import as_variant

#: the faces in the order the views count them
FACES: Final = ("tank", "ray", "human", "cow", "chicken")
#: the phases of a view, one flag each
PHASES: Final = ("roll", "choose", "decide", "rolloff", "over")


def encoder(variant: GameVariant, max_moves: int) -> Encoder:
    """The vector of a variant; ``max_moves`` bounds the turn counters."""
    v = as_variant(variant)
    players, target, dice = v.players, v.target, v.dice
    most = max(dice, v.rolloff_dice)
    layout = Layout()
    layout.seats("score", players, target + dice + 2)
    layout.seats("turns", players, max_moves, counter=True)
    layout.seats("to play", players, 1)
    layout.flags("phase", PHASES)
    for face in FACES:
        layout.add(f"set aside {face}", dice)
    for face in FACES:
        layout.add(f"rolled {face}", most)
    layout.add("dice left", dice)
    layout.add("turn score", dice + 3)
    layout.add("end triggered", 1)
    layout.seats("roll-off contender", players, 1)
    layout.seats("roll-off rays", players, v.rolloff_dice)
    layout.add("target", target)
    layout.add("dice", dice)

    def fill(view: JSONObject, viewer: int) -> list[float]:
        board = obj(view["board"])
        rolloff = obj(board["rolloff"])
        out = relative(ints(view["scores"]), viewer)
        out += relative(ints(view["turns"]), viewer)
        phase = str(view["phase"])
        roller = rolloff["roller"] if phase == "rolloff" else board["seat"]
        out += seat_one_hot(roller if isinstance(roller, int) else None, viewer, players)
        out += one_hot(PHASES.index(phase), len(PHASES))
        out += [float(count) for count in ints(board["set_aside"])]
        rolled = board["rolled"]
        out += [float(count) for count in ints(rolled)] if rolled is not None else [0.0] * 5
        out += [num(board["dice_left"]), num(board["turn_score"])]
        out.append(1.0 if board["end_triggered"] else 0.0)
        contenders = [0.0] * players
        rays = [0.0] * players
        seats = ints(rolloff["seats"])
        for seat, count in zip(seats, ints(rolloff["rays"]), strict=False):
            rays[seat] = float(count)
        for seat in seats:
            contenders[seat] = 1.0
        out += relative(contenders, viewer) + relative(rays, viewer)
        out += [float(target), float(dice)]
        return out

    return layout.done(fill)


# --- the position as one line of text (the adapters' position strings) --------------------

#: the faces' letters, in the order the views count them
LETTERS: Final = "TRHCK"


def _faces(counts: JSON) -> str:
    """Face counts as letters with counts (``3T 1R``); ``none`` for no dice."""
    shown = [f"{n}{letter}" for letter, n in zip(LETTERS, ints(counts), strict=False) if n]
    return " ".join(shown) or "none"


def _seat(seat: JSON) -> str:
    return f"P{int(seat) + 1}" if isinstance(seat, int) and seat >= 0 else "-"


def view_text(view: JSONObject, *, counters: bool = True) -> str:
    """A Martian Dice view as one line: scores, turns, round, phase with the seat to act and
    the roll, the dice set aside and left, the turn score, the last round and the roll-off
    (``counters=False``: without the turns and the round).

    >>> import random
    >>> from marsdice.martian.game import GAME
    >>> from marsdice.martian.rules import Variant
    >>> state = GAME.start(Variant(players=2, target=6), random.Random(0))
    >>> view_text(GAME.observe(state, None))[:57]
    'P1 0, P2 0 | turns 0 0 | round 1 | roll: P1 rolls 13 dice'
    >>> state = state.apply(state.parse_action("TTRRRHHHHCCKK"))
    >>> view_text(GAME.observe(state, 0)).split(" | ")[3:]
    ['choose: P1 picks from 2T 3R 4H 2C 2K', 'set aside 2T', 'dice left 11', 'turn score 0']
    """
    board = obj(view["board"])
    scores = ints(view["scores"])
    parts = [", ".join(f"P{seat + 1} {score}" for seat, score in enumerate(scores))]
    if counters:
        parts.append("turns " + " ".join(str(n) for n in ints(view["turns"])))
        parts.append(f"round {view['rounds']}")
    phase = str(view["phase"])
    seat = _seat(board["seat"])
    rolloff = obj(board["rolloff"])
    if phase == "roll":
        parts.append(f"roll: {seat} rolls {board['dice_left']} dice")
    elif phase == "choose":
        parts.append(f"choose: {seat} picks from {_faces(board['rolled'])}")
    elif phase == "decide":
        parts.append(f"decide: {seat} stops or rolls {board['dice_left']} dice")
    elif phase == "rolloff":
        parts.append(f"roll-off: {_seat(rolloff['roller'])} rolls {rolloff['dice']} dice")
    else:
        winners = " ".join(_seat(s) for s in ints(view["winners"]))
        parts.append(f"over: {winners or 'nobody'} won")
    if phase in ("roll", "choose", "decide"):
        parts.append(f"set aside {_faces(board['set_aside'])}")
        parts.append(f"dice left {board['dice_left']}")
        parts.append(f"turn score {board['turn_score']}")
    last = view["last_round"]
    if board["end_triggered"] and isinstance(last, list):
        parts.append("last round: " + (" ".join(_seat(s) for s in last) or "ends"))
    seats = ints(rolloff["seats"])
    if seats:
        rays = ints(rolloff["rays"])
        shown = [
            f"{_seat(s)} {rays[i]}R" if i < len(rays) else _seat(s) for i, s in enumerate(seats)
        ]
        parts.append("roll-off " + ", ".join(shown))
    return " | ".join(parts)
