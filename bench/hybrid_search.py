"""Benchmark 9: hybrid search (``EMBED_MESSAGES`` on, Honcho's default) and what it costs.

Two fakes hold the same messages through the messages route, one with embeddings on and
one with them off. The floor is the full-text search of the fake with them off, timed in
the same run on the same store and queries; the hybrid search adds the semantic leg (every
message of the workspace ranked by embedding distance) and the fusion. Memory: the traced
bytes a fake holds per stored message (and searched once, which writes the embeddings),
embeddings on against off. A dense user-supplied embedder (a 256-dimension function of
the text) is timed beside the default hashed one.
"""

from __future__ import annotations

import gc
import hashlib
import secrets
import struct
import time
import tracemalloc
from contextlib import suppress
from typing import Any

import httpx

from bench.corpus import TextGenerator, conversation
from bench.harness import Settings, Timing, latencies, ratios
from bench.report import Table, fmt_bytes, fmt_duration, fmt_quartiles, fmt_ratio, verdict
from bench.workload import WORKSPACE, check, new_fake, seed_messages, transport_client

MAX_FLOOR_RATIO = 2.0
MAX_MEDIAN_NS = 10_000_000
MAX_MEMORY_RATIO = 2.0
SEARCH_PATH = f"/v3/workspaces/{WORKSPACE}/search"
DENSE_DIMENSIONS = 256
SETTLE_SECONDS = 900
REAL_QUERIES = 20
"""A real server's search over 100,000 messages takes seconds: it is timed on the first
queries only, and set against the fakes' timings of the same queries."""
FLOOR = "full text (floor)"
HYBRID = "hybrid"


def dense_embedder(text: str) -> list[float]:
    """A stand-in for a user's model: 256 pseudo-random floats per text."""
    raw = hashlib.shake_256(text.encode()).digest(DENSE_DIMENSIONS * 2)
    return [value / 32768 for value in struct.unpack(f"<{DENSE_DIMENSIONS}h", raw)]


def _queries(count: int) -> list[dict[str, object]]:
    text = TextGenerator(seed=29)
    return [{"query": text.query(), "limit": 10} for _ in range(count)]


def _timed(
    client: httpx.Client, bodies: list[dict[str, object]], path: str = SEARCH_PATH
) -> Timing:
    pending = iter(bodies)
    return latencies(lambda: check(client.post(path, json=next(pending))), len(bodies))


def _store(contents: tuple[str, ...], **options: Any) -> tuple[Any, httpx.Client]:
    fake = new_fake(**options)
    client = transport_client(fake)
    seed_messages(client, WORKSPACE, contents)
    check(client.post(SEARCH_PATH, json={"query": "warm", "limit": 1}))  # index, embed
    return fake, client


def _search_rows(
    table: Table, size: int, contents: tuple[str, ...], count: int
) -> dict[str, Timing]:
    queries = _queries(count)
    timings: dict[str, Timing] = {}
    for label, options in (
        (FLOOR, {"embed_messages": False}),
        (HYBRID, {}),
        ("hybrid, dense embedder", {"embedder": dense_embedder}),
    ):
        if label.endswith("dense embedder") and size > 10_000:
            continue  # its pure-Python distances make the largest store minutes long
        fake, client = _store(contents[:size], **options)
        try:
            _timed(client, queries[:10])  # warm-up
            timings[label] = _timed(client, queries)
        finally:
            client.close()
            fake.close()
    floor = timings[FLOOR]
    for label, timing in timings.items():
        ratio, best = ratios(timing, floor)
        target, met, noisy = "-", None, False
        if label == HYBRID and size <= 1_000:
            target = f"≤ {MAX_FLOOR_RATIO:.0f}x floor"
            met, noisy = ratio <= MAX_FLOOR_RATIO, best <= MAX_FLOOR_RATIO
        elif label == HYBRID:
            target = f"≤ {fmt_duration(MAX_MEDIAN_NS)}"
            met, noisy = timing.median <= MAX_MEDIAN_NS, timing.fast <= MAX_MEDIAN_NS
        table.add(
            f"{size:,}",
            label,
            fmt_duration(timing.median),
            fmt_quartiles(timing),
            fmt_duration(timing.cpu_median),
            fmt_ratio(ratio) if label != FLOOR else "(floor)",
            target,
            verdict(met, within_noise=noisy),
        )
    return timings


