"""The fake's exact search answers on the recorded corpora, kept as digests.

Speed work on search (the index, the semantic leg, the fusion) must not change one byte
of an answer. ``answers_before.json`` holds a digest of every answer body the fake gave
on every recorded corpus, with embeddings off and on, computed by this module on the
commit before that work (``python -m tests.fidelity.search.unchanged``);
``test_unchanged.py`` computes them again and compares. The fakes run a seeded id
factory and a ticking clock, so the bodies (ids and timestamps included) are the same
on every run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import count
from pathlib import Path
from typing import Any

import httpx

from tests.fidelity.search.corpora import DATA, Query, load, read

BEFORE = Path(__file__).with_name("answers_before.json")
START = datetime(2026, 1, 1, tzinfo=UTC)


def ticking_clock() -> Any:
    """A clock one millisecond later on every call, from :data:`START`."""
    ticks = count()
    return lambda: START + timedelta(milliseconds=next(ticks))


def corpora() -> Iterator[tuple[str, Path, bool, str | None]]:
    """``(name, path, embed_messages, version)`` for every recorded corpus and setting:
    each corpus with embeddings off, and with them on at its recording's version."""
    for path in sorted(DATA.glob("corpus-*.json")):
        yield f"{path.stem}", path, False, None
        yield f"{path.stem}+embed", path, True, None
    for path in sorted(DATA.glob("*+embed/corpus-*.json")):
        version = path.parent.name.removesuffix("+embed")
        yield f"{path.parent.name}/{path.stem}", path, True, version


def digests(path: Path, embed_messages: bool, version: str | None) -> list[str]:
    """The first 16 hex digits of the sha256 of each query's answer body, in order."""
    from fake_honcho import FakeHoncho

    made, queries, _ = read(path)
    fake = FakeHoncho(
        seed=7,
        clock=ticking_clock(),
        deriver="manual",
        embed_messages=embed_messages,
        version=version,
    )
    try:
        with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
            load(client, "replay", made)
            return [_digest(client, query) for query in queries]
    finally:
        fake.close()


def _digest(client: httpx.Client, query: Query) -> str:
    base = "/v3/workspaces/replay"
    path = {"workspace": base, "session": f"{base}/sessions", "peer": f"{base}/peers"}
    where = path[query.scope[0]] + (f"/{query.scope[1]}" if len(query.scope) > 1 else "")
    body: dict[str, Any] = {"query": query.query, "limit": query.limit}
    if query.filters is not None:
        body["filters"] = query.filters
    answer = client.post(f"{where}/search", json=body)
    return hashlib.sha256(b"%d " % answer.status_code + answer.content).hexdigest()[:16]


def main() -> None:
    recorded = {name: digests(path, embed, version) for name, path, embed, version in corpora()}
    BEFORE.write_text(json.dumps(recorded, indent=0) + "\n", encoding="utf-8")
    print(f"{BEFORE}: {sum(map(len, recorded.values()))} answers of {len(recorded)} runs")


if __name__ == "__main__":
    main()
