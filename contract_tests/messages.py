"""Chat messages shaped like the LangChain messages DeerFlow hands to ``add``.

Backends read ``type``, ``content``, ``id`` and ``additional_kwargs`` (and
``tool_calls`` on AI messages); these stand-ins carry exactly those, so the
suites need no LangChain install.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ChatMessage", "ai", "human", "system", "tool"]


@dataclass(frozen=True)
class ChatMessage:
    type: str
    content: str | list[Any]
    id: str | None = None
    additional_kwargs: dict[str, Any] = field(default_factory=dict)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


def human(content: str, *, id: str | None = None, **kwargs: Any) -> ChatMessage:
    return ChatMessage("human", content, id=id, additional_kwargs=kwargs)


def ai(content: str, *, id: str | None = None, **kwargs: Any) -> ChatMessage:
    return ChatMessage("ai", content, id=id, additional_kwargs=kwargs)


def tool(content: str, *, id: str | None = None) -> ChatMessage:
    return ChatMessage("tool", content, id=id)


def system(content: str, *, id: str | None = None) -> ChatMessage:
    return ChatMessage("system", content, id=id)
