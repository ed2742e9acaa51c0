"""Cross-site request forgery, refused: a state-changing request that a session cookie
could authenticate (any request carrying the cookie, and every account request: sign-in
and sign-up included) must come from this server's own pages or an allowed origin. A
browser names the page's origin (``Origin``, or ``Sec-Fetch-Site``) on every such request;
a client that is not a browser sends neither and is let through (it holds no victim's
cookie). Pure ASGI, before anything reads the body."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from marsdice.web.errors import error_response

#: the cookie that carries a signed-in browser's session id
SESSION_COOKIE: Final = "marsdice_session"
_SAFE: Final = frozenset({"GET", "HEAD", "OPTIONS"})
_ACCOUNT_PREFIX: Final = "/api/account"
_COOKIE_NEEDLE: Final = SESSION_COOKIE.encode() + b"="


def same_site(
    origin: str | None, fetch_site: str | None, host: str | None, allowed: Sequence[str]
) -> bool:
    """Whether a request naming ``origin`` / ``fetch_site`` comes from this server's pages
    (or an allowed origin), or from no browser at all."""
    if origin is not None and origin != "null":
        if "*" in allowed or origin in allowed:
            return True
        return host is not None and urlsplit(origin).netloc == host
    if origin == "null":
        return False
    return fetch_site in (None, "same-origin", "none")


class SameOrigin:
    def __init__(self, app: ASGIApp, allowed_origins: Sequence[str] = ()) -> None:
        self.app = app
        self.allowed = tuple(allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in _SAFE:
            headers = dict(scope["headers"])
            cookie = headers.get(b"cookie", b"")
            if scope["path"].startswith(_ACCOUNT_PREFIX) or _COOKIE_NEEDLE in cookie:
                origin = headers.get(b"origin")
                fetch_site = headers.get(b"sec-fetch-site")
                host = headers.get(b"host")
                if not same_site(
                    None if origin is None else origin.decode("latin-1"),
                    None if fetch_site is None else fetch_site.decode("latin-1"),
                    None if host is None else host.decode("latin-1"),
                    self.allowed,
                ):
                    response = error_response(
                        403, "cross_site", "refused: this request came from another site's page"
                    )
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)
