"""The browser client's server side: the page and its files (types, CSP, no caching), the
table options (stored, defaulted for tables from before them, refused when unknown), the
lobby address printed at start, and the replay, verify and review endpoints of a finished
game, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from starlette.testclient import TestClient

from marsdice.review import load_schema
from marsdice.storage import tables
from marsdice.storage.db import Database
from marsdice.web.app import create_app
from marsdice.web.live import load_live
from marsdice.web.pages import CSP, IMMUTABLE, STATIC_DIR, asset_version, lobby_url, page_html

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "bot": "random"}


@pytest.fixture
def client(db: Database) -> Iterator[TestClient]:
    with TestClient(create_app(database=db, bot_delay=0)) as test_client:
        yield test_client


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[TestClient]:
    """The server on a SQLite file, for what does not depend on the database."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'pages.db'}", bot_delay=0)) as test:
        yield test


def create(client: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    table: dict[str, Any] = response.json()
    return table


# --- the page ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/t/abc123",
        "/t/abc123/review",
        "/t/abc123/replay",
        "/account",
        "/players/Ada",
        "/leaderboard",
        "/leaderboard/martian",
    ],
)
def test_every_page_route_serves_the_single_page(app_client: TestClient, path: str) -> None:
    response = app_client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["content-security-policy"] == CSP
    assert "default-src 'self'" in CSP
    assert response.headers["cache-control"] == "no-cache"
    version = asset_version(STATIC_DIR)
    assert response.text == page_html(STATIC_DIR, version)
    assert f'src="/static/v/{version}/js/app.js"' in response.text
    head = app_client.head(path)
    assert head.status_code == 200 and head.headers["content-security-policy"] == CSP


def test_static_files_have_their_types_and_the_csp(app_client: TestClient) -> None:
    expected = {".js": "text/javascript", ".css": "text/css", ".json": "application/json"}
    seen = set()
    for path in sorted(STATIC_DIR.rglob("*")):
        if path.suffix not in expected or path.suffix in seen:
            continue
        seen.add(path.suffix)
        response = app_client.get("/static/" + path.relative_to(STATIC_DIR).as_posix())
        assert response.status_code == 200, path
        assert response.headers["content-type"].split(";")[0] == expected[path.suffix]
        assert response.headers["content-security-policy"] == CSP
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.content == path.read_bytes()
    assert seen == set(expected), "the page's files are missing"
    assert app_client.get("/static/js/nothing-here.js").status_code == 404
    assert app_client.get("/static/../app.py").status_code == 404
    assert app_client.get("/t/abc/elsewhere").status_code == 404


