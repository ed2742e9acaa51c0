"""Every error answer of the REST API, in the one documented form (``docs/protocol.md``):
``{"error": CODE, "message": TEXT, "field": NAME?}`` with its HTTP status, built here from
the exceptions the lobby raises, so that no route writes an error body of its own.

The WebSocket's errors are protocol messages (``schemas.ErrorMessage``), not these."""

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

from marsdice.core.errors import VariantError
from marsdice.storage.tables import BadTokenError, NotFoundError, StorageError
from marsdice.web.schemas import ErrorBody

log: Final = logging.getLogger("marsdice.web")

#: a variant error's message starts with the setting's name
_FIELD: Final = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)")
#: what each error status of the lobby means, for the OpenAPI document
MEANINGS: Final = {
    400: "bad_request: an unknown game or bot",
    403: "bad_token: the token holds no seat at this table",
    404: "not_found: no such table",
    409: "conflict (a seat taken, a table already started) or not_finished (asked before the end)",
    422: "bad_request (the body or a parameter does not fit the schema) or bad_variant (a "
    "setting the game refuses); field names it",
}
#: statuses whose answer has no body
_BODILESS: Final = frozenset({204, 304})


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


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route that answers these error statuses."""
    return {status: {"model": ErrorBody, "description": MEANINGS[status]} for status in statuses}


async def _invalid_body(_request: Request, error: RequestValidationError) -> Response:
    first = error.errors()[0] if error.errors() else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    return error_response(
        422, "bad_request", f"{where or 'body'}: {first.get('msg', 'invalid')}", where or None
    )


async def _bad_variant(_request: Request, error: VariantError) -> Response:
    found = _FIELD.match(str(error))
    return error_response(422, "bad_variant", str(error), found.group(1) if found else None)


async def _not_found(_request: Request, error: NotFoundError) -> Response:
    return error_response(404, "not_found", str(error))


async def _bad_token(_request: Request, error: BadTokenError) -> Response:
    return error_response(403, "bad_token", str(error))


async def _conflict(_request: Request, error: StorageError) -> Response:
    return error_response(409, error.code, str(error))


async def _bad_value(_request: Request, error: ValueError) -> Response:
    return error_response(400, "bad_request", str(error))


async def _http(_request: Request, error: HTTPException) -> Response:
    """Starlette's own answers (no such route, a wrong method, a missing static file), in
    our form: the code is the status's name (``not_found``, ``method_not_allowed``)."""
    if error.status_code in _BODILESS:
        return Response(status_code=error.status_code, headers=error.headers)
    code = "internal" if error.status_code >= 500 else _status_code(error.status_code)
    return error_response(error.status_code, code, str(error.detail), headers=error.headers)


async def _internal(_request: Request, error: Exception) -> Response:
    """Logged here without the detail a client must not see (nor a token)."""
    log.error("internal error: %s", type(error).__name__)
    return error_response(500, "internal", "internal error")


def _status_code(status: int) -> str:
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
    app.exception_handler(StorageError)(_conflict)
    app.exception_handler(ValueError)(_bad_value)
    app.exception_handler(HTTPException)(_http)
    app.exception_handler(Exception)(_internal)
