"""End to end against the in-process fake Honcho (strict: every response schema-checked)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from honcho_backend import HonchoMemoryManager, MemoryManagerError, session_id_for, stable_id

from .conftest import msg

API_KEY = "sk-e2e-secret"
ALICE_WS = "deerflow-u-" + stable_id("alice")


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(api_key=API_KEY, strict=True, seed=7) as server:
        yield server


def manager_for(fake: FakeHoncho, **cfg: Any) -> HonchoMemoryManager:
    config = {
        "base_url": "http://honcho.fake",
        "api_key": API_KEY,
        "allow_insecure_http": True,
        **cfg,
    }
    return HonchoMemoryManager.from_config(config, transport=fake.transport())


@pytest.fixture
def manager(fake: FakeHoncho) -> Iterator[HonchoMemoryManager]:
    made = manager_for(fake)
    yield made
    made.close()


def stored(fake: FakeHoncho, workspace: str, thread: str) -> list[tuple[str, str]]:
    with httpx.Client(
        transport=fake.transport(),
        base_url="http://honcho.fake",
        headers={"Authorization": f"Bearer {API_KEY}"},
    ) as http:
        response = http.post(
            f"/v3/workspaces/{workspace}/sessions/{session_id_for(thread)}/messages/list",
            params={"size": 100},
        )
    response.raise_for_status()
    return [(m["peer_id"], m["content"]) for m in response.json()["items"]]


def conversation(turns: list[tuple[str, str]]) -> list[Any]:
    history: list[Any] = []
    for i, (question, answer) in enumerate(turns):
        history.append(msg("human", question, id=f"h{i}"))
        history.append(msg("ai", answer, id=f"a{i}"))
    return history


TURNS = [
    ("I live in Lisbon.", "Lisbon is lovely."),
    ("I prefer green tea.", "Noted."),
    ("I work as a data engineer.", "Interesting work."),
]


def test_writes_then_recall_through_the_fake(
    fake: FakeHoncho, manager: HonchoMemoryManager
) -> None:
    for n in range(1, len(TURNS) + 1):
        manager.add("thread-1", conversation(TURNS[:n]), user_id="alice")
    assert stored(fake, ALICE_WS, "thread-1") == [
        (stable_id("alice") if i % 2 == 0 else "deerflow", text)
        for i, text in enumerate(t for pair in TURNS for t in pair)
    ]
    context = manager.get_context("alice")
    assert "Lisbon" in context and "green tea" in context
    memory = manager.get_memory(user_id="alice")
    assert "Lisbon" in memory["user"]["workContext"]["summary"]

    results = manager.search("green tea", user_id="alice")
    assert results and results[0]["content"] == "I prefer green tea."
    first = results[0]
    assert {"id", "content", "category", "confidence", "createdAt", "source"} <= set(first)
    assert first["session_id"] == session_id_for("thread-1")
    assert first["peer_id"] == stable_id("alice")
    assert first["id"] and first["createdAt"].endswith("Z")


def test_steady_state_is_one_request_per_turn(
    fake: FakeHoncho, manager: HonchoMemoryManager
) -> None:
    manager.add("t", conversation(TURNS[:1]), user_id="alice")
    before = len(fake.requests)
    manager.add("t", conversation(TURNS[:2]), user_id="alice")
    manager.add("t", conversation(TURNS[:3]), user_id="alice")
    assert len(fake.requests) - before == 2


def test_restart_does_not_duplicate(fake: FakeHoncho) -> None:
    first = manager_for(fake)
    first.add("t", conversation(TURNS[:2]), user_id="alice")
    first.close()
    second = manager_for(fake)
    second.add("t", conversation(TURNS), user_id="alice")
    second.close()
    assert [text for _, text in stored(fake, ALICE_WS, "t")] == [t for pair in TURNS for t in pair]


def test_users_are_isolated(fake: FakeHoncho, manager: HonchoMemoryManager) -> None:
    manager.add("ta", conversation([("I prefer green tea.", "ok")]), user_id="alice")
    manager.add("tb", conversation([("I prefer black coffee.", "ok")]), user_id="bob")
    assert "coffee" not in manager.get_context("alice")
    assert "tea" not in manager.get_context("bob")
    # Honcho embeds messages by default: a search answers the user's nearest messages,
    # never another user's.
    assert all("coffee" not in r["content"] for r in manager.search("coffee", user_id="alice"))
    assert manager.search("coffee", user_id="bob")[0]["content"] == "I prefer black coffee."


def test_shared_workspace_search_stays_with_the_user(fake: FakeHoncho) -> None:
    manager = manager_for(fake, workspace_overrides={"alice": "team", "bob": "team"})
    manager.add("ta", conversation([("I prefer green tea.", "tea noted")]), user_id="alice")
    manager.add("tb", conversation([("I prefer green tea too.", "ok")]), user_id="bob")
    results = manager.search("green tea", 10, user_id="alice")
    assert [r["content"] for r in results] == ["I prefer green tea."]
    manager.close()


def test_hidden_memory_block_is_not_written_back(
    fake: FakeHoncho, manager: HonchoMemoryManager
) -> None:
    injected = msg(
        "human",
        "<memory>\nalice lives in Lisbon\n</memory>",
        id="h0__memory",
        additional_kwargs={"hide_from_ui": True, "dynamic_context_reminder": True},
    )
    manager.add("t", [injected, *conversation(TURNS[:1])], user_id="alice")
    assert all("<memory>" not in text for _, text in stored(fake, ALICE_WS, "t"))


def test_long_history_is_batched(fake: FakeHoncho, manager: HonchoMemoryManager) -> None:
    history = conversation([(f"question {i}", f"answer {i}") for i in range(120)])
    manager.add("t", history, user_id="alice")
    with httpx.Client(
        transport=fake.transport(),
        base_url="http://honcho.fake",
        headers={"Authorization": f"Bearer {API_KEY}"},
    ) as http:
        page = http.post(
            f"/v3/workspaces/{ALICE_WS}/sessions/{session_id_for('t')}/messages/list",
            params={"size": 1},
        ).json()
    assert page["total"] == 240


def test_deleted_session_write_is_contained(caplog: pytest.LogCaptureFixture) -> None:
    """A write to a session whose deletion the deriver has not run yet is a 404 (as on a
    real server, seconds long): the backend contains it."""
    with FakeHoncho(api_key=API_KEY, strict=True, seed=7, deriver="manual") as fake:
        manager = manager_for(fake)
        manager.add("t", conversation(TURNS[:1]), user_id="alice")
        with httpx.Client(
            transport=fake.transport(),
            base_url="http://honcho.fake",
            headers={"Authorization": f"Bearer {API_KEY}"},
        ) as http:
            session = f"/v3/workspaces/{ALICE_WS}/sessions/{session_id_for('t')}"
            http.delete(session).raise_for_status()
        manager.add("t", conversation(TURNS[:2]), user_id="alice")
        manager.close()
    assert "memory write for thread 't' dropped" in caplog.text and "404" in caplog.text
    assert API_KEY not in caplog.text


def test_wrong_key_reads_follow_policy(fake: FakeHoncho) -> None:
    cfg = {"api_key": "sk-wrong"}
    lenient = manager_for(fake, **cfg)
    assert lenient.get_context("alice") == ""
    assert lenient.warm() is True  # /health needs no auth
    strict = manager_for(fake, failure_policy={"read": "fail_closed"}, **cfg)
    with pytest.raises(MemoryManagerError) as info:
        strict.search("tea", user_id="alice")
    assert "401" in str(info.value) and "sk-wrong" not in str(info.value)
    lenient.close()
    strict.close()


def test_async_paths_against_the_fake(fake: FakeHoncho, manager: HonchoMemoryManager) -> None:
    async def scenario() -> str:
        await manager.aadd("t", conversation(TURNS[:1]), user_id="alice")
        manager.add_nowait("t", conversation(TURNS[:2]), user_id="alice")
        return await manager.aget_context("alice")

    assert "Lisbon" in asyncio.run(scenario())
    assert manager.shutdown_flush(5.0) is True
    assert len(stored(fake, ALICE_WS, "t")) == 4
    found = asyncio.run(manager.asearch("green tea", user_id="alice"))
    assert found[0]["content"] == "I prefer green tea."


def test_messages_without_ids_from_dicts(fake: FakeHoncho, manager: HonchoMemoryManager) -> None:
    history = [SimpleNamespace(type="human", content=[{"type": "text", "text": "I prefer tea."}])]
    manager.add("t", history, user_id="alice")
    manager.add("t", history, user_id="alice")
    assert stored(fake, ALICE_WS, "t") == [(stable_id("alice"), "I prefer tea.")]
