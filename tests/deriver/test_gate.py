"""The batching gate: representation work held as a real Honcho holds it, and queue status
telling the truth at every step (held work pending, claimed work in progress)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.deriver import BatchGate
from fake_honcho.deriver.gate import COLLECTION as HELD

START = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
SHORT = "I prefer green tea"
LONG = " ".join(f"word{i}" for i in range(600))  # well over 512 tokens in any count


class SetClock:
    """A clock that stands still until a test moves it."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> SetClock:
    return SetClock()


@contextmanager
def gated_fake(
    clock: SetClock, gate: BatchGate | None = None, **kw: Any
) -> Iterator[tuple[FakeHoncho, httpx.Client]]:
    """A strict fake (manual stepping unless ``deriver=`` says otherwise) and its client."""
    kw.setdefault("deriver", "manual")
    kw.setdefault("deriver_gate", gate or BatchGate())
    with (
        FakeHoncho(strict=True, clock=clock, **kw) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        yield fake, client


@pytest.fixture
def pair(clock: SetClock) -> Iterator[tuple[FakeHoncho, httpx.Client]]:
    with gated_fake(clock) as both:
        yield both


@pytest.fixture
def fake(pair: tuple[FakeHoncho, httpx.Client]) -> FakeHoncho:
    return pair[0]


@pytest.fixture
def http(pair: tuple[FakeHoncho, httpx.Client]) -> httpx.Client:
    return pair[1]


def write(http: httpx.Client, *pairs: tuple[str, str], session: str = "s1") -> None:
    body = {"messages": [{"peer_id": peer, "content": text} for peer, text in pairs]}
    response = http.post(f"/v3/workspaces/ws/sessions/{session}/messages", json=body)
    assert response.status_code == 201, response.text


def counts(http: httpx.Client, **params: str) -> tuple[int, int, int]:
    """(pending, in progress, completed) as ``GET .../queue/status`` reports them."""
    status = http.get("/v3/workspaces/ws/queue/status", params=params).json()
    return (
        status["pending_work_units"],
        status["in_progress_work_units"],
        status["completed_work_units"],
    )


def conclusions(http: httpx.Client) -> list[str]:
    found = http.post("/v3/workspaces/ws/conclusions/list", json={}).json()
    return [item["content"] for item in found["items"]]


# -- the gate ------------------------------------------------------------------------------


def test_a_short_session_is_held_pending(fake: FakeHoncho, http: httpx.Client) -> None:
    write(http, ("alice", SHORT))
    fake.deriver.run_until_idle()
    assert counts(http) == (1, 0, 0)
    assert conclusions(http) == []
    assert fake.deriver.step() is False  # nothing the gate lets through


def test_work_reaching_the_token_target_is_claimed_then_run(
    fake: FakeHoncho, http: httpx.Client
) -> None:
    write(http, ("alice", SHORT))
    write(http, ("alice", LONG))
    assert counts(http) == (2, 0, 0)
    seen = [counts(http)]
    while fake.deriver.step():
        seen.append(counts(http))
    # claimed as one work unit (both in progress), then run one unit at a time
    assert seen == [(2, 0, 0), (0, 2, 0), (0, 1, 1), (0, 0, 2)]
    assert "alice prefers green tea" in conclusions(http)


def test_work_older_than_the_max_age_is_claimed(
    fake: FakeHoncho, http: httpx.Client, clock: SetClock
) -> None:
    write(http, ("alice", SHORT))
    clock.advance(1799)
    assert fake.deriver.step() is False
    clock.advance(1)
    fake.deriver.run_until_idle()
    assert counts(http) == (0, 0, 1)


def test_max_age_zero_never_flushes_by_age(clock: SetClock) -> None:
    with gated_fake(clock, BatchGate(max_age_seconds=0)) as (fake, http):
        write(http, ("alice", SHORT))
        clock.advance(10**7)
        fake.deriver.run_until_idle()
        assert counts(http) == (1, 0, 0)


@pytest.mark.parametrize("gate", [BatchGate(flush=True), BatchGate(target_tokens=0)], ids=str)
def test_flush_or_a_zero_target_claims_at_once(clock: SetClock, gate: BatchGate) -> None:
    with gated_fake(clock, gate, deriver="immediate") as (_fake, http):
        write(http, ("alice", SHORT))
        assert counts(http) == (0, 0, 1)


def test_flush_runs_what_the_gate_holds(fake: FakeHoncho, http: httpx.Client) -> None:
    write(http, ("alice", SHORT))
    fake.deriver.flush()
    assert counts(http) == (0, 0, 1)
    assert conclusions(http) == ["alice prefers green tea"]
    assert fake.store.count(HELD) == 0


def test_tokens_count_once_per_message_whatever_the_observers(
    fake: FakeHoncho, http: httpx.Client
) -> None:
    """The real work unit is (session, sender); its tokens are its messages', once each."""
    peers = {"alice": {}, "bob": {"observe_others": True}}
    http.post("/v3/workspaces/ws/sessions", json={"id": "s1", "peers": peers})
    half = " ".join(f"w{i}" for i in range(140))  # about 280 tokens: two are over 512
    write(http, ("alice", half))
    assert fake.deriver.step() is False  # two observers, but still one message's tokens
    write(http, ("alice", half))
    assert fake.deriver.step() is True


def test_work_units_are_per_sender(fake: FakeHoncho, http: httpx.Client) -> None:
    half = " ".join(f"w{i}" for i in range(140))
    write(http, ("alice", half), ("bob", half))
    assert fake.deriver.step() is False  # neither sender's work unit holds 512 tokens
    assert counts(http, sender_id="alice") == (1, 0, 0)


def test_summaries_are_not_held(fake: FakeHoncho, http: httpx.Client) -> None:
    write(http, *[("alice", f"note {i}") for i in range(20)])  # the 20th asks for a summary
    fake.deriver.run_until_idle()
    assert counts(http) == (20, 0, 1)
    summaries = http.get("/v3/workspaces/ws/sessions/s1/summaries").json()
    assert summaries["short_summary"] is not None


def test_a_claimed_work_unit_takes_items_queued_after_the_claim(
    fake: FakeHoncho, http: httpx.Client
) -> None:
    write(http, ("alice", LONG))
    assert fake.deriver.step() is True  # claimed
    write(http, ("alice", SHORT), ("bob", SHORT))  # alice's joins the claim, bob's is held
    assert counts(http) == (1, 2, 0)
    fake.deriver.run_until_idle()
    assert counts(http) == (1, 0, 2)
    write(http, ("alice", SHORT))  # the claim ended with its last item: held again
    assert counts(http) == (2, 0, 2)


def test_held_work_survives_a_restart_and_reset_forgets_it(clock: SetClock, tmp_path: Path) -> None:
    state = tmp_path / "state.jsonl"
    with gated_fake(clock, state_file=state) as (_fake, http):
        write(http, ("alice", SHORT))
    with gated_fake(clock, state_file=state) as (again, http):
        assert counts(http) == (1, 0, 0)
        clock.advance(1800)
        again.deriver.run_until_idle()
        assert counts(http) == (0, 0, 1)
        write(http, ("alice", SHORT))
        again.reset()
        assert again.store.count(HELD) == 0


def test_gated_mode_runs_in_the_background(clock: SetClock) -> None:
    with gated_fake(clock, deriver="gated") as (_fake, http):
        write(http, ("alice", SHORT), ("bob", LONG))
        deadline = time.monotonic() + 10
        while counts(http, sender_id="bob") != (0, 0, 1) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert counts(http, sender_id="bob") == (0, 0, 1)
        assert counts(http, sender_id="alice") == (1, 0, 0)


# -- settings ------------------------------------------------------------------------------


def test_gated_mode_reads_the_real_servers_environment(
    clock: SetClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DERIVER_FLUSH_ENABLED", "true")
    with FakeHoncho(deriver="gated", clock=clock) as fake:
        assert fake.deriver.gate == BatchGate(flush=True)


def test_gate_defaults_are_the_real_servers() -> None:
    assert BatchGate.from_env({}) == BatchGate(512, 1800, False)
    environ = {
        "DERIVER_REPRESENTATION_BATCH_WORK_UNIT_TARGET_TOKENS": " 100 ",
        "DERIVER_REPRESENTATION_BATCH_MAX_AGE_SECONDS": "0",
        "DERIVER_FLUSH_ENABLED": "Yes",
    }
    assert BatchGate.from_env(environ) == BatchGate(100, 0, True)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("DERIVER_REPRESENTATION_BATCH_WORK_UNIT_TARGET_TOKENS", "lots"),
        ("DERIVER_REPRESENTATION_BATCH_WORK_UNIT_TARGET_TOKENS", "16385"),
        ("DERIVER_REPRESENTATION_BATCH_MAX_AGE_SECONDS", "-1"),
        ("DERIVER_FLUSH_ENABLED", "maybe"),
    ],
)
def test_bad_settings_fail_fast_naming_the_key(key: str, value: str) -> None:
    with pytest.raises(ValueError, match=key):
        BatchGate.from_env({key: value})


def test_cli_gated_mode_with_a_bad_setting_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fake_honcho import cli

    monkeypatch.setenv("DERIVER_FLUSH_ENABLED", "sometimes")
    assert cli.main(["--deriver", "gated", "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "fake-honcho: error: DERIVER_FLUSH_ENABLED must be a boolean (true/false), not 'sometimes'"
    ]
