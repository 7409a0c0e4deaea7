"""``HonchoMemoryManager`` against a misbehaving fake: every fault x every operation x both
read policies.

For each cell: ``add`` never raises; a read under ``fail_open`` returns its empty
fallback and under ``fail_closed`` raises ``MemoryManagerError``; the api key shows up
in no log line and no exception text; the journal shows the call was not retried once
the server may have seen it (a refused connection is retried once); and once the fault
clears the manager works normally and the session holds every message exactly once.
"""

from __future__ import annotations

import logging
import socket
import traceback
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.harness.journal import JournalEntry
from honcho_backend import HonchoMemoryManager
from honcho_backend.config import session_id_for
from honcho_backend.manager import MemoryManagerError

from .support import API_KEY

USER = "alice@example.com"
THREAD = "thread-1"
POLICIES = ("fail_open", "fail_closed")


def message(kind: str, text: str) -> SimpleNamespace:
    return SimpleNamespace(type=kind, content=text)


HISTORY = [
    message("human", "I love green tea every morning"),
    message("ai", "Noted: green tea in the morning"),
]
NEXT_TURN = [message("human", "Jasmine tea is my favourite"), message("ai", "Jasmine it is")]
LAST_TURN = [message("human", "And oolong after lunch"), message("ai", "Oolong after lunch")]

# (id, rule, whether the backend sees a failure). Every rule hits every /v3 request.
FAULTS = [
    ("429", "/v3/** status=429 retry_after=0", True),
    ("500", "/v3/** status=500", True),
    ("502", "/v3/** status=502", True),
    ("503", "/v3/** status=503", True),
    ("504", "/v3/** status=504", True),
    (
        "502-echoing-the-key",
        f"/v3/** status=502 'detail=bad upstream auth: Bearer {API_KEY}'",
        True,
    ),
    ("html-200", "/v3/** html", True),
    ("truncated-json", "/v3/** truncated", True),
    ("drop", "/v3/** drop", True),
    ("refuse", "/v3/** refuse", True),
    ("wrong-content-type", "/v3/** content_type=text/html", False),
    ("latency", "/v3/** latency=20ms", False),
]


def read_context(manager: HonchoMemoryManager) -> Any:
    return manager.get_context(USER)


def read_search(manager: HonchoMemoryManager) -> Any:
    return [(fact["content"], fact["peer_id"]) for fact in manager.search("tea", user_id=USER)]


def read_memory(manager: HonchoMemoryManager) -> Any:
    user = manager.get_memory(user_id=USER)["user"]  # its updatedAt is "now": left out
    return user.get("workContext", {}).get("summary")


READS: dict[str, tuple[Callable[[HonchoMemoryManager], Any], Any]] = {
    "get_context": (read_context, ""),
    "search": (read_search, []),
    "get_memory": (read_memory, None),
}


def keyed_manager(
    base_url: str, policy: str, *, transport: httpx.BaseTransport | None = None, **config: Any
) -> HonchoMemoryManager:
    """A manager sending the test key over plain http (allowed), with ``policy`` for reads."""
    settings = {
        "base_url": base_url,
        "api_key": API_KEY,
        "allow_insecure_http": True,
        "failure_policy": {"read": policy},
        **config,
    }
    return HonchoMemoryManager.from_config(settings, transport=transport)


class Scenario:
    """A fake with auth on and a manager (of one read policy) that already wrote a turn."""

    def __init__(self, fake: FakeHoncho, policy: str) -> None:
        self.fake = fake
        self.manager = keyed_manager("http://honcho.fake", policy, transport=fake.transport())
        self.manager.add(THREAD, HISTORY, user_id=USER)
        self.workspace = self.manager.config.workspace_for(USER)

    def stored(self) -> list[tuple[str, str]]:
        """The thread's messages in the fake, in order: (author, content)."""
        session = session_id_for(THREAD)
        return [
            (row["peer_id"], row["content"])
            for row in self.fake.store.rows("messages")
            if row["workspace_id"] == self.workspace and row["session_id"] == session
        ]

    def expected(self, *turns: list[SimpleNamespace]) -> list[tuple[str, str]]:
        peers = {"human": self.manager.config.user_peer_for(USER), "ai": "deerflow"}
        return [(peers[m.type], m.content) for turn in turns for m in turn]


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(api_key=API_KEY) as fake:
        yield fake


