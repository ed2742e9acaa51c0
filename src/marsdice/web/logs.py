"""The server's logs: one line per event, as text for a person or as JSON for a log pipeline.

Every record the server writes carries its facts as fields (``table``, ``seq``, ``actor``,
``seat``, ``event``), so a JSON line can be filtered without parsing the message. uvicorn's
own loggers use the same format. Seat tokens are never passed to a logger.
"""

from __future__ import annotations

from typing import Any, Final

LOG_FORMATS: Final = ("text", "json")
TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s %(message)s"
#: the standard fields of a JSON line; a record's ``extra`` fields are added after them
JSON_FIELDS: Final = "%(asctime)s %(levelname)s %(name)s %(message)s"


def log_config(level: str, fmt: str) -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` for the server and uvicorn (``level`` is a
    logging level name, ``fmt`` one of :data:`LOG_FORMATS`)."""
    if fmt not in LOG_FORMATS:
        raise ValueError(f"log format must be one of {', '.join(LOG_FORMATS)}, not {fmt!r}")
    formatter: dict[str, Any]
    if fmt == "json":
        from pythonjsonlogger.core import RESERVED_ATTRS

        formatter = {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": JSON_FIELDS,
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            "timestamp": False,
            # uvicorn's copy of the message with terminal colours is noise in a log pipeline
            "reserved_attrs": [*RESERVED_ATTRS, "color_message"],
        }
    else:
        formatter = {"format": TEXT_FORMAT}
    handler = {"class": "logging.StreamHandler", "formatter": "main", "stream": "ext://sys.stderr"}
    level = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"main": formatter},
        "handlers": {"main": handler},
        "loggers": {
            name: {"handlers": ["main"], "level": level, "propagate": False}
            for name in ("marsdice", "uvicorn", "uvicorn.error", "uvicorn.access")
        },
        "root": {"handlers": ["main"], "level": "WARNING"},
    }
