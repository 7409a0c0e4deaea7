"""Messages: batch create (1..100), file upload, list, get, update metadata.

Creating messages cascades like Honcho: workspace, session and author peers are
created and authors join the session. Rows are lean (see ``docs/architecture.md``)
and the deriver hears about them under the store lock.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from fake_honcho.errors import (
    HonchoError,
    RequestValidationError,
    invalid,
    real_bug,
    validation_item,
    value_error,
)
from fake_honcho.http.endpoint import (
    fake_of,
    public,
    read_body,
    respond,
    respond_messages,
    session_path,
)
from fake_honcho.http.operations import FORM, PAGED_NULLABLE_REVERSE, Answer, Body, api_route
from fake_honcho.http.pagination import page_of, page_params
from fake_honcho.http.permissions import OWN_SESSION, SESSION_READ, guarded
from fake_honcho.http.render_memo import render_memo
from fake_honcho.http.request_models import encodable
from fake_honcho.http.schemas import SchemaSet
from fake_honcho.store.filters import MESSAGE, compile_filter, dialect_for
from fake_honcho.store.ids import isoformat
from fake_honcho.store.message_index import message_index
from fake_honcho.store.messages import store_messages
from fake_honcho.store.resources import (
    clean_configuration,
)
from fake_honcho.store.sanitize import sanitized_metadata, strip_nul
from fake_honcho.store.state import NO_METADATA, Row
from fake_honcho.store.uploads import MAX_FILE_SIZE, extract_text, split_text

if TYPE_CHECKING:
    from fake_honcho.http.protocol import Server

S = "/v3/workspaces/{workspace_id}/sessions/{session_id}"
_DATETIME = TypeAdapter(datetime)


async def create(request: Request) -> Response:
    """201 with the stored messages in request order."""
    fake = fake_of(request)
    ws, sid = session_path(request)
    # The model's validators have stripped NULs and refused special tokens.
    body = await read_body(request, "MessageBatchCreate")
    drafts = [_draft(item, ("body", "messages", i)) for i, item in enumerate(body["messages"])]
    rows = store_messages(fake, ws, sid, drafts, fake.deriver.on_messages_created)
    return respond_messages(request, rows, status=201)


def _draft(item: dict[str, Any], loc: tuple[Any, ...]) -> dict[str, Any]:
    """What :func:`store_messages` writes of a validated message."""
    created_at = item.get("created_at")
    return {
        "content": item["content"],
        "peer_id": item["peer_id"],
        "metadata": item.get("metadata") or NO_METADATA,
        "created_at": _timestamp(created_at, (*loc, "created_at")) if created_at else None,
        "configuration": clean_configuration(item.get("configuration")) or None,
    }


def _timestamp(text: str, loc: tuple[Any, ...]) -> str:
    """A client ``created_at`` parsed by pydantic as the server's model does; answered as
    UTC with ``Z`` (a naive time is taken as UTC)."""
    try:
        moment = _DATETIME.validate_python(text)
    except ValidationError as error:
        item = error.errors(include_url=False)[0]
        raise invalid(item["type"], loc, item["msg"], text, item.get("ctx")) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return isoformat(moment)


async def upload(request: Request) -> Response:
    """A text or JSON file becomes messages of at most 25,000 characters each."""
    fake = fake_of(request)
    ws, sid = session_path(request)
    async with request.form() as form:
        # FastAPI takes an empty form field for a missing one
        upload_file = form.get("file") or None
        peer_id = form.get("peer_id") or None
        # The form's fields in the route's order; a text field named file is no file.
        items = [
            validation_item("missing", ("body", name), "Field required", None)
            for name, value in (("peer_id", peer_id), ("file", upload_file))
            if value is None
        ]
        if isinstance(upload_file, str):
            message = f"Expected UploadFile, received: {type(upload_file)}"
            items.append(value_error(("body", "file"), message, upload_file).items[0])
        if items:
            raise RequestValidationError(items)
        assert isinstance(upload_file, UploadFile) and isinstance(peer_id, str)
        data = await upload_file.read()
        content_type = upload_file.content_type or ""
        extra = {name: form.get(name) for name in ("metadata", "configuration", "created_at")}
    # the form is read by a dependency, which runs before the route looks at the file
    fields = _form_fields(fake, extra)
    if len(data) > MAX_FILE_SIZE:
        raise HonchoError(
            413,
            f"File size ({len(data)} bytes) exceeds maximum allowed size ({MAX_FILE_SIZE} bytes)",
        )
    text = extract_text(data, content_type)
    item: dict[str, Any] = {"peer_id": peer_id, **fields}
    # Not a model body: the models' validators run one by one, each refusal a 422.
    item["metadata"] = _validated(sanitized_metadata, item.get("metadata"), ("body", "metadata"))
    drafts = [
        _draft(_validated(encodable, {**item, "content": strip_nul(chunk)}, ("body",)), ("body",))
        for chunk in split_text(text)
    ]
    rows = store_messages(fake, ws, sid, drafts, fake.deriver.on_messages_created)
    return respond_messages(request, rows, status=201)


def _form_fields(fake: Server, form: dict[str, Any]) -> dict[str, Any]:
    """The upload form's ``metadata``, ``configuration`` and ``created_at``, read as the
    server reads them: text that does not parse (JSON, or an ISO 8601 time) is ignored.

    What parses but is not an object, or holds NaN or an infinity, is a 500 on the
    server, which builds the model outside request validation (divergence
    real-upload-form-500, reproduced); corrected, it is refused as the field's type
    refuses it.
    """
    try:
        return _read_form_fields(fake.schemas, form)
    except RequestValidationError as corrected:
        raise real_bug(fake, "real-upload-form-500", corrected) from None


def _read_form_fields(schemas: SchemaSet, form: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name in ("metadata", "configuration"):
        raw = form[name]
        if not isinstance(raw, str) or not raw:
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            continue
        loc = ("body", name)
        if not _finite(value):
            raise invalid("finite_number", loc, "Input should be a finite number", raw)
        if name == "configuration" and value is not None:
            value = schemas.check_request("MessageConfiguration", value, loc=loc)
        elif value is not None and not isinstance(value, dict):
            raise invalid("dict_type", loc, "Input should be a valid dictionary", value)
        fields[name] = value
    created_at = form["created_at"]
    moment = _iso_time(created_at) if isinstance(created_at, str) and created_at else None
    if moment is not None:
        fields["created_at"] = moment
    return fields


def _finite(value: Any) -> bool:
    """Whether no float in ``value`` is NaN or infinite (``json.loads`` reads them)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    return True


