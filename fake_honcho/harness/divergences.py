"""The divergence register: every known difference between the fake and a real Honcho,
and what the fake's newer versions model from the clients rather than from a server.

The fake copies real Honcho wherever a client can tell; where it deliberately does
not (a real-server bug, a race, an order the server does not promise), the
difference is declared here instead of hidden. Each :class:`Divergence` says what
differs, why the fake keeps its own behaviour, and the evidence; its ``probe`` is a
short HTTP exchange that shows the difference. ``tests/fidelity/test_divergences.py``
runs every probe against a served fake (and, with ``--honcho-url``, against a real
server) and fails when an entry no longer differs, so the register stays honest.

The contract suites consult it: a test named in an entry's ``affects`` is skipped
against a real server with the entry's id and summary as the reason (see
:func:`affecting`). ``python -m fake_honcho.divergences`` prints the user-facing page
(``docs/divergences.md``, kept in step by a test).

Each entry says which versions it applies to, by feature (``fixed_by``: a real-server bug
a later version fixed, so no divergence there; ``since``: a difference in behaviour a
version added). Against a real server only the entries that apply to what it serves (as
probed by :mod:`fake_honcho.drift.probe`) are checked, and only they skip tests.

A ``real-bug`` entry whose answer is deterministic (a 500 the same request always gets)
is ``reproduced``: by default the fake answers as the real server does, and
``FakeHoncho(real_bugs="correct")`` gives the corrected answer the entry describes.

To add an entry: write a probe (the same code must run against the fake and a real
server; use a fresh workspace id derived from ``workspace``), record what it returns
on each, and list the contract tests that cannot pass on the real server because of it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from fake_honcho.versions import VERSIONS, Feature, HonchoVersion

__all__ = [
    "DIVERGENCES",
    "UNSTABLE",
    "UNVERIFIED",
    "Divergence",
    "Kind",
    "Probe",
    "affecting",
    "divergence",
]

#: ``real-bug``: the real server is wrong; ``not-copied``: real behaviour the fake
#: chooses not to reproduce; ``unspecified``: the real server promises nothing and
#: the fake picks one deterministic answer; ``modelled``: no server source or server
#: here shows the behaviour, so the fake models it from what today's SDKs send and
#: parse (named in ``evidence``): modelled, not verified.
Kind = Literal["real-bug", "not-copied", "unspecified", "modelled"]
#: ``probe(client, workspace) -> observed``: ``client`` has the server's base URL;
#: ``workspace`` is a fresh prefix the probe may use for any workspace ids it needs.
Probe = Callable[[httpx.Client, str], Any]


class _Unstable:
    """Marks a real result no single run reproduces (a race, an unspecified order)."""

    def __repr__(self) -> str:
        return "UNSTABLE"


UNSTABLE: Any = _Unstable()


class _Unverified:
    """Marks a real result nobody has seen: the behaviour is modelled (kind ``modelled``)."""

    def __repr__(self) -> str:
        return "UNVERIFIED"


UNVERIFIED: Any = _Unverified()


@dataclass(frozen=True)
class Divergence:
    """One declared difference. ``fake_result``/``real_result`` are what ``probe`` returned."""

    id: str
    kind: Kind
    summary: str
    real: str
    fake: str
    reason: str
    evidence: str
    probe: Probe
    fake_result: Any
    real_result: Any
    #: Contract tests (``Class.test_name``) that cannot pass on such a real server because of it.
    affects: tuple[str, ...] = ()
    #: The entry applies only to servers without this feature (a later version fixed it).
    fixed_by: Feature | None = None
    #: The entry applies only to servers with this feature (a version brought it).
    since: Feature | None = None
    #: A real bug the fake reproduces by default (``FakeHoncho(real_bugs="reproduce")``):
    #: it answers ``real_result``; ``fake`` and ``fake_result`` are what it answers with
    #: ``real_bugs="correct"``.
    reproduced: bool = False
    #: ``FakeHoncho`` settings the probe needs to show it, as ``(name, value)`` pairs (a
    #: deriver that has not run yet: ``(("deriver", "manual"),)``).
    fake_settings: tuple[tuple[str, Any], ...] = ()

    def applies_to(self, served: HonchoVersion | Iterable[Feature]) -> bool:
        """Whether a real server of this version (or serving these features, as probed)
        differs from the fake here."""
        served = set(served.features if isinstance(served, HonchoVersion) else served)
        if self.fixed_by is not None and self.fixed_by in served:
            return False
        return self.since is None or self.since in served

    @property
    def versions(self) -> tuple[str, ...]:
        """The names of the versions the entry applies to, oldest first."""
        return tuple(name for name, version in VERSIONS.items() if self.applies_to(version))

    def differs(self, real_bugs: str) -> bool:
        """Whether a fake with this ``real_bugs`` setting answers other than the real server."""
        return not self.reproduced or real_bugs == "correct"

    @property
    def skip_reason(self) -> str:
        versions = ", ".join(self.versions)
        return f"real Honcho {versions} differs here (divergence {self.id}): {self.summary}"

    @property
    def first_version(self) -> HonchoVersion:
        """The oldest version a real server of which differs here (its probe runs on it)."""
        return VERSIONS[self.versions[0]]


# -- probes -------------------------------------------------------------------------------


def _post_messages(client: httpx.Client, ws: str, sid: str, *pairs: tuple[str, str]) -> int:
    body = {"messages": [{"peer_id": peer, "content": text} for peer, text in pairs]}
    return client.post(f"/v3/workspaces/{ws}/sessions/{sid}/messages", json=body).status_code


def _queue_status(
    client: httpx.Client, ws: str, *, wait: float = 10.0, **params: str
) -> dict[str, Any]:
    """Queue status once it counts anything (real enqueues after answering), or at ``wait``."""
    deadline = time.monotonic() + wait
    while True:
        status: dict[str, Any] = client.get(
            f"/v3/workspaces/{ws}/queue/status", params=params
        ).json()
        if status["total_work_units"] or time.monotonic() > deadline:
            return status
        time.sleep(0.05)


def _probe_invalid_author(client: httpx.Client, workspace: str) -> Any:
    return _post_messages(client, workspace, "s1", ("new.peer", "hello"))


def _probe_clone_same_name(client: httpx.Client, workspace: str) -> Any:
    for ws in (workspace, f"{workspace}-b"):
        _post_messages(client, ws, "same", ("alice", f"hello from {ws}"))
    return client.post(f"/v3/workspaces/{workspace}/sessions/same/clone").status_code


def _client_port(response: httpx.Response) -> Any:
    """The local address of the connection that carried ``response``; None once it is closed."""
    stream = response.extensions.get("network_stream")
    try:
        return None if stream is None else stream.get_extra_info("client_addr")
    except OSError:
        return None


def _probe_connection_after_500(client: httpx.Client, workspace: str) -> Any:
    """Is the keep-alive connection that carried a 500 used again for the next request?"""
    route = "POST /v3/workspaces/list status=500 times=1"
    client.post("/_fake/faults", json={"spec": route})  # the fake's 500; 404 on a real server
    ports = {_client_port(client.get("/health"))}
    # A real server answers this with an unhandled 500 (divergence real-page-beyond-int64-500).
    failed = client.post("/v3/workspaces/list", params={"page": 10**30, "size": 1}, json={})
    ports.add(_client_port(failed))
    try:
        ports.add(_client_port(client.get("/health")))
    except httpx.TransportError:  # the reset arrived while the next request was in flight
        ports.add(None)
    return {"status": failed.status_code, "reused": len(ports) == 1 and None not in ports}


def _probe_page_beyond_maxsize(client: httpx.Client, workspace: str) -> Any:
    response = client.post("/v3/workspaces/list", params={"page": 10**30, "size": 1}, json={})
    return response.status_code


def _probe_session_peers_order(client: httpx.Client, workspace: str) -> Any:
    peers = f"/v3/workspaces/{workspace}/sessions/s1/peers"
    client.post(f"/v3/workspaces/{workspace}/sessions", json={"id": "s1"})
    for name in ("c", "a", "b"):
        client.post(peers, json={name: {}})
    client.put(f"{peers}/c/config", json={"observe_others": True})
    client.request("DELETE", peers, json=["a"])
    client.post(peers, json={"a": {}})
    return [peer["id"] for peer in client.get(peers).json()["items"]]


def _probe_status_right_after_write(client: httpx.Client, workspace: str) -> Any:
    _post_messages(client, workspace, "s1", ("alice", "hello"))
    status = client.get(f"/v3/workspaces/{workspace}/queue/status").json()
    return status["total_work_units"]


def _probe_small_session_held(client: httpx.Client, workspace: str) -> Any:
    _post_messages(client, workspace, "s1", ("alice", "I prefer green tea"))
    status = _queue_status(client, workspace, session_id="s1")
    return {key: status[key] for key in ("pending_work_units", "completed_work_units")}


def _probe_peer_put_invalid_id(client: httpx.Client, workspace: str) -> Any:
    return client.put(f"/v3/workspaces/{workspace}/peers/bad.name", json={}).status_code


def _probe_filter_unknown_operator(client: httpx.Client, workspace: str) -> Any:
    body = {"filters": {"id": {"like": "a"}}}
    return client.post(f"/v3/workspaces/{workspace}/peers/list", json=body).status_code


def _probe_deleted_session_messages(client: httpx.Client, workspace: str) -> Any:
    _post_messages(client, workspace, "s1", ("alice", "hello"))
    client.delete(f"/v3/workspaces/{workspace}/sessions/s1")
    listed = client.post(f"/v3/workspaces/{workspace}/sessions/s1/messages/list").json()
    return listed["total"]


def _probe_one_request_peers_order(client: httpx.Client, workspace: str) -> Any:
    session = {"id": "s1", "peers": {"c": {}, "a": {}, "b": {}}}
    client.post(f"/v3/workspaces/{workspace}/sessions", json=session)
    listed = client.post(f"/v3/workspaces/{workspace}/peers/list").json()
    return [peer["id"] for peer in listed["items"]]


def _probe_clone_empty(client: httpx.Client, workspace: str) -> Any:
    sessions = f"/v3/workspaces/{workspace}/sessions"
    client.post(sessions, json={"id": f"{workspace}-e", "peers": {"alice": {}}})
    cloned = client.post(f"{sessions}/{workspace}-e/clone").status_code
    return {"clone": cloned, "listed": client.post(f"{sessions}/list").json()["total"]}


def _probe_search_tie_order(client: httpx.Client, workspace: str) -> Any:
    """Equal rank and created_at in two sessions: which session's messages come first?"""
    stamp = "2024-01-01T00:00:00Z"
    for sid in ("b", "a"):  # written b first: table order is b's rows, then a's
        body = {"messages": [{"peer_id": "p", "content": f"tea {sid}", "created_at": stamp}]}
        client.post(f"/v3/workspaces/{workspace}/sessions/{sid}/messages", json=body)
    found = client.post(f"/v3/workspaces/{workspace}/search", json={"query": "tea"}).json()
    return [message["content"] for message in found]


