"""Run the code blocks of README.md and docs/*.md, so the documentation cannot drift from the code.

How a block is run is written in an HTML comment on the last non-blank line before its
fence (invisible on GitHub)::

    <!-- readme-test: run -->            run it (the default for ```python blocks)
    <!-- readme-test: file PATH -->      write it to PATH (relative) for later blocks to use
                                         (any language: a test, an env file...)
    <!-- readme-test: serve -->          start it in the background (a server)
    <!-- readme-test: workflow -->       a GitHub Actions workflow: run its steps' ``run:``
    <!-- readme-test: output -->         a ```text block: what the block before it printed
    <!-- readme-test: output server -->  a ```text block: what the section's last server logged
    <!-- readme-test: run needs hermes --> only where the thing is present (see NEEDS)
    <!-- readme-test: skip: REASON -->   do not run it (the documentation itself uses none)

Blocks run in order, per ``##`` section of each file, in a fresh empty directory (add
``in checkout`` to a directive to run that block in the repository root instead). Python
blocks of one section share one namespace, so a block may use names an earlier one
defined. Shell blocks (```bash, ```sh, ```console) run under ``bash -euo pipefail`` and
need a directive; ```yaml, ```json and ```toml blocks are parsed; ```text blocks are
output or diagrams and are not run; any other language needs a directive.

An ``output`` block states what the runnable block before it prints (stdout and stderr,
as one stream; a Python block's stdout): each of its non-blank lines must be a line of
that output, in the same order, other lines may come between, and ``...`` inside a line
stands for any text. ``output server`` holds the section's last served process's output
(waiting for it up to ``SERVE_TIMEOUT``) to the same rule.

``needs NAME`` (after the action, before ``in checkout``) says a block needs something a
user may not have: DeerFlow, the Hermes agent, Node.js or a real Honcho (:data:`NEEDS`).
Its whole section runs where that is present and is skipped, naming it, where it is not.

A ``serve`` block's ``--port N`` becomes ``--port 0``; the first URL it prints is the
server, and ``localhost:N`` / ``127.0.0.1:N`` in the section's later blocks (a later serve
block's too: a proxy in front of it) are rewritten to it. Servers stop at the end of the
section. A ``workflow`` block's steps run in order in the section's directory: ``uses:``
steps are left out (the checkout is that directory, Python is this one), ``env:`` is
applied and ``$GITHUB_ENV`` works as on GitHub.
``pip install`` and ``pipx`` are stubbed in shell blocks: they check the kit is installed
in the test environment and install nothing (``pipx run --spec SPEC CMD ...`` runs CMD);
``tests/install/test_install_lines.py`` runs every install line for real instead;
the console scripts ``pyproject.toml`` declares (``fake-honcho``...) run this checkout's
code. Nested ``pytest`` runs get ``PYTEST_ADDOPTS`` (:data:`LEAN_PYTEST`): no cache, and
none of the hypothesis, schemathesis or anyio plugins.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import chdir, contextmanager, redirect_stdout, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]

DIRECTIVE = re.compile(r"^<!--\s*readme-test:\s*(?P<spec>.*?)\s*-->$")
FENCE = re.compile(r"^```(?P<lang>[\w-]*)\s*$")
SHELLS = frozenset({"bash", "sh", "shell", "console"})
DATA = frozenset({"yaml", "yml", "json", "toml"})
SHOWN = frozenset({"text"})
URL = re.compile(r"https?://(?P<host>[\w.-]+):(?P<port>\d+)")
SERVE_TIMEOUT = 30.0
# Nested pytest runs write no cache into the checkout and skip plugins no README block uses
# (their start-up costs seconds per xdist worker).
LEAN_PYTEST = "-p no:cacheprovider -p no:schemathesis -p no:hypothesispytest -p no:anyio"
BLOCK_TIMEOUT = 600.0

PIP_STUB = """#!/bin/sh
# readme-test: the kit is already installed in the test environment; never install.
if [ "$1" != install ]; then echo "readme-test: only 'pip install' is stubbed" >&2; exit 2; fi
exec python -c "import importlib.metadata as m; m.version('honcho-contract-kit')"
"""
PIPX_STUB = """#!/bin/sh
# readme-test: pipx install/run of the kit, with the kit the test environment already has.
python -c "import importlib.metadata as m; m.version('honcho-contract-kit')" || exit 1
case "$1" in
  install) exit 0 ;;
  run) shift; [ "$1" = --spec ] && shift 2; exec "$@" ;;
