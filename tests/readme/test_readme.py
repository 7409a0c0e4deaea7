"""Every code block of README.md and docs/*.md runs (see ``tests/readme/readme_blocks.py`` for
the ``<!-- readme-test: ... -->`` convention a new block opts in with).

The backend guide's adoption section runs against a wheel built from this checkout and
installed into a scratch directory, in an empty directory: what a new backend author gets
from ``pip install``, package data included. A section needing DeerFlow, Hermes or a real
Honcho is skipped, naming it, only where that is absent.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest

from contract_tests.reference import REFERENCE_DIR

from .readme_blocks import (
    README,
    ROOT,
    Block,
    DirectiveError,
    absent_needs,
    parse,
    parse_documents,
    section_run,
    sections,
    shell_env,
)

BLOCKS = parse_documents()
SECTIONS = sections(BLOCKS)
ADOPTION = "docs/testing-a-backend.md :: Adopt the suites"
RUNNABLE = [
    name
    for name, blocks in SECTIONS.items()
    if name != ADOPTION and any(b.action not in ("skip", "show") for b in blocks)
]
# A block another change adds without a directive fails its section and
# test_every_block_says_how_it_runs, naming its line; it does not stop collection.


def run_section(blocks: list[Block], tmp_path: Path, python_path: str | None) -> None:
    absent = absent_needs(blocks)
    if absent:
        pytest.skip(f"needs {' and '.join(absent)}")
    workdir = tmp_path / "work"
    workdir.mkdir()
    with section_run(workdir, shell_env(tmp_path / "bin", python_path)) as run:
        for block in blocks:
            if block.action != "skip":
                run.run(block)


@pytest.mark.parametrize("section", RUNNABLE)
def test_readme_section_runs(section: str, tmp_path: Path) -> None:
    run_section(SECTIONS[section], tmp_path, os.environ.get("PYTHONPATH"))


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``site``: this checkout built as a wheel and installed there (no dependencies: the test
    environment has them)."""
    base = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(base / "dist")]
    subprocess.run([*build, str(ROOT)], check=True, capture_output=True)
    (wheel,) = (base / "dist").glob("honcho_contract_kit-*.whl")
    site = base / "site"
    install = [*pip, "install", "--no-deps", "--target", str(site), str(wheel)]
    subprocess.run(install, check=True, capture_output=True)
    return site


def test_the_wheel_ships_the_reference_snapshots_and_schemas(installed_wheel: Path) -> None:
    shipped = installed_wheel / "contract_tests" / "snapshots"
    names = {p.relative_to(shipped) for p in shipped.rglob("*.json")}
    assert names and names == {p.relative_to(REFERENCE_DIR) for p in REFERENCE_DIR.rglob("*.json")}
    assert list((installed_wheel / "fake_honcho" / "_schemas").glob("*.json"))


def test_adoption_example_passes_its_first_run_against_the_installed_wheel(
    installed_wheel: Path, tmp_path: Path
) -> None:
    """The README's adoption section, verbatim, in an empty directory, importing the kit from
    the wheel only: the files it writes pass on their first run, in-process and against a
    served fake that wants a key."""
    env = shell_env(tmp_path / "probe-bin", str(installed_wheel))
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import contract_tests, fake_honcho; print(contract_tests.__file__)",
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(installed_wheel)), where.stdout
    run_section(SECTIONS[ADOPTION], tmp_path, str(installed_wheel))


def test_every_block_says_how_it_runs() -> None:
    problems = [block.argument for block in BLOCKS if block.action == "invalid"]
    assert not problems, "\n".join(problems)


def test_every_block_runs_unless_it_needs_what_a_user_may_lack() -> None:
    """No block is skipped outright: one that needs DeerFlow, Hermes or a real server says
    so (``needs NAME``) and runs wherever that is present."""
    assert [block.where for block in BLOCKS if block.action == "skip"] == []
    assert ADOPTION in SECTIONS
    documents = {str(path.relative_to(ROOT)) for path in [README, *(ROOT / "docs").glob("*.md")]}
    # every page shows runnable code but the generated register and permission table, and
    # the architecture map
    expected = documents - {"docs/divergences.md", "docs/architecture.md", "docs/permissions.md"}
    assert {b.document for b in BLOCKS if b.action not in ("show", "parse")} == expected


CONTINUES = (")", "]", "}", "else", "elif", "except", "finally", "#")


def test_python_blocks_paste_into_a_repl() -> None:
    """An indented block is closed by a blank line before the next top-level statement, as
    the interactive interpreter needs (a file would not)."""
    problems = [
        f"{block.where}, line {number + 1} of the block"
        for block in BLOCKS
        if block.lang == "python" and block.action == "run"
        for number, (before, line) in enumerate(pairwise(block.code.splitlines()), start=1)
        if before[:1].isspace() and line[:1].strip() and not line.startswith(CONTINUES)
    ]
    assert problems == []


SERVED_PORT = re.compile(r"--port[ =](\d+)")


def test_no_two_serve_blocks_share_a_port() -> None:
    """A reader following the guides in order, leaving servers running, never meets
    'Address already in use' (the test itself serves every block on port 0)."""
    ports = Counter(
        port
        for block in BLOCKS
        if block.action == "serve"
        for port in SERVED_PORT.findall(block.code)
    )
    assert ports and [port for port, count in ports.items() if count > 1] == []
    assert "8000" not in ports  # a local real Honcho's port


