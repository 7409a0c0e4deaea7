"""The stand-in's request log: what it was asked, oldest first, and optionally a JSON-lines file."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from fake_honcho.standin.replies import ToolCall

LOG_LIMIT = 10_000  # a long-running stand-in keeps only its recent requests


class RequestLog:
    """``requests``: ``{n, path, task, body, reply}`` entries (``reply``: the text or tool
    calls answered); ``log_file`` also appends each entry as one JSON line."""

    def __init__(self, *, log_file: str | Path | None = None, log_limit: int = LOG_LIMIT) -> None:
        self._lock = threading.Lock()
        self._entries: deque[dict[str, Any]] = deque(maxlen=log_limit)
        self._count = 0
        self._log_file: TextIO | None = (
            open(log_file, "a", encoding="utf-8") if log_file is not None else None  # noqa: SIM115
        )

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
