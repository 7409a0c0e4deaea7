"""The canary: before the suite judges a remote backend, its requests must reach the target.

A backend whose factory loses ``ctx.transport`` (a ``from_config(**host_hooks)`` takes
``transport=`` and drops it without a word, as DeerFlow's does) or points at another URL
sends nothing the suite sees. Its outage, fail-open and cap tests then pass because
nothing arrives, and the others fail with messages that say nothing of why. The canary
writes one short conversation and reads it once, looks at what reached the target, and
names the likely cause and the fix in one failure; the tests that need the remote are
then reported as not judged.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from contract_tests.transports import RecordedRequest

__all__ = ["CanaryVerdict", "judge", "logged_warnings"]


@dataclass(frozen=True)
class CanaryVerdict:
    """What the canary found; ``problem`` is ``None`` when the requests reached the target."""

    backend: str
    problem: str | None = None

    @property
    def headline(self) -> str:
        return (
            f"{self.backend}'s requests never reached the target "
            "(see test_requests_reach_the_target)"
        )


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage().splitlines()[0][:300] if record.getMessage() else "")


@contextmanager
def logged_warnings() -> Iterator[list[str]]:
    """The first line of every warning (or worse) logged while the block runs."""
    handler = _Collect()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler.lines
    finally:
        root.removeHandler(handler)


def _origin(url: str) -> str:
    """``scheme://host[:port]`` as httpx spells it for a request (so default ports agree)."""
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.netloc.decode('ascii')}"


def judge(
    backend: str,
    base_url: str,
    requests: list[RecordedRequest],
    logged: list[str],
    raised: BaseException | None,
    *,
    calls: str,
) -> CanaryVerdict:
    """The verdict on what ``calls`` (e.g. ``"add() and get_context()"``) sent."""
    said = f"; it logged: {logged[0][:240]!r}" if logged else ""
    if raised is not None:
        said += f"; it raised {type(raised).__name__}: {raised}"
    remote_false = "or, if it keeps memory locally, declare Capabilities(remote=False)"
    if not requests:
        return CanaryVerdict(
            backend,
            f"{backend} sent no request through ctx.transport: {calls} for a new user reached "
            f"nothing the suite can see{said}. Likely cause: the factory's transport never "
            "reaches the backend's HTTP client (a from_config(**host_hooks) accepts "
            "transport=... and drops it). Fix: build the backend's httpx client with "
            f"transport=ctx.transport and base_url=ctx.target.base_url ({base_url}) "
            "(DeerFlow's Honcho backend: manager._client = HonchoClient(manager._config, "
            f"transport=ctx.transport)), {remote_false}. Until then the tests that need the "
            "remote are not judged.",
        )
    target = _origin(base_url)
    elsewhere = sorted({r.origin for r in requests if r.origin and r.origin != target})
    if elsewhere:
        return CanaryVerdict(
            backend,
            f"{backend} sent its requests through ctx.transport but to {', '.join(elsewhere)}, "
            f"not the target {target}{said}. Fix: set the backend's base URL from "
            "ctx.target.base_url.",
        )
    statuses = {r.status for r in requests}
    first = requests[0]
    if all(r.path.startswith("/v3/v3/") for r in requests):
        return CanaryVerdict(
            backend,
            f"{backend}'s requests go to {first.path.split('/workspaces')[0]}/...: its base URL "
            f"ends in /v3 and its client adds /v3 again, so every request gets a 404{said}. "
            "Fix: pass the server's root, ctx.target.base_url, with no /v3.",
        )
    if statuses <= {401, 403}:
        return CanaryVerdict(
            backend,
            f"the target refused every request of {backend} ({sorted(map(str, statuses))}, first: "
            f"{first.method} {first.path}){said}. Fix: send ctx.target.api_key "
            "(.get_secret_value()) as the Bearer key when it is set.",
        )
    if all(r.status is None or r.status >= 400 for r in requests):
        return CanaryVerdict(
            backend,
            f"the target answered every request of {backend} with an error "
            f"({sorted(str(s) for s in statuses)}; first: {first.method} {first.path}){said}: "
            "its paths or base URL miss Honcho's routes. Fix: point it at ctx.target.base_url.",
        )
    return CanaryVerdict(backend)
