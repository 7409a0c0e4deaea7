"""Errors in Honcho's wire shapes.

Honcho (FastAPI + pydantic) answers every error as ``{"detail": ...}``: a string for
application errors, a list of ``{type, loc, msg, input, ctx?}`` items for request
validation. Route code raises :class:`HonchoError` (or :class:`RequestValidationError`)
and ``fake_honcho.http.handlers`` renders it. A 500 comes only from :class:`UnhandledError`:
a request the real server of the fake's version fails on, answered as it does (a declared
``real-bug`` entry of the register, reproduced unless ``FakeHoncho(real_bugs="correct")``).
This module is the base layer: exception types only, importing nothing of the fake.
"""

from __future__ import annotations

import json
from typing import Any, Literal, Protocol

Loc = tuple[str | int, ...]
ValidationItem = dict[str, Any]
RealBugs = Literal["reproduce", "correct"]
REAL_BUGS: tuple[RealBugs, ...] = ("reproduce", "correct")


class BugPolicy(Protocol):
    """What :func:`real_bug` reads of the fake: ``FakeHoncho(real_bugs=...)``."""

    @property
    def real_bugs(self) -> RealBugs: ...


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

    ``bug`` names the register entry (:mod:`fake_honcho.harness.divergences`) that declares it.
    """

    def __init__(self, bug: str) -> None:
        super().__init__(bug)
        self.bug = bug


def real_bug(fake: BugPolicy, bug: str, corrected: Exception) -> Exception:
    """What to raise where the real server fails unhandled (register entry ``bug``): its
    500, or ``corrected`` with ``FakeHoncho(real_bugs="correct")``."""
    return UnhandledError(bug) if fake.real_bugs == "reproduce" else corrected


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
