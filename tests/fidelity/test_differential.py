"""Differential testing against a real Honcho, as fakeredis tests itself against Redis.

A hypothesis state machine sends the same generated sequence of operations to a fresh
in-process fake and to the server given by ``--honcho-url`` (one new workspace per
example, deleted afterwards) and compares every answer, normalised as the recorded
exchanges are (``fake_honcho.drift``). It runs only with ``--honcho-url``.

The generator keeps to what both servers must answer alike, and steers clear of the
register's entries (``fake_honcho.harness.divergences``) instead of failing on them forever:
peers are created one request at a time (``same-request-created-order``), member lists
are compared as sets (``session-peers-order``), a deleted session and its members'
session lists are not read again (``deletion-at-once``), only sessions holding messages
are cloned (``real-clone-empty-not-saved``) and session names carry the workspace id
(``real-clone-cross-workspace``); bad names go only where the server answers 4xx.

The fake speaks the version the plugin probed the server to serve (``honcho_served``): a
real 3.1 is compared with the fake at 3.1, a real 3.0.12 with the fake at 3.0.12.

``HONCHO_DIFFERENTIAL_EXAMPLES`` (default 60) sets how many sequences of up to 40
operations run; the test prints how many operations it sent.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import count
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)

from contract_tests.namespace import delete_workspaces
from contract_tests.target import HonchoTarget
from fake_honcho import FakeHoncho
from fake_honcho.drift.exchange import Session, Step
from fake_honcho.drift.probe import Served

EXAMPLES = int(os.environ.get("HONCHO_DIFFERENTIAL_EXAMPLES", "60"))
STEPS = 40
W = "/v3/workspaces/{ws}"
PEERS = ("alice", "bob", "carol", "dave", "erin")
VOCABULARY = ("I", "prefer", "green", "tea", "the", "morning", "jazz", "likes", "coffee", "a")
URLS = tuple(f"https://example.com/hook{i}" for i in range(3))

contents = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=6).map(" ".join)
scalars = st.one_of(st.integers(0, 3), st.sampled_from(["x", "y"]), st.booleans())
nested = st.lists(scalars, max_size=2) | st.dictionaries(st.just("n"), scalars, max_size=1)
values = scalars | nested
metadata = st.dictionaries(st.sampled_from(["k", "tier", "tag"]), values, max_size=2)
bad_names = st.sampled_from(["bad.name", "", "x" * 513, "sp ace"])
timestamps = st.sampled_from(
    ["2024-01-02T03:04:05", "2024-01-02T03:04:05+02:00", "2024-01-02", "yesterday", "2024-13-01"]
)
maybe_metadata = st.none() | metadata
peer_config = st.fixed_dictionaries(
    {}, optional={"observe_me": st.booleans(), "observe_others": st.booleans()}
)
session_configuration = st.none() | st.fixed_dictionaries(
    {},
    optional={
        "reasoning": st.fixed_dictionaries({"enabled": st.booleans()}),
        "summary": st.fixed_dictionaries({"enabled": st.booleans()}),
    },
)
pages = st.fixed_dictionaries(
    {},
    optional={
        "page": st.integers(1, 3),
        "size": st.integers(1, 5),
        "reverse": st.sampled_from(["true", "false"]),
    },
)


@dataclass
class SessionModel:
    """What the machine knows of one session: its path name, members ever, message handles."""

    name: str
    members: set[str] = field(default_factory=set)
    messages: list[str] = field(default_factory=list)
    deleted: bool = False


class Differential(RuleBasedStateMachine):
    """One example: a fresh workspace on the server, a fresh fake, the same operations."""

    target: HonchoTarget  # set by the test before the machine runs
    version: str  # the version the server was probed to serve
    embeds: bool  # whether it was probed to embed messages
    counter: list[int]  # operations sent, shared across examples

    def __init__(self) -> None:
        super().__init__()
        token = uuid.uuid4().hex[:10]
        self.ws = f"hc-diff-{token}"
        workspaces = {"ws": self.ws}
        self.fake = FakeHoncho(version=self.version, strict=True, embed_messages=self.embeds)
        self.fake_client = httpx.Client(transport=self.fake.transport(), base_url="http://fake")
        self.real_client = self.target.client(limits=httpx.Limits(max_keepalive_connections=0))
        self.real = Session(self.real_client, workspaces)
        self.mirror = Session(self.fake_client, workspaces)
        self.peers: list[str] = []
        self.tainted: set[str] = set()  # members of a deleted session (deletion-at-once)
        self.sessions: dict[str, SessionModel] = {}
        self.webhooks: list[str] = []
        self.handles = 0

    def teardown(self) -> None:
        try:
            delete_workspaces(self.real_client, self.ws)
        finally:
            self.real_client.close()
            self.fake_client.close()
            self.fake.close()

    # -- sending ----------------------------------------------------------------------

    def check(self, method: str, path: str, **kwargs: Any) -> int:
        """Send one step to both; they must answer alike. Returns the status."""
        step = Step(method, path, **kwargs)
        real, fake = self.real.send(step), self.mirror.send(step)
        self.counter[0] += 1
        assert real == fake, (
            f"{step.describe()}\n  server: {real.as_json()}\n  fake:   {fake.as_json()}"
        )
        return real.status

    def new_handle(self, prefix: str) -> str:
        self.handles += 1
        return f"{prefix}{self.handles}"

    def live_sessions(self) -> list[SessionModel]:
        return [s for s in self.sessions.values() if not s.deleted]

    @initialize(
        peers=st.lists(st.sampled_from(PEERS), min_size=1, max_size=3, unique=True),
        data=st.data(),
    )
    def start(self, peers: list[str], data: st.DataObject) -> None:
        """Peers (one request each) and a session with messages, so every rule can bite."""
        for peer in peers:
            self.upsert_peer(peer, {}, "POST")
        self.add_messages(data, None, None)

    # -- workspace --------------------------------------------------------------------

    @rule(meta=st.none() | metadata)
    def workspace(self, meta: Any) -> None:
        if meta is None:
            self.check("POST", "/v3/workspaces/list", json={"filters": {"id": "{ws}"}})
        else:
            self.check("PUT", W, json={"metadata": meta})

    # -- peers ------------------------------------------------------------------------

    @rule(
        peer=st.sampled_from(PEERS),
        body=st.fixed_dictionaries(
            {}, optional={"metadata": metadata, "configuration": peer_config}
        ),
        verb=st.sampled_from(["POST", "PUT"]),
    )
    def upsert_peer(self, peer: str, body: dict[str, Any], verb: str) -> None:
        if verb == "POST":
            status = self.check("POST", W + "/peers", json={"id": peer, **body})
        else:
            status = self.check("PUT", f"{W}/peers/{peer}", json=body)
        if status in (200, 201) and peer not in self.peers:
            self.peers.append(peer)

    @rule(
        filters=st.none()
        | st.builds(lambda m: {"metadata": m}, metadata)
        | st.builds(lambda p: {"id": p}, st.sampled_from(PEERS))
        | st.builds(lambda ps: {"id": {"in": ps}}, st.lists(st.sampled_from(PEERS), max_size=3)),
        params=pages,
    )
    def list_peers(self, filters: dict[str, Any] | None, params: dict[str, Any]) -> None:
        body = {"filters": filters} if filters is not None else None
        self.check("POST", W + "/peers/list", json=body, params=params)

    @precondition(lambda self: bool(set(self.peers) - self.tainted))
    @rule(data=st.data(), params=pages)
    def sessions_of_peer(self, data: st.DataObject, params: dict[str, Any]) -> None:
        peer = data.draw(st.sampled_from(sorted(set(self.peers) - self.tainted)))
        self.check("POST", f"{W}/peers/{peer}/sessions", params=params)

    # -- sessions ---------------------------------------------------------------------

    def session_name(self, data: st.DataObject) -> SessionModel:
        """A live session, or a new name (its path carries the workspace id)."""
        fresh = next(f"{{ws}}s{i}" for i in count(1) if f"{{ws}}s{i}" not in self.sessions)
        live = [s.name for s in self.live_sessions()]
        name = data.draw(st.sampled_from([*live[-4:], fresh]))
        return self.sessions.get(name) or SessionModel(name)

    def member_map(self, data: st.DataObject) -> dict[str, Any]:
        chosen = data.draw(st.lists(st.sampled_from(self.peers), max_size=3, unique=True))
        return {peer: data.draw(peer_config) for peer in chosen}

    def remember(self, session: SessionModel, status: int, joined: Any = ()) -> None:
        if status in (200, 201):
            self.sessions.setdefault(session.name, session).members.update(joined)

    @rule(data=st.data(), meta=maybe_metadata, configuration=session_configuration)
    def get_or_create_session(self, data: st.DataObject, meta: Any, configuration: Any) -> None:
        session = self.session_name(data)
        members = self.member_map(data) if self.peers else {}
        body: dict[str, Any] = {"id": session.name}
        if members:
            body["peers"] = members
        if meta is not None:
            body["metadata"] = meta
        if configuration is not None:
            body["configuration"] = configuration
        self.remember(session, self.check("POST", W + "/sessions", json=body), members)

    @rule(data=st.data(), meta=maybe_metadata, configuration=session_configuration)
    def update_session(self, data: st.DataObject, meta: Any, configuration: Any) -> None:
        session = self.session_name(data)
        body = {k: v for k, v in (("metadata", meta), ("configuration", configuration)) if v}
        self.remember(session, self.check("PUT", f"{W}/sessions/{session.name}", json=body))

    @rule(
        filters=st.none()
        | st.builds(lambda m: {"metadata": m}, metadata)
        | st.just({"is_active": True}),
        params=pages,
    )
    def list_sessions(self, filters: dict[str, Any] | None, params: dict[str, Any]) -> None:
        body = {"filters": filters} if filters is not None else None
        self.check("POST", W + "/sessions/list", json=body, params=params)

    @precondition(lambda self: bool(self.live_sessions()))
    @rule(data=st.data())
    def delete_session(self, data: st.DataObject) -> None:
        session = data.draw(st.sampled_from(self.live_sessions()))
        self.check("DELETE", f"{W}/sessions/{session.name}")
        session.deleted = True
        self.tainted |= session.members

    @precondition(lambda self: any(s.messages for s in self.live_sessions()))
    @rule(data=st.data(), cut=st.booleans())
    def clone_session(self, data: st.DataObject, cut: bool) -> None:
        session = data.draw(st.sampled_from([s for s in self.live_sessions() if s.messages]))
        handle = self.new_handle("c")
        params = {"message_id": "{" + data.draw(st.sampled_from(session.messages)) + "}"}
        status = self.check(
            "POST",
            f"{W}/sessions/{session.name}/clone",
            params=params if cut else None,
            save={handle: "id"},
        )
        if status == 201:
            name = "{" + handle + "}"
            self.sessions[name] = SessionModel(name, members=set(session.members))

    @precondition(lambda self: bool(self.live_sessions()))
    @rule(data=st.data(), summary=st.sampled_from(["false", "true"]))
    def session_context(self, data: st.DataObject, summary: str) -> None:
        session = data.draw(st.sampled_from(self.live_sessions()))
        self.check("GET", f"{W}/sessions/{session.name}/context", params={"summary": summary})

    @rule(data=st.data(), bad=bad_names, where=st.sampled_from(["id", "create", "POST", "PUT"]))
    def bad_name(self, data: st.DataObject, bad: str, where: str) -> None:
        """A bad session id, or a bad peer in a map: each route answers PeerCreate's
        ValidationError its own way, and nothing changes."""
        if where == "id":
            self.check("POST", W + "/sessions", json={"id": bad})
            return
        session = self.session_name(data)
        members = {**self.member_map(data), bad: {}}
        if where == "create":
            self.check("POST", W + "/sessions", json={"id": session.name, "peers": members})
        else:
            self.check(where, f"{W}/sessions/{session.name}/peers", json=members)

    # -- members ----------------------------------------------------------------------

    @precondition(lambda self: bool(self.peers))
    @rule(data=st.data(), verb=st.sampled_from(["POST", "PUT"]))
    def add_or_set_members(self, data: st.DataObject, verb: str) -> None:
        session = self.session_name(data)
        members = self.member_map(data)
        status = self.check(verb, f"{W}/sessions/{session.name}/peers", json=members)
        self.remember(session, status, members)

    @precondition(lambda self: bool(self.live_sessions()))
    @rule(data=st.data(), peers=st.lists(st.sampled_from(PEERS), max_size=3))
    def remove_members(self, data: st.DataObject, peers: list[str]) -> None:
        session = data.draw(st.sampled_from(self.live_sessions()))
        self.check("DELETE", f"{W}/sessions/{session.name}/peers", json=peers)

    @precondition(lambda self: bool(self.live_sessions()))
    @rule(data=st.data())
    def list_members(self, data: st.DataObject) -> None:
        session = data.draw(st.sampled_from(self.live_sessions()))
        # Unordered on the server (session-peers-order): only a whole list is comparable.
        self.check("GET", f"{W}/sessions/{session.name}/peers", unordered=True)

    @precondition(lambda self: bool(self.live_sessions()))
    @rule(data=st.data(), peer=st.sampled_from(PEERS), config=peer_config)
    def member_config(self, data: st.DataObject, peer: str, config: dict[str, Any]) -> None:
        session = data.draw(st.sampled_from(self.live_sessions()))
        path = f"{W}/sessions/{session.name}/peers/{peer}/config"
        if data.draw(st.booleans()):
            self.check("GET", path)
        elif self.check("PUT", path, json=config) == 204:
            session.members.add(peer)

    # -- messages ---------------------------------------------------------------------

    @precondition(lambda self: bool(self.peers))
    @rule(data=st.data(), meta=maybe_metadata, stamp=st.none() | timestamps)
    def add_messages(self, data: st.DataObject, meta: Any, stamp: str | None) -> None:
        session = self.session_name(data)
        authors = data.draw(st.lists(st.sampled_from(self.peers), min_size=1, max_size=3))
        handles = [self.new_handle("m") for _ in authors]
        messages = [
            {"peer_id": author, "content": data.draw(contents)}
            | ({"metadata": meta} if meta is not None else {})
            | ({"created_at": stamp} if stamp is not None else {})
            for author in authors
        ]
        status = self.check(
            "POST",
            f"{W}/sessions/{session.name}/messages",
            json={"messages": messages},
            save={handle: f"{i}.id" for i, handle in enumerate(handles)},
        )
        self.remember(session, status, authors)
        if status == 201:
            self.sessions[session.name].messages.extend(handles)

    @precondition(lambda self: bool(self.live_sessions()))
    @rule(
        data=st.data(),
        filters=st.none()
        | st.builds(lambda p: {"peer_id": p}, st.sampled_from(PEERS))
        | st.builds(lambda m: {"metadata": m}, metadata)
        | st.builds(lambda t: {"created_at": {"gte": t}}, timestamps),
        params=pages,
    )
    def list_messages(
        self, data: st.DataObject, filters: dict[str, Any] | None, params: dict[str, Any]
    ) -> None:
        session = data.draw(st.sampled_from(self.live_sessions()))
        body = {"filters": filters} if filters is not None else None
        self.check("POST", f"{W}/sessions/{session.name}/messages/list", json=body, params=params)

    @precondition(lambda self: any(s.messages for s in self.live_sessions()))
    @rule(data=st.data(), meta=st.none() | metadata)
    def get_or_update_message(self, data: st.DataObject, meta: Any) -> None:
        owner = data.draw(st.sampled_from([s for s in self.live_sessions() if s.messages]))
        where = data.draw(st.sampled_from(self.live_sessions()))  # maybe the wrong session
        handle = data.draw(st.sampled_from(owner.messages))
        path = f"{W}/sessions/{where.name}/messages/{{{handle}}}"
        if meta is None:
            self.check("GET", path)
        else:
            self.check("PUT", path, json={"metadata": meta})

    # -- webhooks ---------------------------------------------------------------------

    @rule(url=st.sampled_from(URLS) | st.sampled_from(["ftp://e.com/x", "http://10.0.0.1/x", "x"]))
    def register_webhook(self, url: str) -> None:
        handle = self.new_handle("h")
        if self.check("POST", W + "/webhooks", json={"url": url}, save={handle: "id"}) == 201:
            self.webhooks.append(handle)

    @rule()
    def list_webhooks(self) -> None:
        self.check("GET", W + "/webhooks", unordered=True)  # webhooks-order

    @precondition(lambda self: bool(self.webhooks))
    @rule(data=st.data())
    def delete_webhook(self, data: st.DataObject) -> None:
        handle = data.draw(st.sampled_from(self.webhooks))
        if self.check("DELETE", f"{W}/webhooks/{{{handle}}}") == 204:
            self.webhooks.remove(handle)


@pytest.fixture
def real_target(honcho_target: HonchoTarget) -> Iterator[HonchoTarget]:
    if honcho_target.served_fake is not None:
        pytest.skip(f"differential: the server at --honcho-url is {honcho_target.served_fake}")
    if honcho_target.is_fake:
        pytest.skip("differential: compares the fake with a real server; run with --honcho-url")
    yield honcho_target


def test_fake_and_server_answer_every_generated_sequence_alike(
    real_target: HonchoTarget, honcho_served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    counter = [0]

    class Machine(Differential):
        target = real_target
        version = honcho_served.version.name
        embeds = honcho_served.embeds

    Machine.counter = counter
    outcome = "a difference (below)"
    try:
        run_state_machine_as_test(
            Machine,
            settings=settings(
                max_examples=EXAMPLES,
                stateful_step_count=STEPS,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
                database=None,
                # Each shrink step replays against the real server: far too slow to be worth it.
                phases=(Phase.explicit, Phase.generate),
                report_multiple_bugs=False,
            ),
        )
        outcome = "no difference"
    finally:  # the count says how far it got, whether it passes or fails
        with capsys.disabled():
            print(
                f"\ndifferential: {counter[0]} operations, {EXAMPLES} examples, fake at "
                f"{honcho_served.version}, {outcome}"
            )
