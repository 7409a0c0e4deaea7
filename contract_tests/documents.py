"""Checks for the DeerMem memory document that DeerFlow's gateway casts ``get_memory`` to."""

from __future__ import annotations

from datetime import datetime
from typing import Any

__all__ = ["memory_document_problems"]


def _iso(value: Any) -> bool:
    if not isinstance(value, str) or not value:
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def memory_document_problems(doc: Any) -> list[str]:
    """What would break the gateway's ``MemoryResponse`` cast or the frontend; ``[]`` if fine.

    Required: a dict, a non-empty ISO-8601 ``lastUpdated`` (the frontend's date
    formatter crashes on ``""``), a ``facts`` list whose items have string ``id``
    and ``content``; ``user``/``history`` (when present) are dicts of sections.
    """
    if not isinstance(doc, dict):
        return [f"get_memory returned {type(doc).__name__}, not a dict"]
    problems: list[str] = []
    if not _iso(doc.get("lastUpdated")):
        problems.append(f"lastUpdated is not an ISO-8601 timestamp: {doc.get('lastUpdated')!r}")
    facts = doc.get("facts")
    if not isinstance(facts, list):
        problems.append(f"facts is not a list: {type(facts).__name__}")
        facts = []
    for index, fact in enumerate(facts):
        if not isinstance(fact, dict):
            problems.append(f"facts[{index}] is not a dict")
            continue
        for key in ("id", "content"):
            if not isinstance(fact.get(key), str):
                problems.append(f"facts[{index}].{key} is not a string: {fact.get(key)!r}")
    for section in ("user", "history"):
        value = doc.get(section, {})
        if not isinstance(value, dict):
            problems.append(f"{section} is not a dict")
            continue
        for name, entry in value.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("summary", ""), str):
                problems.append(f"{section}.{name} is not a {{summary, updatedAt}} section")
    return problems
