"""Passwords: hashed with Argon2id (``argon2-cffi``'s defaults, RFC 9106's second
recommended setting), never stored, logged or sent back.

>>> stored = hash_password("correct horse battery")
>>> stored.startswith("$argon2id$")
True
>>> verify_password(stored, "correct horse battery"), verify_password(stored, "wrong")
(True, False)
"""

from __future__ import annotations

from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from marsdice.core.errors import MarsDiceError

MIN_PASSWORD: Final = 8
#: long enough for any passphrase, short enough that hashing it costs nothing extra
MAX_PASSWORD: Final = 128

_HASHER: Final = PasswordHasher()
#: verified against when a name has no account, so that the answer takes the time a real
#: check takes (nobody learns from it which names exist)
_NOBODY: Final = _HASHER.hash("no account has this password")


class BadPassword(MarsDiceError, ValueError):
    """A new password that may not be used (the message says why)."""

    exit_code = 2


def check_new_password(password: str, name: str | None = None) -> str:
    """The password, if it may be set; :class:`BadPassword` otherwise."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise BadPassword(f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    if name is not None and password.casefold() == name.casefold():
        raise BadPassword("a password may not be the user name")
    if any(not char.isprintable() and not char.isspace() for char in password):
        raise BadPassword("a password holds printable characters only")
    return password


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def verify_password(stored: str | None, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from (``None``: no account, a
    check of the same cost that fails)."""
    try:
        return _HASHER.verify(stored if stored is not None else _NOBODY, password) and (
            stored is not None
        )
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str) -> bool:
    """Whether ``stored`` was made with weaker settings than today's (rehashed at sign-in)."""
    return _HASHER.check_needs_rehash(stored)
