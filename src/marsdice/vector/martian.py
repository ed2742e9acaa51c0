"""Martian Dice for many games at once: N tables stepped together with numpy arrays.

The scalar engine (:mod:`marsdice.martian.rules`) makes one immutable state per step; a
learner that wants millions of steps a second steps arrays instead. :class:`MartianVectorEnv`
holds N games as arrays (scores, dice set aside, the roll to choose from, the seat to act,
the phase) and advances every one of them by one player decision per :meth:`step`:

- **actions**: an int array of N action indices in the game's own encoding (the order of
  :data:`marsdice.martian.game.ACTIONS`: rays, humans, cows, chickens, stop, roll);
- **masks**: an (N, 6) bool array of the legal actions of each game's seat to act
  (an illegal action raises :class:`ValueError` and changes nothing);
- **rewards**: an (N, players) float array, zero but at the step that ends a game, where it
  is the game's :meth:`~marsdice.martian.rules.State.returns` (1 shared among the winners;
  solo, minus the turns taken); ``done`` marks those games, which start again at once (the
  observation after the step is the new game's).

Chance is resolved inside the step, exactly as the rules have it: a roll after ``roll`` and
at the start of every turn (a roll with nothing to take scores the turn and the next seat
rolls), and the Death Ray roll-off of a tie at the end, repeated or single as the variant
says. **The dice**: every roll is one integer drawn below 2**53 from one numpy
:class:`~numpy.random.Generator` seeded with the ``seed`` given, mapped to face counts
through the engine's own list of outcomes (:class:`RollTable`); games are rolled in index
order, roll-off contenders in seat order. Those draws are the whole randomness: with
``record=True`` the env keeps each game's rolls in order (:meth:`rolls`), and the scalar
engine, given the same rolls as scripted dice (:class:`~marsdice.martian.rules.Roll`
actions), goes through the very same states, masks and returns
(``tests/test_vector_martian.py`` replays every game so).

>>> from marsdice.martian import Variant
>>> env = MartianVectorEnv(4, Variant(players=2), seed=1)
>>> obs, mask = env.reset()
>>> obs.shape, mask.shape
((4, 15), (4, 6))
>>> actions = mask.argmax(axis=1)  # the first legal action of each game
>>> obs, rewards, done, mask = env.step(actions)
>>> rewards.shape, done.dtype.name
((4, 2), 'bool')
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from marsdice.core.dice import dice_outcomes
from marsdice.core.game import index_value
from marsdice.martian.rules import (
    BONUS,
    FACE_PROBABILITIES,
    FACES,
    RolloffMode,
    Variant,
)

__all__ = ["ACTION_COUNT", "CHOOSE", "DECIDE", "MartianVectorEnv", "observation_labels"]

#: the action space: take rays, humans, cows, chickens; stop; roll again
ACTION_COUNT: Final = 6
STOP_ACTION: Final = 4
ROLL_ACTION: Final = 5
#: the phase codes of :attr:`MartianVectorEnv.phase` (every game is always at a decision)
CHOOSE: Final = 1
DECIDE: Final = 2

_TANK, _RAY = 0, 1
_EARTHLINGS: Final = (2, 3, 4)
_BITS: Final = 53
_SCALE: Final = 1 << _BITS

IntArray = npt.NDArray[np.integer[Any]]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]


def observation_labels(players: int) -> tuple[str, ...]:
    """What each column of an observation holds, for ``players`` seats."""
    return (
        *(f"score_{seat}" for seat in range(players)),
        *(f"aside_{face.name.lower()}" for face in FACES),
        *(f"rolled_{face.name.lower()}" for face in FACES),
        "seat",
        "phase",
        "last_round",
    )


class MartianVectorEnv:
    """N games of one Martian Dice variant, stepped together (see the module)."""

    def __init__(
        self, n: int, variant: Variant | None = None, *, seed: int = 0, record: bool = False
    ) -> None:
        count = index_value(n)
        if count is None or count < 1:
            raise ValueError(f"the number of games must be a whole number of at least 1, got {n!r}")
        if variant is not None and not isinstance(variant, Variant):
            raise TypeError(f"variant must be a Martian Dice Variant, got {type(variant).__name__}")
        if not isinstance(record, bool):
            raise TypeError(f"record must be True or False, got {record!r}")
        n = count
        self.n = n
        self.variant = variant if variant is not None else Variant()
        self.players = self.variant.players
        self.seed = _seed(seed)
        self.record = record
        self._rows = np.arange(n)
        self.table = roll_table(
            tuple(sorted({*range(1, self.variant.dice + 1), self.variant.rolloff_dice}))
        )
        self.reset(seed)

    # -- the public interface --

    def reset(self, seed: int | None = None) -> tuple[IntArray, BoolArray]:
        """Every game from its opening (the first roll made); the observations and masks.
        ``seed`` restarts the dice stream (None: keep the current one)."""
        if seed is not None:
            self.seed = _seed(seed)  # refused before anything changes
            self.rng = np.random.default_rng(self.seed)
        n, players = self.n, self.players
        # one int32 buffer holds every observed field (the observation is a copy of it)
        self._buffer = np.zeros((n, players + 2 * len(FACES) + 3), dtype=np.int32)
        at = players + 2 * len(FACES)
        self.scores = self._buffer[:, :players]
        self.aside = self._buffer[:, players : players + len(FACES)]
        self.rolled = self._buffer[:, players + len(FACES) : at]
        self.seat = self._buffer[:, at]
        self.phase = self._buffer[:, at + 1]
        self.last_round = self._buffer[:, at + 2]
        self.turns = np.zeros((n, players), dtype=np.int32)
        self._log: list[tuple[IntArray, IntArray]] = []
        self._rewards = np.zeros((n, players), dtype=np.float64)
        self._done = np.zeros(n, dtype=np.bool_)
        self._roll(self._rows)
        return self.observation(), self.mask()

    def step(self, actions: npt.ArrayLike) -> tuple[IntArray, FloatArray, BoolArray, BoolArray]:
        """Play one decision in every game: ``(observations, rewards, done, masks)``."""
        a = np.asarray(actions)
        if a.shape != (self.n,):
            raise ValueError(f"actions must be {self.n} whole numbers, got shape {a.shape}")
        if not np.issubdtype(a.dtype, np.integer):  # a float or a bool is not an action index
            raise ValueError(f"actions must be whole numbers, got an array of {a.dtype}")
        if a.min() < 0 or a.max() >= ACTION_COUNT:
            raise ValueError(f"actions are 0-{ACTION_COUNT - 1}")
        legal = self.mask()[self._rows, a]
        if not legal.all():
            bad = int(np.flatnonzero(~legal)[0])
            raise ValueError(f"action {int(a[bad])} is not legal in game {bad}")
        self._rewards = np.zeros((self.n, self.players), dtype=np.float64)
        self._done = np.zeros(self.n, dtype=np.bool_)
        take = a < STOP_ACTION
        if take.any():
            rows = np.flatnonzero(take)
            faces = a[rows] + 1
            self.aside[rows, faces] += self.rolled[rows, faces]
            self.rolled[rows] = 0
            self.phase[rows] = DECIDE
            emptied = rows[self.aside[rows].sum(axis=1) == self.variant.dice]
            if emptied.size:
                self._end_turns(emptied)
        stop = np.flatnonzero(a == STOP_ACTION)
        if stop.size:
            self._end_turns(stop)
        again = np.flatnonzero(a == ROLL_ACTION)
        if again.size:
            self._roll(again)
        return self.observation(), self._rewards, self._done, self.mask()

    def mask(self) -> BoolArray:
        """The legal actions of each game's seat to act, (N, 6)."""
        out = np.zeros((self.n, ACTION_COUNT), dtype=np.bool_)
        choose = self.phase == CHOOSE
        out[:, 0] = choose & (self.rolled[:, _RAY] > 0)
        for column, face in enumerate(_EARTHLINGS, start=1):
            out[:, column] = choose & (self.rolled[:, face] > 0) & (self.aside[:, face] == 0)
        decide = self.phase == DECIDE
        out[:, STOP_ACTION] = decide
        out[:, ROLL_ACTION] = decide
        return out

    def observation(self) -> IntArray:
        """Each game's position as a row of :func:`observation_labels` (a copy)."""
        return self._buffer.copy()

    def rolls(self, game: int) -> list[tuple[int, ...]]:
        """Every roll of game index ``game`` since :meth:`reset` (``record=True`` only), in
        the order drawn, as face counts: the scripted dice of a scalar replay."""
        if not self.record:
            raise ValueError("the env keeps its rolls only when built with record=True")
        index = index_value(game)
        if index is None or not 0 <= index < self.n:
            raise ValueError(f"game must be 0-{self.n - 1}, got {game!r}")
        game = index
        out: list[tuple[int, ...]] = []
        for games, counts in self._log:
            for row in np.flatnonzero(games == game):
                out.append(tuple(int(c) for c in counts[row]))
        return out

    # -- the rules, on arrays --

    def _draw(self, rows: IntArray, dice: IntArray | int) -> IntArray:
        """One roll of ``dice`` dice per game of ``rows`` (see :class:`RollTable`)."""
        counts = self.table.draw(self.rng, np.broadcast_to(dice, rows.shape))
        if self.record:
            self._log.append((rows.copy(), counts))
        return counts

    def _roll(self, rows: IntArray) -> None:
        """Roll the dice left in these games; a roll with nothing to take ends the turn and
        the next seat rolls, until every game is at a choice."""
        while rows.size:
            left = self.variant.dice - self.aside[rows].sum(axis=1)
            counts = self._draw(rows, left)
            self.aside[rows, _TANK] += counts[:, _TANK]
            self.rolled[rows] = counts
            self.phase[rows] = CHOOSE
            aside = self.aside[rows]
            can = counts[:, _RAY] > 0
            for face in _EARTHLINGS:
                can |= (counts[:, face] > 0) & (aside[:, face] == 0)
            stuck = rows[~can]
            if not stuck.size:
                return
            self.rolled[stuck] = 0
            rows = self._end_turns(stuck, roll=False)

    def _end_turns(self, rows: IntArray, *, roll: bool = True) -> IntArray:
        """Score the turns of these games and pass on (or end the game); the games whose
        next seat must roll (rolled here unless ``roll`` is False, then returned)."""
        variant = self.variant
        aside = self.aside[rows]
        earthlings = aside[:, list(_EARTHLINGS)]
        points = earthlings.sum(axis=1) + BONUS * (earthlings > 0).all(axis=1)
        points[aside[:, _TANK] > aside[:, _RAY]] = 0
        seat = self.seat[rows]
        self.scores[rows, seat] += points
        self.turns[rows, seat] += 1
        self.aside[rows] = 0
        self.rolled[rows] = 0
        reached = self.scores[rows, seat] >= variant.target
        if variant.solo:
            over = reached
        else:
            triggered = (self.last_round[rows] > 0) | reached
            over = triggered & (seat == self.players - 1)
            self.last_round[rows] = triggered
            self.seat[rows] = (seat + 1) % self.players
        finished = rows[over]
        if finished.size:
            self._finish(finished)
        if roll:
            self._roll(rows)
            return rows[:0]
        return rows

    def _finish(self, rows: IntArray) -> None:
        """Game over in these games: the winners (a roll-off for a tie), the rewards, and a
        fresh game in their place (its first roll made by the caller)."""
        scores = self.scores[rows]
        if self.variant.solo:
            self._rewards[rows, 0] = -self.turns[rows, 0].astype(np.float64)
        else:
            contenders = scores == scores.max(axis=1, keepdims=True)
            contenders = self._rolloff(rows, contenders)
            share = 1.0 / contenders.sum(axis=1, keepdims=True)
            self._rewards[rows] = contenders * share
        self._done[rows] = True
        self.scores[rows] = 0
        self.turns[rows] = 0
        self.seat[rows] = 0
        self.last_round[rows] = 0

    def _rolloff(self, rows: IntArray, contenders: BoolArray) -> BoolArray:
        """Death Ray roll-offs among tied seats (each rolls in seat order), repeated while
        the best stay tied unless the variant's roll-off is single."""
        tied = np.flatnonzero(contenders.sum(axis=1) > 1)
        while tied.size:
            seats = contenders[tied]
            which, seat = np.nonzero(seats)  # row-major: each game's seats in order
            counts = self._draw(rows[tied[which]], self.variant.rolloff_dice)
            rays = np.full(seats.shape, -1, dtype=np.int64)
            rays[which, seat] = counts[:, _RAY]
            contenders[tied] = rays == rays.max(axis=1, keepdims=True)
            if self.variant.rolloff_mode is RolloffMode.SINGLE:
                return contenders
            tied = tied[contenders[tied].sum(axis=1) > 1]
        return contenders