class TestDirectives:
    def test_python_runs_by_default_and_data_is_parsed(self) -> None:
        blocks = parse("## A\n```python\nx = 1\n```\n```yaml\na: 1\n```\n")
        assert [(b.section, b.action) for b in blocks] == [("A", "run"), ("A", "parse")]

    @staticmethod
    def problem(text: str) -> str:
        (block,) = parse(text)
        assert block.action == "invalid"
        return block.argument

    def test_a_shell_block_needs_a_directive_naming_its_line(self, tmp_path: Path) -> None:
        text = "## A\n\n```bash\nls\n```\n"
        assert self.problem(text).startswith("README.md:3 (bash, section 'A'): add <!--")
        with pytest.raises(DirectiveError, match=r"README\.md:3"):
            run_section(parse(text), tmp_path, None)

    def test_skip_needs_a_reason(self) -> None:
        assert "'skip' needs a reason" in self.problem(
            "<!-- readme-test: skip -->\n```bash\nls\n```\n"
        )

    def test_directives_and_their_options(self) -> None:
        text = (
            "<!-- readme-test: skip: needs a real server -->\n```bash\nx\n```\n"
            "<!-- readme-test: file tests/test_a.py -->\n\n```python\nx\n```\n"
            "<!-- readme-test: serve in checkout -->\n```bash\nx\n```\n"
        )
        plans = [(b.action, b.argument, b.in_checkout) for b in parse(text)]
        assert plans == [
            ("skip", "needs a real server", False),
            ("file", "tests/test_a.py", False),
            ("serve", "", True),
        ]

    def test_an_unknown_directive_is_an_error(self) -> None:
        text = "<!-- readme-test: serve -->\n```python\nx\n```\n"
        assert "cannot use directive 'serve' on a python" in self.problem(text)

    def test_a_served_port_is_rewritten_in_later_blocks(self, tmp_path: Path) -> None:
        """... and an ``output server`` block waits for the server's lines."""
        text = (
            "## S\n<!-- readme-test: serve -->\n```bash\nfake-honcho --port 8000\n```\n"
            "<!-- readme-test: output server -->\n```text\nfake-honcho: info: serving Honcho "
            "... at http://127.0.0.1:...; API docs at .../docs ...\n```\n"
            "<!-- readme-test: run -->\n"
            "```bash\ncurl -sf localhost:8000/health > health.json\n```\n"
        )
        run_section(parse(text), tmp_path, os.environ.get("PYTHONPATH"))
        assert (tmp_path / "work" / "health.json").read_text() == '{"status":"ok"}'

    def test_needs_name_what_a_block_needs(self) -> None:
        text = "<!-- readme-test: run needs hermes in checkout -->\n```bash\nhermes\n```\n"
        (block,) = parse(text)
        assert (block.action, block.needs, block.in_checkout) == ("run", ("hermes",), True)
        assert "unknown need ['qdrant']" in self.problem(
            "<!-- readme-test: run needs qdrant -->\n```bash\nx\n```\n"
        )

    def test_a_section_needing_what_is_absent_is_skipped_naming_it(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr("shutil.which", lambda name: None)
        text = (
            "## H\n```python\nx = 1\n```\n"
            "<!-- readme-test: run needs hermes -->\n```bash\nhermes\n```\n"
        )
        with pytest.raises(
            pytest.skip.Exception, match=r"needs the Hermes agent \(hermes on PATH\)"
        ):
            run_section(parse(text), tmp_path, None)

    def test_a_workflow_runs_its_steps_with_github_env(self, tmp_path: Path) -> None:
        text = (
            "## CI\n<!-- readme-test: workflow -->\n```yaml\n"
            "jobs:\n  test:\n    env: {A: one}\n    steps:\n"
            "      - uses: actions/checkout@v4\n"
            '      - run: echo "B=two" >> "$GITHUB_ENV"\n'
            '      - run: echo "$A $B $C" > seen.txt\n        env: {C: three}\n'
            "```\n"
        )
        run_section(parse(text), tmp_path, os.environ.get("PYTHONPATH"))
        assert (tmp_path / "work" / "seen.txt").read_text() == "one two three\n"

    def test_pipx_runs_the_kits_command(self, tmp_path: Path) -> None:
        text = (
            "## P\n<!-- readme-test: run -->\n```bash\n"
            "pipx run --spec 'honcho-contract-kit[fake]' fake-honcho --version > v.txt\n```\n"
        )
        run_section(parse(text), tmp_path, os.environ.get("PYTHONPATH"))
        assert (tmp_path / "work" / "v.txt").read_text().startswith("fake-honcho (honcho-contract")

    def test_an_output_block_holds_the_block_before_it_to_what_it_printed(
        self, tmp_path: Path
    ) -> None:
        shell = (
            "## O\n<!-- readme-test: run -->\n```bash\necho one; echo two >&2; echo three\n```\n"
        )
        python = "## P\n```python\nprint('printed 2 lines')\n```\n"

        def run(code: str, stated: str) -> None:
            where = tmp_path / str(len(list(tmp_path.iterdir())))
            where.mkdir()
            said = f"<!-- readme-test: output -->\n```text\n{stated}\n```\n"
            run_section(parse(code + said), where, os.environ.get("PYTHONPATH"))

        run(shell, "one\n...\nth...e")
        run(shell, "two")  # stderr too
        run(python, "printed ... lines")
        with pytest.raises(AssertionError, match="never printed 'four'"):
            run(shell, "one\nfour")
        with pytest.raises(AssertionError, match="never printed 'one'"):
            run(shell, "three\none")  # in order
