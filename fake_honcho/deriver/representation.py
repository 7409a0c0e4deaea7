"""The working representation: which conclusions a request sees, and its markdown.

Selection follows Honcho's ``get_working_representation``: up to ``max_conclusions``
split between search hits (``search_query``), the most derived conclusions
(``include_most_frequent``) and the most recent ones; the union is shown oldest
first, one section per level, in the same layout as the real server.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from fake_honcho.deriver.conclusions import recency_key
from fake_honcho.search import terms
from fake_honcho.search.semantic import Nearness
from fake_honcho.store.state import Row

DEFAULT_MAX_CONCLUSIONS = 100


@dataclass(frozen=True)
class Selection:
    """What to pick from a pair's conclusions."""

    max_conclusions: int = DEFAULT_MAX_CONCLUSIONS
    search_query: str | None = None
    search_top_k: int | None = None
    search_max_distance: float | None = None
    include_most_frequent: bool = False
    sessions: Sequence[str] | None = None


def lexical_score(query: str, text: str, ignore: frozenset[str] = frozenset()) -> float:
    """Share of the query's search terms (minus ``ignore``) that ``text`` contains.

    It stands in for semantic similarity: ``1 - score`` plays the cosine distance.
    """
    wanted = set(terms(query)) - ignore
    if not wanted:
        return 0.0
    return len(wanted & set(terms(text))) / len(wanted)


def select(rows: Sequence[Row], selection: Selection, nearness: Nearness) -> list[Row]:
    """The conclusions a representation shows, oldest first (``search_query``: the
    ``search_top_k`` nearest by embedding, within ``search_max_distance``)."""
    if selection.sessions is not None:
        allowed = set(selection.sessions)
        rows = [row for row in rows if row.get("session_id") in allowed]
    total = selection.max_conclusions
    query = selection.search_query
    searched = min(max(1, selection.search_top_k or total // 3), total) if query else 0
    if selection.include_most_frequent:
        share = total // 3 if query else total // 2
        frequent = min(share, total - searched)
    else:
        frequent = 0
    recent = total - searched - frequent

    chosen: dict[str, Row] = {}
    if query:
        hits = nearness.ranked(
            query, rows, top_k=searched, max_distance=selection.search_max_distance
        )
        chosen.update((row["id"], row) for row in hits)
    newest = sorted(rows, key=recency_key, reverse=True)
    if frequent:
        ranked = sorted(newest, key=lambda row: row.get("times_derived", 1), reverse=True)
        chosen.update((row["id"], row) for row in ranked[:frequent])
    chosen.update((row["id"], row) for row in newest[:recent])
    return sorted(chosen.values(), key=lambda row: (_stamp(row), row["_seq"]))


def render_markdown(rows: Sequence[Row]) -> str:
    """Honcho's ``Representation.format_as_markdown``; ``""`` when nothing is known.

    The toy deriver and the create route only make ``explicit`` conclusions, so only
    that section (Honcho's first) can appear.
    """
    explicit = [f"[{_stamp(row)}] {row['content']}" for row in rows if row["level"] == "explicit"]
    if not explicit:
        return ""
    return "\n".join(["## Explicit Observations\n", *explicit, ""])


def render_plain(rows: Sequence[Row]) -> str:
    """Honcho's ``str(Representation)``: what the session context budget is charged for.

    Every level's heading is printed even when empty, as Honcho does.
    """
    explicit = [row for row in rows if row["level"] == "explicit"]
    parts = ["EXPLICIT:\n"]
    parts.extend(f"{n}. [{_stamp(row)}] {row['content']}" for n, row in enumerate(explicit, 1))
    parts.append("")
    for title in ("DEDUCTIVE", "INDUCTIVE", "CONTRADICTION"):
        parts.extend([f"{title}:\n", ""])
    return "\n".join(parts)


def _stamp(row: Row) -> str:
    """``YYYY-MM-DD HH:MM:SS`` in UTC without sub-seconds, as Honcho prints conclusion times.

    A conclusion drawn from a message carries that message's time, as in Honcho.
    """
    raw = row.get("_message_created_at") or row["created_at"]
    moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.replace(microsecond=0, tzinfo=None).isoformat(sep=" ")
