"""The scripted exchanges of scopes (Honcho 3.1): the scope routes, the guards scopes put
on the generic routes, and the ``scope`` option of the read routes.

Scopes are sent only to servers that speak :attr:`Feature.SCOPES`. The real server
derives nothing without an LLM, so reads that would show derived data run before any
message is written; what a scope's backfill copies is checked by the fake's own tests.
A backfill's status is left out too: the real one stays ``pending`` until a deriver
worker happens to poll, so its answer depends on timing.
"""

from __future__ import annotations

from typing import Any

from fake_honcho.drift.exchange import Script
from fake_honcho.drift.steps import S, W, delete, get, post, put
from fake_honcho.versions import Feature

__all__ = ["SCOPE_SCRIPTS"]

SC = W + "/scopes"


def _msg(peer: str, text: str) -> dict[str, Any]:
    return {"messages": [{"peer_id": peer, "content": text}]}


MANY_NAMES = [f"n{i}" for i in range(101)]

SCOPE_ROUTES = Script(
    "scopes",
    [
        post(SC, {"id": "work", "metadata": {"a": 1}}, note="created: 201, auto-creates ws"),
        post(SC, {"id": "work"}, note="existing: 200, metadata kept"),
        post(SC, {"id": "work", "metadata": {"b": 2}}, note="existing: metadata replaced"),
        post(SC, {"name": "home"}, note="the field's own name is accepted too"),
        post(SC, {"id": "scope.x"}, note="reserved prefix in a scope name"),
        post(SC, {"id": "a.b"}, note="scope name grammar"),
        post(SC, {"id": ""}, note="empty scope name"),
        post(SC, {"id": "{507*x}"}, note="scope name longer than 506"),
        post(SC, {}, note="no id"),
        post(SC, {"id": "x", "metadata": "m"}, note="bad metadata"),
        post(SC + "/list", note="oldest first"),
        post(SC + "/list", params={"reverse": "true"}, note="reverse"),
        post(SC + "/list", params={"size": 1, "page": 2}, note="second page"),
        get(SC + "/work", note="one scope"),
        get(SC + "/nope", note="missing scope"),
        get(SC + "/list", note="GET of the list path is a scope named list"),
        get("/v3/workspaces/{ws2}/scopes/work", note="scope of a missing workspace"),
        post("/v3/workspaces/{ws2}/scopes/list", note="scopes of a missing workspace"),
        post(W + "/peers", {"id": "alice"}),
        post(W + "/peers/list", note="scope peers are hidden"),
        post(W + "/peers/list", {"kind": "scope"}, note="only scope peers"),
        post(W + "/peers/list", {"kind": "all"}, note="every peer"),
        post(W + "/peers/list", {"kind": "bad"}, note="unknown kind"),
        post(W + "/peers", {"id": "scope.work"}, note="a peer may not take a scope's name"),
        put(W + "/peers/scope.work", {"metadata": {}}, note="PUT on a scope peer"),
        put(W + "/peers/scope.nope", {"metadata": {}}, note="PUT creating a reserved name"),
        post(S, {"id": "s1", "peers": {"alice": {}}}),
        post(S, {"id": "s2", "peers": {"bob": {}}}),
        post(SC + "/work/sessions", {"session_ids": ["s1", "zz", "nope"]}, note="missing sessions"),
        post(SC + "/work/sessions", {"session_ids": []}, note="no sessions"),
        post(SC + "/work/sessions", {"session_ids": MANY_NAMES}, note="more than 100"),
        post(SC + "/work/sessions", {}, note="no session_ids"),
        post(SC + "/nope/sessions", {"session_ids": ["s1"]}, note="sessions of a missing scope"),
        post(SC + "/work/sessions", {"session_ids": ["s1"]}, note="added: 204"),
        post(SC + "/work/sessions", {"session_ids": ["s2"]}, note="another"),
        post(SC + "/work/sessions", {"session_ids": ["s2", "s2"]}, note="again: no-op"),
        post(SC + "/work/sessions/list", note="longest-standing member first"),
        post(SC + "/work/sessions/list", params={"reverse": "true"}, note="newest first"),
        post(SC + "/home/sessions/list", note="a scope without sessions"),
        post(SC + "/nope/sessions/list", note="sessions of a missing scope"),
        get(SC + "/work/status", note="no backfill for sessions without messages"),
        get(SC + "/nope/status", note="status of a missing scope"),
        get(S + "/s1/peers", note="the scope is not listed as a member"),
        post(W + "/peers/scope.work/sessions", unordered=True, note="sessions of a scope peer"),
        delete(SC + "/work/sessions/nope", note="remove a missing session"),
        delete(SC + "/nope/sessions/s1", note="remove from a missing scope"),
        delete(SC + "/work/sessions/s1", note="removed: 204"),
        delete(SC + "/work/sessions/s1", note="removed again: 204"),
        delete(SC + "/home/sessions/s2", note="not a member: 204"),
        post(SC + "/work/sessions/list", note="after removal"),
        post(SC + "/work/sessions", {"session_ids": ["s1"]}, note="re-added"),
        post(SC + "/work/sessions/list", note="a re-added session is the newest member"),
        delete(S + "/s2", note="delete a member session"),
        post(SC + "/work/sessions/list", note="deleted sessions are not listed"),
        post(SC + "/work/sessions", {"session_ids": ["s2"]}, note="a deleted session"),
    ],
    "Scope get-or-create, list, get, membership add/list/remove, status, kind on peer lists.",
    needs=Feature.SCOPES,
)

