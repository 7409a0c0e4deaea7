"""The raw-HTTP probes: per operation, requests a client library would never send as-is.

Each :class:`Group` is one operation's probes of one family, run in a fresh workspace after
the setup the operation's path needs (a peer, a session, a message, ...). Families:

* ``content-type``: the operation's body under no, plain-text, form, charset, ``+json`` and
  upper-case content types;
* ``body``: empty, truncated, non-object, invalid UTF-8, gzip-encoded, BOM, deeply nested;
* ``methods``: HEAD, OPTIONS, every other method, a trailing slash;
* ``paths``: each path parameter spelled with a space, an accent, an emoji, ``.``, ``..``,
  a dot inside, 1,000 characters;
* ``query``: odd pagination and flags, unknown and repeated names, bad escapes;
* ``headers``: CORS preflights and simple requests from allowed and other origins, a bogus
  Authorization, Accept, chunked transfer.

A request is a template: ``{ws}`` is the group's workspace, ``{msg}`` and ``{webhook}`` the
ids the setup's answers gave; each side (real server, fake) resolves them with its own
(``{conclusion}`` is always an unknown id: a server without embeddings stores none). The
request line, headers and body are otherwise sent byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from fake_honcho.versions import VERSIONS, Feature, HonchoVersion

__all__ = ["Group", "Request", "groups_for"]

ORIGIN_OK = "http://localhost"
ORIGIN_OTHER = "http://evil.example"


@dataclass(frozen=True)
class Request:
    """One raw request: ``body`` is text (bytes outside UTF-8 as lone surrogates, PEP 383),
    ``gzip`` compresses it after the templates are resolved; ``capture`` names the value the
    answer holds at ``capture_at`` (a dotted path) for later templates."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = ()
    body: str | None = None
    gzip: bool = False
    chunked: bool = False
    capture: str | None = None
    capture_at: str | None = None

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"method": self.method, "target": self.target}
        if self.headers:
            data["headers"] = [list(pair) for pair in self.headers]
        if self.body is not None:
            data["body"] = self.body
        for flag in ("gzip", "chunked"):
            if getattr(self, flag):
                data[flag] = True
        if self.capture:
            data["capture"] = [self.capture, self.capture_at]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Request:
        capture = data.get("capture") or (None, None)
        return cls(
            method=data["method"],
            target=data["target"],
            headers=tuple((name, value) for name, value in data.get("headers", ())),
            body=data.get("body"),
            gzip=data.get("gzip", False),
            chunked=data.get("chunked", False),
            capture=capture[0],
            capture_at=capture[1],
        )


@dataclass(frozen=True)
class Probe:
    name: str
    request: Request
    #: Only the status and headers are compared on a success (its body depends on the deriver).
    volatile: bool = False


@dataclass(frozen=True)
class Group:
    """One operation and family: the setup requests, then the probes, in one workspace."""

    name: str
    setup: tuple[Request, ...]
    probes: tuple[Probe, ...] = field(default=())


JSON_CT = (("Content-Type", "application/json"),)


def _json(method: str, target: str, body: Any, **kw: Any) -> Request:
    return Request(method, target, JSON_CT, json.dumps(body), **kw)


@dataclass(frozen=True)
class Op:
    method: str
    path: str
    #: A body the operation parses (for the LLM's routes, one with a type error, so the
    #: answer shows the body was read as JSON without asking a model).
    body: Any = None
    volatile: bool = False
    needs: Feature | None = None
    query: tuple[str, ...] = ()
    #: Path parameters other than :data:`PARAMS`' (created by the setup).
    params: tuple[tuple[str, str], ...] = ()


W = "/v3/workspaces/{workspace_id}"
S = W + "/sessions/{session_id}"
P = W + "/peers/{peer_id}"
SC = W + "/scopes/{scope_id}"
PAGED = ("page", "size", "reverse")
BAD_QUERY = {"query": 5}

