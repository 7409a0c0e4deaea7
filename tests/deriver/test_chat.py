"""Dialectic chat: the answer, its options and the server-sent-event stream."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho

from .support import World

CHAT = "/v3/workspaces/ws/peers/{peer}/chat"


def ask(client: httpx.Client, peer: str = "alice", **body: Any) -> httpx.Response:
    response = client.post(CHAT.format(peer=peer), json=body)
    assert response.status_code == 200, response.text
    return response


@pytest.fixture
def known(fake: FakeHoncho, world: World) -> World:
    world.session("s1", {"alice": {}})
    world.session("s2", {"alice": {}})
    world.say("s1", "alice", "I like tea. I like jazz. I like chess. I like hiking.")
    world.say("s2", "alice", "I like tea with lemon")
    fake.deriver.run_until_idle()
    return world


def test_reasoning_level_sets_how_many_conclusions_are_used(
    client: httpx.Client, known: World
) -> None:
    minimal = ask(client, query="Does alice like tea?", reasoning_level="minimal").json()
    assert minimal == {"content": "Based on what I know about alice: alice likes tea with lemon."}
    high = ask(client, query="What does alice like?", reasoning_level="high").json()["content"]
    assert high.count("alice likes") == 5


def test_without_a_shared_term_it_quotes_the_conclusions_it_holds(
    client: httpx.Client, fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}})
    world.say("s", "alice", "I prefer green tea. I hate mondays.")
    fake.deriver.run_until_idle()
    answer = ask(client, query="what does alice like?").json()["content"]
    assert (
        answer == "Based on what I know about alice: alice hates mondays; alice prefers green tea."
    )


def test_with_no_conclusions_it_quotes_a_message_or_knows_nothing(
    client: httpx.Client, world: World
) -> None:
    world.session("s", {"alice": {}})
    world.say("s", "alice", "the weather is nice")
    said = ask(client, query="how is the weather?").json()["content"]
    assert said == 'I have no conclusions about alice, but alice said: "the weather is nice"'
    nothing = ask(client, query="what about cars?").json()["content"]
    assert nothing == "I don't know anything about alice that answers this question."


def test_session_scope(client: httpx.Client, known: World) -> None:
    body = {"query": "Does alice like tea?", "reasoning_level": "minimal"}
    scoped = ask(client, session_id="s1", **body).json()["content"]
    assert scoped == "Based on what I know about alice: alice likes tea."


def test_stream_is_honchos_sse(client: httpx.Client, known: World) -> None:
    response = ask(client, query="Does alice like chess?", stream=True)
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [json.loads(line[len("data: ") :]) for line in response.text.split("\n\n") if line]
    assert events[-1] == {"done": True}
    assert all(event["done"] is False for event in events[:-1])
    text = "".join(event["delta"]["content"] for event in events[:-1])
    assert text == ask(client, query="Does alice like chess?").json()["content"]


def test_response_format_gives_a_json_string(client: httpx.Client, known: World) -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string"}, "facts": {"type": "array"}},
    }
    content = ask(client, query="Is alice into jazz?", response_format=schema).json()["content"]
    assert json.loads(content) == {
        "answer": "Based on what I know about alice: alice likes jazz.",
        "facts": ["alice likes jazz"],
    }


def test_chat_creates_the_path_peer(client: httpx.Client, fake: FakeHoncho, world: World) -> None:
    ask(client, "newcomer", query="Who am I?")
    assert fake.store.get("peers", ("ws", "newcomer")) is not None


@pytest.mark.parametrize(
    "body",
    [{}, {"query": ""}, {"query": "x", "reasoning_level": "extreme"}, {"query": "x" * 10001}],
)
def test_bad_bodies(client: httpx.Client, world: World, body: dict[str, Any]) -> None:
    response = client.post(CHAT.format(peer="alice"), json=body)
    assert response.status_code == 422
    assert isinstance(response.json()["detail"], list)
