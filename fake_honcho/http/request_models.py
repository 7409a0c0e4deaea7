"""Honcho's request models, rebuilt from ``schemas/`` as pydantic-core validators.

Honcho validates every body, query and path parameter with pydantic v2 in lax mode
(FastAPI calls ``validate_python`` on the decoded JSON): ``"yes"`` is a boolean,
``" 2 "`` and ``true`` are integers, and what it refuses gets pydantic's exact
``type``/``msg``/``ctx``. Rather than restate those rules, the fake compiles each
request schema into a pydantic-core ``SchemaValidator`` of the same shape as the
server's model (a ``BaseModel`` per object with ``properties``, ``dict[str, X]``,
``list[X]``, ``X | None``, ``Literal``, ``Enum``, ``datetime``), so the verdicts,
conversions and error items are pydantic's own. Objects become ``TypedDict``
validators: the output keeps only the keys the client sent (with their coerced
values), which is what the route handlers read; free-form values (metadata) pass
through untouched.

What the OpenAPI schema cannot say is restated in :data:`ALIASES` (``populate_by_name``
and ``AliasChoices``) and :data:`VALIDATORS` (Honcho's field and model validators,
whose ``ValueError`` pydantic reports as a ``value_error`` item at the field or the
model, beside the body's other items): metadata's limits and NUL stripping, and
content's NUL stripping and special-token refusal among them. Checks that Honcho runs
in its routes (URL checks, queries' NUL stripping) stay with the handlers.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

from pydantic_core import CoreSchema, PydanticKnownError, SchemaValidator, ValidationError
from pydantic_core import core_schema as cs
from pydantic_core.core_schema import ExtraBehavior

from fake_honcho.errors import Loc, RequestValidationError, ValidationItem
from fake_honcho.store.resources import RESOURCE_NAME, SCOPE_PREFIX
from fake_honcho.store.sanitize import sanitized_metadata, strip_nul
from fake_honcho.store.tokens import estimate_tokens, special_token_error, token_count

Lookup = Callable[[str, str], tuple[str, Any]]

# Other spellings Honcho's models accept for a field: (schema, property) -> names, in
# the order pydantic tries them. `populate_by_name` models accept the field's Python
# name besides its alias; ConclusionBatchCreate declares AliasChoices.
ALIASES: dict[tuple[str, str], tuple[str, ...]] = {
    ("WorkspaceCreate", "id"): ("id", "name"),
    ("PeerCreate", "id"): ("id", "name"),
    ("SessionCreate", "id"): ("id", "name"),
    ("SessionCreate", "peers"): ("peers", "peer_names"),
    ("ConclusionBatchCreate", "conclusions"): ("conclusions", "observations"),
    ("ScopeCreate", "id"): ("id", "name"),
}


class RawBody(NamedTuple):
    """What a body's raw JSON leaves possible, found once in its bytes: a string holds a
    NUL only through a ``\\u0000`` escape, and spells a special token only with ``<|``
    in the bytes or through escapes. A validator with nothing to find is left out."""

    nul: bool
    special: bool

    @classmethod
    def of(cls, raw: bytes) -> RawBody:
        # one of three shared values: a tuple built per request costs a Python call
        if b"\\u00" in raw:
            return ANY_BODY
        return _SPECIAL_BODY if b"<|" in raw else _PLAIN_BODY


ANY_BODY = RawBody(nul=True, special=True)
"""What validation assumes of a body it is not told about."""
_SPECIAL_BODY = RawBody(nul=False, special=True)
_PLAIN_BODY = RawBody(nul=False, special=False)

CUSTOM_INSTRUCTIONS_TOKENS = 2000
"""``DERIVER.MAX_CUSTOM_INSTRUCTIONS_TOKENS``: the default, which is also its maximum."""


def _custom_instructions_budget(value: str | None) -> str | None:
    """``ReasoningConfiguration``'s ``custom_instructions`` validator."""
    if value is None or not value.strip():
        return value
    if estimate_tokens(value) > CUSTOM_INSTRUCTIONS_TOKENS:
        raise ValueError(
            "custom_instructions exceeds DERIVER.MAX_CUSTOM_INSTRUCTIONS_TOKENS "
            f"({CUSTOM_INSTRUCTIONS_TOKENS} tokens)"
        )
    return value


