"""Scopes (3.1): get-or-create, list, get, membership, and the backfill status.

Workspace- or admin-level keys only. The logic is :mod:`fake_honcho.store.scopes`.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from fake_honcho.errors import HonchoError
from fake_honcho.http.endpoint import fake_of, no_content, read_body, respond
from fake_honcho.http.operations import PAGED, Answer, Body, api_route
from fake_honcho.http.pagination import page_of, page_params
from fake_honcho.http.permissions import IN_WORKSPACE
from fake_honcho.search import sortable_timestamp
from fake_honcho.store import scopes
from fake_honcho.store.grouping import WORKSPACE_PEERS, grouped
from fake_honcho.store.resources import get_active_session
from fake_honcho.versions import Feature

W = "/v3/workspaces/{workspace_id}"
SCOPE = W + "/scopes/{scope_id}"


def _ids(request: Request) -> tuple[str, str]:
    return request.path_params["workspace_id"], request.path_params["scope_id"]


async def get_or_create(request: Request) -> Response:
    """201 when created, 200 when it exists (given metadata replaces); 409 on a squatter."""
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    body = await read_body(request, "ScopeCreate")
    with fake.store.lock:
        rows, created = scopes.get_or_create(fake, ws, {body["id"]: body.get("metadata")})
    return respond(request, scopes.public(rows[0]), status=201 if created else 200, schema="Scope")


async def list_scopes(request: Request) -> Response:
    """Oldest first (``reverse``: newest first)."""
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    params = page_params(request)
    with fake.store.lock:
        rows = [
            row for row in grouped(fake.store, WORKSPACE_PEERS, ws).values() if scopes.is_scope(row)
        ]
    rows.sort(key=lambda row: sortable_timestamp(row["created_at"]))
    return respond(request, page_of(rows, params, scopes.public), schema="Page_Scope_")


async def get_scope(request: Request) -> Response:
    ws, name = _ids(request)
    fake = fake_of(request)
    with fake.store.lock:
        row = scopes.get_scope(fake, ws, name)
    return respond(request, scopes.public(row), schema="Scope")


async def add_sessions(request: Request) -> Response:
    """204; every named session must exist (404 names the missing ones)."""
    ws, name = _ids(request)
    fake = fake_of(request)
    body = await read_body(request, "ScopeSessionsAdd")
    with fake.store.lock:
        row = scopes.get_scope(fake, ws, name)
        wanted = set(body["session_ids"])
        missing = sorted(
            sid
            for sid in wanted
            if not (fake.store.get("sessions", (ws, sid)) or {}).get("is_active")
        )
        if missing:
            raise HonchoError(404, f"Session(s) {missing} not found in workspace {ws}")
        for sid in scopes.join(fake, ws, row["id"], wanted):
            fake.deriver.schedule_scope_task("scope_backfill", ws, row["id"], sid)
    return no_content()


async def list_sessions(request: Request) -> Response:
    """Active member sessions, longest-standing member first (``reverse``: newest)."""
    ws, name = _ids(request)
    fake = fake_of(request)
    params = page_params(request)
    with fake.store.lock:
        row = scopes.get_scope(fake, ws, name)
        joined = {
            sid: membership["joined_at"]
            for sid, membership in scopes.memberships(fake.store, ws, row["id"]).items()
            if membership["left_at"] is None
        }
        sessions = [
            session
            for sid in joined
            if (session := fake.store.get("sessions", (ws, sid))) and session["is_active"]
        ]
    sessions.sort(key=lambda session: sortable_timestamp(joined[session["id"]]))
    return respond(request, page_of(sessions, params), schema="Page_Session_")


async def remove_session(request: Request) -> Response:
    """204, also when the session was no member; the session must exist."""
    ws, name = _ids(request)
    fake = fake_of(request)
    sid = request.path_params["session_id"]
    with fake.store.lock:
        row = scopes.get_scope(fake, ws, name)
        get_active_session(fake, ws, sid)
        scopes.leave(fake, ws, row["id"], sid)
        fake.deriver.schedule_scope_task("scope_removal", ws, row["id"], sid)
    return no_content()


async def status(request: Request) -> Response:
    """Per session: the backfill's state (pending/completed/failed) and docs copied."""
    ws, name = _ids(request)
    fake = fake_of(request)
    with fake.store.lock:
        row = scopes.get_scope(fake, ws, name)
        report = {"backfill_status": scopes.status_of(row)}
    return respond(request, report, schema="ScopeStatus")


routes = [
    api_route(IN_WORKSPACE, "POST", W + "/scopes", get_or_create,
        "get_or_create_scope", "scopes",
        "Returns the scope with this id, creating it first if it does not exist.",
        Answer(200, "Scope"), Body("ScopeCreate"), needs=Feature.SCOPES),
    api_route(IN_WORKSPACE, "POST", W + "/scopes/list", list_scopes,
        "get_scopes", "scopes",
        "One page of the workspace's scopes.",
        Answer(200, "Page_Scope_"), None, *PAGED, needs=Feature.SCOPES),
    api_route(IN_WORKSPACE, "GET", SCOPE, get_scope,
        "get_scope", "scopes",
        "One scope.",
        Answer(200, "Scope"), needs=Feature.SCOPES),
    api_route(IN_WORKSPACE, "POST", SCOPE + "/sessions", add_sessions,
        "add_sessions_to_scope", "scopes",
        "Adds sessions to the scope; what was concluded in them is copied in by the deriver.",
        Answer(204, empty=True), Body("ScopeSessionsAdd"), needs=Feature.SCOPES),
    api_route(IN_WORKSPACE, "POST", SCOPE + "/sessions/list", list_sessions,
        "get_scope_sessions", "scopes",
        "One page of the scope's sessions.",
        Answer(200, "Page_Session_"), None, *PAGED, needs=Feature.SCOPES),
    api_route(IN_WORKSPACE, "DELETE", SCOPE + "/sessions/{session_id}", remove_session,
        "remove_session_from_scope", "scopes",
        "Takes a session out of the scope; its copies are removed by the deriver.",
        Answer(204, empty=True), needs=Feature.SCOPES),
    api_route(IN_WORKSPACE, "GET", SCOPE + "/status", status,
        "get_scope_status", "scopes",
        "Whether the scope's copies are up to date, and what work is left.",
        Answer(200, "ScopeStatus"), needs=Feature.SCOPES),
]  # fmt: skip
