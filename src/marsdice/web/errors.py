"""Every error answer of the REST API, in the one documented form (``docs/protocol.md``):
``{"error": CODE, "message": TEXT, "field": NAME?}`` with its HTTP status, built here from
the exceptions the lobby raises, so that no route writes an error body of its own.

Framework errors take the same form (a wrong method, an unrouted path, a body that is not
JSON or is nested too deep), and :class:`BodyLimit` refuses a body over
``schemas.MAX_BODY_BYTES`` before it is read. The WebSocket's errors are protocol messages
(``schemas.ErrorMessage``), not these."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from marsdice.accounts import BadPassword, BadUserName
from marsdice.core.errors import VariantError
from marsdice.storage.accounts import BadCredentials, SignUpClosed, TooManyAttempts
from marsdice.storage.tables import BadTokenError, NotFoundError, StorageError
from marsdice.web.schemas import MAX_BODY_BYTES, ErrorBody

log: Final = logging.getLogger("marsdice.web")

#: a variant error's message starts with the setting's name, then a space or a colon
_FIELD: Final = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?=[: ])")
#: what each error status of the lobby means, for the OpenAPI document
MEANINGS: Final = {
    400: "bad_request: an unknown game or bot, or a body that is not JSON (not UTF-8, or "
    "nested too deep)",
    401: "bad_credentials: that name and password do not sign in (or nobody is signed in)",
    403: "bad_token: the token holds no seat at this table; cross_site: a request from "
    "another site's page; signup_closed; muted (a spectator at a table whose chat is "
    "players only)",
    404: "not_found: no such table",
    409: "conflict (a seat taken, a table already started) or not_finished (asked before the end)",
    429: "too_many_attempts or rate_limited: wait the Retry-After seconds",
    413: f"too_large: a body over {MAX_BODY_BYTES} bytes, refused before it is read",
    422: "bad_request (the body or a parameter does not fit the schema), bad_variant (a "
    "setting the game refuses), bad_name or bad_password; field names it",
}
#: statuses whose answer has no body
_BODILESS: Final = frozenset({204, 304})
#: our codes for statuses the framework raises, where the status's name is not the clearest
_CODES: Final = {413: "too_large"}
#: the keys of an OpenAPI path item that are methods
_METHODS: Final = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})
#: FastAPI's answer to a body it could not parse, told apart by its cause
_UNPARSED: Final = "There was an error parsing the body"


def error_response(
    status: int,
    code: str,
    message: str,
    field: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """One error answer; ``field`` is left out of the body when there is none."""
    body = ErrorBody(error=code, message=message, field=field)
    return JSONResponse(body.model_dump(exclude_none=True), status_code=status, headers=headers)


def rate_limited(message: str, wait: float) -> JSONResponse:
    """``429 rate_limited``, with the seconds to wait in ``Retry-After``."""
    return error_response(429, "rate_limited", message, headers={"Retry-After": str(int(wait) + 1)})


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route that answers these error statuses."""
    return {status: {"model": ErrorBody, "description": MEANINGS[status]} for status in statuses}


def plain_error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The same for a route whose success is not JSON: FastAPI would give a ``model`` the
    route's own media type, so the JSON body is named by reference (``ErrorBody`` is in the
    document's components through every other route)."""
    body = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    return {status: {"description": MEANINGS[status], "content": body} for status in statuses}


async def _invalid_body(_request: Request, error: RequestValidationError) -> Response:
    first = error.errors()[0] if error.errors() else {}
    if first.get("type") == "json_invalid":  # its location is a character offset, no field
        return error_response(422, "bad_request", "the body is not valid JSON")
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    if first.get("type") == "value_error":  # our validators' own words, without pydantic's
        why = str(first.get("ctx", {}).get("error", first.get("msg", "invalid")))
    else:
        why = str(first.get("msg", "invalid"))
    return error_response(422, "bad_request", f"{where or 'body'}: {why}", where or None)


async def _bad_variant(_request: Request, error: VariantError) -> Response:
    if error.setting is not None:  # an unknown setting: the field is the one given
        return error_response(422, "bad_variant", str(error), error.setting)
    found = _FIELD.match(str(error))
    return error_response(422, "bad_variant", str(error), found.group(1) if found else None)


async def _not_found(_request: Request, error: NotFoundError) -> Response:
    return error_response(404, "not_found", str(error))


async def _bad_token(_request: Request, error: BadTokenError) -> Response:
    return error_response(403, "bad_token", str(error))


async def _conflict(_request: Request, error: StorageError) -> Response:
    return error_response(409, error.code, str(error))


async def _bad_name(_request: Request, error: BadUserName) -> Response:
    return error_response(422, "bad_name", str(error), "name")


