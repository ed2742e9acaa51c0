"""The WebSocket protocol ``marsdice serve`` runs on uvicorn: uvicorn's own (websockets,
sans-I/O), leaner per connection, and with permessage-deflate as ``--ws-deflate`` asks.

What an idle connection holds is most of an idle table's memory (``docs/deploy.md``, idle
tables), so this protocol keeps less of it than uvicorn's:

- ``message`` (the default) compresses each message on its own (no context takeover, both
  ways): websockets then makes a compressor for a message and drops it after, so an idle
  connection holds no zlib state at all (about 20 KB with a context kept, 49 KB at
  uvicorn's settings); each message is compressed with a 4 KiB window, which holds a whole
  play message (a few hundred bytes, ``docs/protocol.md``);
- ``context`` keeps a 1 KiB window both ways between messages (smaller messages on the
  wire, a compressor and a decompressor alive for the connection's life);
- ``off``: no compression at all;
- the handshake's request and response are dropped once the connection is open (their
  headers are in the ASGI scope), and the
  inbox and the writable flag are small objects of their own instead of an
  :class:`asyncio.Queue` and an :class:`asyncio.Event` (each of their deques is 760 bytes).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, ClassVar, Final, Literal, cast

from uvicorn._types import ASGIReceiveEvent, ASGISendEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.server import ServerProtocol

Deflate = Literal["message", "context", "off"]
#: ``--ws-deflate``'s choices, the default first
DEFLATE_MODES: Final[tuple[Deflate, ...]] = ("message", "context", "off")
#: the LZ77 window kept between messages both ways with ``context``, as a power of two
#: (10: 1 KiB), and the client's window with ``message``
WINDOW_BITS: Final = 10
#: zlib's memory level for the server's compressor with ``context`` (1-9: its hash table)
MEMORY_LEVEL: Final = 2
#: the server's window and memory level with ``message`` (a compressor lives for one
#: message only): uvicorn's own settings, a 4 KiB window
MESSAGE_WINDOW_BITS: Final = 12
MESSAGE_MEMORY_LEVEL: Final = 5


def deflate_factory(mode: Deflate = "message") -> ServerPerMessageDeflateFactory:
    """permessage-deflate as this server negotiates it (``mode`` not ``off``): the client
    is asked for a 1 KiB window when it lets the server choose (browsers and the websockets
    library do), and with ``message`` not to keep its context either."""
    if mode == "context":
        return ServerPerMessageDeflateFactory(
            server_max_window_bits=WINDOW_BITS,
            client_max_window_bits=WINDOW_BITS,
            compress_settings={"memLevel": MEMORY_LEVEL},
        )
    return ServerPerMessageDeflateFactory(
        server_no_context_takeover=True,
        client_no_context_takeover=True,
        server_max_window_bits=MESSAGE_WINDOW_BITS,
        client_max_window_bits=WINDOW_BITS,
        compress_settings={"memLevel": MESSAGE_MEMORY_LEVEL},
    )


class _Inbox:
    """What uvicorn's protocol uses of an :class:`asyncio.Queue` (``put_nowait``, ``get``,
    ``empty``): a list and the futures of those waiting, made only while someone waits."""

    __slots__ = ("_items", "_waiters")

    def __init__(self) -> None:
        self._items: list[ASGIReceiveEvent] = []
        self._waiters: list[asyncio.Future[None]] | None = None

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: ASGIReceiveEvent) -> None:
        self._items.append(item)
        _wake_one(self._waiters)

    async def get(self) -> ASGIReceiveEvent:
        while not self._items:
            await _wait(self, "_waiters")
        item = self._items.pop(0)
        if self._items:  # another getter may take the next one
            _wake_one(self._waiters)
        return item


class _Flag:
    """What uvicorn's protocol uses of an :class:`asyncio.Event` (``set``, ``clear``,
    ``wait``), without a deque of its own."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = True
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> None:
        while not self._set:
            await _wait(self, "_waiters")


async def _wait(owner: _Inbox | _Flag, attribute: str) -> None:
    """Wait on a new future kept in ``owner``'s list of waiters until it is woken (or
    cancelled); the list is dropped with its last waiter."""
    waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    waiters: list[asyncio.Future[None]] | None = getattr(owner, attribute)
    if waiters is None:
        waiters = []
        setattr(owner, attribute, waiters)
    waiters.append(waiter)
    try:
        await waiter
    finally:
        current = getattr(owner, attribute)
        if current is not None:
            if waiter in current:
                current.remove(waiter)
            if not current:
                setattr(owner, attribute, None)


def _wake_one(waiters: list[asyncio.Future[None]] | None) -> None:
    for waiter in waiters or ():
        if not waiter.done():
            waiter.set_result(None)
            return


class LeanProtocol(WebSocketsSansIOProtocol):
    """uvicorn's protocol with :func:`deflate_factory` (``--ws-per-message-deflate`` off or
    :attr:`deflate` ``off``: no compression at all, as in uvicorn) and less kept per
    connection (the module's documentation)."""

    #: the compression this class negotiates (:func:`protocol_class` makes the others)
    deflate: ClassVar[Deflate] = "message"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate or self.deflate == "off":
            self.conn = ServerProtocol(
                extensions=[] if self.deflate == "off" else [deflate_factory(self.deflate)],
                max_size=self.config.ws_max_size,
                logger=logging.getLogger("uvicorn.error"),
            )
        self.queue = _Inbox()  # type: ignore[assignment]
        self.writable = _Flag()  # type: ignore[assignment]

    async def send(self, message: ASGISendEvent) -> None:
        await super().send(message)
        if self.handshake_complete and hasattr(self, "response"):
            # uvicorn reads the handshake's request and response only until it has answered
            # (a few KB of headers per connection otherwise); websockets' parser keeps the
            # request for the connection's life (a local of its generator), so its headers
            # are emptied rather than only let go
            del self.response
            if hasattr(self, "request"):
                self.request.headers.clear()
                del self.request


#: the protocol classes by mode, made once
_CLASSES: Final[dict[Deflate, type[LeanProtocol]]] = {"message": LeanProtocol}


def protocol_class(mode: Deflate = "message") -> type[LeanProtocol]:
    """The protocol class to hand uvicorn (``ws=``) for ``--ws-deflate mode``."""
    if mode not in _CLASSES:
        made = type(f"LeanProtocol_{mode}", (LeanProtocol,), {"deflate": mode})
        _CLASSES[mode] = cast(type[LeanProtocol], made)
    return _CLASSES[mode]
