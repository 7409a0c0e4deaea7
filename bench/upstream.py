"""A stand-in for DeerFlow's upstream Honcho backend, written here as the wire-cost baseline.

It reproduces the upstream write path as documented (DeerFlow ``f1f4af99``,
``memory/backends/honcho``): on every ``add`` it converts the *whole* history it is
handed (human and AI text kept, everything else dropped, no hidden-message filter, no
watermark) and sends five requests: get-or-create the user peer, the assistant peer,
the session, add both peers to the session, then every message in a single batch.
Failures are logged and swallowed, as upstream does.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Sequence
from typing import Any

import httpx

logger = logging.getLogger("bench.upstream")

ASSISTANT_PEER = "deerflow"
WORKSPACE_PREFIX = "deerflow-u-"
MESSAGE_CHAR_LIMIT = 8000


def _sanitize(raw: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]+", "-", raw).strip("-")[:64]


def stable_id(raw: str) -> str:
    """Readable prefix plus 8 hex digits of SHA-256, as upstream derives ids."""
    digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()[:8]
    readable = _sanitize(raw)[:48].rstrip("-")
    return f"{readable}-{digest}" if readable else digest


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [b if isinstance(b, str) else b.get("text", "") for b in content]
        return "\n".join(p for p in parts if isinstance(p, str)).strip()
    return ""


class UpstreamHonchoBackend:
    """The upstream five-call, full-history ``add``; nothing else is needed here."""

    def __init__(self, client: httpx.Client) -> None:
        self._client = client

    def add(self, thread_id: str, messages: Sequence[Any], *, user_id: str) -> None:
        user_peer = stable_id(user_id)
        workspace = WORKSPACE_PREFIX + user_peer
        outgoing = []
        for message in messages:
            kind = getattr(message, "type", None)
            text = _text(getattr(message, "content", ""))
            if not text:
                continue
            if kind == "human":
                outgoing.append({"peer_id": user_peer, "content": text[:MESSAGE_CHAR_LIMIT]})
            elif kind in ("ai", "AIMessageChunk"):
                outgoing.append({"peer_id": ASSISTANT_PEER, "content": text[:MESSAGE_CHAR_LIMIT]})
        if not outgoing:
            return
        session = "df-" + stable_id(thread_id)
        ws = f"/v3/workspaces/{workspace}"
        try:
            self._post(f"{ws}/peers", {"id": user_peer})
            self._post(f"{ws}/peers", {"id": ASSISTANT_PEER})
            self._post(f"{ws}/sessions", {"id": session})
            self._post(f"{ws}/sessions/{session}/peers", {user_peer: {}, ASSISTANT_PEER: {}})
            self._post(f"{ws}/sessions/{session}/messages", {"messages": outgoing})
        except httpx.HTTPError as exc:
            logger.warning("honcho add failed: %s", exc)

    def _post(self, path: str, body: object) -> None:
        self._client.post(path, json=body).raise_for_status()