async def _bad_password(_request: Request, error: BadPassword) -> Response:
    return error_response(422, "bad_password", str(error), "password")


async def _bad_credentials(_request: Request, error: BadCredentials) -> Response:
    return error_response(401, error.code, str(error))


async def _signup_closed(_request: Request, error: SignUpClosed) -> Response:
    return error_response(403, error.code, str(error))


async def _too_many(_request: Request, error: TooManyAttempts) -> Response:
    return error_response(
        429, error.code, str(error), headers={"Retry-After": str(error.retry_after)}
    )


async def _bad_value(_request: Request, error: ValueError) -> Response:
    return error_response(400, "bad_request", str(error))


async def _http(request: Request, error: HTTPException) -> Response:
    """Starlette's own answers (no such route, a wrong method, a missing static file), in
    our form: the code is the status's name (``not_found``, ``method_not_allowed``)."""
    if error.status_code in _BODILESS:
        return Response(status_code=error.status_code, headers=error.headers)
    code = "internal" if error.status_code >= 500 else _status_code(error.status_code)
    message, headers = str(error.detail), dict(error.headers or {})
    if error.status_code == 400 and message == _UNPARSED:
        message = _unparsed(error.__cause__)
    if error.status_code == 405:
        allowed = allowed_methods(request.app.openapi(), request.url.path)
        if allowed:
            headers["Allow"] = ", ".join(allowed)
    return error_response(error.status_code, code, message, headers=headers)


def _unparsed(cause: BaseException | None) -> str:
    if isinstance(cause, RecursionError):
        return "the body's JSON is nested too deep"
    if isinstance(cause, UnicodeDecodeError):
        return "the body is not UTF-8"
    return "the body is not valid JSON"


def allowed_methods(openapi: Mapping[str, Any], path: str) -> list[str]:
    """Every method the OpenAPI document serves at this path (FastAPI's routes serve no
    ``HEAD`` of their own): Starlette names only those of the first route it tried, while a
    path may be served by several (``GET`` and ``POST /api/tables``). Empty for a path the
    document leaves out (the page's, whose own ``Allow`` Starlette gives)."""
    methods: set[str] = set()
    for template, operations in openapi.get("paths", {}).items():
        if compile_path(template)[0].match(path):
            methods |= {method.upper() for method in operations if method in _METHODS}
    return sorted(methods)


async def _internal(_request: Request, error: Exception) -> Response:
    """Logged here without the detail a client must not see (nor a token)."""
    log.error("internal error: %s", type(error).__name__)
    return error_response(500, "internal", "internal error")


def _status_code(status: int) -> str:
    if status in _CODES:
        return _CODES[status]
    try:
        return HTTPStatus(status).phrase.lower().replace(" ", "_").replace("-", "_")
    except ValueError:
        return "bad_request"


def install_error_handlers(app: FastAPI) -> None:
    """Answer every failure of a REST route in the documented form. Starlette picks the
    handler of the nearest class in the exception's MRO: a ``VariantError`` is a
    ``ValueError`` and a ``BadTokenError`` a ``StorageError``, each with its own answer."""
    app.exception_handler(RequestValidationError)(_invalid_body)
    app.exception_handler(VariantError)(_bad_variant)
    app.exception_handler(NotFoundError)(_not_found)
    app.exception_handler(BadTokenError)(_bad_token)
    app.exception_handler(BadCredentials)(_bad_credentials)
    app.exception_handler(SignUpClosed)(_signup_closed)
    app.exception_handler(TooManyAttempts)(_too_many)
    app.exception_handler(StorageError)(_conflict)
    app.exception_handler(BadUserName)(_bad_name)
    app.exception_handler(BadPassword)(_bad_password)
    app.exception_handler(ValueError)(_bad_value)
    app.exception_handler(HTTPException)(_http)
    app.exception_handler(Exception)(_internal)


class BodyTooLarge(HTTPException):
    """A body that passed ``MAX_BODY_BYTES`` while it was read (answered 413 by ``_http``)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"a request body is limited to {limit} bytes")


class BodyLimit:
    """Refuse a body over ``limit`` bytes before it is read: at once when its Content-Length
    says so, else (a chunked body) as soon as what arrived passes the limit. Pure ASGI, so
    that nothing buffers the body first."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = next((v for k, v in scope["headers"] if k == b"content-length"), None)
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(scope, receive, send)
            return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, watched_send)
        except BodyTooLarge:  # read outside a route (a route's reading is answered by _http)
            if started:
                raise
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"a request body is limited to {self.limit} bytes"
        response = error_response(413, "too_large", message, headers={"Connection": "close"})
        await response(scope, receive, send)
