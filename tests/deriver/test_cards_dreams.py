"""Peer cards: written only by dreams (and PUT), and what schedule_dream does."""

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


def refresh(client: httpx.Client, fake: FakeHoncho, **body: object) -> None:
    """Run a ``card_refresh`` dream for alice about herself (or as ``body`` says)."""
    pair = {"observer": "alice", "observed": "alice", "dream_type": "card_refresh"}
    assert dream(client, **{**pair, **body}).status_code == 204
    fake.deriver.run_until_idle()


def test_the_deriver_writes_no_card_a_dream_keeps_the_newest_40(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}})
    world.say("s", "alice", *[f"I like thing{n}" for n in range(45)], "I plan to sleep")
    fake.deriver.run_until_idle()
    assert card(client) is None
    refresh(client, fake)
    kept = card(client)
    assert kept is not None and len(kept) == 40
    assert (kept[0], kept[-1]) == ("ATTRIBUTE: likes thing5", "ATTRIBUTE: likes thing44")


def test_card_entries_are_identity_or_attribute_and_plans_stay_off(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}})
    world.say("s", "alice", "My name is Alice. I live in Rome. I hate rain. I plan to ski.")
    fake.deriver.run_until_idle()
    refresh(client, fake)
    assert card(client) == [
        "IDENTITY: name is Alice",
        "ATTRIBUTE: lives in Rome",
        "ATTRIBUTE: hates rain",
    ]


def test_a_refresh_keeps_valid_entries_of_a_put_card_and_drops_the_rest(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}, "bob": {"observe_others": True}})
    put = client.put(
        CARD.format(peer="bob"),
        params={"target": "alice"},
        json={"peer_card": ["RELATIONSHIP: works with bob", "Met at work"]},
    )
    assert put.json() == {"peer_card": ["RELATIONSHIP: works with bob", "Met at work"]}
    world.say("s", "alice", "I live in Rome")
    fake.deriver.run_until_idle()
    refresh(client, fake, observer="bob")
    assert card(client, "bob", target="alice") == [
        "RELATIONSHIP: works with bob",
        "ATTRIBUTE: lives in Rome",
    ]
    assert card(client) is None  # alice's own card waits for her own dream


def test_a_refresh_with_nothing_new_leaves_the_card_be(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}})
    client.put(CARD.format(peer="alice"), json={"peer_card": ["likes tea"]})
    refresh(client, fake)
    assert card(client) == ["likes tea"]
    refresh(client, fake, rebuild=True)
    assert card(client) == ["likes tea"]


def test_peer_card_create_false_stops_dreams_writing_cards(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.configure_workspace({"peer_card": {"create": False}})
    world.session("s", {"alice": {}})
    world.say("s", "alice", "I live in Rome")
    fake.deriver.run_until_idle()
    refresh(client, fake)
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


def test_dreams_refresh_the_card_and_leave_conclusions_be(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}})
    world.say("s", "alice", "I live in Rome")
    fake.deriver.run_until_idle()
    same = {"content": "Alice Lives In Rome", "observer_id": "alice", "observed_id": "alice"}
    client.post("/v3/workspaces/ws/conclusions", json={"conclusions": [same]})
    client.put(CARD.format(peer="alice"), json={"peer_card": ["stale fact"]})
    before = sorted(fake.store.rows("conclusions"), key=lambda row: row["id"])

    assert dream(client, observer="alice", dream_type="omni").status_code == 204
    assert fake.deriver.status("ws")["pending_work_units"] == 1
    fake.deriver.run_until_idle()
    assert sorted(fake.store.rows("conclusions"), key=lambda row: row["id"]) == before
    assert card(client) == ["ATTRIBUTE: lives in Rome"]

    world.say("s", "alice", "I work as a cook")
    fake.deriver.run_until_idle()
    client.put(CARD.format(peer="alice"), json={"peer_card": ["IDENTITY: stale"]})
    refresh(client, fake, rebuild=True)
    assert card(client) == ["ATTRIBUTE: lives in Rome", "ATTRIBUTE: works as a cook"]


@pytest.mark.parametrize(
    "body", [{}, {"observer": "alice"}, {"observer": "alice", "dream_type": "nap"}]
)
def test_dream_validation(client: httpx.Client, world: World, body: dict[str, object]) -> None:
    assert dream(client, **body).status_code == 422
