"""Real-server bugs whose answer depends on state or time, reproduced by default and
corrected with ``real_bugs="correct"`` (the register's reproduced ``real-bug`` entries;
the recorded exchanges check each against the real answers)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from fake_honcho import FakeHoncho

W2 = "/v3/workspaces/w2"


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = datetime(2025, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def _client(fake: FakeHoncho) -> httpx.Client:
    return httpx.Client(transport=fake.transport(), base_url="http://fake")


@pytest.fixture
def reproducing(clock: Clock) -> Iterator[httpx.Client]:
    with FakeHoncho(version="3.1", clock=clock) as fake, _client(fake) as client:
        yield client


def _refuse_a_new_peer(client: httpx.Client) -> None:
    body = {"messages": [{"peer_id": "new.peer", "content": "hi"}]}
    assert client.post(f"{W2}/sessions/s1/messages", json=body).status_code == 422


def test_a_refused_write_leaves_its_workspace_cached_for_300_seconds(
    reproducing: httpx.Client, clock: Clock
) -> None:
    """real-rejected-write-phantom-workspace, through the fake's clock."""
    client = reproducing
    _refuse_a_new_peer(client)
    created = client.post(f"{W2}/sessions", json={"id": "s2"})
    assert (created.status_code, created.json()) == (
        409,
        {"detail": "Unable to create or get session: s2"},
    )
    got = client.post("/v3/workspaces", json={"id": "w2"})
    assert got.status_code == 200 and got.json()["metadata"] == {}
    assert client.post("/v3/workspaces/list", json={}).json()["total"] == 0
    clock.now += timedelta(seconds=299)
    assert client.post(f"{W2}/peers", json={"id": "p"}).status_code == 409
    clock.now += timedelta(seconds=1)
    assert client.post(f"{W2}/sessions", json={"id": "s2"}).status_code == 201
    assert client.post("/v3/workspaces/list", json={}).json()["total"] == 1


#: (method, path under the cached workspace, body, status, detail or None): what each route
#: answered there, measured on main ddbb90e + #931 run with the default cache TTL (300 s)
CACHED_ONLY = [
    ("POST", "/peers", {"id": "p"}, 409, "Unable to create or get peers: ['p']"),
    ("PUT", "/peers/p", {}, 409, "Unable to create or get peers: ['p']"),
    ("POST", "/peers/alice/chat", {"query": "hi"}, 409, "Unable to create or get peers: ['alice']"),
    ("PUT", "/sessions/s3", {"metadata": {}}, 409, "Unable to create or get session: s3"),
    ("POST", "/sessions/s1/peers", {"alice": {}}, 409, "Unable to create or get session: s1"),
    ("POST", "/scopes", {"id": "work"}, 409, "Unable to create or get scopes: ['scope.work']"),
    ("PUT", "", {"metadata": {"a": 1}}, 500, "An unexpected error occurred"),
    ("PUT", "", {"metadata": {}}, 200, None),
    ("POST", "/webhooks", {"url": "https://example.com/h"}, 500, "An unexpected error occurred"),
    ("POST", "/schedule_dream", {"observer": "alice", "dream_type": "omni"}, 500, None),
    ("POST", "/chat", {"query": "hi"}, 200, None),
    ("DELETE", "", None, 500, "An unexpected error occurred"),
    ("PUT", "/sessions/s1/peers", {"alice": {}}, 404, "Session s1 not found in workspace w2"),
    ("POST", "/peers/list", {}, 200, None),
    # measured within the 1 s TTL of the fuzz's servers (tests/fidelity/fuzz/3.1 seed 3)
    (
        "POST",
        "/sessions/s1/messages",
        {"messages": [{"peer_id": "new.peer", "content": "x"}]},
        409,
        "Unable to create or get session: s1",
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "status", "detail"), CACHED_ONLY)
def test_each_route_in_a_cached_only_workspace(
    reproducing: httpx.Client, method: str, path: str, body: object, status: int, detail: object
) -> None:
    _refuse_a_new_peer(reproducing)
    answer = reproducing.request(method, W2 + path, json=body)
    assert answer.status_code == status, answer.text
    if detail is not None:
        assert answer.json()["detail"] == detail


def test_corrected_a_refused_write_leaves_nothing(clock: Clock) -> None:
    with (
        FakeHoncho(version="3.1", clock=clock, real_bugs="correct") as fake,
        _client(fake) as client,
    ):
        _refuse_a_new_peer(client)
        assert fake.store.get("workspaces", "w2") is None and not fake.workspace_cache
        assert client.post(f"{W2}/sessions", json={"id": "s2"}).status_code == 201
        assert client.post("/v3/workspaces", json={"id": "w3"}).status_code == 201


