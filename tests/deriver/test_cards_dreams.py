"""Peer cards kept by the deriver, and what schedule_dream does."""

from __future__ import annotations

import httpx
import pytest

from fake_honcho import FakeHoncho

from .support import World

CARD = "/v3/workspaces/ws/peers/{peer}/card"


def card(client: httpx.Client, peer: str = "alice", **params: str) -> list[str] | None:
    response = client.get(CARD.format(peer=peer), params=params)
    assert response.status_code == 200, response.text
    found: list[str] | None = response.json()["peer_card"]
    return found


def test_card_keeps_the_newest_40_stable_facts(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}})
    world.say("s", "alice", *[f"I like thing{n}" for n in range(45)], "I plan to sleep")
    fake.deriver.run_until_idle()
    kept = card(client)
    assert kept is not None and len(kept) == 40
    assert (kept[0], kept[-1]) == ("PREFERENCE: likes thing5", "PREFERENCE: likes thing44")


def test_a_card_set_through_the_api_is_kept_and_extended(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}, "bob": {"observe_others": True}})
    put = client.put(
        CARD.format(peer="bob"), params={"target": "alice"}, json={"peer_card": ["Met at work"]}
    )
    assert put.json() == {"peer_card": ["Met at work"]}
    world.say("s", "alice", "I live in Rome")
    fake.deriver.run_until_idle()
    assert card(client, "bob", target="alice") == ["Met at work", "LOCATION: lives in Rome"]
    assert card(client, "alice") == ["LOCATION: lives in Rome"]


def test_peer_card_create_false_stops_the_deriver_writing_cards(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}}, configuration={"peer_card": {"create": False}})
    world.say("s", "alice", "I live in Rome")
    fake.deriver.run_until_idle()
    assert card(client) is None
    assert fake.store.count("conclusions") == 1


def test_put_card_validates_and_creates_peers(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    assert client.put(CARD.format(peer="new"), json={"peer_card": "nope"}).status_code == 422
    assert client.put(CARD.format(peer="new"), json={}).status_code == 422
    ok = client.put(CARD.format(peer="new"), params={"target": "other"}, json={"peer_card": []})
    assert ok.json() == {"peer_card": []}
    assert fake.store.get("peers", ("ws", "other")) is not None


def dream(client: httpx.Client, **body: object) -> httpx.Response:
    return client.post("/v3/workspaces/ws/schedule_dream", json=body)


def test_dream_merges_duplicates_and_refreshes_the_card(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}})
    world.say("s", "alice", "I live in Rome")
    fake.deriver.run_until_idle()
    same = {"content": "Alice Lives In Rome", "observer_id": "alice", "observed_id": "alice"}
    client.post("/v3/workspaces/ws/conclusions", json={"conclusions": [same]})
    client.put(CARD.format(peer="alice"), json={"peer_card": ["stale fact"]})
    assert fake.store.count("conclusions") == 2

    assert dream(client, observer="alice", dream_type="omni").status_code == 204
    assert fake.deriver.status("ws")["pending_work_units"] == 1
    fake.deriver.run_until_idle()
    (kept,) = fake.store.rows("conclusions")
    assert (kept["content"], kept["times_derived"]) == ("alice lives in Rome", 2)
    assert card(client) == ["stale fact", "LOCATION: lives in Rome"]

    dream(client, observer="alice", observed="alice", dream_type="card_refresh", rebuild=True)
    fake.deriver.run_until_idle()
    assert card(client) == ["LOCATION: lives in Rome"]


@pytest.mark.parametrize(
    "body", [{}, {"observer": "alice"}, {"observer": "alice", "dream_type": "nap"}]
)
def test_dream_validation(client: httpx.Client, world: World, body: dict[str, object]) -> None:
    assert dream(client, **body).status_code == 422
