"""Every public method of honcho-ai 2.7, sync and async, against the fake at its newest version.

The methods are found by introspecting the SDK's classes, not listed by hand: a method
a new SDK release adds has no call here, and ``test_every_sdk_method_has_a_call`` names
it. Each call asserts what the method answers on a served fake at "3.2" (the SDK's
``X-Honcho-Host`` included). The fake's toy deriver answers chat, so nothing here needs
an LLM, and nothing answers 404 or 405.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pydantic
import pytest

honcho_sdk = pytest.importorskip("honcho", reason="honcho-ai is not installed")
SDK_VERSION = getattr(honcho_sdk, "__version__", "")
if not SDK_VERSION.startswith("2.7"):
    pytest.skip(f"written for honcho-ai 2.7, found {SDK_VERSION}", allow_module_level=True)
from honcho import (  # noqa: E402
    ChatResponse,
    Conclusion,
    ConclusionsView,
    Honcho,
    Peer,
    Scope,
    Session,
    SessionContext,
    WorkspaceConclusions,
)
from honcho.api_types import (  # noqa: E402
    PeerConfig,
    ReasoningConfiguration,
    SessionConfiguration,
    SessionPeerConfig,
    SummaryConfiguration,
    WorkspaceConfiguration,
)

from fake_honcho import FakeHoncho  # noqa: E402
from fake_honcho.versions import VERSIONS  # noqa: E402

NEWEST = list(VERSIONS)[-1]

#: The SDK classes whose methods talk to the server (sync; each has an ``.aio`` twin).
RESOURCES: dict[str, type] = {
    "Honcho": Honcho,
    "Peer": Peer,
    "Session": Session,
    "Scope": Scope,
    "ConclusionsView": ConclusionsView,
    "WorkspaceConclusions": WorkspaceConclusions,
    "SessionContext": SessionContext,
}
#: Classes without an async view.
SYNC_ONLY = frozenset({"SessionContext"})

_PYDANTIC = frozenset(dir(pydantic.BaseModel))


def public_methods(cls: type) -> list[str]:
    """The public methods of ``cls`` (properties and pydantic's own left out)."""
    names = []
    for name in dir(cls):
        if name.startswith("_") or name in _PYDANTIC:
            continue
        if isinstance(inspect.getattr_static(cls, name), property):
            continue
        value = getattr(cls, name)
        if callable(value) and not inspect.isclass(value):
            names.append(name)
    return names


def aio_class(resource: str) -> type:
    return getattr(honcho_sdk, f"{resource}Aio") if resource != "Honcho" else honcho_sdk.HonchoAio


def sdk_methods() -> list[tuple[str, str, str]]:
    """``(mode, resource, method)`` for every public method, sync and async."""
    found = [("sync", r, m) for r, cls in RESOURCES.items() for m in public_methods(cls)]
    found += [
        ("async", r, m)
        for r in RESOURCES
        if r not in SYNC_ONLY
        for m in public_methods(aio_class(r))
    ]
    return found


# -- the world each call runs in ------------------------------------------------------------


@dataclass
class World:
    """A seeded workspace and the SDK objects a call needs, sync or async.

    ``call(obj, "method", ...)`` calls ``obj.method`` (sync) or ``obj.aio.method``
    (async, run to completion); ``items`` and ``drain`` read pages and streams of
    either kind, so each call below is written once for both modes.
    """

    mode: str
    honcho: Honcho
    loop: asyncio.AbstractEventLoop
    alice: Peer = field(init=False)
    bob: Peer = field(init=False)
    session: Session = field(init=False)
    message_ids: list[str] = field(init=False)
    conclusion: Conclusion = field(init=False)

    def call(self, obj: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        if self.mode == "sync":
            return getattr(obj, method)(*args, **kwargs)
        return self.loop.run_until_complete(getattr(obj.aio, method)(*args, **kwargs))

    def items(self, page: Any) -> list[Any]:
        if self.mode == "sync":
            return list(page)

        async def collect() -> list[Any]:
            return [item async for item in page]

        return self.loop.run_until_complete(collect())

    def drain(self, stream: Any) -> str:
        if self.mode == "sync":
            return "".join(stream)

        async def collect() -> str:
            return "".join([chunk async for chunk in stream])

        return self.loop.run_until_complete(collect())

    def seed(self) -> World:
        """Two peers in a session with messages, and alice's derived conclusions."""
        honcho = self.honcho
        self.alice, self.bob = honcho.peer("alice"), honcho.peer("bob")
        self.session = honcho.session("s1")
        self.session.add_peers([self.alice, self.bob])
        written = self.session.add_messages(
            [
                self.alice.message("I love green tea in the morning"),
                self.bob.message("Green tea is lovely"),
                self.alice.message("I live in Oslo"),
            ]
        )
        self.message_ids = [message.id for message in written]
        self.conclusion = self.alice.conclusions.list().items[0]
        return self


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[FakeHoncho, str]]:
    # Every world holds a session s1, and a real server clones by session name in every
    # workspace (its 500, divergence real-clone-cross-workspace): the SDK's calls are the
    # point here, so the fake answers as a corrected server.
    with FakeHoncho(version=NEWEST, strict=True, real_bugs="correct") as fake, fake.serve() as url:
        yield fake, url


@pytest.fixture
def world(served: tuple[FakeHoncho, str], request: pytest.FixtureRequest) -> Iterator[World]:
    _, url = served
    mode = request.node.callspec.params["case"][0]
    workspace = f"sdk-{uuid.uuid4().hex[:10]}"
    loop = asyncio.new_event_loop()
    honcho = Honcho(base_url=url, workspace_id=workspace, max_retries=0, timeout=30)
    try:
        yield World(mode, honcho, loop).seed()
    finally:
        loop.close()


# -- one call per SDK method ------------------------------------------------------------------

Call = Callable[[World], None]
CALLS: dict[tuple[str, str], Call] = {}


def calls(resource: str, *methods: str) -> Callable[[Call], Call]:
    def register(function: Call) -> Call:
        for method in methods:
            key = (resource, method)
            assert key not in CALLS, f"two calls for {key}"
            CALLS[key] = function
        return function

    return register


# Honcho (the workspace) ------------------------------------------------------------------


@calls("Honcho", "peer")
def _peer(w: World) -> None:
    carol = w.call(w.honcho, "peer", "carol", metadata={"role": "guest"})
    assert carol.id == "carol" and w.call(carol, "get_metadata") == {"role": "guest"}


@calls("Honcho", "session")
def _session(w: World) -> None:
    assert w.call(w.honcho, "session", "s2", metadata={"topic": "tea"}).id == "s2"


@calls("Honcho", "peers")
def _peers(w: World) -> None:
    assert sorted(p.id for p in w.items(w.call(w.honcho, "peers"))) == ["alice", "bob"]


@calls("Honcho", "sessions")
def _sessions(w: World) -> None:
    assert [s.id for s in w.items(w.call(w.honcho, "sessions"))] == ["s1"]


@calls("Honcho", "workspaces")
def _workspaces(w: World) -> None:
    assert w.honcho.workspace_id in w.items(w.call(w.honcho, "workspaces"))


@calls("Honcho", "get_metadata", "set_metadata")
def _workspace_metadata(w: World) -> None:
    w.call(w.honcho, "set_metadata", {"team": "tea"})
    assert w.call(w.honcho, "get_metadata") == {"team": "tea"}


@calls("Honcho", "get_configuration", "set_configuration")
def _workspace_configuration(w: World) -> None:
    off = WorkspaceConfiguration(reasoning=ReasoningConfiguration(enabled=False))
    w.call(w.honcho, "set_configuration", off)
    assert w.call(w.honcho, "get_configuration").reasoning.enabled is False


@calls("Honcho", "refresh")
def _workspace_refresh(w: World) -> None:
    w.call(w.honcho, "refresh")
    assert w.honcho.metadata == {}


@calls("Honcho", "search")
def _workspace_search(w: World) -> None:
    found = w.call(w.honcho, "search", "Oslo")  # embeddings on: the word's hit first
    assert found[0].content == "I live in Oslo"


@calls("Honcho", "queue_status")
def _workspace_queue(w: World) -> None:
    status = w.call(w.honcho, "queue_status")
    assert status.pending_work_units == 0 and status.total_work_units > 0


@calls("Honcho", "schedule_dream")
def _dream(w: World) -> None:
    assert w.call(w.honcho, "schedule_dream", "alice") is None
    assert w.call(w.alice, "get_card")  # the dream wrote alice's card


@calls("Honcho", "delete_workspace")
def _delete_workspace(w: World) -> None:
    w.call(w.session, "delete")  # a workspace with sessions is a 409
    w.call(w.honcho, "delete_workspace", w.honcho.workspace_id)
    assert w.honcho.workspace_id not in w.items(w.call(w.honcho, "workspaces"))


@calls("Honcho", "chat")
def _workspace_chat(w: World) -> None:
    assert "Oslo" in w.call(w.honcho, "chat", "who lives in Oslo?")
    with_evidence = w.call(w.honcho, "chat", "who lives in Oslo?", include_evidence=True)
    assert with_evidence.evidence is not None
    assert "alice lives in Oslo" in [c.content for c in with_evidence.evidence.conclusions]


@calls("Honcho", "chat_stream")
def _workspace_chat_stream(w: World) -> None:
    assert "Oslo" in w.drain(w.call(w.honcho, "chat_stream", "who lives in Oslo?"))


@calls("Honcho", "scope")
def _scope(w: World) -> None:
    assert w.call(w.honcho, "scope", "work").id == "work"


@calls("Honcho", "scopes")
def _scopes(w: World) -> None:
    w.call(w.honcho, "scope", "work")
    assert [s.id for s in w.items(w.call(w.honcho, "scopes"))] == ["work"]


@calls("Honcho", "get_scope")
def _get_scope(w: World) -> None:
    w.call(w.honcho, "scope", "work")
    assert w.call(w.honcho, "get_scope", "work").id == "work"


# Scope ---------------------------------------------------------------------------------------


@calls("Scope", "add_sessions", "sessions", "remove_session", "status")
def _scope_sessions(w: World) -> None:
    scope = w.call(w.honcho, "scope", "work")
    w.call(scope, "add_sessions", ["s1"])
    assert [s.id for s in w.items(w.call(scope, "sessions"))] == ["s1"]
    assert "s1" in w.call(scope, "status")  # per-session backfill jobs
    w.call(scope, "remove_session", "s1")
    assert w.items(w.call(scope, "sessions")) == []


# Peer ------------------------------------------------------------------------------------------


@calls("Peer", "chat")
def _peer_chat(w: World) -> None:
    assert "green tea" in w.call(w.alice, "chat", "what tea does alice drink?")
    with_evidence = w.call(w.alice, "chat", "what tea?", include_evidence=True)
    assert isinstance(with_evidence, ChatResponse) and with_evidence.evidence is not None
    read = with_evidence.evidence.conclusions
    assert [c.content for c in read] == ["alice loves green tea in the morning"]
    assert read[0].source_ids == [] and with_evidence.evidence.tool_calls == []


@calls("Peer", "chat_stream")
def _peer_chat_stream(w: World) -> None:
    stream = w.call(w.alice, "chat_stream", "what tea?", include_evidence=True)
    assert "green tea" in w.drain(stream)
    assert stream.evidence is not None and stream.evidence.conclusions


@calls("Peer", "representation")
def _peer_representation(w: World) -> None:
    assert "green tea" in w.call(w.alice, "representation")


@calls("Peer", "context")
def _peer_context(w: World) -> None:
    context = w.call(w.alice, "context")
    assert context.peer_id == "alice" and "Oslo" in context.representation


@calls("Peer", "get_card", "set_card", "card")
def _peer_card(w: World) -> None:
    w.call(w.alice, "set_card", ["Name: Alice"])
    assert w.call(w.alice, "get_card") == ["Name: Alice"]
    with pytest.deprecated_call():
        assert w.call(w.alice, "card") == ["Name: Alice"]


@calls("Peer", "get_metadata", "set_metadata")
def _peer_metadata(w: World) -> None:
    w.call(w.alice, "set_metadata", {"lang": "en"})
    assert w.call(w.alice, "get_metadata") == {"lang": "en"}


@calls("Peer", "get_configuration", "set_configuration")
def _peer_configuration(w: World) -> None:
    w.call(w.alice, "set_configuration", PeerConfig(observe_me=False))
    assert w.call(w.alice, "get_configuration").observe_me is False


@calls("Peer", "refresh")
def _peer_refresh(w: World) -> None:
    w.call(w.alice, "refresh")
    assert w.alice.metadata == {}


@calls("Peer", "search")
def _peer_search(w: World) -> None:
    assert w.call(w.alice, "search", "Oslo")[0].content == "I live in Oslo"


@calls("Peer", "sessions")
def _peer_sessions(w: World) -> None:
    assert [s.id for s in w.items(w.call(w.alice, "sessions"))] == ["s1"]


@calls("Peer", "message")
def _peer_message(w: World) -> None:
    assert w.alice.message("hi").peer_id == "alice"  # built locally, sent by add_messages


@calls("Peer", "conclusions_of")
def _peer_conclusions_of(w: World) -> None:
    assert w.alice.conclusions_of("bob").observed == "bob"  # a view; its calls are below


# Session ------------------------------------------------------------------------------------


@calls("Session", "add_messages", "messages")
def _session_messages(w: World) -> None:
    w.call(w.session, "add_messages", [w.bob.message("Oslo is cold")])
    listed = [m.content for m in w.items(w.call(w.session, "messages"))]
    assert listed[-1] == "Oslo is cold" and len(listed) == 4


@calls("Session", "get_message")
def _session_get_message(w: World) -> None:
    assert w.call(w.session, "get_message", w.message_ids[2]).content == "I live in Oslo"


@calls("Session", "update_message")
def _session_update_message(w: World) -> None:
    updated = w.call(w.session, "update_message", w.message_ids[0], {"mood": "happy"})
    assert updated.metadata == {"mood": "happy"}


@calls("Session", "add_peers", "peers", "remove_peers", "set_peers")
def _session_peers(w: World) -> None:
    w.call(w.session, "add_peers", ["carol"])
    assert sorted(p.id for p in w.call(w.session, "peers")) == ["alice", "bob", "carol"]
    w.call(w.session, "remove_peers", ["carol"])
    w.call(w.session, "set_peers", ["alice"])
    assert [p.id for p in w.call(w.session, "peers")] == ["alice"]


@calls("Session", "get_peer_configuration", "set_peer_configuration")
def _session_peer_configuration(w: World) -> None:
    w.call(w.session, "set_peer_configuration", "bob", SessionPeerConfig(observe_others=True))
    assert w.call(w.session, "get_peer_configuration", "bob").observe_others is True


@calls("Session", "get_metadata", "set_metadata")
def _session_metadata(w: World) -> None:
    w.call(w.session, "set_metadata", {"topic": "tea"})
    assert w.call(w.session, "get_metadata") == {"topic": "tea"}


@calls("Session", "get_configuration", "set_configuration")
def _session_configuration(w: World) -> None:
    off = SessionConfiguration(summary=SummaryConfiguration(enabled=False))
    w.call(w.session, "set_configuration", off)
    assert w.call(w.session, "get_configuration").summary.enabled is False


@calls("Session", "refresh")
def _session_refresh(w: World) -> None:
    w.call(w.session, "refresh")
    assert w.session.metadata == {}


@calls("Session", "context")
def _session_context(w: World) -> None:
    context = w.call(w.session, "context", peer_target="alice")
    assert len(context.messages) == 3 and "Oslo" in context.peer_representation


@calls("SessionContext", "to_openai", "to_anthropic")
def _context_formats(w: World) -> None:
    context = w.call(w.session, "context")
    assert len(context.to_openai(assistant="bob")) == 3
    assert context.to_anthropic(assistant="bob")[0]["role"] == "user"


@calls("Session", "summaries")
def _session_summaries(w: World) -> None:
    summaries = w.call(w.session, "summaries")
    assert summaries.id == "s1" and summaries.short_summary is None  # 3 messages: none yet


@calls("Session", "search")
def _session_search(w: World) -> None:
    assert w.call(w.session, "search", "Oslo")[0].content == "I live in Oslo"


@calls("Session", "representation")
def _session_representation(w: World) -> None:
    assert "Oslo" in w.call(w.session, "representation", "alice")


@calls("Session", "queue_status")
def _session_queue(w: World) -> None:
    assert w.call(w.session, "queue_status").pending_work_units == 0


@calls("Session", "clone")
def _session_clone(w: World) -> None:
    clone = w.call(w.session, "clone")
    assert clone.id != "s1" and len(w.items(w.call(clone, "messages"))) == 3


@calls("Session", "upload_file")
def _session_upload(w: World) -> None:
    written = w.call(
        w.session, "upload_file", ("notes.txt", b"uploaded tea notes", "text/plain"), "alice"
    )
    assert [m.content for m in written] == ["uploaded tea notes"]


@calls("Session", "delete")
def _session_delete(w: World) -> None:
    w.call(w.session, "delete")
    assert [s.id for s in w.items(w.call(w.honcho, "sessions"))] == []


# Conclusions ---------------------------------------------------------------------------------


@calls("ConclusionsView", "list")
def _view_list(w: World) -> None:
    listed = w.items(w.call(w.alice.conclusions, "list"))
    assert {c.content for c in listed} == {
        "alice loves green tea in the morning",
        "alice lives in Oslo",
    }
    assert all(c.times_derived == 1 and c.source_ids is None for c in listed)


@calls("ConclusionsView", "query")
def _view_query(w: World) -> None:
    assert w.call(w.alice.conclusions, "query", "Oslo")[0].content == "alice lives in Oslo"


@calls("ConclusionsView", "create", "delete")
def _view_create_delete(w: World) -> None:
    [made] = w.call(w.alice.conclusions_of("bob"), "create", [{"content": "bob likes tea"}])
    assert made.observer_id == "alice" and made.observed_id == "bob"
    w.call(w.alice.conclusions_of("bob"), "delete", made.id)
    assert w.items(w.call(w.alice.conclusions_of("bob"), "list")) == []


@calls("ConclusionsView", "get")
def _view_get(w: World) -> None:
    assert w.call(w.alice.conclusions, "get", w.conclusion.id).id == w.conclusion.id


@calls("ConclusionsView", "get_many")
def _view_get_many(w: World) -> None:
    found = w.call(w.alice.conclusions, "get_many", [w.conclusion.id, "A" * 21])
    assert [c.id for c in found] == [w.conclusion.id]


@calls("ConclusionsView", "derived")
def _view_derived(w: World) -> None:
    # Nothing is derived from an explicit conclusion (the toy deriver writes no others).
    assert w.items(w.call(w.alice.conclusions, "derived", w.conclusion.id)) == []


@calls("ConclusionsView", "representation")
def _view_representation(w: World) -> None:
    assert "Oslo" in w.call(w.alice.conclusions, "representation")


@calls("WorkspaceConclusions", "list")
def _workspace_conclusions_list(w: World) -> None:
    assert len(w.items(w.call(w.honcho.conclusions, "list"))) == 2


@calls("WorkspaceConclusions", "get")
def _workspace_conclusions_get(w: World) -> None:
    got = w.call(w.honcho.conclusions, "get", w.conclusion.id)
    assert got.content == w.conclusion.content and got.times_derived == 1


@calls("WorkspaceConclusions", "get_many")
def _workspace_conclusions_get_many(w: World) -> None:
    assert len(w.call(w.honcho.conclusions, "get_many", [w.conclusion.id])) == 1


# -- the tests ---------------------------------------------------------------------------------


def test_every_sdk_method_has_a_call() -> None:
    missing = sorted({f"{r}.{m}" for _, r, m in sdk_methods() if (r, m) not in CALLS})
    assert not missing, f"honcho-ai methods without a call here (add one): {missing}"


def test_every_call_is_an_sdk_method() -> None:
    methods = {(r, m) for _, r, m in sdk_methods()}
    assert not sorted(set(CALLS) - methods), "calls for methods the SDK no longer has"


def _cases() -> list[Any]:
    return [
        pytest.param((mode, resource, method), id=f"{mode}-{resource}.{method}")
        for mode, resource, method in sdk_methods()
    ]


@pytest.mark.parametrize("case", _cases())
def test_sdk_method_answers(case: tuple[str, str, str], world: World) -> None:
    _, resource, method = case
    call = CALLS.get((resource, method))
    if call is None:
        pytest.fail(f"no call for {resource}.{method}")
    call(world)


def test_the_sdk_names_itself_in_x_honcho_host(served: tuple[FakeHoncho, str]) -> None:
    fake, url = served
    Honcho(base_url=url, workspace_id=f"host-{uuid.uuid4().hex[:8]}", max_retries=0).peers()
    assert fake.requests[-1].honcho_host.startswith(f"honcho-python/{SDK_VERSION} (")
