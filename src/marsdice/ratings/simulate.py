"""Do the ratings find the stronger player? Bots of known strength play seeded Martian Dice
games and are rated game by game, as accounts would be.

The line-ups are every set of 2 (and of 3) distinct bots, each rotated through all its
seats; one cycle of them plays every bot in every seat of every line-up once, so each bot's
win rate is over the same mix of opponents and game sizes. The cycles are shuffled (seeded)
and repeated up to the number of games. Game ``i`` is seeded from ``(seed, i)``, as in
:mod:`marsdice.tournament`, and every bot starts at :data:`~marsdice.ratings.INITIAL`.

>>> result = simulate(("random", "cautious"), games=4, seed=1, sizes=(2,))
>>> [entry.name for entry in result.by_rating()], result.orders_agree()
(['cautious', 'random'], True)

``python -m marsdice.ratings.simulate --games 2400 --seed 1`` prints the table.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from marsdice.bots import make_bot
from marsdice.core.game import play_out
from marsdice.games import get_game
from marsdice.ratings.model import INITIAL, Rating, rate
from marsdice.tournament import wilson_interval

#: random < cautious (rules of thumb) < expected (best score a turn) < winprob (perfect play)
DEFAULT_BOTS = ("random", "cautious", "expected", "winprob")
DEFAULT_SIZES = (2, 3)
DEFAULT_GAME = "martian"


@dataclass(frozen=True, slots=True)
class Entry:
    """One bot at the end: its games, wins (a shared win counted as its share), its rating and
    ``settled``: its mean shown number after each of its games in the second half of the run
    (steadier than the last one, which moves with every game)."""

    name: str
    games: int
    wins: float
    rating: Rating
    settled: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The win rate's 95% Wilson interval."""
        return wilson_interval(self.wins, self.games)


@dataclass(frozen=True, slots=True)
class Simulation:
    game: str
    games: int
    seed: int
    sizes: tuple[int, ...]
    #: in the order the bots were given
    entries: tuple[Entry, ...]
    #: games in which two or more seats shared a place
    tied_games: int
    #: two-player games by pair, in the order the bots were given: (first, second, games,
    #: the first's wins)
    head_to_head: tuple[tuple[str, str, int, float], ...] = ()

    def by_rating(self) -> list[Entry]:
        """Best shown rating first (mu breaks a tie in the shown number)."""
        return sorted(self.entries, key=lambda e: (e.rating.shown, e.rating.mu), reverse=True)

    def by_win_rate(self) -> list[Entry]:
        """Best win rate first (equal rates stay in the order given)."""
        return sorted(self.entries, key=lambda e: e.win_rate, reverse=True)

    def orders_agree(self) -> bool:
        """Whether the ratings rank the bots as their win rates do."""
        return [e.name for e in self.by_rating()] == [e.name for e in self.by_win_rate()]

    def table(self) -> str:
        """The result as plain text, best rated first."""
        lines = [
            f"{self.game}: {self.games} games of {'/'.join(map(str, self.sizes))} players, "
            f"seed {self.seed} ({self.tied_games} with a shared place)",
            f"{'bot':<10} {'games':>6} {'win rate':>9} {'95% interval':>15} "
            f"{'mu':>7} {'sigma':>6} {'shown':>6} {'settled':>8}",
        ]
        for e in self.by_rating():
            low, high = e.interval
            lines.append(
                f"{e.name:<10} {e.games:>6} {e.win_rate:>9.3f} {f'{low:.3f}-{high:.3f}':>15} "
                f"{e.rating.mu:>7.2f} {e.rating.sigma:>6.2f} {e.rating.shown:>6} {e.settled:>8.0f}"
            )
        verdict = "agrees with" if self.orders_agree() else "DIFFERS from"
        lines.append(f"the order of the ratings {verdict} the order of the win rates")
        if self.head_to_head:
            lines += [
                "",
                "two-player games: the first bot's wins, and Elo's odds for the gap shown",
            ]
            lines.append(f"{'pair':<20} {'games':>6} {'won':>6} {'gap':>5} {'Elo odds':>9}")
            shown = {e.name: e.rating.shown for e in self.entries}
            for first, second, played, won in self.head_to_head:
                gap = shown[first] - shown[second]
                lines.append(
                    f"{first + ' v ' + second:<20} {played:>6} {won / played:>6.3f} "
                    f"{gap:>5} {elo_expectation(gap):>9.3f}"
                )
        return "\n".join(lines)


