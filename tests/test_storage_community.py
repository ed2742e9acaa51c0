"""Accounts, results, ratings and chat in the database (docs/accounts.md, docs/ratings.md),
on SQLite and PostgreSQL: names unique whatever their case or look-alike letters, sessions
and their rotation, sign-in limits, results stored exactly once (concurrent writers
included) with the ratings they make, which games are rated, the upgrade from revision 0003
with data in it, and chat."""

from __future__ import annotations

import dataclasses
import random
import threading
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy import func, select

from marsdice.accounts import BadPassword, BadUserName, name_key, user_name
from marsdice.ratings import INITIAL, rate
from marsdice.storage import accounts, chat, results, tables
from marsdice.storage.db import Database
from marsdice.storage.tables import SeatSpec
from test_storage_steps import migrations
from test_storage_tables import Writer

HUMAN = SeatSpec("human")
BOT = SeatSpec("bot", "cautious")


# --- names and passwords ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("ab", "3 to 24"),
        ("a" * 25, "3 to 24"),
        ("pаypal", "one script"),  # a Cyrillic а among Latin letters
        ("Ann\u202eeve", "U+202E"),  # a direction override
        ("Ann\x00x", "U+0000"),
        ("Ann\u200bx", "U+200B"),  # zero width
        ("Ann Lee", "U+0020"),
        ("_ann", "begins with"),
        ("ann😀", "U+1F600"),
    ],
)
def test_a_bad_user_name_is_refused_saying_why(name: str, why: str) -> None:
    with pytest.raises(BadUserName, match=why.replace("+", r"\+")):
        user_name(name)


def test_names_are_nfc_and_look_alikes_share_a_key() -> None:
    decomposed = "Zoe\u0308"  # e + combining diaeresis
    assert user_name(decomposed) == "Zoë" and len(user_name(decomposed)) == 3
    assert name_key("Zoë") != name_key("Zoe")  # accents make another name
    assert name_key("ADMIN") == name_key("admin") == name_key("adm1n") == name_key("admln")
    assert name_key("Olga") == name_key("0lga")
    assert name_key("Рор") == name_key("Pop")  # all Cyrillic against all Latin
    assert user_name("Кирилл") == "Кирилл" and user_name("Łukasz_1") == "Łukasz_1"


def test_passwords_have_bounds(db: Database) -> None:
    with pytest.raises(BadPassword):
        accounts.create_user(db, "Ada", "short")
    with pytest.raises(BadPassword, match="user name"):
        accounts.create_user(db, "Adalovelace", "ADALOVELACE")
    assert accounts.list_users(db) == []


def test_a_name_is_taken_whatever_its_case_or_look_alike_letters(db: Database) -> None:
    accounts.create_user(db, "Olga", "a good password")
    for other in ("olga", "OLGA", "0lga", "O1ga"):
        with pytest.raises(accounts.NameUnavailable):
            accounts.create_user(db, other, "another password")
    assert [user.name for user in accounts.list_users(db)] == ["Olga"]


