"""Benchmark 1: requests per second through each way of driving the fake.

The baseline is Starlette's ``TestClient`` on the same app, entered as a context
manager (its fastest mode: one blocking portal for every request instead of one per
request). Each client gets its own identically seeded fake so their states match.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import httpx

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; the baseline is TestClient as is.
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from bench.corpus import TextGenerator
from bench.harness import Batch, Settings, Timing, compare, repeat_async, repeat_sync
from bench.report import Table, fmt_duration, fmt_rate, fmt_ratio, verdict
from bench.workload import (
    BASE_URL,
    Operation,
    async_call,
    new_fake,
    operations,
    seed_read_workspace,
    sync_call,
    transport_client,
)

BASELINE = "TestClient (baseline)"
TRANSPORT = "fake.transport()"
CLIENT_FLOOR = "floor: httpx.Client, no app"
SEED = 11
MIN_SPEEDUP = 5.0
MIN_GET_OR_CREATE_PER_SECOND = 2_000

BatchFactory = Callable[[Operation], Batch]


def _clients(stack: ExitStack) -> dict[str, BatchFactory]:
    def fresh_fake() -> Any:
        fake = new_fake()
        stack.callback(fake.close)
        with transport_client(fake) as seeder:
            seed_read_workspace(seeder, TextGenerator(seed=SEED))  # the same rows in each
        return fake

    sync_client = stack.enter_context(transport_client(fresh_fake()))

    loop = asyncio.new_event_loop()
    stack.callback(loop.close)
    async_client = httpx.AsyncClient(transport=fresh_fake().async_transport(), base_url=BASE_URL)
    stack.callback(loop.run_until_complete, async_client.aclose())

    served_url = stack.enter_context(fresh_fake().serve())
    served_client = stack.enter_context(httpx.Client(base_url=served_url))

    test_client = stack.enter_context(TestClient(fresh_fake().app, base_url=BASE_URL))
    per_request_portal = TestClient(fresh_fake().app, base_url=BASE_URL)
    stack.callback(per_request_portal.close)

    # No app at all: what httpx.Client itself costs per request, a floor for every row.
    canned = httpx.MockTransport(lambda request: httpx.Response(200, json={}))
    client_only = stack.enter_context(httpx.Client(transport=canned, base_url=BASE_URL))

    return {
        TRANSPORT: lambda op: repeat_sync(sync_call(sync_client, op)),
        "fake.async_transport()": lambda op: repeat_async(loop, async_call(async_client, op)),
        "fake.serve() + httpx": lambda op: repeat_sync(sync_call(served_client, op)),
        BASELINE: lambda op: repeat_sync(sync_call(test_client, op)),
        "TestClient, no `with`": lambda op: repeat_sync(sync_call(per_request_portal, op)),
        CLIENT_FLOOR: lambda op: repeat_sync(sync_call(client_only, op)),
    }


def _target(op: Operation, client: str) -> tuple[str, Callable[[float, float], bool] | None]:
    if client != TRANSPORT:
        return "-", None
    if op.name.startswith("get-or-create"):
        return (
            f"≥ {MIN_SPEEDUP:.0f}x, ≥ {MIN_GET_OR_CREATE_PER_SECOND:,}/s",
            lambda ratio, ns: ratio >= MIN_SPEEDUP and 1e9 / ns >= MIN_GET_OR_CREATE_PER_SECOND,
        )
    return f"≥ {MIN_SPEEDUP:.0f}x", lambda ratio, _ns: ratio >= MIN_SPEEDUP


def run(settings: Settings) -> list[Table]:
    table = Table(
        "1. Fake throughput (baseline: Starlette TestClient on the same app)",
        [
            "operation",
            "client",
            "median/op",
            "throughput",
            "vs baseline",
            "CPU/op",
            "CPU vs baseline",
            "target",
            "result",
        ],
    )
    text = TextGenerator(seed=SEED)
    shortfalls: list[str] = []
    with ExitStack() as stack:
        clients = _clients(stack)
        for op in operations(text):
            timings = compare({name: make(op) for name, make in clients.items()}, settings)
            baseline = timings[BASELINE]
            shortfalls += _shortfall(op, timings)
            for client, timing in timings.items():
                ratio = baseline.median / timing.median
                target, passes = _target(op, client)
                ok = passes(ratio, timing.median) if passes else None
                table.add(
                    op.name,
                    client,
                    fmt_duration(timing.median),
                    fmt_rate(timing.median),
                    fmt_ratio(ratio),
                    fmt_duration(timing.cpu_median),
                    fmt_ratio(baseline.cpu_median / timing.cpu_median),
                    target,
                    verdict(ok),
                )
    table.notes += [
        "Each client drives its own identically seeded fake (1,000 messages in the read "
        "session); the write batch appends 10 messages (~700 bytes each) per request.",
        "deriver='manual': derivation is queued but not run inside the request, as on a real "
        "server where background workers do it (table 1b shows what 'immediate' adds).",
        "Messages sent before (the seeded page, search hits) are sent from the fake's render "
        "memo, as a read of recent messages is on every agent turn (table 1c: without it).",
        "The baseline TestClient is entered as a context manager, its fastest mode (one "
        "portal thread for all requests); used without `with`, as its docs show, it starts "
        "a portal per request. The floor row sends the same request to a canned response: "
        "httpx.Client's own cost, which every in-process row pays too.",
        f"{settings.repeats} interleaved repeats per cell; medians. Targets are judged on "
        "wall time; CPU/op is the process's CPU time per request (all threads).",
        *shortfalls,
    ]
    return [table, _deriver_cost(settings, text), _memo_effect(settings, text)]


def _shortfall(op: Operation, timings: dict[str, Timing]) -> list[str]:
    """What a missed speed-up would take: the app's time counts in the baseline too.

    The fake's own time is the transport row minus the floor row. Cutting it by ``d``
    cuts TestClient's time by ``d`` as well, so reaching ``MIN_SPEEDUP`` needs
    ``baseline - d >= MIN_SPEEDUP * (transport - d)``.
    """
    transport, baseline = timings[TRANSPORT].median, timings[BASELINE].median
    if baseline >= MIN_SPEEDUP * transport:
        return []
    own = transport - timings[CLIENT_FLOOR].median
    cut = (MIN_SPEEDUP * transport - baseline) / (MIN_SPEEDUP - 1)
    return [
        f"{op.name}: {MIN_SPEEDUP:.0f}x needs the fake's own time per request (transport "
        f"minus floor, {fmt_duration(own)}) to fall by {fmt_duration(cut)} to "
        f"{fmt_duration(max(own - cut, 0))}, as TestClient pays every microsecond of it too."
    ]


def _deriver_cost(settings: Settings, text: TextGenerator) -> Table:
    """What the default ``deriver='immediate'`` adds to a write: informational."""
    batch = operations(text)[-1]
    return _compare_fakes(
        "1b. Toy deriver inside the write request (baseline: deriver='manual')",
        batch,
        {"immediate": new_fake(deriver="immediate"), "manual": new_fake()},
        settings,
    )


def _memo_effect(settings: Settings, text: TextGenerator) -> Table:
    """What the render memo saves on a page read again: informational."""
    from fake_honcho.render_memo import render_memo  # late, as new_fake imports the fake

    page = next(op for op in operations(text) if op.name.startswith("page"))
    memo_off = new_fake()
    render_memo(memo_off.store).limit = 0
    fakes = {"memo off": memo_off, "memo on (default)": new_fake()}
    for fake in fakes.values():
        with transport_client(fake) as seeder:
            seed_read_workspace(seeder, TextGenerator(seed=SEED))
    return _compare_fakes(
        "1c. Render memo: a page read again (baseline: memo on, the default)", page, fakes, settings
    )


def _compare_fakes(title: str, op: Operation, fakes: dict[str, Any], settings: Settings) -> Table:
    """``op`` through ``fake.transport()`` on each of two fakes; the second is the baseline."""
    (first, _), (second, _) = fakes.items()
    table = Table(title, ["operation", first, second, f"{first} / {second}", "target", "result"])
    with ExitStack() as stack:
        batches = {}
        for name, fake in fakes.items():
            stack.callback(fake.close)
            client = stack.enter_context(transport_client(fake))
            batches[name] = repeat_sync(sync_call(client, op))
        timings = compare(batches, settings)
    ratio = timings[first].median / timings[second].median
    table.add(
        f"{op.name}, fake.transport()",
        fmt_duration(timings[first].median),
        fmt_duration(timings[second].median),
        fmt_ratio(ratio),
        "-",
        verdict(None),
    )
    return table
