"""Alembic migrations of the server's schema, run at start-up (``Database.migrate``)."""
