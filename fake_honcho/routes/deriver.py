"""The derived routes: queue status, dreams, conclusions, representation, cards, context, chat.

Error texts are the real server's; everything answers without an embedding service
or LLM, from what the toy deriver stored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from fake_honcho.deriver import cards, chat, summaries
from fake_honcho.deriver.conclusions import NewConclusion, attributed, public, recency_key
from fake_honcho.deriver.context import MAX_TOKENS, charge, fit
from fake_honcho.deriver.representation import (
    DEFAULT_MAX_CONCLUSIONS,
    Selection,
    render_markdown,
    render_plain,
    select,
)
from fake_honcho.errors import HonchoError, not_found, real_bug
from fake_honcho.http.access import require_member, require_own_peer
from fake_honcho.http.endpoint import (
    fake_of,
    no_content,
    query_bool,
    query_float,
    query_int,
    query_str,
    read_body,
    respond,
    session_path,
    strip_nul,
)
from fake_honcho.http.endpoint import public as public_row
from fake_honcho.http.operations import (
    PAGED_NULLABLE_REVERSE,
    Answer,
    Body,
    Param,
    api_route,
    bounded_param,
    flag_param,
    or_null,
    text_param,
)
from fake_honcho.http.pagination import page_of, page_params
from fake_honcho.http.permissions import IN_WORKSPACE, OWN_PEER, SESSION_READ, Check
from fake_honcho.routes._response_format import check_response_format
from fake_honcho.routes._scoped import context_scope, refuse_scope_positions, scoped_recall
from fake_honcho.search.semantic import query_refusal
from fake_honcho.store import scopes
from fake_honcho.store.filters import (
    ATTRIBUTED_CONCLUSION,
    CONCLUSION,
    SOURCED_CONCLUSION,
    Model,
    compile_filter,
    dialect_for,
    matches_all,
)
from fake_honcho.store.ids import isoformat
from fake_honcho.store.message_index import message_index
from fake_honcho.store.resources import (
    RESOURCE_NAME,
    RESOURCE_NAME_PATTERN,
    create_error,
    ensure_peers,
    fail_if_cached_only,
    get_active_session,
    get_peer,
    reject_impossible_peer_names,
    unhandled_if_unnamable,
)
from fake_honcho.store.state import Row
from fake_honcho.versions import Feature, HonchoVersion

if TYPE_CHECKING:
    from fake_honcho.http.protocol import Server

W = "/v3/workspaces/{workspace_id}"
P = W + "/peers/{peer_id}"
S = W + "/sessions/{session_id}"
MAX_ALLOWLIST_SESSIONS = 1000
_RAW_PEER_COLUMNS = {"observer": "observer_id", "observed": "observed_id"}


# -- queue and dreams -----------------------------------------------------------------


async def queue_status(request: Request) -> Response:
    fake = fake_of(request)
    report = fake.deriver.status(
        request.path_params["workspace_id"],
        session_id=query_str(request, "session_id"),
        observer=query_str(request, "observer_id"),
        sender=query_str(request, "sender_id"),
    )
    return respond(request, report, schema="QueueStatus")


async def schedule_dream(request: Request) -> Response:
    body = await read_body(request, "ScheduleDreamRequest")
    observer = body["observer"]
    fake = fake_of(request)
    observed = body.get("observed") or observer
    ws = request.path_params["workspace_id"]
    with fake.store.lock:
        fail_if_cached_only(fake, request.path_params["workspace_id"])
        if fake.version.speaks(Feature.SCOPES):  # enqueue_dream's check, of every name
            reject_impossible_peer_names([observer, observed])
        scopes.reject_scope_observed(
            fake, ws, [observed], f"{scopes.NO_REPRESENTATION} the observed peer of a dream."
        )
        if fake.store.get("workspaces", ws) is None:
            # the queue row's workspace is a foreign key: its INSERT fails
            missing = not_found(f"Workspace {ws} not found")
            raise real_bug(fake, "real-dream-unknown-workspace-500", missing)
    fake.deriver.schedule_dream(
        ws,
        observer,
        observed,
        body["dream_type"],
        rebuild=bool(body.get("rebuild")),
    )
    return no_content()


# -- conclusions ----------------------------------------------------------------------


async def create_conclusions(request: Request) -> Response:
    fake = fake_of(request)
    workspace_id = request.path_params["workspace_id"]
    raw = await read_body(request, "ConclusionBatchCreate")  # or "observations"
    created: list[Row] = []
    with fake.store.lock:
        # As the server validates a batch: every session, every peer, then the scope rule
        # (so a reserved name that does not exist is a 404 before it is a 422).
        conclusions = raw["conclusions"]
        for session_id in dict.fromkeys(item.get("session_id") for item in conclusions):
            if session_id is not None:
                get_active_session(fake, workspace_id, session_id)
        for item in conclusions:
            for peer_id in (item["observer_id"], item["observed_id"]):
                # 3.0.12 looks each up as PeerCreate(name=...), refusing a bad name unhandled
                unhandled_if_unnamable(fake, peer_id, "real-conclusion-invalid-peer-500")
                get_peer(fake, workspace_id, peer_id)
        scopes.reject_scope_observed(
            fake,
            workspace_id,
            [item["observed_id"] for item in conclusions],
            "No conclusion is ever formed about a scope.",
        )
        for item in raw["conclusions"]:
            row = fake.deriver.conclusions.add(
                NewConclusion(
                    workspace_id=workspace_id,
                    id=fake.new_id(),
                    content=strip_nul(item["content"]).strip(),
                    observer_id=item["observer_id"],
                    observed_id=item["observed_id"],
                    session_id=item.get("session_id"),
                    created_at=isoformat(fake.clock()),
                )
            )
            created.append(row)
    show = _shown(request)
    shown = [show(row) for row in created]
    return respond(request, shown, status=201, schema="Conclusion", many=True)


async def list_conclusions(request: Request) -> Response:
    fake = fake_of(request)
    params = page_params(request)
    body = await read_body(request, "ConclusionGet", required=False)
    filters = _conclusion_filters((body or {}).get("filters"))
    predicate = compile_filter(
        filters, _filterable(request), dialect_for(fake.version, fake.real_bugs)
    )
    with fake.store.lock:
        rows = fake.deriver.conclusions.in_workspace(request.path_params["workspace_id"])
    rows = [row for row in rows if matches_all(predicate, row)]
    rows.sort(key=recency_key, reverse=True)
    return respond(request, page_of(rows, params, _shown(request)), schema="Page_Conclusion_")


# a semantic conclusion query names no pair: 3.0.12's text, and from 3.1 (whose filters
# are strict) the text that says where the pair goes
_UNPAIRED_QUERY = {
    False: "observer and observed must be specified for semantic search",
    True: "observer and observed must be specified for semantic search. Pass them inside "
    "the 'filters' object, e.g. "
    '{"query": "...", "filters": {"observer": "alice", "observed": "bob"}}. '
    "Both 'observer'/'observer_id' and 'observed'/'observed_id' are accepted.",
}


async def query_conclusions(request: Request) -> Response:
    fake = fake_of(request)
    body = await read_body(request, "ConclusionQuery")
    filters = dict(body.get("filters") or {})
    observer = _take_peer(filters, "observer")
    observed = _take_peer(filters, "observed")
    if not observer or not observed:
        raise HonchoError(422, _UNPAIRED_QUERY[fake.version.speaks(Feature.STRICT_FILTERS)])
    predicate = compile_filter(
        _conclusion_filters(filters),
        _filterable(request),
        dialect_for(fake.version, fake.real_bugs),
    )
    query = strip_nul(body["query"])
    refused = query_refusal(query)  # the query is embedded first
    if refused is not None:
        raise HonchoError(422, refused)
    with fake.store.lock:
        rows = fake.deriver.conclusions.of_pair(
            request.path_params["workspace_id"], observer, observed
        )
    nearest = fake.nearness.ranked(
        query,
        [row for row in rows if matches_all(predicate, row)],
        top_k=body.get("top_k", 10),
        max_distance=body.get("distance"),
    )
    show = _shown(request)
    top = [show(row) for row in nearest]
    return respond(request, top, schema="Conclusion", many=True)


async def get_conclusion(request: Request) -> Response:
    """One conclusion by id (3.2); an unknown workspace is the same 404."""
    fake = fake_of(request)
    with fake.store.lock:
        row = fake.deriver.conclusions.get(
            request.path_params["workspace_id"], request.path_params["conclusion_id"]
        )
    if row is None:
        raise not_found("Conclusion not found")
    return respond(request, _shown(request)(row), schema="Conclusion")


async def delete_conclusion(request: Request) -> Response:
    fake = fake_of(request)
    workspace_id = request.path_params["workspace_id"]
    conclusion_id = request.path_params["conclusion_id"]
    with fake.store.lock:
        if fake.deriver.conclusions.get(workspace_id, conclusion_id) is None:
            raise not_found(
                f"Document {conclusion_id} not found or does not belong to workspace {workspace_id}"
            )
        fake.deriver.conclusions.delete(workspace_id, conclusion_id)
    return no_content()


# -- representation, card, peer context -----------------------------------------------

CARD_INVALID_PEER = "real-card-invalid-peer-500"
NUL_IN_NAME = "Peer name(s) must not contain NUL (0x00) bytes"


async def representation(request: Request) -> Response:
    fake = fake_of(request)
    body = await read_body(request, "PeerRepresentationGet")
    workspace_id, peer_id = request.path_params["workspace_id"], request.path_params["peer_id"]
    refuse_scope_positions(fake, workspace_id, [peer_id, body.get("target")], "representation")
    sessions = _allowlist(body.get("session_id"), body.get("filters"), fake.version)
    recall = scoped_recall(fake, request, workspace_id, peer_id, body)
    selection = Selection(
        max_conclusions=body.get("max_conclusions") or 25,
        search_query=body.get("search_query"),
        search_top_k=body.get("search_top_k"),
        search_max_distance=body.get("search_max_distance"),
        include_most_frequent=bool(body.get("include_most_frequent")),
        sessions=recall.sessions if recall else sessions,
    )
    target = body.get("target") or peer_id
    observer = recall.observer if recall else peer_id
    if "\x00" in target:  # 3.0.12 reaches PostgreSQL with it, whose text cannot hold NUL
        refused = HonchoError(422, NUL_IN_NAME)
        if fake.version.speaks(Feature.PEER_NAME_422):
            raise refused
        raise real_bug(fake, "real-nul-lookup-500", refused)
    with fake.store.lock:
        rows = fake.deriver.conclusions.of_pair(workspace_id, observer, target)
    text = render_markdown(select(rows, selection, fake.nearness))
    return respond(request, {"representation": text}, schema="RepresentationResponse")


async def get_card(request: Request) -> Response:
    fake = fake_of(request)
    workspace_id, peer_id = request.path_params["workspace_id"], request.path_params["peer_id"]
    target = query_str(request, "target") or peer_id
    unhandled_if_unnamable(fake, peer_id, CARD_INVALID_PEER)
    with fake.store.lock:
        get_peer(fake, workspace_id, peer_id)
        card = cards.read(fake.store, workspace_id, peer_id, target)
    return respond(request, {"peer_card": card}, schema="PeerCardResponse")


async def set_card(request: Request) -> Response:
    fake = fake_of(request)
    workspace_id, peer_id = request.path_params["workspace_id"], request.path_params["peer_id"]
    target = query_str(request, "target") or peer_id
    body = await read_body(request, "PeerCardSet")
    card = [strip_nul(line) for line in body["peer_card"]]
    unhandled_if_unnamable(fake, peer_id, CARD_INVALID_PEER)
    with fake.store.lock:
        scopes.reject_scope_observed(
            fake, workspace_id, [target], "No peer card is ever formed about a scope."
        )
        ensure_peers(fake, workspace_id, [peer_id, target])
        cards.write(fake.store, workspace_id, peer_id, target, card)
    return respond(request, {"peer_card": card}, schema="PeerCardResponse")


async def peer_context(request: Request) -> Response:
    fake = fake_of(request)
    workspace_id, peer_id = request.path_params["workspace_id"], request.path_params["peer_id"]
    target = query_str(request, "target") or peer_id
    selection = _query_selection(request, include_most_frequent_default=True)
    with fake.store.lock:
        scopes.reject_scope_observed(
            fake,
            workspace_id,
            [peer_id, target],
            "Use the `scope` option on the read routes instead.",
        )
        if "\x00" in target:  # it reaches PostgreSQL, whose text cannot hold NUL
            raise real_bug(fake, "real-nul-lookup-500", HonchoError(422, NUL_IN_NAME))
        if not fake.version.speaks(Feature.PEER_NAME_422) and create_error([peer_id]):
            raise HonchoError(404, "Peer not found")  # 3.0.12 catches PeerCreate's ValueError
        get_peer(fake, workspace_id, peer_id)
        rows = fake.deriver.conclusions.of_pair(workspace_id, peer_id, target)
        card = cards.read(fake.store, workspace_id, peer_id, target)
    payload = {
        "peer_id": peer_id,
        "target_id": target,
        "representation": render_markdown(select(rows, selection, fake.nearness)),
        "peer_card": card,
    }
    return respond(request, payload, schema="PeerContext")


# -- sessions -------------------------------------------------------------------------


async def session_context(request: Request) -> Response:
    fake = fake_of(request)
    workspace_id, session_id = session_path(request)
    tokens = query_int(request, "tokens", MAX_TOKENS, le=MAX_TOKENS)
    assert tokens is not None
    include_summary = query_bool(request, "summary", True)
    peer_target = query_str(request, "peer_target")
    peer_perspective = query_str(request, "peer_perspective")
    limit_to_session = query_bool(request, "limit_to_session", False)
    selection = _query_selection(request, include_most_frequent_default=False)
    if peer_perspective and not peer_target:
        raise HonchoError(422, "peer_target must be provided if peer_perspective is provided")
    # 3.0.12 reads neither `scope` nor `sessions` here (the guard reports them).
    narrows = fake.version.speaks(Feature.CONTEXT_SESSIONS)
    scope_observer = (
        context_scope(
            fake, request, workspace_id, peer_target=peer_target, peer_perspective=peer_perspective
        )
        if narrows
        else None
    )
    allowlist = _context_allowlist(request, session_id, peer_target, limit_to_session)
    if peer_target and fake.version.speaks(Feature.CONTEXT_SESSIONS):
        require_own_peer(request, peer_perspective or peer_target)
    with fake.store.lock:
        messages = message_index(fake.store).session_messages(workspace_id, session_id)
        representation_text: str | None = None
        card: list[str] | None = None
        budget = tokens
        if peer_target:
            observer = scope_observer or peer_perspective or peer_target
            hidden = allowlist is not None and fake.version.speaks(
                Feature.NARROWED_RECALL_HIDES_CARD
            )  # a card has no per-session provenance: not read at all
            if scope_observer is None and not hidden:  # read through the observer's row
                unhandled_if_unnamable(fake, observer, CARD_INVALID_PEER)
                get_peer(fake, workspace_id, observer)
            if allowlist is not None:
                selection = replace(selection, sessions=allowlist)
            rows = fake.deriver.conclusions.of_pair(workspace_id, observer, peer_target)
            chosen = select(rows, selection, fake.nearness)
            card = None if hidden else cards.read(fake.store, workspace_id, observer, peer_target)
            representation_text = render_markdown(chosen)
            budget = tokens - charge(render_plain(chosen), card)
        fitted = fit(
            fake.store, workspace_id, session_id, messages, budget, include_summary=include_summary
        )
    payload = {
        "id": session_id,
        "messages": [public_row(message) for message in fitted.messages],
        "summary": summaries.public(fitted.summary),
        "peer_representation": representation_text,
        "peer_card": card,
    }
    return respond(request, payload, schema="SessionContext")


async def session_summaries(request: Request) -> Response:
    fake = fake_of(request)
    workspace_id, session_id = session_path(request)
    with fake.store.lock:
        short = summaries.read(fake.store, workspace_id, session_id, "short")
        long = summaries.read(fake.store, workspace_id, session_id, "long")
    payload = {
        "id": session_id,
        "short_summary": summaries.public(short),
        "long_summary": summaries.public(long),
    }
    return respond(request, payload, schema="SessionSummaries")


# -- chat -----------------------------------------------------------------------------


async def peer_chat(request: Request) -> Response:
    """Checked as the server checks before its LLM call: filters, then ``response_format``
    (422s); the peer is created; then a missing target or session is a 404, which in a
    stream comes after the 200 has started, so the stream is empty."""
    fake = fake_of(request)
    workspace_id, peer_id = request.path_params["workspace_id"], request.path_params["peer_id"]
    body = await read_body(request, "DialecticOptions")
    refuse_scope_positions(fake, workspace_id, [peer_id, body.get("target")], "chat")
    recall = scoped_recall(fake, request, workspace_id, peer_id, body)
    if body.get("session_id"):
        require_member(request, fake.store, workspace_id, [body["session_id"]])
    sessions = _allowlist(body.get("session_id"), body.get("filters"), fake.version)
    require_member(request, fake.store, workspace_id, sessions or ())
    if body.get("response_format") is not None:
        check_response_format(body["response_format"])
    target = body.get("target") or peer_id
    observer = peer_id
    if recall is not None:
        observer, sessions = recall.observer, recall.sessions
    with fake.store.lock:
        heard = (  # the sessions messages are recalled from; one scope: its own
            set(sessions)
            if sessions is not None
            else set(scopes.sessions_of(fake.store, workspace_id, observer))
            if recall is not None
            else None
        )
        # 3.0.12 builds PeerCreate(name=peer_id) outside any error handling
        unhandled_if_unnamable(fake, peer_id, "real-chat-invalid-peer-500")
        ensure_peers(fake, workspace_id, [peer_id])
        missing = _chat_preflight(fake, workspace_id, target, body.get("session_id"))
        if missing is not None:
            if body.get("stream"):
                return StreamingResponse(iter(()), media_type="text/event-stream")
            raise missing
        rows = fake.deriver.conclusions.of_pair(workspace_id, observer, target)
        index = message_index(fake.store)
        said = [
            message
            for message in index.rows(index.peer_ids(workspace_id, target))
            if heard is None or message["session_id"] in heard
        ]
    if sessions is not None:
        rows = [row for row in rows if row.get("session_id") in sessions]
    given = chat.reply(
        strip_nul(body["query"]), target, rows, said, body.get("reasoning_level", "low")
    )
    return chat_response(request, body, given)


def chat_response(request: Request, body: dict[str, Any], given: chat.Reply) -> Response:
    """A chat answer as asked for: structured, streamed, with its evidence (3.2)."""
    text = given.text
    if body.get("response_format"):
        text = chat.structured(text, given.conclusions, body["response_format"])
    asked = body.get("include_evidence") and fake_of(request).version.speaks(Feature.CHAT_EVIDENCE)
    evidence = chat.evidence(given) if asked else None
    if body.get("stream"):
        events = chat.sse_events(text, evidence)
        return StreamingResponse(events, media_type="text/event-stream")
    payload: dict[str, Any] = {"content": text}
    if evidence is not None:
        payload["evidence"] = evidence
    return respond(request, payload, schema="DialecticResponse")


def _chat_preflight(
    fake: Server, workspace_id: str, target: str, session_id: str | None
) -> HonchoError | None:
    """The 404 the server's chat gives for a target peer or a session that is not there."""
    if fake.store.get("peers", (workspace_id, target)) is None:
        return HonchoError(404, f"Peer {target} not found in workspace {workspace_id}")
    if session_id:
        session = fake.store.get("sessions", (workspace_id, session_id))
        if session is None or not session["is_active"]:
            return HonchoError(404, f"Session {session_id} not found in workspace {workspace_id}")
    return None


