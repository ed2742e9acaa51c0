"""The review's and the replay's pages in Chromium: the chart of the game (an SVG drawn by the
page, its values as a table, blunders marked), the names a person reads (the table's, never
the record's bot notation), moves in words, and axe-core with no violation in light and dark
mode (docs/review.md, "The chart")."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

from browser_support import (  # noqa: F401
    TIMEOUT_MS,
    assert_accessible,
    browser,
    create_table,
    new_page,
    server,
    table_state,
)
from serverproc import Server

#: the record names a bot by its notation: a page never shows these
NOTATIONS = ("winprob", "cautious", "planner", "heuristic")


def finished(running: Server, game: str, variant: dict[str, Any], bots: list[str]) -> str:
    """A bots-only table played to its end (bots move at once on the test server)."""
    seats = [{"kind": "bot", "bot": bot} for bot in bots]
    table_id = str(create_table(running, game, variant, seats)["id"])
    deadline = time.monotonic() + 60
    while table_state(running, table_id)["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.2)
    return table_id


@pytest.fixture(scope="module")
def games(server: Server) -> dict[str, str]:  # noqa: F811
    return {
        "martian": finished(server, "martian", {"target": 13}, ["winprob", "cautious"]),
        "attacks": finished(server, "attacks", {"end_stacks": 1}, ["planner", "heuristic"]),
    }


def review_json(running: Server, table_id: str) -> dict[str, Any]:
    response = httpx.get(f"{running.base}/api/tables/{table_id}/review", timeout=120)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def words(page: Any) -> str:
    return str(page.locator(".rv-page").inner_text())


@pytest.mark.parametrize("game", ["martian", "attacks"])
def test_the_review_draws_the_game_and_marks_its_blunders(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
    games: dict[str, str],
    game: str,
) -> None:
    table_id = games[game]
    review = review_json(server, table_id)
    page = new_page(browser, server)
    pages.append(page)
    page.goto(f"/t/{table_id}/review")
    chart = page.locator(".rv-chart-svg")
    chart.wait_for(timeout=60_000)
    # an image with a title and a description that names every player
    assert chart.get_attribute("role") == "img"
    label = page.evaluate(
        "() => [...document.querySelector('.rv-chart-svg').getAttribute('aria-labelledby')"
        ".split(' ')].map((id) => document.getElementById(id).textContent).join(' ')"
    )
    assert "Expert bot" in label or "Planner bot" in label, label
    # one line (or bars) per player; a mark on every blunder and mistake that has a value
    planner = review["method"] == "planner-estimate"
    assert page.locator(".rv-series").count() == len(review["players"])
    if not planner:
        assert page.locator(".rv-line").count() == len(review["players"])
    marked = [
        d
        for d in review["decisions"]
        if d["mark"] in ("blunder", "mistake")
        and (d["loss"] if planner else d["value"]) is not None
    ]
    assert page.locator(".rv-point").count() == len(marked)
    assert page.locator(".rv-point.mark-blunder").count() == sum(
        d["mark"] == "blunder" for d in marked
    )
    # the values as a table: a row per point drawn
    points = sum(
        (d["loss"] if planner else d["value"]) is not None for d in review["decisions"]
    ) + (0 if planner else len(review["luck"]))
    assert page.locator(".rv-chart-table tbody tr").count() == points
    # the names a person reads: the table's, in the result line too; moves in words
    text = words(page)
    result = page.locator(".rv-result").inner_text()
    assert any(name in result for name in ("Expert bot", "Planner bot")), result
    for notation in NOTATIONS:  # the record's "winprob 26, cautious 22: winprob wins"
        assert not re.search(rf"\b{notation}(?= \d| wins)", text), notation
    assert "@" not in text and "Played: rays" not in text
    assert_accessible(page, f"{game} review")


def test_the_replay_shows_the_chart_with_the_step_marked(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
    games: dict[str, str],
) -> None:
    table_id = games["martian"]
    page = new_page(browser, server)
    pages.append(page)
    page.goto(f"/t/{table_id}/replay?step=5")
    page.locator(".rp-chart .rv-chart-svg").wait_for(timeout=60_000)
    here = page.locator(".rp-chart .rv-here")
    assert here.get_attribute("visibility") == "visible"
    at_five = here.get_attribute("x1")
    page.locator(".rp-next").click()
    page.wait_for_function(
        "(x) => document.querySelector('.rp-chart .rv-here').getAttribute('x1') !== x", arg=at_five
    )
    # a roll is told in words, never as its letters
    moves = page.locator(".rp-moves").inner_text()
    assert "Dice:" not in moves and "rolls" in moves, moves[:300]
    assert_accessible(page, "replay")
    page.goto(f"/t/{games['attacks']}/replay")
    page.locator(".rp-chart .rv-chart-svg").wait_for(timeout=60_000)
    assert_accessible(page, "attacks replay")


def test_the_review_reads_in_polish_and_russian(
    pages: list[Any],
    browser: Any,  # noqa: F811
    server: Server,  # noqa: F811
    games: dict[str, str],
) -> None:
    for lang, heading in (("pl", "Gra na wykresie"), ("ru", "Партия на графике")):
        page = new_page(browser, server, lang=lang)
        pages.append(page)
        page.goto(f"/t/{games['martian']}/review")
        page.locator(".rv-chart-svg").wait_for(timeout=TIMEOUT_MS * 4)
        assert page.locator("#rv-chart-heading").inner_text() == heading
        assert "{" not in words(page)
