"""``fake-honcho``: serve a fake Honcho v3 over HTTP (and the subcommands in :data:`COMMANDS`).

``fake-honcho [OPTIONS]`` (or ``fake-honcho serve [OPTIONS]``) serves. SIGINT and
SIGTERM shut the server down gracefully, compact the state file, remove its lock
file and exit 0. The first line on stdout is the server's base URL (with the real
port when ``--port 0`` asked the OS for one), printed once the socket is listening,
so a script or a test can read where to connect; on stderr, a line then says where the
API docs are and how to stop the server. uvicorn's logs go to stderr; the
fake's own notices are plain ``fake-honcho: warning: ...`` lines there. A mistake in
the options is one line naming it (:class:`~fake_honcho.arguments.OneLineParser`, exit
2); a state file or port that cannot be used is a one-line ``fake-honcho: error: ...``
(exit 1).

To add a serve option: add it in :func:`build_parser` and apply it in :func:`create_fake`.
To add a subcommand: write ``def run(argv: Sequence[str]) -> int`` (its own argparse
parser, ``prog="fake-honcho NAME"``) and register it in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from fake_honcho._extras import FUZZ, missing, missing_line
from fake_honcho._version import version_line
from fake_honcho.arguments import MAX_PORT, OneLineParser, embedder, port
from fake_honcho.errors import REAL_BUGS
from fake_honcho.fake import FakeHoncho
from fake_honcho.harness.faults import FaultRule, parse_rule
from fake_honcho.harness.persistence import StateFileError
from fake_honcho.http.http_rules import DEFAULT_CORS_ORIGINS
from fake_honcho.http.ignored import MODES as IGNORED_MODES
from fake_honcho.http.ignored import IgnoredFieldWarning
from fake_honcho.http.server import (
    LOG_LEVELS,
    SHUTDOWN_GRACE_SECONDS,
    bind,
    listen_problem,
    make_server,
    run_until_signalled,
    url_of,
)
from fake_honcho.search.semantic import EMBEDDING_MODES
from fake_honcho.versions import (
    DEFAULT_VERSION,
    VERSIONS,
    resolve_version,
    version_argument,
)

__all__ = ["COMMANDS", "build_parser", "create_fake", "main", "serve"]

PROG = "fake-honcho"
API_KEY_ENV = "FAKE_HONCHO_API_KEY"
JWT_SECRET_ENV = "FAKE_HONCHO_JWT_SECRET"
DERIVER_MODES = ("background", "immediate", "manual", "gated")
JOURNAL_LIMIT = 10_000  # a long-running server keeps only its recent requests


def build_parser() -> argparse.ArgumentParser:
    others = ", ".join(name for name in COMMANDS if name != "serve")
    parser = OneLineParser(
        prog=PROG,
        description="Serve a fake Honcho v3 API (no Postgres, no LLM) for development and tests.",
        epilog=f"other commands: {others} (see '{PROG} COMMAND --help')" if others else None,
    )
    parser.add_argument("--version", action="version", version=version_line(PROG))
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (%(default)s)")
    parser.add_argument(
        "--port",
        type=port,
        default=8000,
        help=f"port to bind, 0..{MAX_PORT}; 0 picks a free one (default: %(default)s)",
    )
    parser.add_argument(
        "--api-key",
        type=_api_key,
        help=f"require 'Authorization: Bearer <key>' on every route but /health "
        f"(default: ${API_KEY_ENV}; auth is off when neither is set)",
    )
    parser.add_argument(
        "--jwt-secret",
        type=_api_key,
        help="auth as Honcho runs it with this AUTH_JWT_SECRET: HS256 JWTs, each route's "
        f"permission rule, POST /v3/keys minting JWTs (default: ${JWT_SECRET_ENV}, which "
        "keeps the secret out of the process list; not with --api-key)",
    )
    add_version_option(parser)
    parser.add_argument(
        "--ignored-fields",
        choices=IGNORED_MODES,
        default="warn",
        help="a request field this version silently drops (one a later version reads, "
        "e.g. 'scope' before 3.1): warn (a notice on stderr, once per route and field), "
        "error (answer 422) or allow (drop it without a word); default: %(default)s",
    )
    parser.add_argument(
        "--real-bugs",
        choices=REAL_BUGS,
        default="reproduce",
        help="where the real server of this version is wrong (see docs/divergences.md: "
        "its unhandled 500s, deletions left to its deriver, ...): reproduce its answer or "
        "correct it to what a fixed server sends (default: %(default)s)",
    )
    parser.add_argument(
        "--cors-origins",
        type=_origins,
        default=DEFAULT_CORS_ORIGINS,
        metavar="ORIGINS",
        help="comma-separated browser origins allowed, as Honcho's CORS_ORIGINS ('*' for "
        f"any; default: {','.join(DEFAULT_CORS_ORIGINS)})",
    )
    parser.add_argument(
        "--log-level",
        choices=tuple(LOG_LEVELS),
        default="info",
        help="how much is logged: info adds the start lines, uvicorn's line per request "
        "and the notes on refused bodies to warnings and errors; debug and trace more "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--deriver",
        choices=DERIVER_MODES,
        default="background",
        help="when derived data (conclusions, summaries) is computed; manual: only when "
        "POST /_fake/deriver/step or /drain asks (default: %(default)s)",
    )
    parser.add_argument(
        "--embed-messages",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="Honcho's EMBED_MESSAGES: search fuses full text with the messages nearest "
        "by embedding (on, Honcho's default), or is full text alone",
    )
    parser.add_argument(
        "--embedding-mode",
        choices=EMBEDDING_MODES,
        default="immediate",
        help="when a new message's embedding is written: immediate (before the next "
        "search), or held until POST /_fake/embeddings/release (default: %(default)s)",
    )
    parser.add_argument(
        "--embedder",
        type=embedder,
        metavar="MODULE:CALLABLE",
        help="vectors from this function of a text (default: the hashed embedder "
        "fake-honcho-llm also serves)",
    )
    parser.add_argument(
        "--state-file",
        metavar="PATH",
        help="keep state in this file across restarts (append-only log, compacted at exit)",
    )
    parser.add_argument("--seed", type=int, help="seed generated ids for reproducible runs")
    parser.add_argument(
        "--shutdown-grace",
        type=_seconds,
        default=SHUTDOWN_GRACE_SECONDS,
        metavar="SECONDS",
        help="at SIGINT/SIGTERM, how long requests in flight may take to finish; later "
        "ones are answered 503 (default: %(default)s)",
    )
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        type=_fault_rule,
        metavar="RULE",
        help="inject a fault, e.g. 'POST /v3/workspaces/*/sessions/*/messages status=503 "
        "times=2' (repeatable). RULE is '[METHOD] ROUTE ACTION [times=N] [rate=R seed=S]', "
        "ACTION one of status=NNN, latency=250ms, html, truncated, content_type, drop, "
        "refuse (the Faults section of docs/testing-a-client.md); live rules: /_fake/faults",
    )
    return parser


def add_version_option(parser: argparse.ArgumentParser) -> None:
    """``--honcho-version``: which Honcho server version the fake speaks."""
    parser.add_argument(
        "--honcho-version",
        type=version_argument,
        default=resolve_version(DEFAULT_VERSION),
        metavar="VERSION",
        help=f"the Honcho server version to speak: {', '.join(VERSIONS)} (default: %(default)s)",
    )


def _seconds(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number of seconds >= 0, got {text!r}")
    return int(text)


def _origins(text: str) -> tuple[str, ...]:
    origins = tuple(origin.strip() for origin in text.split(",") if origin.strip())
    if not origins:
        raise argparse.ArgumentTypeError("name at least one origin, or '*' for any")
    return origins


def _api_key(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty (leave it out to turn auth off)")
    return text


def _fault_rule(text: str) -> FaultRule:
    try:
        return parse_rule(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def create_fake(args: argparse.Namespace) -> FakeHoncho:
    """The fake the parsed options describe (raises StateFileError for a bad state file)."""
    api_key = args.api_key if args.api_key is not None else os.environ.get(API_KEY_ENV) or None
    secret = args.jwt_secret if args.jwt_secret is not None else os.environ.get(JWT_SECRET_ENV)
    if api_key is not None and secret:
        raise ValueError(
            f"give an api key (--api-key, ${API_KEY_ENV}) or a JWT secret (--jwt-secret, "
            f"${JWT_SECRET_ENV}), not both"
        )
    fake = FakeHoncho(
        version=args.honcho_version,
        api_key=api_key,
        jwt_secret=secret or None,
        deriver=args.deriver,
        seed=args.seed,
        state_file=args.state_file,
        journal_limit=JOURNAL_LIMIT,
        ignored_fields=args.ignored_fields,
        real_bugs=args.real_bugs,
        cors_origins=args.cors_origins,
        embed_messages=args.embed_messages,
        embedder=args.embedder,
        embedding_mode=args.embedding_mode,
    )
    for rule in getattr(args, "fault", []):
        fake.faults.add(rule)
    return fake


def error(message: str) -> int:
    """Report a one-line error the way argparse does, without the usage; exit status 1."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 1


