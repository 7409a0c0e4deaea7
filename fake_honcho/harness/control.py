"""What a test harness does to a fake: step or drain its deriver, reset, seed, read its journal.

Each function takes the fake (a :class:`Harness`) and answers the JSON the matching
``/_fake/...`` control route sends (``fake_honcho/routes/control.py``), so the
in-process and the HTTP control clients (``contract_tests.control``) see the same
data. Control requests themselves are left out of the journal they read: reading
it over HTTP shows what reading it in-process shows.
"""

from __future__ import annotations

import importlib.metadata
import threading
import time
from typing import Any, Protocol

from starlette.requests import Request

from fake_honcho.harness.faults import CONTROL_PREFIX, Faults
from fake_honcho.harness.journal import Journal, JournalEntry
from fake_honcho.harness.persistence import apply_records, dump_state, read_records
from fake_honcho.http.protocol import Server

__all__ = [
    "SERVER_NAME",
    "about",
    "clear_journal",
    "deriver_status",
    "drain",
    "export_state",
    "harness_of",
    "journal",
    "load_state",
    "step",
]

STATE_MEDIA_TYPE = "application/x-ndjson"
MAX_STEP_COUNT = 1_000_000
SERVER_NAME = "fake-honcho"
DISTRIBUTION = "honcho-contract-kit"


class Harness(Server, Protocol):
    """A :class:`~fake_honcho.http.protocol.Server` with the harness around it: its fault
    rules, its journal, and a reset of everything."""

    faults: Faults
    requests: Journal

    def reset(self) -> None: ...


def harness_of(request: Request) -> Harness:
    """The fake behind a control request (``request.app.fake``)."""
    fake: Harness = request.scope["app"].fake
    return fake


def about(fake: Harness) -> dict[str, Any]:
    """What this server is: ``{"server": "fake-honcho", "version", "honcho_version"}``.

    A client tells a served fake from a real Honcho by asking ``GET /_fake/about``: a
    real server has no such route (404). Nothing else the fake answers changes.
    """
    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:  # a checkout that was never installed
        version = "unknown"
    return {"server": SERVER_NAME, "version": version, "honcho_version": fake.version.name}


def deriver_status(fake: Harness) -> dict[str, Any]:
    """The deriver's mode and how many units are queued (not yet run) or have failed."""
    return {
        "mode": fake.deriver.mode,
        "queued": len(fake.deriver.queued()),
        "failed": len(fake.deriver.failures()),
    }


def embeddings_status(fake: Harness) -> dict[str, Any]:
    """Whether the fake embeds messages, its embedding mode, and how many messages wait."""
    embeddings = fake.embeddings
    return {
        "embed_messages": embeddings is not None,
        "mode": None if embeddings is None else embeddings.mode,
        "pending": 0 if embeddings is None else embeddings.pending,
    }


def release_embeddings(fake: Harness) -> dict[str, Any]:
    """Write the embeddings of every message waiting for them: ``{"released": n}``."""
    return {"released": 0 if fake.embeddings is None else fake.embeddings.release()}


def step(fake: Harness, count: int = 1, stop: threading.Event | None = None) -> dict[str, Any]:
    """Run up to ``count`` queued units, oldest first: ``{"ran": n, "queued": left}``.

    ``stop`` (set when the request is cancelled, e.g. at shutdown) ends it early.
    """
    if not 1 <= count <= MAX_STEP_COUNT:
        raise ValueError(f"count must be 1..{MAX_STEP_COUNT}, got {count!r}")
    ran = 0
    while ran < count and not (stop and stop.is_set()) and fake.deriver.step():
        ran += 1
    return {"ran": ran, "queued": len(fake.deriver.queued())}


def drain(fake: Harness, timeout: float, stop: threading.Event | None = None) -> dict[str, Any]:
    """Run queued units (helping a background worker) until none is left or ``timeout`` ends.

    ``{"ran": n, "queued": 0, "idle": true}``; when time runs out (or ``stop`` is set)
    ``idle`` is false and ``detail`` says how much is still queued. A unit is claimed
    and run under the store lock, so a step that finds nothing means nothing is
    running either.
    """
    if not timeout > 0:  # NaN too
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    deadline = time.monotonic() + timeout
    ran = 0
    while fake.deriver.step():
        ran += 1
        stopped = stop is not None and stop.is_set()
        if stopped or time.monotonic() >= deadline:
            left = len(fake.deriver.queued())
            if left:
                why = "drain stopped" if stopped else f"deriver not idle after {timeout:g}s"
                return {
                    "ran": ran,
                    "queued": left,
                    "idle": False,
                    "detail": f"{why}: {left} unit(s) still queued ({ran} run)",
                }
    return {"ran": ran, "queued": 0, "idle": True}


def journal(fake: Harness) -> list[dict[str, Any]]:
    """Every journaled request but control requests, oldest first, as JSON."""
    return [_entry(entry) for entry in fake.requests if not entry.path.startswith(CONTROL_PREFIX)]


def _entry(entry: JournalEntry) -> dict[str, Any]:
    return {
        "method": entry.method,
        "path": entry.path,
        "query": entry.query,
        "json": entry.json,
        "status": entry.status,
        "fault": entry.fault,
        "ignored": list(entry.ignored),
        "honcho_host": entry.honcho_host,
    }


def clear_journal(fake: Harness) -> dict[str, Any]:
    """Forget the journal: ``{"removed": n}``."""
    removed = len(fake.requests)
    fake.requests.clear()
    return {"removed": removed}


def export_state(fake: Harness) -> bytes:
    """The whole store as a compact state file (what ``--state-file`` keeps, and a seed)."""
    with fake.store.lock:
        return b"".join(dump_state(fake.store))


def load_state(fake: Harness, data: bytes, source: str = "state") -> dict[str, Any]:
    """Replace everything with a seed: :meth:`FakeHoncho.reset`, then the seed's rows.

    The seed is checked whole before anything changes (a bad one raises
    ``StateFileError`` naming ``source`` and the line, and the fake is untouched).
    Queued deriver work in the seed stays queued (and a background worker picks it up).
    """
    records = read_records(data, source, torn_tail=False)
    with fake.store.lock:
        fake.reset()
        apply_records(fake.store, records)
        rows = sum(fake.store.count(name) for name in fake.store.collections())
    fake.deriver.wake()
    return {"rows": rows}
