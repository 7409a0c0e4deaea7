"""The generated differential: requests as sent, answers as compared, and their recordings.

``fake-honcho fuzz`` (:mod:`fake_honcho.drift.fuzz_cli`) has schemathesis generate requests
from a server's own ``/openapi.json`` (:mod:`fake_honcho.drift.fuzz_cases`); this module
holds what needs no schemathesis, so a recording replays on the ``fake`` extra alone:

- :class:`FuzzCase`: one request exactly as sent (method, target with its query, headers,
  body bytes), the same bytes to the server and to the fake; :class:`Answer`: what is
  compared of a response: the status, for a 422 whose detail is pydantic's list each
  item's type and location (in the server's order), for any other 4xx the detail; a
  connection closed without an answer is status 0 (both in
  :mod:`fake_honcho.drift.fuzz_exchange`, with :func:`send`);
- :func:`fake_for` (a fresh in-process fake of a version and configuration)
  and :func:`compare` (each differing case, named by the register entry that declares it,
  :mod:`fake_honcho.drift.fuzz_declared`);
- :class:`FuzzRecording`: a run's cases and the server's answers, one JSON line per case,
  replayed in order against a fresh fake (:func:`replay`), as ``tests/fidelity/fuzz`` does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from fake_honcho.drift.fuzz_declared import History, declared_by
from fake_honcho.drift.fuzz_exchange import Answer, FuzzCase, send
from fake_honcho.drift.recording import configuration_name, parse_configuration
from fake_honcho.versions import HonchoVersion, resolve_version

if TYPE_CHECKING:
    from fake_honcho.fake import FakeHoncho

__all__ = [
    "Answer",
    "FuzzCase",
    "FuzzDifference",
    "FuzzRecording",
    "compare",
    "fake_for",
    "group",
    "load_fuzz_recordings",
    "render_groups",
    "replay",
    "send",
]


@dataclass(frozen=True)
class FuzzDifference:
    """One case answered otherwise; ``declared`` names the register entry that says why."""

    index: int
    case: FuzzCase
    real: Answer
    fake: Answer
    declared: str | None = None

    @property
    def key(self) -> tuple[str, str, str, str | None]:
        """What groups it: the operation, both answers' kinds and the entry."""
        return (self.case.operation, self.real.kind, self.fake.kind, self.declared)


def compare(
    cases: Sequence[FuzzCase],
    real: Sequence[Answer],
    fake: Sequence[Answer],
    version: HonchoVersion,
) -> list[FuzzDifference]:
    """Every case whose two answers differ, each named by the entry declaring it, if any
    (in the light of what the earlier cases did)."""
    history = History()
    found = []
    for i, (case, want, got) in enumerate(zip(cases, real, fake, strict=True)):
        if want != got:
            declared = declared_by(case, want, got, version, history)
            found.append(FuzzDifference(i, case, want, got, declared))
        history.record(case, want)
    return found


def group(found: Iterable[FuzzDifference]) -> dict[tuple[str, str, str, str | None], list[int]]:
    """Differences by :attr:`FuzzDifference.key`, largest group first (case indexes)."""
    groups: dict[tuple[str, str, str, str | None], list[int]] = {}
    for difference in found:
        groups.setdefault(difference.key, []).append(difference.index)
    return dict(sorted(groups.items(), key=lambda item: (-len(item[1]), item[0][0])))


def render_groups(found: Sequence[FuzzDifference]) -> list[str]:
    """Each group of :func:`group` as a line, then its first case and both answers."""
    by_index = {difference.index: difference for difference in found}
    lines = []
    for (operation, real_kind, fake_kind, declared), indexes in group(found).items():
        example = by_index[indexes[0]]
        note = f"  declared: {declared}" if declared else ""
        lines += [
            f"{len(indexes)} x {operation}: server {real_kind}, fake {fake_kind}{note}",
            f"    e.g. [{example.index}] {example.case.describe()}",
            f"    server: {example.real.render()}",
            f"    fake:   {example.fake.render()}",
        ]
    return lines


def fake_for(version: str | HonchoVersion, embed_messages: bool, *, auth: bool) -> FakeHoncho:
    """A fresh fake of ``version`` and configuration; with ``auth``, auth on (send its
    ``admin_key``). Fields a version drops are dropped quietly, as the server does."""
    import secrets

    from fake_honcho.fake import FakeHoncho

    return FakeHoncho(
        version=version,
        ignored_fields="allow",
        jwt_secret=secrets.token_hex(32) if auth else None,
        embed_messages=embed_messages,
    )


@dataclass(frozen=True)
class FuzzRecording:
    """One run of the generated differential as a server answered it."""

    server: str
    version: str
    embed_messages: bool
    seed: int
    per_operation: int
    cases: tuple[FuzzCase, ...]
    answers: tuple[Answer, ...]
    generator: str = ""
    """The schemathesis (and hypothesis) release that generated the cases."""
    operations: tuple[str, ...] = field(default=())

    @property
    def configuration(self) -> str:
        return configuration_name(self.version, self.embed_messages)

    @property
    def file_name(self) -> str:
        return f"seed-{self.seed}.json"

    def write(self, directory: Path) -> Path:
        """``directory/<configuration>/seed-S.json``: a header, then one line per case."""
        path = directory / self.configuration / self.file_name
        path.parent.mkdir(parents=True, exist_ok=True)
        head = {
            "server": self.server,
            "honcho_version": self.version,
            "embed_messages": self.embed_messages,
            "seed": self.seed,
            "per_operation": self.per_operation,
            "generator": self.generator,
        }
        lines = [
            json.dumps([case.as_json(), answer.as_json()], ensure_ascii=False)
            for case, answer in zip(self.cases, self.answers, strict=True)
        ]
        text = json.dumps(head, ensure_ascii=False)[:-1] + ', "cases": [\n'
        path.write_text(text + ",\n".join(lines) + "\n]}\n", encoding="utf-8")
        return path

    @classmethod
    def read(cls, path: Path) -> FuzzRecording:
        data = json.loads(path.read_text(encoding="utf-8"))
        pairs = [(FuzzCase.from_json(c), Answer.from_json(a)) for c, a in data["cases"]]
        recording = cls(
            data["server"],
            data["honcho_version"],
            bool(data["embed_messages"]),
            int(data["seed"]),
            int(data["per_operation"]),
            tuple(case for case, _ in pairs),
            tuple(answer for _, answer in pairs),
            data.get("generator", ""),
        )
        if path.parent.name != recording.configuration:
            raise ValueError(f"{path} was recorded at {recording.configuration!r}")
        return recording


def load_fuzz_recordings(root: Path) -> Iterator[Path]:
    """Every recording under ``root/<configuration>/`` (paths: a test per file)."""
    for directory in sorted(p for p in root.iterdir() if p.is_dir()):
        parse_configuration(directory.name)  # a directory name that says no version fails
        yield from sorted(directory.glob("seed-*.json"))


def replay(recording: FuzzRecording) -> list[FuzzDifference]:
    """The recorded cases sent in order to a fresh in-process fake of the recording's
    version and configuration: every case answered otherwise than the server did."""
    version = resolve_version(recording.version)
    with (
        fake_for(version, recording.embed_messages, auth=False) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        answers = [send(client, case) for case in recording.cases]
    return compare(recording.cases, recording.answers, answers, version)
