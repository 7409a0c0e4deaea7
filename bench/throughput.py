"""Benchmark 1: what each request costs through each way of driving the fake.

The baseline is httpx's own floor, measured in the same run: the same request sent
through ``httpx.Client`` to a transport that answers ``{}`` at once (for the
in-process rows), or to a plain uvicorn app that answers ``{}`` (for the served
rows). A row's ratio is how many floors the fake's request costs, which is what a
user's suite feels: nothing the fake does can make a request cheaper than httpx.
Starlette's ``TestClient`` runs the same app and so is only an informational row.
With ``--honcho-url`` a second table times the same operations on a real server.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import warnings
from collections.abc import Callable
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from typing import Any

import httpx
from starlette.types import Receive, Scope, Send

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; the row is TestClient as is.
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from bench.corpus import TextGenerator
from bench.harness import Batch, Settings, compare, ratios, repeat_async, repeat_sync
from bench.report import Table, fmt_duration, fmt_quartiles, fmt_ratio, verdict
from bench.workload import (
    BASE_URL,
    SCOPE,
    WORKSPACE,
    Operation,
    async_call,
    check,
    new_fake,
    operations,
    seed_read_workspace,
    sync_call,
    transport_client,
)

TRANSPORT = "fake.transport()"
ASYNC_TRANSPORT = "fake.async_transport()"
SERVED = "fake.serve() + httpx"
TEST_CLIENT = "TestClient (info)"
FLOOR = "floor: httpx.Client, canned {}"
ASYNC_FLOOR = "floor: httpx.AsyncClient, canned {}"
SERVED_FLOOR = "floor: httpx.Client -> uvicorn {}"
REAL = "real Honcho"
TOKENS = "token counting of its contents (info)"
BATCH = "10-message batch"
SEED = 11

#: Which floor each client is measured against.
FLOOR_OF = {
    TRANSPORT: FLOOR,
    ASYNC_TRANSPORT: ASYNC_FLOOR,
    TEST_CLIENT: FLOOR,
    SERVED: SERVED_FLOOR,
    TOKENS: FLOOR,
}

#: ``fake.transport()`` targets, as multiples of the in-process floor.
MAX_FLOORS = {
    "get-or-create peer": 1.3,
    "get peer card": 1.5,
    "page of 50 messages": 1.45,
    "search (workspace)": 1.5,
    BATCH: 3.0,
}
#: A token count of a 236-character message (a short chat turn), wall-clock median.
MAX_TOKEN_COUNT_NS = 2_000
TOKEN_MESSAGE_LENGTH = 236
PER_WORD_BOUND = "split + a dict lookup a word (info)"
#: ``fake.serve()`` targets, absolute medians on the project's 2-core machines.
MAX_SERVED_NS = {"get-or-create peer": 1_500_000, BATCH: 3_000_000}
#: Against a real Honcho in the same run: how many times faster the fake must be.
MIN_REAL_OVER_TRANSPORT = 10.0
MIN_REAL_OVER_SERVED = 3.0
#: A bare GET costs a real server little more than its HTTP stack: timed, not judged.
UNJUDGED_AGAINST_REAL = {"get peer card"}

BatchFactory = Callable[[Operation], Batch]


@dataclass(frozen=True)
class Target:
    """A row's target: its text for the table and the check on (ratio, median ns)."""

    text: str
    check: Callable[[float, float], bool] | None = None

    def judge(self, ratio: float, median_ns: float, best_ratio: float, best_ns: float) -> str:
        """The verdict on the medians, ``NOISY`` if only the noise's favourable end meets it."""
        if self.check is None:
            return verdict(None)
        return verdict(self.check(ratio, median_ns), within_noise=self.check(best_ratio, best_ns))


def target_for(op_name: str, client: str) -> Target:
    """The target a (operation, client) cell is held to; informational rows have none."""
    if client == TRANSPORT and op_name in MAX_FLOORS:
        most = MAX_FLOORS[op_name]
        return Target(f"≤ {most:g}x floor", lambda ratio, _ns: ratio <= most)
    if client == SERVED and op_name in MAX_SERVED_NS:
        limit = MAX_SERVED_NS[op_name]
        return Target(f"≤ {fmt_duration(limit)}", lambda _ratio, ns: ns <= limit)
    return Target("-")


