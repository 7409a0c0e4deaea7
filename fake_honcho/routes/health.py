"""``GET /health``: the one route outside ``/v3``, never behind auth."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from fake_honcho.endpoint import respond


async def health(request: Request) -> Response:
    return respond(request, {"status": "ok"}, schema="HealthStatus")


routes = [Route("/health", health, methods=["GET"])]
