"""Ratings for people and bots: the Plackett-Luce model of :mod:`marsdice.ratings.model`.

Only the model is imported here (openskill and the standard library), so storage and the
server can rate games without loading a bot; the convergence check against real bots is
:mod:`marsdice.ratings.simulate` (``python -m marsdice.ratings.simulate``).
"""

from marsdice.ratings.model import INITIAL, SHOWN_SCALE, SHOWN_START, Rating, rate, win_chances

__all__ = ["INITIAL", "SHOWN_SCALE", "SHOWN_START", "Rating", "rate", "win_chances"]