def elo_expectation(gap: float) -> float:
    """Elo's expected score of a player ``gap`` points above the other."""
    return 1 / (1 + 10 ** (-gap / 400))


def schedule(bots: Sequence[str], sizes: Sequence[int]) -> list[tuple[str, ...]]:
    """One cycle of line-ups: each set of ``size`` distinct bots in each of its rotations."""
    if not sizes:
        raise ValueError("name at least one game size")
    cycle = []
    for size in sizes:
        if not 2 <= size <= len(bots):
            raise ValueError(f"a game size must be 2-{len(bots)} for {len(bots)} bots, got {size}")
        for group in itertools.combinations(bots, size):
            cycle += [group[shift:] + group[:shift] for shift in range(size)]
    return cycle


def play_game(
    game: str, seats: tuple[str, ...], seed: int, index: int
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Game ``index``: the engine's placings and returns (as tournament.play_one, which keeps
    only the scores and returns: a rating needs the placings the engine decided)."""
    rng = random.Random(f"{seed}:{index}")
    bots = [make_bot(game, name, seed=rng.randrange(2**32)) for name in seats]
    found = get_game(game)
    start = found.start(found.default_variant(len(seats)), rng)
    final = play_out(start, [bot.choose for bot in bots], rng).final
    return final.placings(), final.returns()


def simulate(
    bots: Sequence[str] = DEFAULT_BOTS,
    *,
    games: int,
    seed: int = 0,
    sizes: Sequence[int] = DEFAULT_SIZES,
    game: str = DEFAULT_GAME,
) -> Simulation:
    """Play ``games`` seeded games between ``bots`` and rate them one by one."""
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, got {games}")
    if len(set(bots)) != len(bots) or len(bots) < 2:
        raise ValueError(f"name at least two different bots, once each: {list(bots)}")
    for name in bots:
        make_bot(game, name)  # an unknown name fails before any game
    cycle = schedule(bots, sizes)
    ratings = dict.fromkeys(bots, INITIAL)
    played = dict.fromkeys(bots, 0)
    wins = dict.fromkeys(bots, 0.0)
    tied = 0
    pairs: dict[tuple[str, str], list[float]] = {}
    late: dict[str, list[int]] = {name: [] for name in bots}
    order: list[tuple[str, ...]] = []
    for index in range(games):
        if not order:
            order = list(cycle)
            random.Random(f"{seed}:cycle:{index // len(cycle)}").shuffle(order)
        seats = order.pop()
        placings, returns = play_game(game, seats, seed, index)
        tied += len(set(placings)) < len(placings)
        after = rate([ratings[name] for name in seats], placings)
        for name, rating, share in zip(seats, after, returns, strict=True):
            ratings[name] = rating
            played[name] += 1
            wins[name] += share
            if index >= games // 2:
                late[name].append(rating.shown)
        if len(seats) == 2:
            first, second = sorted(seats, key=bots.index)
            tally = pairs.setdefault((first, second), [0, 0.0])
            tally[0] += 1
            tally[1] += returns[seats.index(first)]
    entries = tuple(
        Entry(name, played[name], wins[name], ratings[name], _mean(late[name], ratings[name]))
        for name in bots
    )
    head_to_head = tuple(
        (a, b, int(n), won)
        for (a, b), (n, won) in sorted(
            pairs.items(), key=lambda item: (bots.index(item[0][0]), bots.index(item[0][1]))
        )
    )
    return Simulation(game, games, seed, tuple(sizes), entries, tied, head_to_head)


def _mean(shown: list[int], last: Rating) -> float:
    return sum(shown) / len(shown) if shown else float(last.shown)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table; exit status 1 when the orders differ."""
    parser = argparse.ArgumentParser(
        prog="python -m marsdice.ratings.simulate", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--games", type=int, default=2400, help="games to play (default 2400)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole run")
    parser.add_argument(
        "--bots", nargs="+", default=list(DEFAULT_BOTS), help="the bots (default: %(default)s)"
    )
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=int,
        default=list(DEFAULT_SIZES),
        help="players per game (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    try:
        result = simulate(args.bots, games=args.games, seed=args.seed, sizes=args.sizes)
    except ValueError as error:
        parser.error(str(error))
    print(result.table())
    return 0 if result.orders_agree() else 1


if __name__ == "__main__":
    sys.exit(main())