SCOPE_GUARDS = Script(
    "scope_guards",
    [
        post(S, {"id": "s1", "peers": {"alice": {}}, "scopes": ["work", "home"]}),
        post(SC + "/list", unordered=True, note="scopes created by session create"),
        post(SC + "/home/sessions/list", note="the session is a member"),
        post(S, {"id": "s1", "scopes": ["work"]}, note="existing session, existing scope"),
        post(S, {"id": "s2", "scopes": ["scope.x"]}, note="reserved prefix in scopes"),
        post(S, {"id": "s2", "scopes": ["a.b", ""]}, note="first bad scope name"),
        post(S, {"id": "s2", "scopes": "work"}, note="scopes must be a list"),
        post(S, {"id": "s2", "scopes": MANY_NAMES}, note="more than 100 scopes"),
        post(S, {"id": "s2", "peers": {"scope.work": {}}}, note="a scope in a peer map"),
        post(S, {"id": "s2", "peers": {"scope.nope": {}}}, note="a reserved name in a peer map"),
        post(S + "/s2/messages/list", note="nothing was created by the refused requests"),
        post(S + "/s1/messages", _msg("scope.work", "hi"), note="a scope may not speak"),
        post(S + "/s1/messages", _msg("scope.zz", "hi"), note="nor a reserved new author"),
        post(S + "/s1/peers", {"scope.work": {}}, note="add a scope as a member"),
        post(S + "/s1/peers", {"scope.nope": {}}, note="add a reserved name"),
        put(S + "/s1/peers", {"scope.work": {}}, note="set a scope as a member"),
        put(S + "/s1/peers", {"scope.nope": {}}, note="set a reserved name"),
        put(S + "/s1/peers", {"bob": {}}, note="replacing the members keeps the scopes"),
        get(S + "/s1/peers", note="bob only"),
        post(SC + "/work/sessions/list", note="still a member of work"),
        delete(S + "/s1/peers", ["scope.work"], note="remove a scope as a member"),
        get(S + "/s1/peers/scope.work/config", note="a scope's membership config"),
        put(S + "/s1/peers/scope.work/config", {"observe_me": True}, note="set it"),
        get(W + "/peers/scope.work/card", note="a scope's own card: none"),
        put(W + "/peers/scope.work/card", {"peer_card": ["x"]}, note="no card about a scope"),
        put(
            W + "/peers/alice/card",
            {"peer_card": ["x"]},
            params={"target": "scope.work"},
            note="no card about a scope, as target",
        ),
        get(W + "/peers/scope.work/context", note="peer context of a scope"),
        get(W + "/peers/bob/context", params={"target": "scope.work"}, note="scope as target"),
        get(W + "/peers/bob/context", params={"target": "scope.nope"}, note="reserved target"),
        post(
            W + "/schedule_dream",
            {"observer": "bob", "observed": "scope.work", "dream_type": "omni"},
            note="no dream about a scope",
        ),
        post(
            W + "/conclusions",
            {"conclusions": [{"content": "x", "observer_id": "bob", "observed_id": "scope.work"}]},
            note="no conclusion about a scope",
        ),
        post(
            S,
            {
                "id": "s3",
                "peers": {f"p{i}": {"observe_others": True} for i in range(10)},
                "scopes": ["work"],
            },
            note="a scope does not count against the 10 observers",
        ),
        post(SC + "/work/sessions/list", unordered=True, note="s1 and s3"),
    ],
    "Scopes on session create, and the generic routes refusing scope peers and reserved names.",
    needs=Feature.SCOPES,
)

