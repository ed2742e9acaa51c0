"""How often the Mars Attacks fool check fires (not a test; the calibration in
``docs/review.md``, "The fool check"): over seeded games of 2, 3 and 4 players, the share of
the planner's decisions it flags (target: under 1%), the opening targets it flags (target:
none), and, for reference, the share of the heuristic and random bots' decisions it flags
with the review's plain blunder threshold (the rule before the calibration) and with the
calibrated rule.

Run: .venv/bin/python bench/bench_fool_check.py [games, default 200]
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from marsdice.attacks.phases import Phase
from marsdice.attacks.state import as_state
from marsdice.bots import make_bot
from marsdice.games import get_game
from marsdice.review.core import position_choices, valuator_for
from marsdice.review.model import PLANNER_VP, blunder_flags

GAME = get_game("attacks")


def series(games: int, player: str) -> Counter[str]:
    """Seat 0 (and every other seat of an even number) plays ``player``, the rest the
    planner; the counts are of ``player``'s decisions with more than one legal move."""
    out: Counter[str] = Counter()
    for seed in range(games):
        players = 2 + seed % 3
        rng = random.Random(seed)
        state = GAME.start(GAME.variant_from_params({"players": players}), rng)
        bots = [make_bot(GAME, player if i % 2 == 0 else "planner", seed=i) for i in range(players)]
        valuator = valuator_for(GAME, state)
        opened: set[int] = set()
        while not state.is_terminal:
            if state.is_chance_node:
                outcomes = state.chance_outcomes()
                state = state.apply(
                    rng.choices([o for o, _ in outcomes], [float(p) for _, p in outcomes])[0]
                )
                continue
            seat = state.current_player
            move = state.parse_action(bots[seat].choose(state).text()).text()
            choices = position_choices(valuator, state)
            if len(choices) > 1:
                flags = valuator.blunders(state, choices)
                plain = blunder_flags(PLANNER_VP, choices)
                s = as_state(state)
                if s.phase is Phase.TARGET and seat not in opened:
                    opened.add(seat)
                    out["openings"] += 1
                    out["opening targets flagged"] += sum(flags)
                    out["opening targets flagged (plain)"] += sum(plain)
                    out["opening targets"] += len(choices)
                if seat % 2 == 0:
                    index = [c.move for c in choices].index(move)
                    out["decisions"] += 1
                    out["flagged"] += flags[index]
                    out["flagged (plain)"] += plain[index]
            state = state.apply(state.parse_action(move))
    return out


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    for player in ("planner", "heuristic", "random"):
        c = series(games, player)
        share = c["flagged"] / c["decisions"]
        plain = c["flagged (plain)"] / c["decisions"]
        print(
            f"{player:9} {games} games: {c['decisions']} decisions, fool check fires on "
            f"{c['flagged']} ({share:.2%}); plain blunder threshold: {c['flagged (plain)']} "
            f"({plain:.2%})"
        )
        if player == "planner":
            print(
                f"          openings: {c['openings']} first target choices, "
                f"{c['opening targets']} targets on offer: flagged {c['opening targets flagged']} "
                f"(plain threshold: {c['opening targets flagged (plain)']})"
            )
            met = "met" if share < 0.01 else "NOT met"
            print(f"          target under 1% of the planner's decisions: {met}")


if __name__ == "__main__":
    main()