def _probe_semantic_tie_order(client: httpx.Client, workspace: str) -> Any:
    """Ten messages of the same text (one vector): in which order does a search that
    only embeddings find give them back? (Positions in creation order; ``[]`` when the
    server does not embed.)"""
    body = {"messages": [{"peer_id": "p", "content": "same words"} for _ in range(10)]}
    made = client.post(f"/v3/workspaces/{workspace}/sessions/s/messages", json=body).json()
    position = {message["id"]: at for at, message in enumerate(made)}
    deadline = time.monotonic() + 5  # the server embeds after answering
    ask = {"query": "zzzz", "limit": 10}
    while True:
        found = client.post(f"/v3/workspaces/{workspace}/search", json=ask)
        if len(found.json()) == len(made) or time.monotonic() > deadline:
            return [position.get(message["id"]) for message in found.json()]
        time.sleep(0.2)


def _probe_embedding_model(client: httpx.Client, workspace: str) -> Any:
    """Which of three messages sharing no word with "food" is nearest to it?"""
    texts = ["The train was late again", "My tax forms are due", "Dinner was a delicious curry"]
    body = {"messages": [{"peer_id": "p", "content": text} for text in texts]}
    client.post(f"/v3/workspaces/{workspace}/sessions/s/messages", json=body)
    deadline = time.monotonic() + 5  # the server embeds after answering
    while True:
        found = client.post(f"/v3/workspaces/{workspace}/search", json={"query": "food"}).json()
        if len(found) == len(texts) or time.monotonic() > deadline:
            return [message["content"] for message in found[:1]]
        time.sleep(0.2)


def _probe_search_right_after_write(client: httpx.Client, workspace: str) -> Any:
    """Two messages, then at once a search one of them matches by its words: how many
    hits? (The other comes only from the semantic leg, once its embedding is written.)"""
    _post_messages(client, workspace, "s", ("p", "I live in Oslo"), ("p", "green tea"))
    return len(client.post(f"/v3/workspaces/{workspace}/search", json={"query": "Oslo"}).json())


def _probe_representation_same_time(client: httpx.Client, workspace: str) -> Any:
    """Four conclusions of one request (one ``created_at``): in which order does the
    representation list them? (``None`` where conclusions cannot be created: no embedder.)"""
    client.post(f"/v3/workspaces/{workspace}/sessions", json={"id": "s", "peers": {"a": {}}})
    facts = ["a likes tea", "a likes jazz", "a lives in rome", "a runs daily"]
    body = {
        "conclusions": [
            {"content": fact, "observer_id": "a", "observed_id": "a", "session_id": "s"}
            for fact in facts
        ]
    }
    if client.post(f"/v3/workspaces/{workspace}/conclusions", json=body).status_code != 201:
        return None
    shown = client.post(f"/v3/workspaces/{workspace}/peers/a/representation", json={}).json()
    text = shown.get("representation", "")
    return sorted(facts, key=lambda fact: text.find(fact))


def _probe_webhooks_order(client: httpx.Client, workspace: str) -> Any:
    client.post("/v3/workspaces", json={"id": workspace})
    for i in range(4):
        client.post(f"/v3/workspaces/{workspace}/webhooks", json={"url": f"https://e.com/{i}"})
    listed = client.get(f"/v3/workspaces/{workspace}/webhooks").json()["items"]
    return [hook["url"] for hook in listed]


def _probe_pdf_upload(client: httpx.Client, workspace: str) -> Any:
    pdf = {"file": ("x.pdf", b"%PDF-1.4\nnot really\n", "application/pdf")}
    route = f"/v3/workspaces/{workspace}/sessions/s1/messages/upload"
    return client.post(route, files=pdf, data={"peer_id": "alice"}).status_code


def _probe_chat_at_high_level(client: httpx.Client, workspace: str) -> Any:
    """How many conclusions a ``high`` chat quotes when ten share the question's word."""
    _post_messages(
        client, workspace, "s1", ("alice", ". ".join(f"I like toy{n}" for n in range(10)))
    )
    body = {"query": "what does alice like?", "reasoning_level": "high"}
    answer = client.post(f"/v3/workspaces/{workspace}/peers/alice/chat", json=body)
    if answer.status_code != 200:
        return answer.status_code
    return str(answer.json()["content"]).count("alice likes")


def _probe_card_without_dream(client: httpx.Client, workspace: str) -> Any:
    _post_messages(client, workspace, "s1", ("alice", "My name is Alice. I live in Rome."))
    return client.get(f"/v3/workspaces/{workspace}/peers/alice/card").json().get("peer_card")