esac
echo "readme-test: only 'pipx install' and 'pipx run' are stubbed" >&2; exit 2
"""


@dataclass(frozen=True)
class Need:
    """Something a block needs that a user may not have, and how to tell it is there."""

    what: str
    present: Callable[[], bool]
    env: tuple[str, ...] = ()
    """Variables passed through to the block (the test environment drops the rest)."""
    stand_in: str = ""
    """A directory (in the checkout) put first on the block's ``PYTHONPATH`` where the thing
    is absent: a recorded copy of its interface, so the block runs anyway."""


NEEDS: dict[str, Need] = {
    "real-honcho": Need(
        "a real Honcho server at $HONCHO_URL",
        lambda: bool(os.environ.get("HONCHO_URL")),
        ("HONCHO_URL", "HONCHO_API_KEY"),
    ),
    "deerflow": Need(
        "a scratch DeerFlow checkout at $DEERFLOW_DIR, which the block changes (Python 3.12+, uv)",
        lambda: Path(os.environ.get("DEERFLOW_DIR") or "/nonexistent").is_dir(),
        ("DEERFLOW_DIR",),
    ),
    "hermes": Need("the Hermes agent (hermes on PATH)", lambda: shutil.which("hermes") is not None),
    "node": Need("Node.js with npm (node and npm on PATH)", lambda: _on_path("node", "npm")),
    "deerflow-interface": Need(
        "DeerFlow's memory package importable (else tests/readme/deerflow_interface stands in)",
        lambda: importlib.util.find_spec("deerflow") is not None,
        stand_in="tests/readme/deerflow_interface",
    ),
}


def _on_path(*commands: str) -> bool:
    return all(shutil.which(command) is not None for command in commands)


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, what it holds, and how to run it."""

    line: int
    section: str
    lang: str
    code: str
    action: str
    """``run``, ``skip``, ``file``, ``serve``, ``workflow``, ``parse``, ``show``, ``output``,
    or ``invalid`` (no usable directive)."""
    argument: str = ""
    """The reason of ``skip``, the path of ``file``, the problem of ``invalid``."""
    in_checkout: bool = False
    needs: tuple[str, ...] = ()
    document: str = "README.md"

    @property
    def where(self) -> str:
        return (
            f"{self.document}:{self.line} ({self.lang or 'no language'}, section {self.section!r})"
        )


class DirectiveError(ValueError):
    """A block without a usable directive; the message names the line."""


def _plan(lang: str, spec: str | None, where: str) -> tuple[str, str, bool, tuple[str, ...]]:
    """``(action, argument, in_checkout, needs)`` for a block, from its directive or language."""
    if spec is None:
        if lang == "python":
            return "run", "", False, ()
        if lang in DATA:
            return "parse", "", False, ()
        if lang in SHOWN:
            return "show", "", False, ()
        raise DirectiveError(
            f"{where}: add <!-- readme-test: run --> (or serve, file PATH, workflow, "
            "run needs NAME) on the line before the fence"
        )
    if spec.startswith("skip"):
        reason = spec.removeprefix("skip").lstrip(":").strip()
        if not reason:
            raise DirectiveError(f"{where}: 'skip' needs a reason: <!-- readme-test: skip: why -->")
        return "skip", reason, False, ()
    words = spec.split()
    in_checkout = words[-2:] == ["in", "checkout"]
    if in_checkout:
        words = words[:-2]
    needs: tuple[str, ...] = ()
    if "needs" in words:
        at = words.index("needs")
        words, needs = words[:at], tuple(words[at + 1 :])
        unknown = sorted(set(needs) - set(NEEDS)) or ([] if needs else ["(none)"])
        if unknown:
            raise DirectiveError(f"{where}: unknown need {unknown}; known: {sorted(NEEDS)}")
    if words == ["run"] and (lang == "python" or lang in SHELLS):
        return "run", "", in_checkout, needs
    if words == ["serve"] and lang in SHELLS:
        return "serve", "", in_checkout, needs
    if words[:1] == ["output"] and words[1:] in ([], ["server"]) and lang in SHOWN:
        return "output", " ".join(words[1:]), in_checkout, needs
    if words == ["workflow"] and lang in ("yaml", "yml"):
        return "workflow", "", in_checkout, needs
    if len(words) == 2 and words[0] == "file" and not Path(words[1]).is_absolute():
        return "file", words[1], False, needs
    raise DirectiveError(f"{where}: cannot use directive {spec!r} on a {lang or 'plain'} block")


