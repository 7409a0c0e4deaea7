"""The HTTP operations the fake is timed on, and seeding through the public API.

Every response is checked: a benchmark that silently times 422s measures nothing.
Request bodies are built before timing starts and cycled, so only the fake is timed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from bench.corpus import TextGenerator

BASE_URL = "http://fake-honcho.bench"
WORKSPACE = "bench"
READ_SESSION = "reads"
WRITE_SESSION = "writes"
PEERS = ("alice", "deerflow")
BATCH_LIMIT = 100
READ_MESSAGES = 1_000
SCOPE = "reads"
"""The scope that holds the read session, where the target serves scopes (3.1 on)."""


class BenchmarkRequestError(RuntimeError):
    """The fake refused a benchmark request: the figures would be meaningless."""


def check(response: httpx.Response) -> httpx.Response:
    if response.status_code >= 300:
        raise BenchmarkRequestError(
            f"{response.request.method} {response.request.url.path} -> "
            f"{response.status_code}: {response.text[:300]}"
        )
    return response


@dataclass(frozen=True)
class Operation:
    """One request shape: ``body()`` hands out the next pre-built body (or None)."""

    name: str
    method: str
    path: str
    body: Callable[[], Any]
    params: dict[str, str] | None = None


def _cycle(items: Iterable[Any]) -> Callable[[], Any]:
    return itertools.cycle(list(items)).__next__


def _batches(text: TextGenerator, size: int) -> list[dict[str, Any]]:
    return [
        {
            "messages": [
                {"peer_id": PEERS[i % 2], "content": text.message(i), "metadata": {"turn": i}}
                for i in range(size)
            ]
        }
        for _ in range(40)
    ]


def operations(
    text: TextGenerator, workspace: str = WORKSPACE, *, scoped: bool = False
) -> list[Operation]:
    """The requests an agent turn makes: get-or-create, reads, a search and two writes.

    Ordered so the read-only operations run before the writes grow the store, and the
    10-message batch (the costliest write) comes last. ``scoped`` adds the scoped reads
    (for a target that serves scopes; see :func:`seed_read_workspace`).
    """
    ws = f"/v3/workspaces/{workspace}"
    return [
        *_unscoped_reads(text, ws),
        *(_scoped_reads(text, ws) if scoped else ()),
        *_writes(text, ws),
    ]


def _unscoped_reads(text: TextGenerator, ws: str) -> list[Operation]:
    return [
        Operation(
            "get-or-create peer",
            "POST",
            f"{ws}/peers",
            _cycle({"id": f"peer-{i}"} for i in range(50)),
        ),
        Operation("get peer card", "GET", f"{ws}/peers/{PEERS[0]}/card", lambda: None),
        Operation("peer representation", "POST", f"{ws}/peers/{PEERS[0]}/representation", dict),
        Operation(
            "search (workspace)",
            "POST",
            f"{ws}/search",
            _cycle({"query": text.query(), "limit": 10} for _ in range(200)),
        ),
        Operation(
            "page of 50 messages",
            "POST",
            f"{ws}/sessions/{READ_SESSION}/messages/list",
            lambda: None,
            {"page": "2", "size": "50"},
        ),
    ]


def _scoped_reads(text: TextGenerator, ws: str) -> list[Operation]:
    """Reads confined to :data:`SCOPE` (Honcho 3.1 on)."""
    return [
        Operation(
            "search (scope)",
            "POST",
            f"{ws}/search",
            _cycle({"query": text.query(), "limit": 10, "scope": SCOPE} for _ in range(200)),
        ),
        Operation(
            "peer representation (scope)",
            "POST",
            f"{ws}/peers/{PEERS[0]}/representation",
            lambda: {"scope": SCOPE},
        ),
    ]


def _writes(text: TextGenerator, ws: str) -> list[Operation]:
    return [
        Operation(
            "write 1 message",
            "POST",
            f"{ws}/sessions/{WRITE_SESSION}/messages",
            _cycle(_batches(text, 1)),
        ),
        Operation(
            "10-message batch",
            "POST",
            f"{ws}/sessions/{WRITE_SESSION}/messages",
            _cycle(_batches(text, 10)),
        ),
    ]


def sync_call(client: httpx.Client, op: Operation) -> Callable[[], object]:
    def call() -> object:
        return check(client.request(op.method, op.path, json=op.body(), params=op.params))

    return call


def async_call(client: httpx.AsyncClient, op: Operation) -> Callable[[], Any]:
    async def call() -> object:
        return check(await client.request(op.method, op.path, json=op.body(), params=op.params))

    return call


def conversation_sessions(index: int) -> str:
    """Spread seeded messages over sessions of 1,000 messages, like long conversations."""
    return f"s{index // 1_000}"


def message_batches(
    contents: Iterable[str],
    session_for: Callable[[int], str] = conversation_sessions,
    start: int = 0,
) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(session_id, body)`` pairs of up to 100 messages, alternating user and assistant.

    ``start`` is the index of the first content in the whole conversation, so a store
    can be filled in several steps.
    """
    batch: list[dict[str, Any]] = []
    session = ""
    for index, content in enumerate(contents, start):
        current = session_for(index)
        if batch and (current != session or len(batch) == BATCH_LIMIT):
            yield session, {"messages": batch}
            batch = []
        session = current
        batch.append({"peer_id": PEERS[index % 2], "content": content})
    if batch:
        yield session, {"messages": batch}


def seed_messages(
    client: httpx.Client,
    workspace: str,
    contents: Iterable[str],
    session_for: Callable[[int], str] = conversation_sessions,
    start: int = 0,
) -> int:
    """Store ``contents`` through the messages route; returns how many were stored."""
    stored = 0
    for session, body in message_batches(contents, session_for, start):
        path = f"/v3/workspaces/{workspace}/sessions/{session}/messages"
        stored += len(check(client.post(path, json=body)).json())
    return stored


def seed_read_workspace(
    client: httpx.Client, text: TextGenerator, workspace: str = WORKSPACE
) -> bool:
    """The data the read operations hit: one session of ``READ_MESSAGES`` messages, and
    where the target serves scopes, :data:`SCOPE` holding it. Returns whether it does."""
    contents = (text.message(i) for i in range(READ_MESSAGES))
    seed_messages(client, workspace, contents, lambda _index: READ_SESSION)
    scopes = f"/v3/workspaces/{workspace}/scopes"
    created = client.post(scopes, json={"id": SCOPE})
    if created.status_code == 404:  # a version without scopes (3.0.12)
        return False
    check(created)
    check(client.post(f"{scopes}/{SCOPE}/sessions", json={"session_ids": [READ_SESSION]}))
    return True


def new_fake(**options: Any) -> Any:
    """A seeded ``FakeHoncho``; imported late so ``--help`` works without the fake."""
    from fake_honcho import FakeHoncho

    return FakeHoncho(**{"seed": 1, "deriver": "manual", **options})


def transport_client(fake: Any) -> httpx.Client:
    return httpx.Client(transport=fake.transport(), base_url=BASE_URL)
