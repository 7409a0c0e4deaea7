"""Run ``fake-honcho`` as a subprocess for a test: read its URL, stop it with a signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest

STARTUP_TIMEOUT = 60
MODULE = (sys.executable, "-m", "fake_honcho")


@contextmanager
def running(
    *args: str, command: Sequence[str] = MODULE, **env: str
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Start the CLI, yield (base URL read from its first stdout line, process); stop it."""
    process = subprocess.Popen(
        [*command, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        if not url:
            process.wait(STARTUP_TIMEOUT)
            pytest.fail(f"fake-honcho did not start: {process.stderr.read()}")  # type: ignore[union-attr]
        yield url, process
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=STARTUP_TIMEOUT)


def stop(process: subprocess.Popen[str], sig: int = signal.SIGTERM) -> tuple[int, str]:
    """Signal the server to stop; its exit code and everything it wrote after the URL line."""
    process.send_signal(sig)
    out, err = process.communicate(timeout=STARTUP_TIMEOUT)
    return process.returncode, out + err
