"""A version column on the tables: the number of stored steps, read by the sweep instead of
counting the steps.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column(
        "md_tables",
        sa.Column("version", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )
    # the tables stored before this revision: their steps counted once, here
    op.execute(
        "UPDATE md_tables SET version ="
        " (SELECT count(*) FROM md_steps WHERE md_steps.table_id = md_tables.id)"
    )


def downgrade() -> None:
    # (SQLite drops a column in place since 3.35: no copy of the table, whose deletion would
    # cascade to the steps)
    op.execute("ALTER TABLE md_tables DROP COLUMN version")
