"""Who observes whom, when work is queued, and what queue status reports."""

from __future__ import annotations

import pytest

from fake_honcho import FakeHoncho
from fake_honcho.deriver.work import Worker

from .support import World


def pairs(fake: FakeHoncho) -> list[tuple[str | None, str | None, str]]:
    """(observer, observed, task) of every queued unit, in queue order."""
    return [
        (unit["observer"], unit["observed"], unit["task_type"]) for unit in fake.deriver.queued()
    ]


def test_sender_is_observed_by_default_and_observe_others_members_watch(
    fake: FakeHoncho, world: World
) -> None:
    world.session("s", {"alice": {}, "bob": {"observe_others": True}, "carol": {}})
    world.say("s", "alice", "I like tea")
    assert pairs(fake) == [("alice", "alice", "representation"), ("bob", "alice", "representation")]


@pytest.mark.parametrize(
    ("peer_config", "session_config", "observed"),
    [
        ({}, {}, True),
        ({"observe_me": False}, {}, False),
        ({"observe_me": False}, {"observe_me": True}, True),
        ({}, {"observe_me": False}, False),
        ({"observe_me": True}, {"observe_me": None}, True),
    ],
)
def test_session_peer_config_overrides_peer_configuration(
    fake: FakeHoncho, world: World, peer_config: dict, session_config: dict, observed: bool
) -> None:
    world.peer("alice", **peer_config)
    world.session("s", {"alice": session_config, "bob": {"observe_others": True}})
    world.say("s", "alice", "I like tea")
    expected = [("alice", "alice", "representation"), ("bob", "alice", "representation")]
    # As in Honcho, an unobserved sender creates no representation work at all,
    # not even for members that observe others.
    assert pairs(fake) == (expected if observed else [])


def test_a_member_who_left_observes_nothing(fake: FakeHoncho, world: World) -> None:
    world.session("s", {"alice": {}, "bob": {"observe_others": True}})
    world.leave("s", "bob")
    world.say("s", "alice", "I like tea")
    assert pairs(fake) == [("alice", "alice", "representation")]


@pytest.mark.parametrize("level", ["message", "session", "workspace"])
def test_reasoning_disabled_at_any_level_skips_representation_work(
    fake: FakeHoncho, world: World, level: str
) -> None:
    off = {"reasoning": {"enabled": False}}
    if level == "workspace":
        world.configure_workspace(off)
    world.session("s", {"alice": {}}, configuration=off if level == "session" else None)
    world.say("s", "alice", "I like tea", configuration=off if level == "message" else None)
    assert pairs(fake) == []


def test_message_level_reasoning_beats_a_disabled_session(fake: FakeHoncho, world: World) -> None:
    world.session("s", {"alice": {}}, configuration={"reasoning": {"enabled": False}})
    world.say("s", "alice", "I like tea", configuration={"reasoning": {"enabled": True}})
    assert pairs(fake) == [("alice", "alice", "representation")]


def test_legacy_deriver_key_reads_as_reasoning(fake: FakeHoncho, world: World) -> None:
    world.session("s", {"alice": {}}, configuration={"deriver": {"enabled": False}})
    world.say("s", "alice", "I like tea")
    assert pairs(fake) == []


def test_summary_work_at_every_20th_and_60th_message(fake: FakeHoncho, world: World) -> None:
    world.session("s", {"alice": {"observe_me": False}})
    world.say("s", "alice", *[f"message {n}" for n in range(1, 121)])
    summary_seqs = [unit["seq"] for unit in fake.deriver.queued()]
    assert summary_seqs == [20, 40, 60, 80, 100, 120]


def test_configured_summary_cadence_and_disabled_summaries(fake: FakeHoncho, world: World) -> None:
    cadence = {"summary": {"messages_per_short_summary": 10, "messages_per_long_summary": 25}}
    world.session("s", {"alice": {"observe_me": False}}, configuration=cadence)
    world.session(
        "quiet", {"alice": {"observe_me": False}}, configuration={"summary": {"enabled": False}}
    )
    world.say("s", "alice", *["x"] * 50)
    world.say("quiet", "alice", *["x"] * 60)
    assert [unit["seq"] for unit in fake.deriver.queued()] == [10, 20, 25, 30, 40, 50]


def test_summary_work_is_queued_even_when_reasoning_is_off(fake: FakeHoncho, world: World) -> None:
    world.session("s", {"alice": {}}, configuration={"reasoning": {"enabled": False}})
    world.say("s", "alice", *["x"] * 20)
    assert pairs(fake) == [(None, None, "summary")]


def test_queue_status_before_and_after_settling(fake: FakeHoncho, world: World) -> None:
    internal = world.session("s", {"alice": {}, "bob": {"observe_others": True}})
    world.say("s", "alice", "I like tea", "I live in Oslo")
    # one item per message, as Honcho queues it with every observer in its payload
    pending = {
        "total_work_units": 2,
        "completed_work_units": 0,
        "in_progress_work_units": 0,
        "pending_work_units": 2,
    }
    assert fake.deriver.status("ws") == {
        **pending,
        "sessions": {internal: {"session_id": internal, **pending}},
    }
    assert fake.deriver.step() is True  # alice's own unit: the item still awaits bob's
    after_one = fake.deriver.status("ws")
    assert (after_one["completed_work_units"], after_one["pending_work_units"]) == (0, 2)
    assert fake.deriver.step() is True
    after_two = fake.deriver.status("ws")
    assert (after_two["completed_work_units"], after_two["pending_work_units"]) == (1, 1)
    fake.deriver.run_until_idle()
    done = {**pending, "completed_work_units": 2, "pending_work_units": 0}
    assert fake.deriver.status("ws") == {
        **done,
        "sessions": {internal: {"session_id": internal, **done}},
    }
    assert fake.deriver.step() is False


def test_queue_status_filters(fake: FakeHoncho, world: World) -> None:
    world.session("s", {"alice": {}, "bob": {"observe_others": True}})
    world.session("t", {"bob": {}})
    world.say("s", "alice", "I like tea")
    world.say("t", "bob", "I like coffee")
    assert fake.deriver.status("ws")["total_work_units"] == 2
    by_session = fake.deriver.status("ws", session_id="t")
    assert (by_session["total_work_units"], by_session["sessions"]) == (1, None)
    # observer_id matches only a dream's observer (representation items carry a list of
    # observers), sender_id the observed peer; the real query ORs them.
    assert fake.deriver.status("ws", observer="bob")["total_work_units"] == 0
    assert fake.deriver.status("ws", sender="alice")["total_work_units"] == 1
    assert fake.deriver.status("ws", observer="bob", sender="bob")["total_work_units"] == 1
    assert fake.deriver.status("ws", observer="bob", sender="alice")["total_work_units"] == 1
    assert fake.deriver.status("other")["sessions"] is None


def test_in_progress_is_visible_while_a_unit_runs(
    fake: FakeHoncho, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.session("s", {"alice": {}})
    world.say("s", "alice", "I like tea", "I like cake")
    seen = []
    run = Worker.run
    monkeypatch.setattr(
        Worker, "run", lambda self, unit: (seen.append(fake.deriver.status("ws")), run(self, unit))
    )
    fake.deriver.step()
    counts = [
        (s["pending_work_units"], s["in_progress_work_units"], s["completed_work_units"])
        for s in seen
    ]
    assert counts == [(1, 1, 0)]
