"""The browser client: the single page at ``/`` and the table routes, its files at
``/static`` (``docs/server.md``). Plain files shipped as package data: no build step, and no
external resource (the Content-Security-Policy allows this server only).

Served compressed (gzip, for a client that takes it) and cached by content: the page names
its styles and scripts under ``/static/v/{version}/``, ``version`` being a hash of every file
of the page, so those answers may be kept for a year (``immutable``) and a new release is a
new address. The plain ``/static/...`` addresses stay, revalidated on each use (``no-cache``
with an ETag: a 304 when nothing changed)."""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
from pathlib import Path
from typing import Final

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.middleware.gzip import GZipMiddleware
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from marsdice.web.errors import error_response

log: Final = logging.getLogger("marsdice.web")

#: the page's files (package data)
STATIC_DIR: Final = Path(__file__).resolve().parent / "static"
#: the URL path they are served under
STATIC_PREFIX: Final = "/static"
#: nothing from anywhere else: scripts, styles, images, fonts and WebSockets from this server
CSP: Final = "default-src 'self'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
#: every page response carries these (no long-lived caching: a new version shows at once)
PAGE_HEADERS: Final = {
    "Content-Security-Policy": CSP,
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
#: the versioned files' caching: a year, never revalidated (a new version is a new address)
IMMUTABLE: Final = "public, max-age=31536000, immutable"
#: where the versioned files are served: ``/static/v/{version}/js/app.js``
VERSIONED_PREFIX: Final = "/static/v"
#: answers smaller than this are sent as they are (compressing them gains nothing)
GZIP_MINIMUM: Final = 512
#: the addresses the single page answers (its own router shows each): the lobby, a table, its
#: review and replay, the account page, a player's page and the leaderboards
PAGE_ROUTES: Final = (
    "/",
    "/t/{table_id}",
    "/t/{table_id}/review",
    "/t/{table_id}/replay",
    "/account",
    "/players/{name}",
    "/leaderboard",
    "/leaderboard/{game}",
)
#: the types the page needs, whatever the system's mime.types says
MEDIA_TYPES: Final = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".woff2": "font/woff2",
}


class _PageFiles(StaticFiles):
    """StaticFiles with the page headers and fixed media types (a browser refuses a module
    script served as ``text/plain``, which some systems' type tables would give), cached as
    ``cache_control`` says."""

    def __init__(self, *, directory: Path, cache_control: str = "no-cache") -> None:
        super().__init__(directory=directory, check_dir=False)
        self.cache_control = cache_control

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        media = MEDIA_TYPES.get(Path(full_path).suffix.lower())
        if media is not None and response.status_code == 200:
            response.headers["content-type"] = media
        response.headers.update(PAGE_HEADERS)
        response.headers["Cache-Control"] = self.cache_control
        return response


class _VersionedFiles:
    """``/static/v/{version}/...``: the page's files for good when ``version`` is this
    server's (a year, immutable), else revalidated (an old page asking after a release gets
    the files of now, not kept)."""

    def __init__(self, static_dir: Path, version: str) -> None:
        self.version = version
        self.current = _PageFiles(directory=static_dir, cache_control=IMMUTABLE)
        self.other = _PageFiles(directory=static_dir)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        asked = scope.get("path_params", {}).get("version")
        files = self.current if asked == self.version else self.other
        await files(scope, receive, send)


def asset_version(static_dir: Path = STATIC_DIR) -> str:
    """A hash of every file of the page (their paths and contents): the page's version."""
    digest = hashlib.sha256()
    if static_dir.is_dir():
        for path in sorted(p for p in static_dir.rglob("*") if p.is_file()):
            digest.update(path.relative_to(static_dir).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()[:12]


def page_html(static_dir: Path, version: str) -> str | None:
    """``index.html`` with its styles, scripts and icon named under the versioned prefix (the
    modules they import are then found there too), or None when the page is not installed."""
    index = static_dir / "index.html"
    if not index.is_file():
        return None
    html = index.read_text(encoding="utf-8")
    return html.replace('"/static/', f'"{VERSIONED_PREFIX}/{version}/')


def accepts_gzip(request: Request) -> bool:
    """Does the client take gzip (``Accept-Encoding``, a zero weight refusing it)?"""
    for part in request.headers.get("accept-encoding", "").split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            return params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def add_pages(app: FastAPI, static_dir: Path = STATIC_DIR) -> None:
    """Serve ``static_dir`` at ``/static`` (and, cached for good, at ``/static/v/{version}``)
    and its ``index.html`` at the page's routes (the page's own router shows the lobby, a
    table, its review or its replay, the account, a player, a leaderboard); all of it
    compressed for a client that takes gzip."""
    version = asset_version(static_dir)
    app.state.asset_version = version
    versioned = GZipMiddleware(
        _VersionedFiles(static_dir, version), minimum_size=GZIP_MINIMUM, compresslevel=6
    )
    app.mount(VERSIONED_PREFIX + "/{version}", versioned, name="static-versioned")
    plain = GZipMiddleware(
        _PageFiles(directory=static_dir), minimum_size=GZIP_MINIMUM, compresslevel=6
    )
    app.mount(STATIC_PREFIX, plain, name="static")
    html = page_html(static_dir, version)
    body = html.encode("utf-8") if html is not None else b""
    packed = gzip.compress(body, compresslevel=9, mtime=0)
    etag = f'"{hashlib.sha256(body).hexdigest()[:16]}"'

    async def page(request: Request) -> Response:
        if html is None:
            return error_response(404, "not_found", "the web page is not installed")
        headers = {**PAGE_HEADERS, "ETag": etag, "Vary": "Accept-Encoding"}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        if accepts_gzip(request):
            headers["Content-Encoding"] = "gzip"
            return Response(packed, media_type=MEDIA_TYPES[".html"], headers=headers)
        return Response(body, media_type=MEDIA_TYPES[".html"], headers=headers)

    for route in PAGE_ROUTES:
        app.add_api_route(route, page, methods=["GET", "HEAD"], include_in_schema=False)


def lobby_url(host: str, port: int) -> str:
    """The lobby's address for people: a wildcard host is shown as the loopback one."""
    shown = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "": "127.0.0.1"}.get(host, host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def announce_lobby(host: str, port: int) -> str:
    """Log the lobby's address and print it as a plain line on stdout (for ``make run``)."""
    url = lobby_url(host, port)
    log.info("lobby at %s", url, extra={"event": "lobby", "url": url})
    print(f"marsdice: lobby at {url}", flush=True)
    return url
