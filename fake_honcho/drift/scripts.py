"""The scripted exchanges: every route of the Honcho 3.0.12 API, its errors and quirks.

Each script runs in fresh workspaces, so scripts are independent and can run in
any order or in parallel. Search ranking and token counts are checked by their
own recordings (``tests/fidelity/search``, ``tests/fidelity/tokens``); here a
search is only sent where its hits are unambiguous, and token counts are
normalised away by the snapshot normaliser. Derived data needs an LLM-backed
deriver, so derived routes are exercised before anything is derived.
"""

from __future__ import annotations

from typing import Any

from fake_honcho.drift.coercion import COERCION_SCRIPTS
from fake_honcho.drift.exchange import Script, Step
from fake_honcho.drift.scripts_rules31 import RULES31_SCRIPTS
from fake_honcho.drift.scripts_scopes import SCOPE_SCRIPTS
from fake_honcho.drift.scripts_v32 import SCRIPTS_V32
from fake_honcho.drift.steps import S, W, delete, get, post, put

__all__ = ["EVERY_SCRIPT", "SCRIPTS", "script_named"]


def upload(name: str, content: str, kind: str, note: str) -> Step:
    return Step(
        "POST",
        S + "/up/messages/upload",
        files={"file": (name, content, kind)},
        data={"peer_id": "alice"},
        note=note,
    )


_PROSE = "{40*{40*A sentence of prose. }\n}"
UPLOADS = (
    ("notes.txt", "uploaded text", "text/plain", "text upload"),
    ("pic.png", "not really", "image/png", "unsupported file type"),
    ("a.json", '{"b": [1, 2], "é": "ü"}', "application/json", "JSON is re-serialised"),
    ("e.json", "  ", "application/json", "blank JSON"),
    ("bad.json", "{nope", "application/json", "invalid JSON"),
    ("empty.txt", "", "text/plain", "empty text file"),
    ("notes.md", "# Title\n\nbody", "text/markdown", "any text/* type"),
    ("long.txt", _PROSE, "text/plain", "split at a line break"),
    ("words.txt", "{6000*word }", "text/plain", "split at a space"),
    ("solid.txt", "{30000*x}", "text/plain", "no break: split at 25,000"),
)


UPLOAD_FORMS = (
    ({"metadata": "{not json"}, "metadata that is not JSON is ignored: {}"),
    ({"metadata": '{"kept": 1}', "configuration": "{bad"}, "bad configuration is ignored"),
    ({"metadata": "null"}, "metadata null"),
    ({"created_at": "yesterday"}, "a created_at fromisoformat refuses is ignored"),
    ({"created_at": "2024-01-02"}, "a date is midnight UTC"),
    ({"created_at": "2024-01-02T03:04:05+02:00"}, "an offset is kept as UTC"),
)


def _msgs(*pairs: tuple[str, str], **extra: Any) -> dict[str, Any]:
    return {"messages": [{"peer_id": peer, "content": text, **extra} for peer, text in pairs]}


SERVICE = Script(
    "service",
    [
        get("/health", note="health is open and tiny"),
        get("/metrics", note="Prometheus endpoint; 404 text while metrics are disabled"),
        get("/v3/nowhere", note="unknown route"),
        post("/v3/keys", note="JWT minting is refused with auth off"),
        Step("PATCH", W, note="known path, unsupported method"),
    ],
    "Routes outside the resource tree.",
)

WORKSPACES = Script(
    "workspaces",
    [
        post("/v3/workspaces", {"id": "{ws}", "metadata": {"a": 1}}, note="created: 201"),
        post(
            "/v3/workspaces", {"id": "{ws}", "metadata": {"b": 2}}, note="existing: 200, unchanged"
        ),
        post("/v3/workspaces", {"id": "bad.name"}, note="id grammar"),
        post("/v3/workspaces", {"id": ""}, note="empty id"),
        post("/v3/workspaces", {"id": "{513*x}"}, note="id too long"),
        post("/v3/workspaces", {}, note="id missing"),
        post("/v3/workspaces", {"id": "{ws}", "metadata": "nope"}, note="metadata must be a dict"),
        post("/v3/workspaces", {"id": "{ws}", "unknown": 1}, note="extra fields"),
        put(W, {"metadata": {"c": 3}}, note="PUT replaces metadata"),
        put(
            W,
            {"configuration": {"reasoning": {"enabled": False}}},
            note="PUT merges configuration",
        ),
        put(W, {}, note="empty update"),
        put("/v3/workspaces/{ws2}", {"metadata": {"new": True}}, note="PUT on a missing id"),
        post(
            "/v3/workspaces/list",
            {"filters": {"id": "{ws}"}},
            note="list filtered to one id",
        ),
        post(
            "/v3/workspaces/list",
            {"filters": {"id": {"in": ["{ws}", "{ws2}"]}, "metadata": {"new": True}}},
            note="metadata containment filter",
        ),
        post(
            "/v3/workspaces/list",
            {"filters": {"id": {"in": ["{ws}", "{ws2}"]}}},
            params={"page": 2, "size": 1},
            note="pagination",
        ),
        post(
            "/v3/workspaces/list",
            {"filters": {"id": {"in": ["{ws}", "{ws2}"]}}},
            params={"reverse": "true"},
            note="reverse order",
        ),
        post("/v3/workspaces/list", {"filters": {"nope": 1}}, note="unknown filter column"),
        post("/v3/workspaces/list", params={"size": 0}, note="size below 1"),
        post("/v3/workspaces/list", params={"size": 101}, note="size above 100"),
        post("/v3/workspaces/list", params={"page": 0}, note="page below 1"),
        post(S, {"id": "s1"}, note="a session to block deletion"),
        delete(W, note="409 while active sessions remain"),
        delete(S + "/s1", note="session delete accepted"),
        delete(W, note="workspace delete accepted"),
        delete("/v3/workspaces/{ws}nothere", note="missing workspace"),
    ],
    "Workspace get-or-create, update, list filters and pagination, delete.",
)

