"""``MemoryManagerContract``: the DeerFlow ``MemoryManager`` contract, for any backend.

Adopt it by subclassing (the name does not start with ``Test``, so importing it
collects nothing) and providing a factory::

    class TestMyBackend(MemoryManagerContract):
        capabilities = Capabilities(fact_crud=True)

        @pytest.fixture
        def memory_manager_factory(self):
            return lambda ctx: MyBackend.from_config({...})

The factory receives a :class:`ManagerContext`; a network backend must send
every request through ``ctx.transport`` (that is how the suite records requests,
injects latency and simulates an outage) and keep all remote state under ids
starting with ``ctx.namespace``.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

import httpx
import pytest

from contract_tests.capabilities import Capabilities
from contract_tests.documents import memory_document_problems
from contract_tests.guard import ContractSuite
from contract_tests.loop_lag import LoopLagProbe
from contract_tests.messages import ChatMessage, ai, human, tool
from contract_tests.settle import Settler
from contract_tests.snapshot import HonchoSnapshot
from contract_tests.target import HonchoTarget
from contract_tests.transports import (
    FailingTransport,
    RecordedRequest,
    RecordingTransport,
    SlowTransport,
)
from honcho_backend.manager import MemoryManager, MemoryManagerError

__all__ = ["ManagerContext", "ManagerFactory", "MemoryManagerContract"]

ReadPolicy = Literal["fail_open", "fail_closed"]


@dataclass(frozen=True)
class ManagerContext:
    """Everything a factory needs to build the backend under test."""

    target: HonchoTarget
    namespace: str
    """The test's workspace id: prefix every remote workspace id with it (``f"{namespace}-"``)."""
    transport: httpx.BaseTransport
    """Send every HTTP request through this transport."""
    storage_path: str
    """A fresh directory for backends that keep local files."""
    read_policy: ReadPolicy = "fail_open"
    context_cap: int | None = None
    """When set, ``get_context`` must return at most this many characters."""


ManagerFactory = Callable[[ManagerContext], MemoryManager]

# Every method of the contract whose signature a backend must keep.
CONTRACT_METHODS = (
    "add", "get_context", "from_config", "add_nowait", "search", "get_memory", "delete_memory",
    "clear_memory", "import_memory", "export_memory", "shutdown_flush", "warm", "reload_memory",
    "create_fact", "delete_fact", "update_fact", "on_pre_compress", "on_turn_start", "aadd",
    "aget_context", "asearch", "close",
)  # fmt: skip

SECRET = "My favorite password is zanzibar42"

SCRIPT: tuple[tuple[ChatMessage, ...], ...] = (
    (human("Hi, I'm planning a trip to Kyoto in April."), ai("Lovely, cherry blossom season!")),
    (
        human("I really love matcha, never coffee."),
        tool("weather: 18C"),
        ai("Noted: matcha it is."),
    ),
)


def _conversation(*turns: tuple[ChatMessage, ...]) -> list[ChatMessage]:
    """The history DeerFlow hands to ``add`` after the last of ``turns``: all of it."""
    return [message for turn in turns for message in turn]


def _posted_messages(requests: list[RecordedRequest]) -> list[list[dict[str, Any]]]:
    """The ``messages`` array of every message-batch POST, in order."""
    return [
        r.body["messages"]
        for r in requests
        if r.method == "POST" and r.path.endswith("/messages") and isinstance(r.body, dict)
    ]


def _with_slow_sync_twins(manager: MemoryManager, latency: float) -> tuple[MemoryManager, set[str]]:
    """``manager`` with ``add``/``get_context``/``search`` each sleeping ``latency`` first (a
    local backend's disk or database, slowed), and the set those calls then record."""
    called: set[str] = set()

    def slowed(name: str) -> Callable[..., Any]:
        original = getattr(type(manager), name)

        def method(self: MemoryManager, *args: Any, **kwargs: Any) -> Any:
            called.add(name)
            time.sleep(latency)
            return original(self, *args, **kwargs)

        return method

    twins = {name: slowed(name) for name in ("add", "get_context", "search")}
    slow_class = type(f"Slow{type(manager).__name__}", (type(manager),), twins)
    # The same object, so the backend's state and resources stay as the factory built them.
    object.__setattr__(manager, "__class__", slow_class)
    return manager, called


def _shape(signature: inspect.Signature) -> list[tuple[str, Any, Any]]:
    """Names, kinds and defaults; annotations may be spelt differently and still agree."""
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


