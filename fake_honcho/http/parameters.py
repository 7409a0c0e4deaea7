"""FastAPI's check of a request's parameters, all at once, before the handler runs.

FastAPI decodes a JSON body first (a body it cannot decode is a 400, one that is not
JSON a 422 with the one ``json_invalid`` item), then validates the query parameters of
the endpoint's dependencies (Honcho's pagination: ``page``, ``size``), the endpoint's
own query parameters in the order it declares them, and the body, and reports every
error of all of them in one 422. A handler here reads its parameters one at a time
(``query_int``, ``read_body``), each refusing on its own; so :func:`check_request` runs
first: it decodes the body, and when any query parameter is refused, raises the 422
FastAPI sends, the query's items and then the body's.

What each route takes is its OpenAPI operation, declared beside it
(:func:`fake_honcho.http.operations.api_route`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic_core import SchemaValidator, ValidationError
from starlette.requests import Request
from starlette.routing import BaseRoute

from fake_honcho.errors import RequestValidationError, ValidationItem, validation_item
from fake_honcho.http.endpoint import (
    UNREAD_JSON_SCOPE_KEY,
    body_bytes,
    decoded,
    fake_of,
    query_str,
    read_body,
    sends_json,
)
from fake_honcho.http.ignored import check_query
from fake_honcho.http.operations import JSON, Operation, operation_for
from fake_honcho.http.request_models import request_error, scalar
from fake_honcho.versions import Feature, HonchoVersion

__all__ = ["Checks", "check_request", "checks_for"]

# fastapi-pagination's Params: a dependency, so validated before the endpoint's own
DEPENDENCY_PARAMETERS = ("page", "size")


@dataclass(frozen=True)
class Checks:
    """What FastAPI checks of one operation's request, in its order."""

    query: tuple[tuple[str, SchemaValidator | None, bool], ...]
    """(name, validator (None: any text), required) for each query parameter."""
    body: str | None = None
    """The JSON body's schema, if the operation takes one."""
    body_required: bool = False
    dropped: tuple[tuple[str, Feature], ...] = ()
    """(name, the feature that reads it) for each query parameter this version drops."""


@cache
def checks_for(operation: Operation, version: HonchoVersion) -> Checks:
    """The checks of ``operation`` at ``version``."""
    params = operation.parameters(version)
    ordered = [p for p in params if p.name in DEPENDENCY_PARAMETERS]
    ordered += [p for p in params if p.name not in DEPENDENCY_PARAMETERS]
    body = operation.body if operation.body is not None and operation.body.media == JSON else None
    return Checks(
        tuple((p.name, _validator(p.schema), p.required) for p in ordered),
        body.schema if body is not None else None,
        body is not None and not body.optional,
        tuple((p.name, p.needs) for p in operation.query if p.needs and p not in params),
    )


def _validator(schema: dict[str, Any]) -> SchemaValidator | None:
    """The validator of a query parameter's schema (``anyOf`` with null unwrapped)."""
    for option in schema.get("anyOf", [schema]):
        kind = option.get("type")
        if kind == "integer":
            return scalar("int", option.get("minimum"), option.get("maximum"))
        if kind == "number":
            return scalar("float", option.get("minimum"), option.get("maximum"))
        if kind == "boolean":
            return scalar("bool")
        if kind == "string" and option.get("format") == "date-time":
            return scalar("datetime")
    return None


async def check_request(request: Request, route: BaseRoute) -> None:
    """Raise what FastAPI answers before the handler of ``route`` would run: the body's
    decoding error, or a 422 listing every refused query parameter and then the body's
    errors (nothing for a route without an operation: the fake's own control routes)."""
    fake = fake_of(request)
    checks = _checks_of(route, fake.version)
    if checks is None:
        return
    if checks.body is not None and sends_json(request):
        body = await body_bytes(request)
        if body:
            # FastAPI's 400 or json_invalid first; the handler's read_json takes it as is
            request.scope[UNREAD_JSON_SCOPE_KEY] = decoded(request.scope, body)
    items: list[ValidationItem] = []
    for name, validator, required in checks.query:
        raw = query_str(request, name)
        if raw is None:
            if required:
                items.append(validation_item("missing", ("query", name), "Field required", None))
        elif validator is not None:
            try:
                validator.validate_python(raw)
            except ValidationError as error:
                items += request_error(error, ("query", name), _no_models).items
    if not items:
        if checks.dropped:
            check_query(request, fake, checks.dropped)
        return
    if checks.body is not None:
        try:
            await read_body(request, checks.body, required=checks.body_required)
        except RequestValidationError as error:
            items += error.items
    raise RequestValidationError(items)


_CHECKS_ATTRIBUTE = "_fake_honcho_checks"


def _checks_of(route: BaseRoute, version: HonchoVersion) -> Checks | None:
    """:func:`checks_for` the route's operation at ``version``, kept on the route for the
    version it last served (hashing a version per request costs more than the lookup)."""
    kept: tuple[HonchoVersion, Checks | None] | None = getattr(route, _CHECKS_ATTRIBUTE, None)
    if kept is not None and kept[0] is version:
        return kept[1]
    operation = operation_for(route, version)
    checks = None if operation is None else checks_for(operation, version)
    setattr(route, _CHECKS_ATTRIBUTE, (version, checks))
    return checks


def _no_models(_: Any) -> bool:
    return False
