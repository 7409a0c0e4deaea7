"""Benchmark 3b: requests in one workspace while other workspaces fill the store.

Our backend keeps one workspace per user, so a long-lived fake (the dev server, a
large suite) holds many workspaces, and a request about one of them should not pay
for the others. Two fakes hold the same workspace; one also holds other workspaces
(three sessions of two messages each). The baseline is the same request on the fake
without them.
"""

from __future__ import annotations

from contextlib import ExitStack

from bench.harness import Settings, compare, ratios, repeat_sync
from bench.report import Table, fmt_duration, fmt_ratio, verdict
from bench.workload import Operation, check, new_fake, sync_call, transport_client

MAX_GROWTH = 2.0
HOT = "/v3/workspaces/hot"


def _batch(text: str) -> dict[str, object]:
    """A turn: alice says ``text``, bob answers."""
    return {
        "messages": [{"peer_id": "alice", "content": text}, {"peer_id": "bob", "content": "ok"}]
    }


OPERATIONS = [
    Operation("get-or-create session", "POST", f"{HOT}/sessions", lambda: {"id": "s0"}),
    Operation("page of messages", "POST", f"{HOT}/sessions/s0/messages/list", lambda: None),
    Operation("workspace search", "POST", f"{HOT}/search", lambda: {"query": "tea"}),
    Operation(
        "peer-perspective search",
        "POST",
        f"{HOT}/search",
        lambda: {"query": "tea", "filters": {"peer_perspective": "bob"}},
    ),
    Operation("session context", "GET", f"{HOT}/sessions/s0/context", lambda: None),
    Operation("peer chat", "POST", f"{HOT}/peers/alice/chat", lambda: {"query": "likes?"}),
    Operation("list sessions", "POST", f"{HOT}/sessions/list", lambda: None),
    Operation("list peers", "POST", f"{HOT}/peers/list", lambda: None),
    Operation("a peer's sessions", "POST", f"{HOT}/peers/alice/sessions", lambda: None),
    # Last, so the reads above see both stores as they were filled.
    Operation("2-message batch", "POST", f"{HOT}/sessions/s0/messages", lambda: _batch("more tea")),
]


def run(settings: Settings) -> list[Table]:
    others = 200 if settings.quick else 2_000
    table = Table(
        f"3b. Neighbour workspaces: one workspace's requests with {others:,} other "
        "workspaces stored (baseline: no others)",
        ["operation", "no others", f"{others:,} others", "vs baseline", "target", "result"],
    )
    with ExitStack() as stack:
        clients = {}
        for name, count in (("alone", 0), ("crowded", others)):
            fake = new_fake()
            stack.callback(fake.close)
            client = clients[name] = stack.enter_context(transport_client(fake))
            for index in range(count):
                for session in range(3):
                    path = f"/v3/workspaces/w{index}/sessions/s{session}/messages"
                    check(client.post(path, json=_batch(f"green tea {index}")))
            check(client.post(f"{HOT}/sessions/s0/messages", json=_batch("I like green tea")))
        for op in OPERATIONS:
            batches = {name: repeat_sync(sync_call(client, op)) for name, client in clients.items()}
            timings = compare(batches, settings)
            alone, crowded = timings["alone"].median, timings["crowded"].median
            growth, best = ratios(timings["crowded"], timings["alone"])
            table.add(
                op.name,
                fmt_duration(alone),
                fmt_duration(crowded),
                fmt_ratio(crowded / alone),
                f"≤ {MAX_GROWTH:.0f}x",
                verdict(growth <= MAX_GROWTH, within_noise=best <= MAX_GROWTH),
            )
    table.notes += [
        "Each other workspace holds three sessions of two messages between two peers; "
        "deriver='manual'; through fake.transport().",
        "Requests that scanned every workspace's rows grew with the store before grouping.py "
        "(a peer's sessions 4.7x, chat 7.6x at 2,000 others).",
    ]
    return [table]
