"""Every install line of the README and the guides, run for real in fresh virtual environments.

``python -m build`` makes the sdist and the wheel from this checkout, as a maintainer
releasing the kit does (once per run, shared by xdist workers). The sdist, unpacked, is a
user's clone (``./honcho-contract-kit``, or the current directory for ``'.[fake]'``, with
the built files in its ``dist/``); the wheel, in a find-links folder (``PIP_FIND_LINKS``,
and ``wheels/`` beside the clone for the CI guide's workflow), stands in for the release
on PyPI, so a line written for after the release (``pip install 'honcho-contract-kit[fake]'``)
runs as written too. Dependencies come from the package index, as on a user's machine.

Nothing is stubbed: each line's own ``pip`` (or ``pipx``) installs into a fresh venv, one per
extra, the kit is uninstalled between two lines so each line installs it again, and a probe
then checks what the extra is for. A line that serves (``pipx run ... fake-honcho``) serves on
a free port until it answers ``/health``. The README's quick start runs as a reader runs it:
the fake served from one venv, the contract suite run from a second one holding only what
its line installs. With the ``fake`` extra and a host's own pytest, ``pytest --honcho-url
URL`` is the one line naming the ``contract`` extra. Without a reachable package index these
tests are skipped, saying so.
"""

from __future__ import annotations

import fcntl
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.readme.readme_blocks import DOCUMENTS, ROOT, parse_documents, sections

KIT = "honcho-contract-kit"
CLONE = "honcho-contract-kit"  # the folder the guides clone the kit into
QUICK_START = "Serve a fake Honcho, run the tests"  # the README section run as a whole
TIMEOUT = 900.0
URL = re.compile(r"http://127\.0\.0\.1:\d+")
SPAN = re.compile(r"`([^`]+)`")
INSTALLER = re.compile(r"^(pip install|pipx run|pipx install) ")
TOOLING = {"hypothesis", "schemathesis", "ruff", "mypy", "honcho-ai", "build"}


@dataclass(frozen=True)
class Line:
    """One install command of the docs, as written (comments and what follows ``&&`` cut)."""

    command: str
    where: str

    @property
    def extra(self) -> str:
        """The group it runs in: ``pipx``, the extra it names, or ``core``."""
        if self.command.startswith("pipx"):
            return "pipx"
        found = re.search(r"\[(\w+)\]", self.command)
        return found.group(1) if found else "core"

    @property
    def in_clone(self) -> bool:
        """Run in the clone itself (``'.[fake]'``, ``-e '.[test]'``, ``--find-links dist``)."""
        words = shlex.split(self.command)
        return any(w == "." or w.startswith(".[") or w == "dist" for w in words)


def _commands(text: str) -> Iterator[str]:
    """The install commands of one shell line (``a && b``; a trailing comment cut)."""
    try:
        words = shlex.split(text, comments=True)
    except ValueError:
        return
    part: list[str] = []
    for word in [*words, "&&"]:
        if word in ("&&", ";", "||"):
            command = shlex.join(part)
            if INSTALLER.match(command) and (KIT in command or "[" in command):
                yield command
            part = []
        else:
            part.append(word)


def install_lines() -> list[Line]:
    """Every line of the docs that installs the kit: in shell blocks, in a workflow's ``run:``
    steps, and in the prose's code spans; the README's quick start is run whole instead."""
    found: dict[str, Line] = {}
    for block in parse_documents():
        if block.document == "README.md" and block.section == QUICK_START:
            continue
        for text in block.code.splitlines():
            text = text.strip().removeprefix("run: ") if block.lang == "yaml" else text
            for command in _commands(text):
                found.setdefault(command, Line(command, f"{block.where}"))
    for path in DOCUMENTS:
        prose = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
        for span in SPAN.findall(prose):
            for command in _commands(" ".join(span.split())):
                found.setdefault(command, Line(command, f"{path.relative_to(ROOT)} (prose)"))
    return list(found.values())


LINES = install_lines()
GROUPS = sorted({line.extra for line in LINES})