def assert_no_key(caplog: pytest.LogCaptureFixture, *errors: BaseException) -> None:
    assert API_KEY not in caplog.text
    for error in errors:
        assert API_KEY not in "".join(traceback.format_exception(error))


def assert_not_retried(entries: list[JournalEntry], rule: str) -> None:
    """One request per call; two (the same one) when the connection was refused."""
    expected = 2 if rule.endswith("refuse") else 1
    assert len(entries) == expected, entries
    assert len({(entry.method, entry.path) for entry in entries}) == 1


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(("name", "rule", "fails"), FAULTS, ids=[f[0] for f in FAULTS])
def test_add_under_fault(
    fake: FakeHoncho,
    caplog: pytest.LogCaptureFixture,
    policy: str,
    name: str,
    rule: str,
    fails: bool,
) -> None:
    scenario = Scenario(fake, policy)
    fake.requests.clear()
    caplog.set_level(logging.DEBUG)
    with fake.faults.inject(rule):
        assert scenario.manager.add(THREAD, HISTORY + NEXT_TURN, user_id=USER) is None
        faulted = list(fake.requests)
    assert_no_key(caplog)
    assert all(entry.fault is not None for entry in faulted)
    if fails:
        assert_not_retried(faulted, rule)
        assert "memory write for thread" in caplog.text
    else:
        assert scenario.stored() == scenario.expected(HISTORY, NEXT_TURN)
    # The fault clears: the next turn (full history, as DeerFlow sends it) loses nothing
    # and duplicates nothing, whether or not the server kept the faulted write.
    scenario.manager.add(THREAD, HISTORY + NEXT_TURN + LAST_TURN, user_id=USER)
    assert scenario.stored() == scenario.expected(HISTORY, NEXT_TURN, LAST_TURN)
    assert all(
        entry.status is not None and entry.status < 500 for entry in fake.requests[len(faulted) :]
    )


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("operation", list(READS))
@pytest.mark.parametrize(("name", "rule", "fails"), FAULTS, ids=[f[0] for f in FAULTS])
def test_read_under_fault(
    fake: FakeHoncho,
    caplog: pytest.LogCaptureFixture,
    policy: str,
    operation: str,
    name: str,
    rule: str,
    fails: bool,
) -> None:
    scenario = Scenario(fake, policy)
    read, fallback = READS[operation]
    baseline = read(scenario.manager)
    assert baseline != fallback
    fake.requests.clear()
    caplog.set_level(logging.DEBUG)
    with fake.faults.inject(rule):
        if fails and policy == "fail_closed":
            with pytest.raises(MemoryManagerError) as raised:
                read(scenario.manager)
            assert_no_key(caplog, raised.value)
        else:
            assert read(scenario.manager) == (fallback if fails else baseline)
            assert_no_key(caplog)
        faulted = list(fake.requests)
    if fails:
        assert_not_retried(faulted, rule)
    assert all(entry.fault is not None for entry in faulted)
    assert read(scenario.manager) == baseline


@pytest.mark.parametrize("policy", POLICIES)
def test_refused_once_is_retried_and_stored_once(fake: FakeHoncho, policy: str) -> None:
    scenario = Scenario(fake, policy)
    fake.requests.clear()
    with fake.faults.inject("POST /v3/** refuse times=1"):
        scenario.manager.add(THREAD, HISTORY + NEXT_TURN, user_id=USER)
    refused, retried = fake.requests
    assert refused.path == retried.path and refused.path.endswith("/messages")
    assert (refused.status, retried.status) == (None, 201)
    assert refused.fault is not None and retried.fault is None
    assert scenario.stored() == scenario.expected(HISTORY, NEXT_TURN)


