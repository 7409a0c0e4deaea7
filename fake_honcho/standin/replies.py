"""What the stand-in answers to each kind of request Honcho 3.0.12 sends.

Honcho's deriver, summarizer, dialectic agent and dreamer each send a recognisable
request; each answer applies the fake Honcho's toy-deriver rules to what the request
shows, so a real Honcho driven by the stand-in derives what the fake derives:

* the deriver (``response_format`` ``PromptRepresentation``): the target peer's
  first-person facts as ``{"explicit": [{"content": ...}]}``;
* summaries (plain text over a ``<conversation>``): the toy extractive summary;
* the dialectic agent (tools with ``search_memory``): the toy chat answer over the
  prefetched observations, or over the session history when there are none;
* 3.1's workspace chat agent (its own system prompt): ``search_memory`` of each peer the
  overview lists as most active, then the toy workspace answer over what they found;
* dreams (tools with ``update_peer_card``): ``get_recent_observations``, then
  ``update_peer_card`` with the toy card rules, then a closing text; the induction
  specialist finds no patterns.

Anything else gets a short fixed text, so an unknown caller never fails.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from fake_honcho.deriver import cards, chat, summaries, workspace_chat
from fake_honcho.deriver.extract import extract_facts
from fake_honcho.standin import prompts

Task = Literal["deriver", "summary", "dialectic", "workspace-dialectic", "dream", "other"]

RECENT_OBSERVATIONS_LIMIT = 100  # the most get_recent_observations returns
DREAM_DONE = "Peer card review complete."
NO_PATTERNS = "No patterns supported by two or more observations."
OTHER = "OK"


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass
class Reply:
    """An assistant turn: text, or tool calls (then ``content`` is None)."""

    task: Task
    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)


def reply(body: dict[str, Any]) -> Reply:
    """The answer to one ``/chat/completions`` request body."""
    messages: list[dict[str, Any]] = body.get("messages") or []
    tools = {_tool_name(tool) for tool in body.get("tools") or []}
    schema_name, schema = _response_schema(body.get("response_format"))
    if schema_name == "PromptRepresentation":
        return Reply("deriver", json.dumps({"explicit": _explicit(_text_of(messages))}))
    if "update_peer_card" in tools or "create_observations_inductive" in tools:
        return _dream(messages, tools)
    if messages and prompts.is_workspace_dialectic(_content(messages[0])):
        return _workspace_dialectic(messages, tools, body.get("tool_choice"), schema)
    if "search_memory" in tools or _is_dialectic(messages):
        return _dialectic(messages, tools, body.get("tool_choice"), schema)
    summary_type = _summary_type(_text_of(messages))
    if summary_type is not None:
        return Reply("summary", _summary(_text_of(messages), summary_type))
    return Reply("other", OTHER)


def _explicit(prompt: str) -> list[dict[str, str]]:
    """The deriver's answer: facts the target peer states, in order, without repeats."""
    peer = prompts.target_peer(prompt)
    block = prompts.section(prompt, "messages")
    if peer is None or block is None:
        return []
    contents: dict[str, None] = {}
    for turn in prompts.timed_turns(block):
        if turn.peer == peer:
            contents.update((fact.content, None) for fact in extract_facts(turn.content, peer))
    return [{"content": content} for content in contents]


def _summary_type(prompt: str) -> summaries.SummaryType | None:
    if "<conversation>" not in prompt:
        return None
    return "short" if "concise and accurate summary" in prompt else "long"


def _summary(prompt: str, summary_type: summaries.SummaryType) -> str:
    turns = prompts.plain_turns(prompts.section(prompt, "conversation") or "")
    return summaries.text(((turn.peer, turn.content) for turn in turns), summary_type)


def _dialectic(
    messages: list[dict[str, Any]], tools: set[str], tool_choice: Any, schema: dict[str, Any] | None
) -> Reply:
    """Search once (the ``top_k`` carries the reasoning level), then answer.

    Honcho's streamed answer is a last call without tools or level settings; the
    search the conversation already holds tells that call how many conclusions to quote.
    The answer itself reads the observations Honcho prefetched into the query.
    """
    system = _content(messages[0]) if messages else ""
    user = next((_content(m) for m in messages if m.get("role") == "user"), "")
    query = user.removeprefix("Query: ").split("\n\n## Relevant Observations (prefetched)")[0]
    searched = [call for call, _ in _tool_results(messages) if call.name == "search_memory"]
    if not searched:
        level = _reasoning_level(tools, tool_choice)
        top_k = chat.CONCLUSIONS_PER_LEVEL[level]
        return Reply(
            "dialectic", tool_calls=[ToolCall("search_memory", {"query": query, "top_k": top_k})]
        )
    level = _LEVEL_OF_TOP_K.get(_as_int(searched[0].arguments.get("top_k")), "low")
    observed = prompts.dialectic_peer(system) or ""
    history = prompts.section(system, "session_history") or ""
    said = [turn for turn in prompts.timed_turns(history) if turn.peer == observed]
    text, used = chat.answer(
        query,
        observed,
        _rows((obs.content, obs.at) for obs in prompts.observations(user)),
        _rows((turn.content, turn.at or "") for turn in said),
        level,
    )
    if schema is not None:
        return Reply("dialectic", chat.structured(text, used, schema))
    return Reply("dialectic", text)


_LEVEL_OF_TOP_K = {top_k: level for level, top_k in chat.CONCLUSIONS_PER_LEVEL.items()}

