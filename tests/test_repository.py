"""The tree as committed: no file holds an unresolved merge.

Several people land on main by merging it into their branches; a conflict resolved in
the editor but saved with its markers breaks nothing that imports, yet leaves a page of
the docs saying two things at once. This test reads every source and document file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT_SUFFIXES = {
    ".py",
    ".md",
    ".toml",
    ".ini",
    ".cfg",
    ".txt",
    ".yml",
    ".yaml",
    ".sh",
    ".ts",
    ".js",
    ".html",
}
SKIPPED_DIRS = {
    ".git",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    "build",
    "dist",
}
MARKER = re.compile(r"^(<{7} |={7}$|>{7} )", re.MULTILINE)


def _text_files() -> list[Path]:
    files = []
    for path in ROOT.rglob("*"):
        relative = path.relative_to(ROOT).parts
        if any(
            part in SKIPPED_DIRS or part.startswith((".venv", ".ci-venv", ".tox"))
            for part in relative
        ):
            continue
        if path.is_file() and (path.suffix in TEXT_SUFFIXES or path.name in {"run", "tox.ini"}):
            files.append(path)
    return files


def test_no_file_holds_merge_conflict_markers() -> None:
    files = _text_files()
    assert any(path.name == "architecture.md" for path in files), "the walk found no docs"
    conflicted = [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}"
        for path in files
        for text in [path.read_text(encoding="utf-8", errors="replace")]
        for match in MARKER.finditer(text)
    ]
    assert not conflicted, "merge-conflict markers left in: " + ", ".join(conflicted)


@pytest.mark.parametrize("line", ["<<<<<<< HEAD", "=======", ">>>>>>> main"])
def test_the_marker_pattern_sees_each_kind_of_marker(line: str) -> None:
    assert MARKER.search(f"text\n{line}\nmore")
