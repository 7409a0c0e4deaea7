"""Recordings of the scripted exchanges, and comparing two runs of a script.

A recording is one JSON file per script (``<name>.json``) holding every step as
sent (templates, not run-specific ids) and the normalised answer a server gave.
The replay test sends the recorded steps to a fresh fake and compares; the
``fake-honcho compare`` drift report does the same live against any server.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from fake_honcho.drift.exchange import Result, Script, Step, run_script, workspace_names

__all__ = [
    "Difference",
    "Recording",
    "differences",
    "load_recordings",
    "run_on_fake",
    "write_recording",
]

FAKE_PREFIX = "drift-fake-"


@dataclass(frozen=True)
class Recording:
    """One script as a server answered it."""

    script: Script
    results: Sequence[Result]
    server: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "script": self.script.name,
            "doc": self.script.doc,
            "server": self.server,
            "exchanges": [
                {**step.as_json(), "response": result.as_json()}
                for step, result in zip(self.script.steps, self.results, strict=True)
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Recording:
        exchanges = data["exchanges"]
        script = Script(data["script"], [Step.from_json(x) for x in exchanges], data.get("doc", ""))
        return cls(script, [Result.from_json(x["response"]) for x in exchanges], data["server"])


@dataclass(frozen=True)
class Difference:
    """One step whose answers differ; ``declared`` names the register entry that explains it."""

    index: int
    step: Step
    expected: Result
    actual: Result

    @property
    def declared(self) -> str | None:
        return self.step.divergence

    def render(self, expected_label: str = "server", actual_label: str = "fake") -> str:
        request = json.dumps(self.step.describe(), ensure_ascii=False)
        lines = [f"[{self.index}] {request}" + (f"  # {self.step.note}" if self.step.note else "")]
        if self.declared:
            lines.append(f"    declared: fake_honcho.divergences {self.declared!r}")
        for label, result in ((expected_label, self.expected), (actual_label, self.actual)):
            body = json.dumps(result.as_json(), ensure_ascii=False, sort_keys=True)
            lines.append(f"    {label}: {body}")
        return "\n".join(lines)


def differences(
    script: Script, expected: Sequence[Result], actual: Sequence[Result]
) -> list[Difference]:
    """Every step of ``script`` whose two results differ, in order."""
    return [
        Difference(i, step, want, got)
        for i, (step, want, got) in enumerate(zip(script.steps, expected, actual, strict=True))
        if want != got
    ]


def run_on_fake(script: Script) -> list[Result]:
    """``script`` against a fresh in-process fake (strict: its answers match its schemas)."""
    from fake_honcho import FakeHoncho

    with (
        FakeHoncho(strict=True) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        return run_script(client, script, workspace_names(FAKE_PREFIX))


def write_recording(directory: Path, recording: Recording) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{recording.script.name}.json"
    text = json.dumps(recording.as_json(), indent=1, ensure_ascii=False, sort_keys=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def load_recordings(directory: Path) -> Iterator[Recording]:
    for path in sorted(directory.glob("*.json")):
        yield Recording.from_json(json.loads(path.read_text(encoding="utf-8")))
