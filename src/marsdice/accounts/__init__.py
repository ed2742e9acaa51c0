"""Player accounts as values: user names (checked, normalised, and the key that keeps two
names that look alike from both existing) and passwords (Argon2id). Storage keeps them
(:mod:`marsdice.storage.accounts`); nothing here touches a database."""

from __future__ import annotations

from marsdice.accounts.names import (
    MAX_USER_NAME,
    MIN_USER_NAME,
    USER_NAME_PATTERN,
    BadUserName,
    name_key,
    user_name,
)
from marsdice.accounts.passwords import (
    MAX_PASSWORD,
    MIN_PASSWORD,
    BadPassword,
    check_new_password,
    hash_password,
    needs_rehash,
    verify_password,
)

__all__ = [
    "MAX_PASSWORD",
    "MAX_USER_NAME",
    "MIN_PASSWORD",
    "MIN_USER_NAME",
    "USER_NAME_PATTERN",
    "BadPassword",
    "BadUserName",
    "check_new_password",
    "hash_password",
    "name_key",
    "needs_rehash",
    "user_name",
    "verify_password",
]
