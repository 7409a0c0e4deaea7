"""Record the raw probes against a real server, or compare a server with the recordings.

    python -m tests.fidelity.raw.record --version 3.0.12 --url http://127.0.0.1:18000 --record
    python -m tests.fidelity.raw.record --version 3.0.12 --url http://127.0.0.1:18000  # compare

Record from a server with embeddings and auth off (the in-process fake is built so).
``--record`` writes ``tests/fidelity/raw/<version>/<operation>.json`` (one file per
operation: its groups, their setup and each probe's request and answer as
:func:`~tests.fidelity.raw.exchange.view` shows it). Without it, the server at ``--url``
(a served fake, say) is compared with the recordings, and the differences are printed by
family; ``--fake`` compares the in-process fake instead. The exit status is the number
of undeclared differences (capped at 100).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import secrets
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.fidelity.raw.exchange import IN_PROCESS_HOST, Answer, call_app, capture, send, view
from tests.fidelity.raw.probes import Group, Request, groups_for

ROOT = Path(__file__).parent
UNKNOWN_IDS = {name: "Z" * 21 for name in ("msg", "conclusion", "webhook")}
Sender = Callable[[Request, dict[str, str]], Answer]


class Target:
    """Where the probes go: a base URL over sockets, or the in-process fake."""

    def __init__(self, version: str, url: str | None = None) -> None:
        self.url = url
        if url is None:
            from fake_honcho import FakeHoncho

            # as the recordings' servers were configured: embeddings off
            self.fake: FakeHoncho | None = FakeHoncho(
                version=version, ignored_fields="allow", embed_messages=False
            )
            self.loop = asyncio.new_event_loop()
            self.host = IN_PROCESS_HOST
        else:
            self.fake = None
            self.host = url.split("://", 1)[1].rstrip("/")

    def send(self, request: Request, values: dict[str, str]) -> Answer:
        if self.fake is None:
            assert self.url is not None
            return send(self.url, request, values)
        return self.loop.run_until_complete(call_app(self.fake.app, request, values))

    def close(self) -> None:
        if self.fake is not None:
            self.loop.close()
            self.fake.close()


def run_group(
    target: Target, group: dict[str, Any], workspace: str | None = None
) -> list[dict[str, Any]]:
    """The views of a recorded (or fresh) group's probes, its setup run first, in the
    group's workspace or ``workspace`` (a live server keeps what earlier runs wrote)."""
    workspace = workspace or group["workspace"]
    # ids a setup could not make (a conclusion needs embeddings) stay well-formed unknowns
    values = {"ws": workspace, **UNKNOWN_IDS}
    for data in group["setup"]:
        request = Request.from_json(data)
        answer = target.send(request, values)
        if request.capture and 200 <= answer.status < 300:
            values[request.capture] = capture(answer, request.capture_at or "")
    literals = list(values.values())
    return [
        view(
            target.send(Request.from_json(probe["request"]), values),
            literals,
            target.host,
            volatile=probe["volatile"],
        )
        for probe in group["probes"]
    ]


def fresh(group: Group, workspace: str) -> dict[str, Any]:
    return {
        "group": group.name,
        "workspace": workspace,
        "setup": [request.as_json() for request in group.setup],
        "probes": [
            {"name": probe.name, "request": probe.request.as_json(), "volatile": probe.volatile}
            for probe in group.probes
        ],
    }


def operation_of(group_name: str) -> str:
    return group_name.rsplit(".", 1)[0]


def load(version: str) -> dict[str, list[dict[str, Any]]]:
    """``{operation: [recorded group, ...]}`` of a version."""
    return {
        path.stem: json.loads(path.read_text(encoding="utf-8"))["groups"]
        for path in sorted((ROOT / version).glob("*.json"))
    }


def differences(
    recorded: dict[str, Any], got: list[dict[str, Any]]
) -> list[tuple[str, str, Any, Any]]:
    """``(family, probe, recorded, got)`` for each probe answered differently."""
    family = recorded["group"].rsplit(".", 1)[1]
    return [
        (family, f"{recorded['group']}:{probe['name']}", probe["answer"], answer)
        for probe, answer in zip(recorded["probes"], got, strict=True)
        if probe["answer"] != answer
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True)
    parser.add_argument("--url")
    parser.add_argument("--fake", action="store_true", help="compare the in-process fake")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--only", help="operations whose name contains this")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument(
        "--fresh-names",
        action="store_true",
        help="suffix the recorded workspace names (a server that has already seen them)",
    )
    parser.add_argument("--show", type=int, default=40, help="differences to print in full")
    parser.add_argument("--json", type=Path, help="write every difference to this file")
    args = parser.parse_args(argv)
    logging.getLogger("fake_honcho").setLevel(logging.CRITICAL)  # its 500s are counted below
    run = secrets.token_hex(3)
    if args.record:
        args.fake = False
        groups = [fresh(group, f"raw{run}-{i}") for i, group in enumerate(groups_for(args.version))]
    else:
        groups = [group for groups in load(args.version).values() for group in groups]
    if args.only:
        groups = [group for group in groups if args.only in group["group"]]
    if args.fake:
        target = Target(args.version)
        answers = [run_group(target, group) for group in groups]
        target.close()
    else:
        target = Target(args.version, args.url)
        suffix = f"-{run}" if args.fresh_names else ""
        with ThreadPoolExecutor(args.workers) as pool:
            answers = list(
                pool.map(
                    lambda group: run_group(target, group, group["workspace"] + suffix), groups
                )
            )
    if args.record:
        by_operation: dict[str, list[dict[str, Any]]] = {}
        for group, got in zip(groups, answers, strict=True):
            for probe, answer in zip(group["probes"], got, strict=True):
                probe["answer"] = answer
            by_operation.setdefault(operation_of(group["group"]), []).append(group)
        out = ROOT / args.version
        out.mkdir(parents=True, exist_ok=True)
        for path in out.glob("*.json"):
            path.unlink()
        for operation, recorded in by_operation.items():
            document = {"server": args.url, "version": args.version, "groups": recorded}
            text = json.dumps(document, indent=1, ensure_ascii=True)
            (out / f"{operation}.json").write_text(text + "\n", encoding="utf-8")
        print(
            f"recorded {sum(len(g['probes']) for g in groups)} probes in {len(by_operation)} files"
        )
        return 0
    found = [
        diff for group, got in zip(groups, answers, strict=True) for diff in differences(group, got)
    ]
    total = Counter(group["group"].rsplit(".", 1)[1] for group in groups for _ in group["probes"])
    differing = Counter(family for family, *_ in found)
    for family in sorted(total):
        print(f"{family:14} {differing[family]:5} of {total[family]:5} differ")
    if args.json:
        args.json.write_text(json.dumps(found, indent=1), encoding="utf-8")
    for _, name, want, got in found[: args.show]:
        print(f"\n{name}\n  real: {json.dumps(want)[:600]}\n  got:  {json.dumps(got)[:600]}")
    return min(len(found), 100)


if __name__ == "__main__":
    sys.exit(main())
