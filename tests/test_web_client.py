"""``marsdice connect`` and :class:`marsdice.web.client.TableClient` against a real server
(uvicorn in a thread on a free loopback port, SQLite in a temporary folder): a bot client
playing whole games of both games, a scripted person leaving and coming back with the stored
token, a spectator, a stale version, and the one-line failures."""

from __future__ import annotations

import asyncio
import io
import json
import socket
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.console import Console

from marsdice.cli import connect as connect_cli
from marsdice.cli.main import main
from marsdice.games import read_record
from marsdice.web.client import TableClient
from marsdice.web.schemas import ErrorMessage, StateMessage

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real app under uvicorn in a background thread; its base URL."""
    import uvicorn

    from marsdice.storage.db import Database
    from marsdice.web.app import create_app

    folder = tmp_path_factory.mktemp("server")
    db = Database(f"sqlite:///{folder / 'tables.sqlite3'}")
    app = create_app(database=db, bot_delay=0, absence_timeout=None)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    uv.should_exit = True
    thread.join(timeout=10)
    db.dispose()


@pytest.fixture(autouse=True)
def seat_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Tokens go to a fresh folder, never the user's."""
    monkeypatch.setenv(connect_cli.DATA_ENV, str(tmp_path / "data"))
    return tmp_path / "data"


def new_table(base: str, game: str, variant: dict[str, Any], seats: list[dict[str, str]]) -> str:
    answer = httpx.post(
        f"{base}/api/tables", json={"game": game, "variant": variant, "seats": seats}
    )
    assert answer.status_code == 201, answer.text
    table_id: str = answer.json()["id"]
    return table_id


def server_final(base: str, table_id: str) -> tuple[int, ...]:
    """The final scores of the server's own record of the game."""
    answer = httpx.get(f"{base}/api/tables/{table_id}/record")
    assert answer.status_code == 200, answer.text
    module, record = read_record(answer.text)
    final = module.replay(record)[-1]
    assert final.is_terminal
    return tuple(final.scores)


