"""``Settler`` against scripted queue-status answers: back-off, the quiet period, the deadline."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from contract_tests import HonchoTarget
from contract_tests.settle import Settler, SettleTimeout


class _MockTarget(HonchoTarget):
    """A real-mode target whose transport is a scripted handler."""

    def __init__(self, handler: Callable[[httpx.Request], httpx.Response]) -> None:
        super().__init__("http://honcho.test")
        self._handler = handler

    def transport(self) -> httpx.BaseTransport:
        return httpx.MockTransport(self._handler)


def _status(pending: int, in_progress: int = 0, total: int = 3) -> dict[str, Any]:
    return {
        "total_work_units": total,
        "completed_work_units": total - pending - in_progress,
        "in_progress_work_units": in_progress,
        "pending_work_units": pending,
        "sessions": None,
    }


class _Clock:
    """A fake monotonic clock that ``sleep`` advances, recording each sleep."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def _answers(statuses: list[dict[str, Any]]) -> Callable[[httpx.Request], httpx.Response]:
    """Answer each queue-status poll with the next status; the last one repeats."""
    it: Iterator[dict[str, Any]] = iter(statuses)
    last = statuses[-1]

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal last
        last = next(it, last)
        return httpx.Response(200, json=last)

    return handler


def _settler(
    handler: Callable[[httpx.Request], httpx.Response], clock: _Clock, **kw: Any
) -> Settler:
    return Settler(_MockTarget(handler), "ns", clock=clock, sleep=clock.sleep, **kw)


def test_polls_with_back_off_then_waits_out_the_quiet_period() -> None:
    clock = _Clock()
    _settler(_answers([_status(2), _status(0, 1), _status(0)]), clock, first_delay=0.1, quiet=1.0)(
        "ns-ws"
    )
    # busy, busy (in progress counts), idle at 0.3, then idle again until 1.3
    assert clock.sleeps == [0.1, 0.2, 0.4, 0.6]


def test_idle_at_first_read_is_not_believed_at_once() -> None:
    """Right after a write a real server may count nothing yet (it enqueues after answering)."""
    clock = _Clock()
    statuses = [_status(0, total=0), _status(1, total=1), _status(0, total=1)]
    _settler(_answers(statuses), clock, first_delay=0.05, quiet=0.5)("ns-ws")
    assert clock.sleeps == [0.05, 0.1, 0.2, 0.3]
    assert clock.now == pytest.approx(0.65)


def test_quiet_zero_returns_on_the_first_idle_read() -> None:
    clock = _Clock()
    _settler(_answers([_status(0)]), clock, quiet=0.0)("ns-ws")
    assert clock.sleeps == []


def test_raises_at_the_deadline_naming_the_batching_gate() -> None:
    clock = _Clock()
    settle = _settler(_answers([_status(1)]), clock, timeout=1.0)
    with pytest.raises(SettleTimeout, match=r"ns-ws.*DERIVER_FLUSH_ENABLED=true"):
        settle("ns-ws")
    assert clock.now <= 1.0


def test_work_in_progress_at_the_deadline_does_not_blame_the_gate() -> None:
    clock = _Clock()
    settle = _settler(_answers([_status(1, 1)]), clock, timeout=1.0)
    with pytest.raises(SettleTimeout) as raised:
        settle("ns-ws")
    assert "in_progress': 1" in str(raised.value)
    assert "DERIVER_FLUSH_ENABLED" not in str(raised.value)


def test_a_missing_workspace_has_nothing_to_settle() -> None:
    clock = _Clock()
    _settler(lambda request: httpx.Response(404, json={"detail": "nope"}), clock, quiet=0.0)("x")
    assert clock.sleeps == []


def test_settles_every_workspace_of_the_namespace() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path == "/v3/workspaces/list":
            items = [{"id": "ns-a"}, {"id": "ns-b"}, {"id": "other-ns-c"}]
            return httpx.Response(200, json={"items": items, "pages": 1})
        return httpx.Response(200, json=_status(0))

    _settler(handler, _Clock(), quiet=0.0)()
    assert seen == [
        "/v3/workspaces/list",
        "/v3/workspaces/ns-a/queue/status",
        "/v3/workspaces/ns-b/queue/status",
    ]
