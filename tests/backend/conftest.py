"""A scriptable Honcho stand-in on ``httpx.MockTransport`` for the backend's unit tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from honcho_backend import HonchoMemoryManager

BASE_URL = "http://honcho.test"

Failure = httpx.Response | Exception


@dataclass
class Seen:
    method: str
    path: str
    body: Any
    headers: httpx.Headers
    params: dict[str, str]
    size: int
    thread: int


@dataclass
class MockHoncho:
    """Answers the routes the backend uses and records every request it sees."""

    representation: str = "ajayr likes concise answers"
    search_results: list[Any] = field(default_factory=list)
    requests: list[Seen] = field(default_factory=list)
    sessions: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    failures: dict[str, list[Failure]] = field(default_factory=dict)
    stored: list[dict[str, Any]] = field(default_factory=list)
    _counter: int = 0

    def fail(self, route: str, *outcomes: Failure) -> None:
        """Answer the next calls of ``route`` with these responses or exceptions."""
        self.failures.setdefault(route, []).extend(outcomes)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def routes(self) -> list[str]:
        return [route_of(seen.method, seen.path) for seen in self.requests]

    def posted(self) -> list[dict[str, Any]]:
        """Every message stored, in order."""
        return list(self.stored)

    def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        path = request.url.raw_path.decode().split("?")[0]
        self.requests.append(
            Seen(
                request.method,
                path,
                body,
                request.headers,
                dict(request.url.params),
                len(request.content),
                threading.get_ident(),
            )
        )
        route = route_of(request.method, path)
        queued = self.failures.get(route)
        if queued:
            outcome = queued.pop(0)
            if isinstance(outcome, Exception):
                raise outcome
            return outcome
        parts = path.split("/")
        if route == "health":
            return httpx.Response(200, json={"status": "ok"})
        if route in ("workspace", "session"):
            return httpx.Response(201, json={"id": body["id"]})
        if route == "messages":
            stored = self.sessions.setdefault((parts[3], parts[5]), [])
            created = []
            for message in body["messages"]:
                self._counter += 1
                row = {
                    "id": f"m{self._counter}",
                    "session_id": parts[5],
                    "workspace_id": parts[3],
                    "created_at": "2026-01-01T00:00:00Z",
                    "metadata": message.get("metadata", {}),
                    **{k: message[k] for k in ("peer_id", "content")},
                }
                stored.append(row)
                created.append(row)
                self.stored.append(row)
            return httpx.Response(201, json=created)
        if route == "list":
            stored = list(reversed(self.sessions.get((parts[3], parts[5]), [])))
            size = int(request.url.params.get("size", "50"))
            items = stored[:size]
            return httpx.Response(
                200, json={"items": items, "total": len(stored), "page": 1, "size": size}
            )
        if route == "representation":
            return httpx.Response(200, json={"representation": self.representation})
        if route == "search":
            return httpx.Response(200, json=self.search_results)
        return httpx.Response(404, json={"detail": "Not Found"})


def route_of(method: str, path: str) -> str:
    parts = path.strip("/").split("/")
    if path == "/health":
        return "health"
    if parts == ["v3", "workspaces"]:
        return "workspace"
    tail = parts[3:]
    names = {
        ("sessions",): "session",
        ("sessions", "*", "messages"): "messages",
        ("sessions", "*", "messages", "list"): "list",
        ("sessions", "*", "peers"): "session_peers",
        ("peers",): "peer",
        ("peers", "*", "representation"): "representation",
        ("search",): "search",
    }
    shape = tuple("*" if i == 1 else part for i, part in enumerate(tail))
    return names.get(shape, f"{method} {path}")


def msg(kind: str, content: Any, *, id: str | None = None, **extra: Any) -> SimpleNamespace:
    """A LangChain-like message: ``type``, ``content``, ``id`` and extras."""
    extra.setdefault("additional_kwargs", {})
    return SimpleNamespace(type=kind, content=content, id=id, **extra)


@pytest.fixture
def honcho() -> MockHoncho:
    return MockHoncho()


ManagerFactory = Callable[..., HonchoMemoryManager]


@pytest.fixture
def make_manager(honcho: MockHoncho) -> Iterator[ManagerFactory]:
    made: list[HonchoMemoryManager] = []

    def factory(hooks: dict[str, Any] | None = None, **cfg: Any) -> HonchoMemoryManager:
        manager = HonchoMemoryManager.from_config(
            {"base_url": BASE_URL, **cfg}, transport=honcho.transport(), **(hooks or {})
        )
        made.append(manager)
        return manager

    yield factory
    for manager in made:
        manager.close()
