"""The generated differential's recordings (tests/fidelity/fuzz/<version>[+embed]/seed-S.json.gz,
each a ``fake-honcho fuzz --record`` run against a real server of that version and
configuration) replayed in order against a fresh fake: one test per recording, failing
with every case answered otherwise that no register entry declares.

Re-record with ``fake-honcho fuzz --against URL --seed S --per-op 20 --record
tests/fidelity/fuzz``, then ``gzip -9`` the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_honcho.drift.fuzz import FuzzRecording, load_fuzz_recordings, render_groups, replay
from fake_honcho.drift.fuzz_declared import RULES
from fake_honcho.drift.fuzz_settle import deleted_resource
from fake_honcho.harness.divergences import divergence

RECORDED = Path(__file__).parent / "fuzz"
PATHS = list(load_fuzz_recordings(RECORDED))
IDS = [f"{p.parent.name}/{p.name.split('.')[0]}" for p in PATHS]


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_fake_answers_generated_requests_as_the_real_server_did(path: Path) -> None:
    recording = FuzzRecording.read(path)
    assert recording.per_operation >= 20 and len(recording.cases) >= 20 * 40
    found = replay(recording)
    undeclared = [difference for difference in found if difference.declared is None]
    assert not undeclared, f"{len(undeclared)} of {len(recording.cases)} differ:\n" + "\n".join(
        render_groups(undeclared)
    )


def test_each_configuration_is_recorded_with_several_seeds() -> None:
    seeds: dict[str, set[int]] = {}
    for path in PATHS:
        seeds.setdefault(path.parent.name, set()).add(FuzzRecording.read(path).seed)
    assert {"3.0.12", "3.0.12+embed", "3.1", "3.1+embed", "3.2", "3.2+embed"} <= set(seeds)
    assert all(len(found) >= 3 for found in seeds.values()), seeds


def test_every_rule_names_a_register_entry() -> None:
    for rule in RULES:
        divergence(rule.entry)  # KeyError naming the known ids


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_every_deletion_was_waited_for_until_carried_out(path: Path) -> None:
    """So no difference in the recordings is the server's deriver running later."""
    recording = FuzzRecording.read(path)
    pairs = enumerate(zip(recording.cases, recording.answers, strict=True))
    deletions = [
        recording.settle(index)
        for index, (case, answer) in pairs
        if deleted_resource(case, answer) is not None
    ]
    assert deletions and all(settle is not None and settle.done for settle in deletions)
