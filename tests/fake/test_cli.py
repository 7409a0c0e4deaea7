"""``fake-honcho``: options, the printed URL, auth, and failing loudly at start-up."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from fake_honcho.cli import build_parser, create_fake, main

from .served import STARTUP_TIMEOUT, running, stop


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_console_script_serves_health_on_the_given_port() -> None:
    port = free_port()
    script = Path(sys.executable).with_name("fake-honcho")
    with running("--port", str(port), command=[str(script)]) as (url, process):
        assert url == f"http://127.0.0.1:{port}"
        assert httpx.get(f"{url}/health").json() == {"status": "ok"}
        assert httpx.get(f"{url}/v3/nope").status_code == 404
        code, _ = stop(process)
    assert code == 0


def test_port_zero_prints_the_bound_url_and_sigterm_exits_cleanly() -> None:
    with running("--port", "0", "--log-level", "warning") as (url, process):
        host, port = url.removeprefix("http://").split(":")
        assert host == "127.0.0.1" and int(port) > 0
        assert httpx.post(f"{url}/v3/workspaces", json={"id": "ws"}).status_code == 201
        code, output = stop(process)
    assert code == 0
    assert "Traceback" not in output


def test_it_says_where_its_api_docs_are_and_how_to_stop_it() -> None:
    """After the URL line (stdout, for scripts), one line on stderr for the person."""
    with running("--port", "0", "--honcho-version", "3.0.12") as (url, process):
        assert httpx.get(f"{url}/docs").status_code == 200
        _, output = stop(process)
    assert (
        f"fake-honcho: info: serving Honcho 3.0.12 at {url}; API docs at {url}/docs "
        f"(OpenAPI at {url}/openapi.json); Ctrl+C or SIGTERM stops it"
    ) in output.splitlines()
    with running("--port", "0", "--log-level", "warning") as (url, process):
        assert httpx.get(f"{url}/health").status_code == 200
        _, output = stop(process)
    assert "API docs" not in output  # --log-level warning: notices only


def test_api_key_from_option_or_env_closes_routes_and_never_shows_in_output() -> None:
    key = "sk-cli-hidden-key"
    for args, env in (((f"--api-key={key}",), {}), ((), {"FAKE_HONCHO_API_KEY": key})):
        with running("--port", "0", "--log-level", "trace", *args, **env) as (url, process):
            assert httpx.get(f"{url}/health").status_code == 200
            refused = httpx.post(f"{url}/v3/workspaces", json={"id": "ws"})
            assert refused.status_code == 401
            assert refused.json() == {"detail": "No access token provided"}
            wrong = httpx.post(
                f"{url}/v3/workspaces", json={"id": "ws"}, headers={"Authorization": "Bearer x"}
            )
            assert wrong.json() == {"detail": "Invalid JWT"}
            ok = httpx.post(
                f"{url}/v3/workspaces",
                json={"id": "ws"},
                headers={"Authorization": f"Bearer {key}"},
            )
            assert ok.status_code in (200, 201)
            _, output = stop(process)
        assert "POST /v3/workspaces" in output  # the trace log did record the requests
        assert key not in output


def test_a_corrupt_state_file_stops_start_up_naming_file_and_line(tmp_path: Path) -> None:
    state = tmp_path / "state.jsonl"
    state.write_text(
        '{"format":"fake-honcho-state","version":1}\n{"c":"workspaces"\n{"c":"x","k":"y"}\n'
    )
    before = state.read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "fake_honcho", "--port", "0", "--state-file", str(state)],
        capture_output=True,
        text=True,
        timeout=STARTUP_TIMEOUT,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert f"{state}:2: corrupt state record" in result.stderr
    assert state.read_bytes() == before


def test_a_busy_port_is_one_line_naming_the_way_out_and_leaves_no_state_file(
    tmp_path: Path,
) -> None:
    state = tmp_path / "honcho.jsonl"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "fake_honcho", "--port", str(port), "--state-file", str(state)],
            capture_output=True,
            text=True,
            timeout=STARTUP_TIMEOUT,
        )
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"fake-honcho: error: cannot listen on 127.0.0.1:{port}: the port is in use; "
        "pick another with --port N, or --port 0 for a free one"
    ]
    assert list(tmp_path.iterdir()) == []  # neither the state file nor its lock


def test_defaults_and_options_parse_into_the_fake(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FAKE_HONCHO_API_KEY", raising=False)
    defaults = build_parser().parse_args([])
    assert (defaults.host, defaults.port, defaults.deriver, defaults.log_level) == (
        "127.0.0.1",
        8000,
        "background",
        "info",
    )
    with create_fake(defaults) as fake:
        assert not fake.auth_enabled
        assert fake.requests.limit == 10_000
        assert fake.deriver.mode == "background"
    seeded = build_parser().parse_args(["--seed", "5", "--deriver", "manual"])
    with create_fake(seeded) as one, create_fake(seeded) as two:
        assert one.new_id() == two.new_id()
        assert one.deriver.mode == "manual"
    monkeypatch.setenv("FAKE_HONCHO_API_KEY", "from-env")
    with create_fake(build_parser().parse_args([])) as fake:
        assert fake.auth_enabled


def test_help_and_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_help:
        main(["--help"])
    assert exit_help.value.code == 0
    help_text = capsys.readouterr().out
    for option in (
        "--host",
        "--port",
        "--api-key",
        "--log-level",
        "--deriver",
        "--state-file",
        "--seed",
    ):
        assert option in help_text
    with pytest.raises(SystemExit) as exit_bad:
        main(["--deriver", "sometimes"])
    assert exit_bad.value.code == 2


def test_kill_9_and_restart_keep_every_acknowledged_write(tmp_path: Path) -> None:
    state = str(tmp_path / "state.jsonl")
    ws = "/v3/workspaces/ws"
    acknowledged: list[str] = []
    with (
        running("--port", "0", "--state-file", state, "--log-level", "warning") as (
            url,
            process,
        ),
        httpx.Client(base_url=url) as client,
    ):
        client.post("/v3/workspaces", json={"id": "ws", "metadata": {"v": 1}}).raise_for_status()
        client.put(ws, json={"metadata": {"v": 2}}).raise_for_status()
        client.post(f"{ws}/peers", json={"id": "alice", "metadata": {"k": "a"}}).raise_for_status()
        client.post(f"{ws}/sessions", json={"id": "s1", "peers": {"alice": {}}}).raise_for_status()

        def write_until_killed() -> None:
            for n in range(10_000):
                content = f"message {n}"
                try:
                    client.post(
                        f"{ws}/sessions/s1/messages",
                        json={"messages": [{"peer_id": "alice", "content": content}]},
                    ).raise_for_status()
                except httpx.TransportError:
                    return
                acknowledged.append(content)

        writer = threading.Thread(target=write_until_killed)
        writer.start()
        while len(acknowledged) < 40 and writer.is_alive():
            time.sleep(0.01)
        process.kill()  # SIGKILL, mid-stream: no shutdown code runs
        process.wait(STARTUP_TIMEOUT)
        writer.join()

    with running("--port", "0", "--state-file", state, "--log-level", "warning") as (url, process):
        with httpx.Client(base_url=url) as client:
            workspaces = client.post("/v3/workspaces/list").json()["items"]
            assert [(w["id"], w["metadata"]) for w in workspaces] == [("ws", {"v": 2})]
            peers = client.post(f"{ws}/peers/list").json()["items"]
            assert [(p["id"], p["metadata"]) for p in peers] == [("alice", {"k": "a"})]
            listed = client.post(f"{ws}/sessions/s1/messages/list", params={"size": 100}).json()
            assert listed["total"] < 100
            stored = [m["content"] for m in listed["items"]]
            assert stored[: len(acknowledged)] == acknowledged
            assert len(stored) <= len(acknowledged) + 1  # at most the one in flight
            # Writing after a restart continues where the log left off.
            client.post(
                f"{ws}/sessions/s1/messages",
                json={"messages": [{"peer_id": "alice", "content": "after restart"}]},
            ).raise_for_status()
            listed = client.post(f"{ws}/sessions/s1/messages/list", params={"size": 100}).json()
            assert [m["content"] for m in listed["items"]] == [*stored, "after restart"]
        code, _ = stop(process)
    assert code == 0
    keys = [
        (r["c"], str(r["k"])) for r in map(json.loads, Path(state).read_text().splitlines()[1:])
    ]
    assert len(keys) == len(set(keys))  # compacted: one record per live row


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "99999"], "argument --port: must be an integer 0..65535, got '99999'"),
        (["--port", "-1"], "argument --port: must be an integer 0..65535, got '-1'"),
        (["--port", "http"], "argument --port: must be an integer 0..65535, got 'http'"),
        (["--api-key", ""], "argument --api-key: must not be empty"),
        (["--shutdown-grace", "-2"], "argument --shutdown-grace: must be a whole number"),
    ],
)
def test_argument_errors_are_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fake-honcho: error: {message}") and err.count("\n") == 1
    assert err.endswith(" ('fake-honcho --help' lists the options)\n")


def test_a_file_that_is_not_a_state_file_refuses_start_up_and_stays_byte_identical(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"notes")
    result = subprocess.run(
        [sys.executable, "-m", "fake_honcho", "--port", "0", "--state-file", "notes.txt"],
        capture_output=True,
        text=True,
        timeout=STARTUP_TIMEOUT,
        cwd=tmp_path,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "fake-honcho: error: notes.txt:1: not a fake-honcho state file\n"
    assert notes.read_bytes() == b"notes"
    assert [path.name for path in tmp_path.iterdir()] == ["notes.txt"]


def test_a_missing_directory_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope"
    assert main(["--port", "0", "--state-file", str(missing / "state.jsonl")]) == 1
    assert capsys.readouterr().err == (
        f"fake-honcho: error: {missing}/state.jsonl: cannot create lock file "
        f"{missing}/state.jsonl.lock: directory {missing} does not exist\n"
    )


def test_a_torn_tail_is_a_plain_warning_and_the_lock_goes_at_exit(tmp_path: Path) -> None:
    state = tmp_path / "state.jsonl"
    state.write_text(
        '{"format":"fake-honcho-state","version":1}\n{"c":"workspaces","k":"a","r":{"id":"a"}}\n'
        '{"c":"workspaces","k":"b","r":{"i'
    )
    with running("--port", "0", "--state-file", str(state), "--log-level", "warning") as (
        url,
        process,
    ):
        assert (tmp_path / "state.jsonl.lock").exists()
        listed = httpx.post(f"{url}/v3/workspaces/list", json={}).json()["items"]
        assert [workspace["id"] for workspace in listed] == ["a"]
        code, output = stop(process, signal.SIGINT)
    assert code == 0
    notice = f"fake-honcho: warning: {state}:3: dropping a torn final line (an interrupted write)"
    assert output == notice + "\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["state.jsonl"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_slow_request_at_shutdown_gets_a_clean_answer(sig: signal.Signals) -> None:
    """Within the grace period it is served; a request still running after it gets a 503."""
    args = ("--port", "0", "--log-level", "warning", "--shutdown-grace", "1")
    faults = ("--fault", "POST /v3/workspaces/list latency=300ms", "--fault", "PUT ** latency=60s")
    with running(*args, *faults) as (url, process), httpx.Client(base_url=url) as client:
        answers: dict[str, httpx.Response] = {}

        def call(name: str, method: str, path: str) -> None:
            answers[name] = client.request(method, path, json={}, timeout=STARTUP_TIMEOUT)

        calls = [
            threading.Thread(target=call, args=("quick", "POST", "/v3/workspaces/list")),
            threading.Thread(target=call, args=("slow", "PUT", "/v3/workspaces/ws")),
        ]
        for thread in calls:
            thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:  # until both requests are inside their latency
            if all(rule["matched"] for rule in client.get("/_fake/faults").json()["rules"]):
                break
            time.sleep(0.01)
        code, output = stop(process, sig)
        for thread in calls:
            thread.join()
    assert code == 0
    assert answers["quick"].status_code == 200
    assert (answers["slow"].status_code, answers["slow"].json()) == (
        503,
        {"detail": "fake-honcho is shutting down"},
    )
    assert "Traceback" not in output
    assert "Exception in ASGI application" not in output


def test_real_bugs_and_cors_origins_reach_the_fake() -> None:
    args = build_parser().parse_args(
        ["--real-bugs", "correct", "--cors-origins", "http://localhost:3000, https://app.example"]
    )
    with create_fake(args) as fake:
        assert fake.real_bugs == "correct"
        assert fake.cors_origins == ("http://localhost:3000", "https://app.example")
    with create_fake(build_parser().parse_args([])) as fake:
        assert fake.real_bugs == "reproduce"
        assert fake.cors_origins == (
            "http://localhost",
            "http://127.0.0.1:8000",
            "https://api.honcho.dev",
        )


def test_a_body_not_sent_as_json_gets_the_real_422_and_one_log_line_saying_why() -> None:
    with running("--port", "0") as (url, process):
        answer = httpx.post(f"{url}/v3/workspaces", content=b'{"id": "a"}')  # no content type
        typed = httpx.post(
            f"{url}/v3/workspaces", content=b'{"id": "a"}', headers={"content-type": "text/plain"}
        )
        _, output = stop(process)
    assert answer.status_code == typed.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body"]  # the real server's answer, as is
    said = [line for line in output.splitlines() if "not read as JSON" in line]
    assert said == [
        "fake-honcho: info: POST /v3/workspaces: 422 because the body was not read as JSON "
        f"({came}); send the header Content-Type: application/json"
        for came in ("it came without a Content-Type", "it came as Content-Type: text/plain")
    ]


def test_an_ignored_field_is_one_notice_line_on_the_served_fake() -> None:
    with running("--port", "0", "--honcho-version", "3.0.12") as (url, process):
        for _ in range(2):
            httpx.post(
                f"{url}/v3/workspaces/w/peers/alice/chat", json={"query": "tea?", "scope": "work"}
            )
        _, output = stop(process)
    said = [line for line in output.splitlines() if "ignores the field" in line]
    assert len(said) == 1 and said[0].startswith(
        "fake-honcho: warning: Honcho 3.0.12 ignores the field `scope` on POST "
    )
    assert "IgnoredFieldWarning" not in output and "warnings.warn" not in output


def test_the_banner_names_the_state_file_and_the_fault_rules(tmp_path: Path) -> None:
    state = tmp_path / "honcho.jsonl"
    rule = "POST /v3/** status=503 times=2"
    with running("--port", "0", "--state-file", str(state)) as (url, process):
        httpx.post(f"{url}/v3/workspaces", json={"id": "kept"})
        _, first = stop(process)
    with running("--port", "0", "--state-file", str(state), "--fault", rule) as (url, process):
        _, second = stop(process)
    assert f"fake-honcho: info: state file {state}: empty, starting fresh" in first.splitlines()
    lines = second.splitlines()
    assert f"fake-honcho: info: state file {state}: 1 row loaded" in lines
    assert (
        f"fake-honcho: info: fault rules on: f1: {rule} (GET /_fake/faults lists them live)"
        in lines
    )
