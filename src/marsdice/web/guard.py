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


#: the headers the check reads, each of which a request must send at most one value of
_ONE_VALUE: Final = (b"origin", b"sec-fetch-site", b"host")


def _one(values: set[bytes] | None) -> str | None:
    return None if not values else next(iter(values)).decode("latin-1")


class SameOrigin:
    def __init__(self, app: ASGIApp, allowed_origins: Sequence[str] = ()) -> None:
        self.app = app
        self.allowed = tuple(allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in _SAFE:
            # every value of a header, not one: a cookie in any Cookie header counts, and two
            # different origins (or hosts, or fetch sites) say nothing trustworthy
            seen: dict[bytes, set[bytes]] = {}
            for key, value in scope["headers"]:
                seen.setdefault(key.lower(), set()).add(value)
            cookie = b"; ".join(seen.get(b"cookie", ()))
            if scope["path"].startswith(_ACCOUNT_PREFIX) or _COOKIE_NEEDLE in cookie:
                origin, fetch_site, host = (
                    _one(seen.get(name)) for name in (b"origin", b"sec-fetch-site", b"host")
                )
                doubled = any(len(seen.get(name, ())) > 1 for name in _ONE_VALUE)
                if doubled or not same_site(origin, fetch_site, host, self.allowed):
                    response = error_response(
                        403, "cross_site", "refused: this request came from another site's page"
                    )
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)
