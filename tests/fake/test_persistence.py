"""``--state-file``: replay, compaction, torn tails and corrupt files, at the store level."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.harness.persistence import HEADER, KNOWN_COLLECTIONS, StateFile, StateFileError
from fake_honcho.http.auth import ISSUED_KEYS
from fake_honcho.store.state import Store

WS_A = '{"c":"workspaces","k":"a","r":{"id":"a"}}'


def fill(store: Store) -> None:
    store.put("workspaces", "ws", {"id": "ws", "metadata": {"n": 1}})
    store.put("peers", ("ws", "alice"), {"id": "alice", "metadata": {}})
    store.put("peers", ("ws", "bob"), {"id": "bob", "metadata": {}})
    store.put("workspaces", "ws", {"id": "ws", "metadata": {"n": 2}})
    store.delete("peers", ("ws", "bob"))


def snapshot(store: Store) -> dict[str, list[tuple[object, object]]]:
    return {name: list(store.items(name)) for name in store.collections() if store.count(name)}


def crash_image(path: Path) -> Path:
    """A copy of what is on disk right now, as a SIGKILL would leave it."""
    image = path.with_name("crashed.jsonl")
    image.write_bytes(path.read_bytes())
    return image


def test_every_change_is_on_disk_before_close_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    first = Store()
    running = StateFile(path, first)
    fill(first)

    second = Store()
    state = StateFile(crash_image(path), second)
    running.close()
    assert snapshot(second) == snapshot(first)
    assert second.get("peers", ("ws", "alice")) == {"id": "alice", "metadata": {}}
    assert second.get("peers", ("ws", "bob")) is None
    state.close()


def test_open_and_close_compact_to_one_record_per_live_row(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    store = Store()
    state = StateFile(path, store)
    fill(store)
    assert len(path.read_text().splitlines()) == 1 + 5  # header + every change
    state.close()
    lines = path.read_text().splitlines()
    assert lines[0] == HEADER.strip()
    assert [json.loads(line) for line in lines[1:]] == [
        {"c": "workspaces", "k": "ws", "r": {"id": "ws", "metadata": {"n": 2}}},
        {"c": "peers", "k": ["ws", "alice"], "r": {"id": "alice", "metadata": {}}},
    ]
    state.close()  # idempotent
    store.put("workspaces", "late", {"id": "late"})
    assert "late" not in path.read_text()


def test_replay_notifies_listeners_so_indexes_rebuild(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    writer = Store()
    state = StateFile(path, writer)
    fill(writer)
    state.close()
    seen: list[object] = []
    reader = Store()
    reader.subscribe(lambda collection, key, old, new: seen.append(key))
    StateFile(path, reader).close()
    assert seen == ["ws", ("ws", "alice")]


def test_a_torn_final_line_is_dropped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "state.jsonl"
    store = Store()
    running = StateFile(path, store)
    fill(store)
    image = crash_image(path)
    running.close()
    with image.open("ab") as log:
        log.write(b'{"c":"workspaces","k":"torn","r":{"id"')
    restored = Store()
    with caplog.at_level(logging.WARNING, logger="fake_honcho.persistence"):
        StateFile(image, restored).close()
    assert [record.getMessage() for record in caplog.records] == [
        f"{image}:7: dropping a torn final line (an interrupted write)"
    ]
    assert restored.get("workspaces", "torn") is None
    assert snapshot(restored) == snapshot(store)
    assert "torn" not in image.read_text()


def test_a_complete_final_record_missing_only_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    path.write_text(HEADER + '{"c":"workspaces","k":"ws","r":{"id":"ws"}}')
    store = Store()
    StateFile(path, store).close()
    assert store.get("workspaces", "ws") == {"id": "ws"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (HEADER + "{not json}\n" + f"{WS_A}\n", r"state.jsonl:2: corrupt"),
        (HEADER + f"{WS_A}\n" + '{"c":"workspaces","k":5}\n', r"state.jsonl:3: corrupt"),
        (HEADER + '{"c":"workspaces","k":"a","r":[1]}\n', r"state.jsonl:2: corrupt"),
        (HEADER + '["c"]\n', r"state.jsonl:2: corrupt"),
        ('{"hello": "world"}\n', r"state.jsonl:1: not a fake-honcho state file"),
        ('{"format":"fake-honcho-state","version":99}\n', r"state.jsonl:1: unsupported"),
    ],
)
def test_a_corrupt_file_refuses_to_start_and_is_left_untouched(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "state.jsonl"
    path.write_text(content)
    with pytest.raises(StateFileError, match=message):
        StateFile(path, Store())
    assert path.read_text() == content


@pytest.mark.parametrize(
    "content",
    [
        b"notes",
        b"notes\n",
        b"my notes\nsecond line",
        b"\n",
        b'{"format": "fake-honcho-state", "version": 1',  # JSON-ish, but not our header's bytes
        HEADER.encode() + b"a line appended by hand",
        HEADER.encode() + b'{"c":"workspaces"}',  # complete JSON, so not a torn write
    ],
)
def test_a_file_that_is_not_a_state_file_is_refused_and_left_byte_identical(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    with pytest.raises(StateFileError, match=r"notes.txt:\d+: "):
        StateFile(path, Store())
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # no lock, no temp file


def test_a_header_torn_by_the_first_write_counts_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    path.write_bytes(HEADER.encode()[:17])
    store = Store()
    StateFile(path, store).close()
    assert store.collections() == []
    assert path.read_text() == HEADER


def test_a_record_naming_an_unknown_collection_refuses_start_up(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    for tail in ('{"c":"wrokspaces","k":"b","r":{}}\n', '{"c":"wrokspaces","k":"b"}'):
        content = HEADER + WS_A + "\n" + tail
        path.write_text(content)
        with pytest.raises(
            StateFileError, match=r"state.jsonl:3: record names an unknown collection 'wrokspaces'"
        ):
            StateFile(path, Store())
        assert path.read_text() == content


def test_every_collection_a_workload_creates_is_known(tmp_path: Path) -> None:
    """A collection missing from KNOWN_COLLECTIONS would make its own state file unloadable."""
    ws = "/v3/workspaces/ws"
    with (
        FakeHoncho(api_key="k", state_file=tmp_path / "state.jsonl") as fake,
        httpx.Client(
            transport=fake.transport(),
            base_url="http://fake",
            headers={"Authorization": "Bearer k"},
        ) as client,
    ):
        client.post(f"{ws}/sessions", json={"id": "s", "peers": {"ann": {}, "bob": {}}})
        for n in range(21):
            client.post(
                f"{ws}/sessions/s/messages",
                json={"messages": [{"peer_id": "ann", "content": f"I like tea number {n}"}]},
            ).raise_for_status()
        client.post(f"{ws}/webhooks", json={"url": "https://example.com/hook"}).raise_for_status()
        client.post("/v3/keys", params={"workspace_id": "ws"}).raise_for_status()
        client.post(
            f"{ws}/schedule_dream", json={"observer": "ann", "dream_type": "omni"}
        ).raise_for_status()
        created = set(fake.store.collections())
    assert created - KNOWN_COLLECTIONS == set()
    assert {"messages", "webhooks", "conclusions", "summaries", ISSUED_KEYS} <= created
    StateFile(tmp_path / "state.jsonl", Store()).close()  # and it loads again


def test_the_lock_file_is_removed_at_close_and_a_leftover_one_is_taken(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    lock = tmp_path / "state.jsonl.lock"
    state = StateFile(path, Store())
    assert lock.read_bytes().startswith(b"fake-honcho state file lock")
    state.close()
    assert not lock.exists()
    lock.write_bytes(b"fake-honcho state file lock (pid 1)\n")  # as a SIGKILL leaves it
    StateFile(path, Store()).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.jsonl"]


def test_files_beside_the_state_file_are_never_clobbered(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    lock = tmp_path / "state.jsonl.lock"
    lock.write_bytes(b"someone else's lock")
    with pytest.raises(StateFileError, match="is not a fake-honcho lock file"):
        StateFile(path, Store())
    assert lock.read_bytes() == b"someone else's lock"
    assert not path.exists()
    lock.unlink()
    mine = tmp_path / "state.jsonl.compacting"
    mine.write_bytes(b"my data")
    StateFile(path, Store()).close()
    assert mine.read_bytes() == b"my data"


def test_an_unreadable_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StateFileError, match="is a directory"):
        StateFile(tmp_path, Store())
    missing = tmp_path / "missing"
    with pytest.raises(
        StateFileError,
        match=rf"cannot create lock file {missing}/state.jsonl.lock: "
        rf"directory {missing} does not exist",
    ):
        StateFile(missing / "state.jsonl", Store())


def test_a_start_that_fails_removes_the_file_it_created_but_never_an_existing_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store()

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("disk went away")

    monkeypatch.setattr(store, "subscribe", refuse)
    with pytest.raises(OSError, match="disk went away"):
        StateFile(tmp_path / "new.jsonl", store)
    assert list(tmp_path.iterdir()) == []
    existing = tmp_path / "kept.jsonl"
    existing.write_text(HEADER + WS_A + "\n")
    with pytest.raises(OSError, match="disk went away"):
        StateFile(existing, store)
    assert [p.name for p in tmp_path.iterdir()] == ["kept.jsonl"]


def test_a_missing_or_empty_file_starts_empty(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    for path in (tmp_path / "new.jsonl", empty):
        store = Store()
        StateFile(path, store).close()
        assert store.collections() == []
        assert path.read_text() == HEADER


def test_request_cost_does_not_grow_with_stored_data(tmp_path: Path) -> None:
    """Each change appends exactly its own record: the file never gets rewritten."""
    path = tmp_path / "state.jsonl"
    store = Store()
    state = StateFile(path, store)
    for n in range(200):
        store.put("messages", f"m{n}", {"id": f"m{n}", "content": "x" * 50})
    size = path.stat().st_size
    store.put("messages", "last", {"id": "last"})
    appended = path.stat().st_size - size
    assert appended == len(b'{"c":"messages","k":"last","r":{"id":"last"}}\n')
    state.close()


def test_a_second_process_cannot_open_a_file_in_use(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    state = StateFile(path, Store())
    with pytest.raises(StateFileError, match="in use by another process"):
        StateFile(path, Store())
    state.close()
    StateFile(path, Store()).close()  # released on close


def test_a_fake_restarted_on_its_state_file_finds_and_continues_its_data(tmp_path: Path) -> None:
    """Replay goes through the store's listeners, so search indexes are rebuilt too."""
    path = tmp_path / "state.jsonl"
    messages = "/v3/workspaces/ws/sessions/s/messages"
    with (
        FakeHoncho(state_file=path) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        client.post(
            messages, json={"messages": [{"peer_id": "ann", "content": "zebras love mangoes"}]}
        ).raise_for_status()
    with (
        FakeHoncho(state_file=path) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        found = client.post("/v3/workspaces/ws/search", json={"query": "zebras"}).json()
        assert [message["content"] for message in found] == ["zebras love mangoes"]
        client.post(
            messages, json={"messages": [{"peer_id": "ann", "content": "second"}]}
        ).raise_for_status()
        listed = client.post(f"{messages}/list").json()["items"]
        assert [message["content"] for message in listed] == ["zebras love mangoes", "second"]
