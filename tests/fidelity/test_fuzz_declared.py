"""The generated differential's judge: each rule excuses what it proves and nothing else,
and the settle points take the server's deletion timing out of the comparison."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.drift.fuzz import Differential, FuzzRecording, fake_for, replay
from fake_honcho.drift.fuzz_declared import History, declared_by
from fake_honcho.drift.fuzz_exchange import Answer, FuzzCase
from fake_honcho.drift.fuzz_settle import Settle, settle_deletion
from fake_honcho.versions import resolve_version

V3012, V31 = resolve_version("3.0.12"), resolve_version("3.1")
JSON = (("content-type", "application/json"),)
CONCLUSIONS = "POST /v3/workspaces/{workspace_id}/conclusions"


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(version="3.1", deriver="manual", ignored_fields="allow") as fake:
        yield fake


def _client(fake: FakeHoncho) -> httpx.Client:
    return httpx.Client(transport=fake.transport(), base_url="http://fake")


def _batch(ws: str, *items: dict[str, str]) -> FuzzCase:
    body = json.dumps({"conclusions": [{"content": "x", **item} for item in items]})
    return FuzzCase(CONCLUSIONS, "POST", f"/v3/workspaces/{ws}/conclusions", JSON, body.encode())


def _missing(kind: str, name: str, ws: str = "w") -> Answer:
    return Answer(404, detail=f"{kind} {name} not found in workspace {ws}")


# -- conclusion-check-order -----------------------------------------------------------


def test_conclusion_order_excuses_another_missing_member_of_the_batch(fake: FakeHoncho) -> None:
    with _client(fake) as client:
        client.post("/v3/workspaces/w/peers", json={"id": "a"})
        client.post("/v3/workspaces/w/sessions", json={"id": "here"})
    history = History(store=fake.store)
    pair = {"observer_id": "a", "observed_id": "a"}
    case = _batch("w", {**pair, "session_id": "s1"}, {**pair, "session_id": "s2"})
    got = _missing("Session", "s1")
    assert declared_by(case, _missing("Session", "s2"), got, V31, history) == (
        "conclusion-check-order"
    )
    # the fake holds the session the server names: not the order, a state difference
    here = _batch("w", {**pair, "session_id": "here"}, {**pair, "session_id": "s1"})
    assert declared_by(here, _missing("Session", "here"), got, V31, history) is None
    # a name the batch does not hold, another workspace, another check, another status
    assert declared_by(case, _missing("Session", "s3"), got, V31, history) is None
    assert declared_by(case, _missing("Session", "s2", "v"), got, V31, history) is None
    assert declared_by(case, _missing("Peer", "a"), got, V31, history) is None
    assert declared_by(case, Answer(500), got, V31, history) is None
    assert declared_by(case, Answer(201), got, V31, history) is None
    assert (
        declared_by(case, _missing("Session", "s2"), Answer(422, errors=()), V31, history) is None
    )


def test_conclusion_order_among_peers_and_the_500_of_a_bad_name(fake: FakeHoncho) -> None:
    with _client(fake) as client:
        client.post("/v3/workspaces/w/peers", json={"id": "a"})
    history = History(store=fake.store)
    case = _batch("w", {"observer_id": "b", "observed_id": "c"})
    assert declared_by(case, _missing("Peer", "c"), _missing("Peer", "b"), V31, history) == (
        "conclusion-check-order"
    )
    held = _batch("w", {"observer_id": "a", "observed_id": "c"})
    assert declared_by(held, _missing("Peer", "a"), _missing("Peer", "c"), V31, history) is None
    # 3.0.12 refuses a name that breaks the pattern as it reaches it: a 500 or a 404 first
    bad = _batch("w", {"observer_id": "b b", "observed_id": "c"})
    assert declared_by(bad, Answer(500), _missing("Peer", "c"), V3012, history) == (
        "conclusion-check-order"
    )
    assert declared_by(bad, _missing("Peer", "c"), Answer(500), V3012, history) == (
        "conclusion-check-order"
    )
    assert declared_by(case, Answer(500), _missing("Peer", "b"), V3012, history) is None


# -- deletion-at-once -------------------------------------------------------------------


def _delete(path: str) -> FuzzCase:
    return FuzzCase("DELETE", "DELETE", path)


def test_a_deletion_seen_carried_out_excuses_nothing(fake: FakeHoncho) -> None:
    history = History(store=fake.store)
    history.record(_delete("/v3/workspaces/w/sessions/s"), Answer(202), Settle(8.0, True))
    write = FuzzCase("PUT", "PUT", "/v3/workspaces/w/sessions/s/peers", JSON, b"{}")
    assert declared_by(write, _missing("Session", "s"), Answer(200), V31, history) is None


def test_a_deletion_not_seen_carried_out_excuses_only_its_inactive_session(
    fake: FakeHoncho,
) -> None:
    history = History(store=fake.store)
    history.record(_delete("/v3/workspaces/w/sessions/s"), Answer(202), Settle(120.0, False))
    history.record(_delete("/v3/workspaces/w/sessions/t"), Answer(404))
    write = FuzzCase("PUT", "PUT", "/v3/workspaces/w/sessions/s/peers", JSON, b"{}")
    scoped = FuzzCase("DELETE", "DELETE", "/v3/workspaces/w/scopes/p/sessions/s")
    gone = _missing("Session", "s")
    assert declared_by(write, gone, Answer(200), V31, history) == "deletion-at-once"
    assert declared_by(scoped, gone, Answer(204), V31, history) == "deletion-at-once"
    assert declared_by(write, _missing("Peer", "s"), Answer(200), V31, history) is None
    other = FuzzCase("PUT", "PUT", "/v3/workspaces/w/sessions/t/peers", JSON, b"{}")
    assert declared_by(other, _missing("Session", "t"), Answer(200), V31, history) is None
    assert declared_by(write, Answer(500), Answer(200), V31, history) is None


def test_a_workspace_not_seen_deleted_excuses_only_the_fakes_missing_workspace(
    fake: FakeHoncho,
) -> None:
    history = History(store=fake.store)
    history.record(_delete("/v3/workspaces/w"), Answer(202))  # an old recording: no settle
    chat = FuzzCase("POST", "POST", "/v3/workspaces/w/chat", JSON, b'{"query": "q"}')
    missing = Answer(404, detail="Workspace w not found")
    assert declared_by(chat, Answer(200), missing, V31, history) == "deletion-at-once"
    assert declared_by(chat, Answer(200), Answer(422, errors=()), V31, history) is None
    with _client(fake) as client:
        client.post("/v3/workspaces", json={"id": "w"})  # the fake holds it again
    assert declared_by(chat, Answer(200), missing, V31, history) is None


def test_a_refused_writes_phantom_workspace_is_no_excuse(fake: FakeHoncho) -> None:
    """The fake reproduces it: a 409 it does not give is a reproduction gap."""
    create = FuzzCase("POST", "POST", "/v3/workspaces/w/peers", JSON, b'{"id": "p"}')
    phantom = Answer(409, detail="Unable to create or get peers: ['p']")
    assert declared_by(create, phantom, Answer(201), V31, History(store=fake.store)) is None


# -- pydantic-release-parsing -----------------------------------------------------------


def test_only_an_exponent_datetime_in_the_query_is_the_pydantic_release() -> None:
    def keys(expires: str) -> FuzzCase:
        return FuzzCase("POST /v3/keys", "POST", f"/v3/keys?expires_at={expires}")

    refused = Answer(422, errors=(("datetime_from_date_parsing", "query.expires_at"),))
    auth_off = Answer(405, detail="Feature is disabled")
    history = History()
    case = keys("-4.376799134483531e%2B16")
    assert declared_by(case, auth_off, refused, V3012, history) == "pydantic-release-parsing"
    assert declared_by(keys("yesterday"), auth_off, refused, V3012, history) is None
    both = Answer(422, errors=(("int_parsing", "query.page"),))
    assert declared_by(case, both, refused, V3012, history) is None


# -- settle points ----------------------------------------------------------------------


def _stepping(fake: FakeHoncho, after: int) -> tuple[Callable[[], float], Callable[[float], None]]:
    """A clock and a sleep that run the fake's deriver once ``after`` polls have passed."""
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds
        if now[0] >= after * 0.5:
            fake.deriver.run_until_idle()

    return (lambda: now[0]), sleep


