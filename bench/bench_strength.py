"""Playing strength of the solver bots (not a test): exact two-player head-to-head values,
and seeded batch series for 3 and 4 players (one win-probability player, the approximation,
against expected-score players, rotating through every seat).

Run: .venv/bin/python bench/bench_strength.py [games per seat, default 2000]
"""

from __future__ import annotations

import sys
import time
from math import sqrt

import numpy as np

from marsdice.solve.match import match_win_probability
from marsdice.solve.multi import Combine


def series(players: int, per_seat: int, combine: Combine, seed: int) -> tuple[float, float]:
    """Win rate of the win-probability player over all seats, and its standard error."""
    from marsdice.solve.batch import simulate_games

    rng = np.random.default_rng(seed)
    rate = 0.0
    for seat in range(players):
        lineup: list[str] = ["expected"] * players
        lineup[seat] = "winprob"
        stats = simulate_games(tuple(lineup), per_seat, rng, combine=combine)  # type: ignore[arg-type]
        rate += float(stats.win_rates[seat]) / players
    return rate, sqrt(rate * (1 - rate) / (per_seat * players))


def main() -> None:
    per_seat = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    first = match_win_probability("winprob", "expected")
    second = 1 - match_win_probability("expected", "winprob")
    print(
        f"2 players, exact: winprob beats expected {first:.6f} as first seat, {second:.6f} as "
        f"second, {(first + second) / 2:.6f} over alternating seats; expected vs expected "
        f"{match_win_probability('expected', 'expected'):.6f}; winprob vs winprob (first seat) "
        f"{match_win_probability('winprob', 'winprob'):.10f}"
    )
    for players in (3, 4):
        for combine in ("min", "product"):
            start = time.perf_counter()
            rate, se = series(players, per_seat, combine, seed=players)  # type: ignore[arg-type]
            print(
                f"{players} players, winprob ({combine}) vs {players - 1} expected, "
                f"{per_seat * players} games: win rate {rate:.4f} +- {se:.4f} "
                f"(fair share {1 / players:.4f}, {(rate - 1 / players) / se:+.1f} standard "
                f"errors; {time.perf_counter() - start:.1f} s)"
            )


if __name__ == "__main__":
    main()
