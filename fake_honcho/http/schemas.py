"""The JSON Schemas of every body the fake reads or writes, loaded once.

``schemas/*.json`` (shipped in the wheel as ``fake_honcho/_schemas``) are Draft 2020-12
files, one per OpenAPI component, each with ``$id`` ``<BASE_URI><Name>.json`` and
relative ``$ref`` s between them. They are registered in one ``referencing.Registry``
and each validator is built once and cached. A Honcho version reads ``schemas/*.json``
(3.0.12) overlaid, in order, by the layers it names (``schemas/3.1/*.json`` replaces or
adds components from 3.1 on): :func:`schemas_for` builds one set per version.

Request bodies are validated with :meth:`SchemaSet.check_request`: pydantic-core
validators compiled from the same files (``fake_honcho.http.request_models``) accept,
coerce and refuse exactly as Honcho's pydantic models in lax mode, so a client sees
the same 422 items (``{type, loc, msg, input, ctx}``) as from a real Honcho, and the
handlers get the coerced values. Responses are checked with
:meth:`SchemaSet.check_response` (compiled plain-Python checks,
``fake_honcho.http.schema_compiler``) when the fake is ``strict``.

What a version's request schemas lack that a later version's read
(:func:`later_fields`) is what the ignored-field guard (``fake_honcho.http.ignored``)
reports when a client sends it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from jsonschema import Draft202012Validator
from pydantic_core import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from fake_honcho.errors import Loc, ResponseValidationError
from fake_honcho.http.request_models import (
    ANY_BODY,
    RawBody,
    RequestCompiler,
    field_names,
    request_error,
)
from fake_honcho.http.schema_compiler import Check, Compiler
from fake_honcho.versions import VERSIONS, HonchoVersion

BASE_URI = "https://honcho-contract-kit.invalid/schemas/"


def schema_directory() -> Path:
    """``fake_honcho/_schemas`` in an installed wheel, ``<repo>/schemas`` in a checkout."""
    package = Path(__file__).resolve().parents[1]  # this file is fake_honcho/http/schemas.py
    packaged = package / "_schemas"
    if packaged.is_dir():
        return packaged
    return package.parent / "schemas"


class SchemaSet:
    """Every schema in one directory and its ``layers`` (subdirectories applied in order,
    a later file replacing an earlier one of the same name), with cached validators."""

    def __init__(self, directory: Path | None = None, layers: Sequence[str] = ()) -> None:
        self.directory = directory or schema_directory()
        self.documents: dict[str, dict[str, Any]] = {}
        for folder in (self.directory, *(self.directory / layer for layer in layers)):
            if not folder.is_dir():
                raise ValueError(f"no schema layer {folder}")
            for path in sorted(folder.glob("*.json")):
                document = json.loads(path.read_text(encoding="utf-8"))
                uri = BASE_URI + path.name
                if document.get("$id") != uri:
                    raise ValueError(f"{path} must declare $id {uri!r}")
                self.documents[path.stem] = document
        resources = [
            (BASE_URI + name + ".json", Resource.from_contents(document, DRAFT202012))
            for name, document in self.documents.items()
        ]
        self.registry: Registry[Any] = Registry().with_resources(resources).crawl()
        self._validators: dict[tuple[str, bool], Draft202012Validator] = {}
        self._compiler = Compiler(self._resolve)
        self._checks: dict[tuple[str, bool], Check] = {}
        self._requests = RequestCompiler(self._resolve, BASE_URI)

    def names(self) -> list[str]:
        return sorted(self.documents)

    def validator(self, name: str, *, many: bool = False) -> Draft202012Validator:
        """The compiled validator of ``name`` (``many``: a JSON array of it)."""
        key = (name, many)
        found = self._validators.get(key)
        if found is None:
            if name not in self.documents:
                raise KeyError(f"no schema named {name!r} in {self.directory}")
            ref: dict[str, Any] = {"$ref": BASE_URI + name + ".json"}
            schema = {"type": "array", "items": ref} if many else ref
            found = Draft202012Validator(schema, registry=self.registry)
            self._validators[key] = found
        return found

    def is_valid(self, name: str, instance: Any, *, many: bool = False) -> bool:
        """Whether ``instance`` matches ``name`` (compiled check, no error details)."""
        key = (name, many)
        check = self._checks.get(key)
        if check is None:
            if name not in self.documents:
                raise KeyError(f"no schema named {name!r} in {self.directory}")
            uri = BASE_URI + name + ".json"
            one = self._compiler.compile_uri(uri, self.documents[name])
            check = (lambda v: isinstance(v, list) and all(one(x) for x in v)) if many else one
            self._checks[key] = check
        return check(instance)

    def _resolve(self, base: str, ref: str) -> tuple[str, Any]:
        uri = urljoin(base, ref)
        name = uri.removeprefix(BASE_URI).removesuffix(".json")
        if "#" in uri or name not in self.documents:
            raise ValueError(f"cannot resolve $ref {ref!r} from {base}")
        return uri, self.documents[name]

    def check_request(
        self, name: str, body: Any, loc: Loc = ("body",), raw: RawBody | None = None
    ) -> Any:
        """``body`` as Honcho's model ``name`` reads it (lax mode), or its exact 422.

        ``raw`` says what the body's bytes rule out: validators with nothing to find are
        left out of the one that runs.
        """
        validator = self._requests.validator(name, self.documents[name], raw or ANY_BODY)
        try:
            return validator.validate_python(body)
        except ValidationError as error:
            raise request_error(error, loc, lambda at: self._is_model(name, at)) from None

    def _is_model(self, name: str, loc: Loc) -> bool:
        """Whether the value at ``loc`` inside a ``name`` body is an object with properties."""
        base, node = self._resolve(BASE_URI, name + ".json")
        base, node = self.unwrap(base, node)
        for part in loc:
            if not isinstance(node, dict):
                return False
            if isinstance(part, int) and node.get("type") == "array":
                node = node.get("items", True)
            else:
                properties = node.get("properties", {})
                key = next((k for k in properties if part in field_names(node, k)), None)
                node = properties[key] if key else node.get("additionalProperties", True)
            base, node = self.unwrap(base, node)
        return isinstance(node, dict) and "properties" in node

    def unwrap(self, base: str, node: Any) -> tuple[str, Any]:
        """Follow ``$ref`` s (relative to ``base``) and take the non-null branch of
        ``X | None``; returns the node and the URI it sits in."""
        while isinstance(node, dict) and ("$ref" in node or "anyOf" in node):
            if "$ref" in node:
                base, node = self._resolve(base, node["$ref"])
            else:
                node = next(b for b in node["anyOf"] if b != {"type": "null"})
        return base, node

    def check_response(self, name: str, payload: Any, *, many: bool = False) -> None:
        """Raise :class:`ResponseValidationError` unless ``payload`` matches ``name``."""
        if self.is_valid(name, payload, many=many):
            return
        error = next(iter(self.validator(name, many=many).iter_errors(payload)), None)
        if error is not None:
            where = "/".join(str(part) for part in error.absolute_path) or "<root>"
            raise ResponseValidationError(
                f"response is not a valid {name} at {where}: {error.message}"
            )


@cache
def schemas_for(layers: tuple[str, ...]) -> SchemaSet:
    """The shipped schemas with ``layers`` applied (a version's ``schema_layers``), loaded
    once per process."""
    return SchemaSet(layers=layers)


def default_schemas() -> SchemaSet:
    """The shipped schemas as 3.0.12 reads them, loaded once per process."""
    return schemas_for(())


# -- what a version's request schemas lack that a later version's read -----

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
