"""The schema: a table (setup and status) and its numbered steps."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
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
