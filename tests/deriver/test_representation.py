"""The representation route: selection rules and the exact markdown layout."""

from __future__ import annotations

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.deriver.representation import render_markdown, render_plain

from .support import World

REP = "/v3/workspaces/ws/peers/{peer}/representation"


def representation(client: httpx.Client, peer: str = "alice", **body: object) -> str:
    response = client.post(REP.format(peer=peer), json=body)
    assert response.status_code == 200, response.text
    text: str = response.json()["representation"]
    return text


@pytest.fixture
def told(fake: FakeHoncho, world: World) -> World:
    """alice tells s1 three facts and s2 two more; bob observes her in s1; all settled."""
    world.session("s1", {"alice": {}, "bob": {"observe_others": True}})
    world.session("s2", {"alice": {}})
    world.say("s1", "alice", "Hi, I'm Alice. I prefer green tea.", "I live in Paris")
    world.say("s2", "alice", "I work as a pilot", "I don't like cilantro")
    fake.deriver.run_until_idle()
    return world


def test_markdown_layout(client: httpx.Client, fake: FakeHoncho, told: World) -> None:
    # Each line carries the time of the message the conclusion came from, without
    # sub-seconds or zone: the ticking clock stamped the four messages a second apart.
    times = [
        row["created_at"][:19].replace("T", " ")
        for row in sorted(fake.store.rows("messages"), key=lambda row: row["_seq"])
    ]
    assert times[0].startswith("2026-01-02 03:04:")
    assert representation(client) == (
        "## Explicit Observations\n\n"
        f"[{times[0]}] alice's name is Alice\n"
        f"[{times[0]}] alice prefers green tea\n"
        f"[{times[1]}] alice lives in Paris\n"
        f"[{times[2]}] alice works as a pilot\n"
        f"[{times[3]}] alice dislikes cilantro\n"
    )


def test_nothing_known_is_an_empty_string(client: httpx.Client, told: World) -> None:
    assert representation(client, "nobody") == ""
    assert representation(client, "alice", target="nobody") == ""
    assert representation(client, "bob") == ""


def test_target_is_the_observers_view(client: httpx.Client, told: World) -> None:
    lines = representation(client, "bob", target="alice").splitlines()[2:]
    assert [line.split("] ")[1] for line in lines] == [
        "alice's name is Alice",
        "alice prefers green tea",
        "alice lives in Paris",
    ]


def test_max_conclusions_keeps_the_most_recent(client: httpx.Client, told: World) -> None:
    lines = representation(client, max_conclusions=2).splitlines()[2:]
    assert [line.split("] ")[1] for line in lines] == [
        "alice works as a pilot",
        "alice dislikes cilantro",
    ]


def test_search_query_brings_in_relevant_older_conclusions(
    client: httpx.Client, told: World
) -> None:
    lines = representation(client, search_query="tea", max_conclusions=2).splitlines()[2:]
    assert [line.split("] ")[1] for line in lines] == [
        "alice prefers green tea",
        "alice dislikes cilantro",
    ]


def test_session_scope_via_session_id_or_filters(client: httpx.Client, told: World) -> None:
    by_session = representation(client, session_id="s2")
    assert by_session == representation(client, filters={"session_id": ["s2"]})
    assert by_session == representation(client, filters={"session_id": {"in": ["s2"]}})
    assert [line.split("] ")[1] for line in by_session.splitlines()[2:]] == [
        "alice works as a pilot",
        "alice dislikes cilantro",
    ]


def test_include_most_frequent_counts_repeats(
    client: httpx.Client, fake: FakeHoncho, told: World
) -> None:
    told.say("s2", "alice", "I live in Paris", "I live in Paris", "I like jazz", "I like soup")
    fake.deriver.run_until_idle()
    plain = representation(client, max_conclusions=2)
    frequent = representation(client, max_conclusions=2, include_most_frequent=True)
    assert "lives in Paris" not in plain
    assert "alice lives in Paris" in frequent


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"max_conclusions": 0}, 422),
        ({"max_conclusions": 101}, 422),
        ({"search_top_k": 0}, 422),
        ({"filters": {"peer_id": "x"}}, 422),
        ({"filters": {"session_id": ["s1"]}, "session_id": "s2"}, 422),
    ],
)
def test_bad_bodies(client: httpx.Client, told: World, body: dict, status: int) -> None:
    assert client.post(REP.format(peer="alice"), json=body).status_code == status


def test_plain_form_charged_by_session_context() -> None:
    rows = [
        {"level": "explicit", "content": "ann likes tea", "created_at": "2026-01-01T10:00:00.5Z"},
        {
            "level": "explicit",
            "content": "ann lives in Oslo",
            "created_at": "2026-01-01T11:00:00Z",
            "_message_created_at": "2025-12-31T23:59:59+01:00",
        },
    ]
    assert render_plain(rows) == (
        "EXPLICIT:\n\n"
        "1. [2026-01-01 10:00:00] ann likes tea\n"
        "2. [2025-12-31 22:59:59] ann lives in Oslo\n\n"
        "DEDUCTIVE:\n\n\nINDUCTIVE:\n\n\nCONTRADICTION:\n\n"
    )
    assert render_markdown(rows).splitlines()[2:] == [
        "[2026-01-01 10:00:00] ann likes tea",
        "[2025-12-31 22:59:59] ann lives in Oslo",
    ]