def _token_counting(op: Operation) -> Batch:
    """The exact token counts of a batch's contents, which a write must compute in-request.

    Honcho answers each stored message with its ``token_count``, so the fake cannot
    defer it; this row shows how much of the batch that is.
    """
    from fake_honcho.store.tokens import token_count  # late, as new_fake imports the fake

    def count() -> object:
        return [token_count(message["content"]) for message in op.body()["messages"]]

    return repeat_sync(count)


def _canned(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={})


async def _plain_app(scope: Scope, receive: Receive, send: Send) -> None:
    """The served floor: an ASGI app that reads the body and answers ``{}``."""
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    headers = [(b"content-type", b"application/json"), (b"content-length", b"2")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"{}"})


def _seeded_fake(stack: ExitStack, **options: Any) -> Any:
    """A fake holding the read workspace; embeddings off, so search is the full-text
    search (table 9 times the hybrid search of embeddings on)."""
    fake = new_fake(**{"embed_messages": False, **options})
    stack.callback(fake.close)
    with transport_client(fake) as seeder:
        seed_read_workspace(seeder, TextGenerator(seed=SEED))  # the same rows in each
    return fake


def _serves_scopes() -> bool:
    """Whether the benchmarked fake's version serves scopes (then scoped reads get rows)."""
    fake = new_fake()
    try:
        with transport_client(fake) as client:
            created = client.post(f"/v3/workspaces/{WORKSPACE}/scopes", json={"id": SCOPE})
            return created.status_code != 404
    finally:
        fake.close()


def _clients(stack: ExitStack) -> dict[str, BatchFactory]:
    from fake_honcho.http.server import serve_in_thread  # late, as new_fake imports the fake

    loop = asyncio.new_event_loop()
    stack.callback(loop.close)

    def async_client(transport: httpx.AsyncBaseTransport) -> httpx.AsyncClient:
        client = httpx.AsyncClient(transport=transport, base_url=BASE_URL)
        stack.callback(loop.run_until_complete, client.aclose())
        return client

    sync_client = stack.enter_context(transport_client(_seeded_fake(stack)))
    fake_async = async_client(_seeded_fake(stack).async_transport())
    served_url = stack.enter_context(_seeded_fake(stack).serve())
    served = stack.enter_context(httpx.Client(base_url=served_url))
    test_client = stack.enter_context(TestClient(_seeded_fake(stack).app, base_url=BASE_URL))
    floor = stack.enter_context(
        httpx.Client(transport=httpx.MockTransport(_canned), base_url=BASE_URL)
    )
    async_floor = async_client(httpx.MockTransport(_canned))
    served_floor = stack.enter_context(
        httpx.Client(base_url=stack.enter_context(serve_in_thread(_plain_app)))
    )
    return {
        FLOOR: lambda op: repeat_sync(sync_call(floor, op)),
        TRANSPORT: lambda op: repeat_sync(sync_call(sync_client, op)),
        ASYNC_FLOOR: lambda op: repeat_async(loop, async_call(async_floor, op)),
        ASYNC_TRANSPORT: lambda op: repeat_async(loop, async_call(fake_async, op)),
        TEST_CLIENT: lambda op: repeat_sync(sync_call(test_client, op)),
        SERVED_FLOOR: lambda op: repeat_sync(sync_call(served_floor, op)),
        SERVED: lambda op: repeat_sync(sync_call(served, op)),
    }


