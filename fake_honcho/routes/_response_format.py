"""Which chat ``response_format`` schemas Honcho accepts, refused with its 422 texts.

Honcho 3.0.12 turns the caller's JSON Schema into a pydantic model before any LLM
call, and that conversion is the check: it takes a conservative subset of JSON
Schema (an object root; primitive types, objects, arrays, enums, ``anyOf``/``oneOf``
unions, ``type`` lists, ``$ref`` into root ``$defs``/``definitions``) within a size
budget, and refuses anything else with ``Invalid response_format: <why> at <where>``.
The fake builds no model; :func:`check_response_format` walks the schema the same
way, in the same order, so the first refusal is the one Honcho gives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NoReturn

from fake_honcho.errors import HonchoError

__all__ = ["check_response_format"]

MAX_DEPTH = 20
MAX_NODES = 500
UNSUPPORTED = ("$defs", "definitions", "allOf", "not", "if", "then", "else", "patternProperties")
REF_PREFIXES = ("#/$defs/", "#/definitions/")
PRIMITIVES = frozenset({"string", "number", "integer", "boolean", "null"})
NOT_OBJECT = "root schema must have type 'object'"


class _Refused(Exception):
    pass


def _fail(reason: str, path: str) -> NoReturn:
    raise _Refused(f"{reason} at {path or 'root'}")


def _union(kinds: list[str]) -> str:
    """A union of one member is that member (``Union[X]`` is ``X``)."""
    return kinds[0] if len(kinds) == 1 else "union"


def _child(path: str, segment: str) -> str:
    return f"{path}.{segment}" if path else segment


@dataclass
class _Walk:
    """One check: the root's definitions, the definitions being expanded, nodes seen."""

    defs: dict[str, Any]
    expanding: list[str] = field(default_factory=list)
    nodes: int = 0

    def kind(self, node: Any, path: str, depth: int) -> str:
        """Check ``node``; what it converts to: ``"object"``, ``"array"`` or another type."""
        if isinstance(node, dict) and "$ref" in node:
            return self._ref(node, path, depth)
        node = self._node(node, path, depth)
        if "enum" in node:
            return self._enum(node["enum"], path)
        if "anyOf" in node or "oneOf" in node:
            key = "anyOf" if "anyOf" in node else "oneOf"
            members = node[key]
            if not isinstance(members, list) or not members:
                _fail(f"'{key}' must be a non-empty array", path)
            kinds = [
                self.kind(member, _child(path, f"{key}[{i}]"), depth + 1)
                for i, member in enumerate(members)
            ]
            return _union(kinds)
        kind = node.get("type")
        if isinstance(kind, list):
            if not kind:
                _fail("'type' array must not be empty", path)
            return _union([self.kind({**node, "type": one}, path, depth) for one in kind])
        if kind is None and "properties" in node:
            kind = "object"
        if kind == "object":
            self._object(node, path, depth)
            return "object"
        if kind == "array":
            if node.get("items") is not None:
                self.kind(node["items"], _child(path, "items"), depth + 1)
            return "array"
        if isinstance(kind, str) and kind in PRIMITIVES:
            return kind
        if kind is None:
            _fail("schema has no recognizable type", path)
        _fail(f"unsupported type '{kind}'", path)

    def _node(self, node: Any, path: str, depth: int) -> dict[str, Any]:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Refused(f"schema exceeds the maximum of {MAX_NODES} nodes")
        if depth > MAX_DEPTH:
            raise _Refused(f"schema nesting exceeds the maximum depth of {MAX_DEPTH}")
        if isinstance(node, bool):
            _fail("boolean schemas are not supported", path)
        if not isinstance(node, dict):
            _fail("schema must be an object", path)
        for key in UNSUPPORTED:
            if key in node:
                _fail(f"unsupported construct '{key}'", path)
        if isinstance(node.get("additionalProperties"), dict):
            _fail("additionalProperties with a schema is not supported", path)
        return node

    def _ref(self, node: dict[str, Any], path: str, depth: int) -> str:
        ref = node["$ref"]
        if not isinstance(ref, str):
            _fail("'$ref' must be a string", path)
        name = next((ref[len(p) :] for p in REF_PREFIXES if ref.startswith(p)), None)
        if not name or any(char in name for char in "/~%"):
            _fail(
                f"unsupported $ref '{ref}': only '#/$defs/<name>' or "
                "'#/definitions/<name>' references are supported",
                path,
            )
        if name not in self.defs:
            _fail(f"$ref '{ref}' points to an unknown definition", path)
        if name in self.expanding:
            cycle = " -> ".join([*self.expanding[self.expanding.index(name) :], name])
            _fail(
                f"recursive $ref is not supported (cycle: {cycle}); "
                "restructure the schema so definitions do not reference themselves",
                path,
            )
        target = self.defs[name]
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        if siblings and isinstance(target, dict):
            target = {**target, **siblings}
        self.expanding.append(name)
        try:
            return self.kind(target, path, depth)
        finally:
            self.expanding.pop()

    def _object(self, node: dict[str, Any], path: str, depth: int) -> None:
        properties = node.get("properties", {})
        if not isinstance(properties, dict):
            _fail("'properties' must be an object", path)
        required = node.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            _fail("'required' must be an array of strings", path)
        for name, schema in properties.items():
            if not isinstance(name, str) or not name:
                _fail("property names must be non-empty strings", path)
            self.kind(schema, _child(path, f"properties.{name}"), depth + 1)

    @staticmethod
    def _enum(values: Any, path: str) -> str:
        if not isinstance(values, list) or not values:
            _fail("'enum' must be a non-empty array", path)
        for value in values:
            if value is not None and not isinstance(value, str | int | bool):
                _fail("enum values must be strings, integers, booleans, or null", path)
        return "enum"


def _definitions(root: dict[str, Any]) -> dict[str, Any]:
    """Root ``$defs`` and ``definitions`` in one table (removed from ``root``)."""
    found: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        table = root.pop(key, None)
        if table is None:
            continue
        if not isinstance(table, dict):
            _fail(f"'{key}' must be an object", "")
        for name, definition in table.items():
            if not isinstance(name, str) or not name:
                _fail(f"'{key}' definition names must be non-empty strings", "")
            if name in found:
                _fail(f"definition '{name}' appears in both '$defs' and 'definitions'", "")
            found[name] = definition
    return found


def check_response_format(schema: Any) -> None:
    """Refuse ``schema`` as Honcho does (422 ``Invalid response_format: ...``), else None."""
    try:
        if not isinstance(schema, dict):
            raise _Refused("response_format must be a JSON Schema object")
        root = {key: value for key, value in schema.items() if key != "$schema"}
        walk = _Walk(_definitions(root))
        kind = root.get("type")
        if not (kind == "object" or (kind is None and ("properties" in root or "$ref" in root))):
            raise _Refused(NOT_OBJECT)
        if walk.kind(root, "", 0) != "object":  # a $ref root that is not an object
            raise _Refused(NOT_OBJECT)
    except _Refused as refusal:
        raise HonchoError(422, f"Invalid response_format: {refusal}") from None
