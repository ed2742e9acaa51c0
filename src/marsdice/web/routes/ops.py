"""What an operator and a load balancer ask of a process: its health and its metrics."""

from __future__ import annotations

import asyncio
from typing import Final

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, Field

from marsdice.web.deps import ClusterDep, DatabaseDep, MetricsDep

router: Final = APIRouter()


class Health(BaseModel):
    """``/healthz``'s answer, the same body for 200 and 503."""

    status: str = Field(description="ok, or unavailable")
    database: bool = Field(description="whether the database answered")
    redis: bool | None = Field(description="whether Redis answered (null: no Redis)")
    process: str = Field(description="this process's id in the cluster")


@router.get(
    "/healthz",
    response_model=Health,
    responses={503: {"model": Health, "description": "the database or Redis does not answer"}},
)
async def health(db: DatabaseDep, cluster: ClusterDep) -> JSONResponse:
    """For a load balancer: 200 when this process can reach its database (and Redis),
    503 otherwise."""
    database_ok = await asyncio.to_thread(db.answers)
    redis_ok = await cluster.ping() if cluster.distributed else None
    ok = database_ok and redis_ok is not False
    body = Health(
        status="ok" if ok else "unavailable",
        database=database_ok,
        redis=redis_ok,
        process=cluster.process_id,
    )
    return JSONResponse(body.model_dump(), status_code=200 if ok else 503)


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {
            "description": "Prometheus's text format",
            "content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}},
        }
    },
)
async def prometheus_metrics(metrics: MetricsDep) -> Response:
    body = await asyncio.to_thread(generate_latest, metrics.registry)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
