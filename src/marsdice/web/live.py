"""A started table's game in this process: rebuilt from the stored deal and step log
(:func:`marsdice.storage.tables.read_log`), then extended one step at a time, by the steps
this process stores and by those it reads back after another process stored them. Storage
only writes and reads rows; the in-memory game is the server's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from marsdice.core.game import Action, Game, GameState
from marsdice.fair import FairRandom
from marsdice.games import get_game
from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.storage.tables import NotFinishedError, StorageError, StoredStep, TableData


@dataclass(slots=True)
class Live:
    """The game of one started table: every action and state so far, who made each step,
    and the fair generator's counter after the last one."""

    table: TableData
    game: Game
    start: GameState
    actions: list[Action] = field(default_factory=list)
    states: list[GameState] = field(default_factory=list)
    actors: list[tuple[str, int | None]] = field(default_factory=list)
    counter: int = 0

    @classmethod
    def rebuild(cls, table: TableData, steps: Sequence[StoredStep]) -> Live | None:
        """The table's game from its deal and ``steps`` (the whole log; None before the
        start). The engine checks every step again on the way."""
        if table.setup is None:
            return None
        game = get_game(table.game)
        live = cls(table, game, game.opening(table.opening_record()), counter=table.start_counter)
        for step in steps:
            live.extend(step)
        return live

    @property
    def version(self) -> int:
        """Steps stored so far; a client's action must carry this number."""
        return len(self.actions)

    @property
    def state(self) -> GameState:
        return self.states[-1] if self.states else self.start

    def rng(self, counter: int | None = None) -> FairRandom:
        """The fair generator, resumed where the last step left it (or at ``counter``)."""
        at = self.counter if counter is None else counter
        return FairRandom(self.table.server_seed, self.table.player_seeds, at)

    def extend(self, step: StoredStep) -> None:
        """Apply one step read from the log (the engine checks it again)."""
        if step.seq != self.version:
            raise StorageError(
                f"table {self.table.id}: step {self.version} is missing from the log"
            )
        action = self.state.parse_action(step.action)
        self.played(step, action, self.state.apply(action))

    def played(
        self, step: StoredStep, action: Action, after: GameState, table: TableData | None = None
    ) -> None:
        """Add a step already applied (``action`` led to ``after``) and stored; ``table`` is
        the row as storing it left it."""
        if table is not None:
            self.table = table
        self.actions.append(action)
        self.states.append(after)
        self.actors.append((step.actor, step.seat))
        self.counter = step.rng_counter

    def next_step(
        self, action: Action, *, actor: str, seat: int | None, counter: int
    ) -> StoredStep:
        """The row that stores ``action`` as the next step (``counter``: the generator's
        after it)."""
        return StoredStep(self.version, action.text(), actor, seat, counter)

    def state_before(self, index: int) -> GameState:
        return self.start if index == 0 else self.states[index - 1]

    def redacted_log(self, viewer: int | None) -> list[str]:
        return [
            self.game.redact(self.state_before(i), action, viewer)
            for i, action in enumerate(self.actions)
        ]

    def moves(self) -> list[str]:
        return [action.text() for action in self.actions]


def load_live(db: Database, table_id: str) -> Live | None:
    """The table's game rebuilt from the database (None before the start)."""
    table, steps = tables.read_log(db, table_id)
    return Live.rebuild(table, steps)


def finished_live(db: Database, table_id: str) -> Live:
    """A finished table's whole game; :class:`NotFinishedError` before its end."""
    live = load_live(db, table_id)
    if live is None or live.table.status != tables.FINISHED:
        raise NotFinishedError(f"table {table_id} has not finished: this comes at the end")
    return live
