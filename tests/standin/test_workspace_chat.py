"""The stand-in's answers to Honcho 3.1's workspace chat agent (pull request 931).

The requests are built as that source builds them (``src/dialectic/workspace.py``: its
system prompt, the prefetched overview of the most active peers, the workspace tools,
and ``search_memory`` results that name their pair first): no real 3.1 here could be
pointed at the stand-in to capture them, so their shapes are read from source.
"""

from __future__ import annotations

import json
from typing import Any

from fake_honcho.deriver.workspace_chat import NOTHING_KNOWN
from fake_honcho.standin.replies import reply

SYSTEM = (
    "\nYou are a workspace-level analysis agent that can query memory across ALL peers "
    "in this workspace. You can synthesize information from any peer relationship's "
    "stored conclusions, insights, and conversation history.\n"
)
INTRO = (
    "Workspace overview and most-active peers with their known biographical facts. Use "
    "this to route: query a specific peer's memory with search_memory (observer and "
    "observed set to that peer's name), or use search_messages / get_workspace_stats to "
    "discover peers this overview does not cover."
)
OVERVIEW = (
    "Peers: 2\nSessions: 1\nMessages: 2\nDate range: 2026-12-01 to 2026-12-01\n\n"
    "Most active peers (top 2):\n"
    "- bob (1 messages, last active 2026-12-01)\n"
    "    - IDENTITY: lives in Oslo\n"
    "- alice (1 messages, last active 2026-12-01)"
)
TOOLS = [
    "get_workspace_stats",
    "search_memory",
    "search_messages",
    "get_observation_context",
    "grep_messages",
    "get_peer_card",
    "get_messages_by_date_range",
    "search_messages_temporal",
    "get_reasoning_chain",
]
FOUND_ONE = "Found 1 observations for query 'q':\n\nEXPLICIT:\n\n1. [2026-12-01 {}] {}"
FOUND = {
    "bob": FOUND_ONE.format("10:00:01", "bob lives in Oslo"),
    "alice": FOUND_ONE.format("10:00:00", "alice likes tea"),
}


def request(query: str, *, overview: str | None = OVERVIEW, **extra: Any) -> dict[str, Any]:
    user = f"Query: {query}"
    if overview is not None:
        user += f"\n\n## Relevant Observations (prefetched)\n{INTRO}\n\n{overview}"
    return {
        "model": "gpt-5.4-mini",
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
        "tools": [{"type": "function", "function": {"name": name}} for name in TOOLS],
        "tool_choice": "auto",
        **extra,
    }


def answered_searches(body: dict[str, Any], results: dict[str, str]) -> dict[str, Any]:
    """``body`` after Honcho ran the stand-in's searches: the calls and their results."""
    calls = reply(body).tool_calls
    messages = [*body["messages"]]
    messages.append(
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
                for i, call in enumerate(calls)
            ],
        }
    )
    for i, call in enumerate(calls):
        peer = call.arguments["observed"]
        content = f"[{peer}->{peer}]\n{results.get(peer, 'No observations found for query')}"
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": content})
    return {**body, "messages": messages}


def test_searches_each_listed_peers_own_memory_in_order() -> None:
    calls = reply(request("What do we know?")).tool_calls
    assert [(call.name, call.arguments) for call in calls] == [
        ("search_memory", {"observer": p, "observed": p, "query": "What do we know?", "top_k": 25})
        for p in ("bob", "alice")
    ]


def test_answers_as_the_fakes_workspace_chat() -> None:
    """The sentence tests/deriver/test_workspace_chat.py expects of the fake."""
    final = reply(answered_searches(request("What do we know?"), FOUND))
    assert final.task == "workspace-dialectic" and not final.tool_calls
    assert final.content == (
        "Based on what I know about bob: bob lives in Oslo. "
        "Based on what I know about alice: alice likes tea."
    )


def test_the_streamed_last_call_keeps_the_level_through_top_k() -> None:
    medium = answered_searches(request("tea?", tool_choice="required"), FOUND)
    assert reply(request("tea?", tool_choice="required")).tool_calls[0].arguments["top_k"] == 26
    last = {**medium, "stream": True}
    del last["tools"], last["tool_choice"]
    assert reply(last).content == reply(medium).content


def test_peers_without_observations_and_an_empty_workspace() -> None:
    only_bob = reply(answered_searches(request("q"), {"bob": FOUND["bob"]}))
    assert only_bob.content == "Based on what I know about bob: bob lives in Oslo."
    assert reply(request("q", overview=None)).content == NOTHING_KNOWN


def test_response_format_is_filled_from_what_was_found() -> None:
    schema = {"type": "object", "properties": {"facts": {"type": "array"}}}
    body = {"type": "json_schema", "json_schema": {"name": "Answer", "schema": schema}}
    final = reply(answered_searches(request("q", response_format=body), FOUND))
    assert json.loads(final.content or "") == {"facts": ["bob lives in Oslo", "alice likes tea"]}
