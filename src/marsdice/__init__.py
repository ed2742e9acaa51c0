"""marsdice: rules engines, exact solvers and bots for two push-your-luck dice games.

The engines (:mod:`marsdice.martian`, :mod:`marsdice.attacks`) use the standard library
only; everything else builds on them.
"""

__version__ = "0.1.0"
