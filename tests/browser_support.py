"""Browser tests' plumbing: Debian's Chromium driven by Playwright against a real
``marsdice serve`` on loopback (``tests/serverproc.py``).

Import the fixtures into a test module (``from browser_support import browser,
server  # noqa: F401``) or use :func:`start_server` for a server with other options. The
whole module is skipped, with the reason, when ``/usr/bin/chromium`` or Playwright is
missing; ``playwright install`` is never needed (no download: the system's browser)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from serverproc import Server

CHROMIUM = os.environ.get("MARSDICE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: how long a page may take to show what a test waits for (a bot game at delay 0 is quick)
TIMEOUT_MS = 15_000


def skip_reason() -> str | None:
    """Why browser tests cannot run here, or None."""
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (the dev extra)"
    return None


def database_file(tmp_path: Path) -> Path:
    """The SQLite file of the server :func:`start_server` starts in ``tmp_path``."""
    return tmp_path / "browser.sqlite3"


def start_server(tmp_path: Path, *options: str) -> Server:
    """A real server on a fresh SQLite file, bots at delay 0."""
    return Server(f"sqlite:///{database_file(tmp_path)}", tmp_path, *options)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for a module's tests (each test makes its own tables)."""
    running = start_server(tmp_path_factory.mktemp("browser"))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for a module's tests."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield launched
        finally:
            launched.close()


def new_page(
    browser: Any,
    server: Server,
    *,
    lang: str = "en",
    width: int = 1280,
    height: int = 900,
    reduced_motion: bool = True,
    speed: str | None = "instant",
) -> Any:
    """A page in a fresh context (its own localStorage: its own seat tokens) with the page's
    language preset, and the person's pace (``speed``, js/table/pace.js; None: the page's
    default) preset to "instant" so that the tests wait for nothing. Console errors are
    collected on ``page.errors``."""
    context = browser.new_context(
        base_url=server.base,
        viewport={"width": width, "height": height},
        reduced_motion="reduce" if reduced_motion else "no-preference",
        locale={"en": "en-US", "pl": "pl-PL", "ru": "ru-RU"}[lang],
    )
    context.set_default_timeout(TIMEOUT_MS)
    # the page's first language (a switch in the page is then remembered across reloads)
    first = f"localStorage.setItem('marsdice.lang', {json.dumps(lang)})"
    context.add_init_script(f"localStorage.getItem('marsdice.lang') || {first}")
    if speed is not None:
        pace = f"localStorage.setItem('marsdice.speed', {json.dumps(speed)})"
        context.add_init_script(f"localStorage.getItem('marsdice.speed') || {pace}")
    return watch_errors(context.new_page())


def watch_errors(page: Any) -> Any:
    """Collect the page's uncaught script errors and its console errors on ``page.errors`` (a
    test asserts none). Chromium's own line for an HTTP error answer ("Failed to load
    resource") is left out: the page reads those answers and shows them (a 422 next to its
    field)."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    def console(message: Any) -> None:
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            errors.append(f"console: {message.text}")

    page.on("console", console)
    page.errors = errors
    return page


def create_table(server: Server, game: str, variant: dict[str, Any], seats: list[dict[str, Any]],
                 options: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """A table made through the REST lobby (the browser tests' lobby test makes one by hand)."""
    body: dict[str, Any] = {"game": game, "variant": variant, "seats": seats}
    if options is not None:
        body["options"] = options
    response = httpx.post(f"{server.base}/api/tables", json=body, timeout=10)
    assert response.status_code == 201, response.text
    table: dict[str, Any] = response.json()
    return table


def table_state(server: Server, table_id: str) -> dict[str, Any]:
    response = httpx.get(f"{server.base}/api/tables/{table_id}", timeout=10)
    assert response.status_code == 200, response.text
    table: dict[str, Any] = response.json()
    return table


def axe_script() -> str:
    """axe-core's script, as the ``axe-playwright-python`` package ships it (the dev extra)."""
    import axe_playwright_python

    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def axe_violations(page: Any, *, exclude: list[str] | None = None) -> list[str]:
    """axe-core's violations on the page as it is now, one line each (rule, impact, help and
    the first nodes' selectors): a test asserts the list is empty. ``exclude``: CSS selectors
    of parts left out (a third party's widget; none of the project's pages needs it)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_script())
    context: dict[str, Any] = {"include": [["html"]]}
    if exclude:
        context["exclude"] = [[selector] for selector in exclude]
    results = page.evaluate(
        "([context]) => axe.run(context, {resultTypes: ['violations']})", [context]
    )
    lines = []
    for violation in results["violations"]:
        targets = ", ".join(str(node["target"]) for node in violation["nodes"][:4])
        lines.append(
            f"{violation['id']} ({violation['impact']}, {len(violation['nodes'])} nodes): "
            f"{violation['help']} — {targets}"
        )
    return lines


def assert_accessible(page: Any, where: str, **options: Any) -> None:
    """No axe-core violation on the page (light mode, then dark mode)."""
    found: list[str] = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.wait_for_timeout(50)  # (the styles of the new scheme applied)
        found += [f"[{where}, {scheme}] {line}" for line in axe_violations(page, **options)]
    page.emulate_media(color_scheme="light")
    assert not found, "\n".join(found)
