"""Measure how long an event loop stays unresponsive while a coroutine runs."""

from __future__ import annotations

import asyncio
import contextlib
import time
from types import TracebackType

__all__ = ["LoopLagProbe"]


class LoopLagProbe:
    """``async with LoopLagProbe() as probe: await work()``; then ``probe.max_lag``.

    A ticker task sleeps ``interval`` seconds in a loop; ``max_lag`` is the worst
    delay beyond ``interval`` between two wake-ups, i.e. the longest time the loop
    could not run other tasks. A coroutine that does blocking I/O on the loop makes
    it at least as long as that I/O.
    """

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.max_lag = 0.0
        self.ticks = 0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(self.interval)
            self.max_lag = max(self.max_lag, time.perf_counter() - before - self.interval)
            self.ticks += 1

    async def __aenter__(self) -> LoopLagProbe:
        self._task = asyncio.create_task(self._tick())
        await asyncio.sleep(0)  # let the ticker take its first timestamp
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._task is not None
        # One more turn so a tick that was due during the work records its lag.
        await asyncio.sleep(self.interval * 2)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
