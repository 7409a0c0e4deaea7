"""The control client: the same tests against an in-process fake and a served ``fake-honcho``."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from contract_tests.control import (
    DeriverTimeout,
    FakeControl,
    HttpControl,
    InProcessControl,
    control_for,
)
from contract_tests.target import HonchoTarget
from fake_honcho import FakeHoncho

from .served import running

API_KEY = "sk-control-test-key"
WS = "/v3/workspaces/ws"
CONTROL_ROUTES = [
    ("GET", "/_fake/deriver"),
    ("POST", "/_fake/deriver/step"),
    ("POST", "/_fake/deriver/drain"),
    ("POST", "/_fake/reset"),
    ("GET", "/_fake/state"),
    ("PUT", "/_fake/state"),
    ("GET", "/_fake/journal"),
    ("DELETE", "/_fake/journal"),
]


@dataclass
class Driven:
    """A manual-deriver fake with an api key: a client for its API and its controls."""

    honcho: httpx.Client
    control: FakeControl


@pytest.fixture(scope="module")
def served_url() -> Iterator[str]:
    args = ("--port", "0", "--deriver", "manual", "--api-key", API_KEY, "--log-level", "warning")
    with running(*args) as (url, _process):
        yield url


@pytest.fixture(scope="module")
def served(served_url: str) -> Iterator[Driven]:
    """Clients of the module's served fake (an httpx.Client costs a TLS context to build)."""
    with (
        httpx.Client(base_url=served_url, headers={"Authorization": f"Bearer {API_KEY}"}) as c,
        HttpControl.connect(served_url, api_key=API_KEY) as control,
    ):
        yield Driven(c, control)


@pytest.fixture(params=["in-process", "served"])
def driven(request: pytest.FixtureRequest) -> Iterator[Driven]:
    headers = {"Authorization": f"Bearer {API_KEY}"}
    if request.param == "in-process":
        with (
            FakeHoncho(api_key=API_KEY, deriver="manual") as fake,
            httpx.Client(transport=fake.transport(), base_url="http://fake", headers=headers) as c,
        ):
            yield Driven(c, InProcessControl(fake))
        return
    served: Driven = request.getfixturevalue("served")
    served.control.reset()  # one served fake for the module: each test starts from nothing
    yield served


def say(honcho: httpx.Client, *contents: str, session: str = "s") -> None:
    messages = [{"peer_id": "alice", "content": content} for content in contents]
    honcho.post(f"{WS}/sessions/{session}/messages", json={"messages": messages}).raise_for_status()


def representation(honcho: httpx.Client) -> str:
    response = honcho.post(f"{WS}/peers/alice/representation", json={})
    response.raise_for_status()
    return str(response.json()["representation"])


def test_a_manual_deriver_is_stepped_and_drained(driven: Driven) -> None:
    honcho, control = driven.honcho, driven.control
    say(honcho, "I prefer green tea", "I live in Lisbon", "I enjoy chess")
    queued = control.deriver_status()
    assert (queued.mode, queued.failed) == ("manual", 0)
    assert queued.queued == 3
    assert honcho.get(f"{WS}/queue/status").json()["pending_work_units"] == 3
    assert representation(honcho) == ""

    assert control.step() == 1
    assert control.deriver_status().queued == 2
    assert "alice prefers green tea" in representation(honcho)
    assert "Lisbon" not in representation(honcho)

    assert control.drain(timeout=10) == 2
    assert control.deriver_status().queued == 0
    assert "alice enjoys chess" in representation(honcho)
    assert control.step(5) == 0
    assert control.drain() == 0


def test_drain_answers_clearly_when_its_timeout_ends(driven: Driven) -> None:
    say(driven.honcho, "I like cats", "I like dogs", "I like owls")
    with pytest.raises(DeriverTimeout, match=r"deriver not idle after 1e-09s: 2 unit\(s\) still"):
        driven.control.drain(timeout=1e-9)
    assert driven.control.deriver_status().queued == 2
    assert driven.control.drain(timeout=10) == 2


def test_the_journal_is_read_and_cleared_without_control_requests(driven: Driven) -> None:
    honcho, control = driven.honcho, driven.control
    control.clear_journal()
    honcho.post("/v3/workspaces", json={"id": "ws", "metadata": {"k": 1}})
    honcho.post("/v3/workspaces/list", params={"size": 5}, json={})
    control.deriver_status()
    records = control.journal()
    assert [(r.method, r.path, r.status) for r in records] == [
        ("POST", "/v3/workspaces", 201),
        ("POST", "/v3/workspaces/list", 200),
    ]
    assert records[0].json == {"id": "ws", "metadata": {"k": 1}}
    assert records[1].query == {"size": "5"}
    assert records[1].fault is None
    assert control.clear_journal() >= 2
    assert control.journal() == []


def test_faults_added_through_the_controls_fire_and_are_journaled_as_typed(
    driven: Driven,
) -> None:
    honcho, control = driven.honcho, driven.control
    fault_id = control.add_fault("POST /v3/workspaces/list times=1 status=503")
    assert honcho.post("/v3/workspaces/list", json={}).status_code == 503
    assert honcho.post("/v3/workspaces/list", json={}).status_code == 200
    faults = [record.fault for record in control.journal()]
    assert faults == [f"{fault_id}: POST /v3/workspaces/list times=1 status=503", None]
    assert control.clear_faults() == 1
    with pytest.raises(ValueError, match="a fault rule needs an action"):
        control.add_fault("GET /health times=1")


