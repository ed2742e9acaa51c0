"""Every message of the protocol as a pydantic model (``docs/protocol.md``)."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

#: the largest WebSocket message a client may send, in bytes
MAX_MESSAGE_BYTES: Final = 4096


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# --- REST -----------------------------------------------------------------------------------


class SeatIn(_Strict):
    """A seat at creation: ``{"kind": "human"}`` or ``{"kind": "bot", "bot": "random"}``."""

    kind: Literal["human", "bot"]
    bot: Annotated[str, Field(min_length=1, max_length=40)] | None = None


class TableOptions(_Strict):
    """How the table helps its players (``docs/protocol.md``)."""

    hints: bool = Field(
        default=False,
        description="everyone sees the advice for the player to act, with its values",
    )
    fool_check: bool = Field(
        default=True,
        description="the player to act is warned of a blunder (flags only, no values) "
        "before sending it",
    )


class CreateTable(_Strict):
    game: Annotated[str, Field(min_length=1, max_length=32)]
    variant: dict[str, Any] = Field(default_factory=dict)
    seats: Annotated[list[SeatIn], Field(min_length=1, max_length=10)]
    options: TableOptions = Field(default_factory=TableOptions)


class JoinTable(_Strict):
    seat: Annotated[int, Field(ge=0, le=99)]
    name: Annotated[str, Field(min_length=1, max_length=40)]
    seed: Annotated[str, Field(max_length=200)] | None = None


class JoinedTable(BaseModel):
    table: dict[str, Any]
    seat: int
    #: the seat's secret: show it to nobody, send it in ``hello``
    token: str


class LeaveTable(_Strict):
    token: Annotated[str, Field(min_length=1, max_length=200)]


class ErrorBody(BaseModel):
    """Every error answer of the REST API (built in :mod:`marsdice.web.errors`)."""

    error: str = Field(
        description="the code: bad_request, bad_variant, not_found, conflict, not_finished, "
        "bad_token, internal, or the HTTP status's (method_not_allowed, ...)"
    )
    message: str = Field(description="what went wrong, for a person")
    field: str | None = Field(
        default=None, description="the field at fault (dotted path), when one is; else absent"
    )


# --- WebSocket: client to server ------------------------------------------------------------


class Hello(_Strict):
    """Say who you are: a seat's token, or none to watch."""

    type: Literal["hello"]
    token: Annotated[str, Field(max_length=200)] | None = None


class ActionMessage(_Strict):
    """Play ``action`` (the game's notation) on state ``version``."""

    type: Literal["action"]
    version: Annotated[int, Field(ge=0)]
    action: Annotated[str, Field(min_length=1, max_length=200)]


class Ping(_Strict):
    type: Literal["ping"]


ClientMessage = Annotated[Hello | ActionMessage | Ping, Field(discriminator="type")]
CLIENT_MESSAGE: Final = TypeAdapter[Hello | ActionMessage | Ping](ClientMessage)


# --- WebSocket: server to client ------------------------------------------------------------


class StateMessage(BaseModel):
    """The table as this connection may see it: sent on ``hello`` and after every step."""

    type: Literal["state"] = "state"
    table: dict[str, Any]
    #: your seat (null: watching)
    seat: int | None
    #: the number of steps stored: send it back with your action
    version: int
    #: ``Game.observe`` for your seat (null until the game starts)
    view: dict[str, Any] | None
    #: every step so far in notation, as you may see it (a face-down draw is ``draw``)
    log: list[str]
    #: who made each step: "human", "bot", "stand-in" or "chance"
    actors: list[str]
    your_turn: bool
    #: the advice for the player to act, as the table's options allow this connection
    #: (null: none): {"seat", "method", "estimate", "choices": [{"action", "values", "loss",
    #: "blunder"}]}
    advice: dict[str, Any] | None = None


class ErrorMessage(BaseModel):
    """Sent to the one connection whose message failed; nothing was changed."""

    type: Literal["error"] = "error"
    code: str
    message: str
    version: int | None = None


class Pong(BaseModel):
    type: Literal["pong"] = "pong"
