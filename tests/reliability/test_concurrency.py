"""Eight threads drive one ``HonchoMemoryManager`` against one served fake whose deriver
runs in the background: no message lost or duplicated, no 5xx, and the journal's counts
agree with what the threads sent."""

from __future__ import annotations

import threading
from collections import Counter
from types import SimpleNamespace

from fake_honcho import FakeHoncho
from honcho_backend import HonchoMemoryManager
from honcho_backend.config import session_id_for

from .support import API_KEY

THREADS = 8
TURNS = 250
USERS = 4  # two threads per user: concurrent writes into one workspace
READ_EVERY = 25
WINDOW = 20  # messages the host keeps in state; older ones are summarised away


def turn(thread: int, number: int) -> list[SimpleNamespace]:
    return [
        SimpleNamespace(type="human", content=f"I like topic {thread}-{number}"),
        SimpleNamespace(type="ai", content=f"Noted: topic {thread}-{number}"),
    ]


def drive(manager: HonchoMemoryManager, thread: int, errors: list[BaseException]) -> None:
    user = f"user-{thread % USERS}"
    history: list[SimpleNamespace] = []
    try:
        for number in range(TURNS):
            # DeerFlow hands the conversation state to every add; its summarisation keeps
            # that state bounded, so the oldest messages drop out of the window.
            history = [*history, *turn(thread, number)][-WINDOW:]
            manager.add(f"thread-{thread}", history, user_id=user)
            if number % READ_EVERY == READ_EVERY - 1:
                manager.get_context(user)
                manager.search(f"topic {thread}-{number}", user_id=user)
    except BaseException as error:
        errors.append(error)


def test_eight_threads_lose_and_duplicate_nothing() -> None:
    with FakeHoncho(api_key=API_KEY, deriver="background") as fake, fake.serve() as url:
        manager = HonchoMemoryManager.from_config(
            {
                "base_url": url,
                "api_key": API_KEY,
                "allow_insecure_http": True,
                "failure_policy": {"read": "fail_closed"},
            }
        )
        errors: list[BaseException] = []
        workers = [
            threading.Thread(target=drive, args=(manager, index, errors))
            for index in range(THREADS)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        fake.deriver.run_until_idle()
        assert errors == []
        # The deriver worked through every unit without an error, and what it derived is
        # readable through the manager.
        assert fake.deriver.queued() == []
        assert fake.deriver.failures() == []
        for workspace in fake.store.rows("workspaces"):
            status = fake.deriver.status(workspace["id"])
            assert status["completed_work_units"] == status["total_work_units"] > 0
        for user in range(USERS):
            assert "topic" in manager.get_context(f"user-{user}")
        manager.close()

    # The server has stopped, so every request it handled is in the journal.
    for index in range(THREADS):
        session = session_id_for(f"thread-{index}")
        stored = [
            row["content"] for row in fake.store.rows("messages") if row["session_id"] == session
        ]
        sent = [message.content for number in range(TURNS) for message in turn(index, number)]
        assert stored == sent, f"thread {index}: {len(stored)} stored, {len(sent)} sent"

    entries = list(fake.requests)
    statuses = Counter(entry.status for entry in entries)
    assert set(statuses) <= {200, 201}, statuses
    posts = [
        entry
        for entry in entries
        if entry.method == "POST" and entry.path.endswith("/messages") and entry.status == 201
    ]
    assert len(posts) == THREADS * TURNS  # one batch per turn: nothing resent
    assert sum(len(entry.json["messages"]) for entry in posts) == THREADS * TURNS * 2
    assert fake.store.count("messages") == THREADS * TURNS * 2
    assert fake.store.count("workspaces") == USERS
