"""``fake-honcho-llm``: serve the stand-in LLM for a real Honcho.

The first line on stdout is the base URL to give Honcho (``http://HOST:PORT/v1``),
printed once the socket listens; the lines after it are the environment Honcho needs,
ready for an env file. SIGINT and SIGTERM stop it and exit 0.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from fake_honcho._version import version_line
from fake_honcho.arguments import OneLineParser, embedder, port
from fake_honcho.http.server import (
    LOG_LEVELS,
    bind,
    listen_problem,
    make_server,
    run_until_signalled,
    url_of,
)
from fake_honcho.standin import StandIn, honcho_environment

__all__ = ["build_parser", "main"]

PROG = "fake-honcho-llm"


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        description="Serve a deterministic, offline OpenAI-compatible LLM that lets a real "
        "Honcho derive (conclusions, summaries, dreams, chat) without keys.",
    )
    parser.add_argument("--version", action="version", version=version_line(PROG))
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (%(default)s)")
    parser.add_argument(
        "--port",
        type=port,
        default=8100,
        help="port to bind; 0 picks a free one (default: %(default)s)",
    )
    parser.add_argument(
        "--log-file", metavar="PATH", help="append every request and reply as a JSON line"
    )
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="warning",
        help="what uvicorn logs on stderr: info adds one line per request (default: %(default)s)",
    )
    parser.add_argument(
        "--embedder",
        type=embedder,
        metavar="MODULE:CALLABLE",
        help="vectors from this function of a text (default: the fake's own hashed "
        "embedder, so a real Honcho ranks exactly as the fake does)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        standin = StandIn(log_file=args.log_file, embedder=args.embedder)
    except OSError as problem:
        return _error(f"cannot open {args.log_file}: {problem}")
    try:
        sock = bind(args.host, args.port)
    except OSError as problem:
        standin.close()
        return _error(listen_problem(args.host, args.port, problem))
    with sock:
        base_url = f"{url_of(sock)}/v1"

        def announce() -> None:
            print(base_url)
            for key, value in honcho_environment(base_url).items():
                print(f"{key}={value}")
            sys.stdout.flush()

        try:
            run_until_signalled(make_server(standin.app, log_level=args.log_level), sock, announce)
        finally:
            standin.close()
    return 0


def _error(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
