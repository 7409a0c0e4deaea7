"""Sessions: get-or-create with a peer map, list, update, delete, clone, members, search."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from fake_honcho.errors import HonchoError, UnhandledError
from fake_honcho.http.access import claims_of, require_own, require_own_peer
from fake_honcho.http.endpoint import (
    fake_of,
    no_content,
    public,
    query_str,
    read_body,
    respond,
    session_path,
)
from fake_honcho.http.operations import PAGE, PAGED, SIZE, Answer, Body, api_route, text_param
from fake_honcho.http.pagination import page_of, page_params
from fake_honcho.http.permissions import (
    BY_BODY,
    IN_WORKSPACE,
    OWN_SESSION,
    SESSION_READ,
    Check,
)
from fake_honcho.routes._search import run_search
from fake_honcho.store import scopes
from fake_honcho.store.deletion import delete_session_rows
from fake_honcho.store.filters import SESSION, compile_filter, dialect_for
from fake_honcho.store.grouping import WORKSPACE_SESSIONS, grouped, session_members
from fake_honcho.store.message_index import message_index
from fake_honcho.store.resources import (
    SESSION_OBSERVERS_LIMIT,
    WorkspaceCreate,
    add_members,
    check_new_peer_names,
    clean_configuration,
    create_error,
    ensure_session,
    ensure_workspace,
    get_active_session,
    get_peer,
    is_scope,
    new_session,
    now,
    observers_error,
    plan_members,
    reject_reserved_new,
    remove_members,
    session_not_found,
    session_peer_config,
    unable_to_create_session,
)
from fake_honcho.store.state import Row
from fake_honcho.versions import Feature

if TYPE_CHECKING:
    from fake_honcho.http.protocol import Server

W = "/v3/workspaces/{workspace_id}"
S = W + "/sessions/{session_id}"


def _cannot_create() -> HonchoError:
    """What the session routes that catch ValueError answer for a name they cannot create."""
    return HonchoError(404, "Session not found")


async def get_or_create(request: Request) -> Response:
    """201 when created; existing: metadata replaced, configuration merged, peers added."""
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    body = await read_body(request, "SessionCreate")
    sid = body["id"]
    require_own(request, workspace=ws, session=sid)
    metadata = body.get("metadata")
    peers: dict[str, Any] = body.get("peers") or {}
    configuration = body.get("configuration")
    wanted_scopes: list[str] = body.get("scopes") or []
    if wanted_scopes and claims_of(request).narrow:
        raise HonchoError(401, "Scope membership requires a workspace-level key")
    with fake.store.lock:
        scopes.reject_scopes(fake, ws, peers, scopes.MEMBERSHIP_HERE)
        reject_reserved_new(fake, ws, peers)
        row = fake.store.get("sessions", (ws, sid))
        created = row is None
        if row is None:
            plan_members(fake, ws, sid, peers)
            # the workspace is built before the peers; the route catches its ValidationError
            text = create_error([ws], WorkspaceCreate)
            if text is not None and fake.store.get("workspaces", ws) is None:
                raise HonchoError(422, text)
            _check_peer_names(fake, ws, peers, 422, creating_workspace=True)
            ensure_workspace(fake, ws, creating=lambda: unable_to_create_session(sid))
            row = new_session(fake, ws, sid, metadata, configuration)
            if peers:
                add_members(fake, ws, sid, peers)
            fake.store.put("sessions", (ws, sid), row)
        else:
            if not row["is_active"]:
                raise session_not_found(ws, sid)
            _check_peer_names(fake, ws, peers, 422)
            if peers:
                add_members(fake, ws, sid, peers)
            row = _apply_update(fake, ws, sid, row, metadata, configuration)
        if wanted_scopes:
            joined, _ = scopes.get_or_create(fake, ws, dict.fromkeys(wanted_scopes))
            for scope in joined:
                for backfill in scopes.join(fake, ws, scope["id"], [sid]):
                    fake.deriver.schedule_scope_task("scope_backfill", ws, scope["id"], backfill)
    return respond(request, public(row), status=201 if created else 200, schema="Session")


def _check_peer_names(
    fake: Server,
    ws: str,
    peers: dict[str, Any],
    status: int,
    detail: str | None = None,
    *,
    creating_workspace: bool = False,
) -> None:
    """Honcho 3.0.12 builds ``PeerCreate(name=...)`` for every peer of a map, and each
    route answers the ValidationError its own way: ``detail``, or the error's text. From
    3.1 (``Feature.PEER_NAME_422``) every route answers 422 naming the bad new peers."""
    if fake.version.speaks(Feature.PEER_NAME_422):
        check_new_peer_names(fake, ws, list(peers), creating_workspace=creating_workspace)
        return
    text = create_error(peers)
    if text is not None:
        raise HonchoError(status, detail or text)


def _apply_update(
    fake: Server, ws: str, sid: str, row: dict[str, Any], metadata: Any, configuration: Any
) -> dict[str, Any]:
    changed: dict[str, Any] = {}
    if metadata is not None and metadata != row["metadata"]:
        changed["metadata"] = metadata
    if configuration is not None:
        merged = {**row["configuration"], **clean_configuration(configuration)}
        if merged != row["configuration"]:
            changed["configuration"] = merged
    if changed:
        row = {**row, **changed}
        fake.store.put("sessions", (ws, sid), row)
    return row


async def list_sessions(request: Request) -> Response:
    """Active sessions only."""
    fake = fake_of(request)
    ws = request.path_params["workspace_id"]
    params = page_params(request)
    body = await read_body(request, "SessionGet", required=False) or {}
    predicate = compile_filter(
        body.get("filters"), SESSION, dialect_for(fake.version, fake.real_bugs)
    )
    with fake.store.lock:
        rows = [
            row
            for row in grouped(fake.store, WORKSPACE_SESSIONS, ws).values()
            if row["is_active"] and (predicate is None or predicate(row))
        ]
    return respond(request, page_of(rows, params), schema="Page_Session_")


async def update(request: Request) -> Response:
    """PUT is get-or-create; a deleted session answers 404."""
    fake = fake_of(request)
    ws, sid = session_path(request)
    body = await read_body(request, "SessionUpdate")
    metadata = body.get("metadata")
    with fake.store.lock:
        row, _ = ensure_session(fake, ws, sid, _cannot_create())  # any ValueError
        row = _apply_update(fake, ws, sid, row, metadata, body.get("configuration"))
    return respond(request, public(row), schema="Session")


async def delete(request: Request) -> Response:
    """202: the session turns inactive at once; its messages, members and row go when the
    deriver runs the deletion (``deletion-at-once``; at once with ``real_bugs="correct"``)."""
    fake = fake_of(request)
    ws, sid = session_path(request)
    with fake.store.lock:
        row = get_active_session(fake, ws, sid)
        fake.store.put("sessions", (ws, sid), {**row, "is_active": False})
        if fake.real_bugs == "reproduce":
            fake.deriver.schedule_deletion(ws, sid)
        else:
            delete_session_rows(fake.store, ws, sid)
    return respond(
        request, {"message": "Session deleted successfully"}, status=202, schema="Accepted"
    )


async def clone(request: Request) -> Response:
    """201: a new nanoid-named session with copied metadata, configuration, messages, peers.

    The real server selects the messages and members to copy by session name alone, in
    every workspace: it fails with a 500 once another workspace's session of that name
    adds any (``real-clone-cross-workspace``), and when there is no message to copy it
    answers 201 without saving the clone (``real-clone-empty-not-saved``). Both are
    reproduced unless ``real_bugs="correct"``, which copies this session's own.
    """
    fake = fake_of(request)
    ws, sid = session_path(request)
    cutoff = query_str(request, "message_id")
    reproduce = fake.real_bugs == "reproduce"
    with fake.store.lock:
        original = fake.store.get("sessions", (ws, sid))
        if original is None or not original["is_active"]:
            raise HonchoError(404, "Original session not found")
        index = message_index(fake.store)
        named = _sessions_named(fake, sid) if reproduce else [(ws, sid)]
        messages = sorted(
            (m for w, name in named for m in index.session_messages(w, name)),
            key=lambda message: message["_seq"],
        )
        if cutoff is not None:
            cut = next((m["_seq"] for m in messages if m["id"] == cutoff), None)
            if cut is None:  # the server's ValueError, answered as the route answers them all
                raise _cannot_create()
            messages = [message for message in messages if message["_seq"] <= cut]
        new_sid = fake.new_id()
        row = new_session(fake, ws, new_sid, original["metadata"], None)
        row["configuration"] = original["configuration"]
        if reproduce and not messages:  # returned before the commit
            return respond(request, public(row), status=201, schema="Session")
        members = [
            m for w, name in named for m in session_members(fake.store, w, name, active=False)
        ]
        if reproduce and _clone_fails(fake, ws, messages, members):
            raise UnhandledError("real-clone-cross-workspace")
        fake.store.put("sessions", (ws, new_sid), row)
        stamp = now(fake)
        for message in messages:
            mid = fake.new_id()
            copy = {
                **message,
                "id": mid,
                "workspace_id": ws,
                "session_id": new_sid,
                "created_at": stamp,
                "_seq": index.next_seq(),
            }
            if fake.embeddings is not None:  # the server inserts clones without embeddings
                fake.embeddings.without_embeddings((mid,))
            fake.store.put("messages", mid, copy)
        for member in members:
            fake.store.put(
                "session_peers",
                (ws, new_sid, member["peer_id"]),
                {**member, "joined_at": stamp, "left_at": None},
            )
    return respond(request, public(row), status=201, schema="Session")


def _sessions_named(fake: Server, sid: str) -> list[tuple[str, str]]:
    """Every workspace's session called ``sid`` (deleted ones whose rows wait included)."""
    return [
        (key[0], key[1])
        for key, _ in fake.store.items("sessions")
        if isinstance(key, tuple) and key[1] == sid
    ]