PEERS = Script(
    "peers",
    [
        post(W + "/peers", {"id": "alice", "metadata": {"role": "user"}}, note="auto-creates ws"),
        post(W + "/peers", {"id": "alice", "metadata": {"role": "admin"}}, note="200, replaced"),
        post(W + "/peers", {"id": "alice"}, note="no metadata: unchanged"),
        post(
            W + "/peers",
            {"id": "bob", "configuration": {"observe_me": False}},
            note="configuration",
        ),
        post(W + "/peers", {"id": "bad name"}, note="id grammar"),
        post(W + "/peers", {"id": "carol", "configuration": "x"}, note="bad configuration"),
        put(W + "/peers/alice", {"metadata": {"tier": 2}}, note="PUT replaces metadata"),
        put(W + "/peers/dave", {"metadata": {"late": True}}, note="PUT creates a missing peer"),
        put(
            W + "/peers/bad.name",
            {},
            note="PUT on a bad new id",
            divergence="real-peer-put-invalid-id-500",
        ),
        post(W + "/peers/list", note="insertion order"),
        post(W + "/peers/list", params={"size": 2, "page": 2}, note="second page"),
        post(W + "/peers/list", params={"reverse": "true"}, note="reverse"),
        post(W + "/peers/list", {"filters": {"metadata": {"tier": 2}}}, note="metadata filter"),
        post(
            W + "/peers/list",
            {"filters": {"OR": [{"id": "bob"}, {"id": "dave"}]}},
            note="OR filter",
        ),
        post(W + "/peers/list", {"filters": {"NOT": [{"id": "bob"}]}}, note="NOT filter"),
        post(
            W + "/peers/list",
            {"filters": {"id": {"gte": 3}}},
            note="bad operator value",
            divergence="real-filter-errors-500",
        ),
        post(
            W + "/peers/list",
            {"filters": {"id": {"like": "a"}}},
            note="unknown operator",
            divergence="real-filter-errors-500",
        ),
        post(
            W + "/peers/list",
            {"filters": {"id": {"in": "alice"}}},
            note="'in' needs a list",
        ),
        post(
            W + "/peers/list",
            {"filters": {"created_at": {"gte": "notadate"}}},
            note="bad datetime in a filter",
        ),
        post(S, {"id": "s1", "peers": {"alice": {}}}),
        post(S, {"id": "s2", "peers": {"alice": {}, "bob": {}}}),
        post(W + "/peers/alice/sessions", note="sessions of a peer"),
        post(
            W + "/peers/alice/sessions",
            {"filters": {"id": "s2"}},
            note="sessions of a peer, filtered",
        ),
        post(W + "/peers/nobody/sessions", note="sessions of a missing peer"),
        post("/v3/workspaces/{ws2}/peers/list", note="peers of a missing workspace"),
    ],
    "Peer get-or-create (metadata replaced), PUT, list, filters, sessions of a peer.",
)

SESSIONS = Script(
    "sessions",
    [
        post(S, {"id": "s1"}, note="created: 201, auto-creates ws"),
        post(S, {"id": "s1", "metadata": {"m": 1}}, note="existing: 200, metadata replaced"),
        post(
            S,
            {"id": "s1", "configuration": {"summary": {"enabled": False}}},
            note="configuration merged",
        ),
        post(
            S,
            {"id": "s1", "configuration": {"reasoning": {"enabled": False}}},
            note="configuration merged again",
        ),
        post(
            S,
            {"id": "s2", "peers": {"alice": {"observe_others": True}, "bob": {}}},
            note="with a peer map",
        ),
        post(S, {"id": "s2", "peers": {"carol": {}}}, note="existing: peers added"),
        post(S, {"id": "bad.name"}, note="id grammar"),
        post(S, {"id": "s3", "peers": {"bad.peer": {}}}, note="bad peer name in map"),
        post(
            S,
            {"id": "s4", "peers": {f"p{i}": {"observe_others": True} for i in range(11)}},
            note="more than 10 observers",
        ),
        post(S + "/s4/messages/list", note="nothing was created by the refused request"),
        put(S + "/s1", {"metadata": {"m": 2}}, note="PUT replaces metadata"),
        put(S + "/s5", {"metadata": {"new": 1}}, note="PUT creates a missing session"),
        post(S + "/list", note="active sessions in order"),
        post(S + "/list", {"filters": {"metadata": {"m": 2}}}, note="metadata filter"),
        post(S + "/list", {"filters": {"id": {"in": ["s2", "s5"]}}}, note="in filter"),
        post(S + "/list", params={"size": 1, "page": 3}, note="pagination"),
        post(S + "/list", params={"reverse": "true", "size": 2}, note="reverse"),
        post(S + "/list", {"filters": {"is_active": False}}, note="is_active filter"),
        delete(S + "/s5", note="delete accepted"),
        delete(S + "/s5", note="deleted again: 404"),
        delete(S + "/nothere", note="missing session"),
        post(S, {"id": "s5"}, note="get-or-create of a deleted session"),
        put(S + "/s5", {"metadata": {}}, note="PUT on a deleted session"),
        post(S + "/list", note="deleted sessions are not listed"),
        post(S + "/s5/messages", _msgs(("alice", "hi")), note="messages to a deleted session"),
    ],
    "Session get-or-create with peers, merge rules, list, delete (read back before the "
    "deriver has run the deletion: replayed on a fake with deriver='manual').",
    deriver="manual",
)

