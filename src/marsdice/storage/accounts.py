"""Accounts in the database: sign-up, sign-in (its failures limited per name and per
address), server-side sessions, password changes and the operator's settings
(``docs/accounts.md``). Passwords and session ids are never stored: their Argon2id hash and
SHA-256 are. The rules for names and passwords are :mod:`marsdice.accounts`'."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from sqlalchemy import Connection, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from marsdice.accounts import (
    BadUserName,
    check_new_password,
    hash_password,
    name_key,
    needs_rehash,
    user_name,
    verify_password,
)
from marsdice.storage.db import Database
from marsdice.storage.models import (
    Base,
    SessionRow,
    SettingRow,
    SignInFailureRow,
    UserRow,
    utcnow,
)
from marsdice.storage.tables import NotFoundError, StorageError

USERS: Final = Base.metadata.tables[UserRow.__tablename__]
SESSIONS: Final = Base.metadata.tables[SessionRow.__tablename__]
SETTINGS: Final = Base.metadata.tables[SettingRow.__tablename__]
FAILURES: Final = Base.metadata.tables[SignInFailureRow.__tablename__]

#: how long a session lasts after sign-in
SESSION_LIFETIME: Final = timedelta(days=30)
#: failed sign-ins counted over this window...
FAILURE_WINDOW: Final = timedelta(minutes=15)
#: ...before the name tried is refused for the rest of it
FAILURES_PER_NAME: Final = 5
#: ...and before the address they came from is (a household behind one address)
FAILURES_PER_ADDRESS: Final = 20


class NameUnavailable(StorageError):
    """A user name that is taken, or drawn like one that is (the same answer for both)."""

    code = "name_unavailable"


class BadCredentials(StorageError):
    """A name and password that do not sign in: the same answer whether the name exists."""

    code = "bad_credentials"


class TooManyAttempts(StorageError):
    """Sign-in refused for a while after repeated failures (``retry_after`` seconds)."""

    code = "too_many_attempts"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class SignUpClosed(StorageError):
    """The operator has turned sign-up off (an invite-only club)."""

    code = "signup_closed"


@dataclass(frozen=True, slots=True)
class User:
    id: int
    name: str
    disabled: bool
    created_at: datetime

    @property
    def player(self) -> str:
        """The key of this account's results and ratings."""
        return f"user:{self.id}"

    def public(self) -> dict[str, Any]:
        return {"name": self.name, "created_at": self.created_at.isoformat()}


def _user(row: Any) -> User:
    created = row.created_at
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    return User(row.id, row.name, bool(row.disabled), created)


def _id_hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


# --- settings ------------------------------------------------------------------------------


def get_setting(db: Database, key: str, default: Any) -> Any:
    with db.reading() as connection:
        value = connection.scalar(select(SETTINGS.c.value).where(SETTINGS.c.key == key))
    return default if value is None else value


def set_setting(db: Database, key: str, value: Any) -> None:
    with db.writing() as connection:
        changed = connection.execute(
            update(SETTINGS).where(SETTINGS.c.key == key).values(value=value)
        )
        if changed.rowcount == 0:
            connection.execute(insert(SETTINGS), {"key": key, "value": value})


def signup_open(db: Database) -> bool:
    return bool(get_setting(db, "signup", True))


# --- users ---------------------------------------------------------------------------------


def create_user(db: Database, name: str, password: str, *, by_operator: bool = False) -> User:
    """A new account; :class:`NameUnavailable` when the name (or one drawn like it) is
    taken, :class:`SignUpClosed` when sign-up is off (the operator's command passes)."""
    shown = user_name(name)
    check_new_password(password, shown)
    hashed = hash_password(password)  # before any check that answers: the same time for all
    if not by_operator and not signup_open(db):
        raise SignUpClosed("sign-up is closed on this server: ask its operator for an account")
    now = utcnow()
    row = {
        "name": shown,
        "name_key": name_key(shown),
        "password_hash": hashed,
        "disabled": False,
        "created_at": now,
    }
    try:
        with db.writing() as connection:
            new_id = connection.execute(insert(USERS).returning(USERS.c.id), row).scalar_one()
    except IntegrityError:
        raise NameUnavailable(f"the name {shown!r} cannot be used: choose another") from None
    return User(new_id, shown, False, now)


def find_user(db: Database, name: str) -> User:
    with db.reading() as connection:
        row = _user_row(connection, name)
    if row is None:
        raise NotFoundError(f"no player {name!r}")
    return _user(row)


def user_by_id(db: Database, user_id: int) -> User | None:
    with db.reading() as connection:
        row = connection.execute(select(USERS).where(USERS.c.id == user_id)).one_or_none()
    return None if row is None else _user(row)


