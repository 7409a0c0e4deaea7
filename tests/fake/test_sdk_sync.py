"""The official ``honcho-ai`` SDK (sync) against the fake, checking what comes back."""

from __future__ import annotations

import re

import pytest
from honcho import Honcho
from honcho.api_types import SessionPeerConfig
from honcho.http.exceptions import UnprocessableEntityError

from fake_honcho import FakeHoncho

NANOID = re.compile(r"^[A-Za-z0-9_-]{21}$")


def test_peers_keep_metadata_and_are_listed(honcho: Honcho, fake: FakeHoncho) -> None:
    alice = honcho.peer("alice", metadata={"role": "user", "age": 30})
    honcho.peer("bot", configuration={"observe_me": False})

    assert alice.get_metadata() == {"role": "user", "age": 30}
    assert [peer.id for peer in honcho.peers()] == ["alice", "bot"]
    assert [peer.id for peer in honcho.peers(filters={"metadata": {"role": "user"}})] == ["alice"]
    assert fake.store.get("peers", ("sdk-ws", "bot"))["configuration"] == {"observe_me": False}


def test_session_members_add_set_remove_and_config(honcho: Honcho) -> None:
    alice, bob, bot = honcho.peer("alice"), honcho.peer("bob"), honcho.peer("bot")
    session = honcho.session("chat-1", metadata={"topic": "tea"})

    session.add_peers([alice, (bot, SessionPeerConfig(observe_others=True))])
    assert sorted(peer.id for peer in session.peers()) == ["alice", "bot"]
    assert session.get_peer_configuration(bot).observe_others is True
    assert session.get_peer_configuration(alice).observe_others is None

    session.set_peers([bob, bot])
    assert sorted(peer.id for peer in session.peers()) == ["bob", "bot"]

    session.set_peer_configuration(bob, SessionPeerConfig(observe_me=False))
    config = session.get_peer_configuration(bob)
    assert (config.observe_me, config.observe_others) == (False, None)

    session.remove_peers([bot])
    assert [peer.id for peer in session.peers()] == ["bob"]
    assert session.get_metadata() == {"topic": "tea"}


def test_messages_round_trip_with_pages_filters_get_and_update(honcho: Honcho) -> None:
    alice, bot = honcho.peer("alice"), honcho.peer("bot")
    session = honcho.session("chat-2")
    batch = [
        (alice if i % 2 == 0 else bot).message(f"message number {i}", metadata={"n": i})
        for i in range(60)
    ]
    created = session.add_messages(batch)

    assert [m.content for m in created] == [f"message number {i}" for i in range(60)]
    assert all(NANOID.match(m.id) for m in created)
    assert {m.peer_id for m in created} == {"alice", "bot"}
    assert created[0].token_count > 0

    listed = session.messages(size=25)
    assert (listed.total, listed.pages, len(listed.items)) == (60, 3, 25)
    assert [m.id for m in listed] == [m.id for m in created]  # iteration walks every page

    from_bot = session.messages(filters={"peer_id": "bot", "metadata": {"n": {"gte": 50}}})
    assert [m.content for m in from_bot] == [f"message number {i}" for i in range(51, 60, 2)]

    fetched = session.get_message(created[3].id)
    assert (fetched.content, fetched.metadata) == ("message number 3", {"n": 3})
    updated = session.update_message(created[3].id, metadata={"edited": True})
    assert updated.metadata == {"edited": True}
    assert session.get_message(created[3].id).metadata == {"edited": True}


def test_search_finds_what_was_written_at_every_scope(honcho: Honcho) -> None:
    alice, bot = honcho.peer("alice"), honcho.peer("bot")
    first = honcho.session("s-a")
    second = honcho.session("s-b")
    first.add_messages([alice.message("I went hiking in the Alps"), bot.message("Nice trip")])
    second.add_messages([bot.message("Do you like hiking?"), alice.message("Green tea please")])

    # Embeddings on (Honcho's default): every message of the scope, the word's hits first.
    assert {m.content for m in honcho.search("hiking")[:2]} == {
        "I went hiking in the Alps",
        "Do you like hiking?",
    }
    assert first.search("hiking")[0].content == "I went hiking in the Alps"
    assert alice.search("tea")[0].content == "Green tea please"
    assert "Green tea please" not in {m.content for m in bot.search("tea")}


def test_clone_copies_messages_up_to_a_cutoff(honcho: Honcho) -> None:
    alice = honcho.peer("alice")
    session = honcho.session("original", metadata={"k": "v"})
    messages = session.add_messages([alice.message(f"m{i}") for i in range(4)])

    whole = session.clone()
    cut = session.clone(message_id=messages[1].id)

    assert NANOID.match(whole.id) and whole.id != session.id
    assert [m.content for m in whole.messages()] == ["m0", "m1", "m2", "m3"]
    assert [m.content for m in cut.messages()] == ["m0", "m1"]
    assert cut.get_metadata() == {"k": "v"}
    assert [peer.id for peer in cut.peers()] == ["alice"]


def test_delete_session_then_workspace(honcho: Honcho, fake: FakeHoncho) -> None:
    session = honcho.session("doomed")
    session.add_messages([honcho.peer("alice").message("bye")])

    session.delete()  # the immediate deriver runs the deletion before the 202
    assert [s.id for s in honcho.sessions()] == []
    assert fake.store.count("messages") == 0

    honcho.delete_workspace("sdk-ws")
    assert fake.store.get("workspaces", "sdk-ws") is None
    assert fake.store.count("messages") == 0


def test_sdk_sees_honcho_shaped_validation_errors(honcho: Honcho) -> None:
    session = honcho.session("limits")
    alice = honcho.peer("alice")
    with pytest.raises(UnprocessableEntityError, match="too_long"):
        session.add_messages([alice.message("x")] * 101)
    assert session.messages().total == 0