MEMBERS = Script(
    "members",
    [
        post(S, {"id": "s1", "peers": {"alice": {}, "bob": {"observe_me": False}}}),
        get(S + "/s1/peers", unordered=True, note="members (unordered on the server)"),
        get(S + "/s1/peers/bob/config", note="member config"),
        get(S + "/s1/peers/nobody/config", note="peer not in session"),
        get(S + "/nothere/peers/bob/config", note="config of a missing session"),
        put(S + "/s1/peers/alice/config", {"observe_others": True}, note="set config: 204"),
        get(S + "/s1/peers/alice/config", note="merged config"),
        put(S + "/s1/peers/zed/config", {"observe_me": True}, note="config of a missing peer"),
        post(S + "/s1/peers", {"carol": {}}, note="add members"),
        post(S + "/s1/peers", {"bad.peer": {}}, note="bad new peer name"),
        post(S + "/s9/peers", {"dan": {}}, note="POST peers creates the session"),
        put(S + "/s8/peers", {"dan": {}}, note="PUT peers on a missing session"),
        delete(S + "/s8/peers", ["dan"], note="DELETE peers on a missing session"),
        get(S + "/s1/peers", unordered=True, note="three members"),
        put(S + "/s1/peers", {"bob": {"observe_me": True}, "erin": {}}, note="replace members"),
        get(S + "/s1/peers", unordered=True, note="replaced"),
        get(S + "/s1/peers/alice/config", note="config of a member who left"),
        put(
            S + "/s1/peers/alice/config",
            {"observe_others": True},
            note="config for a member who left: 204",
        ),
        get(S + "/s1/peers", unordered=True, note="who left stays out"),
        get(S + "/s1/peers/alice/config", note="yet the config changed"),
        delete(S + "/s1/peers", ["erin", "nobody"], note="remove members"),
        get(S + "/s1/peers", unordered=True, note="after removal"),
        post(S + "/s1/peers", {"alice": {"observe_me": False}}, note="rejoin"),
        get(S + "/s1/peers/alice/config", note="rejoined with new config"),
        get(
            S + "/s1/peers",
            params={"size": 5},
            unordered=True,
            note="page of members (the whole list: the server does not order it)",
        ),
        post(W + "/peers/alice/sessions", note="sessions the peer is in"),
        post(W + "/peers/erin/sessions", note="a peer who left"),
    ],
    "Session members: add, replace, remove, rejoin, per-session peer config.",
)

