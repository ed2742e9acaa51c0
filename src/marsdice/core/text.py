"""English for the commentary and views of both games: a name and a verb that agree.

Text is rendered from structured events (never parsed back); these helpers keep "You" grammatical.
"""

from __future__ import annotations

from typing import Final

#: the name a person at the keyboard plays under by default
YOU: Final = "You"
_IRREGULAR: Final = {"be": "is", "have": "has", "do": "does", "go": "goes"}
_YOU_FORMS: Final = {"be": "are"}


def acts(name: str, verb: str) -> str:
    """The name and a verb (given in its base form, maybe with more words) agreeing with it.

    >>> acts("You", "take"), acts("Zax", "take"), acts("Ann", "reach")
    ('You take', 'Zax takes', 'Ann reaches')
    >>> acts("You", "be bombed"), acts("Zax", "be bombed"), acts("Zax", "do not use Boston")
    ('You are bombed', 'Zax is bombed', 'Zax does not use Boston')
    >>> acts("Zax", "carry"), acts("Zax", "stay")
    ('Zax carries', 'Zax stays')
    """
    first, _, rest = verb.partition(" ")
    tail = f" {rest}" if rest else ""
    if name == YOU:
        return f"{name} {_YOU_FORMS.get(first, first)}{tail}"
    return f"{name} {third_person(first)}{tail}"


def third_person(verb: str) -> str:
    """``take`` → ``takes``, ``reach`` → ``reaches``, ``carry`` → ``carries``."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return f"{verb}es"
    if len(verb) > 1 and verb.endswith("y") and verb[-2] not in "aeiou":
        return f"{verb[:-1]}ies"
    return f"{verb}s"


def whose(name: str) -> str:
    """``Your`` or ``Zax's``."""
    return "Your" if name == YOU else f"{name}'s"
