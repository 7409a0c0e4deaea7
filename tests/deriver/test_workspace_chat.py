"""Workspace chat (3.1): the toy dialectic over the workspace's most active peers.

Its refusals are recorded from a real 3.1 (tests/fidelity/exchanges/3.1/workspace_chat.json);
its answers need an LLM there, so they are the toy deriver's, checked here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.deriver.workspace_chat import NOTHING_KNOWN

from .support import World, make_fake

CHAT = "/v3/workspaces/ws/chat"


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with make_fake("manual", version="3.1") as instance:
        yield instance


@pytest.fixture
def known(fake: FakeHoncho, world: World) -> World:
    world.session("s1", {"alice": {}, "bob": {}})
    world.say("s1", "alice", "I like tea.")
    world.say("s1", "bob", "I live in Oslo.")
    fake.deriver.run_until_idle()
    return world


def ask(client: httpx.Client, **body: Any) -> httpx.Response:
    response = client.post(CHAT, json=body)
    assert response.status_code == 200, response.text
    return response


def test_answers_per_active_peer_latest_speaker_first(client: httpx.Client, known: World) -> None:
    content = ask(client, query="What do we know?").json()["content"]
    assert content == (
        "Based on what I know about bob: bob lives in Oslo. "
        "Based on what I know about alice: alice likes tea."
    )


def test_a_workspace_without_conclusions_knows_nothing(client: httpx.Client, world: World) -> None:
    world.session("s1", {"alice": {}})
    assert ask(client, query="anything?").json() == {"content": NOTHING_KNOWN}


def test_streamed_the_same_text(client: httpx.Client, known: World) -> None:
    plain = ask(client, query="Who likes tea?").json()["content"]
    with client.stream("POST", CHAT, json={"query": "Who likes tea?", "stream": True}) as sent:
        assert sent.headers["content-type"].startswith("text/event-stream")
        events = [json.loads(line[6:]) for line in sent.iter_lines() if line.startswith("data: ")]
    assert events[-1] == {"done": True}
    assert "".join(event["delta"]["content"] for event in events[:-1]) == plain


def test_response_format_shapes_the_content(client: httpx.Client, known: World) -> None:
    schema = {"type": "object", "properties": {"facts": {"type": "array"}}}
    content = ask(client, query="tea?", response_format=schema).json()["content"]
    # each listed peer answers as its own chat would (bob: no shared term, all it knows)
    assert json.loads(content) == {"facts": ["bob lives in Oslo", "alice likes tea"]}


def test_a_session_must_exist_and_the_route_is_31_only(client: httpx.Client, known: World) -> None:
    missing = client.post(CHAT, json={"query": "hi", "session_id": "nope"})
    assert (missing.status_code, missing.json()) == (
        404,
        {"detail": "Session nope not found in workspace ws"},
    )
    assert ask(client, query="hi", session_id="s1").json()["content"]
    with (
        make_fake("manual", version="3.0.12") as old,
        httpx.Client(transport=old.transport(), base_url="http://fake") as http,
    ):
        assert http.post(CHAT, json={"query": "hi"}).status_code == 404


def test_a_scope_confines_the_answer_to_its_sessions(
    client: httpx.Client, fake: FakeHoncho, known: World
) -> None:
    """bob spoke only outside the scope: he is neither listed nor recalled."""
    known.session("s2", {"alice": {}})
    known.say("s2", "alice", "I like jazz.")
    fake.deriver.run_until_idle()
    for method, path, body in (
        ("POST", "/v3/workspaces/ws/scopes", {"id": "team"}),
        ("POST", "/v3/workspaces/ws/scopes/team/sessions", {"session_ids": ["s2"]}),
    ):
        assert client.request(method, path, json=body).status_code < 300
    scoped = ask(client, query="What do we know?", scope="team").json()["content"]
    assert scoped == "Based on what I know about alice: alice likes jazz."
    clash = client.post(CHAT, json={"query": "hi", "scope": "team", "session_id": "s1"})
    assert clash.json() == {"detail": "`scope` and `session_id` are mutually exclusive"}
