"""A table's chat: messages kept with the table (removed with it), written by a seat or a
signed-in spectator, hidden (not deleted) when an operator removes one. The text is kept as
written; every page shows it as text (``docs/protocol.md``)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import func, insert, select, update

from marsdice.storage.db import Database
from marsdice.storage.models import Base, ChatRow, utcnow
from marsdice.storage.tables import NotFoundError

CHAT: Final = Base.metadata.tables[ChatRow.__tablename__]
#: the longest message, in characters
MAX_CHAT: Final = 300
#: the messages a table keeps for a newcomer's page (older ones stay in the database)
SHOWN: Final = 100
#: the largest id a message can have, by database (the id column's integers)
MAX_ID: Final = {"postgresql": 2**31 - 1, "sqlite": 2**63 - 1}
_REFUSED: Final = frozenset({"Cc", "Cf", "Cn", "Co", "Cs"})


def chat_text(text: str) -> str:
    """The message as kept: NFC, no control or format character (direction overrides,
    zero-width characters), spaces collapsed, 1 to 300 characters."""
    text = unicodedata.normalize("NFC", text)
    for char in text:
        if unicodedata.category(char) in _REFUSED:
            raise ValueError(f"a chat message may not hold U+{ord(char):04X}")
    text = " ".join(text.split())
    if not 1 <= len(text) <= MAX_CHAT:
        raise ValueError(f"a chat message is 1 to {MAX_CHAT} characters")
    return text


@dataclass(frozen=True, slots=True)
class Message:
    id: int
    table_id: str
    author: str
    seat: int | None
    text: str
    created_at: datetime

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "author": self.author,
            "seat": self.seat,
            "text": self.text,
            "at": self.created_at.isoformat(),
        }


def _message(row: Any) -> Message:
    at = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
    return Message(row.id, row.table_id, row.author, row.seat, row.text, at)


def post(
    db: Database, table_id: str, author: str, text: str, seat: int | None, user_id: int | None
) -> Message:
    kept = chat_text(text)
    now = utcnow()
    with db.writing() as connection:
        new_id = connection.execute(
            insert(CHAT).returning(CHAT.c.id),
            {
                "table_id": table_id,
                "author": author,
                "seat": seat,
                "user_id": user_id,
                "text": kept,
                "removed": False,
                "created_at": now,
            },
        ).scalar_one()
    return Message(new_id, table_id, author, seat, kept, now)


def messages(db: Database, table_id: str, after: int = 0, limit: int = SHOWN) -> list[Message]:
    """The table's messages after id ``after``, the latest ``limit`` of them, oldest first."""
    with db.reading() as connection:
        rows = connection.execute(
            select(CHAT)
            .where(CHAT.c.table_id == table_id, CHAT.c.id > after, CHAT.c.removed.is_(False))
            .order_by(CHAT.c.id.desc())
            .limit(limit)
        )
        return [_message(row) for row in reversed(list(rows))]


def last_id(db: Database, table_id: str) -> int:
    with db.reading() as connection:
        found = connection.scalar(select(func.max(CHAT.c.id)).where(CHAT.c.table_id == table_id))
    return int(found or 0)


def remove(db: Database, message_id: int) -> Message:
    """The operator's removal: the message is hidden from every page from now on."""
    if not 1 <= message_id <= MAX_ID.get(db.dialect, 2**31 - 1):  # (no such id can exist)
        raise NotFoundError(f"no chat message {message_id}")
    with db.writing() as connection:
        row = connection.execute(select(CHAT).where(CHAT.c.id == message_id)).one_or_none()
        if row is None:
            raise NotFoundError(f"no chat message {message_id}")
        connection.execute(update(CHAT).where(CHAT.c.id == message_id).values(removed=True))
    return _message(row)