def _probe_rejected_write_phantom(client: httpx.Client, workspace: str) -> Any:
    _post_messages(client, workspace, "s1", ("new.peer", "hello"))
    return client.post(f"/v3/workspaces/{workspace}/sessions", json={"id": "s2"}).status_code


def _probe_lone_surrogate(client: httpx.Client, workspace: str) -> Any:
    body = '{"messages": [{"peer_id": "alice", "content": "tea \\ud800"}]}'
    route = f"/v3/workspaces/{workspace}/sessions/s1/messages"
    sent = client.post(route, content=body, headers={"content-type": "application/json"})
    return sent.status_code


def _probe_numeric_filter_over_text(client: httpx.Client, workspace: str) -> Any:
    client.post(f"/v3/workspaces/{workspace}/peers", json={"id": "p", "metadata": {"n": "abc"}})
    body = {"filters": {"metadata": {"n": {"gt": 10}}}}
    return client.post(f"/v3/workspaces/{workspace}/peers/list", json=body).status_code


def _probe_upload_metadata_list(client: httpx.Client, workspace: str) -> Any:
    route = f"/v3/workspaces/{workspace}/sessions/s1/messages/upload"
    files = {"file": ("a.txt", b"hello", "text/plain")}
    return client.post(route, files=files, data={"peer_id": "alice", "metadata": "[1]"}).status_code


def _chat_with_evidence(client: httpx.Client, workspace: str) -> Any:
    """The keys of a chat answer's evidence, plain and streamed, and of a conclusion in it."""
    _post_messages(client, workspace, "s1", ("alice", "I love green tea"))
    route = f"/v3/workspaces/{workspace}/peers/alice/chat"
    body = {"query": "what tea?", "include_evidence": True}
    plain = client.post(route, json=body).json()
    streamed = client.post(route, json={**body, "stream": True}).text.strip().splitlines()[-1]
    done = json.loads(streamed.removeprefix("data: "))
    return {
        "plain": sorted(plain.get("evidence") or ()),
        "streamed": sorted(done.get("evidence") or ()),
        "conclusion": sorted(plain["evidence"]["conclusions"][0]) if plain.get("evidence") else [],
        "unasked": "evidence" in client.post(route, json={"query": "what tea?"}).json(),
    }


def _peer_uid(client: httpx.Client, workspace: str) -> Any:
    """Whether a peer (or workspace, or session) carries the SDK's ``uid``."""
    client.post("/v3/workspaces", json={"id": workspace})
    peer = client.post(f"/v3/workspaces/{workspace}/peers", json={"id": "alice"}).json()
    return "uid" in peer


def _probe_invalid_workspace_id(client: httpx.Client, workspace: str) -> Any:
    return client.post("/v3/workspaces/a.b/peers", json={"id": "alice"}).status_code


def _probe_card_invalid_peer(client: httpx.Client, workspace: str) -> Any:
    client.post("/v3/workspaces", json={"id": workspace})
    return client.get(f"/v3/workspaces/{workspace}/peers/a.b/card").status_code


def _probe_nan_echoed(client: httpx.Client, workspace: str) -> Any:
    body = b'{"x": NaN}'
    headers = {"content-type": "application/json"}
    return client.post(
        f"/v3/workspaces/{workspace}/peers", content=body, headers=headers
    ).status_code


def _probe_undecodable_text_body(client: httpx.Client, workspace: str) -> Any:
    headers = {"content-type": "text/plain"}
    return client.post("/v3/workspaces/list", content=b"\xff", headers=headers).status_code


def _probe_dream_unknown_workspace(client: httpx.Client, workspace: str) -> Any:
    body = {"observer": "alice", "dream_type": "omni"}
    return client.post(f"/v3/workspaces/{workspace}/schedule_dream", json=body).status_code


def _probe_unstorable_metadata(client: httpx.Client, workspace: str) -> Any:
    """A metadata write holding NaN, and the metadata read back."""
    client.post("/v3/workspaces", json={"id": workspace, "metadata": {"kept": 1}})
    headers = {"content-type": "application/json"}
    body = b'{"metadata": {"x": NaN}}'
    failed = client.put(f"/v3/workspaces/{workspace}", content=body, headers=headers)
    try:
        read = client.post("/v3/workspaces", json={"id": workspace})
    except httpx.TransportError:  # the 500 closed the connection as the request went out
        read = client.post("/v3/workspaces", json={"id": workspace})
    return {"status": failed.status_code, "metadata": read.json().get("metadata")}


def _probe_chat_invalid_peer(client: httpx.Client, workspace: str) -> Any:
    client.post("/v3/workspaces", json={"id": workspace})
    return client.post(
        f"/v3/workspaces/{workspace}/peers/a.b/chat", json={"query": "hi"}
    ).status_code


def _probe_conclusion_invalid_peer(client: httpx.Client, workspace: str) -> Any:
    client.post(f"/v3/workspaces/{workspace}/peers", json={"id": "alice"})
    body = {"conclusions": [{"content": "x", "observer_id": "alice", "observed_id": "a.b"}]}
    return client.post(f"/v3/workspaces/{workspace}/conclusions", json=body).status_code


def _probe_conclusion_check_order(client: httpx.Client, workspace: str) -> Any:
    """Which of two missing sessions a conclusion batch's 404 names."""
    client.post(f"/v3/workspaces/{workspace}/peers", json={"id": "alice"})
    pair = {"content": "x", "observer_id": "alice", "observed_id": "alice"}
    body = {"conclusions": [{**pair, "session_id": "s1"}, {**pair, "session_id": "s2"}]}
    answer = client.post(f"/v3/workspaces/{workspace}/conclusions", json=body)
    return str(answer.json().get("detail")).replace(workspace, "{ws}")


def _probe_nul_target(client: httpx.Client, workspace: str) -> Any:
    client.post(f"/v3/workspaces/{workspace}/peers", json={"id": "alice"})
    route = f"/v3/workspaces/{workspace}/peers/alice/context"
    return client.get(route, params={"target": "bo\x00b"}).status_code


def _probe_exponent_timestamp(client: httpx.Client, workspace: str) -> Any:
    """A key's expires_at written as a float in exponent notation, auth off."""
    params = {"workspace_id": workspace, "expires_at": "-4.376799134483531e+16"}
    return client.post("/v3/keys", params=params).status_code


# -- the register -------------------------------------------------------------------------

_SOURCE = "Honcho v3.0.12 (commit 93dcf59c)"