class _NoticeFormatter(logging.Formatter):
    """``fake-honcho: warning: <message>``: a notice, not a Python warning with its source."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"{PROG}: {record.levelname.lower()}: {record.getMessage()}"
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def show_notices(level: str) -> None:
    """Send the ``fake_honcho`` loggers' records to stderr as plain notice lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_NoticeFormatter())
    root = logging.getLogger("fake_honcho")
    root.handlers[:] = [handler]
    root.setLevel(LOG_LEVELS[level])
    root.propagate = False


def _warning_as_notice(show: Callable[..., None]) -> Callable[..., None]:
    """An :class:`IgnoredFieldWarning` as a ``fake-honcho: warning: ...`` notice line,
    not a Python warning with its source line; any other warning as before."""

    def show_warning(
        message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any
    ) -> None:
        if issubclass(category, IgnoredFieldWarning):
            logging.getLogger("fake_honcho.ignored").warning("%s", message)
        else:
            show(message, category, *args, **kwargs)

    return show_warning


def serve(argv: Sequence[str]) -> int:
    """``fake-honcho [serve] [OPTIONS]``: serve until SIGINT or SIGTERM."""
    args = build_parser().parse_args(argv)
    show_notices(args.log_level)
    warnings.showwarning = _warning_as_notice(warnings.showwarning)
    warnings.simplefilter("always", IgnoredFieldWarning)  # the fake says each once already
    # The socket first: a start that cannot listen must not create the state file.
    try:
        sock = bind(args.host, args.port)
    except OSError as problem:
        return error(listen_problem(args.host, args.port, problem))
    with sock:
        try:
            fake = create_fake(args)
        except (StateFileError, ValueError) as problem:  # ValueError: a bad DERIVER_* setting
            return error(str(problem))
        with fake:
            server = make_server(
                fake.server_app, log_level=args.log_level, shutdown_grace=args.shutdown_grace
            )
            url = url_of(sock)
            run_until_signalled(server, sock, lambda: introduce(url, fake))
    return 0


