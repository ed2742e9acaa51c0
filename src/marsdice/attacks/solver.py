"""An exact solver for one Mars Attacks turn: the best play against given values for its ends.

A turn is a small Markov decision process: the dice are (heads showing, ray guns, nukes),
always ten in all, and a turn ends in a capture, a bombing or a stop. Given what each end is
worth to the player (a :class:`Problem`: per face-up card, the value of capturing it and of
ending with so many dice of its symbol on its track; the value of a bombing), the solver finds
the play that maximises the expected value, with every decision of the rules: the target,
stop or reroll (all heads or, under the subset rule, how many), switching cities between
rolls, Seattle's die, Toronto's reroll, Denver's restart. It also reports, under that play,
the probability of capture and of being bombed and the expected progress.

The values are the caller's business (see :mod:`marsdice.bots.attacks_planner`); with a value
of 1 for a capture and 0 for everything else the solver gives the best chance to capture.

>>> from marsdice.attacks.cards import Symbol
>>> p = capture_probability(Symbol.RAY, need=6, limit=6)  # P(Binomial(10, 1/2) >= 6)
>>> round(p * 1024, 6)
386.0
>>> round(capture_probability(Symbol.HEAD, need=4, limit=6), 3)  # a monument: one roll
0.437
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache, lru_cache
from typing import Final

from marsdice.attacks.cards import Symbol
from marsdice.attacks.variant import DICE, FACE_PROBABILITIES, Face
from marsdice.core.dice import dice_outcomes

Vec = tuple[float, float, float, float]  # value, P(capture), P(bombed), expected progress
_EPS: Final = 1e-12
_FACES: Final = (Face.HEAD, Face.RAY, Face.NUKE)
_STOP: Final = None
_ZERO: Final[Vec] = (0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class Goal:
    """One face-up card that can be targeted, as the solver sees it.

    ``need``: dice of ``symbol`` still needed (the requirement less the player's token);
    ``capture``: the value of taking the card; ``place[d]``: the value of ending the turn
    with ``d`` (< ``need``) dice of its symbol counted for it (the token moves up ``d``).
    """

    card: int
    symbol: Symbol
    need: int
    city: bool
    capture: float
    place: tuple[float, ...]
    detroit: bool = False


@dataclass(frozen=True, slots=True)
class Problem:
    """Everything one turn's best play depends on."""

    goals: tuple[Goal, ...]
    limit: int
    last_roll: bool = True  # bombed: only the last roll is lost (else the whole turn)
    subset: bool = False  # any number of heads may be rerolled (else all)
    bomb: float = 0.0  # the value added to any bombing (Las Vegas's track)
    toronto: bool = False
    seattle: bool = False
    denver: bool = False
    #: Seattle's die is set at the start of the turn, before the target (the seed's rule)
    seattle_first: bool = False


@dataclass(frozen=True, slots=True)
class Estimate:
    """What a line of play is worth, under the best play from there."""

    value: float
    capture: float
    bombed: float
    progress: float

    @classmethod
    def of(cls, vec: Vec) -> Estimate:
        return cls(*vec)


#: a decision at a reroll point: ``None`` to stop, else (heads to reroll, goal index)
Choice = tuple[int, int] | None
#: the chance that k rerolled dice all show heads again
_ALL_HEADS: Final = tuple(3.0**-k for k in range(DICE + 1))


@dataclass(frozen=True, slots=True)
class _Node:
    """A solved reroll point: the best play, and the best way to go on (for Detroit)."""

    best: Vec
    choice: Choice
    go: Vec | None
    go_choice: Choice


class TurnSolver:
    """Memoised best play for one :class:`Problem`; build through :func:`solver_for`."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.goals = problem.goals
        self.limit = problem.limit
        self._clusters: dict[tuple[int, int, int, bool], dict[int, _Node]] = {}
        self._post: dict[tuple[object, ...], Vec] = {}
        self._judged: dict[tuple[object, ...], Vec] = {}
        self._roll: dict[tuple[object, ...], Vec] = {}
        #: a reroll's outcomes that cannot bomb, summed once for every fallback
        self._free: dict[tuple[object, ...], Vec] = {}
        self._restart: Vec | None = None

    # -- the public questions --

    def first_roll(self, goal: int, seattle: Face | None = None) -> Estimate:
        """The turn's worth when ``goal`` is declared (and Seattle's die set to ``seattle``)."""
        return Estimate.of(self._first(goal, seattle))

    def best_seattle(self, goal: int) -> Face | None:
        """Seattle's best face for this declared target (``None``: do not use it)."""
        if not self.problem.seattle:
            return None
        options: list[Face | None] = [None, *Face]
        return max(options, key=lambda face: self._first(goal, face)[0] - _tiny(face))

    def best_opening_seattle(self) -> Face | None:
        """Seattle's best face before any target is declared (the ``start`` rule): the face
        whose best target is worth the most (``None``: do not use it)."""
        if not self.problem.seattle:
            return None
        options: list[Face | None] = [None, *Face]
        goals = range(len(self.goals))
        return max(
            options,
            key=lambda face: max(self._first(g, face)[0] for g in goals) - _tiny(face),
        )

    def target_value(self, goal: int, face: Face | None = None) -> Estimate:
        """The turn's worth with ``goal`` declared: with Seattle's die already set to
        ``face``, or (Seattle set after the declaration) with Seattle used at best."""
        if face is None and not self.problem.seattle_first:
            face = self.best_seattle(goal)
        return Estimate.of(self._first(goal, face))

    def best_goal(self, face: Face | None = None) -> int:
        """The best target (Seattle's die set to ``face`` already, if given)."""
        return max(range(len(self.goals)), key=lambda g: self.target_value(g, face).value)

    def toronto_choice(
        self, dice: Sequence[int], goal: int, fallback: tuple[float, int], first: bool
    ) -> Face | None:
        """Which die Toronto should reroll after this roll (``None``: pass)."""
        h, r, n = dice
        best = self._judge(h, r, n, goal, fallback, True, first)[0]
        choice: Face | None = None
        for face in _FACES:
            if dice[face]:
                value = self._toronto(h, r, n, face, goal, fallback, first)[0]
                if value > best + _EPS:
                    best, choice = value, face
        return choice

    def decide(
        self, dice: Sequence[int], goal: int, fallback: tuple[float, int], toronto: bool
    ) -> Choice:
        """Stop (``None``) or reroll ``k`` heads against goal ``g``: ``(k, g)``."""
        return self._decision(dice, goal, fallback, toronto)[1]

    def decide_value(
        self, dice: Sequence[int], goal: int, fallback: tuple[float, int], toronto: bool
    ) -> Estimate:
        return Estimate.of(self._decision(dice, goal, fallback, toronto)[0])

    def restart_value(self) -> Estimate:
        """Denver: the worth of starting the turn again (with Denver spent)."""
        return Estimate.of(self._restart_vec())

    def bombed_value(self, fallback: tuple[float, int]) -> Estimate:
        return Estimate.of(self._bombed(fallback))

    # -- the recursion --

    def _first(self, goal: int, seattle: Face | None) -> Vec:
        fixed = [0, 0, 0]
        rolled = DICE
        if seattle is not None:
            fixed[seattle] += 1
            rolled -= 1
        total: Vec = (0.0, 0.0, 0.0, 0.0)
        for (a, b, c), p in _outcomes(rolled):
            vec = self._post_node(
                a + fixed[0], b + fixed[1], c + fixed[2], goal, (0.0, 0), self.problem.toronto, True
            )
            total = _add(total, vec, p)
        return total

    def _bombed(self, fallback: tuple[float, int]) -> Vec:
        if self.problem.last_roll:
            gain, progress = fallback
            return (self.problem.bomb + gain, 0.0, 1.0, float(progress))
        return (self.problem.bomb, 0.0, 1.0, 0.0)

    def _stop(self, h: int, r: int, n: int, goal: int, fallback: tuple[float, int]) -> Vec:
        g = self.goals[goal]
        if g.detroit:
            return self._bombed(fallback)
        d = _count(g.symbol, h, r, n)
        return (g.place[d], 0.0, 0.0, float(d))

    def _judge(
        self,
        h: int,
        r: int,
        n: int,
        goal: int,
        fallback: tuple[float, int],
        toronto: bool,
        first: bool,
    ) -> Vec:
        """A roll judged: bombed, captured, a decision, or the attack ends (memoised)."""
        g = self.goals[goal]
        bombs = g.symbol is not Symbol.NUKE and n >= self.limit
        key = (h, r, n, goal, fallback if bombs or g.detroit else None, toronto, first)
        cached = self._judged.get(key)
        if cached is not None:
            return cached
        if bombs:
            value = self._bombed(fallback)
            if first and self.problem.denver:
                restart = self._restart_vec()
                value = restart if restart[0] > value[0] else value
        elif _count(g.symbol, h, r, n) >= g.need:
            value = (g.capture, 1.0, 0.0, 0.0)
        elif g.city and h > 0:
            value = self._decide_node(h, r, n, goal, fallback, toronto)
        else:
            value = self._stop(h, r, n, goal, fallback)
        self._judged[key] = value
        return value

    def _post_node(
        self,
        h: int,
        r: int,
        n: int,
        goal: int,
        fallback: tuple[float, int],
        toronto: bool,
        first: bool,
    ) -> Vec:
        """Just rolled: Toronto may reroll one die, then the roll is judged."""
        g = self.goals[goal]
        # the fallback only matters where a bombing (or a failed Detroit) can follow
        needs_fallback = g.detroit or n >= self.limit - (1 if toronto else 0)
        key = (h, r, n, goal, fallback if needs_fallback else None, toronto, first)
        cached = self._post.get(key)
        if cached is not None:
            return cached
        best = self._judge(h, r, n, goal, fallback, toronto, first)
        if toronto:
            for face in _FACES:
                if (h, r, n)[face]:
                    vec = self._toronto(h, r, n, face, goal, fallback, first)
                    if vec[0] > best[0] + _EPS:
                        best = vec
        self._post[key] = best
        return best

    def _toronto(
        self,
        h: int,
        r: int,
        n: int,
        face: Face,
        goal: int,
        fallback: tuple[float, int],
        first: bool,
    ) -> Vec:
        dice = [h, r, n]
        dice[face] -= 1
        total: Vec = (0.0, 0.0, 0.0, 0.0)
        for new in _FACES:
            after = list(dice)
            after[new] += 1
            vec = self._judge(after[0], after[1], after[2], goal, fallback, False, first)
            total = _add(total, vec, 1 / 3)
        return total

    def _decision(
        self, dice: Sequence[int], goal: int, fallback: tuple[float, int], toronto: bool
    ) -> tuple[Vec, Choice]:
        """At a reroll point with the actual fallback (it matters for stopping on Detroit)."""
        h, r, n = dice
        node = self._cluster(h, r, n, toronto)[goal]
        if not self.goals[goal].detroit:
            return node.best, node.choice
        stop = self._bombed(fallback)
        if node.go is not None and node.go_choice is not None and node.go[0] > stop[0] + _EPS:
            return node.go, node.go_choice
        return stop, _STOP

    def _decide_node(
        self, h: int, r: int, n: int, goal: int, fallback: tuple[float, int], toronto: bool
    ) -> Vec:
        return self._decision((h, r, n), goal, fallback, toronto)[0]

    def _cluster(self, h: int, r: int, n: int, toronto: bool) -> dict[int, _Node]:
        """Every reroll point with these dice, one per city goal, solved together.

        Rerolled heads that all show heads again bring the dice back unchanged, with the
        target the reroll chose: these points form a cycle, solved by value iteration (each
        step shrinks the error by at least 3, the chance of all heads).
        """
        key = (h, r, n, toronto)
        cached = self._clusters.get(key)
        if cached is not None:
            return cached
        targets = [g for g, goal in enumerate(self.goals) if goal.city]
        # the points that can be reached: neither bombed nor captured with these dice
        cities = [g for g in targets if self._loops(h, r, n, g)]
        counts = range(h, 0, -1) if self.problem.subset else (h,)
        stops = {g: self._stop(h, r, n, g, (0.0, 0)) for g in cities}
        # per (point, option): the chance of coming back, what the other outcomes give, and
        # what coming back gives apart from the cycle (a fixed value, or None: the point's)
        options: dict[int, list[tuple[int, int, float, Vec, Vec | None]]] = {}
        for g in cities:
            goal = self.goals[g]
            d = _count(goal.symbol, h, r, n)
            snapshot = (0.0, 0) if goal.detroit else (goal.place[d], d)
            options[g] = []
            for other in (g, *(c for c in targets if c != g)):
                back = self._back(h, r, n, other, snapshot, toronto)
                for k in counts:
                    rest = self._reroll_rest(h, r, n, k, other, snapshot, toronto)
                    options[g].append((k, other, _ALL_HEADS[k], rest, back))
        live = set(cities)

        def again(other: int, back: Vec | None, value: dict[int, float]) -> float:
            """Coming back: the cycle's value, or the best way out of it."""
            if other not in live:
                assert back is not None
                return back[0]
            return value[other] if back is None else max(back[0], value[other])

        # 1. the values, by Gauss-Seidel iteration on floats (``again`` inlined: this loop
        # is the solver's second hottest). Per point: the best of stopping and of the rerolls
        # that leave the cycle, worked out once, and the rerolls that may come back into it
        value = {g: stops[g][0] for g in cities}
        sweep: list[tuple[int, float, list[tuple[float, float, int, float | None]]]] = []
        for g in cities:
            best = stops[g][0]
            rows: list[tuple[float, float, int, float | None]] = []
            for _k, other, p_back, rest, back in options[g]:
                back0 = None if back is None else back[0]
                if other in live:
                    rows.append((rest[0], p_back, other, back0))
                else:
                    assert back0 is not None
                    best = max(best, rest[0] + p_back * back0)
            sweep.append((g, best, rows))
        for _ in range(500):
            change = 0.0
            for g, best, rows in sweep:
                for rest0, p_back, other, back0 in rows:
                    back_value = value[other]
                    if back0 is not None and back0 > back_value:
                        back_value = back0
                    v = rest0 + p_back * back_value
                    if v > best:
                        best = v
                step = abs(best - value[g])
                if step > change:
                    change = step
                value[g] = best
            if change < 1e-13:
                break
        # 2. the choices they imply (stopping wins ties, then the earlier option)
        plan: dict[int, tuple[Choice, Choice, int | None]] = {}
        for g in cities:
            choice: Choice = _STOP
            top = stops[g][0]
            go_choice: Choice = None
            go_row: int | None = None
            go_top = -float("inf")
            for i, (k, other, p_back, rest, back) in enumerate(options[g]):
                v = rest[0] + p_back * again(other, back, value)
                if v > go_top + _EPS:
                    go_top, go_choice, go_row = v, (k, other), i
                if v > top + _EPS:
                    top, choice = v, (k, other)
            plan[g] = (choice, go_choice, go_row)
        # 3. the statistics of that play: the same cycle, with the choices fixed
        vecs: dict[int, Vec] = dict(stops)

        def leaves(other: int, back: Vec | None) -> bool:
            """Whether coming back takes the way out of the cycle (under the values)."""
            return other not in live or (back is not None and back[0] >= value[other])

        def row_vec(g: int, row: int) -> Vec:
            _k, other, p_back, rest, back = options[g][row]
            if leaves(other, back):
                assert back is not None
                return _add(rest, back, p_back)
            return _add(rest, vecs[other], p_back)

        # per point: its vector if fixed (a stop, or a way out of the cycle), else what the
        # chosen reroll adds to the vector of the point it comes back to
        steps: list[tuple[int, Vec | None, Vec, float, int]] = []
        for g in cities:
            row = _row_of(options[g], plan[g][0])
            if row is None:
                steps.append((g, stops[g], stops[g], 0.0, g))
                continue
            _k, other, p_back, rest, back = options[g][row]
            if leaves(other, back):
                steps.append((g, row_vec(g, row), rest, p_back, other))
            else:
                steps.append((g, None, rest, p_back, other))
        for _ in range(500):
            change = 0.0
            for g, fixed, rest, p_back, other in steps:
                new = _add(rest, vecs[other], p_back) if fixed is None else fixed
                old = vecs[g]
                step = max(
                    abs(new[0] - old[0]),
                    abs(new[1] - old[1]),
                    abs(new[2] - old[2]),
                    abs(new[3] - old[3]),
                )
                if step > change:
                    change = step
                vecs[g] = new
            if change < 1e-13:
                break
        nodes: dict[int, _Node] = {}
        for g in cities:
            choice, go_choice, go_row = plan[g]
            go = None if go_row is None else row_vec(g, go_row)
            nodes[g] = _Node(vecs[g], choice, go, go_choice)
        self._clusters[key] = nodes
        return nodes

    def _loops(self, h: int, r: int, n: int, goal: int) -> bool:
        """Whether coming back to these dice with ``goal`` leads to its reroll point again."""
        g = self.goals[goal]
        bombed = g.symbol is not Symbol.NUKE and n >= self.limit
        return not bombed and _count(g.symbol, h, r, n) < g.need

    def _back(
        self, h: int, r: int, n: int, goal: int, fallback: tuple[float, int], toronto: bool
    ) -> Vec | None:
        """Coming back to the same dice against ``goal``: the value that does not go through
        the cycle (a bombing, a capture, Toronto's reroll), or None if only the cycle."""
        g = self.goals[goal]
        fixed: Vec | None = None
        if g.symbol is not Symbol.NUKE and n >= self.limit:
            fixed = self._bombed(fallback)
        elif _count(g.symbol, h, r, n) >= g.need:
            fixed = (g.capture, 1.0, 0.0, 0.0)
        if toronto:
            for face in _FACES:
                if (h, r, n)[face]:
                    vec = self._toronto(h, r, n, face, goal, fallback, False)
                    if fixed is None or vec[0] > fixed[0] + _EPS:
                        fixed = vec
        return fixed

    def _reroll_rest(
        self,
        h: int,
        r: int,
        n: int,
        k: int,
        goal: int,
        fallback: tuple[float, int],
        toronto: bool,
    ) -> Vec:
        """Rerolling ``k`` heads, the outcomes other than all heads again."""
        key = (h, r, n, k, goal, fallback, toronto)
        cached = self._roll.get(key)
        if cached is not None:
            return cached
        outcomes, first_with = _rerolled(k)
        kept = (h - k, r, n)
        # the outcomes come by nukes rolled, fewest first; those that leave the dice short of
        # a bombing (even after Toronto) do not depend on the fallback, so their sum is shared
        # by every fallback (the cluster asks for one per city); Detroit always needs it
        if self.goals[goal].detroit:
            split = 0
            total = _ZERO
        else:
            near = self.limit - (1 if toronto else 0)
            split = first_with[min(max(near - n, 0), k + 1)]
            free_key = (h, r, n, k, goal, toronto)
            free = self._free.get(free_key)
            if free is None:
                free = self._reroll_sum(kept, outcomes[:split], goal, None, toronto, _ZERO)
                self._free[free_key] = free
            total = free
        total = self._reroll_sum(kept, outcomes[split:], goal, fallback, toronto, total)
        self._roll[key] = total
        return total

    def _reroll_sum(
        self,
        kept: tuple[int, int, int],
        outcomes: Sequence[tuple[int, int, int, float]],
        goal: int,
        context: tuple[float, int] | None,
        toronto: bool,
        start: Vec,
    ) -> Vec:
        """``start`` plus these outcomes of a reroll added to the ``kept`` dice, each weighted
        by its chance.

        The solver's hottest loop: _post_node's memo is read here directly (``context`` is
        the fallback where it matters, else None: the memo's own key) and the sums are kept in
        locals (the same additions as :func:`_add`)."""
        post = self._post
        h, r, n = kept
        v0, v1, v2, v3 = start
        for a, b, c, p in outcomes:
            hh, rr, nn = h + a, r + b, n + c
            vec = post.get((hh, rr, nn, goal, context, toronto, False))
            if vec is None:
                vec = self._post_node(hh, rr, nn, goal, context or (0.0, 0), toronto, False)
            v0 += p * vec[0]
            v1 += p * vec[1]
            v2 += p * vec[2]
            v3 += p * vec[3]
        return (v0, v1, v2, v3)

    def _restart_vec(self) -> Vec:
        if self._restart is None:
            again = solver_for(replace(self.problem, denver=False))
            if self.problem.seattle_first:
                face = again.best_opening_seattle()
                self._restart = again._first(again.best_goal(face), face)
            else:
                goal = again.best_goal()
                self._restart = again._first(goal, again.best_seattle(goal))
        return self._restart