def parse(text: str, document: str = "README.md") -> list[Block]:
    """Every fenced block of ``text`` with its plan; a block without a usable directive is
    ``invalid`` (its argument says why), so one bad block fails its tests, not collection."""
    blocks: list[Block] = []
    section = "(top)"
    last = ""  # the last non-blank line outside a block
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = FENCE.match(line)
        if fence is None:
            if line.startswith("## "):
                section = line[3:].strip()
            if line.strip():
                last = line.strip()
            index += 1
            continue
        start = index + 1
        end = start
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        directive = DIRECTIVE.match(last)
        lang = fence.group("lang")
        where = f"{document}:{start} ({lang or 'no language'}, section {section!r})"
        try:
            action, argument, in_checkout, needs = _plan(
                lang, directive.group("spec") if directive else None, where
            )
        except DirectiveError as problem:
            action, argument, in_checkout, needs = "invalid", str(problem), False, ()
        code = "\n".join(lines[start:end]) + "\n"
        blocks.append(
            Block(start, section, lang, code, action, argument, in_checkout, needs, document)
        )
        last = ""
        index = end + 1
    return blocks


def parse_documents(paths: list[Path] = DOCUMENTS) -> list[Block]:
    """The blocks of every documentation file, each named by its path in the repository."""
    return [
        block
        for path in paths
        for block in parse(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]


def absent_needs(blocks: list[Block]) -> list[str]:
    """What the blocks need that is not here (each named once), in order."""
    needed = dict.fromkeys(need for block in blocks for need in block.needs)
    return [
        NEEDS[need].what
        for need in needed
        if not NEEDS[need].stand_in and not NEEDS[need].present()
    ]


def sections(blocks: list[Block]) -> dict[str, list[Block]]:
    """Blocks grouped by ``file :: section`` (a README section is its name alone)."""
    grouped: dict[str, list[Block]] = {}
    for block in blocks:
        key = (
            block.section
            if block.document == "README.md"
            else f"{block.document} :: {block.section}"
        )
        grouped.setdefault(key, []).append(block)
    return grouped


def check_data(block: Block) -> None:
    """A data block must parse (yaml needs PyYAML, which the test environment has)."""
    if block.lang == "json":
        json.loads(block.code)
    elif block.lang == "toml":
        tomllib.loads(block.code)
    else:
        import yaml  # type: ignore[import-untyped]

        yaml.safe_load(block.code)


@dataclass
class Server:
    process: subprocess.Popen[str]
    host_port: str
    output: list[str] = field(default_factory=list)


@dataclass
class SectionRun:
    """Runs one section's blocks in order (see the module docstring)."""

    workdir: Path
    env: dict[str, str]
    namespace: dict[str, Any] = field(default_factory=dict)
    servers: list[Server] = field(default_factory=list)
    rewrites: dict[str, str] = field(default_factory=dict)
    groups: list[int] = field(default_factory=list)
    """Process groups of shell blocks, for what they left running in the background."""
    printed: str = ""
    """What the last run block printed (its stdout and stderr), for an ``output`` block."""

    def code(self, block: Block) -> str:
        code = block.code
        for old, new in self.rewrites.items():
            code = re.sub(rf"\b(localhost|127\.0\.0\.1):{old}\b", new, code)
        return code

    def cwd(self, block: Block) -> Path:
        return ROOT if block.in_checkout else self.workdir

    def run(self, block: Block) -> None:
        if block.action == "invalid":
            raise DirectiveError(block.argument)
        if block.action == "parse":
            check_data(block)
        elif block.action == "file":
            path = self.workdir / block.argument
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.code(block), encoding="utf-8")  # served ports rewritten
        elif block.action == "serve":
            self.serve(block)
        elif block.action == "workflow":
            self.workflow(block)
        elif block.action == "run" and block.lang == "python":
            shown = io.StringIO()
            with chdir(self.cwd(block)), redirect_stdout(shown):
                exec(compile(self.code(block), block.where, "exec"), self.namespace)
            self.printed = shown.getvalue()
        elif block.action == "run":
            self.printed = self.shell(block, self.code(block))
        elif block.action == "output":
            self.expect(block)

    def expect(self, block: Block) -> None:
        """The ``output`` block's lines are lines of what was printed, in order."""
        wanted = [line.strip() for line in block.code.splitlines() if line.strip()]
        deadline = time.monotonic() + (SERVE_TIMEOUT if block.argument else 0)
        while True:
            printed = "".join(self.servers[-1].output) if block.argument else self.printed
            missing = unmatched(wanted, printed)
            if missing is None:
                return
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"{block.where}: the block before it never printed {missing!r} "
                    f"(after the lines before it); it printed:\n{printed[-6000:]}"
                )
            time.sleep(0.2)

    def block_env(self, block: Block) -> dict[str, str]:
        """The section's environment plus what the block's needs pass through."""
        passed = {
            name: os.environ[name]
            for need in block.needs
            for name in NEEDS[need].env
            if name in os.environ
        }
        env = {**self.env, **passed}
        for need in block.needs:
            stand_in = NEEDS[need].stand_in
            if stand_in and not NEEDS[need].present():
                path = [str(ROOT / stand_in), env.get("PYTHONPATH", "")]
                env["PYTHONPATH"] = os.pathsep.join(part for part in path if part)
        return env

    def shell(self, block: Block, code: str, env: dict[str, str] | None = None) -> str:
        """Run ``code`` and return what it printed (stdout and stderr as one stream); what it
        leaves running in the background stops with the section."""
        process = subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", code],
            cwd=self.cwd(block),
            env=env if env is not None else self.block_env(block),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.groups.append(process.pid)
        try:
            output, _ = process.communicate(timeout=BLOCK_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
        if process.returncode != 0:
            raise AssertionError(
                f"{block.where} exited {process.returncode}\n--- output\n{output[-9000:]}"
            )
        return output

    def workflow(self, block: Block) -> None:
        """Each job's steps in order, as a GitHub runner would run their ``run:`` scripts."""
        import yaml  # type: ignore[import-untyped]

        document = yaml.safe_load(self.code(block))
        github_env = self.workdir / ".github_env"
        env = {**self.block_env(block), "GITHUB_ENV": str(github_env), "CI": "true"}
        for job in document["jobs"].values():
            env.update({k: str(v) for k, v in (job.get("env") or {}).items()})
            for step in job["steps"]:
                if "run" not in step:
                    continue  # uses: the checkout is the section's directory, Python is ours
                github_env.write_text("")
                step_env = {**env, **{k: str(v) for k, v in (step.get("env") or {}).items()}}
                self.shell(block, step["run"], step_env)
                for line in github_env.read_text().splitlines():
                    name, _, value = line.partition("=")
                    env[name] = value

    def serve(self, block: Block) -> None:
        code = re.sub(r"--port[ =]\d+", "--port 0", self.code(block))  # an upstream served before
        process = subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", code],
            cwd=self.cwd(block),
            env=self.block_env(block),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        lines: queue.Queue[str | None] = queue.Queue()
        server = Server(process, "")
        self.servers.append(server)

        def pump() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                server.output.append(line)
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        while True:
            try:
                line = lines.get(timeout=SERVE_TIMEOUT)
            except queue.Empty:
                line = None
            if line is None:
                raise AssertionError(
                    f"{block.where}: no URL printed within {SERVE_TIMEOUT:g}s\n"
                    + "".join(server.output)
                )
            found = URL.search(line)
            if found:
                server.host_port = f"{found.group('host')}:{found.group('port')}"
                for port in re.findall(r"--port[ =](\d+)", block.code):
                    self.rewrites[port] = server.host_port
                return

    def stop(self) -> None:
        for group in self.groups:
            with suppress(ProcessLookupError):  # nothing left running
                os.killpg(group, signal.SIGTERM)
        for server in self.servers:
            if server.process.poll() is None:
                os.killpg(server.process.pid, signal.SIGTERM)
            try:
                server.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.process.pid, signal.SIGKILL)
                server.process.wait()


