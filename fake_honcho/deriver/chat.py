"""Dialectic chat without an LLM: a fixed-form answer built from lexical recall.

The answer quotes the conclusions about the observed peer that share search terms
(other than the peer's name) with the question, newest first among equals, more of
them at higher ``reasoning_level``. When none shares a term it quotes every conclusion
Honcho would have put in front of its LLM (the newest 25, 10 at ``minimal``), as a
model answers from what it is given ("what does alice like?" finds "alice prefers
green tea"). With no conclusions at all it quotes the
peer's most relevant message, and otherwise says that nothing is known. Streaming sends the same
text in word chunks as Honcho's server-sent events.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from fake_honcho.deriver.conclusions import recency_key
from fake_honcho.deriver.representation import lexical_score
from fake_honcho.search import terms
from fake_honcho.store.state import Row

CONCLUSIONS_PER_LEVEL = {"minimal": 1, "low": 3, "medium": 5, "high": 8, "max": 12}
#: How many conclusions Honcho's dialectic prefetches for its LLM.
PREFETCHED, PREFETCHED_MINIMAL = 25, 10
_CHUNK = re.compile(r"\S+\s*")


def relevant(
    query: str, rows: Sequence[Row], limit: int, ignore: frozenset[str] = frozenset()
) -> list[Row]:
    """The ``limit`` rows best matching ``query`` (score > 0), newest first among equals."""
    scored = [(lexical_score(query, row["content"], ignore), row) for row in rows]
    hits = [(points, row) for points, row in scored if points > 0]
    hits.sort(key=lambda pair: recency_key(pair[1]), reverse=True)
    hits.sort(key=lambda pair: pair[0], reverse=True)
    return [row for _, row in hits[:limit]]


def newest(rows: Sequence[Row], limit: int) -> list[Row]:
    """The ``limit`` newest rows, newest first."""
    return sorted(rows, key=recency_key, reverse=True)[:limit]


@dataclass(frozen=True)
class Reply:
    """An answer and what the toy dialectic read to give it (its evidence, from 3.2)."""

    text: str
    conclusions: list[Row]
    messages: list[Row] = field(default_factory=list)


def reply(
    query: str,
    observed: str,
    conclusions: Sequence[Row],
    messages: Sequence[Row],
    reasoning_level: str = "low",
) -> Reply:
    """The answer, with the conclusions it quotes, or else the message it quotes.

    The observed peer's name is left out of the match: every conclusion about it
    contains the name, so it says nothing about relevance.
    """
    name = frozenset(terms(observed))
    limit = CONCLUSIONS_PER_LEVEL.get(reasoning_level, 3)
    prefetched = PREFETCHED_MINIMAL if reasoning_level == "minimal" else PREFETCHED
    used = relevant(query, conclusions, limit, name) or newest(conclusions, prefetched)
    if used:
        facts = "; ".join(row["content"] for row in used)
        return Reply(f"Based on what I know about {observed}: {facts}.", used)
    quoted = relevant(query, messages, 1, name)
    if quoted:
        said = quoted[0]["content"]
        text = f'I have no conclusions about {observed}, but {observed} said: "{said}"'
        return Reply(text, [], quoted)
    return Reply(f"I don't know anything about {observed} that answers this question.", [])


def answer(
    query: str,
    observed: str,
    conclusions: Sequence[Row],
    messages: Sequence[Row],
    reasoning_level: str = "low",
) -> tuple[str, list[Row]]:
    """The answer text and the conclusions it used (see :func:`reply`)."""
    given = reply(query, observed, conclusions, messages, reasoning_level)
    return given.text, given.conclusions


def evidence(given: Reply) -> dict[str, Any]:
    """What ``include_evidence`` adds (3.2): the conclusions and messages the answer read.

    Modelled on what honcho-ai 2.7.0 and @honcho-ai/sdk 2.5.0 parse (no server source
    here): conclusions with their ``source_ids`` (a list, empty for explicit ones),
    messages as references without content, and no tool calls or trace, as the toy
    dialectic runs no tools.
    """
    return {
        "conclusions": [
            {
                "id": row["id"],
                "level": row["level"],
                "content": row["content"],
                "created_at": row["created_at"],
                "session_id": row.get("session_id"),
                "source_ids": list(row.get("source_ids") or ()),
            }
            for row in given.conclusions
        ],
        "messages": [
            {
                "id": row["id"],
                "session_id": row["session_id"],
                "peer_id": row["peer_id"],
                "created_at": row["created_at"],
            }
            for row in given.messages
        ],
        "tool_calls": [],
        "reasoning_trace_id": None,
    }


def structured(text: str, used: Sequence[Row], schema: dict[str, Any]) -> str:
    """``content`` for a ``response_format``: a JSON object shaped by the schema's properties.

    Compact, as Honcho sends its parsed model back (``model_dump_json``). Optional
    fields (``anyOf`` with ``null``, as pydantic writes them) take their non-null form;
    ``$ref`` is followed within the schema's ``$defs``.
    """
    return json.dumps(_fill(schema, text, used, schema.get("$defs") or {}), separators=(",", ":"))


def sse_events(text: str, evidence: dict[str, Any] | None = None) -> Iterator[bytes]:
    """Honcho's stream: ``data: {"delta": {"content": ...}, "done": false}`` chunks, then
    done, which carries ``evidence`` when it was asked for (3.2)."""
    for chunk in _CHUNK.findall(text):
        event = {"delta": {"content": chunk}, "done": False}
        yield f"data: {json.dumps(event)}\n\n".encode()
    done: dict[str, Any] = {"done": True}
    if evidence is not None:
        done["evidence"] = evidence
    yield f"data: {json.dumps(done)}\n\n".encode()


def _fill(schema: dict[str, Any], text: str, used: Sequence[Row], defs: dict[str, Any]) -> Any:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _fill(defs.get(ref.removeprefix("#/$defs/"), {}), text, used, defs)
    choices = [sub for sub in schema.get("anyOf") or schema.get("oneOf") or [] if sub]
    if choices:
        chosen = next((sub for sub in choices if sub.get("type") != "null"), choices[0])
        return _fill(chosen, text, used, defs)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        return {name: _fill(sub, text, used, defs) for name, sub in properties.items()}
    if kind == "array":
        return [row["content"] for row in used]
    if kind == "boolean":
        return bool(used)
    if kind in ("integer", "number"):
        return len(used)
    return text
