"""The official ``honcho-ai`` SDK against the fake's derived routes."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from honcho import Honcho
from honcho.http import NotFoundError, UnprocessableEntityError

from fake_honcho import FakeHoncho

from .support import make_fake

# 3.1's text (the default version): 3.0.12 stops at "semantic search" (tests/fidelity/fuzz)
UNPAIRED = (
    "observer and observed must be specified for semantic search. Pass them inside the "
    '\'filters\' object, e.g. {"query": "...", "filters": {"observer": "alice", '
    "\"observed\": \"bob\"}}. Both 'observer'/'observer_id' and 'observed'/'observed_id' "
    "are accepted."
)


@pytest.fixture
def sdk_fake() -> Iterator[FakeHoncho]:
    with make_fake("immediate") as instance:
        yield instance


@pytest.fixture
def honcho(sdk_fake: FakeHoncho) -> Iterator[Honcho]:
    with httpx.Client(transport=sdk_fake.transport(), base_url="http://fake") as http:
        yield Honcho(base_url="http://fake", workspace_id="ws", http_client=http, max_retries=0)


@pytest.fixture
def talked(honcho: Honcho) -> Honcho:
    alice, bot = honcho.peer("alice"), honcho.peer("bot")
    session = honcho.session("chat")
    session.add_peers([alice, bot])
    session.add_messages(
        [
            alice.message("Hi, I'm Alice. I prefer green tea and I live in Paris."),
            bot.message("Nice to meet you."),
            alice.message("I don't like cilantro."),
        ]
    )
    return honcho


def test_representation(talked: Honcho) -> None:
    text = talked.peer("alice").representation()
    assert text.startswith("## Explicit Observations\n\n[2026-01-02 ")
    assert [line.split("] ", 1)[1] for line in text.splitlines()[2:]] == [
        "alice's name is Alice",
        "alice prefers green tea",
        "alice lives in Paris",
        "alice dislikes cilantro",
    ]
    assert talked.peer("bot").representation() == ""
    assert "green tea" in talked.peer("alice").representation(search_query="tea", max_conclusions=1)


@pytest.fixture
def dreamt(talked: Honcho) -> Honcho:
    """After a dream: only a dream (or a PUT) writes a peer card, as in Honcho."""
    assert talked.peer("alice").get_card() is None
    talked.schedule_dream("alice")
    return talked


def test_cards(dreamt: Honcho) -> None:
    alice = dreamt.peer("alice")
    assert alice.get_card() == [
        "IDENTITY: name is Alice",
        "ATTRIBUTE: prefers green tea",
        "ATTRIBUTE: lives in Paris",
        "ATTRIBUTE: dislikes cilantro",
    ]
    assert alice.get_card(target="bot") is None
    assert alice.set_card(["Knows Bot"], target="bot") == ["Knows Bot"]
    assert alice.get_card(target="bot") == ["Knows Bot"]


def test_card_of_a_missing_observer_is_404(honcho: Honcho, sdk_fake: FakeHoncho) -> None:
    with httpx.Client(transport=sdk_fake.transport(), base_url="http://fake") as http:
        response = http.get("/v3/workspaces/ws/peers/ghost/card")
    assert (response.status_code, response.json()) == (
        404,
        {"detail": "Peer ghost not found in workspace ws"},
    )


def test_peer_context(dreamt: Honcho) -> None:
    context = dreamt.peer("alice").context()
    assert (context.peer_id, context.target_id) == ("alice", "alice")
    assert context.representation is not None and "alice lives in Paris" in context.representation
    assert context.peer_card is not None and "ATTRIBUTE: lives in Paris" in context.peer_card


def test_session_context_and_to_openai(dreamt: Honcho) -> None:
    context = dreamt.session("chat").context(tokens=2000, peer_target="alice")
    assert [message.content for message in context.messages][-1] == "I don't like cilantro."
    assert context.peer_card is not None
    openai = context.to_openai(assistant="bot")
    assert openai[0] == {
        "role": "system",
        "content": f"<peer_representation>{context.peer_representation}</peer_representation>",
    }
    assert openai[1]["content"] == f"<peer_card>{context.peer_card}</peer_card>"
    assert [(m["role"], m.get("name")) for m in openai[2:]] == [
        ("user", "alice"),
        ("assistant", "bot"),
        ("user", "alice"),
    ]


def test_summaries(honcho: Honcho) -> None:
    alice = honcho.peer("alice")
    session = honcho.session("long")
    session.add_messages([alice.message(f"note number {n}") for n in range(1, 21)])
    summaries = session.summaries()
    assert summaries.long_summary is None
    short = summaries.short_summary
    assert short is not None and short.summary_type == "honcho_chat_summary_short"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", short.created_at)
    assert short.content.splitlines()[0] == "alice: note number 1"
    assert short.message_id == session.messages(size=1, reverse=True).items[0].id
    context = session.context(tokens=short.token_count * 3)
    assert context.summary is not None and context.summary.content == short.content


def test_conclusions_view(talked: Honcho) -> None:
    view = talked.peer("alice").conclusions
    listed = view.list()
    assert listed.total == 4
    assert listed.items[0].content == "alice dislikes cilantro"
    created = view.create([{"content": "alice collects stamps", "session_id": "chat"}])
    assert (created[0].observer_id, created[0].session_id) == ("alice", "chat")
    assert [c.content for c in view.query("stamps", top_k=1)] == ["alice collects stamps"]
    view.delete(created[0].id)
    assert view.list().total == 4
    with pytest.raises(NotFoundError):
        view.delete(created[0].id)


def test_queue_status(honcho: Honcho, sdk_fake: FakeHoncho) -> None:
    alice = honcho.peer("alice")
    session = honcho.session("q")
    session.add_messages([alice.message("I like tea")])
    status = honcho.queue_status()
    assert (status.total_work_units, status.completed_work_units) == (1, 1)
    assert status.sessions is not None
    internal_id = sdk_fake.store.get("sessions", ("ws", "q"))["_internal_id"]
    assert list(status.sessions) == [internal_id]
    assert session.queue_status().sessions is None


def test_chat(talked: Honcho) -> None:
    alice = talked.peer("alice")
    assert alice.chat("What does alice think about tea?") == (
        "Based on what I know about alice: alice prefers green tea."
    )
    # bot holds no conclusions about alice, so the answer falls back to her messages.
    assert talked.peer("bot").chat("Where does alice live?", target="alice") == (
        "I have no conclusions about alice, but alice said: "
        '"Hi, I\'m Alice. I prefer green tea and I live in Paris."'
    )
    # No conclusion shares a word with the question: the answer draws on all it holds.
    unrelated = alice.chat("Which car does alice drive?")
    assert unrelated is not None and unrelated.count("; ") == 3


def test_chat_stream_over_a_real_socket(sdk_fake: FakeHoncho, talked: Honcho) -> None:
    with sdk_fake.serve() as base_url:
        served = Honcho(base_url=base_url, workspace_id="ws", max_retries=0)
        stream = served.peer("alice").chat_stream("Where does alice live?")
        chunks = list(stream)
    assert len(chunks) > 1
    assert "".join(chunks) == talked.peer("alice").chat("Where does alice live?")


def test_schedule_dream_changes_no_conclusions(talked: Honcho) -> None:
    view = talked.peer("alice").conclusions
    view.create([{"content": "alice prefers green tea"}])
    before = sorted(c.id for c in view.list().items)
    talked.schedule_dream("alice")
    assert sorted(c.id for c in view.list().items) == before
    assert talked.peer("alice").get_card() is not None


def test_query_needs_observer_and_observed(talked: Honcho, sdk_fake: FakeHoncho) -> None:
    with httpx.Client(transport=sdk_fake.transport(), base_url="http://fake") as http:
        response = http.post("/v3/workspaces/ws/conclusions/query", json={"query": "tea"})
    assert (response.status_code, response.json()) == (
        422,
        {"detail": UNPAIRED},
    )
    with pytest.raises(UnprocessableEntityError):
        talked.session("chat").context(tokens=100_001)
