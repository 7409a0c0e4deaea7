"""Benchmark 5: memory the fake needs to hold a large conversation store.

Measured with ``tracemalloc`` (Python allocations, so the figure is not blurred by the
allocator's free lists or by other benchmarks run earlier in the process): tracing starts
just before the fake is built and the messages are stored through the messages route.
The baseline is the raw size of what was stored, the UTF-8 bytes of message content.
"""

from __future__ import annotations

import gc
import tracemalloc

from bench.corpus import conversation
from bench.harness import Settings
from bench.report import Table, fmt_bytes, fmt_ratio, verdict
from bench.workload import WORKSPACE, new_fake, seed_messages, transport_client

MAX_RATIO = 3.0


def run(settings: Settings) -> list[Table]:
    count = 10_000 if settings.quick else 100_000
    contents = conversation(count)
    raw = sum(len(content.encode()) for content in contents)
    gc.collect()
    tracemalloc.start()
    try:
        fake = new_fake()
        try:
            with transport_client(fake) as client:
                seed_messages(client, WORKSPACE, contents)
            gc.collect()
            retained, peak = tracemalloc.get_traced_memory()
        finally:
            fake.close()
    finally:
        tracemalloc.stop()
    table = Table(
        f"5. Memory: the fake holding {count:,} messages (baseline: raw content bytes)",
        ["measure", "bytes", "per message", "vs raw content", "target", "result"],
    )
    table.add("raw content (UTF-8)", fmt_bytes(raw), fmt_bytes(raw / count), "1.00x", "-", "-")
    table.add(
        "retained after load",
        fmt_bytes(retained),
        fmt_bytes(retained / count),
        fmt_ratio(retained / raw),
        "-",
        verdict(None),
    )
    table.add(
        "peak while loading",
        fmt_bytes(peak),
        fmt_bytes(peak / count),
        fmt_ratio(peak / raw),
        f"< {MAX_RATIO:.0f}x",
        verdict(peak / raw < MAX_RATIO),
    )
    table.notes.append(
        "tracemalloc peak of everything the fake allocates (rows, indexes, request journal), "
        "loaded in batches of 100 through fake.transport()."
    )
    if settings.quick:
        table.notes.append("Quick mode: 10,000 messages; the target is set for 100,000.")
    return [table]
