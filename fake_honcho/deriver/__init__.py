"""The toy deriver: Honcho's queueing rules with deterministic, rule-based work.

``Deriver(store, mode)`` queues work when messages are created (the messages route
calls :meth:`Deriver.on_messages_created` under the store lock) and runs it in queue
order:

* ``immediate``: all work is done before the creating request returns;
* ``manual``: nothing runs until :meth:`step` or :meth:`run_until_idle`;
* ``background``: a daemon thread drains the queue; :meth:`close` stops it;
* ``gated``: as a real Honcho runs it: a daemon thread claims one work unit at a time
  and works through it, and representation work waits behind the batching gate
  (:class:`~fake_honcho.deriver.config.BatchGate`, by default read from the real
  server's environment variables with the real defaults: 512 tokens, 30 minutes).

A ``gate`` given to any mode holds work the same way (see
:mod:`fake_honcho.deriver.gate`): a :meth:`step` then either claims the next work
unit the gate lets through or runs one unit of the claimed one, and queue status
counts held work as pending and claimed work as in progress, as the real server
does. :meth:`flush` claims and runs everything regardless of the gate.

Queued work (in batches, see :mod:`fake_honcho.deriver.queue`), conclusions, peer cards
and summaries are store rows, so persistence and ``store.clear()`` cover them; the
in-memory indexes follow the store as listeners. :meth:`Deriver.queued` and
:meth:`Deriver.failures` show the units themselves.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from fake_honcho.deriver import gate as gate_module
from fake_honcho.deriver import queue, scope_jobs
from fake_honcho.deriver.conclusions import Conclusions
from fake_honcho.deriver.config import BatchGate
from fake_honcho.deriver.work import Worker
from fake_honcho.search.semantic import Nearness
from fake_honcho.store import scopes
from fake_honcho.store.deletion import delete_session_rows, delete_workspace_rows
from fake_honcho.store.ids import utc_now
from fake_honcho.store.state import Row, Store

DeriverMode = Literal["immediate", "manual", "background", "gated"]
MODES: tuple[DeriverMode, ...] = ("immediate", "manual", "background", "gated")
OWNED_COLLECTIONS = (
    *queue.COLLECTIONS,
    gate_module.COLLECTION,
    "conclusions",
    "peer_cards",
    "summaries",
)
#: How often a gated worker looks again for work the clock has aged past the gate
#: (Honcho's DERIVER_POLLING_SLEEP_INTERVAL_SECONDS default).
GATED_POLL_SECONDS = 1.0

__all__ = ["MODES", "BatchGate", "Deriver", "DeriverMode"]

logger = logging.getLogger("fake_honcho.deriver")


class Deriver:
    """Turns stored messages into conclusions, cards and summaries."""

    def __init__(
        self,
        store: Store,
        mode: DeriverMode = "immediate",
        *,
        clock: Callable[[], datetime] = utc_now,
        gate: BatchGate | None = None,
        nearness: Nearness | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"deriver mode must be one of {', '.join(MODES)}, not {mode!r}")
        if mode == "gated" and gate is None:
            gate = BatchGate.from_env(os.environ)
        self.store = store
        self.mode = mode
        self.clock = clock
        self.gate = gate
        self.conclusions = Conclusions(store)
        self._worker = Worker(store, self.conclusions, clock, nearness)
        self._queue = queue.WorkQueue(store, clock)
        self._holding = None if gate is None else gate_module.Holding(store, clock, gate)
        self._claimed: gate_module.UnitKey | None = None  # the work unit being worked through
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        if mode in ("background", "gated"):
            self._thread = threading.Thread(
                target=self._drain_forever, name="fake-honcho-deriver", daemon=True
            )
            self._thread.start()

    # -- queueing ---------------------------------------------------------------------

    def on_messages_created(self, workspace_id: str, session_id: str, messages: list[Row]) -> None:
        """Called by the messages route, under the store lock, after the rows are stored."""
        columns = queue.units_for_messages(self.store, workspace_id, session_id, messages)
        if columns["task_type"]:
            session = self.store.get("sessions", (workspace_id, session_id)) or {}
            shared = {
                "workspace_id": workspace_id,
                "session_id": session_id,
                "session_uid": session.get("_internal_id"),
            }
            self._submit(shared, columns, messages)
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
        shared = {"workspace_id": workspace_id, "session_id": None, "session_uid": None}
        with self.store.lock:
            self._submit(shared, queue.dream_columns(observer, observed, dream_type, rebuild))
        self._after_enqueue()

    def schedule_scope_task(
        self, task_type: str, workspace_id: str, scope_peer: str, session_id: str
    ) -> None:
        """Queue a scope backfill or removal for one session (call under ``store.lock``).

        As on the server, one already waiting for the same scope and session covers it,
        and a backfill's status turns ``pending`` as it is queued.
        """
        waiting = any(
            unit["task_type"] == task_type
            and unit["workspace_id"] == workspace_id
            and unit["observer"] == scope_peer
            and unit["session_id"] == session_id
            for unit in self._queue.queued()
        )
        if waiting:
            return
        if task_type == "scope_backfill":
            entry = scope_jobs.status_entry("pending", self.clock)
            scopes.set_status(self.store, workspace_id, scope_peer, session_id, entry)
        session = self.store.get("sessions", (workspace_id, session_id)) or {}
        shared = {
            "workspace_id": workspace_id,
            "session_id": session_id,
            "session_uid": session.get("_internal_id"),
        }
        columns: queue.Columns = {
            "task_type": [task_type],
            "message_id": [None],
            "observer": [scope_peer],
            "observed": [None],
            "seq": [None],
        }
        self._submit(shared, columns)
        self._after_enqueue()

    def schedule_deletion(self, workspace_id: str, session_id: str | None) -> None:
        """Queue the deletion of a session (``None``: of the workspace) a route accepted,
        as Honcho's ``enqueue_deletion`` does (call under ``store.lock``). The batching
        gate never holds it; queue status does not count it."""
        shared = {"workspace_id": workspace_id, "session_id": session_id, "session_uid": None}
        columns: queue.Columns = {
            "task_type": ["deletion"],
            "message_id": [None],
            "observer": [None],
            "observed": [None],
            "seq": [None],
        }
        self._queue.enqueue(shared, columns)
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
            held = None if self._holding is None else self._holding.pending(workspace_id)
            return self._queue.status(
                workspace_id,
                session_id=session_id,
                observer=observer,
                sender=sender,
                held=held,
                claimed=self._holding is not None,
            )

    def queued(self) -> list[Row]:
        """Units not yet completed, oldest first (``id``, ``task_type``, ``observer``, ...)."""
        with self.store.lock:
            return self._queue.queued()

    def failures(self) -> list[Row]:
        """Units whose work raised, oldest first, each with its ``error``."""
        with self.store.lock:
            return self._queue.failures()

    # -- running ----------------------------------------------------------------------

    def step(self) -> bool:
        """Run the oldest pending unit; False when there was none.

        The unit is claimed and run under the store lock, so units complete strictly
        in queue order whichever thread steps. With a gate, when the claimed work unit
        is done the step claims the next one the gate lets through instead.
        """
        return self._step(flush=False)

    def run_until_idle(self) -> None:
        """Settle every queued unit, including one a background worker holds right now.

        Work a gate holds stays held (pending), as on a real server; see :meth:`flush`.
        """
        while self.step():
            pass

    def flush(self) -> None:
        """Claim and run all work, whatever the gate holds (``DERIVER_FLUSH_ENABLED``)."""
        while self._step(flush=True):
            pass

    def wake(self) -> None:
        """Have a background worker look at the queue again (after rows were loaded into it)."""
        if self._thread is not None:
            self._wake.set()

    def reset(self) -> None:
        """Forget every queue unit, conclusion, card and summary."""
        with self.store.lock:
            self._claimed = None
            for collection in OWNED_COLLECTIONS:
                for key, _row in self.store.items(collection):
                    self.store.delete(collection, key)

    def close(self) -> None:
        """Stop the background worker, if any (work still queued stays queued)."""
        self._stopped.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        self._thread = None

    # -- internals --------------------------------------------------------------------

    def _submit(
        self, shared: Row, columns: queue.Columns, messages: list[Row] | None = None
    ) -> None:
        """Queue new units, or hold them for a claim when there is a gate (which weighs
        them by the token counts of the ``messages`` that made them)."""
        if self._holding is not None:
            tokens = {message["id"]: message["token_count"] for message in messages or ()}
            columns = self._holding.add(shared, columns, tokens, claimed=self._claimed)
        if columns["task_type"]:
            self._queue.enqueue(shared, columns)

    def _step(self, *, flush: bool) -> bool:
        with self.store.lock:
            unit = self._queue.next_unit()
            if unit is None:
                self._claimed = None  # the claimed work unit is done
                return self._claim(flush=flush)
            with self._queue.running(unit):
                error, dreams = self._run(unit)
            self._queue.complete(unit, error)
            if unit["task_type"] == "deletion" and unit["session_id"] is None:
                # the workspace's rows include this unit's own: they go once it is complete
                delete_workspace_rows(self.store, unit["workspace_id"])
            for dream in dreams:  # queued behind everything, as the server enqueues them
                columns = queue.dream_columns(
                    dream.observer, dream.observed, dream.dream_type, dream.rebuild
                )
                shared = {"workspace_id": unit["workspace_id"], "session_id": None}
                self._submit({**shared, "session_uid": None}, columns)
        return True

    def _claim(self, *, flush: bool) -> bool:
        """Move the next claimable held work unit into the queue; False when there is none."""
        if self._holding is None:
            return False
        key = self._holding.next_claim(ignore_gate=flush)
        if key is None:
            return False
        self._queue.enqueue(*self._holding.take(key))
        self._claimed = key
        return True

    def _after_enqueue(self) -> None:
        if self.mode == "immediate":
            self.run_until_idle()
        elif self._thread is not None:
            self._wake.set()

    def _run(self, unit: Row) -> tuple[str | None, list[scope_jobs.Dream]]:
        """Do the unit's work; a failure is logged and returned, kept as Honcho's ``error``.

        Also returns the dreams a scope job asks for.
        """
        try:
            if unit["task_type"] == "scope_backfill":
                return None, scope_jobs.backfill(self.store, self.conclusions, unit, self.clock)
            if unit["task_type"] == "scope_removal":
                return None, scope_jobs.removal(self.store, self.conclusions, unit)
            if unit["task_type"] == "deletion":
                if unit["session_id"] is not None:
                    delete_session_rows(self.store, unit["workspace_id"], unit["session_id"])
                return None, []
            self._worker.run(unit)
        except Exception as error:
            logger.exception("deriver unit %s (%s) failed", unit["id"], unit["task_type"])
            if unit["task_type"] == "scope_backfill":
                entry = scope_jobs.status_entry("failed", self.clock)
                scopes.set_status(
                    self.store, unit["workspace_id"], unit["observer"], unit["session_id"], entry
                )
            return f"{type(error).__name__}: {error}", []
        return None, []

    def _drain_forever(self) -> None:
        poll = GATED_POLL_SECONDS if self._holding is not None else None
        while not self._stopped.is_set():
            self._wake.clear()
            while not self._stopped.is_set() and self.step():
                pass
            self._wake.wait(poll)