def unmatched(wanted: list[str], printed: str) -> str | None:
    """The first of ``wanted`` not found among ``printed``'s lines after the lines the ones
    before it matched (``...`` in a wanted line: any text); None when all are there."""
    lines = iter(line.strip() for line in printed.splitlines())
    for want in wanted:
        pattern = re.compile(".*".join(re.escape(part) for part in want.split("...")))
        if not any(pattern.fullmatch(line) for line in lines):
            return want
    return None


def _write_script(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


def shell_env(bin_dir: Path, python_path: str | None) -> dict[str, str]:
    """The environment shell blocks see: ``pip`` stubbed, the project's console scripts (as
    ``pyproject.toml`` declares them, so a stale install cannot hide a new one), then this
    interpreter's; no outer pytest/xdist state, no server or key from the caller."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    _write_script(bin_dir / "pip", PIP_STUB)
    _write_script(bin_dir / "pipx", PIPX_STUB)
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    for name, target in scripts.items():
        module, func = target.split(":")
        launcher = (
            f"#!{sys.executable}\nimport sys\nfrom {module} import {func}\nsys.exit({func}())\n"
        )
        _write_script(bin_dir / name, launcher)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "HONCHO_", "FAKE_HONCHO_", "COV_"))
    }
    env["PATH"] = os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), env["PATH"]])
    env["PYTEST_ADDOPTS"] = LEAN_PYTEST
    if python_path is None:
        env.pop("PYTHONPATH", None)
    else:
        env["PYTHONPATH"] = python_path
    return env


@contextmanager
def section_run(workdir: Path, env: dict[str, str]) -> Iterator[SectionRun]:
    run = SectionRun(workdir, env)
    try:
        yield run
    finally:
        run.stop()