class RollTable:
    """Every outcome of rolling n dice (the engine's own list, :func:`dice_outcomes`, in its
    order) for each n asked for, as one sorted table of 53-bit integer keys: a roll of n dice
    is one integer ``u`` drawn uniformly below 2**53 (``Generator.integers``), and its outcome
    is the first of n's outcomes whose cumulative probability times 2**53 exceeds ``u``.
    Each outcome's chance is exact to 2**-53; a draw is one binary search."""

    def __init__(self, counts: Sequence[int]) -> None:
        keys: list[int] = []
        outcomes: list[tuple[int, ...]] = []
        for n in sorted(counts):
            cumulative = Fraction(0)
            for roll, p in dice_outcomes(n, FACE_PROBABILITIES):
                cumulative += p
                keys.append((n << _BITS) + int(cumulative * _SCALE))
                outcomes.append(roll)
        self.keys = np.array(keys, dtype=np.int64)
        self.outcomes = np.array(outcomes, dtype=np.int32)

    def draw(self, rng: np.random.Generator, dice: IntArray) -> IntArray:
        """One outcome per entry of ``dice`` (how many dice each roll has), (k, 5)."""
        u = rng.integers(0, _SCALE, size=dice.shape, dtype=np.int64)
        index = np.searchsorted(self.keys, (dice.astype(np.int64) << _BITS) + u, side="right")
        return self.outcomes[index]


def _seed(seed: object) -> int:
    """A seed for the dice stream: a whole number of 0 or more (numpy's rule), else refused."""
    whole = index_value(seed)
    if whole is None or whole < 0:
        raise ValueError(f"seed must be a whole number of 0 or more, got {seed!r}")
    return whole


@cache
def roll_table(counts: tuple[int, ...]) -> RollTable:
    """The :class:`RollTable` of these dice counts, built once per process."""
    return RollTable(counts)


def random_actions(mask: BoolArray, rng: np.random.Generator) -> IntArray:
    """A uniformly random legal action per game (the bench's and the tests' policy)."""
    keys = rng.random(mask.shape)
    keys[~mask] = -1.0
    actions: IntArray = keys.argmax(axis=1)
    return actions
