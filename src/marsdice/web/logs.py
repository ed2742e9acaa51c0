"""The server's logs: one line per event, as text for a person or as JSON for a log pipeline.

Every record the server writes carries its facts as fields (``table``, ``seq``, ``actor``,
``seat``, ``event``), so a JSON line can be filtered without parsing the message. uvicorn's
own loggers use the same format. Seat tokens are never passed to a logger.

Only the server's and uvicorn's loggers are configured, by hand: ``logging.config.dictConfig``
would close every other handler in the process (a library's, a test runner's) on the way.
"""

from __future__ import annotations

import logging
import sys
from typing import Final

LOG_FORMATS: Final = ("text", "json")
TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s %(message)s"
#: the standard fields of a JSON line; a record's ``extra`` fields are added after them
JSON_FIELDS: Final = "%(asctime)s %(levelname)s %(name)s %(message)s"
LOGGERS: Final = ("marsdice", "uvicorn", "uvicorn.error", "uvicorn.access")


class _ServerHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Ours, so that configuring again replaces it instead of adding a second one."""


def configure_logging(level: str, fmt: str) -> None:
    """Send the server's and uvicorn's records to stderr at ``level`` (a logging level
    name) in ``fmt`` (one of :data:`LOG_FORMATS`)."""
    if fmt not in LOG_FORMATS:
        raise ValueError(f"log format must be one of {', '.join(LOG_FORMATS)}, not {fmt!r}")
    handler = _ServerHandler(sys.stderr)
    handler.setFormatter(_formatter(fmt))
    for name in LOGGERS:
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if isinstance(h, _ServerHandler)]:
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.setLevel(level.upper())
        logger.propagate = False


def _formatter(fmt: str) -> logging.Formatter:
    if fmt == "text":
        return logging.Formatter(TEXT_FORMAT)
    from pythonjsonlogger.core import RESERVED_ATTRS
    from pythonjsonlogger.json import JsonFormatter

    return JsonFormatter(
        JSON_FIELDS,
        rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        timestamp=False,
        # uvicorn's copy of the message with terminal colours is noise in a log pipeline
        reserved_attrs=[*RESERVED_ATTRS, "color_message"],
    )
