"""Benchmark 4: what one agent turn costs on the wire, ours against upstream's.

A simulated DeerFlow host runs a 50-turn conversation and, as ``MemoryMiddleware``
does, hands the backend the *whole* message list after every turn: the hidden
``<memory>`` injection of turn 1, the user's message, an AI tool call with its tool
result on every other turn, and the assistant's answer. A counting transport in front
of ``fake.transport()`` records every request body. "New content" is the UTF-8 size
of the turn's user message and final answer: what a backend has to store.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.corpus import TextGenerator
from bench.harness import Settings
from bench.report import Table, fmt_bytes, fmt_ratio, verdict
from bench.upstream import UpstreamHonchoBackend
from bench.workload import BASE_URL, new_fake

TURNS = 50
USER_ID = "user-42@example.com"
THREAD_ID = "thread-7f3a"
MAX_REQUESTS_PER_TURN = 1.05
MAX_BYTES_RATIO = 1.2
SHOWN_TURNS = (1, 2, 10, 25, 50)


@dataclass
class HostMessage:
    """The attributes of a LangChain message that a DeerFlow memory backend reads."""

    type: str
    content: str
    id: str
    additional_kwargs: dict[str, Any] = field(default_factory=dict)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None


def turn_messages(text: TextGenerator, turn: int) -> tuple[list[HostMessage], int]:
    """The messages turn ``turn`` appends to the state, and their storable content bytes."""
    new: list[HostMessage] = []
    if turn == 1:
        memory = "<memory>\n" + text.paragraph(3, 6) + "\n</memory>"
        flags = {"hide_from_ui": True, "dynamic_context_reminder": True}
        new.append(HostMessage("human", memory, "h1__memory", additional_kwargs=flags))
    question = text.user_message()
    new.append(HostMessage("human", question, f"h{turn}"))
    if turn % 2:
        call_id = f"call{turn}"
        call = {"name": "web_search", "args": {"query": text.query()}, "id": call_id}
        new.append(HostMessage("ai", "", f"a{turn}-call", tool_calls=[call]))
        new.append(
            HostMessage(
                "tool",
                text.paragraph(5, 15),
                f"t{turn}",
                tool_call_id=call_id,
                name="web_search",
            )
        )
    answer = text.assistant_message()
    new.append(HostMessage("ai", answer, f"a{turn}"))
    return new, len(question.encode()) + len(answer.encode())


class CountingTransport(httpx.BaseTransport):
    """Records ``(path, body bytes, status)`` of every request it forwards."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner
        self.sent: list[tuple[str, int, int]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        size = len(request.read())
        response = self.inner.handle_request(request)
        self.sent.append((request.url.path, size, response.status_code))
        return response

    def close(self) -> None:
        self.inner.close()


@dataclass
class TurnCost:
    requests: int
    body_bytes: int
    failed: int


def _converse(
    add: Callable[[list[HostMessage]], None], counter: CountingTransport
) -> tuple[list[TurnCost], list[int]]:
    text = TextGenerator(seed=21)
    history: list[HostMessage] = []
    costs, content = [], []
    for turn in range(1, TURNS + 1):
        new, content_bytes = turn_messages(text, turn)
        history.extend(new)
        before = len(counter.sent)
        add(list(history))
        sent = counter.sent[before:]
        costs.append(
            TurnCost(len(sent), sum(s for _, s, _ in sent), sum(1 for *_, st in sent if st >= 400))
        )
        content.append(content_bytes)
    return costs, content


def _run_manager(fake: Any) -> list[TurnCost]:
    from honcho_backend import HonchoMemoryManager

    counter = CountingTransport(fake.transport())
    manager = HonchoMemoryManager.from_config({"base_url": BASE_URL}, transport=counter)
    try:
        costs, _ = _converse(
            lambda history: manager.add(THREAD_ID, history, user_id=USER_ID), counter
        )
    finally:
        manager.close()
    return costs


def _run_upstream(fake: Any) -> tuple[list[TurnCost], list[int]]:
    counter = CountingTransport(fake.transport())
    with httpx.Client(transport=counter, base_url=BASE_URL) as client:
        backend = UpstreamHonchoBackend(client)
        return _converse(lambda history: backend.add(THREAD_ID, history, user_id=USER_ID), counter)


def _growth_exponent(per_turn_bytes: Sequence[int]) -> float:
    """Least-squares slope of log(cumulative bytes) over log(turn), turns 10..50."""
    cumulative, total = [], 0
    for size in per_turn_bytes:
        total += size
        cumulative.append(total)
    points = [(math.log(t), math.log(cumulative[t - 1])) for t in range(10, len(cumulative) + 1)]
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / sum(
        (x - mean_x) ** 2 for x, _ in points
    )


def run(settings: Settings) -> list[Table]:
    fakes = [new_fake(), new_fake()]
    try:
        ours = _run_manager(fakes[0])
        upstream, content = _run_upstream(fakes[1])
    finally:
        for fake in fakes:
            fake.close()

    table = Table(
        f"4. Backend wire cost over a {TURNS}-turn conversation (baseline: upstream-like backend)",
        [
            "measure",
            "HonchoMemoryManager",
            "upstream baseline",
            "upstream / ours",
            "target",
            "result",
        ],
    )
    for turn in SHOWN_TURNS:
        mine, theirs = ours[turn - 1], upstream[turn - 1]
        table.add(
            f"turn {turn}: requests, body bytes (new content {fmt_bytes(content[turn - 1])})",
            f"{mine.requests}, {fmt_bytes(mine.body_bytes)}",
            f"{theirs.requests}, {fmt_bytes(theirs.body_bytes)}",
            fmt_ratio(theirs.body_bytes / mine.body_bytes),
            "-",
            verdict(None),
        )
    steady = slice(1, TURNS)
    steady_turns = TURNS - 1
    requests_ours = sum(c.requests for c in ours[steady]) / steady_turns
    requests_up = sum(c.requests for c in upstream[steady]) / steady_turns
    table.add(
        f"requests/turn, turns 2-{TURNS}",
        f"{requests_ours:.2f}",
        f"{requests_up:.2f}",
        fmt_ratio(requests_up / requests_ours),
        f"≤ {MAX_REQUESTS_PER_TURN}",
        verdict(requests_ours <= MAX_REQUESTS_PER_TURN),
    )
    new_content = sum(content[steady])
    bytes_ours = sum(c.body_bytes for c in ours[steady]) / new_content
    bytes_up = sum(c.body_bytes for c in upstream[steady]) / new_content
    table.add(
        f"body bytes / new content bytes, turns 2-{TURNS}",
        fmt_ratio(bytes_ours),
        fmt_ratio(bytes_up),
        fmt_ratio(bytes_up / bytes_ours),
        f"≤ {MAX_BYTES_RATIO}x",
        verdict(bytes_ours <= MAX_BYTES_RATIO),
    )
    total_ours = sum(c.body_bytes for c in ours)
    total_up = sum(c.body_bytes for c in upstream)
    table.add(
        f"total body bytes, {TURNS} turns",
        fmt_bytes(total_ours),
        fmt_bytes(total_up),
        fmt_ratio(total_up / total_ours),
        "-",
        verdict(None),
    )
    table.add(
        "growth exponent of cumulative bytes (turns 10-50)",
        f"{_growth_exponent([c.body_bytes for c in ours]):.2f}",
        f"{_growth_exponent([c.body_bytes for c in upstream]):.2f}",
        "-",
        "ours ≈ 1 (linear), upstream ≈ 2",
        verdict(None),
    )
    failed_ours = sum(c.failed for c in ours)
    failed_up = sum(c.failed for c in upstream)
    table.add("requests answered 4xx/5xx", failed_ours, failed_up, "-", "-", verdict(None))
    table.notes += [
        "Upstream sends five requests every turn and re-sends the whole history, including the "
        "hidden <memory> block; once the history passes 100 messages Honcho refuses the batch "
        "(422) and upstream drops the write.",
        "Turn 1 includes establishing workspace, peers and session for both backends.",
    ]
    if settings.quick:
        table.notes.append("Quick mode changes nothing here: the conversation is always 50 turns.")
    return [table]
