"""Fixed-size observation vectors built from player views (:meth:`Game.observe`), the shape
every game's research encoder shares.

A game's encoder (its registration's ``encoder`` provider, ``factory(variant, max_moves)``)
is an :class:`Encoder`: ``labels`` (what each index means, listed in ``docs/research.md``),
the bounds of each entry (``high``; every entry is at least 0) and :meth:`Encoder.encode`,
which turns a view into floats. Everything comes from the view, so nothing a seat may not
see can leak into its vector.

Seats are *relative*: entry "seat +k" is the seat k places after the viewer (+0 is the
viewer itself), so one policy can play any seat. A spectator (``viewer=None``) sees seat 0
as +0. All values are counts or 0/1 flags; nothing is scaled. The helpers below read a
view's JSON values and lay the vector out the same way for every game. Standard library
only.

>>> layout = Layout()
>>> layout.seats("score", 2, 10)
>>> layout.flags("phase", ("roll", "over"))
>>> enc = layout.done(lambda view, viewer: [*relative([3, 5], viewer), *one_hot(1, 2)])
>>> enc.labels, enc.high
(('score seat+0', 'score seat+1', 'phase roll', 'phase over'), (10.0, 10.0, 1.0, 1.0))
>>> enc.encode({"viewer": 1})
[5.0, 3.0, 0.0, 1.0]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from marsdice.core.game import JSON, JSONObject

#: fills a view's vector; the second argument is the seat shown as +0
Fill = Callable[[JSONObject, int], list[float]]
#: fills the information-state part from the :meth:`~marsdice.core.game.Game.memo` of every
#: view a seat has seen, oldest first
Recall = Callable[[Sequence[JSON]], list[float]]


@dataclass(frozen=True, slots=True)
class Encoder:
    """A game variant's observation vector: labels, upper bounds, and the encoding.

    ``counters`` are the indices of the turn counters (entries that grow with the game's
    length, bounded only by the move cap), which :meth:`without_counters` leaves out.
    ``recall_labels``/``recall_high``/``recall`` are the information-state part: what a
    seat remembers from the views it saw (a perfect-information game has none).
    """

    labels: tuple[str, ...]
    high: tuple[float, ...]
    fill: Fill
    counters: tuple[int, ...] = ()
    recall_labels: tuple[str, ...] = ()
    recall_high: tuple[float, ...] = ()
    recall: Recall | None = None

    @property
    def size(self) -> int:
        return len(self.labels)

    def without_counters(self) -> Encoder:
        """The same vector without the turn counters (so that it does not grow with the
        game's length).

        >>> layout = Layout()
        >>> layout.add("score", 9)
        >>> layout.add("turns", 99, counter=True)
        >>> enc = layout.done(lambda view, viewer: [1.0, 7.0]).without_counters()
        >>> enc.labels, enc.encode({"viewer": 0})
        (('score',), [1.0])
        """
        if not self.counters:
            return self
        gone = frozenset(self.counters)
        keep = tuple(i for i in range(self.size) if i not in gone)
        inner = self.fill

        def fill(view: JSONObject, viewer: int) -> list[float]:
            values = inner(view, viewer)
            return [values[i] for i in keep]

        return Encoder(
            tuple(self.labels[i] for i in keep),
            tuple(self.high[i] for i in keep),
            fill,
            (),
            self.recall_labels,
            self.recall_high,
            self.recall,
        )

    def remember(self, memos: Sequence[JSON]) -> list[float]:
        """The information-state part from the memos of the views seen (empty without)."""
        if self.recall is None:
            return []
        values = self.recall(memos)
        assert len(values) == len(self.recall_labels), (len(values), len(self.recall_labels))
        return values

    def encode(self, view: JSONObject) -> list[float]:
        """The vector of a view (its ``viewer`` is seat +0)."""
        viewer = view["viewer"]
        values = self.fill(view, viewer if isinstance(viewer, int) else 0)
        assert len(values) == self.size, (len(values), self.size)
        return values


class Layout:
    """Collects labels and bounds in the order the values are written, so the two cannot
    drift apart."""

    def __init__(self) -> None:
        self.labels: list[str] = []
        self.high: list[float] = []
        self.counters: list[int] = []
        self.recall_labels: list[str] = []
        self.recall_high: list[float] = []

    def add(self, label: str, high: float, *, counter: bool = False) -> None:
        if counter:
            self.counters.append(len(self.labels))
        self.labels.append(label)
        self.high.append(float(high))

    def seats(self, what: str, players: int, high: float, *, counter: bool = False) -> None:
        for k in range(players):
            self.add(f"{what} seat+{k}", high, counter=counter)

    def flags(self, what: str, names: Sequence[str]) -> None:
        for name in names:
            self.add(f"{what} {name}", 1)

    def remembers(self, label: str, high: float) -> None:
        """One entry of the information-state part (see :class:`Encoder`)."""
        self.recall_labels.append(label)
        self.recall_high.append(float(high))

    def done(self, fill: Fill, recall: Recall | None = None) -> Encoder:
        return Encoder(
            tuple(self.labels),
            tuple(self.high),
            fill,
            tuple(self.counters),
            tuple(self.recall_labels),
            tuple(self.recall_high),
            recall,
        )


# --- reading a view's JSON values ------------------------------------------------------------


def ints(value: JSON) -> list[int]:
    """The whole numbers of a JSON list."""
    assert isinstance(value, list)
    return [int(v) for v in value if isinstance(v, int)]


def obj(value: JSON) -> JSONObject:
    assert isinstance(value, dict)
    return value


def items(value: JSON) -> list[JSON]:
    assert isinstance(value, list)
    return value


def lists(value: JSON) -> list[list[JSON]]:
    """A JSON list of lists (anything else in it reads as empty)."""
    assert isinstance(value, list)
    return [item if isinstance(item, list) else [] for item in value]


def num(value: JSON) -> float:
    """A number, ``None`` (not there yet) as 0."""
    if value is None:
        return 0.0
    assert isinstance(value, int | float), value
    return float(value)


# --- laying values out -----------------------------------------------------------------------


def relative(values: Sequence[float], viewer: int) -> list[float]:
    """Per-seat values reordered so the viewer comes first."""
    n = len(values)
    return [float(values[(viewer + k) % n]) for k in range(n)]


def one_hot(index: int | None, size: int) -> list[float]:
    """A flag at ``index`` (none when it is None or out of range)."""
    out = [0.0] * size
    if index is not None and 0 <= index < size:
        out[index] = 1.0
    return out


def seat_one_hot(seat: int | None, viewer: int, players: int) -> list[float]:
    """A flag at a seat's relative place (none for no seat)."""
    return one_hot(None if seat is None or seat < 0 else (seat - viewer) % players, players)
