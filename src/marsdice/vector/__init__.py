"""Batched game environments on numpy arrays: many games stepped at once, for learners
that want millions of steps a second (see ``docs/research.md``).

- :mod:`~marsdice.vector.martian`: Martian Dice (:class:`MartianVectorEnv`).

The engines stay standard-library only; this package is their numpy twin and is checked
against them move for move (``tests/test_vector_martian.py``).
"""

from marsdice.vector.martian import MartianVectorEnv, random_actions

__all__ = ["MartianVectorEnv", "random_actions"]
