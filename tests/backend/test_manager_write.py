"""HonchoMemoryManager.add: mapping, filtering, dedup, batching, recovery and containment."""

from __future__ import annotations

import logging
import re
from typing import Any

import httpx
import pytest

from honcho_backend import MANAGER_CLASS, HonchoMemoryManager, session_id_for, stable_id
from honcho_backend.manager import resolve_manager_class

from .conftest import ManagerFactory, MockHoncho, msg

ALICE_WS = "deerflow-u-" + stable_id("alice")
ALICE = stable_id("alice")


def turn(n: int) -> list[Any]:
    """A history of ``n`` user/assistant turns with stable ids, as DeerFlow passes it."""
    history: list[Any] = []
    for i in range(n):
        history.append(msg("human", f"question {i}", id=f"h{i}"))
        history.append(msg("ai", f"answer {i}", id=f"a{i}"))
    return history


def contents(honcho: MockHoncho) -> list[tuple[str, str]]:
    return [(m["peer_id"], m["content"]) for m in honcho.posted()]


def test_add_maps_messages_to_peers(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    manager = make_manager(
        workspace_overrides={"alice": "shared"}, user_peer_overrides={"alice": "alice"}
    )
    manager.add(
        "t-1",
        [
            msg("human", "hi", id="1"),
            msg("ai", "hello", id="2"),
            msg("tool", "result", id="3"),
            msg("system", "rules", id="4"),
            msg("AIMessageChunk", "streamed", id="5"),
        ],
        user_id="alice",
    )
    assert honcho.routes() == ["workspace", "session", "list", "messages"]
    session_call = honcho.requests[1]
    assert session_call.path == "/v3/workspaces/shared/sessions"
    assert session_call.body == {
        "id": "df-" + stable_id("t-1"),
        "peers": {"alice": {}, "deerflow": {}},
    }
    assert contents(honcho) == [("alice", "hi"), ("deerflow", "hello"), ("deerflow", "streamed")]
    assert (
        honcho.requests[3].path
        == f"/v3/workspaces/shared/sessions/{session_id_for('t-1')}/messages"
    )


@pytest.mark.parametrize("user_id", [None, ""])
def test_add_without_user_is_noop(
    honcho: MockHoncho, make_manager: ManagerFactory, user_id: str | None
) -> None:
    make_manager().add("t", [msg("human", "hi")], user_id=user_id)
    make_manager().add_nowait("t", [msg("human", "hi")], user_id=user_id)
    assert honcho.requests == []


def test_add_prefix_workspace_for_unmapped_user(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    raw = "user.name@example.com"
    make_manager().add("t", [msg("human", "hi")], user_id=raw)
    assert honcho.requests[0].body == {"id": "deerflow-u-" + stable_id(raw)}
    assert honcho.posted()[0]["peer_id"] == stable_id(raw)


def test_add_without_thread_is_noop(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    make_manager().add("", [msg("human", "hi")], user_id="alice")
    make_manager().add(None, [msg("human", "hi")], user_id="alice")  # type: ignore[arg-type]
    assert honcho.requests == []


def test_nothing_to_store_makes_no_call(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    make_manager().add("t", [msg("tool", "x"), msg("human", "   "), msg("ai", [])], user_id="alice")
    make_manager().add("t", [], user_id="alice")
    assert honcho.requests == []


@pytest.mark.parametrize(
    "failure",
    [
        httpx.Response(500, json={"detail": "boom"}),
        httpx.ReadTimeout("slow"),
        RuntimeError("unexpected"),
    ],
)
def test_add_swallows_backend_errors(
    honcho: MockHoncho, make_manager: ManagerFactory, failure: Any
) -> None:
    honcho.fail("messages", failure)
    assert make_manager().add("t", [msg("human", "hi")], user_id="alice") is None


def test_add_swallows_non_http_exceptions(make_manager: ManagerFactory) -> None:
    def explode(additional_kwargs: dict[str, Any]) -> bool:
        raise AssertionError("host hook bug")

    manager = make_manager(hooks={"should_keep_hidden_message": explode})
    hidden = msg("human", "x", additional_kwargs={"hide_from_ui": True})
    manager.add("t", [hidden, object(), None, 42], user_id="alice")  # type: ignore[list-item]
    manager.add("t", None, user_id="alice")  # type: ignore[arg-type]


def test_add_truncates_long_content(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    make_manager(message_char_limit=10).add("t", [msg("human", "x" * 50)], user_id="alice")
    assert [len(m["content"]) for m in honcho.posted()] == [10]


def test_content_never_exceeds_honchos_limit(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    make_manager(message_char_limit=1_000_000).add("t", [msg("human", "y" * 30_000)], user_id="u")
    assert [len(m["content"]) for m in honcho.posted()] == [25_000]


@pytest.mark.parametrize(
    ("cfg", "key"),
    [
        ({"message_char_limit": -1}, "message_char_limit"),
        ({"max_injection_chars": 0}, "max_injection_chars"),
    ],
)
def test_from_config_rejects_bad_limits(cfg: dict[str, Any], key: str) -> None:
    with pytest.raises(ValueError, match=key):
        HonchoMemoryManager.from_config({"base_url": "http://honcho.test", **cfg})


def test_add_normalizes_list_content(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    content = [
        "part one",
        {"type": "text", "text": "part two"},
        {"type": "image_url", "image_url": {"url": "data:..."}},
        {"text": "part three"},
    ]
    make_manager().add("t", [msg("human", content)], user_id="alice")
    assert honcho.posted()[0]["content"] == "part one\npart two\npart three"


def test_dict_messages_are_understood(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    make_manager().add(
        "t",
        [{"role": "user", "content": "from dict"}, {"type": "ai", "content": "reply", "id": "r"}],
        user_id="alice",
    )
    assert contents(honcho) == [(ALICE, "from dict"), ("deerflow", "reply")]


def test_session_ids_resist_sanitize_collisions(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    manager.add("t.1", [msg("human", "a")], user_id="alice")
    manager.add("t-1", [msg("human", "b")], user_id="alice")
    sessions = {
        seen.path.split("/")[5] for seen in honcho.requests if seen.path.endswith("/messages")
    }
    assert len(sessions) == 2


# -- hidden and tool messages (upstream gap 1) -----------------------------------


def test_hidden_and_reminder_messages_are_dropped(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    injected = msg(
        "human",
        "<memory>\nlikes tea\n</memory>",
        id="x__memory",
        additional_kwargs={"hide_from_ui": True, "dynamic_context_reminder": True},
    )
    reminder = msg("human", "today is Monday", additional_kwargs={"dynamic_context_reminder": True})
    make_manager().add("t", [injected, reminder, msg("human", "hi", id="x")], user_id="alice")
    assert contents(honcho) == [(ALICE, "hi")]


def test_host_hook_keeps_chosen_hidden_messages(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    seen: list[object] = []

    def keep(additional_kwargs: dict[str, Any]) -> bool:  # DeerFlow's hook signature
        seen.append(additional_kwargs)
        return bool(additional_kwargs.get("clarification"))

    answer = msg("human", "option B", additional_kwargs={"hide_from_ui": True, "clarification": 1})
    other = msg("human", "internal", additional_kwargs={"hide_from_ui": True})
    make_manager(hooks={"should_keep_hidden_message": keep}).add("t", [answer, other], user_id="a")
    assert [m["content"] for m in honcho.posted()] == ["option B"]
    assert seen == [answer.additional_kwargs, other.additional_kwargs]


def test_tool_calling_ai_messages_are_dropped(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    history = [
        msg("human", "weather?", id="1"),
        msg("ai", "", id="2", tool_calls=[{"name": "weather", "args": {}, "id": "c"}]),
        msg("ai", "checking", id="3", tool_calls=[{"name": "weather", "args": {}, "id": "d"}]),
        msg("ai", "", id="4", additional_kwargs={"tool_calls": [{"id": "e"}]}),
        msg("tool", "sunny", id="5"),
        msg("ai", "It is sunny.", id="6", tool_calls=[]),
    ]
    make_manager().add("t", history, user_id="alice")
    assert [m["content"] for m in honcho.posted()] == ["weather?", "It is sunny."]


# -- only new messages (upstream gaps 2 and 3) ------------------------------------


def test_only_new_messages_are_sent_each_turn(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    for n in range(1, 6):
        manager.add("t", turn(n), user_id="alice")
    assert [c for _, c in contents(honcho)] == [
        f"{k} {i}" for i in range(5) for k in ("question", "answer")
    ]
    # First sight: workspace, session, recovery read; then one request per turn.
    assert honcho.routes() == ["workspace", "session", "list"] + ["messages"] * 5


def test_repeating_the_same_history_sends_nothing(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    manager.add("t", turn(2), user_id="alice")
    manager.add("t", turn(2), user_id="alice")
    manager.add_nowait("t", turn(2), user_id="alice")
    assert manager.shutdown_flush(5.0)
    assert len(honcho.posted()) == 4


def test_messages_without_ids_are_deduplicated_by_content(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    first = [msg("human", "yes"), msg("ai", "ok")]
    manager.add("t", first, user_id="alice")
    manager.add("t", [*first, msg("human", "yes"), msg("ai", "done")], user_id="alice")
    assert [c for _, c in contents(honcho)] == ["yes", "ok", "yes", "done"]


def test_summarized_history_sends_only_the_new_tail(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    manager.add("t", turn(6), user_id="alice")
    summary = msg("human", "Summary of earlier conversation", id="summary")
    manager.add("t", [summary, *turn(6)[-4:], msg("human", "new", id="n")], user_id="alice")
    assert [c for _, c in contents(honcho)][-1] == "new"
    assert len(honcho.posted()) == 13


def test_large_histories_are_sent_in_batches_of_100(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    make_manager().add("t", turn(125), user_id="alice")
    sizes = [
        len(seen.body["messages"])
        for seen in honcho.requests
        if seen.body and "messages" in seen.body
    ]
    assert sizes == [100, 100, 50]
    assert [m["content"] for m in honcho.posted()] == [m.content for m in turn(125)]


def test_only_each_requests_last_message_carries_the_watermark(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    make_manager().add("t", turn(1), user_id="alice")
    request = next(seen for seen in honcho.requests if seen.path.endswith("/messages"))
    first, last = request.body["messages"]
    assert first == {"peer_id": ALICE, "content": "question 0"}
    assert last["peer_id"] == "deerflow" and last["content"] == "answer 0"
    assert list(last["metadata"]) == ["df"] and re.fullmatch(r"[\w-]{8}", last["metadata"]["df"])


def test_steady_state_wire_cost(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    manager = make_manager()
    manager.add("t", turn(1), user_id="alice")
    history = turn(1)
    before = len(honcho.requests)
    content_bytes = 0
    for i in range(1, 41):
        # Typical sizes: a ~200-character question, a ~800-character answer.
        question = f"question number {i}: " + "how should I plan the next sprint? " * 5
        answer = f"answer number {i}: " + "split the work into small reviewed steps. " * 19
        history += [msg("human", question, id=f"hq{i}"), msg("ai", answer, id=f"aq{i}")]
        content_bytes += len(question.encode()) + len(answer.encode())
        manager.add("t", history, user_id="alice")
    steady = honcho.requests[before:]
    assert len(steady) / 40 <= 1.05
    assert sum(seen.size for seen in steady) <= 1.2 * content_bytes


def test_failed_write_is_resent_after_resync(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    manager.add("t", turn(1), user_id="alice")
    honcho.fail("messages", httpx.Response(503, json={"detail": "busy"}))
    manager.add("t", turn(2), user_id="alice")
    manager.add("t", turn(2), user_id="alice")
    assert [c for _, c in contents(honcho)] == ["question 0", "answer 0", "question 1", "answer 1"]
    # The failure made the backend re-read the session before writing again.
    assert honcho.routes()[-3:] == ["session", "list", "messages"]


def test_ambiguous_failure_does_not_duplicate(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    manager.add("t", turn(1), user_id="alice")

    original = honcho.handle

    def stored_then_timeout(request: httpx.Request) -> httpx.Response:
        response = original(request)
        if request.url.path.endswith("/messages"):
            honcho.failures.clear()
            raise httpx.ReadTimeout("stored but the answer was lost", request=request)
        return response

    manager._client._http._transport = httpx.MockTransport(stored_then_timeout)  # type: ignore[union-attr]
    manager.add("t", turn(2), user_id="alice")
    manager._client._http._transport = honcho.transport()  # type: ignore[union-attr]
    manager.add("t", turn(3), user_id="alice")
    assert [c for _, c in contents(honcho)].count("question 1") == 1
    assert [c for _, c in contents(honcho)][-2:] == ["question 2", "answer 2"]


def test_missing_session_is_re_established_on_404(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    manager.add("t", turn(1), user_id="alice")
    honcho.fail("messages", httpx.Response(404, json={"detail": "Session not found"}))
    manager.add("t", turn(2), user_id="alice")
    assert honcho.routes()[-4:] == ["messages", "workspace", "session", "messages"]
    assert [c for _, c in contents(honcho)][-2:] == ["question 1", "answer 1"]


def test_refused_connection_write_is_retried_once(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    manager.add("t", turn(1), user_id="alice")
    honcho.fail("messages", httpx.ConnectError("refused"))
    manager.add("t", turn(2), user_id="alice")
    assert [c for _, c in contents(honcho)][-2:] == ["question 1", "answer 1"]
    assert honcho.routes()[-2:] == ["messages", "messages"]


# -- restart safety ----------------------------------------------------------------


def test_new_process_does_not_duplicate_what_the_session_holds(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    make_manager().add("t", turn(3), user_id="alice")
    restarted = make_manager()
    restarted.add("t", turn(4), user_id="alice")
    assert [c for _, c in contents(honcho)] == [
        f"{k} {i}" for i in range(4) for k in ("question", "answer")
    ]
    list_call = next(seen for seen in honcho.requests[::-1] if seen.path.endswith("/list"))
    assert list_call.params == {"reverse": "true", "size": "100", "page": "1"}


def seed_session(honcho: MockHoncho, thread: str, rows: list[tuple[str, str]]) -> None:
    """Messages already in Honcho, e.g. written by DeerFlow's own backend (no metadata)."""
    honcho.sessions[(ALICE_WS, session_id_for(thread))] = [
        {"id": f"old{i}", "peer_id": peer, "content": text, "metadata": {}}
        for i, (peer, text) in enumerate(rows)
    ]


def test_recovers_messages_written_by_deerflows_own_backend(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    seed_session(
        honcho,
        "t",
        [
            (ALICE, "question 0"),
            ("deerflow", "answer 0"),
            (ALICE, "question 1"),
            ("deerflow", "answer 1"),
        ],
    )
    make_manager().add("t", turn(3), user_id="alice")
    assert [c for _, c in contents(honcho)] == ["question 2", "answer 2"]


def test_recovery_does_not_mistake_a_repeated_message_for_a_stored_one(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    seed_session(
        honcho, "t", [(ALICE, "hi"), ("deerflow", "hello"), (ALICE, "yes"), ("deerflow", "ok")]
    )
    history = [msg("human", t, id=f"h{i}") if i % 2 == 0 else msg("ai", t, id=f"a{i}")
               for i, t in enumerate(["hi", "hello", "yes", "ok", "yes", "ok"])]  # fmt: skip
    make_manager().add("t", history, user_id="alice")
    assert [c for _, c in contents(honcho)] == ["yes", "ok"]


def test_recovery_skips_stored_messages_when_history_no_longer_aligns(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    seed_session(honcho, "t", [(ALICE, "old question"), ("deerflow", "old answer")])
    history = [msg("human", "old question", id="q"), msg("human", "new", id="n")]
    history.append(msg("ai", "reply", id="r"))
    make_manager().add("t", history, user_id="alice")
    assert [c for _, c in contents(honcho)] == ["new", "reply"]


def test_thread_cache_is_bounded(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    manager = make_manager(thread_cache_size=3)
    for thread in range(10):
        manager.add(f"t{thread}", turn(1), user_id="alice")
    assert len(manager._ledger) == 3
    # An evicted thread is recovered from Honcho rather than resent.
    manager.add("t0", turn(1), user_id="alice")
    assert len(honcho.posted()) == 20


def test_logs_never_contain_the_api_key(
    honcho: MockHoncho, make_manager: ManagerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "sk-never-log-me"
    honcho.fail("messages", httpx.Response(401, json={"detail": f"token {secret} rejected"}))
    honcho.fail("representation", RuntimeError(f"leaky {secret}"))
    honcho.fail("search", httpx.Response(500, text=f"trace with Bearer {secret}"))
    manager = make_manager(api_key=secret, allow_insecure_http=True)
    with caplog.at_level(logging.DEBUG):
        manager.add("t", [msg("human", "hi")], user_id="alice")
        manager.get_context("alice")
        manager.search("q", user_id="alice")
        manager.warm()
    assert caplog.records, "the failures above must be logged"
    assert all(secret not in record.getMessage() for record in caplog.records)
    assert all(seen.headers["Authorization"] == f"Bearer {secret}" for seen in honcho.requests)


def test_manager_class_resolves() -> None:
    assert MANAGER_CLASS is HonchoMemoryManager
    assert resolve_manager_class("honcho_backend:MANAGER_CLASS") is HonchoMemoryManager
    assert resolve_manager_class("honcho_backend.honcho_manager:HonchoMemoryManager") is (
        HonchoMemoryManager
    )
    assert resolve_manager_class("honcho_backend.honcho_manager.HonchoMemoryManager") is (
        HonchoMemoryManager
    )
    # DeerFlow's factory takes a bare name only for a folder in its own backends/.
    with pytest.raises(ValueError, match=r"'honcho_backend' is not a 'pkg\.mod:Cls'"):
        resolve_manager_class("honcho_backend")
