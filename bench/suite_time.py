"""Benchmark 6: wall time of the contract suite against the fake, run as CI runs it."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from bench.harness import Settings
from bench.report import Table, verdict

REPO = Path(__file__).resolve().parent.parent
SUITE = "tests/contract"
SUMMARY = re.compile(r"\d+ (passed|failed|error)")
COMMAND = [sys.executable, "-m", "pytest", "-n", "2", SUITE, "-q", "-p", "no:cacheprovider"]


def run(settings: Settings) -> list[Table]:
    table = Table(
        "6. Contract suite time (`pytest -n 2 tests/contract -q`)",
        ["run", "wall time", "outcome", "target", "result"],
    )
    if settings.quick:
        table.add("skipped", "-", "not run in --quick mode", "-", verdict(None))
        return [table]
    if not (REPO / SUITE).is_dir():
        table.add("skipped", "-", f"{SUITE} does not exist yet", "-", verdict(None))
        return [table]
    start = time.perf_counter()
    done = subprocess.run(COMMAND, cwd=REPO, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    lines = done.stdout.strip().splitlines()
    summaries = [line.strip("= ") for line in lines if SUMMARY.search(line)]
    summary = summaries[-1] if summaries else "no pytest summary line"
    table.add("full suite", f"{elapsed:.1f} s", summary, "printed", verdict(None))
    if done.returncode != 0:
        tail = " / ".join((lines or done.stderr.strip().splitlines())[-3:])
        table.notes.append(f"pytest exited with {done.returncode}: {tail}")
    return [table]