def _clone_fails(fake: Server, ws: str, messages: list[Row], members: list[Row]) -> bool:
    """Whether the server's inserts fail: two sessions' messages share a position in the
    session, or a copied message's author or member is no peer of ``ws``, or one peer is
    a member twice (measured on 3.0.12 and 3.1)."""
    if len({message["workspace_id"] for message in messages}) > 1:
        return True
    peers = [m["peer_id"] for m in messages] + [m["peer_id"] for m in members]
    if any(fake.store.get("peers", (ws, peer)) is None for peer in peers):
        return True
    joined = [member["peer_id"] for member in members]
    return len(set(joined)) < len(joined)


async def add_peers(request: Request) -> Response:
    """POST creates the session if needed (unlike PUT and DELETE)."""
    fake = fake_of(request)
    ws, sid = session_path(request)
    body = await read_body(request, "SessionPeerMap")
    with fake.store.lock:
        scopes.reject_scopes(fake, ws, body, scopes.MEMBERSHIP_HERE)
        if create_error([sid]) is not None:  # SessionCreate(name=sid) in the route
            raise _cannot_create()
        reject_reserved_new(fake, ws, body)
        existing = fake.store.get("sessions", (ws, sid))
        if existing is None:
            plan_members(fake, ws, sid, body)
            # the workspace is built before the peers (its ValueError caught alike)
            new_workspace = fake.store.get("workspaces", ws) is None
            if new_workspace and create_error([ws], WorkspaceCreate) is not None:
                raise _cannot_create()
        elif not existing["is_active"]:
            raise session_not_found(ws, sid)
        _check_peer_names(fake, ws, body, 404, "Session not found", creating_workspace=True)
        row, _ = ensure_session(fake, ws, sid, _cannot_create())
        add_members(fake, ws, sid, body)
    return respond(request, public(row), schema="Session")


