"""The benchmark's own logic: its baseline must be faithful and its arithmetic right.

No timings are asserted here; ``python -m bench --quick`` in CI runs the benchmarks.
"""

from __future__ import annotations

import json

import httpx
import pytest

from bench.__main__ import main, summary
from bench.corpus import TextGenerator, conversation
from bench.harness import Settings, Timing, ratios
from bench.report import MISS, NOISY, PASS, Table, fmt_quartiles
from bench.throughput import (
    ASYNC_FLOOR,
    FLOOR,
    FLOOR_OF,
    MAX_FLOORS,
    MAX_SERVED_NS,
    SERVED,
    SERVED_FLOOR,
    TEST_CLIENT,
    TOKEN_MESSAGE_LENGTH,
    TRANSPORT,
    _plain_app,
    target_for,
    token_messages,
)
from bench.upstream import UpstreamHonchoBackend, stable_id
from bench.wire_cost import HostMessage, _growth_exponent, turn_messages
from bench.workload import message_batches, operations, seed_read_workspace


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


def test_targets_hold_the_transport_to_floors_and_the_served_fake_to_milliseconds() -> None:
    batch = target_for("10-message batch", TRANSPORT)
    assert batch.judge(3.0, 1.0, 3.0, 1.0) == PASS
    assert batch.judge(3.01, 1.0, 3.01, 1.0) == MISS
    card = target_for("get peer card", TRANSPORT)
    assert card.judge(1.5, 1.0, 1.5, 1.0) == PASS and card.judge(1.6, 1.0, 1.6, 1.0) == MISS
    served = target_for("get-or-create peer", SERVED)
    assert served.judge(99.0, 1_500_000, 99.0, 1_500_000) == PASS
    assert served.judge(1.0, 1_500_001, 1.0, 1_500_001) == MISS
    assert target_for("write 1 message", TRANSPORT).judge(50.0, 1e9, 50.0, 1e9) == "-"
    assert target_for("10-message batch", TEST_CLIENT).judge(50.0, 1e9, 50.0, 1e9) == "-"


def test_a_miss_within_the_noise_is_noisy_not_a_miss() -> None:
    """The median misses, the favourable end of the noise meets the target: undecided."""
    batch = target_for("10-message batch", TRANSPORT)
    assert batch.judge(3.2, 1.0, 2.9, 1.0) == NOISY
    assert batch.judge(3.2, 1.0, 3.1, 1.0) == MISS
    steady = Timing((100.0, 100.0, 100.0, 100.0, 100.0), (1.0,) * 5)
    unsteady = Timing((60.0, 80.0, 100.0, 120.0, 140.0), (1.0,) * 5)
    assert ratios(steady, steady) == (1.0, 1.0)
    median, best = ratios(unsteady, steady)
    assert median == 1.0 and best < 0.8
    table = Table("t", ["a", "result"])
    table.add("x", NOISY)
    assert (table.misses, table.noisy) == (0, 1)
    assert summary(0, 1, True, []).startswith(
        "Targets missed: 0 (outside the noise); 1 more within it (NOISY)"
    )
    assert summary(2, 0, False, ["x"]) == "Targets missed: 2. Benchmarks that could not run: x."


def test_every_fake_client_is_measured_against_a_floor_that_is_timed() -> None:
    assert set(FLOOR_OF.values()) == {FLOOR, ASYNC_FLOOR, SERVED_FLOOR}
    assert set(MAX_FLOORS) | set(MAX_SERVED_NS) <= {op.name for op in operations(TextGenerator())}


def test_the_served_floor_answers_empty_json() -> None:
    from fake_honcho.http.server import serve_in_thread

    with serve_in_thread(_plain_app) as url:
        response = httpx.post(url + "/anything", json={"big": "x" * 100_000})
    assert response.status_code == 200 and response.json() == {}


def test_settings_keep_the_api_key_out_of_their_repr() -> None:
    assert "s3cret" not in repr(Settings(honcho_url="http://h", honcho_api_key="s3cret"))


def test_scoped_reads_get_rows_only_where_the_target_serves_scopes() -> None:
    """A fake without scopes ignores ``scope``: timing it would time an unscoped read."""
    from fake_honcho import FakeHoncho

    text = TextGenerator(seed=1)
    names = [op.name for op in operations(text, scoped=True)]
    assert names[5:7] == ["search (scope)", "peer representation (scope)"]
    assert "search (scope)" not in [op.name for op in operations(text)]
    with (
        FakeHoncho(version="3.0.12") as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        assert seed_read_workspace(client, text) is False


def test_token_count_texts_are_distinct_chat_turns_of_the_stated_length() -> None:
    messages = token_messages(50)
    assert {len(message) for message in messages} == {TOKEN_MESSAGE_LENGTH}
    assert len(set(messages)) == 50


def test_quartiles_show_where_the_noise_lies() -> None:
    assert fmt_quartiles(Timing((1_000.0, 2_000.0, 3_000.0, 4_000.0, 5_000.0), (0.0,) * 5)) == (
        "1.5 µs .. 4.5 µs"
    )
