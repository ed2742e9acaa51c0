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
import multiprocessing
import random
import signal
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass

from marsdice.bots import make_bot
from marsdice.core.game import JSONObject, Variant, play_out
from marsdice.games import get_game

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
    #: True when the series was interrupted: ``results`` holds the games finished by then
    partial: bool = False

    def to_dict(self) -> JSONObject:
        data: JSONObject = asdict(self)
        return data


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


def play_one(
    game: str, lineup: Sequence[str], index: int, seed: int, variant: Variant
) -> GameResult:
    """Play game ``index`` of a series to the end."""
    shift = index % len(lineup)
    seats = tuple(lineup[shift:]) + tuple(lineup[:shift])
    rng = random.Random(f"{seed}:{index}")
    bots = [make_bot(game, name, seed=rng.randrange(2**32)) for name in seats]
    start = get_game(game).start(variant, rng)
    final = play_out(start, [bot.choose for bot in bots], rng).final
    return GameResult(index, seats, final.scores, final.returns(), final.rounds)


_Task = tuple[str, tuple[str, ...], range, int, Variant]


def _play_chunk(task: _Task) -> list[GameResult]:
    game, lineup, indices, seed, variant = task
    return [play_one(game, lineup, i, seed, variant) for i in indices]


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them and keeps what is finished."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_tournament(
    game: str,
    lineup: Sequence[str],
    *,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    variant: Variant | None = None,
    progress: Callable[[int], None] | None = None,
) -> TournamentResult:
    """Play ``games`` games between the bots of ``lineup`` (one per seat; a name may repeat).

    Ctrl-C (KeyboardInterrupt) stops the series at once: the result then holds the games
    finished so far and ``partial`` is True.
    """
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, got {games}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    lineup = tuple(lineup)
    if len(lineup) < 2:
        raise ValueError("a tournament needs at least two seats (name a bot twice for self-play)")
    found = get_game(game)
    variant = variant if variant is not None else found.default_variant(len(lineup))
    if variant.players != len(lineup):
        raise ValueError(f"the variant has {variant.players} seats but {len(lineup)} bots")
    for name in set(lineup):
        make_bot(game, name)  # fails fast on an unknown name, before any process starts
    results: list[GameResult] = []
    partial = False
    try:
        for done in _results(game, lineup, games, seed, jobs, variant):
            results += done
            if progress:
                progress(len(done))
    except KeyboardInterrupt:
        partial = True
    results.sort(key=lambda r: r.index)
    return TournamentResult(
        game=game,
        lineup=lineup,
        games=len(results),
        seed=seed,
        standings=_standings(lineup, results),
        mean_rounds=sum(r.rounds for r in results) / len(results) if results else 0.0,
        results=tuple(results),
        partial=partial,
    )


def _results(
    game: str, lineup: tuple[str, ...], games: int, seed: int, jobs: int, variant: Variant
) -> Iterator[list[GameResult]]:
    """Finished games in batches: one at a time in this process, or chunks from workers."""
    if jobs == 1:
        for index in range(games):
            yield [play_one(game, lineup, index, seed, variant)]
        return
    # small chunks: Ctrl-C loses only the games in progress (each worker keeps its solver
    # tables between chunks, so a chunk costs little more than its games)
    # The first game is played here: any table a bot needs is solved once, with the caller's
    # progress display, and cached on disk for the workers (who would each solve it again).
    yield [play_one(game, lineup, 0, seed, variant)]
    chunk = max(1, min(5, games // (jobs * 4) or 1))
    tasks = [
        (game, lineup, range(start, min(games, start + chunk)), seed, variant)
        for start in range(1, games, chunk)
    ]
    pool = multiprocessing.Pool(processes=jobs, initializer=_ignore_interrupts)
    try:
        yield from pool.imap_unordered(_play_chunk, tasks)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


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
                win_rate=wins / seats_played if seats_played else 0.0,
                ci_low=low,
                ci_high=high,
                mean_score=total / seats_played if seats_played else 0.0,
            )
        )
    return tuple(standings)