MESSAGES = Script(
    "messages",
    [
        post(
            S + "/s1/messages",
            _msgs(("alice", "hello there"), ("bob", "hi alice")),
            save={"m1": "0.id", "m2": "1.id"},
            note="batch auto-creates ws, session and peers",
        ),
        post(
            S + "/s1/messages/",
            _msgs(("alice", "trailing slash")),
            save={"m3": "0.id"},
            note="trailing-slash alias",
        ),
        post(
            S + "/s1/messages",
            {
                "messages": [
                    {
                        "peer_id": "carol",
                        "content": "dated",
                        "metadata": {"k": "v"},
                        "created_at": "2024-01-02T03:04:05",
                    }
                ]
            },
            note="client created_at and metadata",
        ),
        post(S + "/s1/messages", {"messages": []}, note="empty batch"),
        post(
            S + "/s1/messages",
            {"messages": [{"peer_id": "alice", "content": "x"}] * 101},
            note="batch over 100",
        ),
        post(
            S + "/s1/messages",
            _msgs(("alice", "{25001*y}")),
            note="content over 25,000 characters",
        ),
        post(S + "/s1/messages", {"messages": [{"peer_id": "alice"}]}, note="content missing"),
        post(S + "/s1/messages", _msgs(("alice", "z"), metadata=[1]), note="metadata a list"),
        post(
            S + "/s1/messages",
            _msgs(("alice", "bad date"), created_at="yesterday"),
            note="bad created_at",
        ),
        post(S + "/s1/messages", note="no body"),
        post(S + "/s1/messages/list", note="all, in order"),
        post(S + "/s1/messages/list", params={"size": 2, "page": 2}, note="second page"),
        post(S + "/s1/messages/list", params={"reverse": "true"}, note="newest first"),
        post(S + "/s1/messages/list", {"filters": {"peer_id": "alice"}}, note="by author"),
        post(S + "/s1/messages/list", {"filters": {"metadata": {"k": "v"}}}, note="by metadata"),
        post(S + "/s1/messages/list", {"filters": {"id": "{m2}"}}, note="by id"),
        post(S + "/nothere/messages/list", note="unknown session: empty page"),
        get(S + "/s1/messages/{m1}", note="get one"),
        get(S + "/s1/messages/AAAAAAAAAAAAAAAAAAAAA", note="missing message"),
        get(S + "/s2/messages/{m1}", note="message of another session"),
        put(S + "/s1/messages/{m1}", {"metadata": {"edited": True}}, note="metadata replaced"),
        put(S + "/s1/messages/{m1}", {}, note="empty update"),
        put(S + "/s1/messages/AAAAAAAAAAAAAAAAAAAAA", {"metadata": {}}, note="update missing"),
        get(S + "/s1/messages/{m1}", note="after the update"),
        Step(
            "POST",
            S + "/s1/messages/upload",
            data={"peer_id": "alice"},
            note="upload without a file",
        ),
        *[upload(name, content, kind, note) for name, content, kind, note in UPLOADS],
        *[
            Step(
                "POST",
                S + "/form/messages/upload",
                files={"file": ("form.txt", "form fields", "text/plain")},
                data={"peer_id": "alice", **fields},
                note=note,
            )
            for fields, note in UPLOAD_FORMS
        ],
        post(S + "/form/messages/list", note="what the uploads stored"),
        post(W + "/peers/list", unordered=True, note="authors became peers (one batch: no order)"),
        get(S + "/s1/peers", unordered=True, note="authors joined the session"),
    ],
    "Message batches, limits, list pagination and filters, get, update, upload.",
)

CLONE = Script(
    "clone",
    [
        post(
            S + "/{ws}c1/messages",
            _msgs(("alice", "one"), ("bob", "two"), ("alice", "three")),
            save={"m1": "0.id", "m2": "1.id"},
        ),
        put(S + "/{ws}c1", {"metadata": {"topic": "t"}}),
        post(S + "/{ws}c1/clone", save={"c1": "id"}, note="full clone: new id, metadata kept"),
        post(S + "/{c1}/messages/list", note="cloned messages"),
        get(S + "/{c1}/peers", unordered=True, note="cloned members"),
        post(
            S + "/{ws}c1/clone",
            params={"message_id": "{m2}"},
            save={"c2": "id"},
            note="clone up to a message",
        ),
        post(S + "/{c2}/messages/list", note="messages up to the cut"),
        post(
            S + "/{ws}c1/clone",
            params={"message_id": "AAAAAAAAAAAAAAAAAAAAA"},
            note="cut at a missing message",
        ),
        post(S + "/{ws}nothere/clone", note="clone a missing session"),
        post(S + "/list", note="clones are listed"),
    ],
    "Clone with and without a cut-off (session names unique to the run, see clone-cross-ws).",
)

WEBHOOKS = Script(
    "webhooks",
    [
        post(W + "/webhooks", {"url": "https://example.com/hook"}, note="missing workspace"),
        post("/v3/workspaces", {"id": "{ws}"}),
        post(W + "/webhooks", {"url": "https://example.com/hook"}, save={"h1": "id"}),
        post(W + "/webhooks", {"url": "https://example.com/hook"}, note="same url: 200"),
        post(W + "/webhooks", {"url": "ftp://example.com/hook"}, note="scheme"),
        post(W + "/webhooks", {"url": "http://127.0.0.1/hook"}, note="private address"),
        post(W + "/webhooks", {"url": "not a url"}, note="not a url"),
        post(W + "/webhooks", {}, note="url missing"),
        *[post(W + "/webhooks", {"url": f"https://example.com/h{i}"}) for i in range(9)],
        post(W + "/webhooks", {"url": "https://example.com/eleventh"}, note="past the limit"),
        get(W + "/webhooks", unordered=True, note="listed (no ORDER BY on the server)"),
        get(W + "/webhooks/test", note="test event"),
        delete(W + "/webhooks/{h1}", note="deleted: 204"),
        delete(W + "/webhooks/{h1}", note="deleted again"),
        get("/v3/workspaces/{ws2}/webhooks", note="list for a missing workspace"),
        get("/v3/workspaces/{ws2}/webhooks/test", note="test event, missing workspace"),
    ],
    "Webhook endpoints: get-or-create by url, validation, limit, list, delete, test.",
)

