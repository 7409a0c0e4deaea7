"""A small in-process backend with search and fact CRUD, kept per user: copy it to start a
backend that does not use Honcho.

It shows what the contract asks of a backend without any remote: ignore a
missing user, keep users apart, cap the injected context, keep messages once
however often the host resends the history, return the DeerMem document, and run
the async methods off the event loop (:class:`OffLoopMemoryManager`). Its suite
declares ``Capabilities(remote=False, read_policy=False, fact_crud=True)``.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import PrivateAttr

from contract_tests.examples.off_loop import OffLoopMemoryManager

__all__ = ["InMemoryMemoryManager"]

DEFAULT_MAX_CONTEXT_CHARS = 2000


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [b if isinstance(b, str) else b.get("text", "") for b in content]
        return "\n".join(p for p in parts if isinstance(p, str) and p).strip()
    return ""


@dataclass
class _Bucket:
    messages: list[str] = field(default_factory=list)
    seen: set[tuple[str, str]] = field(default_factory=set)
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    updated: str = field(default_factory=_now)


class InMemoryMemoryManager(OffLoopMemoryManager):
    """Per-user memory in a dict; ``backend_config["max_context_chars"]`` caps ``get_context``."""

    supports_search = True

    _buckets: dict[str, _Bucket] = PrivateAttr(default_factory=dict)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def max_context_chars(self) -> int:
        return int(self.backend_config.get("max_context_chars", DEFAULT_MAX_CONTEXT_CHARS))

    def _bucket(self, user_id: str) -> _Bucket:
        return self._buckets.setdefault(user_id, _Bucket())

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
        with self._lock:
            bucket = self._bucket(user_id)
            for message in messages or []:
                if getattr(message, "type", None) not in ("human", "ai"):
                    continue
                text = _text(getattr(message, "content", ""))
                key = (thread_id, getattr(message, "id", None) or text)
                if text and key not in bucket.seen:
                    bucket.seen.add(key)
                    bucket.messages.append(text)
                    bucket.updated = _now()

    def get_context(
        self,
        user_id: str | None,
        *,
        agent_name: str | None = None,
        thread_id: str | None = None,
    ) -> str:
        if not user_id:
            return ""
        with self._lock:
            bucket = self._buckets.get(user_id)
            if bucket is None:
                return ""
            lines = [f["content"] for f in bucket.facts.values()] + bucket.messages[::-1]
        return "\n".join(lines)[: self.max_context_chars]

    def search(
        self,
        query: str,
        top_k: int = 5,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
        category: str | None = None,
    ) -> list[dict[str, Any]]:
        words = query.lower().split()
        if not user_id or not words:
            return []
        with self._lock:
            bucket = self._buckets.get(user_id)
            if bucket is None:
                return []
            candidates = list(bucket.facts.values()) + [
                self._message_fact(user_id, index, text, bucket.updated)
                for index, text in enumerate(bucket.messages)
            ]
        hits = [
            dict(item)
            for item in candidates
            if any(w in item["content"].lower() for w in words)
            and (category is None or item["category"] == category)
        ]
        return hits[: max(top_k, 0)]

    @staticmethod
    def _message_fact(user_id: str, index: int, text: str, when: str) -> dict[str, Any]:
        return {
            "id": f"msg-{index}",
            "content": text,
            "category": "conversation",
            "confidence": 1.0,
            "createdAt": when,
            "source": "conversation",
        }

    def get_memory(
        self,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
    ) -> dict[str, Any]:
        with self._lock:
            bucket = self._buckets.get(user_id) if user_id else None
            facts = [dict(f) for f in bucket.facts.values()] if bucket else []
            updated = bucket.updated if bucket else _now()
        return {"version": "1.0", "lastUpdated": updated, "user": {}, "history": {}, "facts": facts}

    def create_fact(
        self,
        content: str,
        category: str = "context",
        confidence: float = 0.5,
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
    ) -> tuple[dict[str, Any], str | None]:
        if not content.strip():
            raise ValueError("Memory fact content cannot be empty.")
        if not 0.0 <= confidence <= 1.0:
            raise ValueError("confidence must be between 0 and 1")
        if not user_id:
            return self.get_memory(user_id=user_id), None
        fact_id = uuid.uuid4().hex
        with self._lock:
            bucket = self._bucket(user_id)
            bucket.updated = _now()
            bucket.facts[fact_id] = {
                "id": fact_id,
                "content": content.strip(),
                "category": category,
                "confidence": confidence,
                "createdAt": bucket.updated,
                "source": "manual",
            }
        return self.get_memory(user_id=user_id), fact_id

    def _fact(self, user_id: str | None, fact_id: str) -> tuple[_Bucket, dict[str, Any]]:
        bucket = self._buckets.get(user_id) if user_id else None
        if bucket is None or fact_id not in bucket.facts:
            raise KeyError(fact_id)
        return bucket, bucket.facts[fact_id]

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
        with self._lock:
            bucket, fact = self._fact(user_id, fact_id)
            changes = {"content": content, "category": category, "confidence": confidence}
            bucket.facts[fact_id] = {**fact, **{k: v for k, v in changes.items() if v is not None}}
            bucket.updated = _now()
        return self.get_memory(user_id=user_id)

    def delete_fact(
        self,
        fact_id: str,
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
    ) -> dict[str, Any]:
        with self._lock:
            bucket, _ = self._fact(user_id, fact_id)
            del bucket.facts[fact_id]
            bucket.updated = _now()
        return self.get_memory(user_id=user_id)

    @classmethod
    def from_config(
        cls,
        backend_config: dict[str, Any],
        *,
        mode: Literal["middleware", "tool"] = "middleware",
        **host_hooks: Any,
    ) -> InMemoryMemoryManager:
        return cls(backend_config=backend_config, mode=mode)
