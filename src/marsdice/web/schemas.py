"""Every message of the protocol as a pydantic model (``docs/protocol.md``)."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    WithJsonSchema,
)

from marsdice.accounts import MAX_PASSWORD, MIN_PASSWORD, USER_NAME_PATTERN
from marsdice.fair import MAX_PLAYER_SEED, FairnessError, normalise_player_seed

#: the largest WebSocket message a client may send, in bytes
MAX_MESSAGE_BYTES: Final = 4096
#: the largest REST request body, in bytes: refused with 413 before it is read (the largest
#: real one, a table of ten seats with its variant, is well under 2 KiB)
MAX_BODY_BYTES: Final = 65536
#: a display name's length in characters, after normalisation
MAX_NAME: Final = 40
#: the characters that turn the direction of the text after them (U+202A-U+202E and
#: U+2066-U+2069): a name holding one could reorder what the page shows after it
BIDI_CONTROLS: Final = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
#: controls (NUL, BEL, ...), unassigned, private-use and surrogate code points
REFUSED_CATEGORIES: Final = {
    "Cc": "a control character",
    "Cn": "an unassigned code point",
    "Co": "a private-use character",
    "Cs": "a surrogate",
}
#: the characters a name may not hold, as a regular expression's class (surrogates, which no
#: pattern may name, are in the text)
_NOT_IN_NAME: Final = r"\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ue000-\uf8ff"
#: the whitespace ``str.strip`` removes that is not a control character
_SPACES: Final = r" \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
#: the documented form of a name: 1 to 40 characters between optional whitespace, none of
#: them refused; exact but for what a portable pattern cannot say (unassigned code points,
#: surrogates, the private-use planes 15 and 16, a length NFC changes), which the text of
#: :data:`DisplayName` says
NAME_PATTERN: Final = (
    f"^[{_SPACES}]*[^{_SPACES}{_NOT_IN_NAME}]"
    f"(?:[^{_NOT_IN_NAME}]{{0,{MAX_NAME - 2}}}[^{_SPACES}{_NOT_IN_NAME}])?[{_SPACES}]*$"
)
#: a player seed as sent: none (empty), or 1 to 64 printable ASCII characters between spaces
SEED_PATTERN: Final = f"^(?: *[!-~](?:[ -~]{{0,{MAX_PLAYER_SEED - 2}}}[!-~])? *)?$"


def _refused_character(char: str) -> str | None:
    if ord(char) in BIDI_CONTROLS:
        return "a character that overrides the text's direction"
    return REFUSED_CATEGORIES.get(unicodedata.category(char))


def _normal_name(value: object) -> object:
    """A display name as stored and shown: its characters checked, NFC-normalised, its
    surrounding whitespace removed; the length is checked after this, on what is kept."""
    if not isinstance(value, str):
        return value  # the strict ``str`` after this refuses it
    for char in value:
        why = _refused_character(char)
        if why is not None:
            raise ValueError(f"a name may not hold {why} (U+{ord(char):04X})")
    return unicodedata.normalize("NFC", value).strip()


def _checked_seed(value: str) -> str:
    """A player seed checked as the fair-dice derivation will take it (``marsdice.fair``),
    so that a bad one is a ``seed`` field error; an empty one is no seed."""
    bad = next((char for char in value if not " " <= char <= "~"), None)
    if bad is not None:
        raise ValueError(f"a player seed holds printable ASCII only (space to ~), got {bad!r}")
    if value:
        try:
            normalise_player_seed(value)
        except FairnessError as error:
            raise ValueError(str(error)) from None
    return value


def _integral(value: object) -> object:
    """JSON has one number type: ``3.0`` is the integer 3 (JSON Schema says so too)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: a person's name at a table
