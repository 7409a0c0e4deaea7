"""The raw-HTTP probes recorded from real servers (tests/fidelity/raw/<version>/), replayed
byte for byte against the in-process fake speaking that version: one test per version and
operation, failing with every probe answered differently that the register does not declare.

Re-record with ``python -m tests.fidelity.raw.record --version V --url URL --record``.
"""

from __future__ import annotations

import json

import pytest

from tests.fidelity.raw.probes import groups_for
from tests.fidelity.raw.record import ROOT, Target, differences, load, run_group

RECORDED = {
    version.name: load(version.name) for version in sorted(ROOT.iterdir()) if version.is_dir()
}
CASES = [
    (version, operation) for version, operations in RECORDED.items() for operation in operations
]


@pytest.mark.parametrize(("version", "operation"), CASES)
def test_fake_answers_raw_requests_as_the_real_server_did(version: str, operation: str) -> None:
    target = Target(version)
    try:
        found = [
            difference
            for group in RECORDED[version][operation]
            for difference in differences(group, run_group(target, group))
        ]
    finally:
        target.close()
    assert not found, f"{len(found)} probes differ:\n" + "\n".join(
        f"{name}\n  real: {json.dumps(want)[:400]}\n  fake: {json.dumps(got)[:400]}"
        for _, name, want, got in found
    )


@pytest.mark.parametrize("version", sorted(RECORDED))
def test_every_probe_is_recorded_as_it_is_written(version: str) -> None:
    """Changing a probe without re-recording it would replay an old request."""
    written = {group.name: group for group in groups_for(version)}
    recorded = {group["group"]: group for groups in RECORDED[version].values() for group in groups}
    assert set(recorded) == set(written), f"re-record {version}: groups differ"
    for name, group in written.items():
        assert [p["request"] for p in recorded[name]["probes"]] == [
            p.request.as_json() for p in group.probes
        ], f"{name} changed since it was recorded; re-record"
        assert recorded[name]["setup"] == [r.as_json() for r in group.setup], name
