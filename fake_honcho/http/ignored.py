"""The ignored-field guard: request fields a Honcho version drops without a word.

A Honcho server ignores request fields its models do not declare, so a client newer
than its server (honcho-ai 2.7's ``scope`` on a 3.0.12 server, say) gets a 200 with
broader, unscoped data and no error. The fake knows which fields each of its versions
drops that a later version reads, and says so:

- body fields come from the schema layers
  (:func:`fake_honcho.http.schemas.later_fields`, handed on here): a field a later
  version's request schema reads that this version's schema lacks, at any depth;
- query parameters come from the route's operation: a parameter declared with
  ``needs=Feature.X`` (:mod:`fake_honcho.http.operations`) is dropped by a version
  without ``X`` (:func:`check_query`, called with FastAPI's checks before the handler).

Each request's dropped fields are journaled (``JournalEntry.ignored``); what the client
gets is ``FakeHoncho(ignored_fields=...)``: ``"warn"`` (the default: the answer a real
server gives, plus one :class:`IgnoredFieldWarning` per route and field, and nothing
else, so a test that catches it prints nothing; ``fake-honcho`` shows it as a notice
line), ``"error"`` (a 422 naming each field) or ``"allow"`` (journaled only).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol, get_args

from starlette.requests import Request

from fake_honcho.errors import RequestValidationError, validation_item
from fake_honcho.http.http_rules import IGNORED_SCOPE_KEY, JSON_SCOPE_KEY
from fake_honcho.http.schemas import Tree, later_fields
from fake_honcho.versions import VERSIONS, Feature, HonchoVersion

__all__ = [
    "IGNORED_SCOPE_KEY",
    "MODES",
    "IgnoredField",
    "IgnoredFieldWarning",
    "IgnoredFieldsMode",
    "check_body",
    "check_query",
    "later_fields",
]

IgnoredFieldsMode = Literal["warn", "error", "allow"]
MODES: tuple[str, ...] = get_args(IgnoredFieldsMode)


class Guarded(Protocol):
    """What the guard reads of the fake: its version, its mode, and its warn-once memory."""

    @property
    def version(self) -> HonchoVersion: ...

    @property
    def ignored_fields(self) -> IgnoredFieldsMode: ...

    def warned_once(self, key: tuple[str, ...]) -> bool: ...


#: What a client gets when a field is dropped, by the field's name (the answer a
#: later version would narrow or extend); any other field simply has no effect.
CONSEQUENCES = {
    "scope": "the answer is not narrowed to the scope",
    "scopes": "the session is not added to those scopes",
    "sessions": "the answer is not narrowed to those sessions",
    "include_evidence": "the answer comes without evidence",
    "kind": "the list holds ordinary peers only",
    "custom_instructions": "the instructions are not followed",
}
NO_EFFECT = "the field has no effect"


class IgnoredFieldWarning(UserWarning):
    """A request carried a field the fake's Honcho version silently drops."""


@dataclass(frozen=True)
class IgnoredField:
    """One dropped field: where it was (``body``/``query``), its path, the first
    version that reads it."""

    location: Literal["body", "query"]
    path: tuple[str, ...]
    served_from: str

    def __str__(self) -> str:
        return ".".join((self.location, *self.path))

    @property
    def name(self) -> str:
        return self.path[-1]

    def explain(self, version: HonchoVersion, method: str, route: str) -> str:
        """The sentence a warning, a log line and an error carry."""
        what = "the query parameter" if self.location == "query" else "the field"
        shown = ".".join(self.path)
        consequence = CONSEQUENCES.get(self.name, NO_EFFECT)
        return (
            f"Honcho {version} ignores {what} `{shown}` on {method} {route}: "
            f"{consequence} (served from {self.served_from} on)"
        )


# -- the guard -----------------------------------------------------------------------------


def _found(value: Any, tree: Tree, path: tuple[str, ...]) -> Iterator[IgnoredField]:
    if isinstance(value, dict):
        for field, inner_value in value.items():
            entry = tree.get(field) or tree.get("*")
            if entry is None or inner_value is None or inner_value is False:
                continue  # a null or false field asks for nothing
            served, inner = entry
            if served is not None and field in tree:
                yield IgnoredField("body", (*path, field), served)
            elif inner:
                yield from _found(inner_value, inner, (*path, field))
    elif isinstance(value, list) and "[]" in tree:
        inner = tree["[]"][1]
        for item in value:
            yield from _found(item, inner, path)


def check_body(request: Request, fake: Guarded, body: Any, dropped: Tree) -> None:
    """Report the fields of ``body`` that this version drops (``dropped``: its schema's
    :func:`~fake_honcho.http.schemas.later_fields`)."""
    if dropped:
        found = list(_found(body, dropped, ()))
        _report(request, fake, found)


def check_query(request: Request, fake: Guarded, dropped: Iterable[tuple[str, Feature]]) -> None:
    """Report the query parameters of ``dropped`` (each with the feature that serves it,
    which this version lacks) that the request carries."""
    found = [
        IgnoredField("query", (name,), _served_from(feature))
        for name, feature in dropped
        if name in request.query_params
    ]
    _report(request, fake, found)


def _served_from(feature: Feature) -> str:
    return next((v.name for v in VERSIONS.values() if v.speaks(feature)), "a later version")


def _report(request: Request, fake: Guarded, found: list[IgnoredField]) -> None:
    if not found:
        return
    scope = request.scope
    scope.setdefault(IGNORED_SCOPE_KEY, []).extend(str(field) for field in found)
    mode = fake.ignored_fields
    if mode == "allow":
        return
    method, route = scope["method"], _route_of(request)
    if mode == "warn":
        for field in found:
            if fake.warned_once((method, route, str(field))):
                message = field.explain(fake.version, method, route)
                warnings.warn(message, IgnoredFieldWarning, stacklevel=2)
        return
    refused = [
        (field, field.explain(fake.version, method, route), _value_at(request, field))
        for field in found
    ]
    raise RequestValidationError(
        [
            validation_item("extra_forbidden", (field.location, *field.path), message, value)
            for field, message, value in refused
        ]
    )


def _route_of(request: Request) -> str:
    route = request.scope.get("route")
    path = getattr(route, "path", None) or request.url.path
    return str(path).replace("{workspace_id}", "{w}")


def _value_at(request: Request, field: IgnoredField) -> Any:
    if field.location == "query":
        values = request.query_params.getlist(field.name)
        return values[0] if len(values) == 1 else values
    value = request.scope.get(JSON_SCOPE_KEY)
    for part in field.path:
        value = value.get(part) if isinstance(value, dict) else None
    return value
