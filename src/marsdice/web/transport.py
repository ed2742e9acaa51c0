"""The WebSocket protocol ``marsdice serve`` runs on uvicorn: uvicorn's own (websockets,
sans-I/O), with a smaller permessage-deflate window and memory level than uvicorn's
(4 KiB, level 5). A compressor's state lives as long as its connection: about 49 KB a
connection at uvicorn's settings, most of a connection's memory on an idle table. Play
messages are a few hundred bytes (``docs/protocol.md``), so a 1 KiB window still holds the
last message or two, which is what the next one repeats."""

from __future__ import annotations

import logging
from typing import Any, Final

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.server import ServerProtocol

#: the LZ77 window both ways, as a power of two (10: 1 KiB)
WINDOW_BITS: Final = 10
#: zlib's memory level for the server's compressor (1-9: its hash table's size)
MEMORY_LEVEL: Final = 2


def deflate_factory() -> ServerPerMessageDeflateFactory:
    """permessage-deflate as this server negotiates it: the client is asked for the same
    window when it lets the server choose (browsers and the websockets library do)."""
    return ServerPerMessageDeflateFactory(
        server_max_window_bits=WINDOW_BITS,
        client_max_window_bits=WINDOW_BITS,
        compress_settings={"memLevel": MEMORY_LEVEL},
    )


class SmallWindowProtocol(WebSocketsSansIOProtocol):
    """uvicorn's protocol with :func:`deflate_factory` (``--ws-per-message-deflate``
    off: no compression at all, as in uvicorn)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:
            self.conn = ServerProtocol(
                extensions=[deflate_factory()],
                max_size=self.config.ws_max_size,
                logger=logging.getLogger("uvicorn.error"),
            )