def test_a_bot_client_plays_a_whole_martian_game(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    table = new_table(
        server, "martian", {"target": 12}, [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
    )
    options = connect_cli.Options(server, table, seat=0, name="Zed", seed="s1", bot="cautious")
    outcome = connect_cli.connect(options, console=Console(file=io.StringIO(), width=200))
    assert outcome.code == 0
    assert outcome.state is not None and outcome.state.is_terminal
    assert tuple(outcome.state.scores) == server_final(server, table)
    assert httpx.get(f"{server}/api/tables/{table}").json()["status"] == "finished"
    # a spectator of the finished table rebuilds the same end from the public log
    capsys.readouterr()
    assert main(["connect", server, table]) == 0
    out = capsys.readouterr().out
    assert "watching" in out and "Final scores" in out


def test_a_person_plays_leaves_and_comes_back_with_the_stored_token(
    server: str,
    seat_files: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = new_table(
        server, "martian", {"target": 30}, [{"kind": "human"}, {"kind": "bot", "bot": "cautious"}]
    )
    # one pass of every letter always finds a legal take, then stops the turn
    script = "zzz\n" + "r\nh\nc\nk\ns\n" * 2 + "quit\nn\nrules\nquit\ny\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    argv = ["connect", server, table, "--seat", "1", "--name", "Ann"]
    assert main(argv) == 0  # `quit` is leaving on purpose (Ctrl-C is 130)
    captured = capsys.readouterr()
    assert "Joined table" in captured.out and "stand-in" in captured.out
    actors = _actors(server, table)
    assert actors.count("human") >= 2  # at least a take and a stop were played
    files = list((seat_files / "seats").iterdir())
    assert len(files) == 1
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    token = json.loads(files[0].read_text())["token"]
    assert token not in captured.out + captured.err
    # the same command again takes the seat back (no second join: the seat is taken)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\ny\n"))
    assert main(argv) == 0
    again = capsys.readouterr()
    assert "Taking back seat 1" in again.out and token not in again.out + again.err
    # a token that holds no seat: one line, exit 2
    assert main(["connect", server, table, "--token", "not-a-token"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "token" in err


def _actors(base: str, table_id: str) -> list[str]:
    async def read() -> list[str]:
        async with TableClient(base, table_id) as client:
            message = await client.hello(None)
            return list(message.actors)

    return asyncio.run(read())


def test_mars_attacks_with_a_bot_client(server: str) -> None:
    table = new_table(
        server, "attacks", {}, [{"kind": "human"}, {"kind": "bot", "bot": "heuristic"}]
    )
    options = connect_cli.Options(server, table, seat=0, seed="x", bot="planner")
    outcome = connect_cli.connect(options, console=Console(file=io.StringIO(), width=200))
    assert outcome.code == 0
    assert outcome.state is not None and outcome.state.is_terminal
    assert tuple(outcome.state.scores) == server_final(server, table)


def test_a_stale_version_is_read_again(server: str) -> None:
    """Another connection of the same seat moves first: the client's action on the old
    version is refused as stale, it reads the table again and asks anew."""
    from websockets.sync.client import connect as ws_connect

    table = new_table(
        server, "martian", {"target": 30}, [{"kind": "human"}, {"kind": "bot", "bot": "cautious"}]
    )
    options = connect_cli.Options(server, table, seat=0, name="Ann")
    token: dict[str, str] = {}
    answers: list[str] = []

    def read_line(prompt: str) -> str:
        if not token:  # first prompt: play the same move from elsewhere, then answer it
            path = connect_cli.token_file(server, table)
            token["t"] = json.loads(path.read_text())["token"]
            with ws_connect(f"ws{server[4:]}/ws/tables/{table}") as ws:
                ws.send(json.dumps({"type": "hello", "token": token["t"]}))
                state = json.loads(ws.recv())
                move = str(state["view"]["legal_actions"][0])
                ws.send(json.dumps({"type": "action", "version": state["version"], "action": move}))
                while json.loads(ws.recv())["version"] == state["version"]:
                    pass
            answers.append(move)
            return move
        answers.append(["s", "quit", "y"][len(answers) - 1])
        return answers[-1]

    out = io.StringIO()
    outcome = connect_cli.connect(
        options, console=Console(file=out, width=200), read_line=read_line
    )
    assert outcome.code == 0  # (left with quit)
    text = out.getvalue()
    # the move made elsewhere was shown, the same move on the old version refused as stale,
    # the table read again: the stop typed at the next prompt was played once
    assert "your action was made on version" in text, text
    assert answers[:2] == [answers[0], "s"]
    assert _actors(server, table).count("human") == 2
    assert "looking again" in text


def test_the_table_client_speaks_typed_messages(server: str) -> None:
    table = new_table(
        server, "martian", {"target": 30}, [{"kind": "human"}, {"kind": "bot", "bot": "cautious"}]
    )

    async def scenario() -> tuple[StateMessage, Any, Any]:
        async with TableClient(server, table) as client:
            joined = await client.join(0, "Bea")
            first = await client.hello(joined.token)
            await client.act(
                first.version + 5, first.view["legal_actions"][0] if first.view else ""
            )
            stale = await client.receive()
            await client.act(first.version, "stop")  # not legal right after a roll
            illegal = await client.receive()
            return first, stale, illegal

    first, stale, illegal = asyncio.run(scenario())
    assert first.your_turn and first.seat == 0
    assert isinstance(stale, ErrorMessage) and stale.code == "stale_version"
    assert isinstance(illegal, ErrorMessage) and illegal.code == "illegal_action"


def test_the_table_client_applies_protocol_2_and_heals_a_lost_step(server: str) -> None:
    """TableClient speaks protocol 2 by default: its states are made from step messages,
    one of which is lost on the way here (the gap is seen and healed with ``sync``); the
    game ends in exactly the state a protocol 1 spectator is sent whole."""
    table = new_table(
        server, "martian", {"target": 12}, [{"kind": "human"}, {"kind": "bot", "bot": "cautious"}]
    )

    async def scenario() -> tuple[StateMessage, StateMessage, list[str]]:
        async with TableClient(server, table) as client:
            kinds: list[str] = []
            receive_one = client._receive_one

            async def lossy() -> Any:
                message = await receive_one()
                kinds.append(message.type)
                if message.type == "step" and message.version == 6 and "lost" not in kinds:
                    kinds.append("lost")
                    # step 6 never arrives: the next message, or the pong, shows the gap
                    await client.ping()
                    return await lossy()
                return message

            client._receive_one = lossy  # type: ignore[method-assign]
            joined = await client.join(0, "Cai")
            message = await client.hello(joined.token)
            while True:
                if isinstance(message, StateMessage):
                    assert message.view is not None
                    if message.view["current_player"] == -2:
                        break
                    if message.your_turn and message.view["legal_actions"]:
                        await client.act(message.version, message.view["legal_actions"][-1])
                message = await client.receive()
        async with TableClient(server, table, protocol=1) as watcher:
            whole = await watcher.hello(None)
        return message, whole, kinds

    mine, whole, kinds = asyncio.run(scenario())
    assert kinds[0] == "state" and "step" in kinds, "protocol 2: steps after the first state"
    assert kinds.count("lost") == 1 and kinds.count("step") > mine.version - 1
    assert kinds.count("state") == 1, "the gap was healed with steps, not a whole state"
    assert mine.version == whole.version and mine.log == whole.log
    assert mine.actors == whole.actors and mine.your_turn == whole.your_turn
    assert mine.view is not None and whole.view is not None
    assert {**mine.view, "viewer": None} == whole.view, "(the end: a seat sees what all see)"
    assert {k: v for k, v in mine.table.items() if k != "updated_at"} == {
        k: v for k, v in whole.table.items() if k != "updated_at"
    }


def test_a_bad_table_or_server_is_one_line(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["connect", server, "nosuchtable"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "marsdice: error:" in err and "Traceback" not in err
    dead = f"http://127.0.0.1:{free_port()}"
    assert main(["connect", dead, "abc", "--seat", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot reach the server" in err
    table = new_table(server, "martian", {}, [{"kind": "human"}, {"kind": "bot", "bot": "random"}])
    assert main(["connect", server, table, "--seat", "1", "--bot", "nobody"]) == 2
    assert "no bot 'nobody'" in capsys.readouterr().err


def test_play_with_server_and_table_is_the_same_client(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    table = new_table(
        server, "martian", {"target": 10}, [{"kind": "bot", "bot": "random"}, {"kind": "human"}]
    )
    argv = ["play", "--server", server, "--table", table, "--seat", "2", "-p", "cautious:Cy"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Final scores" in out and "Cy" in out
    assert main(["play", "--seat", "2"]) == 2  # a seat without a server
    assert "--seat is for online play" in capsys.readouterr().err


def test_a_dropped_connection_is_resumed_and_a_dead_server_ends_it(
    server: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from marsdice.web.client import ConnectionLost

    monkeypatch.setattr(connect_cli, "BACKOFF", 0.01)
    real_receive = TableClient.receive
    calls = {"receive": 0}

    async def flaky_receive(self: TableClient) -> Any:
        calls["receive"] += 1
        if calls["receive"] in (4, 9):  # the socket dies twice mid-game
            await self.disconnect()
            raise ConnectionLost("closed", "the connection closed")
        return await real_receive(self)

    monkeypatch.setattr(TableClient, "receive", flaky_receive)
    table = new_table(
        server, "martian", {"target": 10}, [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
    )
    out = io.StringIO()
    options = connect_cli.Options(server, table, seat=0, bot="cautious")
    outcome = connect_cli.connect(options, console=Console(file=out, width=200))
    assert outcome.code == 0 and "reconnecting (1/" in out.getvalue()
    assert outcome.state is not None
    assert tuple(outcome.state.scores) == server_final(server, table)

    # a server that never answers again: a few tries, then one line and exit 1
    async def dead_hello(self: TableClient, token: str | None = None) -> Any:
        raise ConnectionLost("unreachable", "cannot reach the server")

    table = new_table(
        server, "martian", {"target": 10}, [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
    )
    real_hello = TableClient.hello
    hellos = {"n": 0}

    async def first_hello_only(self: TableClient, token: str | None = None) -> Any:
        hellos["n"] += 1
        if hellos["n"] == 1:
            return await real_hello(self, token)
        return await dead_hello(self, token)

    async def dying_receive(self: TableClient) -> Any:
        calls["receive"] += 1
        if calls["receive"] >= 3:
            await self.disconnect()
            raise ConnectionLost("closed", "the connection closed")
        return await real_receive(self)

    calls["receive"] = 0
    monkeypatch.setattr(TableClient, "hello", first_hello_only)
    monkeypatch.setattr(TableClient, "receive", dying_receive)
    capsys.readouterr()
    assert main(["connect", server, table, "--seat", "1", "--bot", "cautious"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "lost the connection" in err and "seat is kept" in err


def test_a_person_at_a_mars_attacks_table(
    server: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    table = new_table(
        server, "attacks", {}, [{"kind": "human"}, {"kind": "bot", "bot": "heuristic"}]
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("zzz\nhelp\n@\nquit\ny\n"))
    assert main(["connect", server, table, "--seat", "1", "--name", "Ann"]) == 0
    out = capsys.readouterr().out
    assert "Mars Attacks" in out and "Ann" in out and "stand-in" in out


def test_the_bot_authors_example_in_the_protocol_doc_runs(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (Path(__file__).parents[1] / "docs" / "protocol.md").read_text()
    section = text[text.index("## Clients") :]
    code = section[section.index("```python") + len("```python") : section.rindex("```")]
    table = new_table(
        server, "martian", {"target": 10}, [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
    )
    code = code.replace("http://127.0.0.1:8000", server).replace("502ab0332b9e", table)
    exec(compile(code, "protocol.md", "exec"), {"__name__": "example"})
    assert "final scores:" in capsys.readouterr().out
    assert httpx.get(f"{server}/api/tables/{table}").json()["status"] == "finished"


def test_ctrl_c_leaves_and_keeps_the_seat(server: str) -> None:
    table = new_table(
        server, "martian", {"target": 30}, [{"kind": "human"}, {"kind": "bot", "bot": "cautious"}]
    )

    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    out = io.StringIO()
    options = connect_cli.Options(server, table, seat=0, name="Ann")
    outcome = connect_cli.connect(
        options, console=Console(file=out, width=200), read_line=interrupt
    )
    assert outcome.code == 130 and "The seat stays yours" in out.getvalue()
    seat = httpx.get(f"{server}/api/tables/{table}").json()["seats"][0]
    assert seat["taken"] and seat["name"] == "Ann"
    assert connect_cli.load_token(server, table) is not None