SCOPED_READS = Script(
    "scoped_reads",
    [
        post(S, {"id": "s1", "peers": {"alice": {}, "bob": {}}, "scopes": ["work"]}),
        post(SC, {"id": "home"}),
        post(W + "/peers/alice/representation", {"scope": "work"}, note="one scope"),
        post(W + "/peers/alice/representation", {"scope": ["work", "home"]}, note="a list"),
        post(
            W + "/peers/alice/representation",
            {"scope": "work", "target": "bob"},
            note="one scope, a target",
        ),
        post(W + "/peers/alice/representation", {"scope": []}, note="an empty list"),
        post(W + "/peers/alice/representation", {"scope": MANY_NAMES}, note="more than 100"),
        post(W + "/peers/alice/representation", {"scope": "nope"}, note="missing scope"),
        post(W + "/peers/alice/representation", {"scope": ["work", "nope"]}, note="one missing"),
        post(
            W + "/peers/alice/representation",
            {"scope": "work", "filters": {"session_id": "s1"}},
            note="scope with filters",
        ),
        post(
            W + "/peers/alice/representation",
            {"scope": "work", "session_id": "s1"},
            note="scope with session_id",
        ),
        post(W + "/peers/alice/representation", {"scope": "scope.work"}, note="prefixed name"),
        post(W + "/peers/alice/representation", {"scope": 5}, note="neither name nor list"),
        post(W + "/peers/alice/representation", {"scope": ["a", "b.c"]}, note="bad name in list"),
        post(W + "/peers/scope.work/representation", {}, note="a scope as observer"),
        post(W + "/peers/alice/representation", {"target": "scope.work"}, note="as target"),
        post(W + "/peers/alice/representation", {"target": "scope.zz"}, note="reserved target"),
        post(
            W + "/peers/alice/chat",
            {"query": "hi", "scope": "work", "session_id": "s1"},
            note="chat: scope with session_id",
        ),
        post(
            W + "/peers/alice/chat",
            {"query": "hi", "scope": "work", "filters": {}},
            note="chat: scope with filters",
        ),
        post(W + "/peers/alice/chat", {"query": "hi", "scope": "nope"}, note="chat: missing"),
        post(W + "/peers/alice/chat", {"query": "hi", "scope": []}, note="chat: empty list"),
        post(W + "/peers/scope.work/chat", {"query": "hi"}, note="chat: a scope as observer"),
        post(
            W + "/peers/alice/chat",
            {"query": "hi", "target": "scope.nope"},
            note="chat: reserved target",
        ),
        post(W + "/search", {"query": "hi", "scope": "work"}, note="search: a scope"),
        post(W + "/search", {"query": "hi", "scope": "home"}, note="search: no sessions"),
        post(W + "/search", {"query": "hi", "scope": ["work"]}, note="search: one name only"),
        post(
            W + "/search",
            {"query": "hi", "scope": "work", "filters": {"session_id": "s1"}},
            note="search: scope with a session_id filter",
        ),
        post(W + "/search", {"query": "hi", "scope": "nope"}, note="search: missing scope"),
        get(
            S + "/s1/context",
            params={"peer_target": "alice", "scope": "work"},
            note="context: a scope's view",
        ),
        get(S + "/s1/context", params={"scope": "work"}, note="context: scope without target"),
        get(
            S + "/s1/context",
            params={"peer_target": "alice", "peer_perspective": "bob", "scope": "work"},
            note="context: scope with peer_perspective",
        ),
        get(
            S + "/s1/context",
            params={"peer_target": "alice", "scope": "nope"},
            note="context: missing scope",
        ),
        get(
            S + "/s1/context",
            params={"peer_target": "alice", "scope": "work", "sessions": "s1"},
            note="context: scope with sessions",
        ),
        get(
            S + "/s1/context",
            params={"peer_target": "scope.work"},
            note="context: a scope as target",
        ),
        get(
            S + "/s1/context",
            params={"peer_target": "scope.nope"},
            note="context: a reserved target",
        ),
        get(
            S + "/s1/context",
            params={"peer_target": "alice", "peer_perspective": "scope.work"},
            note="context: a scope as perspective",
        ),
    ],
    "The `scope` option of representation, chat, workspace search and session context.",
    needs=Feature.SCOPES,
)

