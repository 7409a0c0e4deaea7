"""The documentation's tables hold what the code declares.

The README's compatibility table against ``fake_honcho.versions`` (the versions served, which
are verified, the default), ``pyproject.toml`` and ``tox.ini`` (the SDK bounds and pins, the
Python floor) and DeerFlow's recorded contract; ``docs/compatibility.md``'s version table
against the same; ``docs/reference.md``'s configuration keys against ``HonchoConfig``.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import tomllib
from dataclasses import fields
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

from fake_honcho.versions import DEFAULT_VERSION, VERSIONS
from honcho_backend import HonchoConfig
from honcho_backend.config import _KNOWN_KEYS

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
TOX = (ROOT / "tox.ini").read_text()


def table(path: Path, heading: str) -> list[list[str]]:
    """The rows (cells stripped, header and rule left out) of the first table after
    ``heading`` in ``path``."""
    text = path.read_text(encoding="utf-8")
    after = text[text.index(heading) :].splitlines()
    start = next(i for i, line in enumerate(after) if line.startswith("|"))
    rows = []
    for line in after[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


COMPATIBILITY = table(ROOT / "README.md", "## Compatibility")


def rows_about(name: str) -> list[list[str]]:
    """The rows of one subject (a row with an empty first cell continues the one above)."""
    found, current = [], ""
    for row in COMPATIBILITY:
        current = row[0] or current
        if current.startswith(name):
            found.append(row)
    return found


def test_the_honcho_rows_are_the_versions_the_fake_speaks() -> None:
    rows = rows_about("Honcho server")
    names = [re.match(r"`([^`]+)`", row[1])[1] for row in rows]  # type: ignore[index]
    assert names == list(VERSIONS)
    for row, version in zip(rows, VERSIONS.values(), strict=True):
        assert ("(default)" in row[1]) == (version.name == DEFAULT_VERSION), row
        verified = row[2]
        assert verified.startswith("against ") == version.verified, row
        assert verified.startswith("partly modelled") == (not version.verified), row
        # every revision the row names (tag, commit, pull request) is in the version's source
        for revision in re.findall(r"v[\d.]+|\b[0-9a-f]{7,}\b|\b\d{3,}\b", verified):
            assert revision in version.source, (revision, version.source)


def test_the_compatibility_guide_lists_each_version_with_what_it_adds() -> None:
    rows = table(ROOT / "docs" / "compatibility.md", "## The Honcho versions the fake speaks")
    assert [row[0].strip("`") for row in rows] == list(VERSIONS)
    for row, version in zip(rows, VERSIONS.values(), strict=True):
        assert row[1] == version.source
        assert row[2] == ("yes" if version.verified else "partly modelled")
        adds = sorted(f"`{feature.name}`" for feature in version.added)
        assert row[3] == (", ".join(adds) if adds else "(the base)")


def test_the_python_sdk_rows_are_the_bounds_the_suite_runs_with() -> None:
    ((_, versions, _),) = rows_about("honcho-ai")
    listed = re.findall(r"\d+\.\d+\.\d+", versions)
    (sdk,) = [
        Requirement(r)
        for r in PYPROJECT["project"]["optional-dependencies"]["test"]
        if r.startswith("honcho-ai")
    ]
    assert all(sdk.specifier.contains(v) for v in listed)
    oldest = min(listed, key=Version)
    assert f">={oldest}" in str(sdk.specifier)  # the oldest the kit accepts ...
    assert f"deps = honcho-ai=={oldest}\n" in TOX.split("[testenv:sdk-oldest]")[1]  # ... is run
    newest = max(listed, key=Version)
    assert Version(importlib.metadata.version("honcho-ai")) >= Version(newest)


def test_the_typescript_sdk_row_is_the_one_the_tests_pin() -> None:
    ((_, versions, _),) = rows_about("@honcho-ai/sdk")
    pins = {
        json.loads(path.read_text()).get("dependencies", {}).get("@honcho-ai/sdk")
        for path in (ROOT / "tests").rglob("package.json")
        if "node_modules" not in path.parts
    } - {None}
    assert re.fullmatch(r"\d+\.\d+\.\d+", versions)
    assert pins <= {versions}  # a committed TypeScript test of the SDK pins this version


def test_the_host_rows_are_the_recorded_ones() -> None:
    ((_, deerflow, _),) = rows_about("DeerFlow")
    recorded = json.loads((ROOT / "tests/backend/data/deerflow_contract.json").read_text())
    commit = re.fullmatch(r"commit ([0-9a-f]{7,})", deerflow)
    assert commit and recorded["source"]["commit"].startswith(commit[1])
    ((_, hermes, _),) = rows_about("Hermes")
    assert f"what Hermes {hermes} pins" in TOX  # the SDK pin tox -e sdk-oldest runs
    ((_, python, _),) = rows_about("Python")
    floor = re.fullmatch(r"(\d+\.\d+) and newer", python)
    assert floor and PYPROJECT["project"]["requires-python"] == f">={floor[1]}"


def test_the_reference_lists_every_configuration_key_with_its_default() -> None:
    rows = table(ROOT / "docs" / "reference.md", "## Backend configuration")
    documented = {row[0].strip("`"): row[1] for row in rows}
    assert set(documented) == set(_KNOWN_KEYS)
    defaults = HonchoConfig()
    for field in fields(HonchoConfig):
        value = getattr(defaults, field.name)
        if field.name in documented and isinstance(value, (str, int, float)) and value:
            assert documented[field.name].strip("`") == str(value), field.name


def test_the_drift_reports_exchange_counts_are_the_scripts() -> None:
    """docs/real-honcho.md: how many exchanges ``fake-honcho compare`` sends per version,
    in all and over the routes (before the coercion matrix)."""
    from fake_honcho.drift.scripts import EVERY_SCRIPT, SCRIPTS

    text = (ROOT / "docs" / "real-honcho.md").read_text(encoding="utf-8")
    said = re.search(
        r"exchanges to the\s+server at URL \(([\d,]+) at 3\.0\.12 and ([\d,]+) at 3\.1;.*?"
        r"\): ([\d,]+) at\s+3\.0\.12 and ([\d,]+) at 3\.1 over every route",
        text,
        re.DOTALL,
    )
    assert said, "docs/real-honcho.md no longer states the drift report's counts"
    counted = [
        sum(len(script.steps) for script in scripts if script.runs_on(VERSIONS[version]))
        for scripts in (EVERY_SCRIPT, SCRIPTS)
        for version in ("3.0.12", "3.1")
    ]
    assert [int(number.replace(",", "")) for number in said.groups()] == counted