def run(settings: Settings) -> list[Table]:
    table = Table(
        "1. Cost per request (baseline: httpx's own floor, measured in the same run)",
        ["operation", "client", "median/op", "quartiles", "vs floor", "CPU/op", "target", "result"],
    )
    text = TextGenerator(seed=SEED)
    scoped = _serves_scopes()
    with ExitStack() as stack:
        clients = _clients(stack)
        for op in operations(text, scoped=scoped):
            batches = {name: make(op) for name, make in clients.items()}
            if op.name == BATCH:
                batches[TOKENS] = _token_counting(op)
            timings = compare(batches, settings)
            for client, timing in timings.items():
                floor = FLOOR_OF.get(client)
                ratio, best = ratios(timing, timings[floor]) if floor else (1.0, 1.0)
                target = target_for(op.name, client)
                table.add(
                    op.name,
                    client,
                    fmt_duration(timing.median),
                    fmt_quartiles(timing),
                    fmt_ratio(ratio) if floor else "(floor)",
                    fmt_duration(timing.cpu_median),
                    target.text,
                    target.judge(ratio, timing.median, best, timing.fast),
                )
    table.notes += [
        "vs floor: the row's median over its floor's (in-process rows: httpx with a canned "
        "transport; the served row: httpx to a plain uvicorn app answering {}). 1.00x would "
        "mean the fake costs nothing beyond httpx itself.",
        "Scoped reads (search and representation with scope, the read session the scope's "
        "only member) get rows when the fake's version serves scopes (3.1 on; untargeted "
        "until measured).",
        "Each client drives its own identically seeded fake (1,000 messages in the read "
        "session); the batches carry ~700-byte messages.",
        f"{TOKENS}: the exact o200k_base counts of the batch's contents. The corpus's "
        "pseudo-words go through BPE merges, which English words (whole vocabulary entries) "
        "skip: they make 0.32 tokens a character where English prose makes about 0.22, and "
        "on English prose of the same length counting costs about half as much.",
        "The in-process fakes run with embeddings off (embed_messages=False): the search "
        "rows are the full-text search; table 9 times the hybrid search of Honcho's default.",
        "deriver='manual': derivation is queued but not run inside the request, as on a real "
        "server where a separate worker does it (table 1b shows what 'immediate' adds).",
        "Messages sent before (the seeded page, search hits) are sent from the fake's render "
        "memo, as a read of recent messages is on every agent turn (table 1c: without it).",
        f"{settings.repeats} interleaved repeats per cell; medians. Targets are judged on "
        "wall time; CPU/op is the process's CPU time per request (all threads).",
    ]
    tables = [
        table,
        _deriver_cost(settings, text),
        _memo_effect(settings, text),
        _token_count(settings),
    ]
    if settings.honcho_url:
        tables.append(_against_real(settings, settings.honcho_url))
    return tables


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
    from fake_honcho.http.render_memo import render_memo  # late, as new_fake imports the fake

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


def token_messages(count: int = 200) -> list[str]:
    """Chat turns cut to :data:`TOKEN_MESSAGE_LENGTH` characters (at least that long)."""
    text = TextGenerator(seed=SEED)
    found: list[str] = []
    index = 0
    while len(found) < count:
        message = text.message(index)
        index += 1
        if len(message) >= TOKEN_MESSAGE_LENGTH:
            found.append(message[:TOKEN_MESSAGE_LENGTH])
    return found


def _token_count(settings: Settings) -> Table:
    """A token count of one short message: the fake's ``token_count`` against tiktoken's
    own ``encode_ordinary`` (the native encoder it wraps), same texts, same run."""
    from fake_honcho.store.tokens import load, token_count  # late, as new_fake imports the fake

    messages = token_messages()
    encode = load().encode_ordinary
    # What any count by word costs in CPython before it counts anything: cutting the
    # text into words and one dict lookup a word (every word already in the dict).
    lookup = {word: 1 for message in messages for word in message.split(" ")}.__getitem__

    def cycled(count: Callable[[str], object]) -> Batch:
        pending = itertools.cycle(messages)
        return repeat_sync(lambda: count(next(pending)))

    timings = compare(
        {
            "tiktoken encode_ordinary (floor)": cycled(lambda message: len(encode(message))),
            "token_count": cycled(token_count),
            PER_WORD_BOUND: cycled(lambda message: sum(map(lookup, message.split(" ")))),
        },
        settings,
    )
    table = Table(
        f"1e. Token count of a {TOKEN_MESSAGE_LENGTH}-character message "
        "(baseline: tiktoken's own encoder, same run)",
        ["counter", "median", "quartiles", "vs tiktoken", "target", "result"],
    )
    floor = timings["tiktoken encode_ordinary (floor)"]
    for name, timing in timings.items():
        judged = name == "token_count"
        table.add(
            name,
            fmt_duration(timing.median),
            fmt_quartiles(timing),
            fmt_ratio(timing.median / floor.median),
            f"≤ {fmt_duration(MAX_TOKEN_COUNT_NS)}" if judged else "-",
            verdict(
                timing.median <= MAX_TOKEN_COUNT_NS if judged else None,
                within_noise=timing.fast <= MAX_TOKEN_COUNT_NS,
            ),
        )
    table.notes += [
        f"{len(messages)} different chat turns of the corpus, cut to {TOKEN_MESSAGE_LENGTH} "
        "characters, counted in turn (exact o200k_base counts).",
        f"{PER_WORD_BOUND!r} is `sum(map(table.__getitem__, text.split(' ')))` with every word "
        "already in the table: the least a count by word costs in CPython, before the check "
        "that the text may be counted by word. A count under it needs native code.",
    ]
    return table


