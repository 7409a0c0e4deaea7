"""The search handler shared by workspace, session and peer search."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from fake_honcho.errors import HonchoError
from fake_honcho.http.endpoint import fake_of, read_body, respond, strip_nul
from fake_honcho.http.render_memo import render_memo
from fake_honcho.http.wire import PublicRows
from fake_honcho.search import search_index, sortable_timestamp
from fake_honcho.search.semantic import query_refusal, reciprocal_rank_fusion
from fake_honcho.store import scopes
from fake_honcho.store.filters import MESSAGE, Predicate, compile_filter, dialect_for
from fake_honcho.store.grouping import PEER_SESSIONS, grouped
from fake_honcho.store.state import Row

RowTest = Callable[[Row], bool]

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
        filters = scopes.search_filters(fake, ws, body["scope"], filters)
        if filters is None:  # a scope without sessions matches nothing
            return respond(request, [], schema="Message", many=True)
    where, visible = _tests(fake, ws, scope, filters) if filters else (None, None)
    query = strip_nul(body["query"])
    limit = body.get("limit", 10)
    embeddings = fake.embeddings
    if embeddings is not None:  # the query is embedded first: its refusal comes first
        refused = query_refusal(query)
        if refused is not None:
            raise HonchoError(422, refused)
    rows = search_index(fake.store).search(
        ws,
        query,
        where=_both(where, visible),
        limit=limit,
        session_id=scope.get("session_id"),
        peer_id=scope.get("peer_id"),
        keep=None if embeddings is None else 2 * limit,
    )
    if embeddings is not None:
        semantic = embeddings.nearest(
            ws,
            query,
            limit=(4 if visible else 2) * limit,
            session_id=scope.get("session_id"),
            peer_id=scope.get("peer_id"),
            where=where,
        )
        if visible is not None:
            semantic = list(filter(visible, semantic))
        rows = _fuse(semantic, rows, limit)
    return respond(
        request, PublicRows(rows, memo=render_memo(fake.store)), schema="Message", many=True
    )


def _fuse(semantic: list[Row], fulltext: list[Row], limit: int) -> list[Row]:
    """Both lists fused by reciprocal rank, as the server fuses its message objects."""
    by_id = {row["id"]: row for row in (*fulltext, *semantic)}
    ids = reciprocal_rank_fusion(
        [row["id"] for row in semantic], [row["id"] for row in fulltext], limit=limit
    )
    return [by_id[mid] for mid in ids]


def _both(where: RowTest | None, visible: RowTest | None) -> RowTest | None:
    if where is None or visible is None:
        return where or visible
    return lambda row: visible(row) and where(row)


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
    visible = None if perspective is None else _with_perspective(fake, ws, str(perspective))
    return where, visible


def _known_true(predicate: Predicate) -> RowTest:
    return lambda row: predicate(row) is True


def _with_perspective(fake: Server, ws: str, peer: str) -> RowTest:
    """``peer_perspective``: messages of sessions the peer was in, while it was in them."""
    windows = {
        sid: (row["joined_at"], row["left_at"])
        for sid, row in grouped(fake.store, PEER_SESSIONS, ws, peer).items()
    }

    def visible(row: Row) -> bool:
        window = windows.get(row["session_id"])
        if window is None:
            return False
        joined, left = window
        stamp = row["created_at"]
        return sortable_timestamp(stamp) >= sortable_timestamp(joined) and (
            left is None or sortable_timestamp(stamp) <= sortable_timestamp(left)
        )

    return visible