UNDERIVED = Script(
    "underived",
    [
        post(W + "/peers", {"id": "alice"}),
        post(S, {"id": "s1", "peers": {"alice": {}}}),
        get(W + "/queue/status", note="queue of an idle workspace"),
        get(W + "/queue/status", params={"session_id": "s1"}, note="one session's queue"),
        get(W + "/peers/alice/card", note="no card yet"),
        get(W + "/peers/nobody/card", note="card of a missing peer"),
        put(W + "/peers/alice/card", {"peer_card": ["likes tea"]}, note="set a card"),
        get(W + "/peers/alice/card", note="the card set"),
        put(W + "/peers/alice/card", {"peer_card": "x"}, note="card must be a list"),
        post(W + "/peers/alice/representation", {}, note="empty representation"),
        post(W + "/peers/nobody/representation", {}, note="representation of a missing peer"),
        get(W + "/peers/alice/context", note="peer context, nothing derived"),
        get(S + "/s1/summaries", note="no summaries yet"),
        get(S + "/nothere/summaries", note="summaries of a missing session"),
        get(S + "/s1/context", note="context of an empty session"),
        get(S + "/nothere/context", note="context of a missing session"),
        post(W + "/conclusions/list", note="no conclusions"),
        post(W + "/conclusions", {"conclusions": []}, note="empty conclusion batch"),
        delete(W + "/conclusions/AAAAAAAAAAAAAAAAAAAAA", note="delete a missing conclusion"),
        post(W + "/schedule_dream", {}, note="dream without observer"),
    ],
    "Derived routes before anything is derived (no LLM needed), and their 404s.",
)

CONTEXT = Script(
    "context",
    [
        post(
            S + "/s1/messages",
            _msgs(*[("alice" if i % 2 else "bob", f"message number {i} " * 5) for i in range(8)]),
        ),
        get(S + "/s1/context", params={"summary": "false"}, note="every message"),
        get(S + "/s1/context", params={"tokens": 1, "summary": "false"}, note="tiny budget"),
        get(S + "/s1/context", params={"tokens": 0}, note="budget below 1"),
        get(S + "/s1/context", params={"tokens": 100_001}, note="budget above the maximum"),
    ],
    "Session context budgets (token counts cut identically only with exact counts).",
)

_NESTED: dict[str, Any] = {"type": "object", "properties": {}}
_LEVEL = _NESTED
for _ in range(21):
    _LEVEL["properties"]["a"] = _LEVEL = {"type": "object", "properties": {}}
RESPONSE_FORMATS_REFUSED: tuple[tuple[Any, str], ...] = (
    ({"type": "string"}, "root not an object"),
    ({}, "no type at the root"),
    ({"type": "array", "items": {"type": "string"}}, "array root"),
    ({"type": ["object", "null"]}, "type list at the root"),
    ({"$ref": "#/$defs/X", "$defs": {"X": {"type": "string"}}}, "$ref root to a string"),
    ({"$ref": "#/$defs/X", "$defs": {"X": {"$ref": "#/$defs/X"}}}, "recursive $ref"),
    ({"$ref": "#/$defs/a/b", "$defs": {}}, "$ref deeper than a definition"),
    ({"$ref": "#/components/X"}, "$ref outside $defs"),
    ({"$ref": "#/$defs/Z", "$defs": {}}, "$ref to an unknown definition"),
    ({"type": "object", "$defs": 5}, "$defs not an object"),
    ({"type": "object", "$defs": {"A": {}}, "definitions": {"A": {}}}, "a name defined twice"),
    ({"type": "object", "allOf": []}, "allOf"),
    ({"type": "object", "patternProperties": {}}, "patternProperties"),
    ({"type": "object", "additionalProperties": {}}, "schema-valued additionalProperties"),
    ({"type": "object", "properties": {"a": True}}, "boolean schema"),
    ({"type": "object", "properties": {"a": 5}}, "property schema not an object"),
    ({"type": "object", "properties": {"a": {"type": "widget"}}}, "unknown type"),
    ({"type": "object", "properties": {"a": {}}}, "property without a type"),
    ({"type": "object", "properties": {"a": {"enum": []}}}, "empty enum"),
    ({"type": "object", "properties": {"a": {"enum": [1.5]}}}, "float in an enum"),
    ({"type": "object", "properties": {"a": {"anyOf": []}}}, "empty anyOf"),
    ({"type": "object", "properties": {"a": {"type": []}}}, "empty type list"),
    ({"type": "object", "properties": {"a": {"type": "object", "if": {}}}}, "nested if"),
    ({"type": "object", "properties": 5}, "properties not an object"),
    ({"type": "object", "required": "a"}, "required not a list"),
    ({"type": "object", "properties": {"": {"type": "string"}}}, "empty property name"),
    (_NESTED, "deeper than 20 levels"),
    (
        {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(501)}},
        "more than 500 nodes",
    ),
)


def _chat(body: dict[str, Any], note: str, peer: str = "alice") -> Step:
    return post(W + f"/peers/{peer}/chat", {"query": "what do you know?", **body}, note=note)