DIVERGENCES: tuple[Divergence, ...] = (
    Divergence(
        id="real-invalid-author-500",
        kind="real-bug",
        summary="a message whose author id breaks the id pattern is a 500, not a 422",
        real=(
            "POST .../sessions/{sid}/messages with peer_id 'new.peer' answers 500 "
            "{'detail': 'An unexpected error occurred'} (an unhandled pydantic error while "
            "auto-creating the peer)"
        ),
        fake=(
            'reproduced; corrected: 422 with the detail post-tag Honcho gives: "Peer name(s) '
            "['new.peer'] must match pattern ^[a-zA-Z0-9_-]+$\""
        ),
        reason="the real answer is the default; Honcho fixed it after the tag",
        evidence=(
            f"measured on {_SOURCE}; src/crud/message.py create_messages builds "
            "SessionPeerConfig for each author without validating the name"
        ),
        probe=_probe_invalid_author,
        fake_result=422,
        real_result=500,
        affects=("HonchoAPIContract.test_new_peer_name_from_message_is_validated",),
        fixed_by=Feature.PEER_NAME_422,
        reproduced=True,
    ),
    Divergence(
        id="real-rejected-write-phantom-workspace",
        kind="real-bug",
        summary=(
            "a write refused for a bad peer name leaves its new workspace half there: "
            "every create in it is a 409 for minutes"
        ),
        real=(
            "3.1: after a write that creates its workspace first (messages, their upload, a "
            "session with a peer map, POST .../sessions/{sid}/peers) is refused with a 422 for "
            "a peer name (the pattern or the reserved scope. prefix) in a workspace it was "
            "about to create, the workspace is cached as existing but never stored: it is not "
            "listed, get-or-create answers the cached row (200), creating a session, peer or "
            "scope in it answers 409 'Unable to create or get session: s2' (peers: ['p'], "
            "scopes: ['scope.work']), a changing PUT of it, its DELETE, a webhook and a dream "
            "500, workspace chat answers as for an empty workspace, until the cache entry "
            "expires (CACHE_DEFAULT_TTL_SECONDS, 300 s)"
        ),
        fake=(
            "reproduced, for 300 s of the fake's clock; corrected: the refused write leaves "
            "nothing, and the next create answers 201"
        ),
        reason=(
            "the real answer is the default: it is why a workspace another request refused "
            "answers workspace chat on a real server"
        ),
        evidence=(
            "measured on main ddbb90e + #931 and + #952 with the default cache TTL "
            "(tests/fidelity/exchanges/3.1/peer_names_422.json, the other routes in "
            "tests/fake/test_real_bugs.py; the shared servers here run with "
            "CACHE_DEFAULT_TTL_SECONDS=1, where the entry is gone after a second); "
            "src/crud/workspace.py get_or_create_workspace warms the workspace cache for a "
            "row whose transaction the peer-name check then rolls back"
        ),
        probe=_probe_rejected_write_phantom,
        fake_result=201,
        real_result=409,
        since=Feature.PEER_NAME_422,
        reproduced=True,
    ),
    Divergence(
        id="real-lone-surrogate-500",
        kind="real-bug",
        summary="a lone surrogate in a JSON string (\\ud800) is a 500, not a 422",
        real=(
            "answers 500 {'detail': 'An unexpected error occurred'}: the 422 pydantic gives a "
            "string field (string_unicode) echoes the input, which the error response cannot "
            "encode as UTF-8, and in metadata the row cannot be stored"
        ),
        fake=(
            "reproduced where the 422 would echo it; corrected: pydantic's string_unicode "
            "item, the input sent back as \\ud800 (ASCII escapes for that response only); in "
            "metadata or configuration the write is refused as the database refuses it "
            "(real-unstorable-json-500)"
        ),
        reason="the real answer is the default where it is the response that fails",
        evidence=f"measured on {_SOURCE} for message content, metadata and a peer id",
        probe=_probe_lone_surrogate,
        fake_result=422,
        real_result=500,
        reproduced=True,
    ),
    Divergence(
        id="real-clone-cross-workspace",
        kind="real-bug",
        summary="clone selects by session name in every workspace: a 500 once another "
        "workspace's session of that name holds messages or members",
        real=(
            "POST .../sessions/{sid}/clone selects the messages (and the message_id cut-off) "
            "and the members to copy by session name only, in every workspace: two sessions' "
            "messages collide on seq_in_session, another workspace's member is no peer here "
            "or a member twice, and the insert fails with a 500 (a deleted session whose "
            "rows wait for the deriver counts too)"
        ),
        fake=(
            "reproduced; corrected: clone copies the session's own messages and members only "
            "and answers 201"
        ),
        reason=(
            "the real answer is the default: a suite that reuses one session name across "
            "workspaces meets it on its second clone"
        ),
        evidence=(
            f"measured on {_SOURCE} and 3.1 (seven cases: messages or only a member elsewhere, "
            "a cut-off before the other's messages or in the other workspace; "
            "tests/fidelity/exchanges/*/server_bugs.json); src/crud/session.py clone_session: "
            "select(Message).where(Message.session_name == original_session_name), likewise "
            "SessionPeer"
        ),
        probe=_probe_clone_same_name,
        fake_result=201,
        real_result=500,
        affects=("HonchoAPIContract.test_clone_session",),
        reproduced=True,
    ),
    Divergence(
        id="real-page-beyond-int64-500",
        kind="real-bug",
        summary="a page number whose offset overflows a 64-bit integer is a 500",
        real=(
            "POST /v3/workspaces/list?page=10**30 (any paginated route) answers 500 "
            "{'detail': 'An unexpected error occurred'}: the OFFSET overflows in Postgres"
        ),
        fake=(
            "reproduced once the offset ((page - 1) * size) passes 2**63 - 1; corrected: 200 "
            "with an empty page, as for any page past the end"
        ),
        reason="the real answer is the default; schemathesis generates such pages",
        evidence=(
            f"measured on {_SOURCE} and 3.1 (page=99999999999999 is a 200 with no items; "
            "tests/fidelity/raw, query-page-huge on every paginated route)"
        ),
        probe=_probe_page_beyond_maxsize,
        fake_result=200,
        real_result=500,
        reproduced=True,
    ),
    Divergence(
        id="real-500-closes-connection",
        kind="real-bug",
        summary="after an unhandled 500 the real server resets the keep-alive connection",
        real=(
            "uvicorn closes the connection after the 500 of an unhandled exception; the "
            "next request on it fails with a connection reset unless the client reconnects"
        ),
        fake=(
            "served, the 500 of a reproduced real bug closes the connection as uvicorn does; "
            "an injected 500 (fault status=500) keeps it alive"
        ),
        reason="fault injection models a server that answers; use the drop fault to model a reset",
        evidence=(
            f"measured on {_SOURCE} and on main ddbb90e + #931 (3.1), after the 500 of an "
            "overflowing page (httpx.ReadError: connection reset by peer)"
        ),
        probe=_probe_connection_after_500,
        fake_result={"status": 500, "reused": True},
        real_result={"status": 500, "reused": False},
    ),
    Divergence(
        id="session-peers-order",
        kind="unspecified",
        summary="the session-peers list has no ORDER BY on the real server",
        real="GET .../sessions/{sid}/peers returns members in whatever order Postgres joins them",
        fake="members are listed by when each peer was created in the workspace",
        reason="one deterministic order; tests must compare members as sets",
        evidence="src/crud/session.py get_peers_from_session: a join with no order_by",
        probe=_probe_session_peers_order,
        fake_result=["c", "a", "b"],
        real_result=UNSTABLE,
    ),
    Divergence(
        id="queue-status-enqueue-lag",
        kind="not-copied",
        summary="right after a write, real queue status may still read all zeros",
        real=(
            "messages are enqueued in a background task after the response is sent, so a "
            "status read at once can count nothing for that write"
        ),
        fake="work is counted before the creating request returns",
        reason="a race no test can rely on; pollers must treat zero as 'maybe not yet'",
        evidence=(
            f"measured on {_SOURCE}: status read right after POST messages was all zeros; "
            "src/routers/messages.py enqueues via BackgroundTasks"
        ),
        probe=_probe_status_right_after_write,
        fake_result=1,
        real_result=UNSTABLE,
    ),
    Divergence(
        id="deriver-batching-gate-off-by-default",
        kind="not-copied",
        summary="the fake's default deriver does not hold small sessions' work",
        real=(
            "representation work waits until its unprocessed messages hold "
            "DERIVER_REPRESENTATION_BATCH_WORK_UNIT_TARGET_TOKENS (512) tokens or are "
            "DERIVER_REPRESENTATION_BATCH_MAX_AGE_SECONDS (1800) old, unless "
            "DERIVER_FLUSH_ENABLED; a short session stays pending for 30 minutes"
        ),
        fake=(
            "deriver='immediate' (the library default), 'manual' and 'background' run work "
            "as soon as it is stepped, whatever its size or age; deriver='gated' (or "
            "deriver_gate=BatchGate()) holds it as the real server does"
        ),
        reason="tests want derived data at once; choose 'gated' to test polling a real queue",
        evidence=f"measured on {_SOURCE}; src/deriver/queue_manager.py get_and_claim_work_units",
        probe=_probe_small_session_held,
        fake_result={"pending_work_units": 0, "completed_work_units": 1},
        real_result={"pending_work_units": 1, "completed_work_units": 0},
    ),
    Divergence(
        id="real-peer-put-invalid-id-500",
        kind="real-bug",
        summary="PUT on a new peer whose id breaks the id pattern is a 500, not a 422",
        real=(
            "PUT .../peers/bad.name answers 500 {'detail': 'An unexpected error occurred'}: "
            "the route builds PeerCreate(name=peer_id) outside any error handling"
        ),
        fake="reproduced; corrected: 422 with pydantic's string_pattern_mismatch item, loc ['id']",
        reason="the real answer is the default; 3.1 answers 422",
        evidence=(
            f"measured on {_SOURCE} (tests/fidelity/exchanges/peers.json); src/routers/peers.py "
            "update_peer"
        ),
        probe=_probe_peer_put_invalid_id,
        fake_result=422,
        real_result=500,
        fixed_by=Feature.PEER_NAME_422,
        reproduced=True,
    ),
    Divergence(
        id="real-invalid-id-500",
        kind="real-bug",
        summary="a new workspace or session id that breaks the id pattern is a 500 on most routes",
        real=(
            "PUT /v3/workspaces/{ws}, POST .../peers, PUT .../peers/{pid}, PUT .../card, POST "
            ".../messages, POST .../upload and 3.1's POST .../scopes answer 500 {'detail': 'An "
            "unexpected error occurred'} for a path workspace or session id such as 'a b', 'é', "
            "'.', '..' or 1,000 characters (POST .../sessions answers 422 with the "
            "ValidationError's text, PUT .../sessions/{sid} and POST .../peers of a session 404 "
            "'Session not found': those the fake answers as they do)"
        ),
        fake=(
            "reproduced; corrected: 422 with pydantic's string_pattern_mismatch (or "
            "string_too_long) item, loc ['id']"
        ),
        reason="the real answer is the default: an SDK retries a 500 and raises a server error",
        evidence=(
            "measured on 3.0.12 and 3.1 (tests/fidelity/raw, the paths family); src/crud/"
            "workspace.py, session.py get_or_create_*: the create model is built from the "
            "path outside request validation"
        ),
        probe=_probe_invalid_workspace_id,
        fake_result=422,
        real_result=500,
        reproduced=True,
    ),
    Divergence(
        id="real-card-invalid-peer-500",
        kind="real-bug",
        summary="3.0.12's peer card routes answer 500 for a peer id that breaks the id pattern",
        real=(
            "GET and PUT .../peers/{pid}/card with pid 'a.b', and session context whose "
            "observer (peer_perspective, else peer_target) is such a name, answer 500: "
            "src/crud/peer_card.py builds PeerCreate(name=observer) outside any error "
            "handling (3.1: 404 and 422)"
        ),
        fake="reproduced; corrected: GET 404 'Peer a.b not found in workspace ...', PUT 422",
        reason="the real answer is the default; 3.1 answers a 4xx",
        evidence="measured on 3.0.12 and 3.1 (tests/fidelity/raw, the paths family)",
        probe=_probe_card_invalid_peer,
        fake_result=404,
        real_result=500,
        fixed_by=Feature.PEER_NAME_422,
        reproduced=True,
    ),
    Divergence(
        id="real-nan-echo-500",
        kind="real-bug",
        summary="a 422 whose input holds NaN or Infinity (JSON the parser accepts) is a 500",
        real=(
            "POST .../peers with body {'x': NaN} answers 500: the 422 'missing id' item echoes "
            "the body, and FastAPI's JSONResponse refuses NaN (allow_nan=False); a body that "
            "validates with NaN in an ignored field is answered normally"
        ),
        fake="reproduced; corrected: the 422 with each NaN or Infinity sent as its name",
        reason="the real answer is the default",
        evidence="measured on 3.0.12 and 3.1 (tests/fidelity/raw, body-nan on every route)",
        probe=_probe_nan_echoed,
        fake_result=422,
        real_result=500,
        reproduced=True,
    ),
    Divergence(
        id="real-undecodable-text-body-500",
        kind="real-bug",
        summary="a body sent without a JSON content type that is not UTF-8 is a 500",
        real=(
            "a model refuses a body that is not sent as JSON with a 422 echoing it as text; "
            "FastAPI's encoder cannot decode bytes that are not UTF-8, so the answer is 500"
        ),
        fake="reproduced; corrected: 422 model_attributes_type with the bytes decoded leniently",
        reason="the real answer is the default",
        evidence="measured on 3.0.12 and 3.1: text/plain body b'\\xff\\xfe' to workspaces/list",
        probe=_probe_undecodable_text_body,
        fake_result=422,
        real_result=500,
        reproduced=True,
    ),
    Divergence(
        id="real-filter-errors-500",
        kind="real-bug",
        summary="a filter operand of a type its column does not take is a 500, not a 422",
        real=(
            "the filter builder binds operands as they come, so the database refuses "
            "{'id': {'like': 'a'}} (the column equal to a dict), {'id': 5}, {'id': {'gte': 3}} "
            "(range operands are cast with float()), {'is_active': {'ne': true}}, "
            "{'created_at': '2024-01-01T00:00:00Z'}, {'token_count': '5'}, {'metadata': 5}, "
            "{'id': {'ne': null}} and the like: 500; its own checks (an unknown operator beside "
            "a known one, a word in a range, a bad datetime) are 422s and come first"
        ),
        fake=(
            "reproduced; corrected: the 422 3.1 answers, naming the column and the type or "
            "operators it takes (or, where 3.1 reads the operand, its answer)"
        ),
        reason="the real answer is the default; 3.1 checks operands before the query",
        evidence=(
            f"measured on {_SOURCE} and 3.1 (62 filters against every kind of column, "
            "tests/fidelity/exchanges/*/filter_binds.json); src/utils/filter.py "
            "_build_field_condition, _build_comparison_conditions"
        ),
        probe=_probe_filter_unknown_operator,
        fake_result=422,
        real_result=500,
        fixed_by=Feature.STRICT_FILTERS,
        reproduced=True,
    ),
    Divergence(
        id="real-numeric-filter-500",
        kind="real-bug",
        summary="a numeric filter over metadata that PostgreSQL cannot compare is a 500",
        real=(
            "{'metadata': {'n': {'gt': 10}}} answers 500 once a row's n is text that is not a "
            "number ('abc', '0x10', a boolean, a list); compared with a float, also once it "
            "overflows or underflows a double ('1e400'); and for an int operand beyond 64 bits"
        ),
        fake=(
            "reproduced; corrected: such a row matches no comparison (the others are compared "
            "as the server does) and an int beyond 64 bits is compared exactly: 200"
        ),
        reason="the real answer is the default: one odd row fails the whole list there",
        evidence=(
            f"measured on {_SOURCE} and 3.1 (38 values x 10 operators, tests/fidelity/"
            "exchanges/*/numeric_filters.json, filter_binds.json); src/utils/filter.py "
            "_safe_numeric_cast: CAST(... AS NUMERIC)"
        ),
        probe=_probe_numeric_filter_over_text,
        fake_result=200,
        real_result=500,
        reproduced=True,
    ),
    Divergence(
        id="real-upload-form-500",
        kind="real-bug",
        summary="an upload whose metadata or configuration is JSON but not an object is a 500",
        real=(
            "messages/upload with metadata '[1]' or '5', configuration '[1]', or JSON holding "
            "NaN answers 500: the form is turned into its model outside request validation"
        ),
        fake=(
            "reproduced; corrected: 422 with the field's pydantic item (dict_type, "
            "model_attributes_type, or finite_number for NaN and infinities); text that is "
            "not JSON is ignored, as on the server"
        ),
        reason="the real answer is the default",
        evidence=f"measured on {_SOURCE}; src/routers/messages.py parse_upload_form",
        probe=_probe_upload_metadata_list,
        fake_result=422,
        real_result=500,
        reproduced=True,
    ),
    Divergence(
        id="real-dream-unknown-workspace-500",
        kind="real-bug",
        summary="scheduling a dream in a workspace that does not exist is a 500",
        real=(
            "POST /v3/workspaces/{ws}/schedule_dream for a workspace never created answers 500: "
            "the queue row's workspace_name is a foreign key to workspaces, so the INSERT "
            "fails (whatever the observer, at 3.0.12 and 3.1 alike)"
        ),
        fake="reproduced; corrected: 404 'Workspace {ws} not found'",
        reason="the real answer is the default",
        evidence=(
            "measured on 3.0.12 and 3.1 (tests/fidelity/fuzz: every schedule_dream outside a "
            "created workspace); src/models.py QueueItem.workspace_name ForeignKey"
            "('workspaces.name'), src/deriver/enqueue.py enqueue_dream inserts unchecked"
        ),
        probe=_probe_dream_unknown_workspace,
        fake_result=404,
        real_result=500,
        reproduced=True,
    ),
    Divergence(
        id="real-unstorable-json-500",
        kind="real-bug",
        summary=(
            "metadata or configuration holding NaN, Infinity, a NUL character or a lone "
            "surrogate is a 500, and nothing of that write is stored"
        ),
        real=(
            "PostgreSQL's jsonb refuses them: the INSERT or UPDATE fails, the transaction "
            "rolls back and the request answers 500 (PUT /v3/workspaces/{id} with "
            "{'metadata': {'x': NaN}} leaves the metadata as it was; a new workspace, peer "
            "or session is not created; a message's session and author, committed before "
            "the message, stay)"
        ),
        fake=(
            "reproduced: the store refuses the row and rolls the request's writes back to "
            "the server's last commit; corrected: 422 before anything is written"
        ),
        reason="the real answer is the default; a rolled-back write leaves nothing behind",
        evidence=(
            "measured on 3.0.12 and 3.1 (workspaces, peers, sessions, messages; "
            "configuration keys holding \\u0000 from tests/fidelity/fuzz); SQLAlchemy "
            "writes JSONB with json.dumps, whose NaN PostgreSQL's parser refuses"
        ),
        probe=_probe_unstorable_metadata,
        fake_result={"status": 422, "metadata": {"kept": 1}},
        real_result={"status": 500, "metadata": {"kept": 1}},
        reproduced=True,
    ),
    Divergence(
        id="real-chat-invalid-peer-500",
        kind="real-bug",
        summary="3.0.12's peer chat answers 500 for a peer id that breaks the id pattern",
        real=(
            "POST .../peers/a.b/chat answers 500: the route builds PeerCreate(name=peer_id) "
            "outside any error handling (3.1: 422 naming the peer)"
        ),
        fake="reproduced; corrected: 422 \"Peer name(s) ['a.b'] must match pattern ...\"",
        reason="the real answer is the default; 3.1 answers a 4xx",
        evidence=f"measured on {_SOURCE} (tests/fidelity/fuzz); src/routers/peers.py chat",
        probe=_probe_chat_invalid_peer,
        fake_result=422,
        real_result=500,
        fixed_by=Feature.PEER_NAME_422,
        reproduced=True,
    ),
    Divergence(
        id="real-conclusion-invalid-peer-500",
        kind="real-bug",
        summary="3.0.12's conclusion create answers 500 for a peer id that breaks the pattern",
        real=(
            "POST .../conclusions with an observer_id or observed_id such as 'a.b' or '' "
            "answers 500: each peer is looked up as PeerCreate(name=...), built outside any "
            "error handling (3.1 looks the name up as it is: 404)"
        ),
        fake="reproduced; corrected: 404 'Peer a.b not found in workspace ...'",
        reason="the real answer is the default; 3.1 answers 404",
        evidence=(
            f"measured on {_SOURCE} (tests/fidelity/fuzz); src/crud/document.py create_observations"
        ),
        probe=_probe_conclusion_invalid_peer,
        fake_result=404,
        real_result=500,
        fixed_by=Feature.PEER_NAME_422,
        reproduced=True,
    ),
    Divergence(
        id="real-nul-lookup-500",
        kind="real-bug",
        summary="a peer context's target holding a NUL character is a 500",
        real=(
            "GET .../peers/{pid}/context?target=bo%00b answers 500: the name reaches "
            "PostgreSQL's text comparison, which cannot hold NUL; so do 3.1's workspace "
            "search whose scope names one, and 3.0.12's representation target and removal "
            "of session peers (DELETE .../sessions/{sid}/peers; 3.1: 422)"
        ),
        fake=(
            "reproduced; corrected: 422 'Peer name(s) must not contain NUL (0x00) bytes', "
            "3.1's text for such a name"
        ),
        reason="the real answer is the default",
        evidence=f"measured on {_SOURCE} and 3.1 (tests/fidelity/fuzz)",
        probe=_probe_nul_target,
        fake_result=422,
        real_result=500,
        reproduced=True,
    ),
    Divergence(
        id="pydantic-release-parsing",
        kind="not-copied",
        summary="lax parsing the fake's pydantic-core release changed from the server's",
        real=(
            "the server validates with the pydantic-core it pins (2.46 at 3.0.12 and 3.1), "
            "which reads a datetime written as '-4.376799134483531e+16' as a Unix time: POST "
            "/v3/keys with it as expires_at reaches the auth check (405 with auth off)"
        ),
        fake=(
            "validates with the pydantic-core installed beside it; 2.50 refuses that text "
            "(422 datetime_from_date_parsing)"
        ),
        reason="the fake uses the host's pydantic; pinning the server's would bind every user",
        evidence="measured on 3.0.12 and 3.1 (tests/fidelity/fuzz), pydantic-core 2.46 / 2.50",
        probe=_probe_exponent_timestamp,
        fake_result=422,
        real_result=405,
    ),
    Divergence(
        id="conclusion-check-order",
        kind="unspecified",
        summary="which missing session or peer a conclusion batch's 404 names",
        real=(
            "POST .../conclusions checks the batch's sessions, then its peers, each from a "
            "Python set: with several missing, the 404 names whichever the server process's "
            "string hashing puts first (at 3.0.12 a name that breaks the pattern is then a "
            "500 or the 404 of another, by the same order)"
        ),
        fake=(
            "checks the sessions, then the peers, as the server does, and names the first "
            "missing (at 3.0.12: or unnamable) one in the batch's order"
        ),
        reason=(
            "the server's choice follows its process's string-hash seed (random per "
            "process, PYTHONHASHSEED unset), which nothing in the request sets: no fixed "
            "choice can match it"
        ),
        evidence=(
            "src/crud/document.py create_observations: sessions_to_validate: set[str]; "
            "measured: one batch of four missing sessions x1, y2, z3, w4 was answered y2, "
            "x1, y2, x1, w4 and z3 by the six API processes of 3.0.12, 3.1 and main+952, "
            "each the same on every repeat; the generated differential's judge accepts it "
            "only when both refuse the batch at the same check and the fake lacks what the "
            "server names (fake_honcho/drift/fuzz_declared.py)"
        ),
        probe=_probe_conclusion_check_order,
        fake_result="Session s1 not found in workspace {ws}",
        real_result=UNSTABLE,
    ),
    Divergence(
        id="deletion-at-once",
        kind="real-bug",
        summary="a deleted session's messages and members, and a deleted workspace, stay "
        "until the deriver runs the deletion",
        real=(
            "DELETE .../sessions/{sid} marks the session inactive and queues the deletion for "
            "the deriver; until it runs (2 to 26 s here: its poll backs off to 30 s, "
            "jittered, while idle), the session's messages are listed, "
            "searched and in its context, its members and their configs are listed, "
            "peers/{pid}/sessions shows it inactive (3.1: the scope's session list already "
            "leaves it out), writes to it and a second DELETE answer 404; once it has run the "
            "session id can be created again. DELETE /v3/workspaces/{ws} likewise answers "
            "202, and again 202 to a second DELETE, while the workspace, its peers and its "
            "get-or-create (200) stay until the deriver deletes it"
        ),
        fake=(
            "reproduced: the fake's deriver runs the deletion, at once with deriver="
            "'immediate' (as a running deriver does, eventually), when stepped with 'manual', "
            "or from its queue with 'background' and 'gated'; corrected: everything goes "
            "before the 202, whatever the deriver"
        ),
        reason=(
            "the real answer is the default: a test that deletes and reads back sees what "
            "a real server shows before its deriver has run"
        ),
        evidence=(
            f"measured on {_SOURCE} and 3.1 (tests/fidelity/exchanges/*/deletion.json, "
            "3.1/scope_deletion.json); src/routers/sessions.py delete_session and "
            "src/routers/workspaces.py delete_workspace enqueue_deletion, src/deriver/consumer.py "
            "process_deletion, src/crud/session.py delete_session (hard delete), "
            "src/deriver/queue_manager.py polling backoff; the generated differential waits "
            "for each deletion to be carried out (fake_honcho/drift/fuzz_settle.py)"
        ),
        probe=_probe_deleted_session_messages,
        fake_result=0,
        real_result=1,
        reproduced=True,
        fake_settings=(("deriver", "manual"),),
    ),
    Divergence(
        id="same-request-created-order",
        kind="unspecified",
        summary="rows created by one request come back in random order from the real server",
        real=(
            "lists order by (created_at, id); rows one request creates share the transaction's "
            "created_at and their id is a random nanoid, so peers auto-created by one message "
            "batch or session peer map are listed in no fixed order"
        ),
        fake="insertion order",
        reason="one deterministic order; compare such lists as sets",
        evidence="src/crud/peer.py get_peers: order_by(created_at, id); src/models.py Peer.id",
        probe=_probe_one_request_peers_order,
        fake_result=["c", "a", "b"],
        real_result=UNSTABLE,
    ),
    Divergence(
        id="representation-same-time-order",
        kind="unspecified",
        summary="a representation lists conclusions of the same time in no fixed order",
        real=(
            "Representation.merge_representation goes through a set, whose order follows "
            "hash((content, created_at, session)): string hashes change with every process "
            "(PYTHONHASHSEED), so conclusions sharing a created_at (one request, one deriver "
            "batch) come out in a different order from run to run"
        ),
        fake="oldest first, then in creation order",
        reason="one deterministic order; compare such lines as a set",
        evidence=(
            "src/utils/representation.py merge_representation and ExplicitObservation.__hash__;"
            " measured on real 3.0.12 and 3.1 with embeddings from fake-honcho-llm: 64 "
            "representations with search_query hold the conclusions the fake's hold, 9 in "
            "the same order"
        ),
        probe=_probe_representation_same_time,
        fake_result=["a likes tea", "a likes jazz", "a lives in rome", "a runs daily"],
        real_result=UNSTABLE,
    ),
    Divergence(
        id="real-clone-empty-not-saved",
        kind="real-bug",
        summary="cloning a session without messages answers 201 but saves nothing",
        real=(
            "POST .../sessions/{sid}/clone of a session with no messages answers 201 with a "
            "new session, which is never committed: it is not listed and has no members"
        ),
        fake=(
            "reproduced (its id stays free: a get-or-create of it answers 201 with empty "
            "metadata); corrected: the clone is stored with the original's metadata, "
            "configuration and members"
        ),
        reason="the real answer is the default",
        evidence=(
            f"measured on {_SOURCE} and 3.1 (tests/fidelity/exchanges/*/server_bugs.json); "
            "src/crud/session.py clone_session returns before db.commit() when there are no "
            "messages to copy"
        ),
        probe=_probe_clone_empty,
        fake_result={"clone": 201, "listed": 2},
        real_result={"clone": 201, "listed": 1},
        reproduced=True,
    ),
    Divergence(
        id="search-tie-order",
        kind="unspecified",
        summary="search hits with equal rank and created_at come back in the server plan's order",
        real=(
            "the query orders by ts_rank and created_at only; ties keep the order the sort "
            "leaves its input in, and the input order is the plan's: an index scan of "
            "(workspace_name, session_name, seq_in_session) while the statistics do not know "
            "the workspace, a bitmap heap scan in physical (ctid) order once analysed or when "
            "scoped to a peer; ctid order is not write order"
        ),
        fake=(
            "feeds PostgreSQL's sort (replayed exactly: quicksort or bounded heap) in "
            "(session id, seq_in_session) order, the fresh-workspace plan"
        ),
        reason="physical table order depends on the whole table's history, unknowable to clients",
        evidence=(
            f"measured on {_SOURCE} with tests/fidelity/search/record.py: 2,388 of 2,400 "
            "recorded queries read in session order, 12 in ctid order (EXPLAIN: Index Scan "
            "using uq_messages_workspace_name_session_name_seq_in_session, later Bitmap Heap "
            "Scan on ix_messages_workspace_name); src/utils/search.py _fulltext_search"
        ),
        probe=_probe_search_tie_order,
        fake_result=["tea a", "tea b"],
        real_result=UNSTABLE,
    ),
    Divergence(
        id="semantic-tie-order",
        kind="unspecified",
        summary="with embeddings on, messages at the same embedding distance from a query "
        "(the same text) come back in the server's physical order",
        real=(
            "the semantic leg is ORDER BY cosine distance LIMIT 2n over the embedding rows; "
            "equal distances keep the order the sort's input had: the rows' physical order, "
            "written by a background task after the answer (and, on a workspace large "
            "enough for the planner to choose the HNSW index, an approximate order)"
        ),
        fake=(
            "exact distances (the shared embedder's integer vectors, pgvector's formula), "
            "ties fed to PostgreSQL's sort in the order the messages were embedded; "
            "fake-honcho compare and the replays declare an answer differing only in the "
            "order of messages of identical content"
        ),
        reason="the physical order of rows a background task writes is unknowable to clients",
        evidence=(
            "measured on Honcho v3.0.12 and 3.1 with EMBED_MESSAGES=true and the stand-in's "
            "embeddings: fake-honcho compare, coercion_messages step 57 (ten messages 'x'); "
            "src/utils/search.py _semantic_search_pgvector, src/reconciler/embed_now.py"
        ),
        probe=_probe_semantic_tie_order,
        fake_result=list(range(10)),
        real_result=UNSTABLE,
    ),
    Divergence(
        id="embedding-model-vectors",
        kind="not-copied",
        summary="the fake embeds with a deterministic hashed embedder, not a hosted model: "
        "texts are near when they share words, not meaning",
        real=(
            "a production Honcho embeds with its EMBEDDING model (text-embedding-3-small by "
            "default): semantic search, conclusion queries and merging follow meaning "
            '("food" is nearest to "Dinner was a delicious curry")'
        ),
        fake=(
            "fake_honcho.embedding.HashedEmbedder: shared search terms plus a small "
            "pseudo-random part per text; a real Honcho wired to fake-honcho-llm embeds "
            "the same vectors and answers exactly as the fake. FakeHoncho(embedder=...) and "
            "fake-honcho-llm --embedder take a real model's vectors instead"
        ),
        reason=(
            "a hosted model's vectors are neither offline nor free nor reproducible; the kit "
            "stays dependency-light and exact against the stand-in"
        ),
        evidence=(
            "src/embedding_client.py (the model, cl100k_base, 8,192 tokens); measured: real "
            "3.0.12 and 3.1 wired to fake-honcho-llm order every search as the fake does "
            "(tests/fidelity/search/data/*+embed); a hosted model not measured here"
        ),
        probe=_probe_embedding_model,
        fake_result=["My tax forms are due"],
        real_result=UNSTABLE,
    ),
    Divergence(
        id="search-before-embedding",
        kind="not-copied",
        summary="with embeddings on, a search right after a write may not see the new "
        "messages' embeddings yet on the real server",
        real=(
            "a message's embedding is written by a background task after the write is "
            "answered, so a search at once finds the new messages by their words only; "
            "moments later the semantic leg finds them too"
        ),
        fake=(
            "every message is embedded before the next search reads the embeddings "
            "(embedding_mode='immediate'); FakeHoncho(embedding_mode='held') holds them "
            "until release(), as a task not yet run; fake-honcho replay declares a search "
            "answer that holds only some of the fake's hits"
        ),
        reason="when the task runs is unknowable to clients; a test must not rely on either",
        evidence=(
            "measured with fake-honcho replay on 3.0.12 and 3.1 (EMBED_MESSAGES=true, "
            "tests/fidelity/traffic: the TypeScript SDK searching right after writing); "
            "src/routers/messages.py schedules the embedding through "
            "src/reconciler/embed_now.py embed_task_gate on the request's background tasks"
        ),
        probe=_probe_search_right_after_write,
        fake_result=2,
        real_result=UNSTABLE,
    ),
    Divergence(
        id="webhooks-order",
        kind="unspecified",
        summary="the webhook endpoint list has no ORDER BY on the real server",
        real="GET .../webhooks returns endpoints in whatever order Postgres scans them",
        fake="endpoints in the order they were registered",
        reason="one deterministic order; compare webhook lists as sets",
        evidence=(
            "found by tests/fidelity/test_differential.py; src/crud/webhook.py "
            "list_webhook_endpoints: a select with no order_by"
        ),
        probe=_probe_webhooks_order,
        fake_result=[f"https://e.com/{i}" for i in range(4)],
        real_result=UNSTABLE,
    ),
    Divergence(
        id="pdf-upload",
        kind="not-copied",
        summary="the fake cannot read PDF uploads",
        real=(
            "application/pdf uploads are read with pdfplumber ('[Page N]' per page); a file "
            "it cannot parse is a 500"
        ),
        fake=(
            "application/pdf is refused like any unsupported type: 415 'Unsupported file type: "
            "application/pdf. Supported types: [...]'"
        ),
        reason="a PDF parser is a heavy dependency for a test double",
        evidence=f"measured on {_SOURCE}; src/utils/files.py PDFProcessor",
        probe=_probe_pdf_upload,
        fake_result=415,
        real_result=500,
    ),
    Divergence(
        id="chat-levels-above-medium",
        kind="not-copied",
        summary="chat at reasoning_level high or max quotes more conclusions than medium",
        real=(
            "the level picks the model settings and tool budget only; the LLM request for "
            "medium, high and max is the same, so what is quoted is the model's choice "
            "(fake-honcho-llm, which cannot tell them apart, quotes 5 as at medium)"
        ),
        fake="quotes up to 1, 3, 5, 8 and 12 matching conclusions from minimal to max",
        reason="a test can see the level take effect; real answers depend on the LLM",
        evidence=(
            f"{_SOURCE} src/config.py _default_dialectic_levels (same model, max_output_tokens "
            "and tool_choice for medium/high/max); fake-honcho-llm through a real 3.0.12 "
            "quoted 5 of 10 at high"
        ),
        probe=_probe_chat_at_high_level,
        fake_result=8,
        real_result=UNSTABLE,
    ),
    Divergence(
        id="no-automatic-dream",
        kind="not-copied",
        summary="the fake never schedules a dream by itself, so no card appears unasked",
        real=(
            "the deriver schedules an omni dream once 50 new conclusions have gathered and the "
            "pair has been idle 60 minutes (DREAM_DOCUMENT_THRESHOLD, DREAM_IDLE_TIMEOUT_MINUTES,"
            " at most one per 8 hours); the dream refreshes the peer card"
        ),
        fake="cards come only from POST .../schedule_dream or PUT .../card",
        reason="an hour-long idle timer has no place in a test double; schedule the dream",
        evidence=(
            f"{_SOURCE} src/config.py DreamSettings, src/dreamer/dream_scheduler.py; the "
            "deriver itself writes no card (measured through fake-honcho-llm)"
        ),
        probe=_probe_card_without_dream,
        fake_result=None,
        real_result=UNSTABLE,
    ),
)