async def set_peers(request: Request) -> Response:
    """Replace the member set: others are soft-removed, listed ones take the new config."""
    fake = fake_of(request)
    ws, sid = session_path(request)
    body = await read_body(request, "SessionPeerMap")
    with fake.store.lock:
        scopes.reject_scopes(fake, ws, body, scopes.MEMBERSHIP_HERE)
        # the server finds the session row whether or not it is deleted, sets the
        # peers, and only then reads it back (404 for a deleted one)
        row = fake.store.get("sessions", (ws, sid))
        if row is None:
            raise session_not_found(ws, sid)
        reject_reserved_new(fake, ws, body)
        _check_peer_names(fake, ws, body, 404, "Failed to set peers for session")
        if not row["is_active"]:
            raise session_not_found(ws, sid)
        current = session_members(fake.store, ws, sid)
        leaving = [  # a scope's membership is the scopes routes' to end
            m["peer_id"]
            for m in current
            if m["peer_id"] not in body and not scopes.is_scope_peer(fake.store, ws, m["peer_id"])
        ]
        add_members(fake, ws, sid, body, replace_config=True, leaving=leaving)
    return respond(request, public(row), schema="Session")


async def remove_peers(request: Request) -> Response:
    fake = fake_of(request)
    ws, sid = session_path(request)
    body = await read_body(request, "PeerIdList")
    with fake.store.lock:
        scopes.reject_scopes(fake, ws, body, scopes.MEMBERSHIP_HERE)
        row = get_active_session(fake, ws, sid)
        remove_members(fake, ws, sid, body)
    return respond(request, public(row), schema="Session")


