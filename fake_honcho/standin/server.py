"""``StandIn``: the stand-in LLM's request log, app and servers (thread or foreground)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fake_honcho.http.server import serve_in_thread
from fake_honcho.search.embedding import Embedder, VectorFunction
from fake_honcho.search.embedding import resolve as resolve_embedder
from fake_honcho.standin.app import build_app
from fake_honcho.standin.log import LOG_LIMIT, RequestLog

__all__ = ["LOG_LIMIT", "StandIn"]


class StandIn(RequestLog):
    """A deterministic, offline OpenAI-compatible LLM for Honcho (see ``fake_honcho.standin``).

    ``requests`` lists what it was asked (:class:`~fake_honcho.standin.log.RequestLog`);
    ``log_file`` also appends each entry as one JSON line. ``embedder`` (default:
    :class:`fake_honcho.search.embedding.HashedEmbedder`, the fake's own) gives the vectors
    ``/v1/embeddings`` answers.
    """

    def __init__(
        self,
        *,
        log_file: str | Path | None = None,
        log_limit: int = LOG_LIMIT,
        embedder: Embedder | VectorFunction | str | None = None,
    ) -> None:
        super().__init__(log_file=log_file, log_limit=log_limit)
        self.embedder = resolve_embedder(embedder)
        self.app = build_app(self, self.embedder)

    @contextmanager
    def serve(self, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
        """Serve on ``host:port`` in a thread; yield the base URL Honcho needs (``.../v1``)."""
        with serve_in_thread(self.app, host, port) as url:
            yield f"{url}/v1"