def test_concurrent_sign_ups_of_one_name_make_one_account(db: Database) -> None:
    outcomes: list[str] = []

    def sign_up(i: int) -> None:
        try:
            accounts.create_user(db, "Racer" if i % 2 else "racer", f"password {i}")
            outcomes.append("made")
        except accounts.NameUnavailable:
            outcomes.append("taken")

    threads = [threading.Thread(target=sign_up, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("made") == 1 and outcomes.count("taken") == 7


# --- sessions ----------------------------------------------------------------------------------


def test_sessions_sign_in_rotate_and_end(db: Database) -> None:
    accounts.create_user(db, "Ada", "correct horse")
    user, first = accounts.sign_in(db, "ADA", "correct horse", "10.0.0.1")
    assert user.name == "Ada" and accounts.session_user(db, first) == user
    _, second = accounts.sign_in(db, "Ada", "correct horse", "10.0.0.1")
    assert second != first and accounts.session_user(db, second) == user
    accounts.sign_out(db, first)
    assert accounts.session_user(db, first) is None
    assert accounts.session_user(db, second) == user
    # a password change ends every other session
    _, third = accounts.change_password(db, second, "correct horse", "battery staple")
    assert accounts.session_user(db, second) is None and accounts.session_user(db, third) == user
    with pytest.raises(accounts.BadCredentials):
        accounts.sign_in(db, "Ada", "correct horse", None)
    accounts.sign_in(db, "Ada", "battery staple", None)
    # the session id itself is never stored
    with db.reading() as connection:
        stored = list(connection.scalars(select(accounts.SESSIONS.c.id_hash)))
    assert third not in stored and len(stored[0]) == 64


def test_a_disabled_account_cannot_sign_in_and_loses_its_sessions(db: Database) -> None:
    accounts.create_user(db, "Ada", "correct horse")
    _, session = accounts.sign_in(db, "Ada", "correct horse", None)
    accounts.set_disabled(db, "Ada", True)
    assert accounts.session_user(db, session) is None
    with pytest.raises(accounts.BadCredentials):
        accounts.sign_in(db, "Ada", "correct horse", None)
    accounts.set_disabled(db, "Ada", False)
    accounts.sign_in(db, "Ada", "correct horse", None)


def test_failed_sign_ins_are_limited_per_name_and_per_address(db: Database) -> None:
    accounts.create_user(db, "Ada", "correct horse")
    for _ in range(accounts.FAILURES_PER_NAME):
        with pytest.raises(accounts.BadCredentials):
            accounts.sign_in(db, "Ada", "wrong guess", "10.0.0.1")
    with pytest.raises(accounts.TooManyAttempts) as limited:
        accounts.sign_in(db, "Ada", "correct horse", "10.0.0.2")  # even the right password
    assert 0 < limited.value.retry_after <= accounts.FAILURE_WINDOW.total_seconds() + 1
    # a name with no account is limited the same way (nothing tells the two apart)
    for _ in range(accounts.FAILURES_PER_NAME):
        with pytest.raises(accounts.BadCredentials):
            accounts.sign_in(db, "Nobody", "wrong guess", "10.0.0.3")
    with pytest.raises(accounts.TooManyAttempts):
        accounts.sign_in(db, "Nobody", "wrong guess", "10.0.0.3")
    # one address trying many names
    for i in range(accounts.FAILURES_PER_ADDRESS - accounts.FAILURES_PER_NAME):
        with pytest.raises(accounts.BadCredentials):
            accounts.sign_in(db, f"Name{i}", "wrong guess", "10.0.0.1")
    with pytest.raises(accounts.TooManyAttempts):
        accounts.sign_in(db, "Fresh", "wrong guess", "10.0.0.1")


def test_sign_up_can_be_closed_by_the_operator(db: Database) -> None:
    accounts.set_setting(db, "signup", False)
    with pytest.raises(accounts.SignUpClosed):
        accounts.create_user(db, "Ada", "correct horse")
    accounts.create_user(db, "Ada", "correct horse", by_operator=True)
    accounts.set_setting(db, "signup", True)
    accounts.create_user(db, "Bea", "correct horse")


# --- results and ratings -------------------------------------------------------------------------


def finished(db: Database, table_id: str, seed: int = 1) -> None:
    """Play the table to its end with random moves, as a server would store them."""
    writer = Writer.reading(db, table_id)
    chooser = random.Random(seed)
    while not writer.state.is_terminal:
        writer.store(db, *writer.next_step(chooser))


def account_table(db: Database, variant: dict[str, object] | None = None) -> tuple[str, int]:
    user = accounts.create_user(db, f"Player{random.randrange(10**6)}", "correct horse")
    table = tables.create_table(db, "martian", variant or {}, [HUMAN, BOT])
    tables.join(db, table.id, 0, user.name, None, user.id)
    return table.id, user.id


def test_a_rated_game_stores_its_results_once_with_the_ratings_it_makes(db: Database) -> None:
    table_id, user_id = account_table(db)
    finished(db, table_id)
    assert results.unrecorded_tables(db) == [table_id]
    assert results.record_results(db, table_id) is True
    assert results.record_results(db, table_id) is False  # stored once
    assert results.unrecorded_tables(db) == []
    table = tables.get_table(db, table_id)
    state = results.final_state(table, [s.action for s in tables.read_log(db, table_id)[1]])
    expected = rate([INITIAL, INITIAL], state.placings())
    board = {s.player: s for s in results.leaderboard(db, "martian")}
    assert board[f"user:{user_id}"].rating == expected[0] and board[f"user:{user_id}"].games == 1
    assert board["bot:cautious"].rating == expected[1]
    history = results.history(db, f"user:{user_id}")
    assert (
        len(history) == 1 and history[0]["rated"] and history[0]["placing"] == state.placings()[0]
    )
    assert history[0]["rating"] == expected[0].shown
    summary = results.summary(db, f"user:{user_id}")["martian"]
    assert summary["played"] == 1 and summary["by_seats"]["2"]["played"] == 1


def test_concurrent_writers_store_a_game_s_results_exactly_once(db: Database) -> None:
    table_id, user_id = account_table(db)
    finished(db, table_id)
    stored: list[bool] = []
    threads = [
        threading.Thread(target=lambda: stored.append(results.record_results(db, table_id)))
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(stored) == [False] * 5 + [True]
    with db.reading() as connection:
        rows = connection.scalar(select(func.count()).select_from(results.RESULTS))
        games = connection.scalar(
            select(results.RATINGS.c.games).where(results.RATINGS.c.player == f"user:{user_id}")
        )
    assert rows == 2 and games == 1


def test_a_writer_that_checked_before_another_stored_changes_nothing(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes both find no results, then both write: the second is refused by the
    results' key, its rating updates rolled back with it."""
    table_id, user_id = account_table(db)
    finished(db, table_id)
    assert results.record_results(db, table_id)
    checked: list[bool] = []
    real = results._recorded

    def stale_first(connection: object, found: str) -> bool:
        checked.append(True)
        return False if len(checked) == 1 else real(connection, found)  # type: ignore[arg-type]

    monkeypatch.setattr(results, "_recorded", stale_first)
    assert results.record_results(db, table_id) is False
    board = {s.player: s for s in results.leaderboard(db, "martian")}
    assert board[f"user:{user_id}"].games == 1 and board["bot:cautious"].games == 1


def test_a_bot_seated_twice_is_rated_once_per_game(db: Database) -> None:
    user = accounts.create_user(db, "Trio", "correct horse")
    table = tables.create_table(db, "martian", {}, [HUMAN, BOT, BOT])
    tables.join(db, table.id, 0, user.name, None, user.id)
    finished(db, table.id)
    assert results.record_results(db, table.id)
    board = {s.player: s for s in results.leaderboard(db, "martian")}
    assert board["bot:cautious"].games == 1 and board[f"user:{user.id}"].games == 1
    with db.reading() as connection:
        after = list(connection.execute(
            select(results.RESULTS.c.mu_after).where(results.RESULTS.c.seat > 0)
        ))  # fmt: skip
    assert board["bot:cautious"].rating.mu == pytest.approx(sum(r[0] for r in after) / 2)


def test_two_games_ending_at_once_both_rate_a_new_bot(db: Database) -> None:
    """Both would give the bot its first rating: the second writer tries again."""
    ids = [account_table(db)[0] for _ in range(4)]
    for table_id in ids:
        finished(db, table_id)
    threads = [threading.Thread(target=results.record_results, args=(db, t)) for t in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    board = {s.player: s for s in results.leaderboard(db, "martian")}
    assert board["bot:cautious"].games == 4
    assert results.unrecorded_tables(db) == []


@pytest.mark.parametrize("kind", ["guest", "variant", "bots"])
def test_games_with_guests_other_variants_or_no_account_are_unrated(
    db: Database, kind: str
) -> None:
    if kind == "guest":
        table = tables.create_table(db, "martian", {}, [HUMAN, BOT])
        tables.join(db, table.id, 0, "Guest")
    elif kind == "variant":
        table = tables.get_table(db, account_table(db, {"target": 6})[0])
    else:
        table = tables.create_table(db, "martian", {}, [BOT, BOT])
    finished(db, table.id)
    assert results.record_results(db, table.id)
    assert results.leaderboard(db, "martian") == []
    with db.reading() as connection:
        rated = list(connection.scalars(select(results.RESULTS.c.rated)))
    assert rated == [False, False]


def test_the_upgrade_from_0003_keeps_every_table_and_records_the_finished_ones(
    db: Database,
) -> None:
    """A database the previous release's migrations made, with tables in it: upgraded, then
    the server's start-up pass stores the finished games' results (unrated: guests)."""
    config = migrations()
    played = tables.create_table(db, "martian", {}, [BOT, BOT])  # a game of the old release
    finished(db, played.id)
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0003")
    with db.engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("md_tables")}
        assert "rematch" not in columns
        assert "md_users" not in sa.inspect(connection).get_table_names()
    old_tables = sa.table(
        "md_tables",
        *(sa.column(n) for n in ("id", "game", "status", "server_seed", "commitment")),
        sa.column("variant", sa.JSON), sa.column("seats", sa.JSON),
        sa.column("player_seeds", sa.JSON), sa.column("setup", sa.JSON),
        sa.column("options", sa.JSON), sa.column("start_counter"), sa.column("version"),
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("updated_at", sa.DateTime(timezone=True)),
    )  # fmt: skip
    now = datetime.now(UTC)
    seats = [{"kind": "human", "name": None, "token_hash": None, "seed": None}] * 2
    with db.engine.begin() as connection:
        connection.execute(
            old_tables.insert(),
            [
                {"id": "0123456789ab", "game": "martian", "status": "open",
                 "server_seed": "00" * 32, "commitment": "11" * 32, "variant": {"players": 2},
                 "seats": seats, "player_seeds": [], "setup": None,
                 "options": {"hints": False, "fool_check": True}, "start_counter": 0,
                 "version": 0, "created_at": now, "updated_at": now},
            ],
        )  # fmt: skip
    db.migrate()
    with db.engine.connect() as connection:
        revision = connection.scalar(sa.text("select version_num from alembic_version"))
    assert revision == "0004"
    kept = tables.get_table(db, "0123456789ab")
    assert kept.status == "open" and kept.rematch is None and len(kept.seats) == 2
    old = tables.get_table(db, played.id)
    assert old.status == "finished" and tables.read_log(db, played.id)[1]
    # the start-up pass stores the results of the game finished before the upgrade
    assert results.unrecorded_tables(db) == [played.id]
    assert results.record_all(db) == 1 and results.record_all(db) == 0
    tables.join(db, kept.id, 0, "Ann")
    tables.join(db, kept.id, 1, "Bob")
    finished(db, kept.id)
    assert results.record_all(db) == 1


# --- chat --------------------------------------------------------------------------------------


def test_chat_keeps_messages_checked_and_hides_removed_ones(db: Database) -> None:
    table = tables.create_table(db, "martian", {}, [HUMAN, BOT])
    first = chat.post(db, table.id, "Ann", "  hello   <b>there</b> ", 0, None)
    assert first.text == "hello <b>there</b>"  # kept as written: escaped where it is shown
    for bad in ("", "   ", "x" * 301, "bell\x07", "flip\u202e", "zero\u200bwidth"):
        with pytest.raises(ValueError, match="chat message"):
            chat.post(db, table.id, "Ann", bad, 0, None)
    second = chat.post(db, table.id, "Bob", "next", None, None)
    assert [m.text for m in chat.messages(db, table.id)] == [first.text, "next"]
    assert [m.id for m in chat.messages(db, table.id, after=first.id)] == [second.id]
    chat.remove(db, first.id)
    assert [m.text for m in chat.messages(db, table.id)] == ["next"]
    assert chat.last_id(db, table.id) == second.id


def test_results_from_the_game_in_hand_are_those_of_its_replayed_record(db: Database) -> None:
    """The server stores them from its own game as it ends (nothing read back); the record
    replayed gives the same places and scores."""
    table_id, _ = account_table(db)
    writer = Writer.reading(db, table_id)
    chooser = random.Random(3)
    while not writer.state.is_terminal:
        writer.store(db, *writer.next_step(chooser))
    assert results.record_results(db, table_id, (writer.table, writer.state, frozenset()))
    replayed = results.final_state(writer.table, writer.moves)
    with db.reading() as connection:
        rows = list(
            connection.execute(
                select(results.RESULTS.c.placing, results.RESULTS.c.score).order_by(
                    results.RESULTS.c.seat
                )
            )
        )
    assert [(p, s) for p, s in rows] == list(
        zip(replayed.placings(), map(float, replayed.scores), strict=True)
    )
    unfinished = results.final_state(writer.table, writer.moves[:3])
    with pytest.raises(tables.StorageError, match="not finished"):
        results.record_results(db, table_id, (writer.table, unfinished, frozenset()))


def test_a_seat_a_stand_in_played_is_rated_last_whatever_its_place(db: Database) -> None:
    """Leaving never earns a rating: the stand-in's play is not its player's."""
    table_id, user_id = account_table(db)
    writer = Writer.reading(db, table_id)
    chooser = random.Random(4)
    while not writer.state.is_terminal:
        step, after = writer.next_step(chooser)
        if step.seat == 0:
            step = dataclasses.replace(step, actor=results.STAND_IN)
        writer.store(db, step, after)
    assert results.record_results(db, table_id)  # (read back: the stand-in's steps seen)
    board = {s.player: s for s in results.leaderboard(db, "martian")}
    expected = rate([INITIAL, INITIAL], (2, 1))
    assert board[f"user:{user_id}"].rating == expected[0]
    assert board["bot:cautious"].rating == expected[1]
    assert results.rated_places((1, 1, 3), frozenset({1})) == (1, 3, 2)
    assert results.rated_places((2, 1, 3), frozenset()) == (2, 1, 3)


def test_a_table_whose_log_does_not_replay_never_stops_the_start_up_pass(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    broken, good = (tables.create_table(db, "martian", {}, [BOT, BOT]) for _ in range(2))
    for table in (broken, good):
        finished(db, table.id)
    with db.writing() as connection:
        connection.execute(
            sa.update(tables.STEPS)
            .where(tables.STEPS.c.table_id == broken.id, tables.STEPS.c.seq == 0)
            .values(action="not a move")
        )
    assert results.record_all(db) == 1
    assert results.unrecorded_tables(db) == [broken.id]
    assert f"table {broken.id}: its results cannot be stored" in caplog.text