def _real_row(
    table: Table,
    settings: Settings,
    contents: tuple[str, ...],
    count: int,
    fake: dict[str, Timing],
) -> None:
    """The same workspace on a real Honcho: seeded as the fakes are, searched with the
    first :data:`REAL_QUERIES` queries once its embeddings have settled, then deleted."""
    assert settings.honcho_url is not None
    headers = (
        {"Authorization": f"Bearer {settings.honcho_api_key}"} if settings.honcho_api_key else {}
    )
    workspace = f"bench-hybrid-{secrets.token_hex(4)}"
    path = f"/v3/workspaces/{workspace}/search"
    queries = _queries(count)[:REAL_QUERIES]
    with httpx.Client(base_url=settings.honcho_url, headers=headers, timeout=600) as real:
        try:
            seeded = time.monotonic()
            seed_messages(real, workspace, contents)
            seeded = time.monotonic() - seeded
            waited = _settle(real, path, queries[0])
            _timed(real, queries[:2], path)  # warm-up
            timing = _timed(real, queries, path)
        finally:
            _delete_workspace(real, workspace)
    same = {
        label: Timing(t.samples[: len(queries)], t.cpu_samples[: len(queries)])
        for label, t in fake.items()
    }
    table.add(
        f"{len(contents):,}",
        f"real Honcho ({settings.honcho_url})",
        fmt_duration(timing.median),
        fmt_quartiles(timing),
        "-",
        fmt_ratio(timing.median / same[FLOOR].median),
        "-",
        verdict(None),
    )
    table.notes.append(
        f"Real Honcho over the fake's hybrid search at {len(contents):,} messages, on the same "
        f"first {len(queries)} queries: {fmt_ratio(timing.median / same[HYBRID].median)} "
        f"(real {fmt_duration(timing.median)}, fake {fmt_duration(same[HYBRID].median)}; medians); "
        f"its 'vs floor' is against the fake's full-text search on those queries."
    )
    table.notes.append(
        f"Real Honcho: a fresh workspace ({workspace}) seeded through the API with the "
        f"same {len(contents):,} messages in {seeded:.0f} s, searched once its answers stopped "
        f"changing ({waited:.0f} s after the writes: the server embeds in the background), then "
        "deleted. Same machine, loopback; the fake's rows above are in-process."
    )


def _settle(client: httpx.Client, path: str, probe: dict[str, object]) -> float:
    """Seconds until three answers in a row to ``probe``, 5 s apart, are the same (the
    embeddings written behind the writes change them until then; at most 15 minutes)."""
    started = time.monotonic()
    seen: list[object] = []
    while time.monotonic() - started < SETTLE_SECONDS:
        seen.append([row["id"] for row in check(client.post(path, json=probe)).json()])
        if len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3]:
            break
        time.sleep(5)
    return time.monotonic() - started


def _delete_workspace(client: httpx.Client, workspace: str) -> None:
    """Best effort: the sessions first (a workspace with sessions is refused), then the
    workspace, retried while the server finishes deleting them."""
    with suppress(httpx.HTTPError):
        listed = client.post(
            f"/v3/workspaces/{workspace}/sessions/list", json={}, params={"size": 100}
        )
        for session in listed.json().get("items", []):
            client.delete(f"/v3/workspaces/{workspace}/sessions/{session['id']}")
        for _ in range(20):
            if client.delete(f"/v3/workspaces/{workspace}").status_code < 300:
                return
            time.sleep(3)


def _traced_per_message(contents: tuple[str, ...], **options: Any) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        fake, client = _store(contents, **options)
        try:
            gc.collect()
            return tracemalloc.get_traced_memory()[0] / len(contents)
        finally:
            client.close()
            fake.close()
    finally:
        tracemalloc.stop()


def run(settings: Settings) -> list[Table]:
    sizes = (1_000, 10_000) if settings.quick else (1_000, 100_000)
    contents = conversation(sizes[-1])
    count = 40 if settings.quick else 200
    table = Table(
        "9. Hybrid search (embeddings on) against the same-run full-text floor",
        [
            "stored messages",
            "search",
            "median",
            "quartiles",
            "CPU median",
            "vs floor",
            "target",
            "result",
        ],
    )
    largest: dict[str, Timing] = {}
    for size in sizes:
        largest = _search_rows(table, size, contents, count)
    if settings.honcho_url:
        _real_row(table, settings, contents, count, largest)
    weighed = contents[: 2_000 if settings.quick else 10_000]
    # Tokenizers and the per-process caches (token counts by word: bounded, not per
    # message) fill outside the tracing, or the first store traced would carry them alone.
    fake, client = _store(weighed, embed_messages=False)
    client.close()
    fake.close()
    off = _traced_per_message(weighed, embed_messages=False)
    on = _traced_per_message(weighed)
    table.add(
        f"{len(weighed):,}",
        "memory per message, on / off",
        f"{fmt_bytes(on)} / {fmt_bytes(off)}",
        "-",
        "-",
        fmt_ratio(on / off),
        f"≤ {MAX_MEMORY_RATIO:.0f}x",
        verdict(on / off <= MAX_MEMORY_RATIO),
    )
    table.notes += [
        f"{count} queries of 1-3 content words, limit 10, over one workspace; through "
        "fake.transport(). The floor: the same queries on a fake with embeddings off.",
        "The dense embedder row (256 pseudo-random floats per text, as a small model "
        "gives) shows what a user-supplied model costs; its vectors are computed once "
        "per message, its distances in pure Python.",
        "Memory: tracemalloc's traced bytes per stored message (store, indexes, journal, "
        "embeddings), one search after the writes.",
    ]
    if settings.quick:
        table.notes.append("Quick mode: 10,000 messages instead of 100,000.")
    return [table]
