"""What a memory backend declares it can do; the contract suite skips by capability, never by name.

A typo must not silently disable a test (langchain-tests' free-form flags do
exactly that), so :class:`Capabilities` is a frozen, keyword-only dataclass:
an unknown name is a ``TypeError`` when the subclass body runs, which pytest
reports as a collection error.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

__all__ = ["Capabilities", "capability_names"]


@dataclass(frozen=True, kw_only=True)
class Capabilities:
    """Optional behaviour a ``MemoryManager`` under test claims to have.

    Every field is a plain ``bool``; the defaults describe a network backend
    with recall and search but no fact CRUD. A clause that is a design choice
    rather than a host requirement (``ignores_missing_user``) is off by default.
    """

    remote: bool = True
    """Talks to the Honcho target through the transport in ``ManagerContext``
    (enables the fault, latency, batching and request-snapshot tests)."""

    recall: bool = True
    """``get_context`` returns what ``add`` wrote, once the target has settled."""

    search: bool = True
    """``search`` finds what ``add`` wrote (implies ``supports_search``)."""

    memory_document: bool = True
    """``get_memory`` is implemented and returns the DeerMem document shape."""

    context_cap: bool = True
    """``get_context`` honours ``ManagerContext.context_cap``."""

    read_policy: bool = True
    """Reads honour ``ManagerContext.read_policy`` (``fail_open`` / ``fail_closed``)."""

    fact_crud: bool = False
    """``create_fact``, ``update_fact`` and ``delete_fact`` are implemented."""

    ignores_missing_user: bool = False
    """Without a ``user_id`` (``None`` or ``""``) nothing is stored or sent and reads are
    empty. A design choice, not a host requirement, so judged only when declared:
    DeerFlow's callers always pass a user (``resolve_runtime_user_id`` falls back to
    ``DEFAULT_USER_ID``), and DeerMem keeps a shared legacy bucket for ``None``."""

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, bool):
                raise TypeError(
                    f"Capabilities.{field.name} must be a bool, got {type(value).__name__}"
                )

    @classmethod
    def coerce(cls, value: Any) -> Capabilities:
        """Accept a ``Capabilities`` or a mapping of capability names (validated) to bools."""
        if isinstance(value, Capabilities):
            return value
        if isinstance(value, dict):
            unknown = sorted(set(value) - set(capability_names()))
            if unknown:
                raise TypeError(
                    f"unknown capability name(s) {unknown}; known: {sorted(capability_names())}"
                )
            return cls(**value)
        raise TypeError(f"capabilities must be a Capabilities instance, got {type(value).__name__}")

    def has(self, name: str) -> bool:
        """Whether capability ``name`` is declared; an unknown name is an error, not ``False``."""
        if name not in capability_names():
            raise ValueError(f"unknown capability {name!r}; known: {sorted(capability_names())}")
        return bool(getattr(self, name))


def capability_names() -> frozenset[str]:
    return frozenset(field.name for field in fields(Capabilities))
