"""The benchmark's own logic: its baseline must be faithful and its arithmetic right.

No timings are asserted here; ``python -m bench --quick`` in CI runs the benchmarks.
"""

from __future__ import annotations

import json

import httpx
import pytest

from bench.__main__ import main
from bench.corpus import TextGenerator, conversation
from bench.harness import Timing
from bench.report import MISS, PASS, Table
from bench.throughput import BASELINE, CLIENT_FLOOR, TRANSPORT, _shortfall
from bench.upstream import UpstreamHonchoBackend, stable_id
from bench.wire_cost import HostMessage, _growth_exponent, turn_messages
from bench.workload import Operation, message_batches


def test_message_batches_respect_the_batch_limit_and_session_boundaries() -> None:
    contents = [f"m{i}" for i in range(2_350)]
    batches = list(message_batches(contents))
    assert [len(body["messages"]) for _, body in batches] == [100] * 23 + [50]
    assert {session for session, _ in batches} == {"s0", "s1", "s2"}
    assert batches[10][0] == "s1"  # message 1,000 starts the second session
    flat = [m["content"] for _, body in batches for m in body["messages"]]
    assert flat == contents


def test_message_batches_continue_a_conversation_from_start() -> None:
    first = list(message_batches(["a"], start=999))
    second = list(message_batches(["b"], start=1_000))
    assert first[0][0] == "s0" and second[0][0] == "s1"
    assert first[0][1]["messages"][0]["peer_id"] != second[0][1]["messages"][0]["peer_id"]


def test_corpus_is_seeded_and_prefix_stable() -> None:
    assert conversation(50)[:10] == conversation(10)
    one, two = TextGenerator(seed=5), TextGenerator(seed=5)
    assert [one.message(i) for i in range(5)] == [two.message(i) for i in range(5)]
    assert all(q and "?" not in q for q in (one.query() for _ in range(50)))


def test_growth_exponent_tells_linear_from_quadratic_totals() -> None:
    constant = [100] * 50  # same bytes every turn: cumulative grows linearly
    growing = [100 * t for t in range(1, 51)]  # full history every turn: quadratic
    assert _growth_exponent(constant) == pytest.approx(1.0, abs=0.01)
    assert _growth_exponent(growing) == pytest.approx(2.0, abs=0.1)


def test_upstream_baseline_sends_five_calls_with_the_whole_history() -> None:
    seen: list[tuple[str, dict]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.path, json.loads(request.content)))
        return httpx.Response(201, json={})

    text = TextGenerator(seed=1)
    history: list[HostMessage] = []
    with httpx.Client(transport=httpx.MockTransport(handler), base_url="http://h") as client:
        backend = UpstreamHonchoBackend(client)
        for turn in (1, 2):
            history.extend(turn_messages(text, turn)[0])
            backend.add("thread", history, user_id="u")

    workspace = "/v3/workspaces/deerflow-u-" + stable_id("u")
    session = "df-" + stable_id("thread")
    assert [path for path, _ in seen[:5]] == [
        f"{workspace}/peers",
        f"{workspace}/peers",
        f"{workspace}/sessions",
        f"{workspace}/sessions/{session}/peers",
        f"{workspace}/sessions/{session}/messages",
    ]
    first, second = seen[4][1]["messages"], seen[9][1]["messages"]
    assert first[0]["content"].startswith("<memory>")  # upstream keeps the hidden block
    assert second[: len(first)] == first  # and re-sends everything every turn
    assert len(second) == len(first) + 2  # tool results and empty tool calls are dropped


def test_stable_id_is_readable_and_collision_resistant() -> None:
    assert stable_id("user.name@x").startswith("user-name-x-")
    assert stable_id("user.name@x") != stable_id("user-name@x")
    assert len(stable_id("ü" * 10)) == 8  # nothing readable: the digest alone


def test_table_rejects_ragged_rows_and_counts_misses() -> None:
    table = Table("t", ["a", "result"])
    table.add("x", PASS)
    table.add("y", MISS)
    with pytest.raises(ValueError, match="3 cells"):
        table.add("z", PASS, "extra")
    assert table.misses == 1
    assert table.render().splitlines()[2] == "| a | result |"


def test_cli_rejects_unknown_benchmark_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--only", "nope"])
    assert "invalid choice" in capsys.readouterr().err


def test_quick_suite_benchmark_is_skipped_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--quick", "--only", "suite"]) == 0
    assert "not run in --quick mode" in capsys.readouterr().out


def test_a_missed_speed_up_names_the_cut_that_would_reach_it() -> None:
    """Cutting the fake's time by the named amount cuts the baseline too, and lands on 5x."""
    op = Operation("batch", "POST", "/p", lambda: None)

    def timings(transport_us: float, baseline_us: float) -> dict[str, Timing]:
        medians = {TRANSPORT: transport_us, BASELINE: baseline_us, CLIENT_FLOOR: 300.0}
        return {name: Timing((us * 1_000,), (us * 1_000,)) for name, us in medians.items()}

    assert _shortfall(op, timings(800, 4_000)) == []  # exactly 5x: nothing to say
    (note,) = _shortfall(op, timings(1_400, 4_300))
    cut = (5 * 1_400 - 4_300) / 4  # 675 µs: (4,300 - 675) / (1,400 - 675) == 5
    assert (4_300 - cut) / (1_400 - cut) == pytest.approx(5.0)
    assert "own time per request (transport minus floor, 1.10 ms)" in note
    assert f"to fall by {cut:.1f} µs to {1_100 - cut:.1f} µs" in note
