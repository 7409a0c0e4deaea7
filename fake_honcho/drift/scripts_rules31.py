"""Scripted exchanges for the rules Honcho 3.1 changed beside scopes.

The filter DSL's 422s (``strict_filters``), invalid peer names (``peer_names_422``),
``sessions`` on the session context and the peer card under narrowed recall
(``context_sessions``, also run at 3.0.12, which ignores ``sessions`` and keeps the
card), and the refusals of workspace chat (``workspace_chat``; its answers need an LLM
on a real server). Recorded from a real 3.1 (main ddbb90e + pull request 931).
"""

from __future__ import annotations

from typing import Any

from fake_honcho.drift.exchange import Script, Step
from fake_honcho.drift.steps import S, W, get, post, put
from fake_honcho.versions import Feature

__all__ = ["RULES31_SCRIPTS"]


def _msgs(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {"messages": [{"peer_id": peer, "content": text} for peer, text in pairs]}


def _peers(filters: Any, note: str) -> Step:
    return post(W + "/peers/list", {"filters": filters}, note=note)


def _messages(filters: Any, note: str) -> Step:
    return post(S + "/s1/messages/list", {"filters": filters}, note=note)


def _conclusions(filters: Any, note: str) -> Step:
    return post(W + "/conclusions/list", {"filters": filters}, note=note, unordered=True)


def _nested(depth: int) -> dict[str, Any]:
    filters: dict[str, Any] = {"id": "alice"}
    for _ in range(depth):
        filters = {"AND": [filters]}
    return filters


STRICT_FILTERS = Script(
    "strict_filters",
    [
        post(W + "/peers", {"id": "alice", "metadata": {"n": 5, "tag": "x"}}),
        post(W + "/peers", {"id": "bob", "metadata": {"n": "7"}}),
        post(
            S + "/s1/messages",
            _msgs(("alice", "first words"), ("bob", "second words")),
        ),
        _peers({"AND": [None]}, "a null sub-filter"),
        _peers({"OR": ["x"]}, "a string sub-filter"),
        _peers({"AND": [[{"id": "alice"}]]}, "a list sub-filter"),
        _peers({"AND": {"id": "alice"}}, "AND takes a list"),
        _peers({"OR": None}, "OR null"),
        _peers({"NOT": None}, "NOT null"),
        _peers({"NOT": "x"}, "NOT a string"),
        _peers(_nested(6), "nesting deeper than 5"),
        _peers(_nested(5), "nesting of 5"),
        _peers({"id": {"gte": 3}}, "a number against a text column"),
        _peers({"id": {"like": "a"}}, "an unknown operator"),
        _peers({"id": {"gte": "a", "like": "b"}}, "a known and an unknown operator"),
        _peers({"id": {}}, "an empty operator object"),
        _peers({"id": {"ne": None}}, "ne null: IS NOT NULL"),
        _peers({"id": None}, "null: IS NULL"),
        _peers({"id": {"gt": None}}, "gt null"),
        _peers({"id": {"in": "alice"}}, "'in' needs a list"),
        _peers({"id": {"in": [1]}}, "'in' with a number"),
        _peers({"id": {"in": []}}, "'in' an empty list: nothing"),
        _peers({"id": []}, "a bare empty list: nothing"),
        _peers({"id": {"contains": 5}}, "contains stringifies its operand"),
        _peers({"id": 5}, "a number for an id"),
        _peers({"id": True}, "a boolean for an id"),
        _peers({"created_at": {"gte": 5}}, "a number for a datetime"),
        _peers({"created_at": {"contains": "20"}}, "contains on a datetime"),
        _peers({"created_at": "2020-01-01"}, "a date-only datetime"),
        _peers({"created_at": {"gt": "2020-01-01 00:00:00"}}, "a space-separated datetime"),
        _peers({"metadata": 5}, "a number for metadata"),
        _peers({"metadata": "x"}, "a string for metadata"),
        _peers({"metadata": {"contains": {"tag": "x"}}}, "metadata contains"),
        _peers({"metadata": {"gte": 1}}, "metadata gte"),
        _peers({"metadata": {"n": {"gte": 6}}}, "metadata key gte a number"),
        _peers({"metadata": {"n": {"gte": [1]}}}, "metadata key gte a list"),
        _peers({"metadata": {"n": {"in": 5}}}, "metadata key 'in' a number"),
        _peers({"metadata": {"n": {"like": 5}}}, "metadata key unknown operator"),
        _peers({"metadata": {"n": {"ne": None}}}, "metadata key ne null"),
        _peers({"workspace_id": {"ne": "x"}}, "ne on a set column"),
        post(S + "/list", {"filters": {"is_active": "yes"}}, note="a string for a boolean"),
        post(S + "/list", {"filters": {"is_active": 1}}, note="a number for a boolean"),
        _messages({"token_count": {"gte": "abc"}}, "a word for a number"),
        _messages({"token_count": {"gte": "1"}}, "a numeric string for a number"),
        _messages({"token_count": {"contains": "1"}}, "contains on a number"),
        _messages({"token_count": 99999999999999}, "a number past int4"),
        _messages({"token_count": True}, "a boolean for a number"),
        _messages({"token_count": {"in": ["1", "x"]}}, "'in' with a word for a number"),
        _conclusions({"level": "bogus"}, "a level outside the enum"),
        _conclusions({"level": "explicit"}, "a level"),
        _conclusions({"level": {"in": ["explicit", "nope"]}}, "'in' with a level outside"),
        _conclusions({"level": {"contains": "nope"}}, "contains on a level"),
    ],
    "The filter DSL of 3.1: 422s for bad shapes, operand types and operators (#947), "
    "ne null (conclusions need embeddings there, so only their refusals are sent).",
    needs=Feature.STRICT_FILTERS,
)

NEGATION = Script(
    "filter_negation",
    [
        post(W + "/peers", {"id": "alice", "metadata": {"n": 5, "f": True}}),
        post(W + "/peers", {"id": "bob", "metadata": {"n": "7"}}),
        post(W + "/peers", {"id": "carol"}),
        _peers({"metadata": {"n": {"ne": 7}}}, "ne of a missing key: unknown"),
        _peers({"metadata": {"f": {"ne": True}}}, "ne of a missing flag"),
        _peers({"NOT": [{"metadata": {"n": {"gte": 6}}}]}, "NOT of a missing key"),
        _peers({"NOT": [{"metadata": {"n": {"in": ["5"]}}}]}, "NOT in"),
        _peers({"NOT": [{"metadata": {"n": {"contains": "5"}}}]}, "NOT contains"),
        _peers(
            {"NOT": [{"OR": [{"metadata": {"n": {"gt": 6}}}, {"id": "alice"}]}]},
            "NOT of an OR with an unknown",
        ),
        _peers(
            {"NOT": [{"AND": [{"metadata": {"n": {"gt": 1}}}, {"id": {"ne": "bob"}}]}]},
            "NOT of an AND with an unknown",
        ),
        _peers({"OR": [{"metadata": {"n": {"lt": 6}}}, {"id": "carol"}]}, "OR with an unknown"),
    ],
    "Negation over a missing value: plain NOT at 3.0.12 (unknown rows dropped), IS NOT TRUE "
    "at 3.1 (kept, #947); ne over a missing metadata key drops the row in both.",
)

PHANTOM = "real-rejected-write-phantom-workspace"

PEER_NAMES = Script(
    "peer_names_422",
    [
        post(W + "/peers", {"id": "alice"}),
        post(S, {"id": "s1", "peers": {"alice": {}}}),
        post(
            S + "/s1/messages",
            _msgs(("z.z", "hi"), ("alice", "hi"), ("a.a", "hi")),
            note="invalid authors, sorted in the text",
        ),
        post(S + "/s1/messages/list", note="nothing was stored"),
        post(S, {"id": "s2", "peers": {"b.b": {}, "a.a": {}}}, note="new session, bad map"),
        post(S, {"id": "s1", "peers": {"b.b": {}}}, note="existing session, bad map"),
        post(S + "/s1/peers", {"new.peer": {}, "x y": {}}, note="add bad members"),
        post(S + "/s9/peers", {"new.peer": {}}, note="add bad members, new session"),
        put(S + "/s1/peers", {"new.peer": {}}, note="set bad members"),
        put(S + "/s1/peers/new.peer/config", {}, note="config of a bad peer"),
        put(W + "/peers/bad.name", {}, note="PUT on a bad new id"),
        put(W + "/peers/new.peer/card", {"peer_card": ["x"]}, note="card of a bad observer"),
        post(W + "/peers/new.peer/chat", {"query": "hi"}, note="chat as a bad peer"),
        post(
            W + "/conclusions",
            {"conclusions": [{"content": "x", "observer_id": "n.n", "observed_id": "alice"}]},
            note="conclusion by a bad observer",
        ),
        post(
            S + "/up/messages/upload",
            files={"file": ("a.txt", "hello", "text/plain")},
            data={"peer_id": "u.u"},
            note="upload by a bad author",
        ),
        post(S + "/s1/peers", {"{600*a}": {}}, note="an over-long new member"),
        post(S + "/s1/messages", _msgs(("a\x00b", "hi"), ("c.d", "hi")), note="a NUL in an author"),
        post(S, {"id": "s3", "peers": {"a\x00b": {}}}, note="a NUL in a member"),
        post(S + "/s1/messages", _msgs(("", "hi")), note="an empty author"),
        get(S + "/s1/peers", note="members unchanged"),
        post(
            "/v3/workspaces/{ws2}/sessions/s1/messages",
            _msgs(("new.peer", "hi")),
            note="a bad author in a new workspace",
        ),
        post("/v3/workspaces/{ws2}/peers/list", note="the workspace was not created"),
        post(
            "/v3/workspaces/{ws2}/sessions",
            {"id": "s1"},
            note="yet a session cannot be created in it (last: it returns no id)",
            divergence=PHANTOM,
        ),
        post(
            "/v3/workspaces/{ws2}/peers",
            {"id": "alice"},
            note="nor a peer: it is cached, not stored",
            divergence=PHANTOM,
        ),
        post("/v3/workspaces", {"id": "{ws2}"}, note="got from the cache", divergence=PHANTOM),
        post(
            "/v3/workspaces/list",
            {"filters": {"id": "{ws2}"}},
            note="and still not listed",
            divergence=PHANTOM,
        ),
    ],
    "Invalid peer names as message authors, session peer keys and path ids: 422 naming "
    "them (3.0.12: 500 or pydantic's text).",
    needs=Feature.PEER_NAME_422,
)


def _context(note: str, **params: Any) -> Step:
    return get(S + "/s1/context", params={"summary": "false", **params}, note=note)


CONTEXT_SESSIONS = Script(
    "context_sessions",
    [
        post(S, {"id": "s1", "peers": {"alice": {}, "bob": {}}}),
        post(S, {"id": "s2", "peers": {"alice": {}}}),
        post(S + "/s1/messages", _msgs(("alice", "hello from one"))),
        put(W + "/peers/alice/card", {"peer_card": ["likes tea"]}, note="a card"),
        _context("whole representation and card", peer_target="alice"),
        _context("limit_to_session", peer_target="alice", limit_to_session="true"),
        _context("sessions: this one", peer_target="alice", sessions=["s1"]),
        _context("sessions: both", peer_target="alice", sessions=["s1", "s2"]),
        _context("sessions: repeated", peer_target="alice", sessions=["s1", "s1"]),
        _context("sessions without this session", peer_target="alice", sessions=["s2"]),
        _context("sessions without peer_target", sessions=["s1"]),
        _context(
            "sessions with peer_perspective",
            peer_target="alice",
            peer_perspective="bob",
            sessions=["s1"],
        ),
        _context(
            "sessions and limit_to_session",
            peer_target="alice",
            sessions=["s1"],
            limit_to_session="true",
        ),
        _context("a bad session id", peer_target="alice", sessions=["s1", "bad.id"]),
        _context("an empty session id", peer_target="alice", sessions=["s1", ""]),
        _context("a wildcard", peer_target="alice", sessions=["s1", "*"]),
        _context("an unknown session", peer_target="alice", sessions=["s1", "nothere"]),
        _context(
            "more than 1000 sessions",
            peer_target="alice",
            sessions=["s1", *(f"x{i}" for i in range(1000))],
        ),
        _context("peer_perspective", peer_target="alice", peer_perspective="bob"),
        _context(
            "peer_perspective, limit_to_session",
            peer_target="alice",
            peer_perspective="bob",
            limit_to_session="true",
        ),
    ],
    "`sessions` on the session context and the peer card under narrowed recall (3.0.12 "
    "ignores `sessions` and keeps the card).",
)


def _recall(body: Any, note: str) -> Step:
    return post(W + "/peers/alice/representation", body, note=note)


RECALL_FILTERS = Script(
    "recall_filters",
    [
        post(S, {"id": "s1", "peers": {"alice": {}}}),
        _recall({"filters": {"peer_id": "x", "a": 1}}, "keys besides session_id"),
        _recall({"filters": {}}, "no session_id key"),
        _recall({"filters": {"session_id": 5}}, "a number"),
        _recall({"filters": {"session_id": {"in": "s1"}}}, "'in' a string"),
        _recall({"filters": {"session_id": {"in": ["s1"], "ne": "x"}}}, "'in' and more"),
        _recall({"filters": {"session_id": ["s1", ""]}}, "an empty id"),
        _recall({"filters": {"session_id": ["s1", 5]}}, "a number in the list"),
        _recall({"filters": {"session_id": ["s1", "b.d"]}}, "an invalid id (3.1: 422)"),
        _recall({"filters": {"session_id": "*"}}, "a wildcard (3.1: 422)"),
        _recall({"session_id": "s2", "filters": {"session_id": ["s1"]}}, "session_id outside"),
        _recall({"session_id": "s1", "filters": {"session_id": {"in": ["s1"]}}}, "inside"),
        _recall({"filters": {"session_id": [f"x{i}" for i in range(1001)]}}, "1001 sessions"),
        _recall({"filters": {"session_id": []}}, "an empty list"),
        _recall({"filters": None}, "null filters"),
    ],
    "The session allowlist the recall routes read from `filters` (Honcho's "
    "extract_session_allowlist), with the session-id check 3.1 added.",
)

CHAT = W + "/chat"

WORKSPACE_CHAT = Script(
    "workspace_chat",
    [
        post(S, {"id": "s1", "peers": {"alice": {}}}),
        post(W + "/scopes", {"id": "team"}),
        post(CHAT, {}, note="query missing"),
        post(CHAT, {"query": ""}, note="query empty"),
        post(CHAT, {"query": "{10001*a}"}, note="query too long"),
        post(CHAT, {"query": 5}, note="query a number"),
        post(CHAT, {"query": "hi", "stream": "maybe"}, note="stream not a boolean"),
        post(CHAT, {"query": "hi", "reasoning_level": "huge"}, note="unknown level"),
        post(CHAT, {"query": "hi", "session_id": 5}, note="session_id a number"),
        post(CHAT, {"query": "hi", "response_format": "x"}, note="response_format a string"),
        post(
            CHAT,
            {"query": "hi", "response_format": {"type": "array", "items": {"type": "string"}}},
            note="response_format with an array root",
        ),
        post(CHAT, {"query": "hi", "session_id": "nothere"}, note="unknown session"),
        post("/v3/workspaces/{ws2}/chat", {"query": "hi"}, note="unknown workspace"),
        post(
            "/v3/workspaces/{ws2}/chat",
            {"query": "hi", "session_id": "s1"},
            note="unknown workspace and session",
        ),
        post(CHAT, {"query": "hi", "scope": "team", "session_id": "s1"}, note="scope, session"),
        post(CHAT, {"query": "hi", "scope": "nothere"}, note="a missing scope"),
        post(CHAT, {"query": "hi", "scope": ["team", "nothere"]}, note="one scope missing"),
        post(CHAT, {"query": "hi", "scope": "scope.team"}, note="a prefixed scope name"),
        post(CHAT, {"query": "hi", "scope": []}, note="no scopes"),
        post(CHAT, {"query": "hi", "scope": 5}, note="a number for a scope"),
        post(
            CHAT,
            {"query": "hi", "scope": "team", "response_format": {"type": "array"}},
            note="a known scope passes; then the response_format root",
        ),
        post(CHAT, "not an object", note="a string body"),
        Step("GET", CHAT, note="GET"),
    ],
    "Workspace chat's refusals (its answers need an LLM on a real server).",
    needs=Feature.WORKSPACE_CHAT,
)

RULES31_SCRIPTS: tuple[Script, ...] = (
    STRICT_FILTERS,
    NEGATION,
    PEER_NAMES,
    CONTEXT_SESSIONS,
    RECALL_FILTERS,
    WORKSPACE_CHAT,
)
"""The scripts of this module, in the order ``fake-honcho compare`` runs them."""