def introduce(url: str, fake: FakeHoncho) -> None:
    """The URL on stdout (for scripts), then, on stderr at ``--log-level info`` and below,
    what serves there and how to use it: the state file it loaded, the fault rules on."""
    print(url, flush=True)
    log = logging.getLogger("fake_honcho.cli")
    log.info(
        "serving Honcho %s at %s; API docs at %s/docs (OpenAPI at %s/openapi.json); "
        "Ctrl+C or SIGTERM stops it",
        fake.version.name,
        url,
        url,
        url,
    )
    if fake.state_file is not None:
        rows = sum(fake.store.count(name) for name in fake.store.collections())
        loaded = f"{rows} row{'' if rows == 1 else 's'} loaded" if rows else "empty, starting fresh"
        log.info("state file %s: %s", fake.state_file.path, loaded)
    faults = [fault.describe() for fault in fake.faults]
    if faults:
        log.info("fault rules on: %s (GET /_fake/faults lists them live)", "; ".join(faults))


def compare(argv: Sequence[str]) -> int:
    """``fake-honcho compare --against URL``: the drift report (``fake_honcho.drift.cli``)."""
    from fake_honcho.drift.cli import main as run

    return run(argv)


def fuzz(argv: Sequence[str]) -> int:
    """``fake-honcho fuzz --against URL``: the generated differential
    (``fake_honcho.drift.fuzz_cli``; needs the ``fuzz`` extra)."""
    absent = missing(FUZZ)
    if absent:
        print(missing_line("fake-honcho fuzz: error", "fuzz", absent), file=sys.stderr)
        return 2
    from fake_honcho.drift.fuzz_cli import main as run

    return run(argv)


def proxy(argv: Sequence[str]) -> int:
    """``fake-honcho proxy --upstream URL --record DIR``: record a client's traffic."""
    from fake_honcho.drift.proxy import main as run

    return run(argv)


def replay(argv: Sequence[str]) -> int:
    """``fake-honcho replay DIR | CASSETTES``: a recorded traffic against a fresh fake."""
    from fake_honcho.drift.replay import main as run

    return run(argv)


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "serve": serve,
    "compare": compare,
    "fuzz": fuzz,
    "proxy": proxy,
    "replay": replay,
}
"""Subcommands by name; anything else on the command line is ``serve``'s options."""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in COMMANDS:
        return COMMANDS[args[0]](args[1:])
    return serve(args)
