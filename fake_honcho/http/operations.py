"""What each route of the fake takes and answers, as its OpenAPI operation says it.

Each route of Honcho's API is declared in its module of ``fake_honcho/routes/`` with
:func:`api_route`, in one place: its path, method and handler, who may call it (its
:class:`~fake_honcho.http.permissions.Rule`), and its :class:`Operation`: query
parameters, which schema its body and its answer use (``schemas/*.json``), the answer's
status, and a description in our words. The identifiers (operation ids, tags) are
Honcho's, so code generated from the fake's ``/openapi.json`` names things as code
generated from a real server's does. The operation is kept on the route
(:func:`operation_for`): the document, FastAPI's checks before a handler
(:mod:`fake_honcho.http.parameters`) and the auth layer read it there.

A documented route without an operation makes :func:`fake_honcho.openapi.build_document`
fail, naming it. What changes from some Honcho version on is declared with ``needs``:
a route with ``needs=Feature.X`` is served only by versions that speak ``X``; a
parameter with ``needs=Feature.X`` is read only by them (an older version drops it, and
the ignored-field guard says so); :func:`revised` gives a route a new body or answer
from a version on.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from fake_honcho.http.pagination import DEFAULT_SIZE, MAX_SIZE
from fake_honcho.http.permissions import Rule, guarded
from fake_honcho.versions import Feature, HonchoVersion, versioned

__all__ = [
    "FORM",
    "JSON",
    "PAGE",
    "PAGED",
    "PAGED_NULLABLE_REVERSE",
    "SIZE",
    "Answer",
    "Body",
    "Operation",
    "Param",
    "api_route",
    "bounded_param",
    "flag_param",
    "operation_for",
    "operations_of",
    "or_null",
    "revised",
    "takes_body",
    "text_param",
]

JSON = "application/json"
FORM = "multipart/form-data"


@dataclass(frozen=True)
class Param:
    """A query parameter: its JSON Schema (without title or description) and meaning."""

    name: str
    schema: dict[str, Any]
    description: str
    required: bool = False
    needs: Feature | None = None


@dataclass(frozen=True)
class Body:
    """The request body: ``schema`` names a file of ``schemas/``.

    ``optional``: the body may be left out (Honcho's ``X | None`` bodies, the list
    routes). ``inline``: the schema is written into the operation instead of being
    a component (Honcho declares these bodies inline). A ``multipart/form-data``
    body becomes the component ``Body_<operation id>``, as FastAPI names it.
    """

    schema: str
    optional: bool = False
    inline: bool = False
    media: str = JSON


@dataclass(frozen=True)
class Answer:
    """The success response: its status and the schema of its JSON body.

    ``schema=None`` with ``empty=False`` is a JSON body the document does not type
    (Honcho's ``{}``); ``empty`` is a response without a body (204); ``many``: a JSON
    array of ``schema``; ``stream``: also ``text/event-stream``.
    """

    status: int
    schema: str | None = None
    many: bool = False
    inline: bool = False
    empty: bool = False
    stream: bool = False


@dataclass(frozen=True, eq=False)
class Operation:
    """One operation; ``name`` is the handler name Honcho's operation id is built from.

    Compared by identity: each is declared once, beside its route.
    """

    method: str
    path: str
    name: str
    tag: str | None
    description: str
    answer: Answer
    body: Body | None = None
    query: Sequence[Param] = ()
    secured: bool = True
    needs: Feature | None = None

    def parameters(self, version: HonchoVersion) -> list[Param]:
        """The query parameters ``version`` takes."""
        return [p for p in self.query if p.needs is None or version.speaks(p.needs)]


# -- parameters ---------------------------------------------------------------------


def or_null(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null (an optional parameter, as FastAPI writes ``X | None``)."""
    return {"anyOf": [schema, {"type": "null"}]}


def text_param(name: str, description: str) -> Param:
    """An optional text parameter."""
    return Param(name, or_null({"type": "string"}), description)


def flag_param(name: str, default: bool, description: str, *, nullable: bool = False) -> Param:
    """A boolean parameter with its default (``nullable``: null allowed too)."""
    schema = or_null({"type": "boolean"}) if nullable else {"type": "boolean"}
    return Param(name, {**schema, "default": default}, description)


def bounded_param(name: str, kind: str, description: str, **limits: float) -> Param:
    """An optional ``integer`` or ``number`` parameter within ``limits`` (``minimum``, ...)."""
    return Param(name, or_null({"type": kind, **limits}), description)


PAGE = Param("page", {"type": "integer", "minimum": 1, "default": 1}, "Page number, from 1.")
SIZE = Param(
    "size",
    {"type": "integer", "maximum": MAX_SIZE, "minimum": 1, "default": DEFAULT_SIZE},
    f"Items per page (1 to {MAX_SIZE}).",
)
REVERSE_TEXT = "Newest first instead of oldest first."
PAGED = (flag_param("reverse", False, REVERSE_TEXT), PAGE, SIZE)
PAGED_NULLABLE_REVERSE = (flag_param("reverse", False, REVERSE_TEXT, nullable=True), PAGE, SIZE)


# -- declaring a route --------------------------------------------------------------

Endpoint = Callable[[Request], Awaitable[Response]]
_OPERATIONS_ATTRIBUTE = "honcho_operations"


def api_route(
    rule: Rule | None,
    method: str,
    path: str,
    handler: Endpoint,
    name: str,
    tag: str | None,
    description: str,
    answer: Answer,
    body: Body | None = None,
    *query: Param,
    needs: Feature | None = None,
) -> Route:
    """The route ``method path`` to ``handler``, with everything else Honcho declares
    for it: ``rule``, Honcho's ``require_auth`` of the route (None: no key needed, and
    the document says so), and its operation. ``needs``: served only by versions that
    speak it."""
    operation = Operation(
        method, path, name, tag, description, answer, body, query, rule is not None, needs
    )
    route = Route(path, handler, methods=[method])
    setattr(route, _OPERATIONS_ATTRIBUTE, (operation,))
    if rule is not None:
        guarded(rule, route)
    if needs is not None:
        versioned(needs, route)
    return route


def revised(
    feature: Feature,
    route: BaseRoute,
    *,
    description: str | None = None,
    answer: Answer | None = None,
    body: Body | None = None,
) -> BaseRoute:
    """``route`` (an :func:`api_route`) as versions that speak ``feature`` describe it:
    its last operation with what is given replaced."""
    *operations, last = operations_of(route)
    later = replace(
        last,
        needs=feature,
        description=description or last.description,
        answer=answer or last.answer,
        body=body or last.body,
    )
    setattr(route, _OPERATIONS_ATTRIBUTE, (*operations, last, later))
    return route


# -- reading it back ----------------------------------------------------------------


def operations_of(route: BaseRoute) -> tuple[Operation, ...]:
    """Every operation declared for ``route``, the first served before any revision."""
    declared: tuple[Operation, ...] = getattr(route, _OPERATIONS_ATTRIBUTE, ())
    return declared


def operation_for(route: BaseRoute, version: HonchoVersion) -> Operation | None:
    """The operation of ``route`` at ``version``: of those declared, the last whose
    ``needs`` it speaks (None: the route has none, as the fake's own control routes)."""
    found = None
    for operation in operations_of(route):
        if operation.needs is None or version.speaks(operation.needs):
            found = operation
    return found


def takes_body(route: BaseRoute) -> bool:
    """Whether ``route`` reads a JSON body (which FastAPI decodes before auth)."""
    return any(
        operation.body is not None and operation.body.media == JSON
        for operation in operations_of(route)
    )
