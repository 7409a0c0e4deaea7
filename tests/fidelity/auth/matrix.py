"""The permission matrix: every operation against every kind of key, on a server with auth on.

One run sets up a workspace (peers alice, bob, carol; session ``s1`` with alice and bob,
``s2`` with carol; a message in ``s1``) with the admin key, then sends each operation
once with each kind of key. Keys are minted here with the server's JWT secret, relative
to the operation's target: "peer" is the path's peer (alice where the path has none),
"member peer" is bob (in ``s1``, not the path's peer), "former member" is dave (added to
``s1`` and removed again: his membership is kept, with ``left_at``), "other peer" is
carol, "session" is the path's session (``s1`` where there is none), "other session" is
``s2``. An operation that destroys its target gets a fresh one per cell.

Each cell is the answer's status and ``detail`` (for an error), with the run's names
replaced by placeholders. Record against a real server with auth on::

    AUTH_JWT_SECRET=... python -m tests.fidelity.auth.matrix URL VERSION

(it writes ``tests/fidelity/auth/<VERSION>/matrix.json``); ``test_matrix.py`` replays it
against the fake. The secret and the keys are never written.
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jwt

from fake_honcho.versions import Feature, HonchoVersion, resolve_version

HERE = Path(__file__).resolve().parent
WRONG_SECRET = "not-the-server-secret-0123456789abcdef"

#: kind of key -> its claims (None: no Authorization header), given the operation's
#: target workspace, peer and session and the other workspace
KINDS: dict[str, Callable[[str, str, str, str], dict[str, Any] | str | None]] = {
    "none": lambda w, p, s, o: None,
    "malformed": lambda w, p, s, o: "not-a-jwt",
    "wrong secret": lambda w, p, s, o: "wrong-secret",
    "no claims": lambda w, p, s, o: {"t": ""},
    "expired": lambda w, p, s, o: {"t": "", "w": w, "exp": "2000-01-01T00:00:00Z"},
    "future exp": lambda w, p, s, o: {"t": "", "w": w, "exp": "2999-01-01T00:00:00Z"},
    "numeric exp, past": lambda w, p, s, o: {"t": "", "w": w, "exp": 1},
    "numeric exp, future": lambda w, p, s, o: {"t": "", "w": w, "exp": 32503680000},
    "peer without workspace": lambda w, p, s, o: {"t": "", "p": p},
    "admin": lambda w, p, s, o: {"t": "", "ad": True},
    "workspace": lambda w, p, s, o: {"t": "", "w": w},
    "other workspace": lambda w, p, s, o: {"t": "", "w": o},
    "peer": lambda w, p, s, o: {"t": "", "w": w, "p": p},
    "other peer": lambda w, p, s, o: {"t": "", "w": w, "p": "carol"},
    "member peer": lambda w, p, s, o: {"t": "", "w": w, "p": "bob"},
    "former member": lambda w, p, s, o: {"t": "", "w": w, "p": "dave"},
    "session": lambda w, p, s, o: {"t": "", "w": w, "s": s},
    "other session": lambda w, p, s, o: {"t": "", "w": w, "s": "s2"},
}


@dataclass(frozen=True)
class Op:
    """One operation: ``path`` with ``{w}`` (the workspace), ``{m}`` (the message id) and
    ``{s}`` (a fresh session, when ``fresh``) filled in per cell."""

    name: str
    method: str
    path: str
    json: Any = None
    params: dict[str, Any] = field(default_factory=dict)
    files: dict[str, tuple[str, bytes, str]] | None = None
    form: dict[str, str] | None = None
    peer: str = "alice"
    session: str = "s1"
    fresh: bool = False
    needs: Feature | None = None


W = "/v3/workspaces/{w}"
S1 = W + "/sessions/s1"
RF = {"type": "bogus"}  # a response_format refused after every auth check (no LLM call)

OPERATIONS: tuple[Op, ...] = (
    Op("create workspace", "POST", "/v3/workspaces", {"id": "{w}"}),
    Op("list workspaces", "POST", "/v3/workspaces/list", {}),
    Op("update workspace", "PUT", W, {"metadata": {"k": 1}}),
    Op("delete workspace (has sessions)", "DELETE", W),
    Op("search workspace", "POST", W + "/search", {"query": "hello"}),
    Op("queue status", "GET", W + "/queue/status"),
    Op(
        "schedule dream", "POST", W + "/schedule_dream", {"observer": "alice", "dream_type": "omni"}
    ),
    Op("create key", "POST", "/v3/keys", params={"workspace_id": "{w}"}),
    Op("create peer (own id)", "POST", W + "/peers", {"id": "alice"}),
    Op("create peer (bob)", "POST", W + "/peers", {"id": "bob"}, peer="bob"),
    Op("list peers", "POST", W + "/peers/list", {}),
    Op("update peer", "PUT", W + "/peers/alice", {"metadata": {"k": 1}}),
    Op("sessions of peer", "POST", W + "/peers/alice/sessions", {}),
    Op("search peer", "POST", W + "/peers/alice/search", {"query": "hello"}),
    Op("representation", "POST", W + "/peers/alice/representation", {}),
    Op(
        "representation filtering s2",
        "POST",
        W + "/peers/alice/representation",
        {"filters": {"session_id": "s2"}},
    ),
    Op("get card", "GET", W + "/peers/alice/card"),
    Op("set card", "PUT", W + "/peers/alice/card", {"peer_card": ["likes tea"]}),
    Op("peer context", "GET", W + "/peers/alice/context"),
    Op("chat", "POST", W + "/peers/alice/chat", {"query": "hi", "response_format": RF}),
    Op(
        "chat naming s1",
        "POST",
        W + "/peers/alice/chat",
        {"query": "hi", "session_id": "s1", "response_format": RF},
    ),
    Op(
        "chat naming s2",
        "POST",
        W + "/peers/alice/chat",
        {"query": "hi", "session_id": "s2", "response_format": RF},
    ),
    Op(
        "chat filtering s2",
        "POST",
        W + "/peers/alice/chat",
        {"query": "hi", "filters": {"session_id": "s2"}, "response_format": RF},
    ),
    Op("create session (s1)", "POST", W + "/sessions", {"id": "s1"}),
    Op("create session (s2)", "POST", W + "/sessions", {"id": "s2"}, session="s2"),
    Op("list sessions", "POST", W + "/sessions/list", {}),
    Op("update session", "PUT", S1, {"metadata": {"k": 1}}),
    Op("delete session", "DELETE", W + "/sessions/{s}", fresh=True),
    Op("clone session", "POST", S1 + "/clone"),
    Op("add peers", "POST", S1 + "/peers", {"alice": {}}),
    Op("set peers", "PUT", S1 + "/peers", {"alice": {}, "bob": {}}),
    Op("remove peers", "DELETE", S1 + "/peers", ["carol"]),
    Op("session peers", "GET", S1 + "/peers"),
    Op("alice's config in s1", "GET", S1 + "/peers/alice/config"),
    Op("bob's config in s1", "GET", S1 + "/peers/bob/config"),
    Op("set config", "PUT", S1 + "/peers/bob/config", {"observe_others": False}),
    Op("session context", "GET", S1 + "/context"),
    Op("session context, alice on alice", "GET", S1 + "/context", params={"peer_target": "alice"}),
    Op(
        "session context, bob's view of alice",
        "GET",
        S1 + "/context",
        params={"peer_target": "alice", "peer_perspective": "bob"},
    ),
    Op(
        "session context naming s1 and s2",
        "GET",
        S1 + "/context",
        params={"peer_target": "alice", "sessions": ["s1", "s2"]},
        needs=Feature.CONTEXT_SESSIONS,
    ),
    Op("summaries", "GET", S1 + "/summaries"),
    Op("search session", "POST", S1 + "/search", {"query": "hello"}),
    Op(
        "create messages",
        "POST",
        S1 + "/messages",
        {"messages": [{"peer_id": "alice", "content": "hi"}]},
    ),
    Op(
        "upload",
        "POST",
        S1 + "/messages/upload",
        files={"file": ("a.txt", b"hello there", "text/plain")},
        form={"peer_id": "alice"},
    ),
    Op(
        "create messages (trailing slash)",
        "POST",
        S1 + "/messages/",
        {"messages": [{"peer_id": "alice", "content": "hi"}]},
    ),
    Op("list messages", "POST", S1 + "/messages/list", {}),
    Op("get message", "GET", S1 + "/messages/{m}"),
    Op("update message", "PUT", S1 + "/messages/{m}", {"metadata": {"k": 1}}),
    Op("messages of s2", "POST", W + "/sessions/s2/messages/list", {}, session="s2"),
    Op(
        "create conclusions",
        "POST",
        W + "/conclusions",
        {"conclusions": [{"content": "x", "observer_id": "alice", "observed_id": "alice"}]},
    ),
    Op("list conclusions", "POST", W + "/conclusions/list", {}),
    Op(
        "query conclusions",
        "POST",
        W + "/conclusions/query",
        {"query": "x", "filters": {"observer": "alice", "observed": "alice"}},
    ),
    Op("delete conclusion", "DELETE", W + "/conclusions/nonexistent"),
    Op("create webhook", "POST", W + "/webhooks", {"url": "https://example.com/hook"}),
    Op("list webhooks", "GET", W + "/webhooks"),
    Op("test webhook", "GET", W + "/webhooks/test"),
    Op("delete webhook", "DELETE", W + "/webhooks/nonexistent"),
    Op("create scope", "POST", W + "/scopes", {"id": "team"}, needs=Feature.SCOPES),
    Op("list scopes", "POST", W + "/scopes/list", {}, needs=Feature.SCOPES),
    Op("get scope", "GET", W + "/scopes/team", needs=Feature.SCOPES),
    Op("scope status", "GET", W + "/scopes/team/status", needs=Feature.SCOPES),
    Op(
        "add scope sessions",
        "POST",
        W + "/scopes/team/sessions",
        {"session_ids": ["s1"]},
        needs=Feature.SCOPES,
    ),
    Op("scope sessions", "POST", W + "/scopes/team/sessions/list", {}, needs=Feature.SCOPES),
    Op(
        "remove scope session",
        "DELETE",
        W + "/scopes/team/sessions/s2",
        session="s2",
        needs=Feature.SCOPES,
    ),
    Op(
        "representation with scope",
        "POST",
        W + "/peers/alice/representation",
        {"scope": "team"},
        needs=Feature.SCOPES,
    ),
    Op(
        "session with scopes",
        "POST",
        W + "/sessions",
        {"id": "s1", "scopes": ["team"]},
        needs=Feature.SCOPES,
    ),
    Op(
        "workspace chat",
        "POST",
        W + "/chat",
        {"query": "hi", "response_format": RF},
        needs=Feature.WORKSPACE_CHAT,
    ),
)


def operations(version: HonchoVersion) -> list[Op]:
    return [op for op in OPERATIONS if op.needs is None or version.speaks(op.needs)]


def _fill(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        for placeholder, name in names.items():
            value = value.replace("{" + placeholder + "}", name)
        return value
    if isinstance(value, dict):
        return {_fill(k, names): _fill(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(item, names) for item in value]
    return value


class Matrix:
    """Runs the matrix against ``client`` (a server with auth on, its JWT ``secret``)."""

    def __init__(self, client: httpx.Client, secret: str, version: HonchoVersion) -> None:
        self.client = client
        self.secret = secret
        self.version = version
        tag = uuid.uuid4().hex[:10]
        self.ws = f"authm{tag}"
        self.other = f"authm{tag}x"
        self.message = ""

    def key(self, claims: dict[str, Any] | str | None) -> dict[str, str]:
        """The headers of a request with this key (a real server closes the connection
        after a 500, so none is reused)."""
        return {"Connection": "close", **self._authorization(claims)}

    def _authorization(self, claims: dict[str, Any] | str | None) -> dict[str, str]:
        if claims is None:
            return {}
        if claims == "not-a-jwt":
            return {"Authorization": "Bearer not-a-jwt"}
        if claims == "wrong-secret":
            token = jwt.encode({"t": "", "ad": True}, WRONG_SECRET, algorithm="HS256")
        else:
            assert isinstance(claims, dict)
            token = jwt.encode(claims, self.secret.encode("utf-8"), algorithm="HS256")
        return {"Authorization": f"Bearer {token}"}

    def admin(self, method: str, path: str, body: Any = None) -> httpx.Response:
        answer = self.client.request(
            method, path, json=body, headers=self.key({"t": "", "ad": True})
        )
        assert answer.status_code < 300, (method, path, answer.status_code, answer.text)
        return answer

    def setup(self) -> None:
        w = f"/v3/workspaces/{self.ws}"
        self.admin("POST", "/v3/workspaces", {"id": self.ws})
        self.admin("POST", "/v3/workspaces", {"id": self.other})
        for peer in ("alice", "bob", "carol", "dave"):
            self.admin("POST", w + "/peers", {"id": peer})
        self.admin("POST", w + "/sessions", {"id": "s1", "peers": {"alice": {}, "bob": {}}})
        self.admin("POST", w + "/sessions/s1/peers", {"dave": {}})
        self.admin("DELETE", w + "/sessions/s1/peers", ["dave"])
        self.admin("POST", w + "/sessions", {"id": "s2", "peers": {"carol": {}}})
        sent = self.admin(
            "POST",
            w + "/sessions/s1/messages",
            {"messages": [{"peer_id": "alice", "content": "hello"}]},
        )
        self.message = sent.json()[0]["id"]
        self.admin(
            "POST",
            w + "/sessions/s2/messages",
            {"messages": [{"peer_id": "carol", "content": "hello"}]},
        )
        if self.version.speaks(Feature.SCOPES):
            self.admin("POST", w + "/scopes", {"id": "team"})

    def cells(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """(operation, kind of key, answer) for every cell, in a fixed order."""
        for number, op in enumerate(operations(self.version)):
            for kind, claims_of in KINDS.items():
                session = op.session
                names = {"w": self.ws, "m": self.message}
                if op.fresh:
                    session = f"fresh{number}-{list(KINDS).index(kind)}"
                    self.admin(
                        "POST",
                        f"/v3/workspaces/{self.ws}/sessions",
                        {"id": session, "peers": {"alice": {}, "bob": {}}},
                    )
                    names["s"] = session
                claims = claims_of(self.ws, op.peer, session, self.other)
                answer = self.client.request(
                    op.method,
                    _fill(op.path, names),
                    json=_fill(op.json, names) if op.files is None else None,
                    params=_fill(op.params, names),
                    files=op.files,
                    data=op.form,
                    headers=self.key(claims),
                )
                yield op.name, kind, self.cell(answer)

    def cell(self, answer: httpx.Response) -> dict[str, Any]:
        found: dict[str, Any] = {"status": answer.status_code}
        if answer.status_code >= 400:
            try:
                detail = answer.json().get("detail")
            except ValueError:
                detail = answer.text
            found["detail"] = self.normalise(detail)
        return found

    def normalise(self, value: Any) -> Any:
        text = json.dumps(value)
        for name, placeholder in (
            (self.other, "<other>"),
            (self.ws, "<ws>"),
            (self.message, "<m>"),
        ):
            if name:
                text = text.replace(name, placeholder)
        return json.loads(text)

    def run(self) -> dict[str, dict[str, dict[str, Any]]]:
        self.setup()
        table: dict[str, dict[str, dict[str, Any]]] = {}
        for op, kind, cell in self.cells():
            table.setdefault(op, {})[kind] = cell
        return table


def recording_path(version: str) -> Path:
    return HERE / version / "matrix.json"


def load(version: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(recording_path(version).read_text())
    return loaded


def record(url: str, version_name: str, secret: str, runs: int = 2) -> None:
    """Record the matrix ``runs`` times; the cells must agree run after run."""
    version = resolve_version(version_name)
    tables = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for _ in range(runs):
            tables.append(Matrix(client, secret, version).run())
    unstable = [
        (op, kind)
        for op in tables[0]
        for kind in tables[0][op]
        if len({json.dumps(t[op][kind]) for t in tables}) > 1
    ]
    assert not unstable, f"cells that differ between runs: {unstable}"
    path = recording_path(version.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "server": f"real Honcho {version.name} with AUTH_USE_AUTH=true",
        "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
        "runs": runs,
        "kinds": list(KINDS),
        "cells": tables[0],
    }
    path.write_text(json.dumps(payload, indent=1, sort_keys=False) + "\n")
    count = sum(len(row) for row in tables[0].values())
    print(f"{path}: {len(tables[0])} operations x {len(KINDS)} kinds = {count} cells")


if __name__ == "__main__":
    record(sys.argv[1], sys.argv[2], os.environ["AUTH_JWT_SECRET"])
