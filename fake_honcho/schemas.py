"""The JSON Schemas of every body the fake reads or writes, loaded once.

``schemas/*.json`` (shipped in the wheel as ``fake_honcho/_schemas``) are Draft 2020-12
files, one per OpenAPI component, each with ``$id`` ``<BASE_URI><Name>.json`` and
relative ``$ref`` s between them. They are registered in one ``referencing.Registry``
and each validator is built once and cached.

Request bodies are checked with :meth:`SchemaSet.check_request`, which turns the
first-class JSON Schema errors into the items pydantic/FastAPI would produce
(``string_pattern_mismatch``, ``too_long``, ``missing`` ...), so a client sees the same
422 as from a real Honcho. Responses are checked with :meth:`SchemaSet.check_response`
when the fake is ``strict``.

Known gap: pydantic's lax mode accepts a few JSON values that JSON Schema refuses
(``"5"`` for an integer, ``"true"`` for a boolean); the fake refuses them with
pydantic's parsing error type. No SDK sends such values.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from fake_honcho.errors import (
    Loc,
    RequestValidationError,
    ResponseValidationError,
    ValidationItem,
    validation_item,
)
from fake_honcho.schema_compiler import Check, Compiler

BASE_URI = "https://honcho-contract-kit.invalid/schemas/"

_BOOL_STRINGS = {"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"}


def schema_directory() -> Path:
    """``fake_honcho/_schemas`` in an installed wheel, ``<repo>/schemas`` in a checkout."""
    packaged = Path(__file__).parent / "_schemas"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "schemas"


class SchemaSet:
    """Every schema in one directory, with cached compiled validators."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or schema_directory()
        self.documents: dict[str, dict[str, Any]] = {}
        resources: list[tuple[str, Resource[Any]]] = []
        for path in sorted(self.directory.glob("*.json")):
            document = json.loads(path.read_text(encoding="utf-8"))
            uri = BASE_URI + path.name
            if document.get("$id") != uri:
                raise ValueError(f"{path} must declare $id {uri!r}")
            self.documents[path.stem] = document
            resources.append((uri, Resource.from_contents(document, DRAFT202012)))
        self.registry: Registry[Any] = Registry().with_resources(resources).crawl()
        self._validators: dict[tuple[str, bool], Draft202012Validator] = {}
        self._compiler = Compiler(self._resolve)
        self._checks: dict[tuple[str, bool], Check] = {}
        self._integer_fields: dict[str, frozenset[str]] = {}

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

    def integer_fields(self, name: str) -> frozenset[str]:
        """Top-level properties of ``name`` typed ``integer`` (alone or with ``null``)."""
        found = self._integer_fields.get(name)
        if found is None:
            properties = self.documents[name].get("properties", {})
            found = frozenset(key for key, spec in properties.items() if _is_integer_spec(spec))
            self._integer_fields[name] = found
        return found

    def _resolve(self, base: str, ref: str) -> tuple[str, Any]:
        uri = urljoin(base, ref)
        name = uri.removeprefix(BASE_URI).removesuffix(".json")
        if "#" in uri or name not in self.documents:
            raise ValueError(f"cannot resolve $ref {ref!r} from {base}")
        return uri, self.documents[name]

    def check_request(self, name: str, body: Any, loc: Loc = ("body",)) -> None:
        """Raise a Honcho-shaped 422 unless ``body`` matches schema ``name``."""
        if self.is_valid(name, body):
            return
        validator = self.validator(name)
        items = list(_unique(_items(validator.iter_errors(body), loc)))
        order = list(self.documents[name].get("properties", {}))
        items.sort(key=lambda item: _field_rank(item["loc"], len(loc), order))
        raise RequestValidationError(items)

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


def _is_integer_spec(spec: Any) -> bool:
    if not isinstance(spec, dict):
        return False
    if spec.get("type") == "integer":
        return True
    branches = spec.get("anyOf", [])
    return any(branch.get("type") == "integer" for branch in branches)


@cache
def default_schemas() -> SchemaSet:
    """The schemas shipped with the package, loaded once per process."""
    return SchemaSet()


def _field_rank(loc: list[Any], depth: int, order: list[str]) -> int:
    if len(loc) > depth and loc[depth] in order:
        return order.index(loc[depth])
    return len(order)


# pydantic stops at the first failing constraint of a value, in this order.
_CONSTRAINT_ORDER = ("string_too_short", "string_too_long", "string_pattern_mismatch")


def _unique(items: Iterable[ValidationItem]) -> Iterator[ValidationItem]:
    """One item per location: the one pydantic would have reported."""
    chosen: dict[str, ValidationItem] = {}
    for item in items:
        key = json.dumps(item["loc"], default=str)
        if key not in chosen or _rank(item) < _rank(chosen[key]):
            chosen[key] = item
    yield from chosen.values()


def _rank(item: ValidationItem) -> int:
    kind = item["type"]
    return _CONSTRAINT_ORDER.index(kind) + 1 if kind in _CONSTRAINT_ORDER else 0


def _items(errors: Iterable[SchemaError], prefix: Loc) -> Iterator[ValidationItem]:
    for error in errors:
        yield from _convert(error, prefix)


