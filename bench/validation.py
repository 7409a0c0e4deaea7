"""Benchmark 2: what request-body validation costs, on and off, same operations.

Both fakes are driven through ``fake.transport()``; the baseline is
``FakeHoncho(validate=False)``, which skips request validation entirely.
"""

from __future__ import annotations

from contextlib import ExitStack

from bench.corpus import TextGenerator
from bench.harness import Settings, compare, ratios, repeat_sync
from bench.report import Table, fmt_duration, fmt_ratio, verdict
from bench.workload import new_fake, operations, seed_read_workspace, sync_call, transport_client

MAX_OVERHEAD = 1.3


def run(settings: Settings) -> list[Table]:
    table = Table(
        "2. Validation cost (baseline: FakeHoncho(validate=False))",
        [
            "operation",
            "validate=True",
            "validate=False",
            "on / off",
            "CPU on / off",
            "target",
            "result",
        ],
    )
    text = TextGenerator(seed=12)
    with ExitStack() as stack:
        clients = {}
        for validate in (True, False):
            fake = new_fake(validate=validate)
            stack.callback(fake.close)
            client = stack.enter_context(transport_client(fake))
            seed_read_workspace(client, text)
            clients[validate] = client
        for op in operations(text):
            timings = compare(
                {str(flag): repeat_sync(sync_call(client, op)) for flag, client in clients.items()},
                settings,
            )
            on, off = timings["True"].median, timings["False"].median
            ratio, best = ratios(timings["True"], timings["False"])
            table.add(
                op.name,
                fmt_duration(on),
                fmt_duration(off),
                fmt_ratio(on / off),
                fmt_ratio(timings["True"].cpu_median / timings["False"].cpu_median),
                f"≤ {MAX_OVERHEAD}x",
                verdict(ratio <= MAX_OVERHEAD, within_noise=best <= MAX_OVERHEAD),
            )
    table.notes.append(
        "Whole-request time through fake.transport(); the batch is 10 messages of ~700 bytes."
    )
    return [table]
