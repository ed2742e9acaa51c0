"""Walk a recorded game and review every decision and chance step.

The game's valuator (exact solvers for Martian Dice, the planner's estimates for Mars
Attacks) is imported only when a review is asked for, so importing :mod:`marsdice.review`
stays light (no numpy).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from marsdice.core.errors import MarsDiceError, RecordError
from marsdice.core.game import Action, Game, GameState
from marsdice.games import provider, read_record
from marsdice.review.model import (
    ZERO_LOSS,
    Choice,
    Decision,
    LuckStep,
    Mark,
    Method,
    Review,
    Thresholds,
    move_accuracy,
    summarize,
)


class Valuator(Protocol):
    """What the review needs from a game: values of moves and of rolls, in one unit."""

    @property
    def method(self) -> Method: ...

    @property
    def estimate(self) -> bool: ...

    @property
    def unit(self) -> str: ...

    @property
    def higher_is_better(self) -> bool: ...

    @property
    def thresholds(self) -> Thresholds: ...

    def values(self, state: GameState) -> list[tuple[Action, float | None]]: ...

    def chance(self, before: GameState, outcome: Action) -> tuple[int, float, float] | None: ...

    def describe(self, state: GameState) -> str: ...

    def blunders(self, state: GameState, choices: Sequence[Choice]) -> tuple[bool, ...]:
        """Which of a decision's moves the fool check flags (live advice, ``blunder``)."""
        ...


def valuator_for(game: Game, start: GameState) -> Valuator:
    """The valuator the game's registration names (imports its solver only now)."""
    factory = provider(game, "valuator")
    valuator: Valuator = factory(game, start)
    return valuator


def review_game(
    game: Game,
    start: GameState,
    moves: Sequence[Action | str],
    players: Sequence[str] | None = None,
) -> Review:
    """Review a game from its opening: every decision with each legal move's value, the
    best move and the played move's loss, every roll's luck, and each player's figures.

    ``moves`` are actions or their notation (as a record holds them); a move that does not
    apply raises :class:`RecordError` naming it. A game that stops before its end is
    reviewed as far as it goes.
    """
    names = tuple(players) if players else tuple(f"Player{i + 1}" for i in range(start.players))
    if len(names) != start.players:
        raise RecordError(f"{start.players} players in the game but {len(names)} names")
    valuator = valuator_for(game, start)
    decisions: list[Decision] = []
    luck: list[LuckStep] = []
    state = start
    for index, move in enumerate(moves, start=1):
        text = move if isinstance(move, str) else move.text()
        if state.is_terminal:
            raise RecordError(f"move {index} ({text!r}): the game was already over")
        try:
            # read back in context: the canonical action (Mars Attacks' reroll of every
            # head has one value however it was built)
            action = state.parse_action(text)
            after = state.apply(action)
        except MarsDiceError as error:
            raise RecordError(f"move {index} ({text!r}): {error}") from None
        if state.is_chance_node:
            found = valuator.chance(state, action)
            if found is not None:
                seat, before, got = found
                gain = got - before if valuator.higher_is_better else before - got
                luck.append(LuckStep(index, seat, names[seat], action.text(), before, got, gain))
        else:
            decisions.append(_decision(valuator, state, action, index, names))
        state = after
    variant = game.variant_to_params(game.variant_of(start))
    return Review(
        game=game.name,
        title=game.title,
        variant=variant,
        players=names,
        result=game.result_text(state, names),
        finished=state.is_terminal,
        method=valuator.method,
        estimate=valuator.estimate,
        unit=valuator.unit,
        higher_is_better=valuator.higher_is_better,
        thresholds=valuator.thresholds,
        decisions=tuple(decisions),
        luck=tuple(luck),
        summaries=summarize(names, tuple(decisions), tuple(luck)),
        scores=tuple(state.scores),
        winners=tuple(state.winners) if state.is_terminal else (),
    )


def review_record(text: str) -> Review:
    """Review a game record's text (any known game); RecordError for a bad record."""
    game, record = read_record(text)
    return review_game(game, game.opening(record), record.moves, record.players)


def position_choices(valuator: Valuator, state: GameState) -> tuple[Choice, ...]:
    """One decision's legal moves, each with its value and its loss against the best, as
    the review rates them (for live advice: :func:`valuator_for` gives the valuator, its
    ``thresholds.mark(loss)`` the mark)."""
    values = valuator.values(state)
    _, best_value = _best(valuator, values)
    return tuple(
        Choice(move.text(), value, _loss(valuator, best_value, value)) for move, value in values
    )


def _best(
    valuator: Valuator, values: Sequence[tuple[Action, float | None]]
) -> tuple[Action | None, float | None]:
    """The best rated move and its value (None, None when no move has a value)."""
    sign = 1.0 if valuator.higher_is_better else -1.0
    rated = [(move, value) for move, value in values if value is not None]
    if not rated:
        return None, None
    return max(rated, key=lambda item: sign * item[1])


def _loss(valuator: Valuator, best_value: float | None, value: float | None) -> float | None:
    """How much worse ``value`` is than the best (0 within :data:`ZERO_LOSS`)."""
    if value is None or best_value is None:
        return None
    sign = 1.0 if valuator.higher_is_better else -1.0
    loss = sign * (best_value - value)
    return 0.0 if loss <= ZERO_LOSS else loss


def _decision(
    valuator: Valuator, state: GameState, action: Action, index: int, names: Sequence[str]
) -> Decision:
    seat = state.current_player
    values = valuator.values(state)
    played = next(
        (value for move, value in values if move == action or move.text() == action.text()),
        None,
    )
    best_move, best_value = _best(valuator, values)

    def loss_of(value: float | None) -> float | None:
        return _loss(valuator, best_value, value)

    loss = loss_of(played)
    if loss == 0.0:  # a tie with the best is the best: name the move played
        best_move, best_value = action, played
    forced = len(values) == 1
    mark: Mark
    if forced:
        mark = "forced"
    elif loss is None:
        mark = "unrated"
    else:
        mark = valuator.thresholds.mark(loss)
    accuracy = None if forced or loss is None else move_accuracy(loss, valuator.thresholds)
    return Decision(
        index=index,
        seat=seat,
        player=names[seat],
        turn=state.turns[seat] + 1,
        round=state.rounds,
        position=valuator.describe(state),
        played=action.text(),
        best=None if best_move is None else best_move.text(),
        value=played,
        best_value=best_value,
        loss=loss,
        mark=mark,
        accuracy=accuracy,
        choices=tuple(Choice(move.text(), value, loss_of(value)) for move, value in values),
    )
