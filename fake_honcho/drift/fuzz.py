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
  and :class:`Differential` (each case sent to it and judged at once: a differing one is
  named by the register entry that declares it, :mod:`fake_honcho.drift.fuzz_declared`);
- :class:`FuzzRecording`: a run's cases, the server's answers and what was waited for
  after them (:class:`~fake_honcho.drift.fuzz_settle.Settle`), one JSON line per case,
  replayed in order against a fresh fake (:func:`replay`), as ``tests/fidelity/fuzz`` does.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from fake_honcho.drift.fuzz_declared import History, declared_by
from fake_honcho.drift.fuzz_exchange import Answer, FuzzCase, send
from fake_honcho.drift.fuzz_settle import Settle
from fake_honcho.drift.recording import configuration_name, parse_configuration
from fake_honcho.versions import HonchoVersion, resolve_version

if TYPE_CHECKING:
    from fake_honcho.fake import FakeHoncho

__all__ = [
    "Answer",
    "Differential",
    "FuzzCase",
    "FuzzDifference",
    "FuzzRecording",
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


class Differential:
    """Cases judged as they are answered, against one fake: a difference is named by the
    entry declaring it in the light of what the earlier cases did and of what the fake
    holds at that moment (so the judge runs between cases, not after the run)."""

    def __init__(self, version: HonchoVersion, fake: FakeHoncho, client: httpx.Client) -> None:
        self.version = version
        self.client = client
        self.history = History(store=fake.store)
        self.found: list[FuzzDifference] = []
        self.answers: list[Answer] = []

    def step(self, case: FuzzCase, real: Answer, settle: Settle | None = None) -> Answer:
        """Send ``case`` to the fake, judge its answer against the server's ``real``, then
        do what the server was seen to settle after it (:mod:`fake_honcho.drift.fuzz_settle`)."""
        got = send(self.client, case)
        if got != real:
            declared = declared_by(case, real, got, self.version, self.history)
            self.found.append(FuzzDifference(len(self.answers), case, real, got, declared))
        self.answers.append(got)
        if settle is not None and settle.probe is not None:
            send(self.client, settle.probe[0])
        self.history.record(case, real, settle)
        return got


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
    settles: tuple[Settle | None, ...] = field(default=())
    """What was waited for after each case (empty: nothing, a recording made before the
    differential waited for deletions)."""

    def settle(self, index: int) -> Settle | None:
        return self.settles[index] if self.settles else None

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
        lines = []
        for index, (case, answer) in enumerate(zip(self.cases, self.answers, strict=True)):
            settle = self.settle(index)
            line = [case.as_json(), answer.as_json()]
            lines.append(
                json.dumps(line + ([settle.as_json()] if settle else []), ensure_ascii=False)
            )
        text = json.dumps(head, ensure_ascii=False)[:-1] + ', "cases": [\n'
        path.write_text(text + ",\n".join(lines) + "\n]}\n", encoding="utf-8")
        return path

    @classmethod
    def read(cls, path: Path) -> FuzzRecording:
        """A recording as :meth:`write` wrote it, or gzipped (``seed-S.json.gz``)."""
        raw = path.read_bytes()
        data = json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)
        pairs = [(FuzzCase.from_json(c), Answer.from_json(a)) for c, a, *_ in data["cases"]]
        settles = tuple(Settle.from_json(s[0]) if s else None for _, _, *s in data["cases"])
        recording = cls(
            data["server"],
            data["honcho_version"],
            bool(data["embed_messages"]),
            int(data["seed"]),
            int(data["per_operation"]),
            tuple(case for case, _ in pairs),
            tuple(answer for _, answer in pairs),
            data.get("generator", ""),
            settles if any(settles) else (),
        )
        if path.parent.name != recording.configuration:
            raise ValueError(f"{path} was recorded at {recording.configuration!r}")
        return recording


def load_fuzz_recordings(root: Path) -> Iterator[Path]:
    """Every recording under ``root/<configuration>/``, plain or gzipped (paths: a test
    per file)."""
    for directory in sorted(p for p in root.iterdir() if p.is_dir()):
        parse_configuration(directory.name)  # a directory name that says no version fails
        yield from sorted([*directory.glob("seed-*.json"), *directory.glob("seed-*.json.gz")])


def replay(recording: FuzzRecording) -> list[FuzzDifference]:
    """The recorded cases sent in order to a fresh in-process fake of the recording's
    version and configuration: every case answered otherwise than the server did."""
    version = resolve_version(recording.version)
    with (
        fake_for(version, recording.embed_messages, auth=False) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        differential = Differential(version, fake, client)
        for index, (case, real) in enumerate(zip(recording.cases, recording.answers, strict=True)):
            differential.step(case, real, recording.settle(index))
    return differential.found
