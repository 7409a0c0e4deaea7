"""A standalone mirror of DeerFlow's ``MemoryManager`` plug-in contract.

DeerFlow backends subclass ``deerflow.agents.memory.manager.MemoryManager``.
This module reproduces that contract (same fields, class variables,
validators, method names, signatures and defaults) so a backend written for
DeerFlow can be built and tested without installing DeerFlow.

Three tiers:

* tier 1 (abstract): ``add``, ``get_context`` and the classmethod ``from_config``;
* tier 2 (management, with defaults): ``add_nowait`` delegates to ``add``,
  ``shutdown_flush`` returns ``True``, the rest raise ``NotImplementedError``;
* tier 3 (optional hooks): ``warm`` returns ``None``, fact CRUD and
  ``reload_memory`` raise, ``on_pre_compress``/``on_turn_start`` are no-ops.

The ``a*`` defaults call the sync methods directly (on the event loop), exactly
as upstream does; network backends must override them.
"""

from __future__ import annotations

import importlib
from abc import abstractmethod
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "MemoryCallbacks",
    "MemoryConflictError",
    "MemoryCorruptionError",
    "MemoryManager",
    "MemoryManagerError",
    "resolve_manager_class",
]


class MemoryCallbacks:
    """Observability hooks a host hands to a backend; every hook is a no-op here."""

    def on_memory_llm_call(
        self,
        invoke_config: dict[str, Any],
        *,
        thread_id: str | None,
        user_id: str | None,
        trace_id: str | None,
        model_name: str | None,
    ) -> None:
        """Called before a backend invokes an LLM; may mutate ``invoke_config``."""

    def on_memory_llm_result(
        self,
        invoke_config: dict[str, Any],
        *,
        prompt: Any,
        response: Any,
        error: BaseException | None,
        duration_ms: float,
        model_name: str | None,
    ) -> None:
        """Called after a backend's LLM call, whether it succeeded or failed."""


class MemoryManagerError(RuntimeError):
    """Backend-neutral error raised across the ``MemoryManager`` boundary."""


class MemoryConflictError(MemoryManagerError):
    """A write lost a concurrent-modification race (the host maps it to 409)."""


class MemoryCorruptionError(MemoryManagerError):
    """Stored memory cannot be read safely (the host maps it to 500)."""


