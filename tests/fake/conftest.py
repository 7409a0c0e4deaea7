"""Fixtures for the fake's data-plane tests: a strict fake and clients bound to it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from honcho import Honcho

from fake_honcho import FakeHoncho

BASE_URL = "http://fake-honcho.test"


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    """A fake that validates every response it sends against ``schemas/``."""
    instance = FakeHoncho(strict=True, seed=7)
    yield instance
    instance.close()


@pytest.fixture
def client(fake: FakeHoncho) -> Iterator[httpx.Client]:
    with httpx.Client(transport=fake.transport(), base_url=BASE_URL) as http:
        yield http


@pytest.fixture
def honcho(client: httpx.Client) -> Honcho:
    """The official SDK, talking to the fake through its ``http_client`` parameter."""
    return Honcho(base_url=BASE_URL, workspace_id="sdk-ws", http_client=client, max_retries=0)


def snapshot(fake: FakeHoncho) -> dict[str, Any]:
    """Every stored row, as JSON text, to prove a refused request changed nothing."""
    with fake.store.lock:
        return {
            name: json.dumps(list(fake.store.items(name)), sort_keys=True, default=str)
            for name in fake.store.collections()
            if fake.store.count(name)
        }


def detail(response: httpx.Response) -> Any:
    body = response.json()
    assert set(body) == {"detail"}, body
    return body["detail"]


def record_scans(fake: FakeHoncho, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """From now on, the name of every collection read whole (``rows``/``items``), in order."""
    scanned: list[str] = []
    for method in ("items", "rows"):
        real = getattr(fake.store, method)

        def recording(collection: str, real: Any = real) -> Any:
            scanned.append(collection)
            return real(collection)

        monkeypatch.setattr(fake.store, method, recording)
    return scanned