def _iso_time(text: str) -> str | None:
    """``text`` as the server's ``datetime.fromisoformat`` reads it (``Z`` as ``+00:00``,
    a naive time as UTC), or None when it does not."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return isoformat(moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC))


def _validated(check: Callable[[Any], Any], value: Any, loc: tuple[Any, ...]) -> Any:
    """``check(value)``, a model validator's ``ValueError`` answered as pydantic's item."""
    try:
        return check(value)
    except ValueError as error:
        raise value_error(loc, str(error), value) from None


async def list_messages(request: Request) -> Response:
    """Insertion order; an unknown session is an empty page, not a 404."""
    fake = fake_of(request)
    ws, sid = session_path(request)
    params = page_params(request)
    body = await read_body(request, "MessageGet", required=False) or {}
    predicate = compile_filter(
        body.get("filters"), MESSAGE, dialect_for(fake.version, fake.real_bugs)
    )
    index, memo = message_index(fake.store), render_memo(fake.store)

    def fetch(window: list[str]) -> list[Row]:
        rows = fake.store.get_many("messages", window)
        return rows if None not in rows else [row or {} for row in rows]  # type: ignore[return-value]

    with fake.store.lock:
        ids = index.session_ids(ws, sid)
        if predicate is None:
            page = page_of(ids, params, fetch=fetch, memo=memo)
        else:
            matching = [row for row in index.rows(ids) if predicate(row)]
            page = page_of(matching, params, memo=memo)
    return respond(request, page, schema="Page_Message_")


def _message(fake: Server, ws: str, sid: str, mid: str) -> Row | None:
    row = fake.store.get("messages", mid)
    if row is None or row["workspace_id"] != ws or row["session_id"] != sid:
        return None
    return row


async def get(request: Request) -> Response:
    fake = fake_of(request)
    ws, sid = session_path(request)
    mid = request.path_params["message_id"]
    with fake.store.lock:
        row = _message(fake, ws, sid, mid)
        if row is None:
            raise HonchoError(404, f"Message with ID {mid} not found")
    return respond(request, public(row), schema="Message")


async def update(request: Request) -> Response:
    """Only metadata changes; it is overwritten."""
    fake = fake_of(request)
    ws, sid = session_path(request)
    mid = request.path_params["message_id"]
    body = await read_body(request, "MessageUpdate")
    metadata = body.get("metadata")
    with fake.store.lock:
        row = _message(fake, ws, sid, mid)
        if row is None:
            raise HonchoError(404, "Message not found")
        if metadata is not None:
            row = {**row, "metadata": metadata}
            fake.store.put("messages", mid, row)
    return respond(request, public(row), schema="Message")


routes = [
    api_route(OWN_SESSION, "POST", S + "/messages", create,
        "create_messages_for_session", "messages",
        "Adds up to 100 messages to the session, creating the session and their "
        "authors if needed.",
        Answer(201, "Message", many=True), Body("MessageBatchCreate")),
    # The pre-2.6.0 spelling Honcho still answers, left out of its document.
    guarded(OWN_SESSION,
            Route(S + "/messages/", create, methods=["POST"], include_in_schema=False)),
    api_route(OWN_SESSION, "POST", S + "/messages/upload", upload,
        "create_messages_with_file", "messages",
        "Adds a text, Markdown or JSON file to the session as messages, split into "
        "chunks that fit one message each.",
        Answer(201, "Message", many=True), Body("MessageUploadForm", media=FORM)),
    api_route(SESSION_READ, "POST", S + "/messages/list", list_messages,
        "get_messages", "messages",
        "One page of the session's messages, oldest first, optionally filtered.",
        Answer(200, "Page_Message_"), Body("MessageGet", optional=True),
        *PAGED_NULLABLE_REVERSE),
    api_route(SESSION_READ, "GET", S + "/messages/{message_id}", get,
        "get_message", "messages",
        "One message of the session.",
        Answer(200, "Message")),
    api_route(OWN_SESSION, "PUT", S + "/messages/{message_id}", update,
        "update_message", "messages",
        "Replaces the message's metadata.",
        Answer(200, "Message"), Body("MessageUpdate")),
]  # fmt: skip
