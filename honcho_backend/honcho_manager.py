"""``HonchoMemoryManager``: DeerFlow's memory contract on top of Honcho v3.

Writes send only what a thread's Honcho session does not hold yet, one
``POST .../messages`` per turn in steady state. Reads go through a single
failure-policy gate. Nothing blocking runs on an event loop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import httpx
from pydantic import PrivateAttr, ValidationError

from .client import HonchoClient, HonchoRequestError
from .config import HonchoConfig, session_id_for, stable_id
from .ledger import BoundedLRU, ThreadLedger, ThreadState
from .messages import KeepHidden, Outgoing, content_fingerprint, select_messages
from .off_loop import OffLoopMixin

if TYPE_CHECKING:
    from .manager import MemoryManager, MemoryManagerError
else:
    # Inside DeerFlow, subclass the host's own contract: its discovery only accepts
    # subclasses, and its recall path re-raises only its own MemoryManagerError.
    try:
        from deerflow.agents.memory.manager import MemoryManager, MemoryManagerError
    except ImportError:
        from .manager import MemoryManager, MemoryManagerError

__all__ = ["HonchoMemoryManager", "MemoryManagerError"]

_stable_id = stable_id
"""DeerFlow's own backend names the id derivation so here; its tests import it."""

logger = logging.getLogger("honcho_backend")

T = TypeVar("T")

BATCH_SIZE = 100
"""Honcho accepts at most 100 messages per ``POST .../messages``."""

RECOVERY_WINDOW = 100
"""How many of a session's newest messages are read on first sight of a thread."""

WATERMARK_KEY = "df"
"""Metadata key of the watermark: the key of the last message of each request."""

MIN_TOP_K, MAX_TOP_K = 1, 100
DEFAULT_CATEGORY = "memory"
SEARCH_CONFIDENCE = 1.0
"""Search returns what was said verbatim, not an inferred fact."""


def _now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _empty_memory(now: str) -> dict[str, Any]:
    return {"version": "1.0", "lastUpdated": now, "user": {}, "history": {}, "facts": []}


def _one_line(invalid: ValidationError) -> ValueError:
    """The config's own ``ValueError`` (it names the key), else pydantic's first problem;
    never the input, which may hold the api key."""
    first = invalid.errors()[0]
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, ValueError):
        return cause
    where = ".".join(str(part) for part in first["loc"]) or "backend_config"
    return ValueError(f"Honcho backend: {where}: {first['msg']}")