# -- helpers --------------------------------------------------------------------------


def _shown(request: Request) -> Callable[[Row], Row]:
    """How this version writes a conclusion (with its attribution from 3.2 on)."""
    speaks = fake_of(request).version.speaks(Feature.CONCLUSION_ATTRIBUTION)
    return attributed if speaks else public


def _filterable(request: Request) -> Model:
    """What a conclusion filter may name in this version: ``source_ids`` as a JSONB column
    with 3.1's strict filters, as links between conclusions from 3.2 on."""
    version = fake_of(request).version
    if version.speaks(Feature.CONCLUSION_ATTRIBUTION):
        return ATTRIBUTED_CONCLUSION
    return SOURCED_CONCLUSION if version.speaks(Feature.STRICT_FILTERS) else CONCLUSION


def _take_peer(filters: dict[str, Any], role: str) -> Any:
    """Remove ``role`` / ``role_id`` from ``filters``; the first one set, as Honcho reads it."""
    raw, wire = filters.pop(role, None), filters.pop(f"{role}_id", None)
    return raw or wire


def _conclusion_filters(filters: Any) -> Any:
    """Rename the raw column names ``observer``/``observed`` to the wire names, at any depth."""
    if isinstance(filters, list):
        return [_conclusion_filters(item) for item in filters]
    if not isinstance(filters, dict):
        return filters
    renamed: dict[str, Any] = {}
    for key, value in filters.items():
        name: str = _RAW_PEER_COLUMNS.get(key) or key
        renamed[name] = _conclusion_filters(value) if key in ("AND", "OR", "NOT") else value
    return renamed


