"""FakeHoncho as a whole: journal, reset, serve(), sharing one fake across drivers."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from honcho import Honcho

from fake_honcho import FakeHoncho
from fake_honcho.versions import DEFAULT_VERSION


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho() as fake:
        yield fake


@pytest.fixture
def client(fake: FakeHoncho) -> Iterator[httpx.Client]:
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        yield client


def workspace_ids(client: httpx.Client) -> list[str]:
    return [
        item["id"]
        for item in client.post("/v3/workspaces/list", params={"size": 100}).json()["items"]
    ]


def test_the_journal_records_method_path_query_body_and_status(
    fake: FakeHoncho, client: httpx.Client
) -> None:
    client.post("/v3/workspaces", json={"id": "ws", "metadata": {"k": 1}})
    client.post("/v3/workspaces/list", params={"page": 1, "size": 2}, json={"filters": {}})
    client.post("/v3/workspaces", json={"id": "bad id!"})
    client.get("/health", params=[("tag", "a"), ("tag", "b")])
    first, listing, refused, health = fake.requests
    assert (first.method, first.path, first.json, first.status, first.fault) == (
        "POST",
        "/v3/workspaces",
        {"id": "ws", "metadata": {"k": 1}},
        201,
        None,
    )
    assert listing.query == {"page": "1", "size": "2"}
    assert listing.json == {"filters": {}}
    assert refused.status == 422
    assert health.query == {"tag": ["a", "b"]}
    assert health.json is None
    assert repr(first) == "<JournalEntry POST /v3/workspaces -> 201>"
    assert len(fake.requests) == 4
    assert [entry.status for entry in fake.requests[1:3]] == [200, 422]


def test_the_journal_keeps_non_json_bodies_raw(fake: FakeHoncho, client: httpx.Client) -> None:
    client.post(
        "/v3/workspaces", content=b"{not json", headers={"content-type": "application/json"}
    )
    entry = fake.requests[0]
    assert entry.json is None
    assert entry.body == b"{not json"
    assert entry.status == 422


def test_the_journal_records_the_fault_that_fired(fake: FakeHoncho, client: httpx.Client) -> None:
    fake.faults.add("POST /v3/workspaces status=503 times=1")
    assert client.post("/v3/workspaces", json={"id": "ws"}).status_code == 503
    assert client.post("/v3/workspaces", json={"id": "ws"}).status_code == 201
    faulted, served = fake.requests
    assert faulted.status == 503
    assert faulted.fault is not None and "503" in faulted.fault
    assert served.fault is None


def test_reset_drops_state_journal_faults_and_restarts_seeded_ids() -> None:
    with (
        FakeHoncho(seed=7) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        first_ids = [fake.new_id() for _ in range(3)]
        client.post("/v3/workspaces", json={"id": "ws"})
        fake.faults.add("GET /nowhere status=500")
        fake.reset()
        assert len(fake.requests) == 0
        assert len(fake.faults) == 0
        assert all(fake.store.count(name) == 0 for name in fake.store.collections())
        assert [fake.new_id() for _ in range(3)] == first_ids
        assert workspace_ids(client) == []
        assert client.post("/v3/workspaces", json={"id": "ws"}).status_code == 201


def test_serve_runs_a_real_server_and_stops_cleanly(fake: FakeHoncho) -> None:
    with fake.serve() as base_url:
        assert base_url.startswith("http://127.0.0.1:")
        with httpx.Client(base_url=base_url) as client:
            assert client.get("/health").json() == {"status": "ok"}
            assert client.post("/v3/workspaces", json={"id": "served"}).status_code == 201
            assert client.get("/v3/nope").json() == {"detail": "Not Found"}
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{base_url}/health")
    assert [entry.status for entry in fake.requests] == [200, 201, 404]


def test_serve_leaves_the_hosts_event_loop_policy_alone(fake: FakeHoncho) -> None:
    # uvicorn serves on uvloop when installed; a policy set process-wide would change
    # the loop of every asyncio test that runs after it.
    before = type(asyncio.get_event_loop_policy())
    with fake.serve() as base_url:
        assert httpx.get(f"{base_url}/health").status_code == 200
        assert type(asyncio.get_event_loop_policy()) is before
    assert type(asyncio.get_event_loop_policy()) is before


def test_two_servers_and_transports_share_one_fake(fake: FakeHoncho, client: httpx.Client) -> None:
    with fake.serve() as first, fake.serve() as second:
        assert first != second
        httpx.post(f"{first}/v3/workspaces", json={"id": "a"})
        httpx.post(f"{second}/v3/workspaces", json={"id": "b"})
    client.post("/v3/workspaces", json={"id": "c"})
    assert workspace_ids(client) == ["a", "b", "c"]


@pytest.mark.anyio
async def test_sync_async_and_served_clients_at_once_on_one_fake(fake: FakeHoncho) -> None:
    """Three drivers, several threads and two loops write into one store concurrently."""
    per_driver = 25

    def sync_writer(prefix: str) -> None:
        with httpx.Client(transport=fake.transport(), base_url="http://fake") as sync_client:
            for n in range(per_driver):
                assert sync_client.post("/v3/workspaces", json={"id": f"{prefix}{n}"}).is_success

    def served_writer(base_url: str) -> None:
        with httpx.Client(base_url=base_url) as served:
            for n in range(per_driver):
                assert served.post("/v3/workspaces", json={"id": f"http{n}"}).is_success

    async def async_writer() -> None:
        transport = fake.async_transport()
        async with httpx.AsyncClient(transport=transport, base_url="http://fake") as aclient:
            replies = await asyncio.gather(
                *(
                    aclient.post("/v3/workspaces", json={"id": f"async{n}"})
                    for n in range(per_driver)
                )
            )
        assert all(reply.is_success for reply in replies)

    with fake.serve() as base_url:
        threads = [
            threading.Thread(target=sync_writer, args=("t1-",)),
            threading.Thread(target=sync_writer, args=("t2-",)),
            threading.Thread(target=served_writer, args=(base_url,)),
            threading.Thread(target=lambda: asyncio.run(async_writer())),
        ]
        for thread in threads:
            thread.start()
        await async_writer()  # the test's own loop, while the threads run
        for thread in threads:
            thread.join()

    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        stored = set(workspace_ids_all(client))
    expected = {f"{p}{n}" for p in ("t1-", "t2-", "http", "async") for n in range(per_driver)}
    assert stored == expected
    assert len(fake.requests) == 5 * per_driver + 1


def workspace_ids_all(client: httpx.Client) -> list[str]:
    ids: list[str] = []
    page = 1
    while True:
        body = client.post("/v3/workspaces/list", params={"page": page, "size": 100}).json()
        ids += [item["id"] for item in body["items"]]
        if page >= body["pages"]:
            return ids
        page += 1


def test_many_threads_through_one_sync_client(fake: FakeHoncho, client: httpx.Client) -> None:
    def create(n: int) -> int:
        return client.post("/v3/workspaces", json={"id": f"w{n}"}).status_code

    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(create, range(80))) == {201}
    assert len(workspace_ids_all(client)) == 80


def test_the_official_sdk_through_the_transport_and_serve(fake: FakeHoncho) -> None:
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as http_client:
        honcho = Honcho(base_url="http://fake", workspace_id="sdk-ws", http_client=http_client)
        peer = honcho.peer("alice", metadata={"role": "user"})
        assert peer.id == "alice"
    with fake.serve() as base_url:
        served = Honcho(base_url=base_url, workspace_id="sdk-ws")
        assert [p.id for p in served.peers()] == ["alice"]
    assert fake.requests[0].path == "/v3/workspaces"


def test_close_is_idempotent_and_stops_transport_threads() -> None:
    fake = FakeHoncho()
    client = httpx.Client(transport=fake.transport(), base_url="http://fake")

    async def from_inside_a_loop() -> int:
        return client.get("/health").status_code

    before = threading.active_count()
    assert asyncio.run(from_inside_a_loop()) == 200  # starts the background loop thread
    assert threading.active_count() == before + 1
    fake.close()
    fake.close()
    assert threading.active_count() == before


def test_repr_names_mode_and_journal_size(fake: FakeHoncho, client: httpx.Client) -> None:
    client.get("/health")
    assert (
        repr(fake) == f"<FakeHoncho version={DEFAULT_VERSION} auth=off embed_messages=on "
        "deriver='immediate' requests=1>"
    )


def test_a_journal_limit_keeps_only_the_most_recent_requests() -> None:
    with (
        FakeHoncho(journal_limit=3) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        for n in range(10):
            client.get("/health", params={"n": n})
        assert len(fake.requests) == 3
        assert [entry.query["n"] for entry in fake.requests] == ["7", "8", "9"]
        assert fake.requests[0].query == {"n": "7"}
        assert [entry.query["n"] for entry in fake.requests[-2:]] == ["8", "9"]
    with pytest.raises(ValueError, match="journal limit"):
        FakeHoncho(journal_limit=0)


def test_a_served_request_is_journaled_before_its_answer_arrives(fake: FakeHoncho) -> None:
    with fake.serve() as base_url, httpx.Client(base_url=base_url) as served:
        for number in range(1, 21):
            served.post("/v3/workspaces", json={"id": f"ws{number}"})
            assert len(fake.requests) == number
            assert fake.requests[-1].json == {"id": f"ws{number}"}


def test_large_bodies_come_back_from_the_journal_byte_for_byte(
    fake: FakeHoncho, client: httpx.Client
) -> None:
    batch = {"messages": [{"peer_id": "alice", "content": f"note {n} " * 60} for n in range(100)]}
    raw = json.dumps(batch).encode()
    response = client.post(
        "/v3/workspaces/ws/sessions/s/messages",
        content=raw,
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 201
    assert fake.requests[-1].body == raw
    assert fake.requests[-1].json == batch
