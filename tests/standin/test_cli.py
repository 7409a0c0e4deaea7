"""``fake-honcho-llm``: the printed URL and environment, serving, and one-line errors."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys

import httpx

from fake_honcho.standin.cli import main

COMMAND = (sys.executable, "-m", "fake_honcho.standin.cli")


def test_prints_the_base_url_then_honchos_environment_and_stops_on_sigterm() -> None:
    process = subprocess.Popen(
        [*COMMAND, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        environment = [process.stdout.readline().strip() for _ in range(5)]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        assert f"LLM_OPENAI_BASE_URL={url}" in environment
        assert "DERIVER_FLUSH_ENABLED=true" in environment
        answer = httpx.post(f"{url}/embeddings", json={"input": "hi"}, timeout=10)
        assert len(answer.json()["data"][0]["embedding"]) == 1536
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)


def test_a_busy_port_is_a_one_line_error(capsys) -> None:  # type: ignore[no-untyped-def]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"fake-honcho-llm: error: cannot listen on 127.0.0.1:{port}: the port is in use; "
        "pick another with --port N, or --port 0 for a free one\n"
    )


def test_an_unwritable_log_file_is_a_one_line_error(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert main(["--port", "0", "--log-file", str(tmp_path / "missing" / "log.jsonl")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("fake-honcho-llm: error: cannot open ") and err.count("\n") == 1