def _allowlist(session_id: str | None, filters: Any, version: HonchoVersion) -> list[str] | None:
    """The sessions a representation or chat may draw on (None: all of them): Honcho's
    ``extract_session_allowlist`` over ``filters``, which may name ``session_id`` only."""
    if filters is None:
        return [session_id] if session_id else None
    unsupported = sorted(key for key in filters if key != "session_id")
    if unsupported:
        raise HonchoError(
            422,
            f"Unsupported filter key(s) for this endpoint: {unsupported}. "
            "Only 'session_id' is supported.",
        )
    if "session_id" not in filters:
        raise HonchoError(422, "filters must contain 'session_id'")
    value = filters["session_id"]
    if isinstance(value, dict) and set(value) == {"in"} and isinstance(value["in"], list):
        value = value["in"]
    if not isinstance(value, str | list):
        raise HonchoError(
            422,
            'filters.session_id must be a session id, a list of session ids, or {"in": [...]}',
        )
    entries = [value] if isinstance(value, str) else value
    return session_allowlist(entries, "filters.session_id", version, must_include=session_id)


def _context_allowlist(
    request: Request, session_id: str, peer_target: str | None, limit_to_session: bool
) -> list[str] | None:
    """The sessions the context's representation may draw on (None: all of them).

    ``limit_to_session`` names this session; from 3.1 (``Feature.CONTEXT_SESSIONS``) the
    ``sessions`` parameter names a set that must include it (3.0.12 ignores ``sessions``).
    """
    if not (fake_of(request).version.speaks(Feature.CONTEXT_SESSIONS)):
        return [session_id] if limit_to_session else None
    listed = request.query_params.getlist("sessions")
    if not listed:
        return [session_id] if limit_to_session else None
    if limit_to_session:
        raise HonchoError(422, "`sessions` and `limit_to_session` are mutually exclusive")
    if not peer_target:
        raise HonchoError(422, "peer_target must be provided if sessions is provided")
    fake = fake_of(request)
    allowed = session_allowlist(listed, "sessions", fake.version, must_include=session_id)
    require_member(request, fake.store, request.path_params["workspace_id"], allowed)
    return allowed