DisplayName = Annotated[
    str,
    Field(min_length=1, max_length=MAX_NAME),
    BeforeValidator(_normal_name),  # wraps what is before it: the length is of what is kept
    WithJsonSchema(
        {
            "type": "string",
            "pattern": NAME_PATTERN,
            "description": f"1 to {MAX_NAME} characters once NFC-normalised and stripped of "
            "surrounding whitespace; no control (NUL, BEL, ...), direction override "
            "(U+202A-U+202E, U+2066-U+2069), unassigned, private-use or surrogate code point",
        }
    ),
]
#: a player's contribution to the fair dice (``docs/fairness.md``)
PlayerSeed = Annotated[
    str,
    AfterValidator(_checked_seed),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": SEED_PATTERN,
            "description": f"empty (none), or 1 to {MAX_PLAYER_SEED} printable ASCII "
            "characters (space to ~) once surrounding spaces are removed",
        }
    ),
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# --- REST -----------------------------------------------------------------------------------


def _game_names(schema: dict[str, Any]) -> None:
    """The registered games, named in the OpenAPI document (read when it is built)."""
    from marsdice.games import all_games

    schema["enum"] = [game.name for game in all_games()]


def _bot_names(schema: dict[str, Any]) -> None:
    """Every game's bots (each game accepts its own: ``/api/games``)."""
    from marsdice.games import all_games, registration

    names = {bot.name for game in all_games() for bot in registration(game).bots}
    schema["enum"] = sorted(names)


_BotName = Annotated[str, Field(min_length=1, max_length=40, json_schema_extra=_bot_names)]


class SeatIn(_Strict):
    """A seat at creation: ``{"kind": "human"}`` or ``{"kind": "bot", "bot": "random"}``."""

    kind: Literal["human", "bot"]
    bot: _BotName | None = None


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
    spectator_chat: bool = Field(
        default=True,
        description="signed-in spectators may write in the table's chat (players always may)",
    )


class CreateTable(_Strict):
    game: Annotated[str, Field(min_length=1, max_length=32, json_schema_extra=_game_names)]
    variant: dict[str, Any] = Field(default_factory=dict)
    seats: Annotated[list[SeatIn], Field(min_length=1, max_length=10)]
    options: TableOptions = Field(default_factory=TableOptions)


class JoinTable(_Strict):
    seat: Annotated[int, Field(ge=0, le=99), BeforeValidator(_integral)]
    name: DisplayName
    seed: PlayerSeed | None = None


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
    #: the play messages this client reads: 1 (missing) a full ``state`` after every step,
    #: 2 one ``step`` message per step after the first ``state``, 3 as 2 with the steps
    #: stored together (a move and the dice after it) in one ``steps`` message
    #: (``docs/protocol.md``)
    protocol: Annotated[int, Field(ge=1, le=3)] = 1  # (strict: ``true`` is no 1)
    #: send this connection the table's ``chat`` messages as they are written (an old
    #: client, which says nothing, gets none)
    chat: bool = False
    #: send this connection ``presence`` messages: who is connected, who is away, when a
    #: stand-in takes an absent seat over
    presence: bool = False


class ActionMessage(_Strict):
    """Play ``action`` (the game's notation) on state ``version``."""

    type: Literal["action"]
    version: Annotated[int, Field(ge=0)]
    action: Annotated[str, Field(min_length=1, max_length=200)]


class Ping(_Strict):
    type: Literal["ping"]


class Sync(_Strict):
    """Protocol 2: the client holds ``version`` and saw a gap; answered with a ``state``."""

    type: Literal["sync"]
    version: Annotated[int, Field(ge=0)]


ClientMessage = Annotated[Hello | ActionMessage | Ping | Sync, Field(discriminator="type")]
CLIENT_MESSAGE: Final = TypeAdapter[Hello | ActionMessage | Ping | Sync](ClientMessage)


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
    #: (absent: false) the advice this connection is shown is being worked out: a ``state``
    #: of the same version with it follows
    advice_pending: bool = False
    #: (absent: none missing) why this connection has no advice although the options give
    #: it some: "busy" (the server's solves were queued full), "too_big" (the variant is over
    #: the server's cap, ``--max-solve``), "failed"
    advice_missing: Literal["busy", "too_big", "failed"] | None = None
    #: (absent: none) the entries of ``log`` a bot seat played with the game's fast bot, its
    #: own bot's solve not at hand in time (as this server process knows)
    fallback: list[int] = Field(default_factory=list)
    #: protocol 2 only (absent in protocol 1): each step's events, as its view showed them,
    #: one list per entry of ``log``, so that a newcomer can tell the whole game
    step_events: list[list[dict[str, Any]]] | None = None


