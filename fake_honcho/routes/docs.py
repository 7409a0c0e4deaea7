"""``GET /openapi.json``, ``/docs`` and ``/redoc``: the API description a real server
serves, for the Honcho version this fake speaks (see ``fake_honcho.openapi``).

Open without a key, as on a real server, and left out of the document itself.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from fake_honcho.openapi import document_bytes
from fake_honcho.openapi.pages import page

DOC_PATHS = ("/openapi.json", "/docs", "/redoc")


async def openapi_json(request: Request) -> Response:
    return Response(document_bytes(request.app), media_type="application/json")


async def docs(request: Request) -> Response:
    return HTMLResponse(page(try_it=True))


async def redoc(request: Request) -> Response:
    return HTMLResponse(page(try_it=False))


routes = [
    Route("/openapi.json", openapi_json, methods=["GET"], include_in_schema=False),
    Route("/docs", docs, methods=["GET"], include_in_schema=False),
    Route("/redoc", redoc, methods=["GET"], include_in_schema=False),
]
