"""Scopes (3.1) beyond what the recorded exchanges show: the backfill and removal jobs, and
that scoped recall never reaches a session outside the scope.

The real server derives nothing without an LLM, so these behaviours were read from its
source (src/crud/scope.py, src/deriver/scope_backfill.py, src/routers/peers.py) rather
than recorded; the exchanges in tests/fidelity/exchanges/3.1/ cover every refusal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.http.ignored import IgnoredFieldWarning

W = "/v3/workspaces/w"
KEY = "sk-scopes-test"
NEEDS_WORKSPACE_KEY = "`scope` requires a workspace- or admin-level key"


def client_of(fake: FakeHoncho, **headers: str) -> httpx.Client:
    return httpx.Client(transport=fake.transport(), base_url="http://fake", headers=headers)


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(version="3.1", strict=True, seed=3) as instance:
        yield instance


@pytest.fixture
def client(fake: FakeHoncho) -> Iterator[httpx.Client]:
    with client_of(fake) as http:
        yield http


def say(client: httpx.Client, session: str, peer: str, text: str) -> None:
    body = {"messages": [{"peer_id": peer, "content": text}]}
    client.post(f"{W}/sessions/{session}/messages", json=body).raise_for_status()


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json() if response.content else None


def representation(client: httpx.Client, peer: str, **body: Any) -> str:
    text: str = ok(client.post(f"{W}/peers/{peer}/representation", json=body))["representation"]
    return text


@pytest.fixture
def two_sessions(client: httpx.Client) -> httpx.Client:
    """alice likes tea in s1 (a member of scope ``work``) and lives in Paris in s2 (none)."""
    ok(client.post(f"{W}/sessions", json={"id": "s1", "peers": {"alice": {}}}), 201)
    ok(client.post(f"{W}/sessions", json={"id": "s2", "peers": {"alice": {}}}), 201)
    ok(client.post(f"{W}/scopes", json={"id": "work"}), 201)
    ok(client.post(f"{W}/scopes", json={"id": "empty"}), 201)
    ok(client.post(f"{W}/scopes/work/sessions", json={"session_ids": ["s1"]}), 204)
    say(client, "s1", "alice", "I like tea")
    say(client, "s2", "alice", "I live in Paris")
    return client


def test_backfill_copies_what_was_derived_before_the_session_joined() -> None:
    with FakeHoncho(version="3.1", deriver="manual") as fake, client_of(fake) as client:
        say(client, "s1", "alice", "I like tea")
        fake.deriver.run_until_idle()
        ok(client.post(f"{W}/scopes", json={"id": "work"}), 201)
        ok(client.post(f"{W}/scopes/work/sessions", json={"session_ids": ["s1"]}), 204)
        status = ok(client.get(f"{W}/scopes/work/status"))["backfill_status"]
        assert status["s1"]["state"] == "pending" and "docs_copied" not in status["s1"]
        assert status["s1"]["updated_at"].endswith("+00:00")  # the server's isoformat()
        assert ok(client.get(f"{W}/queue/status"))["total_work_units"] == 1  # internal work
        assert representation(client, "alice", scope="work") == ""
        fake.deriver.run_until_idle()
        status = ok(client.get(f"{W}/scopes/work/status"))["backfill_status"]
        assert status["s1"]["state"] == "completed" and status["s1"]["docs_copied"] == 1
        assert "alice likes tea" in representation(client, "alice", scope="work")


def test_removal_takes_the_copies_out_and_a_re_add_restores_the_same_ones(
    client: httpx.Client,
) -> None:
    say(client, "s1", "alice", "I like tea")
    ok(client.post(f"{W}/scopes", json={"id": "work"}), 201)
    ok(client.post(f"{W}/scopes/work/sessions", json={"session_ids": ["s1"]}), 204)
    mine = {"filters": {"observer": "scope.work"}}
    copies = ok(client.post(f"{W}/conclusions/list", json=mine))
    assert [row["content"] for row in copies["items"]] == ["alice likes tea"]
    ok(client.delete(f"{W}/scopes/work/sessions/s1"), 204)
    assert ok(client.post(f"{W}/conclusions/list", json=mine))["items"] == []
    assert representation(client, "alice", scope="work") == ""
    assert ok(client.get(f"{W}/scopes/work/status")) == {"backfill_status": {}}
    ok(client.post(f"{W}/scopes/work/sessions", json={"session_ids": ["s1"]}), 204)
    status = ok(client.get(f"{W}/scopes/work/status"))["backfill_status"]
    assert status["s1"]["docs_copied"] == 1
    again = ok(client.post(f"{W}/conclusions/list", json=mine))
    assert [row["id"] for row in again["items"]] == [row["id"] for row in copies["items"]]


def test_removal_also_takes_out_what_the_scope_derived_itself(two_sessions: httpx.Client) -> None:
    """Derived while s1 was a member (not a copy); a re-add copies alice's own conclusion."""
    client = two_sessions
    assert "tea" in representation(client, "alice", scope="work")
    ok(client.delete(f"{W}/scopes/work/sessions/s1"), 204)
    assert representation(client, "alice", scope="work") == ""
    ok(client.post(f"{W}/scopes/work/sessions", json={"session_ids": ["s1"]}), 204)
    assert "tea" in representation(client, "alice", scope="work")