@pytest.mark.parametrize("holds", ["messages", "members", "nothing"])
def test_a_session_deletion_is_waited_for(fake: FakeHoncho, holds: str) -> None:
    with _client(fake) as client:
        peers: dict[str, dict[str, bool]] = {"p": {}} if holds == "members" else {}
        client.post("/v3/workspaces/w/sessions", json={"id": "s", "peers": peers})
        if holds == "messages":
            message = {"content": "hi", "peer_id": "q"}
            client.post("/v3/workspaces/w/sessions/s/messages", json={"messages": [message]})
        fake.deriver.run_until_idle()
        delete = _delete("/v3/workspaces/w/sessions/s")
        assert client.delete(delete.target).status_code == 202
        clock, sleep = _stepping(fake, after=3)
        settle = settle_deletion(client, delete, Answer(202), clock=clock, sleep=sleep)
        assert settle is not None and settle.done and settle.waited == 1.5
        assert (settle.probe is None) == (holds != "nothing")
        if settle.probe is not None:  # the session is created again on the server
            assert settle.probe[1].status == 201
            assert fake.store.get("sessions", ("w", "s")) is not None
        assert (
            client.post("/v3/workspaces/w/sessions/s/messages/list", json={}).json()["items"] == []
        )


def test_a_workspace_deletion_is_waited_for_and_a_timeout_says_so(fake: FakeHoncho) -> None:
    with _client(fake) as client:
        client.post("/v3/workspaces", json={"id": "w"})
        delete = _delete("/v3/workspaces/w")
        assert client.delete(delete.target).status_code == 202
        clock, sleep = _stepping(fake, after=10**6)
        late = settle_deletion(client, delete, Answer(202), 5.0, clock, sleep)
        assert late is not None and not late.done and late.waited >= 5.0
        clock, sleep = _stepping(fake, after=2)
        settle = settle_deletion(client, delete, Answer(202), clock=clock, sleep=sleep)
        assert settle == Settle(1.0, True)
        assert settle_deletion(client, delete, Answer(404)) is None
        assert settle_deletion(client, _delete("/v3/workspaces/w/peers/p"), Answer(204)) is None


