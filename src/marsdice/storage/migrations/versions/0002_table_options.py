"""Table options (hints, fool check) for the browser client.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

#: the defaults, so that a table created before this revision reads as one created with them
DEFAULT_OPTIONS = '{"hints": false, "fool_check": true}'


def upgrade() -> None:
    with op.batch_alter_table("md_tables") as batch:
        batch.add_column(
            sa.Column(
                "options",
                sa.JSON(),
                nullable=False,
                server_default=sa.text(f"'{DEFAULT_OPTIONS}'"),
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("md_tables") as batch:
        batch.drop_column("options")
