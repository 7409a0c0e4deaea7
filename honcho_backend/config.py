"""Configuration and identity derivation for the Honcho backend.

Parsing fails fast: every problem is a ``ValueError`` that names the offending
key. The api key never appears in a repr or an error message.

The id derivation is byte-for-byte the one DeerFlow's own Honcho backend uses,
so data that backend already wrote is found again.
"""

from __future__ import annotations

import difflib
import hashlib
import logging
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "HONCHO_ID_MAX_LENGTH",
    "HONCHO_MAX_MESSAGE_CHARS",
    "HonchoConfig",
    "sanitize_id",
    "session_id_for",
    "stable_id",
]

logger = logging.getLogger("honcho_backend")

HONCHO_ID_MAX_LENGTH = 512
"""Honcho's limit on workspace, peer and session ids."""

HONCHO_MAX_MESSAGE_CHARS = 25_000
"""Honcho refuses message content longer than this (422)."""

_ID_GRAMMAR = re.compile(r"^[a-zA-Z0-9_-]+$")
_UNSAFE_RUN = re.compile(r"[^a-zA-Z0-9_-]+")
_SANITIZED_MAX = 64
_READABLE_MAX = 48
_DIGEST_CHARS = 8
# Longest stable id: 48 readable characters, a dash and 8 hex digits.
_STABLE_ID_MAX = _READABLE_MAX + 1 + _DIGEST_CHARS
_SESSION_PREFIX = "df-"

_KNOWN_KEYS = frozenset(
    {
        "base_url",
        "api_key",
        "api_key_env",
        "workspace_prefix",
        "workspace_overrides",
        "user_peer_overrides",
        "assistant_peer",
        "timeout_seconds",
        "connect_timeout_seconds",
        "message_char_limit",
        "max_injection_chars",
        "allow_insecure_http",
        "failure_policy",
        "storage_path",
        "thread_cache_size",
    }
)
_POLICY_KEYS = frozenset({"read"})
DEFAULT_BASE_URL = "http://localhost:8000"  # DeerFlow's own backend's default
_READ_POLICIES = ("fail_open", "fail_closed")


def sanitize_id(raw: Any) -> str:
    """Collapse each run of characters outside ``[a-zA-Z0-9_-]`` into ``-``; at most 64 chars."""
    return _UNSAFE_RUN.sub("-", str(raw)).strip("-")[:_SANITIZED_MAX]


def stable_id(raw: Any) -> str:
    """A readable, collision-resistant Honcho id for an arbitrary host id.

    ``sanitize_id`` alone maps ``a.b`` and ``a-b`` to the same id, so the first
    8 hex digits of the SHA-256 of the raw id are appended.
    """
    text = str(raw)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:_DIGEST_CHARS]
    readable = sanitize_id(text)[:_READABLE_MAX].rstrip("-")
    return f"{readable}-{digest}" if readable else digest


def session_id_for(thread_id: Any) -> str:
    """The Honcho session id of a DeerFlow thread."""
    return _SESSION_PREFIX + stable_id(thread_id)


