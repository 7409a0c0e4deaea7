"""Peer cards: at most 40 identity markers one peer keeps about another (or about itself).

Stored in the ``peer_cards`` collection keyed ``(workspace, observer, observed)`` as
``{"peer_card": [...]}``. As in Honcho 3.0.12, the deriver never writes a card: a
dream's ``update_peer_card`` does (or ``PUT``). That tool keeps only entries starting
``IDENTITY:``, ``ATTRIBUTE:``, ``RELATIONSHIP:`` or ``INSTRUCTION:`` (then a space and a
body, at most 200 characters), drops case-insensitive repeats and keeps the first 40.
The toy dream files identity facts under ``IDENTITY:`` and other stable facts (where a
peer lives and works, what it likes and dislikes) under ``ATTRIBUTE:``; plans are not
stable and stay off the card. The stand-in LLM writes cards by the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fake_honcho.deriver.extract import fact_of
from fake_honcho.store.state import Store

COLLECTION = "peer_cards"
MAX_ENTRIES = 40
MAX_ENTRY_LENGTH = 200
ALLOWED_PREFIXES = ("IDENTITY:", "ATTRIBUTE:", "RELATIONSHIP:", "INSTRUCTION:")
LABELS = {
    "identity": "IDENTITY",
    "location": "ATTRIBUTE",
    "work": "ATTRIBUTE",
    "preference": "ATTRIBUTE",
    "dislike": "ATTRIBUTE",
}


def entry_for(content: str, observed: str) -> str | None:
    """The card line a conclusion about ``observed`` gives, or None (not a stable fact)."""
    fact = fact_of(content, observed)
    label = LABELS.get(fact.kind) if fact is not None else None
    return f"{label}: {fact.predicate}" if label and fact is not None else None


def entries_for(contents: Iterable[str], observed: str) -> list[str]:
    """The card lines of these conclusions, in order, without repeats."""
    lines = (entry_for(content, observed) for content in contents)
    return list(dict.fromkeys(line for line in lines if line is not None))


def valid(line: str) -> bool:
    """Honcho's ``_validate_peer_card_entry``: an allowed prefix, a space, a body, a cap."""
    if not line or len(line) > MAX_ENTRY_LENGTH:
        return False
    return any(
        line.startswith(f"{prefix} ") and line[len(prefix) + 1 :].strip()
        for prefix in ALLOWED_PREFIXES
    )


def accepted(card: Iterable[str]) -> list[str]:
    """What ``update_peer_card`` stores of ``card``: valid, first of each repeat, first 40."""
    kept: list[str] = []
    seen: set[str] = set()
    for item in card:
        line = item.strip()
        key = " ".join(line.lower().split())
        if valid(line) and key not in seen:
            seen.add(key)
            kept.append(line)
    return kept[:MAX_ENTRIES]


def refreshed(current: Sequence[str] | None, learned: Sequence[str]) -> list[str] | None:
    """The card a refresh sends to ``update_peer_card``, or None when it leaves the card be.

    ``current`` is the card shown to the dream (None when rebuilding). Nothing new
    means no update; otherwise the current entries then the new ones, newest 40.
    """
    card = list(current or [])
    fresh = [line for line in dict.fromkeys(learned) if line not in card]
    if not fresh:
        return None
    return (card + fresh)[-MAX_ENTRIES:]


def read(store: Store, workspace_id: str, observer: str, observed: str) -> list[str] | None:
    row = store.get(COLLECTION, (workspace_id, observer, observed))
    return list(row["peer_card"]) if row is not None else None


def write(store: Store, workspace_id: str, observer: str, observed: str, card: list[str]) -> None:
    store.put(COLLECTION, (workspace_id, observer, observed), {"peer_card": list(card)})


def update(
    store: Store, workspace_id: str, observer: str, observed: str, card: Sequence[str]
) -> None:
    """``update_peer_card``: store what it accepts of ``card``; nothing accepted, no change."""
    kept = accepted(card)
    if kept:
        write(store, workspace_id, observer, observed, kept)
