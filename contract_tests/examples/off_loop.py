"""A base for local backends whose async methods run the sync ones off the event loop."""

from __future__ import annotations

import asyncio
from typing import Any

from honcho_backend.manager import MemoryManager

__all__ = ["OffLoopMemoryManager"]


class OffLoopMemoryManager(MemoryManager):
    """``aadd``/``aget_context``/``asearch`` via ``asyncio.to_thread``.

    The contract's base class runs the sync method on the caller's loop; a backend whose
    sync methods touch a disk, a database or a lock held elsewhere then stalls every
    other task of the agent. Subclass this (or copy its three methods) instead.
    """

    async def aadd(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        await asyncio.to_thread(
            self.add, thread_id, messages, agent_name=agent_name, user_id=user_id, trace_id=trace_id
        )

    async def aget_context(
        self,
        user_id: str | None,
        *,
        agent_name: str | None = None,
        thread_id: str | None = None,
    ) -> str:
        return await asyncio.to_thread(
            self.get_context, user_id, agent_name=agent_name, thread_id=thread_id
        )

    async def asearch(
        self,
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