@dataclass(frozen=True)
class HonchoConfig:
    """Validated settings of one backend instance (see ``from_backend_config``)."""

    base_url: str = DEFAULT_BASE_URL
    api_key: str | None = field(default=None, repr=False)
    workspace_prefix: str = "deerflow-u-"
    workspace_overrides: dict[str, str] = field(default_factory=dict)
    user_peer_overrides: dict[str, str] = field(default_factory=dict)
    assistant_peer: str = "deerflow"
    timeout_seconds: float = 10.0
    connect_timeout_seconds: float = 3.0
    message_char_limit: int = 8000
    max_injection_chars: int = 6000
    allow_insecure_http: bool = False
    read_fail_closed: bool = False
    storage_path: str = ""
    thread_cache_size: int = 1024
    base_url_key: str = field(default="", compare=False)
    """Where ``base_url`` came from, for messages: ``"base_url"`` (the config key), or
    ``""`` when it is the default (``from_backend_config`` without the key)."""

    def __post_init__(self) -> None:
        if not self.base_url_key and self.base_url != DEFAULT_BASE_URL:
            object.__setattr__(self, "base_url_key", "base_url")
        base_url = self.base_url.rstrip("/")
        if not re.match(r"^https?://[^/\s]+", base_url):
            raise ValueError(
                "Honcho backend: base_url must be an http:// or https:// URL with a host"
            )
        _check_base_url_path(base_url)
        object.__setattr__(self, "base_url", base_url)
        if self.api_key is not None and (
            not self.api_key or any(ch.isspace() or not ch.isprintable() for ch in self.api_key)
        ):
            raise ValueError(
                "Honcho backend: api_key must be non-empty and contain no whitespace "
                "or control characters"
            )
        if self.api_key and base_url.startswith("http://") and not self.allow_insecure_http:
            raise ValueError(
                "Honcho backend: refusing to send api_key over plain http; use https "
                "or set allow_insecure_http: true"
            )
        for key in ("timeout_seconds", "connect_timeout_seconds"):
            value = getattr(self, key)
            if not math.isfinite(value) or value <= 0:
                raise ValueError(f"Honcho backend: {key} must be a finite number > 0")
        for key in ("message_char_limit", "max_injection_chars", "thread_cache_size"):
            if getattr(self, key) <= 0:
                raise ValueError(f"Honcho backend: {key} must be > 0")
        # A derived workspace id is prefix + stable id; keep it inside Honcho's grammar.
        prefix_max = HONCHO_ID_MAX_LENGTH - _STABLE_ID_MAX
        if self.workspace_prefix and not _ID_GRAMMAR.match(self.workspace_prefix):
            raise ValueError(
                "Honcho backend: workspace_prefix may only contain letters, digits, '_' and '-'"
            )
        if len(self.workspace_prefix) > prefix_max:
            raise ValueError(
                f"Honcho backend: workspace_prefix must be at most {prefix_max} characters"
            )
        _check_honcho_id("assistant_peer", self.assistant_peer)
        for map_key in ("workspace_overrides", "user_peer_overrides"):
            for user, value in getattr(self, map_key).items():
                _check_honcho_id(f"{map_key}[{user!r}]", value)

    @property
    def server(self) -> str:
        """The server as messages name it: scheme, host and port (never a user or
        password), and where it came from (the ``base_url`` key, or the default)."""
        parts = urlsplit(self.base_url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        host = parts.hostname or ""
        host = f"[{host}]" if ":" in host else host
        url = f"{parts.scheme}://{host}:{port}{parts.path}"
        origin = "from base_url" if self.base_url_key else "the default: base_url is not set"
        return f"{url} ({origin})"

    @property
    def effective_message_char_limit(self) -> int:
        """``message_char_limit``, never above what Honcho accepts."""
        return min(self.message_char_limit, HONCHO_MAX_MESSAGE_CHARS)

    def workspace_for(self, user_id: str) -> str:
        """The user's workspace: an override, else prefix + stable id."""
        override = self.workspace_overrides.get(user_id)
        return override if override is not None else self.workspace_prefix + stable_id(user_id)

    def user_peer_for(self, user_id: str) -> str:
        """The user's peer: an override, else the stable id."""
        override = self.user_peer_overrides.get(user_id)
        return override if override is not None else stable_id(user_id)

    def shares_workspace(self, user_id: str) -> bool:
        """Whether the user's workspace is set by override (and so may hold other users)."""
        return user_id in self.workspace_overrides

    @classmethod
    def from_backend_config(cls, backend_config: Mapping[str, Any] | None) -> HonchoConfig:
        """Parse DeerFlow's ``memory.backend_config`` mapping.

        Unknown keys are logged (by name only) and ignored, so configs written
        for DeerFlow's own backend keep working while typos stay visible.
        """
        cfg = dict(backend_config or {})
        for key in sorted(str(key) for key in cfg if key not in _KNOWN_KEYS):
            logger.warning("Honcho backend: ignoring unknown backend_config key %s", _unknown(key))
        defaults = cls()
        return cls(
            base_url=_parse_str(cfg, "base_url", defaults.base_url),
            base_url_key="base_url" if "base_url" in cfg else "",
            api_key=_parse_api_key(cfg),
            workspace_prefix=_parse_str(cfg, "workspace_prefix", defaults.workspace_prefix),
            workspace_overrides=_parse_override_map(cfg, "workspace_overrides"),
            user_peer_overrides=_parse_override_map(cfg, "user_peer_overrides"),
            assistant_peer=_parse_str(cfg, "assistant_peer", defaults.assistant_peer),
            timeout_seconds=_parse_float(cfg, "timeout_seconds", defaults.timeout_seconds),
            connect_timeout_seconds=_parse_float(
                cfg, "connect_timeout_seconds", defaults.connect_timeout_seconds
            ),
            message_char_limit=_parse_int(cfg, "message_char_limit", defaults.message_char_limit),
            max_injection_chars=_parse_int(
                cfg, "max_injection_chars", defaults.max_injection_chars
            ),
            allow_insecure_http=_parse_bool(cfg, "allow_insecure_http", False),
            read_fail_closed=_parse_read_policy(cfg) == "fail_closed",
            storage_path="" if cfg.get("storage_path") is None else str(cfg["storage_path"]),
            thread_cache_size=_parse_int(cfg, "thread_cache_size", defaults.thread_cache_size),
        )


def _unknown(key: str, known: frozenset[str] = _KNOWN_KEYS) -> str:
    """``key``, quoted, with the known key it most likely misspells.

    Upstream DeerFlow accepts unknown keys, so they are warned about, never refused.
    """
    near = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    return f"`{key}` (did you mean `{near[0]}`?)" if near else f"`{key}`"


def _check_base_url_path(base_url: str) -> None:
    """Refuse a ``base_url`` with which every request misses Honcho's routes.

    The client adds ``/v3/...`` itself, so ``https://h/v3`` sends ``/v3/v3/...`` and gets
    404s; a query or fragment is not kept on the request paths either. Under the default
    ``fail_open`` each such write would be logged and dropped and each read come back
    empty, so the mistake is refused at start-up instead, in one line naming the fix.
    Refused rather than stripped: DeerFlow's own backend, which reads the same key,
    would still send ``/v3/v3``, so a config that works here must work there too.
    """
    parts = urlsplit(base_url)
    if parts.query or parts.fragment:
        root = urlunsplit(parts._replace(query="", fragment=""))
        raise ValueError(
            f"Honcho backend: base_url must not have a query or fragment; use base_url: {root}"
        )
    segments = parts.path.split("/")
    if "v3" in segments:
        root = urlunsplit(parts._replace(path="/".join(segments[: segments.index("v3")])))
        raise ValueError(
            f"Honcho backend: base_url is the server's root, without /v3 (the client adds "
            f"it); use base_url: {root}"
        )


def _check_honcho_id(key: str, value: Any) -> None:
    if not isinstance(value, str) or not _ID_GRAMMAR.match(value):
        raise ValueError(
            f"Honcho backend: {key} must be a non-empty id of letters, digits, '_' and '-'"
        )
    if len(value) > HONCHO_ID_MAX_LENGTH:
        raise ValueError(f"Honcho backend: {key} must be at most {HONCHO_ID_MAX_LENGTH} characters")


def _parse_str(cfg: Mapping[str, Any], key: str, default: str) -> str:
    value = cfg.get(key)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ValueError(f"Honcho backend: {key} must be a string")
    return value.strip()


def _parse_float(cfg: Mapping[str, Any], key: str, default: float) -> float:
    value = cfg.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        raise ValueError(f"Honcho backend: {key} must be a number")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"Honcho backend: {key} must be a number") from None