async def list_peers(request: Request) -> Response:
    """Current members as Peer rows (a paginated GET without filters)."""
    fake = fake_of(request)
    ws, sid = session_path(request)
    params = page_params(request, with_reverse=False)
    with fake.store.lock:
        rows = [
            peer
            for member in session_members(fake.store, ws, sid)
            if (peer := fake.store.get("peers", (ws, member["peer_id"]))) is not None
            and not is_scope(peer)
        ]
    return respond(request, page_of(rows, params), schema="Page_Peer_")


async def get_peer_config(request: Request) -> Response:
    fake = fake_of(request)
    ws, sid = session_path(request)
    pid = request.path_params["peer_id"]
    require_own_peer(request, pid)
    with fake.store.lock:
        if fake.version.speaks(Feature.SCOPES):
            get_peer(fake, ws, pid)  # 3.1 reads the peer first, to refuse a scope's config
        scopes.reject_scopes(fake, ws, [pid], scopes.MEMBERSHIP_ROUTES)
        member = fake.store.get("session_peers", (ws, sid, pid))
        if member is None:
            raise HonchoError(
                404, f"Session peer {pid} not found in session {sid} in workspace {ws}"
            )
    return respond(request, session_peer_config(member), schema="SessionPeerConfig")


async def set_peer_config(request: Request) -> Response:
    """204: non-null keys merge into the membership, created if absent. A peer that left
    stays out (its config changes all the same); only adding it to the session again
    makes it a member, with the config that request gives."""
    fake = fake_of(request)
    ws, sid = session_path(request)
    pid = request.path_params["peer_id"]
    body = await read_body(request, "SessionPeerConfig")
    with fake.store.lock:
        get_active_session(fake, ws, sid)
        if not fake.version.speaks(Feature.PEER_NAME_422) and create_error([pid]):
            raise _cannot_create()  # 3.0.12's PeerCreate(name=pid)
        if fake.store.get("peers", (ws, pid)) is None:  # looked up before the scope check
            raise HonchoError(404, f"Peer {pid} not found in workspace {ws}")
        scopes.reject_scopes(fake, ws, [pid], scopes.MEMBERSHIP_ROUTES)
        member = fake.store.get("session_peers", (ws, sid, pid))
        merged = session_peer_config(member) if member is not None else {}
        merged.update({key: value for key, value in body.items() if value is not None})
        if member is not None and member["left_at"] is not None:
            _check_observer_joins(fake, ws, sid, member, merged)
            fake.store.put("session_peers", (ws, sid, pid), {**member, **merged})
        else:
            add_members(fake, ws, sid, {pid: merged}, replace_config=True)
    return no_content()


