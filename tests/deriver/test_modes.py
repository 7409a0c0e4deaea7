"""Deriver modes, queue order, determinism, reset and persistence of queued work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.deriver import Deriver, DeriverMode
from fake_honcho.deriver import queue as deriver_queue
from fake_honcho.deriver.work import Worker
from fake_honcho.store.state import Store

from .support import TickingClock, World, make_fake

DERIVED = ("conclusions", "peer_cards", "summaries", *deriver_queue.COLLECTIONS)


def script(world: World) -> None:
    """The same conversation for every fake in this module."""
    world.session("s", {"alice": {}, "bob": {"observe_others": True}})
    world.say("s", "alice", "Hi, I'm Alice. I prefer green tea.", "I live in Paris")
    world.say("s", "bob", "I work as a baker", *[f"filler {n}" for n in range(17)])
    world.say("s", "alice", "I don't like cilantro")


def run_script(mode: DeriverMode, **options: Any) -> FakeHoncho:
    fake = make_fake(mode, **options)
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as http:
        script(World(fake, http))
    return fake


def derived_state(fake: FakeHoncho) -> str:
    """Everything the deriver wrote, serialised byte for byte."""
    dump = {
        name: [
            [list(key) if isinstance(key, tuple) else key, row]
            for key, row in fake.store.items(name)
        ]
        for name in DERIVED
    }
    return json.dumps(dump, sort_keys=True)


def pending(fake: FakeHoncho) -> int:
    count: int = fake.deriver.status("ws")["pending_work_units"]
    return count


def test_immediate_work_is_done_before_the_request_returns() -> None:
    with run_script("immediate") as fake:
        assert pending(fake) == 0
        # one status item per message, whatever its observers: 25 units make 22 items
        assert fake.deriver.status("ws")["completed_work_units"] == 22
        assert fake.store.count("conclusions") == 9


def test_manual_waits_for_step_and_runs_in_queue_order() -> None:
    with run_script("manual") as fake:
        assert (pending(fake), fake.store.count("conclusions")) == (22, 0)
        remaining = fake.deriver.queued()
        assert [unit["id"] for unit in remaining] == list(range(1, 26))
        while fake.deriver.step():
            _ran, *remaining = remaining  # the oldest unit is the one that ran
            assert fake.deriver.queued() == remaining
        assert remaining == []
        assert fake.store.count("conclusions") == 9


def test_background_drains_and_matches_immediate() -> None:
    with run_script("immediate") as reference, run_script("background") as fake:
        fake.deriver.run_until_idle()
        assert pending(fake) == 0
        contents = lambda f: sorted(  # noqa: E731
            (row["id"], row["observer_id"], row["content"]) for row in f.store.rows("conclusions")
        )
        assert contents(fake) == contents(reference)


def test_close_stops_the_background_worker() -> None:
    with make_fake("background") as fake:
        fake.deriver.close()
        with httpx.Client(transport=fake.transport(), base_url="http://fake") as http:
            world = World(fake, http)
            world.session("s", {"alice": {}})
            world.say("s", "alice", "I like tea")
        assert pending(fake) == 1
        fake.deriver.run_until_idle()
        assert pending(fake) == 0


@pytest.mark.parametrize("mode", ["immediate", "manual"])
def test_identical_inputs_give_byte_identical_results(mode: DeriverMode) -> None:
    with run_script(mode) as first, run_script(mode) as second:
        first.deriver.run_until_idle()
        second.deriver.run_until_idle()
        assert derived_state(first) == derived_state(second)
        assert '"alice prefers green tea"' in derived_state(first)


def test_reset_forgets_derived_state_and_keeps_working() -> None:
    with run_script("immediate") as fake:
        fake.reset()
        assert all(fake.store.count(name) == 0 for name in DERIVED)
        assert fake.deriver.status("ws") == {
            "total_work_units": 0,
            "completed_work_units": 0,
            "in_progress_work_units": 0,
            "pending_work_units": 0,
            "sessions": None,
        }
        with httpx.Client(transport=fake.transport(), base_url="http://fake") as http:
            world = World(fake, http)
            world.session("s", {"alice": {}})
            world.say("s", "alice", "I like tea")
        assert [row["content"] for row in fake.store.rows("conclusions")] == ["alice likes tea"]


def test_queued_work_survives_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "state.jsonl"
    with run_script("manual", state_file=state) as fake:
        assert pending(fake) == 22
    with make_fake("manual", state_file=state) as again:
        assert pending(again) == 22
        again.deriver.run_until_idle()
        assert (pending(again), again.store.count("conclusions")) == (0, 9)


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="immediate, manual, background"):
        Deriver(Store(), "eventually", clock=TickingClock())  # type: ignore[arg-type]


def test_a_failing_unit_is_completed_with_its_error_and_work_goes_on(
    fake: FakeHoncho, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.session("s", {"alice": {}})
    world.say("s", "alice", "I like tea", "I like cake")
    broken = Worker.representation

    def fail_on_tea(self: Worker, unit: dict[str, Any]) -> None:
        if "tea" in fake.store.get("messages", unit["message_id"])["content"]:
            raise RuntimeError("boom")
        broken(self, unit)

    monkeypatch.setattr(Worker, "representation", fail_on_tea)
    fake.deriver.run_until_idle()
    assert [(unit["id"], unit["error"]) for unit in fake.deriver.failures()] == [
        (1, "RuntimeError: boom")
    ]
    assert fake.deriver.queued() == []
    assert [row["content"] for row in fake.store.rows("conclusions")] == ["alice likes cake"]
    assert fake.deriver.status("ws")["completed_work_units"] == 2
