"""``GET /health`` and ``GET /metrics``: the routes outside ``/v3``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from fake_honcho.http.endpoint import respond
from fake_honcho.http.operations import Answer, api_route


async def health(request: Request) -> Response:
    return respond(request, {"status": "ok"}, schema="HealthStatus")


async def metrics(request: Request) -> Response:
    """The server's Prometheus endpoint as it answers with ``METRICS_ENABLED`` off (the
    default): a bare-text 404 without a content type. The fake keeps no metrics."""
    return Response("Metrics are disabled", status_code=404)


routes = [
    api_route(None, "GET", "/health", health,
        "health_check", None,
        "Answers while the server is up; needs no key.",
        Answer(200)),
    # Undocumented, as on a real server (FastAPI's include_in_schema=False).
    Route("/metrics", metrics, methods=["GET"], include_in_schema=False),
]  # fmt: skip