def _user_row(connection: Connection, name: str) -> Any:
    try:
        key = name_key(user_name(name))
    except BadUserName:
        return None
    return connection.execute(select(USERS).where(USERS.c.name_key == key)).one_or_none()


def set_password(db: Database, name: str, password: str) -> User:
    """The operator's reset (or the user's change, once checked): every session of the
    account ends."""
    with db.writing() as connection:
        row = _user_row(connection, name)
        if row is None:
            raise NotFoundError(f"no player {name!r}")
        check_new_password(password, row.name)
        connection.execute(
            update(USERS).where(USERS.c.id == row.id).values(password_hash=hash_password(password))
        )
        connection.execute(delete(SESSIONS).where(SESSIONS.c.user_id == row.id))
    return _user(row)


def set_disabled(db: Database, name: str, disabled: bool) -> User:
    """Disable an account (it cannot sign in; its sessions end) or enable it again."""
    with db.writing() as connection:
        row = _user_row(connection, name)
        if row is None:
            raise NotFoundError(f"no player {name!r}")
        connection.execute(update(USERS).where(USERS.c.id == row.id).values(disabled=disabled))
        if disabled:
            connection.execute(delete(SESSIONS).where(SESSIONS.c.user_id == row.id))
    return User(row.id, row.name, disabled, _user(row).created_at)


def list_users(db: Database) -> list[User]:
    with db.reading() as connection:
        rows = connection.execute(select(USERS).order_by(USERS.c.id))
        return [_user(row) for row in rows]


# --- signing in ----------------------------------------------------------------------------


def _failures(connection: Connection, key: str, since: datetime) -> tuple[int, datetime | None]:
    count, first = connection.execute(
        select(func.count(), func.min(FAILURES.c.at)).where(
            FAILURES.c.key == key, FAILURES.c.at > since
        )
    ).one()
    if first is not None and first.tzinfo is None:
        first = first.replace(tzinfo=UTC)
    return int(count), first


def _limited(connection: Connection, keys: list[tuple[str, int]], now: datetime) -> None:
    since = now - FAILURE_WINDOW
    for key, limit in keys:
        count, first = _failures(connection, key, since)
        if count >= limit and first is not None:
            wait = max(1, int((first + FAILURE_WINDOW - now).total_seconds()) + 1)
            raise TooManyAttempts(
                f"too many failed sign-ins: try again in {wait // 60 + 1} minutes", wait
            )


def _key(kind: str, text: str) -> str:
    """A failure row's key: ``kind:`` and the text when it is short and printable, else
    ``kind#`` and its SHA-256 (a name refused by the rules may hold anything, NUL and lone
    surrogates included, which a database's text column need not take)."""
    if text.isprintable() and len(text) <= 140:
        return f"{kind}:{text}"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{kind}#{digest}"


def _name_failure_key(name: str) -> str:
    try:
        return _key("name", name_key(user_name(name)))
    except BadUserName:
        return _key("name", name.casefold())


class _Attempt:
    """One password check, counted before it is made: the limits are checked and a failure
    stored for each key in one serialised write (so that checks made at once cannot pass a
    limit together), and taken back only when the password turns out right."""

    def __init__(self, db: Database, keys: list[tuple[str, int]], now: datetime) -> None:
        self.db = db
        with db.writing() as connection:
            if db.dialect == "postgresql":  # the keys' counts, one writer at a time
                for key, _ in sorted(keys):
                    connection.execute(select(func.pg_advisory_xact_lock(func.hashtext(key))))
            _limited(connection, keys, now)
            connection.execute(
                delete(FAILURES).where(FAILURES.c.at <= now - FAILURE_WINDOW)
            )  # what no window counts any more
            self.ids = [
                connection.execute(
                    insert(FAILURES).returning(FAILURES.c.id), {"key": key, "at": now}
                ).scalar_one()
                for key, _ in keys
            ]

    def succeeded(self, connection: Connection, name_key: str) -> None:
        """The password was right: this attempt is no failure, nor are the name's earlier
        ones (the address's earlier ones stand)."""
        connection.execute(
            delete(FAILURES).where((FAILURES.c.key == name_key) | FAILURES.c.id.in_(self.ids))
        )

    def forgotten(self) -> None:
        """Not the visitor's failure after all (the account changed under the check)."""
        with self.db.writing() as connection:
            connection.execute(delete(FAILURES).where(FAILURES.c.id.in_(self.ids)))


