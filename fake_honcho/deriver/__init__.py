"""The toy deriver (placeholder interface; the deriver issue fills it in)."""

from __future__ import annotations

from typing import Any, Literal

from fake_honcho.state import Row, Store

DeriverMode = Literal["immediate", "manual", "background"]


class Deriver:
    """Turns stored messages into conclusions, cards and summaries."""

    def __init__(self, store: Store, mode: DeriverMode = "immediate", **options: Any) -> None:
        self.store = store
        self.mode = mode

    def on_messages_created(self, workspace_id: str, session_id: str, messages: list[Row]) -> None:
        """Called by the messages route, under the store lock, after the rows are stored."""

    def run_until_idle(self) -> None:
        """Settle every queued work unit."""

    def close(self) -> None:
        """Stop background work, if any."""
