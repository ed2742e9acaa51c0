"""What a route reaches through FastAPI dependencies: the objects :func:`create_app` builds
once for the process, kept on ``app.state`` (where ``marsdice serve`` and the tests find them
too), so that a route module needs no closure over them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Final

from fastapi import Depends, FastAPI, Path
from starlette.requests import HTTPConnection

from marsdice.storage.db import Database
from marsdice.storage.tables import NotFoundError
from marsdice.web.cluster import Cluster
from marsdice.web.hub import Hub
from marsdice.web.metrics import Metrics

#: every table id there is: ``storage.tables.new_table_id`` makes 12 lowercase hex digits
TABLE_ID_PATTERN: Final = "^[0-9a-f]{12}$"
_TABLE_ID: Final = re.compile("[0-9a-f]{12}")
#: the answer to any other path (a NUL byte, any other byte, too long): no database call
NO_SUCH_TABLE: Final = "no such table"


def is_table_id(text: str) -> bool:
    """Whether ``text`` could name a table; checked before any database call, so that no
    byte a client sends in a path reaches the database."""
    return _TABLE_ID.fullmatch(text) is not None


@dataclass(frozen=True, slots=True)
class PlayLimits:
    """The play WebSocket's guards (``create_app``'s documentation)."""

    #: page origins allowed besides the server's own (``*``: any)
    allowed_origins: tuple[str, ...]
    #: messages a second a connection may send on average
    rate: float
    #: messages it may send at once
    burst: int


def install(
    app: FastAPI,
    *,
    db: Database,
    hub: Hub,
    cluster: Cluster,
    metrics: Metrics,
    allowed_origins: Sequence[str],
    rate: float,
    burst: int,
) -> None:
    """Keep the process's objects where the dependencies below read them."""
    app.state.db = db
    app.state.hub = hub
    app.state.cluster = cluster
    app.state.metrics = metrics
    app.state.play_limits = PlayLimits(tuple(allowed_origins), rate, burst)


# async, so that FastAPI calls them in the event loop instead of a worker thread
async def _database(connection: HTTPConnection) -> Database:
    db: Database = connection.app.state.db
    return db


async def _hub(connection: HTTPConnection) -> Hub:
    hub: Hub = connection.app.state.hub
    return hub


async def _cluster(connection: HTTPConnection) -> Cluster:
    cluster: Cluster = connection.app.state.cluster
    return cluster


async def _metrics(connection: HTTPConnection) -> Metrics:
    metrics: Metrics = connection.app.state.metrics
    return metrics


async def _play_limits(connection: HTTPConnection) -> PlayLimits:
    limits: PlayLimits = connection.app.state.play_limits
    return limits


async def _table_id(
    table_id: Annotated[
        str,
        # documented, not validated by FastAPI (which would answer 422): any other id is
        # simply no table, 404
        Path(description="a table's id", json_schema_extra={"pattern": TABLE_ID_PATTERN}),
    ],
) -> str:
    if not is_table_id(table_id):
        raise NotFoundError(NO_SUCH_TABLE)
    return table_id


#: a REST route's ``{table_id}``, refused with 404 ``not_found`` unless it has the form of one
TableIdDep = Annotated[str, Depends(_table_id)]
#: the server's database
DatabaseDep = Annotated[Database, Depends(_database)]
#: the tables in play in this process
HubDep = Annotated[Hub, Depends(_hub)]
#: this process among the others (leases, news, presence)
ClusterDep = Annotated[Cluster, Depends(_cluster)]
MetricsDep = Annotated[Metrics, Depends(_metrics)]
PlayLimitsDep = Annotated[PlayLimits, Depends(_play_limits)]