@dataclass(frozen=True)
class Built:
    dist: Path
    """The sdist and the wheel, as ``python -m build`` wrote them."""
    source: Path
    """The sdist unpacked: a clone of the kit, as far as installing it goes."""


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every xdist worker of this run sees (the run's base temp)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run(
    command: list[str | Path] | str, *, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    shell = isinstance(command, str)
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", command] if shell else [str(c) for c in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def _ok(done: subprocess.CompletedProcess[str], what: str) -> str:
    assert done.returncode == 0, (
        f"{what} exited {done.returncode}\n--- stdout\n{done.stdout[-4000:]}"
        f"\n--- stderr\n{done.stderr[-4000:]}"
    )
    return done.stdout


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """``python -m build`` of this checkout (sdist, then the wheel from the sdist), once."""
    root = _shared_root(tmp_path_factory) / "kit-build"
    root.mkdir(exist_ok=True)
    with _locked(root / "lock"):
        done = root / "done"
        if not done.exists():
            probe = _run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", root / "probe",
                 "hatchling"],
                cwd=root,
            )  # fmt: skip
            if probe.returncode != 0:
                (root / "offline").write_text(probe.stderr[-500:])
            else:
                dist = root / "dist"
                _ok(
                    _run([sys.executable, "-m", "build", "--outdir", dist, ROOT], cwd=ROOT),
                    "python -m build",
                )
                (sdist,) = dist.glob("honcho_contract_kit-*.tar.gz")
                with tarfile.open(sdist) as archive:
                    archive.extractall(root / "source", filter="data")
            done.touch()
    if (root / "offline").exists():
        pytest.skip(f"no package index reachable: {(root / 'offline').read_text().strip()}")
    (source,) = (root / "source").iterdir()
    return Built(root / "dist", source)


@dataclass(frozen=True)
class Place:
    """A user's folder: the clone in ``honcho-contract-kit/`` (built files in its ``dist/``)
    and the wheel in ``wheels/``; an environment whose pip finds the wheel as on PyPI."""

    work: Path
    clone: Path
    env: dict[str, str]

    def venv(self, name: str) -> dict[str, str]:
        """A fresh venv (with its own pip) first on PATH: the environment a line runs in."""
        path = self.work.parent / name
        _ok(_run([sys.executable, "-m", "venv", path], cwd=self.work), "python -m venv")
        return {
            **self.env,
            "VIRTUAL_ENV": str(path),
            "PATH": os.pathsep.join([str(path / "bin"), self.env["PATH"]]),
        }


@pytest.fixture
def place(built: Built, tmp_path: Path) -> Place:
    work = tmp_path / "work"
    clone = work / CLONE
    shutil.copytree(built.source, clone)
    shutil.copytree(built.dist, clone / "dist")
    shutil.copytree(built.dist, work / "wheels")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "HONCHO_", "FAKE_HONCHO_", "PYTHON", "VIRTUAL_ENV"))
    }
    find_links = " ".join(filter(None, [str(work / "wheels"), env.get("PIP_FIND_LINKS")]))
    env.update(PIP_FIND_LINKS=find_links, PIP_DISABLE_PIP_VERSION_CHECK="1")
    env["PATH"] = os.pathsep.join(
        p for p in env["PATH"].split(os.pathsep) if Path(p) != Path(sys.executable).parent
    )  # no console script of the test environment may answer for the venv's
    return Place(work, clone, env)


