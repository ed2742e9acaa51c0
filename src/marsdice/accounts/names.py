"""User names: what a player signs in with and others see on profiles and leaderboards.

A name is 3 to 24 letters, digits and ``_ - .`` after NFC normalisation, its letters all of
one script (``pаypal`` with a Cyrillic ``а`` is refused), beginning with a letter or digit.
Two names that differ only in case, or in letters of different scripts drawn alike
(Latin ``o`` / Cyrillic ``о`` / Greek ``ο``, ``l`` / ``I`` / ``1``), have the same
:func:`name_key`, and storage keeps that key unique: the second is refused.

>>> user_name("  Ada  ")
'Ada'
>>> name_key("Ada") == name_key("ADA")
True
>>> name_key("Pop") == name_key("Рор")  # Cyrillic Р, о, р
True
>>> user_name("pаypal")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
marsdice.accounts.names.BadUserName: ... must all be of one script (it mixes cyrillic and latin)
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from marsdice.core.errors import MarsDiceError

MIN_USER_NAME: Final = 3
MAX_USER_NAME: Final = 24
#: the punctuation a name may hold besides letters and digits
_PUNCTUATION: Final = "_-."
#: the scripts whose letters a name may be written in (the client's languages and their
#: neighbours); a name's letters are all of one of them
SCRIPTS: Final = ("LATIN", "CYRILLIC", "GREEK")
#: the documented form (what a pattern can say: the script and look-alike rules are the
#: server's, and a name breaking them is answered 422 ``bad_name``)
USER_NAME_PATTERN: Final = (
    r"^[0-9A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]"
    r"[0-9A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff_.\-]{2,23}$"
)

#: one character of :data:`USER_NAME_PATTERN`'s blocks (what the script check leaves to it)
_IN_RANGES: Final = re.compile(r"[0-9A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff_.\-]")

#: letters drawn alike across scripts (and digits drawn like letters), each to one Latin
#: letter: the names they make are one name (Unicode's confusables, the cases that matter
#: for these scripts)
_LOOK_ALIKE: Final = str.maketrans(
    {
        # Cyrillic
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
        "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "і": "l", "ї": "l", "ј": "j",
        "ѕ": "s", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ь": "b", "г": "r", "п": "n",
        "з": "3", "ч": "4", "б": "6",
        # Greek
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o",
        "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "μ": "u", "ς": "c",
        "σ": "o", "ζ": "z",
        # Latin and digits drawn alike
        "i": "l", "1": "l", "|": "l", "0": "o", "5": "s", "2": "z", "8": "b",
        "ı": "l", "ł": "l", "_": "-", ".": "-",
        "ǀ": "l", "ɩ": "l", "ƚ": "l", "ŀ": "l", "ȷ": "j", "ǃ": "l",
        # Cyrillic palochka (its capital folds to it)
        "ӏ": "l",
    }
)  # fmt: skip


class BadUserName(MarsDiceError, ValueError):
    """A user name that may not be used (the message says why)."""

    exit_code = 2


def _script(char: str) -> str | None:
    """The script of a letter as Unicode names it (its name's first word), None for others."""
    if not char.isalpha():
        return None
    return unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]


def user_name(text: str) -> str:
    """The name as stored and shown, or :class:`BadUserName` saying what is wrong."""
    name = unicodedata.normalize("NFC", text).strip()
    if not MIN_USER_NAME <= len(name) <= MAX_USER_NAME:
        raise BadUserName(f"a user name is {MIN_USER_NAME} to {MAX_USER_NAME} characters")
    scripts: set[str] = set()
    for char in name:
        if (char.isdigit() and char.isascii()) or char in _PUNCTUATION:
            continue
        script = _script(char)
        if script is None or script not in SCRIPTS:
            shown = char if char.isprintable() and not char.isspace() else "this character"
            raise BadUserName(
                f"a user name holds letters, digits and {' '.join(_PUNCTUATION)} only, "
                f"not {shown} (U+{ord(char):04X})"
            )
        scripts.add(script)
    if len(scripts) > 1:
        mixed = " and ".join(sorted(script.lower() for script in scripts))
        raise BadUserName(f"a user name's letters must all be of one script (it mixes {mixed})")
    if name[0] in _PUNCTUATION:
        raise BadUserName("a user name begins with a letter or a digit")
    outside = next((char for char in name if not _IN_RANGES.fullmatch(char)), None)
    if outside is not None:  # a letter of these scripts beyond the documented blocks
        raise BadUserName(
            f"a user name holds letters of the Latin, Greek and Cyrillic alphabets, "
            f"not {outside} (U+{ord(outside):04X})"
        )
    return name


def name_key(name: str) -> str:
    """What two names share when they would be taken for one another: case folded, accents
    kept (``Zoë`` and ``Zoe`` are two people), look-alike letters to one letter."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return folded.translate(_LOOK_ALIKE)