@lru_cache(maxsize=512)
def solver_for(problem: Problem) -> TurnSolver:
    """A shared solver per problem, so the decisions of one turn reuse one solution."""
    return TurnSolver(problem)


@cache
def capture_probability(
    symbol: Symbol, need: int, limit: int, last_roll: bool = True, subset: bool = False
) -> float:
    """The best chance to capture a card of this symbol in one turn from scratch, needing
    ``need`` dice of its symbol (no abilities, no switching)."""
    if need <= 0:
        return 1.0
    goal = Goal(-1, symbol, need, symbol is not Symbol.HEAD, 1.0, (0.0,) * need)
    problem = Problem((goal,), limit, last_roll, subset)
    return TurnSolver(problem).first_roll(0).capture


@cache
def _outcomes(n: int) -> tuple[tuple[tuple[int, int, int], float], ...]:
    return tuple(
        ((c[0], c[1], c[2]), float(p))
        for c, p in dice_outcomes(n, tuple(Fraction(w) for w in FACE_PROBABILITIES))
    )


@cache
def _rerolled(
    k: int,
) -> tuple[tuple[tuple[int, int, int, float], ...], tuple[int, ...]]:
    """Rerolling ``k`` heads: the outcomes other than all heads again, flattened and ordered
    by nukes rolled (fewest first), and where those with at least ``c`` nukes begin (for
    ``c`` from 0 to ``k + 1``)."""
    outcomes = sorted(((a, b, c, p) for (a, b, c), p in _outcomes(k) if a != k), key=lambda o: o[2])
    first_with = tuple(
        next((i for i, o in enumerate(outcomes) if o[2] >= c), len(outcomes)) for c in range(k + 2)
    )
    return tuple(outcomes), first_with


def _row_of(rows: Sequence[tuple[int, int, float, Vec, Vec | None]], choice: Choice) -> int | None:
    """The option row of a choice (``None`` for stopping)."""
    if choice is None:
        return None
    return next(i for i, row in enumerate(rows) if (row[0], row[1]) == choice)


def _count(symbol: Symbol, h: int, r: int, n: int) -> int:
    if symbol is Symbol.RAY:
        return r
    if symbol is Symbol.NUKE:
        return n
    if symbol is Symbol.HEAD:
        return h
    return 0


def _add(total: Vec, vec: Vec, p: float) -> Vec:
    return (
        total[0] + p * vec[0],
        total[1] + p * vec[1],
        total[2] + p * vec[2],
        total[3] + p * vec[3],
    )


def _tiny(face: Face | None) -> float:
    """Break exact ties towards not using Seattle, then towards the lower face."""
    return 0.0 if face is None else 1e-12 * (1 + face)
