"""The contract's async methods, run off the event loop.

DeerFlow's base class implements ``aadd``/``aget_context``/``asearch`` by calling the
sync method on the caller's loop. A backend whose sync methods wait on a network, a
disk or a lock then stalls every other task of the agent for as long. Mixing
:class:`OffLoopMixin` in before the contract's base runs them in a worker thread.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

__all__ = ["OffLoopMixin"]


class _SyncMemory(Protocol):
    """The sync methods the mixin hands to a thread (their signatures are the contract's)."""

    def add(self, *args: Any, **kwargs: Any) -> None: ...
    def get_context(self, *args: Any, **kwargs: Any) -> str: ...
    def search(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]: ...


class OffLoopMixin:
    """``aadd``/``aget_context``/``asearch`` via ``asyncio.to_thread`` (list it first)."""

    async def aadd(
        self: _SyncMemory,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        # A copy: the host may append to its list while the worker thread reads it.
        await asyncio.to_thread(
            self.add,
            thread_id,
            list(messages or []),
            agent_name=agent_name,
            user_id=user_id,
            trace_id=trace_id,
        )

    async def aget_context(
        self: _SyncMemory,
        user_id: str | None,
        *,
        agent_name: str | None = None,
        thread_id: str | None = None,
    ) -> str:
        return await asyncio.to_thread(
            self.get_context, user_id, agent_name=agent_name, thread_id=thread_id
        )

    async def asearch(
        self: _SyncMemory,
        query: str,
        top_k: int = 5,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
        category: str | None = None,
    ) -> list[dict[str, Any]]:
        return await asyncio.to_thread(
            self.search, query, top_k, user_id=user_id, agent_name=agent_name, category=category
        )
