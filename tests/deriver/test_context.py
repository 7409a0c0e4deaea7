"""Session context: Honcho's token-budget arithmetic, summaries and the 422s."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.deriver.representation import Selection, render_plain, select
from fake_honcho.store.tokens import token_count

from .support import World, make_fake

CONTEXT = "/v3/workspaces/ws/sessions/s/context"


def context(client: httpx.Client, **params: Any) -> dict[str, Any]:
    response = client.get(CONTEXT, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def contents(body: dict[str, Any]) -> list[str]:
    return [message["content"] for message in body["messages"]]


@pytest.fixture
def chatter(fake: FakeHoncho, world: World) -> list[str]:
    world.session("s", {"alice": {"observe_me": False}})
    lines = [f"line {n} " + "word " * n for n in range(1, 6)]
    world.say("s", "alice", *lines)
    return lines


def test_most_recent_messages_that_fit_oldest_first(
    client: httpx.Client, chatter: list[str]
) -> None:
    last_three = sum(token_count(line) for line in chatter[-3:])
    assert contents(context(client, tokens=last_three)) == chatter[-3:]
    assert contents(context(client, tokens=last_three - 1)) == chatter[-2:]
    assert contents(context(client)) == chatter


def test_a_message_that_does_not_fit_stops_the_walk(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {"observe_me": False}})
    world.say("s", "alice", "small one", "big " * 200, "small two")
    room = token_count("small one") + token_count("small two")
    # The running sum passes the budget at the big message, so the older small one is
    # not taken either, as with Honcho's running-sum window.
    assert contents(context(client, tokens=room)) == ["small two"]


@pytest.mark.parametrize("tokens", [0, -5])
def test_no_budget_no_messages(client: httpx.Client, chatter: list[str], tokens: int) -> None:
    body = context(client, tokens=tokens)
    assert (body["messages"], body["summary"]) == ([], None)


def test_unknown_session_is_empty_not_404(client: httpx.Client, world: World) -> None:
    assert context(client) == {
        "id": "s",
        "messages": [],
        "summary": None,
        "peer_representation": None,
        "peer_card": None,
    }


@pytest.fixture
def long_session(fake: FakeHoncho, world: World) -> list[str]:
    world.session("s", {"alice": {"observe_me": False}})
    lines = [f"message number {n} says something" for n in range(1, 66)]
    world.say("s", "alice", *lines)
    fake.deriver.run_until_idle()
    return lines


def test_summary_takes_at_most_40_percent(client: httpx.Client, long_session: list[str]) -> None:
    summaries = client.get("/v3/workspaces/ws/sessions/s/summaries").json()
    short, long = summaries["short_summary"], summaries["long_summary"]
    assert long["token_count"] > short["token_count"]

    # The long summary fits in 40 %: it is used, and the messages start at the last
    # message it covers (inclusive) and share what is left of the budget.
    tokens = -(-long["token_count"] * 10 // 4)
    body = context(client, tokens=tokens)
    assert body["summary"] == long
    assert body["messages"][0]["id"] == long["message_id"]
    assert contents(body) == long_session[59:]
    spent = sum(message["token_count"] for message in body["messages"])
    assert spent <= tokens - long["token_count"]

    # Only the short one fits: it is used instead.
    tokens = -(-short["token_count"] * 10 // 4)
    body = context(client, tokens=tokens)
    assert body["summary"] == short
    assert body["messages"][0]["id"] == short["message_id"]

    # Neither fits, or summaries are not wanted: all the budget goes to messages.
    assert context(client, tokens=short["token_count"])["summary"] is None
    assert context(client, summary="false")["summary"] is None
    assert contents(context(client, summary="false")) == long_session


def test_peer_target_charges_representation_and_card_first(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}})
    lines = ["I like tea", "I live in Oslo", "ok then", "sure thing"]
    world.say("s", "alice", *lines)
    fake.deriver.schedule_dream("ws", "alice", "alice", "card_refresh")
    fake.deriver.run_until_idle()
    rows = select(
        fake.deriver.conclusions.of_pair("ws", "alice", "alice"), Selection(), fake.nearness
    )
    card = fake.store.get("peer_cards", ("ws", "alice", "alice"))["peer_card"]
    charged = token_count(render_plain(rows)) + token_count("\n".join(card))
    assert render_plain(rows).startswith("EXPLICIT:\n\n1. [")
    tokens = charged + token_count("ok then") + token_count("sure thing")

    body = context(client, tokens=tokens, peer_target="alice")
    assert contents(body) == ["ok then", "sure thing"]
    assert body["peer_card"] == ["ATTRIBUTE: likes tea", "ATTRIBUTE: lives in Oslo"]
    assert body["peer_representation"].startswith("## Explicit Observations\n\n")
    assert "alice lives in Oslo" in body["peer_representation"]
    # The representation and card are returned whole even when they exceed the budget.
    starved = context(client, tokens=1, peer_target="alice")
    assert (starved["messages"], starved["peer_card"]) == ([], body["peer_card"])
    assert starved["peer_representation"] == body["peer_representation"]


def test_peer_perspective_reads_the_observers_view(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}, "bob": {"observe_others": True}})
    world.say("s", "alice", "I like tea")
    fake.deriver.run_until_idle()
    body = context(client, peer_target="alice", peer_perspective="bob")
    assert "alice likes tea" in body["peer_representation"]
    assert context(client, peer_target="bob", peer_perspective="alice")["peer_representation"] == ""


def test_errors(client: httpx.Client, world: World) -> None:
    too_many = client.get(CONTEXT, params={"tokens": 100001})
    assert too_many.status_code == 422
    assert too_many.json() == {
        "detail": [
            {
                "type": "less_than_equal",
                "loc": ["query", "tokens"],
                "msg": "Input should be less than or equal to 100000",
                "input": "100001",
                "ctx": {"le": 100000},
            }
        ]
    }
    lonely = client.get(CONTEXT, params={"peer_perspective": "bob"})
    assert (lonely.status_code, lonely.json()) == (
        422,
        {"detail": "peer_target must be provided if peer_perspective is provided"},
    )


def _two_sessions(fake: FakeHoncho, world: World) -> None:
    world.session("s", {"alice": {}})
    world.session("t", {"alice": {}})
    world.say("s", "alice", "I like tea")
    world.say("t", "alice", "I live in Oslo")
    world.http.put("/v3/workspaces/ws/peers/alice/card", json={"peer_card": ["likes tea"]})
    fake.deriver.run_until_idle()


def _facts(client: httpx.Client, **params: Any) -> tuple[list[str], Any]:
    body = context(client, peer_target="alice", **params)
    lines = body["peer_representation"].splitlines()[2:]
    return [line.split("] ", 1)[1] for line in lines], body["peer_card"]


def test_representation_limit_to_session_and_sessions_ignored_at_3012() -> None:
    """3.0.12 has no ``sessions`` parameter: it is ignored, and the card stays."""
    with (
        make_fake("manual", version="3.0.12", ignored_fields="allow") as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        _two_sessions(fake, World(fake, client))
        everything = (["alice likes tea", "alice lives in Oslo"], ["likes tea"])
        assert _facts(client) == everything
        assert _facts(client, limit_to_session="true") == (["alice likes tea"], ["likes tea"])
        assert _facts(client, sessions=["t"]) == everything
        assert _facts(client, sessions=["t"], limit_to_session="true")[0] == ["alice likes tea"]


def test_representation_sessions_at_31_narrow_recall_and_hide_the_card() -> None:
    with (
        make_fake("manual", version="3.1") as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        _two_sessions(fake, World(fake, client))
        assert _facts(client)[1] == ["likes tea"]
        assert _facts(client, limit_to_session="true") == (["alice likes tea"], None)
        assert _facts(client, sessions=["s", "t"]) == (
            ["alice likes tea", "alice lives in Oslo"],
            None,
        )
        outside = client.get(CONTEXT, params={"peer_target": "alice", "sessions": "t"})
        assert outside.json() == {"detail": "session_id must be included in sessions"}
        both = client.get(
            CONTEXT, params={"peer_target": "alice", "sessions": "s", "limit_to_session": "true"}
        )
        assert both.status_code == 422
