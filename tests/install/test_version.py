"""One release version: ``fake_honcho/_version.py`` writes it, the package metadata, both
console scripts and the newest ``CHANGELOG.md`` entry say the same."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fake_honcho import _launch
from fake_honcho._version import __version__

REPO = Path(__file__).resolve().parents[2]
ENTRY = re.compile(r"^## (?P<version>\d+\.\d+\.\d+)\b", re.MULTILINE)


def test_the_changelog_names_this_version_at_its_newest_entry() -> None:
    versions = ENTRY.findall((REPO / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert versions and versions[0] == __version__


def test_the_installed_metadata_has_it() -> None:
    assert importlib.metadata.version("honcho-contract-kit") == __version__


@pytest.mark.parametrize(
    ("prog", "launch"), [("fake-honcho", _launch.main), ("fake-honcho-llm", _launch.llm)]
)
def test_both_commands_print_it_even_without_the_fake_extra(
    prog: str,
    launch: object,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, "starlette", None)  # as on a core-only install
    assert launch(["--version"]) == 0  # type: ignore[operator]
    assert capsys.readouterr().out == f"{prog} (honcho-contract-kit) {__version__}\n"


def test_the_console_script_and_its_help_offer_it() -> None:
    script = Path(sys.executable).with_name("fake-honcho")
    done = subprocess.run([script, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout == f"fake-honcho (honcho-contract-kit) {__version__}\n"
    helped = subprocess.run([script, "--help"], capture_output=True, text=True, check=True)
    assert "--version" in helped.stdout
