"""Protocol 2's play messages (``docs/protocol.md``): after a connection's first ``state``,
each step reaches it as one ``step`` message of the step's size, not the game's: the step
as the viewer may see it, its events and a JSON Patch of the view (:mod:`.patch`). Protocol 3
sends the steps of one broadcast (a move and the dice after it) in one ``steps`` message.

Every function here is pure but :func:`mark_sent`: the hub builds each text once per
viewer (a seat, the spectators), sends it to every connection of that viewer at the same
point, then marks what each connection now holds. Encoded with orjson, once per message."""

from __future__ import annotations

from typing import Any, Final

import orjson

from marsdice.storage.tables import TableData
from marsdice.web.live import Live
from marsdice.web.patch import (
    assemble,
    diff_encoded,
    joined,
    member_chunks,
    member_code,
    replace_whole,
    whole_is_shorter,
)
from marsdice.web.session import Client, TableSession

#: the protocol from which consecutive steps come in one ``steps`` message
BATCHED_PROTOCOL: Final = 3
#: a connection further behind than this many steps gets a whole ``state`` instead
MAX_STEPS_BEHIND: Final = 16
#: member patches a table keeps for its viewers (they are the last step's or two)
_MEMO_SIZE: Final = 64
#: the table's field that changes with every stored step and is no news by itself
_CLOCK: Final = "updated_at"


def encode(message: dict[str, Any]) -> str:
    """One message as compact JSON text (UTF-8, as the WebSocket frame carries it)."""
    return orjson.dumps(message).decode()


def same_table(sent: dict[str, Any] | None, public: dict[str, Any]) -> bool:
    """Whether a connection that was sent ``sent`` holds ``public`` (the clock aside)."""
    if sent is public:
        return True
    if sent is None or sent.keys() != public.keys():
        return False
    return all(
        key == _CLOCK or sent[key] is value or sent[key] == value for key, value in public.items()
    )


def full_state(
    session: TableSession,
    seat: int | None,
    table: TableData,
    live: Live | None,
    guidance: dict[str, Any],
) -> str:
    """The whole table as ``seat`` may see it, with every step's events (``step_events``)
    so that a connection arriving mid-game can tell all of it. ``guidance``: the advice and
    the solve pool's notes (``Hub._guidance``)."""
    public = session.table_public(table)
    if live is None:
        return encode(
            {
                "type": "state",
                "table": public,
                "seat": seat,
                "version": 0,
                "view": None,
                "log": [],
                "actors": [],
                "your_turn": False,
                **guidance,
                "step_events": [],
            }
        )
    view = session.view(live, seat, live.version)
    return encode(
        {
            "type": "state",
            "table": public,
            "seat": seat,
            "version": live.version,
            "view": view,
            "log": session.redacted_log(live, seat),
            "actors": [actor for actor, _ in live.actors],
            "your_turn": seat is not None and live.state.current_player == seat,
            **guidance,
            "step_events": session.step_events(live, seat),
        }
    )


def _behind(client: Client, live: Live) -> int | None:
    """How many steps the connection lacks; None when steps cannot bring it up to date
    (it holds no view yet, claims a version the game has not reached, or lags too far)."""
    if client.version < 0:
        return None
    behind = live.version - client.version
    return behind if 0 <= behind <= MAX_STEPS_BEHIND else None


def updates_key(
    session: TableSession,
    client: Client,
    table: TableData,
    live: Live | None,
    guidance: dict[str, Any],
) -> tuple[object, ...]:
    """What decides :func:`updates`' texts for this connection in this broadcast: equal
    keys, equal texts (so they are built once)."""
    news = not same_table(client.table_sent, session.table_public(table))
    if live is None:
        return (client.seat, "open", news)
    behind = _behind(client, live)
    if behind is None:
        return (client.seat, "state")
    batched = client.protocol >= BATCHED_PROTOCOL
    return (client.seat, client.version, news, guidance != client.guidance_sent, batched)