def test_a_scoped_read_never_returns_data_from_a_session_outside_the_scope(
    two_sessions: httpx.Client,
) -> None:
    client = two_sessions
    # unscoped, alice's own view holds both sessions: the scoped reads below can fail
    everything = representation(client, "alice")
    assert "tea" in everything and "Paris" in everything
    for scope in ("work", ["work"], ["work", "empty"]):
        scoped = representation(client, "alice", scope=scope)
        assert "tea" in scoped and "Paris" not in scoped, scope
    assert representation(client, "alice", scope="empty") == ""
    assert representation(client, "alice", scope=["empty"]) == ""

    question = {"query": "where does alice live?"}
    assert "Paris" in ok(client.post(f"{W}/peers/alice/chat", json=question))["content"]
    for scope in ("work", ["work"]):
        answer = ok(client.post(f"{W}/peers/alice/chat", json={**question, "scope": scope}))
        assert "Paris" not in answer["content"], scope

    # Embeddings on: a search also answers the nearest messages, but never outside the scope.
    hits = ok(client.post(f"{W}/search", json={"query": "Paris", "limit": 1}))
    assert [hit["session_id"] for hit in hits] == ["s2"]
    confined = ok(client.post(f"{W}/search", json={"query": "Paris", "scope": "work"}))
    assert {hit["session_id"] for hit in confined} == {"s1"}
    assert all("Paris" not in hit["content"] for hit in confined)
    found = ok(client.post(f"{W}/search", json={"query": "tea", "scope": "work"}))
    assert {hit["session_id"] for hit in found} == {"s1"}

    context = ok(
        client.get(f"{W}/sessions/s1/context", params={"peer_target": "alice", "scope": "work"})
    )
    assert "tea" in context["peer_representation"]
    assert "Paris" not in context["peer_representation"]


def test_messages_after_joining_reach_the_scope_through_the_deriver(
    two_sessions: httpx.Client,
) -> None:
    client = two_sessions
    say(client, "s1", "alice", "I like chess")
    say(client, "s2", "alice", "I like golf")
    scoped = representation(client, "alice", scope="work")
    assert "chess" in scoped and "golf" not in scoped


def test_a_peer_that_merely_holds_a_scope_name_is_no_scope(
    fake: FakeHoncho, client: httpx.Client
) -> None:
    """Such a peer predates the name rules; the server never adopts it as a scope."""
    with fake.store.lock:
        row = {"id": "scope.old", "workspace_id": "w", "metadata": {}, "configuration": {}}
        fake.store.put("workspaces", "w", {"id": "w", "metadata": {}, "configuration": {}})
        fake.store.put("peers", ("w", "scope.old"), {**row, "created_at": "2026-01-01T00:00:00Z"})
    conflict = client.post(f"{W}/scopes", json={"id": "old"})
    assert conflict.status_code == 409
    assert conflict.json()["detail"] == (
        "A peer named 'scope.old' already exists in workspace w but is not a scope. "
        "Rename or delete that peer before creating this scope."
    )
    assert ok(client.get(f"{W}/scopes/old"), 404)["detail"] == "Scope old not found in workspace w"
    refused = client.post(f"{W}/peers/alice/representation", json={"scope": "old"})
    assert (refused.status_code, refused.json()["detail"]) == (
        422,
        "'old' does not name a scope: a non-scope peer occupies its reserved name.",
    )
    listed = ok(client.post(f"{W}/peers/list"))["items"]
    assert [peer["id"] for peer in listed] == ["scope.old"]