def session_allowlist(
    entries: list[Any], field: str, version: HonchoVersion, *, must_include: str | None
) -> list[str]:
    """Honcho's ``normalize_session_allowlist``: capped, non-empty strings (from 3.1, with
    ``Feature.CONTEXT_SESSIONS``, also valid session ids), deduplicated in first-seen order,
    containing ``must_include`` when given; ``field`` names the parameter in the texts."""
    if len(entries) > MAX_ALLOWLIST_SESSIONS:
        raise HonchoError(
            422, f"{field} supports at most {MAX_ALLOWLIST_SESSIONS} sessions per request"
        )
    checks_ids = version.speaks(Feature.CONTEXT_SESSIONS)
    for entry in entries:
        if not isinstance(entry, str) or not entry:
            raise HonchoError(422, f"{field} entries must be non-empty strings")
        if checks_ids and not RESOURCE_NAME.fullmatch(entry):
            raise HonchoError(
                422,
                f"Invalid session id in {field}: {entry!r}. Session ids match "
                f"{RESOURCE_NAME_PATTERN}",
            )
    if must_include is not None and must_include not in entries:
        raise HonchoError(422, f"session_id must be included in {field}")
    return list(dict.fromkeys(entries))


def _query_selection(request: Request, *, include_most_frequent_default: bool) -> Selection:
    return Selection(
        max_conclusions=query_int(request, "max_conclusions", None, ge=1, le=100)
        or DEFAULT_MAX_CONCLUSIONS,
        search_query=query_str(request, "search_query"),
        search_top_k=query_int(request, "search_top_k", None, ge=1, le=100),
        search_max_distance=query_float(request, "search_max_distance", ge=0.0, le=1.0),
        include_most_frequent=query_bool(
            request, "include_most_frequent", include_most_frequent_default
        ),
    )


