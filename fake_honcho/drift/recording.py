"""Recordings of the scripted exchanges, and comparing two runs of a script.

A recording is one JSON file per script (``<name>.json``) holding every step as
sent (templates, not run-specific ids), the normalised answer a server gave and the
Honcho version and configuration it is replayed at; a directory of recordings per
version and configuration (``exchanges/3.0.12/``, ``exchanges/3.1/`` with embeddings off,
``exchanges/3.1+embed/`` with them on) is read by :func:`recordings_by_version`.
The replay test sends the recorded steps to a fresh fake and compares; the
``fake-honcho compare`` drift report does the same live against any server.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import httpx

from fake_honcho.drift.exchange import Result, Script, Step, run_script, workspace_names
from fake_honcho.harness.divergences import divergence
from fake_honcho.versions import HonchoVersion, resolve_version

__all__ = [
    "Difference",
    "Recording",
    "configuration_name",
    "differences",
    "fake_client",
    "load_recordings",
    "parse_configuration",
    "recordings_by_version",
    "replay",
    "run_on_fake",
    "write_recording",
]

FAKE_PREFIX = "drift-fake-"


@dataclass(frozen=True)
class Recording:
    """One script as a server answered it."""

    script: Script
    results: Sequence[Result]
    server: str
    version: str
    embed_messages: bool = False
    """The server's ``EMBED_MESSAGES`` (recordings before it was recorded: off)."""

    @property
    def configuration(self) -> str:
        """The directory it sits in: the version, ``+embed`` with embeddings on."""
        return configuration_name(self.version, self.embed_messages)

    def as_json(self) -> dict[str, Any]:
        return {
            "script": self.script.name,
            "doc": self.script.doc,
            "server": self.server,
            "honcho_version": self.version,
            **({"embed_messages": True} if self.embed_messages else {}),
            **({"deriver": self.script.deriver} if self.script.deriver != "immediate" else {}),
            "exchanges": [
                {**step.as_json(), "response": result.as_json()}
                for step, result in zip(self.script.steps, self.results, strict=True)
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Recording:
        exchanges = data["exchanges"]
        script = Script(
            data["script"],
            [Step.from_json(x) for x in exchanges],
            data.get("doc", ""),
            deriver=data.get("deriver", "immediate"),
        )
        results = [Result.from_json(x["response"]) for x in exchanges]
        return cls(
            script,
            results,
            data["server"],
            data["honcho_version"],
            bool(data.get("embed_messages", False)),
        )


EMBED_SUFFIX = "+embed"


def configuration_name(version: str, embed_messages: bool) -> str:
    """``3.1`` (embeddings off) or ``3.1+embed``: a recordings directory's name."""
    return version + (EMBED_SUFFIX if embed_messages else "")


def parse_configuration(name: str) -> tuple[HonchoVersion, bool]:
    """The version and ``EMBED_MESSAGES`` a recordings directory's name says."""
    embed = name.endswith(EMBED_SUFFIX)
    return resolve_version(name.removesuffix(EMBED_SUFFIX)), embed


@dataclass(frozen=True)
class Difference:
    """One step whose answers differ; ``declared`` names the register entry that explains it
    (the step's, when that entry applies to the version compared)."""

    index: int
    step: Step
    expected: Result
    actual: Result
    declared: str | None = None

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
    script: Script,
    expected: Sequence[Result],
    actual: Sequence[Result],
    version: str | HonchoVersion | None = None,
    embed_messages: bool = False,
) -> list[Difference]:
    """Every step of ``script`` whose two results differ, in order, at ``version``.

    With embeddings on, a search answer that differs only in which of several messages
    of identical content stand where (identical vectors: an exact tie in both legs) is
    declared ``semantic-tie-order``.
    """
    at = resolve_version(version)
    found = []
    for i, (step, want, got) in enumerate(zip(script.steps, expected, actual, strict=True)):
        if want == got:
            continue
        declared = declared_at(step, at)
        if declared is None and embed_messages and _content_ties(step, want, got):
            declared = SEMANTIC_TIES
        found.append(Difference(i, step, want, got, declared))
    return found


SEMANTIC_TIES = "semantic-tie-order"


def _content_ties(step: Step, want: Result, got: Result) -> bool:
    """Whether two search answers are the same but for which of several messages of
    identical content (and author, session, metadata) stand where."""
    if not (step.method == "POST" and step.path.endswith("/search")):
        return False
    if (want.status, want.content_type) != (got.status, got.content_type):
        return False
    if not (isinstance(want.body, list) and isinstance(got.body, list)):
        return False
    return _without_ids(want.body) == _without_ids(got.body)


def _without_ids(messages: list[Any]) -> list[Any]:
    return [
        {key: value for key, value in item.items() if key != "id"}
        if isinstance(item, dict)
        else item
        for item in messages
    ]


def declared_at(step: Step, version: HonchoVersion) -> str | None:
    """The register entry ``step`` names, if it applies to ``version`` (a bug the version
    fixed is no divergence there) and the fake does not reproduce it by default."""
    if step.divergence is None:
        return None
    entry = divergence(step.divergence)
    return step.divergence if entry.applies_to(version) and not entry.reproduced else None


def run_on_fake(
    script: Script,
    version: str | HonchoVersion | None = None,
    embed_messages: bool = False,
    *,
    auth: bool = False,
) -> list[Result]:
    """``script`` against a fresh in-process fake speaking ``version`` (strict: its answers
    match its schemas; its deriver the script's), embedding messages or not; ``auth``:
    with auth on, sending its admin key (as to a server with ``AUTH_USE_AUTH=true``)."""
    # scripts send fields an older version drops on purpose: its answer is the point
    with fake_client(
        version, embed_messages, auth=auth, strict=True, deriver=script.deriver
    ) as client:
        return run_script(client, script, workspace_names(FAKE_PREFIX))


@contextmanager
def fake_client(
    version: str | HonchoVersion | None,
    embed_messages: bool,
    *,
    auth: bool = False,
    strict: bool = False,
    deriver: Literal["immediate", "manual"] = "immediate",
) -> Iterator[httpx.Client]:
    """A client of a fresh in-process fake speaking ``version`` that answers every field as
    that version does (``ignored_fields="allow"``); ``auth``: with auth on, sending its
    admin key (as to a server with ``AUTH_USE_AUTH=true``)."""
    from fake_honcho.fake import FakeHoncho

    with (
        FakeHoncho(
            version=version,
            strict=strict,
            ignored_fields="allow",
            jwt_secret=secrets.token_hex(32) if auth else None,
            embed_messages=embed_messages,
            deriver=deriver,
        ) as fake,
        httpx.Client(
            transport=fake.transport(),
            base_url="http://fake",
            headers={"Authorization": f"Bearer {fake.admin_key}"} if auth else {},
        ) as client,
    ):
        yield client


def replay(recording: Recording) -> list[Difference]:
    """``recording``'s steps sent to a fresh fake of its version and configuration:
    every step answered otherwise than the server did."""
    replayed = run_on_fake(recording.script, recording.version, recording.embed_messages)
    return differences(
        recording.script,
        recording.results,
        replayed,
        recording.version,
        recording.embed_messages,
    )


def write_recording(directory: Path, recording: Recording) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{recording.script.name}.json"
    text = json.dumps(recording.as_json(), indent=1, ensure_ascii=False, sort_keys=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def load_recordings(directory: Path) -> Iterator[Recording]:
    for path in sorted(directory.glob("*.json")):
        yield Recording.from_json(json.loads(path.read_text(encoding="utf-8")))


def recordings_by_version(root: Path) -> dict[str, list[Recording]]:
    """The recordings under ``root/<configuration>/``, by configuration: ``<version>``
    for a server with embeddings off, ``<version>+embed`` with them on (each file must
    say the version and configuration of the directory it sits in)."""
    found: dict[str, list[Recording]] = {}
    for directory in sorted(p for p in root.iterdir() if p.is_dir()):
        version, embed = parse_configuration(directory.name)
        name = configuration_name(version.name, embed)
        recordings = list(load_recordings(directory))
        for recording in recordings:
            if recording.configuration != name:
                raise ValueError(
                    f"{directory}/{recording.script.name}.json was recorded at "
                    f"{recording.configuration!r}; it sits under {name}"
                )
        found[name] = recordings
    return found
