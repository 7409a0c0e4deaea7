"""How a replayed answer is judged against the one the real server gave.

Most answers must be equal once normalised as ``fake-honcho compare`` normalises them
(:class:`~fake_honcho.drift.exchange.TextNormaliser`: ids numbered by first appearance,
timestamps and token counts blanked). Some cannot be: what the real server's LLM wrote
(chat, representations, cards, summaries, derived conclusions) and what its deriver had
done by then (queue status) are compared by shape (:func:`shape_equal`): the same status,
content type and JSON types, lists of any length, a null where the other side has a value.
A recording whose private text was redacted compares searches by shape too: the fake
ranks placeholders, the server ranked the text.

A difference is declared when a register entry (:mod:`fake_honcho.divergences`) explains
it: :func:`declared` names the entry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fake_honcho.drift.probe import Served
from fake_honcho.harness.divergences import divergence
from fake_honcho.search.english import plainto_tsquery, to_tsvector

__all__ = [
    "Rule",
    "declared",
    "route_template",
    "rule_for",
    "same_but_order",
    "shape_equal",
    "stream_events",
]

COLLECTIONS = frozenset(
    {"workspaces", "peers", "sessions", "messages", "conclusions", "webhooks", "scopes"}
)
ACTIONS = frozenset({"list", "search", "query", "upload", "chat", "representation", "card"})
_SINGULAR = {
    "workspaces": "workspace",
    "peers": "peer",
    "sessions": "session",
    "messages": "message",
    "conclusions": "conclusion",
    "webhooks": "webhook",
    "scopes": "scope",
}


def route_template(method: str, path: str) -> str:
    """``POST /v3/workspaces/{workspace}/peers/{peer}/chat``: a path with its names blanked."""
    parts = path.split("/")
    for i in range(1, len(parts)):
        if parts[i - 1] in COLLECTIONS and parts[i] not in ACTIONS and parts[i]:
            parts[i] = "{" + _SINGULAR[parts[i - 1]] + "}"
    return f"{method} {'/'.join(parts)}"


@dataclass(frozen=True)
class Rule:
    """How the answers of one kind of request are compared, and why."""

    pattern: str
    reason: str
    fields: tuple[str, ...] = ()
    """Compared by shape only in these top-level fields (the rest exactly); all if empty."""
    loose: bool = False
    """Keys one side has and the other not yet are left out (work still pending)."""

    def matches(self, template: str) -> bool:
        return re.fullmatch(self.pattern, template) is not None


_W = r"/v3/workspaces/\{workspace\}"
SHAPE_RULES = (
    Rule(rf"POST {_W}(/peers/\{{peer\}})?/chat", "chat: the server's LLM wrote the answer"),
    Rule(rf"POST {_W}/peers/\{{peer\}}/representation", "representation: the LLM's conclusions"),
    Rule(rf"GET {_W}/peers/\{{peer\}}/card", "peer card: the LLM's"),
    Rule(rf"GET {_W}/peers/\{{peer\}}/context", "peer context: the LLM's representation and card"),
    Rule(
        rf"GET {_W}/sessions/\{{session\}}/context",
        "session context: summary, representation and card are the LLM's",
        ("summary", "peer_representation", "peer_card"),
    ),
    Rule(rf"GET {_W}/sessions/\{{session\}}/summaries", "summaries: the LLM's"),
    Rule(rf"POST {_W}/conclusions/(list|query)", "conclusions: the deriver's LLM drew them"),
    Rule(rf"GET {_W}/conclusions/\{{conclusion\}}", "conclusions: the deriver's LLM drew them"),
    Rule(rf"GET {_W}/(deriver|queue)/status", "queue status: how far the deriver had got then"),
    Rule(
        rf"GET {_W}/scopes/\{{scope\}}/status",
        "scope backfill: how far the deriver had got then",
        loose=True,
    ),
)
REDACTED_RULES = (
    Rule(
        rf"POST {_W}(/sessions/\{{session\}}|/peers/\{{peer\}})?/search",
        "search over redacted text: the fake ranks placeholders",
    ),
)
WORKSPACES_LIST = "POST /v3/workspaces/list"


def rule_for(template: str, redacted: bool = False) -> Rule | None:
    """The shape rule for requests of ``template``, if they are not compared exactly."""
    rules = SHAPE_RULES + (REDACTED_RULES if redacted else ())
    return next((rule for rule in rules if rule.matches(template)), None)


def shape_equal(real: Any, fake: Any, *, loose: bool = False) -> bool:
    """Whether two JSON values have the same shape: the same keys (``loose``: the keys
    both have), the same kinds of value; a list's items of the same kinds, in any number
    (an empty list, or a null, matches anything)."""
    if real is None or fake is None:
        return True
    if isinstance(real, dict) and isinstance(fake, dict):
        if not loose and set(real) != set(fake):
            return False
        return all(shape_equal(real[k], fake[k], loose=loose) for k in real.keys() & fake.keys())
    if isinstance(real, list) and isinstance(fake, list):
        if not real or not fake:
            return True
        return all(any(shape_equal(a, b, loose=loose) for b in fake) for a in real) and all(
            any(shape_equal(a, b, loose=loose) for a in real) for b in fake
        )
    return _kind(real) == _kind(fake)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def stream_events(text: str) -> list[Any]:
    """The JSON of every ``data:`` line of an SSE stream (other data as text)."""
    events: list[Any] = []
    for line in text.splitlines():
        if line.startswith("data:"):
            payload = line[5:].strip()
            try:
                events.append(json.loads(payload))
            except ValueError:
                events.append(payload)
    return events


def same_but_order(real: Any, fake: Any) -> bool:
    """Whether two answers hold the same items in another order (a list, or a page's)."""
    if isinstance(real, dict) and isinstance(fake, dict) and "items" in real and "items" in fake:
        rest_equal = {k: v for k, v in real.items() if k != "items"} == {
            k: v for k, v in fake.items() if k != "items"
        }
        return rest_equal and same_but_order(real["items"], fake["items"])
    if isinstance(real, list) and isinstance(fake, list) and real != fake:
        return _sorted(real) == _sorted(fake)
    return False


def _sorted(items: Iterable[Any]) -> list[str]:
    return sorted(json.dumps(item, sort_keys=True) for item in items)


# An order difference a register entry declares, by the route it happens on.
_SEARCH = rf"POST {_W}(/sessions/\{{session\}}|/peers/\{{peer\}})?/search"
_ORDER_ENTRIES = (
    (rf"GET {_W}/sessions/\{{session\}}/peers", "session-peers-order"),
    (rf"GET {_W}/webhooks", "webhooks-order"),
    (rf"POST {_W}/sessions/\{{session\}}/messages(/list)?", "same-request-created-order"),
    (rf"POST {_W}/conclusions(/list)?", "same-request-created-order"),
)
_CLONE = rf"POST {_W}/sessions/\{{session\}}/clone"

Answer = tuple[int, Any]
"""A status and a normalised body."""


@dataclass(frozen=True)
class Moment:
    """What the recording had done when a request was sent, as far as declarations care."""

    deleted: bool = False
    """The request touched (or a list showed) a workspace or session deleted before: the
    real server deletes in the background, the fake at once."""
    just_written: bool = False
    """Messages were written to the workspace in the last few exchanges: the real server
    embeds them in a background task after answering."""
    query: str = ""
    """A search's query."""


def declared(
    template: str, real: Answer, fake: Answer, *, served: Served, moment: Moment
) -> str | None:
    """The register entry that explains why the ``real`` and ``fake`` answers differ, if
    one does and it applies to what the recorded server serves."""
    found = _explained(template, real, fake, served.embeds, moment)
    return found if found and divergence(found).applies_to(served.features) else None


def _explained(
    template: str, real: Answer, fake: Answer, embeds: bool, moment: Moment
) -> str | None:
    if moment.deleted:
        return "deletion-at-once"
    (real_status, real_body), (fake_status, fake_body) = real, fake
    if re.fullmatch(_CLONE, template) and real_status == 500 and fake_status < 300:
        return "real-clone-cross-workspace"
    if real_status != fake_status:
        return None
    lag = embeds and moment.just_written and re.fullmatch(_SEARCH, template)
    if lag and _among(real_body, fake_body) and _words_found(moment.query, real_body, fake_body):
        return "search-before-embedding"
    if same_but_order(real_body, fake_body):
        if re.fullmatch(_SEARCH, template):  # only messages alike but for their ids
            return "semantic-tie-order" if embeds and _alike(real_body, fake_body) else None
        for pattern, entry in _ORDER_ENTRIES:
            if re.fullmatch(pattern, template):
                return entry
    return None


def _alike(real: list[Any], fake: list[Any]) -> bool:
    """Whether two search answers differ only in which of several messages of identical
    content (author, session, metadata) stand where: their embeddings are one vector."""
    return [_without_id(item) for item in real] == [_without_id(item) for item in fake]


def _without_id(item: Any) -> Any:
    return {k: v for k, v in item.items() if k != "id"} if isinstance(item, dict) else item


def _words_found(query: str, real: list[Any], fake: list[Any]) -> bool:
    """Whether the server found every hit of the fake's that holds all the query's words:
    its full-text leg does not wait for embeddings."""
    wanted = set(plainto_tsquery(query))
    matching = [
        item
        for item in fake
        if wanted
        and isinstance(item, dict)
        and wanted <= to_tsvector(str(item.get("content"))).keys()
    ]
    return all(item in real for item in matching)


def _among(real: Any, fake: Any) -> bool:
    """Whether every hit of one search answer is among the other's, in any order (the
    server's semantic leg had not seen the newest messages yet: fewer hits, or the same
    ranked by words alone)."""
    if not (isinstance(real, list) and isinstance(fake, list)) or len(real) > len(fake):
        return False
    hits = {json.dumps(item, sort_keys=True) for item in fake}
    return all(json.dumps(item, sort_keys=True) in hits for item in real)
