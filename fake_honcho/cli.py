"""``fake-honcho``: serve a fake Honcho v3 over HTTP.

SIGINT and SIGTERM shut the server down gracefully, compact the state file and
exit 0. The first line on stdout is the server's base URL (with the real port when
``--port 0`` asked the OS for one), printed once the socket is listening, so a
script or a test can read where to connect. uvicorn's logs go to stderr.

To add an option: add it in :func:`build_parser` and apply it in :func:`create_fake`.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
from collections.abc import Sequence

import uvicorn

from fake_honcho.fake import FakeHoncho
from fake_honcho.faults import FaultRule, parse_rule
from fake_honcho.persistence import StateFileError
from fake_honcho.server import bind, make_server, url_of

__all__ = ["build_parser", "create_fake", "main"]

API_KEY_ENV = "FAKE_HONCHO_API_KEY"
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
DERIVER_MODES = ("background", "immediate", "manual")
JOURNAL_LIMIT = 10_000  # a long-running server keeps only its recent requests


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fake-honcho",
        description="Serve a fake Honcho v3 API (no Postgres, no LLM) for development and tests.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (%(default)s)")
    parser.add_argument(
        "--port", type=int, default=8000, help="port to bind; 0 picks a free one (%(default)s)"
    )
    parser.add_argument(
        "--api-key",
        help=f"require 'Authorization: Bearer <key>' on every route but /health "
        f"(default: ${API_KEY_ENV}; auth is off when neither is set)",
    )
    parser.add_argument("--log-level", choices=LOG_LEVELS, default="info")
    parser.add_argument(
        "--deriver",
        choices=DERIVER_MODES,
        default="background",
        help="when derived data (conclusions, summaries) is computed (%(default)s)",
    )
    parser.add_argument(
        "--state-file",
        metavar="PATH",
        help="keep state in this file across restarts (append-only log, compacted at exit)",
    )
    parser.add_argument("--seed", type=int, help="seed generated ids for reproducible runs")
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        type=_fault_rule,
        metavar="RULE",
        help="inject a fault, e.g. 'POST /v3/workspaces/*/sessions/*/messages status=503 "
        "times=2' (repeatable; syntax: fake_honcho.faults.parse_rule; manage live rules "
        "at /_fake/faults)",
    )
    return parser


def _fault_rule(text: str) -> FaultRule:
    try:
        return parse_rule(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def create_fake(args: argparse.Namespace) -> FakeHoncho:
    """The fake the parsed options describe (raises StateFileError for a bad state file)."""
    api_key = args.api_key if args.api_key is not None else os.environ.get(API_KEY_ENV) or None
    fake = FakeHoncho(
        api_key=api_key,
        deriver=args.deriver,
        seed=args.seed,
        state_file=args.state_file,
        journal_limit=JOURNAL_LIMIT,
    )
    for rule in getattr(args, "fault", []):
        fake.faults.add(rule)
    return fake


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["compare"]:  # the drift report (contract_tests.drift.cli)
        from contract_tests.drift.cli import main as compare

        return compare(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        fake = create_fake(args)
    except StateFileError as error:
        print(f"fake-honcho: error: {error}", file=sys.stderr)
        return 1
    with fake:
        try:
            sock = bind(args.host, args.port)
        except OSError as error:
            print(
                f"fake-honcho: error: cannot listen on {args.host}:{args.port}: {error}",
                file=sys.stderr,
            )
            return 1
        with sock:
            print(url_of(sock), flush=True)
            run_until_signalled(make_server(fake.server_app, log_level=args.log_level), sock)
    return 0


def run_until_signalled(server: uvicorn.Server, sock: socket.socket) -> None:
    """Serve until SIGINT or SIGTERM, then return normally so the caller can clean up.

    uvicorn re-raises the signal that stopped it once it has shut down, which would
    kill the process before the state file is compacted; handlers installed here are
    the ones it restores and re-raises into, and they just note the request.
    """
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, lambda signum, frame: None) for sig in signals}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
