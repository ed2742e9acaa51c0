"""``marsdice accounts``: the operator's commands, each ending in one line and an exit code."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from marsdice.cli.main import main
from marsdice.storage import accounts, chat, tables
from marsdice.storage.db import Database
from marsdice.storage.tables import SeatSpec


def run(
    url: str, *args: str, stdin: str = "", monkeypatch: pytest.MonkeyPatch | None = None
) -> int:
    assert monkeypatch is not None
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(["accounts", "--database-url", url, *args])


def test_the_operator_creates_resets_disables_and_closes_sign_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'club.db'}"
    db = Database(url)
    assert run(url, "signup", "off", monkeypatch=monkeypatch) == 0
    db.migrate()
    assert not accounts.signup_open(db)
    assert run(url, "create", "Ada", "--password-stdin", stdin="first password\n",
               monkeypatch=monkeypatch) == 0  # fmt: skip
    _, session = accounts.sign_in(db, "Ada", "first password", None)
    assert run(url, "reset-password", "ada", "--password-stdin", stdin="second password\n",
               monkeypatch=monkeypatch) == 0  # fmt: skip
    assert accounts.session_user(db, session) is None
    accounts.sign_in(db, "Ada", "second password", None)
    assert run(url, "disable", "Ada", monkeypatch=monkeypatch) == 0
    with pytest.raises(accounts.BadCredentials):
        accounts.sign_in(db, "Ada", "second password", None)
    assert run(url, "enable", "Ada", monkeypatch=monkeypatch) == 0
    assert run(url, "list", monkeypatch=monkeypatch) == 0
    out = capsys.readouterr().out
    assert "created the account Ada" in out and "Ada  since" in out
    assert "second password" not in out and "first password" not in out
    table = tables.create_table(db, "martian", {}, [SeatSpec("bot", "random")] * 2)
    message = chat.post(db, table.id, "Ann", "rude words", None, None)
    assert run(url, "remove-chat", str(message.id), monkeypatch=monkeypatch) == 0
    assert chat.messages(db, table.id) == []


@pytest.mark.parametrize(
    ("args", "stdin", "says"),
    [
        (("create", "Ada", "--password-stdin"), "", "no password on stdin"),
        (("create", "Ada"), "", "use --password-stdin"),
        (("create", "A", "--password-stdin"), "long enough pw\n", "3 to 24"),
        (("create", "Ada", "--password-stdin"), "short\n", "8 to 128"),
        (("disable", "Nobody"), "", "no player 'Nobody'"),
        (("remove-chat", "99"), "", "no chat message 99"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2_changing_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    stdin: str,
    says: str,
) -> None:
    url = f"sqlite:///{tmp_path / 'club.db'}"
    assert run(url, *args, stdin=stdin, monkeypatch=monkeypatch) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert accounts.list_users(Database(url)) == []
