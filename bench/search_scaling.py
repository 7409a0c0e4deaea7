"""Benchmark 3: workspace search latency as the store grows.

One fake is filled step by step (1,000 -> 10,000 -> 100,000 messages, in sessions of
1,000) through the messages route, and at each size the same seeded queries are sent
through ``fake.transport()``. The baseline is the smallest size: latency should stay
nearly flat because an inverted index, not a scan, answers the query. The index
takes in new messages on the first query after them (or when its pending list fills),
so that query's latency is reported on its own: it carries the indexing the writes
skipped.
"""

from __future__ import annotations

import statistics

import httpx

from bench.corpus import TextGenerator, conversation
from bench.harness import Settings, Timing, latencies
from bench.report import Table, fmt_duration, fmt_ratio, verdict
from bench.workload import WORKSPACE, check, new_fake, seed_messages, transport_client

MAX_MEDIAN_NS = 5_000_000
MAX_GROWTH = 5.0
SEARCH_PATH = f"/v3/workspaces/{WORKSPACE}/search"


def sizes(settings: Settings) -> tuple[int, ...]:
    return (1_000, 3_000, 10_000) if settings.quick else (1_000, 10_000, 100_000)


def _latencies(client: httpx.Client, bodies: list[dict[str, object]]) -> Timing:
    pending = iter(bodies)
    return latencies(lambda: check(client.post(SEARCH_PATH, json=next(pending))), len(bodies))


def run(settings: Settings) -> list[Table]:
    table = Table(
        "3. Search scaling (baseline: the smallest store)",
        [
            "stored messages",
            "first query",
            "median",
            "p90",
            "vs smallest",
            "CPU median",
            "target",
            "result",
        ],
    )
    from fake_honcho.search import PENDING_LIMIT  # late, as new_fake imports the fake

    steps = sizes(settings)
    contents = conversation(steps[-1])
    text = TextGenerator(seed=13)
    queries: list[dict[str, object]] = [
        {"query": text.query(), "limit": 10} for _ in range(60 if settings.quick else 300)
    ]
    fallback: list[dict[str, object]] = [
        {"query": str(q["query"]).split()[0] + "?", "limit": 10} for q in queries[:20]
    ]
    fake = new_fake()
    baseline = 0.0
    try:
        with transport_client(fake) as client:
            stored = 0
            for size in steps:
                stored += seed_messages(client, WORKSPACE, contents[stored:size], start=stored)
                first = _latencies(client, queries[-1:]).median
                _latencies(client, queries[:20])  # warm-up
                timing = _latencies(client, queries)
                median = timing.median
                p90 = statistics.quantiles(timing.samples, n=10)[-1]
                baseline = baseline or median
                growth = median / baseline
                table.add(
                    f"{size:,}",
                    fmt_duration(first),
                    fmt_duration(median),
                    fmt_duration(p90),
                    fmt_ratio(growth),
                    fmt_duration(timing.cpu_median),
                    f"≤ 5 ms, ≤ {MAX_GROWTH:.0f}x",
                    verdict(
                        median <= MAX_MEDIAN_NS and growth <= MAX_GROWTH,
                        within_noise=timing.fast <= MAX_MEDIAN_NS
                        and timing.fast / baseline <= MAX_GROWTH,
                    ),
                )
            slow = _latencies(client, fallback)
            table.add(
                f"{steps[-1]:,}, punctuation",
                "-",
                fmt_duration(slow.median),
                "-",
                "-",
                fmt_duration(slow.cpu_median),
                "-",
                verdict(None),
            )
    finally:
        fake.close()
    table.notes += [
        f"{len(queries)} queries of 1-3 content words, Zipf-weighted over a 20,000-word "
        "vocabulary without its 100 most frequent words; limit 10; through fake.transport().",
        "Messages average ~690 bytes (user turns ~170, assistant turns ~1,200), sessions of 1,000.",
        "First query: the first search after the writes, which indexes what they left "
        "pending (a write indexes the pending list once it holds "
        f"{PENDING_LIMIT:,} characters); informational, not part of the median.",
        "The punctuation row is the substring fallback (a scan, as on the real server): "
        "informational.",
    ]
    if settings.quick:
        table.notes.append("Quick mode: smaller stores; the targets are set for 100,000.")
    return [table]