def test_the_cache_is_3_1s(clock: Clock) -> None:
    """3.0.12 answers the bad author with a 500 and caches nothing."""
    with FakeHoncho(version="3.0.12", clock=clock) as fake, _client(fake) as client:
        body = {"messages": [{"peer_id": "new.peer", "content": "hi"}]}
        assert client.post(f"{W2}/sessions/s1/messages", json=body).status_code == 500
        assert client.post(f"{W2}/sessions", json={"id": "s2"}).status_code == 201


# -- deletion-at-once: the deriver deletes what DELETE accepted --------------------------

W = "/v3/workspaces/w"


def _session_with_a_message(client: httpx.Client) -> None:
    body = {"messages": [{"peer_id": "alice", "content": "hello"}]}
    assert client.post(f"{W}/sessions/s1/messages", json=body).status_code == 201


def _listed(client: httpx.Client) -> int:
    total: int = client.post(f"{W}/sessions/s1/messages/list").json()["total"]
    return total


def test_a_deleted_session_waits_for_a_manual_deriver() -> None:
    with FakeHoncho(deriver="manual") as fake, _client(fake) as client:
        _session_with_a_message(client)
        fake.deriver.run_until_idle()
        assert client.delete(f"{W}/sessions/s1").status_code == 202
        assert _listed(client) == 1  # as a real server shows it before its deriver runs
        assert client.get(f"{W}/sessions/s1/peers").json()["total"] == 1
        [inactive] = client.post(f"{W}/peers/alice/sessions").json()["items"]
        assert inactive["is_active"] is False
        assert client.post(f"{W}/sessions/list").json()["total"] == 0
        assert client.delete(f"{W}/sessions/s1").status_code == 404
        assert client.post(f"{W}/sessions", json={"id": "s1"}).status_code == 404
        status = client.get(f"{W}/queue/status").json()
        assert status["pending_work_units"] == 0  # a deletion is no work unit of the status
        fake.deriver.run_until_idle()
        assert _listed(client) == 0
        assert client.post(f"{W}/peers/alice/sessions").json()["total"] == 0
        assert client.post(f"{W}/sessions", json={"id": "s1"}).status_code == 201


def test_a_deleted_workspace_waits_for_a_manual_deriver() -> None:
    with FakeHoncho(deriver="manual") as fake, _client(fake) as client:
        _session_with_a_message(client)
        assert client.delete(f"{W}/sessions/s1").status_code == 202
        assert client.delete(W).status_code == 202
        assert client.delete(W).status_code == 202  # again, until the deriver has run
        assert client.post("/v3/workspaces/list", json={}).json()["total"] == 1
        assert client.post(f"{W}/peers/list").json()["total"] == 1
        fake.deriver.run_until_idle()
        assert client.post("/v3/workspaces/list", json={}).json()["total"] == 0
        assert client.delete(W).status_code == 404
        assert not fake.deriver.queued() and not list(fake.store.rows("messages"))


@pytest.mark.parametrize(
    ("settings", "why"),
    [
        ({}, "the immediate deriver runs it before the 202"),
        ({"deriver": "manual", "real_bugs": "correct"}, "corrected, whatever the deriver"),
    ],
)
def test_deletion_at_once(settings: dict[str, str], why: str) -> None:
    with FakeHoncho(**settings) as fake, _client(fake) as client:  # type: ignore[arg-type]
        _session_with_a_message(client)
        assert client.delete(f"{W}/sessions/s1").status_code == 202
        assert _listed(client) == 0, why
        assert client.delete(W).status_code == 202
        assert client.delete(W).status_code == 404, why
        assert client.post("/v3/workspaces/list", json={}).json()["total"] == 0


@pytest.mark.parametrize(
    ("version", "real_bugs", "status"),
    [("3.0.12", "reproduce", 500), ("3.0.12", "correct", 422), ("3.1", "reproduce", 422)],
)
def test_removing_a_session_peer_named_with_nul(version: str, real_bugs: str, status: int) -> None:
    """real-nul-lookup-500: 3.0.12 compares the names in PostgreSQL (measured on the real
    3.0.12 and 3.1, tests/fidelity/fuzz); the member stays either way."""
    with (
        FakeHoncho(version=version, real_bugs=real_bugs) as fake,  # type: ignore[arg-type]
        _client(fake) as client,
    ):
        client.post("/v3/workspaces/w/sessions", json={"id": "s", "peers": {"a": {}}})
        names = ["a", "b\x00"]
        removed = client.request("DELETE", "/v3/workspaces/w/sessions/s/peers", json=names)
        assert removed.status_code == status
        members = client.get("/v3/workspaces/w/sessions/s/peers").json()["items"]
        assert [peer["id"] for peer in members] == ["a"]
