"""What every route handler needs: read the body and query as FastAPI would, answer JSON.

Handlers stay small: ``body = await read_body(request, "PeerCreate")`` gives a parsed,
schema-checked body or raises the exact 422 Honcho sends; ``respond(request, row,
schema="Peer")`` renders a row and, when the fake is strict, checks it against the
response schema first.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic_core import SchemaValidator, ValidationError
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from fake_honcho.errors import (
    HonchoError,
    Loc,
    RequestValidationError,
    UnhandledError,
    missing_body,
)
from fake_honcho.http.http_rules import (
    BODY_SCOPE_KEY,
    JSON_SCOPE_KEY,
    decode_json,
    header,
    is_json,
)
from fake_honcho.http.ignored import check_body
from fake_honcho.http.render_memo import render_memo
from fake_honcho.http.request_models import RawBody, request_error, scalar
from fake_honcho.http.schemas import later_fields
from fake_honcho.http.wire import JSONBody, PublicRows, plain
from fake_honcho.http.wire import public as public
from fake_honcho.store.jsonb import unstorable, unstorable_detail
from fake_honcho.store.sanitize import strip_nul as strip_nul  # for handlers
from fake_honcho.store.state import Row

if TYPE_CHECKING:
    from fake_honcho.http.protocol import Server

logger = logging.getLogger("fake_honcho.http")


def fake_of(request: Request) -> Server:
    fake: Server = request.scope["app"].fake  # fake_honcho.http.app.HonchoApp
    return fake


def session_path(request: Request) -> tuple[str, str]:
    """The workspace and session ids of a session route's path."""
    return request.path_params["workspace_id"], request.path_params["session_id"]


async def read_json(request: Request, *, required: bool = True) -> Any:
    """The JSON body; ``None`` for an absent body when it is optional (list routes).

    A body sent without a JSON content type is not parsed
    (:func:`fake_honcho.http.http_rules.is_json`): it comes back as :class:`NotJSON`, for
    the model to refuse as FastAPI's does.
    """
    scope = request.scope
    value = scope.pop(UNREAD_JSON_SCOPE_KEY, _UNREAD)
    if value is not _UNREAD:  # decoded by check_request, not yet handed out
        return value
    raw = await body_bytes(request)
    if not raw:
        if required:
            raise missing_body()
        return None
    if not sends_json(request):
        return NotJSON(raw)
    return decoded(scope, raw)


def decoded(scope: Scope, raw: bytes) -> Any:
    """The JSON body ``raw`` (sent as JSON) decoded, or FastAPI's 400 or 422 for it."""
    value = scope[JSON_SCOPE_KEY] = decode_json(raw)  # the journal keeps long strings by reference
    return value


def content_type(request: Request) -> str | None:
    """The ``Content-Type`` header, as ``request.headers.get`` gives it, read from the
    scope without building the headers object."""
    value = header(request.scope, b"content-type")
    return None if value is None else value.decode("latin-1")


def sends_json(request: Request) -> bool:
    """Whether the request's body is read as JSON (:func:`~fake_honcho.http.http_rules.is_json`)."""
    return is_json(content_type(request))


UNREAD_JSON_SCOPE_KEY = "fake_honcho.unread_json"
"""The body :func:`fake_honcho.http.parameters.check_request` decoded, left for the
handler's first :func:`read_json` (a batch's body is then parsed once, not twice)."""
_UNREAD = object()


class NotJSON(bytes):
    """A body FastAPI hands its model as raw bytes (not sent as JSON)."""

    def text(self, fake: Server) -> str:
        """The bytes as the 422's ``input`` shows them (FastAPI's encoder decodes them)."""
        try:
            return self.decode()
        except UnicodeDecodeError:
            # jsonable_encoder fails on them, so the 422 becomes the global handler's 500
            if fake.real_bugs == "reproduce":
                raise UnhandledError("real-undecodable-text-body-500") from None
            return self.decode(errors="replace")


async def body_bytes(request: Request) -> bytes:
    """The raw request body, buffered once (by the journal, when it is there)."""
    raw = request.scope.get(BODY_SCOPE_KEY)
    return await request.body() if raw is None else raw


async def read_body(
    request: Request, schema: str, *, required: bool = True, successor: str | None = None
) -> Any:
    """The JSON body as Honcho's model ``schema`` reads it (unless validation is off).

    Values are coerced as pydantic's lax mode does (``"2"`` for an integer is 2) and
    only the fields the client sent are kept; aliases such as ``name`` for ``id``
    arrive under the schema's name (``fake_honcho.http.request_models``). Fields a later
    version reads (as ``successor``, when it names the body another component) and this
    one drops go to the ignored-field guard (``fake_honcho.http.ignored``).
    """
    body = await read_json(request, required=required)
    if isinstance(body, NotJSON):
        # FastAPI validates the bytes themselves: a model, map or list refuses them with one
        # item at loc ["body"], the text as its input
        fake = fake_of(request)
        try:
            return fake.schemas.check_request(schema, body.text(fake))
        except RequestValidationError:
            _explain_not_json(request)
            raise
    if body is None:
        # FastAPI reads a JSON `null` body as no body at all.
        if required:
            raise missing_body()
        return None
    fake = fake_of(request)
    if fake.validate:
        raw = RawBody.of(await body_bytes(request))
        checked = fake.schemas.check_request(schema, body, raw=raw)
        dropped = later_fields(fake.version, schema, successor)
        check_body(request, fake, body, dropped)
        if fake.real_bugs == "correct":
            refuse_unstorable(checked)
        return checked
    return body


