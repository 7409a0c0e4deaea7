"""Deliberately broken memory backends: each breaks one rule of the contract.

``MUTANTS`` maps a mutant's name to its class and to the contract test
designed to catch it; ``test_mutants.py`` runs the whole suite against every
mutant and fails if any mutant survives, so adding a broken backend here that
no contract test catches fails the project's suite.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import httpx
from pydantic import PrivateAttr

from contract_tests.capabilities import Capabilities
from contract_tests.examples import InMemoryMemoryManager
from contract_tests.examples.honcho import honcho_backend_config, honcho_manager_factory
from contract_tests.memory_contract import ManagerContext, ManagerFactory
from honcho_backend import HonchoMemoryManager
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
            base_url=ctx.target.base_url, transport=ctx.transport, headers=ctx.target.headers()
        )
        return self

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


def naive_factory(cls: type[NaiveHonchoManager]) -> ManagerFactory:
    return lambda ctx: cls.from_config(honcho_backend_config(ctx)).bind(ctx)


class BlockingLocalManager(InMemoryMemoryManager):
    """A local backend whose async methods run the sync ones on the loop (the base default):
    harmless for a dict, a stalled agent once ``add`` touches a disk."""

    aadd = MemoryManager.aadd
    aget_context = MemoryManager.aget_context
    asearch = MemoryManager.asearch


@dataclass(frozen=True)
class Mutant:
    factory: ManagerFactory
    killed_by: str
    """The contract test designed to catch this mutant."""
    capabilities: Capabilities = field(default_factory=Capabilities)


MUTANTS: dict[str, Mutant] = {
    "leaks_memory_across_users": Mutant(
        honcho_manager_factory(LeakyManager), "test_users_are_isolated_in_search"
    ),
    "reads_another_users_context": Mutant(
        honcho_manager_factory(FirstWriterContextManager),
        "test_users_are_isolated_in_context_requests",
    ),
    "raises_from_add": Mutant(
        honcho_manager_factory(RaisingAddManager), "test_add_never_raises_while_remote_fails"
    ),
    "ignores_fail_closed": Mutant(
        honcho_manager_factory(FailOpenAlwaysManager), "test_fail_closed_reads_raise"
    ),
    "blocks_the_event_loop": Mutant(
        honcho_manager_factory(BlockingManager), "test_async_methods_do_not_block_the_event_loop"
    ),
    "ignores_context_cap": Mutant(
        honcho_manager_factory(UncappedContextManager), "test_get_context_respects_cap"
    ),
    "wrong_get_memory_shape": Mutant(
        honcho_manager_factory(WrongShapeManager), "test_get_memory_has_deermem_shape"
    ),
    "sends_over_100_messages_per_batch": Mutant(
        naive_factory(OneBigBatchManager), "test_batches_hold_at_most_100_messages"
    ),
    "resends_whole_history": Mutant(naive_factory(ResendingManager), "test_history_is_not_resent"),
    "local_backend_blocks_the_event_loop": Mutant(
        lambda ctx: BlockingLocalManager.from_config({}),
        "test_async_methods_do_not_block_the_event_loop",
        Capabilities(remote=False, read_policy=False, fact_crud=True),
    ),
}
