"""The online server: a REST lobby and one WebSocket per connection for play, generic over
the games in :mod:`marsdice.games` (no rule of either game lives here). The protocol is in
``docs/protocol.md``; running it in ``docs/server.md``.

``create_app`` needs the ``web`` extra (FastAPI, SQLAlchemy, Alembic, psycopg)."""
