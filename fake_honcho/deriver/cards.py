"""Peer cards: at most 40 stable facts one peer keeps about another (or about itself).

Stored in the ``peer_cards`` collection keyed ``(workspace, observer, observed)`` as
``{"peer_card": [...]}``. The deriver adds one entry per stable fact it learns
(identity, location, work, preference, dislike; plans are not stable), oldest
entries dropping out past the cap; a card set through the API is kept and extended.
"""

from __future__ import annotations

from collections.abc import Iterable

from fake_honcho.state import Store

COLLECTION = "peer_cards"
MAX_ENTRIES = 40
LABELS = {
    "identity": "IDENTITY",
    "location": "LOCATION",
    "work": "WORK",
    "preference": "PREFERENCE",
    "dislike": "DISLIKE",
}


def entry(kind: str | None, predicate: str) -> str | None:
    """The card line for a fact, or None when the fact is not stable enough for a card."""
    label = LABELS.get(kind or "")
    return f"{label}: {predicate}" if label else None


def read(store: Store, workspace_id: str, observer: str, observed: str) -> list[str] | None:
    row = store.get(COLLECTION, (workspace_id, observer, observed))
    return list(row["peer_card"]) if row is not None else None


def write(store: Store, workspace_id: str, observer: str, observed: str, card: list[str]) -> None:
    store.put(COLLECTION, (workspace_id, observer, observed), {"peer_card": list(card)})


def extend(
    store: Store, workspace_id: str, observer: str, observed: str, entries: Iterable[str]
) -> None:
    """Add new entries (exact repeats ignored), keeping the newest ``MAX_ENTRIES``."""
    card = read(store, workspace_id, observer, observed) or []
    fresh = [line for line in dict.fromkeys(entries) if line not in card]
    if not fresh:
        return
    write(store, workspace_id, observer, observed, (card + fresh)[-MAX_ENTRIES:])