class MemoryManagerContract(ContractSuite):
    """Contract tests for a DeerFlow-style ``MemoryManager`` (see the module docstring)."""

    __contract_suite__ = True

    capabilities: ClassVar[Capabilities] = Capabilities()
    """What the backend claims; override in the subclass."""

    manager_base: ClassVar[type[Any]] = MemoryManager
    """The contract's base class (DeerFlow: ``deerflow.agents.memory.manager.MemoryManager``)."""

    manager_error: ClassVar[type[Exception]] = MemoryManagerError
    """The error ``fail_closed`` reads must raise."""

    latency: ClassVar[float] = 0.3
    """Seconds the slow remote adds to each request in the loop-lag test."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "capabilities" in cls.__dict__:
            cls.capabilities = Capabilities.coerce(cls.__dict__["capabilities"])

    # -- fixtures a subclass provides or may override -------------------------

    @pytest.fixture
    def memory_manager_factory(self) -> ManagerFactory:
        """Override: return ``factory(ctx: ManagerContext) -> MemoryManager``."""
        raise NotImplementedError(
            f"{type(self).__name__} must define a memory_manager_factory fixture"
        )

    # -- fixtures of the suite --------------------------------------------------

    @pytest.fixture(autouse=True)
    def _honcho_capability_gate(self, request: pytest.FixtureRequest) -> None:
        for mark in request.node.iter_markers("honcho_requires"):
            missing = [name for name in mark.args if not self.capabilities.has(name)]
            if missing:
                pytest.skip(f"{type(self).__name__} does not declare capability {missing}")

    @pytest.fixture
    def recorder(self, honcho_target: HonchoTarget) -> Iterator[RecordingTransport]:
        """Every request the default manager sends, in order."""
        transport = RecordingTransport(honcho_target.transport())
        yield transport
        transport.close()

    @pytest.fixture
    def manager_context(
        self,
        honcho_target: HonchoTarget,
        honcho_workspace: str,
        recorder: RecordingTransport,
        tmp_path: Any,
    ) -> ManagerContext:
        return ManagerContext(
            target=honcho_target,
            namespace=honcho_workspace,
            transport=recorder,
            storage_path=str(tmp_path),
        )

    @pytest.fixture
    def make_manager(
        self, memory_manager_factory: ManagerFactory, manager_context: ManagerContext
    ) -> Iterator[Callable[..., MemoryManager]]:
        """``make_manager(**context_changes)``: another manager over the same namespace,
        closed at teardown. ``outage=<FailingTransport mode>`` or ``latency=<seconds>``
        swap the transport for a failing or slow one (still recorded)."""
        built: list[MemoryManager] = []

        def make(
            *, outage: str | None = None, latency: float | None = None, **changes: Any
        ) -> MemoryManager:
            ctx = manager_context
            if outage is not None:
                changes["transport"] = RecordingTransport(FailingTransport(outage))
            elif latency is not None:
                inner = ctx.target.transport()
                changes["transport"] = RecordingTransport(SlowTransport(inner, latency))
            manager = memory_manager_factory(replace(ctx, **changes))
            built.append(manager)
            return manager

        yield make
        for manager in built:
            manager.close()

    @pytest.fixture
    def manager(self, make_manager: Callable[..., MemoryManager]) -> MemoryManager:
        """The backend under test, talking to the target through ``recorder``."""
        return make_manager()

    # -- helpers ------------------------------------------------------------------

    @staticmethod
    def user(tag: str, namespace: str) -> str:
        """A user id unique to the test, readable in failure output."""
        return f"{tag}-{namespace[-12:]}"

    def alice_tells_a_secret(self, manager: MemoryManager, namespace: str) -> tuple[str, str]:
        """Alice writes ``SECRET``, Bob writes something else. Returns their ids."""
        alice, bob = self.user("alice", namespace), self.user("bob", namespace)
        manager.add("thread-a", [human(SECRET), ai("Saved.")], user_id=alice)
        manager.add("thread-b", [human("I like hiking"), ai("Nice.")], user_id=bob)
        return alice, bob

    # -- the contract -------------------------------------------------------------

    def test_signatures_match_contract(self, manager: MemoryManager) -> None:
        """Every overridden contract method keeps the base's parameters (names, kinds,
        defaults): the host calls them by keyword.

        Troubleshooting: copy the signature from the base class exactly, including
        keyword-only markers (``*``) and the order of ``user_id``/``agent_name``.
        """
        cls = type(manager)
        mismatches = []
        for name in CONTRACT_METHODS:
            base = inspect.signature(getattr(self.manager_base, name))
            mine = inspect.signature(getattr(cls, name))
            if _shape(base) != _shape(mine):
                mismatches.append(f"{name}{mine} != base {name}{base}")
            if inspect.iscoroutinefunction(getattr(self.manager_base, name)) != (
                inspect.iscoroutinefunction(getattr(cls, name))
            ):
                mismatches.append(f"{name} changed between sync and async")
        assert not mismatches, "\n".join(mismatches)

    def test_supports_search_invariant(self, manager: MemoryManager) -> None:
        """``supports_search`` is True exactly when ``search`` is overridden, and a backend
        without search raises ``NotImplementedError`` from it (the host maps that to 501)."""
        cls = type(manager)
        overridden = cls.search is not self.manager_base.search
        assert cls.supports_search is overridden
        if not overridden:
            with pytest.raises(NotImplementedError):
                manager.search("anything", user_id="someone")
        if self.capabilities.search:
            assert cls.supports_search, "Capabilities(search=True) but supports_search is False"

    def test_from_config_tolerates_host_hooks(self, manager: MemoryManager, tmp_path: Any) -> None:
        """The host injects ``storage_path`` into ``backend_config`` and passes hooks it may not
        know as keyword arguments; ``from_config`` must accept both."""
        config = {**manager.backend_config, "storage_path": str(tmp_path)}
        built = type(manager).from_config(
            config, mode="middleware", callbacks=None, some_future_hook=object()
        )
        try:
            assert isinstance(built, type(manager))
        finally:
            built.close()

    def test_fresh_namespace_is_empty(self, manager: MemoryManager, honcho_workspace: str) -> None:
        """Isolation canary: a new test starts with no memory (the factory must not share
        state between tests)."""
        user = self.user("fresh", honcho_workspace)
        assert manager.get_context(user) == ""
        if manager.supports_search:
            assert manager.search("matcha", user_id=user) == []

    def test_add_returns_none_and_get_context_returns_str(
        self, manager: MemoryManager, honcho_workspace: str
    ) -> None:
        user = self.user("types", honcho_workspace)
        assert manager.add("thread-types", list(SCRIPT[0]), user_id=user) is None
        assert isinstance(manager.get_context(user), str)

    @pytest.mark.parametrize("user_id", [None, ""], ids=["none", "empty"])
    def test_missing_user_does_nothing(
        self, manager: MemoryManager, recorder: RecordingTransport, user_id: str | None
    ) -> None:
        """Without a user there is no bucket to read or write: nothing is stored, nothing sent.

        Troubleshooting: check ``if not user_id: return`` before any I/O in every method.
        """
        manager.add("thread-anon", _conversation(*SCRIPT), user_id=user_id)
        manager.add_nowait("thread-anon", _conversation(*SCRIPT), user_id=user_id)
        assert manager.get_context(user_id) == ""
        if manager.supports_search:
            assert manager.search("matcha", user_id=user_id) == []
        if self.capabilities.memory_document:
            doc = manager.get_memory(user_id=user_id)
            assert memory_document_problems(doc) == []
            assert doc.get("facts", []) == []
        assert recorder.requests == [], "requests sent for a missing user_id"

    @pytest.mark.honcho_llm
    @pytest.mark.honcho_requires("recall")
    def test_write_then_recall(
        self, manager: MemoryManager, honcho_settle: Settler, honcho_workspace: str
    ) -> None:
        """What ``add`` wrote comes back from ``get_context`` once the target has settled."""
        user = self.user("recall", honcho_workspace)
        manager.add("thread-recall", _conversation(*SCRIPT), user_id=user)
        honcho_settle()
        assert "matcha" in manager.get_context(user).lower()
        assert "matcha" in asyncio.run(manager.aget_context(user)).lower()

    @pytest.mark.honcho_requires("search")
    def test_write_then_search(self, manager: MemoryManager, honcho_workspace: str) -> None:
        """What ``add`` wrote is found by ``search`` at once (stored messages need no deriver),
        at most ``top_k`` items, each a dict with string ``content``."""
        user = self.user("search", honcho_workspace)
        manager.add("thread-search", _conversation(*SCRIPT), user_id=user)
        results = manager.search("matcha", top_k=3, user_id=user)
        assert 1 <= len(results) <= 3
        assert all(isinstance(item, dict) and isinstance(item["content"], str) for item in results)
        assert any("matcha" in item["content"].lower() for item in results)

    @pytest.mark.honcho_requires("memory_document")
    def test_get_memory_has_deermem_shape(
        self, manager: MemoryManager, honcho_workspace: str
    ) -> None:
        """``get_memory`` returns a document DeerFlow's gateway accepts: ISO ``lastUpdated``,
        every fact with string ``id`` and ``content``; empty, and after writes (with whatever
        the target has derived by then: everything on the fake, maybe nothing on a real
        server)."""
        user = self.user("doc", honcho_workspace)
        assert memory_document_problems(manager.get_memory(user_id=user)) == []
        manager.add("thread-doc", _conversation(*SCRIPT), user_id=user)
        if self.capabilities.fact_crud:
            manager.create_fact("Prefers window seats", "preference", 0.8, user_id=user)
        assert memory_document_problems(manager.get_memory(user_id=user)) == []

    @pytest.mark.honcho_requires("search")
    def test_users_are_isolated_in_search(
        self, manager: MemoryManager, honcho_workspace: str
    ) -> None:
        """One user's writes never show up in another user's search."""
        alice, bob = self.alice_tells_a_secret(manager, honcho_workspace)
        found = manager.search("zanzibar42", user_id=alice)
        assert any("zanzibar42" in r["content"] for r in found), "positive control failed"
        leaked = [r for r in manager.search("zanzibar42", user_id=bob) if "zanzibar42" in str(r)]
        assert leaked == [], f"bob sees alice's memory: {leaked}"

    @pytest.mark.honcho_llm
    @pytest.mark.honcho_requires("recall")
    def test_users_are_isolated_in_context(
        self, manager: MemoryManager, honcho_settle: Settler, honcho_workspace: str
    ) -> None:
        """One user's writes never show up in another user's context or memory document."""
        alice, bob = self.alice_tells_a_secret(manager, honcho_workspace)
        honcho_settle()
        assert "zanzibar42" in manager.get_context(alice)
        assert "zanzibar42" not in manager.get_context(bob)
        if self.capabilities.memory_document:
            assert "zanzibar42" not in str(manager.get_memory(user_id=bob))

    @pytest.mark.honcho_requires("remote")
    def test_users_are_isolated_in_context_requests(
        self, manager: MemoryManager, recorder: RecordingTransport, honcho_workspace: str
    ) -> None:
        """Reading one user's context, memory or search never asks the remote about another.

        The counterpart of ``test_users_are_isolated_in_context`` that needs no derived
        data, so it runs against a real Honcho without an LLM: Alice's secret is stored
        remotely (the positive control), then every request Bob's reads send is checked
        for Alice's id, and every answer for her secret.
        """
        alice, bob = self.alice_tells_a_secret(manager, honcho_workspace)
        stored = [
            m for batch in _posted_messages(recorder.requests) for m in batch if SECRET in str(m)
        ]
        assert stored, "positive control failed: alice's secret was never sent to the remote"
        assert all(r.status is not None and r.status < 400 for r in recorder.requests)
        sent_before = len(recorder.requests)
        answers: list[Any] = [manager.get_context(bob)]
        if self.capabilities.memory_document:
            answers.append(manager.get_memory(user_id=bob))
        if manager.supports_search:
            answers.append(manager.search("zanzibar42", user_id=bob))
        reads = recorder.requests[sent_before:]
        assert reads, "bob's reads sent nothing: there is nothing to check"
        touching = [r.as_dict() for r in reads if alice in json.dumps(r.as_dict())]
        assert touching == [], f"reading bob's memory asked about alice: {touching}"
        assert "zanzibar42" not in str(answers), f"bob's reads returned alice's secret: {answers}"

    @pytest.mark.honcho_llm  # the cap is only tested on a context that has something in it
    @pytest.mark.honcho_requires("context_cap")
    def test_get_context_respects_cap(
        self,
        make_manager: Callable[..., MemoryManager],
        honcho_settle: Settler,
        honcho_workspace: str,
    ) -> None:
        """DeerFlow applies no budget of its own: ``get_context`` must cap itself."""
        cap = 80
        manager = make_manager(context_cap=cap)
        user = self.user("cap", honcho_workspace)
        history = [
            human(f"I love the food of city number {i}, especially the street food.")
            for i in range(12)
        ]
        manager.add("thread-cap", history, user_id=user)
        honcho_settle()
        context = manager.get_context(user)
        assert len(context) <= cap, f"get_context returned {len(context)} chars, cap is {cap}"

    @pytest.mark.honcho_requires("remote")
    @pytest.mark.parametrize("outage", FailingTransport.MODES)
    def test_add_never_raises_while_remote_fails(
        self, make_manager: Callable[..., MemoryManager], honcho_workspace: str, outage: str
    ) -> None:
        """Writes are best-effort: a failing remote must not break the agent turn."""
        manager = make_manager(outage=outage)
        user = self.user("down", honcho_workspace)
        manager.add("thread-down", _conversation(*SCRIPT), user_id=user)
        manager.add_nowait("thread-down", _conversation(*SCRIPT), user_id=user)
        asyncio.run(manager.aadd("thread-down", _conversation(*SCRIPT), user_id=user))

    @pytest.mark.honcho_requires("remote", "read_policy")
    def test_fail_open_reads_return_empty(
        self, make_manager: Callable[..., MemoryManager], honcho_workspace: str
    ) -> None:
        """``failure_policy.read=fail_open`` (the default): a failing remote reads as empty."""
        manager = make_manager(outage="http_503", read_policy="fail_open")
        user = self.user("open", honcho_workspace)
        assert manager.get_context(user) == ""
        if manager.supports_search:
            assert manager.search("matcha", user_id=user) == []
        if self.capabilities.memory_document:
            doc = manager.get_memory(user_id=user)
            assert memory_document_problems(doc) == []
            assert doc.get("facts", []) == []

    @pytest.mark.honcho_requires("remote", "read_policy")
    @pytest.mark.parametrize("outage", ["http_503", "connect_error"])
    def test_fail_closed_reads_raise(
        self, make_manager: Callable[..., MemoryManager], honcho_workspace: str, outage: str
    ) -> None:
        """``failure_policy.read=fail_closed``: every recall path raises the contract's
        ``MemoryManagerError`` (DeerFlow then aborts the run instead of answering blind)."""
        manager = make_manager(outage=outage, read_policy="fail_closed")
        user = self.user("closed", honcho_workspace)
        with pytest.raises(self.manager_error):
            manager.get_context(user)
        if manager.supports_search:
            with pytest.raises(self.manager_error):
                manager.search("matcha", user_id=user)
        if self.capabilities.memory_document:
            with pytest.raises(self.manager_error):
                manager.get_memory(user_id=user)

    def test_async_methods_do_not_block_the_event_loop(
        self, make_manager: Callable[..., MemoryManager], honcho_workspace: str
    ) -> None:
        """``aadd``/``aget_context``/``asearch`` must not run blocking I/O on the loop.

        A remote backend gets a transport that delays every request by ``latency``
        seconds; a local one (``remote=False``) has each sync twin (``add``,
        ``get_context``, ``search``) delayed instead, standing in for its disk or
        database. A loop-lag probe ticks every 5 ms while each call is in flight: a
        backend that does the slow work on the loop stalls it for a whole ``latency``
        (the test allows 80%). A local async method that never calls its sync twin has
        nothing the suite can slow, and is left out (the test skips if that is all).

        Troubleshooting: override the ``a*`` methods with ``await asyncio.to_thread(...)``
        (see ``contract_tests.examples.off_loop``) or a native async client; the base
        class runs the sync method on the loop.
        """
        user = self.user("lag", honcho_workspace)
        if self.capabilities.remote:
            manager, slowed = make_manager(latency=self.latency), None
        else:
            manager, slowed = _with_slow_sync_twins(make_manager(), self.latency)
        calls: dict[str, Callable[[], Any]] = {
            "aadd": lambda: manager.aadd("thread-lag", list(SCRIPT[0]), user_id=user),
            "aget_context": lambda: manager.aget_context(user),
        }
        if manager.supports_search:
            calls["asearch"] = lambda: manager.asearch("matcha", user_id=user)

        async def measure() -> dict[str, float]:
            lags = {}
            for name, call in calls.items():
                async with LoopLagProbe() as probe:
                    await call()
                if slowed is None or name.removeprefix("a") in slowed:
                    lags[name] = probe.max_lag
            return lags

        lags = asyncio.run(measure())
        if not lags:
            pytest.skip(
                "not remote, and no async method calls its sync twin: nothing the suite can slow"
            )
        # A blocked loop lags by at least one slow call's latency (less the 5 ms tick).
        limit = self.latency * 0.8
        blocked = {name: round(lag, 3) for name, lag in lags.items() if lag >= limit}
        slow = "remote" if slowed is None else "sync twin"
        assert not blocked, f"loop blocked (s) with {slow} latency {self.latency}s: {blocked}"

    def test_close_is_idempotent(self, make_manager: Callable[..., MemoryManager]) -> None:
        manager = make_manager()
        manager.close()
        manager.close()

    def test_fact_crud(self, manager: MemoryManager, honcho_workspace: str) -> None:
        """Declared ``fact_crud``: create, update, delete round-trip through ``get_memory``.
        Not declared: all three raise ``NotImplementedError`` (the host maps it to 501)."""
        user = self.user("facts", honcho_workspace)
        if not self.capabilities.fact_crud:
            for call in (
                lambda: manager.create_fact("x", user_id=user),
                lambda: manager.update_fact("f", content="y", user_id=user),
                lambda: manager.delete_fact("f", user_id=user),
            ):
                with pytest.raises(NotImplementedError):
                    call()
            return
        doc, fact_id = manager.create_fact("Prefers tea", "preference", 0.9, user_id=user)
        assert isinstance(fact_id, str) and fact_id
        assert memory_document_problems(doc) == []
        facts = {f["id"]: f for f in manager.get_memory(user_id=user)["facts"]}
        assert facts[fact_id]["content"] == "Prefers tea"
        doc = manager.update_fact(fact_id, content="Prefers green tea", user_id=user)
        facts = {f["id"]: f for f in manager.get_memory(user_id=user)["facts"]}
        assert facts[fact_id]["content"] == "Prefers green tea"
        other = self.user("other", honcho_workspace)
        assert fact_id not in {f["id"] for f in manager.get_memory(user_id=other)["facts"]}
        manager.delete_fact(fact_id, user_id=user)
        assert fact_id not in {f["id"] for f in manager.get_memory(user_id=user)["facts"]}
        with pytest.raises(KeyError):
            manager.delete_fact(fact_id, user_id=user)

    @pytest.mark.honcho_requires("remote")
    def test_batches_hold_at_most_100_messages(
        self, manager: MemoryManager, recorder: RecordingTransport, honcho_workspace: str
    ) -> None:
        """Honcho rejects a batch of more than 100 messages (422): a long history must be
        chunked, and every message still sent."""
        user = self.user("batch", honcho_workspace)
        history = list(
            itertools.chain.from_iterable(
                (human(f"question {i}"), ai(f"answer {i}")) for i in range(125)
            )
        )
        manager.add("thread-batch", history, user_id=user)
        batches = _posted_messages(recorder.requests)
        assert batches, "no message batch was sent"
        assert max(len(batch) for batch in batches) <= 100, [len(b) for b in batches]
        sent = [m["content"] for batch in batches for m in batch]
        assert sorted(sent) == sorted(m.content for m in history)
        assert all(r.status is not None and r.status < 400 for r in recorder.requests)

    @pytest.mark.honcho_requires("remote")
    def test_history_is_not_resent(
        self, manager: MemoryManager, recorder: RecordingTransport, honcho_workspace: str
    ) -> None:
        """DeerFlow hands ``add`` the whole history every turn; each message must reach the
        remote once, or memory fills with duplicates."""
        user = self.user("resend", honcho_workspace)
        turns = [
            (human(f"turn {i} question", id=f"h{i}"), ai(f"turn {i} answer", id=f"a{i}"))
            for i in range(3)
        ]
        for upto in range(1, len(turns) + 1):
            manager.add("thread-resend", _conversation(*turns[:upto]), user_id=user)
        sent = [m["content"] for batch in _posted_messages(recorder.requests) for m in batch]
        assert sorted(sent) == sorted(m.content for turn in turns for m in turn)

    @pytest.mark.honcho_requires("remote")
    def test_scripted_conversation_requests(
        self,
        manager: MemoryManager,
        recorder: RecordingTransport,
        honcho_snapshot: HonchoSnapshot,
        honcho_workspace: str,
    ) -> None:
        """The exact requests for a scripted conversation, pinned as a snapshot (the same
        file must hold on the fake and on a real server).

        The snapshot pins *your* backend, so it is yours to record: on the first run this
        test skips, saying to run ``pytest --snapshot-update`` once and commit the file.
        """
        honcho_snapshot.skip_if_unrecorded()
        user = "snapshot-user"
        for upto in range(1, len(SCRIPT) + 1):
            manager.add("thread-script", _conversation(*SCRIPT[:upto]), user_id=user)
        manager.get_context(user)
        if manager.supports_search:
            manager.search("matcha", user_id=user)
        assert honcho_snapshot == [request.as_dict() for request in recorder.requests]
