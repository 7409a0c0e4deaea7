"""Timing: warm-up, calibrated batches, interleaved repeats, medians.

A *batch* is a callable ``run(n)`` that performs the operation ``n`` times. Sync and
async operations both become batches (an async batch awaits ``n`` calls inside one
``run_until_complete``), so one timing loop serves both. Candidates that are compared
with each other are timed in interleaved rounds: a slow spell on a shared machine then
hits every candidate instead of skewing one ratio.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from time import perf_counter_ns, process_time_ns

Batch = Callable[[int], object]


@dataclass(frozen=True)
class Settings:
    """Sizes and repeat counts: ``quick`` trades precision for a run under a minute.

    ``honcho_url`` (and its key, kept out of the repr) adds a real server's column to
    the benchmarks that compare against one.
    """

    quick: bool = False
    honcho_url: str | None = None
    honcho_api_key: str | None = field(default=None, repr=False)

    @property
    def repeats(self) -> int:
        return 5 if self.quick else 15

    @property
    def round_ns(self) -> int:
        """Target duration of one timed batch (the batch size is calibrated to it)."""
        return 15_000_000 if self.quick else 60_000_000


@dataclass(frozen=True)
class Timing:
    """Nanoseconds per operation for each repeat: wall clock and process CPU time.

    The wall-clock median is the reported figure. The CPU median (every thread of the
    process, so a server thread counts too) shows the code's own cost when a shared
    machine is busy and wall time mostly measures waiting for a core.
    """

    samples: tuple[float, ...]
    cpu_samples: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu_samples)

    @property
    def spread(self) -> float:
        """Relative interquartile range, a quick noise indicator."""
        return (self.slow - self.fast) / self.median

    @property
    def fast(self) -> float:
        """The faster quartile (the fastest sample below four): the low end of the noise."""
        if len(self.samples) < 4:
            return min(self.samples)
        return statistics.quantiles(self.samples, n=4)[0]

    @property
    def slow(self) -> float:
        """The slower quartile (the slowest sample below four): the high end of the noise."""
        if len(self.samples) < 4:
            return max(self.samples)
        return statistics.quantiles(self.samples, n=4)[2]


def ratios(top: Timing, bottom: Timing) -> tuple[float, float]:
    """``top / bottom``: the medians' ratio, and the lowest the noise allows (the faster
    quartile of ``top`` over the slower one of ``bottom``), for :func:`bench.report.verdict`."""
    return top.median / bottom.median, top.fast / bottom.slow


def repeat_sync(call: Callable[[], object]) -> Batch:
    def run(n: int) -> None:
        for _ in range(n):
            call()

    return run


def repeat_async(loop: asyncio.AbstractEventLoop, call: Callable[[], Awaitable[object]]) -> Batch:
    async def many(n: int) -> None:
        for _ in range(n):
            await call()

    def run(n: int) -> None:
        loop.run_until_complete(many(n))

    return run


def _time(batch: Batch, n: int) -> tuple[float, float]:
    """Wall and CPU nanoseconds per call over a batch of ``n`` calls."""
    cpu, start = process_time_ns(), perf_counter_ns()
    batch(n)
    wall = perf_counter_ns() - start
    return wall / n, (process_time_ns() - cpu) / n


def calibrate(batch: Batch, round_ns: int, *, limit: int = 100_000) -> int:
    """How many calls make one timed round last about ``round_ns`` (after a warm-up call)."""
    batch(1)
    n = 1
    while True:
        per_call, _cpu = _time(batch, n)
        if per_call * n * 4 >= round_ns or n >= limit:
            return max(1, min(limit, int(round_ns / max(per_call, 1.0))))
        n *= 4


def compare(batches: Mapping[str, Batch], settings: Settings) -> dict[str, Timing]:
    """Time every batch in interleaved rounds; each keeps its own calibrated batch size."""
    sizes = {name: calibrate(batch, settings.round_ns) for name, batch in batches.items()}
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in batches}
    for _ in range(settings.repeats):
        for name, batch in batches.items():
            gc.collect()
            samples[name].append(_time(batch, sizes[name]))
    return {
        name: Timing(tuple(wall for wall, _ in pairs), tuple(cpu for _, cpu in pairs))
        for name, pairs in samples.items()
    }


def measure(batch: Batch, settings: Settings) -> Timing:
    return compare({"only": batch}, settings)["only"]


def latencies(call: Callable[[], object], count: int) -> Timing:
    """Wall and CPU nanoseconds of each of ``count`` single calls (latency distributions)."""
    pairs = [_time(repeat_sync(call), 1) for _ in range(count)]
    return Timing(tuple(wall for wall, _ in pairs), tuple(cpu for _, cpu in pairs))