OPS: tuple[Op, ...] = (
    Op("GET", "/health"),
    Op("POST", "/v3/workspaces", {"id": "{ws}"}),
    # lists every workspace of the server: volatile on a shared one
    Op("POST", "/v3/workspaces/list", {}, volatile=True, query=PAGED),
    Op("PUT", W, {"metadata": {"k": 1}}),
    Op("DELETE", W),
    Op("POST", W + "/search", {"query": "tea"}),
    Op("GET", W + "/queue/status", volatile=True),
    Op("POST", W + "/schedule_dream", {"observer": 5, "dream_type": "omni"}),
    Op("POST", W + "/chat", BAD_QUERY, needs=Feature.WORKSPACE_CHAT),
    Op("POST", W + "/peers/list", {}, query=PAGED),
    Op("POST", W + "/peers", {"id": "bob"}),
    Op("PUT", P, {"metadata": {"k": 1}}),
    Op("POST", P + "/sessions", {}, query=PAGED),
    Op("POST", P + "/chat", BAD_QUERY),
    Op("POST", P + "/representation", {"max_conclusions": "x"}),
    Op("GET", P + "/card", volatile=True),
    Op("PUT", P + "/card", {"peer_card": ["likes tea"]}),
    Op("GET", P + "/context", volatile=True),
    Op("POST", P + "/search", {"query": "tea"}),
    Op("POST", W + "/sessions/list", {}, query=PAGED),
    Op("POST", W + "/sessions", {"id": "s2"}),
    Op("PUT", S, {"metadata": {"k": 1}}),
    Op("DELETE", S),
    # a session name no other workspace has: the real clone copies every workspace's
    # same-named session (divergence real-clone-cross-workspace)
    Op("POST", S + "/clone", params=(("session_id", "{ws}"),)),
    Op("POST", S + "/peers", {"bob": {}}),
    Op("PUT", S + "/peers", {"alice": {}}),
    Op("DELETE", S + "/peers", ["alice"]),
    Op("GET", S + "/peers/{peer_id}/config"),
    Op("PUT", S + "/peers/{peer_id}/config", {"observe_others": True}),
    Op("GET", S + "/peers", query=PAGED),
    Op("GET", S + "/context", volatile=True),
    Op("GET", S + "/summaries", volatile=True),
    Op("POST", S + "/search", {"query": "tea"}),
    Op("POST", SC[:-11], {"id": "sc2"}, needs=Feature.SCOPES),
    Op("POST", W + "/scopes/list", {}, needs=Feature.SCOPES, query=PAGED),
    Op("GET", SC, needs=Feature.SCOPES),
    Op("POST", SC + "/sessions", {"session_ids": ["s1"]}, needs=Feature.SCOPES, volatile=True),
    Op("DELETE", SC + "/sessions/{session_id}", needs=Feature.SCOPES, volatile=True),
    Op("POST", SC + "/sessions/list", {}, needs=Feature.SCOPES, query=PAGED),
    Op("GET", SC + "/status", needs=Feature.SCOPES, volatile=True),
    Op("POST", S + "/messages", {"messages": [{"peer_id": "alice", "content": "more tea"}]}),
    Op("POST", S + "/messages/list", {}, query=PAGED),
    Op("GET", S + "/messages/{message_id}"),
    Op("PUT", S + "/messages/{message_id}", {"metadata": {"k": 1}}),
    Op(
        "POST",
        W + "/conclusions",
        {"conclusions": [{"content": "x", "observer_id": "alice", "observed_id": 5}]},
    ),
    Op("POST", W + "/conclusions/list", {}, volatile=True, query=PAGED),
    Op("POST", W + "/conclusions/query", BAD_QUERY),
    Op("DELETE", W + "/conclusions/{conclusion_id}"),
    Op("POST", W + "/webhooks", {"url": "https://example.com/hook"}),
    Op("GET", W + "/webhooks", query=PAGED),
    Op("DELETE", W + "/webhooks/{endpoint_id}"),
    Op("GET", W + "/webhooks/test"),
)

#: Every operation the probes leave out, and why.
UNPROBED = {
    ("POST", S + "/messages/upload"): "multipart: its own family below",
    ("POST", S + "/messages/"): "the same handler as .../messages",
    ("POST", "/v3/keys"): "405 with auth off on both; auth's issue (31) probes it",
}

PARAMS = {
    "workspace_id": "{ws}",
    "session_id": "s1",
    "peer_id": "alice",
    "message_id": "{msg}",
    "conclusion_id": "{conclusion}",
    "endpoint_id": "{webhook}",
    "scope_id": "sc1",
}