def _check_observer_joins(fake: Server, ws: str, sid: str, member: Row, config: Row) -> None:
    """The observer limit for a config that makes ``member`` an observer: counted with
    the session's active observers, as if it were one of them."""
    if not config.get("observe_others") or member.get("observe_others"):
        return
    observers = 1 + sum(
        1 for row in session_members(fake.store, ws, sid) if row.get("observe_others")
    )
    if observers > SESSION_OBSERVERS_LIMIT:
        raise observers_error(sid, observers)


async def search(request: Request) -> Response:
    return await run_search(request, scope={"session_id": request.path_params["session_id"]})


SESSION_CREATE = BY_BODY.checking(
    Check(
        "a non-admin key's `w` must be the path's workspace, and its `s`, if any, the body's `id`"
    ),
    Check("`scopes` needs a workspace or admin key", since=Feature.SCOPES),
)
PEER_CONFIG_READ = SESSION_READ.checking(Check("a peer key reads its own peer's config only"))

routes = [
    api_route(SESSION_CREATE, "POST", W + "/sessions", get_or_create,
        "get_or_create_session", "sessions",
        "Returns the session with this id, creating it and any peers named first if needed.",
        Answer(200, "Session"), Body("SessionCreate")),
    api_route(IN_WORKSPACE, "POST", W + "/sessions/list", list_sessions,
        "get_sessions", "sessions",
        "One page of the workspace's sessions, oldest first, optionally filtered.",
        Answer(200, "Page_Session_"), Body("SessionGet", optional=True), *PAGED),
    api_route(OWN_SESSION, "PUT", S, update,
        "update_session", "sessions",
        "Replaces the session's metadata and configuration with the fields given.",
        Answer(200, "Session"), Body("SessionUpdate")),
    api_route(OWN_SESSION, "DELETE", S, delete,
        "delete_session", "sessions",
        "Deletes the session with its messages and memberships.",
        Answer(202)),
    api_route(OWN_SESSION, "POST", S + "/clone", clone,
        "clone_session", "sessions",
        "A new session holding a copy of this one's messages, up to and including "
        "message_id when given.",
        Answer(201, "Session"), None,
        text_param("message_id", "Copy the messages up to and including this one.")),
    api_route(OWN_SESSION, "POST", S + "/peers", add_peers,
        "add_peers_to_session", "sessions",
        "Makes the peers members of the session (creating missing peers); members "
        "already there keep their session configuration.",
        Answer(200, "Session"), Body("SessionPeerMap", inline=True)),
    api_route(OWN_SESSION, "PUT", S + "/peers", set_peers,
        "set_session_peers", "sessions",
        "Makes exactly these peers the members of the session, with this configuration.",
        Answer(200, "Session"), Body("SessionPeerMap", inline=True)),
    api_route(OWN_SESSION, "DELETE", S + "/peers", remove_peers,
        "remove_peers_from_session", "sessions",
        "The peers leave the session; their messages stay.",
        Answer(200, "Session"), Body("PeerIdList", inline=True)),
    api_route(SESSION_READ, "GET", S + "/peers", list_peers,
        "get_session_peers", "sessions",
        "One page of the session's current members.",
        Answer(200, "Page_Peer_"), None, PAGE, SIZE),
    api_route(PEER_CONFIG_READ, "GET", S + "/peers/{peer_id}/config", get_peer_config,
        "get_peer_config", "sessions",
        "A member's observation settings in this session.",
        Answer(200, "SessionPeerConfig")),
    api_route(OWN_SESSION, "PUT", S + "/peers/{peer_id}/config", set_peer_config,
        "set_peer_config", "sessions",
        "Merges the settings given into a member's observation settings; a peer that "
        "left stays out of the session.",
        Answer(204, empty=True), Body("SessionPeerConfig")),
    api_route(SESSION_READ, "POST", S + "/search", search,
        "search_session", "sessions",
        "Messages of this session that match the query.",
        Answer(200, "Message", many=True), Body("MessageSearchOptions")),
]  # fmt: skip