def _convert(error: SchemaError, prefix: Loc) -> Iterator[ValidationItem]:
    """Translate one JSON Schema error into the pydantic items FastAPI would send."""
    loc: Loc = prefix + tuple(error.absolute_path)
    keyword = error.validator
    value: Any = error.validator_value
    instance = error.instance
    if keyword in ("anyOf", "oneOf"):
        # `X | None` fields: pydantic reports the errors of X alone.
        branches = [i for i, sub in enumerate(value) if sub != {"type": "null"}]
        chosen = branches[0] if branches else 0
        context = [e for e in error.context or [] if e.relative_schema_path[0] == chosen]
        yield from _items(context, prefix)
    elif keyword == "$ref":
        yield from _items(error.context or [], prefix)
    elif keyword == "required":
        for field in value:
            if isinstance(instance, dict) and field not in instance:
                yield validation_item("missing", (*loc, field), "Field required", instance)
    elif keyword == "type":
        yield _type_error(value, error.schema, loc, instance)
    elif keyword == "pattern":
        yield validation_item(
            "string_pattern_mismatch",
            loc,
            f"String should match pattern '{value}'",
            instance,
            {"pattern": value},
        )
    elif keyword == "minLength":
        unit = "character" if value == 1 else "characters"
        yield validation_item(
            "string_too_short",
            loc,
            f"String should have at least {value} {unit}",
            instance,
            {"min_length": value},
        )
    elif keyword == "maxLength":
        unit = "character" if value == 1 else "characters"
        yield validation_item(
            "string_too_long",
            loc,
            f"String should have at most {value} {unit}",
            instance,
            {"max_length": value},
        )
    elif keyword in ("minItems", "maxItems"):
        yield _length_error(keyword, value, loc, instance)
    elif keyword == "minimum":
        yield validation_item(
            "greater_than_equal",
            loc,
            f"Input should be greater than or equal to {value}",
            instance,
            {"ge": value},
        )
    elif keyword == "maximum":
        yield validation_item(
            "less_than_equal",
            loc,
            f"Input should be less than or equal to {value}",
            instance,
            {"le": value},
        )
    elif keyword == "exclusiveMinimum":
        yield validation_item(
            "greater_than", loc, f"Input should be greater than {value}", instance, {"gt": value}
        )
    elif keyword == "exclusiveMaximum":
        yield validation_item(
            "less_than", loc, f"Input should be less than {value}", instance, {"lt": value}
        )
    elif keyword in ("enum", "const"):
        choices = value if keyword == "enum" else [value]
        expected = _or_list([repr(choice) for choice in choices])
        yield validation_item(
            "literal_error", loc, f"Input should be {expected}", instance, {"expected": expected}
        )
    else:
        yield validation_item(
            "value_error", loc, f"Value error, {error.message}", instance, {"error": {}}
        )


def _or_list(words: list[str]) -> str:
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _length_error(keyword: str, limit: int, loc: Loc, instance: Any) -> ValidationItem:
    kind = "List" if isinstance(instance, list) else "Dictionary"
    noun = "item" if limit == 1 else "items"
    actual = len(instance)
    if keyword == "minItems":
        return validation_item(
            "too_short",
            loc,
            f"{kind} should have at least {limit} {noun} after validation, not {actual}",
            instance,
            {"field_type": kind, "min_length": limit, "actual_length": actual},
        )
    return validation_item(
        "too_long",
        loc,
        f"{kind} should have at most {limit} {noun} after validation, not {actual}",
        instance,
        {"field_type": kind, "max_length": limit, "actual_length": actual},
    )


def _type_error(expected: Any, schema: Any, loc: Loc, instance: Any) -> ValidationItem:
    """pydantic's error for a value of the wrong JSON type (lax mode wording)."""
    kinds = [expected] if isinstance(expected, str) else list(expected)
    kinds = [kind for kind in kinds if kind != "null"] or ["null"]
    kind = kinds[0]
    if kind == "string":
        return validation_item("string_type", loc, "Input should be a valid string", instance)
    if kind == "integer":
        if isinstance(instance, float):
            return validation_item(
                "int_from_float",
                loc,
                "Input should be a valid integer, got a number with a fractional part",
                instance,
            )
        if isinstance(instance, str):
            return validation_item(
                "int_parsing",
                loc,
                "Input should be a valid integer, unable to parse string as an integer",
                instance,
            )
        return validation_item("int_type", loc, "Input should be a valid integer", instance)
    if kind == "number":
        if isinstance(instance, str):
            return validation_item(
                "float_parsing",
                loc,
                "Input should be a valid number, unable to parse string as a number",
                instance,
            )
        return validation_item("float_type", loc, "Input should be a valid number", instance)
    if kind == "boolean":
        if isinstance(instance, str) and instance.strip().lower() not in _BOOL_STRINGS:
            return validation_item(
                "bool_parsing",
                loc,
                "Input should be a valid boolean, unable to interpret input",
                instance,
            )
        return validation_item("bool_type", loc, "Input should be a valid boolean", instance)
    if kind == "array":
        return validation_item("list_type", loc, "Input should be a valid list", instance)
    if kind == "object":
        if isinstance(schema, dict) and "properties" in schema:
            return validation_item(
                "model_attributes_type",
                loc,
                "Input should be a valid dictionary or object to extract fields from",
                instance,
            )
        return validation_item("dict_type", loc, "Input should be a valid dictionary", instance)
    return validation_item("none_required", loc, "Input should be None", instance)