def _summary_thresholds(value: dict[str, Any]) -> dict[str, Any]:
    """``SummaryConfiguration``'s model validator (runs once its fields are valid)."""
    short = value.get("messages_per_short_summary")
    long = value.get("messages_per_long_summary")
    if short is not None and long is not None and short >= long:
        raise ValueError("messages_per_short_summary must be less than messages_per_long_summary")
    return value


EMBEDDING_TOKENS = 8192
"""``EMBEDDING.MAX_INPUT_TOKENS``: the most tokens a conclusion's content may have."""


def encodable(value: dict[str, Any]) -> dict[str, Any]:
    """``MessageCreate``'s model validator: tiktoken's ``encode`` refuses special tokens."""
    refused = special_token_error(value["content"])
    if refused is not None:
        raise ValueError(refused)
    return value


def _embedding_budget(value: dict[str, Any]) -> dict[str, Any]:
    """``ConclusionCreate``'s model validator: tiktoken's ``encode`` of the content."""
    count = token_count(encodable(value)["content"])
    if count > EMBEDDING_TOKENS:
        raise ValueError(
            f"Content exceeds maximum embedding token limit of {EMBEDDING_TOKENS} "
            f"(got {count} tokens)"
        )
    return value


SCOPE_NAME_MAX_LENGTH = 512 - len(SCOPE_PREFIX)  # the name is stored behind the prefix


def _validate_scope_name(name: str) -> str:
    """An unprefixed scope name (3.1); pydantic labels a union branch by this function's name."""
    if not 1 <= len(name) <= SCOPE_NAME_MAX_LENGTH:
        raise ValueError(f"Scope name must be between 1 and {SCOPE_NAME_MAX_LENGTH} characters")
    if name.startswith(SCOPE_PREFIX):
        raise ValueError(
            f"Scope name must not start with the reserved prefix '{SCOPE_PREFIX}' "
            "(scope names are unprefixed)"
        )
    if not RESOURCE_NAME.fullmatch(name):
        raise ValueError(f"Scope name must match pattern {RESOURCE_NAME.pattern}")
    return name


def _scope_names(names: list[str] | None) -> list[str] | None:
    """``SessionCreate.scopes``' field validator: each name, the first bad one reported."""
    for name in names or ():
        _validate_scope_name(name)
    return names


Check = Callable[[Any], Any]
Choice = Callable[[RawBody], Check | None]
"""Picks a validator for what the body leaves possible (None: nothing to check)."""


def _always(check: Check) -> Choice:
    return lambda _raw: check


def _if_nul(check: Check) -> Choice:
    return lambda raw: check if raw.nul else None


def _if_special(check: Check) -> Choice:
    return lambda raw: check if raw.special else None


def _metadata(raw: RawBody) -> Check:
    return sanitized_metadata if raw.nul else _metadata_limits


def _metadata_limits(value: Any) -> Any:
    return sanitized_metadata(value, strip=False)


METADATA_SCHEMAS = (
    "WorkspaceCreate",
    "WorkspaceUpdate",
    "PeerCreate",
    "PeerUpdate",
    "SessionCreate",
    "SessionUpdate",
    "MessageCreate",
    "MessageUpdate",
    "ScopeCreate",
)
"""The request models whose ``metadata`` is Honcho's ``_SanitizedMetadata``."""

# Honcho's validators beyond the types: (schema, property) for a field validator,
# (schema, None) for a model validator (``mode="after"``).
VALIDATORS: dict[tuple[str, str | None], Choice] = {
    ("ReasoningConfiguration", "custom_instructions"): _always(_custom_instructions_budget),
    ("SummaryConfiguration", None): _always(_summary_thresholds),
    # Content: NULs stripped after the length check.
    ("ConclusionCreate", "content"): _if_nul(strip_nul),
    ("ConclusionCreate", None): _always(_embedding_budget),
    ("MessageCreate", "content"): _if_nul(strip_nul),
    ("MessageCreate", None): _if_special(encodable),
    **{(schema, "metadata"): _metadata for schema in METADATA_SCHEMAS},
    # Scopes (3.1): names checked after the type (and ScopeCreate's min_length).
    ("ScopeName", None): _always(_validate_scope_name),
    ("ScopeCreate", "id"): _always(_validate_scope_name),
    ("SessionCreate", "scopes"): _always(_scope_names),
}


