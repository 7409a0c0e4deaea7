"""Reading Honcho 3.0.12's prompts back into the data they were built from.

Honcho renders its inputs into fixed templates (``src/deriver/prompts.py``,
``src/utils/summarizer.py``, ``src/dialectic/``, ``src/dreamer/specialists.py``).
These helpers recover the turns, the target peer, the observations and the query
from that text, so the stand-in can answer with the toy deriver's own rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# `format_new_turn_with_timestamp`: "2026-12-01 09:00:00 alice: I like tea".
_TIMED_TURN = re.compile(
    r"^(?P<at>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (?P<peer>[A-Za-z0-9_-]+): (?P<content>.*)$"
)
# The summarizer's `_format_messages`: "alice: I like tea".
_TURN = re.compile(r"^(?P<peer>[A-Za-z0-9_-]+): (?P<content>.*)$")
# An observation line of `str(Representation)`, `format_as_markdown` or `str_with_ids`:
# "1. [2026-12-01 09:00:00] alice likes tea", optionally "[id:abc] " first.
_OBSERVATION = re.compile(
    r"^(?:\d+\. )?(?:\[id:(?P<id>[^\]]+)\] )?\[(?P<at>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\] "
    r"(?P<content>.+)$"
)
_TARGET_PEER = re.compile(r"^Target (?:peer|observee):\n(?P<peer>[A-Za-z0-9_-]+)$", re.MULTILINE)
_DIALECTIC_GLOBAL = re.compile(r"You are answering queries about '(?P<peer>[A-Za-z0-9_-]+)'\.")
_DIALECTIC_DIRECTED = re.compile(
    r"perspective of (?P<observer>[A-Za-z0-9_-]+)'s understanding of "
    r"(?P<peer>[A-Za-z0-9_-]+)\."
)
_CARD_LINE = re.compile(r"^- (?P<entry>.+)$")
# The workspace agent's prefetched overview (3.1, pull request 931): "Most active peers
# (top 2):" then "- alice (3 messages, last active 2026-12-01)", each followed by card facts.
_WORKSPACE_AGENT = "You are a workspace-level analysis agent"
_ACTIVE_PEER = re.compile(r"^- (?P<peer>[A-Za-z0-9_-]+) \(\d+ messages")
# A workspace search_memory result names its pair first: "[alice->alice]".
_SEARCHED_PAIR = re.compile(r"^\[(?P<observer>[^\]>]+)->(?P<observed>[^\]]+)\]$", re.MULTILINE)


@dataclass(frozen=True)
class Turn:
    """One message as a prompt shows it: who said it, what, and when (if shown)."""

    peer: str
    content: str
    at: str | None = None


@dataclass(frozen=True)
class Observation:
    """One observation line: its text and its ``YYYY-MM-DD HH:MM:SS`` time."""

    content: str
    at: str
    id: str | None = None


def section(text: str, tag: str) -> str | None:
    """The text between ``<tag>`` and ``</tag>`` (stripped of its framing newlines)."""
    start = text.find(f"<{tag}>")
    end = text.find(f"</{tag}>", start + 1)
    if start < 0 or end < 0:
        return None
    return text[start + len(tag) + 2 : end].strip("\n")


def timed_turns(block: str) -> list[Turn]:
    """Turns rendered with timestamps; a line that starts no turn continues the last one."""
    return _turns(block, _TIMED_TURN)


def plain_turns(block: str) -> list[Turn]:
    """Turns rendered as ``peer: content`` (the summarizer's format)."""
    return _turns(block, _TURN)


def observations(text: str) -> list[Observation]:
    """Every explicit observation line in ``text``, in the order shown."""
    found = []
    for line in text.splitlines():
        match = _OBSERVATION.match(line.strip())
        if match:
            found.append(Observation(match["content"], match["at"], match["id"]))
    return found


def target_peer(text: str) -> str | None:
    """The peer a deriver or dream prompt names under ``Target peer:`` / ``Target observee:``."""
    match = _TARGET_PEER.search(text)
    return match["peer"] if match else None


def dialectic_peer(system_prompt: str) -> str | None:
    """The observed peer of a dialectic agent's system prompt."""
    match = _DIALECTIC_DIRECTED.search(system_prompt) or _DIALECTIC_GLOBAL.search(system_prompt)
    return match["peer"] if match else None


def is_workspace_dialectic(system_prompt: str) -> bool:
    """Whether a system prompt is Honcho 3.1's workspace chat agent's."""
    return _WORKSPACE_AGENT in system_prompt


def active_peers(text: str) -> list[str]:
    """The peers a workspace overview lists under ``Most active peers``, in its order."""
    start = text.find("Most active peers (top ")
    if start < 0:
        return []
    return [
        match["peer"] for line in text[start:].splitlines() if (match := _ACTIVE_PEER.match(line))
    ]


def searched_pair(tool_result: str) -> tuple[str, str] | None:
    """The ``(observer, observed)`` a workspace ``search_memory`` result starts with."""
    match = _SEARCHED_PAIR.search(tool_result)
    return (match["observer"], match["observed"]) if match else None


def card_entries(text: str) -> list[str]:
    """The entries of a ``## CURRENT PEER CARD`` section, in order (none without one)."""
    start = text.find("## CURRENT PEER CARD")
    if start < 0:
        return []
    entries = []
    for line in text[start:].splitlines()[1:]:
        match = _CARD_LINE.match(line)
        if match:
            entries.append(match["entry"])
        elif entries and not line.strip():
            break
    return entries


def _turns(block: str, pattern: re.Pattern[str]) -> list[Turn]:
    turns: list[Turn] = []
    for line in block.split("\n"):
        match = pattern.match(line)
        if match:
            turns.append(Turn(match["peer"], match["content"], match.groupdict().get("at")))
        elif turns:
            last = turns[-1]
            turns[-1] = Turn(last.peer, f"{last.content}\n{line}", last.at)
    return turns
