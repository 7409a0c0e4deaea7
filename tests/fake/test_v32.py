"""What 3.2 adds: conclusion GET, attribution on conclusions and in filters, chat evidence."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.deriver.conclusions import NewConclusion

W = "/v3/workspaces/w"


def _fake(version: str) -> FakeHoncho:
    return FakeHoncho(version=version, strict=True, seed=3)


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with _fake("3.2") as instance:
        yield instance


@pytest.fixture
def client(fake: FakeHoncho) -> Iterator[httpx.Client]:
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as http:
        yield http


def _say(client: httpx.Client, *texts: str) -> None:
    body = {"messages": [{"peer_id": "alice", "content": text} for text in texts]}
    assert client.post(f"{W}/sessions/s1/messages", json=body).status_code == 201


def _derive(fake: FakeHoncho, content: str, sources: list[str], level: str = "deductive") -> str:
    """A conclusion derived from ``sources``, as a dream writes one."""
    with fake.store.lock:
        row = fake.deriver.conclusions.add(
            NewConclusion(
                workspace_id="w",
                id=fake.new_id(),
                content=content,
                observer_id="alice",
                observed_id="alice",
                session_id=None,
                created_at="2026-12-01T00:00:00Z",
                level=level,
                source_ids=sources,
            )
        )
    return str(row["id"])


def _listed(client: httpx.Client, filters: Any) -> list[str]:
    answer = client.post(f"{W}/conclusions/list", json={"filters": filters})
    assert answer.status_code == 200, answer.text
    return sorted(item["content"] for item in answer.json()["items"])


def test_get_conclusion(client: httpx.Client) -> None:
    _say(client, "I love green tea")
    [listed] = client.post(f"{W}/conclusions/list", json={}).json()["items"]
    got = client.get(f"{W}/conclusions/{listed['id']}")
    assert (got.status_code, got.json()) == (200, listed)
    for path in (f"{W}/conclusions/{'A' * 21}", "/v3/workspaces/none/conclusions/" + listed["id"]):
        missing = client.get(path)
        assert (missing.status_code, missing.json()) == (404, {"detail": "Conclusion not found"})


def test_attribution_is_shown_from_3_2_on(client: httpx.Client) -> None:
    _say(client, "I love green tea")
    [item] = client.post(f"{W}/conclusions/list", json={}).json()["items"]
    assert list(item) == [
        "id",
        "content",
        "observer_id",
        "observed_id",
        "session_id",
        "level",
        "source_ids",
        "times_derived",
        "created_at",
    ]
    assert (item["source_ids"], item["times_derived"]) == (None, 1)


@pytest.mark.parametrize("version", ["3.0.12", "3.1"])
def test_before_3_2_no_get_no_attribution(version: str) -> None:
    with _fake(version) as fake, httpx.Client(transport=fake.transport(), base_url="http://f") as c:
        _say(c, "I love green tea")
        [item] = c.post(f"{W}/conclusions/list", json={}).json()["items"]
        assert "source_ids" not in item and "times_derived" not in item
        assert c.get(f"{W}/conclusions/{item['id']}").status_code == 405
        refused = c.post(f"{W}/conclusions/list", json={"filters": {"source_ids": item["id"]}})
        assert refused.status_code == 422


def test_source_ids_filters(fake: FakeHoncho, client: httpx.Client) -> None:
    _say(client, "I love green tea", "I live in Oslo")
    tea, oslo = (
        row["id"]
        for row in sorted(fake.deriver.conclusions.in_workspace("w"), key=lambda r: r["_seq"])
    )
    _derive(fake, "alice drinks tea in Oslo", [tea, oslo])
    _derive(fake, "alice likes hot drinks", [tea], level="inductive")
    both, hot = ["alice drinks tea in Oslo"], ["alice likes hot drinks"]
    assert _listed(client, {"source_ids": tea}) == both + hot
    assert _listed(client, {"source_ids": {"contains": oslo}}) == both
    assert _listed(client, {"source_ids": [tea, oslo]}) == both
    assert _listed(client, {"source_ids": {"in": [oslo, "B" * 21]}}) == both
    assert _listed(client, {"NOT": [{"source_ids": oslo}], "level": "inductive"}) == hot
    assert len(_listed(client, {"source_ids": {"in": []}})) == 4
    view = client.post(f"{W}/conclusions/list", json={"filters": {"id": tea}}).json()["items"]
    assert view[0]["source_ids"] is None
    derived = client.post(f"{W}/conclusions/list", json={"filters": {"source_ids": oslo}})
    assert derived.json()["items"][0]["source_ids"] == [tea, oslo]


@pytest.mark.parametrize(
    ("filters", "detail"),
    [
        ({"source_ids": 5}, "Invalid source_ids filter value: 5"),
        ({"source_ids": None}, "Invalid source_ids filter value: None"),
        ({"source_ids": [""]}, "source_ids filter entries must be non-empty strings"),
        ({"source_ids": {"contains": 5}}, "source_ids filter entries must be non-empty strings"),
        ({"source_ids": {"in": "a"}}, "Invalid value for 'in' operator: a. Expected an iterable"),
        ({"source_ids": {"gt": "a"}}, "Operator 'gt' is not supported on source_ids"),
    ],
)
def test_source_ids_filter_errors(client: httpx.Client, filters: Any, detail: str) -> None:
    answer = client.post(f"{W}/conclusions/list", json={"filters": filters})
    assert (answer.status_code, answer.json()) == (422, {"detail": detail})


def test_times_derived_filter_at_every_version() -> None:
    for version in ("3.0.12", "3.2"):
        with (
            _fake(version) as fake,
            httpx.Client(transport=fake.transport(), base_url="http://f") as c,
        ):
            _say(c, "I love green tea")
            assert _listed(c, {"times_derived": {"gte": 2}}) == []
            assert _listed(c, {"times_derived": 1}) == ["alice loves green tea"]


def test_chat_evidence_plain_and_streamed(fake: FakeHoncho, client: httpx.Client) -> None:
    _say(client, "I love green tea")
    [row] = fake.deriver.conclusions.in_workspace("w")
    expected = {
        "conclusions": [
            {
                "id": row["id"],
                "level": "explicit",
                "content": "alice loves green tea",
                "created_at": row["created_at"],
                "session_id": "s1",
                "source_ids": [],
            }
        ],
        "messages": [],
        "tool_calls": [],
        "reasoning_trace_id": None,
    }
    route = f"{W}/peers/alice/chat"
    asked = {"query": "what tea?", "include_evidence": True}
    plain = client.post(route, json=asked).json()
    assert plain["evidence"] == expected and "green tea" in plain["content"]
    assert "evidence" not in client.post(route, json={"query": "what tea?"}).json()
    events = [
        json.loads(line.removeprefix("data: "))
        for line in client.post(route, json={**asked, "stream": True}).text.splitlines()
        if line
    ]
    assert events[-1] == {"done": True, "evidence": expected}
    assert all("evidence" not in event for event in events[:-1])


def test_chat_evidence_names_the_message_it_quotes(client: httpx.Client) -> None:
    # bob is not observed, so nothing is derived: only his message can answer
    client.post(f"{W}/peers", json={"id": "bob", "configuration": {"observe_me": False}})
    body = {"messages": [{"peer_id": "bob", "content": "Oslo is cold in winter"}]}
    client.post(f"{W}/sessions/s1/messages", json=body)
    asked = {"query": "how is Oslo?", "include_evidence": True}
    answer = client.post(f"{W}/peers/bob/chat", json=asked).json()
    assert "Oslo is cold in winter" in answer["content"]
    assert answer["evidence"]["conclusions"] == []
    [message] = answer["evidence"]["messages"]
    assert set(message) == {"id", "session_id", "peer_id", "created_at"}
    assert (message["session_id"], message["peer_id"]) == ("s1", "bob")


def test_source_ids_is_a_jsonb_column_at_3_1() -> None:
    """Before 3.2 the column is JSONB: containment of a list or object, nothing else."""
    with _fake("3.1") as fake, httpx.Client(transport=fake.transport(), base_url="http://f") as c:
        _say(c, "I love green tea")
        [tea] = [row["id"] for row in fake.deriver.conclusions.in_workspace("w")]
        _derive(fake, "alice likes hot drinks", [tea])
        assert _listed(c, {"source_ids": {"contains": [tea]}}) == ["alice likes hot drinks"]
        assert _listed(c, {"source_ids": None}) == ["alice loves green tea"]
        refused = c.post(f"{W}/conclusions/list", json={"filters": {"source_ids": tea}})
        assert refused.json() == {
            "detail": "Invalid filter for column 'source_ids': a JSONB column takes an "
            "object, optionally under 'contains'"
        }
