"""The browser client: the single page at ``/`` and the table routes, its files at
``/static`` (``docs/server.md``). Plain files shipped as package data: no build step, and no
external resource (the Content-Security-Policy allows this server only)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Final

from fastapi import FastAPI
from fastapi.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

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
    script served as ``text/plain``, which some systems' type tables would give)."""

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
        return response


def add_pages(app: FastAPI, static_dir: Path = STATIC_DIR) -> None:
    """Serve ``static_dir`` at ``/static`` and its ``index.html`` at the page's routes (the
    page's own router shows the lobby, a table, its review or its replay)."""
    app.mount(STATIC_PREFIX, _PageFiles(directory=static_dir, check_dir=False), name="static")
    index = static_dir / "index.html"

    async def page() -> Response:
        if not index.is_file():
            return error_response(404, "not_found", "the web page is not installed")
        return FileResponse(index, media_type=MEDIA_TYPES[".html"], headers=PAGE_HEADERS)

    for route in ("/", "/t/{table_id}", "/t/{table_id}/review", "/t/{table_id}/replay"):
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
