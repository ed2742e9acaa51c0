"""Many scalar fixed points ``v = G(v)`` at once, by safeguarded Newton steps.

Why: a turn that scores 0 leaves the totals as they were, so the value of a position is the
fixed point of "play one turn optimally, then be here again". For one player (solo) and for
a pair of totals in the two-player game this is one equation ``v = G(v)`` in one unknown,
where ``G`` is an upper or lower envelope of finitely many affine maps (one per pair of turn
policies) and, crucially,

- ``G`` is non-decreasing with slope at most ``L < 1`` (the slope is the chance that the
  turn, or both turns, score 0; some roll always scores),

so ``h(v) = G(v) - v`` is strictly decreasing, with slope in ``[-1, L - 1]``: one root, and
the sign of ``h`` says on which side of it ``v`` lies. Plain Newton (policy iteration) can
cycle or crawl around a kink of ``G`` when ``G`` is neither convex nor concave (the
two-player case), and its convergence rate degrades as ``L`` nears 1 (one or two dice; a
player far behind who must gamble everything). So each unknown keeps a bracket ``[lo, hi]``
that holds the root; the next point is the Newton point (the slope measured, or the secant
through the last two evaluations) when it lies inside the bracket and the last step at least
halved ``|h|``, and the bracket's midpoint otherwise (the bracket's upper end is doubled while
it is still unknown). Every pass either halves ``|h|`` or, on the next pass, halves the bracket,
and ``|h(v)| <= hi - lo`` inside the bracket: the iteration converges whatever ``L`` is, and is
as fast as Newton's method where Newton's method is fast.

>>> import numpy as np
>>> def evaluate(v, todo, slope):  # two maps, each with a kink: max(0.9 v, 0.5 v + 0.3)
...     g = np.maximum(0.9 * v, 0.5 * v + 0.3)
...     return g, (np.where(0.9 * v >= 0.5 * v + 0.3, 0.9, 0.5) if slope else None)
>>> roots = solve_fixed_points(evaluate, np.array([0.9, 0.1]), 0.0, 1.0, tolerance=1e-14)
>>> [round(float(r), 12) for r in roots]
[0.6, 0.6]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from marsdice.solve.model import FloatArray, IntArray

#: A hard guard, never reached in the accepted range (the sweep test and the benchmark count
#: passes): the bracket halves at least every other pass, 2 * 64 passes exhaust a double.
MAX_PASSES: Final = 160

#: ``evaluate(v, todo, slope)`` -> ``(G(v), G'(v) or None)`` for the unknowns ``todo`` (``v`` is
#: ``v[todo]``); ``slope`` asks for the measured slope (first pass), later passes use secants.
Evaluate = Callable[[FloatArray, IntArray, bool], tuple[FloatArray, FloatArray | None]]


class ConvergenceError(RuntimeError):
    """A fixed point could not be found to the tolerance (a bug: it is proven to exist)."""


def solve_fixed_points(
    evaluate: Evaluate,
    guess: FloatArray,
    lo: float,
    hi: float,
    *,
    tolerance: float,
    what: str = "fixed point",
) -> FloatArray:
    """The fixed points of ``G`` (see module docstring), one per entry of ``guess``; ``lo``
    must satisfy ``G(lo) >= lo`` and ``hi`` (``inf`` allowed) ``G(hi) <= hi``. Returns ``G(v)``
    at the last point, where ``|G(v) - v| <= tolerance``; the last call of ``evaluate`` for
    each unknown is at that point."""
    count = len(guess)
    v = np.clip(np.asarray(guess, dtype=np.float64), lo, hi)
    low = np.full(count, float(lo))
    high = np.full(count, float(hi))
    previous_v = np.full(count, np.nan)
    previous_g = np.full(count, np.nan)
    previous_h = np.full(count, np.inf)
    slope = np.zeros(count)
    bisected = np.zeros(count, dtype=bool)
    result = np.empty(count)
    todo = np.arange(count)
    for passes in range(MAX_PASSES):
        here = v[todo]
        g, measured = evaluate(here, todo, passes == 0)
        h = g - here
        done = np.abs(h) <= tolerance
        result[todo[done]] = g[done]
        low[todo] = np.where(h > 0, np.maximum(low[todo], here), low[todo])
        high[todo] = np.where(h < 0, np.minimum(high[todo], here), high[todo])
        if measured is not None:
            slope[todo] = measured
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                secant = (g - previous_g[todo]) / (here - previous_v[todo])
            usable = np.isfinite(secant) & (secant >= 0.0) & (secant < 1.0)
            slope[todo] = np.where(usable, secant, slope[todo])
        step = np.minimum(slope[todo], 1.0 - 1e-15)
        newton = here + h / (1.0 - step)
        a, b = low[todo], high[todo]
        progress = bisected[todo] | (np.abs(h) <= 0.5 * previous_h[todo])
        accept = progress & (newton > a) & (newton < b)
        middle = np.where(np.isfinite(b), 0.5 * (a + b), 2.0 * np.maximum(a, here) + 1.0)
        proposal = np.where(accept, newton, middle)
        stuck = ~done & ((b - a) <= 4 * np.finfo(np.float64).eps * np.maximum(1.0, np.abs(here)))
        if stuck.any():
            worst = float(np.abs(h[stuck]).max())
            raise ConvergenceError(
                f"{what}: the bracket shrank to rounding with |G(v) - v| = {worst:.2e} left "
                f"(tolerance {tolerance:.0e})"
            )
        previous_v[todo] = here
        previous_g[todo] = g
        previous_h[todo] = np.abs(h)
        bisected[todo] = ~accept
        v[todo] = proposal
        todo = todo[~done]
        if not len(todo):
            return result
    raise ConvergenceError(f"{what}: no fixed point after {MAX_PASSES} passes")
