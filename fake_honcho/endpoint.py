"""What every route handler needs: read the body and query as FastAPI would, answer JSON.

Handlers stay small: ``body = await read_body(request, "PeerCreate")`` gives a parsed,
schema-checked body or raises the exact 422 Honcho sends; ``respond(request, row,
schema="Peer")`` renders a row and, when the fake is strict, checks it against the
response schema first.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response

from fake_honcho.errors import Loc, invalid, json_invalid, missing_body, value_error
from fake_honcho.journal import BODY_SCOPE_KEY, JSON_SCOPE_KEY
from fake_honcho.schemas import default_schemas
from fake_honcho.wire import JSONBody, plain
from fake_honcho.wire import public as public

if TYPE_CHECKING:
    from fake_honcho.fake import FakeHoncho

METADATA_MAX_KEYS = 100
METADATA_MAX_DEPTH = 5

Number = TypeVar("Number", int, float)

_TRUE = {"1", "on", "t", "true", "y", "yes"}
_FALSE = {"0", "off", "f", "false", "n", "no"}


def fake_of(request: Request) -> FakeHoncho:
    fake: FakeHoncho = request.scope["app"].fake  # fake_honcho.app.HonchoApp
    return fake


async def read_json(request: Request, *, required: bool = True) -> Any:
    """The JSON body; ``None`` for an absent body when it is optional (list routes)."""
    raw = request.scope.get(BODY_SCOPE_KEY)  # buffered by the journal, when it is there
    if raw is None:
        raw = await request.body()
    if not raw:
        if required:
            raise missing_body()
        return None
    try:
        if raw.isascii() and b"\x00" not in raw[:4]:
            # What json.loads(raw) would detect and decode, minus its detection.
            value = json.loads(raw.decode("ascii"))
        else:
            value = json.loads(raw)
    except json.JSONDecodeError as error:
        raise json_invalid(error) from None
    except UnicodeDecodeError:
        raise invalid(
            "json_invalid", ("body", 0), "JSON decode error", {}, {"error": "Invalid UTF-8"}
        ) from None
    request.scope[JSON_SCOPE_KEY] = value  # the journal keeps long strings by reference
    return value


async def read_body(
    request: Request, schema: str, *, required: bool = True, id_alias: str | None = None
) -> Any:
    """The JSON body checked against ``schemas/<schema>.json`` (unless validation is off).

    ``id_alias`` names a field accepted in place of ``id`` (pydantic's
    ``populate_by_name``: ``{"name": "ws"}`` creates workspace ``ws``).
    """
    body = await read_json(request, required=required)
    if body is None:
        # FastAPI reads a JSON `null` body as no body at all.
        if required:
            raise missing_body()
        return None
    if id_alias and isinstance(body, dict) and "id" not in body and id_alias in body:
        body = {**body, "id": body[id_alias]}
    if fake_of(request).validate:
        default_schemas().check_request(schema, body)
    return _lax_integers(schema, body)


def _lax_integers(schema: str, body: Any) -> Any:
    """Whole-number floats in integer fields become ints, as pydantic's lax mode does.

    JSON Schema already accepts ``5.0`` as an integer; handlers then get a real ``int``
    (``{"max_conclusions": 5.0}`` slices like ``5``). Free-form fields such as
    metadata are left exactly as sent.
    """
    if not isinstance(body, dict):
        return body
    fields = default_schemas().integer_fields(schema)
    if not fields:
        return body
    coerced = {
        key: int(value)
        for key, value in body.items()
        if key in fields and isinstance(value, float) and value.is_integer()
    }
    return {**body, **coerced} if coerced else body


def check_metadata(value: Any, loc: Loc) -> Any:
    """Honcho's metadata rules (100 top-level keys, depth 5); returns it NUL-stripped."""
    if not isinstance(value, dict):
        return value
    if len(value) > METADATA_MAX_KEYS:
        raise value_error(
            loc, f"Metadata exceeds maximum of {METADATA_MAX_KEYS} top-level keys", value
        )
    if _depth(value) > METADATA_MAX_DEPTH:
        raise value_error(
            loc, f"Metadata nesting exceeds maximum depth of {METADATA_MAX_DEPTH}", value
        )
    return strip_nul(value)


def _depth(value: dict[str, Any]) -> int:
    nested = [_depth(child) for child in value.values() if isinstance(child, dict)]
    return 1 + max(nested, default=0)


def strip_nul(value: Any) -> Any:
    """Remove NUL characters from every string inside ``value`` (as Honcho does)."""
    if isinstance(value, str):
        return value.replace("\x00", "") if "\x00" in value else value
    if isinstance(value, dict):
        return {strip_nul(key): strip_nul(child) for key, child in value.items()}
    if isinstance(value, list):
        return [strip_nul(child) for child in value]
    return value


def query_str(request: Request, name: str) -> str | None:
    return request.query_params.get(name)


def query_int(
    request: Request,
    name: str,
    default: int | None,
    *,
    ge: int | None = None,
    le: int | None = None,
) -> int | None:
    """An integer query parameter with FastAPI's 422 items on bad values."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise invalid(
            "int_parsing",
            ("query", name),
            "Input should be a valid integer, unable to parse string as an integer",
            raw,
        ) from None
    return _bounded(name, raw, value, ge, le)


def query_float(
    request: Request, name: str, *, ge: float | None = None, le: float | None = None
) -> float | None:
    """An optional float query parameter with FastAPI's 422 items on bad values."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        raise invalid(
            "float_parsing",
            ("query", name),
            "Input should be a valid number, unable to parse string as a number",
            raw,
        ) from None
    return _bounded(name, raw, value, ge, le)


def _bounded(name: str, raw: str, value: Number, ge: Number | None, le: Number | None) -> Number:
    """``value`` if it lies within ``ge``..``le``, else FastAPI's 422 for the bound it breaks."""
    if ge is not None and value < ge:
        raise invalid(
            "greater_than_equal",
            ("query", name),
            f"Input should be greater than or equal to {ge}",
            raw,
            {"ge": ge},
        )
    if le is not None and value > le:
        raise invalid(
            "less_than_equal",
            ("query", name),
            f"Input should be less than or equal to {le}",
            raw,
            {"le": le},
        )
    return value


def query_bool(request: Request, name: str, default: bool) -> bool:
    """A boolean query parameter parsed with pydantic's accepted spellings."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise invalid(
        "bool_parsing",
        ("query", name),
        "Input should be a valid boolean, unable to interpret input",
        raw,
    )


def respond(
    request: Request,
    payload: Any,
    *,
    status: int = 200,
    schema: str | None = None,
    many: bool = False,
) -> Response:
    """``payload`` as JSON; checked against ``schema`` first when the fake is strict.

    ``payload`` may hold stored rows as :class:`fake_honcho.wire.PublicRows`.
    """
    if schema is not None and fake_of(request).strict:
        default_schemas().check_response(schema, plain(payload), many=many)
    return JSONBody(payload, status_code=status)


def no_content() -> Response:
    """204 as FastAPI sends it: no body, but the route's JSON content type."""
    return Response(status_code=204, media_type="application/json")
