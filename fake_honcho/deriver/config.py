"""Honcho's configuration hierarchy for deriver features: message > session > workspace > default.

Only the keys the toy deriver acts on are resolved here. The legacy key ``deriver``
is read as ``reasoning``, as the real server migrates it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fake_honcho.state import Row, Store

SHORT_SUMMARY_EVERY = 20
LONG_SUMMARY_EVERY = 60


@dataclass(frozen=True)
class Resolved:
    """The effective settings for one message (or one session when no message applies)."""

    reasoning: bool = True
    summary: bool = True
    short_every: int = SHORT_SUMMARY_EVERY
    long_every: int = LONG_SUMMARY_EVERY
    card_create: bool = True


def resolve(
    store: Store, workspace_id: str, session_id: str | None, message_configuration: Any = None
) -> Resolved:
    """Walk the hierarchy for each setting; the most specific non-null value wins."""
    workspace = store.get("workspaces", workspace_id) or {}
    session = store.get("sessions", (workspace_id, session_id)) if session_id else None
    levels = [
        _as_dict(message_configuration),
        _as_dict((session or {}).get("configuration")),
        _as_dict(workspace.get("configuration")),
    ]
    return Resolved(
        reasoning=_pick(levels, "reasoning", "enabled", True),
        summary=_pick(levels, "summary", "enabled", True),
        short_every=_pick(levels, "summary", "messages_per_short_summary", SHORT_SUMMARY_EVERY),
        long_every=_pick(levels, "summary", "messages_per_long_summary", LONG_SUMMARY_EVERY),
        card_create=_pick(levels, "peer_card", "create", True),
    )


def observe_me(store: Store, workspace_id: str, session_id: str, peer_id: str) -> bool:
    """A sender's effective ``observe_me``: session peer config, peer configuration, true."""
    member = store.get("session_peers", (workspace_id, session_id, peer_id))
    if member is not None and member.get("observe_me") is not None:
        return bool(member["observe_me"])
    peer = store.get("peers", (workspace_id, peer_id)) or {}
    value = _as_dict(peer.get("configuration")).get("observe_me")
    return True if value is None else bool(value)


def _as_dict(value: Any) -> Row:
    return value if isinstance(value, dict) else {}


def _pick(levels: list[Row], section: str, key: str, default: Any) -> Any:
    for level in levels:
        block = level.get(section)
        if section == "reasoning" and block is None:
            block = level.get("deriver")
        if isinstance(block, dict) and block.get(key) is not None:
            return block[key]
    return default
