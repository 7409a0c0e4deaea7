"""Deriver settings: Honcho's configuration hierarchy (message > session > workspace >
default) for the keys the toy deriver acts on, and the server's batching gate.

The legacy key ``deriver`` is read as ``reasoning``, as the real server migrates it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from fake_honcho.store.state import Row, Store

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
    workspace = store.get("workspaces", workspace_id)
    session = store.get("sessions", (workspace_id, session_id)) if session_id else None
    if message_configuration is not None:
        return _resolve(message_configuration, session, workspace)
    # Stored rows are replaced, never changed: the same two rows resolve the same way.
    key = (id(workspace), id(session))
    known = _SETTLED.get(key)
    if known is not None and known[0] is workspace and known[1] is session:
        return known[2]
    if len(_SETTLED) >= SETTLED_LIMIT:
        _SETTLED.clear()
    resolved = _resolve(None, session, workspace)
    _SETTLED[key] = (workspace, session, resolved)
    return resolved


SETTLED_LIMIT = 1024
"""Session-level settings kept (each entry holds its two rows, so their ids stay theirs)."""
_SETTLED: dict[tuple[int, int], tuple[Row | None, Row | None, Resolved]] = {}


def _resolve(message_configuration: Any, session: Row | None, workspace: Row | None) -> Resolved:
    levels = [
        _as_dict(message_configuration),
        _as_dict((session or {}).get("configuration")),
        _as_dict((workspace or {}).get("configuration")),
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


#: Honcho's batching settings (``src/config.py``, ``DeriverSettings``) and their real defaults.
TARGET_TOKENS_ENV = "DERIVER_REPRESENTATION_BATCH_WORK_UNIT_TARGET_TOKENS"
MAX_AGE_ENV = "DERIVER_REPRESENTATION_BATCH_MAX_AGE_SECONDS"
FLUSH_ENV = "DERIVER_FLUSH_ENABLED"
_TRUE = frozenset({"1", "true", "t", "yes", "y", "on"})
_FALSE = frozenset({"0", "false", "f", "no", "n", "off"})


@dataclass(frozen=True)
class BatchGate:
    """When the real deriver may claim a session's representation work.

    A representation work unit (one session and sender) is held until the messages
    of its unprocessed items hold ``target_tokens`` tokens, or its oldest item is
    ``max_age_seconds`` old; ``flush`` (or ``target_tokens=0``) claims everything at
    once, and ``max_age_seconds=0`` turns age-flushing off. Summaries and dreams are
    never held. Defaults are the real server's.
    """

    target_tokens: int = 512
    max_age_seconds: int = 1800
    flush: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.target_tokens <= 16_384:
            raise ValueError(f"{TARGET_TOKENS_ENV} must be 0..16384, not {self.target_tokens}")
        if self.max_age_seconds < 0:
            raise ValueError(f"{MAX_AGE_ENV} must be >= 0, not {self.max_age_seconds}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> BatchGate:
        """The gate the real server's environment variables describe (unset: the default)."""
        defaults = cls()
        return cls(
            target_tokens=_env_int(environ, TARGET_TOKENS_ENV, defaults.target_tokens),
            max_age_seconds=_env_int(environ, MAX_AGE_ENV, defaults.max_age_seconds),
            flush=_env_bool(environ, FLUSH_ENV, defaults.flush),
        )

    def holds(self, tokens: int, oldest: datetime, now: datetime) -> bool:
        """Whether representation work of ``tokens`` tokens, oldest item ``oldest``, waits."""
        if self.flush or self.target_tokens == 0 or tokens >= self.target_tokens:
            return False
        max_age = timedelta(seconds=self.max_age_seconds)
        return not (self.max_age_seconds and now - oldest >= max_age)


def _env_int(environ: Mapping[str, str], key: str, default: int) -> int:
    raw = environ.get(key)
    if raw is None:
        return default
    try:
        return int(raw.strip())
    except ValueError:
        raise ValueError(f"{key} must be an integer, not {raw!r}") from None


def _env_bool(environ: Mapping[str, str], key: str, default: bool) -> bool:
    raw = environ.get(key)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE or value in _FALSE:
        return value in _TRUE
    raise ValueError(f"{key} must be a boolean (true/false), not {raw!r}")
