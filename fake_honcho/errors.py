"""Errors in Honcho's wire shapes.

Honcho (FastAPI + pydantic) answers every error as ``{"detail": ...}``: a string for
application errors, a list of ``{type, loc, msg, input, ctx?}`` items for request
validation. Route code raises :class:`HonchoError` (or :class:`RequestValidationError`)
and the handlers here render it. A 500 comes only from :class:`UnhandledError`: a request
the real server of the fake's version fails on, answered as it does (a declared
``real-bug`` entry of the register, reproduced unless ``FakeHoncho(real_bugs="correct")``).
"""

from __future__ import annotations

import json
import logging
import math
from typing import TYPE_CHECKING, Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from fake_honcho.faults import DROP_EXTENSION, UNEXPECTED_ERROR
from fake_honcho.http_rules import UNHANDLED_SCOPE_KEY
from fake_honcho.wire import JSONBody

if TYPE_CHECKING:
    from fake_honcho.fake import FakeHoncho

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


class UnhandledError(Exception):
    """The real server fails here with an unhandled error: its 500, deliberately.

    ``bug`` names the register entry (:mod:`fake_honcho.divergences`) that declares it.
    """

    def __init__(self, bug: str) -> None:
        super().__init__(bug)
        self.bug = bug


def real_bug(fake: FakeHoncho, bug: str, corrected: Exception) -> Exception:
    """What to raise where the real server fails unhandled (register entry ``bug``): its
    500, or ``corrected`` with ``FakeHoncho(real_bugs="correct")``."""
    return UnhandledError(bug) if fake.real_bugs == "reproduce" else corrected


class UnhandledResponse(JSONResponse):
    """Honcho's 500 for an unhandled error. The real server's error middleware sends it
    from outside the CORS middleware and then re-raises, so uvicorn closes the
    connection: served, the fake closes it too (``fake_honcho.faults.DROP_EXTENSION``)."""

    def __init__(self) -> None:
        super().__init__({"detail": UNEXPECTED_ERROR}, status_code=500)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[UNHANDLED_SCOPE_KEY] = True
        await super().__call__(scope, receive, send)
        close = scope.get("extensions", {}).get(DROP_EXTENSION)
        if close is not None:
            await close()


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
    if _unencodable(exc.detail):
        # FastAPI's JSONResponse refuses NaN and infinities (allow_nan=False), and UTF-8 a
        # lone surrogate: a 422 echoing one becomes the global handler's 500 (divergences
        # real-nan-echo-500, real-lone-surrogate-500). Corrected: NaN as its name, and
        # JSONBody's ASCII escapes for the surrogate.
        if request.app.fake.real_bugs == "reproduce":
            return UnhandledResponse()
        return JSONBody({"detail": _finite(exc.detail)}, status_code=exc.status)
    return JSONBody({"detail": exc.detail}, status_code=exc.status)


def _unencodable(value: Any) -> bool:
    """Whether ``value`` holds what FastAPI's JSON response cannot send."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, str):
        return not value.isascii() and not _utf8(value)
    if isinstance(value, dict):
        return any(_unencodable(k) or _unencodable(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_unencodable(item) for item in value)
    return False


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


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
    HonchoError: _honcho_error,
    HTTPException: _http_exception,
    Exception: _unexpected,
}