ODD_IDS = {
    "space": "a%20b",
    "accent": "%C3%A9",
    "emoji": "%F0%9F%98%80",
    "dot": ".",
    "dotdot": "..",
    "inner-dot": "a.b",
    "long": "a" * 1000,
}


def _target(path: str, **override: str) -> str:
    for name, value in PARAMS.items():
        path = path.replace("{" + name + "}", override.get(name, value))
    return path


def _setup(op: Op, version: HonchoVersion) -> tuple[Request, ...]:
    ws = "/v3/workspaces/{ws}"
    sid = dict(op.params).get("session_id", "s1")
    steps = [
        _json("POST", "/v3/workspaces", {"id": "{ws}"}),
        _json("POST", f"{ws}/sessions", {"id": sid, "peers": {"alice": {}}}),
    ]
    if "{message_id}" in op.path:
        steps.append(
            _json(
                "POST",
                f"{ws}/sessions/s1/messages",
                {"messages": [{"peer_id": "alice", "content": "hello tea"}]},
                capture="msg",
                capture_at="0.id",
            )
        )
    if "{endpoint_id}" in op.path or op.path.endswith("/webhooks/test"):
        steps.append(
            _json(
                "POST",
                f"{ws}/webhooks",
                {"url": "https://example.com/h"},
                capture="webhook",
                capture_at="id",
            )
        )
    if "{scope_id}" in op.path and version.speaks(Feature.SCOPES):
        steps.append(_json("POST", f"{ws}/scopes", {"id": "sc1"}))
    return tuple(steps)


def _with_body(
    op: Op, target: str, headers: tuple[tuple[str, str], ...], body: str | None, **kw: Any
) -> Request:
    return Request(op.method, target, headers, body, **kw)


def _content_type(op: Op) -> list[Probe]:
    target = _target(op.path, **dict(op.params))
    text = json.dumps(op.body if op.body is not None else {})
    kinds = {
        "none": (),
        "text-plain": (("Content-Type", "text/plain;charset=UTF-8"),),
        "form": (("Content-Type", "application/x-www-form-urlencoded"),),
        "json": JSON_CT,
        "json-charset": (("Content-Type", "application/json; charset=utf-8"),),
        "plus-json": (("Content-Type", "application/vnd.api+json"),),
        "upper": (("Content-Type", "APPLICATION/JSON"),),
        "multipart": (("Content-Type", "multipart/form-data; boundary=x"),),
        "json-patch": (("Content-Type", "application/json-patch+json"),),
        "bad-header": (("Content-Type", ";;"),),
    }
    return [
        Probe(f"ct-{name}", _with_body(op, target, headers, text), op.volatile)
        for name, headers in kinds.items()
    ]


def _body(op: Op) -> list[Probe]:
    target = _target(op.path, **dict(op.params))
    text = json.dumps(op.body if op.body is not None else {})
    bodies = {
        "empty": "",
        "truncated": text[:-1],
        "list": "[]",
        "null": "null",
        "string": '"x"',
        "number": "5",
        "invalid-utf8": '{"id": "\udcff\udcfe"}',
        "invalid-utf8-outside": '\udcff{"id": "a"}',
        "bom": "\ufeff" + text,
        "nan": '{"x": NaN}',
        "deep": "[" * 5000 + "]" * 5000,
        "trailing": text + " x",
    }
    probes = [
        Probe(f"body-{name}", _with_body(op, target, JSON_CT, body), op.volatile)
        for name, body in bodies.items()
    ]
    probes.append(
        Probe(
            "body-gzip",
            _with_body(op, target, (*JSON_CT, ("Content-Encoding", "gzip")), text, gzip=True),
            op.volatile,
        )
    )
    probes.append(
        Probe(
            "body-utf16",
            _with_body(
                op, target, JSON_CT, text.encode("utf-16").decode("utf-8", "surrogateescape")
            ),
            op.volatile,
        )
    )
    return probes


METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")


def _methods(op: Op) -> list[Probe]:
    target = _target(op.path, **dict(op.params))
    probes = [
        Probe(f"method-{method.lower()}", Request(method, target), op.volatile)
        for method in METHODS
        if method != op.method
    ]
    probes.append(
        Probe(
            "method-trailing-slash",
            Request(
                op.method,
                target + "/",
                JSON_CT if op.body is not None else (),
                None if op.body is None else json.dumps(op.body),
            ),
            op.volatile,
        )
    )
    return probes


