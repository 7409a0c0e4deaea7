"""The coercion matrix recorded from a real Honcho 3.0.12 (``coercion/``), replayed
against the fake: lax values accepted and converted, refusals with pydantic's items.

Re-record with ``fake-honcho compare --against URL --record tests/fidelity/coercion
--script coercion_workspaces ...`` (one ``--script`` per script to re-record).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_honcho.drift.coercion import COERCION_SCRIPTS
from fake_honcho.drift.recording import differences, load_recordings, run_on_fake

RECORDINGS = {r.script.name: r for r in load_recordings(Path(__file__).with_name("coercion"))}


@pytest.mark.parametrize("name", sorted(RECORDINGS))
def test_the_fake_coerces_as_the_real_server_did(name: str) -> None:
    recording = RECORDINGS[name]
    found = differences(recording.script, recording.results, run_on_fake(recording.script))
    assert not found, (
        f"{len(found)} of {len(recording.results)} differ from {recording.server}\n"
        + "\n".join(difference.render() for difference in found)
    )


def test_every_script_is_recorded_as_it_is_written() -> None:
    assert {script.name for script in COERCION_SCRIPTS} == set(RECORDINGS)
    for script in COERCION_SCRIPTS:
        recorded = RECORDINGS[script.name].script.steps
        assert [s.as_json() for s in recorded] == [s.as_json() for s in script.steps], (
            f"{script.name} changed since it was recorded; re-record"
        )