def _checked(key: tuple[str, str | None], schema: CoreSchema, raw: RawBody) -> CoreSchema:
    """``schema``, followed by ``key``'s validator where the body leaves it work."""
    choose = VALIDATORS.get(key)
    check = None if choose is None else choose(raw)
    return schema if check is None else cs.no_info_after_validator_function(check, schema)


def field_names(schema: dict[str, Any], key: str) -> tuple[str, ...]:
    """The names a request may give property ``key`` of ``schema`` (a file's root)."""
    return ALIASES.get((schema.get("title", ""), key), (key,))


MODEL_TYPE_MESSAGE = "Input should be a valid dictionary or object to extract fields from"


class _TextLength:
    """A free-text field's length bounds, checked as ``str_schema(min_length=,
    max_length=)`` checks them, with the same errors.

    pydantic-core measures a constrained string through its UTF-8 form, which CPython
    then keeps on the string for as long as it lives: every stored message with a
    non-ASCII character would carry its content twice. ``len`` reads no such copy.
    """

    def __init__(self, least: int | None, most: int | None) -> None:
        self.least = least
        self.most = most

    def __call__(self, text: str) -> str:
        if not text.isascii():
            try:
                text.encode()
            except UnicodeEncodeError:  # a lone surrogate, as pydantic-core refuses it
                raise PydanticKnownError("string_unicode") from None
        if self.least is not None and len(text) < self.least:
            raise PydanticKnownError("string_too_short", {"min_length": self.least})
        if self.most is not None and len(text) > self.most:
            raise PydanticKnownError("string_too_long", {"max_length": self.most})
        return text


def _iso(moment: datetime) -> str:
    """Datetimes reach handlers as ISO text, the form they parse and store."""
    return moment.isoformat()


def _enum_value(member: enum.Enum) -> Any:
    return member.value


class RequestCompiler:
    """Compiles the schemas of request bodies (resolved by ``lookup``) into validators."""

    def __init__(self, lookup: Lookup, base_uri: str) -> None:
        """``lookup(base_uri, ref) -> (uri, schema)``; ``base_uri`` + ``Name.json`` names a file."""
        self._lookup = lookup
        self._base_uri = base_uri
        self._validators: dict[tuple[str, RawBody], SchemaValidator] = {}

    def validator(self, name: str, schema: Any, raw: RawBody = ANY_BODY) -> SchemaValidator:
        """The validator of the schema file ``name`` (``schema`` is its document), for a
        body whose bytes leave ``raw`` possible (at most four variants per schema)."""
        found = self._validators.get((name, raw))
        if found is None:
            found = SchemaValidator(self._file(name, schema, (), raw))
            self._validators[name, raw] = found
        return found

    def _file(self, name: str, schema: Any, seen: tuple[str, ...], raw: RawBody) -> CoreSchema:
        if name in seen:
            raise ValueError(f"request schemas may not refer to themselves: {(*seen, name)}")
        uri = self._base_uri + name + ".json"
        if "enum" in schema:
            # A component of its own is a Python Enum in Honcho (inline ones are Literals).
            members = enum.Enum(name, {str(v): v for v in schema["enum"]}, type=str)  # type: ignore[misc]
            return cs.no_info_after_validator_function(
                _enum_value, cs.enum_schema(members, list(members), sub_type="str")
            )
        return _checked((name, None), self._compile(schema, uri, name, (*seen, name), raw), raw)

    def _compile(
        self, schema: Any, base: str, owner: str, seen: tuple[str, ...], raw: RawBody
    ) -> CoreSchema:
        if schema is True or schema == {}:
            return cs.any_schema()
        if "$ref" in schema:
            uri, target = self._lookup(base, schema["$ref"])
            name = uri.removeprefix(self._base_uri).removesuffix(".json")
            return self._file(name, target, seen, raw)
        if "anyOf" in schema:
            branches = [b for b in schema["anyOf"] if b != {"type": "null"}]
            inner = [self._compile(b, base, owner, seen, raw) for b in branches]
            one = inner[0] if len(inner) == 1 else cs.union_schema(inner)  # type: ignore[arg-type]
            return cs.nullable_schema(one) if len(branches) < len(schema["anyOf"]) else one
        if "const" in schema:
            return cs.literal_schema([schema["const"]])
        if "enum" in schema:
            return cs.literal_schema(list(schema["enum"]))
        kind = schema.get("type")
        if kind == "string":
            if schema.get("format") == "date-time":
                return cs.no_info_after_validator_function(_iso, cs.datetime_schema())
            lengths = schema.get("minLength"), schema.get("maxLength")
            if "pattern" not in schema and lengths != (None, None):
                return cs.no_info_after_validator_function(_TextLength(*lengths), cs.str_schema())
            return cs.str_schema(
                min_length=lengths[0], max_length=lengths[1], pattern=schema.get("pattern")
            )
        if kind in ("integer", "number"):
            bounds = {
                "ge": schema.get("minimum"),
                "le": schema.get("maximum"),
                "gt": schema.get("exclusiveMinimum"),
                "lt": schema.get("exclusiveMaximum"),
            }
            if kind == "integer":
                return cs.int_schema(**bounds)
            return cs.float_schema(**bounds)
        if kind == "boolean":
            return cs.bool_schema()
        if kind == "null":
            return cs.none_schema()
        if kind == "array":
            return cs.list_schema(
                self._compile(schema.get("items", True), base, owner, seen, raw),
                min_length=schema.get("minItems"),
                max_length=schema.get("maxItems"),
            )
        if kind == "object":
            return self._object(schema, base, owner, seen, raw)
        raise ValueError(f"unsupported request schema in {owner}: {schema!r}")

    def _object(
        self, schema: dict[str, Any], base: str, owner: str, seen: tuple[str, ...], raw: RawBody
    ) -> CoreSchema:
        extra = schema.get("additionalProperties")
        if "properties" not in schema:
            # dict[str, X]
            values = None if extra in (None, True) else self._compile(extra, base, owner, seen, raw)
            return cs.dict_schema(cs.str_schema(), values)
        required = set(schema.get("required", ()))
        fields = {}
        for key, sub in schema["properties"].items():
            names = ALIASES.get((owner, key))  # the file name is the schema's title
            value = _checked((owner, key), self._compile(sub, base, owner, seen, raw), raw)
            fields[key] = cs.typed_dict_field(
                value,
                required=key in required,
                validation_alias=[[name] for name in names] if names else None,  # type: ignore[arg-type]
            )
        behaviour: ExtraBehavior = (
            "allow" if extra is True else "forbid" if extra is False else "ignore"
        )
        return cs.typed_dict_schema(fields, extra_behavior=behaviour)