class _Guidance(BaseModel):
    """Protocol 2: the advice a connection may see and the solve pool's notes, as in
    :class:`StateMessage` (each message carrying them gives them all: absent, the default)."""

    advice: dict[str, Any] | None = None
    advice_pending: bool = False
    advice_missing: Literal["busy", "too_big", "failed"] | None = None
    fallback: list[int] = Field(default_factory=list)


class StepMessage(_Guidance):
    """Protocol 2: one step, as this connection may see it, and what it changed (the
    guidance fields are the new version's)."""

    type: Literal["step"] = "step"
    #: the version after the step (the one before it plus one)
    version: int
    #: the step in notation, as you may see it (the entry ``log`` gains)
    step: str
    #: who made it (the entry ``actors`` gains)
    actor: str
    #: the new view's ``events`` (not repeated in ``patch``)
    events: list[dict[str, Any]]
    #: JSON Patch (RFC 6902: add, remove, replace) from the previous view to the new one,
    #: ``events`` left out; a ``replace`` of ``""`` is the whole new view
    patch: list[dict[str, Any]]
    your_turn: bool
    #: the table, when it changed with the step (a status, the seeds revealed at the end)
    table: dict[str, Any] | None = None


class TableMessage(BaseModel):
    """Protocol 2: the table changed without a step (a seat taken, left, away or back)."""

    type: Literal["table"] = "table"
    version: int
    table: dict[str, Any]


class AdviceMessage(_Guidance):
    """Protocol 2: the advice for ``version`` (or the notes on it) changed after its step
    was sent: worked out late, or given up."""

    type: Literal["advice"] = "advice"
    version: int


class ErrorMessage(BaseModel):
    """Sent to the one connection whose message failed; nothing was changed."""

    type: Literal["error"] = "error"
    code: str
    message: str
    version: int | None = None


class Pong(BaseModel):
    type: Literal["pong"] = "pong"
    #: protocol 2 (absent in protocol 1): the version you were last sent; holding less, you
    #: lost a step (ask for a ``sync``)
    version: int | None = None


# --- accounts, profiles and the table's chat (docs/protocol.md, "Accounts") ---------------

#: a user name as sent (the script and look-alike rules are the server's: 422 ``bad_name``)
UserName = Annotated[
    str,
    Field(min_length=3, max_length=24),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": USER_NAME_PATTERN,
            "description": "3 to 24 letters (Latin, Greek or Cyrillic, all of one script), "
            "digits and _ - . beginning with a letter or digit; unique whatever the case, "
            "and unlike any other name drawn alike",
        }
    ),
]
Password = Annotated[str, Field(min_length=MIN_PASSWORD, max_length=MAX_PASSWORD)]
#: the longest chat message, in characters
MAX_CHAT: Final = 300


class SignUp(_Strict):
    name: UserName
    password: Password


class SignIn(_Strict):
    name: Annotated[str, Field(min_length=1, max_length=64)]
    password: Annotated[str, Field(min_length=1, max_length=MAX_PASSWORD)]


class ChangePassword(_Strict):
    current: Annotated[str, Field(min_length=1, max_length=MAX_PASSWORD)]
    new: Password


class AccountOut(BaseModel):
    """The signed-in account (``user`` null when nobody is)."""

    user: dict[str, Any] | None
    signup: bool = Field(description="whether this server takes new accounts")


def _chat_text(value: str) -> str:
    from marsdice.storage.chat import chat_text

    return chat_text(value)


class ChatIn(_Strict):
    #: 1 to 300 characters once NFC-normalised and its spaces collapsed; no control or
    #: format character (a direction override, a zero-width space)
    text: Annotated[str, Field(min_length=1, max_length=MAX_CHAT), AfterValidator(_chat_text)]
    #: a seat's token (a guest at the table); without one the signed-in account speaks
    token: Annotated[str, Field(min_length=1, max_length=200)] | None = None


class Rematch(_Strict):
    #: the seat's token at the finished table (or the signed-in account's seat)
    token: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    name: DisplayName | None = None