_SDKS = (
    "honcho-ai 2.7.0 (honcho/api_types.py Evidence, EvidenceObservation, EvidenceMessageRef, "
    "EvidenceToolCall; honcho/utils/sse.py reads evidence on the done event) and "
    "@honcho-ai/sdk 2.5.0 (dist/types/api.d.ts, dist/http/streaming.js)"
)

DIVERGENCES += (
    Divergence(
        id="chat-evidence-modelled",
        kind="modelled",
        since=Feature.CHAT_EVIDENCE,
        summary="chat `evidence` (include_evidence) is modelled on the SDKs: no server source",
        real=(
            "3.2.0's release notes announce optional evidence in chat answers and streams; "
            "no source of it is available here (pull request 952's server ignores "
            "include_evidence), so what a real server puts in it is unseen"
        ),
        fake=(
            "with include_evidence true, peer and workspace chat answer `evidence` "
            "{conclusions: [{id, level, content, created_at, session_id, source_ids}], "
            "messages: [{id, session_id, peer_id, "
            "created_at}], tool_calls: [], reasoning_trace_id: null}: the conclusions the toy "
            "dialectic quotes, or the message it quotes; streamed on the final done event; no "
            "`evidence` key when it is not asked for; no observer_id/observed_id in a "
            "conclusion (honcho-ai 2.7.0: 'None from servers before 3.2.1')"
        ),
        reason=(
            "today's SDKs send include_evidence and parse the answer; a shape both parse is "
            "better than a field the fake drops without a word"
        ),
        evidence=f"modelled, not verified: {_SDKS}",
        probe=_chat_with_evidence,
        fake_result={
            "plain": ["conclusions", "messages", "reasoning_trace_id", "tool_calls"],
            "streamed": ["conclusions", "messages", "reasoning_trace_id", "tool_calls"],
            "conclusion": ["content", "created_at", "id", "level", "session_id", "source_ids"],
            "unasked": False,
        },
        real_result=UNVERIFIED,
    ),
    Divergence(
        id="uid-left-out",
        kind="modelled",
        summary="no `uid` on workspaces, peers or sessions: left out, no 3.2 client shows it",
        real=(
            "unseen: honcho-ai 2.7.0 parses an optional `uid` ('immutable server-assigned "
            "identifier') on workspaces, peers and sessions, but @honcho-ai/sdk 2.5.0, released"
            " with 3.2.0, does not, and no server source here has it"
        ),
        fake="sends no `uid` at any version (honcho-ai 2.7.0 reads its absence as None)",
        reason=(
            "the register models only what a client of the version shows; uid most likely "
            "arrived after 3.2.0, and its format is unknown"
        ),
        evidence="modelled, not verified: honcho-ai 2.7.0 honcho/api_types.py WorkspaceResponse,"
        " PeerResponse, SessionResponse; absent from @honcho-ai/sdk 2.5.0 dist/types/api.d.ts",
        probe=_peer_uid,
        fake_result=False,
        real_result=UNVERIFIED,
    ),
)

_BY_ID = {entry.id: entry for entry in DIVERGENCES}


def divergence(divergence_id: str) -> Divergence:
    """The entry with this id; ``KeyError`` naming the known ids otherwise."""
    try:
        return _BY_ID[divergence_id]
    except KeyError:
        raise KeyError(f"no divergence {divergence_id!r}; known: {', '.join(_BY_ID)}") from None


def affecting(
    test_names: Iterable[str], features: Iterable[Feature] | None = None
) -> list[Divergence]:
    """Entries that name any of ``test_names`` (``Class.test_name``) in ``affects`` and apply
    to a server serving ``features`` (``None``: any server)."""
    names = set(test_names)
    served = None if features is None else frozenset(features)
    return [
        entry
        for entry in DIVERGENCES
        if names.intersection(entry.affects) and (served is None or entry.applies_to(served))
    ]
