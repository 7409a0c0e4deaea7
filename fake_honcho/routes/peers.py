"""Peers: get-or-create (replacing metadata/configuration), list, update, sessions, search."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from fake_honcho.errors import HonchoError
from fake_honcho.http.access import require_own
from fake_honcho.http.endpoint import fake_of, public, read_body, respond
from fake_honcho.http.operations import PAGED, Answer, Body, api_route
from fake_honcho.http.pagination import page_of, page_params
from fake_honcho.http.permissions import BY_BODY, IN_WORKSPACE, OWN_PEER, Check
from fake_honcho.routes._search import run_search
from fake_honcho.store.filters import PEER, SESSION, compile_filter, dialect_for
from fake_honcho.store.grouping import PEER_SESSIONS, WORKSPACE_PEERS, WORKSPACE_SESSIONS, grouped
from fake_honcho.store.resources import (
    check_new_name,
    check_new_peer_names,
    ensure_workspace,
    is_scope,
    new_peer,
    unable_to_create_peers,
)
from fake_honcho.versions import Feature

if TYPE_CHECKING:
    from fake_honcho.http.protocol import Server

W = "/v3/workspaces/{workspace_id}"
P = W + "/peers/{peer_id}"


async def get_or_create(request: Request) -> Response:
    """201 when created; on an existing peer, provided metadata/configuration replace."""
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    body = await read_body(request, "PeerCreate")
    require_own(request, workspace=ws, peer=body["id"])
    metadata = body.get("metadata")
    with fake.store.lock:
        row, created = _upsert(fake, ws, body["id"], metadata, body.get("configuration"))
    return respond(request, public(row), status=201 if created else 200, schema="Peer")


async def update(request: Request) -> Response:
    """PUT is get-or-create too: metadata and configuration replaced wholesale."""
    fake = fake_of(request)
    ws, pid = request.path_params["workspace_id"], request.path_params["peer_id"]
    body = await read_body(request, "PeerUpdate")
    metadata = body.get("metadata")
    with fake.store.lock:
        existing = fake.store.get("peers", (ws, pid))
        if existing is None:
            if fake.version.speaks(Feature.PEER_NAME_422):
                if fake.store.get("workspaces", ws) is None:
                    check_new_name(fake, ws)  # the workspace is built before the peer
                check_new_peer_names(fake, ws, [pid])
            else:
                check_new_name(fake, pid, bug="real-peer-put-invalid-id-500")
        elif is_scope(existing):
            raise HonchoError(
                422, f"Peer '{pid}' is a scope. Use the scopes routes to manage scopes."
            )
        row, _ = _upsert(fake, ws, pid, metadata, body.get("configuration"))
    return respond(request, public(row), schema="Peer")


def _upsert(
    fake: Server, ws: str, pid: str, metadata: Any, configuration: Any
) -> tuple[dict[str, Any], bool]:
    ensure_workspace(fake, ws, creating=lambda: unable_to_create_peers([pid]))
    row = fake.store.get("peers", (ws, pid))
    if row is None:
        row = new_peer(fake, ws, pid, metadata, configuration)
        fake.store.put("peers", (ws, pid), row)
        return row, True
    changed: dict[str, Any] = {}
    if metadata is not None and metadata != row["metadata"]:
        changed["metadata"] = metadata
    if configuration is not None and configuration != row["configuration"]:
        changed["configuration"] = configuration
    if changed:
        row = {**row, **changed}
        fake.store.put("peers", (ws, pid), row)
    return row, False


async def list_peers(request: Request) -> Response:
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    params = page_params(request)
    body = await read_body(request, "PeerGet", required=False) or {}
    predicate = compile_filter(body.get("filters"), PEER, dialect_for(fake.version, fake.real_bugs))
    kind = body.get("kind")  # 3.1: scopes are listed only when asked for
    with fake.store.lock:
        rows = [
            row
            for row in grouped(fake.store, WORKSPACE_PEERS, ws).values()
            if (kind == "all" or is_scope(row) == (kind == "scope"))
            and (predicate is None or predicate(row))
        ]
    return respond(request, page_of(rows, params), schema="Page_Peer_")


async def sessions_of_peer(request: Request) -> Response:
    """Sessions the peer has a membership row in, as the server joins them: members who
    left still see the session; a deleted session's rows are gone (register entry
    ``deletion-at-once``)."""
    fake = fake_of(request)
    ws, pid = request.path_params["workspace_id"], request.path_params["peer_id"]
    params = page_params(request)
    body = await read_body(request, "SessionGet", required=False) or {}
    predicate = compile_filter(
        body.get("filters"), SESSION, dialect_for(fake.version, fake.real_bugs)
    )
    with fake.store.lock:
        joined = grouped(fake.store, PEER_SESSIONS, ws, pid)
        rows = [
            row
            for sid, row in grouped(fake.store, WORKSPACE_SESSIONS, ws).items()
            if sid in joined and (predicate is None or predicate(row))
        ]
    return respond(request, page_of(rows, params), schema="Page_Session_")


async def search(request: Request) -> Response:
    """Messages *authored* by the peer."""
    return await run_search(request, scope={"peer_id": request.path_params["peer_id"]})


PEER_CREATE = BY_BODY.checking(
    Check(
        "a non-admin key's `w` must be the path's workspace, and its `p`, if any, the body's `id`"
    )
)

routes = [
    api_route(PEER_CREATE, "POST", W + "/peers", get_or_create,
        "get_or_create_peer", "peers",
        "Returns the peer with this id, creating it (and the workspace) first if needed.",
        Answer(200, "Peer"), Body("PeerCreate")),
    api_route(IN_WORKSPACE, "POST", W + "/peers/list", list_peers,
        "get_peers", "peers",
        "One page of the workspace's peers, oldest first, optionally filtered.",
        Answer(200, "Page_Peer_"), Body("PeerGet", optional=True), *PAGED),
    api_route(OWN_PEER, "PUT", P, update,
        "update_peer", "peers",
        "Replaces the peer's metadata and configuration with the fields given; creates "
        "the peer if it does not exist.",
        Answer(200, "Peer"), Body("PeerUpdate")),
    api_route(OWN_PEER, "POST", P + "/sessions", sessions_of_peer,
        "get_sessions_for_peer", "peers",
        "One page of the sessions the peer is or was a member of.",
        Answer(200, "Page_Session_"), Body("SessionGet", optional=True), *PAGED),
    api_route(OWN_PEER, "POST", P + "/search", search,
        "search_peer", "peers",
        "Messages the peer sent that match the query.",
        Answer(200, "Message", many=True), Body("MessageSearchOptions")),
]  # fmt: skip
