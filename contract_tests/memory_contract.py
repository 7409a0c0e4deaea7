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
starting with ``ctx.namespace``. Before a remote backend is judged, a canary checks
that its requests reach the target (:mod:`contract_tests.canary`); each test is one
clause of the conformance report (:mod:`contract_tests.conformance`).
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

import httpx
import pytest

from contract_tests.canary import CanaryVerdict, judge, logged_warnings
from contract_tests.capabilities import Capabilities
from contract_tests.conformance import NOT_JUDGED, clause, clause_of
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

HONCHO_MAX_BATCH = 100
"""Honcho refuses a message batch longer than this with a 422 (``MessageBatchCreate``)."""


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


def _message_posts(requests: list[RecordedRequest]) -> list[RecordedRequest]:
    """Every message-batch POST, in order."""
    return [
        r
        for r in requests
        if r.method == "POST" and r.path.endswith("/messages") and isinstance(r.body, dict)
    ]


def _posted_messages(requests: list[RecordedRequest]) -> list[list[dict[str, Any]]]:
    """The ``messages`` array of every message-batch POST, in order."""
    return [r.body["messages"] for r in _message_posts(requests)]


def _accepted(request: RecordedRequest) -> bool:
    return request.status is not None and request.status < 400


def _callable_signature(owner: type, name: str) -> inspect.Signature:
    """``owner.name``'s signature as a caller sees it (no ``self``; ``cls`` is bound)."""
    signature = inspect.signature(getattr(owner, name))
    if isinstance(inspect.getattr_static(owner, name), classmethod | staticmethod):
        return signature
    return signature.replace(parameters=list(signature.parameters.values())[1:])


