"""What an operator and a load balancer ask of a process: its health and its metrics."""

from __future__ import annotations

import asyncio
from typing import Final

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from marsdice.web.deps import ClusterDep, DatabaseDep, MetricsDep

router: Final = APIRouter()


@router.get("/healthz")
async def health(db: DatabaseDep, cluster: ClusterDep) -> JSONResponse:
    """For a load balancer: 200 when this process can reach its database (and Redis),
    503 otherwise."""
    database_ok = await asyncio.to_thread(db.answers)
    redis_ok = await cluster.ping() if cluster.distributed else None
    ok = database_ok and redis_ok is not False
    body = {
        "status": "ok" if ok else "unavailable",
        "database": database_ok,
        "redis": redis_ok,
        "process": cluster.process_id,
    }
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get("/metrics")
async def prometheus_metrics(metrics: MetricsDep) -> Response:
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    body = await asyncio.to_thread(generate_latest, metrics.registry)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
