"""Wait until derived data (representations, summaries) is ready; never a fixed sleep.

Only tests that read derived data settle: messages are readable (and found by
search) as soon as the write that stored them returns, on the fake and on a real
Honcho alike, so a test that needs only messages reads at once. Tests that need
derived data carry the ``honcho_llm`` marker: a real Honcho derives nothing
without an LLM, so they skip there unless ``--honcho-llm`` says it has one.

On a real server the wait reads ``GET /v3/workspaces/{ws}/queue/status``, which
has two traps (see ``fake_honcho.harness.divergences``): right after a write it may still
count nothing, because the server enqueues after answering
(``queue-status-enqueue-lag``), so "idle" must hold for a quiet period before it is
believed; and a server whose deriver batches (``DERIVER_FLUSH_ENABLED`` off, the
default) holds a small session's work for up to 30 minutes, so a settle that times
out with pending work says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx

from contract_tests.namespace import list_workspaces
from contract_tests.target import HonchoTarget

__all__ = ["SettleTimeout", "Settler"]

GATE_HINT = (
    "; work that stays pending (never in progress) is likely held by the server's batching "
    "gate: run its deriver with DERIVER_FLUSH_ENABLED=true"
)


class SettleTimeout(TimeoutError):
    """The deriver queue did not drain before the deadline."""


def _queue_status(client: httpx.Client, workspace: str) -> dict[str, Any] | None:
    """The workspace's queue status; None for a workspace that does not exist (nothing queued)."""
    response = client.get(f"/v3/workspaces/{workspace}/queue/status")
    if response.status_code == 404:
        return None
    response.raise_for_status()
    status: dict[str, Any] = response.json()
    return status


def _busy(status: dict[str, Any] | None) -> bool:
    return bool(
        status and (status.get("pending_work_units", 0) or status.get("in_progress_work_units", 0))
    )


class Settler:
    """``settle(workspace=None)``: on the fake, run the deriver to idle; on a real server,
    poll queue status with exponential back-off until no work has been pending or in
    progress for ``quiet`` seconds, or raise :class:`SettleTimeout` at the deadline.

    ``workspace=None`` settles every workspace under the test's namespace prefix (backends
    may derive several workspaces from it, e.g. one per user).
    """

    def __init__(
        self,
        target: HonchoTarget,
        namespace: str,
        *,
        timeout: float = 60.0,
        quiet: float = 1.0,
        first_delay: float = 0.05,
        max_delay: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.target = target
        self.namespace = namespace
        self.timeout = timeout
        self.quiet = quiet
        self.first_delay = first_delay
        self.max_delay = max_delay
        self._clock = clock
        self._sleep = sleep

    def __call__(self, workspace: str | None = None) -> None:
        if self.target.fake is not None:
            self.target.fake.deriver.run_until_idle()
            return
        with self.target.client() as client:
            workspaces = (
                [workspace] if workspace is not None else list_workspaces(client, self.namespace)
            )
            self._poll(client, workspaces)

    def _poll(self, client: httpx.Client, workspaces: list[str]) -> None:
        start = self._clock()
        deadline = start + self.timeout
        delay = self.first_delay
        idle_since: dict[str, float] = {}
        last: dict[str, dict[str, Any] | None] = {}
        waiting = list(workspaces)
        while True:
            now = self._clock()
            for ws in waiting:
                last[ws] = _queue_status(client, ws)
                if _busy(last[ws]):
                    idle_since.pop(ws, None)
                else:
                    idle_since.setdefault(ws, now)
            waiting = [ws for ws in waiting if now - idle_since.get(ws, now) < self.quiet]
            if not waiting:
                return
            if all(ws in idle_since for ws in waiting):
                delay = min(delay, self.quiet - (now - min(idle_since[ws] for ws in waiting)))
            if self._clock() + delay > deadline:
                raise SettleTimeout(self._timeout_message(waiting, last))
            self._sleep(delay)
            delay = min(delay * 2, self.max_delay)

    def _timeout_message(self, waiting: list[str], last: dict[str, dict[str, Any] | None]) -> str:
        counts = {
            ws: {
                key: (last[ws] or {}).get(f"{key}_work_units", 0)
                for key in ("pending", "in_progress", "completed")
            }
            for ws in waiting
        }
        held = any(c["pending"] and not c["in_progress"] for c in counts.values())
        return f"deriver still busy after {self.timeout:g}s: {counts}" + (GATE_HINT if held else "")