class MemoryManager(BaseModel):
    """The DeerFlow memory backend contract, as a pydantic v2 model.

    Pydantic's metaclass derives from ``ABCMeta``, so a subclass that misses an
    abstract method fails with ``TypeError`` at construction. Backend-private
    dependencies (clients, queues) belong in ``PrivateAttr``s, not fields.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    backend_config: dict[str, Any] = Field(default_factory=dict)
    mode: Literal["middleware", "tool"] = "middleware"
    callbacks: MemoryCallbacks | None = None

    supports_search: ClassVar[bool] = False
    """Must be ``True`` exactly when the subclass overrides ``search``."""

    requires_passive_writes_in_tool_mode: ClassVar[bool] = False
    """When ``True`` the host keeps passive ``add`` writes in tool mode too."""

    @field_validator("backend_config", mode="before")
    @classmethod
    def _coerce_backend_config(cls, value: Any) -> Any:
        """Treat any empty value (``None``, ``""``, ``[]``) as an empty config, as DeerFlow does."""
        return value or {}

    @model_validator(mode="after")
    def _check_invariants(self) -> MemoryManager:
        """Reject a ``supports_search`` flag that drifts from the code; tool mode needs search."""
        cls = type(self)
        search_overridden = cls.search is not MemoryManager.search
        if cls.supports_search != search_overridden:
            state = "overridden" if search_overridden else "inherited (not implemented)"
            raise ValueError(
                f"{cls.__name__}.supports_search={cls.supports_search} is inconsistent with "
                f"search(): search() is {state}; set supports_search={search_overridden}."
            )
        if self.mode == "tool" and not search_overridden:
            raise ValueError(
                f"memory mode='tool' requires a backend that implements search(), "
                f"but {cls.__name__} does not override search()."
            )
        return self

    # -- Tier 1: every backend implements these -------------------------------

    @abstractmethod
    def add(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        """Record a thread's raw conversation; filtering is the backend's job."""

    @abstractmethod
    def get_context(
        self,
        user_id: str | None,
        *,
        agent_name: str | None = None,
        thread_id: str | None = None,
    ) -> str:
        """Return text the host injects verbatim; its format is the backend's choice."""

    @classmethod
    @abstractmethod
    def from_config(
        cls,
        backend_config: dict[str, Any],
        *,
        mode: Literal["middleware", "tool"] = "middleware",
        **host_hooks: Any,
    ) -> MemoryManager:
        """Build an instance from ``backend_config``; ignore host hooks it does not use."""

    # -- Tier 2: management operations ----------------------------------------

    def add_nowait(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
    ) -> None:
        """Record messages right away (called before summarization drops them)."""
        self.add(thread_id, messages, agent_name=agent_name, user_id=user_id)

    def search(
        self,
        query: str,
        top_k: int = 5,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
        category: str | None = None,
    ) -> list[dict[str, Any]]:
        """Return up to ``top_k`` facts for ``query``; ``category`` filters before the cut."""
        raise NotImplementedError(f"search not supported by {type(self).__name__}")

    def get_memory(
        self,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
    ) -> dict[str, Any]:
        """Return the bucket's memory document (DeerMem shape)."""
        raise NotImplementedError(f"get_memory not supported by {type(self).__name__}")

    def delete_memory(
        self,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
    ) -> None:
        """Delete the bucket's memory document (no host caller)."""
        raise NotImplementedError(f"delete_memory not supported by {type(self).__name__}")

    def clear_memory(
        self,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
    ) -> dict[str, Any]:
        """Clear the bucket and return the now-empty document."""
        raise NotImplementedError(f"clear_memory not supported by {type(self).__name__}")

    def import_memory(
        self,
        memory_data: dict[str, Any],
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
    ) -> dict[str, Any]:
        """Merge a memory document into the bucket and return the result."""
        raise NotImplementedError(f"import_memory not supported by {type(self).__name__}")

    def export_memory(
        self,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
    ) -> dict[str, Any]:
        """Return the bucket's document for export (no host caller)."""
        raise NotImplementedError(f"export_memory not supported by {type(self).__name__}")

    def shutdown_flush(self, timeout: float) -> bool:
        """Drain buffered writes within ``timeout``; ``True`` iff fully drained."""
        return True

    # -- Tier 3: optional hooks -----------------------------------------------

    def warm(self) -> bool | None:
        """Warm resources at startup: ``True`` ok, ``False`` failed, ``None`` nothing to warm."""
        return None

    def reload_memory(
        self,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
    ) -> dict[str, Any]:
        """Drop caches and reload; the host falls back to ``get_memory`` when unsupported."""
        raise NotImplementedError(f"reload_memory not supported by {type(self).__name__}")

    def create_fact(
        self,
        content: str,
        category: str = "context",
        confidence: float = 0.5,
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
    ) -> tuple[dict[str, Any], str | None]:
        """Add one fact; return ``(memory_doc, fact_id)``, ``fact_id=None`` if evicted."""
        raise NotImplementedError(f"create_fact not supported by {type(self).__name__}")

    def delete_fact(
        self,
        fact_id: str,
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
    ) -> dict[str, Any]:
        """Delete one fact by id."""
        raise NotImplementedError(f"delete_fact not supported by {type(self).__name__}")

    def update_fact(
        self,
        fact_id: str,
        content: str | None = None,
        category: str | None = None,
        confidence: float | None = None,
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
    ) -> dict[str, Any]:
        """Update one fact by id, keeping the fields left as ``None``."""
        raise NotImplementedError(f"update_fact not supported by {type(self).__name__}")

    def on_pre_compress(self, messages: list[Any]) -> str:
        """Return text to add to a compression prompt (none by default)."""
        return ""

    def on_turn_start(self, turn_number: int, message: Any, **kwargs: Any) -> None:
        """Turn-start notification; no-op by default."""
        return None

    # -- Async variants: the defaults run the sync method on the caller's loop --

    async def aadd(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        return self.add(
            thread_id, messages, agent_name=agent_name, user_id=user_id, trace_id=trace_id
        )

    async def aget_context(
        self,
        user_id: str | None,
        *,
        agent_name: str | None = None,
        thread_id: str | None = None,
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

    # -- Lifecycle --------------------------------------------------------------

    def close(self) -> None:
        """Release resources at shutdown; no-op by default."""
        return None


def resolve_manager_class(manager_class: str) -> type[MemoryManager]:
    """Resolve ``pkg.mod:Cls`` or ``pkg.mod.Cls`` to a ``MemoryManager`` subclass.

    The two dotted forms DeerFlow's factory accepts (its third form, a folder
    name under DeerFlow's own ``backends/``, has no meaning outside DeerFlow), so
    a bare package name is refused here as it is there. Anything else is a
    ``ValueError`` naming the value.
    """
    if ":" in manager_class:
        module_path, _, attr = manager_class.partition(":")
    else:
        module_path, _, attr = manager_class.rpartition(".")
    if not (module_path and attr):
        raise ValueError(
            f"memory.manager_class={manager_class!r} is not a 'pkg.mod:Cls' or 'pkg.mod.Cls' path"
        )
    try:
        module = importlib.import_module(module_path)
    except ImportError as exc:
        raise ValueError(
            f"memory.manager_class={manager_class!r}: cannot import module {module_path!r}: {exc}"
        ) from exc
    cls = getattr(module, attr, None)
    if not (isinstance(cls, type) and issubclass(cls, MemoryManager)):
        raise ValueError(
            f"memory.manager_class={manager_class!r} resolved to non-MemoryManager {cls!r}"
        )
    return cls