def test_a_recording_keeps_its_settles_and_replay_sends_the_probe(tmp_path: Path) -> None:
    ws = "/v3/workspaces/w"
    create = FuzzCase("POST /v3/workspaces", "POST", "/v3/workspaces", JSON, b'{"id": "w"}')
    session = FuzzCase("POST s", "POST", f"{ws}/sessions", JSON, b'{"id": "s"}')
    delete = _delete(f"{ws}/sessions/s")
    settle = Settle(9.0, True, (session, Answer(201)))
    recording = FuzzRecording(
        "http://server", "3.1", False, 7, 20, (create, session, delete),
        (Answer(201), Answer(201), Answer(202)), "test", (None, None, settle),
    )  # fmt: skip
    read = FuzzRecording.read(recording.write(tmp_path))
    assert read.settles == (None, None, settle) and replay(read) == []
    for settles, kept in ((read.settles, True), ((None, None, None), False)):
        with fake_for("3.1", False, auth=False) as fresh, _client(fresh) as client:
            differential = Differential(V31, fresh, client)
            for case, real, after in zip(read.cases, read.answers, settles, strict=True):
                differential.step(case, real, after)
            assert (fresh.store.get("sessions", ("w", "s")) is not None) == kept


def test_a_recording_made_before_settles_reads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "3.1" / "seed-1.json"
    path.parent.mkdir()
    head = {"server": "s", "honcho_version": "3.1", "embed_messages": False, "seed": 1}
    case = FuzzCase("POST /v3/workspaces", "POST", "/v3/workspaces", JSON, b'{"id": "w"}')
    data = {**head, "per_operation": 20, "cases": [[case.as_json(), [201]]]}
    path.write_text(json.dumps(data))
    recording = FuzzRecording.read(path)
    assert recording.settles == () and recording.settle(0) is None


def test_the_differential_judges_against_the_fakes_state_at_the_time(fake: FakeHoncho) -> None:
    pair = {"observer_id": "a", "observed_id": "a"}
    case = _batch("w", {**pair, "session_id": "s1"}, {**pair, "session_id": "s2"})
    with _client(fake) as client:
        differential = Differential(V31, fake, client)
        differential.step(FuzzCase("P", "POST", "/v3/workspaces/w/peers", JSON, b'{"id": "a"}'),
                          Answer(201))  # fmt: skip
        differential.step(case, _missing("Session", "s2"))
        differential.step(FuzzCase("S", "POST", "/v3/workspaces/w/sessions", JSON,
                                   b'{"id": "s2"}'), Answer(201))  # fmt: skip
    [difference] = differential.found
    assert difference.declared == "conclusion-check-order"  # s2 was missing on the fake then
