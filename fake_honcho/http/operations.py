"""What each route of the fake takes and answers, as its OpenAPI operation says it.

The route table (``fake_honcho.http.app.collect_routes``) says which paths and methods
exist; the request and response bodies are ``schemas/*.json``. What neither holds is
here, one :class:`Operation` per (method, path): its query parameters, which schema
its body and its answer use, the answer's status, and a description in our words.
The identifiers (operation ids, tags) are Honcho's, so code generated from the
fake's ``/openapi.json`` names things as code generated from a real server's does.

A route with no entry here makes :func:`fake_honcho.openapi.build_document` fail,
naming it: add the entry when you add the route. What changes from some Honcho
version on is declared with ``needs``: a parameter with ``needs=Feature.X`` is there
only for versions that speak ``X``, and of the entries for one (method, path) a
version uses the last whose ``needs`` it speaks (a later entry replaces an earlier
one: a new body, a new answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from fake_honcho.http.pagination import DEFAULT_SIZE, MAX_SIZE
from fake_honcho.versions import Feature, HonchoVersion

__all__ = ["OPERATIONS", "Answer", "Body", "Operation", "Param", "operation_for", "takes_body"]

JSON = "application/json"
FORM = "multipart/form-data"


@dataclass(frozen=True)
class Param:
    """A query parameter: its JSON Schema (without title or description) and meaning."""

    name: str
    schema: dict[str, Any]
    description: str
    required: bool = False
    needs: Feature | None = None


@dataclass(frozen=True)
class Body:
    """The request body: ``schema`` names a file of ``schemas/``.

    ``optional``: the body may be left out (Honcho's ``X | None`` bodies, the list
    routes). ``inline``: the schema is written into the operation instead of being
    a component (Honcho declares these bodies inline). A ``multipart/form-data``
    body becomes the component ``Body_<operation id>``, as FastAPI names it.
    """

    schema: str
    optional: bool = False
    inline: bool = False
    media: str = JSON


@dataclass(frozen=True)
class Answer:
    """The success response: its status and the schema of its JSON body.

    ``schema=None`` with ``empty=False`` is a JSON body the document does not type
    (Honcho's ``{}``); ``empty`` is a response without a body (204); ``many``: a JSON
    array of ``schema``; ``stream``: also ``text/event-stream``.
    """

    status: int
    schema: str | None = None
    many: bool = False
    inline: bool = False
    empty: bool = False
    stream: bool = False


@dataclass(frozen=True)
class Operation:
    """One operation; ``name`` is the handler name Honcho's operation id is built from."""

    method: str
    path: str
    name: str
    tag: str | None
    description: str
    answer: Answer
    body: Body | None = None
    query: Sequence[Param] = ()
    secured: bool = True
    needs: Feature | None = None

    def parameters(self, version: HonchoVersion) -> list[Param]:
        """The query parameters ``version`` takes."""
        return [p for p in self.query if p.needs is None or version.speaks(p.needs)]


# -- parameters ---------------------------------------------------------------------


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _text(name: str, description: str) -> Param:
    return Param(name, _nullable({"type": "string"}), description)


def _flag(name: str, default: bool, description: str, *, nullable: bool = False) -> Param:
    schema = _nullable({"type": "boolean"}) if nullable else {"type": "boolean"}
    return Param(name, {**schema, "default": default}, description)


def _bounded(name: str, kind: str, description: str, **limits: float) -> Param:
    return Param(name, _nullable({"type": kind, **limits}), description)


PAGE = Param("page", {"type": "integer", "minimum": 1, "default": 1}, "Page number, from 1.")
SIZE = Param(
    "size",
    {"type": "integer", "maximum": MAX_SIZE, "minimum": 1, "default": DEFAULT_SIZE},
    f"Items per page (1 to {MAX_SIZE}).",
)
REVERSE_TEXT = "Newest first instead of oldest first."
PAGED = (_flag("reverse", False, REVERSE_TEXT), PAGE, SIZE)
PAGED_NULLABLE_REVERSE = (_flag("reverse", False, REVERSE_TEXT, nullable=True), PAGE, SIZE)
TARGET = _text(
    "target", "The peer described, as the observer sees it; the observer itself if left out."
)


def _recall(include_most_frequent: bool) -> tuple[Param, ...]:
    """The conclusion-selection parameters of both context routes."""
    return (
        _text("search_query", "Also return the conclusions most similar to this text."),
        _bounded(
            "search_top_k",
            "integer",
            "How many similar conclusions to return.",
            maximum=100,
            minimum=1,
        ),
        _bounded(
            "search_max_distance",
            "number",
            "Leave out similar conclusions farther than this cosine distance.",
            maximum=1.0,
            minimum=0.0,
        ),
        _flag(
            "include_most_frequent",
            include_most_frequent,
            "Also return the conclusions derived most often.",
        ),
        _bounded(
            "max_conclusions", "integer", "At most this many conclusions.", maximum=100, minimum=1
        ),
    )


# -- the table ----------------------------------------------------------------------

W = "/v3/workspaces/{workspace_id}"
P = W + "/peers/{peer_id}"
S = W + "/sessions/{session_id}"


def _op(
    method: str,
    path: str,
    name: str,
    tag: str | None,
    description: str,
    answer: Answer,
    body: Body | None = None,
    *query: Param,
    secured: bool = True,
    needs: Feature | None = None,
) -> Operation:
    return Operation(method, path, name, tag, description, answer, body, query, secured, needs)


OK = 200


OPERATIONS: tuple[Operation, ...] = (
    # workspaces
    _op("POST", "/v3/workspaces", "get_or_create_workspace", "workspaces",
        "Returns the workspace with this id, creating it first if it does not exist.",
        Answer(OK, "Workspace"), Body("WorkspaceCreate")),
    _op("POST", "/v3/workspaces/list", "get_all_workspaces", "workspaces",
        "One page of the workspaces, oldest first, optionally filtered.",
        Answer(OK, "Page_Workspace_"), Body("WorkspaceGet", optional=True), *PAGED),
    _op("PUT", W, "update_workspace", "workspaces",
        "Replaces the workspace's metadata and configuration with the fields given.",
        Answer(OK, "Workspace"), Body("WorkspaceUpdate")),
    _op("DELETE", W, "delete_workspace", "workspaces",
        "Deletes the workspace and everything in it; refused while it still has "
        "active sessions.",
        Answer(202)),
    _op("POST", W + "/search", "search_workspace", "workspaces",
        "Messages of every session of the workspace that match the query.",
        Answer(OK, "Message", many=True), Body("MessageSearchOptions")),
    _op("POST", W + "/search", "search_workspace", "workspaces",
        "Messages of every session of the workspace (or of one scope) that match the query.",
        Answer(OK, "Message", many=True), Body("WorkspaceMessageSearchOptions"),
        needs=Feature.SCOPES),
    _op("POST", W + "/chat", "chat", "workspaces",
        "Answers a question from what was derived across the workspace (or one scope); "
        "streamed as server-sent events when asked.",
        Answer(OK, "DialecticResponse", inline=True, stream=True), Body("WorkspaceChatOptions"),
        needs=Feature.WORKSPACE_CHAT),
    _op("GET", W + "/queue/status", "get_queue_status", "workspaces",
        "How much derivation work is pending, in progress and done, optionally for one "
        "observer, sender or session.",
        Answer(OK, "QueueStatus"), None,
        _text("observer_id", "Only work done for this observing peer."),
        _text("sender_id", "Only work on messages this peer sent."),
        _text("session_id", "Only work on this session's messages.")),
    _op("POST", W + "/schedule_dream", "schedule_dream", "workspaces",
        "Queues a dream: a consolidation pass over what an observer concluded about a peer.",
        Answer(204, empty=True), Body("ScheduleDreamRequest")),
    # peers
    _op("POST", W + "/peers/list", "get_peers", "peers",
        "One page of the workspace's peers, oldest first, optionally filtered.",
        Answer(OK, "Page_Peer_"), Body("PeerGet", optional=True), *PAGED),
    _op("POST", W + "/peers", "get_or_create_peer", "peers",
        "Returns the peer with this id, creating it (and the workspace) first if needed.",
        Answer(OK, "Peer"), Body("PeerCreate")),
    _op("PUT", P, "update_peer", "peers",
        "Replaces the peer's metadata and configuration with the fields given; creates "
        "the peer if it does not exist.",
        Answer(OK, "Peer"), Body("PeerUpdate")),
    _op("POST", P + "/sessions", "get_sessions_for_peer", "peers",
        "One page of the sessions the peer is or was a member of.",
        Answer(OK, "Page_Session_"), Body("SessionGet", optional=True), *PAGED),
    _op("POST", P + "/chat", "chat", "peers",
        "Answers a question about a peer (the target, or the peer itself) from what "
        "was derived; streamed as server-sent events when asked.",
        Answer(OK, "DialecticResponse", inline=True, stream=True), Body("DialecticOptions")),
    _op("POST", P + "/representation", "get_representation", "peers",
        "What the peer has concluded about the target (or about itself), as text.",
        Answer(OK, "RepresentationResponse"), Body("PeerRepresentationGet")),
    _op("GET", P + "/card", "get_peer_card", "peers",
        "The peer card the peer keeps about the target (or about itself).",
        Answer(OK, "PeerCardResponse"), None, TARGET),
    _op("PUT", P + "/card", "set_peer_card", "peers",
        "Replaces the peer card the peer keeps about the target (or about itself).",
        Answer(OK, "PeerCardResponse"), Body("PeerCardSet"), TARGET),
    _op("GET", P + "/context", "get_peer_context", "peers",
        "The peer's representation of the target and its peer card, in one answer.",
        Answer(OK, "PeerContext"), None, TARGET, *_recall(include_most_frequent=True)),
    _op("POST", P + "/search", "search_peer", "peers",
        "Messages the peer sent that match the query.",
        Answer(OK, "Message", many=True), Body("MessageSearchOptions")),
    # sessions
    _op("POST", W + "/sessions/list", "get_sessions", "sessions",
        "One page of the workspace's sessions, oldest first, optionally filtered.",
        Answer(OK, "Page_Session_"), Body("SessionGet", optional=True), *PAGED),
    _op("POST", W + "/sessions", "get_or_create_session", "sessions",
        "Returns the session with this id, creating it and any peers named first if needed.",
        Answer(OK, "Session"), Body("SessionCreate")),
    _op("PUT", S, "update_session", "sessions",
        "Replaces the session's metadata and configuration with the fields given.",
        Answer(OK, "Session"), Body("SessionUpdate")),
    _op("DELETE", S, "delete_session", "sessions",
        "Deletes the session with its messages and memberships.",
        Answer(202)),
    _op("POST", S + "/clone", "clone_session", "sessions",
        "A new session holding a copy of this one's messages, up to and including "
        "message_id when given.",
        Answer(201, "Session"), None,
        _text("message_id", "Copy the messages up to and including this one.")),
    _op("POST", S + "/peers", "add_peers_to_session", "sessions",
        "Makes the peers members of the session (creating missing peers); members "
        "already there keep their session configuration.",
        Answer(OK, "Session"), Body("SessionPeerMap", inline=True)),
    _op("PUT", S + "/peers", "set_session_peers", "sessions",
        "Makes exactly these peers the members of the session, with this configuration.",
        Answer(OK, "Session"), Body("SessionPeerMap", inline=True)),
    _op("DELETE", S + "/peers", "remove_peers_from_session", "sessions",
        "The peers leave the session; their messages stay.",
        Answer(OK, "Session"), Body("PeerIdList", inline=True)),
    _op("GET", S + "/peers", "get_session_peers", "sessions",
        "One page of the session's current members.",
        Answer(OK, "Page_Peer_"), None, PAGE, SIZE),
    _op("GET", S + "/peers/{peer_id}/config", "get_peer_config", "sessions",
        "A member's observation settings in this session.",
        Answer(OK, "SessionPeerConfig")),
    _op("PUT", S + "/peers/{peer_id}/config", "set_peer_config", "sessions",
        "Merges the settings given into a member's observation settings; a peer that "
        "left stays out of the session.",
        Answer(204, empty=True), Body("SessionPeerConfig")),
    _op("GET", S + "/context", "get_session_context", "sessions",
        "Recent messages within a token budget, the session summary, and optionally "
        "a peer's representation and card.",
        Answer(OK, "SessionContext"), None,
        _bounded("tokens", "integer", "Token budget of the whole answer (at most 100,000).",
                 maximum=100_000),
        _text("search_query", "Also return the conclusions most similar to this text."),
        _flag("summary", True, "Include the session summary when there is one."),
        _text("peer_target", "Include the representation and card of this peer."),
        _text("peer_perspective", "Seen by this peer instead of by Honcho."),
        Param("scope", _nullable({"type": "string"}),
              "Recall only within this scope.", needs=Feature.CONTEXT_SESSIONS),
        Param("sessions", _nullable({"type": "array", "items": {"type": "string"}}),
              "Recall only from these sessions.", needs=Feature.CONTEXT_SESSIONS),
        _flag("limit_to_session", False, "Only conclusions drawn from this session."),
        *_recall(include_most_frequent=False)[1:]),
    _op("GET", S + "/summaries", "get_session_summaries", "sessions",
        "The session's short and long summaries, when written.",
        Answer(OK, "SessionSummaries")),
    _op("POST", S + "/search", "search_session", "sessions",
        "Messages of this session that match the query.",
        Answer(OK, "Message", many=True), Body("MessageSearchOptions")),
    # messages
    _op("POST", S + "/messages", "create_messages_for_session", "messages",
        "Adds up to 100 messages to the session, creating the session and their "
        "authors if needed.",
        Answer(201, "Message", many=True), Body("MessageBatchCreate")),
    _op("POST", S + "/messages/upload", "create_messages_with_file", "messages",
        "Adds a text, Markdown or JSON file to the session as messages, split into "
        "chunks that fit one message each.",
        Answer(201, "Message", many=True), Body("MessageUploadForm", media=FORM)),
    _op("POST", S + "/messages/list", "get_messages", "messages",
        "One page of the session's messages, oldest first, optionally filtered.",
        Answer(OK, "Page_Message_"), Body("MessageGet", optional=True),
        *PAGED_NULLABLE_REVERSE),
    _op("GET", S + "/messages/{message_id}", "get_message", "messages",
        "One message of the session.",
        Answer(OK, "Message")),
    _op("PUT", S + "/messages/{message_id}", "update_message", "messages",
        "Replaces the message's metadata.",
        Answer(OK, "Message"), Body("MessageUpdate")),
    # conclusions
    _op("POST", W + "/conclusions", "create_conclusions", "conclusions",
        "Stores conclusions written by the caller, as if derived.",
        Answer(201, "Conclusion", many=True), Body("ConclusionBatchCreate")),
    _op("POST", W + "/conclusions/list", "list_conclusions", "conclusions",
        "One page of the workspace's conclusions, optionally filtered.",
        Answer(OK, "Page_Conclusion_"), Body("ConclusionGet", optional=True),
        *PAGED_NULLABLE_REVERSE),
    _op("POST", W + "/conclusions/query", "query_conclusions", "conclusions",
        "The conclusions most similar to a query.",
        Answer(OK, "Conclusion", many=True), Body("ConclusionQuery")),
    _op("GET", W + "/conclusions/{conclusion_id}", "get_conclusion", "conclusions",
        "One conclusion.",
        Answer(OK, "Conclusion"), needs=Feature.CONCLUSION_GET),
    _op("DELETE", W + "/conclusions/{conclusion_id}", "delete_conclusion", "conclusions",
        "Deletes one conclusion.",
        Answer(204, empty=True)),
    # scopes (3.1)
    _op("POST", W + "/scopes", "get_or_create_scope", "scopes",
        "Returns the scope with this id, creating it first if it does not exist.",
        Answer(OK, "Scope"), Body("ScopeCreate"), needs=Feature.SCOPES),
    _op("POST", W + "/scopes/list", "get_scopes", "scopes",
        "One page of the workspace's scopes.",
        Answer(OK, "Page_Scope_"), None, *PAGED, needs=Feature.SCOPES),
    _op("GET", W + "/scopes/{scope_id}", "get_scope", "scopes",
        "One scope.",
        Answer(OK, "Scope"), needs=Feature.SCOPES),
    _op("POST", W + "/scopes/{scope_id}/sessions", "add_sessions_to_scope", "scopes",
        "Adds sessions to the scope; what was concluded in them is copied in by the deriver.",
        Answer(204, empty=True), Body("ScopeSessionsAdd"), needs=Feature.SCOPES),
    _op("DELETE", W + "/scopes/{scope_id}/sessions/{session_id}", "remove_session_from_scope",
        "scopes", "Takes a session out of the scope; its copies are removed by the deriver.",
        Answer(204, empty=True), needs=Feature.SCOPES),
    _op("POST", W + "/scopes/{scope_id}/sessions/list", "get_scope_sessions", "scopes",
        "One page of the scope's sessions.",
        Answer(OK, "Page_Session_"), None, *PAGED, needs=Feature.SCOPES),
    _op("GET", W + "/scopes/{scope_id}/status", "get_scope_status", "scopes",
        "Whether the scope's copies are up to date, and what work is left.",
        Answer(OK, "ScopeStatus"), needs=Feature.SCOPES),
    # keys
    _op("POST", "/v3/keys", "create_key", "keys",
        "Issues an api key scoped to a workspace, peer or session (only with auth on).",
        Answer(OK), None,
        _text("workspace_id", "The workspace the key reaches."),
        _text("peer_id", "The peer the key acts for."),
        _text("session_id", "The session the key reaches."),
        Param("expires_at", _nullable({"type": "string", "format": "date-time"}),
              "When the key stops working.")),
    # webhooks
    _op("POST", W + "/webhooks", "get_or_create_webhook_endpoint", "webhooks",
        "Registers a webhook URL for the workspace (at most 10); the fake never calls it.",
        Answer(OK, "WebhookEndpoint"), Body("WebhookEndpointCreate")),
    _op("GET", W + "/webhooks", "list_webhook_endpoints", "webhooks",
        "One page of the workspace's webhook endpoints.",
        Answer(OK, "Page_WebhookEndpoint_"), None, PAGE, SIZE),
    _op("DELETE", W + "/webhooks/{endpoint_id}", "delete_webhook_endpoint", "webhooks",
        "Removes a webhook endpoint.",
        Answer(204, empty=True)),
    _op("GET", W + "/webhooks/test", "test_emit", "webhooks",
        "Asks for a test event to be sent to the workspace's endpoints.",
        Answer(OK)),
    # outside /v3
    _op("GET", "/health", "health_check", None,
        "Answers while the server is up; needs no key.",
        Answer(OK), secured=False),
)  # fmt: skip


def operation_for(method: str, path: str, version: HonchoVersion) -> Operation:
    """The operation of ``method path`` at ``version``; ``KeyError`` saying where to
    declare it."""
    found = [
        operation
        for operation in OPERATIONS
        if (operation.method, operation.path) == (method, path)
        and (operation.needs is None or version.speaks(operation.needs))
    ]
    if not found:
        raise KeyError(
            f"no OpenAPI operation declared for {method} {path} at Honcho {version}: add it "
            "to fake_honcho/http/operations.py"
        )
    return found[-1]


@cache
def takes_body(path: str, method: str) -> bool:
    """Whether ``method path`` reads a JSON body (which FastAPI decodes before auth)."""
    return any(
        operation.body is not None and operation.body.media == JSON
        for operation in OPERATIONS
        if (operation.method, operation.path) == (method, path)
    )
