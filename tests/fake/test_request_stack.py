"""The request stack: a request no fault, CORS or auth rule applies to skips those layers
and gets the same answer, byte for byte, as through them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.harness.stack import RequestStack
from fake_honcho.http.transport import SyncASGITransport
from fake_honcho.routes import peers

BASE_URL = "http://fake-honcho.test"
WS = "/v3/workspaces/ws"

REQUESTS: list[tuple[str, str, Any]] = [
    ("POST", f"{WS}/peers", {"id": "alice", "metadata": {"a": 1}}),
    ("POST", f"{WS}/peers", {"id": "alice"}),
    ("POST", f"{WS}/peers", {"id": 7}),  # 422
    ("POST", f"{WS}/sessions/s/messages", {"messages": [{"peer_id": "alice", "content": "hi"}]}),
    ("POST", f"{WS}/sessions/s/messages/list", None),
    ("GET", f"{WS}/peers/alice/card", None),
    ("GET", "/v3/no/such/route", None),  # 404
    ("PATCH", f"{WS}/peers", None),  # 405
    ("POST", f"{WS}/peers/list?page=0", None),  # 422 from the query
]


def _answers(app: Any, fake: FakeHoncho) -> list[tuple[int, list[tuple[bytes, bytes]], bytes]]:
    transport = SyncASGITransport(app, raise_app_exceptions=False)
    with httpx.Client(transport=transport, base_url=BASE_URL) as client:
        answers = []
        for method, path, body in REQUESTS:
            response = client.request(method, path, json=body)
            answers.append((response.status_code, response.headers.raw, response.content))
    fake.close()
    return answers


def _stack(fake: FakeHoncho) -> RequestStack:
    assert isinstance(fake.app, RequestStack)
    return fake.app


def _fixed_clock() -> datetime:
    return datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_the_direct_path_answers_as_the_layers_do() -> None:
    direct, layered = (FakeHoncho(seed=3, clock=_fixed_clock) for _ in range(2))
    assert _answers(direct.app, direct) == _answers(_stack(layered).layered, layered)
    assert [entry.status for entry in direct.requests] == [
        entry.status for entry in layered.requests
    ]


class _Spy:
    """Counts the requests that reach the layered stack."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.calls = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls += 1
        await self.app(scope, receive, send)


@pytest.fixture
def spied() -> Iterator[tuple[FakeHoncho, _Spy, httpx.Client]]:
    fake = FakeHoncho(seed=3)
    stack = _stack(fake)
    spy = stack.layered = _Spy(stack.layered)
    with httpx.Client(transport=fake.transport(), base_url=BASE_URL) as client:
        yield fake, spy, client
    fake.close()


def test_only_a_request_a_rule_applies_to_goes_through_the_layers(
    spied: tuple[FakeHoncho, _Spy, httpx.Client],
) -> None:
    fake, spy, client = spied
    assert client.post(f"{WS}/peers", json={"id": "a"}).status_code == 201
    assert spy.calls == 0
    answer = client.post(f"{WS}/peers", json={"id": "a"}, headers={"Origin": "http://localhost"})
    assert answer.headers["access-control-allow-origin"] == "http://localhost"
    assert spy.calls == 1
    with fake.faults.inject("GET /v3/** status=503"):
        assert client.post(f"{WS}/peers", json={"id": "a"}).status_code == 200
    assert spy.calls == 2
    assert [entry.status for entry in fake.requests] == [201, 200, 200]


def test_an_unhandled_error_on_the_direct_path_is_the_error_middlewares_500(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_args: Any) -> Any:
        raise RuntimeError("a fake bug")

    monkeypatch.setattr(peers, "_upsert", broken)
    with FakeHoncho(seed=3) as fake:
        transport = fake.transport(raise_app_exceptions=False)
        with httpx.Client(transport=transport, base_url=BASE_URL) as client:
            answer = client.post(f"{WS}/peers", json={"id": "a"})
        assert (answer.status_code, answer.content) == (
            500,
            b'{"detail":"An unexpected error occurred"}',
        )
        assert fake.requests[-1].status == 500
        with (
            httpx.Client(transport=fake.transport(), base_url=BASE_URL) as client,
            pytest.raises(RuntimeError, match="a fake bug"),
        ):
            client.post(f"{WS}/peers", json={"id": "a"})