def _host_calls(base: inspect.Signature) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The calls ``base`` allows a host to make: the required arguments alone, then every
    argument (positional where it may be), then every argument by keyword where it may be,
    plus an unknown keyword where ``**kwargs`` takes one (DeerFlow's host hooks)."""
    kinds = inspect.Parameter
    params = [p for p in base.parameters.values() if p.kind is not kinds.VAR_POSITIONAL]
    positional = (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)

    def call(*, every: bool, by_name: bool) -> tuple[tuple[Any, ...], dict[str, Any]]:
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for p in params:
            if p.kind is kinds.VAR_KEYWORD:
                kwargs["some_future_hook"] = None
            elif not every and p.default is not kinds.empty:
                continue
            elif p.kind in positional and not (by_name and p.kind is kinds.POSITIONAL_OR_KEYWORD):
                args.append(None)
            else:
                kwargs[p.name] = None
        return tuple(args), kwargs

    return [
        call(every=False, by_name=False),
        call(every=True, by_name=False),
        call(every=True, by_name=True),
    ]


def _call_text(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    shown = ["…"] * len(args) + [f"{key}=…" for key in kwargs]
    return f"{name}({', '.join(shown)})"


def _signature_problems(base_cls: type, cls: type, name: str) -> list[str]:
    base = _callable_signature(base_cls, name)
    mine = _callable_signature(cls, name)
    problems = []
    for args, kwargs in _host_calls(base):
        try:
            mine.bind(*args, **kwargs)
        except TypeError as refused:
            problems.append(
                f"{name}: the host may call {_call_text(name, args, kwargs)}, as the base "
                f"{name}{base} allows; {cls.__name__}.{name}{mine} refuses it ({refused})"
            )
            break
    if inspect.iscoroutinefunction(getattr(base_cls, name)) != inspect.iscoroutinefunction(
        getattr(cls, name)
    ):
        problems.append(f"{name}: changed between sync and async (the host awaits or calls it)")
    return problems


def _raised(call: Callable[[], Any]) -> BaseException | None:
    try:
        call()
    except Exception as exc:  # the verdict names it
        return exc
    return None


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


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

    @pytest.fixture(autouse=True)
    def _honcho_canary_gate(
        self, request: pytest.FixtureRequest, _honcho_capability_gate: None
    ) -> None:
        """A remote backend's tests that need the remote are not judged (skipped, saying so)
        when its requests never reached the target; the canary test says why."""
        found = clause_of(type(self), request.function.__name__)
        if found is None or found.local or not self.capabilities.remote:
            return
        verdict = self.canary(request)
        if verdict.problem is not None and found.name != "canary":
            pytest.skip(f"{NOT_JUDGED} {verdict.headline}")

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

    def canary(self, request: pytest.FixtureRequest) -> CanaryVerdict:
        """Once per suite class and process: build the backend, have a new user write one
        exchange (and read once if that sent nothing), and judge what reached the target."""
        verdicts: dict[type, CanaryVerdict] = request.config.stash.setdefault(_CANARIES, {})
        cls = type(self)
        if cls not in verdicts:
            factory: ManagerFactory = request.getfixturevalue("memory_manager_factory")
            target: HonchoTarget = request.getfixturevalue("honcho_target")
            namespace: str = request.getfixturevalue("honcho_workspace")
            transport = RecordingTransport(target.transport())
            ctx = ManagerContext(
                target, namespace, transport, str(request.getfixturevalue("tmp_path"))
            )
            user = self.user("canary", namespace)
            calls = "add()"
            with logged_warnings() as logged:
                manager = factory(ctx)
                try:
                    raised = _raised(
                        lambda: manager.add("thread-canary", list(SCRIPT[0]), user_id=user)
                    )
                    if not transport.requests:
                        calls = "add() and get_context()"
                        raised = raised or _raised(lambda: manager.get_context(user))
                finally:
                    manager.close()
                    transport.close()
            verdicts[cls] = judge(
                cls.__name__, target.base_url, transport.requests, logged, raised, calls=calls
            )
        return verdicts[cls]

    # -- the contract -------------------------------------------------------------

    @clause("canary", "the backend's requests reach the target", "remote")
    @pytest.mark.honcho_requires("remote")
    def test_requests_reach_the_target(self, request: pytest.FixtureRequest) -> None:
        """Judged before anything else that needs the remote: a new user's first write goes
        through ``ctx.transport`` to ``ctx.target.base_url`` and is answered. When it is not,
        this is the one failure, naming the likely cause and the fix; the tests that need the
        remote are reported as not judged (skipped), never passed."""
        verdict = self.canary(request)
        if verdict.problem is not None:
            pytest.fail(verdict.problem, pytrace=False)

    @clause("signatures", "every host call of each contract method binds", local=True)
    def test_signatures_match_contract(self, manager: MemoryManager) -> None:
        """Every contract method accepts each call the base's signature allows a host to
        make: by position where it may, by keyword, with only the required arguments, and
        with an unknown keyword where ``**kwargs`` takes one. Defaults are the backend's own
        (``from_config(backend_config=None)`` is fine: every host call still works).

        Troubleshooting: keep the base's parameter names, its keyword-only markers (``*``)
        and its positional order.
        """
        cls = type(manager)
        mismatches = [
            problem
            for name in CONTRACT_METHODS
            for problem in _signature_problems(self.manager_base, cls, name)
        ]
        if mismatches:
            pytest.fail(
                "DeerFlow would raise TypeError into the agent turn or the gateway:\n"
                + "\n".join(mismatches),
                pytrace=False,
            )

    @clause(
        "supports_search_flag",
        "supports_search is True exactly when search is overridden",
        local=True,
    )
    def test_supports_search_invariant(self, manager: MemoryManager) -> None:
        """``supports_search`` is True exactly when ``search`` is overridden, and a backend
        without search raises ``NotImplementedError`` from it (the host maps that to 501)."""
        cls = type(manager)
        overridden = cls.search is not self.manager_base.search
        assert cls.supports_search is overridden, (
            f"supports_search={cls.supports_search} but search is "
            f"{'' if overridden else 'not '}overridden: DeerFlow refuses to build the backend"
        )
        if not overridden:
            with pytest.raises(NotImplementedError):
                manager.search("anything", user_id="someone")
        if self.capabilities.search:
            assert cls.supports_search, "Capabilities(search=True) but supports_search is False"

    @clause("host_hooks", "from_config accepts storage_path and unknown host hooks", local=True)
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

    @clause("isolated_tests", "a new namespace starts empty")
    def test_fresh_namespace_is_empty(self, manager: MemoryManager, honcho_workspace: str) -> None:
        """Isolation canary: a new test starts with no memory (the factory must not share
        state between tests)."""
        user = self.user("fresh", honcho_workspace)
        context = manager.get_context(user)
        assert context == "", f"a user who never wrote has context {_short(context)}"
        if manager.supports_search:
            found = manager.search("matcha", user_id=user)
            assert found == [], f"a user who never wrote finds {_short(found)}"

    @clause("return_types", "add returns None, get_context a str")
    def test_add_returns_none_and_get_context_returns_str(
        self, manager: MemoryManager, honcho_workspace: str
    ) -> None:
        user = self.user("types", honcho_workspace)
        assert manager.add("thread-types", list(SCRIPT[0]), user_id=user) is None
        assert isinstance(manager.get_context(user), str)

    @clause(
        "missing_user", "no user: nothing stored, nothing sent, reads empty", "ignores_missing_user"
    )
    @pytest.mark.honcho_requires("ignores_missing_user")
    @pytest.mark.parametrize("user_id", [None, ""], ids=["none", "empty"])
    def test_missing_user_does_nothing(
        self, manager: MemoryManager, recorder: RecordingTransport, user_id: str | None
    ) -> None:
        """Declared ``ignores_missing_user``: without a user there is no bucket to read or
        write, so nothing is stored, nothing sent, and reads are empty. DeerFlow's callers
        always pass a user (``resolve_runtime_user_id`` falls back to ``DEFAULT_USER_ID``), so
        this is a design choice, not a host requirement.

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
        sent = [f"{r.method} {r.path}" for r in recorder.requests]
        assert sent == [], f"{len(sent)} request(s) sent for user_id={user_id!r}: {sent[:3]}"

    @clause("recall", "get_context returns what add wrote, once settled", "recall")
    @pytest.mark.honcho_llm
    @pytest.mark.honcho_requires("recall")
    def test_write_then_recall(
        self, manager: MemoryManager, honcho_settle: Settler, honcho_workspace: str
    ) -> None:
        """What ``add`` wrote comes back from ``get_context`` once the target has settled."""
        user = self.user("recall", honcho_workspace)
        manager.add("thread-recall", _conversation(*SCRIPT), user_id=user)
        honcho_settle()
        context = manager.get_context(user)
        assert "matcha" in context.lower(), (
            f"a user who said 'I really love matcha' has context {_short(context)}: "
            "the agent's next thread starts without it"
        )
        assert "matcha" in asyncio.run(manager.aget_context(user)).lower()

    @clause("search", "search finds what add wrote, at most top_k items", "search")
    @pytest.mark.honcho_requires("search")
    def test_write_then_search(self, manager: MemoryManager, honcho_workspace: str) -> None:
        """What ``add`` wrote is found by ``search`` at once (stored messages need no deriver),
        at most ``top_k`` items, each a dict with string ``content``. (Other items may come
        back too: a target with embeddings also finds what is merely near in meaning.)"""
        user = self.user("search", honcho_workspace)
        manager.add("thread-search", _conversation(*SCRIPT), user_id=user)
        results = manager.search("matcha", top_k=3, user_id=user)
        assert len(results) <= 3, f"search(top_k=3) returned {len(results)} items"
        assert all(
            isinstance(item, dict) and isinstance(item.get("content"), str) for item in results
        ), f"search items must be dicts with a string content: {_short(results)}"
        assert any("matcha" in item["content"].lower() for item in results), (
            f"search('matcha') for a user who just said 'I really love matcha' returned "
            f"{len(results)} item(s), none about matcha: {_short(results)}"
        )

    @clause("memory_document", "get_memory returns a document the gateway casts", "memory_document")
    @pytest.mark.honcho_requires("memory_document")
    def test_get_memory_has_deermem_shape(
        self, manager: MemoryManager, honcho_workspace: str
    ) -> None:
        """``get_memory`` returns a document DeerFlow's gateway casts to its ``MemoryResponse``
        (rules and sources: :mod:`contract_tests.documents`): every fact with string ``id``
        and ``content``, every field of its type; empty, and after writes (with whatever the
        target has derived by then: everything on the fake, maybe nothing on a real server)."""
        user = self.user("doc", honcho_workspace)
        empty = memory_document_problems(manager.get_memory(user_id=user))
        assert empty == [], f"the gateway answers 500 to GET /api/memory: {empty}"
        manager.add("thread-doc", _conversation(*SCRIPT), user_id=user)
        if self.capabilities.fact_crud:
            manager.create_fact("Prefers window seats", "preference", 0.8, user_id=user)
        written = memory_document_problems(manager.get_memory(user_id=user))
        assert written == [], f"after writes, the gateway answers 500 to GET /api/memory: {written}"

    @clause("isolation_search", "one user's writes never show in another's search", "search")
    @pytest.mark.honcho_requires("search")
    def test_users_are_isolated_in_search(
        self, manager: MemoryManager, honcho_workspace: str
    ) -> None:
        """One user's writes never show up in another user's search."""
        alice, bob = self.alice_tells_a_secret(manager, honcho_workspace)
        found = manager.search("zanzibar42", user_id=alice)
        assert any("zanzibar42" in r["content"] for r in found), (
            f"positive control failed: alice's own search for her secret found {_short(found)}"
        )
        leaked = [r for r in manager.search("zanzibar42", user_id=bob) if "zanzibar42" in str(r)]
        assert leaked == [], f"bob's search returns alice's memory: {_short(leaked)}"

    @clause("isolation_context", "one user's writes never show in another's context", "recall")
    @pytest.mark.honcho_llm
    @pytest.mark.honcho_requires("recall")
    def test_users_are_isolated_in_context(
        self, manager: MemoryManager, honcho_settle: Settler, honcho_workspace: str
    ) -> None:
        """One user's writes never show up in another user's context or memory document."""
        alice, bob = self.alice_tells_a_secret(manager, honcho_workspace)
        honcho_settle()
        assert "zanzibar42" in manager.get_context(alice), "positive control: alice's context"
        assert "zanzibar42" not in manager.get_context(bob), "bob's context holds alice's secret"
        if self.capabilities.memory_document:
            assert "zanzibar42" not in str(manager.get_memory(user_id=bob)), (
                "bob's memory document holds alice's secret"
            )

    @clause("isolation_requests", "reading one user never asks the remote about another", "remote")
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
        refused = [
            f"{r.method} {r.path}: {r.status}" for r in recorder.requests if not _accepted(r)
        ]
        assert refused == [], f"the target refused alice's and bob's writes: {refused[:3]}"
        sent_before = len(recorder.requests)
        answers: list[Any] = [manager.get_context(bob)]
        if self.capabilities.memory_document:
            answers.append(manager.get_memory(user_id=bob))
        if manager.supports_search:
            answers.append(manager.search("zanzibar42", user_id=bob))
        reads = recorder.requests[sent_before:]
        assert reads, "bob's reads sent nothing: there is nothing to check"
        touching = [f"{r.method} {r.path}" for r in reads if alice in json.dumps(r.as_dict())]
        assert touching == [], f"reading bob's memory asked about alice: {touching}"
        assert "zanzibar42" not in str(answers), f"bob's reads returned alice's secret: {answers}"

    @clause("context_cap", "get_context stays within the configured cap", "context_cap")
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
        assert len(context) <= cap, (
            f"get_context returned {len(context)} chars, cap is {cap}: DeerFlow injects all of "
            "it into the prompt"
        )

    @clause("writes_survive_outage", "add never raises while the remote fails", "remote")
    @pytest.mark.honcho_requires("remote")
    @pytest.mark.parametrize("outage", FailingTransport.MODES)
    def test_add_never_raises_while_remote_fails(
        self, make_manager: Callable[..., MemoryManager], honcho_workspace: str, outage: str
    ) -> None:
        """Writes are best-effort: a failing remote must not break the agent turn."""
        manager = make_manager(outage=outage)
        user = self.user("down", honcho_workspace)
        for name, call in (
            ("add", lambda: manager.add("thread-down", _conversation(*SCRIPT), user_id=user)),
            (
                "add_nowait",
                lambda: manager.add_nowait("thread-down", _conversation(*SCRIPT), user_id=user),
            ),
            (
                "aadd",
                lambda: asyncio.run(
                    manager.aadd("thread-down", _conversation(*SCRIPT), user_id=user)
                ),
            ),
        ):
            raised = _raised(call)
            if raised is not None:
                pytest.fail(
                    f"{name}() raised {type(raised).__name__}: {raised} while the remote was down "
                    f"({outage}): DeerFlow's MemoryMiddleware does not catch it, so the user's "
                    "turn fails instead of only this write",
                    pytrace=False,
                )

    @clause("fail_open", "fail_open reads of a failing remote return empty", "read_policy")
    @pytest.mark.honcho_requires("remote", "read_policy")
    def test_fail_open_reads_return_empty(
        self, make_manager: Callable[..., MemoryManager], honcho_workspace: str
    ) -> None:
        """``failure_policy.read=fail_open`` (the default): a failing remote reads as empty."""
        manager = make_manager(outage="http_503", read_policy="fail_open")
        user = self.user("open", honcho_workspace)
        reads: list[tuple[str, Callable[[], Any], Any]] = [
            ("get_context", lambda: manager.get_context(user), "")
        ]
        if manager.supports_search:
            reads.append(("search", lambda: manager.search("matcha", user_id=user), []))
        for name, call, empty in reads:
            try:
                answer = call()
            except Exception as exc:  # the verdict names it
                pytest.fail(
                    f"{name}() raised {type(exc).__name__}: {exc} under fail_open while the "
                    "remote answered 503: the user's turn fails instead of going on without memory",
                    pytrace=False,
                )
            assert answer == empty, (
                f"{name}() under fail_open with the remote down: {_short(answer)}"
            )
        if self.capabilities.memory_document:
            doc = manager.get_memory(user_id=user)
            assert memory_document_problems(doc) == []
            assert doc.get("facts", []) == []

    @clause(
        "fail_closed",
        "fail_closed reads of a failing remote raise the contract's error",
        "read_policy",
    )
    @pytest.mark.honcho_requires("remote", "read_policy")
    @pytest.mark.parametrize("outage", ["http_503", "connect_error"])
    def test_fail_closed_reads_raise(
        self, make_manager: Callable[..., MemoryManager], honcho_workspace: str, outage: str
    ) -> None:
        """``failure_policy.read=fail_closed``: every recall path raises the contract's
        ``MemoryManagerError`` (DeerFlow then aborts the run instead of answering blind)."""
        manager = make_manager(outage=outage, read_policy="fail_closed")
        user = self.user("closed", honcho_workspace)
        reads: list[tuple[str, Callable[[], Any]]] = [
            ("get_context", lambda: manager.get_context(user))
        ]
        if manager.supports_search:
            reads.append(("search", lambda: manager.search("matcha", user_id=user)))
        if self.capabilities.memory_document:
            reads.append(("get_memory", lambda: manager.get_memory(user_id=user)))
        for name, call in reads:
            try:
                answer = call()
            except self.manager_error:
                continue
            except Exception as exc:  # the verdict names it
                pytest.fail(
                    f"{name}() raised {type(exc).__name__}, not {self.manager_error.__name__}, "
                    f"under fail_closed ({outage}): DeerFlow re-raises only "
                    f"{self.manager_error.__name__} and swallows the rest",
                    pytrace=False,
                )
            pytest.fail(
                f"{name}() returned {_short(answer)} under fail_closed while the remote was down "
                f"({outage}): DeerFlow answers as if the user were new instead of aborting the run",
                pytrace=False,
            )

    @clause("off_loop", "async methods keep the event loop free during remote I/O", "remote")
    @pytest.mark.honcho_requires("remote")
    def test_async_methods_do_not_block_the_event_loop(
        self, make_manager: Callable[..., MemoryManager], honcho_workspace: str
    ) -> None:
        """``aadd``/``aget_context``/``asearch`` must not run the backend's I/O on the loop.

        Every request goes through a transport that delays it by ``latency`` seconds (a
        slow remote), and a loop-lag probe ticks every 5 ms while each call is in flight: a
        backend that does its requests on the loop stalls it for a whole ``latency`` (the
        test allows 80%). Only backends with remote I/O are judged: the suite slows the
        requests a backend makes, and injects no delay into calls it never makes (a local
        backend's sync methods running on the loop are not reported).

        Troubleshooting: override the ``a*`` methods with ``await asyncio.to_thread(...)``
        (see ``contract_tests.examples.off_loop``) or a native async client; the base
        class runs the sync method on the loop.
        """
        user = self.user("lag", honcho_workspace)
        manager = make_manager(latency=self.latency)
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
                lags[name] = probe.max_lag
            return lags

        lags = asyncio.run(measure())
        # A blocked loop lags by at least one slow call's latency (less the 5 ms tick).
        limit = self.latency * 0.8
        blocked = {name: round(lag, 3) for name, lag in lags.items() if lag >= limit}
        if blocked:
            worst = ", ".join(f"{name} {lag} s" for name, lag in blocked.items())
            pytest.fail(
                f"the event loop stalled ({worst}) while each request took {self.latency} s: "
                "the backend's requests run on the loop, so every other task of the agent "
                "(streaming, other users' turns) waits for them. Run the sync call in "
                "asyncio.to_thread, or use an async client",
                pytrace=False,
            )

    @clause("close", "close is idempotent", local=True)
    def test_close_is_idempotent(self, make_manager: Callable[..., MemoryManager]) -> None:
        manager = make_manager()
        manager.close()
        manager.close()

    @clause(
        "fact_crud", "fact CRUD round-trips when declared, else raises NotImplementedError (501)"
    )
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

    @clause(
        "batches_of_100", "a long thread is sent in batches of at most 100, all stored", "remote"
    )
    @pytest.mark.honcho_requires("remote")
    def test_batches_hold_at_most_100_messages(
        self, manager: MemoryManager, recorder: RecordingTransport, honcho_workspace: str
    ) -> None:
        """Honcho refuses a batch of more than 100 messages (422): a long history must be
        chunked, and every message still stored. The thread here is 101 messages, the
        first length at which one batch is refused."""
        user = self.user("batch", honcho_workspace)
        history = [
            human(f"question {i}") if i % 2 == 0 else ai(f"answer {i}")
            for i in range(HONCHO_MAX_BATCH + 1)
        ]
        manager.add("thread-batch", history, user_id=user)
        posts = _message_posts(recorder.requests)
        sizes = [len(r.body["messages"]) for r in posts]
        stored = {m["content"] for r in posts if _accepted(r) for m in r.body["messages"]}
        wanted = {m.content for m in history}
        refused = [r.status for r in posts if not _accepted(r)]
        n = len(history)
        if not posts:
            pytest.fail(f"a {n}-message thread sent no message batch at all", pytrace=False)
        batches = (
            f"one batch of {sizes[0]} messages"
            if len(sizes) == 1
            else f"{len(sizes)} batches of {', '.join(map(str, sizes))} messages"
        )
        shape = f"a {n}-message thread was sent as {batches}"
        if refused:
            limit = (
                f" (at most {HONCHO_MAX_BATCH} per batch)" if max(sizes) > HONCHO_MAX_BATCH else ""
            )
            which = "it" if len(posts) == 1 else f"{len(refused)} of them"
            why = f"Honcho refused {which} with {', '.join(map(str, refused))}{limit}"
            pytest.fail(
                f"{shape}; {why} and add() returned without an error: {len(stored & wanted)} of "
                f"{n} messages stored, the write dropped. A user sees memory stop growing once a "
                f"thread passes {HONCHO_MAX_BATCH} messages. Fix: send at most "
                f"{HONCHO_MAX_BATCH} messages per POST .../messages",
                pytrace=False,
            )
        if max(sizes) > HONCHO_MAX_BATCH:
            pytest.fail(
                f"{shape}: Honcho refuses more than {HONCHO_MAX_BATCH} per batch", pytrace=False
            )
        missing = sorted(wanted - stored)
        assert not missing, f"{shape}; {len(missing)} of {n} never stored, e.g. {missing[:3]}"

    @clause(
        "no_resend",
        "each message reaches the remote once, however often the host resends it",
        "remote",
    )
    @pytest.mark.honcho_requires("remote")
    def test_history_is_not_resent(
        self, manager: MemoryManager, recorder: RecordingTransport, honcho_workspace: str
    ) -> None:
        """DeerFlow hands ``add`` the whole history every turn; each message must reach the
        remote once, or memory fills with duplicates (and search returns each copy)."""
        user = self.user("resend", honcho_workspace)
        turns = [
            (human(f"day {i}: question", id=f"h{i}"), ai(f"day {i}: answer", id=f"a{i}"))
            for i in range(3)
        ]
        for upto in range(1, len(turns) + 1):
            manager.add("thread-resend", _conversation(*turns[:upto]), user_id=user)
        sent = Counter(
            m["content"]
            for r in _message_posts(recorder.requests)
            if _accepted(r)
            for m in r.body["messages"]
        )
        wanted = [m.content for turn in turns for m in turn]
        posted, distinct = sum(sent.values()), len(set(sent) & set(wanted))
        if posted > distinct:
            most, times = sent.most_common(1)[0]
            pytest.fail(
                f"{posted} messages posted over {len(turns)} turns, {distinct} distinct: each "
                f"turn re-sent the earlier messages. The user's memory holds {most!r} {times} "
                f"times, and search returns it once per copy (storage grows with the square of "
                f"the thread's length). Fix: send only what the thread has not sent yet",
                pytrace=False,
            )
        missing = [m for m in wanted if m not in sent]
        assert not missing, f"{len(missing)} of {len(wanted)} messages never stored: {missing}"

    @clause(
        "request_snapshot",
        "the requests of a scripted conversation match the recorded snapshot",
        "remote",
    )
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


_CANARIES = pytest.StashKey[dict[type, CanaryVerdict]]()
"""The canary's verdict per suite class, computed once per process."""