CHAT = Script(
    "chat",
    [
        post(W + "/peers", {"id": "alice"}),
        *[
            _chat({"response_format": schema}, f"response_format: {note}")
            for schema, note in RESPONSE_FORMATS_REFUSED
        ],
        _chat({"target": "nobody"}, "a target that does not exist: 404"),
        _chat({"target": "nobody", "stream": True}, "in a stream the 404 comes after the 200"),
        _chat({"session_id": "nothere"}, "a session that does not exist: 404"),
        post(S, {"id": "s1"}),
        delete(S + "/s1"),
        _chat({"session_id": "s1"}, "a deleted session: 404"),
        _chat(
            {"target": "nobody", "response_format": {"type": "string"}},
            "response_format is checked before the target",
        ),
        _chat(
            {"filters": {"topic": "x"}, "response_format": {"type": "string"}},
            "filters are checked first",
        ),
        _chat({"filters": {"session_id": ["a"]}, "session_id": "b"}, "session_id outside filters"),
        _chat({"target": "nobody"}, "the asking peer is created first", peer="bob"),
        post(W + "/peers/list", note="bob was created"),
        *[
            post(W + "/peers/alice/representation", {"filters": filters, **extra}, note=note)
            for filters, extra, note in (
                ({}, {}, "filters without session_id"),
                ({"session_id": 5}, {}, "session_id of the wrong type"),
                ({"session_id": [""]}, {}, "an empty session id"),
                ({"session_id": {"in": "a"}}, {}, "'in' without a list"),
                ({"session_id": ["a", "a"]}, {}, "repeated ids"),
                ({"session_id": ["a"]}, {"session_id": "b"}, "session_id outside filters"),
            )
        ],
    ],
    "The checks chat makes before its LLM call (response_format, target, session, filters), "
    "and the representation's session filters.",
)

# metadata.score values a real 3.0.12 reads as numbers; each peer holds one.
SCORES: tuple[Any, ...] = (
    5, 20, "NaN", "15", "Infinity", "-Infinity", None, "", "nan", 250.0, " 12 ", "1e2", "+7",
    ".5", "inf", "NAN", "-inf", "1.", "-0", 1.5, -3,
)  # fmt: skip
SCORE_FILTERS: tuple[Any, ...] = (
    {"gt": 10}, {"lt": 10}, {"gte": 5}, {"ne": 5}, {"gt": "10"}, {"gt": "1_0"}, {"gt": 1.5},
    {"gt": "NaN"}, {"lt": "NaN"}, {"ne": "NaN"}, {"gte": "Infinity"}, {"lt": "-inf"},
    {"gt": 1e308}, {"gt": "abc"}, {"lt": "abc"}, {"gt": True}, {"ne": "x"}, {"gt": None},
    {"gt": [1]}, {"gt": {"a": 1}},
)  # fmt: skip
TOKEN_FILTERS: tuple[Any, ...] = (
    {"gt": "NaN"}, {"lt": "NaN"}, {"ne": "NaN"}, {"gt": "inf"}, {"gt": "sNaN"}, {"gt": True},
    {"in": [1.0]}, {"gt": "abc"},
)  # fmt: skip

NUMERIC_FILTERS = Script(
    "numeric_filters",
    [
        *[
            post(W + "/peers", {"id": f"p{i}", "metadata": {"score": score}})
            for i, score in enumerate(SCORES)
        ],
        *[
            post(
                W + "/peers/list",
                {"filters": {"metadata": {"score": comparison}}},
                params={"size": 100},
                note="peers whose score compares",
            )
            for comparison in SCORE_FILTERS
        ],
        post("/v3/workspaces/{ws2}/peers", {"id": "big", "metadata": {"score": "1e400"}}),
        post("/v3/workspaces/{ws2}/peers", {"id": "tiny", "metadata": {"score": "1e-400"}}),
        post(
            "/v3/workspaces/{ws2}/peers/list",
            {"filters": {"metadata": {"score": {"gt": 10}}}},
            note="beyond a double, compared with an int: as numeric",
        ),
        post(
            "/v3/workspaces/{ws2}/peers/list",
            {"filters": {"metadata": {"score": {"gt": 0.5}}}},
            note="compared with a float: a 500 at the tag",
            divergence="real-numeric-filter-500",
        ),
        post(S + "/s1/messages", _msgs(("alice", "hi"), ("alice", "hello there, friend"))),
        *[
            post(
                S + "/s1/messages/list",
                {"filters": {"token_count": comparison}},
                note="token_count compared with a number string",
            )
            for comparison in TOKEN_FILTERS
        ],
    ],
    "Numeric comparisons as PostgreSQL makes them: NaN above every number, int operands as "
    "numeric, float ones as double precision, unset and empty values as NULL.",
)

