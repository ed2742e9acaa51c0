"""The server's routes, one module per concern: :mod:`.lobby` (the REST lobby), :mod:`.play`
(the play WebSocket), :mod:`.ops` (health and metrics). Each is an ``APIRouter`` that
reaches the process's objects through :mod:`marsdice.web.deps`; ``create_app`` includes them."""
