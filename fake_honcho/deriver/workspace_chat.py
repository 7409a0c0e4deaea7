"""Workspace chat without an LLM: the toy dialectic over the workspace's most active peers.

Honcho 3.1's workspace agent (pull request 931) is shown the workspace's most active
peers (by their latest message within 90 days, then by name; five of them) and searches
each one's own representation (under a ``scope``, only peers who spoke in its sessions,
and only explicit conclusions stated there). The toy answer does the same with the peer chat's
rules (:func:`fake_honcho.deriver.chat.answer`): one sentence per listed peer that has
conclusions about itself, in the order listed, so the stand-in LLM, which sees that list
and those searches, answers a real 3.1 alike.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

from fake_honcho.deriver import chat
from fake_honcho.store.grouping import WORKSPACE_PEERS, grouped
from fake_honcho.store.message_index import message_index
from fake_honcho.store.resources import is_scope
from fake_honcho.store.state import Row, Store

ACTIVE_PEERS = 5
"""How many active peers the workspace agent is shown."""
ACTIVITY_WINDOW = timedelta(days=90)
NOTHING_KNOWN = "I don't know anything in this workspace that answers this question."


def active_peers(
    store: Store, workspace_id: str, now: datetime, sessions: Collection[str] | None = None
) -> list[str]:
    """The workspace's most active peers: latest message in the window first, then by name
    (scope peers never; with ``sessions``, only peers who wrote in them within the window)."""
    index = message_index(store)
    since = now - ACTIVITY_WINDOW
    active: list[tuple[str, str]] = []
    idle: list[str] = []
    for peer_id, row in grouped(store, WORKSPACE_PEERS, workspace_id).items():
        if is_scope(row):
            continue
        written = [
            message
            for message in index.rows(index.peer_ids(workspace_id, peer_id))
            if sessions is None or message["session_id"] in sessions
        ]
        last = written[-1]["created_at"] if written else None
        if last is not None and datetime.fromisoformat(last) >= since:
            active.append((last, peer_id))
        elif sessions is None:  # under a scope only peers active in it are listed
            idle.append(peer_id)
    active.sort(key=lambda entry: entry[1])
    active.sort(key=lambda entry: entry[0], reverse=True)
    return [name for _, name in active][:ACTIVE_PEERS] + sorted(idle)[
        : max(0, ACTIVE_PEERS - len(active))
    ]


def recalled(rows: Sequence[Row], sessions: Collection[str] | None) -> list[Row]:
    """What a peer's memory search may return: under a scope, explicit conclusions stated
    in its sessions only (an empty scope recalls nothing)."""
    if sessions is None:
        return list(rows)
    return [row for row in rows if row.get("session_id") in sessions and row["level"] == "explicit"]


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
