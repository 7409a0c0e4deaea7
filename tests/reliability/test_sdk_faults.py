"""The official SDK (honcho-ai) against injected faults: it retries 429 and 5xx twice.

The SDK backs off 0.5 s, then 1 s, unless the answer carries ``Retry-After``; only
the first test pays that wait, the others send ``retry_after=0``.
"""

from __future__ import annotations

from collections.abc import Iterator

import honcho
import httpx
import pytest

from fake_honcho import FakeHoncho

from .support import API_KEY

PEERS = "/v3/workspaces/sdk-ws/peers"


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(api_key=API_KEY) as fake:
        yield fake


@pytest.fixture
def client(fake: FakeHoncho) -> Iterator[honcho.Honcho]:
    with httpx.Client(transport=fake.transport(), base_url="http://honcho.fake") as http:
        yield honcho.Honcho(
            api_key=API_KEY, base_url="http://honcho.fake", workspace_id="sdk-ws", http_client=http
        )


def peer_attempts(fake: FakeHoncho) -> list[tuple[int | None, bool]]:
    return [(e.status, e.fault is not None) for e in fake.requests if e.path == PEERS]


def test_503_twice_then_success(fake: FakeHoncho, client: honcho.Honcho) -> None:
    fake.faults.add(f"POST {PEERS} status=503 times=2")
    peer = client.peer("alice", metadata={"tier": "gold"})
    assert peer.id == "alice"
    assert peer_attempts(fake) == [(503, True), (503, True), (201, False)]
    assert fake.store.get("peers", ("sdk-ws", "alice")) is not None


def test_503_three_times_surfaces_the_server_error(fake: FakeHoncho, client: honcho.Honcho) -> None:
    fake.faults.add(f"POST {PEERS} status=503 retry_after=0 times=3")
    with pytest.raises(honcho.ServerError) as raised:
        client.peer("alice", metadata={"tier": "gold"})
    assert raised.value.status == 503
    assert "Service Unavailable" in str(raised.value)
    assert API_KEY not in str(raised.value)
    assert peer_attempts(fake) == [(503, True)] * 3
    assert fake.store.get("peers", ("sdk-ws", "alice")) is None


def test_429_honours_retry_after_and_surfaces_rate_limit(
    fake: FakeHoncho, client: honcho.Honcho
) -> None:
    fault = fake.faults.add(f"POST {PEERS} status=429 retry_after=0")
    with pytest.raises(honcho.RateLimitError) as raised:
        client.peer("alice", metadata={"tier": "gold"})
    assert raised.value.retry_after == 0
    assert fault.fired == 3


def test_non_json_200_is_an_error_not_a_crash_and_not_retried(
    fake: FakeHoncho, client: honcho.Honcho
) -> None:
    fake.faults.add(f"POST {PEERS} html")
    with pytest.raises(honcho.HonchoError):
        client.peer("alice", metadata={"tier": "gold"})
    assert peer_attempts(fake) == [(200, True)]
