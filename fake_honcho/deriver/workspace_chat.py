"""Workspace chat without an LLM: the toy dialectic over the workspace's most active peers.

Honcho 3.1's workspace agent (pull request 931) is shown the workspace's most active
peers (by their latest message within 90 days, then by name; five of them) and searches
each one's own representation. The toy answer does the same with the peer chat's
rules (:func:`fake_honcho.deriver.chat.answer`): one sentence per listed peer that has
conclusions about itself, in the order listed, so the stand-in LLM, which sees that list
and those searches, answers a real 3.1 alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from fake_honcho.deriver import chat
from fake_honcho.grouping import WORKSPACE_PEERS, grouped
from fake_honcho.message_index import message_index
from fake_honcho.state import Row, Store

ACTIVE_PEERS = 5
"""How many active peers the workspace agent is shown."""
ACTIVITY_WINDOW = timedelta(days=90)
NOTHING_KNOWN = "I don't know anything in this workspace that answers this question."


def active_peers(store: Store, workspace_id: str, now: datetime) -> list[str]:
    """The workspace's most active peers: latest message in the window first, then by name."""
    index = message_index(store)
    since = now - ACTIVITY_WINDOW
    latest: list[tuple[int, str, str]] = []  # (no activity?, minus time ordering, name)
    for peer_id in grouped(store, WORKSPACE_PEERS, workspace_id):
        written = index.peer_ids(workspace_id, peer_id)
        last = _latest_in_window(store, written, since)
        latest.append((last is None, "" if last is None else last, peer_id))
    active = sorted((entry for entry in latest if not entry[0]), key=lambda e: e[2])
    active.sort(key=lambda entry: entry[1], reverse=True)
    idle = sorted(entry for entry in latest if entry[0])
    return [name for _, _, name in [*active, *idle]][:ACTIVE_PEERS]


def _latest_in_window(store: Store, message_ids: Sequence[str], since: datetime) -> str | None:
    if not message_ids:
        return None
    row = store.get("messages", message_ids[-1])
    if row is None or datetime.fromisoformat(row["created_at"]) < since:
        return None
    return str(row["created_at"])


def answer(
    query: str, peers: Sequence[tuple[str, Sequence[Row]]], reasoning_level: str
) -> tuple[str, list[Row]]:
    """The answer over ``(peer, its conclusions about itself)`` pairs, and the rows used."""
    sentences: list[str] = []
    used: list[Row] = []
    for peer_id, rows in peers:
        if not rows:
            continue
        text, chosen = chat.answer(query, peer_id, rows, [], reasoning_level)
        sentences.append(text)
        used.extend(chosen)
    return (" ".join(sentences) or NOTHING_KNOWN), used


def check_response_format(schema: Any) -> None:
    """The root rule Honcho checks before any LLM call; ``ValueError`` with its text."""
    root = {key: value for key, value in schema.items() if key != "$schema"}
    kind = root.get("type")
    if kind == "object" or (kind is None and ("properties" in root or "$ref" in root)):
        return
    raise ValueError("root schema must have type 'object'")
