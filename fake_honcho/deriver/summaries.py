"""Session summaries: deterministic and extractive instead of LLM-written.

A short summary is written when a session's message count reaches a multiple of the
short cadence (20), a long one at multiples of the long cadence (60). Each covers
the messages up to and including the one that triggered it: the short summary
quotes the opening words of each of the last ``short_every`` messages, the long
one more words of each of the last ``long_every``. Stored per session in the
``summaries`` collection, as Honcho keeps them in the session's internal metadata.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from fake_honcho.store.state import Row, Store
from fake_honcho.store.tokens import token_count

COLLECTION = "summaries"
SHORT_WORDS = 12
LONG_WORDS = 30

SummaryType = Literal["short", "long"]
#: Honcho's ``SummaryType`` values are ``honcho_chat_summary_short`` / ``_long``.
LABEL_PREFIX = "honcho_chat_summary_"


def summary_key(workspace_id: str, session_id: str, summary_type: SummaryType) -> tuple[str, ...]:
    return (workspace_id, session_id, summary_type)


def write(messages: Sequence[Row], summary_type: SummaryType, created_at: str) -> Row:
    """The summary row covering ``messages`` (oldest first, ending at the trigger).

    ``created_at`` is whole seconds (Honcho's ``utc_now_iso`` drops sub-seconds).
    """
    last = messages[-1]
    content = text(((message["peer_id"], message["content"]) for message in messages), summary_type)
    return {
        "content": content,
        "message_id": last["id"],
        "summary_type": f"{LABEL_PREFIX}{summary_type}",
        "created_at": created_at,
        "token_count": token_count(content),
        "_seq_in_session": last["_seq_in_session"],
    }


def text(turns: Iterable[tuple[str, str]], summary_type: SummaryType) -> str:
    """The summary of ``(peer, content)`` turns: each turn's opening words, one per line."""
    words = SHORT_WORDS if summary_type == "short" else LONG_WORDS
    return "\n".join(f"{peer}: {_opening(content, words)}" for peer, content in turns)


def read(store: Store, workspace_id: str, session_id: str, summary_type: SummaryType) -> Row | None:
    return store.get(COLLECTION, summary_key(workspace_id, session_id, summary_type))


def public(row: Row | None) -> Row | None:
    """The wire ``Summary``."""
    if row is None:
        return None
    return {
        field: row[field]
        for field in ("content", "message_id", "summary_type", "created_at", "token_count")
    }


def _opening(content: str, words: int) -> str:
    parts = content.split(None, words)  # the rest, if any, stays in one last part
    text = " ".join(parts[:words])
    return text + " ..." if len(parts) > words else text