def test_files_are_compressed_and_cached_by_their_content(app_client: TestClient) -> None:
    """gzip for a client that takes it; the versioned addresses kept for a year, the plain
    ones revalidated (an ETag, then 304); an old version's address is not kept."""
    version = asset_version(STATIC_DIR)
    path = "js/table.js"
    plain = (STATIC_DIR / path).read_bytes()
    packed = app_client.get(f"/static/v/{version}/{path}", headers={"accept-encoding": "gzip"})
    assert packed.status_code == 200
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["cache-control"] == IMMUTABLE
    assert packed.headers["content-type"].startswith("text/javascript")
    assert packed.content == plain  # (decoded by the client)
    assert int(packed.headers["content-length"]) < len(plain) / 2
    bare = app_client.get(f"/static/{path}", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in bare.headers and bare.content == plain
    assert bare.headers["cache-control"] == "no-cache"
    again = app_client.get(f"/static/{path}", headers={"if-none-match": bare.headers["etag"]})
    assert again.status_code == 304
    old = app_client.get(f"/static/v/000000000000/{path}")
    assert old.status_code == 200 and old.headers["cache-control"] == "no-cache"
    page = app_client.get("/", headers={"accept-encoding": "gzip"})
    assert (
        page.headers["content-encoding"] == "gzip" and page.headers["cache-control"] == "no-cache"
    )
    assert app_client.get("/", headers={"if-none-match": page.headers["etag"]}).status_code == 304
    assert app_client.get(f"/static/v/{version}/js/nothing.js").status_code == 404


def test_the_version_follows_every_file(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text('<script src="/static/js/app.js"></script>')
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "app.js").write_text("1")
    before = asset_version(tmp_path)
    assert page_html(tmp_path, before) == f'<script src="/static/v/{before}/js/app.js"></script>'
    (tmp_path / "js" / "app.js").write_text("2")
    assert asset_version(tmp_path) != before


def test_the_page_is_package_data() -> None:
    text = (Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"web/static/**/*"' in text


def test_the_lobby_address_is_printed_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'a.db'}", announce=("0.0.0.0", 8123))
    with TestClient(app):
        pass
    assert "marsdice: lobby at http://127.0.0.1:8123/\n" in capsys.readouterr().out
    assert lobby_url("::", 80) == "http://[::1]:80/"
    assert lobby_url("games.example", 8000) == "http://games.example:8000/"


# --- table options ----------------------------------------------------------------------------


def test_options_are_stored_and_shown_with_every_table(client: TestClient) -> None:
    plain = create(client, {"game": "martian", "seats": [HUMAN, HUMAN]})
    assert plain["options"] == {"hints": False, "fool_check": True, "spectator_chat": True}
    hinted = create(
        client,
        {"game": "martian", "seats": [HUMAN, HUMAN], "options": {"hints": True}},
    )
    assert hinted["options"] == {"hints": True, "fool_check": True, "spectator_chat": True}
    bare = create(
        client,
        {"game": "attacks", "seats": [HUMAN, BOT], "options": {"fool_check": False}},
    )
    assert bare["options"] == {"hints": False, "fool_check": False, "spectator_chat": True}
    assert client.get(f"/api/tables/{hinted['id']}").json()["options"]["hints"] is True
    listed = {table["id"]: table["options"] for table in client.get("/api/tables").json()["tables"]}
    assert listed[bare["id"]] == {"hints": False, "fool_check": False, "spectator_chat": True}
    joined = client.post(f"/api/tables/{hinted['id']}/join", json={"seat": 0, "name": "Ann"})
    assert joined.json()["table"]["options"]["hints"] is True


def test_unknown_or_bad_options_are_refused(client: TestClient) -> None:
    bad: list[object] = [{"hint": True}, {"hints": "yes"}, {"hints": 1}, []]
    for options in bad:
        body = {"game": "martian", "seats": [HUMAN, HUMAN], "options": options}
        response = client.post("/api/tables", json=body)
        assert response.status_code == 422, options
        assert response.json()["error"] == "bad_request"
        assert response.json()["field"].startswith("options")
    with pytest.raises(ValueError, match="options: unknown option 'x'"):
        tables.create_table(
            client.app.state.db,  # type: ignore[attr-defined]
            "martian",
            {},
            [tables.SeatSpec("human")] * 2,
            {"x": True},
        )


def test_a_table_from_before_the_options_reads_as_the_defaults(db: Database) -> None:
    from marsdice.storage import db as db_module

    config = Config()
    config.set_main_option("script_location", str(db_module._MIGRATIONS))
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0001")
    old = sa.table(
        "md_tables",
        *(sa.column(name) for name in ("id", "game", "server_seed", "commitment", "status")),
        *(sa.column(name, sa.JSON) for name in ("variant", "seats", "player_seeds", "setup")),
        sa.column("start_counter"),
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("updated_at", sa.DateTime(timezone=True)),
    )
    now = datetime.now(UTC)
    with db.engine.begin() as connection:
        connection.execute(
            old.insert().values(
                id="oldtable",
                game="martian",
                variant={"players": 2},
                seats=[{"kind": "human"}, {"kind": "human"}],
                server_seed="00" * 32,
                commitment="ab" * 32,
                player_seeds=[],
                setup=None,
                start_counter=0,
                status="open",
                created_at=now,
                updated_at=now,
            )
        )
    db.migrate()
    table = tables.get_table(db, "oldtable")
    assert table.options == {"hints": False, "fool_check": True, "spectator_chat": True}
    assert table.public()["options"] == {"hints": False, "fool_check": True, "spectator_chat": True}


# --- after the end: replay, verify, review ----------------------------------------------------


def finished_bot_game(client: TestClient, game: str, variant: dict[str, Any]) -> str:
    table = create(client, {"game": game, "variant": variant, "seats": [BOT, BOT]})
    for _ in range(600):
        if client.get(f"/api/tables/{table['id']}").json()["status"] == "finished":
            return str(table["id"])
        time.sleep(0.05)
    raise AssertionError("the bots did not finish")


@pytest.mark.parametrize(("game", "variant"), [("martian", {"target": 6}), ("attacks", {})])
def test_replay_verify_and_review_of_a_finished_game(
    client: TestClient, db: Database, game: str, variant: dict[str, Any]
) -> None:
    table_id = finished_bot_game(client, game, variant)
    live = load_live(db, table_id)
    assert live is not None
    replay = client.get(f"/api/tables/{table_id}/replay").json()
    steps = replay["steps"]
    assert len(steps) == live.version
    assert replay["start"] == json.loads(json.dumps(live.game.observe(live.start, None)))
    assert steps[-1]["view"] == json.loads(json.dumps(live.game.observe(live.state, None)))
    assert steps[-1]["view"]["winners"]
    assert [step["version"] for step in steps] == list(range(1, live.version + 1))
    assert [step["action"] for step in steps] == live.moves()
    assert {step["actor"] for step in steps} <= {"bot", "chance"}
    assert all((step["seat"] is None) == (step["actor"] == "chance") for step in steps)

    verdict = client.get(f"/api/tables/{table_id}/verify").json()
    assert verdict["fair"] is True and verdict["message"].startswith("fair")

    review = client.get(f"/api/tables/{table_id}/review")
    assert review.status_code == 200
    jsonschema.validate(review.json(), load_schema())
    assert review.json()["game"] == game and review.json()["finished"] is True


def test_before_the_end_there_is_no_replay_verify_or_review(client: TestClient) -> None:
    table = create(client, {"game": "martian", "seats": [HUMAN, BOT]})
    for what in ("replay", "verify", "review", "record"):
        response = client.get(f"/api/tables/{table['id']}/{what}")
        assert response.status_code == 409, what
        assert response.json()["error"] == "not_finished"
        assert client.get(f"/api/tables/nosuchtable/{what}").status_code == 404
