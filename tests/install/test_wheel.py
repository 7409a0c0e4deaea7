"""The built wheel, installed without extras into a fresh venv, is the backend alone.

A production host (DeerFlow) installs the kit for ``honcho_backend``; none of the
test tooling may come with it, the fake's command must say which extra it needs,
and the auto-loaded pytest plugin must not break the host's own pytest.
"""

from __future__ import annotations

import email
import json
import subprocess
import sys
import venv
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLING = {
    "pytest",
    "pytest-xdist",
    "syrupy",
    "starlette",
    "uvicorn",
    "jsonschema",
    "python-multipart",
}


@dataclass(frozen=True)
class Installed:
    wheel: Path
    python: Path
    bin: Path


def _run(*command: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, check=False
    )


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, f"{done.args} exited {done.returncode}:\n{done.stderr[-2000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    root = tmp_path_factory.mktemp("wheel")
    _ok(
        _run(
            sys.executable,
            *("-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"),
            *("-w", root / "dist", REPO),
        )
    )
    (wheel,) = (root / "dist").glob("*.whl")
    venv.EnvBuilder(with_pip=False).create(root / "venv")  # this pip installs into it
    bin_dir = root / "venv" / "bin"
    python = bin_dir / "python"
    _pip_install(python, wheel)
    yield Installed(wheel, python, bin_dir)


def _pip_install(python: Path, *requirements: str | Path) -> None:
    """Install into the fresh venv with this interpreter's pip and its index settings."""
    _ok(_run(sys.executable, "-m", "pip", "--python", python, "install", "-q", *requirements))


def _distributions(python: Path) -> set[str]:
    listing = json.loads(
        _ok(_run(sys.executable, "-m", "pip", "--python", python, "list", "--format=json"))
    )
    return {entry["name"].lower() for entry in listing}


def test_the_core_requirements_are_httpx_and_pydantic_only(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.message_from_bytes(archive.read(name))
    core = [r for r in metadata.get_all("Requires-Dist") or [] if "extra ==" not in r]
    assert sorted(r.split(">=")[0] for r in core) == ["httpx", "pydantic"]
    extras = {"fake", "contract", "fuzz", "replay", "test"}
    assert set(metadata.get_all("Provides-Extra") or []) == extras


def test_the_docs_pages_ship_their_script_and_style(installed: Installed) -> None:
    """/docs and /redoc are rendered offline from files in the package, not fetched."""
    with zipfile.ZipFile(installed.wheel) as archive:
        names = set(archive.namelist())
    static = "fake_honcho/openapi/static/"
    assert {f"{static}api-docs.js", f"{static}api-docs.css"} <= names


def test_no_test_tooling_comes_with_the_backend(installed: Installed) -> None:
    present = _distributions(installed.python)
    assert {"httpx", "pydantic", "honcho-contract-kit"} <= present
    assert not present & TOOLING


def test_the_backend_imports_and_works_without_extras(installed: Installed) -> None:
    probe = (
        "import sys, honcho_backend\n"
        "from honcho_backend import HonchoMemoryManager, MANAGER_CLASS\n"
        "m = HonchoMemoryManager.from_config({'base_url': 'http://127.0.0.1:9'})\n"
        "assert MANAGER_CLASS is HonchoMemoryManager and m.get_context(None) == ''\n"
        "print(sorted(n for n in ('pytest', 'starlette', 'syrupy') if n in sys.modules))\n"
    )
    assert _ok(_run(installed.python, "-c", probe)).strip() == "[]"


def test_fake_honcho_names_the_missing_extra_in_one_line(installed: Installed) -> None:
    done = _run(installed.bin / "fake-honcho", "--port", "0")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "fake-honcho: error: the 'fake' extra is not installed (missing starlette, uvicorn, "
        "httptools, jsonschema, python-multipart, PyStemmer, tiktoken, PyJWT); "
        f"install it with: pip install '{installed.wheel}[fake]'"  # where the kit came from
    ]


def test_a_host_pytest_runs_with_the_plugin_disabled(installed: Installed, tmp_path: Path) -> None:
    _pip_install(installed.python, "pytest")
    (tmp_path / "test_host.py").write_text("def test_host():\n    assert True\n")
    done = _run(installed.python, "-m", "pytest", "-p", "no:cacheprovider", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    notes = [line for line in done.stdout.splitlines() if "honcho_contract" in line]
    assert len(notes) == 1 and "'contract' extra is not installed" in notes[0]
    assert "1 passed" in done.stdout


def test_the_parts_a_core_install_lacks_say_which_extra_in_one_line(installed: Installed) -> None:
    for statement, extra in (
        ("from fake_honcho import FakeHoncho", "fake"),
        ("from contract_tests import MemoryManagerContract", "contract"),
    ):
        done = _run(installed.python, "-c", statement)
        assert done.returncode == 1
        last = done.stderr.splitlines()[-1]
        assert last.startswith("ImportError: ") and f"needs the '{extra}' extra" in last, last
        assert f"pip install '{installed.wheel}[{extra}]'" in last
    version = _ok(_run(installed.bin / "fake-honcho", "--version"))
    assert version.startswith("fake-honcho (honcho-contract-kit) ")


@pytest.fixture(scope="module")
def served_from_wheel(
    installed: Installed, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Installed]:
    """The wheel with its ``fake`` extra in a fresh venv: what ``pipx install
    'honcho-contract-kit[fake]'`` (docs/reference.md) gives a user of any language."""
    root = tmp_path_factory.mktemp("fake-extra")
    venv.EnvBuilder(with_pip=False).create(root / "venv")
    bin_dir = root / "venv" / "bin"
    _pip_install(bin_dir / "python", f"{installed.wheel}[fake]")
    yield Installed(installed.wheel, bin_dir / "python", bin_dir)


def test_the_fake_extra_serves_and_brings_no_test_tooling(served_from_wheel: Installed) -> None:
    present = _distributions(served_from_wheel.python)
    assert {"starlette", "uvicorn", "honcho-contract-kit"} <= present
    assert not present & (TOOLING - {"starlette", "uvicorn", "jsonschema", "python-multipart"})
    assert not present & {"hypothesis", "schemathesis", "ruff", "mypy", "honcho-ai"}
    process = subprocess.Popen(
        [str(served_from_wheel.bin / "fake-honcho"), "--port", "0", "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        assert httpx.get(f"{url}/health").json() == {"status": "ok"}
    finally:
        process.terminate()
        process.communicate(timeout=30)
    assert process.returncode == 0