def _parse_int(cfg: Mapping[str, Any], key: str, default: int) -> int:
    number = float(_parse_float(cfg, key, default))
    if not math.isfinite(number) or not number.is_integer():
        raise ValueError(f"Honcho backend: {key} must be a whole number")
    return int(number)


def _parse_bool(cfg: Mapping[str, Any], key: str, default: bool) -> bool:
    """Accept real booleans and the strings ``true``/``false``; refuse anything else."""
    value = cfg.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"Honcho backend: {key} must be true or false")


def _parse_read_policy(cfg: Mapping[str, Any]) -> str:
    policy = cfg.get("failure_policy")
    if policy is None:
        return "fail_open"
    if not isinstance(policy, Mapping):
        raise ValueError("Honcho backend: failure_policy must be a mapping such as {read: ...}")
    for key in sorted(str(key) for key in policy if key != "read"):
        logger.warning(
            "Honcho backend: ignoring unknown failure_policy key %s", _unknown(key, _POLICY_KEYS)
        )
    read = policy.get("read")
    if read is None:
        return "fail_open"
    normalised = str(read).strip().lower()
    if normalised not in _READ_POLICIES:
        raise ValueError("Honcho backend: failure_policy.read must be fail_open or fail_closed")
    return normalised


def _parse_api_key(cfg: Mapping[str, Any]) -> str | None:
    """``api_key`` (a literal or ``$NAME``) or ``api_key_env`` (a variable name)."""
    literal = cfg.get("api_key")
    env_name = cfg.get("api_key_env")
    if literal not in (None, "") and env_name not in (None, ""):
        raise ValueError("Honcho backend: set api_key or api_key_env, not both")
    if env_name not in (None, ""):
        if not isinstance(env_name, str):
            raise ValueError("Honcho backend: api_key_env must be an environment variable name")
        return _read_env("api_key_env", env_name.strip())
    if literal in (None, ""):
        return None
    if not isinstance(literal, str):
        raise ValueError("Honcho backend: api_key must be a string")
    if literal.startswith("$"):
        return _read_env("api_key", literal[1:].strip())
    return literal.strip()


def _read_env(key: str, name: str) -> str:
    value = os.environ.get(name, "").strip() if name else ""
    if not value:
        raise ValueError(
            f"Honcho backend: {key} refers to environment variable {name!r}, "
            "which is not set or empty"
        )
    return value


def _parse_override_map(cfg: Mapping[str, Any], key: str) -> dict[str, str]:
    raw = cfg.get(key)
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"Honcho backend: {key} must be a mapping of user id to Honcho id")
    parsed: dict[str, str] = {}
    for user, value in raw.items():
        if value is None or not str(value).strip():
            raise ValueError(
                f"Honcho backend: {key}[{str(user)!r}] has an empty value; "
                "remove the entry or give it an id"
            )
        parsed[str(user)] = str(value).strip()
    return parsed
