"""The search handler shared by workspace, session and peer search."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from fake_honcho import scopes
from fake_honcho.endpoint import fake_of, read_body, respond, strip_nul
from fake_honcho.filters import MESSAGE, Predicate, compile_filter, dialect_for
from fake_honcho.grouping import PEER_SESSIONS, grouped
from fake_honcho.render_memo import render_memo
from fake_honcho.search import search_index, sortable_timestamp
from fake_honcho.state import Row
from fake_honcho.wire import PublicRows

if TYPE_CHECKING:
    from fake_honcho.fake import FakeHoncho


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
    predicate = _predicate(fake, ws, scope, filters) if filters else None
    query = strip_nul(body["query"])
    rows = search_index(fake.store).search(
        ws,
        query,
        where=predicate,
        limit=body.get("limit", 10),
        session_id=scope.get("session_id"),
        peer_id=scope.get("peer_id"),
    )
    return respond(
        request, PublicRows(rows, memo=render_memo(fake.store)), schema="Message", many=True
    )


def _predicate(
    fake: FakeHoncho, ws: str, scope: dict[str, str], given: dict[str, Any]
) -> Callable[[Row], bool] | None:
    """The test the body's ``filters`` put on each hit, if any (the index applies the
    route's own scope; ``scope`` keys override the filters')."""
    filters = dict(given)
    perspective = filters.pop("peer_perspective", None)
    filters.update({"workspace_id": ws, **scope})
    predicate = (
        compile_filter(filters, MESSAGE, dialect_for(fake.version))
        if filters.keys() - {"workspace_id", *scope}
        else None
    )
    if perspective is not None:
        return _with_perspective(fake, ws, str(perspective), predicate)
    return None if predicate is None else (lambda row: predicate(row) is True)


def _with_perspective(
    fake: FakeHoncho, ws: str, peer: str, predicate: Predicate | None
) -> Callable[[Row], bool]:
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

    if predicate is None:
        return visible
    return lambda row: visible(row) and predicate(row) is True
