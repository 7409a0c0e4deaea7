"""Benchmark 5: memory the fake needs to hold a large conversation store.

Measured with ``tracemalloc`` (Python allocations, so the figure is not blurred by the
allocator's free lists or by other benchmarks run earlier in the process). A throw-away
fake first takes one batch, so module imports and caches are not billed to the store;
then tracing starts, a fresh fake is built and the messages are stored through the
messages route. The baseline is the raw size of what was stored: the UTF-8 bytes of
the message content. Each part of the store is weighed by what forgetting it gives
back, so the parts' shares are visible side by side.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable

from bench.corpus import conversation
from bench.harness import Settings
from bench.report import Table, fmt_bytes, fmt_ratio, verdict
from bench.workload import PEERS, WORKSPACE, check, new_fake, seed_messages, transport_client

MAX_RATIO = 3.0


def _warm_up(contents: tuple[str, ...]) -> None:
    fake = new_fake()
    try:
        with transport_client(fake) as client:
            seed_messages(client, "warm-up", contents[:100])
    finally:
        fake.close()


def _freed(forget: Callable[[], None]) -> int:
    """Traced bytes that ``forget()`` gives back."""
    before = tracemalloc.get_traced_memory()[0]
    forget()
    gc.collect()
    return before - tracemalloc.get_traced_memory()[0]


SINGLE_WRITES = 2_000


def _journal_of_single_writes(contents: tuple[str, ...]) -> tuple[int, int]:
    """(journal bytes, raw content bytes) after writing ``contents`` a message per request,
    as an agent turn often does (each request's own framing is journaled per message)."""
    raw = sum(len(content.encode()) for content in contents)
    tracemalloc.start()
    try:
        fake = new_fake()
        try:
            path = f"/v3/workspaces/{WORKSPACE}/sessions/one-by-one/messages"
            with transport_client(fake) as client:
                for index, content in enumerate(contents):
                    message = {"peer_id": PEERS[index % 2], "content": content}
                    check(client.post(path, json={"messages": [message]}))
            gc.collect()
            return _freed(fake.requests.clear), raw
        finally:
            fake.close()
    finally:
        tracemalloc.stop()


def run(settings: Settings) -> list[Table]:
    # Late, as new_fake imports the fake.
    from fake_honcho.http.render_memo import render_memo
    from fake_honcho.search.index import SearchIndex
    from fake_honcho.store.message_index import MessageIndex

    count = 5_000 if settings.quick else 100_000
    contents = conversation(count)
    raw = sum(len(content.encode()) for content in contents)
    _warm_up(contents)
    gc.collect()
    tracemalloc.start()
    try:
        fake = new_fake()
        try:
            with transport_client(fake) as client:
                seed_messages(client, WORKSPACE, contents)
                # Writes leave indexing to the next query: one search bills the index too.
                check(client.post(f"/v3/workspaces/{WORKSPACE}/search", json={"query": "tea"}))
            gc.collect()
            retained, peak = tracemalloc.get_traced_memory()
            # Each part is what forgetting it gives back, in this order: content the
            # journal shares with rows is billed to the rows, and the rows go last, so
            # each index is weighed alone.
            parts = [
                ("the request journal", _freed(fake.requests.clear)),
                ("the render memo", _freed(render_memo(fake.store).clear)),
                ("the search index (HS)", _freed(lambda: fake.store.detach(SearchIndex))),
                ("the deriver queue", _freed(fake.deriver.reset)),
                ("per-session message order", _freed(lambda: fake.store.detach(MessageIndex))),
                ("rows (and the grouping indexes)", _freed(fake.store.clear)),
            ]
        finally:
            fake.close()
    finally:
        tracemalloc.stop()
    table = Table(
        f"5. Memory: the fake holding {count:,} messages (baseline: raw content bytes)",
        ["measure", "bytes", "per message", "vs raw content", "target", "result"],
    )

    def row(label: str, size: float, target: str = "-", ok: bool | None = None) -> None:
        table.add(
            label,
            fmt_bytes(size),
            fmt_bytes(size / count),
            fmt_ratio(size / raw),
            target,
            verdict(ok),
        )

    row("raw content (UTF-8)", raw)
    row("retained after load", retained)
    for label, size in parts:
        row(f"  of which {label}", size)
    rest = retained - sum(size for _label, size in parts)
    row("  the rest: process-wide caches (search tokens), fixed costs", rest)
    # The target is set for 100,000 messages; at 5,000 the fixed cost of the search
    # vocabulary dominates, so quick mode reports the figure without a verdict.
    judged = None if settings.quick else peak / raw < MAX_RATIO
    row("peak while loading", peak, f"< {MAX_RATIO:.0f}x at 100,000", judged)
    single, single_raw = _journal_of_single_writes(contents[:SINGLE_WRITES])
    table.add(
        f"request journal, a message per request ({SINGLE_WRITES:,})",
        fmt_bytes(single),
        fmt_bytes(single / SINGLE_WRITES),
        fmt_ratio(single / single_raw),
        "-",
        verdict(None),
    )
    table.notes += [
        "tracemalloc peak of everything the fake allocates (rows, indexes, deriver queue, "
        "request journal, render memo), loaded in batches of 100 through fake.transport(), "
        "deriver='manual', then one search (writes leave the last of the indexing to the next "
        "query, so the whole search index is built and counted).",
        "Each part is the memory that forgetting it gives back, in the order listed; the rows "
        "include their content (shared with the journal), ids, timestamps and counts.",
        "The journal (fake.requests) keeps every request body by default; "
        "FakeHoncho(journal_limit=N) bounds it. Its last row is measured apart: the first "
        f"{SINGLE_WRITES:,} messages written one per request to one session.",
    ]
    if settings.quick:
        table.notes.append("Quick mode: 5,000 messages; the target is set for 100,000.")
    return [table]
