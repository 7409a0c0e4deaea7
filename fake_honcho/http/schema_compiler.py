"""The JSON Schema keywords ``schemas/`` uses, compiled once into plain Python predicates.

``jsonschema`` re-walks the schema and resolves ``$ref`` s through the registry on
every call, which costs milliseconds for a 100-message page. A strict fake checks
every response, so it compiles each schema into nested closures that only answer
"valid or not"; when a response is invalid, ``jsonschema`` is run to explain why
(``fake_honcho.http.schemas``; requests go through ``fake_honcho.http.request_models``). The
compiler accepts only the keywords below and refuses a schema using any other, so
its verdict is the Draft 2020-12 verdict; ``tests/fake/test_schema_compiler.py``
holds it against ``jsonschema`` on generated documents.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

ANNOTATIONS = frozenset(
    {"$schema", "$id", "title", "description", "default", "format", "examples", "contentMediaType"}
)
ASSERTIONS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "$ref",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "enum",
        "const",
    }
)


def _always(_: Any) -> bool:
    return True


def _never(_: Any) -> bool:
    return False


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": _is_integer,
    "number": _is_number,
}


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema defines it (``true`` is not ``1``)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and (_is_number(a) == _is_number(b))


# Combinators chain two checks at a time: no generator per call.
def _any_of(checks: list[Check]) -> Check:
    if not checks:
        return _never
    if len(checks) == 1:
        return checks[0]
    first, rest = checks[0], _any_of(checks[1:])
    return lambda value: first(value) or rest(value)


def _all_of(checks: list[Check]) -> Check:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    first, rest = checks[0], _all_of(checks[1:])
    return lambda value: first(value) and rest(value)


def _one_of_values(options: list[Any]) -> Check:
    return lambda value: any(json_equal(value, option) for option in options)


class Compiler:
    """Compiles schemas that refer to each other by ``$ref`` (resolved by ``lookup``)."""

    def __init__(self, lookup: Callable[[str, str], tuple[str, Any]]) -> None:
        """``lookup(base_uri, ref) -> (uri, schema)``."""
        self._lookup = lookup
        self._compiled: dict[str, Check] = {}

    def compile_uri(self, uri: str, schema: Any) -> Check:
        """The check of the schema registered at ``uri``, compiled once."""
        found = self._compiled.get(uri)
        if found is None:
            found = self.compile(schema, uri)
            self._compiled[uri] = found
        return found

    def compile(self, schema: Any, base: str) -> Check:
        if schema is True:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, dict):
            raise ValueError(f"not a schema: {schema!r}")
        unknown = set(schema) - ANNOTATIONS - ASSERTIONS
        if unknown:
            raise ValueError(f"unsupported JSON Schema keywords {sorted(unknown)} in {base}")
        checks: list[Check] = []
        if "$ref" in schema:
            uri, target = self._lookup(base, schema["$ref"])
            checks.append(self._reference(uri, target))
        if "type" in schema:
            kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            checks.append(_any_of([TYPES[kind] for kind in kinds]))
        if "enum" in schema:
            checks.append(_one_of_values(schema["enum"]))
        if "const" in schema:
            checks.append(_one_of_values([schema["const"]]))
        checks.extend(self._string(schema))
        checks.extend(self._number(schema))
        checks.extend(self._array(schema, base))
        checks.extend(self._object(schema, base))
        if "anyOf" in schema:
            checks.append(_any_of([self.compile(branch, base) for branch in schema["anyOf"]]))
        return _all_of(checks)

    def _reference(self, uri: str, target: Any) -> Check:
        """A ``$ref``, compiled on first use (so schemas may refer to each other in cycles)."""
        resolved: list[Check] = []

        def check(value: Any) -> bool:
            if not resolved:
                resolved.append(self.compile_uri(uri, target))
            return resolved[0](value)

        return check

    def _string(self, schema: dict[str, Any]) -> list[Check]:
        """minLength, maxLength and pattern as one check (they all pass non-strings)."""
        if not {"minLength", "maxLength", "pattern"} & schema.keys():
            return []
        low = schema.get("minLength", 0)
        high = schema.get("maxLength")
        search = re.compile(schema["pattern"]).search if "pattern" in schema else None

        def check(value: Any) -> bool:
            if not isinstance(value, str):
                return True
            if len(value) < low or (high is not None and len(value) > high):
                return False
            return search is None or search(value) is not None

        return [check]

    def _number(self, schema: dict[str, Any]) -> list[Check]:
        checks: list[Check] = []
        if "minimum" in schema:
            low = schema["minimum"]
            checks.append(lambda v: not _is_number(v) or v >= low)
        if "maximum" in schema:
            high = schema["maximum"]
            checks.append(lambda v: not _is_number(v) or v <= high)
        return checks

    def _array(self, schema: dict[str, Any], base: str) -> list[Check]:
        checks: list[Check] = []
        if "minItems" in schema:
            low = schema["minItems"]
            checks.append(lambda v: not isinstance(v, list) or len(v) >= low)
        if "maxItems" in schema:
            high = schema["maxItems"]
            checks.append(lambda v: not isinstance(v, list) or len(v) <= high)
        if "items" in schema:
            item = self.compile(schema["items"], base)
            checks.append(lambda v: not isinstance(v, list) or all(map(item, v)))
        return checks

    def _object(self, schema: dict[str, Any], base: str) -> list[Check]:
        checks: list[Check] = []
        required = frozenset(schema.get("required", ()))
        if required:
            checks.append(lambda v: not isinstance(v, dict) or required <= v.keys())
        properties = {
            name: self.compile(sub, base) for name, sub in schema.get("properties", {}).items()
        }
        extra = schema.get("additionalProperties", True)
        extra_check = None if extra is True else self.compile(extra, base)
        if properties or extra_check is not None:

            def check(value: Any) -> bool:
                if not isinstance(value, dict):
                    return True
                for key, item in value.items():
                    sub = properties.get(key)
                    if sub is not None:
                        if not sub(item):
                            return False
                    elif extra_check is not None and not extra_check(item):
                        return False
                return True

            checks.append(check)
        return checks