def test_reset_and_a_seed_state_restore_exactly(driven: Driven) -> None:
    honcho, control = driven.honcho, driven.control
    say(honcho, "I prefer green tea", "I climb", session="one")
    control.drain()
    say(honcho, "I like swimming")  # queued, not run: the seed keeps it queued
    seed = control.export_state()
    listed = honcho.post(f"{WS}/sessions/one/messages/list", json={}).json()["items"]
    before = representation(honcho)

    control.reset()
    assert control.journal() == []
    assert honcho.post("/v3/workspaces/list", json={}).json()["items"] == []
    assert control.deriver_status().queued == 0

    rows = control.load_state(seed)
    assert rows > 5
    assert honcho.post(f"{WS}/sessions/one/messages/list", json={}).json()["items"] == listed
    assert representation(honcho) == before
    assert control.deriver_status().queued == 1
    assert control.export_state() == seed
    found = honcho.post(f"{WS}/search", json={"query": "climb"}).json()
    assert found[0]["content"] == "I climb"  # indexes rebuilt
    assert control.drain() == 1
    assert "alice likes swimming" in representation(honcho)


def test_a_bad_seed_is_refused_and_changes_nothing(driven: Driven) -> None:
    honcho, control = driven.honcho, driven.control
    say(honcho, "I like tea")
    for seed, message in (
        (b"notes", r"state:1: not a fake-honcho state file"),
        (control.export_state() + b'{"c":"nope","k":"x","r":{}}\n', r"unknown collection 'nope'"),
        (control.export_state()[:-3], r"corrupt state record"),  # no torn tail over HTTP
    ):
        with pytest.raises(ValueError, match=message):
            control.load_state(seed)
    assert len(honcho.post(f"{WS}/sessions/s/messages/list", json={}).json()["items"]) == 1


@pytest.mark.parametrize(("method", "path"), CONTROL_ROUTES)
def test_control_routes_need_the_api_key(served: Driven, method: str, path: str) -> None:
    for key, detail in ((None, "No access token provided"), ("x", "Invalid JWT")):
        request = served.honcho.build_request(method, path)
        del request.headers["Authorization"]
        if key is not None:
            request.headers["Authorization"] = f"Bearer {key}"
        response = served.honcho.send(request)
        assert (response.status_code, response.json()) == (401, {"detail": detail})


def test_bad_control_bodies_are_422s(served: Driven) -> None:
    http = served.honcho
    for path, body in (
        ("/_fake/deriver/step", {"count": 0}),
        ("/_fake/deriver/step", {"count": 1.5}),
        ("/_fake/deriver/step", {"steps": 1}),
        ("/_fake/deriver/drain", {"timeout": -1}),
        ("/_fake/deriver/drain", {"timeout": "1"}),
        ("/_fake/deriver/drain", [1]),
    ):
        response = http.post(path, json=body)
        assert response.status_code == 422, (path, body)
        assert set(response.json()) == {"detail"}
    assert http.post("/_fake/deriver/step", content=b"{").status_code == 422


def test_a_loaded_seed_with_queued_work_wakes_a_background_deriver() -> None:
    with FakeHoncho(deriver="manual") as source:
        with httpx.Client(transport=source.transport(), base_url="http://fake") as honcho:
            say(honcho, "I prefer green tea", "I sail")
        seed = InProcessControl(source).export_state()
    with FakeHoncho(deriver="background") as fake:
        control = InProcessControl(fake)
        control.load_state(seed)
        deadline = time.monotonic() + 10
        while control.deriver_status().queued and time.monotonic() < deadline:
            time.sleep(0.01)
        assert control.deriver_status().queued == 0


def test_control_for_picks_the_implementation_for_the_target(served_url: str) -> None:
    with FakeHoncho() as fake:
        assert isinstance(control_for(HonchoTarget("http://fake", fake=fake)), InProcessControl)
    served = control_for(HonchoTarget(served_url, api_key=API_KEY))
    assert isinstance(served, HttpControl)
    assert served.deriver_status().mode == "manual"
    assert API_KEY not in repr(served)


def test_a_stopped_drain_or_step_ends_at_the_next_unit() -> None:
    """The routes set ``stop`` when shutdown cancels them, so a long drain cannot hold it up."""
    from fake_honcho.harness import control

    stop = threading.Event()
    stop.set()
    with (
        FakeHoncho(deriver="manual") as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as honcho,
    ):
        say(honcho, "I like cats", "I like dogs", "I like owls")
        assert control.step(fake, 10, stop=stop) == {"ran": 0, "queued": 3}
        stopped = control.drain(fake, 60, stop=stop)
        assert (stopped["ran"], stopped["queued"], stopped["idle"]) == (1, 2, False)
        assert stopped["detail"] == "drain stopped: 2 unit(s) still queued (1 run)"


def test_out_of_range_arguments_are_value_errors_both_ways(driven: Driven) -> None:
    with pytest.raises(ValueError, match=r"count must be 1\.\.1000000, got 0"):
        driven.control.step(0)
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds, got 0"):
        driven.control.drain(timeout=0)
