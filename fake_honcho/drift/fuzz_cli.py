"""``fake-honcho fuzz --against URL``: the generated differential between a Honcho and the fake.

schemathesis generates requests from the server's own ``/openapi.json``
(:mod:`fake_honcho.drift.fuzz_cases`), valid and invalid, up to ``--per-op`` for each
operation, drawn from ``--seed``. Each goes to the server and to a fresh in-process fake
of the version and configuration the server is probed to serve (``--honcho-version``
overrides the version; embeddings on or off and auth as probed), in the same order, so
what one request leaves behind meets the next on both. What is compared: the status, a
422's error types and locations, any other 4xx's detail. Differences are printed in
groups (operation and both answers), one example each, a declared one naming its register
entry; the last line is ``fuzz: D of T cases differ (U undeclared)``. After a DELETE the
server accepts, the run waits until its deriver has carried the deletion out
(:mod:`fake_honcho.drift.fuzz_settle`; the fake's is done at once), so the next case
meets the same state on both. The run's workspaces are deleted from the server at the end.

Exit status: 0 when nothing undeclared differs, 1 when something does, 2 when the
server cannot be reached or its document cannot be read. The api key is sent, never printed.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import httpx

from fake_honcho.arguments import OneLineParser
from fake_honcho.drift.cleanup import delete_workspaces
from fake_honcho.drift.cli import add_target_arguments, served_as, target_client
from fake_honcho.drift.fuzz import (
    Answer,
    Differential,
    FuzzCase,
    FuzzRecording,
    fake_for,
    render_groups,
    send,
)
from fake_honcho.drift.fuzz_settle import SETTLE_TIMEOUT, Settle, settle_deletion
from fake_honcho.versions import VERSIONS, version_argument

__all__ = ["build_parser", "main"]

PROG = "fake-honcho fuzz"


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        description="Send requests generated from a Honcho server's own OpenAPI document to "
        "it and to the fake; print the answers that differ, grouped.",
    )
    add_target_arguments(parser)
    parser.add_argument(
        "--honcho-version",
        type=version_argument,
        default=None,
        metavar="VERSION",
        help=f"the version the fake speaks: {', '.join(VERSIONS)} "
        "(default: the version the server is probed to serve)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="hypothesis seed (default: a random one, printed)"
    )
    parser.add_argument(
        "--per-op", type=int, default=20, metavar="N", help="requests per operation (20)"
    )
    parser.add_argument(
        "--operation",
        action="append",
        metavar="TEXT",
        help="only operations whose 'METHOD /path' contains TEXT (repeatable; default: all)",
    )
    parser.add_argument(
        "--record",
        metavar="DIR",
        type=Path,
        help="also write the cases and the server's answers to DIR/<version>[+embed]/seed-S.json",
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per request (60)")
    parser.add_argument(
        "--settle-timeout",
        type=float,
        default=SETTLE_TIMEOUT,
        metavar="SECONDS",
        help="after a DELETE the server accepts, wait up to this long for its deriver to "
        f"carry it out before the next case ({SETTLE_TIMEOUT:g})",
    )
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    args = build_parser().parse_args(argv)
    if args.per_op < 1:
        print(f"{PROG}: error: --per-op must be at least 1", file=sys.stderr)
        return 2
    client, shown = target_client(args)
    with client:
        try:
            client.get("/health").raise_for_status()
            document = client.get("/openapi.json").raise_for_status().json()
        except (httpx.HTTPError, ValueError) as error:
            print(
                f"{PROG}: error: {shown} is not a reachable Honcho serving /openapi.json "
                f"({type(error).__name__})",
                file=sys.stderr,
            )
            return 2
        prefix = f"fz{uuid.uuid4().hex[:8]}-"
        try:
            return _run(client, document, args, prefix, shown, out)
        finally:
            delete_workspaces(client, prefix)


def _run(
    client: httpx.Client,
    document: dict[str, object],
    args: argparse.Namespace,
    prefix: str,
    shown: str,
    out: TextIO,
) -> int:
    from fake_honcho.drift.fuzz_cases import GENERATOR, generate, operations

    version, embeds, auth_on = served_as(client, args.honcho_version, shown, out, args.timeout)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    chosen = [
        operation
        for operation in operations(document)
        if not args.operation or any(text in operation.label for text in args.operation)
    ]
    print(
        f"seed {seed}, up to {args.per_op} cases for each of {len(chosen)} operations "
        f"(fake speaking {version}, embeddings {'on' if embeds else 'off'})",
        file=out,
    )
    # All drawn before any is sent: hypothesis also draws text from the constants of the
    # modules loaded so far, and answering loads more of the fake.
    cases = [case for op in chosen for case in generate(op, seed, args.per_op, prefix)]
    real: list[Answer] = []
    settles: list[Settle | None] = []
    with fake_for(version, embeds, auth=auth_on) as fake:
        fake_headers = {"Authorization": f"Bearer {fake.admin_key}"} if auth_on else {}
        with httpx.Client(
            transport=fake.transport(), base_url="http://fake", headers=fake_headers
        ) as fake_client:
            differential = Differential(version, fake, fake_client)
            for case in cases:
                real.append(send(client, case))
                settles.append(settle_deletion(client, case, real[-1], args.settle_timeout))
                differential.step(case, real[-1], settles[-1])
                _report_settle(case, settles[-1], out)
    found = differential.found
    if args.record is not None:
        recording = FuzzRecording(
            shown, version.name, embeds, seed, args.per_op, tuple(cases), tuple(real),
            GENERATOR, tuple(settles),
        )  # fmt: skip
        print(f"recorded {recording.write(args.record)}", file=out)
    for line in render_groups(found):
        print(line, file=out)
    undeclared = sum(1 for difference in found if difference.declared is None)
    print(
        f"fuzz: {len(found)} of {len(cases)} cases differ ({undeclared} undeclared)",
        file=out,
    )
    return 1 if undeclared else 0


def _report_settle(case: FuzzCase, settle: Settle | None, out: TextIO) -> None:
    if settle is None:
        return
    how = "carried out" if settle.done else "not seen carried out (later cases may differ)"
    print(f"waited {settle.waited:.1f} s for {case.method} {case.target}: {how}", file=out)
