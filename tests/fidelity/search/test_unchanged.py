"""Search answers are byte for byte what they were before the speed work (``unchanged.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fidelity.search.unchanged import BEFORE, corpora, digests

RECORDED: dict[str, list[str]] = json.loads(BEFORE.read_text(encoding="utf-8"))
RUNS = list(corpora())


def test_every_corpus_and_setting_has_its_answers() -> None:
    assert sorted(RECORDED) == sorted(name for name, *_ in RUNS)
    assert sum(embed for _, _, embed, _ in RUNS) >= 20


@pytest.mark.parametrize(("name", "path", "embed", "version"), RUNS, ids=[run[0] for run in RUNS])
def test_answers_are_byte_for_byte_unchanged(
    name: str, path: Path, embed: bool, version: str | None
) -> None:
    got = digests(path, embed, version)
    changed = [
        at
        for at, (now, before) in enumerate(zip(got, RECORDED[name], strict=True))
        if now != before
    ]
    assert changed == [], f"{len(changed)} of {len(got)} answers changed, e.g. query {changed[:5]}"
