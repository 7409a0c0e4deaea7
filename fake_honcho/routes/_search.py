"""The search handler shared by workspace, session and peer search."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from fake_honcho.errors import HonchoError, real_bug
from fake_honcho.http.endpoint import fake_of, read_body, respond_messages, strip_nul
from fake_honcho.search.hybrid import search_messages
from fake_honcho.store import scopes
from fake_honcho.store.filters import dialect_for


async def run_search(
    request: Request,
    scope: dict[str, str],
    schema: str = "MessageSearchOptions",
    successor: str | None = None,
) -> Response:
    """Shared by workspace, session and peer search: ``scope`` keys (the route's session
    or peer) override ``filters``.

    A body's ``scope`` (3.1 workspace search) confines the search to that scope's sessions.
    """
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    body = await read_body(request, schema, successor=successor)
    filters, confined = body.get("filters"), body.get("scope")
    if confined is not None:
        if "\x00" in str(confined):  # the scope's name reaches PostgreSQL's text
            refused = HonchoError(422, "Peer name(s) must not contain NUL (0x00) bytes")
            raise real_bug(fake, "real-nul-lookup-500", refused)
        filters = scopes.search_filters(fake, ws, confined, filters)
    rows = (
        []  # a scope without sessions matches nothing
        if confined is not None and filters is None
        else search_messages(
            fake.store,
            fake.embeddings,
            ws,
            strip_nul(body["query"]),
            limit=body.get("limit", 10),
            scope=scope,
            filters=filters,
            dialect=dialect_for(fake.version, fake.real_bugs),
        )
    )
    return respond_messages(request, rows)
