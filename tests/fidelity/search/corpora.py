"""Run a generated corpus and its queries against any Honcho, answers normalised.

The same code drives the real server (recording) and the fake (replay): it creates a
workspace, its sessions with their peers, writes the corpus batch by batch (one
request each, so a batch shares one ``created_at``), then sends every query and
keeps each answer as positions in the corpus's message order, so answers from two
servers compare although their message ids differ.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.fidelity.search.generate import Corpus, corpus, queries

DATA = Path(__file__).with_name("data")
LIMITS = (1, 2, 3, 5, 10, 10, 10, 20, 50, 100)


@dataclass
class Query:
    scope: list[str]  # ["workspace"], ["session", sid] or ["peer", pid]
    query: str
    limit: int
    filters: dict[str, Any] | None = None
    expected: list[int] | None = None  # positions in the corpus's message order


def plan(seed: int, size: int, count: int) -> tuple[Corpus, list[Query]]:
    """The corpus of ``seed`` and its queries, with scopes, limits and filters drawn."""
    made = corpus(seed, size)
    rng = random.Random(seed * 104729 + 3)
    texts = [text for _, _, text in made.messages()]
    planned: list[Query] = []
    for text in queries(seed, texts, count):
        roll = rng.random()
        scope = ["workspace"]
        filters: dict[str, Any] | None = None
        if roll < 0.15:
            scope = ["session", rng.choice(made.sessions)]
        elif roll < 0.25:
            scope = ["peer", rng.choice(made.peers)]
        elif roll < 0.3:
            filters = {"peer_id": rng.choice(made.peers)}
        elif roll < 0.35:
            filters = {"session_id": rng.choice(made.sessions)}
        elif roll < 0.38:
            filters = {"peer_perspective": rng.choice(made.peers)}
        planned.append(Query(scope, text, rng.choice(LIMITS), filters))
    return made, planned


def _ok(response: httpx.Response) -> Any:
    if response.status_code >= 300:
        raise RuntimeError(f"{response.request.url}: {response.status_code} {response.text}")
    return response.json()


def load(client: httpx.Client, workspace: str, made: Corpus) -> list[str]:
    """Create the corpus in ``workspace``; the message ids in corpus order."""
    _ok(client.post("/v3/workspaces", json={"id": workspace}))
    base = f"/v3/workspaces/{workspace}"
    for sid in made.sessions:
        peers = {peer: {} for peer in made.peers}
        _ok(client.post(f"{base}/sessions", json={"id": sid, "peers": peers}))
    ids: list[str] = []
    for sid, batch in made.batches:
        body = {"messages": [{"peer_id": peer, "content": text} for peer, text in batch]}
        created = _ok(client.post(f"{base}/sessions/{sid}/messages", json=body))
        ids.extend(message["id"] for message in created)
    return ids


def ask(client: httpx.Client, workspace: str, ids: list[str], query: Query) -> list[int]:
    base = f"/v3/workspaces/{workspace}"
    path = {"workspace": base, "session": f"{base}/sessions", "peer": f"{base}/peers"}
    where = path[query.scope[0]] + (f"/{query.scope[1]}" if len(query.scope) > 1 else "")
    body: dict[str, Any] = {"query": query.query, "limit": query.limit}
    if query.filters is not None:
        body["filters"] = query.filters
    position = {mid: at for at, mid in enumerate(ids)}
    return [position[message["id"]] for message in _ok(client.post(f"{where}/search", json=body))]


def save(
    made: Corpus,
    planned: list[Query],
    table_order: list[int] | None,
    directory: Path = DATA,
    embedding_order: list[int] | None = None,
) -> Path:
    """Write the recording; ``table_order``: message positions in the server's ctid order
    (``embedding_order``: of its embedding rows). ``directory``: ``data/`` for 3.0.12 with
    embeddings off, ``data/<version>+embed/`` for a server that embeds."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"corpus-{made.seed:03d}.json"
    record = {
        "seed": made.seed,
        "sessions": made.sessions,
        "peers": made.peers,
        "batches": made.batches,
        "table_order": table_order,
        **({"embedding_order": embedding_order} if embedding_order is not None else {}),
        "queries": [asdict(query) for query in planned],
    }
    path.write_text(json.dumps(record, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    return path


def embedding_order(path: Path) -> list[int] | None:
    """The recorded physical order of the server's embedding rows, if recorded."""
    order: list[int] | None = json.loads(path.read_text(encoding="utf-8")).get("embedding_order")
    return order


def read(path: Path) -> tuple[Corpus, list[Query], list[int] | None]:
    record = json.loads(path.read_text(encoding="utf-8"))
    batches = [(sid, [(peer, text) for peer, text in batch]) for sid, batch in record["batches"]]
    made = Corpus(record["seed"], record["sessions"], record["peers"], batches)
    queries = [Query(**query) for query in record["queries"]]
    return made, queries, record.get("table_order")


def fake_answers(
    made: Corpus, planned: list[Query], *, embed_messages: bool = False, version: str | None = None
) -> list[list[int]]:
    """Every query's answer from a fresh in-process fake holding the corpus (the
    recordings under ``data/`` are of 3.0.12 with embeddings off)."""
    from fake_honcho import FakeHoncho

    fake = FakeHoncho(deriver="manual", embed_messages=embed_messages, version=version)
    try:
        with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
            ids = load(client, "replay", made)
            return [ask(client, "replay", ids, query) for query in planned]
    finally:
        fake.close()
