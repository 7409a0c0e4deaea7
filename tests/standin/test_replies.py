"""The stand-in's answers to the requests a real Honcho 3.0.12 sent it.

``honcho-3.0.12-requests.jsonl`` holds request bodies captured with
``fake-honcho-llm --log-file`` while ``tests/fidelity/derived/scenario.py`` drove a real
Honcho (deriver, card_refresh dream, dialectic chat, summaries, embeddings).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fake_honcho.deriver import cards
from fake_honcho.standin import prompts
from fake_honcho.standin.replies import reply

RECORDED = {
    row["name"]: row
    for row in map(json.loads, Path(__file__).with_name("honcho-3.0.12-requests.jsonl").open())
}


def answered(name: str) -> Any:
    answer = reply(RECORDED[name]["body"])
    if answer.tool_calls:
        return [{"name": call.name, "arguments": call.arguments} for call in answer.tool_calls]
    return answer.content


def test_deriver_answers_the_target_peers_facts_as_prompt_representation() -> None:
    body = RECORDED["deriver"]["body"]
    assert body["response_format"]["json_schema"]["name"] == "PromptRepresentation"
    assert json.loads(answered("deriver")) == {
        "explicit": [
            {"content": "alice's name is Alice"},
            {"content": "alice prefers green tea"},
            {"content": "alice lives in Rome"},
            {"content": "alice hates mondays"},
            {"content": "alice plans to visit Oslo"},
        ]
    }


def test_card_refresh_surveys_then_updates_with_allowed_prefixes_then_stops() -> None:
    assert answered("dream-1-survey") == [
        {"name": "get_recent_observations", "arguments": {"limit": 100}}
    ]
    ((update,),) = [answered("dream-2-update-card")]
    assert update["name"] == "update_peer_card"
    card = update["arguments"]["content"]
    assert "IDENTITY: name is Alice" in card and "ATTRIBUTE: lives in Rome" in card
    assert cards.accepted(card) == card  # Honcho's validation keeps every entry
    assert not any("plans to" in line for line in card)
    assert answered("dream-3-done") == "Peer card review complete."


def test_dialectic_searches_with_the_levels_count_then_answers_from_what_it_was_given() -> None:
    assert answered("dialectic-1-search") == [
        {"name": "search_memory", "arguments": {"query": "what does alice like?", "top_k": 3}}
    ]
    text = answered("dialectic-2-answer")
    assert text.startswith("Based on what I know about alice: ")
    assert "alice prefers green tea" in text  # no shared term: every prefetched conclusion


def test_the_streamed_and_synthesised_last_calls_keep_the_level() -> None:
    final = RECORDED["dialectic-stream-final"]["body"]
    assert final["stream"] is True and "tools" not in final
    assert answered("dialectic-stream-final") == (
        "Based on what I know about alice: alice's favorite color is teal."
    )
    assert answered("dialectic-minimal-synthesis") == (
        "Based on what I know about alice: alice lives in Rome."
    )


def test_summary_is_the_toy_extractive_summary() -> None:
    lines = answered("summary-short").splitlines()
    assert len(lines) == 20
    assert lines[0] == "alice: note 1: the spring weather in the hills is worth remembering on ..."


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_answers_are_what_the_real_run_received(name: str) -> None:
    if RECORDED[name]["path"].endswith("/chat/completions"):
        assert answered(name) == RECORDED[name]["reply"]


def test_prompt_readers_keep_multiline_turns_and_card_sections() -> None:
    turns = prompts.timed_turns(
        "2026-01-01 10:00:00 alice: line one\nline two\n2026-01-01 10:00:01 bob: hi"
    )
    assert [(t.peer, t.content) for t in turns] == [("alice", "line one\nline two"), ("bob", "hi")]
    user = (
        "Target observee:\nalice\n\n## CURRENT PEER CARD\n\n- IDENTITY: Al\n- likes tea\n\nUpdate"
    )
    assert prompts.card_entries(user) == ["IDENTITY: Al", "likes tea"]
    assert prompts.target_peer(user) == "alice"


def test_unknown_requests_get_a_short_text() -> None:
    assert reply({"messages": [{"role": "user", "content": "hello"}]}).content == "OK"
    assert reply({}).task == "other"
