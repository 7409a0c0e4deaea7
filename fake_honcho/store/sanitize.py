"""Honcho's sanitizing: NULs stripped from stored text, and metadata's limits.

Postgres text cannot hold NUL, so Honcho strips it from message and conclusion
content, queries and metadata (keys and values, at any depth). Metadata is Honcho's
``_SanitizedMetadata``: at most 100 top-level keys and five levels, checked by a field
validator, so pydantic reports a refusal beside every other item of the body
(:data:`fake_honcho.http.request_models.VALIDATORS`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["METADATA_MAX_DEPTH", "METADATA_MAX_KEYS", "sanitized_metadata", "strip_nul"]

METADATA_MAX_KEYS = 100
METADATA_MAX_DEPTH = 5


def strip_nul(value: Any) -> Any:
    """``value`` without NUL characters in any string inside it; ``value`` itself
    when it holds none (most do, and a copy would be kept for nothing)."""
    return _stripped(value) if _holds_nul(value) else value


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(key) or _holds_nul(child) for key, child in value.items())
    if isinstance(value, list):
        return any(_holds_nul(child) for child in value)
    return False


def _stripped(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_stripped(key): _stripped(child) for key, child in value.items()}
    if isinstance(value, list):
        return [_stripped(child) for child in value]
    return value


def sanitized_metadata(value: Any, *, strip: bool = True) -> Any:
    """``_validate_metadata``: the limits' ``ValueError``, else ``value`` NUL-stripped
    (``strip=False`` when it is known to hold none).

    A value that is not an object passes through (the field's type refuses it).
    """
    if not isinstance(value, dict):
        return value
    if len(value) > METADATA_MAX_KEYS:
        raise ValueError(f"Metadata exceeds maximum of {METADATA_MAX_KEYS} top-level keys")
    if _depth(value) > METADATA_MAX_DEPTH:
        raise ValueError(f"Metadata nesting exceeds maximum depth of {METADATA_MAX_DEPTH}")
    return strip_nul(value) if strip else value


def _depth(value: dict[str, Any]) -> int:
    deepest = 0
    for child in value.values():
        if isinstance(child, dict):
            deepest = max(deepest, _depth(child))
    return 1 + deepest
