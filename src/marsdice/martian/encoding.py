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
from marsdice.core.game import JSONObject
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
    layout.seats("turns", players, max_moves)
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