STORED_AS_JSON = ("metadata", "configuration")


def refuse_unstorable(body: Any) -> None:
    """The corrected answer to a body whose metadata or configuration (its own, or a
    message's) holds what the server's JSON columns refuse (divergence
    real-unstorable-json-500): a 422 before anything is written."""
    if not isinstance(body, dict):
        return
    messages = body.get("messages")
    for item in [body, *(messages if isinstance(messages, list) else ())]:
        for field in STORED_AS_JSON:
            if isinstance(item, dict) and unstorable(item.get(field)):
                raise HonchoError(422, unstorable_detail(field))


def _explain_not_json(request: Request) -> None:
    """Why a real server's 422 refused the body, for the served fake's log (info: the
    answer itself stays the server's, and an in-process fake says nothing)."""
    sent = content_type(request)
    logger.info(
        "%s %s: 422 because the body was not read as JSON (%s); send the header "
        "Content-Type: application/json",
        request.method,
        request.url.path,
        f"it came as Content-Type: {sent}" if sent else "it came without a Content-Type",
    )


QUERY_SCOPE_KEY = "fake_honcho.query"


def query_str(request: Request, name: str) -> str | None:
    """The last value of query parameter ``name``, as ``request.query_params`` gives it."""
    scope = request.scope
    params = scope.get(QUERY_SCOPE_KEY)
    if params is None:
        params = scope[QUERY_SCOPE_KEY] = _parse_query(scope.get("query_string", b""))
    return params.get(name)


def _parse_query(raw: bytes) -> Mapping[str, str]:
    """What Starlette's ``QueryParams`` holds, split by hand when nothing needs unquoting.

    ``QueryParams`` runs ``parse_qsl`` (about 15 µs for ``page=2&size=50``); for an
    ASCII query without ``%`` or ``+`` it only splits pairs, keeping blank values and
    the last of repeated names, which this does directly.
    """
    if b"%" in raw or b"+" in raw or not raw.isascii():
        return QueryParams(raw.decode("latin-1"))
    params: dict[str, str] = {}
    for pair in raw.decode("ascii").split("&"):
        if pair:
            name, _, value = pair.partition("=")
            params[name] = value
    return params


def query_int(
    request: Request,
    name: str,
    default: int | None,
    *,
    ge: int | None = None,
    le: int | None = None,
) -> int | None:
    """An integer query parameter, parsed and refused as FastAPI does."""
    raw = query_str(request, name)
    return default if raw is None else _query(name, raw, scalar("int", ge, le))


def query_float(
    request: Request, name: str, *, ge: float | None = None, le: float | None = None
) -> float | None:
    """An optional float query parameter, parsed and refused as FastAPI does."""
    raw = query_str(request, name)
    return None if raw is None else _query(name, raw, scalar("float", ge, le))


def query_bool(request: Request, name: str, default: bool) -> bool:
    """A boolean query parameter with pydantic's spellings (``yes``, ``off``, ``1`` ...)."""
    raw = query_str(request, name)
    return default if raw is None else _query(name, raw, scalar("bool"))


def query_datetime(request: Request, name: str) -> datetime | None:
    """An optional datetime query parameter, parsed and refused as FastAPI does."""
    raw = query_str(request, name)
    return None if raw is None else _query(name, raw, scalar("datetime"))


def _query(name: str, raw: str, validator: SchemaValidator) -> Any:
    try:
        return validator.validate_python(raw)
    except ValidationError as error:
        raise request_error(error, ("query", name), _no_models) from None


def _no_models(_: Loc) -> bool:
    return False


def respond(
    request: Request,
    payload: Any,
    *,
    status: int = 200,
    schema: str | None = None,
    many: bool = False,
) -> Response:
    """``payload`` as JSON; checked against ``schema`` first when the fake is strict.

    ``payload`` may hold stored rows as :class:`fake_honcho.http.wire.PublicRows`.
    """
    if schema is not None:
        fake = fake_of(request)
        if fake.strict:
            fake.schemas.check_response(schema, plain(payload), many=many)
    return JSONBody(payload, status_code=status)


def respond_messages(request: Request, rows: list[Row], *, status: int = 200) -> Response:
    """Stored messages as a JSON array (written, or found by a search), their JSON kept
    for the reads that follow (:mod:`fake_honcho.http.render_memo`)."""
    memo = render_memo(fake_of(request).store)
    return respond(request, PublicRows(rows, memo=memo), status=status, schema="Message", many=True)


def no_content() -> Response:
    """204 as FastAPI sends it: no body, but the route's JSON content type."""
    return Response(status_code=204, media_type="application/json")