# A workspace search fetches what the peer chat would be shown (25, 10 at minimal); one
# more than that says medium, so the streamed last call (no tools) still knows the level.
_WORKSPACE_TOP_K = {
    "minimal": chat.PREFETCHED_MINIMAL,
    "low": chat.PREFETCHED,
    "medium": chat.PREFETCHED + 1,
}
_LEVEL_OF_WORKSPACE_TOP_K = {top_k: level for level, top_k in _WORKSPACE_TOP_K.items()}
_WORKSPACE_MINIMAL_TOOLS = {"get_workspace_stats", "search_memory", "search_messages"}


def _workspace_dialectic(
    messages: list[dict[str, Any]], tools: set[str], tool_choice: Any, schema: dict[str, Any] | None
) -> Reply:
    """Search each listed peer's own memory, then answer as the fake's workspace chat does."""
    user = next((_content(m) for m in messages if m.get("role") == "user"), "")
    query = user.removeprefix("Query: ").split("\n\n## Relevant Observations (prefetched)")[0]
    peers = prompts.active_peers(user)
    searched = [
        (call, result) for call, result in _tool_results(messages) if call.name == "search_memory"
    ]
    if not searched and peers:
        level = (
            "minimal" if tools == _WORKSPACE_MINIMAL_TOOLS else _reasoning_level(set(), tool_choice)
        )
        top_k = _WORKSPACE_TOP_K[level]
        return Reply(
            "workspace-dialectic",
            tool_calls=[
                ToolCall(
                    "search_memory", {"observer": p, "observed": p, "query": query, "top_k": top_k}
                )
                for p in peers
            ],
        )
    level = "low"
    if searched:
        level = _LEVEL_OF_WORKSPACE_TOP_K.get(_as_int(searched[0][0].arguments.get("top_k")), "low")
    found: list[tuple[str, list[dict[str, Any]]]] = []
    for call, result in searched:
        pair = prompts.searched_pair(result)
        peer = str(call.arguments.get("observed", ""))
        if pair is None or "Found " not in result:  # no observations (a message fallback)
            found.append((peer, []))
            continue
        found.append((peer, _rows((obs.content, obs.at) for obs in prompts.observations(result))))
    text, used = workspace_chat.answer(query, found, level)
    if schema is not None:
        return Reply("workspace-dialectic", chat.structured(text, used, schema))
    return Reply("workspace-dialectic", text)


def _is_dialectic(messages: list[dict[str, Any]]) -> bool:
    """The dialectic's last, tool-less call (a stream) still carries its system prompt."""
    return bool(messages) and prompts.dialectic_peer(_content(messages[0])) is not None


def _reasoning_level(tools: set[str], tool_choice: Any) -> str:
    """The level as far as the request shows it: minimal has two tools, low says ``auto``.

    Honcho's medium, high and max levels send identical requests; they read as medium.
    """
    if tools == {"search_memory", "search_messages"}:
        return "minimal"
    return "low" if tool_choice == "auto" else "medium"


def _rows(items: Any) -> list[dict[str, Any]]:
    """Rows for the toy chat from (content, time) pairs; earlier listed is older on ties."""
    return [
        {"content": content, "created_at": at, "_seq": seq}
        for seq, (content, at) in enumerate(items)
    ]


def _dream(messages: list[dict[str, Any]], tools: set[str]) -> Reply:
    if "create_observations_inductive" in tools:
        return Reply("dream", NO_PATTERNS)
    called = {call.name: result for call, result in _tool_results(messages)}
    if "update_peer_card" in called:
        return Reply("dream", DREAM_DONE)
    if "get_recent_observations" not in called:
        return Reply(
            "dream",
            tool_calls=[ToolCall("get_recent_observations", {"limit": RECENT_OBSERVATIONS_LIMIT})],
        )
    system = _content(messages[0]) if messages else ""
    user = next((_content(m) for m in messages if m.get("role") == "user"), "")
    observed = prompts.target_peer(user) or ""
    # The tool lists the newest first; the card takes them oldest first.
    listed = reversed(prompts.observations(called["get_recent_observations"]))
    learned = cards.entries_for((obs.content for obs in listed), observed)
    current = None if "## REBUILD MODE" in system else prompts.card_entries(user)
    card = cards.refreshed(current, learned)
    if card is None:
        return Reply("dream", DREAM_DONE)
    return Reply("dream", tool_calls=[ToolCall("update_peer_card", {"content": card})])


def _tool_results(messages: Sequence[dict[str, Any]]) -> list[tuple[ToolCall, str]]:
    """Each tool call the conversation made, with the result Honcho sent back."""
    results = {m.get("tool_call_id"): _content(m) for m in messages if m.get("role") == "tool"}
    made = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except json.JSONDecodeError:
                arguments = {}
            made.append(
                (ToolCall(function.get("name", ""), arguments), results.get(call.get("id"), ""))
            )
    return made


def _response_schema(response_format: Any) -> tuple[str | None, dict[str, Any] | None]:
    if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
        return None, None
    spec = response_format.get("json_schema") or {}
    return spec.get("name"), spec.get("schema") or {}


def _tool_name(tool: dict[str, Any]) -> str:
    return str((tool.get("function") or tool).get("name", ""))


def _text_of(messages: Sequence[dict[str, Any]]) -> str:
    return "\n\n".join(_content(message) for message in messages)


def _content(message: dict[str, Any]) -> str:
    """A message's text, whether a string or a list of content parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _as_int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