def _unchanged(connection: Connection, user_id: int, checked_hash: str) -> bool:
    """Whether the account still has the password just checked and is not disabled: its
    row read locked for the rest of the transaction on PostgreSQL (SQLite's write
    transaction holds the whole file), so that a password reset or a disabling either
    comes before it, and is seen, or after it, and ends the session made here."""
    query = select(USERS).where(USERS.c.id == user_id).with_for_update()
    row = connection.execute(query).one_or_none()
    return row is not None and row.password_hash == checked_hash and not row.disabled


def sign_in(db: Database, name: str, password: str, address: str | None) -> tuple[User, str]:
    """A new session for the account (its id for the cookie), or :class:`BadCredentials`
    (the same for a name without an account, a wrong password and a disabled account) or
    :class:`TooManyAttempts`."""
    now = utcnow()
    key = _name_failure_key(name)
    keys = [(key, FAILURES_PER_NAME)]
    if address:
        keys.append((_key("address", address), FAILURES_PER_ADDRESS))
    attempt = _Attempt(db, keys, now)
    with db.reading() as connection:
        row = _user_row(connection, name)
    stored = None if row is None else row.password_hash
    good = verify_password(stored, password)  # (the same cost without an account)
    if row is None or not good or row.disabled:
        raise BadCredentials("that name and password do not sign in")
    with db.writing() as connection:
        if _unchanged(connection, row.id, row.password_hash):
            if needs_rehash(row.password_hash):
                connection.execute(
                    update(USERS)
                    .where(USERS.c.id == row.id)
                    .values(password_hash=hash_password(password))
                )
            attempt.succeeded(connection, key)
            connection.execute(
                delete(SESSIONS).where(SESSIONS.c.user_id == row.id, SESSIONS.c.expires_at <= now)
            )
            return _user(row), _new_session(connection, row.id, now)
    attempt.forgotten()  # reset or disabled while the password was being checked
    raise BadCredentials("that name and password do not sign in")


def _new_session(connection: Connection, user_id: int, now: datetime) -> str:
    """A new session of the account; its id (for the cookie: only its hash is kept)."""
    session_id = secrets.token_urlsafe(32)
    connection.execute(
        insert(SESSIONS),
        {
            "id_hash": _id_hash(session_id),
            "user_id": user_id,
            "created_at": now,
            "expires_at": now + SESSION_LIFETIME,
        },
    )
    return session_id


def session_user(db: Database, session_id: str | None) -> User | None:
    """The account a session cookie signs in, if it is current."""
    if not session_id or len(session_id) > 128:
        return None
    with db.reading() as connection:
        row = connection.execute(
            select(USERS, SESSIONS.c.expires_at)
            .join(SESSIONS, SESSIONS.c.user_id == USERS.c.id)
            .where(SESSIONS.c.id_hash == _id_hash(session_id))
        ).one_or_none()
    if row is None or row.disabled:
        return None
    expires = row.expires_at if row.expires_at.tzinfo else row.expires_at.replace(tzinfo=UTC)
    return _user(row) if expires > utcnow() else None


def sign_out(db: Database, session_id: str | None) -> None:
    if not session_id:
        return
    with db.writing() as connection:
        connection.execute(delete(SESSIONS).where(SESSIONS.c.id_hash == _id_hash(session_id)))


def change_password(db: Database, session_id: str, current: str, new: str) -> tuple[User, str]:
    """The signed-in user's change: the current password checked, every session ended and a
    new one begun for this browser (its id returned)."""
    user = session_user(db, session_id)
    if user is None:
        raise BadCredentials("sign in first")
    check_new_password(new, user.name)
    key = _name_failure_key(user.name)  # guesses count as the name's failed sign-ins
    attempt = _Attempt(db, [(key, FAILURES_PER_NAME)], utcnow())
    with db.reading() as connection:
        row = connection.execute(select(USERS).where(USERS.c.id == user.id)).one()
    if not verify_password(row.password_hash, current):
        raise BadCredentials("the current password is not right")
    hashed = hash_password(new)
    with db.writing() as connection:
        if _unchanged(connection, user.id, row.password_hash):
            attempt.succeeded(connection, key)
            connection.execute(
                update(USERS).where(USERS.c.id == user.id).values(password_hash=hashed)
            )
            connection.execute(delete(SESSIONS).where(SESSIONS.c.user_id == user.id))
            return user, _new_session(connection, user.id, utcnow())
    attempt.forgotten()  # reset or disabled meanwhile: this browser's session ended with it
    raise BadCredentials("sign in first")


def sign_in_as(db: Database, user: User) -> tuple[User, str]:
    """A new session for ``user`` (after a password change)."""
    with db.writing() as connection:
        session_id = _new_session(connection, user.id, utcnow())
    return user, session_id
