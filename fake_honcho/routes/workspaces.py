"""Workspaces: get-or-create, list, update (itself get-or-create), delete, search."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from fake_honcho.errors import HonchoError, UnhandledError
from fake_honcho.http.access import UNAUTHORIZED, claims_of
from fake_honcho.http.endpoint import fake_of, public, read_body, respond
from fake_honcho.http.operations import PAGED, Answer, Body, api_route, revised
from fake_honcho.http.pagination import page_of, page_params
from fake_honcho.http.permissions import ADMIN_ONLY, BY_BODY, IN_WORKSPACE, Check
from fake_honcho.routes._search import run_search
from fake_honcho.store.deletion import delete_workspace_rows
from fake_honcho.store.filters import WORKSPACE, compile_filter, dialect_for
from fake_honcho.store.resources import (
    PHANTOM_WORKSPACE,
    cached_only,
    clean_configuration,
    ensure_workspace,
    fail_if_cached_only,
    get_workspace,
)
from fake_honcho.versions import Feature

W = "/v3/workspaces/{workspace_id}"


async def get_or_create(request: Request) -> Response:
    """201 when created; an existing workspace is returned unchanged (body ignored)."""
    fake = fake_of(request)
    body = await read_body(request, "WorkspaceCreate")
    claims = claims_of(request)
    if not claims.admin and claims.workspace != body["id"]:
        raise HonchoError(401, UNAUTHORIZED)
    metadata = body.get("metadata", {})
    with fake.store.lock:
        cached = cached_only(fake, body["id"])
        if cached is not None:  # 3.1's cache answers for a workspace never stored
            return respond(request, public(cached), schema="Workspace")
        row, created = ensure_workspace(fake, body["id"])
        if created and (metadata or body.get("configuration")):
            row = {
                **row,
                "metadata": metadata or {},
                "configuration": clean_configuration(body.get("configuration")),
            }
            fake.store.put("workspaces", row["id"], row)
    return respond(request, public(row), status=201 if created else 200, schema="Workspace")


async def list_workspaces(request: Request) -> Response:
    fake = fake_of(request)
    params = page_params(request)
    body = await read_body(request, "WorkspaceGet", required=False) or {}
    predicate = compile_filter(
        body.get("filters"), WORKSPACE, dialect_for(fake.version, fake.real_bugs)
    )
    with fake.store.lock:
        rows = [r for r in fake.store.rows("workspaces") if predicate is None or predicate(r)]
    return respond(request, page_of(rows, params), schema="Page_Workspace_")


async def update(request: Request) -> Response:
    """Metadata replaced, configuration shallow-merged; a missing workspace is created."""
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    body = await read_body(request, "WorkspaceUpdate")
    metadata = body.get("metadata")
    with fake.store.lock:
        cached = cached_only(fake, ws)
        row = cached if cached is not None else ensure_workspace(fake, ws)[0]
        changed: dict[str, Any] = {}
        if metadata is not None:
            changed["metadata"] = metadata
        if body.get("configuration") is not None:
            merged = {**row["configuration"], **clean_configuration(body["configuration"])}
            changed["configuration"] = merged
        if changed and cached is not None:
            if any(row[key] != value for key, value in changed.items()):
                raise UnhandledError(PHANTOM_WORKSPACE)  # its UPDATE finds no row
            changed = {}
        if changed:
            row = {**row, **changed}
            fake.store.put("workspaces", ws, row)
    return respond(request, public(row), schema="Workspace")


async def delete(request: Request) -> Response:
    """202, and the deriver deletes everything in it (``deletion-at-once``; at once with
    ``real_bugs="correct"``); 409 while active sessions remain."""
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    with fake.store.lock:
        fail_if_cached_only(fake, ws)  # 3.1: the deletion it queues names no row
        get_workspace(fake, ws)
        if any(
            row["workspace_id"] == ws and row["is_active"] for row in fake.store.rows("sessions")
        ):
            raise HonchoError(
                409,
                f"Cannot delete workspace '{ws}': active session(s) remain. "
                "Delete all sessions first.",
            )
        if fake.real_bugs == "reproduce":
            fake.deriver.schedule_deletion(ws, None)
        else:
            delete_workspace_rows(fake.store, ws)
    return respond(
        request, {"message": "Workspace deletion accepted"}, status=202, schema="Accepted"
    )


async def search(request: Request) -> Response:
    fake = fake_of(request)
    # 3.1 reads a body with `scope` (WorkspaceMessageSearchOptions)
    successor = "WorkspaceMessageSearchOptions"
    schema = successor if fake.version.speaks(Feature.SCOPES) else "MessageSearchOptions"
    return await run_search(request, scope={}, schema=schema, successor=successor)


WORKSPACE_CREATE = BY_BODY.checking(Check("a non-admin key's `w` must be the body's `id`"))

routes = [
    api_route(WORKSPACE_CREATE, "POST", "/v3/workspaces", get_or_create,
        "get_or_create_workspace", "workspaces",
        "Returns the workspace with this id, creating it first if it does not exist.",
        Answer(200, "Workspace"), Body("WorkspaceCreate")),
    api_route(ADMIN_ONLY, "POST", "/v3/workspaces/list", list_workspaces,
        "get_all_workspaces", "workspaces",
        "One page of the workspaces, oldest first, optionally filtered.",
        Answer(200, "Page_Workspace_"), Body("WorkspaceGet", optional=True), *PAGED),
    api_route(IN_WORKSPACE, "PUT", W, update,
        "update_workspace", "workspaces",
        "Replaces the workspace's metadata and configuration with the fields given.",
        Answer(200, "Workspace"), Body("WorkspaceUpdate")),
    api_route(IN_WORKSPACE, "DELETE", W, delete,
        "delete_workspace", "workspaces",
        "Deletes the workspace and everything in it; refused while it still has "
        "active sessions.",
        Answer(202)),
    revised(Feature.SCOPES, api_route(IN_WORKSPACE, "POST", W + "/search", search,
            "search_workspace", "workspaces",
            "Messages of every session of the workspace that match the query.",
            Answer(200, "Message", many=True), Body("MessageSearchOptions")),
        description="Messages of every session of the workspace (or of one scope) that "
        "match the query.",
        body=Body("WorkspaceMessageSearchOptions")),
]  # fmt: skip