def _against_real(settings: Settings, url: str) -> Table:
    """The same operations on a real server, interleaved with the fake's two ways in."""
    table = Table(
        f"1d. A real Honcho beside the fake (baseline: the real server at {url})",
        [
            "operation",
            REAL,
            SERVED,
            TRANSPORT,
            "real / served",
            "real / transport",
            "target",
            "result",
        ],
    )
    workspace = f"bench-{secrets.token_hex(4)}"
    headers = (
        {"Authorization": f"Bearer {settings.honcho_api_key}"} if settings.honcho_api_key else {}
    )
    text = TextGenerator(seed=SEED)
    with ExitStack() as stack:
        real = stack.enter_context(httpx.Client(base_url=url, headers=headers, timeout=60))
        stack.callback(_delete_workspace, real, workspace)
        scoped = seed_read_workspace(real, TextGenerator(seed=SEED), workspace)
        fakes = []
        for _ in range(2):
            fake = new_fake()
            stack.callback(fake.close)
            with transport_client(fake) as seeder:
                scoped &= seed_read_workspace(seeder, TextGenerator(seed=SEED), workspace)
            fakes.append(fake)
        transport = stack.enter_context(transport_client(fakes[0]))
        served = stack.enter_context(httpx.Client(base_url=stack.enter_context(fakes[1].serve())))
        clients = {REAL: real, SERVED: served, TRANSPORT: transport}
        for op in operations(text, workspace, scoped=scoped):
            timings = compare(
                {name: repeat_sync(sync_call(client, op)) for name, client in clients.items()},
                settings,
            )
            over_served = timings[REAL].median / timings[SERVED].median
            over_transport = timings[REAL].median / timings[TRANSPORT].median
            judged = op.name not in UNJUDGED_AGAINST_REAL
            table.add(
                op.name,
                fmt_duration(timings[REAL].median),
                fmt_duration(timings[SERVED].median),
                fmt_duration(timings[TRANSPORT].median),
                fmt_ratio(over_served),
                fmt_ratio(over_transport),
                f"≥ {MIN_REAL_OVER_SERVED:g}x, ≥ {MIN_REAL_OVER_TRANSPORT:g}x" if judged else "-",
                verdict(
                    over_served >= MIN_REAL_OVER_SERVED
                    and over_transport >= MIN_REAL_OVER_TRANSPORT
                    if judged
                    else None
                ),
            )
    table.notes += [
        f"One fresh workspace ({workspace}) on the real server, seeded as the fakes are, "
        "and deleted afterwards; the fakes run deriver='manual'.",
        "get peer card is timed but not judged: a bare GET costs a real server little more "
        "than its own HTTP stack, so it says nothing about the fake.",
        "A real server's figures depend on its machine and database; these were taken on "
        "the same machine, loopback only.",
    ]
    return table


def _delete_workspace(client: httpx.Client, workspace: str) -> None:
    """Best effort: a real server may refuse (auth, or deletion not allowed)."""
    with suppress(httpx.HTTPError, RuntimeError):
        check(client.delete(f"/v3/workspaces/{workspace}"))
