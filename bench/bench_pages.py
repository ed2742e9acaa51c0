"""Page weight and first paint of the browser client (not a test): a real ``marsdice serve``
on a fresh SQLite file, Debian's Chromium through Playwright, the lobby and a table page.

For each page, over ``--runs`` fresh browser contexts (a cold cache each): the bytes sent over
the wire (compressed) against the same files' own size (the reference: what the page weighed
before compression), the requests, the scripts loaded (the lobby must load none of the
table's), the first contentful paint; then the same page visited again in the same context
(a warm cache: the versioned files are not asked for again). Wall-clock figures on a shared
machine: compare runs on the same machine only.

Run: .venv/bin/python bench/bench_pages.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from browser_support import CHROMIUM, CHROMIUM_ARGS, start_server

#: what the page loaded, from the Resource Timing entries (same origin: sizes are exposed)
MEASURE = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const all = [nav, ...performance.getEntriesByType('resource')];
  const paints = performance.getEntriesByType('paint');
  const paint = paints.find((p) => p.name === 'first-contentful-paint');
  return {
    wire: all.reduce((n, e) => n + (e.transferSize || 0), 0),
    encoded: all.reduce((n, e) => n + (e.encodedBodySize || 0), 0),
    decoded: all.reduce((n, e) => n + (e.decodedBodySize || 0), 0),
    requests: all.length,
    fetched: all.filter((e) => e.transferSize > 0).length,
    scripts: all.filter((e) => /\\.js(\\?|$)/.test(e.name)).map((e) => new URL(e.name).pathname),
    fcp: paint ? paint.startTime : null,
  };
}"""


def seated_table(base: str) -> tuple[str, dict[str, Any]]:
    """A Martian Dice table against a bot with a person seated; the seat for localStorage."""
    body = {
        "game": "martian",
        "variant": {},
        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "cautious"}],
    }
    table = httpx.post(f"{base}/api/tables", json=body, timeout=10).json()
    joined = httpx.post(
        f"{base}/api/tables/{table['id']}/join", json={"seat": 0, "name": "Ann"}, timeout=10
    ).json()
    return str(table["id"]), {table["id"]: {"seat": 0, "token": joined["token"], "at": 0}}


def visit(browser: Any, base: str, path: str, ready: str, seats: dict[str, Any]) -> dict[str, Any]:
    """A cold visit then a warm one, in a fresh context."""
    context = browser.new_context(base_url=base, viewport={"width": 1366, "height": 900})
    context.add_init_script(
        f"localStorage.setItem('marsdice.seats', {json.dumps(json.dumps(seats))})"
    )
    page = context.new_page()
    page.goto(path)
    page.wait_for_selector(ready)
    page.wait_for_load_state("networkidle")
    cold = page.evaluate(MEASURE)
    page.goto(path)
    page.wait_for_selector(ready)
    page.wait_for_load_state("networkidle")
    warm = page.evaluate(MEASURE)
    context.close()
    return {"cold": cold, "warm": warm}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        server = start_server(Path(folder))
        try:
            table_id, seats = seated_table(server.base)
            pages = {
                "lobby": ("/", "#create-button"),
                "table": (f"/t/{table_id}", ".table-page[data-version]:not([data-version='-1'])"),
            }
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
                )
                print(
                    f"{'page':6} {'wire KB':>8} {'files KB':>9} {'ratio':>6} {'requests':>9} "
                    f"{'FCP ms':>7} {'warm: fetched':>14} {'warm wire KB':>13}"
                )
                for name, (path, ready) in pages.items():
                    runs = [
                        visit(browser, server.base, path, ready, seats) for _ in range(args.runs)
                    ]
                    cold = [r["cold"] for r in runs]
                    warm = [r["warm"] for r in runs]
                    wire = statistics.median(c["wire"] for c in cold) / 1024
                    files = statistics.median(c["decoded"] for c in cold) / 1024
                    fcp = statistics.median(c["fcp"] for c in cold if c["fcp"] is not None)
                    print(
                        f"{name:6} {wire:8.1f} {files:9.1f} {wire / files:6.2f} "
                        f"{cold[0]['requests']:9d} {fcp:7.0f} "
                        f"{warm[0]['fetched']:>7d} of {warm[0]['requests']:<3d} "
                        f"{statistics.median(w['wire'] for w in warm) / 1024:13.1f}"
                    )
                    if name == "lobby":
                        table_scripts = [s for s in cold[0]["scripts"] if "/js/table" in s]
                        loaded = len(cold[0]["scripts"])
                        print(
                            f"       lobby scripts: {loaded}, of the table's: {len(table_scripts)}"
                        )
                browser.close()
        finally:
            server.stop()
    print("ratio: bytes over the wire / the files' own size (the reference, same run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