@contextmanager
def serving(command: str, *, cwd: Path, env: dict[str, str]) -> Iterator[str]:
    """Run a line that serves (its port made free); yield its URL once ``/health`` answers."""
    command = re.sub(r"--port[ =]\d+", "--port 0", command)
    if "fake-honcho" in command and "--port" not in command:
        command += " --port 0"  # a served fake's default port may be taken here
    process = subprocess.Popen(
        ["bash", "-euo", "pipefail", "-c", command],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    seen: list[str] = []
    try:
        assert process.stdout is not None
        for text in process.stdout:
            seen.append(text)
            found = URL.search(text)
            if found:
                assert httpx.get(f"{found.group()}/health", timeout=30).status_code == 200
                yield found.group()
                break
        else:
            pytest.fail(f"{command} served nothing:\n{''.join(seen)[-4000:]}")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()


PROBES: dict[str, list[str]] = {
    "core": [
        "python -c 'import honcho_backend; from fake_honcho._extras import FAKE, missing; "
        "assert missing(FAKE)'",
    ],
    "fake": [
        "fake-honcho --version",
        "python -c 'from fake_honcho import FakeHoncho; from fake_honcho.store.tokens import "
        'token_count; FakeHoncho().close(); assert token_count("hello world") == 2\'',
    ],
    "contract": ["pytest -q -p no:cacheprovider --co --pyargs contract_tests.suites.api"],
    "fuzz": ["fake-honcho fuzz --help"],
    "replay": ["fake-honcho replay --help", "python -c 'import vcr'"],
    "test": ["python -c 'import hypothesis, schemathesis, honcho, build'", "ruff --version"],
}


def _probe(group: str, place: Place, env: dict[str, str], line: Line) -> None:
    for probe in PROBES[group]:
        _ok(_run(probe, cwd=place.work, env=env), f"{probe} after {line.command} ({line.where})")


@pytest.mark.parametrize("group", [g for g in GROUPS if g != "pipx"])
def test_each_install_line_installs_its_extra(group: str, place: Place) -> None:
    lines = [line for line in LINES if line.extra == group]
    env = place.venv(f"venv-{group}")
    for line in lines:
        cwd = place.clone if line.in_clone else place.work
        _ok(_run(line.command, cwd=cwd, env=env), f"{line.command} ({line.where})")
        _probe(group, place, env, line)
        _ok(_run(f"pip uninstall -q -y {KIT}", cwd=place.work, env=env), "pip uninstall")
    if group == "fake":
        _without_the_contract_extra_the_options_say_which_to_install(place, env)


def _without_the_contract_extra_the_options_say_which_to_install(
    place: Place, env: dict[str, str]
) -> None:
    """The fake extra and a host's own pytest: ``pytest --honcho-url URL`` is one line."""
    _ok(_run(f"pip install -q '{KIT}[fake]' pytest", cwd=place.work, env=env), "pip install")
    empty = place.work / "host"
    empty.mkdir()
    done = _run("pytest -p no:cacheprovider --honcho-url http://127.0.0.1:9", cwd=empty, env=env)
    assert done.returncode == 4, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        "ERROR: honcho_contract: --honcho-url: the 'contract' extra is not installed (missing "
        f"pytest-xdist, syrupy); install it with: pip install '{KIT}[contract]'"
    ]


@pytest.mark.skipif("pipx" not in GROUPS, reason="no guide installs with pipx")
def test_each_pipx_line_serves_the_fake(place: Place) -> None:
    env = place.venv("venv-pipx")
    _ok(_run("pip install -q pipx", cwd=place.work, env=env), "pip install pipx")
    home = place.work.parent / "pipx"
    env.update(PIPX_HOME=str(home), PIPX_BIN_DIR=str(home / "bin"), PIPX_MAN_DIR=str(home / "man"))
    env["PATH"] = os.pathsep.join([str(home / "bin"), env["PATH"]])
    for line in (line for line in LINES if line.extra == "pipx"):
        cwd = place.clone if line.in_clone else place.work
        if line.command.startswith("pipx install"):
            _ok(_run(line.command, cwd=cwd, env=env), f"{line.command} ({line.where})")
            version = _ok(_run("fake-honcho --version", cwd=cwd, env=env), "fake-honcho")
            assert version.startswith("fake-honcho (honcho-contract-kit) ")
            _ok(_run(f"pipx uninstall {KIT}", cwd=cwd, env=env), "pipx uninstall")
        else:
            with serving(line.command, cwd=cwd, env=env) as url:
                assert httpx.get(f"{url}/docs", timeout=30).status_code == 200


def test_the_readme_quick_start_in_fresh_environments(place: Place) -> None:
    """The README's two commands as a reader runs them in a clone: the fake served from one
    venv, the Honcho wire contract run against it from a second venv holding only what the
    second command installs (the ``contract`` extra: none of the kit's own test tooling)."""
    serve, run = [b for b in sections(parse_documents())[QUICK_START] if b.action != "show"]
    assert (serve.action, run.action) == ("serve", "run")
    served_env, contract_env = place.venv("venv-readme-serve"), place.venv("venv-readme-run")
    with serving(serve.code.strip(), cwd=place.clone, env=served_env) as url:
        command = re.sub(r"http://127\.0\.0\.1:\d+", url, run.code.strip())
        output = _ok(_run(command, cwd=place.clone, env=contract_env), command)
    assert re.search(r"\d+ passed", output) and " failed" not in output, output[-3000:]
    listed = _ok(_run("pip list --format=freeze", cwd=place.work, env=contract_env), "pip list")
    present = {entry.split("==")[0].lower() for entry in listed.split()}
    assert not present & TOOLING, present & TOOLING


def test_every_kind_of_install_is_covered() -> None:
    """The lines found are the ones the guides promise: each extra, today and once released."""
    commands = {line.command for line in LINES}
    for extra in ("fake", "contract"):
        assert f"pip install './{CLONE}[{extra}]'" in commands
        assert f"pip install '{KIT}[{extra}]'" in commands
    assert {"core", "fake", "contract", "fuzz", "test", "pipx"} <= set(GROUPS)