class HonchoMemoryManager(OffLoopMixin, MemoryManager):
    """A DeerFlow memory backend storing conversations in Honcho.

    Each user gets a workspace (``workspace_prefix`` + stable id, or an
    override) and a peer; each DeerFlow thread is a session ``df-<stable id>``.
    ``get_context`` injects Honcho's working representation of the user peer.
    """

    supports_search = True
    requires_passive_writes_in_tool_mode = True

    _config: HonchoConfig = PrivateAttr()
    _transport: httpx.BaseTransport | None = PrivateAttr(default=None)
    _keep_hidden: KeepHidden | None = PrivateAttr(default=None)
    _client: HonchoClient | None = PrivateAttr(default=None)
    _closed: bool = PrivateAttr(default=False)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _ledger: ThreadLedger = PrivateAttr()
    _workspaces: BoundedLRU[str, bool] = PrivateAttr()
    _executor: ThreadPoolExecutor | None = PrivateAttr(default=None)
    _pending: set[Future[None]] = PrivateAttr(default_factory=set)

    def model_post_init(self, context: Any, /) -> None:
        self._config = HonchoConfig.from_backend_config(self.backend_config)
        self._ledger = ThreadLedger(self._config.thread_cache_size)
        self._workspaces = BoundedLRU(self._config.thread_cache_size)

    @classmethod
    def from_config(
        cls,
        backend_config: dict[str, Any],
        *,
        mode: Literal["middleware", "tool"] = "middleware",
        **host_hooks: Any,
    ) -> HonchoMemoryManager:
        """Validate the config (no network call); a bad one is a one-line ``ValueError``
        naming the key, not pydantic's report of the model that wraps it.

        Host hooks used: ``should_keep_hidden_message`` (which hidden messages
        to store anyway) and ``transport`` (an ``httpx`` transport, for tests).
        Any other hook is ignored.
        """
        try:
            manager = cls(backend_config=backend_config, mode=mode)
        except ValidationError as invalid:
            raise _one_line(invalid) from None
        keep_hidden = host_hooks.get("should_keep_hidden_message")
        manager._keep_hidden = keep_hidden if callable(keep_hidden) else None
        manager._transport = host_hooks.get("transport")
        return manager

    @property
    def config(self) -> HonchoConfig:
        return self._config

    def __repr_args__(self) -> Any:
        # backend_config may carry a literal api_key: never show it.
        for name, value in super().__repr_args__():
            yield name, ("<redacted>" if name == "backend_config" else value)

    # -- plumbing ---------------------------------------------------------------

    # DeerFlow's own backend derives ids through these two (its tests call them).
    def _workspace(self, user_id: str | None) -> str | None:
        return self._config.workspace_for(user_id) if user_id else None

    def _user_peer(self, user_id: str) -> str:
        return self._config.user_peer_for(user_id)

    def _http(self) -> HonchoClient:
        with self._lock:
            if self._closed:
                raise MemoryManagerError("Honcho backend is closed")
            if self._client is None:
                self._client = HonchoClient(self._config, transport=self._transport)
            return self._client

    def _redact(self, text: str) -> str:
        secret = self._config.api_key
        return text.replace(secret, "[redacted]") if secret else text

    # -- writes -----------------------------------------------------------------

    def add(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        """Store the thread's new messages; never raises into the host."""
        try:
            self._write(thread_id, messages, user_id)
        except Exception as exc:
            logger.warning(
                "Honcho backend: memory write for thread %r dropped: %s",
                thread_id,
                self._redact(str(exc)),
            )

    def _write(self, thread_id: str, messages: Sequence[Any] | None, user_id: str | None) -> None:
        if not user_id or not thread_id:
            logger.debug("Honcho backend: no user_id or thread_id, memory write skipped")
            return
        cfg = self._config
        outgoing = select_messages(
            messages or [],
            keep_hidden=self._keep_hidden,
            char_limit=cfg.effective_message_char_limit,
        )
        if not outgoing:
            return
        workspace = cfg.workspace_for(user_id)
        session = session_id_for(thread_id)
        peers = {"user": cfg.user_peer_for(user_id), "assistant": cfg.assistant_peer}
        thread = (workspace, session)

        def fingerprint(message: Outgoing) -> str:
            return content_fingerprint(peers[message.role], message.text)

        with self._ledger.lock_for(thread):
            state = self._ledger.get(thread)
            if state is None:
                state = self._open_thread(workspace, session, peers)
                self._ledger.put(thread, state)
            unsent = state.unsent(outgoing, fingerprint)
            for start in range(0, len(unsent), BATCH_SIZE):
                batch = unsent[start : start + BATCH_SIZE]
                payload: list[dict[str, Any]] = [
                    {"peer_id": peers[message.role], "content": message.text} for message in batch
                ]
                # One watermark per request (not per message) keeps the wire cost low.
                payload[-1]["metadata"] = {WATERMARK_KEY: batch[-1].key}
                try:
                    self._post_messages(workspace, session, peers, payload)
                except Exception:
                    # The server may hold part of it: re-read the session next time.
                    self._ledger.forget(thread)
                    raise
                state.remember(message.key for message in batch)

    def _open_thread(self, workspace: str, session: str, peers: dict[str, str]) -> ThreadState:
        """First sight of a thread: make sure it exists and learn what it already holds.

        The newest watermark pins the position exactly; messages written by
        another client (e.g. DeerFlow's own Honcho backend) are recognised by
        author and content.
        """
        self._establish(workspace, session, peers)
        newest_first = self._http().newest_messages(workspace, session, size=RECOVERY_WINDOW)
        items = [
            item
            for item in reversed(newest_first)
            if isinstance(item, dict)
            and isinstance(item.get("peer_id"), str)
            and isinstance(item.get("content"), str)
        ]
        watermarks = [
            metadata[WATERMARK_KEY]
            for item in items
            if isinstance(metadata := item.get("metadata"), dict)
            and isinstance(metadata.get(WATERMARK_KEY), str)
        ]
        fingerprints = [content_fingerprint(item["peer_id"], item["content"]) for item in items]
        return ThreadState(watermarks, fingerprints)

    def _establish(self, workspace: str, session: str, peers: dict[str, str]) -> None:
        client = self._http()
        if self._workspaces.get(workspace) is None:
            client.get_or_create_workspace(workspace)
            self._workspaces.put(workspace, True)
        client.get_or_create_session(workspace, session, peers.values())

    def _post_messages(
        self,
        workspace: str,
        session: str,
        peers: dict[str, str],
        payload: list[dict[str, Any]],
    ) -> None:
        client = self._http()
        try:
            client.add_messages(workspace, session, payload)
        except HonchoRequestError as exc:
            if exc.status != 404:
                raise
            # Honcho says the workspace or session is gone; nothing was stored.
            self._workspaces.pop(workspace)
            self._establish(workspace, session, peers)
            client.add_messages(workspace, session, payload)

    def add_nowait(
        self,
        thread_id: str,
        messages: list[Any],
        *,
        agent_name: str | None = None,
        user_id: str | None = None,
    ) -> None:
        """Queue the write on a background thread and return at once.

        Safe to call from an event loop (DeerFlow's summarization hook does).
        One worker thread keeps writes in submission order;
        ``shutdown_flush`` waits for them.
        """
        if not user_id:
            return
        snapshot = list(messages or [])
        with self._lock:
            if self._closed:
                logger.warning("Honcho backend: closed, memory write for %r dropped", thread_id)
                return
            if self._executor is None:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="honcho-memory")
            future = self._executor.submit(
                self.add, thread_id, snapshot, agent_name=agent_name, user_id=user_id
            )
            self._pending.add(future)
        future.add_done_callback(self._settle)

    def _settle(self, future: Future[None]) -> None:
        with self._lock:
            self._pending.discard(future)

    def shutdown_flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for queued ``add_nowait`` writes; ``True`` iff drained."""
        with self._lock:
            pending = list(self._pending)
        if not pending:
            return True
        _, not_done = wait(pending, timeout=max(timeout, 0.0))
        return not not_done

    # -- reads ------------------------------------------------------------------

    def _read(self, fallback: T, read: Callable[[], T]) -> T:
        """Apply ``failure_policy.read`` to one recall."""
        try:
            return read()
        except MemoryManagerError:
            if self._config.read_fail_closed:
                raise
            logger.warning("Honcho backend: memory recall failed; using the fallback")
            return fallback
        except Exception as exc:
            reason = self._redact(str(exc))
            if self._config.read_fail_closed:
                raise MemoryManagerError(f"honcho memory recall failed: {reason}") from None
            logger.warning("Honcho backend: memory recall failed (%s); using the fallback", reason)
            return fallback

    def get_context(
        self,
        user_id: str | None,
        *,
        agent_name: str | None = None,
        thread_id: str | None = None,
    ) -> str:
        """Honcho's representation of the user, stripped and capped at ``max_injection_chars``."""
        if not user_id:
            return ""
        text = self._read("", lambda: self._representation(user_id))
        return text[: self._config.max_injection_chars]

    def _representation(self, user_id: str) -> str:
        cfg = self._config
        return (
            self._http()
            .working_representation(cfg.workspace_for(user_id), cfg.user_peer_for(user_id))
            .strip()
        )

    def search(
        self,
        query: str,
        top_k: int = 5,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
        category: str | None = None,
    ) -> list[dict[str, Any]]:
        """Messages matching ``query`` as DeerFlow facts, best first.

        Items have Honcho's category ``memory`` unless their metadata says
        otherwise; ``category`` filters on that before ``top_k`` applies. In a
        workspace shared through ``workspace_overrides`` only the user's own
        messages are searched.
        """
        if not user_id or not isinstance(query, str) or not query.strip():
            return []
        limit = min(max(int(top_k), MIN_TOP_K), MAX_TOP_K)
        return self._read([], lambda: self._search(user_id, query.strip(), limit, category))

    def _search(
        self, user_id: str, query: str, limit: int, category: str | None
    ) -> list[dict[str, Any]]:
        cfg = self._config
        filters: dict[str, Any] = {}
        if cfg.shares_workspace(user_id):
            filters["peer_id"] = cfg.user_peer_for(user_id)
        if category and category != DEFAULT_CATEGORY:
            filters["metadata"] = {"category": category}
        items = self._http().search(
            cfg.workspace_for(user_id), query, limit=limit, filters=filters or None
        )
        facts = [fact for item in items if (fact := _as_fact(item)) is not None]
        if category:
            facts = [fact for fact in facts if fact["category"] == category]
        return facts[:limit]

    def get_memory(
        self,
        *,
        user_id: str | None = None,
        agent_name: str | None = None,
    ) -> dict[str, Any]:
        """A DeerMem-shaped document whose ``workContext`` is Honcho's representation."""
        now = _now_iso()
        if not user_id:
            return _empty_memory(now)
        representation = self._read(None, lambda: self._representation(user_id))
        doc = _empty_memory(now)
        if representation:
            summary = representation[: self._config.max_injection_chars]
            doc["user"] = {"workContext": {"summary": summary, "updatedAt": now}}
        return doc

    # -- lifecycle ----------------------------------------------------------------

    def warm(self) -> bool:
        """``True`` when Honcho's ``/health`` answers 2xx, else ``False``; never raises."""
        try:
            self._http().health()
        except Exception as exc:
            logger.warning("Honcho backend: health check failed: %s", self._redact(str(exc)))
            return False
        return True

    def close(self) -> None:
        """Stop the background writer and release the HTTP client; idempotent."""
        with self._lock:
            self._closed = True
            client, self._client = self._client, None
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
        if client is not None:
            client.close()


def _as_fact(item: Any) -> dict[str, Any] | None:
    """A Honcho message in DeerFlow's fact shape, plus ``session_id`` and ``peer_id``."""
    if not isinstance(item, dict) or not isinstance(item.get("content"), str):
        return None
    metadata = item.get("metadata")
    category = metadata.get("category") if isinstance(metadata, dict) else None
    return {
        "id": str(item.get("id") or ""),
        "content": item["content"],
        "category": category if isinstance(category, str) and category else DEFAULT_CATEGORY,
        "confidence": SEARCH_CONFIDENCE,
        "createdAt": str(item.get("created_at") or ""),
        "source": "honcho",
        "session_id": item.get("session_id"),
        "peer_id": item.get("peer_id"),
    }