_SCOPE_OPTION = Check("`scope` refuses a peer key", since=Feature.SCOPES)
PEER_SCOPED_READ = OWN_PEER.checking(_SCOPE_OPTION)
PEER_CHAT = OWN_PEER.checking(
    Check("a peer key's `session_id` and `filters.session_id` must name sessions its peer is in"),
    _SCOPE_OPTION,
)
SESSION_CONTEXT = SESSION_READ.checking(
    Check(
        "`scope` refuses a peer or session key; a peer key's `sessions` must be sessions its "
        "peer is in",
        since=Feature.CONTEXT_SESSIONS,
    ),
    Check(
        "a peer key reads from its own perspective only (`peer_perspective`, else `peer_target`)",
        since=Feature.CONTEXT_SESSIONS,
    ),
)

TARGET = text_param(
    "target", "The peer described, as the observer sees it; the observer itself if left out."
)


def recall_params(include_most_frequent: bool) -> tuple[Param, ...]:
    """The conclusion-selection parameters of both context routes."""
    return (
        text_param("search_query", "Also return the conclusions most similar to this text."),
        bounded_param(
            "search_top_k",
            "integer",
            "How many similar conclusions to return.",
            maximum=100,
            minimum=1,
        ),
        bounded_param(
            "search_max_distance",
            "number",
            "Leave out similar conclusions farther than this cosine distance.",
            maximum=1.0,
            minimum=0.0,
        ),
        flag_param(
            "include_most_frequent",
            include_most_frequent,
            "Also return the conclusions derived most often.",
        ),
        bounded_param(
            "max_conclusions", "integer", "At most this many conclusions.", maximum=100, minimum=1
        ),
    )


