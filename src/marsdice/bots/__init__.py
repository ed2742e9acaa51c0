"""Computer players behind one small protocol, for both games.

A bot is anything with a ``name`` and ``choose(state) -> action`` called only at a player's
decision (never at a chance node). :func:`make_bot` builds one by its registered name.

>>> from marsdice.martian import new_game
>>> bot = make_bot("martian", "random", seed=1)
>>> state = new_game()
>>> state = state.apply(state.parse_action("TTHHHHRRCCCKK"))
>>> bot.choose(state) in state.legal_actions()
True
"""

from marsdice.bots.base import Bot, RandomBot
from marsdice.bots.registry import available_bots, make_bot

__all__ = ["Bot", "RandomBot", "available_bots", "make_bot"]
