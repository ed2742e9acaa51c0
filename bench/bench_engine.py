"""Reference-engine speed: full games per second with the object engine (not a test).

Run: .venv/bin/python bench/bench_engine.py
"""

from __future__ import annotations

import random
import time

from marsdice.bots import make_bot
from marsdice.core.game import play_out
from marsdice.martian import Variant, new_game


def play(seed: int) -> int:
    rng = random.Random(seed)
    bots = [make_bot("martian", "cautious"), make_bot("martian", "cautious")]
    final = play_out(new_game(Variant(players=2)), [bot.choose for bot in bots], rng).final
    return sum(final.turns)


def main() -> None:
    games = 300
    start = time.perf_counter()
    turns = sum(play(seed) for seed in range(games))
    elapsed = time.perf_counter() - start
    print(
        f"reference engine, cautious vs cautious: {games / elapsed:,.0f} games/s, "
        f"{turns / elapsed:,.0f} turns/s ({games} games, {turns} turns, {elapsed:.2f} s)"
    )


if __name__ == "__main__":
    main()
