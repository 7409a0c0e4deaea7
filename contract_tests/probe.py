"""Check a ``--honcho-url`` once, before any test runs, and say in one line what to fix.

Without this, an unreachable server or a missing key surfaces as one error per test
(or as a raw ``httpx.HTTPStatusError`` deep in a fixture); the probe turns both into a
single usage error naming the option to pass.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import httpx

from contract_tests.target import HonchoTarget, ServedFake

__all__ = ["ServedFake", "probe_problem", "served_fake", "url_problem"]

ABOUT_PATH = "/_fake/about"


def served_fake(target: HonchoTarget, *, timeout: float = 10.0) -> ServedFake | None:
    """What ``target`` is when it is a served fake-honcho, else None (a real Honcho has no
    ``/_fake/about``: 404). Asked once per run; the answer changes nothing the suites send."""
    try:
        with target.client(timeout=timeout) as client:
            response = client.get(ABOUT_PATH)
        about = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    if not isinstance(about, dict) or about.get("server") != "fake-honcho":
        return None
    return ServedFake(str(about.get("version")), str(about.get("honcho_version")))


def url_problem(url: str) -> str | None:
    """What is wrong with the shape of ``url`` (one line), before any request is sent."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return (
            f"--honcho-url {url} is not an http(s) URL; give the server's root, "
            "e.g. http://127.0.0.1:8000"
        )
    path = parts.path.rstrip("/")
    if path.endswith("/v3"):
        root = urlunsplit(parts._replace(path=path.removesuffix("/v3"), query="", fragment=""))
        return f"--honcho-url {url}: drop the trailing /v3 (the kit adds it): --honcho-url {root}"
    return None


def probe_problem(target: HonchoTarget, *, timeout: float = 10.0) -> str | None:
    """Why ``target`` cannot be used (one line, never the key), or ``None`` when it can.

    ``GET /health`` proves the server answers; ``POST /v3/workspaces/list`` (the route the
    kit's reaper and settle use) proves the key is accepted.
    """
    url = target.base_url
    shape = url_problem(url)
    if shape is not None:
        return shape
    keyed = target.api_key is not None
    try:
        with target.client(timeout=timeout) as client:
            health = client.get("/health")
            if health.status_code != 200:
                return (
                    f"--honcho-url {url}: GET /health answered {health.status_code}; "
                    "is this a Honcho server?"
                )
            listed = client.post("/v3/workspaces/list", params={"size": 1}, json={})
    except httpx.HTTPError as exc:
        return (
            f"--honcho-url {url} is not reachable ({type(exc).__name__}); start the server, "
            "or omit --honcho-url to use the in-process fake"
        )
    if listed.status_code in (401, 403) and not keyed:
        return (
            f"--honcho-url {url} needs an api key (HTTP {listed.status_code}); "
            "pass --honcho-api-key KEY or set HONCHO_API_KEY"
        )
    if listed.status_code in (401, 403):
        return (
            f"--honcho-url {url} rejected the api key (HTTP {listed.status_code}); check "
            "--honcho-api-key or HONCHO_API_KEY (the kit needs an admin-scoped key: it lists "
            "and deletes its own workspaces)"
        )
    if listed.status_code != 200:
        return (
            f"--honcho-url {url}: POST /v3/workspaces/list answered {listed.status_code}; "
            "is this a Honcho v3 server?"
        )
    return None
