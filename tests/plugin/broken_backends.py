"""Deliberately broken memory backends, each breaking one rule of the contract, and
backends that break none of DeerFlow's rules although they look odd.

``MUTANTS`` maps a mutant's name to its factory, the contract test designed to catch it
and what that test's verdict must say; ``test_mutants.py`` runs the suite against every
mutant and fails if any survives or is caught with a vaguer message. ``FALSE_ALARMS``
are backends shaped like DeerFlow's own (noop's bare ``{"facts": []}``,
``from_config(backend_config=None)``, DeerMem's refusal of ``get_context("")``, a local
backend whose async methods run the sync ones on the loop): the whole suite must pass
them, as it passes DeerFlow's backends at f1f4af99.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import httpx
from pydantic import PrivateAttr

from contract_tests.capabilities import Capabilities
from contract_tests.examples import InMemoryMemoryManager, NoopMemoryManager
from contract_tests.examples.honcho import honcho_backend_config, honcho_manager_factory
from contract_tests.memory_contract import ManagerContext, ManagerFactory
from honcho_backend import HonchoMemoryManager
from honcho_backend.ledger import ThreadLedger, ThreadState
from honcho_backend.manager import MemoryManager

ROLES = {"human": "user", "ai": "assistant"}


class LeakyManager(HonchoMemoryManager):
    """Stores and reads every user's memory in one shared bucket."""

    def add(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        super().add(
            thread_id,
            messages,
            agent_name=agent_name,
            user_id=user_id and "everyone",
            trace_id=trace_id,
        )

    def get_context(
        self, user_id: str | None, *, agent_name: str | None = None, thread_id: str | None = None
    ) -> str:
        return super().get_context(user_id and "everyone", agent_name=agent_name)

    def search(
        self,
        query: str,
        top_k: int = 5,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
        category: str | None = None,
    ) -> list[dict[str, Any]]:
        return super().search(query, top_k, user_id=user_id and "everyone", category=category)

    def get_memory(
        self, *, user_id: str | None = None, agent_name: str | None = None
    ) -> dict[str, Any]:
        return super().get_memory(user_id=user_id and "everyone")


class FirstWriterContextManager(HonchoMemoryManager):
    """Answers every user's ``get_context`` from the first user who wrote (a cache keyed
    wrongly): caught from the requests alone, with no derived data."""

    _first: str | None = PrivateAttr(default=None)

    def add(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        self._first = self._first or user_id
        super().add(thread_id, messages, agent_name=agent_name, user_id=user_id, trace_id=trace_id)

    def get_context(
        self, user_id: str | None, *, agent_name: str | None = None, thread_id: str | None = None
    ) -> str:
        reader = (self._first or user_id) if user_id else user_id
        return super().get_context(reader, agent_name=agent_name, thread_id=thread_id)


class RaisingAddManager(HonchoMemoryManager):
    """Lets remote write errors escape ``add`` into the agent turn."""

    def add(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        self._write(thread_id, messages, user_id)


class ForgetfulManager(HonchoMemoryManager):
    """Forgets what each thread sent after every write, and never asks Honcho: the whole
    history goes out again every turn (DeerFlow's own Honcho backend at f1f4af99)."""

    def _open_thread(self, workspace: str, session: str, peers: dict[str, str]) -> ThreadState:
        self._establish(workspace, session, peers)
        return ThreadState()

    def _write(self, thread_id: str, messages: Any, user_id: str | None) -> None:
        super()._write(thread_id, messages, user_id)
        self._ledger = ThreadLedger(self._config.thread_cache_size)


class _IgnoresConfigKey(HonchoMemoryManager):
    """Builds itself as if ``ignored_key`` were absent from ``backend_config``."""

    ignored_key: ClassVar[str]

    @classmethod
    def from_config(
        cls,
        backend_config: dict[str, Any],
        *,
        mode: Literal["middleware", "tool"] = "middleware",
        **host_hooks: Any,
    ) -> HonchoMemoryManager:
        config = {k: v for k, v in backend_config.items() if k != cls.ignored_key}
        return super().from_config(config, mode=mode, **host_hooks)


class FailOpenAlwaysManager(_IgnoresConfigKey):
    """Drops ``failure_policy``, so ``fail_closed`` reads still swallow errors."""

    ignored_key = "failure_policy"


class UncappedContextManager(_IgnoresConfigKey):
    """Ignores the configured context cap."""

    ignored_key = "max_injection_chars"


class WrongShapeManager(HonchoMemoryManager):
    """Returns a memory document DeerFlow's gateway cannot use."""

    def get_memory(
        self, *, user_id: str | None = None, agent_name: str | None = None
    ) -> dict[str, Any]:
        doc = super().get_memory(user_id=user_id, agent_name=agent_name)
        return {**doc, "lastUpdated": "", "facts": [{"text": "no id, no content"}]}


class BlockingManager(HonchoMemoryManager):
    """Runs the sync, blocking calls on the event loop (the base class default)."""

    async def aadd(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        self.add(thread_id, messages, agent_name=agent_name, user_id=user_id, trace_id=trace_id)

    async def aget_context(
        self, user_id: str | None, *, agent_name: str | None = None, thread_id: str | None = None
    ) -> str:
        return self.get_context(user_id, agent_name=agent_name, thread_id=thread_id)

    async def asearch(
        self,
        query: str,
        top_k: int = 5,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
        category: str | None = None,
    ) -> list[dict[str, Any]]:
        return self.search(query, top_k, user_id=user_id, agent_name=agent_name, category=category)


class NaiveHonchoManager(MemoryManager):
    """A minimal Honcho writer in the style of DeerFlow's upstream backend.

    ``batch_size`` and ``remember_sent`` are the two knobs its mutants break.
    """

    supports_search = True
    batch_size: ClassVar[int] = 100
    remember_sent: ClassVar[bool] = True

    _client: httpx.Client = PrivateAttr()
    _prefix: str = PrivateAttr()
    _sent: set[tuple[str, str, str]] = PrivateAttr(default_factory=set)

    def bind(self, ctx: ManagerContext) -> NaiveHonchoManager:
        self._prefix = f"{ctx.namespace}-"
        self._client = httpx.Client(
            base_url=self.base_url(ctx), transport=self.transport(ctx), headers=ctx.target.headers()
        )
        return self

    def base_url(self, ctx: ManagerContext) -> str:
        return ctx.target.base_url

    def transport(self, ctx: ManagerContext) -> httpx.BaseTransport | None:
        return ctx.transport

    def _ws(self, user_id: str) -> str:
        return f"/v3/workspaces/{self._prefix}{user_id}"

    def add(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        if not user_id:
            return
        outgoing = [
            {"peer_id": ROLES[m.type], "content": m.content}
            for m in messages
            if m.type in ROLES and (thread_id, ROLES[m.type], m.content) not in self._sent
        ]
        with contextlib.suppress(httpx.HTTPError):
            for start in range(0, len(outgoing), self.batch_size):
                batch = outgoing[start : start + self.batch_size]
                self._client.post(
                    f"{self._ws(user_id)}/sessions/{thread_id}/messages", json={"messages": batch}
                ).raise_for_status()
                if self.remember_sent:
                    self._sent.update((thread_id, m["peer_id"], m["content"]) for m in batch)

    def get_context(
        self, user_id: str | None, *, agent_name: str | None = None, thread_id: str | None = None
    ) -> str:
        return ""

    def search(
        self,
        query: str,
        top_k: int = 5,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
        category: str | None = None,
    ) -> list[dict[str, Any]]:
        if not user_id:
            return []
        response = self._client.post(f"{self._ws(user_id)}/search", json={"query": query})
        return [{"id": m["id"], "content": m["content"]} for m in response.json()][:top_k]

    @classmethod
    def from_config(
        cls,
        backend_config: dict[str, Any],
        *,
        mode: Literal["middleware", "tool"] = "middleware",
        **host_hooks: Any,
    ) -> NaiveHonchoManager:
        return cls(backend_config=backend_config, mode=mode)

    def close(self) -> None:
        self._client.close()


class OneBigBatchManager(NaiveHonchoManager):
    """Sends a long history as one batch of more than 100 messages (Honcho answers 422)."""

    batch_size: ClassVar[int] = 10_000


class ResendingManager(NaiveHonchoManager):
    """Resends the whole conversation every turn, filling memory with duplicates."""

    remember_sent: ClassVar[bool] = False


class DoubledV3Manager(NaiveHonchoManager):
    """Configured with the ``/v3`` URL a server's docs show: every request goes to
    ``/v3/v3/...`` and gets a 404, which its writes swallow."""

    def base_url(self, ctx: ManagerContext) -> str:
        return f"{ctx.target.base_url}/v3"


def naive_factory(cls: type[NaiveHonchoManager]) -> ManagerFactory:
    return lambda ctx: cls.from_config(honcho_backend_config(ctx)).bind(ctx)


class BlockingLocalManager(InMemoryMemoryManager):
    """A local backend whose async methods run the sync ones on the loop (the base default):
    harmless for a dict, and no host rule is broken, so the suite must not report it."""

    aadd = MemoryManager.aadd
    aget_context = MemoryManager.aget_context
    asearch = MemoryManager.asearch


class BareDocumentManager(NoopMemoryManager):
    """Noop as DeerFlow ships it: ``get_memory`` is ``{"facts": []}`` (the gateway fills the
    rest; the frontend shows "-" for no date), and ``from_config``'s ``backend_config`` has a
    default (every host call still binds)."""

    def get_memory(
        self, *, user_id: str | None = None, agent_name: str | None = None
    ) -> dict[str, Any]:
        return {"facts": []}

    @classmethod
    def from_config(
        cls,
        backend_config: dict[str, Any] | None = None,
        *,
        mode: Literal["middleware", "tool"] = "middleware",
        **host_hooks: Any,
    ) -> BareDocumentManager:
        return cls(backend_config=backend_config or {}, mode=mode)


class UserRequiredManager(InMemoryMemoryManager):
    """Refuses a read without a user, as DeerMem's ``get_context("")`` does: DeerFlow's
    callers always pass one, so unless ``ignores_missing_user`` is declared it is no failure."""

    def get_context(
        self, user_id: str | None, *, agent_name: str | None = None, thread_id: str | None = None
    ) -> str:
        if user_id == "":
            raise ValueError("user_id must be a non-empty string")
        return super().get_context(user_id, agent_name=agent_name, thread_id=thread_id)


@dataclass(frozen=True)
class Mutant:
    factory: ManagerFactory
    killed_by: str
    """The contract test designed to catch this mutant."""
    says: str = ""
    """What that test's verdict must say (a fragment, ``*`` for any run of text)."""
    capabilities: Capabilities = field(default_factory=Capabilities)


def _cap(ctx: ManagerContext) -> dict[str, Any]:
    return {"max_context_chars": ctx.context_cap or 2000}


LOCAL = Capabilities(remote=False, read_policy=False, fact_crud=True)

MUTANTS: dict[str, Mutant] = {
    "leaks_memory_across_users": Mutant(
        honcho_manager_factory(LeakyManager),
        "test_users_are_isolated_in_search",
        "bob's search returns alice's memory",
    ),
    "reads_another_users_context": Mutant(
        honcho_manager_factory(FirstWriterContextManager),
        "test_users_are_isolated_in_context_requests",
        "reading bob's memory asked about alice",
    ),
    "raises_from_add": Mutant(
        honcho_manager_factory(RaisingAddManager),
        "test_add_never_raises_while_remote_fails",
        "add() raised * while the remote was down*the user's turn fails",
    ),
    "ignores_fail_closed": Mutant(
        honcho_manager_factory(FailOpenAlwaysManager),
        "test_fail_closed_reads_raise",
        "get_context() returned '' under fail_closed while the remote was down",
    ),
    "blocks_the_event_loop": Mutant(
        honcho_manager_factory(BlockingManager),
        "test_async_methods_do_not_block_the_event_loop",
        "the event loop stalled (aadd *s",
    ),
    "ignores_context_cap": Mutant(
        honcho_manager_factory(UncappedContextManager),
        "test_get_context_respects_cap",
        "get_context returned * chars, cap is 80",
    ),
    "wrong_get_memory_shape": Mutant(
        honcho_manager_factory(WrongShapeManager),
        "test_get_memory_has_deermem_shape",
        "the gateway answers 500 to GET /api/memory: *.id: Field required",
    ),
    "sends_over_100_messages_per_batch": Mutant(
        naive_factory(OneBigBatchManager),
        "test_batches_hold_at_most_100_messages",
        "a 101-message thread was sent as one batch of 101 messages; Honcho refused it with "
        "422 (at most 100 per batch) and add() returned without an error: 0 of 101 messages "
        "stored, the write dropped",
    ),
    "resends_whole_history": Mutant(
        naive_factory(ResendingManager),
        "test_history_is_not_resent",
        "12 messages posted over 3 turns, 6 distinct: each turn re-sent the earlier messages. "
        "The user's memory holds 'day 0: question' 3 times",
    ),
    "factory_forgets_the_transport": Mutant(
        lambda ctx: HonchoMemoryManager.from_config(honcho_backend_config(ctx)),
        "test_requests_reach_the_target",
        "* sent no request through ctx.transport*Fix: build the backend's httpx client with "
        "transport=ctx.transport",
    ),
    "base_url_ends_in_v3": Mutant(
        naive_factory(DoubledV3Manager),
        "test_requests_reach_the_target",
        "*requests go to /v3/v3/...: its base URL ends in /v3",
    ),
}

FALSE_ALARMS: dict[str, Mutant] = {
    "local_backend_runs_sync_methods_on_the_loop": Mutant(
        lambda ctx: BlockingLocalManager.from_config(_cap(ctx)), "", capabilities=LOCAL
    ),
    "bare_facts_document_and_defaulted_from_config": Mutant(
        lambda ctx: BareDocumentManager.from_config(None),
        "",
        capabilities=Capabilities(remote=False, recall=False, search=False, read_policy=False),
    ),
    "refuses_an_empty_user": Mutant(
        lambda ctx: UserRequiredManager.from_config(_cap(ctx)),
        "",
        capabilities=LOCAL,
    ),
}
