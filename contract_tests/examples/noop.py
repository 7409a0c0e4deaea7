"""A backend that remembers nothing: the smallest thing that keeps the contract."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from contract_tests.examples.off_loop import OffLoopMemoryManager

__all__ = ["NoopMemoryManager"]


class NoopMemoryManager(OffLoopMemoryManager):
    """Accepts every write, recalls nothing; ``get_memory`` is a valid empty document."""

    def add(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        return None

    def get_context(
        self,
        user_id: str | None,
        *,
        agent_name: str | None = None,
        thread_id: str | None = None,
    ) -> str:
        return ""

    def get_memory(
        self,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
    ) -> dict[str, Any]:
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return {"version": "1.0", "lastUpdated": now, "user": {}, "history": {}, "facts": []}

    @classmethod
    def from_config(
        cls,
        backend_config: dict[str, Any],
        *,
        mode: Literal["middleware", "tool"] = "middleware",
        **host_hooks: Any,
    ) -> NoopMemoryManager:
        return cls(backend_config=backend_config, mode=mode)
