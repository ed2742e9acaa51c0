"""Bot-against-bot series for either game: seeded, seat-rotating, parallel, with confidence
intervals.

Game ``i`` of a series is played with the dice seeded from ``(seed, i)`` and the line-up rotated
by ``i`` seats, so results do not depend on the number of worker processes and every bot sits in
every seat equally often.

>>> result = run_tournament("martian", ["cautious", "random"], games=4, seed=1)
>>> [s.name for s in result.standings], result.games
(['cautious', 'random'], 4)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from marsdice.bots import make_bot
from marsdice.games import game_module

#: z for a two-sided 95% interval
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game: the line-up by seat and what each seat got."""

    index: int
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    returns: tuple[float, ...]
    rounds: int


@dataclass(frozen=True, slots=True)
class Standing:
    """A bot's results over the series; ``wins`` counts a shared win as a fraction."""

    name: str
    games: int
    wins: float
    win_rate: float
    ci_low: float
    ci_high: float
    mean_score: float


@dataclass(frozen=True, slots=True)
class TournamentResult:
    game: str
    lineup: tuple[str, ...]
    games: int
    seed: int
    standings: tuple[Standing, ...]
    mean_rounds: float
    results: tuple[GameResult, ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion: sound near 0 and 1, unlike the normal one.

    >>> low, high = wilson_interval(50, 100)
    >>> round(low, 3), round(high, 3)
    (0.404, 0.596)
    """
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_one(game: str, lineup: Sequence[str], index: int, seed: int, variant: Any) -> GameResult:
    """Play game ``index`` of a series to the end."""
    module = game_module(game)
    shift = index % len(lineup)
    seats = tuple(lineup[shift:]) + tuple(lineup[:shift])
    rng = random.Random(f"{seed}:{index}")
    bots = [make_bot(game, name, seed=rng.randrange(2**32)) for name in seats]
    state = module.start(variant, rng)
    while not state.is_terminal:
        if state.is_chance_node:
            action = state.sample_chance(rng)
        else:
            action = bots[state.current_player].choose(state)
        state = state.apply(action)
    turns = getattr(state, "turns", None)
    rounds = max(turns) if isinstance(turns, tuple) and turns else 0
    return GameResult(index, seats, tuple(state.scores), tuple(state.returns()), rounds)


def _play_chunk(args: tuple[str, tuple[str, ...], range, int, Any]) -> list[GameResult]:
    game, lineup, indices, seed, variant = args
    return [play_one(game, lineup, i, seed, variant) for i in indices]


def run_tournament(
    game: str,
    lineup: Sequence[str],
    *,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    variant: Any = None,
    progress: Callable[[int], None] | None = None,
) -> TournamentResult:
    """Play ``games`` games between the bots of ``lineup`` (one per seat; a name may repeat)."""
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, got {games}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    lineup = tuple(lineup)
    if len(lineup) < 2:
        raise ValueError("a tournament needs at least two seats (name a bot twice for self-play)")
    module = game_module(game)
    variant = variant if variant is not None else module.default_variant(len(lineup))
    for name in set(lineup):
        make_bot(game, name)  # fails fast on an unknown name, before any process starts
    chunk = max(1, min(50, games // (jobs * 4) or 1))
    tasks = [
        (game, lineup, range(start, min(games, start + chunk)), seed, variant)
        for start in range(0, games, chunk)
    ]
    results: list[GameResult] = []
    if jobs == 1:
        for task in tasks:
            results += _play_chunk(task)
            if progress:
                progress(len(task[2]))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for done in pool.map(_play_chunk, tasks):
                results += done
                if progress:
                    progress(len(done))
    results.sort(key=lambda r: r.index)
    return TournamentResult(
        game=game,
        lineup=lineup,
        games=games,
        seed=seed,
        standings=_standings(lineup, results),
        mean_rounds=sum(r.rounds for r in results) / len(results),
        results=tuple(results),
    )


def _standings(lineup: Sequence[str], results: Sequence[GameResult]) -> tuple[Standing, ...]:
    """Per distinct bot name: a bot entered twice is scored over both of its seats."""
    standings = []
    for name in dict.fromkeys(lineup):
        wins = 0.0
        seats_played = 0
        total = 0
        for result in results:
            for seat, who in enumerate(result.seats):
                if who == name:
                    seats_played += 1
                    wins += result.returns[seat]
                    total += result.scores[seat]
        low, high = wilson_interval(wins, seats_played)
        standings.append(
            Standing(
                name=name,
                games=seats_played,
                wins=wins,
                win_rate=wins / seats_played,
                ci_low=low,
                ci_high=high,
                mean_score=total / seats_played,
            )
        )
    return tuple(standings)
