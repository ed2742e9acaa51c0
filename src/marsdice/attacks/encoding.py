"""Mars Attacks' observation vector for the research interfaces (its registration's
``encoder``; the table of indices is in ``docs/research.md``). It knows the face-up cards
and the stacks' sizes, never the face-down order: it reads the player's view only.

>>> from marsdice.attacks.variant import Variant
>>> enc = encoder(Variant(players=2), max_moves=100)
>>> enc.size, enc.labels[6 * 2 + 15], enc.labels[-1]
(308, 'stack 1 size', 'Memphis stack 4')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from marsdice.attacks.cards import MAX_REQUIREMENT, MAX_VP
from marsdice.attacks.variant import DICE, STACKS, TOKENS, Variant
from marsdice.core.encoding import (
    Encoder,
    Layout,
    ints,
    items,
    lists,
    num,
    obj,
    one_hot,
    relative,
    seat_one_hot,
)
from marsdice.core.game import JSON, JSONObject
from marsdice.core.game import Variant as GameVariant

#: the phases of a view, one flag each
PHASES: Final = (
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
#: the faces Seattle's owner may set a die to
FACES: Final = ("H", "R", "N")


def encoder(variant: GameVariant, max_moves: int) -> Encoder:
    """The vector of a variant (its card set decides the per-card entries); ``max_moves``
    bounds the turn counters."""
    if not isinstance(variant, Variant):
        raise TypeError(f"not a Mars Attacks variant: {type(variant).__name__}")
    players = variant.players
    slugs = tuple(str(card.slug) for card in variant.cards)
    total_vp = sum(int(card.vp) for card in variant.cards) or MAX_VP
    layout = Layout()
    layout.seats("score", players, total_vp)
    layout.seats("cards owned", players, len(slugs))
    layout.seats("free tokens", players, TOKENS)
    layout.seats("turns", players, max_moves, counter=True)
    layout.seats("reached score on turn", players, max_moves, counter=True)
    layout.seats("to play", players, 1)
    layout.add("extra turn", 1)
    layout.add("end triggered", 1)
    layout.flags("phase", PHASES)
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
    layout.flags("die set by Seattle", FACES)
    layout.add("Toronto used", 1)
    layout.add("Denver used", 1)
    layout.flags("Memphis stack", [str(s) for s in range(1, STACKS + 1)])
    index = {slug: i for i, slug in enumerate(slugs)}
    for slug in slugs:
        layout.remembers(f"{slug}: seen face up", 1)

    def recall(memos: Sequence[JSON]) -> list[float]:
        """A flag per card seen face up in any view so far (the memos are the tops)."""
        seen = [0.0] * len(slugs)
        for memo in memos:
            for top in memo if isinstance(memo, list) else ():
                if isinstance(top, str) and top in index:
                    seen[index[top]] = 1.0
        return seen

    def fill(view: JSONObject, viewer: int) -> list[float]:
        board = obj(view["board"])
        owned = [[str(obj(c)["slug"]) for c in seat] for seat in lists(board["owned"])]
        out = relative(ints(view["scores"]), viewer)
        out += relative([len(seat) for seat in owned], viewer)
        out += relative(ints(board["free_tokens"]), viewer)
        out += relative(ints(view["turns"]), viewer)
        out += relative(ints(board["reached"]), viewer)
        seat = board["seat"]
        current = view["current_player"]
        to_play = current if isinstance(current, int) and current >= 0 else seat
        out += seat_one_hot(to_play if isinstance(to_play, int) else None, viewer, players)
        out += [1.0 if board["extra_turn"] else 0.0, 1.0 if board["end_triggered"] else 0.0]
        out += one_hot(PHASES.index(str(view["phase"])), len(PHASES))
        out += [1.0 if board["difficulty"] == "hard" else 0.0, num(board["nuke_limit"])]
        stacks = [obj(s) for s in items(board["stacks"])]
        out += [num(s["size"]) for s in stacks]
        out.append(num(board["box"]))
        per_card = [[0.0] * (STACKS + 2 * players + 1) for _ in slugs]
        for number, stack in enumerate(stacks):
            if stack["card"] is not None:
                per_card[index[str(obj(stack["card"])["slug"])]][number] = 1.0
        for holder, mine in enumerate(owned):
            for slug in mine:
                per_card[index[slug]][STACKS + (holder - viewer) % players] = 1.0
        for holder, tokens in enumerate(lists(board["tokens"])):
            for token in tokens:
                where = obj(token)
                spot = STACKS + players + (holder - viewer) % players
                per_card[index[str(where["card"])]][spot] = num(where["value"])
        target = board["target"]
        if isinstance(target, str):
            per_card[index[target]][-1] = 1.0
        for row in per_card:
            out += row
        dice = obj(board["dice"])
        out.append(num(board["count"]))
        out += [num(dice[key]) for key in ("heads", "rays", "nukes", "rolls", "to_roll")]
        face = dice["set"]
        out += one_hot(FACES.index(face) if isinstance(face, str) else None, len(FACES))
        out += [1.0 if board["toronto_used"] else 0.0, 1.0 if board["denver_used"] else 0.0]
        memphis = board["memphis_stack"]
        out += one_hot(int(memphis) - 1 if isinstance(memphis, int) else None, STACKS)
        return out

    return layout.done(fill, recall)


# --- the position as one line of text (the adapters' position strings) --------------------


def _seat(seat: JSON) -> str:
    return f"P{int(seat) + 1}" if isinstance(seat, int) and seat >= 0 else "-"


def view_text(view: JSONObject, *, counters: bool = True) -> str:
    """A Mars Attacks view as one line: VP, each seat's cards and tokens, the turn, the
    phase and seat to act, the face-up card and size of each stack, the box, the target
    and its count, the locked dice with the nukes against the limit, the abilities used
    (``counters=False``: without the turns, rounds and the turns the scores were reached on).

    >>> import random
    >>> from marsdice.attacks.game import GAME
    >>> state = GAME.start(Variant(players=2), random.Random(0))
    >>> view_text(GAME.observe(state, 0)).split(" | ")[:3]
    ['P1 0 VP, P2 0 VP', 'P1 cards none, tokens 4 free', 'P2 cards none, tokens 4 free']
    """
    board = obj(view["board"])
    players = len(ints(view["scores"]))
    parts = [", ".join(f"P{s + 1} {vp} VP" for s, vp in enumerate(ints(view["scores"])))]
    owned = lists(board["owned"])
    tokens = lists(board["tokens"])
    free = ints(board["free_tokens"])
    for seat in range(players):
        cards = " ".join(str(obj(card)["slug"]) for card in owned[seat]) or "none"
        placed = [f"{obj(t)['value']}@{obj(t)['card']}" for t in tokens[seat]]
        on = f" {' '.join(placed)}" if placed else ""
        parts.append(f"P{seat + 1} cards {cards}, tokens {free[seat]} free{on}")
    extra = " (extra turn)" if board["extra_turn"] else ""
    if counters:
        parts.append("turns " + " ".join(str(n) for n in ints(view["turns"])))
        reached = ints(board["reached"])
        if any(reached):
            parts.append("reached on turn " + " ".join(str(n) for n in reached))
        turn = f"round {view['rounds']}, turn {board['turn']} of {_seat(board['seat'])}{extra}"
    else:
        turn = f"turn of {_seat(board['seat'])}{extra}"
    parts.append(turn)
    phase = str(view["phase"])
    current = view["current_player"]
    actor = _seat(current) if isinstance(current, int) and current >= 0 else "chance"
    parts.append(f"{phase}: {actor}" if phase != "over" else "over")
    stacks = []
    for stack in items(board["stacks"]):
        entry = obj(stack)
        card = entry["card"]
        top = str(obj(card)["slug"]) if isinstance(card, dict) else "empty"
        stacks.append(f"{entry['stack']}:{top}/{entry['size']}")
    parts.append("stacks " + " ".join(stacks) + f", box {board['box']}")
    if board["target"] is not None:
        parts.append(f"target {board['target']} count {board['count']}")
    dice = obj(board["dice"])
    line = (
        f"dice {dice['heads']}H {dice['rays']}R {dice['nukes']}N of {board['nuke_limit']}, "
        f"rolls {dice['rolls']}, to roll {dice['to_roll']}"
    )
    if dice["set"] is not None:
        line += f", set {dice['set']}"
    parts.append(line)
    used = [name for name in ("toronto", "denver") if board[f"{name}_used"]]
    if used:
        parts.append("used " + " ".join(used))
    if board["memphis_stack"] is not None:
        parts.append(f"memphis to stack {board['memphis_stack']}")
    if board["end_triggered"]:
        last = view["last_round"]
        seats = " ".join(_seat(s) for s in ints(last)) if isinstance(last, list) else ""
        parts.append(f"last round: {seats or 'ends'}")
    if view["winners"]:
        parts.append("won by " + " ".join(_seat(s) for s in ints(view["winners"])))
    return " | ".join(parts)