def _paths(op: Op) -> list[Probe]:
    names = [name for name in PARAMS if "{" + name + "}" in op.path]
    body = None if op.body is None else json.dumps(op.body)
    headers = JSON_CT if body is not None else ()
    probes = []
    for name in names:
        for label, value in ODD_IDS.items():
            target = _target(op.path, **{**dict(op.params), name: value})
            probes.append(
                Probe(
                    f"path-{name}-{label}", Request(op.method, target, headers, body), op.volatile
                )
            )
    probes.append(
        Probe(
            "path-double-slash",
            Request(
                op.method,
                _target(op.path, **dict(op.params)).replace("/v3/", "/v3//"),
                headers,
                body,
            ),
            op.volatile,
        )
    )
    probes.append(
        Probe(
            "path-encoded-slash",
            Request(
                op.method,
                _target(op.path, **dict(op.params)).replace("/v3/workspaces", "/v3%2Fworkspaces"),
                headers,
                body,
            ),
            op.volatile,
        )
    )
    return probes


def _query(op: Op) -> list[Probe]:
    base = _target(op.path, **dict(op.params))
    body = None if op.body is None else json.dumps(op.body)
    headers = JSON_CT if body is not None else ()
    queries = {"unknown": "zzz=1", "bad-escape": "a=%zz", "latin": "a=%ff", "empty": ""}
    if "page" in op.query:
        queries |= {
            "page-0": "page=0",
            "size-0": "size=0",
            "size-101": "size=101",
            "page-text": "page=abc",
            "page-float": "page=1.0",
            "page-repeated": "page=2&page=1",
            "reverse-maybe": "reverse=maybe",
            "reverse-yes": "reverse=yes",
            "page-huge": "page=99999999999999999999",
            "size-space": "size=%201",
        }
    return [
        Probe(f"query-{name}", Request(op.method, f"{base}?{query}", headers, body), op.volatile)
        for name, query in queries.items()
    ]


def _headers(op: Op) -> list[Probe]:
    target = _target(op.path, **dict(op.params))
    body = None if op.body is None else json.dumps(op.body)
    json_ct = JSON_CT if body is not None else ()
    preflight = (("Access-Control-Request-Method", op.method),)
    wanted = (("Access-Control-Request-Headers", "content-type,authorization"),)
    cases: dict[str, Request] = {
        "preflight-ok": Request("OPTIONS", target, (("Origin", ORIGIN_OK), *preflight, *wanted)),
        "preflight-other": Request("OPTIONS", target, (("Origin", ORIGIN_OTHER), *preflight)),
        "preflight-bad-method": Request(
            "OPTIONS", target, (("Origin", ORIGIN_OK), ("Access-Control-Request-Method", "FOO"))
        ),
        "preflight-private": Request(
            "OPTIONS",
            target,
            (("Origin", ORIGIN_OK), *preflight, ("Access-Control-Request-Private-Network", "true")),
        ),
        "preflight-no-origin": Request("OPTIONS", target, preflight),
        "origin-ok": Request(op.method, target, (("Origin", ORIGIN_OK), *json_ct), body),
        "origin-other": Request(op.method, target, (("Origin", ORIGIN_OTHER), *json_ct), body),
        "origin-api": Request(
            op.method, target, (("Origin", "https://api.honcho.dev"), *json_ct), body
        ),
        "bearer": Request(
            op.method, target, (("Authorization", "Bearer nonsense"), *json_ct), body
        ),
        "accept-html": Request(op.method, target, (("Accept", "text/html"), *json_ct), body),
    }
    if body is not None:
        cases["chunked"] = Request(op.method, target, json_ct, body, chunked=True)
    return [Probe(f"header-{name}", request, op.volatile) for name, request in cases.items()]


FAMILIES = {
    "content-type": _content_type,
    "body": _body,
    "methods": _methods,
    "paths": _paths,
    "query": _query,
    "headers": _headers,
}
BODY_FAMILIES = ("content-type", "body")


def _slug(op: Op) -> str:
    path = op.path.replace("/v3/workspaces", "ws").replace("{", "").replace("}", "")
    path = path.replace("_id", "").strip("/").replace("/", ".") or "root"
    return f"{op.method.lower()}.{path}"