def updates(
    session: TableSession,
    client: Client,
    table: TableData,
    live: Live | None,
    guidance: dict[str, Any],
) -> list[str]:
    """The messages that bring the connection from what it holds to now: the steps it
    lacks (the last with the guidance, and the table if it changed), a whole ``state`` when
    steps cannot, or with no step the ``table``/``advice`` news (or nothing)."""
    public = session.table_public(table)
    news = not same_table(client.table_sent, public)
    if live is None:
        return [encode({"type": "table", "version": 0, "table": public})] if news else []
    behind = _behind(client, live)
    if behind is None:
        return [full_state(session, client.seat, table, live, guidance)]
    if behind == 0:
        out = []
        if news:
            out.append(encode({"type": "table", "version": live.version, "table": public}))
        if guidance != client.guidance_sent:
            out.append(encode({"type": "advice", "version": live.version, **guidance}))
        return out
    passing = {key: value for key, value in guidance.items() if key == "fallback"}
    steps = [
        step(
            session,
            live,
            client.seat,
            version,
            guidance if version == live.version else {"advice": None, **passing},
            public if news and version == live.version else None,
        )
        for version in range(client.version + 1, live.version + 1)
    ]
    if len(steps) > 1 and client.protocol >= BATCHED_PROTOCOL:
        return [batch(steps)]
    return steps


def batch(steps: list[str]) -> str:
    """Protocol 3: consecutive ``step`` messages (already encoded) as one ``steps``
    message, so that a move and the dice after it cost one frame to send and to read."""
    return '{"type":"steps","steps":[' + ",".join(steps) + "]}"


def step(
    session: TableSession,
    live: Live,
    seat: int | None,
    version: int,
    guidance: dict[str, Any],
    table: dict[str, Any] | None,
) -> str:
    """The ``step`` message that brings ``seat``'s view from ``version - 1`` to
    ``version``: the patch, or the whole new view when that is shorter."""
    if len(session.member_patches) > _MEMO_SIZE:
        session.member_patches.clear()
    if seat is not None and live.game.game_type.perfect_information:
        patch = _seat_patch(session, live, seat, version)
    else:
        patch = _patch(session, live, seat, version)
    view = session.view(live, seat, version)
    index = version - 1
    message: dict[str, Any] = {
        "type": "step",
        "version": version,
        "step": live.game.redact(live.state_before(index), live.actions[index], seat),
        "actor": live.actors[index][0],
        "events": view["events"],
        "patch": orjson.Fragment(patch),
        "your_turn": seat is not None and live.state_before(version).current_player == seat,
        **guidance,
    }
    if table is not None:
        message["table"] = table
    return encode(message)


def _patch(session: TableSession, live: Live, seat: int | None, version: int) -> bytes:
    """The viewer's patch to ``version`` (encoded), from its own views' members."""
    step = session.step_views(live, seat, version)
    whole = joined(step[3])
    patch = diff_encoded(*step, session.member_patches, whole)
    return patch if len(patch) < len(whole) + 40 else replace_whole(whole)


#: the members of a seat's view that a spectator's lacks or has otherwise, in a game of
#: perfect information (``Game.seat_view``)
_SEAT_MEMBERS: Final = ("viewer", "legal_actions")


def _seat_patch(session: TableSession, live: Live, seat: int, version: int) -> bytes:
    """A seat's patch in a game of perfect information: the spectators' (worked out once per
    step, :meth:`TableSession.spectator_chunks`) but for the members only the seat has
    otherwise; the same bytes as :func:`_patch`."""
    shared, whole_length = session.spectator_chunks(live, version)
    before, after = session.view(live, seat, version - 1), session.view(live, seat, version)
    codes = session.view_codes(live, None, version)
    chunks = dict(shared)
    own: dict[str, bytes] = {}
    for key in _SEAT_MEMBERS:
        chunks.pop(key, None)
        old_code, new_code = member_code(key, before[key]), member_code(key, after[key])
        own[key] = new_code
        whole_length += len(new_code) - len(codes[key])
        if old_code != new_code:
            mine = member_chunks(
                {key: before[key]}, {key: after[key]}, {key: old_code}, {key: new_code}
            )
            chunks.update(mine)
    patch, count = assemble(before.keys(), after.keys(), chunks)
    if whole_is_shorter(count, len(patch), whole_length) or len(patch) >= whole_length + 40:
        return replace_whole(joined({**codes, **own}))
    return patch


def mark_sent(
    session: TableSession,
    client: Client,
    table: TableData,
    live: Live | None,
    guidance: dict[str, Any],
) -> None:
    """The connection was sent the table as it is now: remember what it holds."""
    client.version = live.version if live is not None else -1
    client.table_sent = session.table_public(table)
    client.guidance_sent = guidance
