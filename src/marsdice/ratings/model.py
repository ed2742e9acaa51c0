"""Player ratings: openskill's Plackett-Luce model, one game at a time.

Every seat is its own team of one and a game is ranked by the engine's ``placings()``
(1 = first, equal numbers tied). The model's numbers are pinned here rather than taken from
openskill's defaults, so that a library upgrade cannot quietly move everyone's rating.
See ``docs/ratings.md`` for the model, the shown number's scale and the measured figures.

>>> winner, loser = rate([INITIAL, INITIAL], [1, 2])
>>> INITIAL.shown, winner.shown > INITIAL.shown > loser.shown
(1000, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Final

from openskill.models import PlackettLuce, PlackettLuceRating

#: the prior of a new account or bot (openskill's customary 25 and 25/3)
MU: Final = 25.0
SIGMA: Final = MU / 3
#: the spread of one game's performance around a player's skill
BETA: Final = SIGMA / 2
#: added (in quadrature) to sigma before every game, so ratings keep moving as players change
TAU: Final = MU / 300
#: openskill's floor on the variance's shrink factor
KAPPA: Final = 0.0001
#: standard deviations taken off mu for the conservative ordinal (99.7% one-sided)
Z: Final = 3.0
#: what a new player shows
SHOWN_START: Final = 1000
#: shown points per unit of mu: 400 shown points are 10:1 odds between two settled players
#: under the model's own two-player law, P(a beats b) = 1 / (1 + exp(-(mu_a - mu_b) / c))
#: with c = sqrt(2) * BETA (Elo's law is 1 / (1 + 10 ** (-gap / 400)))
SHOWN_SCALE: Final = 400 / (math.log(10) * math.sqrt(2) * BETA)

_MODEL: Final = PlackettLuce(
    mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=TAU, limit_sigma=False, balance=False
)


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's skill as a belief: mean ``mu`` and standard deviation ``sigma``."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative estimate ``mu - 3 sigma``: the skill is very likely above it."""
        return self.mu - Z * self.sigma

    @property
    def shown(self) -> int:
        """The number a player sees: ``1000 + SHOWN_SCALE * (ordinal - new player's ordinal)``.

        A new player shows 1000 and climbs as games make the rating surer; 400 points of
        difference are about 10:1 odds, as in Elo.
        """
        return round(SHOWN_START + SHOWN_SCALE * (self.ordinal - _INITIAL_ORDINAL))


INITIAL: Final = Rating(MU, SIGMA)
_INITIAL_ORDINAL: Final = INITIAL.ordinal


def rate(ratings: Sequence[Rating], placings: Sequence[int]) -> list[Rating]:
    """One game's update: ``ratings[i]`` is seat i's before, ``placings[i]`` its final place (1 =
    first, equal numbers = tied, as the engines' ``State.placings()`` gives: e.g. (1, 1, 3) for
    two winners sharing first). Every seat is its own team of one. Returns the new ratings in
    seat order.

    Only the order of the places counts: (1, 1, 2) is the same result as (1, 1, 3).
    ValueError for mismatched lengths, fewer than two seats (a solo game is not rated), a
    place below 1 or not a whole number, a mu or sigma that is not finite (or a sigma that is
    not positive), and mu values so far apart (thousands) that the model's sums overflow.
    """
    ranks = _check(ratings, placings)
    teams = [[PlackettLuceRating(r.mu, r.sigma)] for r in ratings]
    try:
        updated = _MODEL.rate(teams, ranks=ranks)
    except OverflowError:
        mus = [r.mu for r in ratings]
        raise ValueError(f"mu values too far apart to rate: {min(mus)} to {max(mus)}") from None
    return [Rating(float(team[0].mu), float(team[0].sigma)) for team in updated]


def win_chances(ratings: Sequence[Rating]) -> list[float]:
    """Each seat's chance of first place in a game between these players, by openskill's
    ``predict_win`` (its pairwise normal approximation, not the Plackett-Luce law itself)."""
    _check(ratings, [1] * len(ratings))
    return list(_MODEL.predict_win([[PlackettLuceRating(r.mu, r.sigma)] for r in ratings]))


def _check(ratings: Sequence[Rating], placings: Sequence[int]) -> list[float]:
    """The placings as openskill's ranks, once everything is known to be sound."""
    if len(ratings) != len(placings):
        raise ValueError(
            f"{len(ratings)} ratings but {len(placings)} placings: one of each per seat"
        )
    if len(ratings) < 2:
        raise ValueError(
            f"a rated game needs at least 2 seats, got {len(ratings)} (solo games are not rated)"
        )
    for seat, rating in enumerate(ratings):
        if not isinstance(rating, Rating):
            raise ValueError(f"seat {seat}: not a Rating: {rating!r}")
        if not (math.isfinite(rating.mu) and math.isfinite(rating.sigma)):
            raise ValueError(f"seat {seat}: mu and sigma must be finite, got {rating}")
        if rating.sigma <= 0:
            raise ValueError(f"seat {seat}: sigma must be positive, got {rating.sigma}")
    ranks: list[float] = []
    for seat, place in enumerate(placings):
        if isinstance(place, bool) or not isinstance(place, Integral):
            raise ValueError(f"seat {seat}: a placing must be a whole number, got {place!r}")
        if place < 1:
            raise ValueError(f"seat {seat}: a placing must be at least 1, got {place}")
        ranks.append(float(place))
    return ranks
