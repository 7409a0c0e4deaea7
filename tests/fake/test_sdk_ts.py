"""Every public method of @honcho-ai/sdk 2.5 against a served fake at its newest version.

``tests/sdk_ts/every_method.cjs`` finds the SDK's methods on its class prototypes and
runs one asserting call for each; this test installs the pinned SDK
(``tests/sdk_ts/package-lock.json``) with ``npm ci`` when it is missing, serves the fake
and reads the script's verdicts. It skips, naming why, without node, npm or the package.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fake_honcho import FakeHoncho
from fake_honcho.versions import VERSIONS

SDK_DIR = Path(__file__).resolve().parents[1] / "sdk_ts"
PINNED = json.loads((SDK_DIR / "package.json").read_text())["dependencies"]["@honcho-ai/sdk"]
NEWEST = list(VERSIONS)[-1]


def _installed_version() -> str | None:
    manifest = SDK_DIR / "node_modules" / "@honcho-ai" / "sdk" / "package.json"
    if not manifest.is_file():
        return None
    version: str = json.loads(manifest.read_text())["version"]
    return version


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not installed: the TypeScript SDK cannot run")
    if _installed_version() != PINNED:
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip(f"npm is not installed: cannot install @honcho-ai/sdk {PINNED}")
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
            cwd=SDK_DIR,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0 or _installed_version() != PINNED:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            pytest.skip(f"npm ci could not install @honcho-ai/sdk {PINNED}: {tail[0]}")
    return found


@pytest.fixture(scope="module")
def verdicts(node: str) -> dict[str, Any]:
    # Every world holds a session s1, which a real server's clone refuses across workspaces
    # (divergence real-clone-cross-workspace): the SDK's calls are the point here.
    with FakeHoncho(version=NEWEST, strict=True, real_bugs="correct") as fake, fake.serve() as url:
        done = subprocess.run(
            [node, "every_method.cjs"],
            cwd=SDK_DIR,
            env={**os.environ, "HONCHO_URL": url},
            capture_output=True,
            text=True,
            timeout=600,
        )
        hosts = {entry.honcho_host for entry in fake.requests} - {None}
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    report["hosts"] = hosts
    return report


def test_every_method_has_a_call(verdicts: dict[str, Any]) -> None:
    missing = [m for m, r in verdicts["results"].items() if r["error"] == "no call for this method"]
    assert not missing, f"@honcho-ai/sdk methods without a call in every_method.cjs: {missing}"
    assert not verdicts["stale"], f"calls for methods the SDK no longer has: {verdicts['stale']}"
    assert len(verdicts["methods"]) > 60  # the enumeration found the SDK's classes


def test_every_method_answers(verdicts: dict[str, Any]) -> None:
    failed = {
        method: result["error"]
        for method, result in verdicts["results"].items()
        if not result["ok"]
    }
    assert not failed, f"methods that did not answer as asserted: {failed}"


def test_the_sdk_names_itself_in_x_honcho_host(verdicts: dict[str, Any]) -> None:
    hosts = verdicts["hosts"]
    assert hosts and all(host.startswith(f"honcho-typescript/{PINNED} (") for host in hosts)
