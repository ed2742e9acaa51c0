"""What a route reaches through FastAPI dependencies: the objects :func:`create_app` builds
once for the process, kept on ``app.state`` (where ``marsdice serve`` and the tests find them
too), so that a route module needs no closure over them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, FastAPI
from starlette.requests import HTTPConnection

from marsdice.storage.db import Database
from marsdice.web.cluster import Cluster
from marsdice.web.hub import Hub
from marsdice.web.metrics import Metrics


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


#: the server's database
DatabaseDep = Annotated[Database, Depends(_database)]
#: the tables in play in this process
HubDep = Annotated[Hub, Depends(_hub)]
#: this process among the others (leases, news, presence)
ClusterDep = Annotated[Cluster, Depends(_cluster)]
MetricsDep = Annotated[Metrics, Depends(_metrics)]
PlayLimitsDep = Annotated[PlayLimits, Depends(_play_limits)]
