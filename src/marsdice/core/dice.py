"""Exact dice maths: every distinct outcome of rolling n identical dice, with its probability.

An outcome is the multiset of faces shown, written as a tuple of counts per face kind.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from fractions import Fraction
from functools import cache
from math import factorial, prod

Counts = tuple[int, ...]


def compositions(total: int, parts: int) -> Iterator[Counts]:
    """Yield every tuple of ``parts`` non-negative ints summing to ``total``, in lexicographic
    order from the largest first part.

    >>> list(compositions(2, 2))
    [(2, 0), (1, 1), (0, 2)]
    """
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in compositions(total - first, parts - 1):
            yield (first, *rest)


@cache
def dice_outcomes(n: int, weights: tuple[Fraction, ...]) -> tuple[tuple[Counts, Fraction], ...]:
    """Every distinct outcome of rolling ``n`` dice whose face kinds have the given
    probabilities, with its exact probability (a multinomial).

    >>> half = Fraction(1, 2)
    >>> dice_outcomes(2, (half, half))
    (((2, 0), Fraction(1, 4)), ((1, 1), Fraction(1, 2)), ((0, 2), Fraction(1, 4)))
    """
    if n < 0:
        raise ValueError(f"number of dice must be >= 0, got {n}")
    if sum(weights) != 1:
        raise ValueError(f"face probabilities must sum to 1, got {sum(weights)}")
    outcomes = []
    for counts in compositions(n, len(weights)):
        ways = factorial(n) // prod(factorial(c) for c in counts)
        probability = ways * prod(
            (w**c for w, c in zip(weights, counts, strict=True)), start=Fraction(1)
        )
        if probability:
            outcomes.append((counts, probability))
    return tuple(outcomes)


def face_weights(die: Sequence[int], kinds: int) -> tuple[Fraction, ...]:
    """Probabilities of each face kind for a die given as the list of its faces' kinds.

    >>> face_weights((0, 1, 1, 2), 3)
    (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    """
    return tuple(Fraction(die.count(kind), len(die)) for kind in range(kinds))


def roll_dice(rng: random.Random, n: int, die: Sequence[int], kinds: int) -> Counts:
    """Roll ``n`` physical dice with an injected generator and count the face kinds shown.

    >>> sum(roll_dice(random.Random(1), 3, (0, 1), 2))
    3
    """
    counts = [0] * kinds
    for _ in range(n):
        counts[die[rng.randrange(len(die))]] += 1
    return tuple(counts)


def roll_text(counts: Counts, letters: str) -> str:
    """A roll as face letters in face order (a malformed roll shows what it can).

    >>> roll_text((2, 0, 1), "HRN")
    'HHN'
    """
    return "".join(letter * n for letter, n in zip(letters, counts, strict=False))


def parse_roll(text: str, letters: str, example: str) -> Counts:
    """Read face letters in any order, case-insensitive, into counts per face kind.

    >>> parse_roll("nrhh", "HRN", "HHRRN")
    (2, 1, 1)
    """
    from marsdice.core.errors import ActionParseError

    shown = text.strip().upper()
    if not shown or any(ch not in letters for ch in shown):
        raise ActionParseError(
            f"a roll is written as face letters {', '.join(letters)} (e.g. {example}), got {text!r}"
        )
    return tuple(shown.count(letter) for letter in letters)