SCOPED_SEARCH = Script(
    "scoped_search",
    [
        post(S, {"id": "s1", "peers": {"alice": {}}}),
        post(S, {"id": "s2", "peers": {"alice": {}}}),
        post(S + "/s1/messages", _msg("alice", "apples are red")),
        post(S + "/s2/messages", _msg("alice", "apples are green")),
        post(SC, {"id": "work"}),
        post(W + "/search", {"query": "apples", "scope": "work"}, note="no member sessions"),
        post(SC + "/work/sessions", {"session_ids": ["s1"]}),
        post(W + "/search", {"query": "apples", "scope": "work"}, note="only s1"),
        post(W + "/search", {"query": "apples"}, unordered=True, note="unscoped: both"),
        post(
            W + "/search",
            {"query": "apples", "scope": "work", "filters": {"peer_id": "alice"}},
            note="scope and other filters",
        ),
        delete(SC + "/work/sessions/s1"),
        post(
            W + "/search",
            {"query": "apples", "scope": "work"},
            note="a removed session is still searched (any membership row counts)",
        ),
        post(S + "/s2/messages", _msg("scope.work", "hi"), note="a scope still cannot speak"),
    ],
    "Workspace search confined to a scope's sessions.",
    needs=Feature.SCOPES,
)

SCOPE_DELETION = Script(
    "scope_deletion",
    [
        post(S + "/s1/messages", _msg("alice", "hello")),
        post(S, {"id": "s2", "peers": {"bob": {}}}),
        post(SC, {"id": "work"}),
        post(SC + "/work/sessions", {"session_ids": ["s1", "s2"]}),
        delete(S + "/s1", note="202: the deletion waits for the deriver"),
        post(SC + "/work/sessions/list", note="the scope's list leaves it out at once"),
        post(
            W + "/peers/scope.work/sessions",
            unordered=True,
            note="the scope peer's sessions still show it, inactive",
            divergence="deletion-at-once",
        ),
        post(SC + "/work/sessions", {"session_ids": ["s1"]}, note="it cannot be added again"),
        delete(SC + "/work/sessions/s1", note="nor removed"),
    ],
    "A member session deleted while its deletion waits for the deriver (replayed on a fake "
    "with deriver='manual').",
    needs=Feature.SCOPES,
    deriver="manual",
)

SCOPE_SCRIPTS: tuple[Script, ...] = (
    SCOPE_ROUTES,
    SCOPE_GUARDS,
    SCOPED_READS,
    SCOPED_SEARCH,
    SCOPE_DELETION,
)