def test_scope_surfaces_refuse_peer_and_session_level_keys() -> None:
    with FakeHoncho(version="3.1", api_key=KEY) as fake:
        admin = client_of(fake, Authorization=f"Bearer {KEY}")
        ok(admin.post(f"{W}/sessions", json={"id": "s1", "peers": {"alice": {}}}), 201)
        ok(admin.post(f"{W}/scopes", json={"id": "work"}), 201)

        def key(**scope: str) -> httpx.Client:
            issued = ok(admin.post("/v3/keys", params=scope))["key"]
            return client_of(fake, Authorization=f"Bearer {issued}")

        workspace = key(workspace_id="w")
        assert ok(workspace.get(f"{W}/scopes/work"))["id"] == "work"
        assert representation(workspace, "alice", scope="work") == ""
        other = key(workspace_id="elsewhere")
        assert other.get(f"{W}/scopes/work").status_code == 401
        narrow_keys = (
            key(workspace_id="w", peer_id="alice"),
            key(workspace_id="w", session_id="s1"),
        )
        # a session key never reaches a peer route; alice's key reaches hers, not `scope`
        peer_route_refusal = (NEEDS_WORKSPACE_KEY, "JWT not permissioned for this resource")
        for narrow, expected in zip(narrow_keys, peer_route_refusal, strict=True):
            refused = narrow.get(f"{W}/scopes/work")
            assert refused.json() == {"detail": "JWT not permissioned for this resource"}
            for path, body in (
                ("/peers/alice/representation", {"scope": "work"}),
                ("/peers/alice/chat", {"query": "hi", "scope": "work"}),
            ):
                refused = narrow.post(W + path, json=body)
                assert refused.status_code == 401
                assert refused.json()["detail"] == expected
            refused = narrow.get(
                f"{W}/sessions/s1/context", params={"peer_target": "alice", "scope": "work"}
            )
            assert refused.json()["detail"] == NEEDS_WORKSPACE_KEY
            refused = narrow.post(f"{W}/sessions", json={"id": "s1", "scopes": ["work"]})
            assert (refused.status_code, refused.json()["detail"]) == (
                401,
                "Scope membership requires a workspace-level key",
            )


def test_3_0_12_has_no_scopes() -> None:
    with FakeHoncho(version="3.0.12") as fake, client_of(fake) as client:
        assert client.post(f"{W}/scopes", json={"id": "work"}).status_code == 404
        with pytest.warns(IgnoredFieldWarning, match="ignores the field `scopes`"):
            ok(client.post(f"{W}/sessions", json={"id": "s1", "scopes": ["work"]}), 201)
        assert ok(client.post(f"{W}/peers/list"))["items"] == []
        refused = client.post(f"{W}/peers", json={"id": "scope.x"})
        assert refused.status_code == 422  # the id grammar, as before


def test_scope_rows_survive_a_state_file(tmp_path: Any) -> None:
    path = tmp_path / "state.ndjson"
    with FakeHoncho(version="3.1", state_file=path) as fake, client_of(fake) as client:
        ok(client.post(f"{W}/sessions", json={"id": "s1", "scopes": ["work"]}), 201)
    with FakeHoncho(version="3.1", state_file=path) as fake, client_of(fake) as client:
        assert [s["id"] for s in ok(client.post(f"{W}/scopes/list"))["items"]] == ["work"]
        sessions = ok(client.post(f"{W}/scopes/work/sessions/list"))["items"]
        assert [s["id"] for s in sessions] == ["s1"]
        assert ok(client.post(f"{W}/peers/list"))["items"] == []


def test_a_list_of_scopes_spans_at_most_1000_sessions(client: httpx.Client) -> None:
    for name in ("a", "b"):
        ok(client.post(f"{W}/scopes", json={"id": name}), 201)
    for n in range(1001):
        ok(client.post(f"{W}/sessions", json={"id": f"s{n}"}), 201)
    ids = [f"s{n}" for n in range(1001)]
    for start in range(0, 1001, 100):
        batch = {"session_ids": ids[start : start + 100]}
        ok(client.post(f"{W}/scopes/{'a' if start < 600 else 'b'}/sessions", json=batch), 204)
    assert representation(client, "alice", scope=["a"]) == ""
    refused = client.post(f"{W}/peers/alice/representation", json={"scope": ["a", "b"]})
    assert (refused.status_code, refused.json()["detail"]) == (
        422,
        "The scopes' combined membership exceeds the maximum of 1000 sessions per request",
    )
