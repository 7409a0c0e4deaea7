"""HonchoMemoryManager reads: get_context, search, get_memory and the failure-policy gate."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from honcho_backend import MemoryManagerError, stable_id

from .conftest import ManagerFactory, MockHoncho

ALICE_WS = "deerflow-u-" + stable_id("alice")
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")

HIT = {
    "id": "msg-1",
    "content": "found",
    "peer_id": "deerflow",
    "session_id": "df-t",
    "workspace_id": ALICE_WS,
    "created_at": "2026-01-01T00:00:00Z",
    "metadata": {},
    "token_count": 1,
}


def test_get_context_returns_representation(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    honcho.representation = "\n  ajayr likes concise answers \n"
    assert make_manager().get_context("alice") == "ajayr likes concise answers"
    request = honcho.requests[0]
    assert request.path == f"/v3/workspaces/{ALICE_WS}/peers/{stable_id('alice')}/representation"
    assert request.body == {}


@pytest.mark.parametrize("user_id", [None, ""])
def test_get_context_without_user_is_empty(
    honcho: MockHoncho, make_manager: ManagerFactory, user_id: str | None
) -> None:
    assert make_manager().get_context(user_id) == ""
    assert honcho.requests == []


def test_get_context_truncates(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    honcho.representation = "x" * 100
    assert make_manager(max_injection_chars=10).get_context("alice") == "x" * 10


def test_get_context_uses_overrides(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    manager = make_manager(
        workspace_overrides={"alice": "team"}, user_peer_overrides={"alice": "al"}
    )
    manager.get_context("alice", agent_name="coder", thread_id="t")
    assert honcho.requests[0].path == "/v3/workspaces/team/peers/al/representation"


FAILURES: list[Any] = [
    httpx.Response(500, json={"detail": "boom"}),
    httpx.Response(200, text="not json"),
    httpx.ConnectError("refused"),
    RuntimeError("not an http error"),
]


def read_calls() -> list[tuple[str, Callable[[Any], Any], Any]]:
    return [
        ("representation", lambda m: m.get_context("alice"), ""),
        ("search", lambda m: m.search("tea", user_id="alice"), []),
        (
            "representation",
            lambda m: (
                m.get_memory(user_id="alice")["facts"],
                m.get_memory(user_id="alice")["user"],
            ),
            ([], {}),
        ),
    ]


@pytest.mark.parametrize("failure", FAILURES)
@pytest.mark.parametrize("case", range(3))
def test_reads_fail_open_by_default(
    honcho: MockHoncho, make_manager: ManagerFactory, failure: Any, case: int
) -> None:
    route, call, fallback = read_calls()[case]
    honcho.fail(route, failure, failure, failure, failure)
    assert call(make_manager()) == fallback


@pytest.mark.parametrize("failure", FAILURES)
@pytest.mark.parametrize("case", range(3))
def test_reads_fail_closed_raise_contract_error(
    honcho: MockHoncho, make_manager: ManagerFactory, failure: Any, case: int
) -> None:
    route, call, _ = read_calls()[case]
    honcho.fail(route, failure, failure)
    with pytest.raises(MemoryManagerError, match="honcho memory recall failed"):
        call(make_manager(failure_policy={"read": "fail_closed"}))


def test_closed_manager_reads_follow_the_policy(make_manager: ManagerFactory) -> None:
    open_manager = make_manager()
    open_manager.close()
    assert open_manager.get_context("alice") == ""
    closed_manager = make_manager(failure_policy={"read": "fail_closed"})
    closed_manager.close()
    with pytest.raises(MemoryManagerError, match="closed"):
        closed_manager.search("tea", user_id="alice")


# -- search ----------------------------------------------------------------------


def test_search_maps_results_to_fact_shape(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    honcho.search_results = [HIT, "junk", {"no": "content"}]
    results = make_manager().search("tea", user_id="alice")
    assert results == [
        {
            "id": "msg-1",
            "content": "found",
            "category": "memory",
            "confidence": 1.0,
            "createdAt": "2026-01-01T00:00:00Z",
            "source": "honcho",
            "session_id": "df-t",
            "peer_id": "deerflow",
        }
    ]
    assert honcho.requests[0].path == f"/v3/workspaces/{ALICE_WS}/search"
    assert honcho.requests[0].body == {"query": "tea", "limit": 5}


@pytest.mark.parametrize("user_id", [None, ""])
def test_search_without_user_is_empty(
    honcho: MockHoncho, make_manager: ManagerFactory, user_id: str | None
) -> None:
    assert make_manager().search("tea", user_id=user_id) == []
    assert honcho.requests == []


@pytest.mark.parametrize("query", ["", "   ", "\n"])
def test_empty_query_returns_nothing_without_a_call(
    honcho: MockHoncho, make_manager: ManagerFactory, query: str
) -> None:
    assert make_manager().search(query, user_id="alice") == []
    assert honcho.requests == []


@pytest.mark.parametrize(
    ("top_k", "limit"), [(0, 1), (-3, 1), (1, 1), (7, 7), (100, 100), (500, 100)]
)
def test_top_k_is_clamped_to_honchos_range(
    honcho: MockHoncho, make_manager: ManagerFactory, top_k: int, limit: int
) -> None:
    honcho.search_results = [dict(HIT, id=f"m{i}") for i in range(150)]
    results = make_manager().search("tea", top_k, user_id="alice")
    assert honcho.requests[0].body["limit"] == limit
    assert len(results) == limit


def test_shared_workspace_search_is_scoped_to_the_users_peer(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager(workspace_overrides={"alice": "team"})
    manager.search("tea", user_id="alice")
    manager.search("tea", user_id="bob")
    shared, own = honcho.requests
    assert shared.path == "/v3/workspaces/team/search"
    assert shared.body["filters"] == {"peer_id": stable_id("alice")}
    assert "filters" not in own.body


def test_category_filters_before_top_k(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    tagged = dict(HIT, id="pref", metadata={"category": "preference"})
    honcho.search_results = [HIT, tagged]
    manager = make_manager()
    assert [r["id"] for r in manager.search("tea", 1, user_id="alice", category="preference")] == [
        "pref"
    ]
    assert honcho.requests[0].body["filters"] == {"metadata": {"category": "preference"}}
    assert [r["id"] for r in manager.search("tea", user_id="alice", category="memory")] == ["msg-1"]
    assert "filters" not in honcho.requests[1].body
    assert [r["category"] for r in manager.search("tea", user_id="alice")] == [
        "memory",
        "preference",
    ]


def test_supports_search_flag_matches_override() -> None:
    from honcho_backend import HonchoMemoryManager
    from honcho_backend.manager import MemoryManager

    assert HonchoMemoryManager.supports_search is True
    assert HonchoMemoryManager.search is not MemoryManager.search


# -- get_memory ------------------------------------------------------------------


def test_get_memory_minimal_shape(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    doc = make_manager().get_memory(user_id="alice")
    assert doc["facts"] == [] and doc["version"] == "1.0" and doc["history"] == {}
    assert doc["user"]["workContext"]["summary"] == "ajayr likes concise answers"
    assert (
        ISO.match(doc["lastUpdated"])
        and doc["user"]["workContext"]["updatedAt"] == doc["lastUpdated"]
    )


def test_get_memory_without_user_is_empty_with_no_calls(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    doc = make_manager().get_memory()
    assert (doc["facts"], doc["user"], doc["history"]) == ([], {}, {})
    assert ISO.match(doc["lastUpdated"])
    assert honcho.requests == []


def test_get_memory_with_empty_representation_is_empty(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    honcho.representation = "   "
    assert make_manager().get_memory(user_id="alice")["user"] == {}


def test_get_memory_is_capped(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    honcho.representation = "y" * 50
    doc = make_manager(max_injection_chars=7).get_memory(user_id="alice")
    assert doc["user"]["workContext"]["summary"] == "y" * 7


def test_unsupported_operations_raise_not_implemented(make_manager: ManagerFactory) -> None:
    manager = make_manager()
    for call in (
        lambda: manager.clear_memory(user_id="alice"),
        lambda: manager.import_memory({}, user_id="alice"),
        lambda: manager.export_memory(user_id="alice"),
        lambda: manager.delete_memory(user_id="alice"),
        lambda: manager.reload_memory(user_id="alice"),
        lambda: manager.create_fact("x", user_id="alice"),
        lambda: manager.delete_fact("x", user_id="alice"),
        lambda: manager.update_fact("x", content="y", user_id="alice"),
    ):
        with pytest.raises(NotImplementedError, match="HonchoMemoryManager"):
            call()