SERVER_BUGS = Script(
    "server_bugs",
    [
        post("/v3/workspaces", {"id": "{ws}"}, note="(a rejected write never creates it)"),
        post(
            S + "/s1/messages",
            _msgs(("new.peer", "hi")),
            note="invalid author id: a 500 at the tag",
            divergence="real-invalid-author-500",
        ),
        post(S + "/s1/messages/list", note="nothing was stored"),
        post(S, {"id": "{ws}empty", "peers": {"alice": {}}}),
        post(S + "/{ws}empty/clone", save={"e1": "id"}, note="clone without messages: 201"),
        get(
            S + "/{e1}/peers",
            note="but nothing was saved at the tag",
            divergence="real-clone-empty-not-saved",
        ),
        post("/v3/workspaces/{ws2}/sessions", {"id": "{ws}solo", "peers": {"zed": {}}}),
        post(S + "/{ws}solo/messages", _msgs(("alice", "mine"))),
        post("/v3/workspaces/{ws2}/sessions/{ws}twin/messages", _msgs(("alice", "elsewhere"))),
        post(S + "/{ws}twin/messages", _msgs(("alice", "here"))),
        post(
            S + "/{ws}twin/clone",
            note="another workspace has a session of this name: a 500 at the tag",
            divergence="real-clone-cross-workspace",
        ),
        post(
            S + "/{ws}solo/clone",
            note="another workspace's session of this name has only a member: a 500 too",
            divergence="real-clone-cross-workspace",
        ),
        post(
            S,
            {"id": "{e1}"},
            note="the empty clone's id is free: created anew",
            divergence="real-clone-empty-not-saved",
        ),
        post(
            S,
            {"id": "{ws}later", "peers": {"carol": {}, "alice": {}, "bob": {}}},
        ),
        post(
            W + "/peers/list",
            unordered=True,
            note="peers created by one request: ordered by their random primary key",
        ),
    ],
    "Behaviour of the real 3.0.12 the fake declares rather than copies (a declared step that"
    " returns an id comes last: the ids after it would be numbered differently).",
)

#: (list route, filters, whether real 3.0.12 fails on it in the database): operands of
#: each type against each kind of column, measured on 3.0.12 and 3.1
_BIND_CASES: tuple[tuple[str, Any, bool], ...] = (
    ('peers', {'id': {'like': 'a'}}, True),
    ('peers', {'id': {'gte': 3}}, True),
    ('peers', {'id': {'gte': '3'}}, True),
    ('peers', {'id': {'ne': 3}}, True),
    ('peers', {'id': 5}, True),
    ('peers', {'id': True}, True),
    ('peers', {'id': {'a': 1}}, True),
    ('peers', {'id': {'in': [1, 2]}}, True),
    ('peers', {'created_at': {'gte': 5}}, True),
    ('peers', {'created_at': 'x'}, True),
    ('peers', {'created_at': 5}, True),
    ('sessions', {'is_active': 'yes'}, True),
    ('sessions', {'is_active': {'ne': 'x'}}, False),
    ('sessions', {'is_active': 1}, True),
    ('peers', {'metadata': {'n': {'like': 1}}}, False),
    ('peers', {'metadata': {'n': {'gt': 1, 'like': 1}}}, False),
    ('peers', {'id': {'gte': 3, 'like': 1}}, False),
    ('peers', {'id': {'contains': 5}}, False),
    ('peers', {'id': {'lt': 1.5}}, True),
    ('peers', {'id': None}, False),
    ('peers', {'id': [1]}, True),
    ('sessions', {'created_at': '2024-01-01T00:00:00Z'}, True),
    ('sessions', {'created_at': {'in': ['2024-01-01T00:00:00Z']}}, False),
    ('sessions', {'created_at': {'in': [5]}}, True),
    ('messages', {'token_count': '5'}, True),
    ('messages', {'token_count': {'in': ['5']}}, True),
    ('messages', {'token_count': {'gt': '5'}}, False),
    ('messages', {'token_count': True}, True),
    ('peers', {'id': {'in': ['a']}}, False),
    ('peers', {'metadata': 5}, True),
    ('sessions', {'is_active': True}, False),
    ('sessions', {'is_active': {'ne': True}}, True),
    ('sessions', {'is_active': {'in': [True]}}, False),
    ('sessions', {'is_active': {'in': ['x']}}, True),
    ('peers', {'id': {'contains': 'a', 'zz': 1}}, False),
    ('peers', {'id': {'icontains': 5}}, False),
    ('peers', {'created_at': {'contains': '2'}}, False),
    ('sessions', {'is_active': {'contains': 't'}}, True),
    ('peers', {'id': {'ne': 'x'}}, False),
    ('messages', {'peer_id': {'gt': 1}}, True),
    ('messages', {'session_id': 1}, True),
    ('peers', {'created_at': {'gte': '2024-01-01', 'lt': 5}}, True),
    ('peers', {'metadata': 'x'}, True),
    ('peers', {'metadata': [1]}, False),
    ('peers', {'metadata': True}, True),
    ('peers', {'metadata': None}, False),
    ('peers', {'id': {'ne': None}}, True),
    ('peers', {'id': {'gt': None}}, True),
    ('peers', {'id': {'gt': [1]}}, True),
    ('peers', {'id': {'in': [None]}}, False),
    ('sessions', {'is_active': {'ne': None}}, True),
    ('peers', {'created_at': {'contains': '2024-01-01'}}, True),
    ('peers', {'created_at': {'in': ['x']}}, False),
    ('messages', {'token_count': {'contains': '1'}}, True),
    ('messages', {'token_count': {'in': [True]}}, True),
    ('messages', {'token_count': {'ne': None}}, True),
    ('messages', {'token_count': None}, False),
    ('peers', {'created_at': None}, False),
    ('peers', {'created_at': {'gte': '2024-01-01T00:00:00Z'}}, False),
    ('peers', {'id': 5.5}, True),
    ('peers', {'id': {'contains': None}}, False),
    ('peers', {'created_at': {'in': [None]}}, False),
)  # fmt: skip
_LISTS = {"peers": W + "/peers/list", "sessions": S + "/list", "messages": S + "/s1/messages/list"}

