"""The chance to win a three-player Mars Attacks game by lead and captures to the end, from
seeded games of three ``planner`` bots (not a test; the table in ``docs/research.md``'s
search section comes from it).

At the start of every turn each seat is seen from where it stands: its lead in VP over the
best other seat, the captures still needed to trigger the end
(:func:`~marsdice.bots.attacks_search.captures_to_end`), whether the end is triggered, and
how many turns away its own turn is (0: its turn starts; ``players - 1``: it has just
played). Its result is its share of the game's win. The bench prints the win rate just
after a seat's own turn by lead and captures to the end (cells of fewer than
``--min-cell`` turn starts left out), the same in the last round, and a logistic fit of the
curve (lead, lead / captures, 1 / captures, lead cubed) with its held-out log loss (every
fifth game held out) against the lead alone.

Run: .venv/bin/python bench/bench_win_curve.py [--games 3000] [--seed 0] [--jobs 2]
(about 0.17 CPU seconds a game)
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from marsdice.attacks.game import GAME
from marsdice.attacks.phases import Phase
from marsdice.attacks.state import State
from marsdice.attacks.variant import Variant
from marsdice.bots.attacks_planner import PlannerBot
from marsdice.bots.attacks_search import captures_to_end
from marsdice.core.game import Step, play_out

PLAYERS = 3


@dataclass(frozen=True)
class Seen:
    """One seat at the start of one turn, and how its game ended for it."""

    game: int
    lead: int
    captures: int
    triggered: bool
    away: int
    result: float


def lead(state: State, seat: int) -> int:
    """The seat's VP less the best other seat's."""
    scores = state.scores
    return scores[seat] - max(v for i, v in enumerate(scores) if i != seat)


def play(args: tuple[int, int]) -> list[Seen]:
    """Game ``index`` of ``seed``: every seat at every turn start."""
    seed, index = args
    rng = random.Random(f"win-curve:{seed}:{index}")
    starts: list[tuple[int, int, bool, int, int]] = []
    seen: set[tuple[int, int]] = set()

    def on_step(step: Step) -> None:
        s = step.after
        if not isinstance(s, State) or s.is_terminal or s.phase is not Phase.TARGET:
            return
        if (s.turn, s.seat) in seen:  # the first declaration of the turn only
            return
        seen.add((s.turn, s.seat))
        for seat in range(PLAYERS):
            away = (seat - s.seat) % PLAYERS
            starts.append((seat, lead(s, seat), s.end_triggered, captures_to_end(s), away))

    bots = [PlannerBot() for _ in range(PLAYERS)]
    start = GAME.start(Variant(players=PLAYERS), rng)
    final = play_out(start, [bot.choose for bot in bots], rng, on_step=on_step).final
    returns = final.returns()
    return [
        Seen(index, ahead, captures, triggered, away, returns[seat])
        for seat, ahead, triggered, captures, away in starts
    ]


def _ignore_interrupts() -> None:
    """In a worker: Ctrl-C is the parent's to handle (no traceback from every worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def design(lead: npt.NDArray[np.float64], captures: npt.NDArray[np.float64]) -> np.ndarray:
    """The fit's features."""
    inverse = 1.0 / captures
    cubed = np.clip(lead, -8, 8) ** 3 / 100
    return np.stack([np.ones_like(lead), lead, lead * inverse, inverse, cubed], axis=1)


def chance(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The fitted chance to win of each row."""
    return np.asarray(1 / (1 + np.exp(-x @ w)))


def fit(x: np.ndarray, y: np.ndarray, ridge: float = 1e-3) -> np.ndarray:
    """Logistic regression with fractional targets (shared wins), by Newton's method."""
    w = np.zeros(x.shape[1])
    for _ in range(30):
        p = chance(x, w)
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + ridge * np.eye(len(w))
        w -= np.linalg.solve(hessian, x.T @ (p - y) + ridge * w)
    return w


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(chance(x, w), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--min-cell", type=int, default=100)
    args = parser.parse_args()
    if args.games < 5:
        parser.error(f"--games must be at least 5, got {args.games}")
    pool = ProcessPoolExecutor(max(1, args.jobs), initializer=_ignore_interrupts)
    try:
        jobs = [(args.seed, index) for index in range(args.games)]
        rows = [seen for game in pool.map(play, jobs, chunksize=2) for seen in game]
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        print("bench_win_curve: stopped", file=sys.stderr)
        raise SystemExit(130) from None
    pool.shutdown()
    after = PLAYERS - 1  # a seat whose own turn has just ended
    cells: dict[tuple[int, int], list[float]] = defaultdict(list)
    last: dict[int, list[float]] = defaultdict(list)
    for r in rows:
        if r.away == after and not r.triggered:
            cells[(r.lead, r.captures)].append(r.result)
        elif r.away == after:
            last[r.lead].append(r.result)
    turns = len(rows) // PLAYERS
    print(f"{args.games:,} games of three planners (seed {args.seed}), {turns:,} turn starts")
    columns = sorted({c for _, c in cells if c >= 1})
    print("\nwin rate just after the seat's own turn, by lead (rows) and captures to the end")
    print("| lead | " + " | ".join(str(c) for c in columns) + " |")
    print("|---:|" + "---:|" * len(columns))
    for ahead in range(-6, 7):
        shown = []
        for c in columns:
            results = cells.get((ahead, c), [])
            shown.append(
                f"{sum(results) / len(results):.2f}" if len(results) >= args.min_cell else ""
            )
        print(f"| {ahead:+d} | " + " | ".join(shown) + " |")
    print("\nthe same in the last round (the end triggered):")
    print(
        ", ".join(
            f"{ahead:+d}: {sum(v) / len(v):.2f} ({len(v)})"
            for ahead, v in sorted(last.items())
            if -3 <= ahead <= 4
        )
    )
    chosen = [r for r in rows if r.away == after and not r.triggered and r.captures >= 1]
    games = np.array([r.game for r in chosen])
    x = design(
        np.array([r.lead for r in chosen], dtype=float),
        np.array([r.captures for r in chosen], dtype=float),
    )
    y = np.array([r.result for r in chosen])
    train, test = games % 5 != 0, games % 5 == 0
    curve = fit(x[train], y[train])
    alone = fit(x[train][:, :2], y[train])
    if not np.isfinite(curve).all():
        raise SystemExit("bench_win_curve: the fit did not converge")
    print(
        f"\nlogistic fit, held-out log loss {log_loss(x[test], y[test], curve):.4f} "
        f"(lead alone {log_loss(x[test][:, :2], y[test], alone):.4f}); weights "
        + ", ".join(f"{w:.3f}" for w in fit(x, y))
        + " (1, lead, lead / captures, 1 / captures, lead cubed / 100)"
    )


if __name__ == "__main__":
    main()
