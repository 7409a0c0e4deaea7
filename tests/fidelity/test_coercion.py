"""The coercion matrix recorded from real servers (``coercion/<version>/``), replayed
against the fake speaking that version: lax values accepted and converted, refusals with
pydantic's items.

Re-record with ``fake-honcho compare --against URL --honcho-version V --record
tests/fidelity/coercion/V --script coercion_workspaces ...`` (one ``--script`` per script).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_honcho.drift.coercion import COERCION_SCRIPTS
from fake_honcho.drift.recording import parse_configuration, replay
from tests.fidelity.recorded import assert_recorded_as_written, by_name, recorded_cases

RECORDINGS = by_name(Path(__file__).with_name("coercion"))


@pytest.mark.parametrize(("version", "name"), recorded_cases(RECORDINGS))
def test_the_fake_coerces_as_the_real_server_did(version: str, name: str) -> None:
    recording = RECORDINGS[version][name]
    found = replay(recording)
    undeclared = [difference for difference in found if not difference.declared]
    assert not undeclared, (
        f"{len(undeclared)} of {len(recording.results)} differ from {recording.server}\n"
        + "\n".join(difference.render() for difference in undeclared)
    )


@pytest.mark.parametrize("version", sorted(RECORDINGS))
def test_every_script_is_recorded_as_it_is_written(version: str) -> None:
    served = parse_configuration(version)[0]
    assert_recorded_as_written(RECORDINGS[version], COERCION_SCRIPTS, served)