FILTER_BINDS = Script(
    "filter_binds",
    [
        post(W + "/peers", {"id": "alice", "metadata": {"n": 5}}),
        post(S, {"id": "s1", "peers": {"alice": {}}}),
        *[
            post(
                _LISTS[route],
                {"filters": filters},
                note="3.0.12 binds the operand as it comes" if fails else "",
                divergence="real-filter-errors-500" if fails else None,
            )
            for route, filters, fails in _BIND_CASES
        ],
        post(W + "/peers", {"id": "odd", "metadata": {"n": "abc"}}),
        post(W + "/peers", {"id": "yes", "metadata": {"n": True}}),
        post(W + "/peers/list", {"filters": {"metadata": {"n": {"gt": "abc"}}}}, note="as text"),
        post(
            W + "/peers/list",
            {"filters": {"metadata": {"n": {"gt": 1}}}},
            note="a row whose text is no number fails the query",
            divergence="real-numeric-filter-500",
        ),
        post(
            W + "/peers/list",
            {"filters": {"id": "alice", "metadata": {"n": {"lt": 1.5}}}},
            note="even when another condition leaves that row out",
            divergence="real-numeric-filter-500",
        ),
        post(
            "/v3/workspaces/{ws2}/peers/list",
            {"filters": {"metadata": {"n": {"gt": 1180591620717411303424}}}},
            note="an int beyond 64 bits does not bind",
            divergence="real-numeric-filter-500",
        ),
    ],
    "Filter operands of every type against every kind of column: 3.0.12 binds them as they "
    "come, and the database fails on those its column does not take.",
)


_LAG = "deletion-at-once"

DELETION = Script(
    "deletion",
    [
        post(S + "/s1/messages", _msgs(("alice", "hello"))),
        post(S, {"id": "s2", "peers": {"bob": {}}}),
        delete(S + "/s1", note="202: the deletion is queued for the deriver"),
        post(S + "/s1/messages/list", note="its messages stay until it runs", divergence=_LAG),
        get(S + "/s1/context", note="in its context too", divergence=_LAG),
        post(S + "/s1/search", {"query": "hello"}, note="and its search", divergence=_LAG),
        get(S + "/s1/peers", note="its members stay", divergence=_LAG),
        get(S + "/s1/peers/alice/config", note="with their config", divergence=_LAG),
        post(W + "/peers/alice/sessions", note="inactive at once", divergence=_LAG),
        post(S + "/list", note="so the session list leaves it out"),
        post(S + "/s1/messages", _msgs(("alice", "again")), note="no new messages: 404"),
        post(S + "/s1/peers", {"carol": {}}, note="no new members: 404"),
        post(S + "/s1/clone", note="no clone"),
        delete(S + "/s1", note="a second delete: 404"),
        post(S, {"id": "s1"}, note="get-or-create: 404 until the deriver has deleted it"),
        delete(S + "/s2"),
        delete(W, note="202: queued as well"),
        delete(W, note="again 202 until the deriver runs", divergence=_LAG),
        post(
            "/v3/workspaces/list",
            {"filters": {"id": "{ws}"}},
            note="still listed",
            divergence=_LAG,
        ),
        post("/v3/workspaces", {"id": "{ws}"}, note="got, not created", divergence=_LAG),
        post(W + "/peers/list", note="its peers stay", divergence=_LAG),
    ],
    "Deletions the deriver carries out after the 202, read before it has run (replayed on a "
    "fake with deriver='manual'; the real deriver took 7 to 13 s here).",
    deriver="manual",
)

SCRIPTS: tuple[Script, ...] = (
    SERVICE,
    WORKSPACES,
    PEERS,
    SESSIONS,
    MEMBERS,
    MESSAGES,
    CLONE,
    WEBHOOKS,
    UNDERIVED,
    CONTEXT,
    CHAT,
    NUMERIC_FILTERS,
    SERVER_BUGS,
    FILTER_BINDS,
    DELETION,
    *RULES31_SCRIPTS,
    *SCOPE_SCRIPTS,
    *SCRIPTS_V32,
)


EVERY_SCRIPT: tuple[Script, ...] = (*SCRIPTS, *COERCION_SCRIPTS)
"""What ``fake-honcho compare`` runs: the exchanges, then the coercion matrix."""


def script_named(name: str) -> Script:
    for script in EVERY_SCRIPT:
        if script.name == name:
            return script
    known = ", ".join(s.name for s in EVERY_SCRIPT)
    raise KeyError(f"no script named {name!r}; known: {known}")
