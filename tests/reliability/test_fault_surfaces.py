"""Fault rules through every surface of a real ``FakeHoncho``: Python API, control routes
(curl-able JSON), the ``fake-honcho --fault`` option, and the request journal."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.cli import build_parser, create_fake

from .support import API_KEY

BEARER = {"Authorization": f"Bearer {API_KEY}"}


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho() as fake:
        yield fake


@pytest.fixture
def http(fake: FakeHoncho) -> Iterator[httpx.Client]:
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        yield client


def test_python_api_rule_is_journaled(fake: FakeHoncho, http: httpx.Client) -> None:
    fault = fake.faults.add("GET /health status=503 times=2")
    statuses = [http.get("/health").status_code for _ in range(3)]
    assert statuses == [503, 503, 200]
    assert [(entry.status, entry.fault) for entry in fake.requests] == [
        (503, f"{fault.id}: GET /health status=503 times=2"),
        (503, f"{fault.id}: GET /health status=503 times=2"),
        (200, None),
    ]


def test_control_routes_on_the_fake(fake: FakeHoncho, http: httpx.Client) -> None:
    created = http.post("/_fake/faults", json={"spec": "GET /health html times=1"})
    assert created.status_code == 201
    assert [fault.id for fault in fake.faults] == [created.json()["id"]]
    assert http.get("/health").headers["content-type"].startswith("text/html")
    assert http.get("/_fake/faults").json()["rules"][0]["remaining"] == 0
    assert http.delete("/_fake/faults").json() == {"removed": 1}
    assert len(fake.faults) == 0


def test_dropped_request_is_journaled_without_a_status(
    fake: FakeHoncho, http: httpx.Client
) -> None:
    fake.faults.add("GET /health drop")
    with pytest.raises(httpx.RemoteProtocolError):
        http.get("/health")
    (entry,) = fake.requests
    assert entry.status is None
    assert entry.fault is not None and entry.fault.endswith("GET /health drop")


def test_reset_clears_the_rules(fake: FakeHoncho, http: httpx.Client) -> None:
    fake.faults.add("** status=500")
    fake.reset()
    assert http.get("/health").status_code == 200


def test_served_fake_drops_the_socket(fake: FakeHoncho) -> None:
    fake.faults.add("GET /health drop times=1")
    with fake.serve() as url, httpx.Client(base_url=url) as client:
        with pytest.raises(httpx.RemoteProtocolError):
            client.get("/health")
        assert client.get("/health").status_code == 200
    assert [entry.status for entry in fake.requests] == [None, 200]


class TestCli:
    def test_fault_option_installs_rules(self) -> None:
        args = build_parser().parse_args(
            [
                "--fault",
                "POST /v3/workspaces/*/sessions/*/messages status=503 times=2",
                "--fault",
                "GET /health latency=10ms",
            ]
        )
        with create_fake(args) as fake:
            assert [fault.rule.spec for fault in fake.faults] == [
                "POST /v3/workspaces/*/sessions/*/messages status=503 times=2",
                "GET /health latency=10ms",  # as typed
            ]

    def test_bad_fault_option_is_a_usage_error(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit) as exit_info:
            build_parser().parse_args(["--fault", "GET /health status=200"])
        assert exit_info.value.code == 2
        assert "argument --fault: status must be an HTTP error status" in capsys.readouterr().err

    def test_served_from_the_command_line_with_a_key(self) -> None:
        command = [sys.executable, "-m", "fake_honcho", "--port", "0", "--log-level", "warning"]
        command += ["--api-key", API_KEY, "--fault", "GET /health status=429 retry_after=3 times=1"]
        with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
            try:
                assert process.stdout is not None
                url = process.stdout.readline().strip()
                with httpx.Client(base_url=url) as client:
                    limited = client.get("/health")
                    assert limited.status_code == 429
                    assert limited.headers["retry-after"] == "3"
                    assert client.get("/health").json() == {"status": "ok"}
                    refused = client.get("/_fake/faults")
                    assert (refused.status_code, refused.json()) == (
                        401,
                        {"detail": "No access token provided"},
                    )
                    rules = client.get("/_fake/faults", headers=BEARER).json()["rules"]
                    assert [(rule["fired"], rule["remaining"]) for rule in rules] == [(1, 0)]
            finally:
                process.terminate()
                process.wait(timeout=30)
