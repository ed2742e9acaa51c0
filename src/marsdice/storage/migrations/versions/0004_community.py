"""Accounts, their sessions and sign-in failures, server settings, each finished game's
results and the ratings they made, its review once worked out, the tables' chat, and a
table's rematch links.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("md_tables", sa.Column("rematch_of", sa.String(32), nullable=True))
    op.add_column("md_tables", sa.Column("rematch", sa.String(32), nullable=True))
    op.create_table(
        "md_users",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(128), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(256), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", _WHEN, nullable=False),
    )
    op.create_table(
        "md_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("md_users.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("expires_at", _WHEN, nullable=False),
    )
    op.create_table(
        "md_settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.JSON(), nullable=False),
    )
    op.create_table(
        "md_signin_failures",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(160), nullable=False),
        sa.Column("at", _WHEN, nullable=False),
    )
    op.create_index("ix_md_signin_failures_key_at", "md_signin_failures", ["key", "at"])
    op.create_table(
        "md_results",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("md_tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("player", sa.String(80), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("placing", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=True),
        sa.Column("sigma_before", sa.Float(), nullable=True),
        sa.Column("mu_after", sa.Float(), nullable=True),
        sa.Column("sigma_after", sa.Float(), nullable=True),
        sa.Column("accuracy", sa.Float(), nullable=True),
        sa.Column("finished_at", _WHEN, nullable=False),
    )
    op.create_index("ix_md_results_player", "md_results", ["player", "game"])
    op.create_table(
        "md_ratings",
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("player", sa.String(80), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", _WHEN, nullable=False),
    )
    op.create_table(
        "md_chat",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("md_tables.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("author", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("removed", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", _WHEN, nullable=False),
    )
    op.create_index("ix_md_chat_table", "md_chat", ["table_id", "id"])
    op.create_table(
        "md_reviews",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("md_tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("review", sa.Text(), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("md_reviews")
    op.drop_table("md_chat")
    op.drop_table("md_ratings")
    op.drop_index("ix_md_results_player", "md_results")
    op.drop_table("md_results")
    op.drop_index("ix_md_signin_failures_key_at", "md_signin_failures")
    op.drop_table("md_signin_failures")
    op.drop_table("md_settings")
    op.drop_table("md_sessions")
    op.drop_table("md_users")
    op.execute("ALTER TABLE md_tables DROP COLUMN rematch")
    op.execute("ALTER TABLE md_tables DROP COLUMN rematch_of")
