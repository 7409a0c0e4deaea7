"""Starlette exception handlers: each error of ``fake_honcho.errors`` in Honcho's wire shape.

A 500 comes only from :class:`~fake_honcho.errors.UnhandledError` (a declared real bug,
answered as the real server does) or from the catch-all, whose traceback is logged, never sent.
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from fake_honcho.errors import HonchoError, UnhandledError
from fake_honcho.http.http_rules import UNEXPECTED_ERROR, UNHANDLED_SCOPE_KEY
from fake_honcho.http.server import DROP_EXTENSION
from fake_honcho.http.wire import JSONBody
from fake_honcho.store.jsonb import Unstorable, unencodable, unstorable_detail

logger = logging.getLogger("fake_honcho")


class UnhandledResponse(JSONResponse):
    """Honcho's 500 for an unhandled error. The real server's error middleware sends it
    from outside the CORS middleware and then re-raises, so uvicorn closes the
    connection: served, the fake closes it too (``fake_honcho.harness.faults.DROP_EXTENSION``)."""

    def __init__(self) -> None:
        super().__init__({"detail": UNEXPECTED_ERROR}, status_code=500)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[UNHANDLED_SCOPE_KEY] = True
        await super().__call__(scope, receive, send)
        close = scope.get("extensions", {}).get(DROP_EXTENSION)
        if close is not None:
            await close()


async def _honcho_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HonchoError)
    if unencodable(exc.detail):
        # FastAPI's JSONResponse refuses NaN and infinities (allow_nan=False), and UTF-8 a
        # lone surrogate: a 422 echoing one becomes the global handler's 500 (divergences
        # real-nan-echo-500, real-lone-surrogate-500). Corrected: NaN as its name, and
        # JSONBody's ASCII escapes for the surrogate.
        if request.app.fake.real_bugs == "reproduce":
            return UnhandledResponse()
        return JSONBody({"detail": _finite(exc.detail)}, status_code=exc.status)
    return JSONBody({"detail": exc.detail}, status_code=exc.status)


def _finite(value: Any) -> Any:
    """``value`` with each NaN or infinity as its name (``"NaN"``, ``"Infinity"``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


async def _unhandled(request: Request, exc: Exception) -> Response:
    return UnhandledResponse()


async def _unstorable(request: Request, exc: Exception) -> Response:
    """A write PostgreSQL refuses (rolled back by the store): the server's 500 (divergence
    real-unstorable-json-500), or with real_bugs="correct" a 422 (which read_body gives
    before any write; this answers a write no body check saw)."""
    assert isinstance(exc, Unstorable)
    if request.app.fake.real_bugs == "reproduce":
        return UnhandledResponse()
    return JSONBody({"detail": unstorable_detail(exc.field)}, status_code=422)


async def _http_exception(request: Request, exc: Exception) -> Response:
    """Routing errors (404 unknown path, 405 wrong method) as FastAPI renders them."""
    assert isinstance(exc, HTTPException)
    if exc.status_code in (204, 304):
        return Response(status_code=exc.status_code, headers=exc.headers)
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)


async def _unexpected(request: Request, exc: Exception) -> Response:
    """Honcho's catch-all; the traceback is logged, never sent."""
    logger.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"detail": UNEXPECTED_ERROR}, status_code=500)


exception_handlers = {
    UnhandledError: _unhandled,
    Unstorable: _unstorable,
    HonchoError: _honcho_error,
    HTTPException: _http_exception,
    Exception: _unexpected,
}
