"""Every README code block runs (or says why not): see ``tests/readme/readme_blocks.py`` for the
``<!-- readme-test: ... -->`` convention a new block opts in or out with.

The contract-kit section (the adoption example) runs against a wheel built from this
checkout and installed into a scratch directory, in an empty directory: what a new backend
author gets from ``pip install``, package data included.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from contract_tests.reference import REFERENCE_DIR

from .readme_blocks import (
    README,
    ROOT,
    Block,
    DirectiveError,
    parse,
    section_run,
    sections,
    shell_env,
)

BLOCKS = parse(README.read_text(encoding="utf-8"))
SECTIONS = sections(BLOCKS)
(ADOPTION,) = [name for name in SECTIONS if name.startswith("`contract_tests`")]
RUNNABLE = [
    name
    for name, blocks in SECTIONS.items()
    if name != ADOPTION and any(b.action != "skip" for b in blocks)
]
# A block another change adds without a directive fails its section and
# test_every_block_says_how_it_runs, naming its line; it does not stop collection.


def run_section(blocks: list[Block], tmp_path: Path, python_path: str | None) -> None:
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


def test_every_skipped_block_says_why_and_most_blocks_run() -> None:
    skipped = [block for block in BLOCKS if block.action == "skip"]
    assert all(block.argument for block in skipped)
    assert len(skipped) * 3 < len(BLOCKS), [block.where for block in skipped]


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
        text = (
            "## S\n<!-- readme-test: serve -->\n```bash\nfake-honcho --port 8000\n```\n"
            "<!-- readme-test: run -->\n"
            "```bash\ncurl -sf localhost:8000/health > health.json\n```\n"
        )
        run_section(parse(text), tmp_path, os.environ.get("PYTHONPATH"))
        assert (tmp_path / "work" / "health.json").read_text() == '{"status":"ok"}'
