"""A full Mars Attacks state consistent with what one seat sees (for an online client).

The server shows a seat the public view (``GAME.observe``) and the move log with Memphis's
draws hidden as ``draw``; it never shows the deal (the face-down order of the stacks) nor the
box. A client that wants a real :class:`~marsdice.attacks.state.State` (to draw the terminal
views, to let a bot choose) rebuilds one: it replays the public log from a seeded random deal
and, each time a step turns a card face up that was never seen in this replay, picks which
unseen card it is so that the replay stays consistent with the log (every named target is
face up when named) and, at the end, with the view. A wrong pick shows up as an illegal move
or a different view, and the search backs up to the last pick (depth first, with a budget).

Only hidden parts are invented: the face-down cards below each top and the box, and the
cards Memphis drew. The picks are cheap to get right when the tops after every step are
known (``tops``: what a client connected from the start saw in each ``state``); from the
final view alone the search may need to back up, within ``budget`` applied steps.

>>> import random
>>> from marsdice.attacks.game import GAME
>>> from marsdice.attacks.variant import Variant
>>> state = GAME.start(Variant(players=2), random.Random(5))
>>> log = []
>>> rng = random.Random(1)
>>> for _ in range(30):
...     action = state.sample_chance(rng) if state.is_chance_node else state.legal_actions()[0]
...     log.append(GAME.redact(state, action, 0))
...     state = state.apply(action)
>>> guess = determinize(Variant(players=2), log, GAME.observe(state, 0), random.Random(9))
>>> GAME.observe(guess, 0) == GAME.observe(state, 0)
True
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from marsdice.attacks.actions import HIDDEN_DRAW, Action, Draw
from marsdice.attacks.cards import Ability
from marsdice.attacks.game import GAME
from marsdice.attacks.setup import new_game
from marsdice.attacks.state import State
from marsdice.attacks.variant import Variant
from marsdice.core.errors import MarsDiceError

__all__ = ["DeterminizeError", "determinize", "public_tops"]

#: applied steps the search may spend before it gives up
BUDGET: Final = 200_000
#: unseen cards with no public trace tried at one pick (they are interchangeable but for
#: Las Vegas, whose track moves by itself)
SPARE_PICKS: Final = 2
_NAMED: Final = re.compile(r"@([a-z0-9-]+)")
_MEMPHIS: Final = re.compile(r"memphis:(\d+)")

Tops = tuple[str | None, ...]


class DeterminizeError(MarsDiceError):
    """No state consistent with the log and the view was found (within the budget)."""

    exit_code = 1


def public_tops(view: Mapping[str, Any]) -> Tops:
    """The face-up card of each stack in a view (``None``: an empty stack)."""
    stacks = view["board"]["stacks"]
    return tuple(None if stack["card"] is None else str(stack["card"]["slug"]) for stack in stacks)


def determinize(
    variant: Variant,
    log: Sequence[str],
    view: Mapping[str, Any],
    rng: random.Random,
    *,
    tops: Mapping[int, Tops] | None = None,
    budget: int = BUDGET,
) -> State:
    """A state after ``log`` whose view for ``view["viewer"]`` equals ``view`` (its
    ``events`` included), the hidden cards a sample drawn with ``rng``. ``tops`` maps a
    version (steps played) to the face-up cards seen then, when known."""
    search = _Search(variant, log, view, rng, dict(tops or {}), budget)
    found = search.run()
    if found is None:
        raise DeterminizeError(
            f"no deal fits the table's log and view (tried {search.spent} steps)"
        )
    return found


class _Search:
    def __init__(
        self,
        variant: Variant,
        log: Sequence[str],
        view: Mapping[str, Any],
        rng: random.Random,
        tops: dict[int, Tops],
        budget: int,
    ) -> None:
        self.variant = variant
        self.log = list(log)
        self.view = _plain(view)
        self.viewer: int | None = view.get("viewer")
        self.rng = rng
        self.budget = budget
        self.spent = 0
        self.tops = tops
        self.tops[len(self.log)] = public_tops(view)
        self.index = {card.slug: i for i, card in enumerate(variant.cards)}
        board = view["board"]
        final = [self.index[slug] for slug in public_tops(view) if slug is not None]
        owned = [self.index[card["slug"]] for cards in board["owned"] for card in cards]
        marked = [self.index[t["card"]] for seat in board["tokens"] for t in seat]
        self.final_tops = public_tops(view)
        self.final_cards = list(dict.fromkeys([*final, *owned, *marked]))
        # the cards named from each step on, in order of first mention
        self.named: list[list[int]] = [[] for _ in range(len(self.log) + 1)]
        later: list[int] = []
        for i in range(len(self.log) - 1, -1, -1):
            here = [self.index[s] for s in _NAMED.findall(self.log[i]) if s in self.index]
            later = list(dict.fromkeys([*here, *later]))
            self.named[i] = later
        # the stacks' final sizes, less what Memphis adds from each step on: a stack that is
        # already that size loses no more cards, so (unless Oklahoma City may still cycle it)
        # its top is the final one
        self.final_sizes = [int(stack["size"]) for stack in board["stacks"]]
        self.added: list[list[int]] = [[0] * len(self.final_sizes)]
        self.cycles: list[bool] = [False]
        oklahoma = {c.slug for c in variant.cards if c.ability is Ability.OKLAHOMA_CITY}
        self.oklahoma = frozenset(self.index[slug] for slug in oklahoma)
        # a Memphis card joins its stack at the draw that follows ``memphis:N``
        joins: list[int | None] = [None] * len(self.log)
        chosen: int | None = None
        for i, text in enumerate(self.log):
            place = _MEMPHIS.fullmatch(text)
            if place is not None:
                chosen = int(place.group(1)) - 1
            elif text == HIDDEN_DRAW and chosen is not None:
                joins[i], chosen = chosen, None
        for i in range(len(self.log) - 1, -1, -1):
            added = list(self.added[0])
            where = joins[i]
            if where is not None and 0 <= where < len(added):
                added[where] += 1
            self.added.insert(0, added)
            named = set(_NAMED.findall(self.log[i]))
            self.cycles.insert(0, self.cycles[0] or bool(named & oklahoma))
        vegas = [i for i, card in enumerate(variant.cards) if card.ability is Ability.LAS_VEGAS]
        self.lively = frozenset(vegas)

    # -- the walk --

    def run(self) -> State | None:
        start = GAME.start(self.variant, self.rng)
        deal = [list(stack) for stack in start.stacks]
        return self._deal(deal, 0, frozenset())

    def _deal(self, deal: list[list[int]], s: int, seen: frozenset[int]) -> State | None:
        """Pick the opening face-up card of stack ``s`` and on."""
        if s == len(deal):
            state = new_game(self.variant, deal)
            if not self._tops_fit(state, 0):
                return None
            return self._walk(0, state, seen)
        if not deal[s]:
            return self._deal(deal, s + 1, seen)
        for card in self._candidates(0, s, seen, len(deal[s]), True):
            trial = [list(stack) for stack in deal]
            where = next((k for k, stack in enumerate(trial) if card in stack), None)
            if where is not None:
                position = trial[where].index(card)
                trial[where][position] = trial[s][0]
            trial[s][0] = card
            found = self._deal(trial, s + 1, seen | {card})
            if found is not None:
                return found
            if self.spent > self.budget:
                return None
        return None

    def _walk(self, i: int, state: State, seen: frozenset[int]) -> State | None:
        while i < len(self.log):
            self.spent += 1
            if self.spent > self.budget:
                return None
            try:
                action = self._action(state, self.log[i])
                after = state.apply(action)
            except (MarsDiceError, ValueError):
                return None
            if self._unseen(after, seen) is not None:
                return self._reveal(i, state, action, after, seen)
            if not self._tops_fit(after, i + 1) or not self._sizes_fit(after, i + 1):
                return None
            state, i = after, i + 1
        return state if self._fits_view(state) else None

    def _reveal(
        self, i: int, before: State, action: Action, after: State, seen: frozenset[int]
    ) -> State | None:
        """Step ``i`` turned up an unseen card: try each candidate in its place."""
        s = self._unseen(after, seen)
        if s is None:
            if not self._tops_fit(after, i + 1) or not self._sizes_fit(after, i + 1):
                return None
            return self._walk(i + 1, after, seen)
        shown = after.stacks[s][0]
        cycles = self._may_cycle(after, i + 1)
        for card in self._candidates(i + 1, s, seen, len(after.stacks[s]), cycles):
            trial = _swap(before, shown, card)
            try:
                again = trial.apply(action)
            except (MarsDiceError, ValueError):
                continue
            if not again.stacks[s] or again.stacks[s][0] != card:
                continue
            found = self._reveal(i, trial, action, again, seen | {card})
            if found is not None:
                return found
            if self.spent > self.budget:
                return None
        return None

    # -- helpers --

    def _action(self, state: State, text: str) -> Action:
        if text == HIDDEN_DRAW:  # any card of the box: which one is hidden
            if not state.box:
                raise ValueError("a draw from an empty box")
            return Draw(state.slug(state.box[0]))
        return state.parse_action(text)

    @staticmethod
    def _unseen(state: State, seen: frozenset[int]) -> int | None:
        for s, stack in enumerate(state.stacks):
            if stack and stack[0] not in seen:
                return s
        return None

    def _candidates(
        self, version: int, s: int, seen: frozenset[int], size: int, cycles: bool
    ) -> Iterator[int]:
        """Unseen cards for stack ``s``'s new top at ``version``, likeliest first."""
        known = self.tops.get(version)
        if known is not None:
            slug = known[s]
            card = None if slug is None else self.index.get(slug)
            if card is not None and card not in seen:
                yield card
            return
        tried: set[int] = set()
        final = self.final_tops[s]
        first = [] if final is None else [self.index[final]]
        if self._settled(s, version, size):  # this stack loses no more cards: its final top
            for card in first:
                if card not in seen:
                    yield card
            if not cycles:
                return
        for card in [*self.named[version], *first, *self.final_cards]:
            if card not in seen and card not in tried:
                tried.add(card)
                yield card
        spare = [c for c in range(len(self.variant.cards)) if c not in seen and c not in tried]
        self.rng.shuffle(spare)
        quiet = [c for c in spare if c not in self.lively][:SPARE_PICKS]
        yield from quiet + [c for c in spare if c in self.lively]

    def _may_cycle(self, state: State, version: int) -> bool:
        """Oklahoma City may still be captured: it is named later, or face up now (a
        target is named once and may be captured on a later roll)."""
        if self.cycles[version]:
            return True
        return any(c is not None and c in self.oklahoma for c in state.face_up)

    def _settled(self, s: int, version: int, size: int) -> bool:
        """Whether stack ``s`` (of ``size`` cards at ``version``) has no capture left."""
        return size + self.added[version][s] == self.final_sizes[s]

    def _sizes_fit(self, state: State, version: int) -> bool:
        """Stacks only shrink by captures: none may already be below its final size (less
        what Memphis will add); one at that size keeps its final top (unless Oklahoma City
        may still be captured and cycle it)."""
        cycles = self._may_cycle(state, version)
        for s, stack in enumerate(state.stacks):
            need = self.final_sizes[s] - self.added[version][s]
            if len(stack) < need:
                return False
            if len(stack) == need and not cycles and stack:
                final = self.final_tops[s]
                if final is None or state.slug(stack[0]) != final:
                    return False
        return True

    def _tops_fit(self, state: State, version: int) -> bool:
        known = self.tops.get(version)
        if known is None:
            return True
        return tuple(None if c is None else state.slug(c) for c in state.face_up) == known

    def _fits_view(self, state: State) -> bool:
        return bool(_plain(GAME.observe(state, self.viewer)) == self.view)


def _plain(value: object) -> Any:
    """JSON's own form (tuples become lists), as a view arrives over the wire."""
    return json.loads(json.dumps(value))


def _swap(state: State, one: int, other: int) -> State:
    """``state`` with two hidden cards' places exchanged (the public view is unchanged)."""
    if one == other:
        return state

    def place(card: int) -> int:
        return other if card == one else one if card == other else card

    stacks = tuple(tuple(place(c) for c in stack) for stack in state.stacks)
    box = tuple(place(c) for c in state.box)
    return replace(state, stacks=stacks, box=box)
