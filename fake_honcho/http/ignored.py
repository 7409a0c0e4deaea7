"""The ignored-field guard: request fields a Honcho version drops without a word.

A Honcho server ignores request fields its models do not declare, so a client newer
than its server (honcho-ai 2.7's ``scope`` on a 3.0.12 server, say) gets a 200 with
broader, unscoped data and no error. The fake knows which fields each of its versions
drops that a later version reads, and says so:

- body fields come from the schema layers (:func:`later_fields`): a field a later
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
from fake_honcho.http.schemas import BASE_URI, SchemaSet, schemas_for
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


# -- what each version drops --------------------------------------------------------------

Tree = dict[str, "tuple[str | None, Tree]"]
"""Per field: the first later version that reads it where this one does not (None: this
version reads it too), and the same for what is inside it (``*``: a map's values,
``[]``: a list's items)."""

_TREES: dict[tuple[str, str, str | None], Tree] = {}


def later_fields(version: HonchoVersion, schema: str, successor: str | None = None) -> Tree:
    """The fields of request schema ``schema`` that later versions read and ``version``
    drops, derived from the schema layers (cached). ``successor`` names the component a
    later version reads the same body as, where it has one of its own (3.1's
    ``WorkspaceMessageSearchOptions`` for 3.0.12's ``MessageSearchOptions`` on workspace
    search)."""
    key = (version.name, schema, successor)
    found = _TREES.get(key)
    if found is None:
        own = schemas_for(version.schema_layers)
        tree: Tree = {}
        for later in _later_than(version):
            theirs = schemas_for(later.schema_layers)
            name = successor if successor in theirs.documents else schema
            if name in theirs.documents and schema in own.documents:
                _merge(tree, own, theirs, _ref(schema), _ref(name), later.name)
        found = _TREES[key] = _prune(tree)
    return found


def _later_than(version: HonchoVersion) -> Iterator[HonchoVersion]:
    names = list(VERSIONS)
    for name in names[names.index(version.name) + 1 :] if version.name in VERSIONS else ():
        yield VERSIONS[name]


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": name + ".json"}


def _merge(tree: Tree, own: SchemaSet, theirs: SchemaSet, mine: Any, later: Any, name: str) -> None:
    mine, later = own.unwrap(BASE_URI, mine)[1], theirs.unwrap(BASE_URI, later)[1]
    if not isinstance(mine, dict) or not isinstance(later, dict):
        return
    properties = mine.get("properties", {})
    for field, sub in later.get("properties", {}).items():
        if field not in properties:
            if mine.get("additionalProperties") is not False and "properties" in mine:
                served, inner = tree.get(field, (None, {}))
                tree[field] = (served or name, inner)
            continue
        served, inner = tree.setdefault(field, (None, {}))
        _merge(inner, own, theirs, properties[field], sub, name)
    for marker, key in (("*", "additionalProperties"), ("[]", "items")):
        if isinstance(mine.get(key), dict) and isinstance(later.get(key), dict):
            served, inner = tree.setdefault(marker, (None, {}))
            _merge(inner, own, theirs, mine[key], later[key], name)


def _prune(tree: Tree) -> Tree:
    """``tree`` without the branches that hold no dropped field."""
    kept: Tree = {}
    for field, (served, inner) in tree.items():
        inner = _prune(inner)
        if served is not None or inner:
            kept[field] = (served, inner)
    return kept


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


# -- the guard -----------------------------------------------------------------------------


def check_body(
    request: Request, fake: Guarded, schema: str, body: Any, successor: str | None = None
) -> None:
    """Report the fields of ``body`` (read as ``schema``; later as ``successor``, if
    given) that this version drops."""
    tree = later_fields(fake.version, schema, successor)
    if tree:
        _report(request, fake, list(_found(body, tree, ())))


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
    if mode == "error":
        items = [
            validation_item(
                "extra_forbidden",
                (field.location, *field.path),
                field.explain(fake.version, method, route),
                _value_at(request, field),
            )
            for field in found
        ]
        raise RequestValidationError(items)
    for field in found:
        if fake.warned_once((method, route, str(field))):
            message = field.explain(fake.version, method, route)
            warnings.warn(message, IgnoredFieldWarning, stacklevel=2)


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
