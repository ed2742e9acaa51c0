"""The schema: a table (setup and status) and its numbered steps; the accounts, their
sessions, each finished game's results and the ratings they made, and the tables' chat."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    """One table: what was asked for at creation, who sits where, the fair-dice seeds and,
    once the game has started, the deal (the setup tags that rebuild the opening state)."""

    __tablename__ = "md_tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    #: the variant as ``Game.variant_to_params`` gives it
    variant: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: one object per seat: kind (human/bot), name, bot, token_hash (SHA-256), seed
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    #: hex; secret until the game ends
    server_seed: Mapped[str] = mapped_column(String(128))
    commitment: Mapped[str] = mapped_column(String(128))
    #: the players' seeds in seat order, fixed when the game starts
    player_seeds: Mapped[list[str]] = mapped_column(JSON, default=list)
    #: the opening state's setup tags as [key, value] pairs (null until started)
    setup: Mapped[list[list[str]] | None] = mapped_column(JSON, nullable=True)
    #: the fair generator's counter after the deal
    start_counter: Mapped[int] = mapped_column(Integer, default=0)
    #: the table's options: hints (advice for everyone), fool_check (the mover is warned
    #: of a blunder); rows from before revision 0002 read as the defaults
    options: Mapped[dict[str, Any]] = mapped_column(
        JSON, server_default=text("""'{"hints": false, "fool_check": true}'""")
    )
    #: open (waiting for players), running, finished
    status: Mapped[str] = mapped_column(String(16), index=True)
    #: how many steps are stored, raised in the transaction that stores each one, so that a
    #: process asking what moved reads one number per table, whatever the log's length
    #: (revision 0003 counted the steps of the tables already stored)
    version: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    #: the table this one is the rematch of, and the one that is its rematch (revision 0004)
    rematch_of: Mapped[str | None] = mapped_column(String(32), nullable=True)
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class StepRow(Base):
    """One step of a game: ``seq`` is the version it was played on (0 for the first step)."""

    __tablename__ = "md_steps"
    __table_args__ = (UniqueConstraint("table_id", "seq", name="uq_md_steps_table_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("md_tables.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    #: the action in the game's notation (chance outcomes included, unredacted)
    action: Mapped[str] = mapped_column(Text)
    #: who: "human", "bot" or "chance"
    actor: Mapped[str] = mapped_column(String(16))
    #: the seat that acted (null for chance)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: the fair generator's counter after this step
    rng_counter: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class UserRow(Base):
    """An account: its name as shown, the key two look-alike names share (unique), the
    password's Argon2id hash."""

    __tablename__ = "md_users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(128), unique=True)
    password_hash: Mapped[str] = mapped_column(String(256))
    disabled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SessionRow(Base):
    """A signed-in browser: the SHA-256 of the cookie's random id (the id itself is never
    stored), until it expires or its user signs out."""

    __tablename__ = "md_sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("md_users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SettingRow(Base):
    """One server setting that every process reads (``signup``: on or off)."""

    __tablename__ = "md_settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[Any] = mapped_column(JSON)


class SignInFailureRow(Base):
    """A failed sign-in, counted against the name tried and the address it came from."""

    __tablename__ = "md_signin_failures"
    __table_args__ = (Index("ix_md_signin_failures_key_at", "key", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: ``name:`` and the name's key, or ``address:`` and the client's address
    key: Mapped[str] = mapped_column(String(160))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ResultRow(Base):
    """One seat of a finished game: who sat there (an account, a bot, a guest), its place
    and score, and, in a rated game, its rating before and after."""

    __tablename__ = "md_results"
    __table_args__ = (Index("ix_md_results_player", "player", "game"),)

    table_id: Mapped[str] = mapped_column(
        ForeignKey("md_tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    #: ``user:ID``, ``bot:NAME`` or null (a guest)
    player: Mapped[str | None] = mapped_column(String(80), nullable=True)
    name: Mapped[str] = mapped_column(String(64))
    seats: Mapped[int] = mapped_column(Integer)
    placing: Mapped[int] = mapped_column(Integer)
    score: Mapped[float] = mapped_column(Float)
    won: Mapped[bool] = mapped_column(Boolean)
    rated: Mapped[bool] = mapped_column(Boolean)
    mu_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    sigma_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    mu_after: Mapped[float | None] = mapped_column(Float, nullable=True)
    sigma_after: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: the seat's accuracy (0-100) by the game's review, once it has been reviewed
    accuracy: Mapped[float | None] = mapped_column(Float, nullable=True)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RatingRow(Base):
    """A player's rating in one game, as its last rated game left it."""

    __tablename__ = "md_ratings"

    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    player: Mapped[str] = mapped_column(String(80), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatRow(Base):
    """One chat message at a table: who wrote it (a seat, or a signed-in spectator), its
    text as written (escaped where it is shown), and whether an operator removed it."""

    __tablename__ = "md_chat"
    __table_args__ = (Index("ix_md_chat_table", "table_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("md_tables.id", ondelete="CASCADE"))
    author: Mapped[str] = mapped_column(String(64))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    user_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    text: Mapped[str] = mapped_column(Text)
    removed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ReviewRow(Base):
    """A finished game's review (its JSON), worked out once and kept: it never changes."""

    __tablename__ = "md_reviews"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("md_tables.id", ondelete="CASCADE"), primary_key=True
    )
    review: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