def request_error(
    error: ValidationError, prefix: Loc, is_model: Callable[[Loc], bool]
) -> RequestValidationError:
    """The 422 FastAPI sends for ``error``: items under ``prefix``, ctx as JSON renders it.

    Objects are TypedDicts here but models in Honcho: a non-object where a model is
    expected is pydantic's ``model_attributes_type`` there, so ``is_model(loc)`` says
    which ``dict_type`` items to rename.
    """
    items: list[ValidationItem] = []
    for raw in error.errors(include_url=False):
        loc = tuple(raw["loc"])
        item: ValidationItem = {
            "type": raw["type"],
            "loc": [*prefix, *loc],
            "msg": raw["msg"],
            "input": raw["input"],
        }
        if raw["type"] == "dict_type" and is_model(loc):
            item.update(type="model_attributes_type", msg=MODEL_TYPE_MESSAGE)
        if "ctx" in raw:
            item["ctx"] = {k: _jsonable(v) for k, v in raw["ctx"].items()}
        items.append(item)
    return RequestValidationError(items)


def _jsonable(value: Any) -> Any:
    """What FastAPI's ``jsonable_encoder`` makes of a ctx value (exceptions become ``{}``)."""
    if isinstance(value, Exception):
        return {}
    return value


@cache
def scalar(kind: str, ge: float | None = None, le: float | None = None) -> SchemaValidator:
    """A validator for one query parameter: ``int``, ``float``, ``bool`` or ``datetime``,
    with bounds."""
    if kind == "int":
        return SchemaValidator(cs.int_schema(ge=ge, le=le))  # type: ignore[arg-type]
    if kind == "float":
        return SchemaValidator(cs.float_schema(ge=ge, le=le))
    if kind == "bool":
        return SchemaValidator(cs.bool_schema())
    if kind == "datetime":
        return SchemaValidator(cs.datetime_schema())
    raise ValueError(f"no query parameter kind {kind!r}")
