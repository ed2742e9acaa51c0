"""``marsdice accounts``: the operator's commands for a server's accounts (docs/accounts.md):
create one, reset its password, disable or enable it, list them, turn sign-up on or off
(an invite-only club), and remove a chat message. They work on the server's database
(``--database-url``, else ``$MARSDICE_DATABASE_URL``, else the default SQLite file), with
the server running or not. A password is read from the terminal without echo, or from
stdin's first line with ``--password-stdin``; it is never an argument (a process list
would show it)."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from marsdice.cli.args import print_error
from marsdice.core.errors import MarsDiceError


class PasswordUnavailable(MarsDiceError):
    """No password could be read (no terminal, and no ``--password-stdin``)."""

    exit_code = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database-url",
        metavar="URL",
        default=None,
        help="the server's SQLAlchemy URL; default $MARSDICE_DATABASE_URL, else the default "
        "SQLite file",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, what in [
        ("create", "create an account (sign-up closed or not)"),
        ("reset-password", "set a new password; every session of the account ends"),
    ]:
        sub = actions.add_parser(name, help=what, description=what)
        sub.add_argument("name", help="the user name")
        sub.add_argument(
            "--password-stdin",
            action="store_true",
            help="read the password from stdin's first line instead of asking",
        )
    for name, what in [
        ("disable", "stop an account from signing in (its sessions end)"),
        ("enable", "let a disabled account sign in again"),
    ]:
        sub = actions.add_parser(name, help=what, description=what)
        sub.add_argument("name", help="the user name")
    actions.add_parser("list", help="list the accounts", description="list the accounts")
    signup = actions.add_parser(
        "signup", help="turn sign-up on or off", description="turn sign-up on or off"
    )
    signup.add_argument("state", choices=["on", "off"], help="on: anyone may sign up")
    remove = actions.add_parser(
        "remove-chat",
        help="hide a chat message from every page",
        description="hide a chat message from every page (its id is in GET /api/tables/ID/chat)",
    )
    remove.add_argument("message", type=int, help="the message's id")


def _password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        line = sys.stdin.readline()
        if not line:
            raise PasswordUnavailable("no password on stdin")
        return line.rstrip("\r\n")
    if not sys.stdin.isatty():
        raise PasswordUnavailable("no terminal to ask for the password: use --password-stdin")
    try:
        first = getpass.getpass("password: ")
        again = getpass.getpass("again: ")
    except EOFError:  # Ctrl-D at the prompt
        print(file=sys.stderr)
        raise PasswordUnavailable("no password given: nothing was changed") from None
    if again != first:
        raise PasswordUnavailable("the two passwords differ: nothing was changed")
    return first


def run(args: argparse.Namespace) -> int:
    from marsdice.cli.serve import open_database
    from marsdice.storage import accounts, chat

    db = open_database(args.database_url)
    action: str = args.action
    done: Any
    if action == "create":
        done = accounts.create_user(db, args.name, _password(args), by_operator=True)
        print(f"created the account {done.name}")
    elif action == "reset-password":
        done = accounts.set_password(db, args.name, _password(args))
        print(f"set a new password for {done.name}; its sessions have ended")
    elif action in ("disable", "enable"):
        done = accounts.set_disabled(db, args.name, action == "disable")
        print(f"{done.name} is {'disabled' if done.disabled else 'enabled'}")
    elif action == "list":
        for user in accounts.list_users(db):
            state = " (disabled)" if user.disabled else ""
            print(f"{user.name}{state}  since {user.created_at:%Y-%m-%d}")
    elif action == "signup":
        accounts.set_setting(db, "signup", args.state == "on")
        print(f"sign-up is {args.state}")
    elif action == "remove-chat":
        message = chat.remove(db, args.message)
        print(f"removed message {message.id} by {message.author} at table {message.table_id}")
    else:  # pragma: no cover (argparse allows only the actions above)
        print_error(f"unknown action {action}")
        return 2
    db.dispose()
    return 0
