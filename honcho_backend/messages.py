"""Turn DeerFlow's raw conversation state into the messages worth storing in Honcho.

DeerFlow hands a backend the whole ``state["messages"]`` list: tool results,
intermediate tool-calling turns and its own hidden ``<memory>`` injection
included. Only what the user said and the assistant's answers are kept.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Outgoing", "content_fingerprint", "message_text", "select_messages"]

logger = logging.getLogger("honcho_backend")

Role = Literal["user", "assistant"]
# DeerFlow's host hook: called with a hidden message's ``additional_kwargs``
# (as DeerMem, OpenViking and noop call it), truthy to keep the message.
KeepHidden = Callable[[dict[str, Any]], object]

_ROLES: dict[str, Role] = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "AIMessageChunk": "assistant",
    "assistant": "assistant",
}
_HIDDEN_FLAGS = ("hide_from_ui", "dynamic_context_reminder")
_KEY_CHARS = 8


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message to store: ``key`` identifies it across turns and restarts."""

    key: str
    role: Role
    text: str


def _short_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:_KEY_CHARS]


def content_fingerprint(peer_id: str, content: str) -> str:
    """Identifies a stored message by author and content (for messages without our key)."""
    return _short_hash(f"{peer_id}\0{content}")


def _field(message: Any, name: str) -> Any:
    if isinstance(message, dict):
        return message.get(name)
    return getattr(message, name, None)


def message_text(content: Any) -> str:
    """Plain text of a message ``content``: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type", "text") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
        return "\n".join(part for part in parts if part.strip()).strip()
    return ""


def _role(message: Any) -> Role | None:
    kind = _field(message, "type") or _field(message, "role")
    return _ROLES.get(kind) if isinstance(kind, str) else None


def _hidden_kwargs(message: Any) -> dict[str, Any] | None:
    """The ``additional_kwargs`` of a message the host hid, or None if it is not hidden."""
    extra = _field(message, "additional_kwargs")
    if isinstance(extra, dict) and any(extra.get(flag) for flag in _HIDDEN_FLAGS):
        return extra
    return None


def _calls_tools(message: Any) -> bool:
    extra = _field(message, "additional_kwargs")
    return bool(
        _field(message, "tool_calls")
        or _field(message, "tool_call_chunks")
        or (isinstance(extra, dict) and extra.get("tool_calls"))
    )


def _host_keeps(additional_kwargs: dict[str, Any], keep_hidden: KeepHidden | None) -> bool:
    if keep_hidden is None:
        return False
    try:
        return bool(keep_hidden(additional_kwargs))
    except Exception as exc:  # a faulty host hook must not break the write path
        logger.warning("Honcho backend: should_keep_hidden_message failed (%s); dropping", exc)
        return False


def select_messages(
    messages: Iterable[Any], *, keep_hidden: KeepHidden | None, char_limit: int
) -> list[Outgoing]:
    """The user inputs and final assistant answers of ``messages``, in order.

    Dropped: other message types (tool, system), AI turns that call tools,
    messages the host hid from the UI (unless ``keep_hidden`` keeps them) and
    empty text. Text is cut to ``char_limit``. A message's key comes from its
    id, or else from its role, text and how often that pair occurred before.
    """
    selected: list[Outgoing] = []
    seen: Counter[tuple[str, str]] = Counter()
    for message in messages:
        role = _role(message)
        if role is None:
            continue
        if role == "assistant" and _calls_tools(message):
            continue
        hidden = _hidden_kwargs(message)
        if hidden is not None and not _host_keeps(hidden, keep_hidden):
            continue
        text = message_text(_field(message, "content"))
        if not text:
            continue
        message_id = _field(message, "id")
        if isinstance(message_id, str) and message_id:
            key = _short_hash(f"id\0{message_id}")
        else:
            seen[(role, text)] += 1
            key = _short_hash(f"{role}\0{seen[(role, text)]}\0{text}")
        selected.append(Outgoing(key=key, role=role, text=text[:char_limit]))
    return selected
