"""Scripted conversations whose derived results a real Honcho and the fake must share.

:func:`run` drives any Honcho (a real 3.0.12 wired to the stand-in LLM, or the fake)
through the same script and returns what it derived in a comparable form: ids and
times are dropped, rows that tie on ``created_at`` are compared as sets, and times are
kept only as their format. ``python -m tests.fidelity.derived.scenario URL`` records a
real server's answers into ``real-3.0.12.json`` (CI replays the script on the fake and
compares, see ``test_derived_fidelity.py``).

Recipe for the real side: start ``fake-honcho-llm``, start Honcho with the environment
it prints (``DERIVER_FLUSH_ENABLED=true``, ``CACHE_DEFAULT_TTL_SECONDS=1``), then run
this module against the API's URL.
"""

from __future__ import annotations

import json
import re
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

RECORDING = Path(__file__).with_name("real-3.0.12.json")
STAMP_FORMATS = {
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ": "seconds",
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z": "fraction",
}
FIRST = [
    ("alice", "Hi, I'm Alice. I prefer green tea and I live in Rome."),
    ("bob", "Nice. I work as a nurse."),
    ("alice", "I hate mondays. I plan to visit Oslo."),
]
SECOND = [("alice", "My favorite color is teal. I'm called Ally.")]
QUESTIONS: list[dict[str, Any]] = [
    {"query": "what does alice like?"},
    {"query": "does alice drink tea?", "session_id": "s1"},
    {"query": "where does alice live?", "reasoning_level": "minimal"},
    {"query": "what color does alice love?", "stream": True},
]
SUMMARY_TURNS = 20

Settle = Callable[[], None]


def run(client: httpx.Client, workspace: str, settle: Settle) -> dict[str, Any]:
    """Play the script in ``workspace`` and return the comparable results."""
    ws = f"/v3/workspaces/{workspace}"
    _ok(client.post("/v3/workspaces", json={"id": workspace}))
    members = {"alice": {}, "bob": {"observe_others": True}}
    _ok(client.post(f"{ws}/sessions", json={"id": "s1", "peers": members}))
    _say(client, ws, "s1", FIRST)
    settle()
    _say(client, ws, "s1", SECOND)
    settle()
    results: dict[str, Any] = {"conclusions": _conclusions(client, ws)}
    representation = _ok(client.post(f"{ws}/peers/alice/representation", json={}))
    results["representation"] = _lines_as_set(representation.json()["representation"])

    before = _ok(client.get(f"{ws}/peers/alice/card")).json()["peer_card"]
    dream = {"observer": "alice", "observed": "alice", "dream_type": "card_refresh"}
    _ok(client.post(f"{ws}/schedule_dream", json=dream))
    settle()
    after = _ok(client.get(f"{ws}/peers/alice/card")).json()["peer_card"]
    results["card"] = {"before_dream": before, "after_dream": sorted(after or [])}

    results["chat"] = [_chat(client, ws, question) for question in QUESTIONS]

    _ok(client.post(f"{ws}/sessions", json={"id": "s2", "peers": {"alice": {}, "bob": {}}}))
    turns = [
        (
            "alice" if n % 2 else "bob",
            f"note {n}: the spring weather in the hills is worth remembering on a long walk",
        )
        for n in range(1, SUMMARY_TURNS + 1)
    ]
    _say(client, ws, "s2", turns)
    settle()
    summaries = _ok(client.get(f"{ws}/sessions/s2/summaries")).json()
    results["summaries"] = {
        kind: _summary(summaries[f"{kind}_summary"]) for kind in ("short", "long")
    }
    return results


def settle_real(client: httpx.Client, workspace: str, timeout: float = 120.0) -> Settle:
    """Wait for a real server's queue to drain (it enqueues after answering) and its cache."""

    def settle() -> None:
        deadline = time.monotonic() + timeout
        idle_reads = 0
        time.sleep(0.5)
        while idle_reads < 2:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the queue of {workspace} did not drain in {timeout} s")
            status = _ok(client.get(f"/v3/workspaces/{workspace}/queue/status")).json()
            busy = status["pending_work_units"] + status["in_progress_work_units"]
            idle_reads = idle_reads + 1 if busy == 0 else 0
            time.sleep(0.5)
        time.sleep(1.2)  # CACHE_DEFAULT_TTL_SECONDS=1

    return settle


def _say(client: httpx.Client, ws: str, session: str, turns: list[tuple[str, str]]) -> None:
    messages = [{"peer_id": peer, "content": content} for peer, content in turns]
    _ok(client.post(f"{ws}/sessions/{session}/messages", json={"messages": messages}))


def _conclusions(client: httpx.Client, ws: str) -> dict[str, Any]:
    """Each pair's conclusions, grouped by shared ``created_at`` (groups oldest first)."""
    body = _ok(client.post(f"{ws}/conclusions/list", params={"size": 100}, json={})).json()
    pairs: dict[str, dict[str, list[str]]] = {}
    for row in body["items"]:
        pair = f"{row['observer_id']}->{row['observed_id']}"
        pairs.setdefault(pair, {}).setdefault(row["created_at"], []).append(row["content"])
        assert row["session_id"] == "s1" and row["level"] == "explicit", row
    stamps = {_format(row["created_at"]) for row in body["items"]}
    return {
        "created_at_formats": sorted(stamps),
        "pairs": {
            pair: [sorted(group) for _, group in sorted(groups.items())]
            for pair, groups in sorted(pairs.items())
        },
    }


def _lines_as_set(text: str) -> dict[str, Any]:
    lines = text.splitlines()
    stamp = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] ")
    facts = [stamp.sub("[<time>] ", line) for line in lines[2:] if line]
    return {"head": lines[:2], "lines": sorted(facts)}


def _chat(client: httpx.Client, ws: str, question: dict[str, Any]) -> dict[str, Any]:
    response = _ok(client.post(f"{ws}/peers/alice/chat", json=question))
    if question.get("stream"):
        events = [json.loads(line[6:]) for line in response.text.split("\n\n") if line]
        text = "".join(event["delta"]["content"] for event in events if not event["done"])
    else:
        text = response.json()["content"]
    prefix, _, facts = text.partition(": ")
    if prefix != "Based on what I know about alice":
        return {"question": question, "answer": text}
    return {"question": question, "facts": sorted(facts.removesuffix(".").split("; "))}


def _summary(row: dict[str, Any] | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {
        "summary_type": row["summary_type"],
        "content": row["content"],
        "token_count": row["token_count"],
        "created_at": _format(row["created_at"]),
    }


def _format(stamp: str) -> str:
    return next((name for rx, name in STAMP_FORMATS.items() if re.fullmatch(rx, stamp)), stamp)


def _ok(response: httpx.Response) -> httpx.Response:
    if response.status_code >= 400:
        raise AssertionError(f"{response.request.method} {response.request.url}: {response.text}")
    return response


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.fidelity.derived.scenario HONCHO_URL", file=sys.stderr)
        return 2
    workspace = f"fidelity-derived-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=argv[0], timeout=120) as client:
        results = run(client, workspace, settle_real(client, workspace))
    recording = {"honcho": "3.0.12", "llm": "fake-honcho-llm", "results": results}
    RECORDING.write_text(json.dumps(recording, indent=1, sort_keys=True) + "\n")
    print(f"recorded {RECORDING}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
