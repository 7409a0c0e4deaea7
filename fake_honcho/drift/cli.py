"""``fake-honcho compare --against URL``: the drift report between a Honcho and the fake.

Every scripted exchange (``fake_honcho.drift.scripts``, then the coercion matrix of
``fake_honcho.drift.coercion``) runs against the server at URL, in fresh workspaces
deleted afterwards, and against a fresh in-process fake speaking ``--honcho-version``
(by default the version the server is probed to serve, ``fake_honcho.drift.probe``,
never its ``/openapi.json`` number); each exchange whose normalised answers differ is
printed with its request and both answers. Differences the fake declares on purpose
(``fake_honcho.harness.divergences``) are listed as declared and do not fail the run.
Exit status: 0 when nothing undeclared differs, 1 when something does, 2 when
the server cannot be reached. The api key is sent, never printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import httpx

from fake_honcho.arguments import OneLineParser
from fake_honcho.drift.cleanup import delete_workspaces
from fake_honcho.drift.exchange import run_script, workspace_names
from fake_honcho.drift.probe import probe_embeds, probe_server
from fake_honcho.drift.recording import Recording, differences, run_on_fake, write_recording
from fake_honcho.drift.scripts import EVERY_SCRIPT, script_named
from fake_honcho.drift.traffic import without_credentials
from fake_honcho.versions import VERSIONS, HonchoVersion, version_argument

__all__ = ["build_parser", "main"]

API_KEY_ENV = "HONCHO_API_KEY"


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """The server a differential runs against, and its key: the same for compare and fuzz."""
    parser.add_argument("--against", required=True, metavar="URL", help="the Honcho server")
    parser.add_argument(
        "--api-key", help=f"Bearer key for the server (default: ${API_KEY_ENV}; never printed)"
    )


def target_client(args: argparse.Namespace) -> tuple[httpx.Client, str]:
    """A client for the ``--against`` server with ``--api-key`` (else ``$HONCHO_API_KEY``),
    and the server's URL as it may be printed (without credentials).

    A fresh connection per request: after a 500 the server closes the connection.
    """
    url = args.against.rstrip("/")
    key = args.api_key if args.api_key is not None else os.environ.get(API_KEY_ENV) or None
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    limits = httpx.Limits(max_keepalive_connections=0)
    client = httpx.Client(base_url=url, headers=headers, timeout=args.timeout, limits=limits)
    return client, without_credentials(url)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="fake-honcho compare",
        description="Send the scripted exchanges to a Honcho server and to the fake; "
        "print every exchange whose answers differ.",
    )
    add_target_arguments(parser)
    parser.add_argument(
        "--script",
        action="append",
        choices=[script.name for script in EVERY_SCRIPT],
        help="run only this script (repeatable; default: all)",
    )
    parser.add_argument(
        "--record",
        metavar="DIR",
        type=Path,
        help="also write the server's answers as recordings into DIR (one JSON file per script)",
    )
    parser.add_argument(
        "--honcho-version",
        type=version_argument,
        default=None,
        metavar="VERSION",
        help=f"the version the fake speaks, and the scripts it implies: {', '.join(VERSIONS)} "
        "(default: the version the server is probed to serve)",
    )
    parser.add_argument(
        "--timeout", type=_seconds, default=30.0, help="seconds per request (default: 30)"
    )
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    args = build_parser().parse_args(argv)
    client, shown = target_client(args)
    with client:
        try:
            client.get("/health").raise_for_status()
        except httpx.HTTPError as error:
            print(
                f"fake-honcho compare: error: {shown} is not a reachable Honcho "
                f"({type(error).__name__})",
                file=sys.stderr,
            )
            return 2
        prefix = f"drift-{uuid.uuid4().hex[:8]}-"
        try:
            return _report(client, args, prefix, shown, out)
        finally:
            delete_workspaces(client, prefix)


def served_as(
    client: httpx.Client,
    version: HonchoVersion | None,
    shown: str,
    out: TextIO,
    timeout: float,
) -> tuple[HonchoVersion, bool, bool]:
    """What the fake compared with the server speaks: ``version`` (else the one the server
    is probed to serve, printed), whether the server embeds messages, and whether its
    auth is on (it refuses a request without a key; the fake then runs with auth on)."""
    if version is None:
        served = probe_server(client)
        version, embeds = served.version, served.embeds
        print(f"probed {shown}: serves {served.describe()}", file=out)
    else:
        embeds = probe_embeds(client)
    auth = httpx.post(f"{client.base_url}/v3/workspaces/list", json={}, timeout=timeout)
    return version, embeds, auth.status_code == 401


def _report(
    client: httpx.Client, args: argparse.Namespace, prefix: str, shown: str, out: TextIO
) -> int:
    version, embeds, auth_on = served_as(client, args.honcho_version, shown, out, args.timeout)
    chosen = [script_named(name) for name in args.script] if args.script else EVERY_SCRIPT
    scripts = [script for script in chosen if script.runs_on(version)]
    undeclared = declared = exchanges = 0
    for script in scripts:
        real = run_script(client, script, workspace_names(prefix))
        if args.record is not None:
            write_recording(args.record, Recording(script, real, shown, version.name, embeds))
        replayed = run_on_fake(script, version, embeds, auth=auth_on)
        found = differences(script, real, replayed, version, embeds)
        exchanges += len(script.steps)
        mine = [d for d in found if not d.declared]
        undeclared += len(mine)
        declared += len(found) - len(mine)
        print(
            f"{script.name}: {len(script.steps)} exchanges, {len(mine)} differ"
            + (f", {len(found) - len(mine)} declared" if len(found) > len(mine) else ""),
            file=out,
        )
        for difference in found:
            print(difference.render(), file=out)
    print(
        f"{exchanges} exchanges against {shown} (fake speaking {version}, "
        f"embeddings {'on' if embeds else 'off'}): "
        f"{undeclared} differ, {declared} declared",
        file=out,
    )
    return 1 if undeclared else 0


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return seconds
