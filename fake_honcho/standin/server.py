"""``StandIn``: the stand-in LLM's request log, app and servers (thread or foreground)."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from fake_honcho.http.server import serve_in_thread
from fake_honcho.search.embedding import Embedder, VectorFunction
from fake_honcho.search.embedding import resolve as resolve_embedder
from fake_honcho.standin.app import build_app
from fake_honcho.standin.replies import ToolCall

LOG_LIMIT = 10_000  # a long-running stand-in keeps only its recent requests


class StandIn:
    """A deterministic, offline OpenAI-compatible LLM for Honcho (see ``fake_honcho.standin``).

    ``requests`` lists what it was asked, oldest first: ``{n, path, task, body, reply}``
    (``reply``: the text or tool calls it answered). ``log_file`` also appends each entry
    as one JSON line. ``embedder`` (default: :class:`fake_honcho.search.embedding.HashedEmbedder`,
    the fake's own) gives the vectors ``/v1/embeddings`` answers.
    """

    def __init__(
        self,
        *,
        log_file: str | Path | None = None,
        log_limit: int = LOG_LIMIT,
        embedder: Embedder | VectorFunction | str | None = None,
    ) -> None:
        self.embedder = resolve_embedder(embedder)
        self._lock = threading.Lock()
        self._entries: deque[dict[str, Any]] = deque(maxlen=log_limit)
        self._count = 0
        self._log_file: TextIO | None = (
            open(log_file, "a", encoding="utf-8") if log_file is not None else None  # noqa: SIM115
        )
        self.app = build_app(self)

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._entries)

    def log(
        self,
        path: str,
        body: dict[str, Any],
        task: str,
        content: str | None = None,
        tool_calls: Sequence[ToolCall] = (),
    ) -> int:
        """Record one request and return its number (1 for the first)."""
        with self._lock:
            self._count += 1
            answered: Any = content
            if tool_calls:
                answered = [{"name": c.name, "arguments": c.arguments} for c in tool_calls]
            entry = {"n": self._count, "path": path, "task": task, "body": body, "reply": answered}
            self._entries.append(entry)
            if self._log_file is not None:
                self._log_file.write(json.dumps(entry) + "\n")
                self._log_file.flush()
            return self._count

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def close(self) -> None:
        with self._lock:
            if self._log_file is not None:
                self._log_file.close()
                self._log_file = None

    @contextmanager
    def serve(self, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
        """Serve on ``host:port`` in a thread; yield the base URL Honcho needs (``.../v1``)."""
        with serve_in_thread(self.app, host, port) as url:
            yield f"{url}/v1"
