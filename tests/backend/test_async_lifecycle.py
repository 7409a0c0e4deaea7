"""Async entry points stay off the event loop; add_nowait, shutdown_flush, warm and close."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import httpx
import pytest

from honcho_backend import HonchoMemoryManager

from .conftest import ManagerFactory, MockHoncho, msg


def test_async_entrypoints_delegate_and_run_off_the_loop(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    honcho.search_results = [{"id": "1", "content": "found"}]
    manager = make_manager()

    async def scenario() -> tuple[int, str, list[Any]]:
        await manager.aadd("t", [msg("human", "hello", id="h")], user_id="alice", trace_id="tr")
        context = await manager.aget_context("alice")
        results = await manager.asearch("found", user_id="alice")
        return threading.get_ident(), context, results

    loop_thread, context, results = asyncio.run(scenario())
    assert context == "ajayr likes concise answers"
    assert [r["content"] for r in results] == ["found"]
    assert [m["content"] for m in honcho.posted()] == ["hello"]
    assert honcho.requests and all(seen.thread != loop_thread for seen in honcho.requests)


def test_add_nowait_from_a_running_loop_returns_before_any_http(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    release = threading.Event()
    original = honcho.handle

    def slow(request: httpx.Request) -> httpx.Response:
        release.wait(5)
        return original(request)

    manager = HonchoMemoryManager.from_config(
        {"base_url": "http://honcho.test"}, transport=httpx.MockTransport(slow)
    )

    async def scenario() -> int:
        manager.add_nowait("t", [msg("human", "one", id="1")], user_id="alice")
        manager.add_nowait(
            "t", [msg("human", "one", id="1"), msg("human", "two", id="2")], user_id="alice"
        )
        return threading.get_ident()

    loop_thread = asyncio.run(scenario())
    assert honcho.requests == []  # the worker is still blocked: nothing reached the server
    assert manager.shutdown_flush(0.05) is False
    release.set()
    assert manager.shutdown_flush(5.0) is True
    assert [m["content"] for m in honcho.posted()] == ["one", "two"]
    assert all(seen.thread != loop_thread for seen in honcho.requests)
    manager.close()


def test_add_nowait_keeps_submission_order_per_thread(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    history: list[Any] = []
    for i in range(20):
        history = [*history, msg("human", f"m{i}", id=f"m{i}")]
        manager.add_nowait("t", history, user_id="alice")
    assert manager.shutdown_flush(5.0)
    assert [m["content"] for m in honcho.posted()] == [f"m{i}" for i in range(20)]


def test_concurrent_adds_never_send_a_message_twice(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    history = [msg("human", f"m{i}", id=f"m{i}") for i in range(30)]

    async def scenario() -> None:
        await asyncio.gather(
            *(manager.aadd("t", history[: n + 1], user_id="alice") for n in range(30))
        )

    asyncio.run(scenario())
    contents = [m["content"] for m in honcho.posted()]
    assert sorted(contents) == sorted(f"m{i}" for i in range(30))
    assert len(contents) == len(set(contents))


def test_shutdown_flush_true_when_idle(make_manager: ManagerFactory) -> None:
    assert make_manager().shutdown_flush(1.0) is True


def test_add_nowait_after_close_is_dropped(
    honcho: MockHoncho, make_manager: ManagerFactory
) -> None:
    manager = make_manager()
    manager.close()
    manager.add_nowait("t", [msg("human", "late")], user_id="alice")
    manager.add("t", [msg("human", "late")], user_id="alice")
    assert manager.shutdown_flush(1.0) is True
    assert honcho.requests == []


def test_from_config_makes_no_network_call(honcho: MockHoncho) -> None:
    manager = HonchoMemoryManager.from_config(
        {"base_url": "http://honcho.test"}, transport=honcho.transport(), storage_path="/x"
    )
    assert honcho.requests == [] and manager._client is None
    manager.close()


def test_from_config_accepts_unknown_host_hooks() -> None:
    manager = HonchoMemoryManager.from_config(
        {"base_url": "http://honcho.test", "storage_path": "/tmp"},
        mode="middleware",
        callbacks=object(),
        trace_context_manager=object(),
        host_llm_factory=lambda: None,
        extraction_callback=None,
    )
    assert manager.backend_config["storage_path"] == "/tmp" and manager.callbacks is None


def test_tool_mode_accepted() -> None:
    assert HonchoMemoryManager.from_config({}, mode="tool").mode == "tool"


def test_requires_passive_writes_in_tool_mode() -> None:
    assert HonchoMemoryManager.requires_passive_writes_in_tool_mode is True


def test_warm_reports_health(honcho: MockHoncho, make_manager: ManagerFactory) -> None:
    manager = make_manager()
    assert manager.warm() is True
    assert honcho.requests[-1].path == "/health"
    honcho.fail("health", httpx.Response(503, json={"detail": "down"}))
    assert manager.warm() is False
    honcho.fail("health", httpx.ConnectError("refused"), httpx.ConnectError("refused"))
    assert manager.warm() is False


def test_warm_unreachable_server_returns_false() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago refuses connections
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    manager = HonchoMemoryManager.from_config(
        {"base_url": f"http://127.0.0.1:{port}", "connect_timeout_seconds": 0.5}
    )
    assert manager.warm() is False
    manager.close()


def test_close_releases_http_client_and_is_idempotent(make_manager: ManagerFactory) -> None:
    manager = make_manager()
    manager.get_context("alice")
    client = manager._client
    assert client is not None and not client.closed
    manager.close()
    manager.close()
    assert client.closed and manager._client is None


@pytest.mark.parametrize("timeout", [0.0, -1.0])
def test_shutdown_flush_with_no_time_left(
    honcho: MockHoncho, make_manager: ManagerFactory, timeout: float
) -> None:
    release = threading.Event()
    manager = HonchoMemoryManager.from_config(
        {"base_url": "http://honcho.test"},
        transport=httpx.MockTransport(lambda r: (release.wait(5), honcho.handle(r))[1]),
    )
    manager.add_nowait("t", [msg("human", "x")], user_id="alice")
    assert manager.shutdown_flush(timeout) is False
    release.set()
    assert manager.shutdown_flush(5.0) is True
    manager.close()
