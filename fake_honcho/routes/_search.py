"""The search handler shared by workspace, session and peer search."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from fake_honcho.errors import HonchoError, real_bug
from fake_honcho.http.endpoint import fake_of, read_body, respond, strip_nul
from fake_honcho.http.render_memo import render_memo
from fake_honcho.http.wire import PublicRows
from fake_honcho.search.hybrid import RowTest, search_messages, seen_by
from fake_honcho.store import scopes
from fake_honcho.store.filters import MESSAGE, Predicate, compile_filter, dialect_for

if TYPE_CHECKING:
    from fake_honcho.http.protocol import Server


async def run_search(
    request: Request,
    scope: dict[str, str],
    schema: str = "MessageSearchOptions",
    successor: str | None = None,
) -> Response:
    """Shared by workspace, session and peer search: ``scope`` keys override ``filters``.

    A body's ``scope`` (3.1 workspace search) confines the search to that scope's sessions.
    """
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    body = await read_body(request, schema, successor=successor)
    filters = body.get("filters")
    if body.get("scope") is not None:
        if "\x00" in str(body["scope"]):  # the scope's name reaches PostgreSQL's text
            refused = HonchoError(422, "Peer name(s) must not contain NUL (0x00) bytes")
            raise real_bug(fake, "real-nul-lookup-500", refused)
        filters = scopes.search_filters(fake, ws, body["scope"], filters)
        if filters is None:  # a scope without sessions matches nothing
            return respond(request, [], schema="Message", many=True)
    where, visible = _tests(fake, ws, scope, filters) if filters else (None, None)
    rows = search_messages(
        fake.store,
        fake.embeddings,
        ws,
        strip_nul(body["query"]),
        limit=body.get("limit", 10),
        session_id=scope.get("session_id"),
        peer_id=scope.get("peer_id"),
        where=where,
        visible=visible,
    )
    return respond(
        request, PublicRows(rows, memo=render_memo(fake.store)), schema="Message", many=True
    )


def _tests(
    fake: Server, ws: str, scope: dict[str, str], given: dict[str, Any]
) -> tuple[RowTest | None, RowTest | None]:
    """The tests the body's ``filters`` put on each hit: the filters proper, and
    ``peer_perspective``'s (the index applies the route's own scope; ``scope`` keys
    override the filters')."""
    filters = dict(given)
    perspective = filters.pop("peer_perspective", None)
    filters.update({"workspace_id": ws, **scope})
    predicate = (
        compile_filter(filters, MESSAGE, dialect_for(fake.version, fake.real_bugs))
        if filters.keys() - {"workspace_id", *scope}
        else None
    )
    where = None if predicate is None else _known_true(predicate)
    visible = None if perspective is None else seen_by(fake.store, ws, str(perspective))
    return where, visible


def _known_true(predicate: Predicate) -> RowTest:
    return lambda row: predicate(row) is True
