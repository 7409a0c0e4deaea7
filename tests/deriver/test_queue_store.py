"""How queued work is kept: batches, folded completed counts, restarts and older state files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.deriver import queue
from fake_honcho.deriver.work import Worker

from .support import World, make_fake


def conversation(fake: FakeHoncho) -> str:
    """Two sessions, two observers of alice; returns the internal id of session ``s``."""
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as http:
        world = World(fake, http)
        internal = world.session("s", {"alice": {}, "bob": {"observe_others": True}})
        world.session("t", {"bob": {}})
        world.say("s", "alice", "I like tea", "I live in Oslo")
        world.say("t", "bob", "I work as a baker")
        world.say("s", "bob", "I like coffee")
    return internal


def statuses(fake: FakeHoncho) -> list[dict[str, Any]]:
    """Queue status unfiltered and under each filter the route offers."""
    return [
        fake.deriver.status("ws"),
        fake.deriver.status("ws", session_id="t"),
        fake.deriver.status("ws", observer="bob"),
        fake.deriver.status("ws", sender="alice"),
    ]


def test_a_batch_per_request_and_one_counts_row_per_pair_once_done() -> None:
    with make_fake("manual") as fake:
        conversation(fake)
        assert fake.store.count(queue.COLLECTION) == 3  # one row per messages request
        assert [unit["id"] for unit in fake.deriver.queued()] == list(range(1, 7))
        pending = statuses(fake)
        fake.deriver.run_until_idle()
        assert fake.store.count(queue.COLLECTION) == 0
        # (session, observed), one item per message: s alice, t bob, s bob
        assert fake.store.count(queue.COMPLETED_COLLECTION) == 3
        for before, after in zip(pending, statuses(fake), strict=True):
            assert after["completed_work_units"] == before["pending_work_units"]
            assert after["total_work_units"] == before["total_work_units"]
            assert after["pending_work_units"] == 0


def test_completed_counts_survive_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "state.jsonl"
    with make_fake("immediate", state_file=state) as fake:
        internal = conversation(fake)
        before = statuses(fake)
    assert before[0]["sessions"][internal]["completed_work_units"] == 3
    with make_fake("manual", state_file=state) as again:
        assert statuses(again) == before
        assert again.deriver.step() is False


def test_a_queue_stopped_inside_a_batch_resumes_where_it_stopped(tmp_path: Path) -> None:
    state = tmp_path / "state.jsonl"
    with make_fake("manual", state_file=state) as fake:
        conversation(fake)
        # Units 1 and 2 of the first batch (units 1 to 4).
        assert fake.deriver.step() and fake.deriver.step()
        remaining = fake.deriver.queued()
        before = statuses(fake)
    assert [unit["id"] for unit in remaining] == [3, 4, 5, 6]
    with make_fake("manual", state_file=state) as again:
        assert again.deriver.queued() == remaining
        assert statuses(again) == before
        again.deriver.run_until_idle()
        assert again.deriver.status("ws")["completed_work_units"] == 4
        assert again.store.count("conclusions") == 6


def test_failures_are_kept_with_their_unit_across_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(self: Worker, unit: dict[str, Any]) -> None:
        raise RuntimeError(f"no {unit['observer']}")

    monkeypatch.setattr(Worker, "representation", fail)
    state = tmp_path / "state.jsonl"
    with make_fake("immediate", state_file=state) as fake:
        conversation(fake)
        failures = fake.deriver.failures()
    assert [(unit["id"], unit["error"]) for unit in failures[:2]] == [
        (1, "RuntimeError: no alice"),
        (2, "RuntimeError: no bob"),
    ]
    assert len(failures) == 6 and all(unit["status"] == "completed" for unit in failures)
    with make_fake("manual", state_file=state) as again:
        assert again.deriver.failures() == failures
        assert again.deriver.status("ws")["completed_work_units"] == 4


def test_the_running_unit_is_in_progress_in_what_the_queue_shows(
    fake: FakeHoncho, monkeypatch: pytest.MonkeyPatch
) -> None:
    conversation(fake)
    seen: list[list[str]] = []
    run = Worker.run

    def record(self: Worker, unit: dict[str, Any]) -> None:
        seen.append([queued["status"] for queued in fake.deriver.queued()])
        run(self, unit)

    monkeypatch.setattr(Worker, "run", record)
    fake.deriver.step()
    assert seen == [["in_progress"] + ["pending"] * 5]
    assert [unit["status"] for unit in fake.deriver.queued()] == ["pending"] * 5


# -- state files written before queue units were kept in batches -------------------------


def legacy_unit(row_id: int, message: dict[str, Any], internal: str, **fields: Any) -> Any:
    unit = {
        "id": row_id,
        "workspace_id": "ws",
        "session_id": "s",
        "session_uid": internal,
        "message_id": message["id"],
        "task_type": "representation",
        "observer": "alice",
        "observed": "alice",
        "created_at": "2026-01-02T03:04:05Z",
        **fields,
    }
    return {"c": "queue", "k": f"{row_id:012d}", "r": unit}


def test_a_state_file_with_one_row_per_unit_still_loads(tmp_path: Path) -> None:
    state = tmp_path / "state.jsonl"
    with (
        make_fake("manual", state_file=state) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as http,
    ):
        world = World(fake, http)
        internal = world.session("s", {"alice": {}})
        tea, cake, cocoa = world.say("s", "alice", "I like tea", "I like cake", "I like cocoa")
    lines = [json.loads(line) for line in state.read_text().splitlines()]
    kept = [line for line in lines if line.get("c") not in queue.COLLECTIONS]
    legacy = [
        legacy_unit(1, tea, internal, status="completed", error="RuntimeError: boom"),
        legacy_unit(2, cake, internal, status="in_progress"),
        legacy_unit(3, cocoa, internal, status="completed"),
        {"c": "queue_counter", "k": "next", "r": {"value": 3}},
    ]
    state.write_text("".join(json.dumps(line) + "\n" for line in kept + legacy))

    with make_fake("manual", state_file=state) as again:
        assert again.deriver.status("ws")["sessions"] == {
            internal: {
                "session_id": internal,
                "total_work_units": 3,
                "completed_work_units": 2,
                "in_progress_work_units": 0,
                "pending_work_units": 1,
            }
        }
        assert [unit["id"] for unit in again.deriver.queued()] == [2]
        assert [(unit["id"], unit["error"]) for unit in again.deriver.failures()] == [
            (1, "RuntimeError: boom")
        ]
        again.deriver.run_until_idle()
        assert [row["content"] for row in again.store.rows("conclusions")] == ["alice likes cake"]
        with httpx.Client(transport=again.transport(), base_url="http://fake") as http:
            World(again, http).say("s", "alice", "I like tea")
        assert [unit["id"] for unit in again.deriver.queued()] == [4]
    # Rewritten in the current shape: nothing of the old one is left.
    records = [json.loads(line) for line in state.read_text().splitlines()[1:]]
    assert all(
        isinstance(record["r"]["task_type"], list)
        for record in records
        if record["c"] == queue.COLLECTION
    )
