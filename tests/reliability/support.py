"""Helpers shared by the reliability tests."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator

from hypothesis import HealthCheck, settings
from starlette.routing import Route

from fake_honcho import FakeHoncho

API_KEY = "sk-reliability-Zq81xVbA3"
"""A recognisable secret: tests assert it never shows up in logs or error text."""


def bounded(max_examples: int) -> settings:
    """Hypothesis settings for CI: a fixed example budget, derandomized (the same examples
    every run, no example database), no deadline, and no health checks (they cost more
    than the examples on a small runner)."""
    return settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )


_PATH_PARAM = re.compile(r"\{([^}:]+)(?::[^}]+)?\}")


def state_digest(fake: FakeHoncho) -> str:
    """A hash of every row in the fake's store (collections, keys and rows, in order)."""
    digest = hashlib.sha256()
    with fake.store.lock:
        for collection in sorted(fake.store.collections()):
            for key, row in fake.store.items(collection):
                record = [collection, key, row]
                digest.update(json.dumps(record, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def concrete_path(template: str, value: str = "x1") -> str:
    """``/v3/workspaces/{workspace_id}`` -> ``/v3/workspaces/x1``."""
    return _PATH_PARAM.sub(value, template)


def app_operations(fake: FakeHoncho) -> Iterator[tuple[str, str]]:
    """Every ``(method, path template)`` the fake's app routes (HEAD left out)."""
    for route in fake.core_app.routes:
        if isinstance(route, Route):
            for method in sorted(route.methods or ()):
                if method != "HEAD":
                    yield method, route.path


def fake_operations() -> list[tuple[str, str]]:
    """:func:`app_operations` of a default fake, sorted."""
    with FakeHoncho() as fake:
        return sorted(set(app_operations(fake)))
