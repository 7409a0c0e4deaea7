"""The conclusion routes: create, list, query and delete, with Honcho's errors."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho

from .support import World

# 3.1's text (the default version): 3.0.12 stops at "semantic search" (tests/fidelity/fuzz)
UNPAIRED = (
    "observer and observed must be specified for semantic search. Pass them inside the "
    '\'filters\' object, e.g. {"query": "...", "filters": {"observer": "alice", '
    "\"observed\": \"bob\"}}. Both 'observer'/'observer_id' and 'observed'/'observed_id' "
    "are accepted."
)

C = "/v3/workspaces/ws/conclusions"


def create(client: httpx.Client, *items: dict[str, Any]) -> list[dict[str, Any]]:
    response = client.post(C, json={"conclusions": list(items)})
    assert response.status_code == 201, response.text
    created: list[dict[str, Any]] = response.json()
    return created


@pytest.fixture
def stocked(client: httpx.Client, world: World) -> list[dict[str, Any]]:
    world.session("s", {"alice": {}, "bob": {}})
    return create(
        client,
        {"content": "alice likes green tea", "observer_id": "alice", "observed_id": "alice"},
        {
            "content": "alice owns a bike",
            "observer_id": "alice",
            "observed_id": "alice",
            "session_id": "s",
        },
        {"content": "alice drinks tea daily", "observer_id": "bob", "observed_id": "alice"},
    )


def test_create_returns_the_real_fields(stocked: list[dict[str, Any]]) -> None:
    first = stocked[0]
    assert set(first) == {
        "id",
        "content",
        "observer_id",
        "observed_id",
        "session_id",
        "level",
        "created_at",
    }
    assert (first["level"], first["session_id"], len(first["id"])) == ("explicit", None, 21)
    assert stocked[1]["session_id"] == "s"


def test_create_accepts_the_legacy_key(client: httpx.Client, stocked: list[dict[str, Any]]) -> None:
    body = {"observations": [{"content": "x", "observer_id": "bob", "observed_id": "bob"}]}
    assert client.post(C, json=body).status_code == 201


@pytest.mark.parametrize(
    ("item", "detail"),
    [
        ({"observer_id": "ghost", "observed_id": "alice"}, "Peer ghost not found in workspace ws"),
        ({"observer_id": "alice", "observed_id": "ghost"}, "Peer ghost not found in workspace ws"),
        (
            {"observer_id": "alice", "observed_id": "alice", "session_id": "nope"},
            "Session nope not found in workspace ws",
        ),
    ],
)
def test_create_needs_existing_peers_and_session(
    client: httpx.Client, stocked: list[dict[str, Any]], item: dict[str, Any], detail: str
) -> None:
    response = client.post(C, json={"conclusions": [{"content": "x", **item}]})
    assert (response.status_code, response.json()) == (404, {"detail": detail})
    assert client.post(f"{C}/list").json()["total"] == 3


@pytest.mark.parametrize(
    "body",
    [
        {"conclusions": []},
        {"conclusions": [{"content": "", "observer_id": "alice", "observed_id": "alice"}]},
        {"conclusions": [{"content": "x", "observer_id": "alice"}]},
    ],
)
def test_create_validation(client: httpx.Client, stocked: list[dict[str, Any]], body: Any) -> None:
    response = client.post(C, json=body)
    assert response.status_code == 422
    assert isinstance(response.json()["detail"], list)


def test_list_is_newest_first_with_filters_pages_and_reverse(
    client: httpx.Client, stocked: list[dict[str, Any]]
) -> None:
    ids = [row["id"] for row in stocked]
    listed = client.post(f"{C}/list").json()
    assert [row["id"] for row in listed["items"]] == ids[::-1]
    reverse = client.post(f"{C}/list", params={"reverse": "true"}).json()
    assert [row["id"] for row in reverse["items"]] == ids
    page = client.post(f"{C}/list", params={"page": 2, "size": 2}).json()
    assert ([row["id"] for row in page["items"]], page["total"], page["pages"]) == ([ids[0]], 3, 2)
    mine = client.post(
        f"{C}/list", json={"filters": {"observer_id": "alice", "observed_id": "alice"}}
    )
    assert [row["id"] for row in mine.json()["items"]] == ids[1::-1]
    raw = client.post(f"{C}/list", json={"filters": {"observer": "bob", "session_id": None}})
    assert [row["id"] for row in raw.json()["items"]] == [ids[2]]
    bad = client.post(f"{C}/list", json={"filters": {"bogus": 1}})
    assert bad.status_code == 422


def test_query_ranks_by_embedding_distance(
    client: httpx.Client, stocked: list[dict[str, Any]]
) -> None:
    pair = {"observer": "alice", "observed": "alice"}
    hits = client.post(f"{C}/query", json={"query": "green tea", "filters": pair}).json()
    assert [row["content"] for row in hits] == ["alice likes green tea", "alice owns a bike"]
    top = client.post(f"{C}/query", json={"query": "bike", "top_k": 1, "filters": pair}).json()
    assert [row["content"] for row in top] == ["alice owns a bike"]
    # the shared embedder: 0.557 from "alice likes green tea", 1.003 from "alice owns a bike"
    close = client.post(
        f"{C}/query", json={"query": "tea", "distance": 0.6, "filters": pair}
    ).json()
    assert [row["content"] for row in close] == ["alice likes green tea"]
    far = {"query": "tea", "distance": 0.5, "filters": pair}
    assert client.post(f"{C}/query", json=far).json() == []
    long = {"query": "tea " * 9000, "filters": pair}
    assert client.post(f"{C}/query", json=long).json() == {
        "detail": "Query exceeds maximum token limit of 8192."
    }
    scoped = {"observer_id": "alice", "observed_id": "alice", "session_id": "s"}
    assert [
        row["content"]
        for row in client.post(f"{C}/query", json={"query": "tea", "filters": scoped}).json()
    ] == ["alice owns a bike"]


@pytest.mark.parametrize("filters", [None, {}, {"observer": "alice"}, {"observed_id": "alice"}])
def test_query_needs_observer_and_observed(
    client: httpx.Client, stocked: list[dict[str, Any]], filters: Any
) -> None:
    response = client.post(f"{C}/query", json={"query": "tea", "filters": filters})
    assert (response.status_code, response.json()) == (
        422,
        {"detail": UNPAIRED},
    )


def test_delete(client: httpx.Client, fake: FakeHoncho, stocked: list[dict[str, Any]]) -> None:
    target = stocked[0]["id"]
    assert client.delete(f"{C}/{target}").status_code == 204
    again = client.delete(f"{C}/{target}")
    assert (again.status_code, again.json()) == (
        404,
        {"detail": f"Document {target} not found or does not belong to workspace ws"},
    )
    assert client.delete(f"/v3/workspaces/other/conclusions/{stocked[1]['id']}").status_code == 404
    assert client.post(f"{C}/list").json()["total"] == 2


def test_one_deriver_batch_shares_one_created_at_per_pair(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}, "bob": {"observe_others": True}})
    world.say("s", "alice", "I like tea. I live in Rome.", "I hate rain")
    world.say("s", "alice", "I work as a cook")
    fake.deriver.run_until_idle()
    stamps: dict[tuple[str, str], set[str]] = {}
    for row in fake.store.rows("conclusions"):
        stamps.setdefault((row["observer_id"], row["content"]), set()).add(row["created_at"])
    first = {
        row["created_at"]
        for row in fake.store.rows("conclusions")
        if row["observer_id"] == "alice" and "cook" not in row["content"]
    }
    assert len(first) == 1  # three conclusions of the first request, one time
    (cook,) = stamps[("alice", "alice works as a cook")]
    assert cook not in first  # the second request is another batch
    assert stamps[("bob", "alice likes tea")] != stamps[("alice", "alice likes tea")]


def test_a_repeat_reinforces_within_a_session_and_is_new_in_another(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s1", {"alice": {}})
    world.session("s2", {"alice": {}})
    world.say("s1", "alice", "I like tea", " I LIKE TEA")
    world.say("s2", "alice", "I like tea")
    fake.deriver.run_until_idle()
    rows = sorted(fake.store.rows("conclusions"), key=lambda row: row["session_id"])
    assert [(row["session_id"], row["times_derived"]) for row in rows] == [("s1", 2), ("s2", 1)]
