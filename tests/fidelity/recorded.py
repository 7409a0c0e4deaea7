"""What the replay tests share: recordings by version and script, and their freshness."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from fake_honcho.drift.exchange import Script
from fake_honcho.drift.recording import Recording, recordings_by_version
from fake_honcho.versions import HonchoVersion

Recorded = Mapping[str, Mapping[str, Recording]]


def by_name(root: Path) -> dict[str, dict[str, Recording]]:
    """``root/<version>/<script>.json`` as ``{version: {script name: recording}}``."""
    return {
        version: {recording.script.name: recording for recording in recordings}
        for version, recordings in recordings_by_version(root).items()
    }


def recorded_cases(recorded: Recorded) -> list[tuple[str, str]]:
    return [(version, name) for version, names in recorded.items() for name in sorted(names)]


def assert_recorded_as_written(
    recorded: Mapping[str, Recording], scripts: Sequence[Script], version: HonchoVersion
) -> None:
    """Every script the version runs is recorded, as it is written today, and nothing else
    (changing a script without re-recording it would replay an old request)."""
    expected = {script.name: script for script in scripts if script.runs_on(version)}
    assert set(recorded) == set(expected), f"re-record {version}: scripts and recordings differ"
    for name, script in expected.items():
        assert [s.as_json() for s in recorded[name].script.steps] == [
            s.as_json() for s in script.steps
        ], f"{name} changed since it was recorded at {version}; re-record"
        assert recorded[name].script.deriver == script.deriver, f"{name}: re-record"
