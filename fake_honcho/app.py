"""Assembles the Starlette app (temporary skeleton)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

if TYPE_CHECKING:
    from fake_honcho.fake import FakeHoncho


async def health(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


def build_app(fake: FakeHoncho) -> Starlette:
    app = Starlette(routes=[Route("/health", health)])
    app.state.fake = fake
    return app
