"""Errors in Honcho's wire shapes.

Honcho (FastAPI + pydantic) answers every error as ``{"detail": ...}``: a string for
application errors, a list of ``{type, loc, msg, input, ctx?}`` items for request
validation. Route code raises :class:`HonchoError` (or :class:`RequestValidationError`)
and the handlers here render it; nothing a client sends may become a 500.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from fake_honcho.wire import JSONBody

logger = logging.getLogger("fake_honcho")

Loc = tuple[str | int, ...]
ValidationItem = dict[str, Any]


class HonchoError(Exception):
    """An application error: ``status`` with ``{"detail": detail}`` as the body."""

    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(status, detail)
        self.status = status
        self.detail = detail

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.status}, {self.detail!r})"


class RequestValidationError(HonchoError):
    """A 422 whose ``detail`` is a list of pydantic-shaped items."""

    def __init__(self, items: list[ValidationItem]) -> None:
        super().__init__(422, items)
        self.items = items


class ResponseValidationError(AssertionError):
    """A response the fake produced does not match its schema (strict mode only).

    An ``AssertionError`` on purpose: it is a bug in the fake, never the client's fault,
    and it must fail the test that provoked it.
    """


def validation_item(
    type_: str, loc: Loc, msg: str, input_: Any, ctx: dict[str, Any] | None = None
) -> ValidationItem:
    """One pydantic error item, with ``ctx`` only when pydantic would give one."""
    item: ValidationItem = {"type": type_, "loc": list(loc), "msg": msg, "input": input_}
    if ctx is not None:
        item["ctx"] = ctx
    return item


def invalid(
    type_: str, loc: Loc, msg: str, input_: Any, ctx: dict[str, Any] | None = None
) -> RequestValidationError:
    """A 422 carrying a single validation item."""
    return RequestValidationError([validation_item(type_, loc, msg, input_, ctx)])


def json_invalid(error: json.JSONDecodeError) -> RequestValidationError:
    """FastAPI's answer to a body that is not JSON."""
    return invalid(
        "json_invalid", ("body", error.pos), "JSON decode error", {}, {"error": error.msg}
    )


def missing_body() -> RequestValidationError:
    """FastAPI's answer to an empty body where one is required."""
    return invalid("missing", ("body",), "Field required", None)


def value_error(loc: Loc, message: str, input_: Any) -> RequestValidationError:
    """A pydantic validator's ``ValueError`` (the ctx error object serialises as ``{}``)."""
    return invalid("value_error", loc, f"Value error, {message}", input_, {"error": {}})


def not_found(detail: str) -> HonchoError:
    return HonchoError(404, detail)


async def _honcho_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HonchoError)
    # JSONBody, not JSONResponse: a 422 may echo a lone surrogate the client sent.
    return JSONBody({"detail": exc.detail}, status_code=exc.status)


async def _http_exception(request: Request, exc: Exception) -> Response:
    """Routing errors (404 unknown path, 405 wrong method) as FastAPI renders them."""
    assert isinstance(exc, HTTPException)
    if exc.status_code in (204, 304):
        return Response(status_code=exc.status_code, headers=exc.headers)
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)


async def _unexpected(request: Request, exc: Exception) -> Response:
    """Honcho's catch-all; the traceback is logged, never sent."""
    logger.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"detail": "An unexpected error occurred"}, status_code=500)


exception_handlers = {
    HonchoError: _honcho_error,
    HTTPException: _http_exception,
    Exception: _unexpected,
}