def _upload_group(version: HonchoVersion) -> Group:
    """messages/upload: the multipart form with and without its content type's boundary."""
    target = _target(S + "/messages/upload")
    form = (
        '--b\r\nContent-Disposition: form-data; name="peer_id"\r\n\r\nalice\r\n'
        '--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n'
        "Content-Type: text/plain\r\n\r\nhello tea\r\n--b--\r\n"
    )
    cases = {
        "ok": (("Content-Type", "multipart/form-data; boundary=b"),),
        "no-boundary": (("Content-Type", "multipart/form-data"),),
        "json": JSON_CT,
        "none": (),
        "urlencoded": (("Content-Type", "application/x-www-form-urlencoded"),),
    }
    probes = [
        Probe(f"upload-{name}", Request("POST", target, headers, form))
        for name, headers in cases.items()
    ]
    probes.append(
        Probe(
            "upload-empty-form",
            Request(
                "POST", target, (("Content-Type", "multipart/form-data; boundary=b"),), "--b--\r\n"
            ),
        )
    )
    probes.append(
        Probe(
            "upload-urlencoded-fields",
            Request(
                "POST",
                target,
                (("Content-Type", "application/x-www-form-urlencoded"),),
                "peer_id=alice&file=x",
            ),
        )
    )
    return Group(
        "post.ws.sessions.session.messages.upload.body",
        _setup(Op("POST", S), version),
        tuple(probes),
    )


def _scope_answers_group() -> Group:
    """3.1's scope answers: a deleted session leaves its scopes' list at once; a missing
    reserved name is looked up (404) before the scope rule, as observed_id of a conclusion
    and as the peer_perspective of session context."""
    ws = "/v3/workspaces/{ws}"
    setup = (
        _json("POST", "/v3/workspaces", {"id": "{ws}"}),
        _json("POST", f"{ws}/sessions", {"id": "s1", "peers": {"alice": {}}}),
        _json("POST", f"{ws}/sessions", {"id": "s2", "peers": {"alice": {}}}),
        _json("POST", f"{ws}/scopes", {"id": "sc1"}),
        _json("POST", f"{ws}/scopes/sc1/sessions", {"session_ids": ["s1", "s2"]}),
        Request("DELETE", f"{ws}/sessions/s1"),
    )
    conclusion = {"content": "x", "observer_id": "alice", "observed_id": "scope.nope"}
    context = f"{ws}/sessions/s2/context?peer_target=alice&peer_perspective="
    probes = (
        Probe("scope-sessions-after-delete", _json("POST", f"{ws}/scopes/sc1/sessions/list", {})),
        Probe(
            "conclusion-of-missing-scope",
            _json("POST", f"{ws}/conclusions", {"conclusions": [conclusion]}),
        ),
        Probe(
            "conclusion-of-scope",
            _json(
                "POST",
                f"{ws}/conclusions",
                {"conclusions": [{**conclusion, "observed_id": "scope.sc1"}]},
            ),
        ),
        Probe("context-from-missing-scope", Request("GET", context + "scope.nope")),
        Probe("context-from-missing-peer", Request("GET", context + "bob")),
        Probe(
            "context-of-missing-peer", Request("GET", f"{ws}/sessions/s2/context?peer_target=bob")
        ),
        Probe("context-from-scope", Request("GET", context + "scope.sc1")),
    )
    return Group("scopes.answers.body", setup, probes)


def groups_for(version: HonchoVersion | str) -> list[Group]:
    """Every group the version's operations get (operations it does not serve still get
    the method and path families: their 404s and 405s are answers too)."""
    version = VERSIONS[version] if isinstance(version, str) else version
    groups = []
    for op in OPS:
        for family, build in FAMILIES.items():
            if family in BODY_FAMILIES and op.body is None:
                continue
            if (
                op.needs is not None
                and not version.speaks(op.needs)
                and family not in ("methods", "paths")
            ):
                continue
            groups.append(Group(f"{_slug(op)}.{family}", _setup(op, version), tuple(build(op))))
    groups.append(_upload_group(version))
    if version.speaks(Feature.SCOPES):
        groups.append(_scope_answers_group())
    return groups
