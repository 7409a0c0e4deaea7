"""The toy deriver: Honcho's queueing rules with deterministic, rule-based work.

``Deriver(store, mode)`` queues work when messages are created (the messages route
calls :meth:`Deriver.on_messages_created` under the store lock) and runs it in queue
order:

* ``immediate``: all work is done before the creating request returns;
* ``manual``: nothing runs until :meth:`step` or :meth:`run_until_idle`;
* ``background``: a daemon thread drains the queue; :meth:`close` stops it.

Queue units, conclusions, peer cards and summaries are store rows, so persistence and
``store.clear()`` cover them; the in-memory indexes follow the store as listeners.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from fake_honcho.deriver import queue
from fake_honcho.deriver.conclusions import Conclusions
from fake_honcho.deriver.work import Worker
from fake_honcho.ids import isoformat, utc_now
from fake_honcho.state import Key, Row, Store

DeriverMode = Literal["immediate", "manual", "background"]
MODES: tuple[DeriverMode, ...] = ("immediate", "manual", "background")
OWNED_COLLECTIONS = (
    queue.COLLECTION,
    queue.COUNTER_COLLECTION,
    "conclusions",
    "peer_cards",
    "summaries",
)

__all__ = ["MODES", "Deriver", "DeriverMode"]

logger = logging.getLogger("fake_honcho.deriver")


class Deriver:
    """Turns stored messages into conclusions, cards and summaries."""

    def __init__(
        self,
        store: Store,
        mode: DeriverMode = "immediate",
        *,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"deriver mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.store = store
        self.mode = mode
        self.clock = clock
        self.conclusions = Conclusions(store)
        self._worker = Worker(store, self.conclusions, clock)
        self._pending: deque[Key] = deque()
        self._by_workspace: dict[str, dict[Key, None]] = {}
        self._running = 0
        self._idle = threading.Condition(store.lock)
        for key, row in store.items(queue.COLLECTION):
            self._on_change(queue.COLLECTION, key, None, row)
        store.subscribe(self._on_change)
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        if mode == "background":
            self._thread = threading.Thread(
                target=self._drain_forever, name="fake-honcho-deriver", daemon=True
            )
            self._thread.start()

    # -- queueing ---------------------------------------------------------------------

    def on_messages_created(self, workspace_id: str, session_id: str, messages: list[Row]) -> None:
        """Called by the messages route, under the store lock, after the rows are stored."""
        session = self.store.get("sessions", (workspace_id, session_id)) or {}
        for unit in queue.units_for_messages(self.store, workspace_id, session_id, messages):
            self._enqueue(unit, session.get("_internal_id"))
        self._after_enqueue()

    def schedule_dream(
        self,
        workspace_id: str,
        observer: str,
        observed: str,
        dream_type: str,
        *,
        rebuild: bool = False,
    ) -> None:
        """Queue a dream for one (observer, observed) pair."""
        with self.store.lock:
            self._enqueue(
                queue.dream_unit(workspace_id, observer, observed, dream_type, rebuild), None
            )
        self._after_enqueue()

    def status(
        self,
        workspace_id: str,
        *,
        session_id: str | None = None,
        observer: str | None = None,
        sender: str | None = None,
    ) -> dict[str, Any]:
        """``GET .../queue/status`` for one workspace, true at the moment it is called."""
        with self.store.lock:
            units = [
                row
                for key in list(self._by_workspace.get(workspace_id, {}))
                if (row := self.store.get(queue.COLLECTION, key)) is not None
            ]
        return queue.status(units, session_id=session_id, observer=observer, sender=sender)

    # -- running ----------------------------------------------------------------------

    def step(self) -> bool:
        """Run the oldest pending unit; False when there was none."""
        key = self._claim()
        if key is None:
            return False
        try:
            with self.store.lock:
                unit = self.store.get(queue.COLLECTION, key)
                if unit is not None:
                    self.store.put(queue.COLLECTION, key, self._run(unit))
        finally:
            with self._idle:
                self._running -= 1
                self._idle.notify_all()
        return True

    def run_until_idle(self) -> None:
        """Settle every queued unit, including units a background worker holds right now."""
        while True:
            while self.step():
                pass
            with self._idle:
                if not self._pending and not self._running:
                    return
                if not self._pending:
                    self._idle.wait()

    def reset(self) -> None:
        """Forget every queue unit, conclusion, card and summary."""
        with self.store.lock:
            for collection in OWNED_COLLECTIONS:
                for key, _row in self.store.items(collection):
                    self.store.delete(collection, key)
            self._pending.clear()

    def close(self) -> None:
        """Stop the background worker, if any (work still queued stays queued)."""
        self._stopped.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        self._thread = None

    # -- internals --------------------------------------------------------------------

    def _enqueue(self, unit: Row, session_uid: str | None) -> None:
        counter = self.store.get(queue.COUNTER_COLLECTION, queue.COUNTER_KEY) or {"value": 0}
        number = counter["value"] + 1
        self.store.put(queue.COUNTER_COLLECTION, queue.COUNTER_KEY, {"value": number})
        row = {
            **unit,
            "id": number,
            "session_uid": session_uid,
            "status": "pending",
            "created_at": isoformat(self.clock()),
        }
        self.store.put(queue.COLLECTION, f"{number:012d}", row)

    def _after_enqueue(self) -> None:
        if self.mode == "immediate":
            self.run_until_idle()
        elif self.mode == "background":
            self._wake.set()

    def _run(self, unit: Row) -> Row:
        """The unit marked completed; a failure is logged and kept on it, as Honcho's ``error``."""
        try:
            self._worker.run(unit)
        except Exception as error:
            logger.exception("deriver unit %s (%s) failed", unit["id"], unit["task_type"])
            return {**unit, "status": "completed", "error": f"{type(error).__name__}: {error}"}
        return {**unit, "status": "completed"}

    def _claim(self) -> Key | None:
        with self.store.lock:
            while self._pending:
                key = self._pending.popleft()
                unit = self.store.get(queue.COLLECTION, key)
                if unit is not None and unit["status"] != "completed":
                    self.store.put(queue.COLLECTION, key, {**unit, "status": "in_progress"})
                    self._running += 1
                    return key
        return None

    def _drain_forever(self) -> None:
        while not self._stopped.is_set():
            self._wake.clear()
            while not self._stopped.is_set() and self.step():
                pass
            self._wake.wait()

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if collection != queue.COLLECTION:
            return
        row = new or old
        assert row is not None
        workspace = self._by_workspace.setdefault(row["workspace_id"], {})
        if new is None:
            workspace.pop(key, None)
            return
        workspace[key] = None
        if old is None and new["status"] != "completed":
            self._pending.append(key)