@pytest.mark.parametrize("policy", POLICIES)
def test_a_blip_during_first_contact_is_recovered(fake: FakeHoncho, policy: str) -> None:
    """A fault on one step of a new thread's set-up (here: the session) is healed next turn."""
    scenario = Scenario(fake, policy)
    with fake.faults.inject("POST /v3/workspaces/*/sessions status=503 times=1"):
        scenario.manager.add("thread-2", HISTORY, user_id=USER)
    scenario.manager.add("thread-2", HISTORY + NEXT_TURN, user_id=USER)
    rows = [r for r in fake.store.rows("messages") if r["session_id"] == session_id_for("thread-2")]
    assert [row["content"] for row in rows] == [m.content for m in HISTORY + NEXT_TURN]


class TestOverTheWire:
    """Faults that need a socket: a read timeout and a port nobody listens on."""

    @pytest.mark.parametrize("policy", POLICIES)
    def test_slow_server_times_out_without_a_retry(
        self, fake: FakeHoncho, caplog: pytest.LogCaptureFixture, policy: str
    ) -> None:
        with fake.serve() as url:
            manager = keyed_manager(url, policy, timeout_seconds=0.2)
            manager.add(THREAD, HISTORY, user_id=USER)
            with fake.faults.inject("/v3/** latency=600ms"):
                assert manager.add(THREAD, HISTORY + NEXT_TURN, user_id=USER) is None
                if policy == "fail_closed":
                    with pytest.raises(MemoryManagerError, match="ReadTimeout") as raised:
                        manager.get_context(USER)
                    assert_no_key(caplog, raised.value)
                else:
                    assert manager.search("tea", user_id=USER) == []
            manager.close()
        # Read after the server stopped: a served request is journaled once its handler
        # returns, which can be after the client has its answer (or gave up waiting).
        # Both slow requests reached the server once each: no retry.
        slowed = [entry for entry in fake.requests if entry.fault is not None]
        assert [(entry.method, entry.path.rsplit("/", 1)[-1]) for entry in slowed] == [
            ("POST", "messages"),
            ("POST", "representation" if policy == "fail_closed" else "search"),
        ]
        assert_no_key(caplog)

    @pytest.mark.parametrize("policy", POLICIES)
    def test_dropped_socket_is_not_retried(
        self, fake: FakeHoncho, caplog: pytest.LogCaptureFixture, policy: str
    ) -> None:
        with fake.serve() as url:
            manager = keyed_manager(url, policy)
            manager.add(THREAD, HISTORY, user_id=USER)
            with fake.faults.inject("/v3/** drop"):
                assert manager.add(THREAD, HISTORY + NEXT_TURN, user_id=USER) is None
                if policy == "fail_closed":
                    with pytest.raises(MemoryManagerError, match="RemoteProtocolError") as raised:
                        manager.search("tea", user_id=USER)
                    assert_no_key(caplog, raised.value)
                else:
                    assert manager.search("tea", user_id=USER) == []
            manager.add(THREAD, HISTORY + NEXT_TURN, user_id=USER)
            manager.close()
        dropped = [entry for entry in fake.requests if entry.fault is not None]
        assert [(entry.path.rsplit("/", 1)[-1], entry.status) for entry in dropped] == [
            ("messages", None),
            ("search", None),
        ]
        stored = [row["content"] for row in fake.store.rows("messages")]
        assert stored == [message.content for message in HISTORY + NEXT_TURN]
        assert_no_key(caplog)

    @pytest.mark.parametrize("policy", POLICIES)
    def test_nothing_listening(self, caplog: pytest.LogCaptureFixture, policy: str) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        manager = keyed_manager(f"http://127.0.0.1:{port}", policy)
        assert manager.add(THREAD, HISTORY, user_id=USER) is None
        if policy == "fail_closed":
            with pytest.raises(MemoryManagerError, match="ConnectError") as raised:
                manager.get_memory(user_id=USER)
            assert_no_key(caplog, raised.value)
        else:
            assert manager.get_context(USER) == ""
        assert manager.warm() is False
        manager.close()
        assert_no_key(caplog)
