"""Wait until derived data (representations, summaries) is ready; never a fixed sleep."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from contract_tests.namespace import list_workspaces
from contract_tests.target import HonchoTarget

__all__ = ["SettleTimeout", "Settler"]


class SettleTimeout(TimeoutError):
    """The deriver queue did not drain before the deadline."""


def _queue_busy(client: httpx.Client, workspace: str) -> bool:
    response = client.get(f"/v3/workspaces/{workspace}/queue/status")
    if response.status_code == 404:
        return False
    response.raise_for_status()
    status = response.json()
    return bool(status.get("pending_work_units", 0) or status.get("in_progress_work_units", 0))


class Settler:
    """``settle(workspace=None)``: on the fake, run the deriver to idle; on a real server,
    poll ``GET /v3/workspaces/{ws}/queue/status`` with exponential back-off until no work
    is pending or in progress, or raise :class:`SettleTimeout` at the deadline.

    ``workspace=None`` settles every workspace under the test's namespace prefix (backends
    may derive several workspaces from it, e.g. one per user).
    """

    def __init__(
        self,
        target: HonchoTarget,
        namespace: str,
        *,
        timeout: float = 60.0,
        first_delay: float = 0.05,
        max_delay: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.target = target
        self.namespace = namespace
        self.timeout = timeout
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
        deadline = self._clock() + self.timeout
        delay = self.first_delay
        busy = [ws for ws in workspaces if _queue_busy(client, ws)]
        while busy:
            if self._clock() + delay > deadline:
                raise SettleTimeout(
                    f"deriver still busy after {self.timeout:g}s in workspace(s) {busy}"
                )
            self._sleep(delay)
            delay = min(delay * 2, self.max_delay)
            busy = [ws for ws in busy if _queue_busy(client, ws)]