routes = [
    api_route(IN_WORKSPACE, "GET", W + "/queue/status", queue_status,
        "get_queue_status", "workspaces",
        "How much derivation work is pending, in progress and done, optionally for one "
        "observer, sender or session.",
        Answer(200, "QueueStatus"), None,
        text_param("observer_id", "Only work done for this observing peer."),
        text_param("sender_id", "Only work on messages this peer sent."),
        text_param("session_id", "Only work on this session's messages.")),
    api_route(IN_WORKSPACE, "POST", W + "/schedule_dream", schedule_dream,
        "schedule_dream", "workspaces",
        "Queues a dream: a consolidation pass over what an observer concluded about a peer.",
        Answer(204, empty=True), Body("ScheduleDreamRequest")),
    api_route(IN_WORKSPACE, "POST", W + "/conclusions", create_conclusions,
        "create_conclusions", "conclusions",
        "Stores conclusions written by the caller, as if derived.",
        Answer(201, "Conclusion", many=True), Body("ConclusionBatchCreate")),
    api_route(IN_WORKSPACE, "POST", W + "/conclusions/list", list_conclusions,
        "list_conclusions", "conclusions",
        "One page of the workspace's conclusions, optionally filtered.",
        Answer(200, "Page_Conclusion_"), Body("ConclusionGet", optional=True),
        *PAGED_NULLABLE_REVERSE),
    api_route(IN_WORKSPACE, "POST", W + "/conclusions/query", query_conclusions,
        "query_conclusions", "conclusions",
        "The conclusions most similar to a query.",
        Answer(200, "Conclusion", many=True), Body("ConclusionQuery")),
    api_route(IN_WORKSPACE, "GET", W + "/conclusions/{conclusion_id}", get_conclusion,
        "get_conclusion", "conclusions",
        "One conclusion.",
        Answer(200, "Conclusion"), needs=Feature.CONCLUSION_GET),
    api_route(IN_WORKSPACE, "DELETE", W + "/conclusions/{conclusion_id}", delete_conclusion,
        "delete_conclusion", "conclusions",
        "Deletes one conclusion.",
        Answer(204, empty=True)),
    api_route(PEER_SCOPED_READ, "POST", P + "/representation", representation,
        "get_representation", "peers",
        "What the peer has concluded about the target (or about itself), as text.",
        Answer(200, "RepresentationResponse"), Body("PeerRepresentationGet")),
    api_route(OWN_PEER, "GET", P + "/card", get_card,
        "get_peer_card", "peers",
        "The peer card the peer keeps about the target (or about itself).",
        Answer(200, "PeerCardResponse"), None, TARGET),
    api_route(OWN_PEER, "PUT", P + "/card", set_card,
        "set_peer_card", "peers",
        "Replaces the peer card the peer keeps about the target (or about itself).",
        Answer(200, "PeerCardResponse"), Body("PeerCardSet"), TARGET),
    api_route(OWN_PEER, "GET", P + "/context", peer_context,
        "get_peer_context", "peers",
        "The peer's representation of the target and its peer card, in one answer.",
        Answer(200, "PeerContext"), None, TARGET, *recall_params(include_most_frequent=True)),
    api_route(PEER_CHAT, "POST", P + "/chat", peer_chat,
        "chat", "peers",
        "Answers a question about a peer (the target, or the peer itself) from what "
        "was derived; streamed as server-sent events when asked.",
        Answer(200, "DialecticResponse", inline=True, stream=True), Body("DialecticOptions")),
    api_route(SESSION_CONTEXT, "GET", S + "/context", session_context,
        "get_session_context", "sessions",
        "Recent messages within a token budget, the session summary, and optionally "
        "a peer's representation and card.",
        Answer(200, "SessionContext"), None,
        bounded_param("tokens", "integer",
                      "Token budget of the whole answer (at most 100,000).", maximum=100_000),
        text_param("search_query", "Also return the conclusions most similar to this text."),
        flag_param("summary", True, "Include the session summary when there is one."),
        text_param("peer_target", "Include the representation and card of this peer."),
        text_param("peer_perspective", "Seen by this peer instead of by Honcho."),
        Param("scope", or_null({"type": "string"}),
              "Recall only within this scope.", needs=Feature.CONTEXT_SESSIONS),
        Param("sessions", or_null({"type": "array", "items": {"type": "string"}}),
              "Recall only from these sessions.", needs=Feature.CONTEXT_SESSIONS),
        flag_param("limit_to_session", False, "Only conclusions drawn from this session."),
        *recall_params(include_most_frequent=False)[1:]),
    api_route(SESSION_READ, "GET", S + "/summaries", session_summaries,
        "get_session_summaries", "sessions",
        "The session's short and long summaries, when written.",
        Answer(200, "SessionSummaries")),
]  # fmt: skip
